"""The figure regions of a ``FIGURES`` page, found and rendered for OCR without the page's text layer.

A page is ``FIGURES`` (docs/design.md §4, :mod:`quality.verdicts`) when its text is trustworthy and large
images or vector figures carry content besides: its text downstream is the extracted text plus the OCR of
those regions. :func:`figure_regions` finds them with the measures the verdict used (the image placements of
:func:`readers.pdf.page_facts.image_cover`, the figure boxes of
:func:`readers.pdf.vector_paths.drawing_facts`), so the OCR reads what made the page ``FIGURES``;
:func:`render_figures` renders each one, upright as the page is displayed, from a copy of the page whose text
was removed: text that is already in the extracted text (a chart's labels, a caption, body text beside the
figure) must not come back a second time through OCR.

All boxes are in the space of :mod:`readers.pdf.page_facts` (MuPDF's unrotated page space, origin at the crop
box's top left, y down); only reading order and rendering use the page as displayed (its /Rotate).

Calibration was done on the shared corpus's PDFs (every image placement and vector figure of every
page), and checked on the 16 pages its verdicts judge ``FIGURES`` (title-block drawings, boxed text set
as images, TikZ/pgfplots figures, a cover's photo grid); the measurements are in docs/decisions.md,
"PDF readers: calibration notes".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf
from PIL import Image

from readers.core.base import require_readable_file
from readers.core.errors import CorruptDocument, EncryptedDocument, FileUnreadable, LimitExceeded, ReaderError
from readers.core.model import BBox
from readers.pdf.page_facts import image_cover
from readers.pdf.salvage import open_pdf_file
from readers.pdf.vector_paths import drawing_facts

#: An image (or a group of touching images) is a figure region when it covers at least this share of
#: the page: calibrated on the corpus's logos and portraits (0.0106-0.0124) against its smallest images
#: that carry content (0.0198 and up). 1.5% of A4 is an 86 pt (3 cm) square.
IMAGE_MIN_SHARE = 0.015
#: ... and is at least this many points on its shorter side: bullets, icons and decorative bands are
#: skipped. Half an inch; the smallest side of a corpus image that carries content is 60 pt.
IMAGE_MIN_SIDE = 36.0
#: A vector figure box of drawing_facts (already at least FIGURE_MIN_SIDE on both sides) is a region
#: when it covers at least this share of the page: calibrated on the corpus's lone icons and symbols
#: (0.0013-0.0046, skipped) against the smallest figure of a FIGURES page (0.008, kept).
VECTOR_MIN_SHARE = 0.005
#: Each region is rendered this many points wider on every side (within the page): strokes overhang
#: the path boxes by half their width, anti-aliasing by a pixel, and Tesseract reads text that touches
#: the image's edge badly (17 px of white at 300 dpi is enough).
REGION_MARGIN = 4.0
#: Regions nearer to each other than this (points) are merged, as overlapping and nested ones are: their
#: renders (each REGION_MARGIN wider) would overlap, and the same ink would be read twice. It also joins
#: the tiles of an image grid (a cover of 10 photos and pictograms that touch) and the
#: strips of a tiled image into one region before the size test, which each tile alone might fail.
MERGE_GAP = 2 * REGION_MARGIN
#: At most this many regions per page, the largest kept: each is one Tesseract call (0.1-3 s on the
#: corpus). The busiest FIGURES page of the corpus (a plate of seven small diagrams) has six after
#: merging; a page of dozens of thumbnails is read by its largest eight.
MAX_REGIONS = 8
#: Two regions are on one row of the reading order when their vertical overlap is at least this share
#: of the shorter one: three diagrams side by side whose tops differ (64, 78, 92 pt) are
#: read left to right, not by their tops.
ROW_OVERLAP = 0.5


@dataclass(frozen=True, slots=True)
class FigureRegion:
    """A region of a page to read by OCR: an image (or touching images) or a vector figure."""

    bbox: BBox  # unrotated page space in points, as readers.pdf.page_facts and PageFacts measure
    source: str  # "image" or "vector": of the largest box merged into it
    share: float  # bbox area over the page (crop box) area, 0-1


@dataclass(frozen=True, slots=True)
class FigureImage:
    """One region rendered for OCR: grey, without the page's text layer, upright as displayed."""

    region: FigureRegion
    image: Image.Image  # mode "L", rendered at the dpi asked for


