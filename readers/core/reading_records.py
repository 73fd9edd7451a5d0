"""Rows of the tables the walk and extract stages write: the stage contracts of docs/design.md §5.

Each dataclass is one table's row and each field one column, its type, meaning and domain declared once
(readers/core/columns.py): ``warehouse/schema.py`` derives the table's Arrow schema from it and
``quality/contracts.py`` its contract. ``shard`` is the first two hex digits of ``sha256``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from readers.core.columns import KEY, Annotated, Count, Doc, OneOf, PageNumber, Ratio
from readers.core.model import (
    ContentKind,
    DocumentStatus,
    KindSource,
    OrderSource,
    StructureSource,
    TableSource,
)

# The columns every sharded table of a stage carries (a stage's own tables use them too).
Sha256 = Annotated[str, Doc("sha256 of the document's bytes: the document's identity")]
Shard = Annotated[str, Doc("first two hex digits of sha256: the partition the row belongs to")]
Version = Annotated[str, Doc("extractor version that wrote the row (also a path level)")]


@dataclass(frozen=True, slots=True)
class ObservationRecord:
    """One path as the walk saw it."""

    root: Annotated[str, Doc("configured root the path was found under (absolute)")]
    path: Annotated[str, Doc("absolute path of the file as seen (symlinks not resolved)")]
    rel_path: Annotated[str, Doc("path relative to its root")]
    status: Annotated[
        str,
        Doc("ok, unreadable, vanished, too_large, changed_while_hashed, symlink_outside_root, not_a_file"),
    ]
    reason: Annotated[
        str | None, Doc("why the status is not ok (the OS error, the size limit...); null when ok")
    ]
    sha256: Annotated[str | None, Doc("content hash; null when the file could not be hashed")]
    shard: Annotated[str | None, Doc("first two hex digits of sha256; null when not hashed")]
    size: Annotated[int | None, Doc("size in bytes from stat")]
    mtime_ns: Annotated[int | None, Doc("modification time in nanoseconds from stat")]
    kind: Annotated[str | None, Doc("content kind sniffed from the leading bytes, else the extension")]
    kind_source: Annotated[str | None, Doc("which evidence decided the kind: bytes, extension or none")]
    hashed: Annotated[
        bool, Doc("true when this walk hashed the file, false when the size+mtime cache answered")
    ]
    seen_at: Annotated[datetime, Doc("when the walk saw the path")]
    extractor_version: Version


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    """One distinct content (identical bytes are one document)."""

    sha256: Annotated[Sha256, KEY]
    shard: Shard
    kind: Annotated[str, Doc("content kind (see observations.kind)"), OneOf.of(ContentKind)]
    kind_source: Annotated[str, Doc("bytes, extension or none"), OneOf.of(KindSource)]
    size: Annotated[Count, Doc("size in bytes")]
    parent_sha256: Annotated[
        str | None,
        Doc(
            "the container (e-mail, zip) this document was taken from; null for files on disk (bytes that "
            "are a file and also attached somewhere are one document: the file)"
        ),
    ]
    member: Annotated[
        str | None,
        Doc(
            "name inside its parent: the attachment's file name (made unique) or the archive member's path; "
            "null for files on disk"
        ),
    ]
    path: Annotated[
        str,
        Doc(
            "one path where the bytes were seen (the first in sort order; all are in observations); for a "
            "member, where the walk stored its bytes (warehouse/blobs/<ss>/<sha256>)"
        ),
    ]
    extractor_version: Version


@dataclass(frozen=True, slots=True)
class ExpansionRecord:
    """What the walk made of one container document's members (readers/walk/expansion.py)."""

    sha256: Sha256
    shard: Shard
    kind: Annotated[str, Doc("content kind of the container: eml, msg, zip or pdf")]
    status: Annotated[
        str,
        Doc(
            "expanded (its members are listed; those not already documents are its children in documents), "
            "error (no children: see reason) or not_opened (max_nesting deep: its members are not looked at)"
        ),
    ]  # readers.core.model.ExpansionStatus
    reason: Annotated[
        str | None,
        Doc(
            "why there are no children: over_limit (the container or its whole tree is over a bound), "
            "corrupt, encrypted, unreadable, timeout, memory, worker_died, expansion_crashed:<exception>, "
            "max_nesting; null when expanded"
        ),
    ]
    detail: Annotated[str | None, Doc("the bound, the error or the budget, for people; null when expanded")]
    members: Annotated[int, Doc("members listed (0 unless expanded)")]
    member_bytes: Annotated[int, Doc("bytes of the members listed, inflated (0 unless expanded)")]
    member_names: Annotated[
        list[str] | None, Doc("each member's name, in the order listed; empty unless expanded")
    ]  # null in rows of walks that did not record them
    member_sha256s: Annotated[
        list[str] | None,
        Doc(
            "each member's sha256, in the same order: its children, and members whose bytes are a file on "
            "disk or another container's member (one document each); empty unless expanded. A later walk "
            "reuses the listing, without opening the container, while each of them is still there"
        ),
    ]
    bounds: Annotated[
        str, Doc("the bounds the outcome was reached under; a later walk under others opens it again")
    ]
    extractor_version: Version


