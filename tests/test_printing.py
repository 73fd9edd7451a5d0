"""Names and texts holding terminal escapes are printed with them made visible (orchestration/printing.py).

A file named with an OSC 52 sequence (a write to the clipboard of the terminal that shows it) and a text
holding ESC[2J (clear the screen), BEL and CSI (U+009B) are run through assay; the output of every
command that shows them (the run's summary, sql as a table, CSV and JSON, search, lineage as text,
mermaid and JSON, check) must hold no raw control character but newline and tab.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestration.cli import main
from orchestration.printing import highlighted, json_text, visible

ASSAY = Path(sys.executable).with_name("assay")
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"  # "rm -rf ~" to the clipboard
HOSTILE_NAME = f"minutes {OSC52}.txt"
HOSTILE_TEXT = (
    "The harvest festival opens at nine.\x1b[2J\n\nBring lanterns for the evening parade.\x07 "
    "The \x9b31mred\x9b0m tent holds the raffle.\n"
)


def assert_clean(output: str, what: str) -> None:
    found = RAW.search(output)
    assert found is None, f"{what} printed a raw {found.group()!r}: {output[:300]!r}"


# -- the function --------------------------------------------------------------------------------------


def test_visible_writes_controls_as_escapes() -> None:
    assert visible(HOSTILE_NAME) == "minutes \\x1b]52;c;cm0gLXJmIH4K\\x07.txt"
    assert visible("a\tb\nc\rd\x9be\x7f") == "a\tb\nc\\x0dd\\x9be\\x7f"
    assert visible("Zürich — 東京 ⟨EMAIL_1⟩") == "Zürich — 東京 ⟨EMAIL_1⟩"


@given(st.text())
def test_visible_leaves_no_control_and_keeps_the_rest(text: str) -> None:
    shown = visible(text)
    assert RAW.search(shown) is None
    if RAW.search(text) is None:
        assert shown == text


@given(
    st.recursive(st.text() | st.integers() | st.none(), lambda c: st.lists(c) | st.dictionaries(st.text(), c))
)
def test_json_text_is_exact_and_clean(value) -> None:
    text = json_text(value)
    assert RAW.search(text) is None
    assert json.loads(text) == value


def test_highlights_stay_on_their_words() -> None:
    snippet = "a\x1b[2J harvest b"
    out = highlighted("  ", snippet, [(snippet.index("harvest"), snippet.index("harvest") + 7)], style="bold")
    assert out.plain == "  a\\x1b[2J harvest b"
    (span,) = out.spans
    assert out.plain[span.start : span.end] == "harvest"


# -- the commands --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A home after `assay run` over a folder (itself named with an escape) holding the hostile file and
    a plain one; the run's output is kept in ``run.out``."""
    base = tmp_path_factory.mktemp("hostile")
    corpus = base / "corpus \x1b[1m"
    corpus.mkdir()
    (corpus / HOSTILE_NAME).write_text(HOSTILE_TEXT, encoding="utf-8")
    (corpus / "plain.txt").write_text("A plain note about the harvest.\n", encoding="utf-8")
    home = base / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "ASSAY_"))}
    run = subprocess.run(
        [str(ASSAY), "run", "--home", str(home), str(corpus)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (base / "run.out").write_text(run.stdout + run.stderr, encoding="utf-8")
    return {"home": home, "file": corpus / HOSTILE_NAME, "run": base / "run.out", "env": env}  # type: ignore[dict-item]


def _main(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0, argv
    captured = capsys.readouterr()
    return captured.out + captured.err


@pytest.mark.slow
def test_the_run_summary(hostile) -> None:
    assert_clean(hostile["run"].read_text(encoding="utf-8"), "assay run")


@pytest.mark.slow
def test_sql_table_and_json(hostile, capsys) -> None:
    home = str(hostile["home"])
    table = _main(capsys, "sql", "--home", home, "select path, kind from observations order by path")
    assert_clean(table, "sql")
    assert "\\x1b]52;c;" in table
    pages = _main(capsys, "sql", "--home", home, "select text from pages")
    assert_clean(pages, "sql over pages")
    assert "\\x1b[2J" in pages
    rows = _main(
        capsys, "sql", "--home", home, "--json", "select path, text from pages join documents using (sha256)"
    )
    assert_clean(rows, "sql --json")
    assert {r["path"] for r in json.loads(rows)} >= {str(hostile["file"])}  # exact, as JSON escapes


@pytest.mark.slow
def test_sql_csv_to_a_terminal_and_to_a_pipe(hostile) -> None:
    command = [str(ASSAY), "sql", "--home", str(hostile["home"]), "--csv", "select path from observations"]
    piped = subprocess.run(command, capture_output=True, text=True, env=hostile["env"], timeout=120)
    assert piped.returncode == 0 and OSC52 in piped.stdout  # to a pipe or a file: the exact value
    main_fd, child_fd = pty.openpty()
    try:
        done = subprocess.run(
            command, stdout=child_fd, stderr=subprocess.PIPE, env=hostile["env"], timeout=120
        )
        os.close(child_fd)
        chunks = []
        while True:
            try:
                chunk = os.read(main_fd, 65536)
            except OSError:  # the terminal's other end is closed: everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(main_fd)
    assert done.returncode == 0, done.stderr
    # CSV ends its rows with CRLF, and the terminal adds a CR before each LF: line ends, not content.
    terminal = re.sub(r"\r+\n", "\n", b"".join(chunks).decode("utf-8"))
    assert_clean(terminal, "sql --csv to a terminal")
    assert "\\x1b]52;c;" in terminal


@pytest.mark.slow
def test_search(hostile, capsys) -> None:
    home = str(hostile["home"])
    found = _main(capsys, "search", "--home", home, "lanterns")
    assert_clean(found, "search")
    assert "minutes \\x1b]52" in found
    assert_clean(_main(capsys, "search", "--home", home, "--json", "lanterns"), "search --json")


@pytest.mark.slow
def test_lineage_in_every_format(hostile, capsys) -> None:
    home, path = str(hostile["home"]), str(hostile["file"])
    for fmt in ("text", "mermaid", "json"):
        out = _main(capsys, "lineage", "--home", home, path, "--format", fmt)
        assert_clean(out, f"lineage --format {fmt}")
        assert "52;c;" in out
    assert main(["lineage", "--home", home, "\x1b[2Jnowhere"]) == 1
    assert_clean(capsys.readouterr().err, "an error naming what was asked")


def test_check(tmp_path: Path, capsys) -> None:
    hostile = tmp_path / HOSTILE_NAME
    hostile.write_text(HOSTILE_TEXT, encoding="utf-8")
    out = _main(capsys, "check", str(hostile))
    assert_clean(out, "check")
    assert "\\x1b]52" in out and "\\x1b[2J" in out
    assert_clean(_main(capsys, "check", str(hostile), "--json"), "check --json")
