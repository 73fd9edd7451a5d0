"""How fast the page text signals are, against the PyMuPDF call a page's layout comes from
(docs/design.md §9).

Over the ``pdf-born-digital`` PDFs of the shared corpus (``manifest.csv``), in one run:

(a) raw PyMuPDF ``page.get_text("dict")`` (default flags) on every page: the baseline the extract stage
    pays anyway;
(b) :func:`quality.page_signals.page_signals` on every page, given the page's ``get_text()`` text and
    its blocks converted from ``get_text("dict")`` into :class:`readers.core.model.Block` (the conversion and
    the PyMuPDF calls are done beforehand and not timed: they are the reader's cost, not the signals').

Language profiles and lexicons are built before timing (a one-off per process, reported separately):
the steady state is what a shard of thousands of pages sees. Each repetition runs (a) and (b) back to
back, alternating which goes first, so a noisy shared machine slows both alike.

Run from the repository root::

    .venv/bin/python benchmarks/bench_signals.py [--corpus DIR] [--repeat N] [--show]

``--show`` prints each page's main signals (a sanity look at the corpus, not a test).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from readers.core.offline import keep_offline  # noqa: E402

keep_offline()  # before PyMuPDF is imported: no layout model, no telemetry (readers/core/offline.py)
import pymupdf  # noqa: E402

from benchmarks.bench_extract import born_digital_pdfs, raw_dict  # noqa: E402
from quality.page_signals import PageSignals, page_signals  # noqa: E402
from readers.core.model import BBox, Block, Line, PageText, Span  # noqa: E402

DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
BORN_DIGITAL = "pdf-born-digital"
PAGE_IMAGE_SHARE = 0.5  # an image covering this share of the page is a scan, not a figure
_MONOSPACED = pymupdf.TEXT_FONT_MONOSPACED
_BOLD = pymupdf.TEXT_FONT_BOLD


@dataclass(frozen=True, slots=True)
class PreparedPage:
    """What page_signals needs for one page, taken from PyMuPDF before timing."""

    name: str
    page: PageText
    height: float
    figures: tuple[BBox, ...]
    body_size: float | None


def blocks_from_dict(layout: dict[str, Any]) -> tuple[tuple[Block, ...], tuple[BBox, ...]]:
    """The text blocks of a ``get_text("dict")`` page as model Blocks, and its image blocks' boxes."""
    blocks: list[Block] = []
    figures: list[BBox] = []
    for raw in layout.get("blocks", ()):
        if raw.get("type") == 1:
            figures.append(tuple(raw["bbox"]))  # type: ignore[arg-type]
            continue
        lines: list[Line] = []
        for raw_line in raw.get("lines", ()):
            spans = tuple(
                Span(
                    text=s["text"],
                    font=s["font"],
                    size=float(s["size"]),
                    bbox=tuple(s["bbox"]),  # type: ignore[arg-type]
                    bold=bool(s["flags"] & _BOLD),
                    monospaced=bool(s["flags"] & _MONOSPACED),
                    invisible=s.get("alpha", 255) == 0,
                )
                for s in raw_line.get("spans", ())
            )
            if spans:
                lines.append(Line(spans, tuple(raw_line["bbox"])))  # type: ignore[arg-type]
        if lines:
            blocks.append(Block(tuple(lines), tuple(raw["bbox"])))  # type: ignore[arg-type]
    return tuple(blocks), tuple(figures)


def body_size(blocks: list[Block]) -> float | None:
    """The document's body size: the size (to half a point) most of its characters are set in."""
    sizes: Counter[float] = Counter()
    for block in blocks:
        for line in block.lines:
            for span in line.spans:
                sizes[round(span.size * 2) / 2] += len(span.text.strip())
    return sizes.most_common(1)[0][0] if sizes else None


