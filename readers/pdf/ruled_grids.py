"""The grids of a PDF page's ruling lines: its drawn segments snapped, joined and intersected into the
smallest cells, and the cells connected into grids (the ruled table finder's first half,
:mod:`readers.pdf.ruled_tables`).

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from readers.pdf.placed_tables import PlacedTable

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
#: times the stack's median rule spacing: a footer's rule under a table with open sides (calibrated on a
#: spreadsheet print whose footer rule stands 9.1 row heights below the last row).
OPEN_SIDE_END_GAP_SHARE = 2.0
#: Bounds that keep a pathological page (a map, graph paper, a hatched chart) from costing more than a
#: few pages of text: beyond them the page is read as flow text. The corpus's busiest table page has
#: 18 x 28 rules and 358 intersections (a sideways statistics table); a dense
#: spreadsheet print of 80 rows by 30 columns would have ~2500.
MAX_EDGES_PER_AXIS = 1000
MAX_INTERSECTIONS = 6000
#: A grid holding this many curves or slanted lines (away from its border) is a figure: calibrated on
#: the corpus's chart axes (18-25) and thesis diagrams (3-171) against its real tables (0). Rounded
#: corners lie within the margin.
TABLE_MAX_FIGURE_MARKS = 3
FIGURE_MARGIN = 6.0
_position = operator.itemgetter(0)  # of a raw segment (see _RawEdge)
_start = operator.itemgetter(1)


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

    Many generators (a Korean brochure's, booktabs, Word's
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
    statements of a Japanese annual report: the rules break at the yen-sign and amount columns); the "lines"
    strategy then sees one column. A rule of the run may also end at that x (a header rule over the
    amounts only); a rule crossing it unbroken ends the run. Where a vertical line is drawn at that x
    over part of the run, the producer draws its column borders, and the rows it leaves open are cells
    spanning them (a section title over a ruled form): nothing is added.
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
    the stack (a header's box) leaves the rest open; the one undrawn gap between two closed tables
    stacked one above the other is no run."""
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
    (two such tables side by side, on the tables set), which give the "lines" strategy one column."""
    stacks: list[list[_Edge]] = []
    for group in _equal_rules(hs):
        x0, x1 = group[0].start + SNAP_TOLERANCE, group[0].end - SNAP_TOLERANCE
        y0, y1 = min(e.pos for e in group), max(e.pos for e in group)
        crossed = any(x0 < v[0] < x1 and v[1] < y1 and v[2] > y0 for v in verticals)
        covered = any(t.bbox[0] < x1 and t.bbox[2] > x0 and t.bbox[1] < y1 and t.bbox[3] > y0 for t in tables)
        if not crossed and not covered:
            stacks.append(sorted(group, key=lambda e: e.pos))
    return stacks


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
