"""The shards as Dagster's partitions (docs/design.md §2): 256 static keys (assets/shard_keys.py), and the
backfill policy that batches them into runs of ``SHARDS_PER_RUN``.
"""

import warnings

import dagster as dg

from assets.shard_keys import SHARD_KEYS, SHARDS_PER_RUN

# Backfill policies are marked beta in Dagster 1.13; assay pins the minor release, so the warning at
# every import tells a user nothing they can act on.
warnings.filterwarnings("ignore", message=r".*`backfill_policy`.*beta", category=dg.BetaWarning)

shards = dg.StaticPartitionsDefinition(SHARD_KEYS)
backfill_policy = dg.BackfillPolicy.multi_run(max_partitions_per_run=SHARDS_PER_RUN)
