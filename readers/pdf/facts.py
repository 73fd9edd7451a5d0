"""What a PDF page shows besides its text layer: image cover, vector figures, text drawn as outlines,
invisible text, and (only on request) ink that nothing on the page reports.

The PyMuPDF reader (:mod:`readers.pdf.mupdf`) calls the cheap collectors on every page with what it
has already extracted (the ``dict`` spans, ``get_image_info()``, ``get_cdrawings()``), so they cost no
second pass over the page. :func:`unreported_ink_share` renders the page and costs ~10-50 ms, so it is
not run while reading: the verdict stage asks :func:`measure_unreported_ink` for the pages that failed
its cheap gate (DESIGN §4).

All boxes are in MuPDF's page space: unrotated, origin at the crop box's top left, y down (the ``dict``
spans, ``get_image_info()``, ``get_cdrawings()`` and ``get_texttrace()`` all use it). The page area is
the crop box's; the page's /Rotate does not change it.

Calibration (the thresholds below name theirs) was done on the shared corpus: the born-digital PDFs
(LaTeX, Word, Excel prints, a TikZ-heavy thesis, an IEEE paper with charts, a design-heavy annual
report), the scans, the OCR sandwiches and ``ocrmypdf__vector.pdf`` (no fonts at all: cairo drew every
glyph as a filled path). ``tests/test_pdf_facts.py::test_corpus_facts_table`` prints the table.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf

from readers.core.errors import EncryptedDocument
from readers.core.model import PageFacts
from readers.pdf.salvage import open_pdf_file

BBox = tuple[float, float, float, float]

# --- images -----------------------------------------------------------------------------------------

#: Up to this many placements the union is exact (coordinate compression: a (2n)x(2n) grid of cells);
#: more (tiled scans, sprite sheets) are rasterised on a grid of IMAGE_GRID points, which keeps a page of
#: thousands of tiles to one page-sized boolean array. The corpus's busiest page places 12 images.
IMAGE_EXACT_MAX = 64
IMAGE_GRID = 1.0


@dataclass(frozen=True, slots=True)
class ImageCover:
    """Where a page draws images: the union and the largest placement, as shares of the page area."""

    coverage: float = 0.0
    largest_share: float = 0.0
    boxes: tuple[BBox, ...] = ()


def image_cover(infos: Iterable[dict[str, Any]], width: float, height: float) -> ImageCover:
    """The union (overlaps counted once) and the largest of the image placements, clipped to the page.

    ``infos`` are ``page.get_image_info()`` entries. Entries of size 0 are shadings, which MuPDF lists
    among the images (the gradients of ocrmypdf__vector.pdf, TikZ shadings): they are not images and do
    not count, as in the reader's image count.
    """
    area = width * height
    if area <= 0:
        return ImageCover()
    boxes = [
        clipped
        for info in infos
        if info.get("size", 0) > 0 and (clipped := clip_box(info["bbox"], width, height)) is not None
    ]
    if not boxes:
        return ImageCover()
    largest = max((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes)
    return ImageCover(
        coverage=min(1.0, union_area(boxes, width, height) / area),
        largest_share=min(1.0, largest / area),
        boxes=tuple(boxes),
    )


def clip_box(box: Sequence[float], width: float, height: float) -> BBox | None:
    """``box`` clipped to the page, or None when nothing of it is left on the page."""
    x0, y0, x1, y1 = max(box[0], 0.0), max(box[1], 0.0), min(box[2], width), min(box[3], height)
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def union_area(boxes: Sequence[BBox], width: float, height: float) -> float:
    """The area of the union of boxes already clipped to the page: exact up to IMAGE_EXACT_MAX boxes."""
    if not boxes:
        return 0.0
    if len(boxes) == 1:
        x0, y0, x1, y1 = boxes[0]
        return (x1 - x0) * (y1 - y0)
    if len(boxes) > IMAGE_EXACT_MAX:
        cols, rows = int(np.ceil(width / IMAGE_GRID)), int(np.ceil(height / IMAGE_GRID))
        grid = np.zeros((rows, cols), dtype=bool)
        for x0, y0, x1, y1 in boxes:
            grid[
                int(y0 / IMAGE_GRID) : int(np.ceil(y1 / IMAGE_GRID)),
                int(x0 / IMAGE_GRID) : int(np.ceil(x1 / IMAGE_GRID)),
            ] = True
        return min(float(grid.sum()) * IMAGE_GRID * IMAGE_GRID, width * height)
    xs = sorted({b[0] for b in boxes} | {b[2] for b in boxes})
    ys = sorted({b[1] for b in boxes} | {b[3] for b in boxes})
    x_at = {x: i for i, x in enumerate(xs)}
    y_at = {y: i for i, y in enumerate(ys)}
    covered = np.zeros((len(ys) - 1, len(xs) - 1), dtype=bool)
    for x0, y0, x1, y1 in boxes:
        covered[y_at[y0] : y_at[y1], x_at[x0] : x_at[x1]] = True
    dx, dy = np.diff(np.asarray(xs)), np.diff(np.asarray(ys))
    return float((covered * dy[:, None] * dx[None, :]).sum())


# --- invisible text ---------------------------------------------------------------------------------

#: span["char_flags"] bits (MuPDF's FZ_STEXT_FILLED / FZ_STEXT_STROKED): how the glyphs were painted.
#: Render mode 3 (the OCR layers of the corpus: Tesseract, iText, EPSON Scan, the 1977 Backus scan)
#: sets neither; mode 7 (clip only) sets FILLED but gives alpha 0, like a zero fill opacity.
CHAR_FILLED = 16
CHAR_STROKED = 32
PAINTED = CHAR_FILLED | CHAR_STROKED
#: span["alpha"] (0-255) at or under which a span is invisible: 6% opacity, the same margin as the
#: background-colour test below. MuPDF reports 0 for render modes 3 and 7 and for a zero fill opacity
#: (/ca 0), 255 for ordinary text; no corpus span lies in between.
INVISIBLE_MAX_ALPHA = 15
#: Text set under this size (points) cannot be read on paper: hidden-text tricks use 0.1-1 pt, while a
#: printed spreadsheet's cells are legible at 3.6 pt (the smallest legible text met on the corpora).
INVISIBLE_MAX_SIZE = 3.0
#: Text whose colour is within this luminance of what lies beneath it is invisible. Only text at least
#: this pale (white-ish, luminance >= 1 - margin) is tested: the page itself is white, and white text
#: on white is the common case (the GPO production stamp in white on every page of
#: plumb__federal-register-2020-17221.pdf). Dark text on a dark fill is not looked for (it would need
#: a look-up for every span, not only for the rare pale ones).
BACKGROUND_MARGIN = 0.06
PALE_MIN_LUMINANCE = 1.0 - BACKGROUND_MARGIN
#: A fill at or above this opacity hides what is beneath it; fainter ones are tints, not backgrounds.
FILL_MIN_OPACITY = 0.5


def span_luminance(color: int) -> float:
    """Relative luminance (0 black - 1 white) of a span's sRGB colour, as ``dict`` gives it (0xRRGGBB).

    Rec. 709 weights on the encoded values, without linearising: precise enough for a 0.06 margin.
    """
    return (0.2126 * ((color >> 16) & 255) + 0.7152 * ((color >> 8) & 255) + 0.0722 * (color & 255)) / 255


def fill_luminance(fill: Sequence[float]) -> float:
    """Luminance of a ``get_cdrawings()`` fill colour (MuPDF gives RGB floats; grey and CMYK tolerated)."""
    if len(fill) == 3:
        r, g, b = fill
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    if len(fill) == 4:
        c, m, y, k = fill
        return (1 - k) * (0.2126 * (1 - c) + 0.7152 * (1 - m) + 0.0722 * (1 - y))
    return float(fill[0]) if fill else 0.0


def is_on_own_background(
    box: Sequence[float], luminance: float, image_boxes: Sequence[BBox], paths: Sequence[dict[str, Any]]
) -> bool:
    """Whether pale text at ``box`` is drawn in the colour of what lies beneath its centre.

    The cheap approximation: beneath means "a box that contains the span's centre"; when an image box
    does, the answer is no (what the image shows there is unknown: white text over a photo is usually
    legible); otherwise the background is the last-drawn opaque fill whose box contains the centre, or
    the white page. Fills are compared by their box, not their shape, and drawing order relative to
    the text is ignored, so a coloured shape near the text can make it count as visible: the test errs
    towards "visible".
    """
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for x0, y0, x1, y1 in image_boxes:
        if x0 <= cx <= x1 and y0 <= cy <= y1:
            return False
    background = 1.0
    for path in paths:  # drawing order: the last fill beneath wins
        fill = path.get("fill")
        if fill is None or path.get("fill_opacity", 1.0) < FILL_MIN_OPACITY:
            continue
        x0, y0, x1, y1 = path["rect"]
        if x0 <= cx <= x1 and y0 <= cy <= y1:
            background = fill_luminance(fill)
    return abs(luminance - background) <= BACKGROUND_MARGIN


def chars_outside_crop(page: pymupdf.Page, crop: pymupdf.Rect | None = None) -> int:
    """Non-whitespace characters drawn entirely outside the crop box (0 when nothing is cropped).

    MuPDF's extraction (TEXT_MEDIABOX_CLIP, whose "mediabox" is the crop box) never returns them, so the
    reader's text does not hold them and only ``get_texttrace()``, which is not clipped, can count them.
    It costs ~0.3 ms on the corpus's two cropped pages (~2.3 ms on an average page), so it runs only
    when the crop box is smaller than the media box; text drawn outside the media box of an uncropped
    page is not counted. ``crop`` is the page's crop box where the caller has it already.
    """
    crop, media = page.cropbox if crop is None else crop, page.mediabox
    if crop.width >= media.width - 1.0 and crop.height >= media.height - 1.0:
        return 0
    width, height = crop.width, crop.height
    outside = 0
    for span in page.get_texttrace():
        x0, y0, x1, y1 = span["bbox"]
        if x0 >= 0.0 and y0 >= 0.0 and x1 <= width and y1 <= height:
            continue  # wholly inside: the dict has these characters
        for char in span["chars"]:
            cx0, cy0, cx1, cy1 = char[3]
            if (cx1 < 0.0 or cx0 > width or cy1 < 0.0 or cy0 > height) and not chr(char[0]).isspace():
                outside += 1
    return outside


#: Font names of the invisible text layers OCR engines write: Tesseract's and OCRmyPDF's
#: GlyphLessFont (ocrmypdf__graph_ocred.pdf), OCRmyPDF 16's Occulta, Adobe Acrobat's
#: HiddenHorzOCR / HiddenVertOCR. ABBYY, iText and scanner software (the corpus's other three OCR
#: layers) use ordinary fonts in render mode 3: those are caught by the invisible share instead.
OCR_FONT = re.compile(r"glyph\s*-?less|occulta|hidden(?:horz|vert)?ocr", re.IGNORECASE)


def ocr_font_hint(font_names: Iterable[str]) -> bool:
    """Whether a font name is one that OCR engines use for their invisible text layer."""
    return any(OCR_FONT.search(name) for name in font_names)


# --- vector paths: furniture, figures, text drawn as outlines ---------------------------------------

#: A segment whose ends differ by no more than this in x (or y) is vertical (horizontal); a segment
#: off both axes by more is diagonal (as in readers.pdf.tables).
AXIS_TOLERANCE = 1.0
#: Paths no larger than this on both sides are dots (specks, dotted leaders, the i's dot): ignored.
DOT_MAX = 1.0
#: A path no thicker than this is a rule, underline, hairline, axis or table border: furniture, curved
#: or not (a wavy underline, a brace). The corpus's rules are 0.4-1.5 pt (readers.pdf.tables).
RULE_MAX_THICKNESS = 3.0
#: A path without curves or diagonals whose box covers at least this share of the page is a frame, a
#: panel or a background (the ESKD page frames of deb-ru__eskdx.pdf, the pale sidebar of
#: unst__reliance.pdf p2, a chart's plot background): furniture, which would otherwise join everything
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
#: and is not counted). ocrmypdf__vector.pdf's glyphs are 4-23 pt tall, 0.1-1.4 times as wide.
GLYPH_MIN_HEIGHT = 3.0
GLYPH_MAX_HEIGHT = 48.0
GLYPH_MAX_ASPECT = 2.0
#: Glyph-like paths are text when at least OUTLINE_MIN_RUN of them stand on one baseline (bottoms within
#: BASELINE_TOLERANCE points), each within OUTLINE_MAX_GAP times its height of the previous one, in at
#: least two different shapes (a row of identical markers is not a word) and with at least
#: OUTLINE_MIN_MARKED_SHARE of them curved or diagonal (a row of bars or cells is not a word either).
#: Glyphs with descenders (p, g, y, commas) join the run they hang from; dots (periods, the i's dot,
#: under GLYPH_MIN_HEIGHT) and glyphs on no baseline (rotated text) are not counted, so the count is a
#: lower bound (ocrmypdf__vector.pdf: 125 filled paths, of which the count finds 112).
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


# --- unreported ink (on request) ----------------------------------------------------------------------

#: Rendering resolution: at 72 dpi one pixel is one point; body text still leaves ink (1-2 px strokes).
INK_DPI = 72
#: The background is this percentile of the page's grey values: the paper, even on a page 90% covered
#: by a dark image (a scan's margins are lighter still, and the image is reported anyway).
BACKGROUND_PERCENTILE = 95
#: A pixel darker than the background by more than this (of 255) is ink: the cores of anti-aliased
#: 72-dpi strokes of dark text are well beyond it, while pale tints (table shading, watermarks at
#: 10-15% grey) and the faintest anti-aliasing fringes stay under it.
INK_MARGIN = 48
#: Reported boxes are widened by this many points: glyphs overhang their span box (italics, accents)
#: and anti-aliasing spreads every edge by a pixel.
MASK_MARGIN = 2.0
#: Unreported ink is grown by this many pixels before its regions are labelled, so ink up to twice as
#: far apart is one region: the letters and words of a line of outlined text join (their gaps are 1-4
#: px at 72 dpi), and a speck becomes a 5x5 region (0.00005 of A4). Calibration (largest region share
#: with this join): every born-digital page of the corpus without outlined text or pattern fills, and
#: every scan and OCR sandwich, 0-0.0006; outlined text 0.0016 (the "Smile" logo of
#: tika__testExtraSpaces.pdf), 0.0027 (the logo lettering of unst__reliance.pdf p1), 0.0049
#: (ocrmypdf__vector.pdf); a Type3 font whose glyph boxes are degenerate 0.0014
#: (ocrmypdf__type3_font_nomapping.pdf). Known false source: pattern fills (hatching) outside any
#: detected figure, which MuPDF reports as no path at all (pyp__GeoTopo-komprimiert.pdf p13, p32,
#: p55: 0.003-0.025). A gate at ~0.001 separates "blank" from "ink that needs OCR".
INK_JOIN = 2
#: A fill at least this much darker than white leaves ink where it lies, so its whole box is reported;
#: a lighter fill (a white page background, a pale table shading) leaves none and is not painted, or
#: it would hide whatever is drawn on it.
DARK_FILL_MARGIN = INK_MARGIN / 255


def unreported_ink_share(page: pymupdf.Page, facts: PageFacts | None = None) -> float:
    """Share of the page covered by the largest region of ink that no text, image or drawing reports.

    Renders the page at INK_DPI in grey (annotations left out: they are not the page's text layer),
    takes BACKGROUND_PERCENTILE of the grey values as the background, and calls ink every pixel darker
    than it by more than INK_MARGIN. Every reported thing is painted onto a mask on the same grid: the
    box of every text span (visible or not: an OCR layer reports the text beneath it), of every image
    placement (shadings included), of every dark fill and of every vector figure (its pattern fills draw
    no path), and the outline of every stroked path, all widened by MASK_MARGIN. Glyph-like paths
    (:func:`drawing_facts`) are not reports: they are the ink of text that no text layer holds.
    Returns the area of the largest 8-connected region of the remaining ink (grown by INK_JOIN pixels)
    over the page's pixels; ~10-50 ms per page (15 ms on average over the corpus).

    ``facts``, when given, short-cuts pages an image covers entirely (nothing can be unreported there).
    """
    if facts is not None and facts.image_coverage >= 1.0:
        return 0.0
    pixmap = page.get_pixmap(dpi=INK_DPI, colorspace=pymupdf.csGRAY, alpha=False, annots=False)
    rows, cols = pixmap.height, pixmap.width
    if rows == 0 or cols == 0:
        return 0.0
    grey = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(rows, pixmap.stride)[:, :cols]
    background = float(np.percentile(grey, BACKGROUND_PERCENTILE))
    ink = grey < background - INK_MARGIN
    if not ink.any():
        return 0.0
    reported = _reported_mask(page, rows, cols)
    unreported = ink & ~reported
    if not unreported.any():
        return 0.0
    if INK_JOIN:
        unreported = _dilate(unreported, INK_JOIN)
    return Regions(unreported).largest_area() / (rows * cols)


def measure_unreported_ink(path: str | Path, page_numbers: Iterable[int]) -> dict[int, float]:
    """:func:`unreported_ink_share` of the given 1-based pages of the PDF at ``path``.

    For the verdict stage, which asks only for the pages that failed its cheap gate. Page numbers out
    of range are left out; a page MuPDF fails on is left out too (its absence says "not measured").
    An encrypted PDF that the empty password does not open raises EncryptedDocument.
    """
    shares: dict[int, float] = {}
    with open_pdf_file(Path(path)) as doc:
        if doc.needs_pass and not doc.authenticate(""):
            raise EncryptedDocument(
                f"{Path(path).name}: encrypted, and the empty user password does not open it"
            )
        for number in sorted(set(page_numbers)):
            if not 1 <= number <= doc.page_count:
                continue
            try:
                shares[number] = unreported_ink_share(doc.load_page(number - 1))
            except MemoryError:
                raise
            except Exception:  # a page MuPDF cannot render: not measured
                continue
    return shares


def font_texts(path: str | Path, page_number: int) -> dict[str, str]:
    """The text each font draws on the 1-based page ``page_number`` of the PDF at ``path``: font name ->
    its spans' text, one line each, in content order. Empty when the page is out of range or fails.

    For the verdicts stage, which checks a repair font by font where a page's fonts may be garbled
    differently. An encrypted PDF that the empty password does not open raises EncryptedDocument.
    """
    spans: dict[str, list[str]] = {}
    with open_pdf_file(Path(path)) as doc:
        if doc.needs_pass and not doc.authenticate(""):
            raise EncryptedDocument(
                f"{Path(path).name}: encrypted, and the empty user password does not open it"
            )
        if not 1 <= page_number <= doc.page_count:
            return {}
        try:
            blocks = doc.load_page(page_number - 1).get_text("dict", flags=pymupdf.TEXT_PRESERVE_WHITESPACE)
        except MemoryError:
            raise
        except Exception:  # a page MuPDF cannot read: no fonts to check
            return {}
        for block in blocks.get("blocks", ()):
            for line in block.get("lines", ()):
                for span in line.get("spans", ()):
                    spans.setdefault(span["font"], []).append(span["text"])
    return {font: "\n".join(texts) for font, texts in spans.items()}


def _reported_mask(page: pymupdf.Page, rows: int, cols: int) -> np.ndarray:
    """The pixels that text spans, images and drawings account for, on the rendered page's grid."""
    mask = np.zeros((rows, cols), dtype=bool)
    zoom = INK_DPI / 72
    to_pixels = page.rotation_matrix * pymupdf.Matrix(zoom, zoom)  # page space -> rendered pixels
    margin = MASK_MARGIN * zoom

    def paint(box: Sequence[float]) -> None:
        rect = pymupdf.Rect(box) * to_pixels
        r0, c0 = max(0, int(rect.y0 - margin)), max(0, int(rect.x0 - margin))
        r1, c1 = min(rows, int(np.ceil(rect.y1 + margin))), min(cols, int(np.ceil(rect.x1 + margin)))
        if r1 > r0 and c1 > c0:
            mask[r0:r1, c0:c1] = True

    textpage = page.get_textpage(flags=pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP)
    for block in textpage.extractDICT()["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                if span["text"].strip():
                    paint(span["bbox"])
    for info in page.get_image_info():
        paint(info["bbox"])
    paths = page.get_cdrawings()
    rect = page.cropbox
    drawn = drawing_facts(paths, rect.width, rect.height)
    glyphs = drawn.glyph_paths
    for box in drawn.figure_boxes:  # a figure's ink is the figure's (pattern fills draw no paths)
        paint(box)
    strokes: dict[int, list[tuple[float, float, float, float]]] = {}  # reach in pixels -> segments
    for index, path in enumerate(paths):
        if index in glyphs:
            continue
        fill = path.get("fill")
        if fill is not None and fill_luminance(fill) <= 1.0 - DARK_FILL_MARGIN:
            paint(path["rect"])
        if "s" in path.get("type", ""):
            reach = int(np.ceil(margin + (path.get("width") or 0.0) * zoom / 2))
            segments = strokes.setdefault(reach, [])
            for polyline in _outline_polylines(path["items"]):
                segments.extend((*a, *b) for a, b in pairwise(polyline))
    for reach, segments in strokes.items():
        mask |= _dilate(_segment_points(segments, to_pixels, rows, cols), reach)
    return mask


def _outline_polylines(items: Sequence[tuple[Any, ...]]) -> Iterable[list[tuple[float, float]]]:
    """A stroked path's items as polylines in page space (curves flattened into 8 chords)."""
    for item in items:
        kind = item[0]
        if kind == "l":
            yield [tuple(item[1]), tuple(item[2])]
        elif kind == "c":
            yield [_bezier(item[1:5], t / 8) for t in range(9)]
        elif kind == "re":
            x0, y0, x1, y1 = item[1]
            yield [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
        elif kind == "qu":
            ul, ur, ll, lr = (tuple(p) for p in item[1])
            yield [ul, ur, lr, ll, ul]


def _bezier(points: Sequence[Any], t: float) -> tuple[float, float]:
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = points
    u = 1 - t
    a, b, c, d = u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t
    return a * ax + b * bx + c * cx + d * dx, a * ay + b * by + c * cy + d * dy


def _segment_points(
    segments: list[tuple[float, float, float, float]], to_pixels: pymupdf.Matrix, rows: int, cols: int
) -> np.ndarray:
    """The pixels the segments (page space) pass through, sampled once per pixel of length, vectorised."""
    grid = np.zeros((rows, cols), dtype=bool)
    if not segments:
        return grid
    seg = np.asarray(segments, dtype=float)
    m = to_pixels
    ax, ay = m.a * seg[:, 0] + m.c * seg[:, 1] + m.e, m.b * seg[:, 0] + m.d * seg[:, 1] + m.f
    bx, by = m.a * seg[:, 2] + m.c * seg[:, 3] + m.e, m.b * seg[:, 2] + m.d * seg[:, 3] + m.f
    steps = np.ceil(np.maximum(np.abs(bx - ax), np.abs(by - ay))).astype(int) + 1
    which = np.repeat(np.arange(len(seg)), steps + 1)
    first = np.repeat(np.cumsum(steps + 1) - (steps + 1), steps + 1)
    t = (np.arange(len(which)) - first) / np.repeat(steps, steps + 1)
    xs = np.rint(ax[which] + t * (bx - ax)[which]).astype(int)
    ys = np.rint(ay[which] + t * (by - ay)[which]).astype(int)
    keep = (xs >= 0) & (xs < cols) & (ys >= 0) & (ys < rows)
    grid[ys[keep], xs[keep]] = True
    return grid


def _dilate(grid: np.ndarray, reach: int) -> np.ndarray:
    """``grid`` grown by ``reach`` cells in the 8 directions (a square structuring element)."""
    out = grid
    for _ in range(reach):
        tall = out.copy()
        tall[1:, :] |= out[:-1, :]
        tall[:-1, :] |= out[1:, :]
        wide = tall.copy()
        wide[:, 1:] |= tall[:, :-1]
        wide[:, :-1] |= tall[:, 1:]
        out = wide
    return out
