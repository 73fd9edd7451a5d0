"""OCR pages per second per core at the default resolution, against the obvious way in the same run.

    .venv/bin/python benchmarks/bench_ocr.py [--pages N] [--dpi 300]

The pages are the scanned pages of ../shared/corpus/dev (the blank one left out); without the corpus,
generated dense text pages. Two ways, side by side on the same pages:

- baseline: one Tesseract at a time with its default OpenMP threads (what pytesseract does out of the box),
  orientation detection then recognition, page after page;
- assay: the OCR stage's own path (assets/ocr/work.py): pages rendered in the calling thread, one
  single-threaded Tesseract per core.

Prints pages/s, pages/s per core and the ratio; the machine is shared and noisy, so only the ratio
measured in one run means anything.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
CORPUS = REPO.parent / "shared" / "corpus"

from readers.core.offline import keep_offline  # noqa: E402

keep_offline()  # before PyMuPDF is imported: no layout model, no telemetry (readers/core/offline.py)
import pymupdf  # noqa: E402
import pytesseract  # noqa: E402

from assets.ocr.work import LanguageChoice, OcrOptions, OcrTask, ocr_tasks  # noqa: E402
from quality.records import OcrScope  # noqa: E402
from readers.core.cores import usable_cores  # noqa: E402
from readers.core.model import ContentKind  # noqa: E402
from readers.images.tesseract import DEFAULT_DPI, render_page  # noqa: E402


def corpus_pages(corpus: Path = CORPUS) -> list[tuple[Path, int]]:
    with open(corpus / "manifest.csv", newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["kind"] == "pdf-scanned" and "blank" not in r["path"]]
    pages: list[tuple[Path, int]] = []
    for r in rows:
        path = corpus / r["path"]
        with pymupdf.open(path) as doc:
            pages += [(path, n) for n in range(1, doc.page_count + 1)]
    return pages


def generated_pages(folder: Path, count: int) -> list[tuple[Path, int]]:
    from orchestration.demo import make_text_pdf

    paragraph = (
        "The water utility measured unit consumption rates across every district of the city this year. "
        "Tariffs rose slightly in the northern zone while maintenance costs fell in the south. "
    ) * 6
    pdf = make_text_pdf(folder / "dense.pdf", [paragraph] * count, fontsize=11)
    return [(pdf, n) for n in range(1, count + 1)]


def baseline(pages: list[tuple[Path, int]], dpi: int) -> float:
    os.environ.pop("OMP_THREAD_LIMIT", None)  # Tesseract's default: as many OpenMP threads as cores
    started = time.perf_counter()
    for path, page in pages:
        image = render_page(path, page, dpi)
        with contextlib.suppress(pytesseract.TesseractError):  # too little text to decide
            pytesseract.image_to_osd(image, config="--psm 0")
        pytesseract.image_to_data(image, lang="eng", config=f"--psm 3 --dpi {dpi}")
    return time.perf_counter() - started


def assay_path(pages: list[tuple[Path, int]], dpi: int, workers: int) -> float:
    tasks = [
        OcrTask(
            hashlib.sha256(path.read_bytes()).hexdigest(),
            "00",
            path,
            path.stat().st_size,
            ContentKind.PDF,
            page,
            OcrScope.PAGE,
            LanguageChoice("eng", "configured"),
        )
        for path, page in pages
    ]
    started = time.perf_counter()
    rows = ocr_tasks(tasks, "bench", OcrOptions(dpi=dpi, workers=workers))
    elapsed = time.perf_counter() - started
    bad = [r for r in rows if r.status != "derived"]
    if bad:
        print(f"  {len(bad)} pages not derived: {sorted({r.reason for r in bad})}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=8, help="pages to read each way (default 8)")
    parser.add_argument("--dpi", type=int, default=DEFAULT_DPI)
    args = parser.parse_args()
    cores = usable_cores()
    with tempfile.TemporaryDirectory(prefix="assay-bench-ocr-") as tmp:
        if (CORPUS / "manifest.csv").is_file():
            pages, source = corpus_pages()[: args.pages], "scanned pages of the shared corpus"
        else:
            pages, source = generated_pages(Path(tmp), args.pages), "generated dense text pages"
        version = pytesseract.get_tesseract_version()
        print(f"{len(pages)} {source} at {args.dpi} dpi, {cores} cores, Tesseract {version}")
        base = baseline(pages, args.dpi)
        ours = assay_path(pages, args.dpi, cores)
    n = len(pages)
    for label, seconds in (
        ("baseline (one Tesseract, default threads)", base),
        ("assay (one single-threaded Tesseract per core)", ours),
    ):
        print(f"  {label:48} {n / seconds:6.3f} pages/s, {n / seconds / cores:6.3f} pages/s per core")
    print(f"  ratio assay / baseline: {base / ours:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
