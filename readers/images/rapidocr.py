"""RapidOCR on one page image: PP-OCRv6's small detection and recognition models (inside the rapidocr
wheel, run by ONNX Runtime), the second reader of pixels beside Tesseract (``readers/images/tesseract.py``).

It reads text set in pictures, photographs of pages, short lines in large type and Han and Japanese
writing where Tesseract is weak; its recogniser knows Latin and Han letters only (:data:`RAPIDOCR_LANGUAGES`),
so no other script is sent to it. It runs in a worker process of its own
(``readers/images/rapidocr_worker.py``, over ``readers/images/worker_process.py``) that keeps its models
loaded from page to page on one ONNX thread; a page over its time ends its worker, not the caller.

RapidOCR answers lines of text with their boxes in the order it detected them, top to bottom across the
whole page: :func:`reading_text` puts them back in reading order (lines, paragraphs, and columns read one
after the other).
"""

from __future__ import annotations

import functools
import importlib.metadata
import statistics
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

from readers.core.tools import ToolProbe
from readers.images.ocr_result import OcrFailed, OcrResult, OcrUnavailable
from readers.images.rapidocr_worker import CLASSIFIER_MODEL, DETECTION_MODEL, RECOGNITION_MODEL, models_folder
from readers.images.worker_process import WorkerProcess

RAPIDOCR_INSTALL = "pip install rapidocr==3.10.0 (./scripts/setup installs it)"
ENGINE = "rapidocr"
# Resolution and per-page budget as for Tesseract (readers/images/tesseract.py).
DEFAULT_DPI = 300
DEFAULT_TIMEOUT_S = 120.0

# The Tesseract language codes whose writing the bundled recogniser reads: Chinese (simplified and
# traditional), Japanese, English and the Latin-script languages of its character set. Not Arabic, Hebrew,
# Cyrillic, Greek, Devanagari nor Korean: on pages of those it returns Latin or Han letters with line
# scores of 0.55-1.0, so its confidence cannot be trusted to refuse them.
RAPIDOCR_LANGUAGES = frozenset(
    {
        "eng", "chi_sim", "chi_tra", "jpn",
        "afr", "aze", "bos", "cat", "ces", "cym", "dan", "deu", "est", "eus", "fin", "fra", "gle", "glg",
        "hrv", "hun", "ind", "isl", "ita", "kmr", "lat", "lav", "lit", "ltz", "mlt", "mri", "msa", "nld",
        "nor", "oci", "pol", "por", "que", "ron", "slk", "slv", "spa", "sqi", "swa", "swe", "tgl", "tur",
        "uzb", "vie",
    }
)  # fmt: skip

# The language a reading records: the recogniser's one model reads Chinese and Latin letters together.
RECOGNISER_LANGUAGE = "chi_sim+eng"

# --- the reading order's measures, as shares of the page's median line box height -------------------
#: A vertical strip free of text at least this wide between lines may be a gutter between columns: the
#: boxes RapidOCR draws are about 1.3 times the letters' height, words in a line are a third of it apart,
#: the gutters of the corpus's two-column scans 1.2 and more (tess__8087_054.3B.tif: 59 px, boxes 50 px).
MIN_GUTTER = 0.8
#: A column holds at least this many lines, and at least MIN_COLUMN_SHARE of the text's width: fewer or
#: narrower stacks side by side are a table's cells or a form's fields, read row by row.
MIN_COLUMN_LINES = 4
MIN_COLUMN_SHARE = 0.15
#: Boxes stand in one row where the middle halves of their heights overlap (detection pads each box, so
#: the boxes of consecutive lines overlap at their edges).
ROW_CORE = 0.25
#: A gap between two rows of a column wider than this starts a paragraph.
PARAGRAPH_GAP = 0.5


def installed_version() -> str:
    """The version of the installed rapidocr package (``3.10.0``); empty when it is not installed."""
    try:
        return importlib.metadata.version("rapidocr")
    except importlib.metadata.PackageNotFoundError:
        return ""


@functools.cache
def model_names() -> tuple[str, ...]:
    """The models the worker loads from the wheel (file names without ``.onnx``), those that are there."""
    folder = models_folder()
    if folder is None:
        return ()
    names = (DETECTION_MODEL, RECOGNITION_MODEL, CLASSIFIER_MODEL)
    return tuple(name.removesuffix(".onnx") for name in names if (folder / name).is_file())


def engine_version() -> str:
    """The version recorded with a reading: the package's and its detection and recognition models'."""
    reading = [m for m in model_names() if m.startswith("PP-")]
    return f"{installed_version()} {'+'.join(reading)}".strip()


def reads(language: str) -> bool:
    """Whether RapidOCR reads every language of a Tesseract language string (``fra+eng``)."""
    return all(code in RAPIDOCR_LANGUAGES for code in language.split("+") if code)


