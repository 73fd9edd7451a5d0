"""Which shards each stage must run on: the staleness rules, as plain functions over the warehouse.

``assay run`` asks them after each stage; the automation (orchestration/automation.py) asks them in its
conditions, so that a scheduled backfill runs exactly the shards a manual run would.

A new extractor version does not make every shard stale. :func:`carry_forward` first carries, whole, the
shards whose documents the new version would read identically (every document's reader chain unchanged,
and no outcome that a new version retries): their partitions are copied to the new version with
``extractor_version`` rewritten, in pipeline order, and no stage runs there. Only the other shards, and
new ones, are left to extract.
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
    from readers.model import FILE_PROBLEMS

    docs = wh.keys_by_shard("documents", version)
    done: dict[str, set[str]] = {s: set() for s in wh.shards("derivations", version)}
    # Documents skipped for a problem of their file (gone, unreadable, changed since the walk): read again
    # where the walk still finds them (readers/shard.py `settled`).
    again: dict[str, set[str]] = {}
    columns = ("shard", "sha256", "status", "reason")
    for shard, sha, status, reason in wh.columns("derivations", version, columns):
        done.setdefault(shard, set()).add(sha)
        if status == "skipped" and reason in FILE_PROBLEMS:
            again.setdefault(shard, set()).add(sha)
    complete = set(done)
    for table in ("underivables", "pages", "page_fonts"):
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
    from quality.stage import verdicts_version_for
    from quality.vocabulary import VocabularyWord, by_language

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
    from readers.model import ContentKind
    from readers.ocr_shard import RENDERABLE, RETRIED_REASONS, SENT_TO_OCR

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
        from readers.ocr import installed_version

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


# The tables a shard's stages write, in pipeline order: carried in this order, so that each stage's output
# is newer than its input and the planners above see the carried shard as up to date. `derivations` goes
# last: its partition is what marks a shard extracted, so a carry killed half-way is redone whole. The walk
# writes `documents` itself, for every version.
CARRIED_TABLES = (
    "underivables",
    "pages",
    "page_fonts",
    "page_verdicts",
    "font_verdicts",
    "repairs",
    "ocr_pages",
    "page_texts",
    "texts",
    "redactions",
    "hidden_text",
    "furniture",
    "chunks",
    "derivations",
)
# The tables the sanitize rules write, and the chunks cut from them: carried only when the earlier version
# sanitized with the rules of today (`texts.sanitize_version`); otherwise the shard's sanitize and chunk
# stages run again on the carried page texts, so that a change of the rules (what personal data they
# redact, in hidden text and furniture too) reaches every shard without reading or OCRing it again.
SANITIZED_TABLES = frozenset({"texts", "redactions", "hidden_text", "furniture", "chunks"})


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
    from quality.sanitize import SANITIZE_VERSION
    from readers.model import ContentKind
    from readers.shard import CARRY_STATUSES
    from readers.table import chain_signature

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
            for table in CARRIED_TABLES:
                if table in SANITIZED_TABLES and not same_rules:
                    continue
                if wh.has_partition(table, source, shard):
                    wh.carry_partition(table, source, version, shard)
            carried[shard] = source
    return CarryReport(version, carried)
