"""readers.images.image: image documents read as pages for OCR, and their frames loaded as grey images for
Tesseract.

Every fixture is drawn here with Pillow; nothing is read from disk but what the tests write.
"""

from __future__ import annotations

import hashlib
import struct
import tempfile
import zlib
from pathlib import Path

import numpy as np
import PIL
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from assets.extract.work import ShardRows, extract_shard
from assets.verdicts.judging import judge_document_rows
from quality.verdicts import Mode
from readers.core.errors import CorruptDocument, LimitExceeded
from readers.core.model import OCR_KINDS, ContentKind, DocumentStatus, ReadLimits
from readers.core.reader_chain import chain_signature, reader, readers_for
from readers.core.reading_records import DocumentRecord, PageRecord
from readers.engine.dispatch import NEEDS_OCR, extract_document
from readers.images.image import DEFAULT_DPI, ImageFrame, ImageReader, load_frame

READER = ImageReader()
LIMITS = ReadLimits()
BIG = 1 << 30
IMAGE_KINDS = (
    ContentKind.PNG,
    ContentKind.JPEG,
    ContentKind.TIFF,
    ContentKind.WEBP,
    ContentKind.BMP,
    ContentKind.GIF,
)
# Pillow's format name and a file suffix for each kind.
FORMAT = {
    ContentKind.PNG: ("PNG", ".png"),
    ContentKind.JPEG: ("JPEG", ".jpg"),
    ContentKind.TIFF: ("TIFF", ".tif"),
    ContentKind.WEBP: ("WEBP", ".webp"),
    ContentKind.BMP: ("BMP", ".bmp"),
    ContentKind.GIF: ("GIF", ".gif"),
}
# Formats that store a resolution (Pillow writes none for WebP and GIF).
STORES_DPI = {ContentKind.PNG, ContentKind.JPEG, ContentKind.TIFF, ContentKind.BMP}
ORIENTATION = 0x0112


