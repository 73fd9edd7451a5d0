"""PyMuPDF, the primary PDF reader: raw markdown per page (headings, GFM tables) and the page facts.

What it writes, page by page: the text layer as markdown, with ``#``..``####`` headings recognised from
font size and weight, ruled tables as GFM tables placed where they sit in the reading order;
:class:`~readers.core.model.PageFacts` (size, fonts, image placements, vector paths, tables, headings, and
from :mod:`readers.pdf.facts` image cover, vector figures, text drawn as outlines, invisible text and
OCR-layer fonts) for the signals; and the page's layout as model blocks of lines of spans (font, size,
box, bold, monospaced, invisible), built from the same ``dict`` as the text; and the page's invisible
runs of text with the reason for each (:class:`~readers.core.model.HiddenSpan`: render mode 3, zero alpha,
tiny, white on its own background, outside the crop box), which the text keeps and sanitize removes
where the page is not an OCR layer. A tagged PDF's pages that its structure tree covers are read in the
tree's order, with its pagination artifacts and its tables as data (:mod:`readers.pdf.structure`).
The text is RAW: no Unicode normalisation, no ligature expansion, U+FFFD, controls and private-use
characters are kept as MuPDF reports them, and whitespace inside a line is kept; only the ends of each
reconstructed line are trimmed (leading blanks would turn a line into a markdown code block, trailing
ones into a hard break).

Why it is built this way (measured on the corpus's 28 born-digital PDFs, 241 pages, 2-core machine;
``benchmarks/bench_extract.py`` repeats the comparison):

- ``get_text("dict")`` with its default flags costs ~3.0 ms/page because it also decodes every image
  (``TEXT_PRESERVE_IMAGES``); without that flag it costs ~1.75 ms/page. That margin pays for the
  drawings and for everything this module does in Python.
- Image placements: ``get_images()`` (~0.05 ms/page) lists the images a page *references*;
  ``get_image_info()`` (~1 ms/page) lists where they are *drawn*. The cheap call (and a scan of the
  content for inline images, ~0.2 ms) decides whether the expensive one is needed, so only pages that
  can hold an image pay for the exact count.
- Drawings: ``get_cdrawings()`` (~1.25 ms/page) gives the path count and the straight segments the
  table finder needs, in one call; ``get_bboxlog()`` was slower (~1.5 ms/page). The TextPage flag
  ``TEXT_COLLECT_VECTORS`` would give path boxes for free, but it makes MuPDF cut text blocks and
  lines at every path: on pyp__GeoTopo-komprimiert.pdf each formula with an overline falls apart.
- Facts and blocks (:mod:`readers.pdf.facts`): from the ``dict``, ``get_image_info()`` and
  ``get_cdrawings()`` already at hand, never a second extraction. Invisible text comes from the
  ``dict`` spans' ``alpha`` and ``char_flags``, not from ``get_texttrace()`` (~2.3 ms/page, as much
  as the ``dict`` itself), which only cropped pages call. Building the model spans costs ~0.6 ms/page
  (one frozen object per span); the facts ~0.3 ms/page.
- Tables: not ``page.find_tables()``, which on the corpus would cost more than all other pages
  together, but :func:`readers.pdf.tables.find_ruled_tables`, the same "lines" algorithm run on the
  segments and spans this module already has (~2-5 ms on a dense table page; why, in that module).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import pymupdf

from readers.core.base import (
    PAGE_FAILED,
    Reader,
    collector_paused,
    refuse_unreadable_pages,
    require_readable_file,
)
from readers.core.errors import CorruptDocument, EncryptedDocument, FileUnreadable, LimitExceeded, ReaderError
from readers.core.model import (
    Block,
    ContentKind,
    HiddenSpan,
    HiddenWhy,
    Line,
    OrderSource,
    PageFacts,
    PageStructure,
    PageText,
    ReadingOrder,
    ReadLimits,
    ReadResult,
    Span,
    StructureSource,
    TableSource,
)
from readers.pdf import layout_model
from readers.pdf.aligned import LEADER, find_aligned_tables, find_turned_aligned_tables, unframed
from readers.pdf.bidi import (
    RTL_LINE_SHARE,
    drawn_rightwards,
    drawn_text,
    holds_rtl_letter,
    logical_line,
    may_hold_rtl,
    rtl_share,
    visual_text,
)
from readers.pdf.certainty import BAND_SHARE, WIDE_GAP_EM, Decision, PageSignals, band_key, band_lines, decide
from readers.pdf.cid_fonts import FONT_DESCRIPTORS_SUPPLIED, supply_font_descriptors
from readers.pdf.facts import (
    INVISIBLE_MAX_ALPHA,
    INVISIBLE_MAX_SIZE,
    PAINTED,
    PALE_MIN_LUMINANCE,
    chars_outside_crop,
    drawing_facts,
    image_cover,
    is_on_own_background,
    ocr_font_hint,
    span_luminance,
)
from readers.pdf.order import (
    MAX_ROW_SHARE,
    OrderBlock,
    Ordered,
    broken_seams,
    column_pieces,
    piece_gutters,
    reading_order,
    row_pairs,
)
from readers.pdf.placed import PlacedTable, found_tables, header_rows, renumber_tables
from readers.pdf.salvage import PAGE_TREE_LOST, open_salvaged
from readers.pdf.structure import read_tagged
from readers.pdf.tables import TABLE_MIN_FILL, find_ruled_tables, vertical_rules

# --- extraction flags -------------------------------------------------------------------------------

#: Ligatures stay ligatures (raw), whitespace stays as written, characters outside the media box are
#: dropped (MuPDF's default). Deliberately NOT ``TEXT_PRESERVE_IMAGES`` (it decodes every image: the
#: default ``dict`` flags cost 1.7x these) and NOT ``TEXT_CID_FOR_UNKNOWN_UNICODE``: without it a glyph
#: MuPDF cannot map to Unicode comes out as U+FFFD, which the bad-rune signal measures, instead of its
#: CID passed off as a character. On the corpus that turns the "plausible but wrong" CJK of
#: ``pdfminer__issue_566_test_1.pdf`` and the shifted Latin of ``pdfminer__issue-791-non-unicode-cmap.pdf``
#: into U+FFFD; a font repair needs the PDF's font anyway, not these characters.
TEXT_FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP

_FONT_BOLD = pymupdf.TEXT_FONT_BOLD  # span["flags"]: the font says it is bold
_FONT_MONOSPACED = pymupdf.TEXT_FONT_MONOSPACED  # span["flags"]: the font says it is fixed-pitch
_CHAR_BOLD = 8  # span["char_flags"]: MuPDF saw bold glyphs (FZ_STEXT_BOLD), including fake bold
# Why a span is invisible, as plain strings: the scan loop compares and stores them for every span.
_RENDER_MODE, _ALPHA, _TINY = HiddenWhy.RENDER_MODE.value, HiddenWhy.ALPHA.value, HiddenWhy.TINY.value
_PALE, _OUTSIDE_CROP = HiddenWhy.PALE.value, HiddenWhy.OUTSIDE_CROP.value

# --- headings ---------------------------------------------------------------------------------------

#: A line at least this many times the document's body size is a size heading. Calibrated on the
#: corpus: sizes 1.05-1.14x the body hold running heads (Federal Register, 10 on 9 pt), author lines
#: (unst__multi-column-2p.pdf, 12 on 11) and bold table headers; 1.16x and up are headings (eskdx's
#: subsections 1.17, the CV sections of plumb__issue-71 1.16, LaTeX \subsection 1.2 and \section
#: 1.44 in pyp__multicolumn.pdf). Word's Heading 2 is 13 on 11 pt = 1.18. 1.15 splits the two.
HEADING_SIZE_RATIO = 1.15
#: A bold line counts as "at body size" between these ratios (Word Heading 3 is 12/11 = 1.09 bold;
#: LaTeX \subsubsection is bold at 1.0). Below 0.95 it is a caption or footnote, not a heading.
BODY_SIZE_RATIO_MIN = 0.95
#: A size near the most common one that holds at least this share of the document's characters is body
#: text, not a heading size (see _body_size). On the corpus, the headings of a born-digital document
#: hold 0.2-4.5% of its characters; the 10.5 pt prose of deb-zh__zhlipsum.pdf (9 pt samples) holds 9%.
BODY_MIN_SHARE = 0.08
BODY_MAX_RATIO = 1.25
#: At most this many consecutive heading-size lines make one heading (a title that wraps); a longer run
#: is display text, a pull quote or a slide body, and stays text.
HEADING_MAX_LINES = 3
#: At most this many characters in a size heading (a title of two or three lines fits, a paragraph
#: does not) / a bold body-size heading (longer bold lines are emphasised sentences). The longest real
#: headings on the corpus are ~110 characters (a two-line title) and ~60 (a bold side heading).
HEADING_MAX_CHARS = 160
BOLD_HEADING_MAX_CHARS = 80
#: A bold line whose parts are further apart than this many font sizes is a row of columns, not a
#: heading. LaTeX puts 1 em between a section's number and title (MuPDF reports them as two lines);
#: the bold header row of tabula__campaign_donors.pdf has gaps of 3-9 em.
BOLD_HEADING_MAX_GAP = 2.0
#: Size headings get ``#``, ``##``, ``###`` by the rank of their size in the document; every smaller
#: size shares ``###``. Bold body-size headings get ``####``.
SIZE_HEADING_LEVELS = 3
BOLD_HEADING_LEVEL = 4
#: Sizes are compared after rounding to half a point: 9.9626 (LaTeX's 10 pt) and 10.0 are one size.
_SIZE_QUANTUM = 0.5
#: The blank between two stacked pieces of one column of vertical writing is at most this many ems
#: (character pitch in vertical Japanese is 1-1.1 em; a new paragraph starts a new column, not a gap).
VERTICAL_JOIN_EM = 1.0
_LETTER = re.compile(r"[^\W\d_]")
_SENTENCE_END = (".", ",", ";", ":", "-")  # a bold line ending so continues: it is not a heading
_TOC_ENTRY = re.compile(r"\s\d+$")
_INLINE_IMAGE = re.compile(rb"(?:^|\s)BI\s")

# --- page model -------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Line:
    """A MuPDF line as the layout and the tables see it; its spans are the model's (one object each)."""

    spans: Sequence[Span]
    horizontal: bool
    top: float
    bottom: float
    key: tuple[int, int] = (-1, -1)  # (block, line) in MuPDF's TextPage, to find the line's words
    direction: tuple[float, float] = (1.0, 0.0)  # MuPDF's writing direction of the line

    @property
    def downward(self) -> bool:
        """Written top to bottom (vertical CJK: MuPDF's direction (0, 1))."""
        return abs(self.direction[0]) < 1e-3 and self.direction[1] > 0

    @classmethod
    def of(
        cls, spans: Sequence[Span], horizontal: bool, key: tuple[int, int], direction: tuple[float, float]
    ) -> _Line:
        top, bottom = min(s.bbox[1] for s in spans), max(s.bbox[3] for s in spans)
        return cls(spans, horizontal, top, bottom, key, direction)


