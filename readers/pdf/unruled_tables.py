"""Tables without rules: columns of text whose edges line up over three or more lines.

A financial statement, a price list or a schedule often draws no line at all: its columns are set by
tab stops, so MuPDF reports each cell as its own span (or line, or block) and the flow text reads
``Cost of revenue $ 178 $ 141 $ 138``. This module puts the page's spans back into visual rows, cuts each
row into segments where a gap is wider than word spacing, and takes a run of three or more such rows as a
table when its segments fall into columns whose left, right or centre edges line up.

The cascade, cheapest first, so a page of prose pays almost nothing:

1. the gate: fewer than :data:`MIN_ROWS` rows with two or more segments, no table (one pass over the
   spans, grouped by their vertical centre);
2. runs of consecutive multi-segment rows (a label row between two of them may stay in the run);
3. columns from the rows with the most segments; every segment assigned to the column it overlaps;
4. what is not a table: fewer than two columns, cells that read as prose (more than
   :data:`MAX_CELL_WORDS` words on average), dot leaders (a table of contents), fixed-pitch text (code),
   two columns whose second is not numbers (a list, a form), columns whose edges do not line up.

Each table found says how sure it is (its score, :data:`ALIGNED_BASE_CONFIDENCE`, calibrated by
:func:`readers.pdf.placed_tables.calibrated`) and why, in its evidence.

The rows and their segments are made in :mod:`readers.pdf.span_rows`, the columns found and judged in
:mod:`readers.pdf.unruled_columns`; this module holds the finders' entries, the runs joined and divided,
their header rows, and the tables framed by a ruled grid or printed sideways.

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from readers.pdf.placed_tables import (
    PlacedTable,
    is_number,
)
from readers.pdf.ruled_cells import LineLike, SpanLike
from readers.pdf.span_rows import MIN_ROWS, _group, _Row, _rows, _runs, _Segment, _texts
from readers.pdf.unruled_columns import EDGE_TOLERANCE, _column_at, _columns, _cut, _cut_run, _table

#: Two tables found one under the other are one table when their columns line up and nothing but a
#: blank of at most this many row heights (the median of their rows) and up to MAX_LABEL_ROWS label rows
#: lie between them: calibrated on the tables set's statement groups and price-list sections (2.0-2.8);
#: separate tables of the corpus are titled or further apart.
MERGE_GAP_HEIGHTS = 3.0
#: A ruled table is a frame around an unruled one when the spans it took read as an aligned table with
#: this many times its rows (6 or 3 ruled rows read as 35 aligned ones on the tables set) holding
#: FRAME_MEMBERS_SHARE of its spans (0.68 there: the rest is a title and notes boxed with the table,
#: given back to the text); a real grid reads as at most as many rows.
FRAME_ROWS_SHARE = 3
FRAME_MEMBERS_SHARE = 0.5
#: A page where no table is found across the width is read again column by column when a blank at
#: least GUTTER_MIN_WIDTH points wide runs down the whole page, its middle within GUTTER_BAND of the
#: page's width: a table set in one column of a two-column page has the other
#: column's lines between its rows. Column gutters in the corpus are 12-25 pt.
GUTTER_MIN_WIDTH = 8.0
GUTTER_BAND = (0.3, 0.7)
#: A table is one table set in two halves side by side when one blank down it is this many times as wide
#: as every other blank between its columns and both sides hold as many columns, of the same kinds
#: (numbers or words): calibrated on a table of two halves of 3 columns, 4.5 times as far apart as their
#: columns.
SIDE_BY_SIDE_GAP_RATIO = 3.0
#: A vertical rule divides a run of rows that is no table into two tables, side by side, when it runs
#: down the whole run, within this many points of its top and bottom, and crosses none of its spans (an
#: attendance table ruled off from a vote tally).
DIVIDER_TOLERANCE = 3.0
#: Rows of one segment (a group's label: "Class B", "Total for the Fund") allowed between two such tables.
MAX_LABEL_ROWS = 2
#: Above a run that starts with a header line (no number in it), a row is another line of that header
#: only when it is this close (a share of the row height): a header's lines are set 0-0.3 apart, a unit
#: or a subtitle over the table ("(Billion)", 1.3) further.
HEAD_LINE_GAP_HEIGHTS = 0.5
#: Rows set apart under a table (a totals row after a rule, 1.4 row heights below) join it when each
#: cell lies over one column of its own and one is a number.
MAX_TRAILING_ROWS = 1
#: Rows above a table's body that may be its header, set over its columns ("2016" over a column of
#: amounts, a unit and a group's label under it: three).
MAX_HEAD_ROWS = 3


def find_aligned_tables(
    blocks: Sequence[Sequence[LineLike]],
    ruled: Sequence[PlacedTable],
    page_width: float,
    dividers: Callable[[], Sequence[tuple[float, float, float]]] | None = None,
) -> list[PlacedTable]:
    """The page's tables aligned by whitespace (source ``aligned``), top to bottom; spans already in a
    ruled table are not looked at. ``dividers`` gives the page's vertical rules as (x, top, bottom), asked
    only when a run of rows is no table (a rule may divide it into two)."""
    taken: set[int] = set()
    for table in ruled:
        taken |= table.members
    rows = _rows(blocks, taken)
    if sum(1 for row in rows if len(row.segments) >= 2) < MIN_ROWS:
        return []
    found = _found(rows, page_width, _Dividers(dividers))
    tables = [_side_by_side(table, rows, page_width) for table in found]
    gutter = None if tables else _gutter(rows, page_width)
    if gutter is not None:  # two columns of text, each read apart: a table set in one of them
        for keep in ((lambda x0, x1: x1 <= gutter), (lambda x0, x1: x0 >= gutter)):
            side = [
                ((span.bbox[1] + span.bbox[3]) / 2, position, span)
                for row in rows
                for _, position, span in row.spans
                if keep(span.bbox[0], span.bbox[2])
            ]
            tables.extend(_found(_group(side), page_width, _Dividers(None)))
    return tables


def _side_by_side(table: PlacedTable, rows: list[_Row], page_width: float) -> PlacedTable:
    """The table, or, when it is one table set in two halves side by side, the table as it reads: its
    left half's rows, then its right half's (the right half's header left out where it repeats the
    left's). Two halves: a blank down it SIDE_BY_SIDE_GAP_RATIO times as wide as every other blank between
    its columns, with as many columns on each side, each of the same kind (numbers or words) as its
    fellow on the other side."""
    members = [
        (centre, position, span)
        for row in rows
        for _, position, span in row.spans
        if id(span) in table.members
        for centre in ((span.bbox[1] + span.bbox[3]) / 2,)
    ]
    blanks: list[tuple[float, float]] = []  # the blanks down the table, between its spans' x extents
    reach = float("inf")
    for x0, x1 in sorted((span.bbox[0], span.bbox[2]) for _, _, span in members):
        if x0 > reach:
            blanks.append((reach, x0))
        reach = x1 if reach == float("inf") else max(reach, x1)
    if len(blanks) < 3 or len(blanks) % 2 == 0:
        return table
    middle = len(blanks) // 2
    widths = sorted(((x1 - x0), index) for index, (x0, x1) in enumerate(blanks))
    (second, _), (widest, at) = widths[-2], widths[-1]
    if at != middle or widest < SIDE_BY_SIDE_GAP_RATIO * second:
        return table
    cut = sum(blanks[middle]) / 2
    sides = ([m for m in members if m[2].bbox[0] < cut], [m for m in members if m[2].bbox[0] >= cut])
    halves = [_found(_group(side), page_width, _Dividers(None)) for side in sides]
    if any(len(half) != 1 for half in halves):
        return table
    left, right = halves[0][0], halves[1][0]
    if len(left.cells[0]) != len(right.cells[0]) or _kinds(left.cells) != _kinds(right.cells):
        return table
    repeated = left.header_rows and right.header_rows and right.cells[0] == left.cells[0]
    body = right.cells[right.header_rows :] if repeated else right.cells
    bbox = (
        *(min(a, b) for a, b in zip(left.bbox[:2], right.bbox[:2], strict=True)),
        *(max(a, b) for a, b in zip(left.bbox[2:], right.bbox[2:], strict=True)),
    )
    return replace(
        left,
        cells=[*left.cells, *body],
        bbox=bbox,
        members=left.members | right.members,
        evidence=f"{left.evidence} halves=2",
    )


def _kinds(cells: list[list[str]]) -> list[bool]:
    """Whether each column holds numbers in most of its filled cells."""
    return [
        sum(1 for c in texts if is_number(c)) * 2 > len(texts)
        for column in zip(*cells, strict=True)
        for texts in ([c for c in column if c],)
    ]


def _gutter(rows: list[_Row], page_width: float) -> float | None:
    """The middle of the widest blank running down the whole page between GUTTER_BAND of its width, at
    least GUTTER_MIN_WIDTH wide, which no span crosses: the gutter between two columns of text."""
    spans = sorted((span.bbox[0], span.bbox[2]) for row in rows for _, _, span in row.spans)
    low, high = page_width * GUTTER_BAND[0], page_width * GUTTER_BAND[1]
    best: tuple[float, float] | None = None
    reach = float("-inf")
    for x0, x1 in spans:
        wider = best is None or x0 - reach > best[1] - best[0]
        if x0 - reach >= GUTTER_MIN_WIDTH and low <= (reach + x0) / 2 <= high and wider:
            best = (reach, x0)
        reach = max(reach, x1)
    return None if best is None else (best[0] + best[1]) / 2


class _Dividers:
    """The page's vertical rules, read from its drawings the first time they are asked for."""

    def __init__(self, source: Callable[[], Sequence[tuple[float, float, float]]] | None) -> None:
        self._source = source
        self._rules: Sequence[tuple[float, float, float]] | None = None

    def rules(self) -> Sequence[tuple[float, float, float]]:
        if self._rules is None:
            self._rules = self._source() if self._source is not None else ()
        return self._rules


def _divided(run: list[_Row], dividers: _Dividers, page_width: float) -> list[PlacedTable]:
    """The tables on either side of a vertical rule running down the whole run and crossing none of its
    spans (see DIVIDER_TOLERANCE), or none."""
    top, bottom = run[0].top, run[-1].bottom
    spans = [((s.bbox[1] + s.bbox[3]) / 2, position, s) for row in run for _, position, s in row.spans]
    for x, y0, y1 in dividers.rules():
        if y0 > top + DIVIDER_TOLERANCE or y1 < bottom - DIVIDER_TOLERANCE:
            continue
        if any(s.bbox[0] < x < s.bbox[2] for _, _, s in spans):
            continue
        left = [item for item in spans if item[2].bbox[2] <= x]
        right = [item for item in spans if item[2].bbox[0] >= x]
        if not left or not right:
            continue
        none = _Dividers(None)
        return [*_found(_group(left), page_width, none), *_found(_group(right), page_width, none)]
    return []


def _found(rows: list[_Row], page_width: float, dividers: _Dividers) -> list[PlacedTable]:
    """The tables of these rows, top to bottom: each run of rows with its header rows above it, runs one
    under the other with the same columns joined; a run that is no table may be two divided by a rule."""
    position = {id(row): index for index, row in enumerate(rows)}
    found: list[tuple[list[_Row], PlacedTable]] = []
    divided: list[PlacedTable] = []
    runs = _runs(rows)
    in_runs = {id(row) for run in runs for row in run}
    for run in runs:
        table = None
        start = position[id(found[-1][0][-1])] + 1 if found else 0
        heads = _heads(rows[start : position[id(run[0])]], run)
        if heads:
            table = _table([*heads, *run], page_width)
            if table is not None:
                run = [*heads, *run]
        if table is None:
            table = _table(run, page_width)
        if table is None:
            divided.extend(_divided(run, dividers, page_width))
            continue
        if found:
            before, _ = found[-1]
            between = rows[position[id(before[-1])] + 1 : position[id(run[0])]]
            if _may_join(before, between, run):
                joined = _table([*before, *between, *run], page_width)
                if joined is not None:
                    found[-1] = ([*before, *between, *run], joined)
                    found[-1] = _with_trailing(found[-1], rows, position, in_runs, page_width)
                    continue
        found.append(_with_trailing((run, table), rows, position, in_runs, page_width))
    return sorted([*(table for _, table in found), *divided], key=lambda t: (t.bbox[1], t.bbox[0]))


def _with_trailing(
    found: tuple[list[_Row], PlacedTable],
    rows: list[_Row],
    position: dict[int, int],
    in_runs: set[int],
    page_width: float,
) -> tuple[list[_Row], PlacedTable]:
    """The table with up to MAX_TRAILING_ROWS rows set apart under it (a totals row), each in no run of
    its own, within MERGE_GAP_HEIGHTS row heights, each of its cells over one column of its own and one
    of them a number."""
    run, table = found
    heights = sorted(row.height for row in run)
    height = heights[len(heights) // 2]
    after = rows[position[id(run[-1])] + 1 : position[id(run[-1])] + 1 + MAX_TRAILING_ROWS]
    for row in after:
        if id(row) in in_runs or len(row.segments) < 2:
            break
        if row.top - run[-1].bottom > MERGE_GAP_HEIGHTS * height:
            break
        _, columns = _cut_run(run, _columns(run))
        cells = _cut(row, columns).segments
        if any(_spanned(segment, columns) != 1 for segment in cells):
            break
        if len({_column_at(segment.x0, segment.x1, columns) for segment in cells}) < len(cells):
            break
        if not any(is_number(segment.text) for segment in _texts([replace(row, segments=cells)])):
            break
        longer = _table([*run, row], page_width)
        if longer is None:
            break
        run, table = [*run, row], longer
    return run, table


def _heads(above: list[_Row], run: list[_Row]) -> list[_Row]:
    """The rows just above a run that head its columns: up to MAX_HEAD_ROWS rows, each no further than
    MERGE_GAP_HEIGHTS row heights from the next, within the run's width (a right-aligned header may stick
    out on the right), the topmost of them with a cell
    over a column other than the first (a header set over the body's numbers, "2016"); the rows between
    it and the run (a unit, a group's label) come with it."""
    columns = _columns(run)
    if len(columns) < 2:
        return []
    left, right = columns[0][0] - EDGE_TOLERANCE, columns[-1][1] + EDGE_TOLERANCE
    heights = sorted(row.height for row in run)
    height = heights[len(heights) // 2]
    taken: list[_Row] = []
    top = 0
    below = run[0]
    headed = not any(is_number(segment.text) for segment in _texts([run[0]]))  # a header line starts it
    gap = (HEAD_LINE_GAP_HEIGHTS if headed else MERGE_GAP_HEIGHTS) * height
    for row in reversed(above[-MAX_HEAD_ROWS:]):
        if below.top - row.bottom > gap:
            break
        last = columns[-1][0] + EDGE_TOLERANCE  # a header set from the last column's left may run past it
        if any(s.x0 < left or ((s.x0 + s.x1) / 2 > right and s.x0 > last) for s in row.segments):
            break  # wider than the table on its left, or a cell overhanging its right side by half or more
        if len(row.segments) == 1 and _spanned(row.segments[0], columns) > 1:
            break  # one line across columns: a title or a subtitle over the table
        taken.append(row)
        if any(s.x0 > columns[0][1] for s in row.segments):
            top = len(taken)
        below = row
    return taken[:top][::-1]


def _spanned(segment: _Segment, columns: list[tuple[float, float]]) -> int:
    """How many columns the segment overlaps."""
    return sum(1 for x0, x1 in columns if min(x1, segment.x1) > max(x0, segment.x0))


def _may_join(before: list[_Row], between: list[_Row], after: list[_Row]) -> bool:
    """Whether two tables found one under the other may be one: as many columns, lined up (left, right or
    centre), with only a blank of MERGE_GAP_HEIGHTS row heights and MAX_LABEL_ROWS label rows between."""
    if len(between) > MAX_LABEL_ROWS or any(len(row.segments) > 1 for row in between):
        return False
    a, b = _columns(before), _columns(after)
    if len(a) != len(b):
        return False
    heights = sorted(row.height for row in (*before, *after))
    height = heights[len(heights) // 2]
    sequence = [before[-1], *between, after[0]]
    if any(low.top - high.bottom > MERGE_GAP_HEIGHTS * height for high, low in pairwise(sequence)):
        return False
    return all(  # a common left or right edge, or each column's centre inside the other
        min(abs(x0 - y0), abs(x1 - y1)) <= EDGE_TOLERANCE
        or (x0 < (y0 + y1) / 2 < x1 and y0 < (x0 + x1) / 2 < y1)
        for (x0, x1), (y0, y1) in zip(a, b, strict=True)
    )


@dataclass(slots=True)
class _FramedLine:
    """A line's spans that a ruled table took, as the aligned finder reads them."""

    spans: list[SpanLike]
    horizontal: bool = True


def unframed(
    blocks: Sequence[Sequence[LineLike]], ruled: Sequence[PlacedTable], page_width: float
) -> list[PlacedTable]:
    """The ruled tables, each one that is a frame around an unruled table replaced by that table.

    A statistical table often rules its header and its outer sides but not its body: the ruled finder
    then puts a whole column of the body in one cell. When the spans a ruled table took read as an
    aligned table with FRAME_ROWS_SHARE times its rows or more, holding FRAME_MEMBERS_SHARE of its spans,
    the aligned table stands for it; the spans it leaves out go back to the page's text.
    """
    out: list[PlacedTable] = []
    for table in ruled:
        # A grid holds a span or two a cell; a grid read row by row from stacked lines counts as ruled.
        width = len(table.cells[0]) if table.cells else 0
        cells = table.grid_cells or len(table.cells) * width
        if "turned=" in table.evidence or cells * FRAME_ROWS_SHARE > len(table.members):
            out.append(table)
            continue
        framed = [
            [
                _FramedLine([span for span in line.spans if id(span) in table.members])
                for line in block
                if line.horizontal
            ]
            for block in blocks
        ]
        inside = [
            found
            for found in find_aligned_tables(framed, [], page_width)
            if len(found.cells) * width >= FRAME_ROWS_SHARE * cells
            and len(found.members) >= FRAME_MEMBERS_SHARE * len(table.members)
        ]
        out.extend(inside or [table])
    return out


@dataclass(slots=True)
class _TurnedSpan:
    """A span of a line running up or down the page, as it reads once the page is turned upright."""

    text: str
    bbox: tuple[float, float, float, float]
    span: SpanLike  # the page's own span


@dataclass(slots=True)
class _TurnedLine:
    spans: list[_TurnedSpan]
    key: tuple[int, int]
    horizontal: bool = True
    direction: tuple[float, float] = (1.0, 0.0)


def find_turned_aligned_tables(
    blocks: Sequence[Sequence[LineLike]], ruled: Sequence[PlacedTable], width: float, height: float
) -> list[PlacedTable]:
    """Aligned tables printed sideways: the lines running up the page (or down it) are read as the page
    reads turned upright, the tables found there are given back in the page's space (evidence
    ``turned=90`` or ``turned=270``). Costs nothing on a page whose lines all run across it."""
    taken: set[int] = set()
    for table in ruled:
        taken |= table.members
    by_turn: dict[int, list[list[_TurnedLine]]] = {90: [], 270: []}
    for block in blocks:
        turned: dict[int, list[_TurnedLine]] = {}
        for line in block:
            if line.horizontal:
                continue
            dx, dy = line.direction
            if not -1e-3 < dx < 1e-3:
                continue
            turn = 90 if dy < 0 else 270
            spans = []
            for span in line.spans:
                if id(span) in taken:
                    continue
                x0, y0, x1, y1 = span.bbox
                box = (height - y1, x0, height - y0, x1) if turn == 90 else (y0, width - x1, y1, width - x0)
                spans.append(_TurnedSpan(span.text, box, span))
            if spans:
                turned.setdefault(turn, []).append(_TurnedLine(spans, line.key))
        for turn, lines in turned.items():
            by_turn[turn].append(lines)
    tables: list[PlacedTable] = []
    for turn, turned_blocks in by_turn.items():
        if sum(len(line.spans) for lines in turned_blocks for line in lines) < MIN_ROWS * 2:
            continue
        page_width = height  # the turned page's width is the page's height
        originals = {id(s): s.span for lines in turned_blocks for line in lines for s in line.spans}
        for table in find_aligned_tables(turned_blocks, [], page_width):
            a, b, c, d = table.bbox
            bbox = (b, height - c, d, height - a) if turn == 90 else (width - d, a, width - b, c)
            tables.append(
                replace(
                    table,
                    bbox=bbox,
                    evidence=f"{table.evidence} turned={turn}",
                    members={id(originals[m]) for m in table.members},
                    first=id(originals[table.first]),
                    column_edges=(),
                )
            )
    return tables
