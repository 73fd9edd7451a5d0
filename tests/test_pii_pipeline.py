"""No personal datum planted in a corpus reaches a sanitized table or what `assay search` prints: body text,
white-on-white text, a running header and footer, a zip member's name, a Word document, a file name;
plain and disguised (full-width, zero-width, wrapped, dotted, lower case, spelled out)."""

from __future__ import annotations

import json
import unicodedata
import zipfile
from pathlib import Path

import docx
import duckdb
import pymupdf
import pytest

from assets.progress import Progress
from orchestration.cli import main
from orchestration.home import Home
from orchestration.runner import run
from quality.pii_view import INVISIBLE
from tests.test_sanitize_text import BODY
from warehouse.duckdb_catalog import query
from warehouse.search import INDEX_FILE

A4 = (595, 842)
HEADER = "Riverside Water Utility, queries to jane.roe@example.org or +44 20 7946 0958"
FOOTER = "Refunds: DE89 3704 0044 0532 0130 00"
HIDDEN = "Wire the fee to GB82 WEST 1234 5698 7654 32 and tell mark.hidden@example.net"
BODY_PERSONAL = [
    "Card on file 4111.1111.1111.1111 for the meter rental.",
    "Write to ｔｏｍ．ｋｅｅｌ＠ｅｘａｍｐｌｅ．ｏｒｇ for the survey.",
    "Server 192.168.10.20 logs the meter readings.",
]
MEMBER = "jane.roe@example.org DE89370400440532013000.txt"
MEMBER_TEXT = "Reply to lena [at] example [dot] org about the drainage of the lower fields."
DOCX_LINES = [
    "The account de89 3704 0044 0532 0130 00 pays the drainage levy.",
    "Questions go to ed\u200bna.moss@example.org or ed dot moss at example dot org.",
    "The card 5555-5555-5555-4444 was charged for the hedge work.",
]
# Numbered like a standard's clause and naming a version: no address, none redacted.
STRUCTURE_LINE = "1.2.3.1 Scope of the levy, as Paragraph 1.2.3.2 and version 4.2.0.1 define it."
FILE_NAME = "ana.lima@example.org notes.txt"
FILE_TEXT = "Notes on the hedges of the lower fields. Call +44 20 7946 0958 about the drainage."

# Every planted value, in the form it was written and compacted: none may appear in any form.
PLANTED = (
    "jane.roe@example.org",
    "mark.hidden@example.net",
    "tom.keel@example.org",
    "lena@example.org",
    "lena [at] example [dot] org",
    "edna.moss@example.org",
    "ed.moss@example.org",
    "ed dot moss at example dot org",
    "ana.lima@example.org",
    "+44 20 7946 0958",
    "DE89 3704 0044 0532 0130 00",
    "GB82 WEST 1234 5698 7654 32",
    "4111.1111.1111.1111",
    "5555-5555-5555-4444",
    "192.168.10.20",
    "example.org",
    "example.net",
)


