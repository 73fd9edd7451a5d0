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
:func:`readers.pdf.placed.calibrated`) and why, in its evidence.
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise

from readers.core.model import TableSource
from readers.pdf.placed import (
    CURRENCY,
    PlacedTable,
    calibrated,
    header_lines,
    header_rows,
    is_number,
    one_header,
)
from readers.pdf.tables import LineLike, SpanLike

# --- thresholds -------------------------------------------------------------------------------------

#: A table has at least this many rows with two or more segments (the "three or more lines" of the
#: definition); fewer and the page is not looked at further (the gate).
MIN_ROWS = 3
#: A gap between two spans of one visual row wider than this many font sizes separates two cells. Word
#: spacing is 0.2-0.35 em and a sentence gap under 0.6 em in every corpus font; tab-set columns in the
#: corpus's statements and schedules are 1.5-20 em apart.
SEGMENT_GAP_EM = 1.0
#: Two spans of one cell closer than this share of the smaller one's height touch: one word set in two
#: fonts or with a superscript ("km" and "2" 0-0.5 pt apart at 10 pt on pyp__multicolumn.pdf).
TOUCHING_GAP_SHARE = 0.15
#: Two spans are on one visual row when their vertical centres are closer than this share of the
#: smaller span's height (superscripts and mixed sizes on one baseline stay together).
SAME_ROW_SHARE = 0.5
#: The blank between consecutive rows of one table is at most this many row heights (0.1-0.8 in the
#: corpus's tables and in generated ones; a gap wider than a line is a new paragraph or a new table).
ROW_GAP_HEIGHTS = 1.2
#: Edges line up when they differ by no more than this many points (a tab stop is exact; right-aligned
#: numbers in a proportional font differ by the width of a thin space at most).
EDGE_TOLERANCE = 2.0
#: A column lines up when at least this share of its cells share a left, right or centre edge; every
#: column of a table must. On the corpus, the real aligned tables (tabula__campaign_donors.pdf,
#: tabula__MultiColumn.pdf, the booktabs table of pyp__multicolumn.pdf) line up in every column, while
#: displayed formulas (pyp__GeoTopo-komprimiert.pdf) and prose columns leave one or more ragged.
COLUMN_ALIGNED_SHARE = 0.6
#: At least this share of a table's cells hold text: the corpus's real aligned tables fill 0.92-1.0,
#: formulas and fragments of prose set side by side 0.38-0.63.
MIN_FILL = 0.75
#: A sparse table (a schedule whose later rows fill only some columns) may fill down to this share when
#: its first row fills every column and every column lines up: camelot__stream_inner_outer_columns.pdf
#: fills 0.70; ruled tables of cells wrapped over several lines read without their rules fill 0.58
#: (tabula__AnimalSounds1.pdf), formulas and prose fragments 0.38-0.63 without a full first row.
SPARSE_MIN_FILL = 0.65
#: Two tables found one under the other are one table when their columns line up and nothing but a
#: blank of at most this many row heights (the median of their rows) and up to MAX_LABEL_ROWS label rows
#: lie between them: a statement's groups (camelot__edge_tol.pdf, 2.0-2.5) and a price list's sections
#: (camelot__detect_vertical_false.pdf, 2.8); separate tables of the corpus are titled or further apart.
MERGE_GAP_HEIGHTS = 3.0
#: Dot leaders make a table of contents, unless the labels they follow lead to this many columns of
#: numbers or more (a statistical abstract's table, camelot__12s0324.pdf: 5 and 9); a contents page has
#: one column of page numbers, two with section numbers.
LEADER_TABLE_NUMERIC_COLUMNS = 3
#: A table's labels may be indented by level (not lined up) when it has this many columns or more and
#: every other column is numbers (tabula__indictb1h_14.pdf: Hebrew labels at three indents, 6 columns of
#: numbers); with fewer, ragged text beside numbers is as likely a list or a form.
LABELLED_MIN_COLUMNS = 4
#: A ruled table is a frame around an unruled one when the spans it took read as an aligned table with
#: this many times its rows (camelot__12s0324.pdf: 6 ruled rows, 35 aligned; tabula__indictb1h_14.pdf:
#: 3 and 35) holding FRAME_MEMBERS_SHARE of its spans (0.68 there: the rest is a title and notes boxed
#: with the table, given back to the text); a real grid reads as at most as many rows.
FRAME_ROWS_SHARE = 3
FRAME_MEMBERS_SHARE = 0.5
#: A page where no table is found across the width is read again column by column when a blank at
#: least GUTTER_MIN_WIDTH points wide runs down the whole page, its middle within GUTTER_BAND of the
#: page's width: a table set in one column of a two-column page (camelot__us-007.pdf) has the other
#: column's lines between its rows. Column gutters in the corpus are 12-25 pt.
GUTTER_MIN_WIDTH = 8.0
GUTTER_BAND = (0.3, 0.7)
#: A table is one table set in two halves side by side when one blank down it is this many times as wide
#: as every other blank between its columns and both sides hold as many columns, of the same kinds
#: (numbers or words): tabula__MultiColumn.pdf's halves of 3 columns are 4.5 times as far apart as their
#: columns.
SIDE_BY_SIDE_GAP_RATIO = 3.0
#: A vertical rule divides a run of rows that is no table into two tables, side by side, when it runs
#: down the whole run, within this many points of its top and bottom, and crosses none of its spans (an
#: attendance table ruled off from a vote tally: tabula__argentina_diputados_voting_record.pdf).
DIVIDER_TOLERANCE = 3.0
#: Rows of one segment (a group's label: "Class B", "Total for the Fund") allowed between two such tables.
MAX_LABEL_ROWS = 2
#: Two spans of one segment are cut apart when they fall in different columns and the blank between them
#: is at least this many row heights: narrow columns set closer than SEGMENT_GAP_EM ("Market" and "NSSF"
#: of camelot__superscript.pdf, 0.65; the amounts of camelot__health.pdf, 0.75; "Under 18" and "18 years"
#: of camelot__12s0324.pdf, 0.4); the words of one cell are one span, or a space (0.2-0.3 heights) apart.
CUT_GAP_HEIGHTS = 0.35
#: The columns are found again from the rows so cut at most this many times (a row cut into every column
#: gives their edges, which a cell run into its neighbour hid: two passes on the corpus).
CUT_PASSES = 3
#: Above a run that starts with a header line (no number in it), a row is another line of that header
#: only when it is this close (a share of the row height): a header's lines are set 0-0.3 apart, a unit
#: or a subtitle over the table (camelot__superscript.pdf's "(Billion)", 1.3) further.
HEAD_LINE_GAP_HEIGHTS = 0.5
#: Rows set apart under a table (a totals row after a rule: camelot__superscript.pdf's ALL STATES, 1.4
#: row heights below) join it when each cell lies over one column of its own and one is a number.
MAX_TRAILING_ROWS = 1
#: Rows above a table's body that may be its header, set over its columns ("2016" over a column of
#: amounts, a unit and a group's label under it: camelot__edge_tol.pdf has three).
MAX_HEAD_ROWS = 3
#: A column whose cells line up on both sides and average this many words or more is justified prose
#: (a newspaper column of plumb__federal-register-2020-17221.pdf), not a column of a table.
JUSTIFIED_MIN_WORDS = 3.0
#: A column where more than this share of its cells start in lower case after a cell above them is a
#: sentence running down a column of prose (plumb__federal-register-2020-17221.pdf: 0.6-0.8); in the
#: corpus's tables the share is 0-0.1 (names, numbers and labels start in capitals or digits).
RUNNING_PROSE_SHARE = 0.5
#: Cells that average more words than this are prose set in columns, not a table: the corpus's
#: two-column papers average 8-12 words per column line; table cells average 1-3.
MAX_CELL_WORDS = 5.0
#: A two-column candidate is a table only when this share of its second column's cells are numbers (a
#: price list, a statement); otherwise it is a list with bullets, a form's labels, or a glossary.
TWO_COLUMN_NUMERIC_SHARE = 0.6
#: An aligned table's score (made a confidence by readers.pdf.placed.calibrated): this base, plus the rest
#: times the share of columns that line up times how full the table is. Calibrated on generated
#: statements (4 columns x 6 rows: 0.95-1.0) and on the corpus's pages, where the tables found line up
#: in every column and the candidates refused do not.
ALIGNED_BASE_CONFIDENCE = 0.4

