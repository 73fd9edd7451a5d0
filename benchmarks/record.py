"""The performance record: every speed figure assay stands by, measured in one run, written to
docs/benchmarks.md.

    .venv/bin/python benchmarks/record.py [--corpus DIR] [--quick] [--output FILE] [--only N ...]

The machine is shared and noisy, so every figure is two measurements taken side by side in the same run
and their ratio; only the ratio means anything. The measurements:

1. the text-layer path (the PDF reader chain, the page signals, the verdicts) against raw PyMuPDF
   ``get_text("dict")``, pdfplumber ``extract_text()`` (a capped sample) and pymupdf4llm ``to_markdown``
   on the corpus's born-digital PDFs, in pages per second, alternating the order across repetitions;
2. OCR pages per second per core, the OCR stage's path against bare single-threaded Tesseract on the
   same images, one per core (benchmarks/bench_ocr.py);
3. ``assay run`` over ../shared/corpus/dev into a fresh home, then again with nothing changed
   (benchmarks/bench_rerun.py), as subprocesses;
4. ``assay run`` over 1x, 16x and 64x distinct copies of the corpus's text-layer documents
   (benchmarks/scale_corpus.py): time, peak memory of the process tree polled every 50 ms, and the
   README's example queries on each scale's catalog;
5. Dagster's cost: the extract stage over 1 shard and over a backfill batch of shards as a Dagster run
   against the same asset function called directly, on a home that is up to date;
6. the fixed cost of a small run: ``assay run`` on one 1-page PDF into a fresh home against ``assay check``
   on it, ``assay check`` against ``python -c "import pymupdf"``, and one new file added to an up-to-date
   home against ``assay check`` on that file, each pair alternated and repeated (medians);
7. a first run over the dev corpus in this process, as ``assay run`` executes it (Dagster runs) against
   the same plan with every asset called as a function, and against the documents' read, judge and OCR
   time per usable core;
10. the OCR stage with its second engine against the stage with Tesseract alone, per page sent to OCR per
   core, over every page the dev corpus sends to OCR, with the share of pages RapidOCR read, by why
   (benchmarks/bench_ocr_engines.py).

``--quick`` shrinks every measurement (one repetition, a few pages, scales 1x and 4x, the rerun over the
1x copy instead of the dev corpus) to smoke-test the script in a few minutes. ``--output`` writes the
record elsewhere than docs/benchmarks.md. Exits 1 when a measurement failed (the others still run and the
record says which), 0 otherwise, whether or not the targets hold. ``--only`` measures the sections named
and keeps the others as the page has them.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.metadata
import io
import multiprocessing
import os
import platform
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from readers.core.offline import keep_offline  # noqa: E402

keep_offline()  # before PyMuPDF is imported: no layout model, no telemetry (readers/core/offline.py)
import psutil  # noqa: E402
import pymupdf  # noqa: E402

from benchmarks import bench_extract, bench_ocr, bench_ocr_engines, bench_rerun  # noqa: E402
from benchmarks.scale_corpus import ScaledCorpus, add_copies, scaled_corpus  # noqa: E402
from readers.core.reading_records import DocumentRecord  # noqa: E402
from readers.core.versions import EXTRACTOR_VERSION  # noqa: E402
from readers.pdf import layout_model  # noqa: E402

DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_OUTPUT = REPO / "docs" / "benchmarks.md"

# --- targets (the acceptance of the performance work) --------------------------------------------------
# assay's whole text-layer path (read, signals, verdicts) against pymupdf4llm, the markdown converter a
# user would pick: docs/design.md §9 measured pymupdf4llm 2.0 at about 3.3 pages/s on this kind of machine.
TEXT_LAYER_OVER_PYMUPDF4LLM_MIN = 25.0
# ... and against the library it is built on: raw PyMuPDF `get_text("dict")` on the same pages.
TEXT_LAYER_OVER_RAW_DICT_MIN = 0.35
# The OCR stage against bare single-threaded Tesseract on the same images, per core.
OCR_PER_CORE_MIN = 0.9
# The OCR stage with its second engine (RapidOCR reading again the pages Tesseract read poorly or sparsely)
# against the stage with Tesseract alone, seconds per page sent to OCR per core, on the dev corpus.
OCR_SECOND_ENGINE_MAX = 1.5
# A rerun with nothing changed hashes and reads nothing: what is left is process start, the walk's stat
# calls and one Dagster run; it should cost at most this share of the first run over the dev corpus.
RERUN_SHARE_MAX = 0.03
# Scaling: per-document time flat means time(n x) / time(1 x) at most n (fixed costs make it less).
# The README's example queries on the largest scale's catalog against the same on the smallest's: the
# catalog's views read every shard's Parquet files, so a query may grow with the corpus, but not by this.
QUERY_GROWTH_MAX = 2.0
# Each README query is timed this many times on each catalog (the median kept), after one untimed run.
QUERY_REPEAT = 5
# Peak memory flat with the corpus: the stages hold a shard (or a batch of shards) at a time, never the
# corpus, so the largest scale may use at most this many times the memory of the smallest.
PEAK_GROWTH_MAX = 1.25

# The fixed cost of a small run (issue-sized: one file). `assay run` into a fresh home against `assay check`
# on the same file: a run adds the walk, the warehouse, the Dagster runs and the catalog to what check does.
RUN_OVER_CHECK_MAX = 1.5
# `assay check` against importing the PDF library it reads with: what check adds is assay's own imports,
# one reader process and the verdicts.
CHECK_OVER_IMPORT_MAX = 3.0
# One new file into an up-to-date home against `assay check` on that file.
ADD_OVER_CHECK_MAX = 1.5
# A first run over the dev corpus: what Dagster adds (its runs against the same assets called as
# functions), as a share of the run; and the run against the work it does, per usable core.
DAGSTER_SHARE_MAX = 0.05
RUN_OVER_WORK_MAX = 1.3

# --- how the measurements are taken --------------------------------------------------------------------
# Memory of a subprocess tree is polled this often (RSS summed over the process and its descendants).
POLL_S = 0.05
# A measured `assay run` taking longer than this is stopped and the measurement fails: the record must
# end even when a change makes the pipeline hang.
RUN_TIMEOUT_S = 3600.0
# The verdict modes that send a page, or its figures, to OCR.
OCR_MODES = frozenset({"REPLACE", "FIGURES"})
# pymupdf4llm 2.0 prints this line for every page it OCRs (helpers/document_layout.py).
PYMUPDF4LLM_OCR_MESSAGE = "OCR on page"
MiB = 1 << 20


@dataclass(frozen=True, slots=True)
class Plan:
    """How much of each measurement a run takes."""

    quick: bool
    repeat: int
    # --quick reads only the born-digital PDFs of at most this many pages (about 30 pages in all).
    max_pages_per_pdf: int | None
    plumber_pages: int
    ocr_pages: int  # 0: every scanned page
    ocr_rounds: int
    scales: tuple[int, ...]
    # --quick scales a copy of one file of each kind (a run's cost is then mostly its fixed part).
    scale_files_per_kind: int | None
    overhead_repeat: int

    @classmethod
    def full(cls) -> Plan:
        return cls(False, 3, None, 40, 0, 2, (1, 16, 64), None, 5)

    @classmethod
    def smoke(cls) -> Plan:
        return cls(True, 1, 3, 10, 2, 1, (1, 4), 1, 1)


@dataclass(frozen=True, slots=True)
class Figure:
    """One comparison: two measurements taken in the same run, and their ratio."""

    name: str
    ours: str
    theirs: str
    ratio: float
    target: str = ""
    holds: bool | None = None


@dataclass(slots=True)
class Section:
    title: str
    about: str = ""
    columns: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class Fact:
    name: str
    value: str


@dataclass(slots=True)
class Record:
    date: str
    command: str
    plan: Plan
    machine: list[Fact]
    versions: list[Fact]
    sections: list[Section]
    seconds: float = 0.0


# --- machine and versions ------------------------------------------------------------------------------


def machine() -> list[Fact]:
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    system = platform.platform()
    with contextlib.suppress(OSError):
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                name = line.split("=", 1)[1].strip().strip('"')
                system = f"{name}, Linux {platform.release()}"
    return [
        Fact("cores", str(os.cpu_count())),
        Fact("memory", f"{psutil.virtual_memory().total / (1 << 30):.1f} GiB"),
        Fact("CPU", cpu),
        Fact("OS", system),
        Fact("load average at the start", " ".join(f"{x:.2f}" for x in os.getloadavg())),
    ]


def _package(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def versions() -> list[Fact]:
    try:
        import pytesseract

        tesseract = str(pytesseract.get_tesseract_version())
    except (ImportError, OSError) as exc:  # TesseractNotFoundError is an OSError: the OCR section says so too
        tesseract = f"not found ({type(exc).__name__})"
    return [
        # The interpreter the environment was made from: how it was built moves the Python-heavy figures.
        Fact("Python", f"{platform.python_version()} ({getattr(sys, '_base_executable', sys.executable)})"),
        Fact("assay EXTRACTOR_VERSION", EXTRACTOR_VERSION),
        Fact("PyMuPDF / MuPDF", f"{pymupdf.__version__} / {pymupdf.mupdf_version}"),
        Fact("pdfplumber", _package("pdfplumber")),
        # Read from the package metadata: importing pymupdf4llm switches PyMuPDF's layout model on for the
        # whole process, so it is only imported in the child process that times it.
        Fact("pymupdf4llm", _package("pymupdf4llm")),
        Fact("Tesseract", tesseract),
        Fact("Dagster", _package("dagster")),
        Fact("DuckDB", _package("duckdb")),
    ]


# --- 1. the text-layer path ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pass:
    """One timed pass over the documents."""

    pages: int
    seconds: float
    cpu_seconds: float
    # Pages the library sent to OCR of its own accord (pymupdf4llm says so on its message stream).
    ocr_pages: int = 0


def timed_pass(run: Callable[[], int]) -> Pass:
    cpu, started = time.process_time(), time.perf_counter()
    pages = run()
    return Pass(pages, time.perf_counter() - started, time.process_time() - cpu)


@dataclass(frozen=True, slots=True)
class TextLayerPass:
    pages: int
    sent_to_ocr: list[Path]
    # Where the time went: the reader chain, the page rows with their signals, the verdicts.
    read_s: float
    signals_s: float
    verdicts_s: float


def pdf_documents(paths: Sequence[Path]) -> list[DocumentRecord]:
    """The DocumentRecords the extract stage would hold for these PDFs (hashing is the walk's, untimed)."""
    records = []
    for path in paths:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        records.append(
            DocumentRecord(
                sha256=digest,
                shard=digest[:2],
                kind="pdf",
                kind_source="magic",
                size=path.stat().st_size,
                parent_sha256=None,
                member=None,
                path=str(path),
                extractor_version=EXTRACTOR_VERSION,
            )
        )
    return records


def assay_text_layer(documents: Sequence[DocumentRecord]) -> TextLayerPass:
    """What the extract and verdicts stages do to a born-digital PDF, in this process, without the
    warehouse: the kind's reader chain (``readers.engine.dispatch.extract_document``), the page rows with
    every
    signal (the extract stage's own conversion, which calls ``quality.document_signals.measure_document``) and
    the
    verdicts (``assets.verdicts.judging.judge_document_rows``: the judge, pdfplumber's second opinion on the
    pages it
    flags, font repair). The corpus vocabulary is left out: it is harvested from the whole corpus between
    the two stages. What the signals keep of the words they met is forgotten first
    (``quality.document_signals.forget_words``): each call pays what a first reading of these documents
    pays."""
    from assets.extract.work import ShardRows, add_extraction
    from assets.resources import AssaySettings
    from assets.verdicts.judging import judge_document_rows
    from quality.document_signals import forget_words
    from readers.core.base import collector_paused, freeze_long_lived
    from readers.core.model import ContentKind
    from readers.engine.dispatch import extract_document

    freeze_long_lived()  # as the extract and verdicts stages do before their first document
    forget_words()
    settings = AssaySettings()
    limits = settings.limits()
    rows = ShardRows()
    pages = 0
    sent: list[Path] = []
    parts = [0.0, 0.0, 0.0]
    for doc in documents:
        path = Path(doc.path)
        started = time.perf_counter()
        # As the extract stage takes a read: turned into rows and dropped before the collector runs again.
        with collector_paused():
            extraction = extract_document(
                path, ContentKind.PDF, size=doc.size, limits=limits, max_bytes=settings.max_document_bytes
            )
            read = time.perf_counter()
            add_extraction(rows, doc, EXTRACTOR_VERSION, extraction)
            del extraction
        measured = time.perf_counter()
        verdicts = judge_document_rows(
            doc.kind,
            path,
            doc.sha256,
            doc.shard,
            EXTRACTOR_VERSION,
            rows.pages[doc.sha256],
            rows.fonts[doc.sha256],
            limits,
            size=doc.size,
        )
        judged = time.perf_counter()
        for index, seconds in enumerate((read - started, measured - read, judged - measured)):
            parts[index] += seconds
        pages += len(rows.pages[doc.sha256])
        if any(v.mode in OCR_MODES for v in verdicts.pages):
            sent.append(path)
    return TextLayerPass(pages, sent, *parts)


@contextlib.contextmanager
def _output_captured(sink: io.TextIOBase) -> Iterator[None]:
    """Whatever this process writes to its stdout and stderr, Python or C, goes to ``sink``."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    os.dup2(sink.fileno(), 1)
    os.dup2(sink.fileno(), 2)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, copy in zip((1, 2), saved, strict=True):
            os.dup2(copy, fd)
            os.close(copy)


def pymupdf4llm_pass(paths: Sequence[str]) -> Pass:
    """``pymupdf4llm.to_markdown`` on every document, with its defaults. Runs in a child process: importing
    pymupdf4llm switches PyMuPDF's layout model on for the whole process. Its messages are kept out of
    the record's output, and the pages it OCRs are counted from them."""
    from readers.core.offline import allow_layout_model

    allow_layout_model()  # pymupdf4llm with its defaults, its layout model included
    import pymupdf4llm

    def run() -> int:
        pages = 0
        for path in paths:
            with pymupdf.open(path) as doc:
                pymupdf4llm.to_markdown(doc)
                pages += doc.page_count
        return pages

    with tempfile.TemporaryFile("w+", encoding="utf-8") as sink:
        with _output_captured(sink):
            done = timed_pass(run)
        sink.seek(0)
        ocr = sum(1 for line in sink if line.startswith(PYMUPDF4LLM_OCR_MESSAGE))
    return Pass(done.pages, done.seconds, done.cpu_seconds, ocr)


def page_count(path: Path) -> int:
    with pymupdf.open(path) as doc:
        return doc.page_count


def text_layer(state: State, section: Section) -> None:
    plan = state.plan
    paths = bench_extract.born_digital_pdfs(state.corpus)
    if plan.max_pages_per_pdf is not None:
        paths = [p for p in paths if page_count(p) <= plan.max_pages_per_pdf]
    documents = pdf_documents(paths)
    labels = {
        "raw": 'raw PyMuPDF `page.get_text("dict")`',
        "assay": "assay: read + signals + verdicts",
        "pymupdf4llm": "pymupdf4llm `to_markdown` (defaults)",
        "plumber": f"pdfplumber `extract_text` (first {plan.plumber_pages} pages)",
    }
    timings = {key: bench_extract.Timing(label) for key, label in labels.items()}
    rates: dict[str, list[float]] = {key: [] for key in labels}
    cpu: dict[str, float] = dict.fromkeys(labels, 0.0)
    ocr: dict[str, int] = dict.fromkeys(labels, 0)
    passes: list[TextLayerPass] = []
    spawn = multiprocessing.get_context("spawn")
    # The path with its page-structure decision (readers/pdf/certainty.py) but without the layout model
    # the decision sends uncertain pages to: its share of pages and cost per page are measured apart.
    layout_model.set_enabled(False)
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as child:
        # Warm-ups, untimed: imports, MuPDF's font caches, the lexicons and language profiles, and the
        # layout model pymupdf4llm loads at its first page.
        bench_extract.raw_dict(paths[:2])
        warm = assay_text_layer(documents)
        bench_extract.plumber_sample(paths, 1)
        child.submit(pymupdf4llm_pass, [str(paths[0])]).result()
        measures: dict[str, Callable[[], Pass]] = {
            "raw": lambda: timed_pass(lambda: bench_extract.raw_dict(paths)),
            "assay": lambda: timed_pass(lambda: _kept(assay_text_layer(documents), passes).pages),
            # Timed in the child: its start and the pickling are not pymupdf4llm's cost.
            "pymupdf4llm": lambda: child.submit(pymupdf4llm_pass, [str(p) for p in paths]).result(),
            "plumber": lambda: timed_pass(lambda: bench_extract.plumber_sample(paths, plan.plumber_pages)),
        }
        order = list(measures)
        for index in range(plan.repeat):
            for key in order if index % 2 == 0 else order[::-1]:
                done = measures[key]()
                timings[key].pages += done.pages
                timings[key].seconds += done.seconds
                cpu[key] += done.cpu_seconds
                ocr[key] += done.ocr_pages
                rates[key].append(done.pages / done.seconds if done.seconds else 0.0)
                print(f"  {labels[key]}: {done.pages} pages in {done.seconds:.2f} s", flush=True)
    section.about = (
        f"{len(paths)} `pdf-born-digital` PDFs of the corpus manifest, {timings['raw'].pages // plan.repeat} "
        f"pages, {plan.repeat} repetition(s), the order of the four measurements reversed on every other "
        "repetition; the rates are totals over all repetitions. assay's path is what the extract and "
        "verdicts stages do to each PDF, in one process, without the warehouse: "
        "`readers.engine.dispatch.extract_document` (the PDF reader chain), the page rows with every signal "
        "(`quality.document_signals.measure_document`) and `assets.verdicts.judging.judge_document_rows` "
        "(the verdicts, with "
        "pdfplumber's second opinion on the pages they flag, and font repair). pymupdf4llm runs with its "
        "defaults (its layout model, and its own OCR of pages it judges to need it) in a child process "
        "that times itself."
    )
    layout_model.set_enabled(True)
    section.columns = ["measurement", "pages", "seconds", "pages/s", "per repetition", "CPU s per s"]
    for key, timing in timings.items():
        spread = f"{min(rates[key]):.1f}-{max(rates[key]):.1f}" if rates[key] else "-"
        load = f"{cpu[key] / timing.seconds:.2f}" if timing.seconds else "-"
        section.rows.append(
            [timing.label, str(timing.pages), f"{timing.seconds:.2f}", f"{timing.rate:.1f}", spread, load]
        )
    ours = timings["assay"].rate
    for key, name in (
        ("pymupdf4llm", "assay's text-layer path / pymupdf4llm `to_markdown`"),
        ("raw", 'assay\'s text-layer path / raw PyMuPDF `get_text("dict")`'),
        ("plumber", "assay's text-layer path / pdfplumber `extract_text`"),
    ):
        theirs = timings[key].rate
        ratio = ours / theirs if theirs else 0.0
        target, holds = "", None
        if key == "pymupdf4llm":
            target, holds = (
                f">= {TEXT_LAYER_OVER_PYMUPDF4LLM_MIN:g}",
                ratio >= TEXT_LAYER_OVER_PYMUPDF4LLM_MIN,
            )
        elif key == "raw":
            target, holds = f">= {TEXT_LAYER_OVER_RAW_DICT_MIN:g}", ratio >= TEXT_LAYER_OVER_RAW_DICT_MIN
        section.figures.append(
            Figure(name, f"{ours:.1f} pages/s", f"{theirs:.1f} pages/s", ratio, target, holds)
        )
    section.notes.append(
        "CPU s per s: the CPU time of the measuring process per second of wall time; more than 1 means it "
        "used more than one core (pymupdf4llm's layout model runs ONNX Runtime's threads)."
    )
    if cpu["assay"] and cpu["pymupdf4llm"]:
        # The figure of record is wall time, as a user waits for it. pymupdf4llm spreads its work over
        # more than one core, so how it compares depends on the second core being free; per CPU second
        # the comparison is of the work each does, whatever the machine is doing beside it.
        ours_cpu = timings["assay"].pages / cpu["assay"]
        theirs_cpu = timings["pymupdf4llm"].pages / cpu["pymupdf4llm"]
        section.notes.append(
            f"Per CPU second, assay's path reads {ours_cpu:.1f} pages and pymupdf4llm {theirs_cpu:.2f}: "
            f"{ours_cpu / theirs_cpu:.1f} times as many (not a target: the target is on wall time)."
        )
    parts = [sum(getattr(p, f) for p in passes) for f in ("read_s", "signals_s", "verdicts_s")]
    if sum(parts):
        read_share, signals_share, verdicts_share = (part / sum(parts) for part in parts)
        section.notes.append(
            f"assay's time went {read_share:.0%} to the reader chain, {signals_share:.0%} to the page rows "
            f"and their signals, {verdicts_share:.0%} to the verdicts (with pdfplumber's second opinion "
            "and font repair where they are called for)."
        )
    per_pass = timings["pymupdf4llm"].pages // plan.repeat
    if per_pass:
        section.notes.append(
            f"pymupdf4llm OCRed {ocr['pymupdf4llm'] // plan.repeat} of the {per_pass} pages itself (its "
            "messages say which): part of what its defaults cost."
        )
    if warm.sent_to_ocr:
        section.notes.append(
            f"{len(warm.sent_to_ocr)} of these PDFs have pages the verdicts send to OCR (whole pages or "
            f"their figures: {', '.join(p.name for p in warm.sent_to_ocr)}); that OCR is the OCR stage's "
            "(section 2), not part of this path."
        )


def _kept(done: TextLayerPass, passes: list[TextLayerPass]) -> TextLayerPass:
    passes.append(done)
    return done


# --- 2. OCR ---------------------------------------------------------------------------------------------


def ocr_speed(state: State, section: Section) -> None:
    if (state.corpus / "manifest.csv").is_file():
        pages = bench_ocr.corpus_pages(state.corpus)
        source = "scanned pages of the corpus (`pdf-scanned`, the blank one left out)"
    else:
        pages = bench_ocr.generated_pages(state.tmp, state.plan.ocr_pages or 8)
        source = "generated dense text pages"
    pages = pages[: state.plan.ocr_pages] if state.plan.ocr_pages else pages
    dpi, rounds = bench_ocr.DEFAULT_DPI, state.plan.ocr_rounds
    speeds = bench_ocr.measure(pages, dpi, rounds, state.tmp)
    n, cores = speeds.pages * rounds, speeds.cores
    section.about = (
        f"The {speeds.pages} {source} at {dpi} dpi in English, {cores} cores, {rounds} round(s), the order "
        "of the three ways reversed every other round (`benchmarks/bench_ocr.py`'s measurement). Bare "
        "Tesseract is `tesseract page.png stdout -l eng --psm 3 --dpi 300`, single-threaded "
        "(`OMP_THREAD_LIMIT=1`), one process per core, on the same pages rendered beforehand (untimed); the "
        "same with `--psm 1` is what its orientation detection costs. assay's path is the OCR stage's "
        "(`assets.ocr.page_reading.ocr_tasks`): each page rendered from its PDF in the calling thread and "
        "handed to one single-threaded Tesseract worker per core (the same library, through its C API, "
        "its models loaded once), which reads it (words, confidences, rotation): as it is (`--psm 3`) when "
        "its ink shows it upright and that reading is confident with its lines across (`readers/images/"
        "orientation.py`), else with orientation detection (`--psm 1`)."
    )
    section.columns = ["way", "page readings", "seconds", "pages/s per core"]
    for label, seconds in (
        ("bare Tesseract (`--psm 3`, text)", speeds.bare),
        ("bare Tesseract with orientation detection (`--psm 1`, text)", speeds.bare_upright),
        ("assay's OCR stage (rendering, `--psm 3` or `--psm 1`, confidences)", speeds.assay),
    ):
        section.rows.append([label, str(n), f"{seconds:.1f}", f"{speeds.per_core(seconds):.3f}"])
    section.figures.append(
        Figure(
            "OCR stage / bare Tesseract, pages/s per core",
            f"{speeds.per_core(speeds.assay):.3f} pages/s per core",
            f"{speeds.per_core(speeds.bare):.3f} pages/s per core",
            speeds.bare / speeds.assay,
            f">= {OCR_PER_CORE_MIN}",
            speeds.bare / speeds.assay >= OCR_PER_CORE_MIN,
        )
    )
    orientation = (speeds.bare_upright - speeds.bare) * cores / n
    rendering = speeds.render / speeds.pages
    section.notes.append(
        f"What assay's figure holds that the baseline's does not: rendering {rendering:.3f} s a page "
        f"(one thread, beside the Tesseracts); orientation detection on the {speeds.pages - speeds.upright} "
        f"of {speeds.pages} pages whose ink does not show them upright ({orientation:+.3f} s a page of "
        f"Tesseract's time with the command line, {speeds.bare / speeds.bare_upright:.3f} of the bare rate "
        "with it on every page; about 0.07 s of it is loading orientation detection's model, which a worker "
        "does once), about 10 ms a page of looking at the ink, and each word's confidence walked off "
        "Tesseract's results (about 0.07 s a dense page). What the baseline pays that assay does not: "
        "starting Tesseract and loading its English model for every page (about 0.08 s) and reading the "
        "page from a file."
    )


# --- measured `assay run` subprocesses --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MeasuredRun:
    seconds: float
    # The largest sum of resident memory over the process and its descendants seen by the poll.
    peak_tree_mb: float
    # The largest resident memory of any single process of the tree (wait4's ru_maxrss of the run: the
    # process itself and every descendant it waited for).
    largest_process_mb: float
    started_at: float
    ended_at: float
    output: str


def _tree_rss(process: psutil.Process) -> int:
    total = 0
    try:
        members = [process, *process.children(recursive=True)]
    except psutil.Error:
        return 0
    for member in members:
        with contextlib.suppress(psutil.Error):
            total += member.memory_info().rss
    return total


def _kill_tree(process: psutil.Process) -> None:
    with contextlib.suppress(psutil.Error):
        for member in process.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                member.kill()
        process.kill()


def assay_run(home: Path, roots: Sequence[Path], log: Path) -> MeasuredRun:
    """``assay run --home HOME ROOTS...`` as a user runs it (a new process, the defaults: the variables
    that configure assay or Dagster are left out of its environment), its output kept in ``log``."""
    env = bench_rerun.user_environment()
    command = [str(bench_rerun.ASSAY), "run", "--home", str(home), *(str(r) for r in roots)]
    peak = 0
    timed_out = False
    with log.open("w", encoding="utf-8") as out:
        started_at, started = time.time(), time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        watched = psutil.Process(process.pid)
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, _tree_rss(watched))
            if not timed_out and time.perf_counter() - started > RUN_TIMEOUT_S:
                timed_out = True
                _kill_tree(watched)
            time.sleep(POLL_S)
        seconds, ended_at = time.perf_counter() - started, time.time()
    process.returncode = os.waitstatus_to_exitcode(status)
    output = log.read_text(encoding="utf-8", errors="replace")
    what = f"assay run over {len(roots)} folder(s) into {home.name}"
    if timed_out:
        raise RuntimeError(f"{what} took over {RUN_TIMEOUT_S:.0f} s and was stopped (output: {log})")
    if process.returncode != 0:
        lines = [line.strip() for line in output.splitlines() if line.strip()]
        why = next((line for line in lines if " failed: " in line), lines[-1] if lines else "no output")
        print(output, file=sys.stderr)
        raise RuntimeError(f"{what} exited {process.returncode}: {why}")
    return MeasuredRun(seconds, peak / MiB, usage.ru_maxrss / 1024, started_at, ended_at, output)