def folded(text: str) -> str:
    """``text`` compacted the way a reader of it could still recognise a value: compatibility forms, no
    invisible characters, no spaces, dashes or dots, lower case."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(c for c in text if c not in INVISIBLE and not c.isspace() and c not in "-.").lower()


FOLDED = {value: folded(value) for value in PLANTED}


def leaks(cells: list[str]) -> list[tuple[str, str]]:
    return [(value, cell) for cell in cells for value, f in FOLDED.items() if f in folded(cell)]


def _report(path: Path) -> None:
    doc = pymupdf.open()
    for n in range(1, 7):
        page = doc.new_page(width=A4[0], height=A4[1])
        page.insert_text((72, 40), HEADER, fontname="helv", fontsize=9)
        y = 100.0
        for line in BODY[n - 1] + ([BODY_PERSONAL[n % 3]] if n <= 3 else []):
            page.insert_text((72, y), line, fontname="helv", fontsize=11)
            y += 16
        if n == 2:
            page.insert_text((72, y + 16), HIDDEN, fontname="helv", fontsize=11, color=(1, 1, 1))
        page.insert_text((72, 800), FOOTER, fontname="helv", fontsize=9)
        page.insert_text((270, 815), f"Page {n} of 6", fontname="helv", fontsize=9)
    doc.save(path)


def _string_cells(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    columns = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {table}").fetchall()]
    cells: list[str] = []
    for column in columns:
        rows = con.execute(f'SELECT CAST("{column}" AS VARCHAR) FROM {table}').fetchall()
        cells += [value for (value,) in rows if value is not None]
    return cells


SANITIZED_TABLES = ("texts", "chunks", "hidden_text", "furniture", "redactions", "clean_tables")


@pytest.mark.slow
def test_no_planted_value_reaches_a_sanitized_table_or_the_search_output(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    _report(folder / "report.pdf")
    with zipfile.ZipFile(folder / "archive.zip", "w") as z:
        z.writestr(MEMBER, MEMBER_TEXT)
    word = docx.Document()
    word.add_paragraph(DOCX_LINES[0])
    wrapped = word.add_paragraph(DOCX_LINES[1])
    wrapped.add_run().add_break()
    wrapped.add_run("Card wrapped: 4111 1111")
    wrapped.add_run().add_break()
    wrapped.add_run("1111 1111 is the old one.")
    word.add_paragraph(DOCX_LINES[2])
    word.add_paragraph(STRUCTURE_LINE)
    word.save(str(folder / "levy.docx"))
    (folder / FILE_NAME).write_text(FILE_TEXT, encoding="utf-8")

    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    wh = Home(home).warehouse

    # the run read what was planted: the raw tables hold it, the sanitized ones placeholders
    raw = " ".join(t for (t,) in query(wh, "select text from pages where text is not null").rows)
    assert "jane.roe@example.org" in raw and "4111.1111.1111.1111" in raw
    assert query(wh, "select count(*) from hidden_text").rows[0][0] >= 1
    assert query(wh, "select count(*) from furniture").rows[0][0] >= 12
    texts = " ".join(t for (t,) in query(wh, "select text from texts").rows)
    for placeholder in ("⟨EMAIL_", "⟨IBAN_", "⟨CARD_", "⟨PHONE_", "⟨IP_"):
        assert placeholder in texts, placeholder
    assert "hedges of the lower fields" in texts and "drainage levy" in texts
    assert STRUCTURE_LINE in texts
    hidden = [t for (t,) in query(wh, "select text from hidden_text").rows]
    assert any("Wire the fee to ⟨IBAN_" in t for t in hidden), hidden
    furniture = {t for (t,) in query(wh, "select text from furniture").rows}
    assert any("queries to ⟨EMAIL_" in t for t in furniture), furniture

    found: list[tuple[str, str]] = []
    con = duckdb.connect(str(wh.catalog_path), read_only=True)
    try:
        for table in SANITIZED_TABLES:
            found += [(f"{table}: {v}", c) for v, c in leaks(_string_cells(con, table))]
    finally:
        con.close()

    # the command line, as text and as JSON, over words of every document
    outputs: list[str] = []
    for words in ("drainage", "hedges lower fields", "meter", "Refunds", "levy", "survey"):
        assert main(["search", "--home", str(home), "--limit", "20", words]) == 0
        outputs.append(capsys.readouterr().out)
        assert main(["search", "--home", str(home), "--json", "--limit", "20", words]) == 0
        out = capsys.readouterr().out
        outputs.append(out)
        outputs += [h["path"] for h in json.loads(out)]
    # every redaction judged, printed with its context: placeholders only
    assert main(["redactions", "--home", str(home)]) == 0
    outputs.append(capsys.readouterr().out)
    assert main(["redactions", "--home", str(home), "--json"]) == 0
    out = capsys.readouterr().out
    outputs.append(out)
    judged = json.loads(out)
    made = query(wh, "select count(*) from redactions").rows[0][0]
    assert len(judged["redactions"]) == made
    assert sum(f["made"] for f in judged["precision"]) == made
    assert not [r for r in judged["redactions"] if r["verdict"] == "structure"], judged
    assert main(["redactions", "--home", str(home), "--precision"]) == 0
    outputs.append(capsys.readouterr().out)
    assert "precision" in outputs[-1]
    shown = "\n".join(outputs)
    assert "archive.zip › ⟨EMAIL_1⟩ ⟨IBAN_1⟩.txt" in shown, shown
    assert "⟨EMAIL_1⟩ notes.txt" in shown, shown
    found += [(f"assay search: {v}", c) for v, c in leaks(outputs)]

    # the search index the command built, every table of it
    index = duckdb.connect(str(wh.root / INDEX_FILE), read_only=True)
    try:
        tables = [t for (t,) in index.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        assert {"chunks", "terms", "dictionary", "info"} <= set(tables)
        for table in tables:
            found += [(f"{INDEX_FILE} {table}: {v}", c) for v, c in leaks(_string_cells(index, table))]
    finally:
        index.close()
    assert not found, found[:10]