#: A run of leader dots (a table of contents, a dot-led label).
LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}|(?:·\s?){4,}")
_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")
_LEADER_TAIL = re.compile(r"\s*(?:(?:\.\s?){2,}|…+|(?:·\s?){2,})\s*$")


@dataclass(slots=True)
class _Segment:
    x0: float
    x1: float
    spans: list[SpanLike]
    text: str = ""


@dataclass(slots=True)
class _Row:
    top: float
    bottom: float
    centre: float
    height: float
    spans: list[tuple[float, int, SpanLike]] = field(default_factory=list)  # (left, reading position, span)
    segments: list[_Segment] = field(default_factory=list)


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


def _rows(blocks: Sequence[Sequence[LineLike]], taken: set[int]) -> list[_Row]:
    """The page's horizontal spans grouped into visual rows, top to bottom, each cut into segments.

    Runs over every span of every page, so it keeps to locals and plain comparisons.
    """
    spans: list[tuple[float, int, SpanLike]] = []
    append = spans.append
    position = 0
    for block in blocks:
        for line in block:
            if not line.horizontal:
                continue
            for span in line.spans:
                position += 1
                text = span.text
                if text and not text.isspace() and (not taken or id(span) not in taken):
                    box = span.bbox
                    append(((box[1] + box[3]) / 2, position, span))
    return _group(spans)