@dataclass(frozen=True, slots=True)
class FirstRun:
    """A first run into a fresh home, kept for the rerun and for Dagster's share of it."""

    home: Path
    roots: list[Path]
    run: MeasuredRun
    what: str


# --- 3. rerun -----------------------------------------------------------------------------------------------


def rerun(state: State, section: Section) -> None:
    first = state.first
    if first is None:
        dev = state.corpus / "dev"
        if not dev.is_dir():
            raise FileNotFoundError(f"no folder {dev}")
        home = state.tmp / "rerun-home"
        print(f"  first run over {dev}", flush=True)
        first = FirstRun(home, [dev], assay_run(home, [dev], state.tmp / "first.log"), "the dev corpus")
        state.first = first
    print("  rerun", flush=True)
    again = assay_run(first.home, first.roots, state.tmp / "rerun.log")
    section.about = (
        f"`assay run` over {first.what} ({', '.join(str(r) for r in first.roots)}) as a subprocess into a "
        "fresh home, then again with nothing changed (`benchmarks/bench_rerun.py`'s measurement): process "
        "start, imports, the Dagster instance, the walk, and whatever stages have work."
    )
    section.columns = ["run", "seconds", "files hashed", "files read", "peak MB (process tree)"]
    for label, run in (("first", first.run), ("rerun, nothing changed", again)):
        section.rows.append(
            [
                label,
                f"{run.seconds:.1f}",
                bench_rerun.summary_figure(bench_rerun.HASHED, run.output),
                bench_rerun.summary_figure(bench_rerun.READ, run.output),
                f"{run.peak_tree_mb:.0f}",
            ]
        )
    ratio = again.seconds / first.run.seconds
    section.figures.append(
        Figure(
            "rerun with nothing changed / first run",
            f"{again.seconds:.1f} s",
            f"{first.run.seconds:.1f} s",
            ratio,
            f"<= {RERUN_SHARE_MAX:g}",
            ratio <= RERUN_SHARE_MAX,
        )
    )