def prepare(paths: list[Path]) -> list[PreparedPage]:
    prepared: list[PreparedPage] = []
    for path in paths:
        with pymupdf.open(path, filetype="pdf") as doc:
            pages = []
            for number, page in enumerate(doc, start=1):
                blocks, images = blocks_from_dict(page.get_text("dict"))
                # A page-sized image is the page (a scan under an OCR layer), not a figure in it.
                page_area = page.rect.width * page.rect.height
                figures = tuple(
                    b for b in images if (b[2] - b[0]) * (b[3] - b[1]) < PAGE_IMAGE_SHARE * page_area
                )
                pages.append((number, page.get_text(), blocks, figures, page.rect.height))
        size = body_size([b for _, _, blocks, _, _ in pages for b in blocks])
        for number, text, blocks, figures, height in pages:
            prepared.append(
                PreparedPage(
                    f"{path.name}#{number}", PageText(number, text, blocks=blocks), height, figures, size
                )
            )
    return prepared


def signals(pages: list[PreparedPage]) -> list[PageSignals]:
    return [
        page_signals(p.page, body_size=p.body_size, page_height=p.height, figure_boxes=p.figures)
        for p in pages
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder holding manifest.csv")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions of (a) and (b), alternated")
    parser.add_argument("--show", action="store_true", help="print each page's main signals")
    args = parser.parse_args(argv)

    paths = born_digital_pdfs(args.corpus)
    start = time.perf_counter()
    pages = prepare(paths)
    prepare_seconds = time.perf_counter() - start
    start = time.perf_counter()
    results = signals(pages)  # first pass: builds the profiles and lexicons the corpus needs
    warm_seconds = time.perf_counter() - start

    raw_seconds = signal_seconds = 0.0
    raw_pages = 0
    per_page: list[float] = []
    for index in range(max(1, args.repeat)):
        order = (0, 1) if index % 2 == 0 else (1, 0)
        for which in order:
            start = time.perf_counter()
            if which == 0:
                raw_pages += raw_dict(paths)
                raw_seconds += time.perf_counter() - start
            else:
                signals(pages)
                signal_seconds += time.perf_counter() - start
    for p in pages:  # per-page cost distribution, one more pass
        start = time.perf_counter()
        page_signals(p.page, body_size=p.body_size, page_height=p.height, figure_boxes=p.figures)
        per_page.append((time.perf_counter() - start) * 1000)

    repeat = max(1, args.repeat)
    raw_rate = raw_pages / raw_seconds if raw_seconds else 0.0
    signal_rate = len(pages) * repeat / signal_seconds if signal_seconds else 0.0
    print(f"{len(paths)} {BORN_DIGITAL} PDFs, {len(pages)} pages, {repeat} repetitions")
    print(f"get_text() + get_text('dict') + Block adapter, once: {prepare_seconds:.2f} s")
    print(f"first page_signals pass (builds profiles and lexicons): {warm_seconds:.2f} s")
    print(f"{'measure':<40} {'pages/s':>9} {'ms/page':>8}")
    raw_label = 'raw get_text("dict")'
    print(f"{raw_label:<40} {raw_rate:>9.1f} {1000 / raw_rate if raw_rate else 0:>8.2f}")
    print(f"{'page_signals':<40} {signal_rate:>9.1f} {1000 / signal_rate if signal_rate else 0:>8.2f}")
    per_page.sort()
    print(
        f"page_signals per page: median {statistics.median(per_page):.2f} ms, "
        f"p90 {per_page[int(0.9 * (len(per_page) - 1))]:.2f} ms, max {per_page[-1]:.2f} ms"
    )
    print(f"ratio page_signals/raw dict (pages/s): {signal_rate / raw_rate if raw_rate else 0:.2f}")
    if args.show:
        print(
            f"\n{'page':<58} {'lang':>5} {'sim':>5} {'lex':>5} {'hit':>5} {'wt':>6} {'prose':>7} {'bad':>5}"
        )
        for p, s in zip(pages, results, strict=True):
            print(
                f"{p.name[:58]:<58} {s.language or '-':>5} {s.language_similarity:>5.2f} "
                f"{s.lexicon_language or '-':>5} {s.lexicon_hit_rate:>5.2f}{'' if s.lexicon_judged else '?'} "
                f"{s.lexicon_weight:>6.0f} {s.prose_blocks:>3}/{s.blocks:<3} {s.bad_rune_ratio:>5.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
