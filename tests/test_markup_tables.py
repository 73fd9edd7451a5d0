"""Tables a document's markup declares (spreadsheets, Word, OpenDocument, HTML) as GFM tables in the text
and as ``tables`` rows of source ``markup`` (readers/core/markup.py), and chunked under their header."""

from __future__ import annotations

from pathlib import Path

import docx
import openpyxl
import pytest

from quality.chunking import TARGET_CHARS, PageSpan, chunk_document
from readers.core.markup import delimit_tables, gfm_table, markup_tables, split_gfm_row, text_tables
from readers.core.model import PageText, ReadLimits, ReadResult, TableSource
from readers.html.main import HtmlMainReader
from readers.html.page import HtmlPageReader
from readers.office.docx import DocxReader
from readers.office.xlsx import XlsxReader

LIMITS = ReadLimits()


def _workbook(path: Path, sheets: dict[str, list[tuple[int, int, object]]]) -> Path:
    """A workbook with the given cells, (row, column, value) 1-based, per sheet."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, cells in sheets.items():
        sheet = book.create_sheet(name)
        for row, col, value in cells:
            sheet.cell(row=row, column=col, value=value)
    book.save(path)
    return path


def _grid(top: int, left: int, rows: list[list[object]]) -> list[tuple[int, int, object]]:
    return [(top + r, left + c, v) for r, row in enumerate(rows) for c, v in enumerate(row) if v is not None]


def test_a_sheet_region_is_a_gfm_table_under_its_first_row_and_a_tables_row(tmp_path: Path) -> None:
    left = [["Site", "Lead", "Note"], ["North", 3, "a | b"], ["South", 7, "two\nlines"]]
    right = [["Code", "Name"], ["A1", "Alpha"], ["B2", "Beta"]]
    below = [["Year", "Total"], [2023, 10], [2024, 12]]
    cells = _grid(1, 1, left) + _grid(1, 7, right) + _grid(7, 1, below)
    path = _workbook(tmp_path / "book.xlsx", {"Data": cells})
    result = XlsxReader().read(path, LIMITS)
    page = result.pages[0]
    assert page.text.split("\n") == [
        "## Data",
        "| Site | Lead | Note |",
        "| --- | --- | --- |",
        "| North | 3 | a \\| b |",
        "| South | 7 | two lines |",
        "",
        "| Code | Name |",
        "| --- | --- |",
        "| A1 | Alpha |",
        "| B2 | Beta |",
        "",
        "| Year | Total |",
        "| --- | --- |",
        "| 2023 | 10 |",
        "| 2024 | 12 |",
    ]
    assert "Site: North" not in page.text, "no header repeated in every row"
    tables = page.tables
    assert [t.index for t in tables] == [0, 1, 2]
    assert {t.source for t in tables} == {TableSource.MARKUP.value}
    assert tables[0].cells == (
        ("Site", "Lead", "Note"),
        ("North", "3", "a | b"),
        ("South", "7", "two lines"),
    )
    assert tables[0].header_rows == 1 and tables[0].page == 1
    assert tables[0].markdown == "\n".join(page.text.split("\n")[1:5])
    assert tables[2].cells[-1] == ("2024", "12")


def test_tables_are_numbered_through_the_workbook_and_a_title_stays_above(tmp_path: Path) -> None:
    first = _grid(1, 1, [["Results"], [None], ["Name", "Value"], ["x", 1]])
    second = _grid(1, 1, [["Key", "Count"], ["k", 2]])
    path = _workbook(tmp_path / "two.xlsx", {"One": first, "Two": second})
    result = XlsxReader().read(path, LIMITS)
    assert result.pages[0].text.split("\n")[:3] == ["## One", "Results", "| Name | Value |"]
    assert [(t.page, t.index) for p in result.pages for t in p.tables] == [(1, 0), (2, 1)]


def test_a_word_table_with_merged_cells_is_a_tables_row(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Before the table.")
    table = document.add_table(rows=3, cols=3)
    for r, row in enumerate([["Region", "Q1", "Q2"], ["North", "1", "2"], ["South", "3", "4"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    merged = table.cell(1, 1).merge(table.cell(1, 2))  # a horizontal span
    merged.text = "1 and 2 | both"
    table.cell(1, 0).merge(table.cell(2, 0)).text = "Both regions"  # a vertical span
    path = tmp_path / "t.docx"
    document.save(path)
    result = DocxReader().read(path, LIMITS)
    page = result.pages[0]
    assert "| Both regions | 1 and 2 \\| both |  |" in page.text
    (found,) = page.tables
    assert found.source == TableSource.MARKUP.value and found.evidence == "markup=docx"
    assert found.cells == (
        ("Region", "Q1", "Q2"),
        ("Both regions", "1 and 2 | both", ""),
        ("", "3", "4"),
    )


def test_an_html_table_with_spans_keeps_cells_in_their_columns(tmp_path: Path) -> None:
    page_html = """<html><head><title>T</title></head><body><main><p>Prices by site.</p>
    <table>
      <tr><th>Site</th><th>Kind</th><th>Price</th></tr>
      <tr><td rowspan="2">North</td><td>tap</td><td>1</td></tr>
      <tr><td>well</td><td>2</td></tr>
      <tr><td colspan="2">All | sites</td><td>3</td></tr>
    </table></main></body></html>"""
    path = tmp_path / "p.html"
    path.write_text(page_html, encoding="utf-8")
    result = HtmlPageReader().read(path, LIMITS)
    page = result.pages[0]
    assert "|  | well | 2 |" in page.text
    (found,) = page.tables
    assert found.source == TableSource.MARKUP.value
    assert found.cells == (
        ("Site", "Kind", "Price"),
        ("North", "tap", "1"),
        ("", "well", "2"),
        ("All | sites", "", "3"),
    )


def test_markup_tables_skip_code_fences_and_read_escapes_back() -> None:
    table = gfm_table([["a", "b\\|c"], ["1 | 2", "x"]])
    text = f"```\n| not | a |\n|---|---|\n```\n\n{table}\n\nafter"
    (found,) = text_tables(text)
    assert found[1] == (("a", "b\\|c"), ("1 | 2", "x"))
    assert [split_gfm_row(line) for line in found[0].split("\n") if "---" not in line] == [
        list(r) for r in found[1]
    ]
    result = markup_tables(ReadResult(pages=(PageText(1, text),), page_count=1), "markup=test")
    assert result.pages[0].tables[0].markdown == table


@pytest.mark.parametrize("rows", [400])
def test_a_sheet_longer_than_a_chunk_repeats_its_header_in_every_chunk(tmp_path: Path, rows: int) -> None:
    header = ["Sample", "Site", "Lead (ppb)", "Copper (ppb)"]
    cells = _grid(1, 1, [header, *([f"S{i}", f"Site {i % 7}", i * 0.5, i * 2] for i in range(rows))])
    path = _workbook(tmp_path / "long.xlsx", {"Samples": cells})
    text = XlsxReader().read(path, LIMITS).pages[0].text
    assert len(text) > 5 * TARGET_CHARS
    chunks = chunk_document("ab" * 32, text, [PageSpan(1, 0, "en", "extracted", 1.0)])
    head = "| Sample | Site | Lead (ppb) | Copper (ppb) |\n| --- | --- | --- | --- |\n"
    assert len(chunks) > 5
    assert chunks[0].text.startswith("## Samples\n" + head)
    for chunk in chunks[1:]:
        assert chunk.text.startswith(head), chunk.text[:80]
        assert chunk.overlap == len(head)
    for i in range(rows):
        row = f"| S{i} | Site {i % 7} |"
        assert sum(row in c.text[c.overlap :] for c in chunks) == 1


def test_a_main_content_table_without_header_cells_is_a_gfm_table(tmp_path: Path) -> None:
    words = "The annual filing lists the registrant's offices and its securities below. " * 12
    rows = "".join(f"<tr><td>Item {i}</td><td>Section {i}</td><td>{i + 3}</td></tr>" for i in range(4))
    path = tmp_path / "m.html"
    path.write_text(f"<html><body><div><p>{words}</p><table>{rows}</table><p>{words}</p></div></body></html>")
    page = HtmlMainReader().read(path, LIMITS).pages[0]
    assert "| Item 0 | Section 0 | 3 |\n| --- | --- | --- |\n| Item 1 | Section 1 | 4 |" in page.text
    (found,) = page.tables
    assert found.cells[0] == ("Item 0", "Section 0", "3") and found.rows == 4


def test_delimit_tables_leaves_delimited_tables_and_code_alone() -> None:
    text = "| a | b |\n|---|---|\n| 1 | 2 |\n\n```\n| x | y |\n```\n\n| p | q | \n| 3 | 4 |"
    assert delimit_tables(text) == (
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n```\n| x | y |\n```\n\n| p | q |\n| --- | --- |\n| 3 | 4 |"
    )
