"""The small vocabulary every stage speaks: content kinds, statuses, and what a reader returns.

Kept in one module, pdfplumber-style, so that the same words mean the same thing in the readers, the
tables, the command line and the docs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple


class ContentKind(StrEnum):
    """What a document is, decided by :mod:`readers.walk.sniff` from its bytes first, its name second."""

    PDF = "pdf"
    TEXT = "text"
    CSV = "csv"
    TSV = "tsv"
    JSON = "json"
    XML = "xml"
    HTML = "html"
    MARKDOWN = "markdown"
    RTF = "rtf"
    DOCX = "docx"
    XLSX = "xlsx"
    PPTX = "pptx"
    ODT = "odt"
    ODS = "ods"
    ODP = "odp"
    DOC = "doc"
    XLS = "xls"
    PPT = "ppt"
    EML = "eml"
    MSG = "msg"
    ZIP = "zip"
    PNG = "png"
    JPEG = "jpeg"
    TIFF = "tiff"
    WEBP = "webp"
    BMP = "bmp"
    GIF = "gif"
    AUDIO = "audio"
    VIDEO = "video"
    EMPTY = "empty"
    UNKNOWN = "unknown"


#: The image documents: read by Pillow (readers/images/image.py), their every page sent to OCR.
IMAGE_KINDS: frozenset[ContentKind] = frozenset(
    {ContentKind.PNG, ContentKind.JPEG, ContentKind.TIFF, ContentKind.WEBP, ContentKind.BMP, ContentKind.GIF}
)
#: The kinds whose pages the OCR stage can render into an image to read: PDF pages (PyMuPDF) and the
#: images themselves. A page of any other kind that lacks text has nothing to OCR.
OCR_KINDS: frozenset[ContentKind] = IMAGE_KINDS | {ContentKind.PDF}


class KindSource(StrEnum):
    """Which evidence decided a document's kind."""

    BYTES = "bytes"
    EXTENSION = "extension"
    NONE = "none"


class DocumentStatus(StrEnum):
    """The one status every document ends with (docs/design.md §3)."""

    DERIVED = "derived"
    UNDERIVABLE = "underivable"
    UNSUPPORTED = "unsupported"
    ERROR = "error"
    SKIPPED = "skipped"


class FileProblem(StrEnum):
    """Why a document is ``skipped`` for its file, not its content, at extract time: gone, unreadable, or
    no longer the bytes the walk hashed. The next walk hashes such a path again instead of trusting its
    size and mtime, and the next extract reads the document again (readers/core/snapshot.py)."""

    UNREADABLE = "unreadable"
    VANISHED = "vanished"
    CHANGED_SINCE_WALK = "changed_since_walk"


#: The reasons of :class:`FileProblem`, as stored in ``derivations.reason``.
FILE_PROBLEMS: frozenset[str] = frozenset(p.value for p in FileProblem)


class ExpansionStatus(StrEnum):
    """What the walk could do with a container's members (readers/walk/expansion.py)."""

    EXPANDED = "expanded"  # the members were listed (there may be none); those not already documents are
    ERROR = "error"  # no members: the container could not be opened, or it or its tree is over a bound
    NOT_OPENED = "not_opened"  # a container max_nesting deep: its members are not looked at


class ObservationStatus(StrEnum):
    """What the walk could do with one path."""

    OK = "ok"
    UNREADABLE = "unreadable"
    VANISHED = "vanished"
    TOO_LARGE = "too_large"
    CHANGED = "changed_while_hashed"
    OUTSIDE_ROOT = "symlink_outside_root"
    NOT_A_FILE = "not_a_file"


@dataclass(frozen=True, slots=True)
class PageFacts:
    """Facts about one page that later signals need; cheap to collect while the text is read."""

    width: float = 0.0
    height: float = 0.0
    fonts: int = 0
    font_names: tuple[str, ...] = ()
    images: int = 0
    drawings: int = 0
    tables: int = 0
    headings: int = 0
    # What the page shows besides its text layer (readers/pdf/facts.py says how each is measured).
    # Union of the image placements (overlaps once, clipped to the page) over the page area, 0-1.
    image_coverage: float = 0.0
    # The largest single image placement over the page area, 0-1.
    largest_image_share: float = 0.0
    # Share of the page covered by clusters of vector paths holding curves or diagonals, after dropping
    # furniture (rules, underlines, table borders, bullets, frames) and text drawn as outlines, 0-1.
    vector_figure_area: float = 0.0
    # Glyph-like filled paths standing in runs on shared baselines: text drawn as outlines.
    outline_text_paths: int = 0
    # Non-whitespace characters drawn invisibly: render mode 3 or 7, (near) zero alpha, under 4 pt,
    # outside the crop box, or white-ish on a background of their own colour.
    invisible_chars: int = 0
    # invisible_chars over all non-whitespace characters of the page's text layer, 0-1.
    invisible_share: float = 0.0
    # A span font is one OCR engines use for their invisible layer (GlyphLessFont, HiddenHorzOCR...).
    ocr_font_hint: bool = False


