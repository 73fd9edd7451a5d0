"""Tesseract on one page image: one recognition that turns the page upright and reads it, with word
confidences.

Plain functions, as OCRmyPDF keeps its stages: render (PyMuPDF), recognise (a page whose ink shows it
upright, ``readers/images/orientation.py``, read as it is; any other page, or one read as it is with doubt,
by Tesseract's page segmentation with orientation detection: the page is turned upright inside the same
recognition, so it is thresholded once), and the script (Tesseract's orientation and script detection)
only for a page whose reading is doubtful, where it matters. Tesseract runs in a worker process of its own
(``readers/images/tesseract_worker.py``, its library through its C API: ``readers/images/libtesseract.py``)
that keeps its models loaded from page to page, single-threaded: on a two-core machine OpenMP's own
threads cost six times the wall time (docs/design.md §9), so parallelism belongs to the caller (one worker per
core, :class:`TesseractProcesses`). A page that hangs or crashes Tesseract ends its worker, not the caller.
Errors are translated into the project's: ``OcrUnavailable`` when the engine or a language's data is
missing, ``OcrFailed`` (with a reason) when it ran and failed or ran out of time.
"""

from __future__ import annotations

import functools
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pymupdf
from PIL import Image

from readers.core.tools import TESSERACT_INSTALL
from readers.images import libtesseract
from readers.images.ocr_result import OcrFailed, OcrResult, OcrUnavailable
from readers.images.orientation import LineEvidence, line_evidence
from readers.images.worker_process import WorkerProcess, WorkerProcesses


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
# OSD's script is used only at this confidence or more. On the dev corpus it named Hebrew at 53 and
# Devanagari at 29 on pages in those scripts, and said Han at 0-1.4 on Japanese and Chinese pages and
# Cyrillic at 1.8 on a Latin map: 10 keeps the first and drops the guesses.
MIN_SCRIPT_CONFIDENCE = 10.0
# A page read with less mean confidence than this is doubtful: it is read once more as it is when Tesseract
# turned it, and its script is asked of orientation detection (~0.9 s a dense page). On the dev corpus,
# pages in a script read with another script's data (Hebrew, Devanagari, Japanese as English) and pages
# turned the wrong way read at 30-49, every legible Latin page at 88 or more: above it, a page is upright
# and in the script of the data it was read with.
DOUBTFUL_BELOW_CONFIDENCE = 85.0
# Orientation detection's way round is taken as settled at this margin over the next or more: the margin
# at which Tesseract's own page segmentation turns a page (its min_orientation_margin). Three short lines
# upside down or sideways give 6.4-7.0, two lines 2.1-2.3, one line nothing at all (always the right way).
SURE_ROTATION_CONFIDENCE = 7.0
# A poor reading is read again turned by hand at most this many times (the three other ways round), and a
# turned reading is started only when, taking as long as the page's reading did, it ends within this many
# seconds of the first: a short page's reading takes 0.3-1 s, so its three fit; a dense page (2-10 s) gets
# one or none, and orientation detection, sure of a page with that much text, turned it already.
MAX_TURNED_READINGS = 3
TURNED_READINGS_BUDGET_S = 4.0
# A turned reading replaces the page's reading only at this mean confidence or more. The wrong ways round
# of short pages, photographs and scripts without their data read at 20-42; the right way of every page
# the dev corpus reads legibly, at 72 or more. Under it, the page keeps the reading it had.
TURNED_MIN_CONFIDENCE = 50.0


@functools.cache
def installed_version() -> str:
    """The version of the Tesseract library that reads the pages (``5.3.0``), asked once per process;
    empty when Tesseract is not installed: its library, or its command, which lists the installed
    languages (the two come in one package, Debian's tesseract-ocr)."""
    if shutil.which(pytesseract.pytesseract.tesseract_cmd) is None:
        return ""
    return libtesseract.version()


