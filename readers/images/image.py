"""The image reader: PNG, JPEG, TIFF, WebP, BMP and GIF documents, whose every page is a picture to OCR.

An image has no text layer, so the reader's text is empty by design: it checks that the file is an image
Pillow can decode, counts its pages and records, per page, the facts that send it to OCR (one image
covering the whole page, the page's size in points from the image's resolution). The result says
``needs_ocr``, so the dispatch records the document ``underivable`` with that reason rather than
``empty_text``, and keeps the pages for the verdicts stage (docs/design.md §3: images go to OCR).

Pages are the frames of a multi-page TIFF (a scanner's or a fax's multi-page document). The frames of an
animated GIF, WebP or PNG, and the extra pictures of a multi-picture JPEG, are not pages: they are
animation steps or previews of one picture, so only the first frame is read.

:func:`load_frame` is the OCR stage's half: one page as the 8-bit grey image Tesseract reads best, with
the orientation the camera or scanner recorded applied.

Nothing here decodes more than validating needs, and nothing decodes an image whose header claims more
pixels than :attr:`readers.core.model.ReadLimits.max_image_pixels`: the size is read from the header and
checked before any pixel is.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import PIL
from PIL import (  # the plugins of FORMATS, registered by importing them (Pillow loads others lazily)
    BmpImagePlugin,  # noqa: F401
    ExifTags,
    GifImagePlugin,  # noqa: F401
    Image,
    ImageOps,
    JpegImagePlugin,  # noqa: F401
    PngImagePlugin,  # noqa: F401
    TiffImagePlugin,  # noqa: F401
    WebPImagePlugin,  # noqa: F401
)

from readers.core.base import Reader, require_readable_file
from readers.core.errors import CorruptDocument, FileUnreadable, LimitExceeded, ReaderError
from readers.core.model import IMAGE_KINDS, ContentKind, PageFacts, PageText, ReadLimits, ReadResult

# Pillow's names for the formats the six kinds arrive in. Opening is restricted to them, so that bytes
# claiming to be a PNG are never handed to one of Pillow's other plugins (EPS would start Ghostscript).
# DIB is a BMP without its file header. A JPEG with extra pictures (a camera's previews) opens as JPEG and
# comes back with the format MPO.
FORMATS = ("PNG", "JPEG", "TIFF", "WEBP", "BMP", "DIB", "GIF")

# Resolution assumed when an image does not record a plausible one: scanners default to 300 dpi, and it
# is the resolution Tesseract is tuned for (readers/images/tesseract.py renders PDF pages at it).
DEFAULT_DPI = 300
# Recorded resolutions outside this range are not a scan's: 0, 1 or a screen's pixels per cm read as
# dpi below it (Tesseract itself refuses under 70), an aspect ratio or a unit error above it.
MIN_PLAUSIBLE_DPI = 70
MAX_PLAUSIBLE_DPI = 1200
# Two axes whose resolutions differ by less than this ratio are one resolution (rounding in the file);
# more is a fax (204 x 98 dpi in "normal" mode), whose pixels load_frame makes square.
ANISOTROPY_TOLERANCE = 0.02
# JPEG decodes at 1/8 scale when only validated: the whole entropy-coded stream is still read, so
# truncation and corrupt data are found, at 1/64 of the pixels.
JPEG_VALIDATION_SCALE = 8

# What Pillow and its decoders raise for bytes that are not a valid image: Pillow's own errors are
# OSError (truncated, decoder error, and UnidentifiedImageError), SyntaxError (broken PNG chunks, bad
# headers), ValueError and EOFError; struct.error comes from headers shorter than they claim.
_DECODE_ERRORS = (OSError, SyntaxError, ValueError, EOFError, struct.error, IndexError)

_TRANSPOSES_AXES = frozenset({5, 6, 7, 8})


class ImageReader(Reader):
    """Validates an image document and returns its pages empty, each with the facts of one full-page
    image, and ``needs_ocr`` set."""

    name: ClassVar[str] = "pillow"
    revision: ClassVar[int] = 1
    kinds: ClassVar[frozenset[ContentKind]] = IMAGE_KINDS

    @property
    def tool_version(self) -> str:
        """Pillow's version; its wheels bundle the decoders (libjpeg, libtiff, libwebp, zlib)."""
        return PIL.__version__

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        """Every frame of a multi-page TIFF is a page, other formats have one.

        Raises :class:`LimitExceeded` for a frame over ``limits.max_image_pixels`` (before decoding it) or
        a TIFF of more than ``limits.max_pages`` frames, as for PDFs; :class:`CorruptDocument` for bytes
        that are not an image or do not decode.
        """
        require_readable_file(path)
        pages: list[PageText] = []
        notes: list[str] = []
        with _opened(path) as im:
            multi_page = im.format == "TIFF"
            index = 0
            while True:
                if index >= limits.max_pages:
                    raise LimitExceeded(f"{path.name}: more than {limits.max_pages} pages")
                _check_pixels(path, im.size, limits.max_image_pixels, index + 1)
                facts = _page_facts(im)
                _validate(im)
                pages.append(PageText(page=index + 1, text="", facts=facts))
                if not multi_page:
                    if getattr(im, "is_animated", False):
                        notes.append("animated:first_frame_only")
                    break
                try:
                    im.seek(index + 1)
                except EOFError:
                    break
                index += 1
        return ReadResult(pages=tuple(pages), page_count=len(pages), notes=tuple(notes), needs_ocr=True)


