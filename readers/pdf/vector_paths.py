"""What a PDF page's vector paths amount to: furniture (rules, frames, panels) set aside, figure clusters,
and text drawn as outlines (glyph-like paths standing on baselines); and the connected regions of a
boolean grid that the figure clusters and the unreported ink are found with. Called by the PyMuPDF
reader on every page with its ``get_cdrawings()`` (the page facts: :mod:`readers.pdf.page_facts`).

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from readers.pdf.page_facts import BBox, clip_box, union_area

# --- vector paths: furniture, figures, text drawn as outlines ---------------------------------------

#: A segment whose ends differ by no more than this in x (or y) is vertical (horizontal); a segment
#: off both axes by more is diagonal (as in readers.pdf.ruled_grids).
AXIS_TOLERANCE = 1.0
#: Paths no larger than this on both sides are dots (specks, dotted leaders, the i's dot): ignored.
DOT_MAX = 1.0
#: A path no thicker than this is a rule, underline, hairline, axis or table border: furniture, curved
#: or not (a wavy underline, a brace). The corpus's rules are 0.4-1.5 pt (readers.pdf.ruled_grids).
RULE_MAX_THICKNESS = 3.0
#: A path without curves or diagonals whose box covers at least this share of the page is a frame, a
#: panel or a background (a drawing standard's page frames, an annual report's pale sidebar, a chart's
#: plot background): furniture, which would otherwise join everything
#: drawn on it into one "figure". 5% of A4 is a 160 pt square; a chart's bars and legend swatches, a
#: table's shaded cells stay well under it.
PANEL_MIN_SHARE = 0.05
#: A curve whose two ends lie within this share of the box's smaller side from one corner (and within
#: ROUNDED_CORNER_MAX points) rounds that corner: a path of such curves and straight axis-aligned lines
#: is a rounded box, not a figure. A circle's arcs end mid-side (0.5 of the side) and stay figures.
ROUNDED_CORNER_SHARE = 0.45
ROUNDED_CORNER_MAX = 24.0
#: Paths nearer to each other than this (points) belong to one figure cluster. Chart parts touch or
#: nearly (bars, their outlines, markers on a curve); 6 pt keeps two figures a column gap apart
#: (12-24 pt in two-column layouts) separate. Clustering is done on a grid of CLUSTER_GRID points, so
#: paths up to ~CLUSTER_GAP + CLUSTER_GRID apart may join.
CLUSTER_GAP = 6.0
CLUSTER_GRID = 3.0
#: A cluster is a figure when it holds a curve or a diagonal (a "mark"), its box is at least
#: FIGURE_MIN_SIDE on both sides and its marks span at least FIGURE_MIN_MARK_SPAN on their longer side:
#: icons, bullets, arrows in the text and stray glyph fragments (10-20 pt) stay out, a chart (100+ pt)
#: or a diagram does not. A cluster of straight lines and boxes alone (a bar chart, a form) is not a
#: figure: the rule keeps tables, forms and boxed text out, at the price of bar charts.
FIGURE_MIN_SIDE = 24.0
FIGURE_MIN_MARK_SPAN = 24.0
#: Glyph-like paths: filled only (no stroke), GLYPH_MIN_HEIGHT-GLYPH_MAX_HEIGHT points tall and at most
#: GLYPH_MAX_ASPECT times as wide as tall (a ligature or a "W"; a whole word drawn as one path is wider
#: and is not counted). A cairo drawing's glyphs on the corpus are 4-23 pt tall, 0.1-1.4 times as wide.
GLYPH_MIN_HEIGHT = 3.0
GLYPH_MAX_HEIGHT = 48.0
GLYPH_MAX_ASPECT = 2.0
#: Glyph-like paths are text when at least OUTLINE_MIN_RUN of them stand on one baseline (bottoms within
#: BASELINE_TOLERANCE points), each within OUTLINE_MAX_GAP times its height of the previous one, in at
#: least two different shapes (a row of identical markers is not a word) and with at least
#: OUTLINE_MIN_MARKED_SHARE of them curved or diagonal (a row of bars or cells is not a word either).
#: Glyphs with descenders (p, g, y, commas) join the run they hang from; dots (periods, the i's dot,
#: under GLYPH_MIN_HEIGHT) and glyphs on no baseline (rotated text) are not counted, so the count is a
#: lower bound (on a page whose text is all outlines: 112 of its 125 filled paths).
OUTLINE_MIN_RUN = 3
BASELINE_TOLERANCE = 1.0
OUTLINE_MAX_GAP = 1.0
OUTLINE_MIN_MARKED_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class DrawingFacts:
    """What a page's vector paths amount to."""

    vector_figure_area: float = 0.0  # share of the page covered by figure clusters (their boxes' union)
    outline_text_paths: int = 0  # glyph-like filled paths standing on baselines: text drawn as outlines
    figure_boxes: tuple[BBox, ...] = ()
    glyph_paths: frozenset[int] = frozenset()  # indexes into the paths of the glyph-like ones


