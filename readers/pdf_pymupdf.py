"""PyMuPDF, the primary PDF reader: raw markdown per page (headings, GFM tables) and the page facts.

What it writes, page by page: the text layer as markdown, with ``#``..``####`` headings recognised from
font size and weight, ruled tables as GFM tables placed where they sit in the reading order, and
:class:`~readers.model.PageFacts` (size, fonts, image placements, vector paths, tables, headings) for
the signals. The text is RAW: no Unicode normalisation, no ligature expansion, U+FFFD, controls and
private-use characters are kept as MuPDF reports them, and whitespace inside a line is kept; only the
ends of each reconstructed line are trimmed (leading blanks would turn a line into a markdown code
block, trailing ones into a hard break).

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
- Tables: ``page.find_tables()`` costs ~100 ms per page of ruled table (its ``make_chars`` turns the
  page into one Python dict per character), 30 times a whole page of ``dict`` extraction, and with the
  optional ``pymupdf-layout`` package installed its default ``use_layout=True`` runs an ONNX model
  (200-500 ms/page, and output that depends on what else is installed). On the corpus, 16 ruled-table
  pages out of 241 would have cost more than all other pages together. So this module finds ruled
  tables itself with the same "lines" algorithm (snap, join, intersect, smallest cells, connected
  cells), from the segments it already has, and fills the cells with the spans it already has (and
  the TextPage's words where a span crosses a cell border): ~2-5 ms on a dense table page.
  ``tests/test_pdf_readers.py`` checks it against ``find_tables`` on a generated grid.
"""

from __future__ import annotations

import bisect
import re
import stat
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymupdf

from readers.base import Reader
from readers.errors import CorruptDocument, EncryptedDocument, LimitExceeded, ReaderError
from readers.model import ContentKind, PageFacts, PageText, ReadLimits, ReadResult

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
_CHAR_BOLD = 8  # span["char_flags"]: MuPDF saw bold glyphs (FZ_STEXT_BOLD), including fake bold

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
_LETTER = re.compile(r"[^\W\d_]")
_SENTENCE_END = (".", ",", ";", ":", "-")  # a bold line ending so continues: it is not a heading
_TOC_ENTRY = re.compile(r"\s\d+$")
_INLINE_IMAGE = re.compile(rb"(?:^|\s)BI\s")

# --- ruled tables -----------------------------------------------------------------------------------

#: A filled rectangle no thicker than this is a rule (a drawn line), not a box. Cell borders in the
#: corpus are 0.4-1.5 pt (pdfTeX rules 0.4-0.8, Excel prints ~0.7, Word 0.5); 3 pt is pdfplumber's
#: and find_tables' snap tolerance, used here for all three tolerances as those tools do.
RULE_MAX_THICKNESS = 3.0
SNAP_TOLERANCE = 3.0
JOIN_TOLERANCE = 3.0
INTERSECTION_TOLERANCE = 3.0
#: Segments shorter than this are glyph fragments or tick marks, not cell borders (find_tables: 3).
EDGE_MIN_LENGTH = 3.0
#: The cheap gate: fewer straight horizontal or vertical segments than this on a page cannot make a
#: grid of 2x2 cells (3 horizontal and 3 vertical borders), so the grid search is skipped.
GATE_MIN_SEGMENTS = 3
#: This many rules of the same extent make a table whose open sides are added (see _open_sides).
RULES_FOR_OPEN_SIDES = 3
#: Bounds that keep a pathological page (a map, graph paper, a hatched chart) from costing more than a
#: few pages of text: beyond them the page is read as flow text. The corpus's busiest table page has
#: 18 x 28 rules and 358 intersections (plumb__nics-background-checks-2015-11-rotated.pdf); a dense
#: spreadsheet print of 80 rows by 30 columns would have ~2500.
MAX_EDGES_PER_AXIS = 1000
MAX_INTERSECTIONS = 6000
#: A grid is a table only with at least 2 rows and 2 columns holding text, and when at least this share
#: of its cells hold text. Calibrated on the corpus: its real tables fill 0.86-1.0 of their cells; the
#: grids of the diagrams of pyp__GeoTopo-komprimiert.pdf and of the ESKD title blocks of
#: deb-ru__eskdx.pdf (which find_tables reports as tables) fill 0.13-0.42.
TABLE_MIN_FILL = 0.4
#: A grid holding this many curves or slanted lines (away from its border) is a figure: on the corpus,
#: the chart axes of pdfminer__issue-1061-colour-space-stack.pdf hold 18-25 and the diagrams of
#: pyp__GeoTopo-komprimiert.pdf 3-171, every real table 0. Rounded corners lie within the margin.
TABLE_MAX_FIGURE_MARKS = 3
FIGURE_MARGIN = 6.0
#: A grid with a filled cell covering more than this share of its area is a frame around text (a page
#: border joined to a form's title block, a boxed note split by one rule), not a table.
TABLE_MAX_CELL_SHARE = 0.5
#: A span that sticks out of its cell by more than this is cut into words at the cell borders.
_CELL_OVERHANG = 1.0