@dataclass(frozen=True, slots=True)
class ImageFrame:
    """One page of an image document, ready for Tesseract: 8-bit grey ("L"), upright, square pixels."""

    image: Image.Image
    dpi: int


def load_frame(path: Path, page: int, *, max_pixels: int) -> ImageFrame:
    """Page ``page`` (1-based: a TIFF's frame index + 1; every other format has page 1 only) as an 8-bit
    grey image for OCR.

    The EXIF orientation is applied; transparency is composited onto white (what a viewer shows, and
    what a scanned page's background is); palette, CMYK, 1-bit and colour images become grey by luma;
    16-bit images are scaled to 8 bits, not clipped (a clipped 16-bit page is all white). When the two
    axes have different resolutions (a fax), the coarser axis is resampled so the pixels are square and
    ``dpi`` holds for both axes. Raises :class:`LimitExceeded` for a frame over ``max_pixels`` (before
    decoding it), :class:`CorruptDocument` for a page that is not in the file or does not decode.
    """
    if page < 1:
        raise ValueError(f"pages are 1-based, got {page}")
    require_readable_file(path)
    with _opened(path) as im:
        if page > 1:
            if im.format != "TIFF":
                raise CorruptDocument(f"{path.name}: a {im.format} image has one page, not {page}")
            try:
                im.seek(page - 1)
            except EOFError as exc:
                raise CorruptDocument(f"{path.name}: has no page {page}") from exc
        _check_pixels(path, im.size, max_pixels, page)
        _, _, dpi_x, dpi_y = _upright(im, may_decode=True)
        im.load()
        ImageOps.exif_transpose(im, in_place=True)  # a TIFF is upright already: Pillow turns it on load
        grey = _to_grey(im)
    if abs(dpi_x - dpi_y) > ANISOTROPY_TOLERANCE * max(dpi_x, dpi_y):
        dpi = max(dpi_x, dpi_y)
        size = (round(grey.width * dpi / dpi_x), round(grey.height * dpi / dpi_y))
        _check_pixels(path, size, max_pixels, page)
        grey = grey.resize(size, Image.Resampling.BICUBIC)
        return ImageFrame(grey, dpi)
    return ImageFrame(grey, dpi_x)


@contextmanager
def _opened(path: Path) -> Iterator[Image.Image]:
    """The image opened lazily (its header parsed, no pixel decoded), with Pillow's errors translated."""
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise FileUnreadable(f"{path}: cannot be read: {exc}") from exc
    with fh:
        try:
            with Image.open(fh, formats=FORMATS) as im:
                yield im
        except ReaderError:
            raise
        except Image.DecompressionBombError as exc:
            # Pillow's own hard ceiling (twice Image.MAX_IMAGE_PIXELS), hit while parsing the header.
            raise LimitExceeded(f"{path.name}: {exc}") from exc
        except _DECODE_ERRORS as exc:
            raise CorruptDocument(f"{path.name}: not a valid image: {type(exc).__name__}: {exc}") from exc


def _check_pixels(path: Path, size: tuple[int, int], max_pixels: int, page: int) -> None:
    pixels = size[0] * size[1]
    if pixels > max_pixels:
        raise LimitExceeded(
            f"{path.name}: page {page} is {size[0]} x {size[1]} = {pixels} pixels, over the limit of "
            f"{max_pixels}"
        )


def _validate(im: Image.Image) -> None:
    """Decode just enough of the current frame to know it is sound.

    A PNG's chunks are checked against their CRCs and the file must reach its end chunk (``verify``: no
    pixel is inflated); a JPEG decodes at 1/8 scale; other formats decode the frame (there is no cheaper
    check: a TIFF strip, a BMP or a GIF is only known sound once read). Only ever called on a frame whose
    size passed the pixel limit.
    """
    if im.format == "PNG":
        im.verify()
    elif im.format in ("JPEG", "MPO"):
        scale = JPEG_VALIDATION_SCALE
        im.draft("L", (math.ceil(im.width / scale), math.ceil(im.height / scale)))
        im.load()
    else:
        im.load()


