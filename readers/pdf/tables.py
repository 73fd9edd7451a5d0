"""Ruled tables on a PDF page, found from its drawings and filled from its text spans.

The PyMuPDF reader (:mod:`readers.pdf.mupdf`) calls :func:`find_ruled_tables` on every page with
what it has already extracted: the items of ``page.get_cdrawings()``, its text lines of spans and the
TextPage. It gets back the page's tables as GFM, each with the spans it took (so they leave the flow
text) and the span where it starts (so it is placed there in the reading order).

Why not ``page.find_tables()`` (measured on the corpus's 28 born-digital PDFs, 241 pages, 2-core
machine; ``benchmarks/bench_extract.py`` repeats the comparison): it costs ~100 ms per page of ruled
table (its ``make_chars`` turns the page into one Python dict per character), 30 times a whole page of
``dict`` extraction, and with the optional ``pymupdf-layout`` package installed its default
``use_layout=True`` runs an ONNX model (200-500 ms/page, and output that depends on what else is
installed). On the corpus, 16 ruled-table pages out of 241 would have cost more than all other pages
together. So this module finds ruled tables with the same "lines" algorithm (snap, join, intersect,
smallest cells, connected cells), from the segments the reader already has, and fills the cells with
the spans it already has (and the TextPage's words where a span crosses a cell border): ~2-5 ms on a
dense table page. ``tests/test_pdf_readers.py`` checks it against ``find_tables`` on a generated grid.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any, Protocol

import pymupdf

from readers.core.model import TableSource
from readers.pdf.placed import CURRENCY, PlacedTable, calibrated, header_rows, is_number, one_header

# --- thresholds -------------------------------------------------------------------------------------

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
#: A rule at the top or bottom of such a stack is left out of it when no column line crosses the blank
#: between it and the next rule while column lines cross others, and that blank is more than this many
#: times the stack's median rule spacing: a footer's rule under a table with open sides
#: (tabula__spreadsheet_no_bounding_frame.pdf: 9.1 times its rows' height below the last row).
OPEN_SIDE_END_GAP_SHARE = 2.0
#: Rows ruled apart with no column lines (a stack of RULES_FOR_OPEN_SIDES rules) get their columns from
#: blanks at least this many line heights wide running down every row: the stacked tables of the corpus
#: leave 0.76-10.8 line heights between columns (tabula__AnimalSounds1.pdf 0.76), words about 0.25.
COLUMN_GAP_HEIGHTS = 0.5
#: A line set at most this many of its heights above such a stack's top rule is the table's header row.
HEAD_GAP_HEIGHTS = 1.0
#: The lines of one cell of such a stack (a wrapped cell) are at most this many line heights apart: 0-0.1
#: in the corpus's stacked tables; the entries of a CV's sections ruled apart are a line height apart.
STACK_WRAP_GAP_HEIGHTS = 0.5
#: Cells of such a stack averaging more words a line than this are prose ruled into sections, not rows.
STACK_MAX_CELL_WORDS = 6.0
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
#: A ruled table's score (made a confidence by readers.pdf.placed.calibrated): RULED_BASE_CONFIDENCE plus
#: the rest times the share of its cells that hold text. On the corpus, real ruled tables fill 0.6-1.0 of
#: their cells (score 0.8-1.0); a grid at the TABLE_MIN_FILL floor scores 0.7, and the grids refused below
#: it (diagrams, title blocks) never count.
RULED_BASE_CONFIDENCE = 0.5
#: A span that sticks out of its cell by more than this is cut into words at the cell borders.
_CELL_OVERHANG = 1.0
#: A cell spanning several columns is cut into them when its words each lie inside one column and no
#: column gets more than this many: a header ruled as one box over the columns it names ("Permit Handgun
#: Long Gun ... Admin" of plumb__nics-background-checks-2015-11-rotated.pdf, 1-2 words a column), not a
#: note or title running across them (a word of which crosses a column border, or many fall in one).
SPREAD_MAX_WORDS = 3
#: The lines of a cell stand side by side with those of the other cells of its row when their centres
#: are this close (in points): a grid ruling every fifth row holds five rows in each cell.
SAME_LINE_TOLERANCE = 2.0
#: A grid is read row by row from its cells' lines only when at least this many of its rows hold stacked
#: lines (a grid ruling every fifth row rules many such groups); one such row is a frame ruled round an
#: unruled body, which readers.pdf.aligned.unframed reads as the aligned table inside it.
STACKED_MIN_ROWS = 2
#: ...and only rows where at least this share of the cells hold numbers on every line: a row of data
#: (24 of the 25 columns of the NICS checks); a two-column table of options whose names and descriptions
#: wrap over two lines (deb-ru__eskdx.pdf) holds none, and its lines are not rows.
STACKED_NUMERIC_SHARE = 0.5
_position = operator.itemgetter(0)  # of a raw segment (see _RawEdge)
_start = operator.itemgetter(1)


# --- what the finder is given, and what it gives ----------------------------------------------------


class SpanLike(Protocol):
    """A text span as the reader has it: its text and its box (x0, y0, x1, y1)."""

    @property
    def text(self) -> str: ...

    @property
    def bbox(self) -> tuple[float, float, float, float]: ...


class LineLike(Protocol):
    """A MuPDF text line as the reader has it; ``key`` is its (block, line) in the TextPage."""

    @property
    def spans(self) -> Sequence[SpanLike]: ...

    @property
    def horizontal(self) -> bool: ...

    @property
    def key(self) -> tuple[int, int]: ...

    @property
    def direction(self) -> tuple[float, float]: ...


def find_ruled_tables(
    paths: Sequence[dict[str, Any]],
    blocks: Sequence[Sequence[LineLike]],
    textpage: pymupdf.TextPage,
) -> list[PlacedTable]:
    """The ruled tables of a page, top to bottom, as :class:`~readers.pdf.placed.PlacedTable` (source
    ``ruled``).

    ``paths`` are the items of ``page.get_cdrawings()``, ``blocks`` the page's text blocks as lines of
    spans in reading order, and ``textpage`` the TextPage they came from (its words are read only when a
    span crosses a cell border).
    """
    found = _segments(paths)
    if len(found.horizontal) < GATE_MIN_SEGMENTS:
        return []
    breaks: list[tuple[float, float]] = []
    hs = _snap_join(found.horizontal, breaks)
    grids = _find_grids(found, hs, breaks)
    words = _Words(textpage)
    tables = _fill_tables(grids, blocks, words) if grids else []
    stacked = [
        table
        for stack in _rule_stacks(hs, found.vertical, tables)
        if (table := _stack_table(stack, blocks, tables, words)) is not None
    ]
    if stacked:
        tables = sorted([*tables, *stacked], key=lambda t: (t.bbox[1], t.bbox[0]))
    return tables


class _Words:
    """The page's words by (block, line), taken from the TextPage only when a table needs them.

    ``extractWORDS`` costs ~0.3 ms on a dense page where ``extractRAWDICT`` (characters) costs ~4 ms;
    words are enough to cut a span that crosses a cell border, since cells are separated by blanks.
    """

    def __init__(self, textpage: pymupdf.TextPage) -> None:
        self._textpage = textpage
        self._by_line: dict[tuple[int, int], list[_Word]] | None = None
        self._chars: dict[tuple[int, int], list[_Word]] | None = None

    def of_line(self, key: tuple[int, int]) -> list[_Word]:
        """The line's words as (x0, y0, x1, y1, text), in the order of its text."""
        if self._by_line is None:
            self._by_line = {}
            for x0, y0, x1, y1, word, block_no, line_no, _ in self._textpage.extractWORDS():
                self._by_line.setdefault((block_no, line_no), []).append((x0, y0, x1, y1, word))
        return self._by_line.get(key, [])

    def rebuilt(self, key: tuple[int, int]) -> list[_Word]:
        """The line's words made again from its characters, each word's box the union of its characters
        that have a width: a mark of no width (an Arabic tanween) may be placed far from its letters and
        stretch the TextPage's word box across a cell border (camelot__arabic.pdf). Costs one
        ``extractRAWDICT`` of the page (~4 ms on a dense page), asked only for such a word."""
        if self._chars is None:
            self._chars = {}
            block_no = -1
            for block in self._textpage.extractRAWDICT()["blocks"]:
                if block.get("type", 0) != 0:
                    continue
                block_no += 1
                for line_no, line in enumerate(block["lines"]):
                    chars = [(*c["bbox"], c["c"]) for span in line["spans"] for c in span["chars"]]
                    self._chars[(block_no, line_no)] = _words_of_chars(chars)
        return self._chars.get(key, [])