def page_image(size: tuple[int, int] = (600, 400), mode: str = "L") -> Image.Image:
    """White with a black square in the top-left quarter: a page with some ink where it can be found."""
    im = Image.new("L", size, 255)
    im.paste(0, (0, 0, size[0] // 2, size[1] // 2))
    return im.convert(mode)


def write(path: Path, im: Image.Image, **params) -> Path:
    im.save(path, **params)
    return path


def _extract(path: Path, kind: ContentKind, limits: ReadLimits = LIMITS):
    return extract_document(path, kind, size=path.stat().st_size, limits=limits, max_bytes=BIG)


# --- the reader -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", IMAGE_KINDS)
def test_each_format_is_one_empty_page_of_one_full_page_image(kind: ContentKind, tmp_path: Path) -> None:
    fmt, suffix = FORMAT[kind]
    dpi = 200 if kind in STORES_DPI else DEFAULT_DPI
    params = {"dpi": (dpi, dpi)} if kind in STORES_DPI else {}
    path = write(tmp_path / f"page{suffix}", page_image((600, 400), "RGB"), format=fmt, **params)
    result = READER.read(path, LIMITS)
    assert result.needs_ocr and result.page_count == 1
    (page,) = result.pages
    assert page.page == 1 and page.text == ""
    f = page.facts
    assert (f.images, f.image_coverage, f.largest_image_share) == (1, 1.0, 1.0)
    # 600 x 400 px at 200 dpi is 3 x 2 inches, 216 x 144 pt; at the default 300 dpi, 144 x 96 pt.
    assert (f.width, f.height) == pytest.approx((72 * 600 / dpi, 72 * 400 / dpi), abs=0.01)
    frame = load_frame(path, 1, max_pixels=LIMITS.max_image_pixels)
    assert isinstance(frame, ImageFrame) and frame.dpi == dpi
    assert frame.image.mode == "L" and frame.image.size == (600, 400)


@pytest.mark.parametrize(("recorded", "used"), [((10, 10), 300), ((5000, 5000), 300), ((96, 96), 96)])
def test_implausible_resolutions_fall_back_to_300_dpi(recorded, used, tmp_path: Path) -> None:
    path = write(tmp_path / "a.png", page_image((300, 300)), dpi=recorded)
    (page,) = READER.read(path, LIMITS).pages
    assert page.facts.width == pytest.approx(72 * 300 / used, abs=0.01)
    assert load_frame(path, 1, max_pixels=LIMITS.max_image_pixels).dpi == used


def test_a_multi_page_tiff_is_one_page_per_frame(tmp_path: Path) -> None:
    frames = [page_image((600, 400)), page_image((300, 300)), page_image((400, 600))]
    path = write(tmp_path / "scan.tif", frames[0], save_all=True, append_images=frames[1:], dpi=(100, 100))
    result = READER.read(path, LIMITS)
    assert [p.page for p in result.pages] == [1, 2, 3] and result.page_count == 3
    assert [(p.facts.width, p.facts.height) for p in result.pages] == [(432, 288), (216, 216), (288, 432)]
    assert [load_frame(path, n, max_pixels=LIMITS.max_image_pixels).image.size for n in (1, 2, 3)] == [
        (600, 400),
        (300, 300),
        (400, 600),
    ]
    with pytest.raises(CorruptDocument):
        load_frame(path, 4, max_pixels=LIMITS.max_image_pixels)
    # More frames than pages allowed: over the limit, as a PDF with too many pages.
    with pytest.raises(LimitExceeded) as over:
        READER.read(path, ReadLimits(max_pages=2))
    assert over.value.reason == "over_limit"


@pytest.mark.parametrize("fmt", ["GIF", "WEBP", "PNG"])
def test_animation_frames_are_not_pages(fmt: str, tmp_path: Path) -> None:
    frames = [page_image((120, 80)).convert("RGB"), Image.new("RGB", (120, 80), "red")]
    path = write(
        tmp_path / f"anim.{fmt.lower()}", frames[0], format=fmt, save_all=True, append_images=frames[1:]
    )
    with Image.open(path) as im:
        assert im.is_animated  # the fixture really is animated
    result = READER.read(path, LIMITS)
    assert result.page_count == 1 and result.notes == ("animated:first_frame_only",)
    grey = np.asarray(load_frame(path, 1, max_pixels=LIMITS.max_image_pixels).image)
    assert grey[:40, :60].mean() < 40 and grey[40:, 60:].mean() > 215  # the first frame, not the red one
    with pytest.raises(CorruptDocument):
        load_frame(path, 2, max_pixels=LIMITS.max_image_pixels)


# --- load_frame: every mode to 8-bit grey --------------------------------------------------------------


def _dark_square_and_white_rest(image: Image.Image) -> None:
    a = np.asarray(image)
    assert image.mode == "L"
    h, w = a.shape
    assert a[: h // 2 - 2, : w // 2 - 2].max() < 60, "the black square stays dark"
    assert a[h // 2 + 2 :, w // 2 + 2 :].min() > 200, "the rest stays white"


@pytest.mark.parametrize(
    ("mode", "fmt"),
    [
        ("RGB", "PNG"),
        ("P", "PNG"),
        ("P", "GIF"),
        ("1", "PNG"),
        ("1", "TIFF"),
        ("CMYK", "TIFF"),
        ("CMYK", "JPEG"),
        ("LA", "PNG"),
        ("RGBA", "WEBP"),
        ("RGB", "BMP"),
    ],
)
def test_modes_become_grey_with_their_content(mode: str, fmt: str, tmp_path: Path) -> None:
    path = write(tmp_path / f"a.{fmt.lower()}", page_image((200, 100), mode), format=fmt)
    _dark_square_and_white_rest(load_frame(path, 1, max_pixels=LIMITS.max_image_pixels).image)


@pytest.mark.parametrize("fmt", ["PNG", "TIFF", "WEBP"])
def test_transparency_is_composited_onto_white(fmt: str, tmp_path: Path) -> None:
    # Black ink on a fully transparent background whose colour is black: a viewer shows black on white.
    im = Image.new("RGBA", (200, 100), (0, 0, 0, 0))
    im.paste((0, 0, 0, 255), (0, 0, 100, 50))
    path = write(tmp_path / f"a.{fmt.lower()}", im, format=fmt, lossless=True)
    _dark_square_and_white_rest(load_frame(path, 1, max_pixels=LIMITS.max_image_pixels).image)


def test_a_palette_transparent_colour_is_white(tmp_path: Path) -> None:
    im = Image.new("P", (200, 100), 1)
    im.putpalette([0, 0, 0, 0, 0, 0] + [0] * 762)  # both colours black; colour 1 is transparent
    im.paste(0, (0, 0, 100, 50))
    path = write(tmp_path / "a.gif", im, transparency=1)
    _dark_square_and_white_rest(load_frame(path, 1, max_pixels=LIMITS.max_image_pixels).image)


@pytest.mark.parametrize("fmt", ["PNG", "TIFF"])
def test_sixteen_bit_is_scaled_not_clipped(fmt: str, tmp_path: Path) -> None:
    levels = np.array([[0, 257, 20000, 40000, 65535]], dtype=np.uint16).repeat(4, axis=0)
    im = Image.fromarray(levels)
    assert im.mode == "I;16"
    path = write(tmp_path / f"deep.{fmt.lower()}", im, format=fmt)
    grey = np.asarray(load_frame(path, 1, max_pixels=LIMITS.max_image_pixels).image)
    # Pillow's own convert("L") clips everything over 255 to white; scaled, the grey levels survive.
    assert grey[0].tolist() == [0, 1, 78, 156, 255]


def test_exif_orientation_is_applied(tmp_path: Path) -> None:
    # Stored sideways, as a phone held in portrait writes it: orientation 6 says "turn 90 degrees
    # clockwise to view". The stored left half is black, so the upright page is black on top.
    stored = Image.new("L", (300, 200), 255)
    stored.paste(0, (0, 0, 150, 200))
    exif = Image.Exif()
    exif[ORIENTATION] = 6
    path = write(tmp_path / "photo.jpg", stored, exif=exif.tobytes(), dpi=(150, 150))
    (page,) = READER.read(path, LIMITS).pages
    assert (page.facts.width, page.facts.height) == (96, 144)  # upright: 200 x 300 px at 150 dpi
    frame = load_frame(path, 1, max_pixels=LIMITS.max_image_pixels)
    a = np.asarray(frame.image)
    assert frame.image.size == (200, 300)
    assert a[:140].mean() < 30 and a[160:].mean() > 225


def test_a_fax_resolution_becomes_square_pixels(tmp_path: Path) -> None:
    # Fax "normal" mode: 204 x 98 dpi. 204 x 98 px is one inch square.
    path = write(tmp_path / "fax.tif", page_image((204, 98), "1"), dpi=(204, 98), compression="group4")
    (page,) = READER.read(path, LIMITS).pages
    assert (page.facts.width, page.facts.height) == pytest.approx((72, 72))
    frame = load_frame(path, 1, max_pixels=LIMITS.max_image_pixels)
    assert frame.dpi == 204 and frame.image.size == (204, 204)
    _dark_square_and_white_rest(frame.image)
    # Fed sideways (orientation 6): each resolution turns with its axis.
    exif = Image.Exif()
    exif[ORIENTATION] = 6
    sideways = write(tmp_path / "sideways.tif", Image.new("L", (204, 98), 255), dpi=(204, 98), exif=exif)
    (page,) = READER.read(sideways, LIMITS).pages
    assert (page.facts.width, page.facts.height) == pytest.approx((72, 72))
    frame = load_frame(sideways, 1, max_pixels=LIMITS.max_image_pixels)
    assert frame.dpi == 204 and frame.image.size == (204, 204)


# --- bad files ------------------------------------------------------------------------------------------


def test_truncated_and_junk_files_are_corrupt(tmp_path: Path) -> None:
    whole = write(tmp_path / "whole.png", page_image((400, 300), "RGB")).read_bytes()
    cases = {
        "cut-in-the-data.png": whole[: len(whole) // 2],
        "cut-before-the-end.png": whole[:-12],  # the image data is whole, the end chunk is missing
        "junk.png": b"this is not a picture at all, only words pretending" * 20,
        "jpeg-cut.jpg": write(tmp_path / "w.jpg", page_image((400, 300), "RGB")).read_bytes()[:600],
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(CorruptDocument) as bad:
            READER.read(path, LIMITS)
        assert bad.value.reason == "corrupt" and bad.value.__cause__ is not None, name
    (tmp_path / "empty.png").write_bytes(b"")
    with pytest.raises(CorruptDocument) as empty:
        READER.read(tmp_path / "empty.png", LIMITS)
    assert empty.value.reason == "empty_file"
    path = tmp_path / "cut-in-the-data.png"
    path.write_bytes(cases["cut-in-the-data.png"])
    with pytest.raises(CorruptDocument):
        load_frame(path, 1, max_pixels=LIMITS.max_image_pixels)


def png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` grey pixels and whose data is a few bytes."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


def bmp_header_only(width: int, height: int) -> bytes:
    """A BMP whose header claims ``width`` x ``height`` 24-bit pixels and that has no pixel data."""
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 0, 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + len(info), 0, 0, 14 + len(info)) + info


@pytest.mark.parametrize(
    ("name", "data", "limit"),
    [
        # Past Pillow's own refusal (900 Mpx): its DecompressionBombError becomes LimitExceeded.
        ("huge.png", png_header_only(30_000, 30_000), LIMITS.max_image_pixels),
        ("huge.bmp", bmp_header_only(30_000, 30_000), LIMITS.max_image_pixels),
        # Under Pillow's (81 Mpx) but over ours: refused by the header, before any pixel is decoded.
        ("big.png", png_header_only(9_000, 9_000), 50_000_000),
        ("big.bmp", bmp_header_only(9_000, 9_000), 50_000_000),
    ],
)
def test_a_header_over_the_pixel_limit_is_refused_without_decoding(
    name: str, data: bytes, limit: int, tmp_path: Path
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(LimitExceeded) as over:
        READER.read(path, ReadLimits(max_image_pixels=limit))
    with pytest.raises(LimitExceeded):
        load_frame(path, 1, max_pixels=limit)
    # Decoding would have found the data missing (corrupt, not over_limit) after allocating the pixels.
    assert over.value.reason == "over_limit"
    kind = ContentKind.PNG if name.endswith(".png") else ContentKind.BMP
    ex = _extract(path, kind, ReadLimits(max_image_pixels=limit))
    assert (ex.status, ex.reason) == (DocumentStatus.ERROR, "over_limit")


def test_a_small_limit_refuses_an_ordinary_image(tmp_path: Path) -> None:
    path = write(tmp_path / "a.png", page_image((100, 100)))
    with pytest.raises(LimitExceeded):
        READER.read(path, ReadLimits(max_image_pixels=9_999))
    assert READER.read(path, ReadLimits(max_image_pixels=10_000)).page_count == 1


# --- through the dispatch and the verdicts --------------------------------------------------------------


def test_the_table_sends_every_image_kind_to_the_image_reader() -> None:
    for kind in IMAGE_KINDS:
        assert readers_for(kind) == (reader("pillow"),)
        assert chain_signature(kind).startswith(f"pillow@1+{PIL.__version__}|")
    assert {ContentKind.PDF, *IMAGE_KINDS} == OCR_KINDS


@pytest.mark.parametrize("kind", IMAGE_KINDS)
def test_an_image_document_is_underivable_needing_ocr_with_its_pages_kept(
    kind: ContentKind, tmp_path: Path
) -> None:
    fmt, suffix = FORMAT[kind]
    path = write(tmp_path / f"scan{suffix}", page_image((300, 200), "RGB"), format=fmt)
    ex = _extract(path, kind)
    assert (ex.status, ex.reason) == (DocumentStatus.UNDERIVABLE, NEEDS_OCR)
    assert [(a.reader, a.produced, a.failed, a.reason) for a in ex.attempts] == [
        ("pillow", False, False, "needs_ocr")
    ]
    assert (
        ex.result is None
        and ex.empty_reader == "pillow"
        and ex.empty_reader_version == reader("pillow").version
    )
    (page,) = ex.empty_result.pages
    assert page.text == "" and page.facts.image_coverage == 1.0 and page.facts.images == 1


def test_a_corrupt_image_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    ex = _extract(path, ContentKind.JPEG)
    assert (ex.status, ex.reason, ex.empty_result) == (DocumentStatus.ERROR, "corrupt", None)


def _page_rows(path: Path, kind: ContentKind) -> tuple[str, list[PageRecord]]:
    """The page rows the extract stage stores for one document (assets/extract/work.py, as a run writes
    them)."""
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    doc = DocumentRecord(
        sha, sha[:2], kind.value, "bytes", path.stat().st_size, None, None, str(path), "test"
    )
    shard = extract_shard(
        doc.shard,
        [doc],
        version="test",
        existing=ShardRows(),
        prior=None,
        limits=LIMITS,
        max_document_bytes=1 << 30,
    )
    return sha, shard.rows.pages[sha]


def test_the_verdicts_send_an_image_page_to_ocr(tmp_path: Path) -> None:
    frames = [page_image((600, 800)), page_image((600, 800))]
    path = write(tmp_path / "scan.tif", frames[0], save_all=True, append_images=frames[1:])
    sha, rows = _page_rows(path, ContentKind.TIFF)
    verdicts = judge_document_rows(
        "tiff", path, sha, sha[:2], "test", rows, [], LIMITS, size=path.stat().st_size
    )
    assert [(v.page, v.mode) for v in verdicts.pages] == [(1, Mode.REPLACE.value), (2, Mode.REPLACE.value)]
    assert all("image_cover" in v.reasons for v in verdicts.pages)
    assert {v.provenance for v in verdicts.pages} == {"raw_scan"}
    # The same rows of a kind OCR cannot render are left alone: nothing to read, not a page to replace.
    text_kind = judge_document_rows(
        "text", path, sha, sha[:2], "test", rows, [], LIMITS, size=path.stat().st_size
    )
    assert {v.mode for v in text_kind.pages} == {Mode.BLANK.value}


# --- a property: any small image comes back grey, upright, the same size --------------------------------

MODES_BY_FORMAT = {
    "PNG": ("L", "LA", "RGB", "RGBA", "P", "1", "I;16"),
    "JPEG": ("L", "RGB", "CMYK"),
    "TIFF": ("L", "RGB", "RGBA", "P", "1", "I;16", "CMYK"),
    "WEBP": ("RGB", "RGBA"),
    "BMP": ("L", "RGB", "P", "1"),
    "GIF": ("L", "P"),
}
EXIF_FORMATS = ("PNG", "JPEG", "TIFF", "WEBP")
TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


@st.composite
def small_images(draw: st.DrawFn) -> tuple[str, Image.Image, int, int | None]:
    fmt = draw(st.sampled_from(sorted(MODES_BY_FORMAT)))
    mode = draw(st.sampled_from(MODES_BY_FORMAT[fmt]))
    width, height = draw(st.integers(1, 48)), draw(st.integers(1, 48))
    seed = draw(st.integers(0, 2**32 - 1))
    grey = np.random.default_rng(seed).integers(0, 256, (height, width), dtype=np.uint8)
    im = Image.fromarray(grey)
    if mode == "I;16":
        im = Image.fromarray(grey.astype(np.uint16) * 257)
    elif mode != "L":
        im = im.convert(mode)
    orientation = draw(st.integers(1, 8)) if fmt in EXIF_FORMATS else 1
    dpi = draw(st.integers(70, 1200)) if fmt in ("PNG", "JPEG", "TIFF", "BMP") else None
    return fmt, im, orientation, dpi


@settings(max_examples=150, deadline=None)
@given(small_images())
def test_any_small_image_loads_grey_upright_and_the_same_size(
    case: tuple[str, Image.Image, int, int | None],
) -> None:
    fmt, im, orientation, dpi = case
    params: dict = {"format": fmt}
    if dpi is not None:
        params["dpi"] = (dpi, dpi)
    if orientation != 1:
        exif = Image.Exif()
        exif[ORIENTATION] = orientation
        params["exif"] = exif.tobytes()
    if fmt == "WEBP":
        params["lossless"] = True
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp) / f"a.{fmt.lower()}", im, **params)
        (page,) = READER.read(path, LIMITS).pages
        frame = load_frame(path, 1, max_pixels=LIMITS.max_image_pixels)
    upright = im.transpose(TRANSPOSE[orientation]) if orientation in TRANSPOSE else im
    dpi = dpi or DEFAULT_DPI
    assert frame.image.mode == "L" and frame.image.size == upright.size and frame.dpi == dpi
    assert (page.facts.width, page.facts.height) == pytest.approx(
        (72 * upright.width / dpi, 72 * upright.height / dpi), abs=0.01
    )
    if im.mode in ("L", "I;16") and fmt in ("PNG", "TIFF", "BMP", "GIF"):
        # Lossless grey comes back pixel for pixel, turned the way the EXIF says.
        expected = np.asarray(upright) if im.mode == "L" else (np.asarray(upright) // 257).astype(np.uint8)
        assert np.array_equal(np.asarray(frame.image), expected)
