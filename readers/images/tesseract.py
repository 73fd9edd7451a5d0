"""Tesseract on one page image: orientation first, then recognition with word confidences.

Plain functions, as OCRmyPDF keeps its stages: render (PyMuPDF), detect orientation (Tesseract OSD),
recognise (Tesseract through pytesseract). One Tesseract runs single-threaded per page: on a two-core
machine OpenMP's own threads cost six times the wall time (DESIGN §9), so parallelism belongs to the
caller (one process per core). Errors are translated into the project's: ``OcrUnavailable`` when the
engine is missing, ``OcrFailed`` (with a reason) when it ran and failed or ran out of time.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

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
    """Read ``image`` with Tesseract in ``language`` (``eng``, ``fra+eng``...), upright first."""
    _single_threaded()
    started = time.perf_counter()
    version = installed_version()
    if not version:
        raise OcrUnavailable(f"Tesseract is not installed: {TESSERACT_INSTALL}")
    orientation = detect_orientation(image, min(OSD_TIMEOUT_S, timeout)) if rotate else UNKNOWN_ORIENTATION
    rotation = orientation.rotation
    if rotation:
        image = image.rotate(-rotation, expand=True)  # PIL rotates counter-clockwise
    try:
        data = pytesseract.image_to_data(
            image,
            lang=language,
            config=f"--psm 3 --dpi {dpi}",
            output_type=pytesseract.Output.DICT,
            timeout=timeout,
        )
    except pytesseract.TesseractError as exc:  # a RuntimeError too: caught first
        if "Failed loading language" in str(exc):
            raise OcrUnavailable(f"Tesseract has no data for {language!r}: {TESSERACT_INSTALL}") from exc
        raise OcrFailed(f"Tesseract failed: {exc}", reason="engine_error") from exc
    except RuntimeError as exc:  # pytesseract's timeout
        raise OcrFailed(f"recognition ran over {timeout} s", reason="timeout") from exc
    text, confidences = _assemble(data)
    mean = round(sum(confidences) / len(confidences), 2) if confidences else None
    return OcrResult(
        text,
        language,
        version,
        dpi,
        rotation,
        orientation.script,
        mean,
        tuple(confidences),
        round(time.perf_counter() - started, 3),
    )


def _assemble(data: dict[str, list]) -> tuple[str, list[float]]:
    """Tesseract's words back into lines and paragraphs, with the confidence of each word."""
    lines: dict[tuple[int, int, int], list[str]] = {}
    confidences: list[float] = []
    for i, word in enumerate(data["text"]):
        if not word or not word.strip():
            continue
        key = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
        lines.setdefault(key, []).append(word)
        conf = float(data["conf"][i])
        if conf >= 0:
            confidences.append(conf)
    out: list[str] = []
    previous: tuple[int, int] | None = None
    for (block, par, _), words in lines.items():
        if previous is not None and previous != (block, par):
            out.append("")
        out.append(" ".join(words))
        previous = (block, par)
    return "\n".join(out), confidences


def _single_threaded() -> None:
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
