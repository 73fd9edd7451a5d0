"""The OCR stage's pages per second per core, against bare Tesseract on the same images in the same run.

    .venv/bin/python benchmarks/bench_ocr.py [--pages N] [--dpi 300] [--rounds 2]

The pages are the scanned pages of ../shared/corpus/dev (``pdf-scanned``, the blank one left out); without
the corpus, generated dense text pages. Each round measures, in turn (the order reversed every other round):

- bare Tesseract: ``tesseract page.png stdout -l eng --psm 3 --dpi 300``, single-threaded
  (``OMP_THREAD_LIMIT=1``), one process per core, on the pages rendered beforehand (untimed);
- the same with orientation detection (``--psm 1``): what turning a page upright costs Tesseract;
- assay: the OCR stage's own path (``assets.ocr.page_reading.ocr_tasks``): each page rendered from its PDF
  in the calling thread, one single-threaded Tesseract per core, word confidences; a page whose ink shows it
  upright (``readers/images/orientation.py``) read as it is (``--psm 3``), the others with orientation
  detection (``--psm 1``).

Rendering is timed on its own too. Prints pages/s per core and the ratios; the machine is shared and
noisy, so only ratios measured in one run mean anything.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
CORPUS = REPO.parent / "shared" / "corpus"

from readers.core.offline import keep_offline  # noqa: E402

keep_offline()  # before PyMuPDF is imported: no layout model, no telemetry (readers/core/offline.py)
import pymupdf  # noqa: E402

from assets.ocr.page_reading import LanguageChoice, OcrOptions, OcrTask, ocr_tasks  # noqa: E402
from quality.records import OcrScope  # noqa: E402
from readers.core.cores import usable_cores  # noqa: E402
from readers.core.model import ContentKind  # noqa: E402
from readers.images.orientation import looks_upright  # noqa: E402
from readers.images.tesseract import DEFAULT_DPI, installed_version, render_page  # noqa: E402

LANGUAGE = "eng"


@dataclass(frozen=True, slots=True)
class OcrSpeeds:
    """Seconds summed over the rounds for each way of reading the same pages."""

    pages: int
    rounds: int
    cores: int
    render: float  # rendering every page once, in one thread
    upright: int  # pages whose ink shows them upright: read without orientation detection
    bare: float  # bare Tesseract, --psm 3
    bare_upright: float  # bare Tesseract with orientation detection, --psm 1
    assay: float  # the OCR stage's path (rendering included)

    def per_core(self, seconds: float) -> float:
        return self.pages * self.rounds / seconds / self.cores


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
    from orchestration.document_builders import make_text_pdf

    paragraph = (
        "The water utility measured unit consumption rates across every district of the city this year. "
        "Tariffs rose slightly in the northern zone while maintenance costs fell in the south. "
    ) * 6
    pdf = make_text_pdf(folder / "dense.pdf", [paragraph] * count, fontsize=11)
    return [(pdf, n) for n in range(1, count + 1)]


def render_all(pages: list[tuple[Path, int]], dpi: int, folder: Path) -> tuple[float, list[Path], int]:
    """Every page rendered as assay renders it, written as a PNG for bare Tesseract; the rendering's
    seconds (not the writing's), and how many pages show themselves upright."""
    spent, images, upright = 0.0, [], 0
    for i, (path, page) in enumerate(pages):
        started = time.perf_counter()
        image = render_page(path, page, dpi)
        spent += time.perf_counter() - started
        images.append(folder / f"page-{i:03d}.png")
        image.save(images[-1])
        upright += looks_upright(image)
    return spent, images, upright


def bare_tesseract(images: list[Path], dpi: int, cores: int, psm: int) -> float:
    """Seconds for bare single-threaded Tesseract, one process per core, to read every image."""
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}

    def read(image: Path) -> None:
        command = ["tesseract", str(image), "stdout", "-l", LANGUAGE, "--psm", str(psm), "--dpi", str(dpi)]
        subprocess.run(command, check=True, capture_output=True, env=env)

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=cores) as pool:
        list(pool.map(read, images))
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
            LanguageChoice(LANGUAGE, "configured"),
        )
        for path, page in pages
    ]
    started = time.perf_counter()
    rows = ocr_tasks(tasks, "bench", OcrOptions(dpi=dpi, workers=workers))
    elapsed = time.perf_counter() - started
    bad = [r for r in rows if r.status != "derived"]
    if bad:
        print(f"  {len(bad)} pages not derived: {sorted({r.reason or '' for r in bad})}")
    return elapsed


def measure(pages: list[tuple[Path, int]], dpi: int, rounds: int, folder: Path) -> OcrSpeeds:
    cores = usable_cores()
    render, images, upright = render_all(pages, dpi, folder)  # once: the baseline's input, rendering's cost
    total = {"bare": 0.0, "upright": 0.0, "assay": 0.0}
    for n in range(rounds):
        ways = [
            ("bare", lambda: bare_tesseract(images, dpi, cores, 3)),
            ("upright", lambda: bare_tesseract(images, dpi, cores, 1)),
            ("assay", lambda: assay_path(pages, dpi, cores)),
        ]
        for name, way in ways if n % 2 == 0 else reversed(ways):
            total[name] += way()
    return OcrSpeeds(
        len(pages), rounds, cores, render, upright, total["bare"], total["upright"], total["assay"]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=0, help="pages to read (default: every scanned page)")
    parser.add_argument("--dpi", type=int, default=DEFAULT_DPI)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="assay-bench-ocr-") as tmp:
        if (CORPUS / "manifest.csv").is_file():
            pages, source = corpus_pages(), "scanned pages of the shared corpus"
        else:
            pages, source = generated_pages(Path(tmp), args.pages or 8), "generated dense text pages"
        pages = pages[: args.pages] if args.pages else pages
        print(
            f"{len(pages)} {source} at {args.dpi} dpi, Tesseract {installed_version()}, {args.rounds} rounds"
        )
        speeds = measure(pages, args.dpi, args.rounds, Path(tmp))
    print(f"  {speeds.cores} cores")
    for label, seconds in (
        ("bare Tesseract (--psm 3)", speeds.bare),
        ("bare Tesseract, orientation (--psm 1)", speeds.bare_upright),
        ("assay's OCR stage", speeds.assay),
    ):
        print(f"  {label:40} {seconds:7.1f} s  {speeds.per_core(seconds):6.3f} pages/s per core")
    pages = speeds.pages * speeds.rounds
    print(f"  rendering: {speeds.render / speeds.pages:.3f} s a page (one thread)")
    print(f"  read as they are (their ink shows them upright): {speeds.upright} of {speeds.pages} pages")
    print(
        f"  orientation: {(speeds.bare_upright - speeds.bare) * speeds.cores / pages:+.3f} s a page"
        " (per core)"
    )
    print(f"  ratio assay / bare Tesseract, per core: {speeds.bare / speeds.assay:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