@functools.cache
def installed_languages() -> frozenset[str]:
    """The languages Tesseract has data for, asked once per process; empty when it is not installed."""
    try:
        return frozenset(pytesseract.get_languages(config=""))
    except (pytesseract.TesseractError, pytesseract.TesseractNotFoundError, OSError):
        return frozenset()


def render_page(
    path: Path,
    page_number: int,
    dpi: int = DEFAULT_DPI,
    *,
    opener: Callable[[Path], pymupdf.Document] = pymupdf.open,
) -> Image.Image:
    """Page ``page_number`` (1-based) of a PDF as a grey image at ``dpi``, its /Rotate applied; ``opener``
    opens the file (the OCR stage's opens it as the PDF reader does: readers/pdf/salvage.py)."""
    with opener(path) as doc:
        pix = doc[page_number - 1].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
        return Image.frombytes("L", (pix.width, pix.height), pix.samples)


class TesseractProcess(WorkerProcess):
    """One Tesseract worker process (``readers/images/tesseract_worker.py``), started on first use, that
    keeps its models loaded between pages; one belongs to one thread. A page that runs over its time is
    stopped by ending the process, and a process that ends (Tesseract crashed) fails that page alone: the
    next page starts a new one (``readers/images/worker_process.py``)."""

    module = "readers.images.tesseract_worker"
    name = "Tesseract"

    def warm(self, language: str, psm: int = 1) -> None:
        """Start the worker and have it load ``language``'s model (and, for ``psm`` 1, orientation
        detection's) on a blank image, without waiting: the next request reads its answer first."""
        self.warm_with({"op": "read", "language": language, "psm": psm}, _BLANK, DEFAULT_DPI)

    def read(self, image: Image.Image, language: str, *, psm: int, dpi: int, timeout: float) -> Reading:
        """One recognition of ``image`` with page segmentation mode ``psm``."""
        answer = self._ask({"op": "read", "language": language, "psm": psm}, image, dpi, timeout)
        rotation, across = int(answer["rotation"]), bool(answer["across"])
        return Reading(answer["text"], tuple(answer["confidences"]), rotation, across)

    def detect(self, image: Image.Image, *, dpi: int, timeout: float) -> Detection:
        """Orientation and script detection on ``image``: its writing system when it is sure, and the way
        round it says the page is to be read."""
        answer = self._ask({"op": "script"}, image, dpi, timeout)
        sure = answer["script"] and answer["script_confidence"] >= MIN_SCRIPT_CONFIDENCE
        found = answer["script"] is not None  # None: too little text to decide anything
        return Detection(
            answer["script"] if sure else None,
            int(answer["rotation"]) if found else None,
            float(answer["rotation_confidence"]),
        )

    def _ask(self, request: dict, image: Image.Image, dpi: int, timeout: float) -> dict:
        answer = self.ask(request, image, dpi, timeout)
        if answer["ok"]:
            return answer
        if answer["error"] == "library":
            raise OcrUnavailable(f"Tesseract is not installed: {TESSERACT_INSTALL}")
        if answer["error"] == "language":
            language = request.get("language", "osd")
            raise OcrUnavailable(f"Tesseract has no data for {language!r}: {TESSERACT_INSTALL}")
        raise OcrFailed(f"Tesseract failed: {answer['message']}", reason="engine_error")


# The image a worker is warmed up on: small and blank.
_BLANK = Image.new("L", (32, 32), 255)


class TesseractProcesses(WorkerProcesses[TesseractProcess]):
    """Tesseract's workers, one a thread, ended together (:class:`WorkerProcesses`)."""

    def __init__(self) -> None:
        super().__init__(TesseractProcess)

    def start(self, count: int, language: str) -> None:
        """Start ``count`` workers now, loading ``language``, so that their start (~0.2 s) overlaps with
        rendering the first pages instead of delaying the first recognitions."""
        for _ in range(count):
            process = TesseractProcess()
            process.warm(language)
            self.started_ahead(process)


