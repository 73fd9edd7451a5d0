"""The README as a user meets it: a quick start on its first screen, the one exit-code table `assay --help`
prints, queries that bind on a catalog, and links that lead to a page."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
ASSAY = Path(sys.executable).with_name("assay")

#: The first screen: the lines a reader sees before scrolling.
FIRST_SCREEN_LINES = 45
#: What the quick start shows on it: set-up, a run on one's own folder into a home, one file's text out, every
#: document's text out (to a folder and to stdout), SQL, Python with a DataFrame, and the UI.
QUICK_START = (
    "./scripts/setup",
    "assay run ~/papers --home work",
    "assay check ",
    "--to md",
    "assay export ",
    "--output -",
    "assay sql ",
    "import assay",
    ".df()",
    "assay ui",
    "warehouse/tables/",
    "warehouse/catalog.duckdb",
    "reports/",
)

_CODE_LINE = re.compile(r"^\s+(\d+)\s+(\S.*)$")
_TABLE_ROW = re.compile(r"^\| (\d+) \| (.+?) \|$")


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def help_exit_codes() -> list[tuple[str, str]]:
    """The exit codes as the real `assay --help` prints them: (code, meaning) for each line."""
    out = subprocess.run(
        [str(ASSAY), "--help"], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    listed = out.split("\nexit codes:\n", 1)[1]
    return [m.groups() for line in listed.splitlines() if (m := _CODE_LINE.match(line))]


def readme_exit_codes(text: str) -> list[tuple[str, str]]:
    return [m.groups() for line in _section(text, "Exit codes").splitlines() if (m := _TABLE_ROW.match(line))]


def test_the_readme_exit_code_table_is_the_one_assay_help_prints() -> None:
    printed = help_exit_codes()
    assert [code for code, _ in printed] == ["0", "1", "2", "3", "4", "5", "6", "7", "130"], printed
    assert readme_exit_codes(_readme()) == printed


def test_the_readme_has_one_exit_code_table() -> None:
    text = _readme()
    # A table's row per code: the exit codes' table is the only one with a row for 130 (Ctrl-C) or code 4.
    assert len(re.findall(r"^\| 130\b", text, flags=re.M)) == 1
    assert len(re.findall(r"^\| 4 \|", text, flags=re.M)) == 1
    assert text.count("| code | meaning |") == 1


def test_the_quick_start_is_the_first_screen() -> None:
    first = "\n".join(_readme().splitlines()[:FIRST_SCREEN_LINES])
    assert "## Quick start" in first
    missing = [command for command in QUICK_START if command not in first]
    assert not missing, f"not on the README's first {FIRST_SCREEN_LINES} lines: {missing}"


def test_the_readme_queries_bind_on_a_catalog(tmp_path: Path) -> None:
    """Every query the README shows names tables and columns the catalog has (an empty one binds them)."""
    from orchestration.home import Home
    from readers.core.versions import EXTRACTOR_VERSION
    from warehouse.duckdb_catalog import build_catalog, query

    text = _readme()
    queries = re.findall(r'assay sql "([^"]+)"', text)
    for block in re.findall(r"```sql\n(.*?)```", text, flags=re.S):
        queries += [line.strip().rstrip(";") for line in block.splitlines() if not line.startswith("--")]
    queries += re.findall(r'\.sql\("([^"]+)"\)', text)
    queries = [q for q in queries if q.lower().startswith("select")]
    assert len(queries) >= 10
    warehouse = Home(tmp_path / "home").warehouse
    build_catalog(warehouse, EXTRACTOR_VERSION)
    for sql in queries:
        query(warehouse, sql)


def test_the_readme_python_compiles() -> None:
    blocks = re.findall(r"```python\n(.*?)```", _readme(), flags=re.S)
    assert blocks
    for block in blocks:
        compile(block, "README.md", "exec")


@pytest.mark.parametrize(
    "page", ["README.md", *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md"))]
)
def test_relative_links_lead_to_a_file(page: str) -> None:
    path = REPO / page
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8"))
    broken = [t for t in targets if "://" not in t and not (path.parent / t).exists()]
    assert not broken, f"{page} links to nothing: {broken}"
