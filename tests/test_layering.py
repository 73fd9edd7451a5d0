"""The layering the project's layout promises: pure packages import no Dagster, storage no reader."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _imports(package: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted((REPO / package).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
        found[str(path.relative_to(REPO))] = names
    return found


@pytest.mark.parametrize("package", ["readers", "quality"])
def test_pure_packages_import_no_dagster(package: str) -> None:
    offenders = {f: n for f, n in _imports(package).items() if {"dagster", "assets", "orchestration"} & n}
    assert not offenders, f"{package}/ must stay plain Python: {offenders}"


def test_warehouse_imports_no_reader() -> None:
    offenders = {f: n for f, n in _imports("warehouse").items() if {"readers", "dagster", "assets"} & n}
    assert not offenders, f"warehouse/ must not know readers or Dagster: {offenders}"


def test_layout_is_as_promised() -> None:
    for name in (
        "pyproject.toml",
        "dagster.yaml",
        "orchestration",
        "assets",
        "readers",
        "quality",
        "warehouse",
        "tests",
    ):
        assert (REPO / name).exists(), name