# --- page model -------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Span:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    bold: bool
    font: str


@dataclass(slots=True)
class _Line:
    spans: list[_Span]
    horizontal: bool
    top: float
    bottom: float
    key: tuple[int, int] = (-1, -1)  # (block, line) in MuPDF's TextPage, to find the line's words

    @classmethod
    def of(cls, spans: list[_Span], horizontal: bool, key: tuple[int, int]) -> _Line:
        return cls(spans, horizontal, min(s.y0 for s in spans), max(s.y1 for s in spans), key)


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


# --- the reader -------------------------------------------------------------------------------------


class PyMuPDFReader(Reader):
    """The primary PDF reader (DESIGN §3): fast, markdown, facts for the signals."""

    name = "pymupdf"
    revision = 1
    kinds = frozenset({ContentKind.PDF})

    @property
    def tool_version(self) -> str:
        return f"{pymupdf.VersionBind}/mupdf-{pymupdf.VersionFitz}"

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        path = Path(path)
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
    try:
        info = path.stat()
    except OSError as exc:
        raise ReaderError(f"{path}: cannot be read: {exc}", reason="unreadable") from exc
    if not stat.S_ISREG(info.st_mode):
        raise ReaderError(f"{path}: not a regular file", reason="unreadable")
    if info.st_size == 0:
        raise CorruptDocument(f"{path.name}: the file is empty (0 bytes)", reason="empty_file")
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except pymupdf.EmptyFileError as exc:
        raise CorruptDocument(f"{path.name}: the file is empty", reason="empty_file") from exc
    except pymupdf.FileDataError as exc:
        raise CorruptDocument(f"{path.name}: not a readable PDF: {exc}") from exc
    except OSError as exc:
        raise ReaderError(f"{path}: cannot be read: {exc}", reason="unreadable") from exc
    notes: list[str] = []
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
    except BaseException:
        doc.close()
        raise
    return doc, notes


def _read_document(doc: pymupdf.Document, path: Path, limits: ReadLimits, notes: list[str]) -> ReadResult:
    page_count = doc.page_count
    drafts: list[_Draft] = []
    chars = 0
    for index in range(page_count):
        try:
            draft = _first_pass(doc.load_page(index), index + 1)
        except MemoryError as exc:
            raise LimitExceeded(f"{path.name}: out of memory on page {index + 1}") from exc
        except Exception:
            notes.append(f"page_failed:{index + 1}")
            draft = _Draft(index + 1, [], PageFacts())
        chars += sum(
            len(line.text) for item in draft.items if isinstance(item, _Block) for line in item.lines
        )
        if chars > limits.max_text_bytes:  # a character is at least one byte: a cheap lower bound
            raise LimitExceeded(f"{path.name}: more than {limits.max_text_bytes} bytes of text")
        drafts.append(draft)
    pages = _render(drafts)
    total = sum(len(page.text.encode("utf-8", "surrogatepass")) for page in pages)
    if total > limits.max_text_bytes:
        raise LimitExceeded(f"{path.name}: {total} bytes of text, over the limit of {limits.max_text_bytes}")
    return ReadResult(pages=tuple(pages), page_count=page_count, notes=tuple(notes))


# --- first pass: one page -----------------------------------------------------------------------------


