"""Shared fixtures. Tests generate their own fixtures; the shared corpus is only read where present."""

from __future__ import annotations

import csv
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

import readers  # noqa: F401  (first: keeps the test process off the network, readers/core/offline.py)

if TYPE_CHECKING:
    from assets.progress import Progress
    from orchestration.runner import RunReport

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"

# Hypothesis keeps what it learns (failing examples, constants, Unicode tables) in a .hypothesis folder
# where the tests run: it goes to the temporary folder instead, so the tests write nothing into the
# repository, and no example database carries one run's failures into the next.
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "assay-hypothesis")
settings.register_profile("assay", database=None)
settings.load_profile("assay")


def corpus_manifest() -> list[dict[str, str]]:
    """Rows of the shared corpus manifest; skips the calling test when the corpus is absent."""
    manifest = CORPUS / "manifest.csv"
    if not manifest.is_file():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    with manifest.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@dataclass(frozen=True)
class DevCorpusRun:
    """One ``assay run`` over the shared corpus's dev folder, into a home of its own."""

    home: Path
    manifest: list[dict[str, str]]
    report: RunReport
    progress: Progress


@pytest.fixture(scope="session")
def dev_corpus(tmp_path_factory: pytest.TempPathFactory) -> DevCorpusRun:
    """The dev corpus run once for every test of the session that reads its results (each is marked
    ``corpus`` and ``slow``); skips them where the corpus is absent. The environment the run points at
    its home is restored afterwards."""
    from assets.progress import Progress
    from orchestration.home import Home
    from orchestration.runner import run

    manifest = corpus_manifest()
    path = tmp_path_factory.mktemp("dev-corpus") / "home"
    progress = Progress()
    with pytest.MonkeyPatch.context() as mp:
        _point_at(mp, path)
        report = run(Home(path), [CORPUS / "dev"], progress)
    return DevCorpusRun(path, manifest, report, progress)


def _point_at(mp: pytest.MonkeyPatch, path: Path) -> None:
    for var in ("DAGSTER_HOME", "ASSAY_HOME"):
        mp.setenv(var, "")  # recorded, so the original is restored afterwards
        mp.delenv(var)
    mp.setenv("ASSAY_HOME", str(path))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh assay home; DAGSTER_HOME and friends point into it for the test's duration."""
    path = tmp_path / "home"
    _point_at(monkeypatch, path)
    return path


def release_extractor_version(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    """What a release does to the extractor version: every loaded module of the project that bound the
    current one sees ``version`` for the test's duration (definitions built afterwards carry it)."""
    import readers.core.versions

    current = readers.core.versions.EXTRACTOR_VERSION
    for module in list(sys.modules.values()):
        if getattr(module, "EXTRACTOR_VERSION", None) == current and (
            module.__name__.split(".")[0] in {"readers", "assets", "orchestration", "quality", "warehouse"}
        ):
            monkeypatch.setattr(module, "EXTRACTOR_VERSION", version)
    assert version == readers.core.versions.EXTRACTOR_VERSION