BBox = tuple[float, float, float, float]


class Span(NamedTuple):
    """A run of text in one font, as the reader saw it: the unit per-font evidence is gathered on.

    A named tuple, not a frozen dataclass: the PDF reader makes one per MuPDF span, ~100,000 for the
    241 pages of benchmarks/record.py's text-layer path, and a tuple is made in a fifth of the time
    (0.15 us against 0.85 us a span: 70 ms of that path). Change one with ``span._replace(...)``.
    """

    text: str
    font: str
    size: float
    bbox: BBox
    bold: bool = False
    monospaced: bool = False
    invisible: bool = False


@dataclass(frozen=True, slots=True)
class Line:
    spans: tuple[Span, ...]
    bbox: BBox

    @property
    def text(self) -> str:
        return "".join([s.text for s in self.spans])


@dataclass(frozen=True, slots=True)
class Block:
    """A block of lines as the reader grouped them; the prose gate of the lexicon signal judges blocks."""

    lines: tuple[Line, ...]
    bbox: BBox


class HiddenWhy(StrEnum):
    """Why a run of text counts as invisible (readers/pdf/facts.py has the bounds).

    ``render_mode`` and ``alpha`` are text drawn invisibly on purpose, which is how OCR layers are drawn
    (render mode 3; mode 7 and a zero fill opacity report as ``alpha``); the other three are text a
    reader of the page cannot see although it is drawn: set under the size bound, white on its own
    background, or placed outside the crop box.
    """

    RENDER_MODE = "render_mode"
    ALPHA = "alpha"
    TINY = "tiny"
    PALE = "pale"
    OUTSIDE_CROP = "outside_crop"


@dataclass(frozen=True, slots=True)
class HiddenSpan:
    """A run of invisible text on a page, as the reader saw it: adjacent spans of one line with the same
    reason are one run. Kept apart from the page text, which still holds it (the signals are computed on
    the raw text, and an OCR layer's text is invisible by design), so that sanitize can remove it."""

    text: str
    why: str  # a HiddenWhy value


class OrderSource(StrEnum):
    """Where a page's reading order came from (readers/pdf/order.py decides it)."""

    TAGGED = "tagged"  # the structure tree of a tagged PDF, which covers the page
    NATIVE = "native"  # the producer's order, as MuPDF reports the blocks
    ROWS = "rows"  # top to bottom, then left to right: (y, x) order of the blocks
    COLUMNS = "columns"  # column by column, left to right, between gutters found by projection
    COLUMNS_RTL = "columns_rtl"  # column by column, right to left (a right-to-left page)
    LAYOUT_MODEL = "layout_model"  # the regions of PyMuPDF's layout model, in the model's order
    NONE = "none"  # the document has no layout (not a PDF), or the page has no text


@dataclass(frozen=True, slots=True)
class ReadingOrder:
    """The order a page's text was written in, with how sure the reader is of it.

    ``broken_seams`` counts, in the order chosen, the consecutive text blocks where a sentence breaks
    off without continuing in the next (readers/pdf/order.py says how a seam is judged); ``columns`` is
    the number of columns the layout analysis found (1 for a single column).
    """

    source: str = OrderSource.NONE.value  # an OrderSource value
    confidence: float = 0.0
    broken_seams: int = 0
    columns: int = 1


class TableSource(StrEnum):
    """How a table was found on a page."""

    TAGGED = "tagged"  # a Table element of the PDF's structure tree
    RULED = "ruled"  # the page's ruling lines form its grid (readers/pdf/tables.py)
    ALIGNED = "aligned"  # word edges that line up over three or more lines, without rules
    MARKUP = "markup"  # the document's own markup says it is a table (HTML, Office, ODF)
    LAYOUT_MODEL = "layout_model"  # a table region of PyMuPDF's layout model, cells by PyMuPDF's finder


class StructureSource(StrEnum):
    """What decided a page's structure (its furniture, tables and reading order)."""

    RULE = "rule"  # the text-layer path's own rules (readers/pdf/certainty.py found nothing to doubt)
    LAYOUT_MODEL = "layout_model"  # PyMuPDF's layout model, on a page the rules were unsure of
    TAGGED = "tagged"  # the structure tree of a tagged PDF
    NONE = "none"  # the document has no page layout (not a PDF)


@dataclass(frozen=True, slots=True)
class PageStructure:
    """Who decided a page's structure and how sure it is: ``why`` lists the signals that made the rules
    unsure (``bands:unmatched=2``) and what the model then decided (``model:furniture=2``), or why the
    model's answer was not used (``model:failed``)."""

    source: str = StructureSource.NONE.value  # a StructureSource value
    confidence: float = 0.0
    why: str = ""