@dataclass(frozen=True, slots=True)
class DerivationRecord:
    """The outcome of extracting one document under one extractor version."""

    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Annotated[Version, KEY]
    kind: Annotated[str, Doc("content kind the readers were chosen for"), OneOf.of(ContentKind)]
    status: Annotated[
        str, Doc("derived, underivable, unsupported, error or skipped"), OneOf.of(DocumentStatus)
    ]
    reason: Annotated[
        str | None,
        Doc(
            "why the status is not derived (encrypted, corrupt, empty_text, no_reader:<kind>, too_large...);"
            " null when derived"
        ),
    ]
    reader: Annotated[str | None, Doc("reader that produced the text; null when none did")]
    reader_version: Annotated[
        str | None, Doc("that reader's version: its own revision + the library's version")
    ]
    reader_chain: Annotated[str, Doc("the ordered readers for the kind with their versions, as tried")]
    recovered_by_fallback: Annotated[bool, Doc("true when a reader other than the first produced the text")]
    attempts: Annotated[Count, Doc("how many readers were tried")]
    pages: Annotated[Count, Doc("pages in the derived text (1 for documents without pages)")]
    chars: Annotated[Count, Doc("characters of the derived text, raw")]
    encoding: Annotated[str | None, Doc("text encoding decided for text kinds")]
    encoding_source: Annotated[
        str | None,
        Doc(
            "how the encoding was decided: bom, nul_share, utf8, detected, fallback; for HTML and e-mail "
            "also transport (the MIME part's charset), declared (the document's own declaration) and "
            "declared_lie (a declaration the bytes contradict, overruled by detection)"
        ),
    ]
    carried_from: Annotated[
        str | None,
        Doc(
            "extractor version this row was carried over from, unchanged, because the kind's readers did not"
            " change; null when read under this version"
        ),
    ]
    duration_ms: Annotated[float, Doc("wall time of the read, all attempts")]
    derived_at: Annotated[datetime, Doc("when the document was read")]
    diagnostics: Annotated[
        str | None,
        Doc(
            "what the libraries said while the readers read the document, never printed: MuPDF's errors and"
            " warnings, pdfminer's and other loggers' warnings, Python warnings, and what the reading process"
            " printed; and what a reader found and could not read (`<reader>: unread: <what>:<reason>`: an"
            " embedded document, a failed page, a lost page tree); one line per distinct message as"
            " `<reader>: <source>: <message>`, with ` (xN)` when it came N times, at most 50 lines; null when"
            " they said nothing"
        ),
    ] = None


@dataclass(frozen=True, slots=True)
class UnderivableRecord:
    """One attempt that produced nothing: the tool, its version and the reason."""

    sha256: Sha256
    shard: Shard
    extractor_version: Version
    attempt: Annotated[int, Doc("position of the reader in the kind's chain, 1-based")]
    tool: Annotated[str, Doc("reader that was tried")]
    tool_version: Annotated[str, Doc("version of the library underneath")]
    reader_version: Annotated[str, Doc("the reader's own version")]
    reason: Annotated[
        str,
        Doc(
            "stable code: empty_text, encrypted, corrupt, empty_file, over_limit, "
            "reader_crashed:<exception>..."
        ),
    ]
    detail: Annotated[str, Doc("the message, for people")]