def _group(spans: list[tuple[float, int, SpanLike]]) -> list[_Row]:
    """Spans (vertical centre, reading position, span) grouped into visual rows, each cut into segments."""
    spans.sort(key=_first)
    rows: list[_Row] = []
    share = SAME_ROW_SHARE
    # The current row's fields as locals, written back when the next row starts.
    members: list[tuple[float, int, SpanLike]] = []
    top = bottom = row_centre = row_height = 0.0
    for centre, position, span in spans:
        x0, y0, _, y1 = span.bbox
        height = y1 - y0
        if height < 0.1:
            height = 0.1
        if members:
            smaller = height if height < row_height else row_height
            # near centres, or a superscript overlapping the row by half its height or more
            overlap = (y1 if y1 < bottom else bottom) - (y0 if y0 > top else top)
            if abs(centre - row_centre) <= share * smaller or overlap >= share * smaller:
                members.append((x0, position, span))
                if y0 < top:
                    top = y0
                if y1 > bottom:
                    bottom = y1
                continue
            rows.append(_Row(top, bottom, row_centre, row_height, members))
        members = [(x0, position, span)]
        top, bottom, row_centre, row_height = y0, y1, centre, height
    if members:
        rows.append(_Row(top, bottom, row_centre, row_height, members))
    for row in rows:
        row.segments = _segments(row)
    return rows


# A column's x range (left, right).
_Range = tuple[float, float]

# A span's vertical centre in _rows' spans, its left edge in a row's: sorting by it keeps ties in order.
_first = operator.itemgetter(0)


def _segments(row: _Row) -> list[_Segment]:
    """The row cut into segments, left to right, at gaps wider than SEGMENT_GAP_EM of its median height.

    The row's spans carry their left edge, taken while the rows were grouped, so they are sorted by it
    without a Python call per span (~3 ms a pass on the corpus's born-digital pages).
    """
    if len(row.spans) == 1:  # most rows of a page of prose: one span, one segment
        span = row.spans[0][2]
        return [_Segment(span.bbox[0], span.bbox[2], [span])]
    ordered = sorted(row.spans, key=_first)
    heights = sorted([span.bbox[3] - span.bbox[1] for _, _, span in ordered])
    middle = len(heights) // 2
    size = heights[middle] if len(heights) % 2 else (heights[middle - 1] + heights[middle]) / 2
    gap = SEGMENT_GAP_EM * size
    segments: list[_Segment] = []
    current: _Segment | None = None
    for x0, _, span in ordered:
        x1 = span.bbox[2]
        if current is not None and x0 - current.x1 <= gap:
            current.spans.append(span)
            if x1 > current.x1:
                current.x1 = x1
            continue
        current = _Segment(x0, x1, [span])
        segments.append(current)
    if len(segments) == 1:
        return segments
    # A currency sign set apart from its amount ($ 178) belongs to the amount's cell.
    merged: list[_Segment] = []
    for segment in segments:
        if merged and len(merged[-1].spans) == 1 and merged[-1].spans[0].text.strip() in CURRENCY:
            sign = merged.pop()
            segment = _Segment(sign.x0, segment.x1, [*sign.spans, *segment.spans])
        merged.append(segment)
    return merged


