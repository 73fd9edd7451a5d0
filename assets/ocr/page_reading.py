"""The OCR stage's work: exactly the pages the verdicts sent to OCR, one single-threaded Tesseract per core.

What is read (docs/design.md §4): a ``REPLACE`` page whole (a scanned page, garbage no repair saved,
text drawn as outlines), an image document's frames whole, and the figure regions of a ``FIGURES`` page
(rendered without the text layer, so nothing already extracted comes back twice). ``BLANK``, ``LANG`` and
every other page are never sent; an OCR sandwich's pages are ``TEXT`` when its layer is clean, so they are not
read again.

Never an empty text: a page Tesseract read nothing on is ``underivable`` (reason ``no_text``) with its
tool, version and figures; a page over its time budget is ``error``/``timeout``; a page that cannot be
rendered is ``error``/``render_failed:<why>``. One page never stops the others.

A document has an OCR budget too: at most so many pages (assets/ocr/work.py refuses the rest when it
plans) and so many seconds of rendering and recognition summed over its pages (:class:`DocumentClock`).
A page past either is recorded ``error`` with reason ``over_budget:pages`` or ``over_budget:seconds`` and
never sent to Tesseract; a page in flight is given no more than what its document has left.

Pages are rendered in the calling thread (PyMuPDF is not thread-safe) and recognised in a pool of
threads, each waiting on its own Tesseract worker process, which keeps its models loaded from page to page
and is ended with the stage: on a two-core machine one single-threaded Tesseract per core reads six times
faster than one Tesseract with its default OpenMP threads (docs/design.md §9). At most two rendered pages per
worker wait in memory.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from assets.ocr.engines import engine_version, read_image, start_workers
from quality.language import best_language
from quality.records import OcrEngine, OcrPageRecord, OcrScope
from readers.core.cores import usable_cores
from readers.core.diagnostics import mupdf_said, quiet_mupdf
from readers.core.model import IMAGE_KINDS, ContentKind, ReadLimits
from readers.core.snapshot import WalkedFile
from readers.images.ocr_result import OcrFailed, OcrResult, OcrUnavailable
from readers.images.tesseract import DEFAULT_DPI, DEFAULT_TIMEOUT_S, installed_languages
from readers.images.worker_process import WorkerProcesses

if TYPE_CHECKING:
    from assets.settings import Settings

# wordfreq language codes to Tesseract's. The set-up installs the first seven; the others are used when
# their data is installed (apt-get install tesseract-ocr-<code>), and otherwise recorded as missing.
TESSERACT_LANGUAGES = {
    "en": "eng",
    "fr": "fra",
    "de": "deu",
    "es": "spa",
    "it": "ita",
    "pt": "por",
    "nl": "nld",
    "ar": "ara",
    "cs": "ces",
    "da": "dan",
    "el": "ell",
    "fi": "fin",
    "he": "heb",
    "hu": "hun",
    "ja": "jpn",
    "ko": "kor",
    "pl": "pol",
    "ru": "rus",
    "sv": "swe",
    "tr": "tur",
    "uk": "ukr",
    "zh": "chi_sim",
}
DEFAULT_OCR_LANGUAGE = "eng"
# A figure region's transcription is kept only when the engine was this sure of its words on average, and
# read at least FIGURE_MIN_CHARS. On the dev corpus's 16 FIGURES pages, real figure text (scanned
# exhibits, a cover's logo) read at 93-96 in Tesseract, while hatching, arrowheads and vertical outline
# labels inside ruled tables read as letters at 47-65: 70 keeps the one and drops the other. RapidOCR's
# line scores run higher: RAPIDOCR_MIN_CONFIDENCE.
# RapidOCR scores each line 0-1 (x 100 here): on the dev corpus every page in a script its model reads
# scored 97-99 on average over its words, pages in scripts it cannot read (Hebrew, Devanagari) 79-84,
# their lines 55-74 with single letters at 100.
RAPIDOCR_MIN_CONFIDENCE = 90.0
FIGURE_MIN_CONFIDENCE = {OcrEngine.TESSERACT: 70.0, OcrEngine.RAPIDOCR: RAPIDOCR_MIN_CONFIDENCE}
FIGURE_MIN_CHARS = 3
# A page read whole is legible when Tesseract's mean word confidence reaches PAGE_MIN_CONFIDENCE, or, under
# it, when its text still matches a language profile clearly (LEGIBLE_MIN_SIMILARITY, ahead of the
# runner-up by LEGIBLE_MIN_MARGIN); otherwise it is underivable (illegible), its text kept in ocr_pages for
# inspection but never used. On the dev corpus, pages in a script read with another script's data
# (Hebrew, Devanagari, vertical Japanese, Chinese as English) came out as nonsense at 25-41 that matches no
# profile (at most 0.31, 0.01 ahead of the next), while every legible page read at 61 or more, except
# pointed Hebrew read with Hebrew data: 39, its vowel points costing confidence, and 0.42 Hebrew.
PAGE_MIN_CONFIDENCE = {OcrEngine.TESSERACT: 50.0, OcrEngine.RAPIDOCR: RAPIDOCR_MIN_CONFIDENCE}
LEGIBLE_MIN_SIMILARITY = 0.4
LEGIBLE_MIN_MARGIN = 0.08
# Tesseract's data for the scripts orientation detection names, where it is installed.
SCRIPT_LANGUAGES = {
    "Arabic": "ara",
    "Bengali": "ben",
    "Cyrillic": "rus",
    "Devanagari": "hin",
    "Greek": "ell",
    "Han": "chi_sim",
    "Hangul": "kor",
    "Hebrew": "heb",
    "Japanese": "jpn",
    "Katakana": "jpn",
    "Hiragana": "jpn",
    "Thai": "tha",
}
# A word Tesseract is less sure of than this is counted as doubtful (ocr_pages.low_confidence_words). On the
# four dev corpus documents with a full truth (phototest, eurotext, 8087_054.3B, linn), words read at 85 or
# more were wrong 1% of the time (11 of 1,503), words under 85 37% of the time (9 of 24).
LOW_WORD_CONFIDENCE = 85.0
# OCR's budget per document. On the dev corpus (ocr_pages of one run, summed per document) the most pages
# a document sends to OCR is 6 (the figure regions of two PDFs) and the longest OCR of a document 72 s (3
# pages, wall time on 2 loaded cores); 200 pages at the measured 0.164 pages/s per core take about 1,220 s,
# so 200 pages and 1,800 s read a 200-page scanned book whole, while a 2,000-frame TIFF (1,247 s of
# Tesseract unbounded) stops at its 200th frame. docs/decisions.md has the figures.
DEFAULT_MAX_PAGES_PER_DOCUMENT = 200
DEFAULT_DOCUMENT_TIMEOUT_S = 1800.0
OVER_PAGE_BUDGET = "over_budget:pages"
OVER_TIME_BUDGET = "over_budget:seconds"
BUDGET_REASONS = frozenset({OVER_PAGE_BUDGET, OVER_TIME_BUDGET})


@dataclass(frozen=True, slots=True)
class LanguageChoice:
    language: str
    source: str


def ocr_language(
    document_language: str | None, installed: Iterable[str], default: str = DEFAULT_OCR_LANGUAGE
) -> LanguageChoice:
    """The document's detected language where Tesseract has its data, else the configured default, with
    where the choice came from; never guessed per word or per page."""
    if not document_language:
        return LanguageChoice(default, "configured")
    code = TESSERACT_LANGUAGES.get(document_language)
    if code is not None and code in set(installed):
        return LanguageChoice(code, "document")
    return LanguageChoice(default, f"no_data:{document_language}")


@dataclass(frozen=True, slots=True)
class OcrTask:
    """One page (or one FIGURES page's figure regions) of one document to read: ``path`` is the walked
    path, read only as the ``size`` bytes whose hash is ``sha256`` (readers/core/snapshot.py)."""

    sha256: str
    shard: str
    path: Path
    size: int
    kind: ContentKind
    page: int
    scope: OcrScope
    language: LanguageChoice
    engine: OcrEngine = OcrEngine.TESSERACT
    rotation: int = 0  # clockwise degrees to turn the page by before reading (a second engine's task)
    asked: str | None = None  # why a second engine reads the page (assets/ocr/engines.py)


@dataclass(frozen=True, slots=True)
class _Rendered:
    images: tuple[Image.Image, ...]
    dpi: int
    rotate: bool


@dataclass(frozen=True, slots=True)
class OcrOptions:
    dpi: int = DEFAULT_DPI
    timeout: float = DEFAULT_TIMEOUT_S
    workers: int = 0  # 0: one per core
    max_pixels: int = ReadLimits().max_image_pixels
    max_pages_per_document: int = DEFAULT_MAX_PAGES_PER_DOCUMENT
    document_timeout: float = DEFAULT_DOCUMENT_TIMEOUT_S
    second_engine: bool = True  # RapidOCR reads again the pages Tesseract is weak on (assets/ocr/engines.py)

    @classmethod
    def of(cls, settings: Settings) -> OcrOptions:
        """The options a run's settings give (assets/settings.py)."""
        return cls(
            dpi=settings.ocr_dpi,
            timeout=settings.ocr_page_timeout_s,
            workers=settings.ocr_workers,
            max_pixels=settings.max_image_pixels,
            max_pages_per_document=settings.ocr_max_pages_per_document,
            document_timeout=settings.ocr_document_timeout_s,
            second_engine=settings.ocr_second_engine,
        )


DEFAULT_OPTIONS = OcrOptions()


class DocumentClock:
    """The seconds of OCR each document has spent (rendering and recognition, summed over its pages, so
    pages read side by side count each), against the budget per document. Shared by Tesseract's threads."""

    def __init__(self, budget: float, spent: dict[str, float] | None = None) -> None:
        self.budget = budget
        self._spent = dict(spent or {})
        self._pages: dict[tuple[str, int, str], float] = {}
        self._lock = threading.Lock()

    def add(self, sha256: str, seconds: float, page: tuple[str, int, str] | None = None) -> None:
        """Charge ``seconds`` to the document, and to ``page`` (:func:`page_key`) when given."""
        with self._lock:
            self._spent[sha256] = self._spent.get(sha256, 0.0) + seconds
            if page is not None:
                self._pages[page] = self._pages.get(page, 0.0) + seconds

    def page_seconds(self, page: tuple[str, int, str]) -> float:
        """The rendering and recognition seconds charged to one page (not its wait for a free thread)."""
        with self._lock:
            return self._pages.get(page, 0.0)

    def left(self, sha256: str) -> float:
        with self._lock:
            return self.budget - self._spent.get(sha256, 0.0)


def page_key(task: OcrTask) -> tuple[str, int, str]:
    """The page a task reads, with the engine that reads it: two engines' readings are timed apart."""
    return (task.sha256, task.page, f"{task.scope.value}:{task.engine.value}")


def ocr_tasks(
    tasks: Sequence[OcrTask],
    version: str,
    options: OcrOptions = DEFAULT_OPTIONS,
    *,
    on_page: Callable[[OcrPageRecord], None] | None = None,
    clock: DocumentClock | None = None,
    scratch: Path | None = None,
) -> list[OcrPageRecord]:
    """Read every task; one row per task, in the tasks' order. Never raises for a bad page.

    ``clock`` holds what each document has already spent (an earlier run's pages, a first reading); a
    task whose document has spent its time budget is recorded ``over_budget:seconds`` unread.

    Pages are rendered from a snapshot of their document's walked bytes (:class:`WalkedFile`, under
    ``scratch``, the system's temporary directory by default), made when its first page is rendered and
    removed when the next document's is, or when the stage ends, however it ends. Tesseract only ever sees
    the rendered images. A document whose file is no longer those bytes has each of its pages recorded
    ``error`` with the file's reason (``changed_since_walk``, ``vanished``, ``unreadable``), unread."""
    dpi, timeout, max_pixels = options.dpi, options.timeout, options.max_pixels
    clock = clock if clock is not None else DocumentClock(options.document_timeout)
    workers = options.workers or usable_cores()
    slots = threading.BoundedSemaphore(2 * workers)
    waiting: deque[tuple[OcrTask, list[Future[OcrResult]] | OcrPageRecord]] = deque()
    out: list[OcrPageRecord] = []

    def emit(ready_only: bool) -> None:
        while waiting:
            task, work = waiting[0]
            if ready_only and not isinstance(work, OcrPageRecord) and not all(f.done() for f in work):
                return
            waiting.popleft()
            if isinstance(work, OcrPageRecord):
                record = work
            else:
                wait(work)  # the page's recognition time is charged once its regions are read
                record = _collect(task, version, clock.page_seconds(page_key(task)), work)
            if on_page is not None:
                on_page(record)
            out.append(record)

    walked: WalkedFile | None = None  # the document whose pages are being rendered
    engine = tasks[0].engine if tasks else OcrEngine.TESSERACT
    language = tasks[0].language.language if tasks else ""
    engines = start_workers(engine, min(workers, len(tasks)), language)
    with engines, ThreadPoolExecutor(max_workers=workers, thread_name_prefix=engine.value) as pool:
        try:
            for task in tasks:
                key = page_key(task)
                started = time.perf_counter()
                if clock.left(task.sha256) <= 0:  # the document's budget is spent: not rendered, not read
                    waiting.append((task, unread_record(task, version, OVER_TIME_BUDGET)))
                    emit(ready_only=True)
                    continue
                if walked is None or (walked.original, walked.sha256) != (task.path, task.sha256):
                    if walked is not None:
                        walked.close()
                    walked = WalkedFile(task.path, sha256=task.sha256, size=task.size, scratch=scratch)
                try:
                    source = walked.path()
                    rendered = _render(task, source, dpi, max_pixels)
                except Exception as exc:  # one page that cannot be rendered is recorded, the others go on
                    # A file that is not the walked bytes any more: its own reason, nothing of it read.
                    refused = walked.refused
                    reason = refused.reason if refused is exc else _render_reason(exc)
                    spent = time.perf_counter() - started
                    waiting.append((task, _unread(task, version, dpi, spent, reason)))
                    emit(ready_only=True)
                    continue
                finally:
                    clock.add(task.sha256, time.perf_counter() - started, page=key)
                futures: list[Future[OcrResult]] = []
                for image in rendered.images:
                    slots.acquire()
                    future = pool.submit(
                        _recognise_within,
                        engines,
                        clock,
                        task,
                        image,
                        dpi=rendered.dpi,
                        rotate=rendered.rotate,
                        timeout=timeout,
                    )
                    future.add_done_callback(lambda _f: slots.release())
                    futures.append(future)
                if futures:
                    waiting.append((task, futures))
                else:  # a FIGURES page whose regions are all too small to read
                    spent = clock.page_seconds(key)
                    record = _unread(task, version, rendered.dpi, spent, "no_regions", status="underivable")
                    waiting.append((task, record))
                emit(ready_only=True)
        finally:
            if walked is not None:
                walked.close()
        emit(ready_only=False)
    return out


def _recognise_within(
    workers: WorkerProcesses,
    clock: DocumentClock,
    task: OcrTask,
    image: Image.Image,
    *,
    dpi: int,
    rotate: bool,
    timeout: float,
) -> OcrResult:
    """``image`` read by this thread's worker of the task's engine, given no more time than its page's
    budget and its document's, whichever is less; the time it took is the document's and the page's
    (:func:`page_key`)."""
    sha256, page = task.sha256, page_key(task)
    left = clock.left(sha256)
    if left <= 0:
        raise OcrFailed("the document's OCR budget was spent", reason=OVER_TIME_BUDGET)
    started = time.perf_counter()
    try:
        return read_image(
            task.engine,
            workers,
            image,
            task.language.language,
            dpi=dpi,
            rotate=rotate,
            rotation=task.rotation,
            timeout=min(timeout, left),
        )
    except OcrFailed as exc:
        if exc.reason == "timeout" and left < timeout:
            raise OcrFailed(f"the document's OCR budget ran out: {exc}", reason=OVER_TIME_BUDGET) from exc
        raise
    finally:
        clock.add(sha256, time.perf_counter() - started, page=page)


def _render(task: OcrTask, source: Path, dpi: int, max_pixels: int) -> _Rendered:
    """The images of ``task`` to recognise, rendered from ``source`` (its document's verified snapshot).
    What MuPDF says while it renders is not printed: the extract stage heard it already, reading the same
    file (derivations.diagnostics)."""
    quiet_mupdf()
    try:
        return _rendered(task, source, dpi, max_pixels)
    finally:
        mupdf_said()


def _rendered(task: OcrTask, source: Path, dpi: int, max_pixels: int) -> _Rendered:
    if task.kind in IMAGE_KINDS:
        from readers.images.image import load_frame

        frame = load_frame(source, task.page, max_pixels=max_pixels)
        return _Rendered((frame.image,), frame.dpi, rotate=True)
    if task.scope == OcrScope.FIGURES:
        from readers.pdf.figure_regions import render_figures

        # Figure labels run every way (axis titles, rotated callouts): no page orientation to detect.
        return _Rendered(tuple(f.image for f in render_figures(source, task.page, dpi)), dpi, rotate=False)
    from readers.images.tesseract import render_page
    from readers.pdf.salvage import open_pdf_file

    # Opened as the PDF reader opened it, so that a document read from its surviving pages has them.
    page = render_page(source, task.page, dpi, opener=open_pdf_file)
    return _Rendered((page,), dpi, rotate=True)


def _collect(task: OcrTask, version: str, seconds: float, futures: list[Future[OcrResult]]) -> OcrPageRecord:
    """The page's row from its regions' results; ``seconds``: its rendering and recognition time."""
    results: list[OcrResult] = []
    for future in futures:
        try:
            results.append(future.result())
        except OcrUnavailable:
            return _unread(task, version, 0, seconds, "unavailable")
        except OcrFailed as exc:
            return _unread(task, version, 0, seconds, exc.reason)
        except Exception as exc:  # an untranslated engine error must not fail the shard
            return _unread(task, version, 0, seconds, f"engine_error:{type(exc).__name__}")
    engine = task.engine
    kept = results if task.scope == OcrScope.PAGE else [r for r in results if _legible_figure(r, engine)]
    script = results[0].script if task.scope == OcrScope.PAGE else None
    texts = [r.text for r in kept if r.chars]
    confidences = sorted(c for r in kept for c in r.confidences)
    chars = sum(r.chars for r in kept)
    has_text = chars > 0
    mean = round(sum(confidences) / len(confidences), 2) if confidences else None
    reason = None if has_text else "no_text"
    if task.scope == OcrScope.FIGURES and not has_text and any(r.chars for r in results):
        reason = "low_confidence"
    elif has_text and task.scope == OcrScope.PAGE and not _legible(texts, mean, engine):
        # Read, but not legibly: most often a script Tesseract has no data for.
        wanted = SCRIPT_LANGUAGES.get(script or "")
        missing = wanted is not None and wanted not in installed_languages()
        reason = f"no_data:{script}" if missing else "illegible"
    return OcrPageRecord(
        sha256=task.sha256,
        shard=task.shard,
        extractor_version=version,
        page=task.page,
        scope=task.scope.value,
        regions=len(results),
        status="derived" if reason is None else "underivable",
        reason=reason,
        engine=engine.value,
        engine_version=results[0].engine_version,
        language=task.language.language,
        language_source=task.language.source,
        dpi=results[0].dpi,
        rotation=results[0].rotation if task.scope == OcrScope.PAGE else 0,
        script=script,
        confidence=mean,
        confidence_p10=confidences[len(confidences) // 10] if confidences else None,
        confidence_p50=confidences[len(confidences) // 2] if confidences else None,
        low_confidence_words=sum(1 for c in confidences if c < LOW_WORD_CONFIDENCE),
        words=len(confidences),
        chars=chars,
        seconds=round(seconds, 3),
        text="\n\n".join(texts) if has_text else None,
        asked=task.asked,
    )


def _legible(texts: list[str], mean: float | None, engine: OcrEngine) -> bool:
    if mean is None or mean >= PAGE_MIN_CONFIDENCE[engine]:
        return True
    guess = best_language("\n".join(texts))
    return (
        guess.language is not None
        and guess.similarity >= LEGIBLE_MIN_SIMILARITY
        and guess.similarity - guess.runner_up_similarity >= LEGIBLE_MIN_MARGIN
    )


def _legible_figure(result: OcrResult, engine: OcrEngine) -> bool:
    return (
        result.chars >= FIGURE_MIN_CHARS
        and result.mean_confidence is not None
        and result.mean_confidence >= FIGURE_MIN_CONFIDENCE[engine]
    )


def _render_reason(exc: Exception) -> str:
    reason = getattr(exc, "reason", None)
    return f"render_failed:{reason or type(exc).__name__}"


def unread_record(task: OcrTask, version: str, reason: str) -> OcrPageRecord:
    """A task refused before anything was rendered (its document's OCR budget is spent): ``error``."""
    return _unread(task, version, 0, 0.0, reason)


def _unread(
    task: OcrTask, version: str, dpi: int, seconds: float, reason: str, status: str = "error"
) -> OcrPageRecord:
    """A task that produced no text without Tesseract reading anything: the reason says why."""
    return OcrPageRecord(
        sha256=task.sha256,
        shard=task.shard,
        extractor_version=version,
        page=task.page,
        scope=task.scope.value,
        regions=0,
        status=status,
        reason=reason,
        engine=task.engine.value,
        engine_version=engine_version(task.engine),
        language=task.language.language,
        language_source=task.language.source,
        dpi=dpi,
        rotation=0,
        script=None,
        confidence=None,
        confidence_p10=None,
        confidence_p50=None,
        low_confidence_words=0,
        words=0,
        chars=0,
        seconds=round(seconds, 3),
        text=None,
        asked=task.asked,
    )