@dataclass(slots=True)
class _TextLine:
    """A reconstructed output line with what the heading rules need."""

    text: str
    size: float
    bold: bool
    horizontal: bool = True
    widest_gap: float = 0.0  # widest gap between the MuPDF lines put together, in font sizes


@dataclass(slots=True)
class _Block:
    lines: list[_TextLine]


@dataclass(slots=True)
class _Table:
    markdown: str


@dataclass(slots=True)
class _Draft:
    """One page after the first pass; headings need the whole document's body size to be decided."""

    number: int
    items: list[_Block | _Table]
    facts: PageFacts
    sizes: Counter[float] = field(default_factory=Counter)
    blocks: tuple[Block, ...] = ()
    hidden: tuple[HiddenSpan, ...] = ()
    tables: list[PlacedTable] = field(default_factory=list)
    order: ReadingOrder = field(default_factory=ReadingOrder)
    # What the structure decision needs, and may lay the page out again with (readers/pdf/certainty.py).
    signals: PageSignals | None = None
    lines: list[list[_Line]] = field(default_factory=list)
    permutation: tuple[int, ...] = ()
    artifacts: tuple[str, ...] = ()
    structure: PageStructure = field(default_factory=PageStructure)


@dataclass(slots=True)
class _Scan:
    """One pass over the ``dict`` spans: the reader's lines, the model's blocks and the text facts.

    ``lines`` (for the layout and the tables) and ``blocks`` (for the signals) hold the same non-empty
    span objects at the same indexes. ``pale`` lists the visible spans drawn in a near-white colour, as
    (block, line, span, luminance): whether they stand on their own background is decided once the
    page's images and drawings are known. ``why`` gives the reason (a HiddenWhy value) of every invisible
    span by the same (block, line, span) indexes.
    """

    lines: list[list[_Line]] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    chars: int = 0  # non-whitespace characters
    invisible: int = 0  # of which invisible
    pale: list[tuple[int, int, int, float]] = field(default_factory=list)
    why: dict[tuple[int, int, int], str] = field(default_factory=dict)
    right_to_left: bool = False  # some span holds a right-to-left letter


# --- the reader -------------------------------------------------------------------------------------


class PyMuPDFReader(Reader):
    """The primary PDF reader (DESIGN §3): fast, markdown, facts for the signals."""

    name = "pymupdf"
    # 2: the page's invisible runs are recorded (pages.hidden_text/hidden_why); a PDF read by 1 is read
    # again, not carried over, since its rows would say "nothing hidden". 3: a PDF none of whose pages
    # loads is `corrupt` (an error), not an empty read. 4: each page carries its printed label (the
    # document's /PageLabels, pages.label). 5: tables as data (the tables table): ruled tables with their
    # cells, header rows and confidence, tables aligned by whitespace (readers/pdf/aligned.py), and a
    # table's continuation on the next page; the page's blocks in the reading order of readers/pdf/order.py
    # (pages.reading_order, order_confidence, broken_seams, columns); a tagged PDF's pages the structure
    # tree covers read in its order (reading_order = tagged), with its pagination artifacts and tables.
    # 6: a tagged page's marked content is read through MuPDF (readers/pdf/marked.py), its characters
    # MuPDF's own (a glyph without Unicode as MuPDF writes it). 7: a tagged page's right-to-left lines in
    # reading order, as the layout path writes them (readers/pdf/structure.py).
    # 8: a PDF whose page tree is lost is read from its surviving page objects (readers/pdf/salvage.py).
    # 9: a page whose structure the text layer leaves uncertain (readers/pdf/certainty.py) is read by
    # PyMuPDF's layout model (readers/pdf/layout_model.py): pages.structure_source, _confidence, _why;
    # tables printed sideways read upright, open sides of a grid only where none is drawn, and a column
    # of vertical writing read as one line.
    # 10: right-to-left lines from the characters' places; two columns in one block cut at their gutter,
    # a spread read page by page, tiny-set text drawn legible kept; tables ruled by rows only, titles
    # tagged into a table's rows kept above it, headers over several lines and levels joined; a CID font
    # without a descriptor given one, so its vertical encoding is kept.
    revision = 10
    kinds = frozenset({ContentKind.PDF})

    @property
    def tool_version(self) -> str:
        return f"{pymupdf.VersionBind}/mupdf-{pymupdf.VersionFitz}"

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        with collector_paused():
            return self._read(Path(path), limits)

    def _read(self, path: Path, limits: ReadLimits) -> ReadResult:
        try:
            doc, notes = _open(path, limits)
        except ReaderError:
            raise
        except MemoryError as exc:
            raise LimitExceeded(f"{path.name}: out of memory while opening") from exc
        except Exception as exc:  # a library error we did not foresee: still a document error
            raise CorruptDocument(f"{path.name}: PyMuPDF failed to open it: {exc}") from exc
        try:
            return _read_document(doc, path, limits, notes)
        except ReaderError:
            raise
        except MemoryError as exc:
            raise LimitExceeded(f"{path.name}: out of memory while reading") from exc
        except Exception as exc:
            raise CorruptDocument(f"{path.name}: PyMuPDF failed while reading: {exc}") from exc
        finally:
            doc.close()


