"""Carry-forward to a new extractor version: the shards it would read identically are copied, not read.

A new extractor version does not make every shard stale. :func:`carry_forward` first carries, whole, the
shards whose documents the new version would read identically (every document's reader chain unchanged,
and no outcome that a new version retries): their partitions are copied to the new version with
``extractor_version`` rewritten, in pipeline order (assets/stages.py ``StageGraph.carried_tables``), and no
stage runs there. Only the other shards, and new ones, are left to extract.
"""

from __future__ import annotations

from dataclasses import dataclass

from assets.stages import graph
from warehouse import Warehouse


@dataclass(frozen=True, slots=True)
class CarryReport:
    """What :func:`carry_forward` did: the shards carried whole, from which version each."""

    version: str
    carried: dict[str, str]

    def __len__(self) -> int:
        return len(self.carried)


def carry_forward(wh: Warehouse, version: str) -> CarryReport:
    """Carry to ``version``, whole, each shard that ``version`` has not extracted and that the most recent
    earlier version with its partitions extracted exactly as ``version`` would: the same documents, each
    ``derived`` or ``unsupported`` by a reader chain with the same signature (an ``error``, ``underivable``
    or ``skipped`` document is retried by a new version, docs/design.md §3, so its shard is not carried).

    Copying a shard's partitions costs a few milliseconds; reading its documents again, judging their pages
    and OCRing its scans costs seconds to minutes, for the same rows.
    """
    documents = wh.keys_by_shard("documents", version)
    extracted = set(wh.shards("derivations", version))
    carried: dict[str, str] = {}
    previous_versions = [v for v in reversed(wh.versions("derivations")) if v != version]
    candidates = sorted(set(documents) - extracted)
    if not candidates or not previous_versions:
        return CarryReport(version, carried)  # nothing new to carry: a rerun pays no import below
    from assets.extract.work import CARRY_STATUSES
    from readers.core.model import ContentKind
    from readers.core.reader_chain import chain_signature

    stages = graph()
    for shard in candidates:
        source = next((v for v in previous_versions if wh.has_partition("derivations", v, shard)), None)
        if source is None:
            continue
        columns = ("sha256", "kind", "status", "reader_chain")
        before = {r["sha256"]: r for r in wh.read("derivations", source, shard, columns=columns).to_pylist()}
        if set(before) != documents[shard]:
            continue
        if all(
            r["status"] in CARRY_STATUSES and r["reader_chain"] == chain_signature(ContentKind(r["kind"]))
            for r in before.values()
        ):
            # A stage whose rules changed since (and the stages after it) runs again on the carried tables.
            again = {
                t
                for s in stages.order
                if s.partitioned and s.carried is not None and not s.carried(wh, source, shard)
                for later in stages.from_stage(s.name)
                for t in later.writes
            }
            for table in stages.carried_tables:
                if table in again:
                    continue
                if wh.has_partition(table, source, shard):
                    wh.carry_partition(table, source, version, shard)
            carried[shard] = source
    return CarryReport(version, carried)
