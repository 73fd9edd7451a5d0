"""Tables as data: PDFs written by PyMuPDF with an unruled table aligned by tab stops, a ruled table and a
table split across a page break, read by the PDF reader into ``PageText.tables`` and by a real pipeline run
into the ``tables`` table; pages of prose, lists and a table of contents give no table."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readers.core.model import FoundTable, PageFacts, PageText, ReadLimits, TableSource
from readers.pdf.aligned import ALIGNED_BASE_CONFIDENCE
from readers.pdf.mupdf import PyMuPDFReader
from readers.pdf.placed import gfm, header_rows, is_number, renumber_tables

STATEMENT = [
    ["", "2023", "2022", "2021"],
    ["Revenue", "$ 1,210", "$ 1,105", "$ 998"],
    ["Cost of revenue", "178", "141", "138"],
    ["Gross margin", "1,032", "964", "860"],
    ["Operating expenses", "512", "498", "470"],
    ["Net income", "$ 520", "$ 466", "$ 390"],
]
PROSE = (
    "The committee met twice during the year and reviewed the accounts, the budget and the plans for the "
    "new building, which the members approved after a long discussion of its cost and its schedule. "
)


def aligned_table(page: pymupdf.Page, rows: list[list[str]], top: float, left: float = 72.0) -> float:
    """Write ``rows`` as an unruled table: the first column left-aligned at ``left``, the others
    right-aligned on tab stops 80 pt apart; return the y below it."""
    y = top
    for row in rows:
        page.insert_text((left, y), row[0], fontsize=10)
        for i, cell in enumerate(row[1:]):
            width = pymupdf.get_text_length(cell, fontsize=10)
            page.insert_text((left + 228 + 80 * i - width, y), cell, fontsize=10)
        y += 14
    return y


def ruled_table(page: pymupdf.Page, rows: list[list[str]], top: float, widths: tuple[float, ...]) -> float:
    """Write ``rows`` in a grid of rules, one cell per rule box; return the y below it."""
    left = 72.0
    height = 18.0
    xs = [left]
    for w in widths:
        xs.append(xs[-1] + w)
    for r, row in enumerate(rows):
        y0 = top + r * height
        for c, cell in enumerate(row):
            page.insert_text((xs[c] + 4, y0 + 13), cell, fontsize=10)
    bottom = top + len(rows) * height
    for r in range(len(rows) + 1):
        page.draw_line((xs[0], top + r * height), (xs[-1], top + r * height), width=0.5)
    for x in xs:
        page.draw_line((x, top), (x, bottom), width=0.5)
    return bottom


def read(path: Path) -> list:
    return list(PyMuPDFReader().read(path, ReadLimits()).pages)


def test_an_unruled_aligned_table_is_one_gfm_table_and_one_aligned_table(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Statement of operations", fontsize=14)
    below = aligned_table(page, STATEMENT, 100)
    page.insert_text((72, below + 20), "All figures are in thousands of dollars.", fontsize=10)
    doc.save(tmp_path / "statement.pdf")

    [only] = read(tmp_path / "statement.pdf")
    [table] = only.tables
    assert table.source == TableSource.ALIGNED.value
    assert [list(row) for row in table.cells] == STATEMENT
    assert (table.rows, table.columns, table.header_rows) == (6, 4, 1)
    assert ALIGNED_BASE_CONFIDENCE < table.confidence <= 1 and "aligned_columns=4" in table.evidence
    assert only.text.count("| --- | --- | --- | --- |") == 1
    assert table.markdown in only.text and "| Cost of revenue | 178 | 141 | 138 |" in only.text
    # The table stands where it is: after the title, before the note below it.
    assert only.text.index("Statement") < only.text.index("| Revenue") < only.text.index("All figures")
    assert only.facts.tables == 1


def test_a_ruled_table_is_a_ruled_table_with_its_cells(tmp_path: Path) -> None:
    rows = [
        ["Station", "Depth", "Flow"],
        ["North", "12", "3.4"],
        ["South", "9", "2.8"],
        ["East", "15", "4.1"],
    ]
    doc = pymupdf.open()
    page = doc.new_page()
    ruled_table(page, rows, 100, (120, 80, 80))
    doc.save(tmp_path / "ruled.pdf")

    [only] = read(tmp_path / "ruled.pdf")
    [table] = only.tables
    assert table.source == TableSource.RULED.value
    assert [list(row) for row in table.cells] == rows and table.header_rows == 1
    assert 0.9 <= table.confidence <= 1 and "fill=1.00" in table.evidence
    assert table.markdown in only.text


def test_a_table_split_by_a_page_break_is_linked_to_its_first_part(tmp_path: Path) -> None:
    head = [["Station", "Depth", "Flow"]]
    first = [[f"Well {i}", str(10 + i), f"{i}.5"] for i in range(1, 6)]
    second = [[f"Well {i}", str(10 + i), f"{i}.5"] for i in range(6, 10)]
    doc = pymupdf.open()
    one = doc.new_page()
    one.insert_text((72, 72), PROSE[:90], fontsize=10)
    ruled_table(one, head + first, 842 - 72 - 18 * 6, (120, 80, 80))
    two = doc.new_page()
    ruled_table(two, head + second, 60, (120, 80, 80))
    two.insert_text((72, 400), "End of the readings.", fontsize=10)
    doc.save(tmp_path / "split.pdf")

    pages = read(tmp_path / "split.pdf")
    [a], [b] = pages[0].tables, pages[1].tables
    assert (a.index, a.continues) == (0, None)
    assert (b.index, b.continues) == (1, 0)
    assert b.page == 2 and b.cells[0] == a.cells[0]


def test_a_table_far_from_the_page_break_is_not_a_continuation(tmp_path: Path) -> None:
    rows = [["Station", "Depth", "Flow"], ["North", "12", "3.4"], ["South", "9", "2.8"]]
    doc = pymupdf.open()
    ruled_table(doc.new_page(), rows, 100, (120, 80, 80))  # near the top of page 1, not its bottom
    ruled_table(doc.new_page(), rows, 60, (120, 80, 80))
    doc.save(tmp_path / "two.pdf")
    pages = read(tmp_path / "two.pdf")
    assert [t.continues for p in pages for t in p.tables] == [None, None]


def test_prose_in_two_columns_a_list_and_a_table_of_contents_are_not_tables(tmp_path: Path) -> None:
    doc = pymupdf.open()
    columns = doc.new_page()
    columns.insert_textbox(pymupdf.Rect(72, 72, 290, 770), PROSE * 6, fontsize=10)
    columns.insert_textbox(pymupdf.Rect(310, 72, 528, 770), PROSE * 6, fontsize=10)
    bullets = doc.new_page()
    for i, item in enumerate(["Pumps were serviced", "Valves were replaced", "Meters were read", "Pipes"]):
        bullets.insert_text((72, 100 + 16 * i), "•", fontsize=10)
        bullets.insert_text((90, 100 + 16 * i), f"{item} in the northern district this spring.", fontsize=10)
    contents = doc.new_page()
    for i, title in enumerate(["Introduction", "Methods", "Results", "Discussion", "References"]):
        contents.insert_text((72, 100 + 16 * i), title + " " + "." * 40, fontsize=10)
        contents.insert_text((480, 100 + 16 * i), str(1 + 7 * i), fontsize=10)
    code = doc.new_page()
    for i, line in enumerate(
        ["x = 1      # one", "y = 22     # two", "z = 333    # three", "w = 4      # four"]
    ):
        code.insert_text((72, 100 + 14 * i), line.split("#")[0], fontsize=10, fontname="cour")
        code.insert_text((200, 100 + 14 * i), "# " + line.split("#")[1], fontsize=10, fontname="cour")
    doc.save(tmp_path / "not-tables.pdf")

    pages = read(tmp_path / "not-tables.pdf")
    assert [p.tables for p in pages] == [(), (), (), ()]
    assert all("| --- |" not in p.text for p in pages)


def test_cells_header_rows_and_numbers() -> None:
    assert is_number("$ 1,210") and is_number("(12)") and is_number("45%") and not is_number("Revenue")
    assert header_rows(STATEMENT) == 1
    assert header_rows([["North", "12"], ["South", "9"]]) == 0
    assert gfm([["a|b", "c"], ["1", "2"]]) == "| a\\|b | c |\n| --- | --- |\n| 1 | 2 |"


_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9).map(str.capitalize)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    labels=st.lists(_WORDS, min_size=3, max_size=8, unique=True),
    columns=st.integers(min_value=2, max_value=4),
    data=st.data(),
)
def test_any_aligned_table_of_labels_and_numbers_is_found_whole(
    tmp_path: Path, labels: list[str], columns: int, data: st.DataObject
) -> None:
    """Whatever its labels and numbers, an aligned table is found once, with every cell where it was
    written, and its cells are in the page's text."""
    header = ["Item", *(f"Year {2020 + i}" for i in range(columns))]
    rows = [header] + [
        [label, *(str(data.draw(st.integers(min_value=0, max_value=99_999))) for _ in range(columns))]
        for label in labels
    ]
    doc = pymupdf.open()
    aligned_table(doc.new_page(), rows, 100)
    path = tmp_path / "property.pdf"
    doc.save(path)
    [only] = read(path)
    [table] = only.tables
    assert isinstance(table, FoundTable) and [list(r) for r in table.cells] == rows
    assert (table.rows, table.columns) == (len(rows), columns + 1)
    assert all(cell in only.text for row in rows for cell in row)