def _texts(run: list[_Row]) -> list[_Segment]:
    """The run's segments with their text: only a candidate table's are ever needed. A segment written
    right to left (Hebrew, Arabic) joins its spans in reading order, not from left to right."""
    segments = [segment for row in run for segment in row.segments]
    order: dict[int, int] | None = None
    for segment in segments:
        if not segment.text:
            spans = segment.spans
            if len(spans) > 1 and any(_RIGHT_TO_LEFT.search(s.text) for s in spans):
                if order is None:
                    order = {id(span): position for row in run for _, position, span in row.spans}
                spans = sorted(spans, key=lambda span: order[id(span)])
            segment.text = _joined(spans)
    return segments


def _joined(spans: Sequence[SpanLike]) -> str:
    """The spans' text, a space between two spans unless they touch (a superscript, a change of font inside
    a word: "km" and "2" of "km2")."""
    out = ""
    previous: SpanLike | None = None
    for span in spans:
        text = " ".join(span.text.split())
        if not text:
            continue
        if previous is not None:
            gap = span.bbox[0] - previous.bbox[2]
            height = min(span.bbox[3] - span.bbox[1], previous.bbox[3] - previous.bbox[1])
            level = span.bbox[1] < previous.bbox[3] and previous.bbox[1] < span.bbox[3]
            touching = level and abs(gap) <= TOUCHING_GAP_SHARE * height
            glued = touching and not span.text[0].isspace() and not previous.text[-1].isspace()
            out += "" if glued else " "
        out += text
        previous = span
    return out


def _runs(rows: list[_Row]) -> list[list[_Row]]:
    """Runs of consecutive rows with two or more segments, close together; a one-segment row between two
    such rows (a section label of a statement) stays in its run."""
    runs: list[list[_Row]] = []
    current: list[_Row] = []
    pending: _Row | None = None  # a one-segment row that may be inside the run
    for row in rows:
        last = pending if pending is not None else (current[-1] if current else None)
        near = last is not None and row.top - last.bottom <= ROW_GAP_HEIGHTS * last.height
        if len(row.segments) >= 2:
            if current and near:
                if pending is not None:
                    current.append(pending)
                current.append(row)
            else:
                _close(runs, current)
                current = [row]
            pending = None
        elif current and near and pending is None:
            pending = row
        else:
            _close(runs, current)
            current, pending = [], None
    _close(runs, current)
    return runs


def _close(runs: list[list[_Row]], run: list[_Row]) -> None:
    if sum(1 for row in run if len(row.segments) >= 2) >= MIN_ROWS:
        runs.append(run)