# --- 4. scaling ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HomeCounts:
    documents: int
    derived: int
    pages: int
    ocr_pages: int


def home_counts(home: Path) -> HomeCounts:
    from orchestration.home import Home
    from warehouse.duckdb_catalog import query

    def one(sql: str) -> int:
        return int(query(Home(home).warehouse, sql).rows[0][0])

    return HomeCounts(
        one("select count(*) from derivations"),
        one("select count(*) from derivations where status = 'derived'"),
        one("select count(*) from pages"),
        one("select count(*) from ocr_pages"),
    )


def readme_queries(readme: Path = REPO / "README.md") -> list[str]:
    """The example queries of the README: each `assay sql "..."` line's and each line of its SQL blocks."""
    text = readme.read_text(encoding="utf-8")
    queries = re.findall(r'assay sql "([^"]+)"', text)
    for block in re.findall(r"```sql\n(.*?)```", text, flags=re.S):
        queries += [line.strip().rstrip(";") for line in block.splitlines()]
    return list(dict.fromkeys(q for q in queries if q.lower().startswith("select")))


README_QUERIES = readme_queries()


def readme_query_seconds(home: Path) -> list[float]:
    """Each README query's median seconds on ``home``'s catalog."""
    from orchestration.home import Home
    from warehouse.duckdb_catalog import query

    warehouse = Home(home).warehouse
    seconds: list[float] = []
    for sql in README_QUERIES:
        query(warehouse, sql)  # untimed: the files' first read
        times = []
        for _ in range(QUERY_REPEAT):
            started = time.perf_counter()
            query(warehouse, sql)
            times.append(time.perf_counter() - started)
        seconds.append(statistics.median(times))
    return seconds


