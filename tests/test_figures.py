"""The figure regions of readers.pdf.figure_regions, found and rendered without the text layer, on PDFs
generated here.

Every fixture is written with PyMuPDF (images drawn with PIL) into pytest's ``tmp_path``, so each test says
exactly what the page holds: body text beside and over the figures, so that a render that kept the text
layer would show it. The corpus measurements that calibrated the constants are in docs/decisions.md.
"""

from __future__ import annotations

import hashlib
import io
import math
import shutil
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image, ImageDraw, ImageFont

from readers.core.errors import CorruptDocument, EncryptedDocument, FileUnreadable, ReaderError
from readers.images.tesseract import recognise
from readers.pdf.figure_regions import (
    IMAGE_MIN_SIDE,
    MAX_REGIONS,
    REGION_MARGIN,
    FigureImage,
    figure_regions,
    render_figures,
)

A4 = (595.0, 842.0)
DPI = 150
DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
#: Words drawn into the raster image (only OCR can read them) and words of the page's text layer.
IMAGE_WORDS = "HARBOUR LANTERN"
LAYER_WORDS = "VELVET TRUMPET"
BODY = "The quick brown fox jumps over the lazy dog near the river bank, every single morning."
#: Where the image goes on the generated pages, and where a text-layer label is set over its blank part.
IMAGE_RECT = pymupdf.Rect(100, 200, 500, 400)
LABEL_AT = (140, 380)


def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans where it is installed, else PIL's default font scaled up (FreeType built in)."""
    if DEJAVU.is_file():
        return ImageFont.truetype(str(DEJAVU), size)
    return ImageFont.load_default(size=size)


def png(width: int, height: int, words: str = "", grey: int = 255, size: int = 72) -> bytes:
    """A PNG of ``grey`` background with ``words`` in black near its top."""
    image = Image.new("L", (width, height), grey)
    if words:
        ImageDraw.Draw(image).text((40, 40), words, fill=0, font=font(size))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def save(doc: pymupdf.Document, path: Path) -> Path:
    doc.save(path)
    doc.close()
    return path


def image_page(path: Path, *, rotation: int = 0, crop: pymupdf.Rect | None = None) -> Path:
    """Body text above and below a 400x200 pt image of words, and a text-layer label over its blank half;
    the page turned by ``rotation`` and cropped to ``crop`` when asked."""
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    for y in (80, 100, 120, 460, 480):
        page.insert_text((72, y), BODY, fontname="helv", fontsize=10)
    page.insert_image(IMAGE_RECT, stream=png(1200, 600, IMAGE_WORDS), keep_proportion=False)
    page.insert_text(LABEL_AT, LAYER_WORDS, fontname="helv", fontsize=18)
    if crop is not None:
        page.set_cropbox(crop)
    if rotation:
        page.set_rotation(rotation)
    return save(doc, path)


def chart_page(path: Path) -> Path:
    """A line chart drawn with vector paths (axes, a sine curve, circle markers), labelled with text."""
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_text((72, 80), BODY, fontname="helv", fontsize=10)
    shape = page.new_shape()
    shape.draw_line((100, 500), (480, 500))  # axes: thin, furniture
    shape.draw_line((100, 500), (100, 300))
    shape.finish(color=(0, 0, 0), width=0.8)
    points = [(110 + x * 3.6, 400 - 80 * math.sin(x / 12)) for x in range(101)]
    shape.draw_polyline(points)
    shape.finish(color=(0.8, 0, 0), width=1.5)
    for x, y in points[::20]:
        shape.draw_circle((x, y), 4)
    shape.finish(color=(0, 0, 0.8), fill=(0, 0, 0.8))
    shape.commit()
    page.insert_text((260, 520), "time (days)", fontname="helv", fontsize=10)
    return save(doc, path)


def page_of(path: Path, number: int = 1) -> pymupdf.Page:
    doc = pymupdf.open(path)
    return doc[number - 1]  # the Page keeps its Document alive


