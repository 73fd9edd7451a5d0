"""What each structural part of the PDF reader costs: the reader with everything, against the reader with
one part switched off, in one run, over the ``pdf-born-digital`` PDFs of the shared corpus.

The parts: the tagged reading (readers/pdf/tagged_pages.py and readers/pdf/marked_content.py), the tables
aligned by whitespace (readers/pdf/unruled_tables.py) and the ruled tables (readers/pdf/ruled_tables.py). A
part is switched off by replacing the function the reader calls for it with one that returns what a document
without that structure gives (the pages as they are; no table); everything else runs as it does. Raw PyMuPDF
``page.get_text("dict")`` is measured beside them, as in benchmarks/record.py's section 1, so each
part's cost is also a share of the baseline. Each repetition runs every variant once, in an order that
turns round on every other repetition; the best repetition of each is kept (the machine is shared and
noisy: only the differences and ratios mean anything).

Run from the repository root::

    .venv/bin/python benchmarks/reader_parts.py [--corpus DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import bench_extract  # noqa: E402
from readers.core.model import ReadLimits  # noqa: E402
from readers.pdf import mupdf  # noqa: E402

#: The reader's parts: the name the reader module calls, and what stands in for it when it is off.
PARTS: dict[str, tuple[str, Callable[..., object]]] = {
    "tagged reading": ("read_tagged", lambda doc, pages: list(pages)),
    "aligned tables": ("find_aligned_tables", lambda *args, **kwargs: []),
    "ruled tables": ("find_ruled_tables", lambda *args, **kwargs: []),
}


@contextmanager
def switched_off(part: str | None) -> Iterator[None]:
    if part is None:
        yield
        return
    name, stand_in = PARTS[part]
    kept = getattr(mupdf, name)
    setattr(mupdf, name, stand_in)
    try:
        yield
    finally:
        setattr(mupdf, name, kept)


def read_all(paths: list[Path]) -> int:
    reader, limits = mupdf.PyMuPDFReader(), ReadLimits()
    pages = 0
    for path in paths:
        try:
            pages += reader.read(path, limits).page_count
        except Exception:  # a document the reader refuses costs what it cost; the count is the pages read
            continue
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    paths = bench_extract.born_digital_pdfs(args.corpus)
    if not paths:
        print(f"no pdf-born-digital PDFs under {args.corpus}: pass --corpus DIR", file=sys.stderr)
        return 2
    variants: list[str | None] = [None, *PARTS]
    best: dict[str | None, float] = {}
    raw_best = float("inf")
    read_all(paths[:2])  # imports and MuPDF's caches, untimed
    pages = 0
    for repetition in range(args.repeat):
        order = variants if repetition % 2 == 0 else variants[::-1]
        started = time.perf_counter()
        bench_extract.raw_dict(paths)
        raw_best = min(raw_best, time.perf_counter() - started)
        for part in order:
            with switched_off(part):
                started = time.perf_counter()
                pages = read_all(paths)
                best[part] = min(best.get(part, float("inf")), time.perf_counter() - started)
    whole = best[None]
    print(f"{len(paths)} PDFs, {pages} pages, best of {args.repeat} repetitions")
    print(f"  raw PyMuPDF get_text('dict'): {raw_best:.3f} s")
    print(f"  the PDF reader:               {whole:.3f} s ({raw_best / whole:.3f} of the raw call's speed)")
    for part in PARTS:
        cost = whole - best[part]
        print(
            f"  {part + ':':30s}{cost:+.3f} s, {cost / whole:6.1%} of the reader, "
            f"{cost / raw_best:6.1%} of the raw call"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