def _table(run: list[_Row], page_width: float) -> PlacedTable | None:
    """The run as a table, or None when it is not one.

    The tests are filters, so their order only decides the cost: the fill comes first, from the column
    each segment falls in, since it refuses most candidates (140 of the corpus's 349) and needs no text;
    the segments' texts are joined only after it (~6 ms a pass on the born-digital pages). So does the
    words per cell, which refuses 117 more: a cell's words are the words of its spans (~6 ms more).
    """
    spans = [span for row in run for _, _, span in row.spans]
    if all(getattr(span, "monospaced", False) for span in spans):
        return None  # fixed-pitch text lines up by nature: code, a terminal listing
    columns = _columns(run)
    if len(columns) < 2:
        return None
    run, columns = _cut_run(run, columns)
    placed = [[_column_at(segment.x0, segment.x1, columns) for segment in row.segments] for row in run]
    filled = sum(len(set(indexes)) for indexes in placed)  # a segment always holds text
    fill = filled / (len(run) * len(columns))
    if fill < MIN_FILL and (fill < SPARSE_MIN_FILL or len(set(placed[0])) < len(columns)):  # not headed
        return None
    if sum(len(span.text.split()) for span in spans) / filled > MAX_CELL_WORDS and (
        sum(len(LEADER.sub(" ", s.text).split()) for s in _texts(run)) / filled > MAX_CELL_WORDS
    ):
        return None  # prose set in columns (a cell's words are its spans' words, dot leaders aside)
    segments = _texts(run)
    leaders = sum(1 for s in segments if LEADER.search(s.text)) * 2 >= len(run)
    cells = [_assign(row, indexes, len(columns)) for row, indexes in zip(run, placed, strict=True)]
    if leaders:  # a table of contents, unless its labels lead to columns of numbers (a statistical table)
        if _numeric_columns(cells) < LEADER_TABLE_NUMERIC_COLUMNS:
            return None
        cells = [[_LEADER_TAIL.sub("", cell) for cell in row] for row in cells]
    if _running_prose(cells):
        return None
    if len(columns) == 2:
        second = [row[1] for row in cells[1:] if row[1]]
        if not second or sum(1 for c in second if is_number(c)) < TWO_COLUMN_NUMERIC_SHARE * len(second):
            return None
    headed = len(set(placed[0])) == len(columns)  # a first row over every column
    stubbed = set(placed[0]) == set(range(1, len(columns)))  # over every column but the row labels'
    aligned, justified, ragged = _aligned_columns(run, placed, len(columns), headed or stubbed)
    if justified:
        return None
    if aligned < len(columns) and not _indented_labels(ragged, cells, len(columns)):
        return None
    score = ALIGNED_BASE_CONFIDENCE + (1 - ALIGNED_BASE_CONFIDENCE) * (aligned / len(columns)) * fill
    cells = one_header(_spread_groups(cells, run, placed, columns))
    positions = [position for row in run for _, position, _ in row.spans]
    first = min(positions)
    first_span = next(span for row in run for _, position, span in row.spans if position == first)
    x0 = min(s.bbox[0] for s in spans)
    x1 = max(s.bbox[2] for s in spans)
    return PlacedTable(
        cells=cells,
        bbox=(x0, run[0].top, x1, run[-1].bottom),
        source=TableSource.ALIGNED.value,
        confidence=calibrated(TableSource.ALIGNED.value, score),
        evidence=f"score={score:.2f} rows={len(cells)} columns={len(columns)} aligned_columns={aligned}"
        + f" fill={fill:.2f}"
        + (f" width_share={(x1 - x0) / page_width:.2f}" if page_width > 0 else ""),
        header_rows=header_rows(cells),
        members={id(span) for span in spans},
        first=id(first_span),
        column_edges=(*(c[0] for c in columns), columns[-1][1]),
    )


def _cut_run(run: list[_Row], columns: list[_Range]) -> tuple[list[_Row], list[_Range]]:
    """The run's rows cut at the columns (see :func:`_cut`), and the columns of the rows so cut: a row whose
    cells are all cut apart gives the columns again, finer, and the run is cut by those (up to
    CUT_PASSES times, until they no longer change)."""
    cut = [_cut(row, columns) for row in run]
    for _ in range(CUT_PASSES - 1):
        if all(a is b for a, b in zip(cut, run, strict=True)):
            break  # nothing cut: the same columns
        finer = _columns(cut)
        if finer == columns or len(finer) < len(columns):
            break
        columns = finer
        cut = [_cut(row, columns) for row in run]
    return cut, columns


