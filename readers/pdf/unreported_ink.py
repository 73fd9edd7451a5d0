"""Ink on a PDF page that nothing on it reports: the page rendered in grey, the boxes of its spans,
images and drawn paths masked out, and the largest region of ink left, as a share of the page. It
renders the page (~10-50 ms), so it is not run while reading: the verdict stage asks
:func:`measure_unreported_ink` for the pages that failed its cheap gate (docs/design.md §4). The corpus
measurements behind its join are in docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf

from readers.core.errors import EncryptedDocument
from readers.core.model import PageFacts
from readers.pdf.page_facts import fill_luminance
from readers.pdf.salvage import open_pdf_file
from readers.pdf.vector_paths import Regions, drawing_facts

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
#: px at 72 dpi), and a speck becomes a 5x5 region (0.00005 of A4). Calibrated on the corpus's pages
#: (0-0.0006 without outlined text, 0.0014-0.0049 with it): a gate at ~0.001 separates "blank" from "ink
#: that needs OCR". Known false source: pattern fills (hatching) outside any detected figure.
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