def scaling(state: State, section: Section) -> None:
    plan = state.plan
    pdfs = bench_extract.born_digital_pdfs(state.corpus)
    sent = assay_text_layer(pdf_documents(pdfs)).sent_to_ocr
    scaled: ScaledCorpus = scaled_corpus(
        state.corpus,
        state.tmp / "scaled",
        {p: "pages the verdicts send to OCR" for p in sent},
        plan.scale_files_per_kind,
    )
    add_copies(scaled, max(plan.scales))
    if not plan.quick:
        # Untimed: the first `assay run` of the record pays for cold caches (the interpreter's, the disk's).
        warm_folder = state.tmp / "warm-up"
        warm_folder.mkdir()
        shutil.copy(scaled.sources[0].path, warm_folder)
        assay_run(state.tmp / "warm-up-home", [warm_folder], state.tmp / "warm-up.log")
        _remove(state.tmp / "warm-up-home")
    kinds = sorted({s.kind for s in scaled.sources})
    section.about = (
        f"`assay run` as a subprocess into a fresh home over n distinct copies of {scaled.files_per_copy} "
        f"files of the corpus ({', '.join(kinds)}), made by `benchmarks/scale_corpus.py`: every copy's "
        "bytes differ (a PDF's subject metadata, an Office file's subject property, a comment or a last "
        "line), so every copy is new documents. Left out so that OCR does not dominate: scans and images, "
        "and the born-digital PDFs whose pages the verdicts send to OCR (measured in this run); also the "
        "files an appended line would break. Peak memory is the largest sum of resident memory over the "
        f"`assay` process and its descendants, polled every {POLL_S * 1000:.0f} ms (shared pages of forked "
        "workers count once per process); the largest process is wait4's `ru_maxrss` of the run."
    )
    reasons: dict[str, list[str]] = {}
    for item in scaled.left_out:
        reasons.setdefault(item.why, []).append(item.name)
    section.notes.extend(f"left out ({why}): {', '.join(names)}" for why, names in reasons.items())
    section.columns = [
        "scale",
        "documents (derived)",
        "pages",
        "OCR pages",
        "seconds",
        "s per document",
        "peak MB (tree)",
        "largest process MB",
    ]
    runs: dict[int, MeasuredRun] = {}
    query_seconds: dict[int, list[float]] = {}
    for scale in plan.scales:
        home = state.tmp / f"scale-{scale}x"
        print(f"  {scale}x: {scale * scaled.files_per_copy} files", flush=True)
        run = runs[scale] = assay_run(home, scaled.folders(scale), state.tmp / f"scale-{scale}x.log")
        c = home_counts(home)
        # Each scale's row as soon as it is measured: a later scale that fails leaves the earlier ones.
        section.rows.append(
            [
                f"{scale}x",
                f"{c.documents} ({c.derived})",
                str(c.pages),
                str(c.ocr_pages),
                f"{run.seconds:.1f}",
                f"{run.seconds / max(1, c.documents):.3f}",
                f"{run.peak_tree_mb:.0f}",
                f"{run.largest_process_mb:.0f}",
            ]
        )
        query_seconds[scale] = readme_query_seconds(home)
        if scale == 1 and plan.quick:
            state.first = FirstRun(home, scaled.folders(1), run, "the 1x copy of section 4")
        else:
            _remove(home)
    base = runs[plan.scales[0]]
    for scale in plan.scales[1:]:
        ratio = runs[scale].seconds / base.seconds
        bound = scale
        section.figures.append(
            Figure(
                f"time {scale}x / time 1x (linear: {scale})",
                f"{runs[scale].seconds:.1f} s",
                f"{base.seconds:.1f} s",
                ratio,
                f"<= {bound:g}",
                ratio <= bound,
            )
        )
    if len(plan.scales) >= 3:
        # Beyond a run's fixed cost (process start, some forty Dagster runs), what one more document costs:
        # the same between the two upper steps as between the two lower ones when the growth is linear.
        (a, b, c) = plan.scales[:3]
        files = scaled.files_per_copy
        lower = (runs[b].seconds - runs[a].seconds) / ((b - a) * files)
        upper = (runs[c].seconds - runs[b].seconds) / ((c - b) * files)
        ratio = upper / lower if lower > 0 else float("inf")
        section.figures.append(
            Figure(
                f"marginal time per document, {b}x to {c}x / {a}x to {b}x (linear: 1)",
                f"{upper * 1000:.0f} ms",
                f"{lower * 1000:.0f} ms",
                ratio,
            )
        )
    top = plan.scales[-1]
    growth = runs[top].peak_tree_mb / base.peak_tree_mb
    section.figures.append(
        Figure(
            f"peak memory {top}x / 1x (flat: 1)",
            f"{runs[top].peak_tree_mb:.0f} MB",
            f"{base.peak_tree_mb:.0f} MB",
            growth,
            f"<= {PEAK_GROWTH_MAX:g}",
            growth <= PEAK_GROWTH_MAX,
        )
    )
    largest = runs[top].largest_process_mb / base.largest_process_mb
    section.figures.append(
        Figure(
            f"largest process {top}x / 1x (flat: 1)",
            f"{runs[top].largest_process_mb:.0f} MB",
            f"{base.largest_process_mb:.0f} MB",
            largest,
        )
    )
    for i in range(len(README_QUERIES)):
        ratio = query_seconds[top][i] / query_seconds[plan.scales[0]][i]
        section.figures.append(
            Figure(
                f"README query {i + 1}, {top}x / 1x",
                f"{query_seconds[top][i] * 1000:.1f} ms",
                f"{query_seconds[plan.scales[0]][i] * 1000:.1f} ms",
                ratio,
                f"<= {QUERY_GROWTH_MAX:g}",
                ratio <= QUERY_GROWTH_MAX,
            )
        )
    section.notes.append(
        "README queries, each timed as `assay sql` runs it (`warehouse.duckdb_catalog.query`: the catalog "
        f"opened read-only, the query, its rows fetched), the median of {QUERY_REPEAT} after one untimed "
        "run: " + "; ".join(f"{i + 1}. `{sql}`" for i, sql in enumerate(README_QUERIES))
    )
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    section.notes.append(
        f"`resource.getrusage(RUSAGE_CHILDREN).ru_maxrss` after these runs: {children:.0f} MB (the largest "
        "single process among every child this record waited for so far)."
    )