@pytest.mark.slow
def test_a_run_writes_the_tables_table(home: Path, tmp_path: Path) -> None:
    from assets.progress import Progress
    from orchestration.home import Home
    from orchestration.runner import run
    from warehouse.catalog import query

    folder = tmp_path / "corpus"
    folder.mkdir()
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Statement of operations", fontsize=14)
    aligned_table(page, STATEMENT, 100)
    ruled_table(page, [["Station", "Depth"], ["North", "12"], ["South", "9"]], 300, (120, 80))
    doc.save(folder / "tables.pdf")
    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    rows = query(
        Home(home).warehouse,
        'select source, rows, columns, header_rows, cells, confidence, markdown from tables order by "table"',
    ).rows
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [("aligned", 6, 4, 1), ("ruled", 3, 2, 1)]
    assert [list(row) for row in rows[0][4]] == STATEMENT
    assert all(0 < r[5] <= 1 for r in rows)
    ((text,),) = query(Home(home).warehouse, "select text from texts").rows
    assert all(r[6] in text for r in rows)


WELLS = [["Station", "Depth", "Flow"], ["North", "12", "3.4"], ["South", "9", "2.8"], ["East", "15", "4.1"]]


def test_a_table_printed_sideways_reads_as_printed(tmp_path: Path) -> None:
    """A landscape table on a portrait page: its lines run up the page, its rows are the page's columns.
    It is filled from those lines and turned back, header first."""
    doc = pymupdf.open()
    page = doc.new_page()
    left, bottom, height, width = 100.0, 600.0, 18.0, 90.0
    for r, row in enumerate(WELLS):
        for c, cell in enumerate(row):
            point = (left + r * height + 13, bottom - c * width - 4)
            page.insert_text(point, cell, fontsize=10, rotate=90)
    for r in range(len(WELLS) + 1):
        page.draw_line((left + r * height, bottom), (left + r * height, bottom - 3 * width), width=0.5)
    for c in range(4):
        x1 = left + len(WELLS) * height
        page.draw_line((left, bottom - c * width), (x1, bottom - c * width), width=0.5)
    doc.save(tmp_path / "sideways.pdf")

    [only] = read(tmp_path / "sideways.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == WELLS and table.header_rows == 1
    assert "turned=90" in table.evidence and table.markdown in only.text


def test_a_box_of_notes_ruled_under_a_table_is_left_out_of_it(tmp_path: Path) -> None:
    """The notes under a table boxed by the table's last rule and the page's: the table is kept without
    them (the box was a frame around text and made the whole grid refused), the notes stay text."""
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = ruled_table(page, WELLS, 100, (120, 80, 80))
    page.draw_rect(pymupdf.Rect(72, bottom, 352, bottom + 300), width=0.5)
    page.insert_textbox(pymupdf.Rect(80, bottom + 10, 340, bottom + 290), PROSE, fontsize=10)
    doc.save(tmp_path / "notes.pdf")

    [only] = read(tmp_path / "notes.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == WELLS and table.source == TableSource.RULED.value
    assert "committee met twice" in only.text and "committee" not in table.markdown


def test_dots_where_rules_cross_do_not_make_a_table_a_figure(tmp_path: Path) -> None:
    """Some generators draw a tiny square at every crossing of two rules: those are not a chart's marks."""
    doc = pymupdf.open()
    page = doc.new_page()
    ruled_table(page, WELLS, 100, (120, 80, 80))
    for x in (72, 192, 272, 352):
        for r in range(len(WELLS) + 1):
            y = 100 + 18 * r
            page.draw_rect(pymupdf.Rect(x - 0.25, y - 0.25, x + 0.25, y + 0.25), fill=(0, 0, 0), width=0)
    doc.save(tmp_path / "dots.pdf")

    [only] = read(tmp_path / "dots.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == WELLS and table.source == TableSource.RULED.value


def test_a_tagged_table_split_by_page_breaks_is_linked_page_to_page() -> None:
    """Tagged tables are linked as found ones are: the first table of a page carries on the previous
    page's last one when it ends low, starts high, has as many columns and the same sides."""
    rows = tuple((f"{i:02d}/01/2016", f"Plant {i}", str(10 * i)) for i in range(40))

    def page(number: int, top: float, bottom: float, right: float = 540.0, columns: int = 3) -> PageText:
        cells = tuple(row[:columns] for row in rows)
        table = FoundTable(number, 0, (30.0, top, right, bottom), cells, 0, "", TableSource.TAGGED.value, 1.0)
        return PageText(number, "", facts=PageFacts(width=612.0, height=792.0), tables=(table,))

    pages = renumber_tables(
        [page(1, 20, 780), page(2, 20, 780, right=546), page(3, 20, 300), page(4, 20, 700, columns=2)]
    )
    assert [(t.index, t.continues) for p in pages for t in p.tables] == [(0, None), (1, 0), (2, 1), (3, None)]


def test_an_aligned_table_printed_sideways_is_found_as_it_reads(tmp_path: Path) -> None:
    """An unruled table whose lines run up the page is found as the page reads turned upright."""
    doc = pymupdf.open()
    page = doc.new_page()
    height = page.rect.height
    y = 100.0  # in the turned page: rows go down it, which is the page's x going right
    for row in STATEMENT:
        page.insert_text((y, height - 72), row[0], fontsize=10, rotate=90)
        for i, cell in enumerate(row[1:]):
            width = pymupdf.get_text_length(cell, fontsize=10)
            page.insert_text((y, height - (72 + 228 + 80 * i - width)), cell, fontsize=10, rotate=90)
        y += 14
    doc.save(tmp_path / "sideways.pdf")

    [only] = read(tmp_path / "sideways.pdf")
    [table] = only.tables
    assert table.source == TableSource.ALIGNED.value and "turned=90" in table.evidence
    assert [list(row) for row in table.cells] == STATEMENT and table.header_rows == 1
    assert table.markdown in only.text