def _first_pass(page: pymupdf.Page, number: int) -> _Draft:
    """Extract a page's spans and drawings, find its ruled tables, and lay out its flow blocks."""
    textpage = page.get_textpage(flags=TEXT_FLAGS)
    blocks = _blocks_from_dict(textpage.extractDICT())
    paths = page.get_cdrawings()
    grids = _find_grids(_segments(paths))
    tables = _fill_tables(grids, blocks, _Words(textpage)) if grids else []
    items, sizes = _layout(blocks, tables)
    fonts = sorted({span.font for block in blocks for line in block for span in line.spans})
    rect = page.rect
    facts = PageFacts(
        width=round(rect.width, 2),
        height=round(rect.height, 2),
        fonts=len(fonts),
        font_names=tuple(fonts),
        images=_count_image_placements(page),
        drawings=len(paths),
        tables=len(tables),
    )
    return _Draft(number, items, facts, sizes)


def _count_image_placements(page: pymupdf.Page) -> int:
    """How many times the page draws an image, asked of MuPDF only when the page can hold one.

    A page holds images when its resources (or its forms') name one, or its content has an inline
    image (``BI``); only then is ``get_image_info()`` (~1 ms) called. It also reports shadings, as
    images of size 0 (ocrmypdf__vector.pdf, TikZ shadings in pyp__GeoTopo-komprimiert.pdf): those are
    not counted. Inline images inside forms are missed when the page has no image resource.
    """
    if not page.get_images() and not _has_inline_image(page.read_contents()):
        return 0
    return sum(1 for info in page.get_image_info() if info.get("size", 0) > 0)


def _has_inline_image(content: bytes) -> bool:
    # bytes.find is ~30x faster than the regex on a long content stream that has no "BI" at all
    return b"BI" in content and _INLINE_IMAGE.search(content) is not None


def _blocks_from_dict(content: dict[str, Any]) -> list[list[_Line]]:
    """MuPDF's text blocks as lists of lines of spans, in MuPDF's reading order, empty spans dropped."""
    blocks: list[list[_Line]] = []
    block_no = -1  # counted over text blocks only, as extractWORDS numbers them
    for block in content["blocks"]:
        if block.get("type", 0) != 0:
            continue
        block_no += 1
        lines: list[_Line] = []
        for line_no, line in enumerate(block["lines"]):
            spans: list[_Span] = []
            for span in line["spans"]:
                text = span["text"]
                if not text:
                    continue
                x0, y0, x1, y1 = span["bbox"]
                bold = bool(span["flags"] & _FONT_BOLD or span.get("char_flags", 0) & _CHAR_BOLD)
                spans.append(_Span(text, x0, y0, x1, y1, span["size"], bold, span["font"]))
            if spans:
                direction = line["dir"]
                horizontal = abs(direction[1]) < 1e-3 and direction[0] > 0
                _, top, _, bottom = line["bbox"]
                lines.append(_Line(spans, horizontal, top, bottom, (block_no, line_no)))
        if lines:
            blocks.append(lines)
    return blocks


class _Words:
    """The page's words by (block, line), taken from the TextPage only when a table needs them.

    ``extractWORDS`` costs ~0.3 ms on a dense page where ``extractRAWDICT`` (characters) costs ~4 ms;
    words are enough to cut a span that crosses a cell border, since cells are separated by blanks.
    """

    def __init__(self, textpage: pymupdf.TextPage) -> None:
        self._textpage = textpage
        self._by_line: dict[tuple[int, int], list[tuple[float, float, str]]] | None = None

    def of_line(self, key: tuple[int, int]) -> list[tuple[float, float, str]]:
        if self._by_line is None:
            self._by_line = {}
            for x0, _, x1, _, word, block_no, line_no, _ in self._textpage.extractWORDS():
                self._by_line.setdefault((block_no, line_no), []).append((x0, x1, word))
        return self._by_line.get(key, [])


# --- finding ruled tables -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Edge:
    pos: float  # y of a horizontal edge, x of a vertical one
    start: float
    end: float


