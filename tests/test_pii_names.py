"""Addresses in names: a PDF named ``jane@corp.com.pdf``, a zip member ``name@d.org.txt.txt``, the same
written in a text, an XLSX cell and a PDF table's cell, through a real ``assay run``. Every table and view
of the catalog is searched for them: they stand only in the columns docs/tables.md names as raw
(warehouse/schema.py PERSONAL_DATA); the export in every form (its file names, front matter, JSON),
``assay search`` and every table of ``search.duckdb`` show placeholders."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import duckdb
import openpyxl
import pymupdf
import pytest

from orchestration.cli import main
from orchestration.home import Home
from tests.test_pdf_tables_data import PROSE, ruled_table
from tests.test_pii_pipeline import _string_cells, folded
from warehouse.schema import PERSONAL_DATA
from warehouse.search import INDEX_FILE

PDF_NAME = "jane@corp.com.pdf"
MEMBER = "name@d.org.txt.txt"
ADDRESSES = ("jane@corp.com", "name@d.org")
LINE = f"The levy notice went to {PDF_NAME} and the survey to {MEMBER} last spring."
FOLDED = [folded(a) for a in ADDRESSES]


def leaks(cells: list[str]) -> list[str]:
    return [cell for cell in cells if any(f in folded(cell) for f in FOLDED)]


def raw_columns() -> set[tuple[str, str]]:
    """(table, column) pairs docs/tables.md names as holding personal data raw."""
    out: set[tuple[str, str]] = set()
    for tables, columns, data, _ in PERSONAL_DATA:
        if data != "raw":
            continue
        for table in tables.split(", "):
            out |= {(table, column) for column in re.findall(r"`(\w+)`", columns)}
    return out


def _corpus(folder: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Drainage levy of the lower fields", fontsize=14)
    y = 90.0
    for sentence in (PROSE, LINE, PROSE):
        for start in range(0, len(sentence), 90):
            page.insert_text((72, y), sentence[start : start + 90], fontsize=10)
            y += 14
    ruled_table(
        page, [["Holder", "Notice"], ["North field", PDF_NAME], ["South field", MEMBER]], y + 20, (150, 200)
    )
    doc.save(folder / PDF_NAME)
    with zipfile.ZipFile(folder / "bundle.zip", "w") as z:
        z.writestr(MEMBER, f"Survey of the hedges of the lower fields. {LINE}")
    (folder / "notes.txt").write_text(
        f"Notes on the drainage of the lower fields. {LINE}\n", encoding="utf-8"
    )
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Holder", "Notice", "Acres"])
    sheet.append(["North field", PDF_NAME, 12])
    sheet.append(["South field", MEMBER, 9])
    book.save(folder / "holders.xlsx")


@pytest.mark.slow
def test_addresses_before_extensions_stand_only_where_the_tables_doc_says_raw(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    _corpus(folder)
    assert main(["run", "--home", str(home), str(folder)]) == 0
    capsys.readouterr()
    wh = Home(home).warehouse

    # every table and view of the catalog, every column: the addresses only where documented raw
    con = duckdb.connect(str(wh.catalog_path), read_only=True)
    try:
        relations = [
            name
            for (name,) in con.execute(
                "select table_name from duckdb_tables() where not internal union "
                "select view_name from duckdb_views() where not internal"
            ).fetchall()
        ]
        found: set[tuple[str, str]] = set()
        for relation in relations:
            described = con.execute(f'select * from "{relation}" limit 0').description
            for column in [d[0] for d in described]:
                cells = [
                    v
                    for (v,) in con.execute(
                        f'select cast("{column}" as varchar) from "{relation}"'
                    ).fetchall()
                    if v is not None
                ]
                if leaks(cells):
                    found.add((relation.removeprefix("all_"), column))
        texts = " ".join(t for (t,) in con.execute("select text from texts").fetchall())
        cells = [c for (c,) in con.execute("select cast(cells as varchar) from tables").fetchall()]
        clean = con.execute(
            "select c.cells, c.markdown, t.text from clean_tables c "
            "join texts t using (sha256, extractor_version)"
        ).fetchall()
    finally:
        con.close()
    # the run read what was planted: in the file names, the zip's listing, the text and the cells
    assert {
        ("observations", "path"),
        ("documents", "member"),
        ("pages", "text"),
        ("tables", "cells"),
    } <= found
    assert any(PDF_NAME in c for c in cells), cells
    assert "⟨EMAIL_1⟩.pdf" in texts and "⟨EMAIL_2⟩.txt.txt" in texts, texts
    assert not found - raw_columns(), sorted(found - raw_columns())
    # the table's cells sanitized beside the text: the addresses as the placeholders its text gives them
    # (the PDF's ruled table, and the workbook's sheet, a table of its markup)
    (clean_cells, clean_markdown, text), (sheet_cells, sheet_markdown, sheet_text) = sorted(
        clean, key=lambda row: len(row[0][0])
    )
    assert clean_cells[1:] == [["North field", "⟨EMAIL_1⟩.pdf"], ["South field", "⟨EMAIL_2⟩.txt.txt"]]
    assert "went to ⟨EMAIL_1⟩.pdf and the survey to ⟨EMAIL_2⟩.txt.txt" in " ".join(text.split()), text
    assert clean_markdown in text and not leaks([str(clean_cells), clean_markdown])
    assert sheet_cells[1:] == [
        ["North field", "⟨EMAIL_1⟩.pdf", "12"],
        ["South field", "⟨EMAIL_2⟩.txt.txt", "9"],
    ]
    assert sheet_markdown in sheet_text and not leaks([str(sheet_cells), sheet_markdown])

    # the export in every form: file names, front matter, JSON path and member, text
    exported: list[str] = []
    for form in ("md", "txt", "json", "jsonl"):
        output = tmp_path / f"export-{form}"
        assert main(["export", "--home", str(home), "--to", form, "--output", str(output)]) == 0
        exported.append(capsys.readouterr().out)
        for file in sorted(output.rglob("*")):
            exported.append(str(file.relative_to(output)))
            if file.is_file():
                exported.append(file.read_text(encoding="utf-8"))
        if form == "json":
            names = {str(f.relative_to(output)) for f in output.rglob("*.json")}
            assert "⟨EMAIL_1⟩.pdf.json" in names and "bundle.zip/⟨EMAIL_1⟩.txt.txt.json" in names, names
            member = json.loads(
                (output / "bundle.zip" / "⟨EMAIL_1⟩.txt.txt.json").read_text(encoding="utf-8")
            )
            assert member["member"] == "⟨EMAIL_1⟩.txt.txt"
        if form == "md":
            front = (output / "⟨EMAIL_1⟩.pdf.md").read_text(encoding="utf-8")
            (path,) = [json.loads(line[6:]) for line in front.splitlines() if line.startswith("path: ")]
            assert path == f"{folder}/⟨EMAIL_1⟩.pdf", front[:300]
    assert not leaks(exported), leaks(exported)[:5]

    # assay search, and every table of the index it built
    outputs: list[str] = []
    for words in ("levy notice", "survey hedges", "drainage lower fields"):
        for extra in ([], ["--json"]):
            assert main(["search", "--home", str(home), *extra, "--limit", "20", words]) == 0
            outputs.append(capsys.readouterr().out)
    shown = "\n".join(outputs)
    assert "bundle.zip › ⟨EMAIL_1⟩.txt.txt" in shown and "⟨EMAIL_1⟩.pdf" in shown, shown
    assert not leaks(outputs), leaks(outputs)[:5]
    index = duckdb.connect(str(wh.root / INDEX_FILE), read_only=True)
    try:
        tables = [t for (t,) in index.execute("select table_name from duckdb_tables()").fetchall()]
        assert not [(t, c) for t in tables for c in leaks(_string_cells(index, t))]
    finally:
        index.close()