def _cut(row: _Row, columns: list[_Range]) -> _Row:
    """The row with each segment cut between two of its spans that fall in different columns with a
    blank of CUT_GAP_HEIGHTS row heights or more between them (the row itself when nothing is cut).

    Asked of every row of every candidate table, so the blank is measured from a running right edge and
    a column is looked up only across a wide blank (a segment's spans are in left-to-right order)."""
    gap = CUT_GAP_HEIGHTS * row.height
    segments: list[_Segment] = []
    cut = False
    for segment in row.segments:
        spans = segment.spans
        if len(spans) == 1:
            segments.append(segment)
            continue
        first = 0
        reach = spans[0].bbox[2]
        for index in range(1, len(spans)):
            x0, _, x1, _ = spans[index].bbox
            if x0 - reach >= gap:
                before = spans[index - 1].bbox
                if _column_at(x0, x1, columns) != _column_at(before[0], before[2], columns):
                    piece = spans[first:index]
                    segments.append(_Segment(piece[0].bbox[0], reach, piece))
                    first = index
                    reach = x1
                    cut = True
                    continue
            if x1 > reach:
                reach = x1
        if first:
            piece = spans[first:]
            segments.append(_Segment(piece[0].bbox[0], reach, piece))
        else:
            segments.append(segment)
    return replace(row, segments=segments) if cut else row


def _spread_groups(
    cells: list[list[str]], run: list[_Row], placed: list[list[int]], columns: list[tuple[float, float]]
) -> list[list[str]]:
    """The cells with each group's label of a header set over several lines (a cell of a header line
    over the lines under it: "Revenue" over "Medical & Public Health" and "Family Welfare") put over every
    column it heads, so that joining the lines heads each of them with it.

    A label heads the columns whose centres lie as far from its centre as the midpoint between it and
    its nearer neighbour on its line, on either side, whose header starts under its line, and only when it
    is centred over them (within a quarter of their span) and a lower line heads its own column too: a
    label over its own column only ("Offense charged" over the row labels) heads no other, nor does a
    one-line header set level with the middle line of its neighbours' ("Nombre Entidad" between "Clave"
    over "Entidad" and "Clave" over "Municipio")."""
    lines = header_lines(cells)
    if lines is None:
        return cells
    start, end = lines
    cells = [list(row) for row in cells]
    centres = [(x0 + x1) / 2 for x0, x1 in columns]
    for index in range(start, end - 1):
        segments = sorted(zip(run[index].segments, placed[index], strict=True), key=lambda pair: pair[0].x0)
        counts = Counter(column for _, column in segments)
        for at, (segment, column) in enumerate(segments):
            if counts[column] > 1 or not any(cells[below][column] for below in range(index + 1, end)):
                continue  # not a group's label: its own column has nothing under it
            middle = (segment.x0 + segment.x1) / 2
            reach = [
                *([middle - (segments[at - 1][0].x1 + segment.x0) / 2] if at > 0 else []),
                *([(segment.x1 + segments[at + 1][0].x0) / 2 - middle] if at + 1 < len(segments) else []),
            ]
            if not reach:
                continue
            heads = [
                other
                for other, centre in enumerate(centres)
                if other != column
                and not any(cells[above][other] for above in range(start, index + 1))
                and abs(centre - middle) <= min(reach)
                and any(cells[below][other] for below in range(index + 1, end))
            ]
            if not heads:
                continue
            low, high = centres[min(*heads, column)], centres[max(*heads, column)]
            if abs((low + high) / 2 - middle) > (high - low) / 4:
                continue
            for other in heads:
                cells[index][other] = cells[index][column]
    return cells


def _numeric_columns(cells: list[list[str]]) -> int:
    """How many columns hold numbers in most of their filled cells."""
    count = 0
    for column in zip(*cells, strict=True):
        texts = [c for c in column if c]
        if texts and sum(1 for c in texts if is_number(c)) * 2 > len(texts):
            count += 1
    return count


def _running_prose(cells: list[list[str]]) -> bool:
    """A column whose cells mostly go on, in lower case, from the cell above: prose set in columns."""
    for column in zip(*cells, strict=True):
        texts = [c for c in column if c]
        pairs = len(texts) - 1
        if pairs >= MIN_ROWS - 1:
            lower = sum(1 for c in texts[1:] if c[0].islower() and " " in c)  # a phrase, not an identifier
            if lower > RUNNING_PROSE_SHARE * pairs:
                return True
    return False


def _columns(run: list[_Row]) -> list[tuple[float, float]]:
    """The columns' x ranges, from the rows with the most segments: the union of their segments' ranges
    where they overlap. A header cell spanning two columns does not join them, since it is not counted."""
    widest = max(len(row.segments) for row in run)
    ranges = sorted((s.x0, s.x1) for row in run if len(row.segments) == widest for s in row.segments)
    columns: list[list[float]] = []
    for x0, x1 in ranges:
        if columns and x0 <= columns[-1][1]:
            columns[-1][1] = max(columns[-1][1], x1)
        else:
            columns.append([x0, x1])
    return [(c[0], c[1]) for c in columns]


