"""One document's walk through ``assay run``: the project's functions called in the run's own process
(the readers' worker processes aside), collapsed to the files entered, with the changes of top-level
package (orchestration, assets, quality, readers, warehouse) along the way.

The calls are split in two: those made with a stage's module on the stack (the stages' own work) and the
rest (the plan, Dagster's runs, the checks, the catalog).

    .venv/bin/python benchmarks/run_walk.py FILE [--files]

Prints one JSON object; ``--files`` also prints the files the stages' work entered, in order.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import threading
from itertools import pairwise
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from assets.progress import Progress  # noqa: E402
from orchestration.home import Home  # noqa: E402
from orchestration.runner import run  # noqa: E402

PACKAGES = ("orchestration", "assets", "quality", "readers", "warehouse")
#: A stage's module: a folder of assets/ with a declaration.
STAGE_MODULE = re.compile(r"^assets/(\w+)/")


def _stage_folders() -> set[str]:
    return {p.parent.name for p in (REPO / "assets").glob("*/declaration.py")}


def walk(document: Path) -> dict[str, list[str]]:
    """The project files entered while ``assay run`` takes ``document`` through every stage, by part."""
    stages = _stage_folders()
    calls: dict[str, list[str]] = {"stages": [], "around": []}
    root = str(REPO)

    def relative(filename: str) -> str | None:
        if not filename.startswith(root) or "/.venv/" in filename:
            return None
        rel = os.path.relpath(filename, REPO)
        return rel if rel.split("/")[0] in PACKAGES else None

    def in_stage(frame) -> bool:
        while frame is not None:
            rel = relative(frame.f_code.co_filename)
            match = STAGE_MODULE.match(rel) if rel else None
            if match and match.group(1) in stages:
                return True
            frame = frame.f_back
        return False

    def profile(frame, event, _arg) -> None:
        if event != "call" or frame.f_code.co_name.startswith("<"):
            return
        rel = relative(frame.f_code.co_filename)
        if rel is not None:
            calls["stages" if in_stage(frame) else "around"].append(rel)

    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp, "corpus")
        corpus.mkdir()
        (corpus / document.name).symlink_to(document.resolve())
        threading.setprofile(profile)
        sys.setprofile(profile)
        try:
            report = run(Home(Path(tmp, "home")), [corpus], Progress())
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
    if not report.ok:
        raise SystemExit(f"the run failed: {report.failures}")
    return calls


def entered(calls: list[str]) -> list[str]:
    """The files in the order they were entered, a file called again at once counted once."""
    files: list[str] = []
    for rel in calls:
        if not files or files[-1] != rel:
            files.append(rel)
    return files


def figures(calls: list[str]) -> dict[str, object]:
    files = entered(calls)
    return {
        "calls": len(calls),
        "files": len(set(files)),
        "package_changes": sum(1 for a, b in pairwise(files) if a.split("/")[0] != b.split("/")[0]),
        "files_by_package": {p: len({f for f in files if f.split("/")[0] == p}) for p in PACKAGES},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("document", type=Path)
    parser.add_argument("--files", action="store_true", help="print the files the stages' work entered")
    args = parser.parse_args(argv)
    calls = walk(args.document)
    print(json.dumps({part: figures(seq) for part, seq in calls.items()}))
    if args.files:
        print("\n".join(entered(calls["stages"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