def _remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


# --- 5. Dagster's overhead ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunShape:
    job: str
    shards: int
    steps: int  # the stages of shards it ran


def runs_between(instance, started_at: float, ended_at: float) -> list[RunShape]:
    """The Dagster runs created in a window, with the number of shards each covered (0: unpartitioned)."""

    from assets.shard_keys import RANGE_END_TAG, RANGE_START_TAG, SHARD_KEYS
    from assets.stages import graph

    declared = graph()
    shapes = []
    for record in instance.get_run_records():
        created = record.create_timestamp.timestamp()
        if not started_at <= created <= ended_at:
            continue
        tags = record.dagster_run.tags
        start, end = tags.get(RANGE_START_TAG), tags.get(RANGE_END_TAG)
        shards = SHARD_KEYS.index(end) - SHARD_KEYS.index(start) + 1 if start and end else 0
        stages = [declared.by_name.get(k.to_user_string()) for k in record.dagster_run.asset_selection or ()]
        steps = sum(1 for stage in stages if stage is not None and stage.partitioned)
        shapes.append(RunShape(record.dagster_run.job_name, shards, steps))
    return shapes


def dagster_overhead(state: State, section: Section) -> None:
    import dagster as dg

    from assets.progress import Progress
    from assets.shard_keys import SHARDS_PER_RUN, covering_shards
    from orchestration.definitions import stage_asset
    from orchestration.home import Home
    from orchestration.runner import Pipeline, RunReport

    first = state.first
    if first is None:
        raise RuntimeError("no first run to measure against (section 3 failed)")
    home = Home(first.home)
    # Prepares the home and points DAGSTER_HOME at its instance, in this process: measured subprocess runs
    # leave those variables out of their environment.
    pipeline = Pipeline(home, Progress())
    first_runs = runs_between(pipeline.instance, first.run.started_at, first.run.ended_at)
    with_documents = sorted(home.warehouse.shards("documents", EXTRACTOR_VERSION))
    one = with_documents[:1]
    batch = sorted(covering_shards(one, SHARDS_PER_RUN))

    def as_dagster_run(keys: list[str]) -> float:
        report = RunReport(roots=[])
        started = time.perf_counter()
        ok = pipeline.extract(keys, report)
        seconds = time.perf_counter() - started
        if not ok or report.runs != 1:
            raise RuntimeError(f"extract over {keys[0]}..{keys[-1]}: {report.runs} runs, {report.failures}")
        return seconds

    extract = stage_asset("extract")

    def as_function(keys: list[str]) -> float:
        context = _asset_context(partition_key_range=dg.PartitionKeyRange(keys[0], keys[-1]))
        started = time.perf_counter()
        list(extract(context, assay=pipeline.settings, progress=Progress()))
        return time.perf_counter() - started

    ways = {"dagster": as_dagster_run, "function": as_function}
    for way in ways.values():  # warm-up, untimed: imports, the instance's tables
        way(one)
    times: dict[tuple[str, int], list[float]] = {(w, len(k)): [] for w in ways for k in (one, batch)}
    for index in range(state.plan.overhead_repeat):
        order = [(w, k) for k in (one, batch) for w in ways]
        for way, keys in order if index % 2 == 0 else order[::-1]:
            times[(way, len(keys))].append(ways[way](keys))
    median = {key: statistics.median(values) for key, values in times.items()}
    n = len(batch)
    over_one = median[("dagster", 1)] - median[("function", 1)]
    over_batch = median[("dagster", n)] - median[("function", n)]
    marginal = (over_batch - over_one) / (n - 1)
    fixed = over_one - marginal
    shard_steps = sum(r.shards * r.steps for r in first_runs)
    estimate = fixed * len(first_runs) + marginal * shard_steps
    section.about = (
        f"On the home of section 3's first run ({first.what}), up to date: the extract stage over 1 shard "
        f"({one[0]}) and over the backfill batch holding it ({batch[0]}..{batch[-1]}, "
        f"`SHARDS_PER_RUN` = {SHARDS_PER_RUN}), as a Dagster run (`orchestration.runner.Pipeline.extract`: "
        "`execute_in_process` against the home's SQLite instance) and as the same asset function called "
        "directly (`dg.build_asset_context`, no run, no event log), the same work inside: each shard's rows "
        f"read and found current, the rate and contract checks. Median of {state.plan.overhead_repeat} "
        "repetition(s), the order reversed on every other one."
    )
    section.columns = ["shards", "Dagster run (s)", "function called (s)", "overhead (s)"]
    for size, over in ((1, over_one), (n, over_batch)):
        section.rows.append(
            [
                str(size),
                f"{median[('dagster', size)]:.3f}",
                f"{median[('function', size)]:.3f}",
                f"{over:.3f}",
            ]
        )
    for size in (1, n):
        section.figures.append(
            Figure(
                f"extract over {size} shard(s): Dagster run / function called",
                f"{median[('dagster', size)]:.3f} s",
                f"{median[('function', size)]:.3f} s",
                median[("dagster", size)] / median[("function", size)],
            )
        )
    section.notes.append(
        f"Fixed cost per run: {fixed:.3f} s; marginal cost per shard and step: {marginal * 1000:.1f} ms (a "
        f"straight line through the overheads at 1 and {n} shards)."
    )
    section.notes.append(
        f"The first run made {len(first_runs)} Dagster runs over {shard_steps} shard-steps (each partition "
        f"of each stage's range): about {len(first_runs)} x {fixed:.3f} s + {shard_steps} x "
        f"{marginal * 1000:.1f} ms = {estimate:.1f} s of Dagster's cost, {estimate / first.run.seconds:.1%} "
        f"of its {first.run.seconds:.1f} s. Section 7 measures that share directly."
    )


# --- 7. a first run: Dagster's share, and the run against its work ----------------------------------------


def _asset_context(**kwargs):
    """``dg.build_asset_context(**kwargs)``, keeping the metadata an asset gives each partition.

    A stage gives each partition of its step its own metadata with ``context.add_asset_metadata(...,
    partition_key=)``, which Dagster's directly invoked context lacks (it raises AttributeError in Dagster
    1.13): this one keeps the metadata in a dict, as a run's step keeps it until the step's result."""
    import dagster as dg

    context = dg.build_asset_context(**kwargs)
    kept: dict[str | None, dict[str, object]] = {}

    def add_asset_metadata(metadata, asset_key=None, partition_key=None) -> None:
        kept.setdefault(partition_key, {}).update(metadata)

    context.add_asset_metadata = add_asset_metadata  # type: ignore[method-assign]
    return context