def _open(path: Path, limits: ReadLimits) -> tuple[pymupdf.Document, list[str]]:
    """Open ``path`` as a PDF, translating every way that can fail into the project's errors."""
    require_readable_file(path)
    try:
        doc, salvaged = open_salvaged(path)
    except pymupdf.EmptyFileError as exc:
        raise CorruptDocument(f"{path.name}: the file is empty", reason="empty_file") from exc
    except pymupdf.FileDataError as exc:
        raise CorruptDocument(f"{path.name}: not a readable PDF: {exc}") from exc
    except OSError as exc:
        raise FileUnreadable(f"{path}: cannot be read: {exc}") from exc
    notes: list[str] = [f"{PAGE_TREE_LOST}{salvaged}"] if salvaged else []
    try:
        if doc.needs_pass:
            if not doc.authenticate(""):
                raise EncryptedDocument(
                    f"{path.name}: encrypted, and the empty user password does not open it"
                )
            notes.append("opened_with_empty_password")
        elif (doc.metadata or {}).get("encryption"):
            # MuPDF already tried the empty user password while opening, and it worked.
            notes.append("opened_with_empty_password")
        if doc.page_count > limits.max_pages:
            raise LimitExceeded(f"{path.name}: {doc.page_count} pages, over the limit of {limits.max_pages}")
        described = supply_font_descriptors(doc)
        if described:
            notes.append(f"{FONT_DESCRIPTORS_SUPPLIED}{described}")
    except BaseException:
        doc.close()
        raise
    return doc, notes


def open_pdf(path: Path, limits: ReadLimits) -> pymupdf.Document:
    """``path`` opened as the PDF reader opens it (the same errors, the same page bound); the caller
    closes it."""
    return _open(path, limits)[0]


def _read_document(doc: pymupdf.Document, path: Path, limits: ReadLimits, notes: list[str]) -> ReadResult:
    page_count = doc.page_count
    first_failure = ""
    drafts: list[_Draft] = []
    chars = 0
    for index in range(page_count):
        try:
            draft = _first_pass(doc.load_page(index), index + 1)
        except MemoryError as exc:
            raise LimitExceeded(f"{path.name}: out of memory on page {index + 1}") from exc
        except Exception as exc:
            notes.append(f"{PAGE_FAILED}{index + 1}")
            first_failure = first_failure or f"{type(exc).__name__}: {exc}"
            draft = _Draft(index + 1, [], PageFacts())
        chars += sum(
            len(line.text) for item in draft.items if isinstance(item, _Block) for line in item.lines
        )
        if chars > limits.max_text_bytes:  # a character is at least one byte: a cheap lower bound
            raise LimitExceeded(f"{path.name}: more than {limits.max_text_bytes} bytes of text")
        drafts.append(draft)
    refuse_unreadable_pages(path, page_count, notes, first_failure)
    labels = page_labels(doc)
    pages = read_tagged(doc, _labelled(_render(drafts), labels))  # a tagged PDF in its tree's order
    # Each page's structure decided, the pages the tree covers left to it; the model's pages laid out again.
    covered = {page.page for page in pages if page.structure.source == StructureSource.TAGGED}
    if _decide_structure(doc, drafts, covered):
        fresh = _labelled(_render(drafts), labels)
        pages = [old if old.page in covered else new for old, new in zip(pages, fresh, strict=True)]
    else:
        pages = [
            page if page.page in covered else replace(page, structure=draft.structure)
            for page, draft in zip(pages, drafts, strict=True)
        ]
    pages = renumber_tables(pages)
    total = sum(len(page.text.encode("utf-8", "surrogatepass")) for page in pages)
    if total > limits.max_text_bytes:
        raise LimitExceeded(f"{path.name}: {total} bytes of text, over the limit of {limits.max_text_bytes}")
    # What could not be read is kept with the document (its diagnostics): a lost page tree, failed pages.
    unread = tuple(n for n in notes if n.startswith((PAGE_TREE_LOST, PAGE_FAILED)))
    return ReadResult(pages=tuple(pages), page_count=page_count, notes=tuple(notes), unread=unread)


def _labelled(pages: list[PageText], labels: list[str | None]) -> list[PageText]:
    return [replace(page, label=label) for page, label in zip(pages, labels, strict=True)]


def page_labels(doc: pymupdf.Document) -> list[str | None]:
    """Each page's label as the document prints it (its /PageLabels: "i", "ii", "1", "A-1"), None where
    it has none (no /PageLabels, or a range with neither style nor prefix).

    The label rules are read once for the document: ``Page.get_label`` reads them again for every page
    (on the corpus's pyp__GeoTopo-komprimiert.pdf, 117 pages: 0.2 ms once, 17.5 ms page by page).
    A broken /PageLabels leaves the document unlabelled rather than unread.
    """
    try:
        rules = sorted(doc.get_page_labels(), key=lambda rule: rule["startpage"])
        starts = [rule["startpage"] for rule in rules]
        out: list[str | None] = []
        for index in range(doc.page_count):
            at = bisect.bisect_right(starts, index) - 1
            if at < 0:  # before the first range: the PDF gives it no label
                out.append(None)
                continue
            rule = rules[at]
            style = rule.get("style", "")
            # letters count from A = 1 in the PDF, from A = 0 in PyMuPDF's construct_label
            number = index - rule["startpage"] + rule.get("firstpagenum", 1) - (style in ("a", "A"))
            out.append(pymupdf.utils.construct_label(style, rule.get("prefix", ""), number) or None)
        return out
    except Exception:
        return [None] * doc.page_count


# --- first pass: one page -----------------------------------------------------------------------------