def _page_facts(im: Image.Image) -> PageFacts:
    """The page is the image: its size in points from its resolution, one image covering all of it."""
    width, height, dpi_x, dpi_y = _upright(im, may_decode=False)
    return PageFacts(
        width=round(72.0 * width / dpi_x, 3),
        height=round(72.0 * height / dpi_y, 3),
        images=1,
        image_coverage=1.0,
        largest_image_share=1.0,
    )


def _dpi(info: dict) -> tuple[int, int]:
    """The recorded resolution per axis, rounded; an implausible axis takes the other's, and with neither
    plausible (or none recorded: GIF, WebP, most screenshots) the default."""
    raw = info.get("dpi")
    values: list[int | None] = [None, None]
    if isinstance(raw, tuple) and len(raw) == 2:
        for axis, value in enumerate(raw):
            try:
                number = float(value)
            except (TypeError, ValueError):
                continue
            if math.isfinite(number) and MIN_PLAUSIBLE_DPI <= number <= MAX_PLAUSIBLE_DPI:
                values[axis] = round(number)
    x, y = values
    if x is None and y is None:
        return DEFAULT_DPI, DEFAULT_DPI
    return (x or y or DEFAULT_DPI), (y or x or DEFAULT_DPI)


def _upright(im: Image.Image, *, may_decode: bool) -> tuple[int, int, int, int]:
    """The current frame's width and height in pixels and its resolution per axis, as it is viewed: with
    its EXIF orientation applied. Call before the frame is decoded.

    Pillow reports a TIFF's size upright already (it turns TIFF frames itself when it decodes them, and
    drops the tag); every other format's size is as stored.
    """
    dpi_x, dpi_y = _dpi(im.info)
    width, height = im.size
    if _orientation(im, may_decode=may_decode) in _TRANSPOSES_AXES:
        dpi_x, dpi_y = dpi_y, dpi_x
        if im.format != "TIFF":
            width, height = height, width
    return width, height, dpi_x, dpi_y


def _orientation(im: Image.Image, *, may_decode: bool) -> int:
    """The EXIF orientation (1 = upright), 1 when absent or unreadable (a broken EXIF block does not make
    the picture unreadable).

    A PNG's eXIf chunk after the image data is only found by decoding the image; the reader does not
    decode PNGs, so it reads the orientation only where the header has it (load_frame, which decodes,
    applies it wherever it is).
    """
    if im.format == "PNG" and "exif" not in im.info and not may_decode:
        return 1
    try:
        value = im.getexif().get(ExifTags.Base.Orientation, 1)
    except _DECODE_ERRORS:
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def _to_grey(im: Image.Image) -> Image.Image:
    """An 8-bit grey ("L") copy of a loaded frame of any mode Pillow decodes the six formats into."""
    mode = im.mode
    if mode == "L":
        return im.copy()
    if mode in ("P", "PA"):
        has_alpha = mode == "PA" or "transparency" in im.info
        return _to_grey(im.convert("RGBA" if has_alpha else "RGB"))
    if mode in ("La", "RGBa"):  # premultiplied alpha
        return _to_grey(im.convert(mode.upper()))
    if mode in ("LA", "RGBA"):
        # Composite onto white: transparent areas are the page's background.
        page = Image.new("L", im.size, 255)
        page.paste(im.convert("L"), mask=im.getchannel("A"))
        return page
    if mode == "LAB":
        return im.getchannel("L")  # lightness already
    if mode == "CMYK" or mode == "YCbCr" or mode == "HSV":
        return im.convert("RGB").convert("L")
    if mode.startswith("I") or mode == "F":
        return _deep_to_grey(im)
    return im.convert("L")  # 1, RGB, RGBX


def _deep_to_grey(im: Image.Image) -> Image.Image:
    """16-bit, 32-bit integer and float frames to 8 bits without clipping.

    Integer values within 0-65535 are a 16-bit scan (Pillow opens some 16-bit files as 32-bit "I") and
    are scaled by the full 16-bit range, so a white page stays white; anything else (signed, float, wider)
    has no natural range and is stretched from its minimum to its maximum.
    """
    values = np.asarray(im)
    if values.dtype.kind in "ui" and int(values.min()) >= 0 and int(values.max()) <= 0xFFFF:
        scaled = (values.astype(np.uint32) * 255 + 0x7FFF) // 0xFFFF
        return Image.fromarray(scaled.astype(np.uint8))
    data = values.astype(np.float64)
    finite = np.isfinite(data)
    if not finite.any():
        return Image.new("L", im.size, 255)
    lo, hi = float(data[finite].min()), float(data[finite].max())
    if values.dtype.kind == "f" and lo >= 0.0 and hi <= 1.0:
        stretched = data  # a normalised float image
    elif hi > lo:
        stretched = (data - lo) / (hi - lo)
    else:
        stretched = np.ones_like(data)  # one value all over: a blank page, white
    # Not-a-number pixels are no ink.
    stretched = np.where(finite, stretched, 1.0)
    return Image.fromarray(np.rint(stretched * 255.0).astype(np.uint8))
