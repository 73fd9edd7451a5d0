"""A rerun with nothing changed against the first run, side by side in one process.

    .venv/bin/python benchmarks/bench_rerun.py [FOLDER]      (default: ../shared/corpus/dev)

Runs the whole pipeline (walk, extract, catalog: real Dagster runs against a fresh home) on FOLDER, then
again with nothing changed, and prints both wall times and their ratio. The rerun must hash nothing, read
nothing, and take well under a fifth of the first run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from orchestration.home import Home  # noqa: E402
from orchestration.progress import Progress  # noqa: E402
from orchestration.runner import run  # noqa: E402


def main() -> int:
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=REPO.parent / "shared" / "corpus" / "dev")
    args = parser.parse_args()
    if not args.folder.is_dir():
        print(f"no folder at {args.folder}: pass one", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="assay-bench-") as tmp:
        home = Home(Path(tmp) / "home")
        timings = []
        for label in ("first run", "rerun"):
            progress = Progress()
            started = time.perf_counter()
            report = run(home, [args.folder.absolute()], progress)
            seconds = time.perf_counter() - started
            if not report.ok:
                print(f"{label} failed: {report.failures}", file=sys.stderr)
                return 1
            timings.append(seconds)
            print(
                f"{label:<10} {seconds:8.2f} s   paths {progress.walked:5d}   hashed {progress.hashed:5d}   "
                f"read {progress.outcomes.get('read', 0):5d}   Dagster runs {report.runs}"
            )
    print(f"rerun / first run = {timings[1] / timings[0]:.3f}   (target < 0.2)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