def _column_at(left: float, right: float, columns: list[_Range]) -> int:
    """The column a segment (or a span) from ``left`` to ``right`` overlaps most, or the nearest one.

    Asked of every segment of every candidate table, so ``min`` and ``max`` of two numbers are written
    as comparisons (the same results, without two calls per column).
    """
    best, best_overlap = 0, float("-inf")
    for index, (x0, x1) in enumerate(columns):
        overlap = (right if right < x1 else x1) - (left if left > x0 else x0)
        if overlap > best_overlap:
            best, best_overlap = index, overlap
    return best


def _assign(row: _Row, indexes: list[int], width: int) -> list[str]:
    """The row's cells: each segment's text in the cell of its column (``indexes``, from _column_at)."""
    cells = [""] * width
    for segment, index in zip(row.segments, indexes, strict=True):
        cells[index] = f"{cells[index]} {segment.text}".strip()
    return cells


def _indented_labels(ragged: list[int], cells: list[list[str]], width: int) -> bool:
    """The one column that does not line up is a table's labels, indented by level, at its left or right
    side (a right-to-left table's labels are on its right), and every other column is numbers."""
    return (
        len(ragged) == 1
        and width >= LABELLED_MIN_COLUMNS
        and ragged[0] in (0, width - 1)
        and _numeric_columns(cells) == width - 1
    )


def _aligned_columns(
    run: list[_Row], placed: list[list[int]], width: int, headed: bool
) -> tuple[int, bool, list[int]]:
    """How many of the ``width`` columns have COLUMN_ALIGNED_SHARE of their cells (at least MIN_ROWS) on
    a common left, right or centre edge, whether a column is justified prose (both sides lined up,
    wordy cells), and the columns that do not line up; ``placed`` holds each row's segments' columns.
    In a ``headed`` table (its first row over every column, or every column but the row labels') a
    column of two cells lines up when they share an edge or the first spans the second (a header over
    one cell)."""
    edges: list[list[tuple[float, float, float]]] = [[] for _ in range(width)]
    words: list[list[int]] = [[] for _ in range(width)]
    for row, indexes in zip(run, placed, strict=True):
        for segment, index in zip(row.segments, indexes, strict=True):
            edges[index].append((segment.x0, segment.x1, (segment.x0 + segment.x1) / 2))
            words[index].append(len(LEADER.sub(" ", segment.text).split()))
    aligned = 0
    justified = False
    ragged: list[int] = []
    for index, (column, counts) in enumerate(zip(edges, words, strict=True)):
        if len(column) < (2 if headed else MIN_ROWS):
            ragged.append(index)
            continue
        if len(column) < MIN_ROWS:  # a header over one cell: the two share an edge, or it spans the cell
            sides = [abs(column[0][side] - column[1][side]) <= EDGE_TOLERANCE for side in range(3)]
            over = (
                column[0][0] - EDGE_TOLERANCE <= column[1][0]
                and column[1][1] <= column[0][1] + EDGE_TOLERANCE
            )
            sides[2] = sides[2] or over
        else:
            sides = [_lines_up([edge[side] for edge in column]) for side in range(3)]
        if any(sides):
            aligned += 1
        else:
            ragged.append(index)
        if sides[0] and sides[1] and sum(counts) / len(counts) >= JUSTIFIED_MIN_WORDS:
            justified = True
    return aligned, justified, ragged


def _lines_up(positions: list[float]) -> bool:
    """COLUMN_ALIGNED_SHARE of the positions (and at least MIN_ROWS) within EDGE_TOLERANCE of the most
    common one."""
    common, _ = Counter(round(x / EDGE_TOLERANCE) for x in positions).most_common(1)[0]
    near = sum(1 for x in positions if abs(x / EDGE_TOLERANCE - common) <= 1)
    return near >= MIN_ROWS and near >= COLUMN_ALIGNED_SHARE * len(positions)