def _first_pass(page: pymupdf.Page, number: int) -> _Draft:
    """Extract a page's spans and drawings, find its ruled tables, and lay out its flow blocks."""
    textpage = page.get_textpage(flags=TEXT_FLAGS)
    scan = _scan_dict(textpage.extractDICT())
    if scan.right_to_left:
        # Right-to-left letters: their lines are read again from the characters' positions (readers/pdf/
        # bidi.py drawn_text), which only MuPDF's rawdict has.
        scan = _scan_dict(_drawn_dict(textpage.extractRAWDICT()))
    paths = page.get_cdrawings()
    # The page's boxes are asked of PyMuPDF once each: every property call reads them from the PDF again.
    rect = page.rect
    # Spans, images and paths are in unrotated page space, so shares are taken of the crop box's sides.
    crop = page.cropbox
    tables = unframed(scan.lines, find_ruled_tables(paths, scan.lines, textpage), rect.width)
    tables = sorted(
        [
            *tables,
            *find_aligned_tables(scan.lines, tables, rect.width, lambda: vertical_rules(paths)),
            *find_turned_aligned_tables(scan.lines, tables, crop.width, crop.height),
        ],
        key=lambda t: (t.bbox[1], t.bbox[0]),
    )
    shown = page.rotation_matrix if page.rotation else None
    scan, ordered = _reading_order(scan, rect, shown)
    items, sizes = _layout([scan.lines[i] for i in ordered.permutation], tables)
    fonts = sorted({span.font for block in scan.lines for line in block for span in line.spans})
    infos = _image_infos(page)
    cover = image_cover(infos, crop.width, crop.height)
    drawn = drawing_facts(paths, crop.width, crop.height)
    blocks = tuple(scan.blocks)
    invisible = scan.invisible
    if scan.pale:
        blocks, pale = _hide_pale_spans(blocks, scan.pale, [info["bbox"] for info in infos], paths, scan.why)
        invisible += pale
    hidden = _hidden_runs(blocks, scan.why) if scan.why else []
    outside = chars_outside_crop(page, crop)
    if outside:
        hidden += _outside_crop_runs(page)
    chars = scan.chars + outside
    invisible += outside
    facts = PageFacts(
        width=round(rect.width, 2),
        height=round(rect.height, 2),
        fonts=len(fonts),
        font_names=tuple(fonts),
        images=sum(1 for info in infos if info.get("size", 0) > 0),
        drawings=len(paths),
        tables=len(tables),
        image_coverage=round(cover.coverage, 4),
        largest_image_share=round(cover.largest_share, 4),
        vector_figure_area=round(drawn.vector_figure_area, 4),
        outline_text_paths=drawn.outline_text_paths,
        invisible_chars=invisible,
        invisible_share=round(invisible / chars, 4) if chars else 0.0,
        ocr_font_hint=ocr_font_hint(fonts),
    )
    visible = scan.chars - scan.invisible
    text_layer = visible > 0 and invisible < visible and not facts.ocr_font_hint
    signals = replace(_signals(scan, tables, ordered.order, rect.height), text_layer=text_layer)
    return _Draft(
        number,
        items,
        facts,
        sizes,
        blocks,
        tuple(hidden),
        tables,
        ordered.order,
        signals,
        scan.lines,
        ordered.permutation,
    )


def _reading_order(scan: _Scan, rect: pymupdf.Rect, shown: pymupdf.Matrix | None) -> tuple[_Scan, Ordered]:
    """The order of the page's text blocks (readers/pdf/order.py), from their boxes and their ends; and
    the blocks it orders: MuPDF's, or, where a block holds lines of two columns and reading the page
    column by column with such blocks cut at their gutters breaks no more seams, the cut blocks."""
    width = rect.width
    ordered = _ordered(scan, rect, shown)
    cut = _cut_at_gutters(scan, width)
    if cut is not None:
        other = _ordered(cut, rect, shown)
        columns = (OrderSource.COLUMNS.value, OrderSource.COLUMNS_RTL.value)
        if other.order.source in columns and other.order.broken_seams <= ordered.order.broken_seams:
            return cut, other
    return scan, ordered


def _cut_at_gutters(scan: _Scan, width: float) -> _Scan | None:
    """The scan with each block that holds lines of two columns cut into one block a column (their lines,
    spans and the indexes of ``pale`` and ``why`` moved with them); None where no block is cut, or where
    most lines across the cuts start level with each other (a table's or a form's rows)."""
    boxes = [[line.bbox for line in block.lines] for block in scan.blocks]
    pieces = [column_pieces(lines, width) for lines in boxes]
    if all(len(p) == 1 for p in pieces):
        return None
    gutters = sorted({g for lines, cut in zip(boxes, pieces, strict=True) for g in piece_gutters(lines, cut)})
    pieces = [column_pieces(lines, width, gutters) for lines in boxes]
    pairs = [row_pairs(lines, cut) for lines, cut in zip(boxes, pieces, strict=True)]
    if sum(level for level, _ in pairs) > MAX_ROW_SHARE * sum(total for _, total in pairs):
        return None  # rows of a table or a form side by side, not columns
    cut = _Scan(chars=scan.chars, invisible=scan.invisible)
    moved: dict[tuple[int, int], tuple[int, int]] = {}  # (block, line) -> where it is in the cut scan
    for b, (lines, block) in enumerate(zip(scan.lines, scan.blocks, strict=True)):
        for piece in pieces[b]:
            for at, li in enumerate(piece):
                moved[(b, li)] = (len(cut.blocks), at)
            model_lines = tuple(block.lines[li] for li in piece)
            box = (
                min(line.bbox[0] for line in model_lines),
                min(line.bbox[1] for line in model_lines),
                max(line.bbox[2] for line in model_lines),
                max(line.bbox[3] for line in model_lines),
            )
            cut.lines.append([lines[li] for li in piece])
            cut.blocks.append(Block(model_lines, box))
    cut.pale = [(*moved[(b, li)], si, luminance) for b, li, si, luminance in scan.pale]
    cut.why = {(*moved[(b, li)], si): why for (b, li, si), why in scan.why.items()}
    return cut


def _ordered(scan: _Scan, rect: pymupdf.Rect, shown: pymupdf.Matrix | None) -> Ordered:
    """The order of the scan's blocks, their boxes as the page is shown (``shown``: a rotated page's matrix;
    MuPDF's boxes are in the unrotated page's space, where a page turned 180 degrees reads bottom up)."""
    blocks = [
        OrderBlock(
            model.bbox if shown is None else tuple(pymupdf.Rect(model.bbox) * shown),
            "".join([span.text for span in lines[0].spans]),
            "".join([span.text for span in lines[-1].spans]),
            len(lines),
        )
        for lines, model in zip(scan.lines, scan.blocks, strict=True)
    ]
    return reading_order(blocks, rect.width, rect.height)


def _image_infos(page: pymupdf.Page) -> list[dict[str, Any]]:
    """Where the page draws images, asked of MuPDF only when the page can hold one.

    A page holds images when its resources (or its forms') name one, or its content has an inline
    image (``BI``); only then is ``get_image_info()`` (~1 ms) called. It also reports shadings, as
    images of size 0 (ocrmypdf__vector.pdf, TikZ shadings in pyp__GeoTopo-komprimiert.pdf): they are
    kept here (a span over a shading does not stand on the white page) and left out of the image count
    and cover. Inline images inside forms are missed when the page has no image resource.
    """
    if not page.get_images() and not _has_inline_image(page.read_contents()):
        return []
    return page.get_image_info()


def _has_inline_image(content: bytes) -> bool:
    # bytes.find is ~30x faster than the regex on a long content stream that has no "BI" at all
    return b"BI" in content and _INLINE_IMAGE.search(content) is not None