def pixels(figure: FigureImage) -> np.ndarray:
    return np.asarray(figure.image, dtype=np.uint8)


def render_box(figure: FigureImage, box: pymupdf.Rect, dpi: int = DPI) -> np.ndarray:
    """The pixels of an unrotated page's ``box`` (page space) in the render of ``figure``."""
    x0, y0 = figure.region.bbox[0] - REGION_MARGIN, figure.region.bbox[1] - REGION_MARGIN
    zoom = dpi / 72
    a = pixels(figure)
    return a[
        int((box.y0 - y0) * zoom) : math.ceil((box.y1 - y0) * zoom),
        int((box.x0 - x0) * zoom) : math.ceil((box.x1 - x0) * zoom),
    ]


# --- regions ----------------------------------------------------------------------------------------


def test_an_image_with_body_text_is_one_image_region(tmp_path: Path) -> None:
    regions = figure_regions(page_of(image_page(tmp_path / "image.pdf")))
    assert len(regions) == 1
    region = regions[0]
    assert region.source == "image"
    assert region.bbox == pytest.approx(tuple(IMAGE_RECT), abs=0.5)
    assert region.share == pytest.approx(IMAGE_RECT.width * IMAGE_RECT.height / (A4[0] * A4[1]), abs=1e-3)


def test_a_vector_chart_is_one_vector_region(tmp_path: Path) -> None:
    regions = figure_regions(page_of(chart_page(tmp_path / "chart.pdf")))
    assert [r.source for r in regions] == ["vector"]
    x0, y0, x1, y1 = regions[0].bbox
    # the curve and its markers (110-470 x 316-484), not the body text above nor the axis label below
    assert 100 <= x0 <= 110 and 300 <= y0 <= 320 and 465 <= x1 <= 485 and 480 <= y1 <= 505
    assert y1 < 510


