"""A sheet's tables: its filled cells split into regions by the blank rows and columns between them.

A sheet often holds more than one table: two side by side with a blank column between them, one below
another, each perhaps under a title line. Labelling every value with one header row for the whole sheet
gives a right-hand table's values the left-hand table's headers. :func:`sheet_regions` finds the tables:

1. Connected regions of filled cells (a cell touches the eight around it), found row by row on runs of
   adjacent filled cells, so the cost is in the sheet's filled cells, not its area.
2. Regions whose bounding boxes overlap are one (a table with a gap inside a row or column stays whole).
3. A region beside another, at most :data:`MAX_SPACER_COLUMNS` blank columns away, on the same rows and
   without a title of its own, is more columns of it: spacer columns inside one table.
4. A region of one cell directly above another region's columns, at most :data:`TITLE_GAP_ROWS` blank
   rows above it, is that region's title.
5. A region at most :data:`CONTINUATION_GAP_ROWS` blank rows below another, within its columns, whose
   first row is not a header (it holds a number), continues the table above: a blank row inside a table.

Regions come in reading order: top to bottom, then left to right. :func:`region_records` writes each as
its title lines, then a GFM table from its header row down; a single-cell first row of a table wider
than one column is always a title, never the header, and a one-column region (a title, a list,
footnotes) is its lines. A sheet with more than
:data:`MAX_REGIONS` regions is scattered cells, not tables: it is written as one table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from readers.core.markup import escape_cell, gfm_table
from readers.office.office_files import HEADER_MIN_SHARE

# Blank rows between a single-cell title and the table below it for the title to still be that table's.
# The corpus's workbooks put a title 0 or 1 rows above its header ("3. Analyses by segment", then a
# blank row, then "In millions of CHF" and the header); 2 blank rows already part unrelated blocks.
TITLE_GAP_ROWS = 1
# Blank rows inside one table: a region this close below another, within its columns, and not starting
# with a header, is more of the same table. One blank row separates groups of rows in the corpus's
# segment analyses; tables stacked on one sheet are 2 or more rows apart or start with a header row.
CONTINUATION_GAP_ROWS = 1
# Regions on one sheet past which the cells are taken as scattered values rather than tables (and the
# quadratic overlap merge is not attempted). The corpus's workbook sheets have 1-15 connected regions
# before joining (the subtable cases 13); a sheet of cells with blanks between all of them would
# otherwise give a region per cell. 1,000 regions are found in 0.1 s.
MAX_REGIONS = 1000

# Blank columns between two boxes of filled cells that may still be spacers inside one table (see
# _join_spaced_columns). The corpus's financial sheets use 1 narrow spacer column between groups of
# figures (a telecom's index, the segment analyses); 3 or more blank columns part tables.
MAX_SPACER_COLUMNS = 2

_NUMBER = re.compile(r"^[-+(]?[$€£¥]?\s*[\d.,]+\s*%?\)?$")


@dataclass(frozen=True, slots=True)
class GridRow:
    """One non-empty row of a sheet at its 0-based row number: cell texts by 0-based column."""

    number: int
    cells: dict[int, str]


@dataclass(frozen=True, slots=True)
class Region:
    """One table of a sheet: its rows (only their cells inside the region) and its bounding box."""

    top: int
    left: int
    bottom: int
    right: int
    rows: tuple[GridRow, ...]


class _Sets:
    """Union-find over region ids."""

    def __init__(self) -> None:
        self.parent: list[int] = []

    def add(self) -> int:
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def find(self, item: int) -> int:
        root = item
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[item] != root:
            self.parent[item], item = root, self.parent[item]
        return root

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _runs(cells: dict[int, str]) -> list[tuple[int, int]]:
    """The row's runs of adjacent filled columns as (first, last)."""
    runs: list[tuple[int, int]] = []
    for col in sorted(cells):
        if runs and runs[-1][1] == col - 1:
            runs[-1] = (runs[-1][0], col)
        else:
            runs.append((col, col))
    return runs


def _components(rows: Sequence[GridRow]) -> list[list[tuple[int, int, int]]]:
    """8-connected regions of filled cells as lists of runs (row number, first column, last column)."""
    sets = _Sets()
    runs: list[tuple[int, int, int]] = []
    previous: list[tuple[int, int, int]] = []  # (first, last, id) of the row above
    previous_number = None
    for row in rows:
        current: list[tuple[int, int, int]] = []
        above = previous if previous_number == row.number - 1 else []
        j = 0
        for first, last in _runs(row.cells):
            rid = sets.add()
            runs.append((row.number, first, last))
            while j < len(above) and above[j][1] < first - 1:
                j += 1
            k = j
            while k < len(above) and above[k][0] <= last + 1:
                sets.union(rid, above[k][2])
                k += 1
            current.append((first, last, rid))
        previous, previous_number = current, row.number
    groups: dict[int, list[tuple[int, int, int]]] = {}
    for rid, run in enumerate(runs):
        groups.setdefault(sets.find(rid), []).append(run)
    return list(groups.values())