def _functions_pipeline(home, progress, seconds: dict[str, float]):
    """``assay run``'s own plan (orchestration/runner.py ``_run``) with every asset of each planned run
    called as a function (``dg.build_asset_context``: no run, no event log, no run storage), the time of
    each asset added to ``seconds`` by name: the same work, without Dagster's runs."""
    import logging

    import dagster as dg

    from assets.data_quality import NAME as DATA_QUALITY
    from assets.data_quality import checked, evaluate
    from assets.report import quality_report
    from assets.shard_keys import RANGE_END_TAG, RANGE_START_TAG
    from assets.stages import graph
    from assets.walk.asset import WalkConfig
    from orchestration.definitions import stage_asset
    from orchestration.runner import Pipeline

    class AsFunctions(Pipeline):
        def _execute(self, job_name, report, stage, run_config=None, tags=None, asset_selection=None):
            declared = graph()
            names = {
                "assay_walk": ["walk"],
                "assay_vocabulary": ["vocabulary"],
                "assay_corpus": [*(s.name for s in declared.closing), "quality_report"],
            }.get(job_name)
            if names is None:
                wanted = {key.to_user_string() for key in asset_selection}
                names = [s.name for s in declared.order if s.name in wanted]
            resources = {"assay": self.settings, "progress": self.progress}
            if job_name == "assay_corpus":
                names.append(DATA_QUALITY)
            for name in names:
                if name == DATA_QUALITY:  # the checks' step, as the run's last step makes it
                    started = time.perf_counter()
                    contracts, rates = checked(declared)
                    list(evaluate(self.settings, contracts, rates, logging.getLogger(DATA_QUALITY)))
                    seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - started
                    continue
                asset = quality_report if name == "quality_report" else stage_asset(name)
                if asset.partitions_def is not None:
                    keys = dg.PartitionKeyRange(tags[RANGE_START_TAG], tags[RANGE_END_TAG])
                    context = _asset_context(resources=resources, partition_key_range=keys)
                else:
                    context = _asset_context(resources=resources)
                config = (
                    {"config": WalkConfig(**run_config["ops"]["walk"]["config"])} if name == "walk" else {}
                )
                started = time.perf_counter()
                with context:
                    out = asset(context, **config)
                    if hasattr(out, "__next__"):
                        list(out)
                seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - started
            report.runs += 1
            return True

    return AsFunctions(home, progress)


def first_run_work(state: State, section: Section) -> None:
    from assets.progress import Progress
    from orchestration.home import Home
    from orchestration.runner import Pipeline, _run
    from readers.core.cores import usable_cores
    from warehouse.duckdb_catalog import query

    scaled = scaled_corpus(state.corpus, state.tmp / "first-work-corpus", per_kind=1)
    add_copies(scaled, 1)
    if state.plan.quick:
        roots, what = scaled.folders(1), "one text-layer file of each kind"
    else:
        roots, what = [state.corpus / "dev"], "the dev corpus"
    # Untimed: the first pass in this process would pay the readers', the lexicons' and matplotlib's
    # imports, which the second then finds loaded.
    warm = _functions_pipeline(Home(state.tmp / "first-warm-home"), Progress(), {})
    with warm.writing():
        _run(warm, scaled.folders(1))
    timed: dict[str, float] = {}
    stages: dict[str, float] = {}
    runs = 0
    homes = {}
    for way in ("functions", "dagster"):
        home = Home(state.tmp / f"first-{way}-home")
        homes[way] = home
        print(f"  first run over {what}: {way}", flush=True)
        pipeline = (
            _functions_pipeline(home, Progress(), stages)
            if way == "functions"
            else Pipeline(home, Progress())
        )
        started = time.perf_counter()
        with pipeline.writing():
            report = _run(pipeline, roots)
        timed[way] = time.perf_counter() - started
        if not report.ok:
            raise RuntimeError(f"the first run as {way} failed: {report.failures}")
        if way == "dagster":
            runs = report.runs

    def total(sql: str) -> float:
        return float(query(homes["dagster"].warehouse, sql).rows[0][0] or 0.0)

    # Dagster's floor in the plan's shape: its partitioned stages over the keys of the first run's range
    # (from the first shard holding a document to the last), and over only the shards holding one, as
    # one run of assets that do nothing, into a fresh instance (benchmarks/dagster_floor.py).
    from assets.shard_keys import range_width
    from assets.stages import graph
    from readers.core.versions import EXTRACTOR_VERSION

    partitioned = len(graph().partitioned_stages)
    held = homes["dagster"].warehouse.shards("documents", EXTRACTOR_VERSION)
    width = range_width((held[0], held[-1])) if held else 1
    floors = {
        keys: _dagster_floor(state.tmp / f"floor-{keys}", partitioned, keys)
        for keys in dict.fromkeys((width, max(1, len(held))))
    }
    read_s = total("select sum(duration_ms) / 1000 from derivations")
    ocr_s = total("select sum(seconds) from ocr_pages")
    judge_s = stages.get("verdicts", 0.0)
    cores = usable_cores()
    work = (read_s + judge_s + ocr_s) / cores
    overhead = timed["dagster"] - timed["functions"]
    section.about = (
        f"`assay run`'s plan over {what} ({', '.join(str(r) for r in roots)}) into two fresh homes, in this "
        "process: once as `assay run` executes it (`orchestration.runner`: Dagster runs against the "
        "home's SQLite instance), once with each asset of each planned run called as a function "
        "(`dg.build_asset_context`: no run, no event log). Their difference is what Dagster costs. The "
        "work is the documents' read time (`derivations.duration_ms`, in the reader workers), the OCR "
        "time (`ocr_pages.seconds`: rendering and recognition) and the verdicts stage's time (the "
        f"function run), over the {cores} usable cores. One repetition of each, after an untimed pass "
        "over one text-layer file of each kind (the imports)."
    )
    section.columns = ["stage (functions)", "seconds"]
    for name, value in sorted(stages.items(), key=lambda kv: -kv[1]):
        section.rows.append([name, f"{value:.1f}"])
    section.figures.append(
        Figure(
            "Dagster's overhead in a first run / the first run",
            f"{overhead:.1f} s",
            f"{timed['dagster']:.1f} s",
            overhead / timed["dagster"],
            f"<= {DAGSTER_SHARE_MAX:g}",
            overhead / timed["dagster"] <= DAGSTER_SHARE_MAX,
        )
    )
    section.figures.append(
        Figure(
            "a first run / its read, judge and OCR time per core",
            f"{timed['dagster']:.1f} s",
            f"{work:.1f} s",
            timed["dagster"] / work,
            f"<= {RUN_OVER_WORK_MAX:g}",
            timed["dagster"] / work <= RUN_OVER_WORK_MAX,
        )
    )
    section.figures.append(
        Figure(
            "the same plan as functions, no Dagster / its read, judge and OCR time per core",
            f"{timed['functions']:.1f} s",
            f"{work:.1f} s",
            timed["functions"] / work,
        )
    )
    quality = step_seconds(homes["dagster"].path, DATA_QUALITY_STEP)
    section.figures.append(
        Figure(
            "its data-quality step (Great Expectations, once per run) / the first run",
            f"{quality:.1f} s",
            f"{timed['dagster']:.1f} s",
            quality / timed["dagster"],
        )
    )
    section.notes.append(
        f"As Dagster runs: {timed['dagster']:.1f} s in {runs} Dagster runs; as functions: "
        f"{timed['functions']:.1f} s."
    )
    section.notes.append(
        f"Work: read {read_s:.1f} s + verdicts {judge_s:.1f} s + OCR {ocr_s:.1f} s = "
        f"{read_s + judge_s + ocr_s:.1f} s, / {cores} cores = {work:.1f} s."
    )
    for keys, seconds in floors.items():
        which = "the first run's range" if keys == width else "only the shards holding a document"
        section.figures.append(
            Figure(
                f"Dagster's floor ({partitioned} idle stages over {keys} keys: {which}) / the first run",
                f"{seconds:.1f} s",
                f"{timed['dagster']:.1f} s",
                seconds / timed["dagster"],
            )
        )


def _dagster_floor(home: Path, stages: int, keys: int) -> float:
    """The seconds of one Dagster run of ``stages`` chained assets that do nothing over ``keys`` partition
    keys, into a fresh instance (benchmarks/dagster_floor.py, its own figure: without the imports)."""
    command = [sys.executable, str(REPO / "benchmarks" / "dagster_floor.py"), str(home)]
    command += ["--stages", str(stages), "--keys", str(keys)]
    return float(_command(command, dict(os.environ)).stdout.strip().splitlines()[-1])


# --- the record ---------------------------------------------------------------------------------------------


@dataclass(slots=True)
class State:
    corpus: Path
    plan: Plan
    tmp: Path
    first: FirstRun | None = None


def measure(title: str, fn: Callable[[State, Section], None], state: State) -> Section:
    section = Section(title)
    print(f"\n== {title}", flush=True)
    started = time.perf_counter()
    try:
        fn(state, section)
    except Exception as exc:  # a measurement that fails is recorded as failed; the others still run
        traceback.print_exc()
        section.error = f"{type(exc).__name__}: {exc}".splitlines()[0]
    section.seconds = time.perf_counter() - started
    for figure in section.figures:
        print(f"  {_summary(figure)}", flush=True)
    if section.error:
        print(f"  FAILED: {section.error}", flush=True)
    return section


def _holds(figure: Figure) -> str:
    return "" if figure.holds is None else ("holds" if figure.holds else "DOES NOT HOLD")


def shown_ratio(figure: Figure) -> str:
    """The figure's ratio to three significant digits, or more where three would put it on the other side
    of its target (24.96 against ">= 25" prints 24.96, not 25)."""
    bound = re.fullmatch(r"([<>]=)\s*([0-9.]+)", figure.target.strip())
    for digits in range(3, 8):
        shown = f"{figure.ratio:.{digits}g}"
        if figure.holds is None or bound is None:
            return shown
        value, limit = float(shown), float(bound.group(2))
        if (value >= limit if bound.group(1) == ">=" else value <= limit) == figure.holds:
            return shown
    return repr(figure.ratio)