def recognise(
    image: Image.Image,
    language: str,
    *,
    dpi: int = DEFAULT_DPI,
    rotate: bool = True,
    timeout: float = DEFAULT_TIMEOUT_S,
    tesseract: TesseractProcess | None = None,
) -> OcrResult:
    """Read ``image`` with Tesseract in ``language`` (``eng``, ``fra+eng``...), turned upright first when
    ``rotate``: Tesseract's automatic page segmentation with orientation detection (``--psm 1``) turns it
    in the same recognition, and the lines' orientation says by how much. ``tesseract``: the worker to
    read with (a new one, ended afterwards, when not given).

    A page whose ink shows it upright (:func:`readers.images.orientation.line_evidence`) is read as it is
    first (``--psm 3``), without orientation detection's cost, and that reading is kept when it found
    words, is confident and its lines ran across; otherwise the page goes to orientation detection as
    every other page does.

    A poor reading (doubtful, :data:`DOUBTFUL_BELOW_CONFIDENCE`, or fewer words than the lines of writing
    its ink shows) is looked at once more: when Tesseract turned the page, the page is read as it is too
    and the more confident reading kept (orientation detection guesses on text it cannot tell upside
    down, such as a page in capitals); orientation and script detection is asked for the page's script,
    which names the language data to read it again with, and for the way round it reads the page; and
    the page is read turned the other ways round (:func:`_read_turned`) unless that detection was sure of
    a way round already read. A page that reads well pays none of this."""
    started = time.perf_counter()
    if not installed_version():
        raise OcrUnavailable(f"Tesseract is not installed: {TESSERACT_INSTALL}")
    if tesseract is None:
        with TesseractProcesses() as own:
            return recognise(
                image, language, dpi=dpi, rotate=rotate, timeout=timeout, tesseract=own.for_this_thread()
            )
    evidence = line_evidence(image) if rotate else None
    as_it_is = reading = None
    began = started
    if evidence is not None and evidence.upright:
        as_it_is = tesseract.read(image, language, psm=3, dpi=dpi, timeout=timeout)
        if as_it_is.confidences and as_it_is.across and not as_it_is.doubtful:
            reading = as_it_is
    if reading is None:
        left = timeout if as_it_is is None else _left(started, timeout)
        began = time.perf_counter()
        reading = tesseract.read(image, language, psm=1 if rotate else 3, dpi=dpi, timeout=left)
    per_reading = time.perf_counter() - began  # the page's latest reading
    script = None
    if evidence is not None and _poor(reading, evidence):
        read = {reading.rotation}  # the ways round the page has been read
        doubtful = reading.doubtful
        if reading.rotation and doubtful:
            if as_it_is is None:
                as_it_is = tesseract.read(image, language, psm=3, dpi=dpi, timeout=_left(started, timeout))
            read.add(0)
            if (as_it_is.mean or 0.0) > (reading.mean or 0.0):
                reading = as_it_is
        elif as_it_is is not None:
            read.add(0)
        detection = tesseract.detect(image, dpi=dpi, timeout=min(OSD_TIMEOUT_S, _left(started, timeout)))
        script = detection.script if doubtful else None
        if _poor(reading, evidence):
            turned = _read_turned(
                tesseract,
                image,
                language,
                reading,
                evidence,
                detection,
                read,
                per_reading=per_reading,
                dpi=dpi,
                started=started,
                timeout=timeout,
            )
            if turned is not reading:  # read confidently turned: in the script of the data it was read with
                reading, script = turned, script if turned.doubtful else None
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


def _poor(reading: Reading, evidence: LineEvidence) -> bool:
    """A reading worth trying the page another way round for: doubtful, or some words but fewer than the
    lines of writing the page's ink shows (each line holds one word at least). A reading of no word at all
    is not: photographs and drawings read as nothing, a page of writing turned wrong reads as nonsense."""
    return reading.doubtful or 0 < len(reading.confidences) < evidence.lines


