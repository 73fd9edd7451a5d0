"""The columns of a run of rows without rules, and whether they make a table: the segments assigned to
columns whose edges line up, cells run into their neighbours cut apart, and what is not a table refused
(prose, dot leaders, lists, ragged columns). Used by :mod:`readers.pdf.unruled_tables`.

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from readers.core.model import TableSource
from readers.pdf.placed_tables import (
    PlacedTable,
    calibrated,
    header_lines,
    header_rows,
    is_number,
    one_header,
)
from readers.pdf.span_rows import MIN_ROWS, _Row, _Segment, _texts

#: Edges line up when they differ by no more than this many points (a tab stop is exact; right-aligned
#: numbers in a proportional font differ by the width of a thin space at most).
EDGE_TOLERANCE = 2.0
#: A column lines up when at least this share of its cells share a left, right or centre edge; every
#: column of a table must: calibrated on the corpus's real aligned tables (every column lines up)
#: against its displayed formulas and prose columns (one or more ragged).
COLUMN_ALIGNED_SHARE = 0.6
#: At least this share of a table's cells hold text: the corpus's real aligned tables fill 0.92-1.0,
#: formulas and fragments of prose set side by side 0.38-0.63.
MIN_FILL = 0.75
#: A sparse table (a schedule whose later rows fill only some columns) may fill down to this share when
#: its first row fills every column and every column lines up: calibrated on a sparse schedule of the
#: tables set (0.70) against wrapped cells read without their rules (0.58) and formulas and prose
#: fragments (0.38-0.63, without a full first row).
SPARSE_MIN_FILL = 0.65
#: Dot leaders make a table of contents, unless the labels they follow lead to this many columns of
#: numbers or more (a statistical abstract's tables: 5 and 9); a contents page has
#: one column of page numbers, two with section numbers.
LEADER_TABLE_NUMERIC_COLUMNS = 3
#: A table's labels may be indented by level (not lined up) when it has this many columns or more and
#: every other column is numbers (Hebrew labels at three indents beside 6 columns of numbers, on the
#: tables set); with fewer, ragged text beside numbers is as likely a list or a form.
LABELLED_MIN_COLUMNS = 4
#: Two spans of one segment are cut apart when they fall in different columns and the blank between them
#: is at least this many row heights: narrow columns set closer than SEGMENT_GAP_EM (0.4-0.75 row heights
#: on the tables set); the words of one cell are one span, or a space (0.2-0.3 heights) apart.
CUT_GAP_HEIGHTS = 0.35
#: The columns are found again from the rows so cut at most this many times (a row cut into every column
#: gives their edges, which a cell run into its neighbour hid: two passes on the corpus).
CUT_PASSES = 3
#: A column whose cells line up on both sides and average this many words or more is justified prose
#: (a government register's newspaper column), not a column of a table.
JUSTIFIED_MIN_WORDS = 3.0
#: A column where more than this share of its cells start in lower case after a cell above them is a
#: sentence running down a column of prose (0.6-0.8 in a government register's columns); in the
#: corpus's tables the share is 0-0.1 (names, numbers and labels start in capitals or digits).
RUNNING_PROSE_SHARE = 0.5
#: Cells that average more words than this are prose set in columns, not a table: the corpus's
#: two-column papers average 8-12 words per column line; table cells average 1-3.
MAX_CELL_WORDS = 5.0
#: A two-column candidate is a table only when this share of its second column's cells are numbers (a
#: price list, a statement); otherwise it is a list with bullets, a form's labels, or a glossary.
TWO_COLUMN_NUMERIC_SHARE = 0.6
#: An aligned table's score (made a confidence by readers.pdf.placed_tables.calibrated): this base, plus the
#: rest times the share of columns that line up times how full the table is. Calibrated on generated
#: statements (4 columns x 6 rows: 0.95-1.0) and on the corpus's pages, where the tables found line up in
#: every column and the candidates refused do not.
ALIGNED_BASE_CONFIDENCE = 0.4

#: A run of leader dots (a table of contents, a dot-led label).
LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}|(?:·\s?){4,}")
_LEADER_TAIL = re.compile(r"\s*(?:(?:\.\s?){2,}|…+|(?:·\s?){2,})\s*$")


# A column's x range (left, right).
_Range = tuple[float, float]


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