@dataclass(slots=True)
class _Grid:
    """Connected cells: the row and column borders, and each cell as (row0, col0, row1, col1)."""

    xs: list[float]
    ys: list[float]
    cells: list[tuple[int, int, int, int]]

    @property
    def bbox(self) -> tuple[float, float, float, float]:
        return self.xs[0], self.ys[0], self.xs[-1], self.ys[-1]


@dataclass(slots=True)
class _GridTable:
    grid: _Grid
    texts: dict[int, list[str]]  # cell index -> text pieces in reading order
    members: set[int]  # id() of the spans that went into the table
    first: int  # id() of the first span in reading order, where the table is placed
    markdown: str = ""


@dataclass(slots=True)
class _Segments:
    """A page's straight horizontal and vertical segments, and where its curves and slanted lines are."""

    horizontal: list[_Edge] = field(default_factory=list)
    vertical: list[_Edge] = field(default_factory=list)
    figure_marks: list[tuple[float, float]] = field(default_factory=list)  # midpoints

    def add_box(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """A thin box is a rule; any other box gives its four sides (cell backgrounds do too)."""
        if x1 - x0 <= RULE_MAX_THICKNESS and y1 - y0 > x1 - x0:
            self.vertical.append(_Edge((x0 + x1) / 2, y0, y1))
        elif y1 - y0 <= RULE_MAX_THICKNESS and x1 - x0 > y1 - y0:
            self.horizontal.append(_Edge((y0 + y1) / 2, x0, x1))
        else:
            self.horizontal.extend((_Edge(y0, x0, x1), _Edge(y1, x0, x1)))
            self.vertical.extend((_Edge(x0, y0, y1), _Edge(x1, y0, y1)))


def _segments(paths: Sequence[dict[str, Any]]) -> _Segments:
    """Sort the items of ``get_cdrawings()`` into rules, boxes and figure marks."""
    found = _Segments()
    horizontal, vertical, marks = found.horizontal, found.vertical, found.figure_marks
    for path in paths:
        x0, y0, x1, y1 = path["rect"]
        if x1 - x0 <= 1.0 and y1 - y0 <= 1.0:
            marks.append(((x0 + x1) / 2, (y0 + y1) / 2))  # a dot (dashes are longer: they may join)
            continue
        for item in path["items"]:
            kind = item[0]
            if kind == "l":  # inlined: figures hold thousands of these
                (ax, ay), (bx, by) = item[1], item[2]
                dx, dy = abs(ax - bx), abs(ay - by)
                if dy <= 1.0 and dx > 1.0:
                    horizontal.append(_Edge((ay + by) / 2, min(ax, bx), max(ax, bx)))
                elif dx <= 1.0 and dy > 1.0:
                    vertical.append(_Edge((ax + bx) / 2, min(ay, by), max(ay, by)))
                else:  # slanted, or a piece of a curve flattened into tiny segments
                    marks.append(((ax + bx) / 2, (ay + by) / 2))
            elif kind == "re":
                x0, y0, x1, y1 = item[1]
                found.add_box(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
            elif kind == "qu":
                (ulx, uly), (urx, ury), (llx, lly), (lrx, lry) = item[1]
                if max(abs(uly - ury), abs(lly - lry), abs(ulx - llx), abs(urx - lrx)) < 0.5:  # upright
                    found.add_box(min(ulx, urx), min(uly, lly), max(ulx, urx), max(uly, lly))
            elif kind == "c":
                (ax, ay), (bx, by) = item[1], item[4]
                found.figure_marks.append(((ax + bx) / 2, (ay + by) / 2))
    return found


def _snap_join(edges: list[_Edge]) -> list[_Edge]:
    """Snap nearly equal positions to their mean, then merge overlapping or touching segments."""
    edges = [e for e in edges if e.end - e.start >= 0.5]
    if not edges:
        return []
    edges.sort(key=lambda e: e.pos)
    clusters: list[list[_Edge]] = [[edges[0]]]
    for edge in edges[1:]:
        if edge.pos - clusters[-1][-1].pos <= SNAP_TOLERANCE:
            clusters[-1].append(edge)
        else:
            clusters.append([edge])
    joined: list[_Edge] = []
    for cluster in clusters:
        pos = sum(e.pos for e in cluster) / len(cluster)
        cluster.sort(key=lambda e: e.start)
        current = _Edge(pos, cluster[0].start, cluster[0].end)
        for edge in cluster[1:]:
            if edge.start <= current.end + JOIN_TOLERANCE:
                current.end = max(current.end, edge.end)
            else:
                joined.append(current)
                current = _Edge(pos, edge.start, edge.end)
        joined.append(current)
    return [e for e in joined if e.end - e.start >= EDGE_MIN_LENGTH]


def _find_grids(found: _Segments) -> list[_Grid]:
    """Ruled grids on a page: pdfplumber's "lines" strategy, which is also find_tables' default."""
    if len(found.horizontal) < GATE_MIN_SEGMENTS or len(found.vertical) < GATE_MIN_SEGMENTS:
        return []
    hs = _snap_join(found.horizontal)
    vs = _snap_join(found.vertical + _open_sides(hs))
    if not (GATE_MIN_SEGMENTS <= len(hs) <= MAX_EDGES_PER_AXIS):
        return []
    if not (GATE_MIN_SEGMENTS <= len(vs) <= MAX_EDGES_PER_AXIS):
        return []
    points = _intersections(hs, vs)
    if points is None or len(points) < 4:
        return []
    grids = _grids_from_cells(_cells(points))
    return [grid for grid in grids if not _is_figure(grid, found.figure_marks)]


def _is_figure(grid: _Grid, marks: list[tuple[float, float]]) -> bool:
    """A grid with curves or slanted lines inside it is a chart's axes or a diagram, not a table.

    Marks within FIGURE_MARGIN of the grid's border do not count: they are rounded corners.
    """
    x0, y0, x1, y1 = grid.bbox
    x0, y0, x1, y1 = x0 + FIGURE_MARGIN, y0 + FIGURE_MARGIN, x1 - FIGURE_MARGIN, y1 - FIGURE_MARGIN
    inside = 0
    for x, y in marks:
        if x0 < x < x1 and y0 < y < y1:
            inside += 1
            if inside >= TABLE_MAX_FIGURE_MARKS:
                return True
    return False


def _open_sides(hs: list[_Edge]) -> list[_Edge]:
    """Left and right borders for a stack of equally long rules whose table draws no outer sides.

    Many generators (the Korean brochure of unst__korean-text-with-tables.pdf, booktabs, Word's
    "open" styles) rule the rows and leave the table's sides open; pdfplumber then finds no cell. At
    least RULES_FOR_OPEN_SIDES rules starting and ending at the same x get the two missing sides. A
    stack with no inner vertical line still yields a single column, which is not a table.
    """
    sides: list[_Edge] = []
    ordered = sorted(
        hs, key=lambda e: (round(e.start / SNAP_TOLERANCE), round(e.end / SNAP_TOLERANCE), e.pos)
    )
    group: list[_Edge] = []
    for edge in [*ordered, None]:
        if (
            edge is not None
            and group
            and abs(edge.start - group[0].start) <= SNAP_TOLERANCE
            and abs(edge.end - group[0].end) <= SNAP_TOLERANCE
        ):
            group.append(edge)
            continue
        if len(group) >= RULES_FOR_OPEN_SIDES:
            top, bottom = min(e.pos for e in group), max(e.pos for e in group)
            sides.append(_Edge(min(e.start for e in group), top, bottom))
            sides.append(_Edge(max(e.end for e in group), top, bottom))
        group = [edge] if edge is not None else []
    return sides


# A point -> (ids of the horizontal edges through it, ids of the vertical edges through it).
_Points = dict[tuple[float, float], tuple[set[int], set[int]]]


def _intersections(hs: list[_Edge], vs: list[_Edge]) -> _Points | None:
    hs.sort(key=lambda e: e.pos)
    h_positions = [e.pos for e in hs]
    tol = INTERSECTION_TOLERANCE
    points: _Points = {}
    for v_id, v in enumerate(vs):
        low = bisect.bisect_left(h_positions, v.start - tol)
        high = bisect.bisect_right(h_positions, v.end + tol)
        for h_id in range(low, high):
            h = hs[h_id]
            if h.start - tol <= v.pos <= h.end + tol:
                entry = points.setdefault((v.pos, h.pos), (set(), set()))
                entry[0].add(h_id)
                entry[1].add(v_id)
                if len(points) > MAX_INTERSECTIONS:
                    return None
    return points


def _cells(points: _Points) -> list[tuple[float, float, float, float]]:
    """The smallest rectangles whose four corners are intersections joined by edges."""
    by_x: dict[float, list[float]] = {}
    by_y: dict[float, list[float]] = {}
    for x, y in sorted(points):
        by_x.setdefault(x, []).append(y)
    for x, y in sorted(points, key=lambda p: (p[1], p[0])):
        by_y.setdefault(y, []).append(x)
    cells: list[tuple[float, float, float, float]] = []
    for (x, y), (h_ids, v_ids) in points.items():
        column = by_x[x]
        row = by_y[y]
        found = False
        for below in column[bisect.bisect_right(column, y) :]:
            if not v_ids & points[(x, below)][1]:
                continue
            for right in row[bisect.bisect_right(row, x) :]:
                if not h_ids & points[(right, y)][0]:
                    continue
                corner = points.get((right, below))
                if (
                    corner is not None
                    and corner[1] & points[(right, y)][1]
                    and corner[0] & points[(x, below)][0]
                ):
                    cells.append((x, y, right, below))
                    found = True
                    break
            if found:
                break
    return cells


def _grids_from_cells(cells: list[tuple[float, float, float, float]]) -> list[_Grid]:
    """Group cells that share a corner into grids of at least two rows and two columns."""
    parent = list(range(len(cells)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[tuple[float, float], int] = {}
    for i, (x0, y0, x1, y1) in enumerate(cells):
        for corner in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
            j = owner.setdefault(corner, i)
            if j != i:
                parent[find(i)] = find(j)
    groups: dict[int, list[tuple[float, float, float, float]]] = {}
    for i, cell in enumerate(cells):
        groups.setdefault(find(i), []).append(cell)
    grids: list[_Grid] = []
    for group in groups.values():
        xs = sorted({c[0] for c in group} | {c[2] for c in group})
        ys = sorted({c[1] for c in group} | {c[3] for c in group})
        if len(xs) < 3 or len(ys) < 3:
            continue
        grid_cells = [(ys.index(y0), xs.index(x0), ys.index(y1), xs.index(x1)) for x0, y0, x1, y1 in group]
        grids.append(_Grid(xs, ys, sorted(grid_cells)))
    grids.sort(key=lambda g: (g.ys[0], g.xs[0]))
    return grids


def _fill_tables(grids: list[_Grid], blocks: list[list[_Line]], words: _Words) -> list[_GridTable]:
    """Put each span whose centre lies in a grid into its cell; keep the grids that are tables.

    Smaller grids are filled first and keep their spans, so a table drawn inside a page frame (the
    ESKD frames of deb-ru__eskdx.pdf) is not read twice; the frame itself fails the cell-share test.
    """
    tables: list[_GridTable] = []
    taken: set[int] = set()
    for grid in sorted(grids, key=_area):
        table = _fill_grid(grid, blocks, taken, words)
        if table is not None:
            tables.append(table)
            taken |= table.members
    tables.sort(key=lambda t: (t.grid.ys[0], t.grid.xs[0]))
    return tables


def _area(grid: _Grid) -> float:
    x0, y0, x1, y1 = grid.bbox
    return (x1 - x0) * (y1 - y0)


def _slot_owner(grid: _Grid) -> dict[tuple[int, int], int]:
    owner: dict[tuple[int, int], int] = {}
    for index, (r0, c0, r1, c1) in enumerate(grid.cells):
        for r in range(r0, r1):
            for c in range(c0, c1):
                owner.setdefault((r, c), index)
    return owner


def _fill_grid(grid: _Grid, blocks: list[list[_Line]], taken: set[int], words: _Words) -> _GridTable | None:
    gx0, gy0, gx1, gy1 = grid.bbox
    owner = _slot_owner(grid)
    texts: dict[int, list[str]] = {}
    members: set[int] = set()
    first: int | None = None
    for block in blocks:
        for line in block:
            if not line.horizontal:
                continue
            inside: list[tuple[_Span, int]] = []
            for span in line.spans:
                cx, cy = (span.x0 + span.x1) / 2, (span.y0 + span.y1) / 2
                if gx0 < cx < gx1 and gy0 < cy < gy1 and id(span) not in taken:
                    cell = _cell_at(grid, owner, cx, cy)
                    if cell is not None:
                        inside.append((span, cell))
            if not inside:
                continue
            if first is None:
                first = id(inside[0][0])
            members.update(id(span) for span, _ in inside)
            if any(_overhangs(grid, span, cell) for span, cell in inside):
                pieces = _pieces_by_words(grid, owner, line, inside, words)
            else:
                pieces = {}
                for span, cell in inside:
                    pieces.setdefault(cell, []).append(span.text)
            for cell, parts in pieces.items():
                texts.setdefault(cell, []).append("".join(parts))
    if first is None:
        return None
    markdown = _table_markdown(grid, texts)
    return _GridTable(grid, texts, members, first, markdown) if markdown else None


def _overhangs(grid: _Grid, span: _Span, cell: int) -> bool:
    _, c0, _, c1 = grid.cells[cell]
    return span.x0 < grid.xs[c0] - _CELL_OVERHANG or span.x1 > grid.xs[c1] + _CELL_OVERHANG


def _pieces_by_words(
    grid: _Grid,
    owner: dict[tuple[int, int], int],
    line: _Line,
    inside: list[tuple[_Span, int]],
    words: _Words,
) -> dict[int, list[str]]:
    """A line with a span across a cell border, cut into its words, each put in the cell of its centre.

    Words of one cell are joined by one blank: runs of blanks between them are not kept (in a table cell
    only). A word that itself crosses a border stays whole, in the cell of its centre.
    """
    cy = sum((span.y0 + span.y1) / 2 for span, _ in inside) / len(inside)
    left, right = min(span.x0 for span, _ in inside), max(span.x1 for span, _ in inside)
    pieces: dict[int, list[str]] = {}
    for x0, x1, word in words.of_line(line.key):
        cx = (x0 + x1) / 2
        if not left <= cx <= right:
            continue
        cell = _cell_at(grid, owner, cx, cy)
        if cell is not None:
            parts = pieces.setdefault(cell, [])
            parts.append(" " + word if parts else word)
    return pieces


def _cell_area(grid: _Grid, cell: int) -> float:
    r0, c0, r1, c1 = grid.cells[cell]
    return (grid.xs[c1] - grid.xs[c0]) * (grid.ys[r1] - grid.ys[r0])


def _cell_at(grid: _Grid, owner: dict[tuple[int, int], int], x: float, y: float) -> int | None:
    col = bisect.bisect_right(grid.xs, x) - 1
    row = bisect.bisect_right(grid.ys, y) - 1
    return owner.get((row, col))


def _table_markdown(grid: _Grid, texts: dict[int, list[str]]) -> str:
    """GFM for a filled grid, or "" when it is not a table (too empty, fewer than 2x2 filled)."""
    cell_texts = {cell: " ".join(t.strip() for t in parts if t.strip()) for cell, parts in texts.items()}
    filled = {cell: text for cell, text in cell_texts.items() if text}
    if len(filled) < 4 or len(filled) < TABLE_MIN_FILL * len(grid.cells):
        return ""
    if any(_cell_area(grid, cell) > TABLE_MAX_CELL_SHARE * _area(grid) for cell in filled):
        return ""
    n_rows, n_cols = len(grid.ys) - 1, len(grid.xs) - 1
    matrix = [["" for _ in range(n_cols)] for _ in range(n_rows)]
    for cell, text in filled.items():
        r0, c0, _, _ = grid.cells[cell]
        matrix[r0][c0] = text.replace("|", "\\|")
    rows = [row for row in matrix if any(row)]
    keep = [c for c in range(n_cols) if any(row[c] for row in rows)]
    if len(rows) < 2 or len(keep) < 2:
        return ""
    lines = ["| " + " | ".join(row[c] for c in keep) + " |" for row in rows]
    lines.insert(1, "| " + " | ".join("---" for _ in keep) + " |")
    return "\n".join(lines)


# --- flow text ----------------------------------------------------------------------------------------


def _layout(
    blocks: list[list[_Line]], tables: list[_GridTable]
) -> tuple[list[_Block | _Table], Counter[float]]:
    """The page's items in reading order: text blocks with table spans removed, tables where they start.

    Also counts the characters per (rounded) font size of the flow text, for the body size.
    """
    members: set[int] = set()
    starts: dict[int, _GridTable] = {}
    for table in tables:
        members |= table.members
        starts[table.first] = table
    items: list[_Block | _Table] = []
    sizes: Counter[float] = Counter()
    for block in blocks:
        current: list[_Line] = []
        for line in block:
            kept: list[_Span] = []
            for span in line.spans:
                key = id(span)
                if key in starts:
                    _flush(current, items, sizes)
                    current = []
                    if kept:
                        current.append(_Line.of(kept, line.horizontal, line.key))
                        _flush(current, items, sizes)
                        current, kept = [], []
                    items.append(_Table(starts[key].markdown))
                if key not in members:
                    kept.append(span)
            if len(kept) == len(line.spans):
                current.append(line)
            elif kept:
                current.append(_Line.of(kept, line.horizontal, line.key))
        _flush(current, items, sizes)
    return items, sizes


def _flush(lines: list[_Line], items: list[_Block | _Table], sizes: Counter[float]) -> None:
    """Turn a run of MuPDF lines into a block of reconstructed text lines."""
    out: list[_TextLine] = []
    for group in _merge_same_baseline(lines):
        text_line = _text_line(group, sizes)
        if text_line is not None:
            out.append(text_line)
    if out:
        items.append(_Block(out))


def _merge_same_baseline(lines: list[_Line]) -> Iterator[list[_Line]]:
    """MuPDF sometimes splits one visual line into several (a wide gap, a tab stop): put them back.

    Two consecutive horizontal lines are one when they overlap vertically by at least half the smaller
    height and the second starts to the right of where the first ends.
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
    if not (previous.horizontal and line.horizontal):
        return False
    overlap = min(previous.bottom, line.bottom) - max(previous.top, line.top)
    smaller = min(previous.bottom - previous.top, line.bottom - line.top)
    return smaller > 0 and overlap >= smaller / 2 and line.spans[0].x0 >= previous.spans[-1].x1 - 1.0


def _text_line(group: list[_Line], sizes: Counter[float]) -> _TextLine | None:
    """One output line from MuPDF lines on one baseline; adds its characters per size to ``sizes``.

    The line's size is the size of most of its characters, and it is bold when every visible span is.
    """
    parts: list[str] = []
    weights: dict[float, int] = {}
    bold = True
    widest_gap = 0.0
    previous: _Line | None = None
    for line in group:
        if previous is not None:
            gap = line.spans[0].x0 - previous.spans[-1].x1
            widest_gap = max(widest_gap, gap / max(line.spans[0].size, 1.0))
        previous = line
        for span in line.spans:
            text = span.text
            if parts and not parts[-1][-1:].isspace() and not text[:1].isspace() and span is line.spans[0]:
                parts.append(" ")
            parts.append(text)
            size = round(span.size / _SIZE_QUANTUM) * _SIZE_QUANTUM
            sizes[size] += len(text)
            if not text.isspace():
                weights[size] = weights.get(size, 0) + len(text)
                bold = bold and span.bold
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
    for draft in drafts:
        parts: list[str] = []
        headings = 0
        for item in draft.items:
            if isinstance(item, _Table):
                parts.append(item.markdown)
                continue
            text, count = _block_markdown(item.lines, body, ranks)
            parts.append(text)
            headings += count
        facts = draft.facts
        if headings:
            facts = PageFacts(
                width=facts.width,
                height=facts.height,
                fonts=facts.fonts,
                font_names=facts.font_names,
                images=facts.images,
                drawings=facts.drawings,
                tables=facts.tables,
                headings=headings,
            )
        pages.append(PageText(page=draft.number, text="\n\n".join(parts), facts=facts))
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