def _scan_dict(content: dict[str, Any]) -> _Scan:
    """MuPDF's text blocks as lists of lines of spans, in MuPDF's reading order, empty spans dropped;
    the same as model blocks, and the page's character and invisible-character counts.

    A span is invisible when MuPDF saw it drawn with (near) zero alpha (render modes 3 and 7, a zero
    fill opacity), painted neither filled nor stroked, or set and drawn under INVISIBLE_MAX_SIZE points; pale
    spans are judged later (see _Scan). The reason is the first that holds of: painted neither filled
    nor stroked (render mode 3: ``render_mode``), (near) zero alpha (mode 7, a zero fill opacity:
    ``alpha``), too small (``tiny``). Characters are counted without whitespace. The loop runs for every
    span of every page, so it keeps to local names and counts the page's characters once.
    """
    scan = _Scan()
    texts: list[str] = []
    pale = scan.pale
    why_of = scan.why
    invisible_chars = 0
    max_alpha, min_size, painted, min_luminance = (
        INVISIBLE_MAX_ALPHA,
        INVISIBLE_MAX_SIZE,
        PAINTED,
        PALE_MIN_LUMINANCE,
    )
    font_bold, char_bold, monospaced = _FONT_BOLD, _CHAR_BOLD, _FONT_MONOSPACED
    new = tuple.__new__  # Span(...) without its Python-level __new__
    block_no = -1  # counted over text blocks only, as extractWORDS numbers them
    for block in content["blocks"]:
        if block.get("type", 0) != 0:
            continue
        block_no += 1
        lines: list[_Line] = []
        model_lines: list[Line] = []
        for line_no, line in enumerate(block["lines"]):
            spans: list[Span] = []
            for span in line["spans"]:
                text = span["text"]
                if not text:
                    continue
                flags, char_flags, size = span["flags"], span.get("char_flags", painted), span["size"]
                # tiny: set under the size, and drawn under it (a text matrix may scale a 0.24 pt font
                # up to legible 11 pt glyphs: pdfjs__bug1513120_reduced.pdf)
                tiny = size < min_size and span["bbox"][3] - span["bbox"][1] < min_size
                invisible = span.get("alpha", 255) <= max_alpha or not char_flags & painted or tiny
                if invisible:
                    invisible_chars += len("".join(text.split()))
                    why_of[(len(scan.blocks), len(model_lines), len(spans))] = (
                        _RENDER_MODE
                        if not char_flags & painted
                        else _ALPHA
                        if span.get("alpha", 255) <= max_alpha
                        else _TINY
                    )
                elif span["color"] and (luminance := span_luminance(span["color"])) >= min_luminance:
                    pale.append((len(scan.blocks), len(model_lines), len(spans), luminance))
                texts.append(text)
                bold = (flags & font_bold or char_flags & char_bold) != 0  # bool() without the call
                mono = flags & monospaced != 0
                spans.append(new(Span, (text, span["font"], size, span["bbox"], bold, mono, invisible)))
            if spans:
                direction = line["dir"]
                horizontal = abs(direction[1]) < 1e-3 and direction[0] > 0
                line_box = line["bbox"]
                model_spans = tuple(spans)
                lines.append(
                    _Line(model_spans, horizontal, line_box[1], line_box[3], (block_no, line_no), direction)
                )
                model_lines.append(Line(model_spans, line_box))
        if lines:
            scan.lines.append(lines)
            scan.blocks.append(Block(tuple(model_lines), block["bbox"]))
    joined = "".join(texts)
    scan.chars = len("".join(joined.split()))
    scan.invisible = invisible_chars
    scan.right_to_left = holds_rtl_letter(joined)
    return scan


def _drawn_dict(content: dict[str, Any]) -> dict[str, Any]:
    """MuPDF's ``rawdict`` with each span's ``text`` as ``dict`` has it, but taken from the characters'
    positions on the lines that hold right-to-left letters (readers/pdf/bidi.py).

    A horizontal line whose letters are mostly right-to-left and whose characters were drawn mostly left
    to right (as the line stands, or its words left to right: bidi.drawn_rightwards) is read from its
    characters' places: its spans from right to left, each span's text as it stands (bidi.visual_text)
    turned into reading order (bidi.logical_line). Another line with right-to-left letters keeps its
    drawing order, with its numbers and gaps put right (bidi.drawn_text).
    """
    for block in content["blocks"]:
        for line in block.get("lines", ()):
            spans = line["spans"]
            texts = ["".join([c["c"] for c in span["chars"]]) for span in spans]
            joined = "".join(texts)
            if not holds_rtl_letter(joined):
                for span, text in zip(spans, texts, strict=True):
                    span["text"] = text
                continue
            direction = line["dir"]
            if (
                abs(direction[1]) < 1e-3
                and direction[0] > 0
                and rtl_share(joined) >= RTL_LINE_SHARE
                and drawn_rightwards([c for span in spans for c in span["chars"]])
            ):
                spans.sort(key=lambda span: -(span["bbox"][0] + span["bbox"][2]))
                for span in spans:
                    visual = visual_text(span["chars"], span["size"])
                    span["text"] = logical_line(visual, right_to_left=True, graphemes=True)
                continue
            for span in spans:
                span["text"] = drawn_text(span["chars"], span["size"])
    return content


def _hide_pale_spans(
    blocks: tuple[Block, ...],
    pale: list[tuple[int, int, int, float]],
    image_boxes: list[tuple[float, float, float, float]],
    paths: list[dict[str, Any]],
    why: dict[tuple[int, int, int], str],
) -> tuple[tuple[Block, ...], int]:
    """Mark the pale spans that stand on their own background invisible (and ``pale`` in ``why``);
    return the blocks and the characters hidden."""
    out = list(blocks)
    hidden = 0
    for b, li, si, luminance in pale:
        span = out[b].lines[li].spans[si]
        if not is_on_own_background(span.bbox, luminance, image_boxes, paths):
            continue
        hidden += len("".join(span.text.split()))
        why[(b, li, si)] = _PALE
        line = out[b].lines[li]
        spans = (*line.spans[:si], span._replace(invisible=True), *line.spans[si + 1 :])
        lines = (*out[b].lines[:li], replace(line, spans=spans), *out[b].lines[li + 1 :])
        out[b] = replace(out[b], lines=lines)
    return tuple(out), hidden


def _hidden_runs(blocks: tuple[Block, ...], why: dict[tuple[int, int, int], str]) -> list[HiddenSpan]:
    """The invisible spans as runs, in MuPDF's reading order: adjacent spans of one line with the same
    reason are one run (a sentence drawn white on white is one run, not one per font change), trimmed;
    runs of whitespace alone are dropped."""
    runs: list[HiddenSpan] = []
    for b, block in enumerate(blocks):
        for li, line in enumerate(block.lines):
            current: str | None = None
            parts: list[str] = []
            for si, span in enumerate(line.spans):
                reason = why.get((b, li, si))
                if reason != current:
                    _add_run(runs, parts, current)
                    current, parts = reason, []
                if reason is not None:
                    parts.append(span.text)
            _add_run(runs, parts, current)
    return runs


def _add_run(runs: list[HiddenSpan], parts: list[str], why: str | None) -> None:
    text = "".join(parts).strip()
    if why is not None and text:
        runs.append(HiddenSpan(text, why))


def _outside_crop_runs(page: pymupdf.Page) -> list[HiddenSpan]:
    """The text drawn wholly outside the crop box, as runs of one line each (``outside_crop``).

    The same test as :func:`readers.pdf.facts.chars_outside_crop`, which counts these characters; asked
    only of pages where it counted some, so the second ``get_texttrace()`` (~0.3 ms on a cropped page)
    is paid only where there is text to record. MuPDF's text extraction drops these characters, so the
    runs are not in the page's text; they come after the page's other runs. Trace spans on one line
    (their boxes overlap vertically by half the smaller height) are one run.
    """
    width, height = page.cropbox.width, page.cropbox.height
    lines: list[tuple[float, float, list[str]]] = []  # top, bottom, characters
    for span in page.get_texttrace():
        x0, y0, x1, y1 = span["bbox"]
        if x0 >= 0.0 and y0 >= 0.0 and x1 <= width and y1 <= height:
            continue
        chars = [
            chr(char[0])
            for char in span["chars"]
            if char[3][2] < 0.0 or char[3][0] > width or char[3][3] < 0.0 or char[3][1] > height
        ]
        if not chars:
            continue
        if lines:
            top, bottom, previous = lines[-1]
            overlap = min(bottom, y1) - max(top, y0)
            if overlap >= min(bottom - top, y1 - y0) / 2:
                previous.extend(chars)
                lines[-1] = (min(top, y0), max(bottom, y1), previous)
                continue
        lines.append((y0, y1, chars))
    runs: list[HiddenSpan] = []
    for _, _, chars in lines:
        _add_run(runs, chars, _OUTSIDE_CROP)
    return runs


# --- flow text ----------------------------------------------------------------------------------------


