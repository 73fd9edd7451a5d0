"""What reading each document costs in wall time and memory, per kind, against the default read budgets.

    .venv/bin/python benchmarks/read_budgets.py [FOLDER]        (default: ../shared/corpus/dev)

Every file under FOLDER is sniffed as the walk does and read as the extract stage reads it: in a worker
process of ``readers.engine.isolation.IsolatedReads`` (one at a time, so two reads do not share the machine),
with the default budgets of ``assets/settings.py``, a fresh worker for each document. Prints, per
kind, the slowest read and the largest resident memory the worker reached, and how many times over those
the default budgets are: the figures ``read_timeout_s`` and ``read_memory_mb`` are calibrated on.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from assets.resources import AssaySettings  # noqa: E402
from readers.core.model import ContentKind  # noqa: E402
from readers.engine.isolation import IsolatedReads, ReadRequest  # noqa: E402
from readers.walk.sniff import HEAD_BYTES, sniff  # noqa: E402

MB = 1 << 20


@dataclass(frozen=True, slots=True)
class Cost:
    name: str
    kind: ContentKind
    seconds: float
    peak_mb: float
    status: str


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=REPO.parent / "shared" / "corpus" / "dev")
    args = parser.parse_args()
    if not args.folder.is_dir():
        print(f"no folder at {args.folder}: give one", file=sys.stderr)
        return 2
    settings = AssaySettings()
    budgets = settings.budgets()
    requests = []
    for path in sorted(p for p in args.folder.rglob("*") if p.is_file()):
        with path.open("rb") as fh:
            kind = sniff(fh.read(HEAD_BYTES), path.name).kind
        requests.append(ReadRequest(path.name, path, kind, path.stat().st_size))
    costs: list[Cost] = []
    # A fresh worker for each document: its peak is that document's, not what earlier reads left behind.
    for request in requests:
        with IsolatedReads(settings.limits(), settings.max_document_bytes, budgets, workers=1) as pool:
            for done in pool.read([request]):
                e = done.extraction
                mb = done.peak_rss_bytes / MB
                costs.append(Cost(request.key, request.kind, e.duration_ms / 1000, mb, e.status))
    by_kind: dict[ContentKind, list[Cost]] = defaultdict(list)
    for c in costs:
        by_kind[c.kind].append(c)
    print(f"{len(costs)} documents from {args.folder}, one worker, default budgets")
    print(
        f"{'kind':<10}{'docs':>6}{'slowest s':>11}{'peak MB':>9}  "
        f"{'budget s':>9}{'x':>7}  {'budget MB':>10}{'x':>6}"
    )
    for kind in sorted(by_kind, key=lambda k: k.value):
        group = by_kind[kind]
        slowest = max(c.seconds for c in group)
        peak = max(c.peak_mb for c in group)
        b = budgets.for_kind(kind)
        budget_mb = b.memory_bytes / MB
        print(
            f"{kind.value:<10}{len(group):>6}{slowest:>11.2f}{peak:>9.0f}  {b.seconds:>9.0f}"
            f"{b.seconds / max(slowest, 1e-3):>7.0f}  {budget_mb:>10.0f}{budget_mb / max(peak, 1):>6.1f}"
        )
    slowest = max(costs, key=lambda c: c.seconds)
    largest = max(costs, key=lambda c: c.peak_mb)
    print(f"slowest read: {slowest.name} ({slowest.kind.value}) {slowest.seconds:.2f} s")
    print(f"largest worker: {largest.name} ({largest.kind.value}) {largest.peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
