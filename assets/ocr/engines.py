"""The OCR engines the stage reads with, and which pages the second engine reads.

Tesseract reads every page sent to OCR first: it is strong on dense text in its scripts, and it has
language data for many scripts. RapidOCR (``readers/images/rapidocr.py``) reads a page again where
Tesseract is weak, for one of these reasons (``ocr_pages.asked``):

- ``illegible``, ``no_text``: Tesseract read nothing legible, or nothing, on a page sent to OCR;
- ``doubtful``: its mean word confidence is under :data:`~readers.images.tesseract.DOUBTFUL_BELOW_CONFIDENCE`;
- ``sparse``: it read fewer than :data:`SPARSE_MAX_WORDS` words, under :data:`SPARSE_SURE_CONFIDENCE`:
  a cover, a slide, a label, a map, a short note, large type, where its page segmentation is weakest
  and a second reading is cheap;
- ``figures``: the figure regions of a FIGURES page (text set in pictures), unless Tesseract read them
  legibly and confidently;
- ``han``: the page is read in Chinese or Japanese, which RapidOCR's model reads and reads vertically.

No page goes to an engine that cannot read its script or its language: RapidOCR reads Latin script, Chinese
and Japanese (:data:`~readers.images.rapidocr.RAPIDOCR_LANGUAGES`), so a page read in Arabic, Hebrew,
Cyrillic, Greek, Devanagari or Korean data, or whose script orientation detection named as one of them,
stays with Tesseract. quality/ocr_choice.py keeps the better of the two readings.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from quality.lexicon import language_script
from quality.records import OcrEngine, OcrPageRecord, OcrScope
from readers.images import rapidocr, tesseract
from readers.images.ocr_result import OcrResult
from readers.images.worker_process import WorkerProcesses

#: A page Tesseract read fewer words on than this is read by RapidOCR too. On the dev corpus, pages of
#: dense text read 300-730 words; the pages Tesseract misread (a map's labels, a table with a grey header,
#: a page of pangrams in six languages) 30-130, and RapidOCR reads such a page in 1-2 s.
SPARSE_MAX_WORDS = 200
#: ... unless Tesseract read it this confidently: on the dev corpus every sparse page Tesseract read at
#: 95-96 (a page of a few lines, a one-word page, a caption) read the same in RapidOCR, while the sparse
#: pages RapidOCR read better had been read at 88-92.
SPARSE_SURE_CONFIDENCE = 93.0
#: Tesseract's languages RapidOCR reads vertically set as well as across (its reason ``han``).
HAN_LANGUAGES = frozenset({"chi_sim", "chi_tra", "jpn"})


def engine_version(engine: OcrEngine) -> str:
    """The installed engine's version as its readings record it; empty when it is not installed."""
    return tesseract.installed_version() if engine == OcrEngine.TESSERACT else rapidocr.engine_version()


def start_workers(engine: OcrEngine, count: int, language: str) -> WorkerProcesses:
    """``count`` workers of ``engine`` started now (none when it is not installed: the first page read
    says so), so that their start overlaps with rendering the first pages."""
    if engine == OcrEngine.TESSERACT:
        workers = tesseract.TesseractProcesses()
        if count and engine_version(engine):
            workers.start(count, language)
        return workers
    rapid = rapidocr.RapidOcrProcesses()
    if count and engine_version(engine):
        rapid.start(count)
    return rapid


def read_image(
    engine: OcrEngine,
    workers: WorkerProcesses,
    image: Image.Image,
    language: str,
    *,
    dpi: int,
    rotate: bool,
    rotation: int,
    timeout: float,
) -> OcrResult:
    """One image read by this thread's worker of ``engine``."""
    if engine == OcrEngine.TESSERACT:
        return tesseract.recognise(
            image, language, dpi=dpi, rotate=rotate, timeout=timeout, tesseract=workers.for_this_thread()
        )
    return rapidocr.recognise_rapid(
        image, dpi=dpi, rotation=rotation if rotate else 0, timeout=timeout, rapid=workers.for_this_thread()
    )


def asked_because(record: OcrPageRecord) -> str | None:
    """Why RapidOCR should read the page Tesseract read into ``record`` too; None when it should not
    (Tesseract read it well, could not read it for a reason a second engine shares, or RapidOCR cannot
    read its script or language)."""
    if record.engine != OcrEngine.TESSERACT or record.status == "error":
        return None  # timed out, over budget, not rendered: another engine would fare no better
    if not rapidocr.reads(record.language):
        return None
    no_data = record.language_source.startswith("no_data:")
    if no_data and language_script(record.language_source.split(":", 1)[1]) not in rapidocr.RAPIDOCR_LETTERS:
        return None  # the document's language is known, in a script RapidOCR does not read (Persian)
    if (
        record.script is not None
        and record.script not in rapidocr.RAPIDOCR_SCRIPTS
        and record.status == "derived"
    ):
        # Orientation detection's script, confirmed by a legible reading. On a page Tesseract could not
        # read it is a guess: hand-drawn Latin capitals were named Arabic.
        return None
    if record.language in HAN_LANGUAGES:
        return "han"
    confidence = record.confidence or 0.0
    if record.scope == OcrScope.FIGURES:
        confident = record.status == "derived" and confidence >= tesseract.DOUBTFUL_BELOW_CONFIDENCE
        return None if confident else "figures"
    if record.status == "underivable":
        return "no_text" if record.reason == "no_text" else "illegible"
    if record.confidence is not None and confidence < tesseract.DOUBTFUL_BELOW_CONFIDENCE:
        return "doubtful"
    if record.words < SPARSE_MAX_WORDS and confidence < SPARSE_SURE_CONFIDENCE:
        return "sparse"
    return None


def keep_readings(firsts: Sequence[OcrPageRecord], seconds: Sequence[OcrPageRecord]) -> list[OcrPageRecord]:
    """Every reading of the pages, each marked kept or not (quality/ocr_choice.py): a page one engine
    read keeps its reading; a page both read keeps the one the evidence scores higher."""
    from quality.ocr_choice import choose, only_reading

    by_key = {(r.sha256, r.page, r.scope): r for r in seconds}
    out: list[OcrPageRecord] = []
    for first in firsts:
        second = by_key.pop((first.sha256, first.page, first.scope), None)
        if second is None:
            out.append(first if first.kept is not None else only_reading(first))
        else:
            out.extend(choose(first, second))
    out.extend(only_reading(r) for r in by_key.values())  # a second reading without a first: none today
    return out