@dataclass(slots=True)
class _FigureBox:
    x0: float
    y0: float
    x1: float
    y1: float
    source: str
    largest: float  # area of the largest box merged into this one: it names the source

    @property
    def area(self) -> float:
        return (self.x1 - self.x0) * (self.y1 - self.y0)


def figure_regions(page: pymupdf.Page) -> list[FigureRegion]:
    """The figure regions of ``page``, in reading order as the page is displayed.

    Image placements (``get_image_info()`` boxes clipped to the page, shadings left out, as
    :func:`~readers.pdf.page_facts.image_cover` takes them) that overlap or lie within MERGE_GAP of each
    other are grouped first; a group is a region when it passes IMAGE_MIN_SHARE and IMAGE_MIN_SIDE. The
    vector figure boxes of :func:`~readers.pdf.vector_paths.drawing_facts` are regions when they pass
    VECTOR_MIN_SHARE. Then all regions within MERGE_GAP of each other are merged (an image inside a
    figure, a figure drawn over a photo), the MAX_REGIONS largest are kept, and they are ordered top to
    bottom by rows (ROW_OVERLAP), left to right within a row. Costs one ``get_image_info()`` and one
    ``get_cdrawings()`` (a few milliseconds).
    """
    crop = page.cropbox
    width, height = crop.width, crop.height
    area = width * height
    if area <= 0:
        return []
    placements = image_cover(page.get_image_info(), width, height).boxes
    images = _merge([_FigureBox(*box, "image", _box_area(box)) for box in placements])
    boxes = [
        b
        for b in images
        if b.area >= IMAGE_MIN_SHARE * area and min(b.x1 - b.x0, b.y1 - b.y0) >= IMAGE_MIN_SIDE
    ]
    for box in drawing_facts(page.get_cdrawings(), width, height).figure_boxes:
        if _box_area(box) >= VECTOR_MIN_SHARE * area:
            boxes.append(_FigureBox(*box, "vector", _box_area(box)))
    merged = sorted(_merge(boxes), key=lambda b: -b.area)[:MAX_REGIONS]
    regions = [
        FigureRegion((b.x0, b.y0, b.x1, b.y1), b.source, round(min(1.0, b.area / area), 4)) for b in merged
    ]
    return _reading_order(regions, page.rotation_matrix)


def render_figures(path: Path, page_number: int, dpi: int = 300) -> list[FigureImage]:
    """The figure regions of page ``page_number`` (1-based) of the PDF at ``path``, rendered for OCR.

    The page's text is removed first (a redaction over the whole page that removes text and leaves
    images and vector graphics alone), on the document as opened in memory: it is closed without saving,
    so the file is never written. Each region is then rendered with REGION_MARGIN around it (within the
    page), at ``dpi``, in 8-bit grey without alpha, annotations left out (they are not the page's
    content), upright as the page is displayed. A page without regions gives an empty list.

    Errors are the project's: a file that cannot be read is FileUnreadable, one MuPDF cannot open or
    fails on is CorruptDocument, an encrypted one that the empty password does not open is
    EncryptedDocument, a page number out of range is ReaderError (reason ``no_such_page``).
    """
    path = Path(path)
    require_readable_file(path)
    try:
        doc = open_pdf_file(path)
    except pymupdf.FileDataError as exc:  # EmptyFileError is one too
        raise CorruptDocument(f"{path.name}: not a readable PDF: {exc}") from exc
    except (OSError, pymupdf.FileNotFoundError) as exc:  # gone since it was checked
        raise FileUnreadable(f"{path}: cannot be read: {exc}") from exc
    except MemoryError as exc:
        raise LimitExceeded(f"{path.name}: out of memory while opening") from exc
    except Exception as exc:  # a library error not foreseen: still the document's
        raise CorruptDocument(f"{path.name}: PyMuPDF failed to open it: {exc}") from exc
    with doc:
        if doc.needs_pass and not doc.authenticate(""):
            raise EncryptedDocument(f"{path.name}: encrypted, and the empty user password does not open it")
        if not 1 <= page_number <= doc.page_count:
            raise ReaderError(
                f"{path.name}: no page {page_number} (the document has {doc.page_count})",
                reason="no_such_page",
            )
        try:
            return _render_page(doc.load_page(page_number - 1), dpi)
        except ReaderError:
            raise
        except MemoryError as exc:
            raise LimitExceeded(f"{path.name}: out of memory rendering page {page_number}") from exc
        except Exception as exc:  # MuPDF failed on this page's content
            raise CorruptDocument(f"{path.name}: PyMuPDF failed on page {page_number}: {exc}") from exc


