"""The extract stage's declaration: each document read by the readers for its kind, tried in order,
and the rule that says which shards must be read again."""

from __future__ import annotations

from collections.abc import Collection

from assets.planner import ShardPlan
from assets.stages import Stage
from quality.expectations import FALLBACK
from warehouse import Warehouse


def stale_extract(wh: Warehouse, version: str, within: Collection[str] | None = None) -> ShardPlan:
    """The shards whose documents differ from what ``version`` has extracted (or that lack a partition),
    and how many documents in them are not extracted yet (the total); ``within``: only these shards (a
    run's range)."""
    from readers.core.model import FILE_PROBLEMS

    docs = wh.keys_by_shard("documents", version)
    done: dict[str, set[str]] = {s: set() for s in wh.shards("derivations", version)}
    # Documents skipped for a problem of their file (gone, unreadable, changed since the walk): read again
    # where the walk still finds them (assets/extract/work.py ``read_for_good``).
    again: dict[str, set[str]] = {}
    columns = ("shard", "sha256", "status", "reason")
    for shard, sha, status, reason in wh.columns("derivations", version, columns):
        done.setdefault(shard, set()).add(sha)
        if status == "skipped" and reason in FILE_PROBLEMS:
            again.setdefault(shard, set()).add(sha)
    complete = set(done)
    for table in STAGE.writes[:-1]:
        complete &= set(wh.shards(table, version))
    stale = sorted(
        shard
        for shard in set(docs) | set(done)
        if (within is None or shard in within)
        and (
            docs.get(shard, set()) != done.get(shard, set())
            or (docs.get(shard) and shard not in complete)
            or docs.get(shard, set()) & again.get(shard, set())
        )
    )
    pending = sum(len(docs.get(s, set()) - (done.get(s, set()) - again.get(s, set()))) for s in stale)
    return ShardPlan(stale, pending)


STAGE = Stage(
    "extract",
    after=("walk",),
    reads=("documents",),
    writes=("underivables", "pages", "page_fonts", "tables", "derivations"),
    partitioned=True,
    stale=stale_extract,
    asset="assets.extract.asset:extract",
    group="ingest",
    description="Text per page from the readers for each content kind, tried in order; one derivation "
    "per document and one Underivable per attempt that produced nothing.",
    job="Extract a range of shards; backfills run in batches of the backfill policy.",
    checked=("derivations", "pages"),
    unit="documents",
    rates=((FALLBACK, "derivations"),),
    needs_total=True,
)
