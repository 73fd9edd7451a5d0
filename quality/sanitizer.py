"""Sanitize one document: its pages' final texts made into one clean text, with what was taken out.

In order, because each step needs the previous one's output:

1. each page's final text (``page_texts``) normalised (quality/normalise.py);
2. invisible text that is not an OCR layer removed from the pages whose text came from the text layer
   (quality/hidden.py), and recorded: it is how instructions are smuggled into documents fed to language
   models;
3. running headers and footers removed (quality/furniture.py), and recorded with the rule that found
   them: lines the document marks as pagination artifacts, lines repeated across the pages, and lines a
   single-page rule matches in a page's top or bottom band (page numbers, download stamps, DOIs...);
   never a page's last line of body, nor the whole text of a document (:func:`spare_body`);
4. hyphenated line breaks joined;
5. personal data replaced by placeholders stable across the document (quality/pii.py), recorded by kind,
   page and offsets, never with the value;
6. the pages joined with a blank line into one markdown text, with the offset where each page starts;
7. the hidden runs and furniture lines recorded in steps 2 and 3 scrubbed the same way, with the same
   placeholders (the address of a running footer is the same ``⟨EMAIL_1⟩`` as in the body): those
   tables are read by whoever inspects what was taken out, and hold no more personal data than the
   text does. The raw runs stay in ``pages.hidden_text``, a raw table;
8. the document's tables as data (``tables``, raw) normalised and scrubbed with the same placeholders
   (``clean_tables``): each table's cells are scanned as the rows of its markdown, the text the page's
   own scan read, so a label in a neighbouring cell counts as it does there (:func:`clean_cells`).

A page without a final text (blank, OCR found nothing) has no part in the text; a document with no page
text at all has no ``texts`` row (never an empty text).

One document's sanitizing is a :class:`SanitizeJob`: run in this process, or, for a long text, in a worker
process under the per-document budget (assets/budgeted.py). A job that fails, or is stopped over its
budget, makes an ``unsanitized`` row saying why instead of a text.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from quality.furniture import (
    Furniture,
    FurnitureWhy,
    find_tagged_artifacts,
    merge_furniture,
    spare_body,
    strip_furniture,
)
from quality.furniture_repeats import find_furniture
from quality.furniture_rules import find_page_furniture
from quality.hidden import TEXT_LAYER_SOURCES, remove_hidden
from quality.normalise import join_hyphenated, normalise
from quality.pii import PlaceholderBook, Scrubber
from quality.records import (
    CleanTableRecord,
    FurnitureRecord,
    HiddenTextRecord,
    PageTextRecord,
    RedactionRecord,
    StoppedRecord,
    StopReason,
    TextRecord,
)
from readers.core.model import ContentKind, StructureSource
from readers.core.reading_records import TableRecord

PAGE_SEPARATOR = "\n\n"
# What each version changed: docs/decisions.md, "Text judging: calibration notes".
SANITIZE_VERSION = "6"


@dataclass(frozen=True, slots=True)
class PageHidden:
    """The invisible runs the reader recorded on one page, and whether the page is an OCR layer."""

    texts: Sequence[str]
    whys: Sequence[str]
    ocr_layer: bool


@dataclass
class Sanitized:
    text: TextRecord | None
    redactions: list[RedactionRecord] = field(default_factory=list)
    hidden: list[HiddenTextRecord] = field(default_factory=list)
    furniture: list[FurnitureRecord] = field(default_factory=list)
    tables: list[CleanTableRecord] = field(default_factory=list)
    # Why there is nothing: the work failed, or was stopped over its budget (``unsanitized``).
    stopped: StoppedRecord | None = None


@dataclass(frozen=True, slots=True)
class SanitizeJob:
    """One document's sanitizing (:func:`sanitize_document`'s arguments), runnable in a worker process
    (readers/engine/isolation.py ``IsolatedJob``)."""

    sha256: str
    shard: str
    version: str
    pages: Sequence[PageTextRecord]
    hidden: Mapping[int, PageHidden]
    scrubber: Scrubber | None
    paged: bool
    artifacts: Mapping[int, Sequence[str]]
    kind: ContentKind
    tables: Sequence[TableRecord] = ()
    artifact_sources: Mapping[int, str] | None = None
    activity = "sanitize"

    @property
    def chars(self) -> int:
        # Its tables count too: a page whose text OCR replaced can have a large table from its text layer.
        return sum(len(p.text or "") for p in self.pages) + sum(len(t.markdown) for t in self.tables)

    def run(self) -> Sanitized:
        start = time.monotonic()
        try:
            return sanitize_document(
                self.sha256,
                self.shard,
                self.version,
                self.pages,
                self.hidden,
                self.scrubber,
                paged=self.paged,
                artifacts=self.artifacts,
                tables=self.tables,
                artifact_sources=self.artifact_sources,
            )
        except Exception as exc:  # one document's failure is its row, not the shard's
            # Not the message: it may quote the raw text, which holds personal data.
            detail = f"sanitize failed after {time.monotonic() - start:.1f} s: {type(exc).__name__}"
            return self.stopped(StopReason.ERROR, detail)

    def stopped(self, reason: str, detail: str) -> Sanitized:
        return Sanitized(
            None, stopped=StoppedRecord(self.sha256, self.shard, self.version, reason, detail, self.chars)
        )


def sanitize_document(
    sha256: str,
    shard: str,
    version: str,
    pages: Sequence[PageTextRecord],
    hidden: Mapping[int, PageHidden],
    scrubber: Scrubber | None,
    *,
    paged: bool,
    artifacts: Mapping[int, Sequence[str]] | None = None,
    tables: Sequence[TableRecord] = (),
    artifact_sources: Mapping[int, str] | None = None,
) -> Sanitized:
    """One document's clean text and what was taken out of it (module docstring). ``paged``: the kind has
    printed pages (PDFs, scans), the only ones with running headers and footers; a spreadsheet's unit
    line repeated on every sheet is content. ``artifacts``: by page, the lines the document marks as
    pagination furniture (pages.artifacts), as they stand in the extracted text: removed from the pages
    whose text is that text layer's; ``artifact_sources`` says, by page, who marked them (pages.
    artifacts_source: tagged, or layout_model for the layout model's header and footer regions, which
    are recorded with their own why and confidence). ``tables``: the document's tables as data
    (``tables``), made clean with the text's placeholders."""
    out = Sanitized(None)
    ordered = sorted(pages, key=lambda p: p.page)
    kept = [p for p in ordered if p.text]
    texts: list[str] = []
    for p in kept:
        text = normalise(p.text or "")
        h = hidden.get(p.page)
        if h is not None and h.texts and p.source in TEXT_LAYER_SOURCES:
            result = remove_hidden(text, list(zip(h.texts, h.whys, strict=True)), ocr_layer=h.ocr_layer)
            text = result.text
            out.hidden += [
                HiddenTextRecord(sha256, shard, version, p.page, r.why, r.text, r.start >= 0)
                for r in result.removed
            ]
        texts.append(text)
    if paged:
        # Every page in place, empty ones as "": furniture alternates odd and even pages and its page
        # numbers move with the page index.
        # A page whose text repeats an earlier page's whole (the same scan four ways up, a duplicated
        # sheet) takes no part: its lines would all vote for themselves as running heads.
        by_page = dict(zip((p.page for p in kept), texts, strict=True))
        seen: set[str] = set()
        repeated: set[int] = set()
        every: list[str] = []
        for p in ordered:
            text = by_page.get(p.page, "")
            if text and text in seen:
                repeated.add(p.page)
            every.append("" if p.page in repeated else text)
            seen.add(text)
        marked = [
            [normalise(a) for a in (artifacts or {}).get(p.page, ())]
            if p.source in TEXT_LAYER_SOURCES
            else []
            for p in ordered
        ]
        # what the document marks itself is taken first, and the rules judge only the lines it leaves
        tagged = _by_source(find_tagged_artifacts(every, marked), ordered, artifact_sources or {})
        # the layout model's lines are judged by the rules too: a rule that names a line gives its why
        by_document = [f for f in tagged if f.why != FurnitureWhy.LAYOUT_MODEL.value]
        found = spare_body(
            every,
            merge_furniture(
                tagged,
                find_furniture(every),
                find_page_furniture(every, [p.label for p in ordered], marked=by_document),
            ),
        )
        out.furniture = [
            FurnitureRecord(
                sha256, shard, version, ordered[f.page].page, f.band, f.text, f.why, round(f.confidence, 4)
            )
            for f in found
        ]
        stripped = dict(zip((p.page for p in ordered), strip_furniture(every, found), strict=True))
        texts = [by_page[p.page] if p.page in repeated else stripped[p.page] for p in kept]
    texts = [join_hyphenated(t) for t in texts]

    book = PlaceholderBook()
    parts: list[str] = []
    starts: list[int] = []
    offset = 0
    for p, text in zip(kept, texts, strict=True):
        if scrubber is not None:
            scrubbed = scrubber.scrub(text, book)
            text = scrubbed.text
            out.redactions += [
                RedactionRecord(
                    sha256,
                    shard,
                    version,
                    p.page,
                    r.kind.value,
                    r.scheme.value if r.scheme else None,
                    offset + r.start,
                    offset + r.end,
                    r.placeholder,
                )
                for r in scrubbed.redactions
            ]
        starts.append(offset)
        parts.append(text)
        offset += len(text) + len(PAGE_SEPARATOR)
    if scrubber is not None:
        out.hidden = [replace(h, text=scrubber.scrub(h.text, book).text) for h in out.hidden]
        out.furniture = [replace(f, text=scrubber.scrub(f.text, book).text) for f in out.furniture]
    out.tables = [clean_table(t, scrubber, book) for t in sorted(tables, key=lambda t: t.table)]
    whole = PAGE_SEPARATOR.join(parts)
    if not whole.strip():
        return out
    out.text = TextRecord(
        sha256=sha256,
        shard=shard,
        extractor_version=version,
        text=whole,
        chars=sum(1 for c in whole if not c.isspace()),
        pages=[p.page for p in kept],
        page_starts=starts,
        page_sources=[p.source for p in kept],
        redactions=len(out.redactions),
        hidden_removed=sum(1 for h in out.hidden if h.found),
        furniture_removed=len(out.furniture),
        sanitize_version=SANITIZE_VERSION,
        page_labels=[p.label for p in kept],
    )
    return out


