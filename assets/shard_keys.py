"""256 static shards, ``sha256[:2]``, for every per-document stage (docs/design.md §2), and what a run
over a range of them costs: plain Python, read by the planner (assets/partitions.py makes them Dagster's
partitions).

The shard count never grows with the corpus; a backfill policy batches shards into runs.
"""

from collections.abc import Sequence

SHARD_KEYS: list[str] = [f"{i:02x}" for i in range(256)]

# Shards per run when a backfill or `assay run` covers many shards. Each run costs Dagster a fixed
# overhead (about 0.3-0.4 s with the SQLite instance on this kind of machine), each shard about 17 ms when
# it holds nothing new (docs/benchmarks.md, section 5): 32 keeps a full 256-shard pass to 8 runs.
SHARDS_PER_RUN = 32

# What a Dagster run of `assay run` costs besides its work, with the home's SQLite instance on this kind
# of machine: a fixed part per run, and a part per shard and stage of its range (two events each: the
# planned materialization and the materialization with the shard's metadata). From docs/benchmarks.md
# section 5: 0.27-0.39 s per run and 21-36 ms per shard and stage, the lower figures with unsynced
# commits (orchestration/sqlite_sync.py).
RUN_COST_S = 0.39
SHARD_STEP_COST_S = 0.02
# A run through every stage holds its range's rows stage by stage (an earlier version's rows too, to carry
# them): at most this many documents share one, so memory stays bounded as the corpus grows (section 4).
DOCUMENTS_PER_RUN = 2000

#: The run tags that make one run cover a range of shard keys, as Dagster's backfills tag their ranged
#: runs (documented with backfill policies; Dagster exports no name for them).
RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"


def shard_ranges(touched: list[str], per_run: int = SHARDS_PER_RUN) -> list[tuple[str, str]]:
    """Cover the touched shards with contiguous key ranges of at most ``per_run`` shards each.

    Untouched shards inside a range read nothing (their documents are kept), but Dagster records every
    partition of a step's range: about 40 ms per shard and stage, against about 0.39 s per run
    (docs/benchmarks.md section 5), so ranges of at most ``per_run`` shards around the touched ones beat
    one run per shard without paying for the whole key space.
    """
    index = sorted(SHARD_KEYS.index(s) for s in set(touched))
    ranges: list[tuple[str, str]] = []
    start = None
    for i in index:
        if start is None:
            start = end = i
        elif i - start < per_run:
            end = i
        else:
            ranges.append((SHARD_KEYS[start], SHARD_KEYS[end]))
            start = end = i
    if start is not None:
        ranges.append((SHARD_KEYS[start], SHARD_KEYS[end]))
    return ranges


def range_width(key_range: tuple[str, str]) -> int:
    return SHARD_KEYS.index(key_range[1]) - SHARD_KEYS.index(key_range[0]) + 1


def runs_cost(ranges: Sequence[tuple[str, str]], steps: int) -> float:
    """What Dagster adds to the work of one run per range, each over ``steps`` stages of shards (see
    :data:`RUN_COST_S`)."""
    return sum(RUN_COST_S + range_width(r) * steps * SHARD_STEP_COST_S for r in ranges)


def covering_shards(touched: set[str] | list[str], per_run: int = SHARDS_PER_RUN) -> set[str]:
    """Every shard of the aligned blocks of ``per_run`` shards (00-1f, 20-3f, ...) that hold a touched one.

    A Dagster run covers one contiguous range of partition keys, so a backfill of scattered shards would
    be one run per shard (ninety runs for ninety stale shards among 256); asking for whole blocks keeps it
    to a run per block, the same blocks a full backfill uses. The blocks are fixed, not fitted to the
    touched shards, so that a later evaluation, while part of a backfill still runs, never asks for a
    range that straddles it. The other shards of a block are not stale: the stages keep their rows without
    reading anything.
    """
    blocks = {SHARD_KEYS.index(s) // per_run for s in touched}
    return {key for i, key in enumerate(SHARD_KEYS) if i // per_run in blocks}