def test_a_tiny_logo_an_icon_and_a_rule_are_no_regions(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_text((72, 120), BODY, fontname="helv", fontsize=10)
    page.insert_image(pymupdf.Rect(460, 40, 540, 80), stream=png(160, 80, grey=90))  # logo, 0.006 of A4
    page.insert_image(pymupdf.Rect(60, 110, 70, 120), stream=png(20, 20, grey=0))  # bullet
    band = pymupdf.Rect(40, 200, 555, 200 + IMAGE_MIN_SIDE - 14)  # a banner: 0.023 of A4, 22 pt tall
    page.insert_image(band, stream=png(400, 20, grey=120), keep_proportion=False)
    path = save(doc, tmp_path / "logo.pdf")
    assert figure_regions(page_of(path)) == []
    assert render_figures(path, 1, DPI) == []


def test_overlapping_and_nested_images_are_one_region(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_image(pymupdf.Rect(100, 100, 300, 300), stream=png(200, 200, grey=100), keep_proportion=False)
    page.insert_image(pymupdf.Rect(250, 250, 450, 400), stream=png(200, 150, grey=160), keep_proportion=False)
    page.insert_image(pymupdf.Rect(120, 120, 140, 140), stream=png(20, 20, grey=0))  # nested, tiny
    page.insert_image(pymupdf.Rect(100, 600, 300, 750), stream=png(200, 150, grey=60), keep_proportion=False)
    regions = figure_regions(page_of(save(doc, tmp_path / "overlap.pdf")))
    assert [r.bbox for r in regions] == [
        pytest.approx((100, 100, 450, 400), abs=0.5),
        pytest.approx((100, 600, 300, 750), abs=0.5),
    ]


def test_regions_are_in_reading_order_and_at_most_the_largest(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    # a row of three whose tops differ (the right one is the highest), then one below: read as a row
    row = [pymupdf.Rect(60, 120, 200, 260), pymupdf.Rect(230, 100, 370, 250), pymupdf.Rect(400, 80, 540, 240)]
    for rect in [*reversed(row), pymupdf.Rect(60, 320, 300, 460)]:
        page.insert_image(rect, stream=png(100, 100, grey=120), keep_proportion=False)
    regions = figure_regions(page_of(save(doc, tmp_path / "order.pdf")))
    tops = [(round(r.bbox[0]), round(r.bbox[1])) for r in regions]
    assert tops == [(60, 120), (230, 100), (400, 80), (60, 320)]

    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    sides = [90 + 3 * i for i in range(MAX_REGIONS + 2)]  # separated squares, all over the minimum share
    for i, side in enumerate(sides):
        x, y = 40 + (i % 4) * 135, 60 + (i // 4) * 160
        page.insert_image(pymupdf.Rect(x, y, x + side, y + side), stream=png(50, 50, grey=120))
    regions = figure_regions(page_of(save(doc, tmp_path / "many.pdf")))
    assert len(regions) == MAX_REGIONS
    kept = sorted(round(r.bbox[2] - r.bbox[0]) for r in regions)
    assert kept == sorted(sides)[-MAX_REGIONS:]


# --- rendering --------------------------------------------------------------------------------------


def test_the_render_keeps_the_image_and_drops_the_text_layer(tmp_path: Path) -> None:
    path = image_page(tmp_path / "image.pdf")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    [figure] = render_figures(path, 1, DPI)
    assert figure.image.mode == "L"
    margin = 2 * REGION_MARGIN * DPI / 72
    assert figure.image.size == pytest.approx(
        (IMAGE_RECT.width * DPI / 72 + margin, IMAGE_RECT.height * DPI / 72 + margin), abs=2
    )
    # the label set over the image's blank half is gone: white where its glyphs were
    label = page_of(path).search_for(LAYER_WORDS)[0]
    assert render_box(figure, label).min() >= 250
    # ... while the page rendered as it is shows it there (the test is not vacuous)
    shown = page_of(path).get_pixmap(dpi=DPI, colorspace=pymupdf.csGRAY, clip=label)
    assert min(shown.samples) < 100
    # the words drawn into the image are still there: dark ink in its top band
    words = pymupdf.Rect(IMAGE_RECT.x0, IMAGE_RECT.y0, IMAGE_RECT.x1, IMAGE_RECT.y0 + 60)
    assert render_box(figure, words).min() < 60
    # the file was only read
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_a_vector_chart_renders_without_its_labels(tmp_path: Path) -> None:
    path = chart_page(tmp_path / "chart.pdf")
    [figure] = render_figures(path, 1, DPI)
    assert figure.region.source == "vector"
    assert pixels(figure).min() < 100  # the curve and markers
    page = page_of(path)
    body = page.search_for("quick brown fox")[0]
    assert not body.intersects(pymupdf.Rect(figure.region.bbox))


@pytest.mark.parametrize(
    ("rotation", "crop", "ink_side"),
    [(90, None, "right"), (270, pymupdf.Rect(50, 150, 545, 700), "left")],
    ids=["rotate-90", "rotate-270-cropped"],
)
def test_a_rotated_page_renders_upright_as_displayed(
    tmp_path: Path, rotation: int, crop: pymupdf.Rect | None, ink_side: str
) -> None:
    path = image_page(tmp_path / "rotated.pdf", rotation=rotation, crop=crop)
    [figure] = render_figures(path, 1, DPI)
    shift = (crop.x0, crop.y0) * 2 if crop else (0, 0, 0, 0)  # page space starts at the crop box
    expected = tuple(a - b for a, b in zip(IMAGE_RECT, shift, strict=True))
    assert figure.region.bbox == pytest.approx(expected, abs=0.5)  # unrotated page space
    width, height = figure.image.size
    assert height > 1.8 * width  # 400 x 200 pt on the page, turned a quarter as displayed
    # the same region of the page rendered as displayed, clipped by hand
    page = page_of(path)
    x0, y0, x1, y1 = figure.region.bbox
    box = pymupdf.Rect(x0 - REGION_MARGIN, y0 - REGION_MARGIN, x1 + REGION_MARGIN, y1 + REGION_MARGIN)
    pix = page.get_pixmap(dpi=DPI, colorspace=pymupdf.csGRAY, clip=box * page.rotation_matrix)
    shown = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width)
    assert (pix.width, pix.height) == (width, height)
    # where no text layer lies, the two renders agree: the image is upright as displayed
    label = page.search_for(LAYER_WORDS)[0] * page.rotation_matrix
    keep = np.ones_like(shown, dtype=bool)
    zoom, origin = DPI / 72, (box * page.rotation_matrix).tl
    keep[
        int((label.y0 - origin.y) * zoom) - 2 : int((label.y1 - origin.y) * zoom) + 2,
        int((label.x0 - origin.x) * zoom) - 2 : int((label.x1 - origin.x) * zoom) + 2,
    ] = False
    assert not keep.all()
    assert np.abs(shown.astype(int) - pixels(figure).astype(int))[keep].max() <= 8
    assert (shown[~keep] < 100).any() and pixels(figure)[~keep].min() >= 250  # the label: shown, not rendered
    # the image's words (its top band) turn with the page: to the right for 90, to the left for 270
    ink = pixels(figure) < 128
    right, left = ink[:, width // 2 :].sum(), ink[:, : width // 2].sum()
    assert (right > 10 * left) if ink_side == "right" else (left > 10 * right)


# --- errors -----------------------------------------------------------------------------------------


def test_a_page_out_of_range_or_a_broken_file_raises_the_projects_errors(tmp_path: Path) -> None:
    path = image_page(tmp_path / "image.pdf")
    for number in (0, 2):
        with pytest.raises(ReaderError) as info:
            render_figures(path, number)
        assert info.value.reason == "no_such_page"
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n this is not a PDF at all \x00\x01\x02")
    with pytest.raises(CorruptDocument) as corrupt:
        render_figures(broken, 1)
    assert corrupt.value.__cause__ is not None
    with pytest.raises(FileUnreadable):
        render_figures(tmp_path / "gone.pdf", 1)
    doc = pymupdf.open(path)
    doc.save(tmp_path / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u")
    with pytest.raises(EncryptedDocument):
        render_figures(tmp_path / "locked.pdf", 1)
    # encrypted for permissions only: the empty user password opens it, and the text still goes
    doc.save(tmp_path / "owner.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="")
    doc.close()
    [figure] = render_figures(tmp_path / "owner.pdf", 1, DPI)
    assert render_box(figure, page_of(path).search_for(LAYER_WORDS)[0]).min() >= 250


# --- OCR ----------------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed")
def test_ocr_of_a_region_reads_the_image_words_and_not_the_text_layer(tmp_path: Path) -> None:
    path = image_page(tmp_path / "image.pdf")
    [figure] = render_figures(path, 1, 300)
    result = recognise(figure.image, "eng", dpi=300, rotate=False)
    words = set(result.text.upper().split())
    assert set(IMAGE_WORDS.split()) <= words, result.text
    assert not set(LAYER_WORDS.split()) & words, result.text
    assert not {"QUICK", "BROWN", "FOX"} & words, result.text
    # the same region rendered as the page is shows the label, and Tesseract reads it there
    box = pymupdf.Rect(figure.region.bbox)
    box.x0, box.y0 = box.x0 - REGION_MARGIN, box.y0 - REGION_MARGIN
    box.x1, box.y1 = box.x1 + REGION_MARGIN, box.y1 + REGION_MARGIN
    pix = page_of(path).get_pixmap(dpi=300, colorspace=pymupdf.csGRAY, clip=box)
    shown = recognise(Image.frombytes("L", (pix.width, pix.height), pix.samples), "eng", rotate=False)
    assert set(LAYER_WORDS.split()) <= set(shown.text.upper().split()), shown.text