@dataclass(frozen=True, slots=True)
class PageRecord:
    """The raw text one reader produced for one page, with the facts later signals need."""

    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Annotated[Version, KEY]
    page: Annotated[PageNumber, KEY]
    reader: Annotated[str, Doc("reader that produced this text")]
    reader_version: Annotated[str, Doc("that reader's version")]
    text: Annotated[
        str,
        Doc(
            "the page's text as the reader produced it (markdown for PDFs), raw; empty on the pages of an "
            "underivable document, which are kept for their facts (the verdicts send them to OCR)"
        ),
    ]
    chars: Annotated[int, Doc("characters of text")]
    width: Annotated[float, Doc("page width in points (0 for documents without pages)")]
    height: Annotated[float, Doc("page height in points (0 for documents without pages)")]
    fonts: Annotated[int, Doc("distinct fonts used by the page's text")]
    font_names: Annotated[list[str], Doc("those fonts' names")]
    images: Annotated[int, Doc("image placements on the page")]
    drawings: Annotated[int, Doc("vector drawing paths on the page")]
    tables: Annotated[int, Doc("tables found and written as GFM")]
    headings: Annotated[int, Doc("heading lines written as markdown headings")]
    bad_rune_ratio: Annotated[
        Ratio,
        Doc(
            "U+FFFD, control, private-use and unassigned characters over non-whitespace characters, on the "
            "raw text"
        ),
    ] = 0.0
    cid_count: Annotated[int, Doc("(cid:N) passthroughs: glyphs a decoder could not map")] = 0
    cid_ratio: Annotated[
        Ratio, Doc("characters inside (cid:N) passthroughs over non-whitespace characters")
    ] = 0.0
    glued_ratio: Annotated[
        Ratio, Doc("share of letters in very long letter runs the lexicon splits into words")
    ] = 0.0
    spaced_ratio: Annotated[Ratio, Doc("share of letters in letter-spaced runs (H e r e i s)")] = 0.0
    language: Annotated[
        str | None, Doc("best language by character-trigram profile; null when none matches")
    ] = None
    language_similarity: Annotated[Ratio, Doc("cosine similarity to that language's trigram profile")] = 0.0
    lexicon_language: Annotated[
        str | None, Doc("lexicon the page was judged with; null when no judging lexicon")
    ] = None
    lexicon_hit_rate: Annotated[
        Ratio, Doc("length-weighted share of prose-gated tokens found in the lexicon")
    ] = 0.0
    lexicon_weight: Annotated[
        float, Doc("evidence weight behind the hit rate (sum of letters minus three)")
    ] = 0.0
    lexicon_judged: Annotated[bool, Doc("enough evidence to judge; false means the lexicon abstained")] = (
        False
    )
    prose_blocks: Annotated[int, Doc("blocks that passed the prose gate")] = 0
    blocks: Annotated[int, Doc("text blocks on the page")] = 0
    image_coverage: Annotated[Ratio, Doc("union of image placements over the page area")] = 0.0
    largest_image_share: Annotated[Ratio, Doc("largest single image placement over the page area")] = 0.0
    vector_figure_area: Annotated[
        Ratio, Doc("share of the page covered by vector figures (not furniture)")
    ] = 0.0
    outline_text_paths: Annotated[int, Doc("glyph-like filled paths: text drawn as outlines")] = 0
    invisible_chars: Annotated[
        int,
        Doc(
            "characters drawn invisibly (render mode 3/7, zero alpha, tiny, outside the crop box, or in the "
            "background colour)"
        ),
    ] = 0
    invisible_share: Annotated[Ratio, Doc("invisible characters over non-whitespace characters")] = 0.0
    ocr_font_hint: Annotated[bool, Doc("a font typical of OCR text layers (GlyphLessFont...) is used")] = (
        False
    )
    # The page's invisible runs of text (readers.core.model.HiddenSpan) in reading order, as two parallel
    # lists
    # (Parquet has no list of pairs short of a struct, and SQL reads these directly: unnest() of both in
    # one select pairs them up, list_contains(hidden_why, 'pale') filters). Rows written before the columns
    # existed read back as null; they are taken as empty.
    hidden_text: Annotated[
        list[str],
        Doc(
            "the page's invisible runs of text, in reading order (adjacent spans of a line with the same "
            "reason are one run); still in `text`, which is raw; empty for readers that cannot tell "
            "(everything but PDFs); null in rows of extractor versions before the column"
        ),
    ] = field(default_factory=list)
    hidden_why: Annotated[
        list[str],
        Doc(
            "why each run of hidden_text is invisible, pairwise: render_mode (render mode 3, how OCR layers "
            "are drawn), alpha (zero opacity, render mode 7), tiny (under 4 pt), pale (white on its own "
            "background), outside_crop (outside the crop box: not in `text` at all)"
        ),
    ] = field(default_factory=list)

    label: Annotated[
        str | None,
        Doc("the page's label as the document prints it (a PDF's /PageLabels: xii, A-3); null without one"),
    ] = None
    reading_order: Annotated[
        str | None,
        Doc(
            "where the order of the page's text came from: tagged (the structure tree), native (the "
            "producer's), rows (top to bottom), columns, columns_rtl (column by column between gutters), "
            "layout_model (the regions of PyMuPDF's layout model), none (no layout); null in rows of "
            "extractor versions before the column"
        ),
        OneOf.of(OrderSource),
    ] = None
    order_confidence: Annotated[Ratio | None, Doc("how sure the reader is of that order, 0-1")] = None
    broken_seams: Annotated[
        int | None,
        Doc("consecutive blocks, in the chosen order, where a sentence breaks off without continuing"),
    ] = None
    columns: Annotated[int | None, Doc("text columns the layout analysis found on the page")] = None
    artifacts: Annotated[
        list[str],
        Doc(
            "lines the document marks as page furniture (a tagged PDF's pagination artifacts), or the layout "
            "model's page-header and page-footer regions hold, as they stand in `text`; sanitize removes them"
        ),
    ] = field(default_factory=list)
    artifacts_source: Annotated[
        str | None,
        Doc("who marked `artifacts` as furniture: tagged (the structure tree) or layout_model"),
        OneOf.of(StructureSource),
    ] = None
    structure_source: Annotated[
        str | None,
        Doc(
            "what decided the page's structure (furniture, tables, order): rule (the text layer's signals "
            "left nothing uncertain, or the model was not asked), layout_model (PyMuPDF's layout model, on "
            "an uncertain page), tagged (the structure tree), none (no layout)"
        ),
        OneOf.of(StructureSource),
    ] = None
    structure_confidence: Annotated[
        Ratio | None,
        Doc("how sure that decision is, 0-1: the order's confidence, or the share of lines in model regions"),
    ] = None
    structure_why: Annotated[
        str | None,
        Doc(
            "the signals that made the rules unsure (bands:unmatched=2, columns=2:broken_seams=3, "
            "order:confidence=0.4, table:...), what the model decided (model:furniture=2, model:tables=1, "
            "model:order ...) or why it was not used (model:over_budget, model:cap), and model_ms"
        ),
    ] = None

    def __post_init__(self) -> None:
        if self.hidden_text is None:
            object.__setattr__(self, "hidden_text", [])
        if self.hidden_why is None:
            object.__setattr__(self, "hidden_why", [])
        if self.artifacts is None:
            object.__setattr__(self, "artifacts", [])