def _layout(
    blocks: list[list[_Line]], tables: list[PlacedTable]
) -> tuple[list[_Block | _Table], Counter[float]]:
    """The page's items in reading order: text blocks with table spans removed, tables where they start.

    Also counts the characters per (rounded) font size of the flow text, for the body size.
    """
    members: set[int] = set()
    for table in tables:
        members |= table.members
    starts = _starts(blocks, tables, members)
    items: list[_Block | _Table] = []
    sizes: Counter[float] = Counter()
    if not tables:  # most pages: every line is flow text
        for block in blocks:
            _flush(block, items, sizes)
        return items, sizes
    for block in blocks:
        current: list[_Line] = []
        for line in block:
            kept: list[Span] = []
            for span in line.spans:
                key = id(span)
                if key in starts:
                    _flush(current, items, sizes)
                    current = []
                    if kept:
                        current.append(_Line.of(kept, line.horizontal, line.key, line.direction))
                        _flush(current, items, sizes)
                        current, kept = [], []
                    items.append(_Table(starts[key].markdown))
                if key not in members:
                    kept.append(span)
            if len(kept) == len(line.spans):
                current.append(line)
            elif kept:
                current.append(_Line.of(kept, line.horizontal, line.key, line.direction))
        _flush(current, items, sizes)
    if None in starts:  # a table whose title is the page's last text: after it
        items.append(_Table(starts[None].markdown))
    return items, sizes


def _starts(
    blocks: list[list[_Line]], tables: list[PlacedTable], members: set[int]
) -> dict[int | None, PlacedTable]:
    """Where each table is written: before its first span, or, when a title taken out of it reads after
    that span, before the first flow span after the title (None: at the end of the page)."""
    starts: dict[int | None, PlacedTable] = {table.first: table for table in tables if not table.above}
    titled = [table for table in tables if table.above]
    if not titled:
        return starts
    order = [id(span) for block in blocks for line in block for span in line.spans]
    index = {key: i for i, key in enumerate(order)}
    for table in titled:
        last = max((index[key] for key in table.above if key in index), default=-1)
        if last < index.get(table.first, 0):
            starts[table.first] = table
            continue
        after = next((key for key in order[last + 1 :] if key not in members and key not in starts), None)
        starts[table.first if after is None and None in starts else after] = table
    return starts


def _flush(lines: list[_Line], items: list[_Block | _Table], sizes: Counter[float]) -> None:
    """Turn a run of MuPDF lines into a block of reconstructed text lines."""
    out: list[_TextLine] = []
    for group in _merge_same_baseline(lines):
        if len(group) > 1 and _right_to_left(group):
            group.sort(key=lambda line: -line.spans[0].bbox[0])  # pieces of a right-to-left line
        text_line = _text_line(group, sizes)
        if text_line is not None:
            out.append(text_line)
    if out:
        items.append(_Block(out))


def _right_to_left(group: list[_Line]) -> bool:
    """The pieces of one line hold mostly right-to-left letters: they read from right to left."""
    text = "".join([span.text for line in group for span in line.spans])
    return may_hold_rtl(text) and rtl_share(text) >= RTL_LINE_SHARE


def _merge_same_baseline(lines: list[_Line]) -> Iterator[list[_Line]]:
    """MuPDF sometimes splits one visual line into several (a wide gap, a tab stop): put them back.

    Two consecutive horizontal lines are one when they overlap vertically by at least half the smaller
    height and the second starts to the right of where the first ends. Vertical writing likewise: MuPDF
    often makes each character of a column set top to bottom its own line, and two consecutive downward
    lines are one when they share the column (overlap horizontally by half the narrower) and the second
    starts below the first, within :data:`VERTICAL_JOIN_EM` of it.
    """
    group: list[_Line] = []
    for line in lines:
        if group and _continues(group[-1], line):
            group.append(line)
            continue
        if group:
            yield group
        group = [line]
    if group:
        yield group


def _continues(previous: _Line, line: _Line) -> bool:
    if previous.downward and line.downward:
        return _continues_downward(previous, line)
    if not (previous.horizontal and line.horizontal):
        return False
    overlap = min(previous.bottom, line.bottom) - max(previous.top, line.top)
    smaller = min(previous.bottom - previous.top, line.bottom - line.top)
    return (
        smaller > 0 and overlap >= smaller / 2 and line.spans[0].bbox[0] >= previous.spans[-1].bbox[2] - 1.0
    )


def _continues_downward(previous: _Line, line: _Line) -> bool:
    left = min(s.bbox[0] for s in line.spans)
    right = max(s.bbox[2] for s in line.spans)
    previous_left = min(s.bbox[0] for s in previous.spans)
    previous_right = max(s.bbox[2] for s in previous.spans)
    overlap = min(right, previous_right) - max(left, previous_left)
    narrower = min(right - left, previous_right - previous_left)
    em = max(line.spans[0].size, 1.0)
    return (
        narrower > 0
        and overlap >= narrower / 2
        and line.top >= previous.bottom - 1.0
        and line.top - previous.bottom <= VERTICAL_JOIN_EM * em
    )


def _joins_without_space(before: str, after: str) -> bool:
    """Whether two pieces of one column of vertical writing meet without a space: between CJK
    characters (which write no spaces) or where a piece is a single character stacked on the other."""
    before, after = before.strip(), after.strip()
    return len(before) == 1 or len(after) == 1 or (_wide(before[-1:]) and _wide(after[:1]))


def _wide(char: str) -> bool:
    return bool(char) and unicodedata.east_asian_width(char) in ("W", "F")


def _text_line(group: list[_Line], sizes: Counter[float]) -> _TextLine | None:
    """One output line from MuPDF lines on one baseline; adds its characters per size to ``sizes``.

    The line's size is the size of most of its characters, and it is bold when every visible span is.
    """
    parts: list[str] = []
    weights: dict[float, int] = {}  # visible characters per rounded size
    counted: dict[float, int] = {}  # all characters per rounded size
    quantised: dict[float, float] = {}  # each span size, rounded
    quantum = _SIZE_QUANTUM
    bold = True
    widest_gap = 0.0
    previous: _Line | None = None
    previous_text = ""
    for line in group:
        spans = line.spans
        first = spans[0]
        stacked = previous is not None and previous.downward and line.downward
        if previous is not None and not stacked:
            gap = first.bbox[0] - previous.spans[-1].bbox[2]
            widest_gap = max(widest_gap, gap / max(first.size, 1.0))
        line_text = "".join([span.text for span in spans])
        if (
            parts
            and not parts[-1][-1:].isspace()
            and not first.text[:1].isspace()
            and not (stacked and _joins_without_space(previous_text, line_text))
        ):
            parts.append(" ")
        previous, previous_text = line, line_text
        for span in spans:
            text = span.text
            parts.append(text)
            size = span.size
            size = quantised.get(size) or quantised.setdefault(size, round(size / quantum) * quantum)
            count = len(text)
            counted[size] = counted.get(size, 0) + count
            if not text.isspace():
                weights[size] = weights.get(size, 0) + count
                if bold:
                    bold = span.bold
    for size, count in counted.items():  # in the order the spans first had each size
        sizes[size] += count
    text = "".join(parts).strip()
    if not text:
        return None
    size = max(weights, key=weights.__getitem__) if weights else 0.0
    return _TextLine(text, size, bold, all(line.horizontal for line in group), widest_gap)


# --- second pass: headings and markdown ---------------------------------------------------------------


