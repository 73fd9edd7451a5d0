"""The extract stage for one shard, as a plain function.

For each document of the shard, in sha256 order:

- already extracted under the current extractor version: the rows are kept, the file is not read again
  (unless its file was gone, unreadable or changed since the walk then: :func:`read_for_good`);
- extracted under an earlier version whose readers for the kind are unchanged (same chain signature) and
  whose outcome does not call for a retry: the rows are carried over, marked ``carried_from``;
- otherwise the file is read.

Statuses ``error``, ``underivable`` and ``skipped`` are retried on a new extractor version; ``unsupported``
only when the kind's readers change (docs/design.md §3).

A document's text is kept to ``max_text_chars`` characters (:func:`cap_pages`): every later stage holds a
document's text, in several copies, in the stage's process, so this bound is what bounds their memory. A
derivation cut there stays ``derived`` with reason ``text_capped:<max_text_chars>``; the pages past the
bound are not stored.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from quality.document_signals import PageMeasures, measure_document
from readers.core.base import collector_paused, freeze_long_lived
from readers.core.model import (
    FILE_PROBLEMS,
    OCR_KINDS,
    ContentKind,
    DocumentStatus,
    FoundTable,
    PageText,
    ReadLimits,
)
from readers.core.reader_chain import chain_signature
from readers.core.reading_records import (
    DerivationRecord,
    DocumentRecord,
    PageFontRecord,
    PageRecord,
    TableRecord,
    UnderivableRecord,
)
from readers.engine.dispatch import Extraction
from readers.engine.isolation import DocumentReads, InProcessReads, ReadRequest
from readers.walk.inventory import fs_path

CARRY_STATUSES = frozenset({DocumentStatus.DERIVED.value, DocumentStatus.UNSUPPORTED.value})
# The characters of text kept per document (the setting max_text_chars). The dev corpus's longest text is
# 142,534 characters (a 117-page PDF); 10 million is 70 times that, the text of a 5,000-page PDF (max_pages)
# at 2,000 characters a page. The later stages peak at about 20 bytes per character of a document's text
# (benchmarks/huge_text.py), so a document at the bound costs them about 200 MB, not gigabytes.
DEFAULT_MAX_TEXT_CHARS = 10_000_000
TEXT_CAPPED = "text_capped"
# A cut text ends at the last whitespace this close to the bound, not inside a word.
CUT_BACKOFF_CHARS = 1000


class ExtractOutcome(StrEnum):
    """What the extract stage did with one document in this run."""

    READ = "read"
    KEPT = "kept"
    CARRIED = "carried"


@dataclass(slots=True)
class ShardRows:
    """The extract stage's rows for one shard and one extractor version, grouped by document."""

    derivations: dict[str, DerivationRecord] = field(default_factory=dict)
    underivables: dict[str, list[UnderivableRecord]] = field(default_factory=lambda: defaultdict(list))
    pages: dict[str, list[PageRecord]] = field(default_factory=lambda: defaultdict(list))
    fonts: dict[str, list[PageFontRecord]] = field(default_factory=lambda: defaultdict(list))
    tables: dict[str, list[TableRecord]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def from_rows(
        cls,
        derivations: Iterable[Mapping[str, Any]],
        underivables: Iterable[Mapping[str, Any]],
        pages: Iterable[Mapping[str, Any]],
        fonts: Iterable[Mapping[str, Any]] = (),
        tables: Iterable[Mapping[str, Any]] = (),
    ) -> ShardRows:
        rows = cls()
        for d in derivations:
            rows.derivations[d["sha256"]] = DerivationRecord(**d)
        for u in underivables:
            rows.underivables[u["sha256"]].append(UnderivableRecord(**u))
        for p in pages:
            rows.pages[p["sha256"]].append(PageRecord(**p))
        for f in fonts:
            rows.fonts[f["sha256"]].append(PageFontRecord(**f))
        for t in tables:
            rows.tables[t["sha256"]].append(TableRecord(**t))
        return rows

    def add(self, other: ShardRows, sha256: str) -> None:
        self.derivations[sha256] = other.derivations[sha256]
        self.underivables[sha256] = list(other.underivables.get(sha256, ()))
        self.pages[sha256] = list(other.pages.get(sha256, ()))
        self.fonts[sha256] = list(other.fonts.get(sha256, ()))
        self.tables[sha256] = list(other.tables.get(sha256, ()))

    def sorted_derivations(self) -> list[DerivationRecord]:
        return [self.derivations[k] for k in sorted(self.derivations)]

    def sorted_underivables(self) -> list[UnderivableRecord]:
        return [
            u
            for k in sorted(self.derivations)
            for u in sorted(self.underivables.get(k, ()), key=lambda u: u.attempt)
        ]

    def sorted_pages(self) -> list[PageRecord]:
        return [
            p for k in sorted(self.derivations) for p in sorted(self.pages.get(k, ()), key=lambda p: p.page)
        ]

    def sorted_fonts(self) -> list[PageFontRecord]:
        return [
            f
            for k in sorted(self.derivations)
            for f in sorted(self.fonts.get(k, ()), key=lambda f: (f.page, f.font))
        ]

    def sorted_tables(self) -> list[TableRecord]:
        return [
            t for k in sorted(self.derivations) for t in sorted(self.tables.get(k, ()), key=lambda t: t.table)
        ]


@dataclass(frozen=True, slots=True)
class ShardResult:
    rows: ShardRows
    outcomes: dict[str, ExtractOutcome]
    shard: str = ""

    def count(self, outcome: ExtractOutcome) -> int:
        return sum(1 for o in self.outcomes.values() if o is outcome)


@dataclass(frozen=True, slots=True)
class ShardWork:
    """One shard to extract: its documents, the rows the current version already has, and the rows of the
    most recent earlier version (for carrying over), if any."""

    shard: str
    documents: list[DocumentRecord]
    existing: ShardRows
    prior: ShardRows | None


def extract_shard(
    shard: str,
    documents: Iterable[DocumentRecord],
    *,
    version: str,
    existing: ShardRows,
    prior: ShardRows | None,
    limits: ReadLimits,
    max_document_bytes: int,
    reads: DocumentReads | None = None,
    on_document: Callable[[DocumentRecord, ExtractOutcome, str], None] | None = None,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
) -> ShardResult:
    """Extract every document of ``shard`` under ``version``; see the module docstring. Without ``reads``
    the documents are read in this process, one after another."""
    work = ShardWork(shard, list(documents), existing, prior)
    reads = reads if reads is not None else InProcessReads(limits, max_document_bytes)
    [result] = extract_shards(
        [work], version=version, reads=reads, on_document=on_document, max_text_chars=max_text_chars
    )
    return result


def extract_shards(
    work: Iterable[ShardWork],
    *,
    version: str,
    reads: DocumentReads,
    on_document: Callable[[DocumentRecord, ExtractOutcome, str], None] | None = None,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    forced: Collection[str] = (),
) -> Iterator[ShardResult]:
    """Extract several shards, each shard's result as soon as its last document is done; the documents
    ``forced`` (``assay run --force``) are read, never kept or carried over.

    The documents to read, of every shard, are handed to ``reads`` at once: the pipeline's pool of worker
    processes reads them side by side (a shard holds a handful of documents, so a pool kept to one shard
    would mostly wait). The rows do not depend on the order the reads finish in.
    """
    outs: dict[str, ShardRows] = {}
    outcomes: dict[str, dict[str, ExtractOutcome]] = {}
    to_read: dict[str, DocumentRecord] = {}
    waiting: dict[str, int] = {}

    def done(doc: DocumentRecord, outcome: ExtractOutcome) -> None:
        outcomes[doc.shard][doc.sha256] = outcome
        if on_document is not None:
            on_document(doc, outcome, outs[doc.shard].derivations[doc.sha256].status)

    def result(shard: str) -> ShardResult:
        return ShardResult(outs.pop(shard), dict(sorted(outcomes.pop(shard).items())), shard)

    ready: list[str] = []
    for w in work:
        out = outs[w.shard] = ShardRows()
        outcomes[w.shard] = {}
        waiting[w.shard] = 0
        for doc in sorted(w.documents, key=lambda d: d.sha256):
            if doc.shard != w.shard:
                raise ValueError(f"document {doc.sha256} does not belong to shard {w.shard}")
            kind = ContentKind(doc.kind)
            again = doc.sha256 in forced
            if not again and read_for_good(w.existing.derivations.get(doc.sha256)):
                out.add(w.existing, doc.sha256)
                done(doc, ExtractOutcome.KEPT)
            elif not again and w.prior is not None and _can_carry(w.prior.derivations.get(doc.sha256), kind):
                _carry(w.prior, doc.sha256, version, out)
                done(doc, ExtractOutcome.CARRIED)
            else:
                to_read[doc.sha256] = doc
                waiting[w.shard] += 1
        if not waiting[w.shard]:
            ready.append(w.shard)
    for shard in ready:
        yield result(shard)
    requests = [
        ReadRequest(d.sha256, fs_path(d.path), ContentKind(d.kind), d.size, sha256=d.sha256)
        for d in to_read.values()
    ]
    if requests:  # a run with nothing to read does not pay for the full collection
        freeze_long_lived()  # the modules loaded so far live as long as the process (readers.core.base)
    finished_reads = reads.read(requests)
    while True:
        # A read is a large tree of small objects without cycles: it is received, turned into rows and
        # dropped with the collector paused, so that no collection walks it (docs/decisions.md).
        with collector_paused():
            finished = next(finished_reads, None)
            if finished is None:
                break
            doc = to_read[finished.request.key]
            add_extraction(outs[doc.shard], doc, version, finished.extraction, max_text_chars=max_text_chars)
            del finished
        done(doc, ExtractOutcome.READ)
        waiting[doc.shard] -= 1
        if not waiting[doc.shard]:
            yield result(doc.shard)


def read_for_good(derivation: DerivationRecord | None) -> bool:
    """The current version has read the document for good: any outcome but a problem of its file at the
    time (gone, unreadable, changed since the walk), which the next run looks at again."""
    return derivation is not None and not (
        derivation.status == DocumentStatus.SKIPPED.value and derivation.reason in FILE_PROBLEMS
    )


def _can_carry(previous: DerivationRecord | None, kind: ContentKind) -> bool:
    return (
        previous is not None
        and previous.status in CARRY_STATUSES
        and previous.reader_chain == chain_signature(kind)
    )


def _carry(prior: ShardRows, sha256: str, version: str, out: ShardRows) -> None:
    previous = prior.derivations[sha256]
    origin = previous.carried_from or previous.extractor_version
    out.derivations[sha256] = dataclasses.replace(previous, extractor_version=version, carried_from=origin)
    out.underivables[sha256] = [
        dataclasses.replace(u, extractor_version=version) for u in prior.underivables.get(sha256, ())
    ]
    out.pages[sha256] = [
        dataclasses.replace(p, extractor_version=version) for p in prior.pages.get(sha256, ())
    ]
    out.fonts[sha256] = [
        dataclasses.replace(f, extractor_version=version) for f in prior.fonts.get(sha256, ())
    ]
    out.tables[sha256] = [
        dataclasses.replace(t, extractor_version=version) for t in prior.tables.get(sha256, ())
    ]


def cap_pages(pages: Sequence[PageText], bound: int) -> tuple[tuple[PageText, ...], bool]:
    """The pages whose text fits in ``bound`` characters in all, the page that crosses it cut (at a word
    boundary near it, its layout blocks dropped: they describe text that is no longer there), and whether
    anything was cut."""
    kept: list[PageText] = []
    room = bound
    for page in pages:
        if len(page.text) <= room:
            kept.append(page)
            room -= len(page.text)
            continue
        if room > 0:
            kept.append(dataclasses.replace(page, text=_cut(page.text, room), blocks=()))
        return tuple(kept), True
    return tuple(pages), False


def _cut(text: str, length: int) -> str:
    head = text[:length]
    floor = max(0, length - CUT_BACKOFF_CHARS)
    space = max(head.rfind(" ", floor), head.rfind("\n", floor))
    return head[:space] if space > 0 else head


@collector_paused()  # the page rows and their signals: many small objects, no cycles
def add_extraction(
    out: ShardRows,
    doc: DocumentRecord,
    version: str,
    ex: Extraction,
    *,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
) -> None:
    result = ex.result
    pages: Sequence[PageText] = result.pages if result is not None else ()
    pages, capped = cap_pages(pages, max_text_chars)
    reason = f"{TEXT_CAPPED}:{max_text_chars}" if capped and ex.reason is None else ex.reason
    # An underivable PDF or image keeps the pages its first reader saw (empty text, real facts: what the
    # verdicts need to send them to OCR).
    facts_pages = pages
    if result is None and ex.empty_result is not None and ex.kind in OCR_KINDS:
        facts_pages = ex.empty_result.pages
    out.derivations[doc.sha256] = DerivationRecord(
        sha256=doc.sha256,
        shard=doc.shard,
        extractor_version=version,
        kind=ex.kind.value,
        status=ex.status.value,
        reason=reason,
        reader=ex.reader,
        reader_version=ex.reader_version,
        reader_chain=ex.chain,
        recovered_by_fallback=ex.recovered_by_fallback,
        attempts=len(ex.attempts),
        pages=len(pages),
        chars=sum(len(p.text) for p in pages),
        encoding=result.encoding if result is not None else None,
        encoding_source=result.encoding_source if result is not None else None,
        carried_from=None,
        duration_ms=ex.duration_ms,
        derived_at=datetime.now(UTC),
        diagnostics=ex.diagnostics,
    )
    out.underivables[doc.sha256] = [
        UnderivableRecord(
            sha256=doc.sha256,
            shard=doc.shard,
            extractor_version=version,
            attempt=a.ordinal,
            tool=a.reader,
            tool_version=a.tool_version,
            reader_version=a.reader_version,
            reason=a.reason or "",
            detail=a.detail,
        )
        for a in ex.attempts
        if not a.produced
    ]
    reader = (
        (ex.reader, ex.reader_version) if result is not None else (ex.empty_reader, ex.empty_reader_version)
    )
    measures = measure_document(facts_pages)
    both = list(zip(facts_pages, measures, strict=True))
    out.pages[doc.sha256] = [_page_record(doc, version, reader, p, m) for p, m in both]
    out.fonts[doc.sha256] = [
        PageFontRecord(
            doc.sha256,
            doc.shard,
            version,
            p.page,
            f.font,
            f.chars,
            round(f.weight, 3),
            round(f.hit_weight, 3),
            m.font_similarity.get(f.font),
        )
        for p, m in both
        for f in sorted(m.fonts.values(), key=lambda f: f.font)
    ]
    out.tables[doc.sha256] = [_table_record(doc, version, t) for p in pages for t in p.tables]


def _table_record(doc: DocumentRecord, version: str, table: FoundTable) -> TableRecord:
    x0, y0, x1, y1 = table.bbox
    return TableRecord(
        sha256=doc.sha256,
        shard=doc.shard,
        extractor_version=version,
        table=table.index,
        page=table.page,
        x0=round(x0, 2),
        y0=round(y0, 2),
        x1=round(x1, 2),
        y1=round(y1, 2),
        rows=table.rows,
        columns=table.columns,
        header_rows=table.header_rows,
        cells=[list(row) for row in table.cells],
        markdown=table.markdown,
        source=table.source,
        confidence=round(table.confidence, 4),
        evidence=table.evidence,
        continues=table.continues,
    )


def _page_record(
    doc: DocumentRecord,
    version: str,
    reader: tuple[str | None, str | None],
    page: PageText,
    measures: PageMeasures,
) -> PageRecord:
    f = page.facts
    s = measures.signals
    return PageRecord(
        sha256=doc.sha256,
        shard=doc.shard,
        extractor_version=version,
        page=page.page,
        reader=reader[0] or "",
        reader_version=reader[1] or "",
        text=page.text,
        chars=len(page.text),
        width=f.width,
        height=f.height,
        fonts=f.fonts,
        font_names=list(f.font_names),
        images=f.images,
        drawings=f.drawings,
        tables=f.tables,
        headings=f.headings,
        bad_rune_ratio=round(s.bad_rune_ratio, 6),
        cid_count=s.cid_count,
        cid_ratio=round(s.cid_ratio, 6),
        glued_ratio=round(s.glued_ratio, 6),
        spaced_ratio=round(s.spaced_ratio, 6),
        language=s.language,
        language_similarity=round(s.language_similarity, 4),
        lexicon_language=s.lexicon_language,
        lexicon_hit_rate=round(s.lexicon_hit_rate, 4),
        lexicon_weight=round(s.lexicon_weight, 3),
        lexicon_judged=s.lexicon_judged,
        prose_blocks=s.prose_blocks,
        blocks=s.blocks,
        image_coverage=round(getattr(f, "image_coverage", 0.0), 4),
        largest_image_share=round(getattr(f, "largest_image_share", 0.0), 4),
        vector_figure_area=round(getattr(f, "vector_figure_area", 0.0), 4),
        outline_text_paths=getattr(f, "outline_text_paths", 0),
        invisible_chars=getattr(f, "invisible_chars", 0),
        invisible_share=round(getattr(f, "invisible_share", 0.0), 4),
        ocr_font_hint=getattr(f, "ocr_font_hint", False),
        hidden_text=[h.text for h in page.hidden],
        hidden_why=[h.why for h in page.hidden],
        label=page.label,
        reading_order=page.order.source,
        order_confidence=round(page.order.confidence, 4),
        broken_seams=page.order.broken_seams,
        columns=page.order.columns,
        artifacts=list(page.artifacts),
        artifacts_source=page.artifacts_source if page.artifacts else None,
        structure_source=page.structure.source,
        structure_confidence=round(page.structure.confidence, 4),
        structure_why=page.structure.why,
    )