@dataclass(slots=True)
class _Path:
    index: int
    x0: float
    y0: float
    x1: float
    y1: float
    marked: bool  # holds a curve (not a rounded corner) or a diagonal segment


def drawing_facts(paths: Sequence[dict[str, Any]], width: float, height: float) -> DrawingFacts:
    """Figures and outline text among ``get_cdrawings()`` paths, after dropping furniture.

    Cheap where it matters: a page with no curve or diagonal outside furniture (prose, tables, forms)
    pays one pass over the path items (~0.2 ms for the corpus's average of 70 paths and 340 items);
    the clustering runs only when there is a candidate figure.
    """
    area = width * height
    if not paths or area <= 0:
        return DrawingFacts()
    kept: list[_Path] = []
    glyph_like: list[_Path] = []
    shapes: dict[int, tuple[int, int, int]] = {}
    for index, path in enumerate(paths):
        x0, y0, x1, y1 = path["rect"]
        w, h = x1 - x0, y1 - y0
        if (w <= DOT_MAX and h <= DOT_MAX) or x1 < 0 or y1 < 0 or x0 > width or y0 > height:
            continue  # a dot, or off the page (the other half of a spread, bleed)
        glyph = (
            path.get("type") == "f"
            and GLYPH_MIN_HEIGHT <= h <= GLYPH_MAX_HEIGHT
            and w <= GLYPH_MAX_ASPECT * h
        )
        thin = min(w, h) <= RULE_MAX_THICKNESS
        if thin and not glyph:
            continue  # rules, underlines, borders: most paths of a text page, not even looked into
        items = path["items"]
        marked = _is_marked(items, x0, y0, x1, y1)
        if glyph:
            glyph_like.append(_Path(index, x0, y0, x1, y1, marked))
            shapes[index] = (round(w), round(h), len(items))
        if thin:
            continue
        if not marked and w * h >= PANEL_MIN_SHARE * area:
            continue
        kept.append(_Path(index, max(x0, 0.0), max(y0, 0.0), min(x1, width), min(y1, height), marked))
    glyphs = _outline_glyphs(glyph_like, shapes) if len(glyph_like) >= OUTLINE_MIN_RUN else set()
    if glyphs:
        kept = [p for p in kept if p.index not in glyphs]
    marks = [p for p in kept if p.marked]
    # a cheap gate: no figure unless the marks, all together, span FIGURE_MIN_MARK_SPAN
    figures = (
        _figure_boxes(kept, width, height)
        if marks
        and max(
            max(p.x1 for p in marks) - min(p.x0 for p in marks),
            max(p.y1 for p in marks) - min(p.y0 for p in marks),
        )
        >= FIGURE_MIN_MARK_SPAN
        else []
    )
    return DrawingFacts(
        vector_figure_area=min(1.0, union_area(figures, width, height) / area),
        outline_text_paths=len(glyphs),
        figure_boxes=tuple(figures),
        glyph_paths=frozenset(glyphs),
    )


