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
import csv
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
CORPUS = REPO.parent / "shared" / "corpus"
MB = 1 << 20
WAYS = ("frozen in the fork server", "not frozen (baseline)")


def documents(count: int, folder: Path) -> list[Path]:
    """The first ``count`` born-digital PDFs of the corpus manifest, or generated ones without it."""
    manifest = CORPUS / "manifest.csv"
    if manifest.is_file():
        with open(manifest, newline="", encoding="utf-8") as fh:
            rows = [r for r in csv.DictReader(fh) if r["kind"] == "pdf-born-digital"]
        return [CORPUS / r["path"] for r in rows[:count]]
    from orchestration.demo import make_text_pdf

    text = "Unit consumption rose in the northern district while maintenance costs fell. " * 20
    return [make_text_pdf(folder / f"doc-{n}.pdf", [text] * 5) for n in range(count)]


def worker_memory(paths: list[str], frozen: bool) -> dict[str, float]:
    """In this process: two workers read ``paths``; their USS and PSS summed, in MB."""
    from assets.resources import AssaySettings
    from readers.engine import isolation
    from readers.walk.sniff import HEAD_BYTES, sniff

    if not frozen:  # the baseline: the fork server's last preload is a module that freezes nothing
        isolation.FREEZE_PRELOADED = "readers.core.base"
    requests = []
    for name in paths:
        path = Path(name)
        with path.open("rb") as fh:
            kind = sniff(fh.read(HEAD_BYTES), path.name).kind
        requests.append(isolation.ReadRequest(path.name, path, kind, path.stat().st_size))
    settings = AssaySettings()
    with isolation.IsolatedReads(
        settings.limits(), settings.max_document_bytes, settings.budgets(), workers=2
    ) as pool:
        for _ in pool.read(requests):
            pass
        infos = [w.ps.memory_full_info() for w in pool._workers]
    return {"uss": sum(i.uss for i in infos) / MB, "pss": sum(i.pss for i in infos) / MB}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", choices=["frozen", "baseline"], help=argparse.SUPPRESS)
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(worker_memory(args.paths, args.child == "frozen")))
        return 0
    with tempfile.TemporaryDirectory(prefix="assay-worker-memory-") as tmp:
        paths = [str(p) for p in documents(args.documents, Path(tmp))]
        print(f"{len(paths)} PDFs, two read workers, {args.rounds} round(s); USS and PSS summed over both")
        results: dict[str, list[dict[str, float]]] = {"frozen": [], "baseline": []}
        for n in range(args.rounds):
            order = ["frozen", "baseline"] if n % 2 == 0 else ["baseline", "frozen"]
            for way in order:
                command = [sys.executable, __file__, "--child", way, *paths]
                out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=REPO).stdout
                got = json.loads(out.strip().splitlines()[-1])
                results[way].append(got)
                print(f"  round {n + 1} {way:9} USS {got['uss']:6.1f} MB  PSS {got['pss']:6.1f} MB")
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
