"""What taking a finished read back from a read worker costs, with the collector paused and without.

A read worker sends its extraction back pickled; the extract stage's process unpickles it
(``readers.engine.isolation.IsolatedReads._receive``). An extraction is one large tree of small objects
(pages, blocks, lines, spans) with no cycles, and the cyclic collector, left running, walks it again and
again while it grows. Two measurements, each against the same code with the collector left running:

1. loading one document's pickled extraction (the largest ``pdf-born-digital`` PDF of the corpus, or a
   generated one without it) ``--loads`` times, each load kept as the stage keeps its rows;
2. the read pool (two workers) over every ``pdf-born-digital`` PDF, in a fresh process per way and
   round, the order turned every other round.

Run from the repository root::

    .venv/bin/python benchmarks/bench_receive.py [--rounds N] [--loads N]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import paired  # noqa: E402


def loads(path: Path, count: int) -> dict[str, float]:
    """Milliseconds a load of ``path``'s pickled extraction, with the collector running and paused."""
    from assets.resources import AssaySettings
    from readers.core.base import collector_paused, freeze_long_lived
    from readers.core.model import ContentKind
    from readers.engine.dispatch import extract_document

    settings = AssaySettings()
    extraction = extract_document(
        path, ContentKind.PDF, size=path.stat().st_size, limits=settings.limits(), max_bytes=1 << 30
    )
    data = pickle.dumps(extraction)
    freeze_long_lived()  # as the extract stage does before its first document
    out: dict[str, float] = {}
    for way in ("running", "paused"):
        kept = []
        started = time.perf_counter()
        for _ in range(count):
            with collector_paused() if way == "paused" else contextlib.nullcontext():
                kept.append(pickle.loads(data))
        out[way] = (time.perf_counter() - started) / count * 1000
        kept.clear()
        gc.collect()
    return out


def pool_seconds(paths: list[str], paused: bool) -> float:
    """In this process: seconds for two read workers to read ``paths``, taken back as the stage takes them
    (the collector paused while a read is unpickled, or, for the baseline, left running)."""
    from readers.core.base import freeze_long_lived
    from readers.engine import isolation

    if not paused:  # the baseline: the same pool with the collector left running while it unpickles
        isolation.collector_paused = contextlib.nullcontext
    freeze_long_lived()
    kept = []
    with paired.read_pool(paths) as (pool, requests):
        started = time.perf_counter()
        kept.extend(pool.read(requests))
        return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--loads", type=int, default=10)
    paired.add_child_arguments(parser, ["paused", "running"])
    args = parser.parse_args()
    if args.child:
        return paired.answer(pool_seconds(args.paths, args.child == "paused"))
    with tempfile.TemporaryDirectory(prefix="assay-bench-receive-") as tmp:
        paths = paired.pdfs(Path(tmp), 0, pages=60)
        largest = max(paths, key=lambda p: p.stat().st_size)
        ms = loads(largest, args.loads)
        print(f"loading {largest.name}'s extraction, {args.loads} times:")
        print(f"  collector running {ms['running']:6.1f} ms a load")
        print(f"  collector paused  {ms['paused']:6.1f} ms a load  ({ms['paused'] / ms['running']:.2f}x)")
        seconds: dict[str, list[float]] = {"paused": [], "running": []}
        for n, way, got in paired.in_children(
            __file__, ["paused", "running"], args.rounds, [str(p) for p in paths]
        ):
            seconds[way].append(got)
            print(f"  round {n}: the read pool, collector {way:8} {got:6.2f} s")
    paused, running = (statistics.median(seconds[w]) for w in ("paused", "running"))
    print(f"the read pool over {len(paths)} PDFs: paused {paused:.2f} s, running {running:.2f} s (medians)")
    print(f"paused / running: {paused / running:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