# A word or a character: (x0, y0, x1, y1, text).
_Word = tuple[float, float, float, float, str]


def _words_of_chars(chars: list[_Word]) -> list[_Word]:
    """Characters cut into words at blanks; a word's box spans its characters that have a width."""
    found: list[_Word] = []
    text: list[str] = []
    boxes: list[_Word] = []
    for char in [*chars, (0.0, 0.0, 0.0, 0.0, " ")]:
        if not char[4].isspace():
            text.append(char[4])
            if char[2] - char[0] > 0.01:
                boxes.append(char)
            continue
        if text and boxes:
            found.append(
                (
                    min(b[0] for b in boxes),
                    min(b[1] for b in boxes),
                    max(b[2] for b in boxes),
                    max(b[3] for b in boxes),
                    "".join(text),
                )
            )
        text, boxes = [], []
    return found


# --- finding ruled grids ----------------------------------------------------------------------------


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


# A straight segment as found among the drawings: (position, start, end), as in _Edge. A plain tuple,
# since a page of figures holds tens of thousands of them and most never make an edge.
_RawEdge = tuple[float, float, float]


@dataclass(slots=True)
class _Segments:
    """A page's straight horizontal and vertical segments, and where its curves and slanted lines are."""

    horizontal: list[_RawEdge] = field(default_factory=list)
    vertical: list[_RawEdge] = field(default_factory=list)
    figure_marks: list[tuple[float, float]] = field(default_factory=list)  # midpoints
    junctions: list[tuple[float, float]] = field(default_factory=list)  # tiny squares and points

    def add_box(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """A thin box is a rule; any other box gives its four sides (cell backgrounds do too)."""
        if x1 - x0 <= RULE_MAX_THICKNESS and y1 - y0 > x1 - x0:
            self.vertical.append(((x0 + x1) / 2, y0, y1))
        elif y1 - y0 <= RULE_MAX_THICKNESS and x1 - x0 > y1 - y0:
            self.horizontal.append(((y0 + y1) / 2, x0, x1))
        else:
            self.horizontal.extend(((y0, x0, x1), (y1, x0, x1)))
            self.vertical.extend(((x0, y0, y1), (x1, y0, y1)))


def vertical_rules(paths: Sequence[dict[str, Any]]) -> list[tuple[float, float, float]]:
    """The page's vertical rules as (x, top, bottom): the items of ``get_cdrawings()`` drawn as lines or
    thin boxes, read as the ruled finder reads them."""
    return _segments(paths).vertical


def _segments(paths: Sequence[dict[str, Any]]) -> _Segments:
    """Sort the items of ``get_cdrawings()`` into rules, boxes and figure marks.

    Figures hold thousands of line items, so the loop keeps to local names and plain comparisons (the
    same as ``abs``, ``min`` and ``max`` on two numbers).
    """
    found = _Segments()
    add_horizontal, add_vertical, add_mark, add_junction = (
        found.horizontal.append,
        found.vertical.append,
        found.figure_marks.append,
        found.junctions.append,
    )
    for path in paths:
        x0, y0, x1, y1 = path["rect"]
        if x1 - x0 <= 1.0 and y1 - y0 <= 1.0:  # a dot (dashes are longer: they may join)
            square = all(item[0] == "re" for item in path["items"])
            (found.junctions if square else found.figure_marks).append(((x0 + x1) / 2, (y0 + y1) / 2))
            continue
        for item in path["items"]:
            kind = item[0]
            if kind == "l":  # inlined: figures hold thousands of these
                (ax, ay), (bx, by) = item[1], item[2]
                dx, dy = ax - bx, ay - by
                if -1.0 <= dy <= 1.0 and (dx > 1.0 or dx < -1.0):
                    add_horizontal(((ay + by) / 2, bx if bx < ax else ax, bx if bx > ax else ax))
                elif -1.0 <= dx <= 1.0 and (dy > 1.0 or dy < -1.0):
                    add_vertical(((ax + bx) / 2, by if by < ay else ay, by if by > ay else ay))
                elif -1.0 <= dx <= 1.0:  # a point: a rule's cap or a joint, like the tiny squares
                    add_junction(((ax + bx) / 2, (ay + by) / 2))
                else:  # slanted, or a piece of a curve flattened into tiny segments
                    add_mark(((ax + bx) / 2, (ay + by) / 2))
            elif kind == "re":
                x0, y0, x1, y1 = item[1]
                found.add_box(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
            elif kind == "qu":
                (ulx, uly), (urx, ury), (llx, lly), (lrx, lry) = item[1]
                if max(abs(uly - ury), abs(lly - lry), abs(ulx - llx), abs(urx - lrx)) < 0.5:  # upright
                    found.add_box(min(ulx, urx), min(uly, lly), max(ulx, urx), max(uly, lly))
            elif kind == "c":
                (ax, ay), (bx, by) = item[1], item[4]
                add_mark(((ax + bx) / 2, (ay + by) / 2))
    return found


def _snap_join(edges: list[_RawEdge], breaks: list[tuple[float, float]] | None = None) -> list[_Edge]:
    """Snap nearly equal positions to their mean, then merge overlapping or touching segments.

    ``breaks``, when given, gets the (position, x) of each place where one piece of a rule ends and the
    next begins, both at least EDGE_MIN_LENGTH long: a rule drawn cell by cell (see _break_sides)."""
    edges = [e for e in edges if e[2] - e[1] >= 0.5]
    if not edges:
        return []
    edges.sort(key=_position)
    clusters: list[list[_RawEdge]] = [[edges[0]]]
    for edge in edges[1:]:
        if edge[0] - clusters[-1][-1][0] <= SNAP_TOLERANCE:
            clusters[-1].append(edge)
        else:
            clusters.append([edge])
    joined: list[_Edge] = []
    # An edge is made only for a joined run long enough to be kept: a page of figures joins thousands
    # of curve pieces into runs shorter than EDGE_MIN_LENGTH, which were made and dropped (~2 ms a pass
    # on the corpus's born-digital pages).
    for cluster in clusters:
        pos = sum(e[0] for e in cluster) / len(cluster)
        cluster.sort(key=_start)
        _, start, end = cluster[0]
        piece = start  # where the last piece joined end to end began
        for index in range(1, len(cluster)):
            _, next_start, next_end = cluster[index]
            if next_start <= end + JOIN_TOLERANCE:
                if (
                    breaks is not None
                    and next_start >= end - JOIN_TOLERANCE
                    and end - piece >= EDGE_MIN_LENGTH
                    and next_end - next_start >= EDGE_MIN_LENGTH
                ):
                    breaks.append((pos, (end + next_start) / 2))
                    piece = next_start
                if next_end > end:
                    end = next_end
                continue
            if end - start >= EDGE_MIN_LENGTH:
                joined.append(_Edge(pos, start, end))
            start, end = next_start, next_end
            piece = start
        if end - start >= EDGE_MIN_LENGTH:
            joined.append(_Edge(pos, start, end))
    return joined


def _find_grids(found: _Segments, hs: list[_Edge], breaks: list[tuple[float, float]]) -> list[_Grid]:
    """Ruled grids on a page: pdfplumber's "lines" strategy, which is also find_tables' default
    (``hs``: the page's horizontal segments snapped and joined; ``breaks``: where their pieces meet)."""
    if len(found.horizontal) < GATE_MIN_SEGMENTS or len(found.vertical) < GATE_MIN_SEGMENTS:
        return []
    vs = _snap_join(
        found.vertical + _open_sides(hs, found.vertical) + _break_sides(hs, breaks, found.vertical)
    )
    if not (GATE_MIN_SEGMENTS <= len(hs) <= MAX_EDGES_PER_AXIS):
        return []
    if not (GATE_MIN_SEGMENTS <= len(vs) <= MAX_EDGES_PER_AXIS):
        return []
    points = _intersections(hs, vs)
    if points is None or len(points) < 4:
        return []
    grids = _grids_from_cells(_cells(points))
    return [grid for grid in grids if not _is_figure(grid, found.figure_marks, found.junctions)]


def _without_boxed_text(grid: _Grid) -> _Grid:
    """The grid without a box of text ruled onto its top or bottom: a cell as wide as the grid that
    covers more than TABLE_MAX_CELL_SHARE of it is a paragraph boxed under (or over) the table
    (camelot__column_span_2.pdf: the notes under the table, closed by the page's last rule), not a row.
    Tried only on a grid refused whole, which such a box makes a frame around text (see _table)."""
    n_rows, n_cols = len(grid.ys) - 1, len(grid.xs) - 1
    limit = TABLE_MAX_CELL_SHARE * _area(grid)
    for r0, c0, r1, c1 in grid.cells:
        if c0 != 0 or c1 != n_cols or (r0 != 0 and r1 != n_rows):
            continue
        if (grid.xs[c1] - grid.xs[c0]) * (grid.ys[r1] - grid.ys[r0]) <= limit:
            continue
        if r1 == n_rows and r0 >= 2:  # at the bottom: keep the rows above it
            cells = [c for c in grid.cells if c[2] <= r0]
            return _Grid(grid.xs, grid.ys[: r0 + 1], cells)
        if r0 == 0 and n_rows - r1 >= 2:  # at the top: keep the rows below it
            cells = [(a - r1, b, c - r1, d) for a, b, c, d in grid.cells if a >= r1]
            return _Grid(grid.xs, grid.ys[r1:], cells)
    return grid


def _is_figure(grid: _Grid, marks: list[tuple[float, float]], junctions: list[tuple[float, float]]) -> bool:
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
    for x, y in junctions:  # a tiny square off the grid's rules is a chart's marker
        if x0 < x < x1 and y0 < y < y1 and not (_on_border(grid.xs, x) or _on_border(grid.ys, y)):
            inside += 1
            if inside >= TABLE_MAX_FIGURE_MARKS:
                return True
    return False


def _on_border(borders: list[float], at: float) -> bool:
    """Whether ``at`` lies on one of the grid's borders: a tiny square on a rule joins two rules
    (tabula__Publication_of_award... and Word's tables draw one at every crossing), it is no figure's."""
    i = bisect.bisect_left(borders, at - SNAP_TOLERANCE)
    return i < len(borders) and borders[i] <= at + SNAP_TOLERANCE


def _open_sides(hs: list[_Edge], verticals: list[_RawEdge]) -> list[_RawEdge]:
    """Left and right borders for a stack of equally long rules whose table draws no outer sides.

    Many generators (the Korean brochure of unst__korean-text-with-tables.pdf, booktabs, Word's
    "open" styles) rule the rows and leave the table's sides open; pdfplumber then finds no cell. At
    least RULES_FOR_OPEN_SIDES rules starting and ending at the same x get the two missing sides. A
    stack with no inner vertical line still yields a single column, which is not a table. A side is added
    only along runs of at least RULES_FOR_OPEN_SIDES rules where none is drawn (see _open_runs).
    """
    sides: list[_RawEdge] = []
    for group in _equal_rules(hs):
        positions = _ruled_through(sorted(e.pos for e in group), group, verticals)
        for x in (min(e.start for e in group), max(e.end for e in group)):
            sides.extend(_open_runs(verticals, x, positions))
    return sides


def _equal_rules(hs: list[_Edge]) -> Iterator[list[_Edge]]:
    """The groups of at least RULES_FOR_OPEN_SIDES rules starting and ending at the same x (within
    SNAP_TOLERANCE), each in the order of its first rule's ends, then top to bottom."""
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
            yield group
        group = [edge] if edge is not None else []


def _break_sides(
    hs: list[_Edge], breaks: list[tuple[float, float]], verticals: list[_RawEdge]
) -> list[_RawEdge]:
    """Column borders drawn only as breaks in the rules: where the pieces of at least RULES_FOR_OPEN_SIDES
    rules in a row meet at the same x, a vertical border runs from the first of them to the last.

    Some generators draw each row's rule cell by cell and no vertical line at all (the financial
    statements of pdfjs__issue14297.pdf: the rules break at the yen-sign and amount columns); the "lines"
    strategy then sees one column. A rule of the run may also end at that x (a header rule over the
    amounts only); a rule crossing it unbroken ends the run. Where a vertical line is drawn at that x
    over part of the run, the producer draws its column borders, and the rows it leaves open are cells
    spanning them (a section title over a ruled form: camelot__table_region.pdf): nothing is added.
    """
    if len(breaks) < RULES_FOR_OPEN_SIDES:
        return []
    at_rule: dict[float, list[float]] = {}
    for pos, x in breaks:
        at_rule.setdefault(pos, []).append(x)
    xs = sorted(x for _, x in breaks)
    clusters: list[list[float]] = [[xs[0]]]
    for x in xs[1:]:
        if x - clusters[-1][-1] <= SNAP_TOLERANCE:
            clusters[-1].append(x)
        else:
            clusters.append([x])
    rules = sorted(hs, key=lambda e: e.pos)
    sides: list[_RawEdge] = []
    for cluster in clusters:
        if len(cluster) < RULES_FOR_OPEN_SIDES:
            continue
        x = sum(cluster) / len(cluster)
        run: list[_Edge] = []
        broken = 0
        for rule in [*rules, None]:
            if rule is not None and not (rule.start - SNAP_TOLERANCE <= x <= rule.end + SNAP_TOLERANCE):
                continue  # the rule lies beside x: it neither makes nor ends a run
            breaks_here = rule is not None and any(
                abs(b - x) <= SNAP_TOLERANCE for b in at_rule.get(rule.pos, ())
            )
            ends_here = rule is not None and min(abs(rule.start - x), abs(rule.end - x)) <= SNAP_TOLERANCE
            if rule is not None and (breaks_here or ends_here):
                run.append(rule)
                broken += breaks_here
                continue
            drawn = broken >= RULES_FOR_OPEN_SIDES and any(
                abs(v[0] - x) <= SNAP_TOLERANCE and v[1] < run[-1].pos and v[2] > run[0].pos
                for v in verticals
            )
            if broken >= RULES_FOR_OPEN_SIDES and not drawn:
                sides.append((x, run[0].pos, run[-1].pos))
            run, broken = [], 0
    return sides


def _ruled_through(positions: list[float], group: list[_Edge], verticals: list[_RawEdge]) -> list[float]:
    """The stack's rule positions without a rule at its top or bottom cut off from the next by a blank no
    column line crosses, more than OPEN_SIDE_END_GAP_SHARE times the median spacing, when column lines
    cross some other blank of the stack."""
    left, right = group[0].start + SNAP_TOLERANCE, group[0].end - SNAP_TOLERANCE
    inner = [v for v in verticals if left < v[0] < right]

    def crossed(top: float, bottom: float) -> bool:
        return any(v[1] < bottom - SNAP_TOLERANCE and v[2] > top + SNAP_TOLERANCE for v in inner)

    gaps = sorted(b - a for a, b in pairwise(positions))
    if not gaps or not any(crossed(a, b) for a, b in pairwise(positions)):
        return positions
    limit = OPEN_SIDE_END_GAP_SHARE * gaps[len(gaps) // 2]
    while len(positions) > RULES_FOR_OPEN_SIDES and positions[-1] - positions[-2] > limit:
        if crossed(positions[-2], positions[-1]):
            break
        positions = positions[:-1]
    while len(positions) > RULES_FOR_OPEN_SIDES and positions[1] - positions[0] > limit:
        if crossed(positions[0], positions[1]):
            break
        positions = positions[1:]
    return positions


def _open_runs(verticals: list[_RawEdge], x: float, positions: list[float]) -> list[_RawEdge]:
    """The sides to add at ``x`` along a stack of rules at ``positions`` (top to bottom): one over each
    run of at least RULES_FOR_OPEN_SIDES rules between which no side is drawn. A side drawn over part of
    the stack (the header box of unst__korean-text-with-tables.pdf) leaves the rest open; the one undrawn
    gap between two closed tables stacked one above the other (camelot__multiple_tables.pdf) is no run."""
    at_x = [v for v in verticals if abs(v[0] - x) <= SNAP_TOLERANCE]
    runs: list[_RawEdge] = []
    start = 0
    for i in range(len(positions)):
        open_below = i + 1 < len(positions) and not any(
            v[1] < positions[i + 1] and v[2] > positions[i] for v in at_x
        )
        if open_below:
            continue
        if i - start + 1 >= RULES_FOR_OPEN_SIDES:
            runs.append((x, positions[start], positions[i]))
        start = i + 1
    return runs


# --- rows ruled without columns -----------------------------------------------------------------------


def _rule_stacks(hs: list[_Edge], verticals: list[_RawEdge], tables: list[PlacedTable]) -> list[list[_Edge]]:
    """Stacks of at least RULES_FOR_OPEN_SIDES equally long rules (top to bottom) with no vertical line
    between their ends and no table over them: rows ruled apart whose columns are set by blanks only
    (tabula__AnimalSounds1.pdf: two such tables side by side), which give the "lines" strategy one column."""
    stacks: list[list[_Edge]] = []
    for group in _equal_rules(hs):
        x0, x1 = group[0].start + SNAP_TOLERANCE, group[0].end - SNAP_TOLERANCE
        y0, y1 = min(e.pos for e in group), max(e.pos for e in group)
        crossed = any(x0 < v[0] < x1 and v[1] < y1 and v[2] > y0 for v in verticals)
        covered = any(t.bbox[0] < x1 and t.bbox[2] > x0 and t.bbox[1] < y1 and t.bbox[3] > y0 for t in tables)
        if not crossed and not covered:
            stacks.append(sorted(group, key=lambda e: e.pos))
    return stacks


def _stack_table(
    stack: list[_Edge], blocks: Sequence[Sequence[LineLike]], tables: list[PlacedTable], words: _Words
) -> PlacedTable | None:
    """The table of a stack of rules: one row between each two rules (and a header line set just above
    the top rule), its columns cut at the blanks that run down every row (see _blank_columns)."""
    x0, x1 = min(e.start for e in stack), max(e.end for e in stack)
    top, bottom = stack[0].pos, stack[-1].pos
    taken: set[int] = set().union(*(t.members for t in tables)) if tables else set()
    body: list[list[SpanLike]] = []
    head: list[list[SpanLike]] = []
    for block in blocks:
        for line in block:
            if _turn(line) != 0:
                continue
            spans = [s for s in line.spans if x0 < (s.bbox[0] + s.bbox[2]) / 2 < x1 and id(s) not in taken]
            if not spans:
                continue
            ly0, ly1 = min(s.bbox[1] for s in spans), max(s.bbox[3] for s in spans)
            centre = (ly0 + ly1) / 2
            if top < centre < bottom:
                body.append(spans)
            elif centre <= top and top - ly1 <= HEAD_GAP_HEIGHTS * (ly1 - ly0):
                head.append(spans)
    bounds = _blank_columns([s for spans in body for s in spans])
    if not bounds or not _rows_apart(stack, body, bounds):
        return None
    ys = [e.pos for e in stack]
    heads = [s for spans in head for s in spans]
    crossing = any(s.bbox[0] < b < s.bbox[2] for s in heads for b in bounds)
    if not crossing and len({bisect.bisect(bounds, (s.bbox[0] + s.bbox[2]) / 2) for s in heads}) >= 2:
        ys.insert(0, min(s.bbox[1] for s in heads) - _CELL_OVERHANG)
    xs = [x0, *bounds, x1]
    grid = _Grid(xs, ys, [(r, c, r + 1, c + 1) for r in range(len(ys) - 1) for c in range(len(xs) - 1)])
    table = _fill_grid(grid, blocks, taken, words)
    if table is None:
        return None
    return replace(table, evidence=f"{table.evidence} columns_by=blanks")


def _blank_columns(spans: list[SpanLike]) -> list[float]:
    """The x of the middle of each blank at least COLUMN_GAP_HEIGHTS line heights wide that no span
    crosses: where the columns of rows ruled without column lines meet."""
    if not spans:
        return []
    heights = sorted(s.bbox[3] - s.bbox[1] for s in spans)
    least = COLUMN_GAP_HEIGHTS * heights[len(heights) // 2]
    bounds: list[float] = []
    ordered = sorted((s.bbox[0], s.bbox[2]) for s in spans)
    reach = ordered[0][1]
    for sx0, sx1 in ordered[1:]:
        if sx0 - reach >= least:
            bounds.append((reach + sx0) / 2)
        reach = max(reach, sx1)
    return bounds


def _rows_apart(stack: list[_Edge], body: list[list[SpanLike]], bounds: list[float]) -> bool:
    """Whether each band between two rules reads as one row: it is not several rows of an unruled body
    (a booktabs table's body between its mid and bottom rules, where every column has one line per row),
    nor lines spaced apart under a section's rule (a CV's entries), nor prose set in columns (more than
    STACK_MAX_CELL_WORDS words a line in each cell on average)."""
    pieces = words_in = 0
    for upper, lower in pairwise(stack):
        counts: dict[int, int] = {}
        lines: dict[int, list[tuple[float, float]]] = {}
        for spans in body:
            centre = (spans[0].bbox[1] + spans[0].bbox[3]) / 2
            if not upper.pos < centre < lower.pos:
                continue
            columns = {bisect.bisect(bounds, (s.bbox[0] + s.bbox[2]) / 2) for s in spans}
            for column in columns:
                counts[column] = counts.get(column, 0) + 1
                lines.setdefault(column, []).extend((s.bbox[1], s.bbox[3]) for s in spans)
            pieces += len(columns)
            words_in += sum(len(s.text.split()) for s in spans)
        if len(counts) >= 2 and len(set(counts.values())) == 1 and min(counts.values()) >= 2:
            return False
        for boxes in lines.values():  # a cell's lines follow each other closely: it wraps
            boxes.sort()
            if any(b[0] - a[1] > STACK_WRAP_GAP_HEIGHTS * (a[1] - a[0]) for a, b in pairwise(boxes)):
                return False
    return pieces > 0 and words_in / pieces <= STACK_MAX_CELL_WORDS


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
    """The smallest rectangles whose four corners are intersections joined by edges.

    Two points are joined when their sets of edges meet, which ``isdisjoint`` answers without making
    the intersection; one sort of the points orders both the columns' ys and the rows' xs.
    """
    by_x: dict[float, list[float]] = {}
    by_y: dict[float, list[float]] = {}
    for x, y in sorted(points):  # by x, then y: each row's xs come in order too
        by_x.setdefault(x, []).append(y)
        by_y.setdefault(y, []).append(x)
    cells: list[tuple[float, float, float, float]] = []
    for (x, y), (h_ids, v_ids) in points.items():
        column = by_x[x]
        row = by_y[y]
        found = False
        for below in column[bisect.bisect_right(column, y) :]:
            if v_ids.isdisjoint(points[(x, below)][1]):
                continue
            for right in row[bisect.bisect_right(row, x) :]:
                if h_ids.isdisjoint(points[(right, y)][0]):
                    continue
                corner = points.get((right, below))
                if (
                    corner is not None
                    and not corner[1].isdisjoint(points[(right, y)][1])
                    and not corner[0].isdisjoint(points[(x, below)][0])
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
        col = {x: i for i, x in enumerate(xs)}
        row = {y: i for i, y in enumerate(ys)}
        grid_cells = [(row[y0], col[x0], row[y1], col[x1]) for x0, y0, x1, y1 in group]
        grids.append(_Grid(xs, ys, sorted(grid_cells)))
    grids.sort(key=lambda g: (g.ys[0], g.xs[0]))
    return grids


# --- filling the cells ------------------------------------------------------------------------------


def _fill_tables(
    grids: list[_Grid], blocks: Sequence[Sequence[LineLike]], words: _Words
) -> list[PlacedTable]:
    """Put each span whose centre lies in a grid into its cell; keep the grids that are tables.

    Smaller grids are filled first and keep their spans, so a table drawn inside a page frame (the
    ESKD frames of deb-ru__eskdx.pdf) is not read twice; the frame itself fails the cell-share test.
    """
    tables: list[PlacedTable] = []
    taken: set[int] = set()
    for grid in sorted(grids, key=_area):
        table = _fill_grid(grid, blocks, taken, words)
        if table is None and (trimmed := _without_boxed_text(grid)) is not grid:
            table = _fill_grid(trimmed, blocks, taken, words)
        if table is not None:
            tables.append(table)
            taken |= table.members
    tables.sort(key=lambda t: (t.bbox[1], t.bbox[0]))
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


def _turn(line: LineLike) -> int:
    """How the line's text is turned, in degrees counterclockwise: 0 (upright), 90 (it runs up the page),
    270 (it runs down), or -1 (slanted or upside down: not read into cells)."""
    dx, dy = line.direction
    if -1e-3 < dy < 1e-3 and dx > 0:
        return 0
    if -1e-3 < dx < 1e-3:
        return 90 if dy < 0 else 270
    return -1


def _fill_grid(
    grid: _Grid, blocks: Sequence[Sequence[LineLike]], taken: set[int], words: _Words
) -> PlacedTable | None:
    """Fill the grid from the lines of the direction most of its spans are written in.

    A table printed sideways (a landscape table on a portrait page, or a page turned by /Rotate) has its
    lines running up or down the unrotated page: it is filled from those, and its rows and columns are
    then turned so that it reads as it is printed (``find_tables`` reads the cells but keeps the page's
    axes, so its rows are the printed table's columns).
    """
    gx0, gy0, gx1, gy1 = grid.bbox
    owner = _slot_owner(grid)
    by_turn: dict[int, list[tuple[LineLike, list[tuple[SpanLike, int]]]]] = {}
    for block in blocks:
        for line in block:
            turn = _turn(line)
            if turn < 0:
                continue
            inside: list[tuple[SpanLike, int]] = []
            for span in line.spans:
                x0, y0, x1, y1 = span.bbox
                cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
                if gx0 < cx < gx1 and gy0 < cy < gy1 and id(span) not in taken:
                    cell = _cell_at(grid, owner, cx, cy)
                    if cell is not None:
                        inside.append((span, cell))
            if inside:
                by_turn.setdefault(turn, []).append((line, inside))
    if not by_turn:
        return None
    turn = max(by_turn, key=lambda t: (sum(len(inside) for _, inside in by_turn[t]), t == 0))
    texts: dict[int, list[str]] = {}
    heights: dict[int, list[tuple[float, float]]] = {}  # each text line's top and bottom, as in texts
    centres: dict[int, list[float]] = {}  # the vertical centre of each of texts' lines (upright only)
    spread: dict[int, list[tuple[float, float, float, str]]] = {}  # words of cells spanning columns
    members: set[int] = set()
    first: int | None = None
    taken_in: list[tuple[int, int]] = []  # (span id, cell) in reading order
    for line, inside in by_turn[turn]:
        if first is None:
            first = id(inside[0][0])
        members.update(id(span) for span, _ in inside)
        taken_in.extend((id(span), cell) for span, cell in inside)
        if any(_overhangs(grid, span, cell, turn) for span, cell in inside):
            pieces = _pieces_by_words(grid, owner, line, inside, words, turn)
        else:
            pieces = {}
            for span, cell in inside:
                pieces.setdefault(cell, []).append(span.text)
        top = min(span.bbox[1] for span, _ in inside)
        bottom = max(span.bbox[3] for span, _ in inside)
        centre = sum((span.bbox[1] + span.bbox[3]) / 2 for span, _ in inside) / len(inside)
        for cell, parts in pieces.items():
            texts.setdefault(cell, []).append("".join(parts))
            centres.setdefault(cell, []).append(centre)
            heights.setdefault(cell, []).append((top, bottom))
        if not turn:
            for _, cell in inside:
                _, c0, _, c1 = grid.cells[cell]
                if c1 - c0 > 1 and cell not in spread:
                    spread[cell] = _cell_words(grid, cell, by_turn[turn], words)
    if first is None:
        return None
    titles = _title_cells(grid, texts) if not turn else set()
    if titles:  # a title ruled into the table's top stays text above it
        members -= {key for key, cell in taken_in if cell in titles}
        first = next((key for key, cell in taken_in if cell not in titles), first)
        for cell in titles:
            del texts[cell]
            heights.pop(cell, None)
        table = _table(grid, texts, members, first, turn, centres, spread, heights)
        if table is None:
            return None
        top = grid.ys[max(grid.cells[cell][2] for cell in titles)]
        above = {key for key, cell in taken_in if cell in titles}
        return replace(table, bbox=(table.bbox[0], top, table.bbox[2], table.bbox[3]), above=above)
    return _table(grid, texts, members, first, turn, centres, spread, heights)


def _cell_words(
    grid: _Grid,
    cell: int,
    lines: list[tuple[LineLike, list[tuple[SpanLike, int]]]],
    words: _Words,
) -> list[tuple[float, float, float, str]]:
    """The words of the lines' spans in ``cell``, top to bottom, as (centre x, left, right, text)."""
    r0, c0, r1, c1 = grid.cells[cell]
    x0, y0, x1, y1 = grid.xs[c0], grid.ys[r0], grid.xs[c1], grid.ys[r1]
    out: list[tuple[float, float, float, str]] = []
    for line, inside in lines:
        if any(c == cell for _, c in inside):
            out.extend(
                ((left + right) / 2, left, right, word)
                for left, top, right, bottom, word in words.of_line(line.key)
                if x0 < (left + right) / 2 < x1 and y0 < (top + bottom) / 2 < y1
            )
    return out


def _spread_cells(grid: _Grid, cell: int, found: list[tuple[float, float, float, str]]) -> dict[int, str]:
    """A cell spanning columns cut into them by its words: each word in the column it lies in, when every
    word lies inside one column, at least two columns get words and none more than SPREAD_MAX_WORDS; else
    nothing (the cell stays whole)."""
    _, c0, _, c1 = grid.cells[cell]
    columns: dict[int, list[str]] = {}
    for wx, left, right, word in found:
        column = bisect.bisect_right(grid.xs, wx) - 1
        if not c0 <= column < c1:
            return {}
        if left < grid.xs[column] - _CELL_OVERHANG or right > grid.xs[column + 1] + _CELL_OVERHANG:
            return {}
        columns.setdefault(column, []).append(word)
    if len(columns) < 2 or any(len(words) > SPREAD_MAX_WORDS for words in columns.values()):
        return {}
    return {column: " ".join(words) for column, words in columns.items()}


def _cell_lines(texts: list[str], centres: list[float]) -> list[tuple[float, str]]:
    """A cell's lines top to bottom as (centre, text), pieces on one line joined, blank ones left out."""
    out: list[tuple[float, str]] = []
    for centre, text in sorted(zip(centres, texts, strict=True), key=operator.itemgetter(0)):
        if not text.strip():
            continue
        if out and centre - out[-1][0] <= SAME_LINE_TOLERANCE:
            out[-1] = (out[-1][0], f"{out[-1][1]} {text.strip()}")
        else:
            out.append((centre, text.strip()))
    return out


def _stacked_rows(
    grid: _Grid, texts: dict[int, list[str]], centres: dict[int, list[float]]
) -> dict[int, list[tuple[int, list[str]]]]:
    """The grid's rows that hold several rows of the table each: a row whose filled cells (one row high,
    at least two of them) each hold the same number of lines, two or more, side by side (a grid ruled
    every fifth row). Each such row is given as its cells, each with its lines."""
    by_row: dict[int, list[int]] = {}
    for cell, parts in texts.items():
        r0, _, r1, _ = grid.cells[cell]
        if any(part.strip() for part in parts):
            by_row.setdefault(r0, []).append(cell)
            if r1 - r0 > 1:  # a cell over several rows: its first row is not stacked
                by_row[r0].append(-1)
    stacked: dict[int, list[tuple[int, list[str]]]] = {}
    for row, cells in by_row.items():
        if len(cells) < 2 or -1 in cells:
            continue
        lines = [_cell_lines(texts[cell], centres[cell]) for cell in cells]
        count = len(lines[0])
        if count < 2 or any(len(found) != count for found in lines):
            continue
        numeric = sum(1 for found in lines if all(is_number(text) for _, text in found))
        if numeric < STACKED_NUMERIC_SHARE * len(lines):
            continue
        if any(
            abs(a[0] - b[0]) > SAME_LINE_TOLERANCE
            for found in lines[1:]
            for a, b in zip(found, lines[0], strict=True)
        ):
            continue
        stacked[row] = [(cell, [text for _, text in found]) for cell, found in zip(cells, lines, strict=True)]
    return stacked if len(stacked) >= STACKED_MIN_ROWS else {}


def _title_cells(grid: _Grid, texts: dict[int, list[str]]) -> set[int]:
    """The cells of the grid's leading rows that are a title or a caption: a row of one filled cell as wide
    as the grid ("NICS Firearm Background Checks November - 2015", "Table 6.1: ..."), with at least two
    rows of the table under it."""
    n_rows, n_cols = len(grid.ys) - 1, len(grid.xs) - 1
    starts: dict[int, list[int]] = {}
    for cell, parts in texts.items():
        if any(part.strip() for part in parts):
            starts.setdefault(grid.cells[cell][0], []).append(cell)
    titles: set[int] = set()
    row = 0
    while row < n_rows and len(starts.get(row, ())) == 1:
        [cell] = starts[row]
        _, c0, r1, c1 = grid.cells[cell]
        if n_cols < 2 or c0 != 0 or c1 != n_cols or len({r for r in starts if r >= r1}) < 2:
            break
        titles.add(cell)
        row = r1
    return titles


def _overhangs(grid: _Grid, span: SpanLike, cell: int, turn: int) -> bool:
    r0, c0, r1, c1 = grid.cells[cell]
    x0, y0, x1, y1 = span.bbox
    if turn:
        return y0 < grid.ys[r0] - _CELL_OVERHANG or y1 > grid.ys[r1] + _CELL_OVERHANG
    return x0 < grid.xs[c0] - _CELL_OVERHANG or x1 > grid.xs[c1] + _CELL_OVERHANG


def _pieces_by_words(
    grid: _Grid,
    owner: dict[tuple[int, int], int],
    line: LineLike,
    inside: list[tuple[SpanLike, int]],
    words: _Words,
    turn: int,
) -> dict[int, list[str]]:
    """A line with a span across a cell border, cut into its words, each put in the cell of its centre.

    Words of one cell are joined by one blank, or none where the line's text has none between them (the
    TextPage makes a word of a right-to-left question mark): runs of blanks are not kept (in a table cell
    only). A word that itself crosses a border stays whole, in the cell of its centre; such a line's words
    are made again from its characters first (see _Words.rebuilt). A turned line is cut along y, where its
    words follow each other.
    """
    n = len(inside)
    cx = sum((span.bbox[0] + span.bbox[2]) / 2 for span, _ in inside) / n
    cy = sum((span.bbox[1] + span.bbox[3]) / 2 for span, _ in inside) / n
    axis = 1 if turn else 0
    low = min(span.bbox[axis] for span, _ in inside)
    high = max(span.bbox[axis + 2] for span, _ in inside)
    found = words.of_line(line.key)
    inner = grid.xs[1:-1]
    if not turn and any(any(w[0] + _CELL_OVERHANG < x < w[2] - _CELL_OVERHANG for x in inner) for w in found):
        found = words.rebuilt(line.key) or found
    text = "".join(span.text for span in line.spans)
    cursor = 0
    last: int | None = None  # the cell of the word before
    pieces: dict[int, list[str]] = {}
    for x0, y0, x1, y1, word in found:
        at = text.find(word, cursor)
        glued = 0 < at == cursor  # no blank between it and the word before it ("انت" and "؟")
        cursor = at + len(word) if at >= 0 else cursor
        wx, wy = (x0 + x1) / 2, (y0 + y1) / 2
        cell = None
        if low <= (wy if turn else wx) <= high:
            cell = _cell_at(grid, owner, cx, wy) if turn else _cell_at(grid, owner, wx, cy)
        if cell is not None:
            parts = pieces.setdefault(cell, [])
            parts.append(" " + word if parts and not (glued and cell == last) else word)
        last = cell
    return pieces


def _cell_area(grid: _Grid, cell: int) -> float:
    r0, c0, r1, c1 = grid.cells[cell]
    return (grid.xs[c1] - grid.xs[c0]) * (grid.ys[r1] - grid.ys[r0])


def _cell_at(grid: _Grid, owner: dict[tuple[int, int], int], x: float, y: float) -> int | None:
    col = bisect.bisect_right(grid.xs, x) - 1
    row = bisect.bisect_right(grid.ys, y) - 1
    return owner.get((row, col))


def _table(
    grid: _Grid,
    texts: dict[int, list[str]],
    members: set[int],
    first: int,
    turn: int = 0,
    centres: dict[int, list[float]] | None = None,
    spread: dict[int, list[tuple[float, float, float, str]]] | None = None,
    heights: dict[int, list[tuple[float, float]]] | None = None,
) -> PlacedTable | None:
    """The filled grid as a table, or None when it is not one (too empty, fewer than 2x2 filled, one
    cell covering most of it)."""
    cell_texts = {cell: " ".join(t.strip() for t in parts if t.strip()) for cell, parts in texts.items()}
    filled = {cell: text for cell, text in cell_texts.items() if text}
    if len(filled) < 4 or len(filled) < TABLE_MIN_FILL * len(grid.cells):
        return None
    if len(set(filled.values())) < 2:  # one mark repeated in boxes (a diagram's lattice): no data
        return None
    if any(_cell_area(grid, cell) > TABLE_MAX_CELL_SHARE * _area(grid) for cell in filled):
        return None
    fill = len(filled) / len(grid.cells)
    if not turn:
        reshaped, joined = _lines_spread(grid, texts, heights) if heights else (grid, filled)
        reshaped, joined = _signs_joined(reshaped, joined)
        if reshaped.cells != grid.cells or reshaped.xs != grid.xs:
            # cells renumbered: lines stacked in a row and words spread over columns are of the old grid
            grid, filled, centres, spread = reshaped, joined, None, None
    n_rows, n_cols = len(grid.ys) - 1, len(grid.xs) - 1
    stacked = _stacked_rows(grid, texts, centres) if centres is not None and not turn else {}
    start: list[int] = []  # each grid row's first row of the table
    count = 0
    for r in range(n_rows):
        start.append(count)
        count += len(stacked[r][0][1]) if r in stacked else 1
    n_rows = count
    matrix = [["" for _ in range(n_cols)] for _ in range(n_rows)]
    for cell, text in filled.items():
        r0, c0, r1, c1 = grid.cells[cell]
        parts = _spread_cells(grid, cell, spread[cell]) if spread and cell in spread else {}
        for column, part in parts.items():
            matrix[start[r0]][column] = part
        if parts:
            continue
        # A cell over several slots is written in the one that starts it as the table is printed: turned
        # by 90, the page's last row of the cell is its first column; by 270, its last column is its top.
        row, column = (r1 - 1, c0) if turn == 90 else (r0, c1 - 1) if turn == 270 else (start[r0], c0)
        matrix[row][column] = text
    for r, found in stacked.items():
        for cell, lines in found:
            for i, line in enumerate(lines):
                matrix[start[r] + i][grid.cells[cell][1]] = line
    if turn == 90:  # the printed table's top is the page's left, its first column the page's bottom
        matrix = [[matrix[n_rows - 1 - r][c] for r in range(n_rows)] for c in range(n_cols)]
    elif turn == 270:  # its top is the page's right, its first column the page's top
        matrix = [[matrix[r][n_cols - 1 - c] for r in range(n_rows)] for c in range(n_cols)]
    n_cols = len(matrix[0])
    rows = [row for row in matrix if any(row)]
    keep = [c for c in range(n_cols) if any(row[c] for row in rows)]
    grid_rows = {grid.cells[cell][0] for cell in filled}  # the rows as ruled, before stacked lines
    if len(rows) < 2 or len(keep) < 2:
        return None
    cells = one_header([[row[c] for c in keep] for row in rows])
    score = RULED_BASE_CONFIDENCE + (1 - RULED_BASE_CONFIDENCE) * fill
    return PlacedTable(
        cells=cells,
        bbox=grid.bbox,
        source=TableSource.RULED.value,
        confidence=calibrated(TableSource.RULED.value, score),
        evidence=f"score={score:.2f} fill={fill:.2f} rows={len(cells)} columns={len(keep)}"
        + f" cells={len(grid.cells)}"
        + (f" turned={turn}" if turn else ""),
        header_rows=header_rows(cells),
        members=members,
        first=first,
        column_edges=(*(grid.xs[c] for c in keep), grid.xs[-1]) if not turn else (),
        grid_cells=len(grid_rows) * len(keep) if stacked else 0,
    )


def _signs_joined(grid: _Grid, filled: dict[int, str]) -> tuple[_Grid, dict[int, str]]:
    """The grid with each column that holds only currency signs joined to the column on its right, the
    sign put before its amount ("¥ 233,512"), as the aligned finder does: statements rule the sign its
    own column (pdfjs__issue14297.pdf), which would otherwise head a column of signs with the amounts'
    header, a cell spanning both."""
    n_cols = len(grid.xs) - 1
    signs = [
        c
        for c in range(n_cols - 1)
        if (own := [t for i, t in filled.items() if grid.cells[i][1] == c and grid.cells[i][3] == c + 1])
        and all(t in CURRENCY for t in own)
    ]
    if not signs:
        return grid, filled
    gone = {c + 1 for c in signs}  # the borders taken out

    def border(b: int) -> int:
        return b - sum(1 for g in gone if g <= b)

    joined: dict[tuple[int, int, int, int], list[tuple[int, str]]] = {}
    for index, (r0, c0, r1, c1) in enumerate(grid.cells):
        while c1 in gone:  # a sign's cell reaches over its amount's
            c1 += 1
        joined.setdefault((r0, border(c0), r1, border(c1)), []).append((c0, filled.get(index, "")))
    cells = list(joined)
    texts = {i: " ".join(t for _, t in sorted(parts) if t) for i, parts in enumerate(joined.values())}
    xs = [x for b, x in enumerate(grid.xs) if b not in gone]
    return _Grid(xs, grid.ys, cells), {i: t for i, t in texts.items() if t}


def _lines_spread(
    grid: _Grid, texts: dict[int, list[str]], heights: dict[int, list[tuple[float, float]]]
) -> tuple[_Grid, dict[int, str]]:
    """The grid with each cell over several rows cut into the rows its lines stand in: a label column
    ruled only where the amounts are (pdfjs__issue14297.pdf: three labels over three rows of shaded
    amounts, each set a blank line below the one before) holds one label a row, level with its amounts.
    Lines following each other closely (a wrapped label) stay together, in the row of the first; a cell
    with a line within half its height of the cell's middle, or nearer it than its row's middle (text
    centred in a merged cell), is read as one, in its first row."""
    cells: list[tuple[int, int, int, int]] = []
    filled: dict[int, str] = {}
    for index, (r0, c0, r1, c1) in enumerate(grid.cells):
        pairs = zip(texts.get(index, ()), heights.get(index, ()), strict=True)
        lines = [(box, text.strip()) for text, box in pairs if text.strip()]
        if r1 - r0 < 2 or not lines:
            if lines:
                filled[len(cells)] = " ".join(text for _, text in lines)
            cells.append((r0, c0, r1, c1))
            continue
        groups: list[tuple[int, list[str]]] = []
        last: tuple[float, float] | None = None
        middle = (grid.ys[r0] + grid.ys[r1]) / 2
        for (top, bottom), text in lines:
            centre = (top + bottom) / 2
            row = min(max(bisect.bisect_right(grid.ys, centre) - 1, r0), r1 - 1)
            apart = last is None or top - last[1] > STACK_WRAP_GAP_HEIGHTS * (last[1] - last[0])
            if not groups or (apart and row > groups[-1][0]):
                off = abs(centre - middle)
                if off <= (bottom - top) / 2 or abs(centre - (grid.ys[row] + grid.ys[row + 1]) / 2) >= off:
                    groups = []  # set in the middle of the cell: a merged cell, read as one
                    break
                groups.append((row, []))
            groups[-1][1].append(text)
            last = (top, bottom)
        if not groups:
            filled[len(cells)] = " ".join(text for _, text in lines)
            cells.append((r0, c0, r1, c1))
            continue
        if groups[0][0] > r0:  # the rows over its first line stay an empty cell
            cells.append((r0, c0, groups[0][0], c1))
        ends = [row for row, _ in groups[1:]] + [r1]
        for (row, parts), end in zip(groups, ends, strict=True):
            filled[len(cells)] = " ".join(parts)
            cells.append((row, c0, end, c1))
    return _Grid(grid.xs, grid.ys, cells), filled
