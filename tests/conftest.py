"""Shared fixtures. Tests generate their own fixtures; the shared corpus is only read where present."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest

import readers  # noqa: F401  (first: keeps the test process off the network, readers/core/offline.py)

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"


def corpus_manifest() -> list[dict[str, str]]:
    """Rows of the shared corpus manifest; skips the calling test when the corpus is absent."""
    manifest = CORPUS / "manifest.csv"
    if not manifest.is_file():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    with manifest.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh assay home; DAGSTER_HOME and friends point into it for the test's duration."""
    path = tmp_path / "home"
    for var in ("DAGSTER_HOME", "ASSAY_HOME"):
        monkeypatch.setenv(var, "")  # recorded, so the original is restored after the test
        monkeypatch.delenv(var)
    monkeypatch.setenv("ASSAY_HOME", str(path))
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