def _read_turned(
    tesseract: TesseractProcess,
    image: Image.Image,
    language: str,
    reading: Reading,
    evidence: LineEvidence,
    detection: Detection,
    read: set[int],
    *,
    per_reading: float,
    dpi: int,
    started: float,
    timeout: float,
) -> Reading:
    """The best of ``reading`` and readings of ``image`` turned the ways round not ``read`` yet.

    Orientation detection's way round is read first; when it was sure of it (it had enough text,
    :data:`SURE_ROTATION_CONFIDENCE`), it is the only one, and none when it is a way already read. When it
    was not sure, or found too little text to say, the other ways are read in turn (upside down first, the
    commonest way a page is scanned wrong) until one reads well: at most :data:`MAX_TURNED_READINGS`, and
    none that would end past :data:`TURNED_READINGS_BUDGET_S` if it took as long as the slowest reading of
    the page so far (``per_reading`` seconds to begin with). A turned reading is kept when its lines ran
    across, it reaches :data:`TURNED_MIN_CONFIDENCE` and it is more confident than the best so far."""
    if detection.sure and detection.rotation in read:
        return reading
    ways = [detection.rotation] if detection.rotation is not None else []
    ways = list(dict.fromkeys(w for w in [*ways, 180, 90, 270] if w not in read))
    if detection.sure:
        ways = ways[:1]
    turning = time.perf_counter()
    for way in ways[:MAX_TURNED_READINGS]:
        if time.perf_counter() - turning + per_reading > TURNED_READINGS_BUDGET_S:
            break
        began = time.perf_counter()
        turned = tesseract.read(_turn(image, way), language, psm=3, dpi=dpi, timeout=_left(started, timeout))
        per_reading = max(per_reading, time.perf_counter() - began)
        mean = turned.mean or 0.0
        if turned.across and mean >= TURNED_MIN_CONFIDENCE and mean > (reading.mean or 0.0):
            reading = Reading(turned.text, turned.confidences, (way + turned.rotation) % 360, True)
        if not _poor(reading, evidence):
            break
    return reading


_TURNS = {90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_90}


def _turn(image: Image.Image, way: int) -> Image.Image:
    """``image`` turned clockwise by ``way`` degrees (a multiple of 90)."""
    return image.transpose(_TURNS[way]) if way in _TURNS else image


def _left(started: float, timeout: float) -> float:
    """What is left of a page's ``timeout`` (at least a second: a started step is given time to finish)."""
    return max(1.0, timeout - (time.perf_counter() - started))


@dataclass(frozen=True, slots=True)
class Reading:
    """What one recognition of a page says: its words put back into lines and paragraphs, each word's
    confidence, the clockwise degrees the page was turned by to be read, and whether most lines ran
    across the page."""

    text: str
    confidences: tuple[float, ...]
    rotation: int
    across: bool

    @property
    def mean(self) -> float | None:
        """The mean word confidence, to the hundredth; None when no word was read."""
        return round(sum(self.confidences) / len(self.confidences), 2) if self.confidences else None

    @property
    def doubtful(self) -> bool:
        """Read with less mean confidence than :data:`DOUBTFUL_BELOW_CONFIDENCE` (a reading of no word is
        not doubtful: there was nothing to doubt)."""
        return self.mean is not None and self.mean < DOUBTFUL_BELOW_CONFIDENCE


@dataclass(frozen=True, slots=True)
class Detection:
    """What orientation and script detection says of a page: its writing system when it is sure of it,
    the clockwise degrees that turn the page upright (None when it found too little text to say), and
    the margin of that way round over the next."""

    script: str | None
    rotation: int | None
    rotation_confidence: float

    @property
    def sure(self) -> bool:
        """It had text enough to settle the way round (:data:`SURE_ROTATION_CONFIDENCE`)."""
        return self.rotation is not None and self.rotation_confidence >= SURE_ROTATION_CONFIDENCE
