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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from readers.core.model import TableSource
from readers.pdf.placed import PlacedTable, calibrated, header_rows, is_number
from readers.pdf.tables import LineLike, SpanLike

# --- thresholds -------------------------------------------------------------------------------------

#: A table has at least this many rows with two or more segments (the "three or more lines" of the
#: definition); fewer and the page is not looked at further (the gate).
MIN_ROWS = 3
#: A gap between two spans of one visual row wider than this many font sizes separates two cells. Word
#: spacing is 0.2-0.35 em and a sentence gap under 0.6 em in every corpus font; tab-set columns in the
#: corpus's statements and schedules are 1.5-20 em apart.
SEGMENT_GAP_EM = 1.0
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

_LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}|(?:·\s?){4,}")
_CURRENCY = frozenset("$€£¥")


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
    blocks: Sequence[Sequence[LineLike]], ruled: Sequence[PlacedTable], page_width: float
) -> list[PlacedTable]:
    """The page's tables aligned by whitespace (source ``aligned``), top to bottom; spans already in a
    ruled table are not looked at."""
    taken: set[int] = set()
    for table in ruled:
        taken |= table.members
    rows = _rows(blocks, taken)
    if sum(1 for row in rows if len(row.segments) >= 2) < MIN_ROWS:
        return []
    tables: list[PlacedTable] = []
    for run in _runs(rows):
        table = _table(run, page_width)
        if table is not None:
            tables.append(table)
    return tables


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
            if abs(centre - row_centre) <= share * smaller:
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
        if merged and len(merged[-1].spans) == 1 and merged[-1].spans[0].text.strip() in _CURRENCY:
            sign = merged.pop()
            segment = _Segment(sign.x0, segment.x1, [*sign.spans, *segment.spans])
        merged.append(segment)
    return merged


def _texts(run: list[_Row]) -> list[_Segment]:
    """The run's segments with their text: only a candidate table's are ever needed."""
    segments = [segment for row in run for segment in row.segments]
    for segment in segments:
        if not segment.text:
            segment.text = " ".join(" ".join(s.text.split()) for s in segment.spans if s.text.strip())
    return segments


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
    placed = [[_column_of(segment, columns) for segment in row.segments] for row in run]
    filled = sum(len(set(indexes)) for indexes in placed)  # a segment always holds text
    fill = filled / (len(run) * len(columns))
    if fill < MIN_FILL:
        return None
    if sum(len(span.text.split()) for span in spans) / filled > MAX_CELL_WORDS:
        return None  # prose set in columns (a cell's words are its spans' words)
    segments = _texts(run)
    if sum(1 for s in segments if _LEADER.search(s.text)) * 2 >= len(run):
        return None  # dot leaders: a table of contents
    cells = [_assign(row, indexes, len(columns)) for row, indexes in zip(run, placed, strict=True)]
    if _running_prose(cells):
        return None
    if len(columns) == 2:
        second = [row[1] for row in cells[1:] if row[1]]
        if not second or sum(1 for c in second if is_number(c)) < TWO_COLUMN_NUMERIC_SHARE * len(second):
            return None
    aligned, justified = _aligned_columns(run, placed, len(columns))
    if aligned < len(columns) or justified:
        return None
    score = ALIGNED_BASE_CONFIDENCE + (1 - ALIGNED_BASE_CONFIDENCE) * (aligned / len(columns)) * fill
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


def _column_of(segment: _Segment, columns: list[tuple[float, float]]) -> int:
    """The column the segment overlaps most, or the nearest one.

    Asked of every segment of every candidate table, so ``min`` and ``max`` of two numbers are written
    as comparisons (the same results, without two calls per column).
    """
    left, right = segment.x0, segment.x1
    best, best_overlap = 0, float("-inf")
    for index, (x0, x1) in enumerate(columns):
        overlap = (right if right < x1 else x1) - (left if left > x0 else x0)
        if overlap > best_overlap:
            best, best_overlap = index, overlap
    return best


def _assign(row: _Row, indexes: list[int], width: int) -> list[str]:
    """The row's cells: each segment's text in the cell of its column (``indexes``, from _column_of)."""
    cells = [""] * width
    for segment, index in zip(row.segments, indexes, strict=True):
        cells[index] = f"{cells[index]} {segment.text}".strip()
    return cells


def _aligned_columns(run: list[_Row], placed: list[list[int]], width: int) -> tuple[int, bool]:
    """How many of the ``width`` columns have COLUMN_ALIGNED_SHARE of their cells (at least MIN_ROWS) on
    a common left, right or centre edge, and whether a column is justified prose (both sides lined up,
    wordy cells); ``placed`` holds each row's segments' columns."""
    edges: list[list[tuple[float, float, float]]] = [[] for _ in range(width)]
    words: list[list[int]] = [[] for _ in range(width)]
    for row, indexes in zip(run, placed, strict=True):
        for segment, index in zip(row.segments, indexes, strict=True):
            edges[index].append((segment.x0, segment.x1, (segment.x0 + segment.x1) / 2))
            words[index].append(len(segment.text.split()))
    aligned = 0
    justified = False
    for column, counts in zip(edges, words, strict=True):
        if len(column) < MIN_ROWS:
            continue
        sides = [_lines_up([edge[side] for edge in column]) for side in range(3)]
        if any(sides):
            aligned += 1
        if sides[0] and sides[1] and sum(counts) / len(counts) >= JUSTIFIED_MIN_WORDS:
            justified = True
    return aligned, justified


def _lines_up(positions: list[float]) -> bool:
    """COLUMN_ALIGNED_SHARE of the positions (and at least MIN_ROWS) within EDGE_TOLERANCE of the most
    common one."""
    common, _ = Counter(round(x / EDGE_TOLERANCE) for x in positions).most_common(1)[0]
    near = sum(1 for x in positions if abs(x / EDGE_TOLERANCE - common) <= 1)
    return near >= MIN_ROWS and near >= COLUMN_ALIGNED_SHARE * len(positions)