def probe() -> ToolProbe:
    """RapidOCR's version, its models and the languages it reads, without reading anything (``assay
    doctor``)."""
    version = installed_version()
    if not version:
        return ToolProbe("rapidocr", False, "", f"not installed: {RAPIDOCR_INSTALL}")
    missing = {DETECTION_MODEL, RECOGNITION_MODEL, CLASSIFIER_MODEL} - {f"{m}.onnx" for m in model_names()}
    if missing:
        return ToolProbe(
            "rapidocr", False, version, f"its wheel lacks {', '.join(sorted(missing))}: reinstall"
        )
    detail = f"models: {', '.join(model_names())}; languages: {', '.join(sorted(RAPIDOCR_LANGUAGES))}"
    return ToolProbe("rapidocr", True, version, detail)


class RapidOcrProcess(WorkerProcess):
    """One RapidOCR worker process (``readers/images/rapidocr_worker.py``), started on first use, that
    keeps its models loaded between pages; one belongs to one thread."""

    module = "readers.images.rapidocr_worker"
    name = "RapidOCR"

    def warm(self) -> None:
        """Start the worker and have it load its models on a blank image, without waiting."""
        self.warm_with({"op": "read"}, Image.new("L", (32, 32), 255), DEFAULT_DPI)

    def lines(self, image: Image.Image, *, dpi: int, timeout: float) -> list[Line]:
        """The lines RapidOCR reads on ``image``, in the order it detected them."""
        answer = self.ask({"op": "read"}, image, dpi, timeout)
        if answer["ok"]:
            return [Line.of(line["text"], line["score"], line["box"]) for line in answer["lines"]]
        if answer["error"] == "library":
            raise OcrUnavailable(f"RapidOCR is not installed: {RAPIDOCR_INSTALL}")
        raise OcrFailed(f"RapidOCR failed: {answer['message']}", reason="engine_error")


class RapidOcrProcesses:
    """A worker process for each thread that asks for one, all ended together when the block ends (as
    :class:`readers.images.tesseract.TesseractProcesses`)."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._all: list[RapidOcrProcess] = []
        self._ready: list[RapidOcrProcess] = []  # started ahead, not yet taken by a thread
        self._lock = threading.Lock()

    def start(self, count: int) -> None:
        """Start ``count`` workers now, loading their models (~0.6 s), while the first pages render."""
        for _ in range(count):
            process = RapidOcrProcess()
            process.warm()
            with self._lock:
                self._all.append(process)
                self._ready.append(process)

    def for_this_thread(self) -> RapidOcrProcess:
        process = getattr(self._local, "process", None)
        if process is None:
            with self._lock:
                if self._ready:
                    process = self._ready.pop()
                else:
                    process = RapidOcrProcess()
                    self._all.append(process)
            self._local.process = process
        return process

    def close(self) -> None:
        with self._lock:
            processes, self._all, self._ready = self._all, [], []
        for process in processes:
            process.close()

    def __enter__(self) -> RapidOcrProcesses:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


_TURNS = {90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_90}


def recognise_rapid(
    image: Image.Image,
    *,
    dpi: int = DEFAULT_DPI,
    rotation: int = 0,
    timeout: float = DEFAULT_TIMEOUT_S,
    rapid: RapidOcrProcess | None = None,
) -> OcrResult:
    """Read ``image``, turned clockwise by ``rotation`` degrees first, with RapidOCR: its text in reading
    order (:func:`reading_text`), each word with its line's score (0-100). ``rapid``: the worker to read
    with (a new one, ended afterwards, when not given)."""
    started = time.perf_counter()
    if not installed_version() or models_folder() is None:
        raise OcrUnavailable(f"RapidOCR is not installed: {RAPIDOCR_INSTALL}")
    if rapid is None:
        with RapidOcrProcesses() as own:
            return recognise_rapid(
                image, dpi=dpi, rotation=rotation, timeout=timeout, rapid=own.for_this_thread()
            )
    turned = image.transpose(_TURNS[rotation % 360]) if rotation % 360 in _TURNS else image
    lines = rapid.lines(turned, dpi=dpi, timeout=timeout)
    text, ordered = reading_text(lines)
    confidences = tuple(
        round(100.0 * line.score, 2) for line in ordered for _ in range(len(line.text.split()))
    )
    mean = round(sum(confidences) / len(confidences), 2) if confidences else None
    return OcrResult(
        text,
        RECOGNISER_LANGUAGE,
        engine_version(),
        dpi,
        rotation % 360,
        None,
        mean,
        confidences,
        round(time.perf_counter() - started, 3),
        engine=ENGINE,
    )


@dataclass(frozen=True, slots=True)
class Line:
    """A line RapidOCR read: its text, score (0-1) and the box around its four corners."""

    text: str
    score: float
    x0: float
    y0: float
    x1: float
    y1: float

    @classmethod
    def of(cls, text: str, score: float, corners: Sequence[Sequence[float]]) -> Line:
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        return cls(text, float(score), min(xs), min(ys), max(xs), max(ys))

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def core(self) -> tuple[float, float]:
        """The middle half of the box's height, where its letters' bodies are."""
        middle, half = (self.y0 + self.y1) / 2, self.height * ROW_CORE
        return middle - half, middle + half


def reading_text(lines: Sequence[Line]) -> tuple[str, list[Line]]:
    """``lines`` in reading order, as text (lines of a paragraph on lines of their own, paragraphs and
    columns apart by an empty line) and as the lines in that order.

    The page is read top to bottom in rows (boxes whose middles are level); consecutive rows that leave a
    strip of the page free of text in common make one stretch, and a free strip at least
    :data:`MIN_GUTTER` wide with text on both sides is a gutter between columns, read one after the
    other, left to right, when each holds :data:`MIN_COLUMN_LINES` lines and :data:`MIN_COLUMN_SHARE` of
    the text's width. A row that leaves no such strip (a title across the columns) ends the stretch."""
    lines = [line for line in lines if line.text.strip()]
    if not lines:
        return "", []
    unit = statistics.median(line.height for line in lines)
    left, right = min(line.x0 for line in lines), max(line.x1 for line in lines)
    blocks: list[list[Line]] = []
    plain = False  # the last block is of stretches without columns, which run on into one another
    for stretch in _stretches(_rows(lines), left, right, unit * MIN_GUTTER):
        columns = _columns(stretch, left, right, unit)
        if len(columns) == 1 and plain:
            blocks[-1].extend(stretch)
        else:
            blocks.extend(columns)
        plain = len(columns) == 1
    paragraphs: list[str] = []
    ordered: list[Line] = []
    for block in blocks:
        rows = _rows(block)
        paragraph: list[str] = []
        for previous, row in zip([None, *rows], rows, strict=False):
            if (
                previous is not None
                and min(b.y0 for b in row) - max(b.y1 for b in previous) > unit * PARAGRAPH_GAP
            ):
                paragraphs.append("\n".join(paragraph))
                paragraph = []
            paragraph.append(" ".join(line.text.strip() for line in row))
            ordered.extend(row)
        paragraphs.append("\n".join(paragraph))
    return "\n\n".join(p for p in paragraphs if p), ordered


