"""A home that has run the shared corpus, for the evaluation commands: the one given with ``--home``, or
a fresh one the pipeline runs the corpus into (deleted afterwards)."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
CORPUS = REPO.parent / "shared" / "corpus"

from assets.progress import Progress  # noqa: E402
from orchestration.home import Home  # noqa: E402
from orchestration.runner import run  # noqa: E402


@contextmanager
def corpus_home(given: Path | None) -> Iterator[Home]:
    """Exits 2 without the corpus and 1 when the run fails, saying why."""
    if not (CORPUS / "manifest.csv").is_file():
        sys.exit(f"no corpus at {CORPUS}")
    with tempfile.TemporaryDirectory(prefix="assay-eval-") as tmp:
        home = Home(given.absolute() if given else Path(tmp) / "home")
        if not given:
            report = run(home, [CORPUS / "dev"], Progress())
            if not report.ok:
                print(report.failures, file=sys.stderr)
                sys.exit(1)
        yield home
