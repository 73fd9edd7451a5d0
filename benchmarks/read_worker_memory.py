"""How much memory a read worker holds of its own, with the fork server's freeze and without it.

The read workers are forked from one fork server that has imported the readers (PyMuPDF, pdfplumber,
the Office and mail readers). A worker shares those memory pages with the fork server until it writes
into them, and a full collection of the cyclic collector writes into every object it walks. The fork
server therefore freezes what it has loaded before it forks a worker (``readers/engine/frozen.py``).

Each way runs in a fresh process with its own fork server: two workers read the same documents
(``pdf-born-digital`` PDFs of the corpus, or generated ones without it), then each worker's memory is
taken with ``psutil``'s ``memory_full_info``: USS (the pages it alone holds) and PSS (its share of the
pages it shares). The baseline is the same pool whose fork server imports no freeze. Run from the
repository root::

    .venv/bin/python benchmarks/read_worker_memory.py [--documents N] [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import paired  # noqa: E402

MB = 1 << 20
WAYS = ("frozen in the fork server", "not frozen (baseline)")


def worker_memory(paths: list[str], frozen: bool) -> dict[str, float]:
    """In this process: two workers read ``paths``; their USS and PSS summed, in MB."""
    from readers.engine import isolation

    if not frozen:  # the baseline: the fork server's last preload is a module that freezes nothing
        isolation.FREEZE_PRELOADED = "readers.core.base"
    with paired.read_pool(paths) as (pool, requests):
        for _ in pool.read(requests):
            pass
        infos = [w.ps.memory_full_info() for w in pool._workers]
    return {"uss": sum(i.uss for i in infos) / MB, "pss": sum(i.pss for i in infos) / MB}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    paired.add_child_arguments(parser, ["frozen", "baseline"])
    args = parser.parse_args()
    if args.child:
        return paired.answer(worker_memory(args.paths, args.child == "frozen"))
    with tempfile.TemporaryDirectory(prefix="assay-worker-memory-") as tmp:
        paths = [str(p) for p in paired.pdfs(Path(tmp), args.documents, pages=5)]
        print(f"{len(paths)} PDFs, two read workers, {args.rounds} round(s); USS and PSS summed over both")
        results: dict[str, list[dict[str, float]]] = {"frozen": [], "baseline": []}
        for n, way, got in paired.in_children(__file__, ["frozen", "baseline"], args.rounds, paths):
            results[way].append(got)
            print(f"  round {n} {way:9} USS {got['uss']:6.1f} MB  PSS {got['pss']:6.1f} MB")
    for label, way in zip(WAYS, ("frozen", "baseline"), strict=True):
        uss = statistics.median(r["uss"] for r in results[way])
        pss = statistics.median(r["pss"] for r in results[way])
        print(f"{label:28} USS {uss:6.1f} MB  PSS {pss:6.1f} MB (medians)")
    ratio = statistics.median(r["uss"] for r in results["frozen"]) / statistics.median(
        r["uss"] for r in results["baseline"]
    )
    print(f"workers' own memory (USS), frozen / baseline: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