@dataclass(frozen=True, slots=True)
class PageFontRecord:
    """One font on one page with the lexicon evidence of the text drawn in it."""

    sha256: Sha256
    shard: Shard
    extractor_version: Version
    page: PageNumber
    font: Annotated[str, Doc("font name as the PDF names it")]
    chars: Annotated[int, Doc("non-whitespace characters drawn in the font")]
    weight: Annotated[float, Doc("judgeable lexicon evidence weight of its tokens")]
    hits: Annotated[float, Doc("weight of its tokens found in the lexicon")]
    similarity: Annotated[
        Ratio | None,
        Doc(
            "best language-profile similarity of all the font's text in the document, measured for a "
            "font whose tokens miss the lexicon (a suspect); null otherwise"
        ),
    ] = None


@dataclass(frozen=True, slots=True)
class TableRecord:
    """One table found in a document, as data: its cells, where it is, how it was found and how sure."""

    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Annotated[Version, KEY]
    table: Annotated[int, KEY, Doc("the table's position in the document, from 0")]
    page: Annotated[PageNumber, Doc("page the table is on")]
    x0: Annotated[float, Doc("left edge of its box, in points (a markup table has no box: all four are 0)")]
    y0: Annotated[float, Doc("top edge of its box, in points")]
    x1: Annotated[float, Doc("right edge of its box, in points")]
    y1: Annotated[float, Doc("bottom edge of its box, in points")]
    rows: Annotated[Count, Doc("rows, header rows included")]
    columns: Annotated[Count, Doc("columns")]
    header_rows: Annotated[Count, Doc("leading rows that are the header")]
    cells: Annotated[list[list[str]], Doc("the cells' text, row by row, header rows first")]
    markdown: Annotated[str, Doc("the table as GFM, as it stands in the page's text")]
    source: Annotated[
        str,
        Doc(
            "how it was found: tagged (a Table of the structure tree), ruled (its ruling lines), aligned "
            "(word edges lined up over three or more lines), markup (the document's own table markup)"
        ),
        OneOf.of(TableSource),
    ]
    confidence: Annotated[Ratio, Doc("how sure the reader is that this is a table with these cells")]
    evidence: Annotated[str, Doc("what the confidence rests on, as name=value words")]
    continues: Annotated[
        int | None, Doc("the table (of this document) this one carries on from across a page break")
    ] = None
