"""What a PDF page shows besides its text layer: image cover, invisible text and OCR-layer fonts (and,
in :mod:`readers.pdf.vector_paths`, vector figures and text drawn as outlines; in
:mod:`readers.pdf.unreported_ink`, on request, ink that nothing on the page reports); and the text each
font draws on a page, for the verdict stage's font repair.

The PyMuPDF reader (:mod:`readers.pdf.mupdf`) calls the cheap collectors on every page with what it
has already extracted (the ``dict`` spans, ``get_image_info()``, ``get_cdrawings()``), so they cost no
second pass over the page.

All boxes are in MuPDF's page space: unrotated, origin at the crop box's top left, y down (the ``dict``
spans, ``get_image_info()``, ``get_cdrawings()`` and ``get_texttrace()`` all use it). The page area is
the crop box's; the page's /Rotate does not change it.

Calibration (the thresholds below name theirs) was done on the shared corpus: the born-digital PDFs
(LaTeX, Word, Excel prints, a TikZ-heavy thesis, an IEEE paper with charts, a design-heavy annual
report), the scans, the OCR sandwiches and a PDF with no fonts at all (cairo drew every glyph as a
filled path). ``tests/test_pdf_facts.py::test_corpus_facts_table`` prints the table; the measurements
are in docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf

from readers.core.errors import EncryptedDocument
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
    among the images (a cairo drawing's gradients, TikZ shadings): they are not images and do
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
#: on white is the common case (a production stamp in white on every page of a government
#: register). Dark text on a dark fill is not looked for (it would need
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
#: GlyphLessFont, OCRmyPDF 16's Occulta, Adobe Acrobat's
#: HiddenHorzOCR / HiddenVertOCR. ABBYY, iText and scanner software (the corpus's other three OCR
#: layers) use ordinary fonts in render mode 3: those are caught by the invisible share instead.
OCR_FONT = re.compile(r"glyph\s*-?less|occulta|hidden(?:horz|vert)?ocr", re.IGNORECASE)


def ocr_font_hint(font_names: Iterable[str]) -> bool:
    """Whether a font name is one that OCR engines use for their invisible text layer."""
    return any(OCR_FONT.search(name) for name in font_names)


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
