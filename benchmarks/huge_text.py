"""Peak memory of the stages after extract on one huge one-line text file, against a small one.

Two measurements, either or both:

- ``--stages`` (the default): each stage's work on the document, in this process, as the stage's asset
  does it for a shard of one document: extract (the text reader, then the page rows and their signals,
  ``assets.extract.work.extract_shard``), verdicts (``assets.verdicts.judging.judge_document_rows``), the
  final page texts
  (``assets.ocr.work.shard_page_texts``), sanitize (``quality.sanitizer.sanitize_document``) and chunk
  (``quality.chunking.chunk_document``). For each stage: its seconds, the resident memory of this process
  at its start and its peak during it (polled every 10 ms), and the peak's growth over the start.
- ``--run``: ``assay run`` on the file in a fresh home, as a user runs it (benchmarks/record.py's
  measurement): seconds, the peak of the process tree's summed resident memory and the largest single
  process (wait4's ``ru_maxrss``, the main process: the reader workers are smaller).

    .venv/bin/python benchmarks/huge_text.py --mb 1 50 150 [--run]

The file is words (a dozen of them, drawn with a fixed seed) separated by single spaces, with no line end:
the shape of a minified export or a log written without newlines.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import random
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

MiB = 1 << 20
POLL_S = 0.01
WORDS = [
    "water",
    "meter",
    "reading",
    "district",
    "tariff",
    "budget",
    "library",
    "council",
    "north",
    "south",
    "maintenance",
    "cost",
    "reservoir",
    "pressure",
    "valve",
]


def write_one_line(path: Path, mb: float, seed: int = 1) -> Path:
    """``mb`` MiB of words separated by spaces, without a single line end."""
    rng = random.Random(seed)
    block = " ".join(rng.choice(WORDS) for _ in range(20_000)) + " "
    target = int(mb * MiB)
    with path.open("w", encoding="ascii") as out:
        written = 0
        while written < target:
            piece = block[: target - written]
            out.write(piece)
            written += len(piece)
    return path


@dataclass(frozen=True, slots=True)
class StagePeak:
    stage: str
    seconds: float
    start_mb: float
    peak_mb: float

    @property
    def growth_mb(self) -> float:
        return self.peak_mb - self.start_mb


@contextmanager
def polled(stage: str, out: list[StagePeak]) -> Iterator[None]:
    gc.collect()
    me = psutil.Process()
    start = me.memory_info().rss
    peak = [start]
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], me.memory_info().rss)
            time.sleep(POLL_S)

    thread = threading.Thread(target=poll, daemon=True)
    began = time.perf_counter()
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        peak[0] = max(peak[0], me.memory_info().rss)
        out.append(StagePeak(stage, time.perf_counter() - began, start / MiB, peak[0] / MiB))


def stage_peaks(path: Path) -> list[StagePeak]:
    """Each stage's work on the one document of ``path``, as its asset does it, with its peak memory."""
    from assets.extract.work import ShardRows, extract_shard
    from assets.ocr.work import ShardInput, shard_page_texts
    from assets.resources import AssaySettings
    from assets.verdicts.judging import judge_document_rows
    from quality.chunking import PageSpan, chunk_document
    from quality.sanitizer import sanitize_document
    from quality.sources import ExtractedPage
    from readers.core.model import ContentKind
    from readers.core.reading_records import DocumentRecord

    settings = AssaySettings()
    limits = settings.limits()
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    shard, version = sha[:2], "bench"
    doc = DocumentRecord(
        sha, shard, ContentKind.TEXT.value, "bytes", path.stat().st_size, None, None, str(path), "bench"
    )
    peaks: list[StagePeak] = []
    with polled("extract (read, page rows, signals)", peaks):
        rows = extract_shard(
            shard,
            [doc],
            version=version,
            existing=ShardRows(),
            prior=None,
            limits=limits,
            max_document_bytes=settings.max_document_bytes,
        ).rows
    pages = rows.pages[sha]
    with polled("verdicts", peaks):
        verdicts = judge_document_rows(
            "text", path, sha, shard, version, pages, rows.fonts[sha], limits, size=doc.size
        )
    with polled("page texts (ocr stage)", peaks):
        inp = ShardInput(
            shard,
            [doc],
            verdicts.pages,
            [ExtractedPage(p.page, p.text, p.reader, p.reader_version) for p in pages],
            [sha] * len(pages),
            verdicts.repairs,
            [],
        )
        texts = shard_page_texts(inp, version, [])
    del rows, pages, inp
    with polled("sanitize", peaks):
        clean = sanitize_document(sha, shard, version, texts, {}, settings.scrubber(), paged=False).text
    del texts
    with polled("chunk", peaks):
        if clean is not None:
            spans = [
                PageSpan(page, start, None, source, 1.0)
                for page, start, source in zip(
                    clean.pages, clean.page_starts, clean.page_sources, strict=True
                )
            ]
            chunks = chunk_document(
                sha,
                clean.text,
                spans,
                target=settings.chunk_target_chars,
                overlap=settings.chunk_overlap_chars,
            )
            del chunks
    return peaks


def print_stages(mb: float, peaks: list[StagePeak]) -> None:
    print(f"\n{mb:g} MiB one-line text: peak resident memory of this process per stage")
    print(f"  {'stage':40} {'seconds':>8} {'start MB':>9} {'peak MB':>8} {'growth MB':>10}")
    for p in peaks:
        print(f"  {p.stage:40} {p.seconds:8.1f} {p.start_mb:9.0f} {p.peak_mb:8.0f} {p.growth_mb:10.0f}")
    print(f"  {'largest growth':40} {'':8} {'':9} {'':8} {max(p.growth_mb for p in peaks):10.0f}", flush=True)


def measured_run(path: Path, work: Path) -> None:
    from benchmarks.record import assay_run

    folder = work / f"run-{path.stem}"
    folder.mkdir()
    path.rename(folder / path.name)
    run = assay_run(work / f"home-{path.stem}", [folder], work / f"{path.stem}.log")
    print(
        f"  assay run on {path.name}: {run.seconds:.0f} s, peak of the process tree "
        f"{run.peak_tree_mb:.0f} MB, largest process {run.largest_process_mb:.0f} MB",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, nargs="+", default=[1, 50], help="sizes of the files, MiB")
    parser.add_argument("--run", action="store_true", help="also measure `assay run` on each file")
    parser.add_argument("--no-stages", action="store_true", help="skip the in-process stage measurement")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="assay-huge-text-") as tmp:
        work = Path(tmp)
        for mb in args.mb:
            path = write_one_line(work / f"one-line-{mb:g}mb.txt", mb)
            if not args.no_stages:
                print_stages(mb, stage_peaks(path))
            if args.run:
                measured_run(path, work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
