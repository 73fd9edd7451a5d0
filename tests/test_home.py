"""The assay home's Dagster instance file: the embedded default, or the one ASSAY_DAGSTER_YAML names."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestration.home import Home
from readers.core.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]


def test_the_home_takes_the_embedded_instance_by_default(home: Path, monkeypatch) -> None:
    monkeypatch.delenv("ASSAY_DAGSTER_YAML", raising=False)
    Home(home).prepare()
    assert (home / "dagster" / "dagster.yaml").read_bytes() == (REPO / "dagster.yaml").read_bytes()


def test_the_home_takes_the_instance_file_it_is_given(home: Path, monkeypatch) -> None:
    production = REPO / "deploy" / "dagster.postgres.yaml"
    monkeypatch.setenv("ASSAY_DAGSTER_YAML", str(production))
    Home(home).prepare()
    assert (home / "dagster" / "dagster.yaml").read_bytes() == production.read_bytes()


def test_a_missing_instance_file_says_which_variable(home: Path, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ASSAY_DAGSTER_YAML", str(tmp_path / "nowhere.yaml"))
    with pytest.raises(ConfigError, match="ASSAY_DAGSTER_YAML"):
        Home(home).prepare()
