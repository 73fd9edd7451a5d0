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
import time
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

from readers.core.tools import ToolProbe
from readers.images.ocr_result import OcrFailed, OcrResult, OcrUnavailable
from readers.images.rapidocr_worker import CLASSIFIER_MODEL, DETECTION_MODEL, RECOGNITION_MODEL, models_folder
from readers.images.worker_process import WorkerProcess, WorkerProcesses

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

# Orientation detection's scripts the recogniser reads, and the same as the first word of a letter's Unicode
# name (quality/lexicon.py's letter_script).
RAPIDOCR_SCRIPTS = frozenset({"Latin", "Han", "Japanese", "Katakana", "Hiragana"})
RAPIDOCR_LETTERS = frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA"})

# The language a reading records: the recogniser's one model reads Chinese and Latin letters together.
RECOGNISER_LANGUAGE = "chi_sim+eng"

# --- the reading order's measures, as shares of the page's median line box height -------------------
#: Boxes stand in one row where the middle halves of their heights overlap (detection pads each box, so
#: the boxes of consecutive lines overlap at their edges).
ROW_CORE = 0.25
#: Two boxes are one above the other (one column) where they overlap across at least this much.
MIN_OVERLAP = 0.5
#: ... and over at least this share of the narrower one's width: a caption set in the gutter between two
#: columns, which reaches a little into each, stands in neither (a scanned two-column page: 18% of each).
ACROSS_SHARE = 0.5
#: A gap between two lines of a column wider than this starts a paragraph.
PARAGRAPH_GAP = 0.5


@functools.cache
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

    def lines(self, image: Image.Image, *, dpi: int, timeout: float) -> list[RapidOcrLine]:
        """The lines RapidOCR reads on ``image``, in the order it detected them."""
        answer = self.ask({"op": "read"}, image, dpi, timeout)
        if answer["ok"]:
            return [RapidOcrLine.of(line["text"], line["score"], line["box"]) for line in answer["lines"]]
        if answer["error"] == "library":
            raise OcrUnavailable(f"RapidOCR is not installed: {RAPIDOCR_INSTALL}")
        raise OcrFailed(f"RapidOCR failed: {answer['message']}", reason="engine_error")


class RapidOcrProcesses(WorkerProcesses[RapidOcrProcess]):
    """RapidOCR's workers, one a thread, ended together (:class:`WorkerProcesses`)."""

    def __init__(self) -> None:
        super().__init__(RapidOcrProcess)

    def start(self, count: int) -> None:
        """Start ``count`` workers now, loading their models (~0.6 s), while the first pages render."""
        for _ in range(count):
            process = RapidOcrProcess()
            process.warm()
            self.started_ahead(process)


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
class RapidOcrLine:
    """A line RapidOCR read: its text, score (0-1) and the box around its four corners."""

    text: str
    score: float
    x0: float
    y0: float
    x1: float
    y1: float

    @classmethod
    def of(cls, text: str, score: float, corners: Sequence[Sequence[float]]) -> RapidOcrLine:
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        return cls(text, float(score), min(xs), min(ys), max(xs), max(ys))

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    def core(self) -> tuple[float, float]:
        """The middle half of the box's height, where its letters' bodies are."""
        middle, half = (self.y0 + self.y1) / 2, self.height * ROW_CORE
        return middle - half, middle + half


#: A line whose box is this many times higher than wide runs down the page; a page where more than
#: VERTICAL_SHARE of the lines do is written vertically (a line of one or two characters is as high as
#: wide, either way).
VERTICAL_RATIO = 2.0
VERTICAL_SHARE = 0.5


