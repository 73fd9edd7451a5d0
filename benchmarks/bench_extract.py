"""How fast the PDF readers are, against the bare PyMuPDF call they are built on (docs/design.md §9).

Measures, in one run, over the ``pdf-born-digital`` PDFs of the shared corpus (``manifest.csv``):

(a) raw PyMuPDF: ``page.get_text("dict")`` (default flags) on every page: the baseline;
(b) ``PyMuPDFReader().read`` on the same documents: markdown, headings, tables and page facts;
(c) with ``--with-plumber``: ``page.extract_text()`` of pdfplumber on a capped sample of pages.

Each repetition runs (a) and (b) back to back, alternating which goes first, so that a noisy shared
machine slows both alike; the figures are totals over all repetitions, and the best repetition's ratio
is printed too. Opening the documents is inside both timings (the reader has to open them as well).
The target (docs/benchmarks.md, "Targets"): (b)/(a) >= 0.35.

Run from the repository root::

    .venv/bin/python benchmarks/bench_extract.py [--corpus DIR] [--repeat N] [--with-plumber]
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from readers.core.offline import keep_offline  # noqa: E402

keep_offline()  # before PyMuPDF is imported: no layout model, no telemetry (readers/core/offline.py)
import pymupdf  # noqa: E402

from readers.core.model import ReadLimits  # noqa: E402
from readers.pdf.mupdf import PyMuPDFReader  # noqa: E402

DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
BORN_DIGITAL = "pdf-born-digital"


@dataclass
class Timing:
    label: str
    pages: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.pages / self.seconds if self.seconds else 0.0


def born_digital_pdfs(corpus: Path) -> list[Path]:
    manifest = corpus / "manifest.csv"
    if not manifest.is_file():
        sys.exit(f"no corpus manifest at {manifest}: pass --corpus DIR (the folder holding manifest.csv)")
    with manifest.open(newline="", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row.get("kind") == BORN_DIGITAL]
    paths = [corpus / row["path"] for row in rows if (corpus / row["path"]).is_file()]
    if not paths:
        sys.exit(f"{manifest} lists no readable {BORN_DIGITAL} PDFs")
    return paths


def raw_dict(paths: list[Path]) -> int:
    pages = 0
    for path in paths:
        with pymupdf.open(path, filetype="pdf") as doc:
            for page in doc:
                page.get_text("dict")
                pages += 1
    return pages


def reader(paths: list[Path]) -> int:
    pymupdf_reader, limits = PyMuPDFReader(), ReadLimits()
    return sum(pymupdf_reader.read(path, limits).page_count for path in paths)


def reader_and_signals(paths: list[Path]) -> int:
    """The whole text-layer path of the extract stage: read, then every cheap signal of every page."""
    from quality.document_signals import measure_document

    pymupdf_reader, limits = PyMuPDFReader(), ReadLimits()
    pages = 0
    for path in paths:
        result = pymupdf_reader.read(path, limits)
        measure_document(result.pages)
        pages += result.page_count
    return pages


def plumber_sample(paths: list[Path], cap: int) -> int:
    import pdfplumber

    pages = 0
    for path in paths:
        with pdfplumber.open(path) as pdf:
            for page in pdf.pages:
                if pages >= cap:
                    return pages
                page.extract_text()
                pages += 1
    return pages


def timed(timing: Timing, run: Callable[[], int]) -> float:
    start = time.perf_counter()
    pages = run()
    elapsed = time.perf_counter() - start
    timing.pages += pages
    timing.seconds += elapsed
    return pages / elapsed if elapsed else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder holding manifest.csv")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions of (a) and (b), alternated")
    parser.add_argument("--with-plumber", action="store_true", help="also time pdfplumber on a sample")
    parser.add_argument("--plumber-pages", type=int, default=40, help="pages in the pdfplumber sample")
    args = parser.parse_args(argv)

    paths = born_digital_pdfs(args.corpus)
    raw, ours = Timing('raw get_text("dict")'), Timing("PyMuPDFReader.read")
    full = Timing("PyMuPDFReader.read + page signals")
    raw_dict(paths[:2])  # warm the import and MuPDF's font caches for both sides
    reader(paths[:2])
    reader_and_signals(paths)  # loads the lexicons and trigram profiles once, as a long run would
    ratios: list[float] = []
    full_ratios: list[float] = []
    for index in range(max(1, args.repeat)):
        if index % 2 == 0:
            a, b = timed(raw, lambda: raw_dict(paths)), timed(ours, lambda: reader(paths))
            c = timed(full, lambda: reader_and_signals(paths))
        else:
            c = timed(full, lambda: reader_and_signals(paths))
            b, a = timed(ours, lambda: reader(paths)), timed(raw, lambda: raw_dict(paths))
        ratios.append(b / a if a else 0.0)
        full_ratios.append(c / a if a else 0.0)
    timings = [raw, ours, full]
    if args.with_plumber:
        plumber = Timing(f"pdfplumber extract_text (first {args.plumber_pages} pages)")
        timed(plumber, lambda: plumber_sample(paths, args.plumber_pages))
        timings.append(plumber)

    pages_per_run = raw.pages // max(1, args.repeat)
    print(f"{len(paths)} {BORN_DIGITAL} PDFs, {pages_per_run} pages, {args.repeat} repetitions")
    print(f"{'measure':<48} {'pages':>7} {'seconds':>8} {'pages/s':>8}")
    for timing in timings:
        print(f"{timing.label:<48} {timing.pages:>7} {timing.seconds:>8.2f} {timing.rate:>8.1f}")
    ratio = ours.rate / raw.rate if raw.rate else 0.0
    print(f"ratio reader/raw: {ratio:.2f} overall, per repetition {min(ratios):.2f}-{max(ratios):.2f}")
    full_ratio = full.rate / raw.rate if raw.rate else 0.0
    print(
        f"ratio reader+signals/raw: {full_ratio:.2f} overall, per repetition "
        f"{min(full_ratios):.2f}-{max(full_ratios):.2f}   (floor 0.35)"
    )
    if args.with_plumber and timings[-1].rate:
        print(f"pdfplumber is {raw.rate / timings[-1].rate:.0f}x slower than raw PyMuPDF dict")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
