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


def sanitized_tables() -> frozenset[str]:
    """The tables the sanitize rules write, and those of the stages of shards after it (the chunks cut
    from them): carried only when the earlier version sanitized with the rules of today
    (`texts.sanitize_version`); otherwise the shard's sanitize stage and those after it run again on the
    carried page texts, so that a change of the rules (what personal data they redact, in hidden text and
    furniture too) reaches every shard without reading or OCRing it again."""
    order = graph().order
    start = next(i for i, s in enumerate(order) if s.name == "sanitize")
    return frozenset(t for s in order[start:] if s.partitioned for t in s.writes)


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
    or ``skipped`` document is retried by a new version, DESIGN §3, so its shard is not carried).

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
    from assets.extract.shard import CARRY_STATUSES
    from quality.sanitizer import SANITIZE_VERSION
    from readers.core.model import ContentKind
    from readers.core.reader_chain import chain_signature

    carried_tables, sanitized = graph().carried_tables, sanitized_tables()
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
            rules = wh.read("texts", source, shard, columns=("sanitize_version",)).column(0).to_pylist()
            same_rules = all(r == SANITIZE_VERSION for r in rules)
            for table in carried_tables:
                if table in sanitized and not same_rules:
                    continue
                if wh.has_partition(table, source, shard):
                    wh.carry_partition(table, source, version, shard)
            carried[shard] = source
    return CarryReport(version, carried)