@dataclass(slots=True)
class _Box:
    top: int
    left: int
    bottom: int
    right: int
    rows: set[int]  # the row numbers holding its cells
    title: bool = False  # a one-cell region taken as the title of the region below it

    def overlaps(self, other: _Box) -> bool:
        return not (
            self.bottom < other.top
            or other.bottom < self.top
            or self.right < other.left
            or other.right < self.left
        )

    def absorb(self, other: _Box) -> None:
        self.top, self.left = min(self.top, other.top), min(self.left, other.left)
        self.bottom, self.right = max(self.bottom, other.bottom), max(self.right, other.right)
        self.rows |= other.rows


def _merged_boxes(components: list[list[tuple[int, int, int]]]) -> list[_Box]:
    boxes = [
        _Box(
            top=min(r for r, _, _ in runs),
            left=min(f for _, f, _ in runs),
            bottom=max(r for r, _, _ in runs),
            right=max(last for _, _, last in runs),
            rows={r for r, _, _ in runs},
        )
        for runs in components
    ]
    return _merge_overlapping(boxes)


def _merge_overlapping(boxes: list[_Box]) -> list[_Box]:
    """Boxes whose bounding boxes overlap made one, until none overlap. Every cell inside a box's
    bounds is then one of its own cells."""
    merged = True
    while merged:
        merged = False
        out: list[_Box] = []
        for box in sorted(boxes, key=lambda b: (b.top, b.left)):
            for kept in out:
                if kept.overlaps(box):
                    kept.absorb(box)
                    merged = True
                    break
            else:
                out.append(box)
        boxes = out
    return boxes


def _first_wide_row(box: _Box, by_row: dict[int, GridRow]) -> int | None:
    """The first of the box's rows with more than one cell inside it."""
    for n in sorted(box.rows):
        if sum(box.left <= c <= box.right for c in by_row[n].cells) > 1:
            return n
    return None


def _join_spaced_columns(boxes: list[_Box], by_row: dict[int, GridRow]) -> bool:
    """Join each box to the box on its left when the blank columns between them are spacers inside one
    table, not the gap between two tables; True when a box was joined.

    Spacer columns (narrow blank columns between groups of figures) are common in financial sheets. The
    box on the right is taken as more columns of the table on its left when it is at most
    :data:`MAX_SPACER_COLUMNS` away (the nearest box on its left in its rows), has no row the left one lacks,
    starts on the left one's first row or header row (its first row with more than one cell), and has
    no title of its own (a single cell at its left edge above wider rows): two tables side by side,
    each under its own title, stay two, while a column group's heading ("January-June 2022" over its
    columns) does not make a title. Boxes are looked up by the column they end on, so a sheet of many
    boxes costs one pass over them, not a pass per pair.
    """
    titles = [b for b in boxes if b.top == b.bottom and b.left == b.right]
    ending: dict[int, list[_Box]] = {}
    for box in boxes:
        ending.setdefault(box.right, []).append(box)
    joined: set[int] = set()
    for right in sorted(boxes, key=lambda b: b.left):
        if id(right) in joined:
            continue
        near = [
            b
            for col in range(right.left - MAX_SPACER_COLUMNS - 1, right.left)
            for b in ending.get(col, ())
            if b is not right and id(b) not in joined and b.top <= right.bottom and right.top <= b.bottom
        ]
        if not near:
            continue
        left = min(near, key=lambda b: right.left - b.right)
        if sum(b.right == left.right for b in near) > 1:
            continue  # two boxes end in that column beside it: neither is its table alone
        if right.top < left.top or right.bottom > left.bottom or not right.rows <= left.rows:
            continue
        if right.top not in (left.top, _first_wide_row(left, by_row)):
            continue
        first = [c for c in by_row[right.top].cells if right.left <= c <= right.right]
        if first == [right.left] and _first_wide_row(right, by_row) is not None:
            continue  # a title of its own, at its left edge above wider rows
        if _title_above(right, left, titles):
            continue  # a title of its own, a cell apart above it, over its columns only
        ending[left.right].remove(left)
        ending[right.right].remove(right)
        left.absorb(right)
        ending.setdefault(left.right, []).append(left)
        joined.add(id(right))
    boxes[:] = [b for b in boxes if id(b) not in joined]
    return bool(joined)


def _title_above(right: _Box, left: _Box, titles: list[_Box]) -> bool:
    """Whether a one-cell box stands at most :data:`TITLE_GAP_ROWS` blank rows above ``right``, over its
    columns and not over ``left``'s: the title of a table of its own ("Staff by office" over the right-hand
    table, "Sales by region" over the left-hand one)."""
    return any(
        0 < right.top - t.bottom <= TITLE_GAP_ROWS + 1
        and right.left <= t.left <= right.right
        and not left.left <= t.left <= left.right
        for t in titles
    )