def _is_marked(items: Sequence[tuple[Any, ...]], x0: float, y0: float, x1: float, y1: float) -> bool:
    """A path holds a diagonal segment, or a curve that does not just round a corner of its box."""
    curves: list[tuple[tuple[float, float], tuple[float, float]]] = []
    for item in items:
        kind = item[0]
        if kind == "l":
            (ax, ay), (bx, by) = item[1], item[2]
            if abs(ax - bx) > AXIS_TOLERANCE and abs(ay - by) > AXIS_TOLERANCE:
                return True
        elif kind == "c":
            curves.append((item[1], item[4]))
        elif kind == "qu":
            (ulx, uly), (urx, ury), (llx, lly), (lrx, lry) = item[1]
            if max(abs(uly - ury), abs(lly - lry), abs(ulx - llx), abs(urx - lrx)) > AXIS_TOLERANCE:
                return True
    if not curves:
        return False
    reach = min(ROUNDED_CORNER_MAX, ROUNDED_CORNER_SHARE * min(x1 - x0, y1 - y0))
    for (ax, ay), (bx, by) in curves:
        cx = x0 if min(ax, bx) - x0 <= x1 - max(ax, bx) else x1
        cy = y0 if min(ay, by) - y0 <= y1 - max(ay, by) else y1
        if max(abs(ax - cx), abs(bx - cx), abs(ay - cy), abs(by - cy)) > reach:
            return True
    return False


def _outline_glyphs(candidates: list[_Path], shapes: dict[int, tuple[int, int, int]]) -> set[int]:
    """Indexes of the glyph-like paths that stand in runs on shared baselines (see OUTLINE_MIN_RUN),
    and of those that hang from such a run (descenders: p, g, y, commas) within its extent."""
    found: set[int] = set()
    runs: list[tuple[float, float, float, float]] = []  # x0, x1, top, baseline of every glyph run
    candidates.sort(key=lambda p: p.y1)
    start = 0
    while start < len(candidates):
        end = start + 1
        while end < len(candidates) and candidates[end].y1 - candidates[start].y1 <= BASELINE_TOLERANCE:
            end += 1
        if end - start >= OUTLINE_MIN_RUN:
            line = sorted(candidates[start:end], key=lambda p: p.x0)
            run = [line[0]]
            for path in [*line[1:], None]:
                if path is not None:
                    previous = run[-1]
                    gap = OUTLINE_MAX_GAP * max(path.y1 - path.y0, previous.y1 - previous.y0)
                    if path.x0 - previous.x1 <= gap:
                        run.append(path)
                        continue
                if glyphs := _glyph_run(run, shapes):
                    found |= glyphs
                    runs.append(
                        (run[0].x0, max(p.x1 for p in run), min(p.y0 for p in run), max(p.y1 for p in run))
                    )
                if path is not None:
                    run = [path]
        start = end
    for p in candidates:
        if p.index in found:
            continue
        for x0, x1, top, baseline in runs:
            reach = OUTLINE_MAX_GAP * (baseline - top)
            if (
                top - BASELINE_TOLERANCE <= p.y0 < baseline < p.y1
                and x0 - reach <= p.x0
                and p.x1 <= x1 + reach
            ):
                found.add(p.index)
                break
    return found


def _glyph_run(run: list[_Path], shapes: dict[int, tuple[int, int, int]]) -> set[int]:
    if len(run) < OUTLINE_MIN_RUN or len({shapes[p.index] for p in run}) < 2:
        return set()
    if sum(p.marked for p in run) < OUTLINE_MIN_MARKED_SHARE * len(run):
        return set()
    return {p.index for p in run}