def reading_text(lines: Sequence[RapidOcrLine]) -> tuple[str, list[RapidOcrLine]]:
    """``lines`` in reading order, as text (the boxes of one row joined by a space, the lines of a
    paragraph on lines of their own, paragraphs and columns apart by an empty line) and as the lines in
    that order.

    The order is Breuel's topological sort of text lines ("High performance document layout analysis",
    2003): a line comes before another that it overlaps across and stands above; and before one that
    stands wholly to its right, unless a third line between the two (top to bottom) overlaps both across
    (a title over two columns). A column is thus read to its end before the next, and a line across the
    columns after both. Where the rules leave a choice, the topmost line, then the leftmost, comes first.
    A page written vertically is read column by column, right to left."""
    lines = [line for line in lines if line.text.strip()]
    if not lines:
        return "", []
    if sum(line.height > VERTICAL_RATIO * line.width for line in lines) > VERTICAL_SHARE * len(lines):
        # Written vertically (Japanese, Chinese): columns read top to bottom, the rightmost first.
        ordered = sorted(lines, key=lambda line: (-line.x1, line.y0))
        return "\n".join(line.text.strip() for line in ordered), ordered
    unit = statistics.median(line.height for line in lines)
    ordered = [lines[i] for i in _order(lines, unit)]
    paragraphs: list[str] = []
    paragraph: list[str] = []
    for previous, line in zip([None, *ordered], ordered, strict=False):
        if previous is None:
            paragraph.append(line.text.strip())
        elif _same_row(previous, line) and line.x0 >= previous.x0:
            paragraph[-1] += " " + line.text.strip()
        elif (
            _overlap(previous, line) >= unit * MIN_OVERLAP
            and 0 <= line.y0 - previous.y1 <= unit * PARAGRAPH_GAP
        ):
            paragraph.append(line.text.strip())
        elif (
            _overlap(previous, line) >= unit * MIN_OVERLAP and line.y0 < previous.y1 and line.y1 > previous.y1
        ):
            paragraph.append(line.text.strip())  # the next line of the column, their padded boxes touching
        else:
            paragraphs.append("\n".join(paragraph))
            paragraph = [line.text.strip()]
    paragraphs.append("\n".join(paragraph))
    return "\n\n".join(p for p in paragraphs if p), ordered


def _same_row(a: RapidOcrLine, b: RapidOcrLine) -> bool:
    (a0, a1), (b0, b1) = a.core(), b.core()
    return a0 < b1 and b0 < a1


def _overlap(a: RapidOcrLine, b: RapidOcrLine) -> float:
    """How far ``a`` and ``b`` overlap across (negative: the gap between them)."""
    return min(a.x1, b.x1) - max(a.x0, b.x0)


def _order(lines: Sequence[RapidOcrLine], unit: float) -> list[int]:
    """The indexes of ``lines`` in reading order (:func:`reading_text`)."""
    import numpy as np

    x0 = np.array([b.x0 for b in lines])
    x1 = np.array([b.x1 for b in lines])
    mid = np.array([(b.y0 + b.y1) / 2 for b in lines])
    core = np.array([b.core() for b in lines])
    n = len(lines)
    width = x1 - x0
    overlap = np.minimum.outer(x1, x1) - np.maximum.outer(x0, x0)
    touch = overlap >= unit * MIN_OVERLAP
    across = touch & (overlap >= ACROSS_SHARE * np.minimum.outer(width, width))
    row = (core[:, 0][:, None] < core[:, 1][None, :]) & (core[:, 0][None, :] < core[:, 1][:, None])
    above = mid[:, None] < mid[None, :]
    left_of = x1[:, None] <= x0[None, :]
    # Rule 1: i before j when they overlap across and i stands above (in one row: i is the left one).
    before = across & ~row & above
    before |= row & (x0[:, None] < x0[None, :])
    # Rule 2: i before j when i is wholly left of j, unless a line between them overlaps both across.
    blocked = np.zeros((n, n), dtype=bool)
    low, high = np.minimum.outer(mid, mid), np.maximum.outer(mid, mid)
    for c in range(n):
        between = (low < mid[c]) & (mid[c] < high)
        blocked |= between & across[:, c][:, None] & across[c, :][None, :]
    # ... and only where i's column (the lines overlapping it across) reaches up to j: a page number in
    # the margin, under everything, is not a column of its own read before the page.
    y0, y1 = np.array([b.y0 for b in lines]), np.array([b.y1 for b in lines])
    reach = np.where(touch | np.eye(n, dtype=bool), y0[None, :], np.inf).min(axis=1)
    before |= left_of & ~blocked & (reach[:, None] <= y1[None, :])
    np.fill_diagonal(before, False)
    waiting = before.sum(axis=0)  # the lines each must wait for
    done = np.zeros(n, dtype=bool)
    order: list[int] = []
    place = sorted(range(n), key=lambda i: (mid[i], x0[i]))
    for _ in range(n):
        free = [i for i in place if not done[i] and waiting[i] == 0]
        # A circle of rules (a skewed or crowded page) is broken at its topmost line.
        pick = free[0] if free else next(i for i in place if not done[i])
        done[pick] = True
        order.append(pick)
        waiting -= before[pick]
        waiting[pick] = 0
    return order