def sheet_regions(rows: Sequence[GridRow]) -> list[Region]:
    """A sheet's non-empty rows (in row order) as its tables in reading order."""
    rows = [r for r in rows if r.cells]
    if not rows:
        return []
    components = _components(rows)
    if len(components) > MAX_REGIONS:
        return [_whole(rows)]
    by_row = {r.number: r for r in rows}
    boxes = _merged_boxes(components)
    while _join_spaced_columns(boxes, by_row):
        boxes = _merge_overlapping(boxes)
    boxes.sort(key=lambda b: (b.top, b.left))
    # Titles and continuations: each box joins the group of at most one box above it.
    groups: list[list[_Box]] = []
    owner: dict[int, list[_Box]] = {}
    for index, box in enumerate(boxes):
        host = _host(box, boxes[:index], by_row, owner)
        group = owner[id(host)] if host is not None else []
        if not group:
            groups.append(group)
        group.append(box)
        owner[id(box)] = group
    regions = [_group_region(group, by_row) for group in groups]
    return sorted(regions, key=lambda r: (r.top, r.left))


def _host(
    box: _Box, earlier: list[_Box], by_row: dict[int, GridRow], owner: dict[int, list[_Box]]
) -> _Box | None:
    """The box above whose table ``box`` belongs to (as its title's table or its continuation), or None."""
    for above in reversed(earlier):
        gap = box.top - above.bottom - 1
        if gap < 0 or gap > max(TITLE_GAP_ROWS, CONTINUATION_GAP_ROWS):
            continue
        if above.left > box.right or box.left > above.right:
            continue
        single = above.top == above.bottom and above.left == above.right
        if single and gap <= TITLE_GAP_ROWS and box.left <= above.left <= box.right:
            if not above.title and len(owner[id(above)]) == 1:
                above.title = True
                return above
            continue
        # The first row across the table above's columns: a row split into runs by empty cells is judged
        # whole ("West", empty, "7" starts no new table).
        first = [v for c, v in by_row[box.top].cells.items() if above.left <= c <= above.right]
        within = above.left <= box.left and box.right <= above.right
        if within and gap <= CONTINUATION_GAP_ROWS and any(_NUMBER.match(v.strip()) for v in first):
            return above
    return None


def _group_region(group: list[_Box], by_row: dict[int, GridRow]) -> Region:
    """One table from its boxes: each row's cells inside any of them (boxes never overlap, so a cell is
    in one box of one table), a row split across boxes made whole again."""
    cells: dict[int, dict[int, str]] = {}
    for box in group:
        for number in range(box.top, box.bottom + 1):
            row = by_row.get(number)
            if row is None:
                continue
            inside = {c: v for c, v in row.cells.items() if box.left <= c <= box.right}
            if inside:
                cells.setdefault(number, {}).update(inside)
    return Region(
        top=min(b.top for b in group),
        left=min(b.left for b in group),
        bottom=max(b.bottom for b in group),
        right=max(b.right for b in group),
        rows=tuple(GridRow(n, dict(sorted(cells[n].items()))) for n in sorted(cells)),
    )


def _whole(rows: Sequence[GridRow]) -> Region:
    cols = [c for r in rows for c in r.cells]
    return Region(rows[0].number, min(cols), rows[-1].number, max(cols), tuple(rows))


def region_records(region: Region) -> list[str]:
    """A table's rows as its title lines, then a GFM table: its header row, the ``|---|`` line, one line
    per row below, each cell in its column (columns empty throughout left out).

    The header is the first row at least :data:`HEADER_MIN_SHARE` as full as the widest row, and never
    a single-cell row when the table is wider than one column and has rows below it; the rows above the
    header are the table's title lines. A one-column region (a title, a list, footnotes) is its lines.
    """
    rows = [r for r in region.rows if any(v.strip() for v in r.cells.values())]
    if not rows:
        return []
    widest = max(len(r.cells) for r in rows)
    if widest == 1:
        # One column: a title, a list, footnotes. Its first line is no header for the others.
        return [escape_cell(v) for r in rows for v in r.cells.values()]
    header_at = len(rows) - 1
    for i, row in enumerate(rows):
        title_like = widest > 1 and len(row.cells) == 1 and i < len(rows) - 1
        if len(row.cells) >= HEADER_MIN_SHARE * widest and not title_like:
            header_at = i
            break
    titles = [" | ".join(escape_cell(v) for _, v in sorted(r.cells.items())) for r in rows[:header_at]]
    body = rows[header_at:]
    left = min(c for r in body for c in r.cells)
    right = max(c for r in body for c in r.cells)
    table = gfm_table([[r.cells.get(c, "") for c in range(left, right + 1)] for r in body])
    return [*titles, *table.split("\n")]


def sheet_tables(rows: Sequence[GridRow]) -> list[str]:
    """A sheet's tables as lines, one table after another with a blank line between them."""
    lines: list[str] = []
    for region in sheet_regions(rows):
        records = region_records(region)
        if records:
            lines += ([""] if lines else []) + records
    return lines
