"""A rerun with nothing changed against the first run, side by side in one benchmark.

    .venv/bin/python benchmarks/bench_rerun.py [FOLDER] [--repeat N]     (default: ../shared/corpus/dev)

Runs ``assay run FOLDER`` as a user does (a new process: imports, the Dagster instance, walk, extract,
catalog) against a fresh home, then again with nothing changed, and prints both wall times and their
ratio. The rerun must hash nothing, read nothing, and take under a tenth of the first run. With --repeat
the pair is measured N times, each with a fresh home, and the median ratio is printed too.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ASSAY = Path(sys.executable).with_name("assay")
# The summary lines of `assay run` (the progress bar also says "hashed", followed by a time).
HASHED = r"Walked \d+ paths?, hashed (\d+)"
READ = r"(?m)^Read (\d+) files"


def user_environment() -> dict[str, str]:
    """The environment a user's ``assay run`` has: the defaults, no ASSAY_* or DAGSTER_* setting."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "ASSAY_"))}


def _run(home: Path, folder: Path) -> tuple[float, str]:
    env = user_environment()
    started = time.perf_counter()
    done = subprocess.run(
        [str(ASSAY), "run", "--home", str(home), str(folder)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"assay run failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return seconds, done.stdout


def summary_figure(pattern: str, text: str) -> str:
    """The number ``pattern`` (HASHED, READ) finds in a run's summary, or "?"."""
    m = re.search(pattern, text)
    return m.group(1) if m else "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=REPO.parent / "shared" / "corpus" / "dev")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    if not args.folder.is_dir():
        print(f"no folder at {args.folder}: pass one", file=sys.stderr)
        return 2
    ratios = []
    for i in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="assay-bench-") as tmp:
            home = Path(tmp) / "home"
            first, out1 = _run(home, args.folder.absolute())
            again, out2 = _run(home, args.folder.absolute())
        ratios.append(again / first)
        hashed1, read1 = summary_figure(HASHED, out1), summary_figure(READ, out1)
        hashed2, read2 = summary_figure(HASHED, out2), summary_figure(READ, out2)
        print(
            f"#{i + 1} first run {first:6.2f} s (hashed {hashed1}, read {read1})   "
            f"rerun {again:5.2f} s (hashed {hashed2}, read {read2})   ratio {again / first:.3f}"
        )
    print(f"rerun / first run: median {statistics.median(ratios):.3f} over {len(ratios)}   (target < 0.1)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