def _render(drafts: list[_Draft]) -> list[PageText]:
    """Decide the headings with the document's body size, then write every page's markdown."""
    totals: Counter[float] = Counter()
    for draft in drafts:
        totals.update(draft.sizes)
    body = _body_size(totals)
    heading_sizes: set[float] = set()
    for draft in drafts:
        for item in draft.items:
            if isinstance(item, _Block):
                heading_sizes.update(size for size, _ in _size_headings(item.lines, body))
    ranks = {
        size: min(rank, SIZE_HEADING_LEVELS - 1) + 1
        for rank, size in enumerate(sorted(heading_sizes, reverse=True))
    }
    pages: list[PageText] = []
    tables = found_tables([(draft.number, draft.facts.height, draft.tables) for draft in drafts])
    for draft, found in zip(drafts, tables, strict=True):
        parts: list[str] = []
        headings = 0
        for item in draft.items:
            if isinstance(item, _Table):
                parts.append(item.markdown)
                continue
            text, count = _block_markdown(item.lines, body, ranks)
            parts.append(text)
            headings += count
        facts = replace(draft.facts, headings=headings) if headings else draft.facts
        pages.append(
            PageText(
                page=draft.number,
                text="\n\n".join(parts),
                facts=facts,
                blocks=draft.blocks,
                hidden=draft.hidden,
                tables=tuple(found),
                order=draft.order,
                artifacts=draft.artifacts,
                artifacts_source=StructureSource.LAYOUT_MODEL.value if draft.artifacts else "tagged",
                structure=draft.structure,
            )
        )
    return pages


def _body_size(sizes: Counter[float]) -> float:
    """The document's body size: the most common size (by characters), or a slightly larger one.

    A size up to BODY_MAX_RATIO times the most common one that holds at least BODY_MIN_SHARE of the
    characters is body text too, and the largest such size is the body: deb-zh__zhlipsum.pdf sets 84%
    of its characters in 9 pt samples and its prose (9%) in 10.5 pt, which the most common size alone
    would turn into 1.17x "headings". Farther sizes are not considered, whatever their share: in a
    short document the title can hold 8% of the characters (pyp__libreoffice-form.pdf: 28 pt on 11).
    """
    total = sum(sizes.values())
    if not total:
        return 0.0
    mode = sizes.most_common(1)[0][0]
    return max(
        size
        for size, count in sizes.items()
        if size == mode or (count >= BODY_MIN_SHARE * total and size <= mode * BODY_MAX_RATIO)
    )


def _size_headings(lines: list[_TextLine], body: float) -> Iterator[tuple[float, range]]:
    """Runs of consecutive lines set clearly larger than the body: (their size, their line indexes)."""
    if body <= 0:
        return
    start = 0
    while start < len(lines):
        if not _heading_sized(lines[start], body):
            start += 1
            continue
        end = start
        while end < len(lines) and _heading_sized(lines[end], body):
            end += 1
        run = lines[start:end]
        text = " ".join(line.text for line in run)
        if len(run) <= HEADING_MAX_LINES and len(text) <= HEADING_MAX_CHARS and _LETTER.search(text):
            yield max(line.size for line in run), range(start, end)
        start = end


def _heading_sized(line: _TextLine, body: float) -> bool:
    return line.horizontal and line.size >= body * HEADING_SIZE_RATIO


def _is_bold_heading(lines: list[_TextLine], body: float) -> bool:
    """A standalone short bold line at body size (Word's Heading 3, LaTeX's \\subsubsection).

    Not when its parts stand in columns (a table's header row: tabula__campaign_donors.pdf) and not
    when it ends in a page number (a bold table-of-contents entry: pyp__GeoTopo-komprimiert.pdf).
    """
    if len(lines) != 1 or body <= 0:
        return False
    line = lines[0]
    return (
        line.bold
        and line.horizontal
        and line.widest_gap <= BOLD_HEADING_MAX_GAP
        and not _TOC_ENTRY.search(line.text)
        and body * BODY_SIZE_RATIO_MIN <= line.size < body * HEADING_SIZE_RATIO
        and len(line.text) <= BOLD_HEADING_MAX_CHARS
        and not line.text.endswith(_SENTENCE_END)
        and _LETTER.search(line.text) is not None
    )


def _block_markdown(lines: list[_TextLine], body: float, ranks: dict[float, int]) -> tuple[str, int]:
    """A block's markdown and how many headings it holds."""
    if _is_bold_heading(lines, body):
        return "#" * BOLD_HEADING_LEVEL + " " + lines[0].text, 1
    runs = list(_size_headings(lines, body))
    if not runs:
        return "\n".join(line.text for line in lines), 0
    parts: list[str] = []
    cursor = 0
    for size, run in runs:
        if cursor < run.start:
            parts.append("\n".join(line.text for line in lines[cursor : run.start]))
        heading = " ".join(lines[i].text for i in run)
        parts.append("#" * ranks[size] + " " + heading)
        cursor = run.stop
    if cursor < len(lines):
        parts.append("\n".join(line.text for line in lines[cursor:]))
    return "\n\n".join(parts), len(runs)


# --- the page-structure decision and the layout model ---------------------------------------------------

#: A model table region overlapping an own table by at least this share of its own area is the same
#: table (the own finders found it): only regions where the finders found nothing are built.
SAME_TABLE_OVERLAP = 0.3
#: The confidence of a table built from a model region (the model found it and the rules did not): the
#: share of its cells right on the tables truth, 98 of 177 on the one such table (docs/decisions.md).
MODEL_TABLE_CONFIDENCE = 0.55
#: A model table whose rows mostly hold dot leaders is a table of contents, which the own finders leave
#: as text on purpose (readers/pdf/aligned.py): the model labels them tables.
MAX_LEADER_ROW_SHARE = 0.5


def _signals(scan: _Scan, tables: list[PlacedTable], order: ReadingOrder, height: float) -> PageSignals:
    """The structure signals of a page, from what the first pass has at hand."""
    band: list[tuple[str, float, float]] = []
    top, bottom = BAND_SHARE * height, (1 - BAND_SHARE) * height
    for block in scan.lines:
        for line in block:
            if line.bottom <= top or line.top >= bottom:
                band.append(("".join([span.text for span in line.spans]), line.top, line.bottom))
    ruled = sum(1 for t in tables if t.source == TableSource.RULED.value)
    aligned = tuple(t.confidence for t in tables if t.source == TableSource.ALIGNED.value)
    gapped = 0 if tables else _gapped_rows(scan.lines)
    return PageSignals(order, aligned, ruled, gapped, band_lines(band, height))


def _gapped_rows(blocks: list[list[_Line]]) -> int:
    """Visual rows of the page cut into three or more pieces by gaps of a font size or more: rows of a
    table whose finder did not take them (or of a form, a table of contents)."""
    rows: dict[int, list[tuple[float, float, float]]] = {}
    for block in blocks:
        for line in block:
            if line.horizontal:
                for span in line.spans:
                    box = span.bbox
                    rows.setdefault(round(box[3] / 3), []).append((box[0], box[2], span.size))
    count = 0
    for pieces in rows.values():
        if len(pieces) < 3:
            continue
        pieces.sort()
        gaps = sum(1 for a, b in pairwise(pieces) if b[0] - a[1] >= WIDE_GAP_EM * max(a[2], 1.0))
        count += gaps >= 2
    return count