def clean_table(table: TableRecord, scrubber: Scrubber | None, book: PlaceholderBook) -> CleanTableRecord:
    """One table's cells and markdown normalised and scrubbed with the document's ``book``."""
    cells = [[normalise(cell) for cell in row] for row in table.cells]
    markdown = join_hyphenated(normalise(table.markdown))
    redactions = 0
    if scrubber is not None:
        cells, redactions = clean_cells(cells, scrubber, book)
        markdown = scrubber.scrub(markdown, book).text
    return CleanTableRecord(
        table.sha256,
        table.shard,
        table.extractor_version,
        table.table,
        table.page,
        table.header_rows,
        cells,
        markdown,
        redactions,
    )


def clean_cells(
    cells: Sequence[Sequence[str]], scrubber: Scrubber, book: PlaceholderBook
) -> tuple[list[list[str]], int]:
    """The cells with their personal data as placeholders from ``book``, and how many were replaced.

    The cells are scanned together, as the rows of the table's markdown (one line per row, `` | ``
    between cells, the header's separator line after the first row): the text the page's scan read, so a
    datum found there by its label in the next cell ("BSN | 123456782") is found here too and gets the
    same placeholder. The scrubbed lines are split at the separators again; where that does not give
    the table's shape back (a cell holding ``|`` or a line break, a datum found across two cells), each
    cell is scanned alone."""
    rows = [list(row) for row in cells]
    if rows and not any("|" in c or "\n" in c for row in rows for c in row):
        lines = ["| " + " | ".join(row) + " |" for row in rows]
        lines.insert(1, "| --- |")
        scrubbed = scrubber.scrub("\n".join(lines), book)
        back = scrubbed.text.split("\n")
        if len(back) == len(lines):
            del back[1]
            split = [_split_row(line) for line in back]
            if all(s is not None and len(s) == len(row) for s, row in zip(split, rows, strict=True)):
                return [s for s in split if s is not None], len(scrubbed.redactions)
    out: list[list[str]] = []
    count = 0
    for row in rows:
        cleaned = []
        for cell in row:
            scrubbed = scrubber.scrub(cell, book)
            cleaned.append(scrubbed.text)
            count += len(scrubbed.redactions)
        out.append(cleaned)
    return out, count


def _split_row(line: str) -> list[str] | None:
    """The cells of one line written by :func:`clean_cells`; None when its frame was taken apart."""
    if len(line) < 4 or not (line.startswith("| ") and line.endswith(" |")):
        return None
    return line[2:-2].split(" | ")


#: A line in a page-header or page-footer region of the layout model: below every rule's confidence
#: (quality/furniture_rules.py, the lowest 0.5), so a rule that names what the line is keeps its why where
#: both take a line; not calibrated on lines read by eye yet.
LAYOUT_MODEL_FURNITURE_CONFIDENCE = 0.45


def _by_source(
    found: list[Furniture], ordered: Sequence[PageTextRecord], sources: Mapping[int, str]
) -> list[Furniture]:
    """The marked lines of the pages whose marks come from the layout model, with its why."""
    if not sources:
        return found
    return [
        replace(f, why=FurnitureWhy.LAYOUT_MODEL.value, confidence=LAYOUT_MODEL_FURNITURE_CONFIDENCE)
        if sources.get(ordered[f.page].page) == StructureSource.LAYOUT_MODEL.value
        else f
        for f in found
    ]
