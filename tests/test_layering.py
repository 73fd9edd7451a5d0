"""The layering the project's layout promises: pure packages import no Dagster, storage no reader."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _modules(package: str) -> dict[str, set[str]]:
    """Each file of ``package`` and the modules it imports, by their full dotted names."""
    found: dict[str, set[str]] = {}
    for path in sorted((REPO / package).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
        found[str(path.relative_to(REPO))] = names
    return found


def _imports(package: str) -> dict[str, set[str]]:
    """Each file of ``package`` and the top-level packages it imports."""
    return {f: {n.split(".")[0] for n in names} for f, names in _modules(package).items()}


@pytest.mark.parametrize("package", ["readers", "quality"])
def test_pure_packages_import_no_dagster(package: str) -> None:
    offenders = {f: n for f, n in _imports(package).items() if {"dagster", "assets", "orchestration"} & n}
    assert not offenders, f"{package}/ must stay plain Python: {offenders}"


def test_warehouse_imports_no_reader() -> None:
    offenders = {f: n for f, n in _imports("warehouse").items() if {"readers", "dagster", "assets"} & n}
    assert not offenders, f"warehouse/ must not know readers or Dagster: {offenders}"


def test_assets_import_no_orchestration() -> None:
    """The assets, their resources and partitions sit under the Definitions and the command line."""
    offenders = {f: n for f, n in _imports("assets").items() if "orchestration" in n}
    assert not offenders, f"assets/ must not import orchestration/: {offenders}"


@pytest.mark.parametrize(
    "package", ["orchestration", "assets", "readers", "quality", "warehouse", "tests", "benchmarks"]
)
def test_only_dagsters_public_api_is_imported(package: str) -> None:
    offenders = {
        f: sorted(n for n in names if n.startswith("dagster._"))
        for f, names in _modules(package).items()
        if any(n.startswith("dagster._") for n in names)
    }
    assert not offenders, f"private Dagster modules imported: {offenders}"


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