def _summary(figure: Figure) -> str:
    target = f"  target {figure.target}: {_holds(figure)}" if figure.target else ""
    return f"{figure.name}: {figure.ours} against {figure.theirs} = {shown_ratio(figure)}{target}"


def _plain(text: str | None) -> str:
    """An error message as markdown text: no code spans or table cells opened by accident."""
    return (text or "").replace("`", "'").replace("|", "/")


def _table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


@dataclass(frozen=True, slots=True)
class Earlier:
    """What an earlier record on the page keeps when only some sections are measured again (``--only``):
    the other sections' text as it was, and their rows of the targets table."""

    date: str
    sections: dict[int, str]
    targets: list[str]


def earlier_record(page: str, measured: Iterable[int]) -> Earlier:
    """The sections of ``page`` (an earlier record) other than ``measured``, and their target rows."""
    again = set(measured)
    found = re.search(r"Measured on (.+?) by `benchmarks/record.py`", page)
    sections: dict[int, str] = {}
    for block in re.split(r"(?m)^(?=## )", page):
        number = re.match(r"## (\d+)\. ", block)
        if number and int(number.group(1)) not in again:
            sections[int(number.group(1))] = block.rstrip()
    kept_text = "\n".join(sections.values())
    table = page.split("## Targets", 1)[1].split("\n## ", 1)[0] if "## Targets" in page else ""
    targets = [
        row
        for row in table.splitlines()[3:]
        if row.startswith("| ") and f"| {row.split(' | ')[0][2:]} |" in kept_text
    ]
    return Earlier(found.group(1) if found else "an earlier date", sections, targets)


def render(record: Record, earlier: Earlier | None = None) -> str:
    plan = record.plan
    kind = "a quick smoke run (`--quick`): every measurement shrunk, not the record" if plan.quick else ""
    lines = [
        "# Benchmarks",
        "",
        f"Measured on {record.date} by `benchmarks/record.py`"
        + (f", {kind}" if kind else "")
        + f", in {record.seconds / 60:.1f} minutes. To measure again and rewrite this page:",
        "",
        "```sh",
        record.command,
        "```",
        "",
        "The machine is shared and noisy: every figure is two measurements taken side by side in the same "
        "run, and only their ratio means anything. The absolute numbers are this machine's, on this day.",
        "",
    ]
    if earlier is not None and earlier.sections:
        numbers = ", ".join(str(n) for n in sorted(earlier.sections))
        lines += [
            f"Only the sections measured then are of {record.date}; sections {numbers} (and their rows of "
            f"the targets) are kept from the page as it was (last written {earlier.date}): each says when "
            "it was measured.",
            "",
        ]
    lines += ["## Targets", ""]
    targets = [(s, f) for s in record.sections for f in s.figures if f.target]
    lines += _table(
        ["figure", "ratio", "target", ""],
        [[f.name, shown_ratio(f), f.target, _holds(f)] for _, f in targets],
    )
    if earlier is not None:
        lines += earlier.targets
    failed = [s for s in record.sections if s.error]
    if failed:
        lines += ["", "Not measured (failed): " + "; ".join(f"{s.title}: {_plain(s.error)}" for s in failed)]
    lines += ["", "## Machine", ""]
    lines += _table(["", ""], [[f.name, f.value] for f in record.machine])
    lines += ["", "## Versions", ""]
    lines += _table(["", ""], [[f.name, f.value] for f in record.versions])
    blocks: list[tuple[int, list[str]]] = [
        (n, ["", *text.splitlines()]) for n, text in (earlier.sections.items() if earlier else ())
    ]
    for section in record.sections:
        block = _section_lines(section, record.date)
        blocks.append((section_number(section.title), block))
    for _, block in sorted(blocks, key=lambda b: b[0]):
        lines += block
    return "\n".join(lines).rstrip() + "\n"


def _section_lines(section: Section, date: str) -> list[str]:
    lines = ["", f"## {section.title}", ""]
    if section.error:
        lines += [f"Failed after {section.seconds:.0f} s: {_plain(section.error)}", ""]
    if section.about:
        lines += [section.about, ""]
    if section.rows:
        lines += [*_table(section.columns, section.rows), ""]
    if section.figures:
        lines += _table(
            ["figure", "this", "against", "ratio", "target", ""],
            [[f.name, f.ours, f.theirs, shown_ratio(f), f.target, _holds(f)] for f in section.figures],
        )
        lines.append("")
    lines += [f"- {note}" for note in section.notes]
    lines += [f"- measured in {section.seconds:.0f} s, on {date}"]
    return lines


# --- 10. the second OCR engine -----------------------------------------------------------------------------


def ocr_engines(state: State, section: Section) -> None:
    first = state.first
    if first is not None and first.what == "the dev corpus":
        home = first.home
    else:
        dev = state.corpus / "dev"
        if not dev.is_dir():
            raise FileNotFoundError(f"no folder {dev}")
        home = state.tmp / "ocr-engines-home"
        print(f"  filling {home} from {dev} (untimed)", flush=True)
        bench_ocr_engines.fill_home(home, dev)
    rounds = state.plan.ocr_rounds
    costs = bench_ocr_engines.measure(home, rounds, max_shards=3 if state.plan.quick else 0)
    off, on = costs.of(False), costs.of(True)
    pages = on[0].pages()
    load = " ".join(f"{x:.2f}" for x in (*costs.load_before,))
    load_after = " ".join(f"{x:.2f}" for x in (*costs.load_after,))
    section.about = (
        f"Every page the dev corpus sends to OCR ({pages}: REPLACE pages whole, image documents' frames and "
        "the figure regions of FIGURES pages, every kind of document), read by the OCR stage's own path "
        "(`assets.ocr.work.ocr_shards`, its inputs built from a home `assay run` filled over the dev corpus "
        "by `assets/ocr/asset.py`'s `_shard_input`, untimed, without their OCR rows so that every page is "
        f"read again), {costs.cores} cores, {rounds} round(s) in one process, the order of the two ways "
        "reversed every other round (`benchmarks/bench_ocr_engines.py`'s measurement). Tesseract alone is "
        "`OcrOptions(second_engine=False)` (`ASSAY_OCR_SECOND_ENGINE=false`); with the second engine, "
        "RapidOCR reads again the pages `assets/ocr/engines.py`'s `asked_because` names and "
        "`quality/ocr_choice.py` keeps the better reading. The cost is wall seconds x cores / pages sent to "
        "OCR: what a page costs the stage on the cores it has, worker starts, model loads and the pool's "
        "idle tail included. The rows' own seconds (`ocr_pages.seconds`: each page's rendering and "
        "recognition, by each engine) are shown beside it: they leave out what is not a page's, and on a "
        f"shared machine count the time a worker waited for a core. Load average {load} before, "
        f"{load_after} after."
    )
    section.columns = ["way", "pages sent to OCR", "wall s per round", "s a page per core", "rows' s a page"]
    for label, second, passes in (
        ("Tesseract alone (today's stage)", False, off),
        ("Tesseract, then RapidOCR where asked", True, on),
    ):
        section.rows.append(
            [
                label,
                str(pages),
                " ".join(f"{p.seconds:.1f}" for p in passes),
                f"{costs.per_page_core(second):.2f}",
                f"{costs.row_seconds_per_page(second):.2f}",
            ]
        )
    ratio = costs.ratio()
    section.figures.append(
        Figure(
            "OCR stage with its second engine / Tesseract alone, s a page per core",
            f"{costs.per_page_core(True):.2f} s",
            f"{costs.per_page_core(False):.2f} s",
            ratio,
            f"<= {OCR_SECOND_ENGINE_MAX:g}",
            ratio <= OCR_SECOND_ENGINE_MAX,
        )
    )
    section.figures.append(
        Figure(
            "the same, the rows' own seconds",
            f"{costs.row_seconds_per_page(True):.2f} s",
            f"{costs.row_seconds_per_page(False):.2f} s",
            costs.row_ratio(),
        )
    )
    asked = bench_ocr_engines.asked_reasons(costs)
    read = sum(a.pages for a in asked)
    shares = ", ".join(
        f"{a.reason} {a.pages} ({a.pages / pages:.0%}, {a.seconds:.1f} s, {a.kept} kept)" for a in asked
    )
    section.notes.append(
        f"Tesseract read all {pages} pages; RapidOCR read {read} of them again ({read / pages:.0%}), by why "
        f"it was asked, the costliest first (pages, share of the pages sent to OCR, RapidOCR's own seconds "
        f"a round, readings kept over Tesseract's): {shares or 'none'}."
    )
    names = bench_ocr_engines.document_names(home)
    slow = bench_ocr_engines.slowest_rapid(costs, names)
    if slow:
        section.notes.append(
            "RapidOCR's longest readings (its own seconds, mean of the rounds): "
            + "; ".join(f"{label} {seconds:.1f} s" for label, seconds in slow)
            + "."
        )
    lost = [p for p in off if p.pages() and not p.read]
    if lost:
        section.notes.append(
            f"With its second engine off the stage returned no rows for the {pages} pages it read (it read "
            "them all, in the same time, so the figure stands; `assay run` with `ASSAY_OCR_SECOND_ENGINE="
            "false` then writes no `ocr_pages` and its scans end underivable): `ocr_shards` builds the rows "
            "it keeps from the second engine's candidates, which are none when that engine is off."
        )
    single, total = on[0].peak_worker_mb, on[0].peak_workers_mb
    if single:
        section.notes.append(
            "Peak resident memory of the OCR workers (polled every 50 ms over this process's children, first "
            "round with the second engine): "
            + "; ".join(
                f"{engine} {single[engine]:.0f} MiB a worker, {total.get(engine, 0.0):.0f} MiB all at once"
                for engine in sorted(single)
            )
            + "."
        )