def _decide_structure(doc: pymupdf.Document, drafts: list[_Draft], covered: set[int]) -> bool:
    """Decide each page's structure (readers/pdf/certainty.py), the pages the structure tree covers
    (``covered``) being the tree's, and let the layout model decide the uncertain pages' furniture,
    missing tables and unsure order, within its budget. True when the model decided some page."""
    repeated: Counter[str] = Counter()
    for draft in drafts:
        if draft.signals is not None:
            repeated.update({band_key(line.text) for line in draft.signals.band_lines})
    decisions = {
        draft.number: decide(draft.signals, repeated, draft.number in covered)
        for draft in drafts
        if draft.signals is not None
    }
    # The most uncertain pages (the most signals) first, within the document's budget.
    ranked = sorted(
        (n for n, d in decisions.items() if not d.certain), key=lambda n: -len(decisions[n].reasons)
    )
    chosen = set(ranked[: layout_model.page_budget(len(drafts))])
    stop = ""
    decided = False
    for draft in drafts:
        if draft.signals is None:
            continue
        decision = decisions[draft.number]
        why = " ".join(decision.reasons)
        confidence = draft.order.confidence
        draft.structure = PageStructure(decision.source, round(confidence, 4), why)
        if decision.certain:
            continue
        if stop or draft.number not in chosen:
            draft.structure = PageStructure(
                decision.source, round(confidence, 4), f"{why} model:{stop or 'cap'}"
            )
            continue
        answer = layout_model.read_regions(doc.load_page(draft.number - 1))
        if answer.failure:
            if answer.failure in ("over_budget", "not_loaded", "off"):
                stop = answer.failure
            draft.structure = PageStructure(
                decision.source, round(confidence, 4), f"{why} model:{answer.failure}"
            )
            continue
        _apply_regions(doc, draft, decision, answer)
        decided = True
    return decided


def _centre_in(box: tuple[float, float, float, float], region: tuple[float, float, float, float]) -> bool:
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return region[0] <= x <= region[2] and region[1] <= y <= region[3]


def _line_box(line: _Line) -> tuple[float, float, float, float]:
    return (line.spans[0].bbox[0], line.top, line.spans[-1].bbox[2], line.bottom)


def _apply_regions(
    doc: pymupdf.Document, draft: _Draft, decision: Decision, answer: layout_model.Answer
) -> None:
    """What the model's regions decide on an uncertain page: its header and footer lines are furniture,
    its table regions where the own finders found none are tables, and an unsure order becomes the
    regions' order where that breaks fewer sentences."""
    regions = answer.regions
    lines = draft.lines
    decided: list[str] = []
    # Furniture: the lines in page-header and page-footer regions, never the page's only text.
    furniture_boxes = [r.bbox for r in regions if r.label in layout_model.FURNITURE_LABELS]
    every = [line for block in lines for line in block]
    furniture: list[str] = []
    if furniture_boxes:
        taken = [
            [line for line in block if any(_centre_in(_line_box(line), b) for b in furniture_boxes)]
            for block in lines
        ]
        count = sum(len(block) for block in taken)
        if 0 < count < len(every):
            for block in taken:
                for group in _merge_same_baseline(block):
                    text_line = _text_line(group, Counter())
                    if text_line is not None:
                        furniture.append(text_line.text)
            decided.append(f"model:furniture={len(furniture)}")
    # Tables: model regions no own table overlaps.
    relayout = False
    tables = list(draft.tables)
    boxes = [
        r.bbox
        for r in regions
        if r.label == layout_model.TABLE_LABEL and not any(_overlap(r.bbox, t.bbox) for t in tables)
    ]
    if boxes:
        page = doc.load_page(draft.number - 1)
        for table in layout_model.region_tables(page, boxes):
            placed = _placed_model_table(table, lines, draft.permutation, tables)
            if placed is not None:
                tables.append(placed)
                relayout = True
        if relayout:
            tables.sort(key=lambda t: (t.bbox[1], t.bbox[0]))
            decided.append(f"model:tables={len(tables) - len(draft.tables)}")
    # Order: the regions' order, where the rules were unsure of theirs and it breaks fewer seams.
    permutation = draft.permutation
    order = draft.order
    if any(r.startswith(("order:", "columns=")) for r in decision.reasons):
        candidate = _region_order(lines, draft.blocks, regions, permutation)
        ends = [
            OrderBlock(
                model.bbox,
                "".join(s.text for s in block[0].spans),
                "".join(s.text for s in block[-1].spans),
                len(block),
            )
            for block, model in zip(lines, draft.blocks, strict=True)
        ]
        broken = broken_seams(ends, candidate)
        if candidate != permutation and broken < order.broken_seams:
            judged = max(len(candidate) - 1, 1)
            order = ReadingOrder(
                OrderSource.LAYOUT_MODEL.value, round(1.0 - broken / judged, 4), broken, order.columns
            )
            permutation = candidate
            relayout = True
            decided.append(f"model:order broken_seams={draft.order.broken_seams}->{broken}")
    if relayout:
        draft.items, draft.sizes = _layout([lines[i] for i in permutation], tables)
        draft.tables, draft.permutation, draft.order = tables, permutation, order
        draft.facts = replace(draft.facts, tables=len(tables))
    draft.artifacts = tuple(furniture)
    covered = sum(1 for line in every if any(_centre_in(_line_box(line), r.bbox) for r in regions))
    confidence = round(covered / len(every), 4) if every else 0.0
    why = " ".join(
        [*decision.reasons, *(decided or ["model:no_change"]), f"model_ms={round(answer.seconds * 1000)}"]
    )
    draft.structure = PageStructure(StructureSource.LAYOUT_MODEL.value, confidence, why)


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    area = (a[2] - a[0]) * (a[3] - a[1])
    return w > 0 and h > 0 and area > 0 and w * h >= SAME_TABLE_OVERLAP * area


def _model_cells(table: Any) -> list[list[str]] | None:
    """The cells of a table PyMuPDF built in a model region, or None when they make no table: fewer than
    two rows or columns, rows of dot leaders (a table of contents), or a grid of mostly empty cells (words
    cut into columns of their own: under the ruled finder's TABLE_MIN_FILL)."""
    try:
        cells = [[" ".join((cell or "").split()) for cell in row] for row in table.extract()]
    except Exception:
        return None
    if len(cells) < 2 or max((len(r) for r in cells), default=0) < 2:
        return None
    if sum(1 for row in cells if any(LEADER.search(c) for c in row)) > MAX_LEADER_ROW_SHARE * len(cells):
        return None
    if sum(1 for row in cells for c in row if c) < TABLE_MIN_FILL * sum(len(row) for row in cells):
        return None
    return cells


def _placed_model_table(
    table: Any, lines: list[list[_Line]], permutation: tuple[int, ...], tables: list[PlacedTable]
) -> PlacedTable | None:
    """A table PyMuPDF built in a model region, placed among the page's spans: the spans whose centre
    lies in its box (and in no other table) leave the flow text, and it stands where the first of them
    stood."""
    try:
        bbox = tuple(float(v) for v in table.bbox)
    except Exception:
        return None
    cells = _model_cells(table)
    if cells is None:
        return None
    taken: set[int] = set()
    for t in tables:
        taken |= t.members
    members: set[int] = set()
    first = 0
    for index in permutation:
        for line in lines[index]:
            for span in line.spans:
                if id(span) not in taken and _centre_in(span.bbox, bbox):  # type: ignore[arg-type]
                    if not members:
                        first = id(span)
                    members.add(id(span))
    if not members:
        return None
    width = max(len(r) for r in cells)
    cells = [[*row, *([""] * (width - len(row)))] for row in cells]
    return PlacedTable(
        cells,
        bbox,  # type: ignore[arg-type]
        TableSource.LAYOUT_MODEL.value,
        MODEL_TABLE_CONFIDENCE,
        f"layout_model_region rows={len(cells)} columns={width}",
        header_rows(cells),
        members,
        first,
    )


def _region_order(
    lines: list[list[_Line]],
    blocks: tuple[Block, ...],
    regions: tuple[layout_model.Region, ...],
    permutation: tuple[int, ...],
) -> tuple[int, ...]:
    """The blocks in the order of the model's regions (each block in the region holding its centre); a
    block in no region stays after the block that preceded it."""
    keys: dict[int, tuple[int, int]] = {}
    last = -1
    for position, index in enumerate(permutation):
        box = blocks[index].bbox
        region = next((r for r, reg in enumerate(regions) if _centre_in(box, reg.bbox)), None)
        if region is not None:
            last = region
        keys[index] = (last, position)
    return tuple(sorted(permutation, key=keys.__getitem__))
