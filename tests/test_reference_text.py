"""The independent readings of spreadsheets, Word documents and HTML pages (quality/reference_text.py),
and the office text F1 ``assay eval`` reports against them, on files generated here."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import docx
import openpyxl

from quality.reference_text import docx_text, html_text, reference_text, xlsx_text
from quality.truth_scores import words

COLUMNS = ("Region", "Revenue", "Margin")
ROWS = [(f"Area{i}", 1000 + i, f"{i}.5") for i in range(12)]


def workbook(path: Path) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Results"
    sheet.append(COLUMNS)
    for row in ROWS:
        sheet.append(row)
    other = book.create_sheet("Dates")
    other.append(["when", dt.datetime(2024, 3, 1), 3.0])  # the date written as Excel displays it by assay
    book.save(path)
    return path


def word(path: Path) -> Path:
    document = docx.Document()
    document.sections[0].header.paragraphs[0].text = "Quarterly letterhead"
    document.add_paragraph("Revenue grew in every region this quarter.")
    table = document.add_table(rows=1 + len(ROWS), cols=len(COLUMNS))
    for column, name in enumerate(COLUMNS):
        table.cell(0, column).text = name
    for r, row in enumerate(ROWS, start=1):
        for column, value in enumerate(row):
            table.cell(r, column).text = str(value)
    document.save(path)
    return path


PAGE = (
    "<html><head><title>Report</title><style>p {color: red}</style></head><body>"
    "<script>var hidden = 'scriptword';</script><h1>Results</h1><table>"
    + "<tr>"
    + "".join(f"<th>{c}</th>" for c in COLUMNS)
    + "</tr>"
    + "".join("<tr>" + "".join(f"<td>{v}</td>" for v in row) + "</tr>" for row in ROWS)
    + "</table><noscript>enable scripts</noscript></body></html>"
)


def test_a_workbook_is_read_as_its_sheets_cell_values(tmp_path: Path) -> None:
    text = xlsx_text(workbook(tmp_path / "book.xlsx"))
    assert words(text)[:4] == ["results", "region", "revenue", "margin"]
    assert "Area11 1011 11.5" in text
    assert "Dates\nwhen 2024-03-01 3" in text


def test_a_word_document_is_read_with_its_tables_and_headers(tmp_path: Path) -> None:
    text = docx_text(word(tmp_path / "letter.docx"))
    assert text.startswith("Revenue grew in every region this quarter.\nRegion\nRevenue\nMargin\nArea0")
    assert text.endswith("Quarterly letterhead")


def test_a_page_is_read_as_its_visible_body_whatever_its_encoding() -> None:
    text = html_text(PAGE.encode())
    assert words(text) == words(" ".join(["Results", *COLUMNS, *(str(v) for row in ROWS for v in row)]))
    assert "scriptword" not in text and "color" not in text and "enable" not in text
    assert "Report" not in text  # the head's title is not the body's
    assert html_text("\ufeff<p>Grüße</p>".encode("utf-16-le")).strip() == "Grüße"
    declared = '<meta charset="windows-1252"><p>caf\u00e9 \u20ac</p>'.encode("cp1252")
    assert html_text(declared).strip() == "café €"
    assert html_text("<p>très niño</p>".encode("cp1252")).strip() == "très niño"  # declared none


def test_a_kind_without_a_reading_has_none(tmp_path: Path) -> None:
    assert reference_text(tmp_path / "x.pdf", "pdf-born-digital") is None


def test_assay_eval_reports_the_office_text_f1_per_kind(tmp_path: Path, capsys) -> None:
    from orchestration.cli import main

    dev = tmp_path / "corpus" / "dev"
    dev.mkdir(parents=True)
    workbook(dev / "book.xlsx")
    word(dev / "letter.docx")
    (dev / "page.html").write_text(PAGE, encoding="utf-8")
    (tmp_path / "corpus" / "manifest.csv").write_text(
        "path,kind\ndev/book.xlsx,xlsx\ndev/letter.docx,docx\ndev/page.html,html\n"
    )
    assert main(["eval", "--corpus", str(tmp_path / "corpus"), "--sets", "dev", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["figures"]
    scores = {k: round(v["value"], 3) for k, v in figures.items() if k.startswith("office_text")}
    assert {k: figures[k]["count"] for k in scores} == {
        f"office_text_{m}/{kind}": 1 for m in ("f1", "recall") for kind in ("docx", "html", "xlsx")
    }
    # The reference writes the date as ISO 8601 and assay as Excel displays it: all else is the same words.
    assert min(scores.values()) > 0.95, scores
