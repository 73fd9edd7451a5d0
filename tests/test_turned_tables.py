"""Tables of rotated pages read with their headers: PDFs written by PyMuPDF with an unruled table whose
header is set over three lines in narrow columns (upright, and printed sideways), and a ruled table on a
turned page that rules only every third row and boxes its header over the columns it names."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from readers.core.model import ReadLimits, TableSource
from readers.pdf.mupdf import PyMuPDFReader

#: The header's words sit over narrow columns, closer together than a font size: "method" over one
#: column and "method" over the next are one run of text by their gap alone.
HEAD = [
    ["", "", "Any", "", "Number"],
    ["", "Any", "modern", "", "of"],
    ["Group", "method", "method", "Total", "women"],
]
BODY = [
    ["Lowest", "64.5", "48.6", "100.0", "1,258"],
    ["Second", "68.5", "50.4", "100.0", "1,317"],
    ["Highest", "78.3", "44.4", "100.0", "733"],
    ["Total", "71.2", "49.9", "100.0", "5,234"],
]
PITCH = 44.0  # "method" is 33.4 pt wide at 10 pt: 10.6 pt apart, under a line height (14 pt)


def read(path: Path) -> list:
    return list(PyMuPDFReader().read(path, ReadLimits()).pages)


def narrow_table(page: pymupdf.Page, turned: bool) -> None:
    """Write HEAD and BODY as an unruled table, labels left-aligned, every other cell right-aligned on
    columns PITCH apart; ``turned``: its lines run up the page (a table printed sideways)."""
    height = page.rect.height
    y = 100.0
    for row in [*HEAD, *BODY]:
        for c, cell in enumerate(row):
            if not cell:
                continue
            x = 72.0 if c == 0 else 72.0 + 120 + PITCH * (c - 1) - pymupdf.get_text_length(cell, fontsize=10)
            if turned:
                page.insert_text((y, height - x), cell, fontsize=10, rotate=90)
            else:
                page.insert_text((x, y), cell, fontsize=10)
        y += 12


@pytest.mark.parametrize("turned", [False, True])
def test_a_header_over_three_lines_in_narrow_columns_heads_each_column(tmp_path: Path, turned: bool) -> None:
    """Each column's header lines are joined into its header cell ("Any method", "Number of women"), and
    numbers set close together stay in their own columns, upright or printed sideways."""
    doc = pymupdf.open()
    narrow_table(doc.new_page(), turned)
    doc.save(tmp_path / "narrow.pdf")

    [only] = read(tmp_path / "narrow.pdf")
    [table] = only.tables
    assert table.source == TableSource.ALIGNED.value and ("turned=90" in table.evidence) == turned
    assert [list(row) for row in table.cells] == [
        ["Group", "Any method", "Any modern method", "Total", "Number of women"],
        *BODY,
    ]
    assert table.header_rows == 1


STATES = [
    ["Alabama", "18,870", "0", "71,137"],
    ["Alaska", "209", "0", "7,095"],
    ["Arizona", "2,303", "0", "27,087"],
    ["Kentucky", "264,140", "1", "295,891"],
    ["Louisiana", "1,945", "0", "45,000"],
    ["Maine", "299", "2", "9,297"],
]


def test_a_ruled_table_ruling_every_third_row_on_a_turned_page_reads_row_by_row(tmp_path: Path) -> None:
    """A page turned by /Rotate holding a grid that rules every third row (each cell holds three lines,
    side by side with its row's) and boxes its header over the columns without rules between them: one
    row of the table per line, and each header word over its own column."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=400)
    xs = [72.0, 172.0, 232.0, 282.0, 352.0]
    top, head, line, group = 100.0, 18.0, 12.0, 3
    ys = [top, top + head, top + head + group * line, top + head + 2 * group * line]
    for x in xs:  # the header's box has no rules between the columns it names
        y0 = top if x in (xs[0], xs[1], xs[-1]) else ys[1]
        page.draw_line((x, y0), (x, ys[-1]), width=0.5)
    for y in ys:
        page.draw_line((xs[0], y), (xs[-1], y), width=0.5)
    for c, word in enumerate(["State", "Permit", "Admin", "Totals"]):
        page.insert_text((xs[c] + 4, top + 13), word, fontsize=10)
    for r, row in enumerate(STATES):
        baseline = ys[1] + (r // group) * group * line + (r % group) * line + 10
        for c, cell in enumerate(row):
            x = xs[c] + 4 if c == 0 else xs[c + 1] - 4 - pymupdf.get_text_length(cell, fontsize=9)
            page.insert_text((x, baseline), cell, fontsize=9)
    page.set_rotation(90)
    doc.save(tmp_path / "stacked.pdf")

    [only] = read(tmp_path / "stacked.pdf")
    [table] = only.tables
    assert table.source == TableSource.RULED.value
    assert [list(row) for row in table.cells] == [["State", "Permit", "Admin", "Totals"], *STATES]
    assert table.header_rows == 1


def test_a_header_cell_over_two_columns_of_a_sideways_table_heads_the_first(tmp_path: Path) -> None:
    """A ruled table printed sideways with a header cell over two columns: once turned back, the cell
    heads the first column it spans (as printed), not the last."""
    doc = pymupdf.open()
    page = doc.new_page()
    left, bottom, h, w = 100.0, 600.0, 18.0, 90.0  # printed rows go right, printed columns go up
    printed = {(0, 0): "Station", (0, 1): "Flow", (1, 1): "Min", (1, 2): "Max"}
    printed |= {(2, 0): "North", (2, 1): "1.2", (2, 2): "3.4", (3, 0): "South", (3, 1): "2.8", (3, 2): "4.1"}
    for (r, c), text in printed.items():
        page.insert_text((left + r * h + 13, bottom - c * w - 4), text, fontsize=10, rotate=90)
    for r in range(5):  # printed row borders: the one under "Station" stops short of it
        x = left + r * h
        page.draw_line((x, bottom - (w if r == 1 else 0)), (x, bottom - 3 * w), width=0.5)
    for c in range(4):  # printed column borders: the one between Min and Max does not cross "Flow"
        y = bottom - c * w
        page.draw_line((left + (h if c == 2 else 0), y), (left + 4 * h, y), width=0.5)
    doc.save(tmp_path / "spanned.pdf")

    [only] = read(tmp_path / "spanned.pdf")
    [table] = only.tables
    assert "turned=90" in table.evidence
    assert [list(row) for row in table.cells] == [
        ["Station", "Flow Min", "Max"],
        ["North", "1.2", "3.4"],
        ["South", "2.8", "4.1"],
    ]