def _render_page(page: pymupdf.Page, dpi: int) -> list[FigureImage]:
    regions = figure_regions(page)  # before the text goes: the boxes are the page's own
    if not regions:
        return []
    crop = page.cropbox
    whole = pymupdf.Rect(0, 0, crop.width, crop.height)  # unrotated: annotations are placed unrotated
    page.add_redact_annot(whole, fill=False, cross_out=False)
    page.apply_redactions(
        images=pymupdf.PDF_REDACT_IMAGE_NONE,
        graphics=pymupdf.PDF_REDACT_LINE_ART_NONE,
        text=pymupdf.PDF_REDACT_TEXT_REMOVE,
    )
    display = page.get_displaylist(annots=False)  # interpreted once for every region
    zoom = pymupdf.Matrix(dpi / 72, dpi / 72)
    shown = page.rotation_matrix  # unrotated page space -> the page as displayed
    out: list[FigureImage] = []
    for region in regions:
        x0, y0, x1, y1 = region.bbox
        clip = (
            pymupdf.Rect(x0 - REGION_MARGIN, y0 - REGION_MARGIN, x1 + REGION_MARGIN, y1 + REGION_MARGIN)
            & whole
        ) * shown
        pix = display.get_pixmap(matrix=zoom, colorspace=pymupdf.csGRAY, alpha=False, clip=clip)
        image = Image.frombytes("L", (pix.width, pix.height), pix.samples, "raw", "L", pix.stride)
        out.append(FigureImage(region, image))
    return out


def _box_area(box: BBox) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def _merge(boxes: list[_FigureBox]) -> list[_FigureBox]:
    """Boxes within MERGE_GAP of each other (overlapping, nested, touching) replaced by their union,
    until no two are that near: a union can reach boxes that neither part reached."""
    boxes = list(boxes)
    merged = True
    while merged:
        merged = False
        out: list[_FigureBox] = []
        for box in boxes:
            for other in out:
                if (
                    box.x0 <= other.x1 + MERGE_GAP
                    and other.x0 <= box.x1 + MERGE_GAP
                    and box.y0 <= other.y1 + MERGE_GAP
                    and other.y0 <= box.y1 + MERGE_GAP
                ):
                    if box.largest > other.largest:
                        other.source, other.largest = box.source, box.largest
                    other.x0, other.y0 = min(other.x0, box.x0), min(other.y0, box.y0)
                    other.x1, other.y1 = max(other.x1, box.x1), max(other.y1, box.y1)
                    merged = True
                    break
            else:
                out.append(_FigureBox(box.x0, box.y0, box.x1, box.y1, box.source, box.largest))
        boxes = out
    return boxes


def _reading_order(regions: list[FigureRegion], shown: pymupdf.Matrix) -> list[FigureRegion]:
    """Top to bottom by rows, left to right within a row, as the page is displayed (``shown`` maps
    unrotated page space to it): deterministic, so the transcription is too."""
    placed = sorted(((pymupdf.Rect(r.bbox) * shown, r) for r in regions), key=lambda p: (p[0].y0, p[0].x0))
    rows: list[list[tuple[pymupdf.Rect, FigureRegion]]] = []
    for rect, region in placed:
        if rows:
            top = min(r.y0 for r, _ in rows[-1])
            bottom = max(r.y1 for r, _ in rows[-1])
            shorter = min(rect.height, min(r.height for r, _ in rows[-1]))
            if min(bottom, rect.y1) - max(top, rect.y0) >= ROW_OVERLAP * shorter:
                rows[-1].append((rect, region))
                continue
        rows.append([(rect, region)])
    return [region for row in rows for _, region in sorted(row, key=lambda p: (p[0].x0, p[0].y0))]


__all__ = ["FigureImage", "FigureRegion", "figure_regions", "render_figures"]