# --- 6. small runs -----------------------------------------------------------------------------------------


def _command(command: Sequence[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end; RuntimeError with the tail of its stderr when it fails."""
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return done


def _timed_command(command: Sequence[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    _command(command, env)
    return time.perf_counter() - started


def small_runs(state: State, section: Section) -> None:
    from orchestration.document_builders import make_text_pdf

    env = bench_rerun.user_environment()
    assay = str(bench_rerun.ASSAY)
    repeat = max(3, state.plan.repeat)
    text = (
        "Unit consumption of the treatment plant was measured over the year and reported to the board. " * 12
    )
    seconds: dict[str, list[float]] = {
        "run": [],
        "check": [],
        "import": [],
        "floor": [],
        "add": [],
        "check added": [],
        "quality step": [],
    }
    floor = REPO / "benchmarks" / "dagster_floor.py"
    for i in range(repeat):
        print(f"  repetition {i + 1} of {repeat}", flush=True)
        folder, home = state.tmp / f"small-{i}", str(state.tmp / f"small-home-{i}")
        folder.mkdir()
        pdf = make_text_pdf(folder / "one-page.pdf", [text])
        pairs = [
            ("run", [assay, "run", "--home", home, str(folder)]),
            ("check", [assay, "check", str(pdf)]),
            ("import", [sys.executable, "-c", "import pymupdf"]),
            ("floor", [sys.executable, str(floor), str(state.tmp / f"floor-home-{i}")]),
        ]
        for name, command in pairs if i % 2 == 0 else reversed(pairs):
            seconds[name].append(_timed_command(command, env))
        seconds["quality step"].append(step_seconds(Path(home), DATA_QUALITY_STEP))
        # One new file into the folder of that home, which is up to date: the run reads it alone.
        added = make_text_pdf(state.tmp / f"added-{i}.pdf", [f"Added note {i}. " + text])
        steps = [
            ("add", [assay, "run", "--home", home, str(folder)]),
            ("check added", [assay, "check", str(added)]),
        ]
        shutil.copy(added, folder / added.name)
        for name, command in steps if i % 2 == 0 else reversed(steps):
            seconds[name].append(_timed_command(command, env))
    median = {name: statistics.median(values) for name, values in seconds.items()}
    section.about = (
        f"One 1-page born-digital PDF ({len(text)} characters), each command a new process as a user runs "
        f"it, {repeat} repetitions alternating the order; medians. `add` runs `assay run` again on the "
        "first run's folder, up to date but for one new 1-page PDF. Dagster's floor is "
        "`benchmarks/dagster_floor.py`: a new process importing Dagster, making a fresh SQLite instance and "
        "executing one run of one asset over one partition that does nothing; no `assay run` takes less."
    )
    section.columns = ["command", "median s", "all s"]
    labels = {
        "run": "`assay run` into a fresh home",
        "check": "`assay check FILE`",
        "import": '`python -c "import pymupdf"`',
        "floor": "Dagster's floor: one run that does nothing, into a fresh instance",
        "add": "`assay run` adding one file to an up-to-date home",
        "check added": "`assay check` on that file",
        "quality step": "the first's data-quality step (Great Expectations' import, validations, Data Docs)",
    }
    for name, values in seconds.items():
        section.rows.append([labels[name], f"{median[name]:.2f}", " ".join(f"{v:.2f}" for v in values)])
    for name, ours, theirs, bound in (
        ("`assay run` one page / `assay check` it", "run", "check", RUN_OVER_CHECK_MAX),
        ("`assay check` / `import pymupdf`", "check", "import", CHECK_OVER_IMPORT_MAX),
        ("adding one file / `assay check` it", "add", "check added", ADD_OVER_CHECK_MAX),
        ("Dagster's floor / `assay check`", "floor", "check", None),
        ("its data-quality step / `assay run` one page", "quality step", "run", None),
    ):
        ratio = median[ours] / median[theirs]
        section.figures.append(
            Figure(
                name,
                f"{median[ours]:.2f} s",
                f"{median[theirs]:.2f} s",
                ratio,
                "" if bound is None else f"<= {bound:g}",
                None if bound is None else ratio <= bound,
            )
        )
    budget = RUN_OVER_CHECK_MAX * median["check"]
    section.notes.append(
        f"Above Dagster's floor, a run of one page has {budget - median['floor']:.2f} s within its target "
        f"({RUN_OVER_CHECK_MAX:g} x `assay check`'s {median['check']:.2f} s) for its walk, its read and "
        "verdicts, the later stages and the summary."
    )


#: The step of ``assay run``'s last Dagster run that validates the checks with Great Expectations.
DATA_QUALITY_STEP = "data_quality"


def step_seconds(home: Path, step: str) -> float:
    """The seconds ``step`` took in the Dagster runs of ``home`` (its STEP_SUCCESS events' durations)."""
    import dagster as dg

    from orchestration.home import Home

    with dg.DagsterInstance.from_config(str(Home(home).dagster_home)) as instance:
        return sum(
            entry.dagster_event.event_specific_data.duration_ms / 1000
            for run in instance.get_runs()
            for entry in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.STEP_SUCCESS)
            if entry.dagster_event.step_key == step
        )


def section_number(title: str) -> int:
    """The number a section's title begins with ("2. OCR pages ..." is 2)."""
    return int(title.split(".")[0])


SECTIONS: list[tuple[str, Callable[[State, Section], None]]] = [
    ("1. The text-layer path against the libraries users would pick", text_layer),
    ("2. OCR pages per second per core", ocr_speed),
    ("4. Scaling with the corpus: time and peak memory", scaling),
    ("3. A rerun with nothing changed against the first run", rerun),
    ("5. Dagster's overhead per run and per shard", dagster_overhead),
    ("6. The fixed cost of a small run", small_runs),
    ("7. A first run: Dagster's share, and the run against its work", first_run_work),
    ("10. The OCR stage with its second engine against Tesseract alone", ocr_engines),
]


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder holding manifest.csv")
    parser.add_argument("--quick", action="store_true", help="shrink every measurement (a smoke check)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="where to write the record")
    parser.add_argument(
        "--only", type=int, nargs="+", metavar="N", help="measure only these sections (by number)"
    )
    args = parser.parse_args(given)
    measurable = sorted(section_number(title) for title, _ in SECTIONS)
    unknown = sorted(set(args.only or ()) - set(measurable))
    if unknown:
        # A section this script does not measure (the page's later sections are written by hand) would be
        # dropped from the page instead of kept.
        print(
            f"--only {' '.join(map(str, unknown))}: this script measures sections "
            f"{', '.join(map(str, measurable))} only",
            file=sys.stderr,
        )
        return 2
    if not (args.corpus / "manifest.csv").is_file():
        print(f"no corpus manifest at {args.corpus / 'manifest.csv'}: pass --corpus DIR", file=sys.stderr)
        return 2
    plan = Plan.smoke() if args.quick else Plan.full()
    record = Record(
        date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        command=shlex.join([".venv/bin/python", "benchmarks/record.py", *given]),
        plan=plan,
        machine=machine(),
        versions=versions(),
        sections=[],
    )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="assay-record-") as tmp:
        state = State(args.corpus.absolute(), plan, Path(tmp))
        for title, fn in SECTIONS:
            if args.only and section_number(title) not in args.only:
                continue
            record.sections.append(measure(title, fn, state))
    record.sections.sort(key=lambda s: s.title)
    record.seconds = time.perf_counter() - started
    args.output.parent.mkdir(parents=True, exist_ok=True)
    earlier = None
    if args.only and args.output.is_file():  # the sections not measured again stay as they were
        earlier = earlier_record(args.output.read_text(encoding="utf-8"), args.only)
    args.output.write_text(render(record, earlier), encoding="utf-8")
    print(f"\nwrote {args.output} ({record.seconds / 60:.1f} minutes)")
    for section in record.sections:
        for figure in section.figures:
            if figure.target:
                print(f"  {_summary(figure)}")
        if section.error:
            print(f"  {section.title}: FAILED: {section.error}")
    return 1 if any(s.error for s in record.sections) else 0


if __name__ == "__main__":
    raise SystemExit(main())