def _rows(lines: Sequence[Line]) -> list[list[Line]]:
    """``lines`` in rows, top to bottom, each row's lines left to right: a line joins the row whose
    letters' middles (:meth:`Line.core`) overlap its own."""
    rows: list[list[Line]] = []
    bottom = float("-inf")
    for line in sorted(lines, key=lambda b: (b.core()[0], b.x0)):
        top, low = line.core()
        if rows and top < bottom:
            rows[-1].append(line)
            bottom = max(bottom, low)
        else:
            rows.append([line])
            bottom = low
    return [sorted(row, key=lambda b: b.x0) for row in rows]


Strip = tuple[float, float]


def _free(row: Sequence[Line], left: float, right: float) -> list[Strip]:
    """The strips of ``[left, right]`` that no line of ``row`` covers."""
    strips, at = [], left
    for line in sorted(row, key=lambda b: b.x0):
        if line.x0 > at:
            strips.append((at, line.x0))
        at = max(at, line.x1)
    if at < right:
        strips.append((at, right))
    return strips


def _common(a: Sequence[Strip], b: Sequence[Strip], wide: float) -> list[Strip]:
    """The strips free in both ``a`` and ``b``, those at least ``wide``."""
    found = []
    for a0, a1 in a:
        for b0, b1 in b:
            lo, hi = max(a0, b0), min(a1, b1)
            if hi - lo >= wide:
                found.append((lo, hi))
    return found


def _stretches(rows: list[list[Line]], left: float, right: float, wide: float) -> list[list[Line]]:
    """Consecutive rows grouped while they leave a strip at least ``wide`` free of text in common, off
    the text's edges (a gutter's room); a row that leaves none starts a stretch of its own."""
    stretches: list[list[Line]] = []
    free: list[Strip] = []
    for row in rows:
        own = [s for s in _free(row, left, right) if s[1] - s[0] >= wide]
        common = [s for s in _common(free, own, wide) if left < s[0] and s[1] < right]
        if stretches and common:
            stretches[-1].extend(row)
            free = _common(free, own, wide)
        else:
            stretches.append(list(row))
            free = own
    return stretches


def _columns(stretch: list[Line], left: float, right: float, unit: float) -> list[list[Line]]:
    """``stretch`` cut at its gutters into columns, left to right; one block when it has none."""
    gutters = sorted(
        s
        for s in _free(stretch, left, right)
        if s[1] - s[0] >= unit * MIN_GUTTER and left < s[0] and s[1] < right
    )
    columns: list[list[Line]] = [[]]
    edges = [g[0] for g in gutters]
    for line in sorted(stretch, key=lambda b: b.x0):
        while len(columns) <= len(edges) and line.x0 >= gutters[len(columns) - 1][1]:
            columns.append([])
        columns[-1].append(line)
    columns = [c for c in columns if c]
    wide = (right - left) * MIN_COLUMN_SHARE
    if len(columns) > 1 and all(
        len(_rows(c)) >= MIN_COLUMN_LINES and max(b.x1 for b in c) - min(b.x0 for b in c) >= wide
        for c in columns
    ):
        return columns
    return [stretch]
