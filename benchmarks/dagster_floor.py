"""The least a Dagster run costs a new process, whatever the run does: the floor under `assay run`.

    .venv/bin/python benchmarks/dagster_floor.py HOME [--stages N] [--keys K]

Imports Dagster, makes a fresh instance in ``HOME`` as `assay run` makes its home's (SQLite storage
committed without waiting for the disk, no telemetry, no compute log capture, console logs quiet), and
executes one in-process run of ``N`` chained assets (1 by default)
over the first ``K`` of 256 static partitions (1 by default), each asset's function doing nothing. Prints
the run's own seconds (from the instance made to the run's end) on its last line.

`benchmarks/record.py` times it as a new process beside `assay run` and `assay check` (section 6, one
asset over one partition: no `assay run` takes less), and in the shape of a first run's plan (section 7:
the partitioned stages over the plan's range of keys: what Dagster records of it, whatever the work).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import dagster as dg

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from assets.partitions import shards  # noqa: E402
from assets.shard_keys import RANGE_END_TAG, RANGE_START_TAG, SHARD_KEYS  # noqa: E402
from orchestration.run_instance import QUIET_LOGS, run_instance_yaml  # noqa: E402
from orchestration.sqlite_sync import commit_without_sync  # noqa: E402


def chained_assets(stages: int) -> list[dg.AssetsDefinition]:
    """``stages`` partitioned assets, each depending on the one before, each doing nothing."""
    out: list[dg.AssetsDefinition] = []
    for i in range(stages):

        @dg.asset(
            name=f"stage_{i}",
            partitions_def=shards,
            backfill_policy=dg.BackfillPolicy.single_run(),
            deps=[out[-1]] if out else [],
        )
        def nothing() -> None:
            """Does nothing: the run's cost is Dagster's alone."""

        out.append(nothing)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("--stages", type=int, default=1)
    parser.add_argument("--keys", type=int, default=1, choices=range(1, 257), metavar="1..256")
    args = parser.parse_args(argv)
    args.home.mkdir(parents=True, exist_ok=True)
    (args.home / "dagster.yaml").write_bytes(run_instance_yaml((REPO / "dagster.yaml").read_bytes()))
    assets = chained_assets(args.stages)
    started = time.perf_counter()
    commit_without_sync(args.home)
    with dg.DagsterInstance.from_config(str(args.home)) as instance:
        if args.keys == 1:
            kwargs: dict[str, object] = {"partition_key": SHARD_KEYS[0]}
        else:
            kwargs = {"tags": {RANGE_START_TAG: SHARD_KEYS[0], RANGE_END_TAG: SHARD_KEYS[args.keys - 1]}}
        result = dg.materialize(assets, instance=instance, run_config=QUIET_LOGS, **kwargs)
    print(f"{time.perf_counter() - started:.3f}")
    return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main())