@dataclass(frozen=True, slots=True)
class FoundTable:
    """A table as data: its cells (rows of strings, header rows first), where it is, and how sure.

    ``index`` is the table's position in the document, from 0. ``continues`` is the index of the table
    this one carries on from (the previous page's last table, split by the page break), or None.
    ``evidence`` says, in a few ``name=value`` words, what the confidence rests on.
    """

    page: int
    index: int
    bbox: BBox
    cells: tuple[tuple[str, ...], ...]
    header_rows: int
    markdown: str
    source: str  # a TableSource value
    confidence: float
    evidence: str = ""
    continues: int | None = None

    @property
    def rows(self) -> int:
        return len(self.cells)

    @property
    def columns(self) -> int:
        return max((len(r) for r in self.cells), default=0)


@dataclass(frozen=True, slots=True)
class PageText:
    """The text one reader produced for one page (1-based), raw: no normalisation has happened.

    ``blocks`` is the layout the text came from, where the reader knows it (PDFs): the signals use it at
    extract time; it is not stored. ``hidden`` lists the page's invisible runs of text in reading order,
    where the reader can tell (PDFs); text outside the crop box is listed although the text lacks it.
    """

    page: int
    text: str
    facts: PageFacts = field(default_factory=PageFacts)
    blocks: tuple[Block, ...] = ()
    hidden: tuple[HiddenSpan, ...] = ()
    # The page's label as the document prints it (a PDF's /PageLabels: "xii", "A-3"); None without one.
    label: str | None = None
    order: ReadingOrder = field(default_factory=ReadingOrder)
    # The page's tables as data; each is also in ``text`` as GFM where it stands.
    tables: tuple[FoundTable, ...] = ()
    # Lines the document itself marks as page furniture (a tagged PDF's pagination artifacts: running
    # heads, footers, page numbers), as they stand in ``text``; sanitize removes them.
    artifacts: tuple[str, ...] = ()
    # Who decided ``artifacts`` (a StructureSource value: tagged, or layout_model for the header and
    # footer regions of the layout model), and the page's structure decision.
    artifacts_source: str = StructureSource.TAGGED.value
    structure: PageStructure = field(default_factory=PageStructure)


@dataclass(frozen=True, slots=True)
class ReadResult:
    """What a reader returns: pages of text plus what it learned about the document."""

    pages: tuple[PageText, ...]
    page_count: int
    encoding: str | None = None
    encoding_source: str | None = None
    notes: tuple[str, ...] = ()
    # The reader read the document and knows its text can only come from OCR (an image has no text
    # layer): the dispatch records the reason ``needs_ocr`` instead of ``empty_text`` when nothing came.
    needs_ocr: bool = False
    # Parts of the document the reader found and could not read, one line each (``<what>:<reason>``: an
    # embedded document it cannot open): the dispatch keeps them in the attempt's diagnostics
    # (``unread: <line>``), so that text never disappears without a row saying where it went.
    unread: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return "\n\n".join(p.text for p in self.pages)


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """Bounds a reader must respect; a document over one is ``error`` with reason ``over_limit``."""

    max_pages: int = 5000
    max_text_bytes: int = 256 * 1024 * 1024
    # Pixels of one image frame, checked from its header before any pixel is decoded. A page scanned as
    # large as anyone scans one fits: A0 at 300 dpi and A4 at 1200 dpi are both 139 Mpx. Decoded, 150 Mpx
    # is 150 MB grey, 450 MB RGB and 600 MB RGBA or 16-bit: the most one document should hold at once.
    # It also stays under Pillow's own hard refusal (twice Image.MAX_IMAGE_PIXELS, about 179 Mpx), so
    # this bound, not Pillow's, is the one that decides (a larger value is capped by Pillow's).
    max_image_pixels: int = 150_000_000
    # Containers (zip archives, Office and OpenDocument files, e-mail attachments). A member is read to at
    # most max_member_bytes and a whole container to max_container_bytes of uncompressed data, whatever
    # the sizes its directory declares (a zip bomb lies about them); a member that inflates more than
    # max_compression_ratio times is refused once it is over COMPRESSION_CHECK_FLOOR bytes (readers/
    # safezip.py): text and XML compress 3-10x, office documents 5-20x, a bomb 1000x or more.
    max_member_bytes: int = 64 * 1024 * 1024
    max_container_bytes: int = 1024 * 1024 * 1024
    max_compression_ratio: float = 100.0
    max_members: int = 10_000
    # Containers inside containers (a zip in an e-mail in a zip) are opened to this depth.
    max_nesting: int = 3
    # A container's whole tree (its members, theirs, to max_nesting) inflates to at most this many bytes
    # and this many members (readers/walk/expansion.py); the dev corpus's largest tree is 2 members and 11.5
    # KB
    # (benchmarks/container_trees.py): the bound is what one container may hold, docs/decisions.md.
    max_tree_bytes: int = 1024 * 1024 * 1024
    max_tree_members: int = 10_000
