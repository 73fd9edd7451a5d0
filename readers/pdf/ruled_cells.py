"""The cells of a ruled grid filled from the page's text spans (and the TextPage's words where a span
crosses a cell border), and the grid judged a table or not (the ruled table finder's second half,
:mod:`readers.pdf.ruled_tables`).

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

import pymupdf

from readers.core.model import TableSource
from readers.pdf.placed_tables import CURRENCY, PlacedTable, calibrated, header_rows, is_number, one_header
from readers.pdf.ruled_grids import _Grid

#: The lines of one cell of a stack of rules without column lines (a wrapped cell; see
#: readers.pdf.ruled_tables) are at most this many line heights apart: 0-0.1
#: in the corpus's stacked tables; the entries of a CV's sections ruled apart are a line height apart.
STACK_WRAP_GAP_HEIGHTS = 0.5
#: A grid is a table only with at least 2 rows and 2 columns holding text, and when at least this share
#: of its cells hold text: calibrated on the corpus's real tables (0.86-1.0 of their cells filled)
#: against the grids of its diagrams and drawing title blocks (0.13-0.42).
TABLE_MIN_FILL = 0.4
#: A grid with a filled cell covering more than this share of its area is a frame around text (a page
#: border joined to a form's title block, a boxed note split by one rule), not a table.
TABLE_MAX_CELL_SHARE = 0.5
#: A ruled table's score (made a confidence by readers.pdf.placed_tables.calibrated): RULED_BASE_CONFIDENCE
#: plus the rest times the share of its cells that hold text. On the corpus, real ruled tables fill 0.6-1.0 of
#: their cells (score 0.8-1.0); a grid at the TABLE_MIN_FILL floor scores 0.7, and the grids refused below it
#: (diagrams, title blocks) never count.
RULED_BASE_CONFIDENCE = 0.5
#: A span that sticks out of its cell by more than this is cut into words at the cell borders.
_CELL_OVERHANG = 1.0
#: A cell spanning several columns is cut into them when its words each lie inside one column and no
#: column gets more than this many: a header ruled as one box over the columns it names (1-2 words a
#: column on the corpus's sideways statistics table), not a
#: note or title running across them (a word of which crosses a column border, or many fall in one).
SPREAD_MAX_WORDS = 3
#: The lines of a cell stand side by side with those of the other cells of its row when their centres
#: are this close (in points): a grid ruling every fifth row holds five rows in each cell.
SAME_LINE_TOLERANCE = 2.0
#: A grid is read row by row from its cells' lines only when at least this many of its rows hold stacked
#: lines (a grid ruling every fifth row rules many such groups); one such row is a frame ruled round an
#: unruled body, which readers.pdf.unruled_tables.unframed reads as the aligned table inside it.
STACKED_MIN_ROWS = 2
#: ...and only rows where at least this share of the cells hold numbers on every line: a row of data
#: (24 of the 25 columns of a statistics table); a two-column table of options whose names and
#: descriptions wrap over two lines holds none, and its lines are not rows.
STACKED_NUMERIC_SHARE = 0.5


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
        stretch the TextPage's word box across a cell border (an Arabic table). Costs one
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


def _without_boxed_text(grid: _Grid) -> _Grid:
    """The grid without a box of text ruled onto its top or bottom: a cell as wide as the grid that
    covers more than TABLE_MAX_CELL_SHARE of it is a paragraph boxed under (or over) the table
    (notes under the table, closed by the page's last rule), not a row.
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


# --- filling the cells ------------------------------------------------------------------------------


def _fill_tables(
    grids: list[_Grid], blocks: Sequence[Sequence[LineLike]], words: _Words
) -> list[PlacedTable]:
    """Put each span whose centre lies in a grid into its cell; keep the grids that are tables.

    Smaller grids are filled first and keep their spans, so a table drawn inside a page frame (the
    frames of a drawing standard's pages) is not read twice; the frame itself fails the cell-share test.
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
    as the grid (a table's title, "Table 6.1: ..."), with at least two
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
    own column (a Japanese annual report's), which would otherwise head a column of signs with the amounts'
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
    ruled only where the amounts are (three labels over three rows of shaded
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
