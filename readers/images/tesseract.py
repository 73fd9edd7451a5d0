"""Tesseract on one page image: one run that turns the page upright and reads it, with word confidences.

Plain functions, as OCRmyPDF keeps its stages: render (PyMuPDF), recognise (Tesseract through pytesseract,
its page segmentation with orientation detection: the page is turned upright inside the same run, so its
image is read from disk and thresholded once), and the script (Tesseract OSD on its own) only for a page
whose reading is doubtful, where it matters. One Tesseract runs single-threaded per page: on a two-core
machine OpenMP's own threads cost six times the wall time (DESIGN §9), so parallelism belongs to the
caller (one process per core). Errors are translated into the project's: ``OcrUnavailable`` when the
engine is missing, ``OcrFailed`` (with a reason) when it ran and failed or ran out of time.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pymupdf
from PIL import Image

from readers.core.errors import AssayError
from readers.core.tools import TESSERACT_INSTALL


def _import_pytesseract():
    """pytesseract, imported without pandas: it imports pandas when installed (Dagster's Dask executor
    brings it) for a DataFrame output assay never asks for, and that costs about 0.4 s in every process
    that reads a page or checks a file. pandas stays importable afterwards."""
    if "pandas" in sys.modules:
        import pytesseract
    else:
        sys.modules["pandas"] = None  # an ImportError for pytesseract's optional import
        try:
            import pytesseract
        finally:
            del sys.modules["pandas"]
    return pytesseract


pytesseract = _import_pytesseract()

# Resolution pages are rendered at for recognition: Tesseract's accuracy plateaus around 300 dpi on body
# text; lower loses small print, higher costs time for nothing.
DEFAULT_DPI = 300
# A page over this many seconds of recognition is recorded as over its budget (the shard goes on).
DEFAULT_TIMEOUT_S = 120.0
# Orientation detection takes a second or two on a page; never more than this (nor than the page's budget).
OSD_TIMEOUT_S = 30.0
# OSD needs some text to decide; its confidence under this keeps the page as it is.
MIN_OSD_CONFIDENCE = 2.0
# OSD's script is used only at this confidence or more. On the dev corpus it named Hebrew at 53 and
# Devanagari at 29 on pages in those scripts, and said Han at 0-1.4 on Japanese and Chinese pages and
# Cyrillic at 1.8 on a Latin map: 10 keeps the first and drops the guesses.
MIN_SCRIPT_CONFIDENCE = 10.0
# A page read with less mean confidence than this is doubtful: it is read once more as it is when Tesseract
# turned it, and its script is asked of orientation detection (a second run, ~0.9 s a dense page). On the
# dev corpus, pages in a script read with another script's data (Hebrew, Devanagari, Japanese as English)
# and pages turned the wrong way read at 30-49, every legible Latin page at 88 or more: above it, a page is
# upright and in the script of the data it was read with.
DOUBTFUL_BELOW_CONFIDENCE = 85.0
# Image modes written for Tesseract as they are, as a BMP: a 300 dpi page takes 4 ms to write, against
# 0.11 s as a PNG, and Tesseract reads it as fast as a PNG (a PGM it reads 0.14 s slower).
_BMP_MODES = frozenset({"1", "L", "RGB"})
_TEXTANGLE = re.compile(r"textangle (\d+)")
_WORD_CONFIDENCE = re.compile(r"x_wconf (\d+(?:\.\d+)?)")
_ROTATE = re.compile(r"Rotate:\s+(\d+)")
_SCRIPT = re.compile(r"Script:\s+(\S+)")
_SCRIPT_CONFIDENCE = re.compile(r"Script confidence:\s+([\d.]+)")
_CONFIDENCE = re.compile(r"Orientation confidence:\s+([\d.]+)")


class OcrUnavailable(AssayError):
    """Tesseract (or a language's data) is not installed; the message says what to install."""


class OcrFailed(AssayError):
    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class OcrResult:
    text: str
    language: str
    engine_version: str
    dpi: int
    rotation: int
    script: str | None
    mean_confidence: float | None
    confidences: tuple[float, ...]
    seconds: float

    @property
    def chars(self) -> int:
        return sum(1 for c in self.text if not c.isspace())


@functools.cache
def installed_version() -> str:
    """Tesseract's version (``5.3.0``), asked once per process; empty when it is not installed."""
    try:
        return str(pytesseract.get_tesseract_version()).split()[0]
    except (pytesseract.TesseractNotFoundError, OSError):
        return ""


@functools.cache
def installed_languages() -> frozenset[str]:
    """The languages Tesseract has data for, asked once per process; empty when it is not installed."""
    try:
        return frozenset(pytesseract.get_languages(config=""))
    except (pytesseract.TesseractError, pytesseract.TesseractNotFoundError, OSError):
        return frozenset()


def render_page(path: Path, page_number: int, dpi: int = DEFAULT_DPI) -> Image.Image:
    """Page ``page_number`` (1-based) of a PDF as a grey image at ``dpi``, its /Rotate applied."""
    with pymupdf.open(path) as doc:
        pix = doc[page_number - 1].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
        return Image.frombytes("L", (pix.width, pix.height), pix.samples)


@dataclass(frozen=True, slots=True)
class Orientation:
    """What Tesseract's orientation and script detection (OSD) found on a page."""

    rotation: int  # clockwise degrees (0, 90, 180, 270) that make the text upright
    script: str | None  # the writing system (Latin, Hebrew, Han...), where OSD was sure of it


UNKNOWN_ORIENTATION = Orientation(0, None)


def detect_orientation(image: Image.Image, timeout: float = OSD_TIMEOUT_S) -> Orientation:
    """The rotation that makes the text upright (0 when OSD cannot tell) and the script, when sure."""
    try:
        osd = pytesseract.image_to_osd(image, config="--psm 0", timeout=timeout)
    except pytesseract.TesseractError:
        return UNKNOWN_ORIENTATION  # too little text to decide: leave the page as it is
    except RuntimeError as exc:  # pytesseract's timeout
        raise OcrFailed(f"orientation detection ran over {timeout} s", reason="timeout") from exc
    rotate, confidence = _ROTATE.search(osd), _CONFIDENCE.search(osd)
    script, script_confidence = _SCRIPT.search(osd), _SCRIPT_CONFIDENCE.search(osd)
    sure_of_script = (
        script and script_confidence and float(script_confidence.group(1)) >= MIN_SCRIPT_CONFIDENCE
    )
    rotation = 0
    if rotate and not (confidence and float(confidence.group(1)) < MIN_OSD_CONFIDENCE):
        rotation = int(rotate.group(1)) % 360
    return Orientation(rotation, script.group(1) if sure_of_script and script else None)


def recognise(
    image: Image.Image,
    language: str,
    *,
    dpi: int = DEFAULT_DPI,
    rotate: bool = True,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> OcrResult:
    """Read ``image`` with Tesseract in ``language`` (``eng``, ``fra+eng``...), turned upright first when
    ``rotate``: Tesseract's automatic page segmentation with orientation detection (``--psm 1``) turns it
    in the same run, and its hOCR says by how much (each line's ``textangle``).

    A doubtful reading (:data:`DOUBTFUL_BELOW_CONFIDENCE`) is looked at once more: when Tesseract turned
    the page, the page is read as it is too and the more confident reading kept (orientation detection
    guesses on text it cannot tell upside down, such as a page in capitals); and orientation detection is
    asked for the page's script, which names the language data to read it again with."""
    _single_threaded()
    started = time.perf_counter()
    if not installed_version():
        raise OcrUnavailable(f"Tesseract is not installed: {TESSERACT_INSTALL}")
    reading = _read(image, language, psm=1 if rotate else 3, dpi=dpi, timeout=timeout)
    script = None
    if rotate and reading.mean is not None and reading.mean < DOUBTFUL_BELOW_CONFIDENCE:
        if reading.rotation:
            as_it_is = _read(image, language, psm=3, dpi=dpi, timeout=_left(started, timeout))
            if (as_it_is.mean or 0.0) > reading.mean:
                reading = as_it_is
        script = detect_orientation(image, min(OSD_TIMEOUT_S, _left(started, timeout))).script
    return OcrResult(
        reading.text,
        language,
        installed_version(),
        dpi,
        reading.rotation if rotate else 0,
        script,
        reading.mean,
        reading.confidences,
        round(time.perf_counter() - started, 3),
    )


def _left(started: float, timeout: float) -> float:
    """What is left of a page's ``timeout`` (at least a second: a started step is given time to finish)."""
    return max(1.0, timeout - (time.perf_counter() - started))


def _read(image: Image.Image, language: str, *, psm: int, dpi: int, timeout: float) -> HocrReading:
    """One Tesseract run over ``image`` with page segmentation mode ``psm``, its hOCR read."""
    with tempfile.TemporaryDirectory(prefix="assay-tesseract-") as folder:
        source, base = _write_image(image, Path(folder)), Path(folder) / "read"
        try:  # hOCR alone: each further output Tesseract writes costs it ~0.15 s a dense page
            pytesseract.pytesseract.run_tesseract(
                str(source), str(base), "hocr", language, f"--psm {psm} --dpi {dpi}", timeout=timeout
            )
        except pytesseract.TesseractError as exc:  # a RuntimeError too: caught first
            if "Failed loading language" in str(exc):
                raise OcrUnavailable(f"Tesseract has no data for {language!r}: {TESSERACT_INSTALL}") from exc
            raise OcrFailed(f"Tesseract failed: {exc}", reason="engine_error") from exc
        except RuntimeError as exc:  # pytesseract's timeout
            raise OcrFailed(f"recognition ran over {timeout} s", reason="timeout") from exc
        hocr = base.with_suffix(".hocr").read_bytes()
    try:
        return read_hocr(hocr)
    except ElementTree.ParseError as exc:
        raise OcrFailed(f"Tesseract's hOCR could not be read: {exc}", reason="engine_error") from exc


def _write_image(image: Image.Image, folder: Path) -> Path:
    """``image`` as a file Tesseract reads: uncompressed where its mode allows, else a PNG on white."""
    if image.mode in _BMP_MODES:
        path = folder / "page.bmp"
        image.save(path, format="BMP")
        return path
    prepared, _ = pytesseract.pytesseract.prepare(image)  # an alpha channel flattened onto white
    path = folder / "page.png"
    prepared.save(path, format="PNG")
    return path


@dataclass(frozen=True, slots=True)
class HocrReading:
    """What one Tesseract hOCR page says: its words put back into lines and paragraphs, each word's
    confidence, and the clockwise degrees the page was turned by to be read."""

    text: str
    confidences: tuple[float, ...]
    rotation: int

    @property
    def mean(self) -> float | None:
        """The mean word confidence, to the hundredth; None when no word was read."""
        return round(sum(self.confidences) / len(self.confidences), 2) if self.confidences else None


def read_hocr(hocr: bytes) -> HocrReading:
    """Tesseract's hOCR page: a blank line between paragraphs, a newline between lines, a space between
    words; the rotation is the ``textangle`` most lines carry (none: 0)."""
    paragraphs: list[list[list[str]]] = []
    confidences: list[float] = []
    angles: Counter[int] = Counter()
    for element in ElementTree.fromstring(hocr).iter():
        kind = (element.get("id") or "").partition("_")[0]
        title = element.get("title") or ""
        if kind == "par":
            paragraphs.append([])
        elif kind == "line":
            angle = _TEXTANGLE.search(title)
            angles[int(angle.group(1)) % 360 if angle else 0] += 1
            if not paragraphs:
                paragraphs.append([])
            paragraphs[-1].append([])
        elif kind == "word" and paragraphs and paragraphs[-1]:
            word = "".join(element.itertext()).strip()
            if not word:
                continue
            paragraphs[-1][-1].append(word)
            confidence = _WORD_CONFIDENCE.search(title)
            if confidence:
                confidences.append(float(confidence.group(1)))
    text = "\n\n".join(
        "\n".join(" ".join(words) for words in lines if words) for lines in paragraphs if any(lines)
    )
    return HocrReading(text, tuple(confidences), angles.most_common(1)[0][0] if angles else 0)


def _single_threaded() -> None:
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