def _figure_boxes(kept: list[_Path], width: float, height: float) -> list[BBox]:
    """The boxes of the clusters of ``kept`` paths that are figures (see FIGURE_MIN_SIDE).

    Paths are painted, widened by half of CLUSTER_GAP, onto a grid covering only the kept paths'
    extent; the grid's 8-connected regions are the clusters, and each path joins the region under its
    centre (always painted, since its own box was).
    """
    half = CLUSTER_GAP / 2
    left, top = min(p.x0 for p in kept) - half, min(p.y0 for p in kept) - half
    rows = int((max(p.y1 for p in kept) + half - top) / CLUSTER_GRID) + 1
    cols = int((max(p.x1 for p in kept) + half - left) / CLUSTER_GRID) + 1
    grid = np.zeros((rows, cols), dtype=bool)
    cells: list[tuple[int, int]] = []
    for p in kept:
        r0, c0 = int((p.y0 - half - top) / CLUSTER_GRID), int((p.x0 - half - left) / CLUSTER_GRID)
        r1, c1 = int((p.y1 + half - top) / CLUSTER_GRID) + 1, int((p.x1 + half - left) / CLUSTER_GRID) + 1
        grid[r0:r1, c0:c1] = True
        cells.append(((r0 + r1) // 2, (c0 + c1) // 2))
    regions = Regions(grid)
    clusters: dict[int, list[_Path]] = {}
    for p, (row, col) in zip(kept, cells, strict=True):
        label = regions.label_at(row, col)
        if label >= 0:
            clusters.setdefault(label, []).append(p)
    boxes: list[BBox] = []
    for members in clusters.values():
        marks = [p for p in members if p.marked]
        if not marks:
            continue
        mark_span = max(
            max(p.x1 for p in marks) - min(p.x0 for p in marks),
            max(p.y1 for p in marks) - min(p.y0 for p in marks),
        )
        box = clip_box(
            (
                min(p.x0 for p in members),
                min(p.y0 for p in members),
                max(p.x1 for p in members),
                max(p.y1 for p in members),
            ),
            width,
            height,
        )
        if (
            box is not None
            and mark_span >= FIGURE_MIN_MARK_SPAN
            and box[2] - box[0] >= FIGURE_MIN_SIDE
            and box[3] - box[1] >= FIGURE_MIN_SIDE
        ):
            boxes.append(box)
    return boxes


# --- connected regions of a boolean grid ------------------------------------------------------------


class Regions:
    """8-connected regions of a boolean grid, by union-find on the runs of each row (numpy only).

    The runs are found in one vectorised pass; only the runs (not the pixels) go through Python, so a
    page rendered at 72 dpi costs a few milliseconds even when it is full of text.
    """

    def __init__(self, grid: np.ndarray) -> None:
        rows, cols = grid.shape
        padded = np.zeros((rows, cols + 2), dtype=np.int8)
        padded[:, 1:-1] = grid
        steps = np.diff(padded, axis=1).ravel()
        changes = np.flatnonzero(steps)  # row-major: every run's start is followed by its end
        starts, ends = changes[0::2], changes[1::2]
        run_rows = starts // (cols + 1)
        self.rows = run_rows.tolist()
        self.starts = (starts - run_rows * (cols + 1)).tolist()
        self.ends = (ends - run_rows * (cols + 1)).tolist()  # exclusive
        count = len(self.rows)
        parent = list(range(count))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        # first run of every row, to walk the previous row's runs alongside the current row's
        self.row_first = (
            np.searchsorted(run_rows, np.arange(rows + 1)).tolist() if count else [0] * (rows + 1)
        )
        first = self.row_first
        for row in range(1, rows):
            a, a_end = first[row - 1], first[row]
            b, b_end = first[row], first[row + 1]
            while a < a_end and b < b_end:
                # 8-connected: the runs touch when they overlap or meet at a corner
                if self.starts[a] <= self.ends[b] and self.starts[b] <= self.ends[a]:
                    ra, rb = find(a), find(b)
                    if ra != rb:
                        parent[rb] = ra
                if self.ends[a] < self.ends[b]:
                    a += 1
                else:
                    b += 1
        self.labels = [find(i) for i in range(count)]

    def label_at(self, row: int, col: int) -> int:
        """The region holding cell (row, col), or -1 when the cell is not set."""
        lo, hi = self.row_first[row], self.row_first[row + 1]
        i = bisect.bisect_right(self.starts, col, lo, hi) - 1
        return self.labels[i] if i >= lo and col < self.ends[i] else -1

    def largest_area(self) -> int:
        """Cells in the largest region (0 when the grid is empty)."""
        sizes: dict[int, int] = {}
        for label, start, end in zip(self.labels, self.starts, self.ends, strict=True):
            sizes[label] = sizes.get(label, 0) + end - start
        return max(sizes.values(), default=0)
