"""Which shards each stage must run on: the staleness rules, as plain functions over the warehouse.

Each stage's declaration (assets/stages.py) names its rule here. The stages ask them for the shards of
their run's range, ``assay run`` to plan its runs, and the automation (orchestration/automation.py) in
its conditions, so that a scheduled backfill runs exactly the shards a manual run would.

A new extractor version does not make every shard stale: assets/carry.py first carries the shards it
would read identically, and only the others, and new ones, are left to extract.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from warehouse import Warehouse


@dataclass(frozen=True, slots=True)
class ExtractPlan:
    """The shards whose documents differ from what the current version has extracted (or that lack a
    partition), and how many documents in them are not extracted yet (the progress bar's total)."""

    shards: list[str]
    pending: int


def plan_extract(wh: Warehouse, version: str, within: Collection[str] | None = None) -> ExtractPlan:
    """``within``: only these shards (a run's range)."""
    from readers.core.model import FILE_PROBLEMS

    docs = wh.keys_by_shard("documents", version)
    done: dict[str, set[str]] = {s: set() for s in wh.shards("derivations", version)}
    # Documents skipped for a problem of their file (gone, unreadable, changed since the walk): read again
    # where the walk still finds them (assets/extract/shard.py `settled`).
    again: dict[str, set[str]] = {}
    columns = ("shard", "sha256", "status", "reason")
    for shard, sha, status, reason in wh.columns("derivations", version, columns):
        done.setdefault(shard, set()).add(sha)
        if status == "skipped" and reason in FILE_PROBLEMS:
            again.setdefault(shard, set()).add(sha)
    complete = set(done)
    for table in ("underivables", "pages", "page_fonts", "tables"):
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
    return ExtractPlan(stale, pending)


def plan_verdicts(wh: Warehouse, version: str) -> list[str]:
    """Shards whose documents with pages are not all judged under ``version`` with the current rules and
    vocabulary, or that lack a partition."""
    from quality.corpus_vocabulary import VocabularyWord, by_language
    from quality.verdicts import verdicts_version_for

    words = by_language(
        VocabularyWord(r["language"], r["word"], r["documents"]) for r in wh.rows("vocabulary", version)
    )
    current = verdicts_version_for(words)
    paged = wh.keys_by_shard("pages", version)
    judged = wh.keys_by_shard("page_verdicts", version)
    versions = wh.values_by_shard("page_verdicts", version, "verdicts_version")
    return sorted(
        s
        for s in set(paged) | set(judged)
        if paged.get(s, set()) != judged.get(s) or versions.get(s, set()) - {current}
    )


@dataclass(frozen=True, slots=True)
class OcrPlan:
    """The shards the OCR stage must run on, and how many pages it will read (the progress bar's total)."""

    shards: list[str]
    pages: int


def plan_ocr(wh: Warehouse, version: str, within: Collection[str] | None = None) -> OcrPlan:
    """Shards whose pages sent to OCR (REPLACE pages, image frames, FIGURES pages' figures) differ from
    the pages OCR has rows for, or whose verdicts were written after their final page texts; ``within``:
    only these shards (a run's range)."""
    from assets.ocr.scope import RENDERABLE, RETRIED_REASONS, SENT_TO_OCR
    from readers.core.model import ContentKind

    renderable = {
        sha
        for sha, kind in wh.columns("documents", version, ("sha256", "kind"))
        if ContentKind(kind) in RENDERABLE
    }
    wanted: dict[str, set[tuple[str, int, str]]] = {}
    for shard, sha, page, mode in wh.columns("page_verdicts", version, ("shard", "sha256", "page", "mode")):
        if mode in SENT_TO_OCR and sha in renderable:
            wanted.setdefault(shard, set()).add((sha, page, SENT_TO_OCR[mode].value))
    done: dict[str, set[tuple[str, int, str]]] = {}
    retry: set[str] = set()
    columns = ("shard", "sha256", "page", "scope", "reason")
    for shard, sha, page, scope, reason in wh.columns("ocr_pages", version, columns):
        done.setdefault(shard, set()).add((sha, page, scope))
        if reason in RETRIED_REASONS:
            retry.add(shard)
    if retry:
        from readers.images.tesseract import installed_version

        if not installed_version():
            retry = set()  # still nothing to retry with
    judged, final = wh.written_at("page_verdicts", version), wh.written_at("page_texts", version)
    stale = sorted(
        s
        for s in set(wanted) | set(done) | set(judged)
        if (within is None or s in within)
        and (wanted.get(s, set()) != done.get(s, set()) or s in retry or final.get(s, -1) < judged.get(s, -1))
    )
    pages = sum(len(wanted.get(s, set()) - done.get(s, set())) for s in stale)
    return OcrPlan(stale, pages)


def plan_after(wh: Warehouse, version: str, source: str, tables: Sequence[str]) -> list[str]:
    """Shards whose ``source`` partition was written after one of ``tables``' partitions, or that lack one:
    the stage that turns ``source`` into ``tables`` must run there again."""
    written = wh.written_at(source, version)
    outputs = [wh.written_at(t, version) for t in tables]
    return sorted(s for s, at in written.items() if any(out.get(s, -1) < at for out in outputs))
