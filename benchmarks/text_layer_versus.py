"""The text-layer path of this tree against the same path of another revision, measured in turn.

benchmarks/record.py's section 1 measures the text-layer path (read, signals, verdicts) against raw
PyMuPDF ``get_text("dict")`` once per repetition, beside pymupdf4llm and pdfplumber: on this shared
machine one such record moves by 10% from run to run, too much to tell whether a change made the path
slower by 5%. This script answers that question alone. Each round runs two fresh processes, one per
tree, in an order that turns round every other round; each process measures raw ``get_text("dict")``
and its own tree's path over the same ``pdf-born-digital`` PDFs, in turn, ``--passes`` times after an
untimed warm-up, and keeps the total. It prints each round's figures and the medians of both trees:
the ratio against raw ``dict`` (the figure the record keeps) and the pages per second.

The other revision is checked out with ``git worktree`` into a temporary folder and removed afterwards;
its own ``benchmarks/record.py`` supplies its path (``assay_text_layer``), so any revision that has one
can be measured. Run from the repository root::

    .venv/bin/python benchmarks/text_layer_versus.py REVISION [--rounds N] [--passes N] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"


def measure(root: Path, corpus: Path, passes: int) -> dict[str, float]:
    """In this process, with ``root``'s modules: raw ``dict`` and the text-layer path, in turn."""
    sys.path.insert(0, str(root))
    from readers.core.offline import keep_offline

    keep_offline()
    from benchmarks import bench_extract
    from benchmarks.record import assay_text_layer, pdf_documents

    paths = bench_extract.born_digital_pdfs(corpus)
    documents = pdf_documents(paths)
    bench_extract.raw_dict(paths)
    assay_text_layer(documents)  # warm-up: imports, lexicons, profiles, MuPDF's font caches
    raw = path = 0.0
    pages = 0
    for _ in range(passes):
        started = time.perf_counter()
        pages += bench_extract.raw_dict(paths)
        raw += time.perf_counter() - started
        started = time.perf_counter()
        assay_text_layer(documents)
        path += time.perf_counter() - started
    return {"pages": pages, "raw_s": raw, "path_s": path}


def _child(root: Path, corpus: Path, passes: int) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", str(root), "--corpus", str(corpus)]
    command += ["--passes", str(passes)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"measuring {root} failed:\n{done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revision", nargs="?", help="the revision to measure against (a commit, a tag)")
    parser.add_argument("--rounds", type=int, default=3, help="pairs of processes (default 3)")
    parser.add_argument("--passes", type=int, default=3, help="timed passes per process (default 3)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="the folder holding manifest.csv")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(measure(args.child, args.corpus.resolve(), args.passes)))
        return 0
    if not args.revision:
        parser.error("name the revision to measure against, e.g. HEAD~3")
    with tempfile.TemporaryDirectory(prefix="assay-versus-") as scratch:
        other = Path(scratch) / "tree"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet", str(other), args.revision],
            check=True,
        )
        try:
            trees = {"this tree": REPO, args.revision: other}
            figures: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
            names = list(trees)
            for round_ in range(args.rounds):
                for name in names if round_ % 2 == 0 else names[::-1]:
                    got = _child(trees[name], args.corpus.resolve(), args.passes)
                    figures[name].append(got)
                    print(
                        f"round {round_ + 1}, {name}: raw dict {got['pages'] / got['raw_s']:.1f} pages/s, "
                        f"text-layer path {got['pages'] / got['path_s']:.1f} pages/s, "
                        f"ratio {got['raw_s'] / got['path_s']:.3f}",
                        flush=True,
                    )
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(other)], check=False)
    print()
    for name, runs in figures.items():
        ratio = statistics.median(r["raw_s"] / r["path_s"] for r in runs)
        rate = statistics.median(r["pages"] / r["path_s"] for r in runs)
        print(f"{name}: text-layer path / raw dict {ratio:.3f} (median of {len(runs)}), {rate:.1f} pages/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
