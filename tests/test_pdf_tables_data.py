"""Tables as data: PDFs written by PyMuPDF with an unruled table aligned by tab stops, a ruled table and a
table split across a page break, read by the PDF reader into ``PageText.tables`` and by a real pipeline run
into the ``tables`` table; pages of prose, lists and a table of contents give no table."""

from __future__ import annotations

import unicodedata
from itertools import pairwise
from pathlib import Path

import pymupdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readers.core.model import FoundTable, PageFacts, PageText, ReadLimits, TableSource
from readers.pdf.mupdf import PyMuPDFReader
from readers.pdf.placed_tables import gfm, header_rows, is_number, one_header, renumber_tables
from readers.pdf.unruled_columns import ALIGNED_BASE_CONFIDENCE

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
    from warehouse.duckdb_catalog import query

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


def test_a_price_list_in_sections_is_one_table_of_labels_and_prices(tmp_path: Path) -> None:
    """Prices written after their amount (8 €), a label alone on its row before each group of priced
    rows, and a blank between the sections: one table, every row in it."""
    sections = [
        ("White wines", "12 cl"),
        ("Red wines", "12 cl"),
    ]
    rows: list[list[str]] = []
    doc = pymupdf.open()
    page = doc.new_page()
    font = pymupdf.Font("helv")  # a TextWriter maps € into the font, which insert_text does not
    writer = pymupdf.TextWriter(page.rect)
    y = 100.0
    for title, measure in sections:
        for row in [
            [title, measure],
            ["Côtes du Rhône", ""],
            ["Domaine de la Guicharde 2016", "8 €"],
            ["Vacqueyras", ""],
            ["Domaine de Montvac 2016", "10 €"],
            ["Château Grand Boise 2017", "9 €"],
        ]:
            writer.append((72, y), row[0], font=font, fontsize=10)
            if row[1]:
                right = 500 - font.text_length(row[1], fontsize=10)
                writer.append((right, y), row[1], font=font, fontsize=10)
            rows.append(row)
            y += 14
        y += 28  # a blank line and more between the sections
    writer.write_text(page)
    doc.save(tmp_path / "prices.pdf")

    [only] = read(tmp_path / "prices.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == rows


def test_a_sparse_table_under_a_full_header_is_found(tmp_path: Path) -> None:
    """A schedule whose header fills every column and whose later rows fill only some, each column
    centred on its header: a table, with its empty cells where they are."""
    rows = [
        ["Outer 1", "Outer 2", "Long 1", "Long 2", "Inner", "Long 3"],
        ["A1", "B1", "C1", "D1", "E1", "F1"],
        ["", "", "C2", "D2", "", "F2"],
        ["", "", "C3", "D3", "", "F3"],
        ["", "", "C4", "D4", "", "F4"],
    ]
    doc = pymupdf.open()
    page = doc.new_page()
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            if cell:
                width = pymupdf.get_text_length(cell, fontsize=10)
                page.insert_text((110 + 80 * c - width / 2, 100 + 14 * r), cell, fontsize=10)
    doc.save(tmp_path / "sparse.pdf")

    [only] = read(tmp_path / "sparse.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == rows and table.header_rows == 1


def test_a_header_set_above_the_body_heads_its_column(tmp_path: Path) -> None:
    """A year over a column of amounts, with a unit and a group's label between it and the body: the year
    is the table's header over the amounts, the heading above stays text."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Key figures", fontsize=16)
    page.insert_text((500 - pymupdf.get_text_length("2016", fontsize=10), 120), "2016", fontsize=10)
    page.insert_text((72, 134), "(all amounts in EUR)", fontsize=10)
    page.insert_text((72, 156), "Class A", fontsize=10)
    body = [
        ["Net asset value at 31 December", "5,111,372"],
        ["Outstanding units at 31 December", "49,136"],
        ["Net asset value per unit", "104.03"],
    ]
    for r, (label, amount) in enumerate(body):
        page.insert_text((72, 178 + 22 * r), label, fontsize=10)
        right = 500 - pymupdf.get_text_length(amount, fontsize=10)
        page.insert_text((right, 178 + 22 * r), amount, fontsize=10)
    doc.save(tmp_path / "figures.pdf")

    [only] = read(tmp_path / "figures.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == [
        ["", "2016"],
        ["(all amounts in EUR)", ""],
        ["Class A", ""],
        *body,
    ]
    assert "Key figures" in only.text.split(table.markdown)[0]


def test_a_header_over_several_lines_is_one_header_row() -> None:
    """Header cells set over two or three lines read as one header row; a title above the header and a
    group's label under it stay rows of their own; a label wrapped onto a second line joins its row."""
    cells = [
        ["", "Total", "Loans", "Market"],
        ["States", "Internal", "from", "Loans"],
        ["", "Debt", "Banks", ""],
        ["Andhra Pradesh", "48.11", "4.4", "40.45"],
        ["Knowledge of the school system and", "1.23", "0.13", "1.1"],
        ["education in the partner countries", "", "", ""],
    ]
    assert one_header(cells) == [
        ["States", "Total Internal Debt", "Loans from Banks", "Market Loans"],
        ["Andhra Pradesh", "48.11", "4.4", "40.45"],
        ["Knowledge of the school system and education in the partner countries", "1.23", "0.13", "1.1"],
    ]
    years = [["", "2016", "2015"], ["Revenue", "12", "10"], ["Costs", "4", "3"]]
    assert one_header(years) == years
    labelled = [["", "2016"], ["Class A", ""], ["Net value", "5,111"], ["Units", "49"]]
    assert one_header(labelled) == labelled
    assert is_number("8 €") and is_number("10 €")


ARRESTS = [
    ["Offense", "Total", "White", "Black", "Other"],
    ["Total", "10,690", "7,389", "3,027", "274"],
    ["Violent crime", "456", "268", "177", "11"],
    ["Robbery", "100", "43", "55", "2"],
    ["Aggravated assault", "330", "209", "111", "10"],
    ["Burglary", "234", "155", "74", "5"],
    ["Arson", "9", "6", "2", "1"],
]


def _statistical_table(page: pymupdf.Page, rows: list[list[str]], top: float, leaders: bool) -> float:
    """``rows`` with their labels led by dots to five right-aligned columns of numbers; return the y
    below them."""
    y = top
    for r, row in enumerate(rows):
        label = row[0] + (
            " " + ". " * int((200 - pymupdf.get_text_length(row[0], fontsize=9)) // 5) if r else ""
        )
        page.insert_text((72, y), label if leaders else row[0], fontsize=9)
        for c, cell in enumerate(row[1:]):
            page.insert_text((330 + 60 * c - pymupdf.get_text_length(cell, fontsize=9), y), cell, fontsize=9)
        y += 12
    return y


def test_labels_led_by_dots_to_columns_of_numbers_are_a_table(tmp_path: Path) -> None:
    """Dot leaders make a table of contents, but not when they lead to three columns of numbers or more:
    the table is found, its labels without their dots."""
    doc = pymupdf.open()
    _statistical_table(doc.new_page(), ARRESTS, 100, leaders=True)
    doc.save(tmp_path / "leaders.pdf")

    [only] = read(tmp_path / "leaders.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == ARRESTS


def test_a_ruled_frame_around_an_unruled_body_reads_row_by_row(tmp_path: Path) -> None:
    """A frame ruled round a header and a body whose rows have no rule between them: the body's rows are
    the table's rows (not one cell per column holding every line), a note boxed under it stays text."""
    rows = ARRESTS + [[f"Offense {i}", str(90 + i), str(50 + i), str(30 + i), str(i)] for i in range(1, 7)]
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _statistical_table(page, rows, 100, leaders=False)
    page.insert_text((72, bottom + 10), "Source: a department of justice.", fontsize=9)
    xs = [66, 280, 340, 400, 460, 520]
    for y in (88, 104, bottom + 14):
        page.draw_line((xs[0], y), (xs[-1], y), width=0.5)
    for x in xs:
        page.draw_line((x, 88), (x, bottom - 4 if x != xs[0] and x != xs[-1] else bottom + 14), width=0.5)
    page.draw_line((xs[0], bottom - 4), (xs[-1], bottom - 4), width=0.5)
    doc.save(tmp_path / "frame.pdf")

    [only] = read(tmp_path / "frame.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == rows
    assert "Source: a department of justice." in only.text.replace(table.markdown, "")


def test_labels_indented_by_level_beside_columns_of_numbers_are_a_table(tmp_path: Path) -> None:
    """Labels at two indents (a group and its parts) on the right of six columns of numbers, as a
    right-to-left table sets them: one table."""
    rows = [["2014", "2013", "2012", "2011", "2010", "2009", ""]] + [
        [f"{r + c / 10:.1f}" for c in range(6)] + [label]
        for r, label in enumerate(["Total", "Per head", "Business", "Industry", "Building", "Uses"])
    ]
    indent = {"Per head": 20, "Industry": 20, "Building": 35}
    doc = pymupdf.open()
    page = doc.new_page()
    for r, row in enumerate(rows):
        y = 100 + 14 * r
        for c, cell in enumerate(row[:6]):
            page.insert_text((150 + 35 * c - pymupdf.get_text_length(cell, fontsize=9), y), cell, fontsize=9)
        if row[6]:
            right = 460 - indent.get(row[6], 0)
            page.insert_text((right - pymupdf.get_text_length(row[6], fontsize=9), y), row[6], fontsize=9)
    doc.save(tmp_path / "indented.pdf")

    [only] = read(tmp_path / "indented.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == rows


@pytest.mark.corpus
def test_a_right_to_left_table_keeps_its_labels_in_reading_order() -> None:
    """The Hebrew statistical table of the tables corpus, ruled round an unruled body: read row by row,
    its labels in logical order (a label's words joined as they are read, not from left to right)."""
    from tests.conftest import CORPUS

    path = CORPUS / "tables" / "pdf" / "tabula__indictb1h_14.pdf"
    if not path.exists():
        pytest.skip(f"tables corpus not found at {path.parent}")
    [page] = read(path)
    [table] = page.tables
    labels = [row[-1] for row in table.cells]
    assert "ההוצאה לצריכה קולקטיבית לנפש" in labels and "תוצר מקומי גולמי" in labels
    assert len(table.cells) >= 30


def test_a_title_ruled_into_a_table_stays_text_above_it(tmp_path: Path) -> None:
    """A ruled table whose top row is one cell as wide as the table, holding its title: the title is not
    the table's header, it stays text above the table; the column names are the header."""
    rows = [["Server class", "2007", "2008"], ["Volume", "1,120", "1,180"], ["Mid-range", "240", "260"]]
    doc = pymupdf.open()
    page = doc.new_page()
    xs = [72.0, 252.0, 332.0, 412.0]
    page.draw_rect(pymupdf.Rect(xs[0], 100, xs[-1], 118), width=0.5)
    bottom = ruled_table(page, rows, 118, (180.0, 80.0, 80.0))
    # written after the table's cells, as some producers do: it still reads above the table
    page.insert_text((xs[0] + 4, 100 + 13), "Table 6.1: Installed servers", fontsize=10)
    page.insert_text((72, bottom + 30), "Servers are counted at the end of each year.", fontsize=10)
    doc.save(tmp_path / "titled.pdf")

    [only] = read(tmp_path / "titled.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == rows and table.header_rows == 1
    before, _, after = only.text.partition(table.markdown)
    assert "Table 6.1: Installed servers" in before and "Servers are counted" in after
    assert table.bbox[1] >= 117 and table.bbox[3] == pytest.approx(bottom, abs=1)


def test_a_table_in_one_column_of_a_two_column_page_is_found(tmp_path: Path) -> None:
    """A two-column table set in the right column of a page of two columns, the left column's prose lines
    running between its rows, its header over two lines sticking out on the right: one table."""
    rows = [
        ["Payroll period", "One allowance"],
        ["Weekly", "$ 71.15"],
        ["Biweekly", "142.31"],
        ["Monthly", "308.33"],
        ["Quarterly", "925.00"],
        ["Annually", "3,700.00"],
    ]
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(42, 60, 290, 760), PROSE * 8, fontsize=10)
    page.insert_text((318, 80), "Amounts for 2011 are:", fontsize=10)
    page.insert_text((480, 100), "One", fontsize=9)
    page.insert_text((323, 111), rows[0][0], fontsize=9)
    page.insert_text((480, 111), "allowance", fontsize=9)
    for r, (label, amount) in enumerate(rows[1:]):
        y = 127 + 16 * r
        page.insert_text((323, y), label, fontsize=9)
        page.insert_text((537 - pymupdf.get_text_length(amount, fontsize=9), y), amount, fontsize=9)
    doc.save(tmp_path / "two-columns.pdf")

    [only] = read(tmp_path / "two-columns.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == rows


def test_a_superscript_touching_its_word_joins_it_in_the_cell(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    rows = [
        ["Country", "", "Capital"],
        ["Austria", "83,879", "Vienna"],
        ["Belgium", "30,689", "Brussels"],
        ["Denmark", "42,951", "Copenhagen"],
        ["Finland", "338,424", "Helsinki"],
    ]
    aligned_table(page, rows, 100)
    pieces = [("Area (km", 10, 0.0), ("2", 7, -3.0), (")", 10, 0.0)]  # km², the 2 set small and raised
    x = 72 + 228 - sum(pymupdf.get_text_length(text, fontsize=size) for text, size, _ in pieces)
    for text, size, rise in pieces:
        page.insert_text((x, 100 + rise), text, fontsize=size)
        x += pymupdf.get_text_length(text, fontsize=size)
    doc.save(tmp_path / "areas.pdf")

    [only] = read(tmp_path / "areas.pdf")
    [table] = only.tables
    assert list(table.cells[0]) == ["Country", "Area (km2)", "Capital"]
    assert list(table.cells[4]) == ["Finland", "338,424", "Helsinki"]


def test_a_header_over_two_lines_with_a_superscript_heads_a_table_of_left_aligned_columns(
    tmp_path: Path,
) -> None:
    """A journal's table: small type, columns set from their left edges, a header over two lines set
    apart from the body, a superscript in one header cell and the last column's header running past its
    numbers."""
    doc = pymupdf.open()
    page = doc.new_page()
    xs, size = (72, 140, 220, 300), 6.5
    heads = [
        ["Inhibitor", "icorr (A/cm", "Polarization", "Corrosion"],
        ["concentration (g)", "", "resistance", "rate (mm/year)"],
    ]
    for line, texts in enumerate(heads):
        for x, text in zip(xs, texts, strict=True):
            page.insert_text((x, 100 + 8.6 * line), text, fontsize=size)
    x = xs[1] + pymupdf.get_text_length("icorr (A/cm", fontsize=size)
    page.insert_text((x, 98.5), "2", fontsize=4.6)
    page.insert_text((x + pymupdf.get_text_length("2", fontsize=4.6), 100), ")", fontsize=size)
    body = [
        ["0", "0.0003", "24.0910", "2.8163"],
        ["2", "0.0002", "121.440", "1.5054"],
        ["4", "0.0001", "42.121", "0.9476"],
        ["6", "5.39E-05", "373.180", "0.4318"],
        ["8", "5.46E-05", "305.650", "0.3772"],
        ["10", "1.24E-05", "246.080", "0.0919"],
    ]
    for r, row in enumerate(body):
        for x, text in zip(xs, row, strict=True):
            page.insert_text((x, 126 + 8.6 * r), text, fontsize=size)
    doc.save(tmp_path / "journal.pdf")

    [only] = read(tmp_path / "journal.pdf")
    [table] = only.tables
    header = [
        "Inhibitor concentration (g)",
        "icorr (A/cm2)",
        "Polarization resistance",
        "Corrosion rate (mm/year)",
    ]
    assert [list(row) for row in table.cells] == [header, *body]
    assert table.header_rows == 1


def rows_ruled_apart(page: pymupdf.Page, rows: list[list[str | list[str]]], left: float, top: float) -> None:
    """Write ``rows`` as a table ruled only between its rows (no column lines, no rule over the header):
    a cell given as a list of lines wraps; each row ends with a rule as wide as the table."""
    widths = (90.0, 60.0, 90.0)
    right = left + sum(widths)
    page.insert_text((left + 4, top + 12), rows[0][0], fontsize=10)  # the header, above the first rule
    for c, cell in enumerate(rows[0][1:], 1):
        page.insert_text((left + sum(widths[:c]) + 4, top + 12), cell, fontsize=10)
    y = top + 18
    page.draw_line((left, y), (right, y), width=0.5)
    for row in rows[1:]:
        lines = [cell if isinstance(cell, list) else [cell] for cell in row]
        for c, cell_lines in enumerate(lines):
            for i, text in enumerate(cell_lines):
                page.insert_text((left + sum(widths[:c]) + 4, y + 14 + 12 * i), text, fontsize=10)
        y += 8 + 12 * max(len(cell_lines) for cell_lines in lines)
        page.draw_line((left, y), (right, y), width=0.5)


def test_rows_ruled_apart_without_column_lines_are_a_table_each(tmp_path: Path) -> None:
    """Two tables side by side whose rows are ruled apart but whose columns are set by blanks only (no
    vertical line anywhere on the page): each is a table, its columns cut at the blanks running down
    every row, its header the line just above its first rule, a wrapped cell one cell."""
    head = ["Animal", "Action", "Result"]
    first = [head, ["Cat", "Says", "Meow"], ["Fox", "Says", ["Ring-ding", "Gering"]]]
    second = [head, ["Dog", "Says", "Woof"], ["Donkey", "Says", ["Hee-Haw", "Haw"]]]
    doc = pymupdf.open()
    page = doc.new_page()
    rows_ruled_apart(page, first, 40, 100)
    rows_ruled_apart(page, second, 310, 100)
    doc.save(tmp_path / "ruled-rows.pdf")

    [only] = read(tmp_path / "ruled-rows.pdf")
    cells = sorted([list(row) for row in table.cells] for table in only.tables)
    assert cells == [
        [["Animal", "Action", "Result"], ["Cat", "Says", "Meow"], ["Fox", "Says", "Ring-ding Gering"]],
        [["Animal", "Action", "Result"], ["Dog", "Says", "Woof"], ["Donkey", "Says", "Hee-Haw Haw"]],
    ]
    assert all("columns_by=blanks" in table.evidence for table in only.tables)


def test_a_booktabs_body_between_two_rules_is_left_to_the_aligned_finder(tmp_path: Path) -> None:
    """A table ruled over its header, under it and under its body (booktabs) holds several rows between
    two rules, one line each in every column: it is no table of one row per band, and the aligned finder
    reads it row by row."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_line((66, 96), (396, 96), width=0.8)
    page.draw_line((66, 116), (396, 116), width=0.5)
    bottom = aligned_table(page, STATEMENT, 110)
    page.draw_line((66, bottom - 6), (396, bottom - 6), width=0.8)
    doc.save(tmp_path / "booktabs.pdf")

    [only] = read(tmp_path / "booktabs.pdf")
    [table] = only.tables
    assert table.source == TableSource.ALIGNED.value and len(table.cells) == len(STATEMENT)


def test_a_mark_of_no_width_does_not_stretch_its_word_across_a_cell_border() -> None:
    """Words made again from a line's characters take their box from the characters that have a width:
    a tanween placed at the previous cell's text (as camelot__arabic.pdf's producer sets it) stays in its
    word without carrying the word's centre over the border."""
    from readers.pdf.ruled_cells import _words_of_chars

    chars = [
        (477.0, 98.0, 484.0, 114.0, "ن"),
        (473.0, 98.0, 477.0, 114.0, "\xa0"),
        (477.0, 98.0, 477.0, 114.0, "\u064b"),  # the mark: no width, far right of its letters
        (295.0, 98.0, 300.0, 114.0, "م"),
        (288.0, 98.0, 295.0, 114.0, "ر"),
        (270.0, 98.0, 274.0, 114.0, "\xa0"),
        (260.0, 98.0, 268.0, 114.0, "؟"),
    ]
    assert _words_of_chars(chars) == [
        (477.0, 98.0, 484.0, 114.0, "ن"),
        (288.0, 98.0, 300.0, 114.0, "\u064bمر"),
        (260.0, 98.0, 268.0, 114.0, "؟"),
    ]


@pytest.mark.corpus
def test_a_right_to_left_ruled_table_keeps_each_cell_in_its_column() -> None:
    """camelot__arabic.pdf: the first row's left cell (its word's box stretched over the border by a mark
    of no width) stays in its column, and a question mark the TextPage makes a word of stays on its word."""
    from tests.conftest import CORPUS

    path = CORPUS / "tables" / "pdf" / "camelot__arabic.pdf"
    if not path.exists():
        pytest.skip(f"tables corpus not found at {path.parent}")
    [page] = read(path)
    [table] = page.tables
    cells = [[unicodedata.normalize("NFKC", cell) for cell in row] for row in table.cells]
    assert cells[0] == ["\u064bمرحبا", "اسمي سلطان"]
    assert cells[1][1] == "من اين انت؟"


def test_entries_spaced_apart_under_rules_of_sections_are_no_table(tmp_path: Path) -> None:
    """A CV's sections, each a heading over a rule as wide as the page's column, hold entries a line apart
    with a date at the right: the rules make a stack, but its bands are no rows (their lines are spaced
    apart, not a wrapped cell), so no table is read from them."""
    doc = pymupdf.open()
    page = doc.new_page()
    y = 80.0
    for heading, entries in (("Certificates", 4), ("Languages", 2), ("Skills", 1)):
        page.insert_text((234, y), heading, fontsize=10)
        page.draw_line((234, y + 6), (542, y + 6), width=0.5)
        y += 26
        for i in range(entries):
            page.insert_text((234, y), f"Entry {i} of {heading.lower()}", fontsize=8)
            page.insert_text((492, y), f"2019-0{i + 1}", fontsize=8)
            y += 18
        y += 14
    doc.save(tmp_path / "cv.pdf")

    [only] = read(tmp_path / "cv.pdf")
    assert not [table for table in only.tables if "columns_by=blanks" in table.evidence]


def test_a_two_level_header_over_close_columns_heads_each_column(tmp_path: Path) -> None:
    """Columns of amounts set closer than a font size apart under a header over three lines, whose group
    labels ("Revenue", "Capital") are centred over two columns each: every column is its own, each header
    is one cell joined over its lines with its group's label, the unit above the header and the title stay
    text, and the totals row set apart under the body stays in the table."""
    doc = pymupdf.open()
    page = doc.new_page()
    size = 9.0
    rights = [200.0, 250.0, 300.0, 350.0, 400.0]  # right edges of the five columns of amounts

    def right(text: str, x: float, y: float) -> None:
        page.insert_text((x - pymupdf.get_text_length(text, fontsize=size), y), text, fontsize=size)

    def centre(text: str, x: float, y: float) -> None:
        page.insert_text((x - pymupdf.get_text_length(text, fontsize=size) / 2, y), text, fontsize=size)

    page.insert_text((72, 60), "Table 5: Public Health Outlay", fontsize=14)
    right("(Rs. in 000)", rights[-1], 80)
    mids = [r - 22 for r in rights]  # the middle of each column of amounts
    head = [
        ["Revenue", "", "Capital", "", "Total"],
        ["Medical", "Family", "Medical", "Family", "Outlay"],
        ["Health", "Welfare", "Health", "Welfare", ""],
    ]
    page.insert_text((72, 100), "States", fontsize=size)
    centre("Revenue", (mids[0] + mids[1]) / 2, 100)
    centre("Capital", (mids[2] + mids[3]) / 2, 100)
    for line, cells in enumerate(head):
        for column, text in enumerate(cells):
            if text and (line or column == 4):
                centre(text, mids[column], 100 + 10 * line)
    body = [
        ["Andhra Pradesh", "47,824,589", "9,967,837", "1,275,000", "15,000", "59,082,426"],
        ["Assam", "14,874,821", "2,554,197", "161,600", "0", "17,590,618"],
        ["Bihar", "21,016,708", "4,332,141", "5,329,000", "0", "30,677,849"],
        ["Goa", "4,055,567", "110,000", "330,053", "0", "4,495,620"],
        ["Kerala", "27,923,965", "3,985,473", "929,503", "0", "32,838,941"],
    ]
    totals = ["All States", "75,695,650", "9,949,648", "8,025,156", "15,000", "94,685,454"]
    y = 140.0
    for row in [*body, None, totals]:
        if row is not None:
            page.insert_text((72, y), row[0], fontsize=size)
            for column, amount in enumerate(row[1:]):
                right(amount, rights[column], y)
        y += 14
    doc.save(tmp_path / "outlay.pdf")

    [only] = read(tmp_path / "outlay.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == [
        [
            "States",
            "Revenue Medical Health",
            "Revenue Family Welfare",
            "Capital Medical Health",
            "Capital Family Welfare",
            "Total Outlay",
        ],
        *body,
        totals,
    ]
    before = only.text.split(table.markdown)[0]
    assert "Table 5: Public Health Outlay" in before and "(Rs. in 000)" in before


def test_a_one_line_header_level_with_a_two_line_one_heads_its_own_column_only(tmp_path: Path) -> None:
    """A header of one line ("Nombre") set level between the two lines of "Clave / Entidad" and "Clave /
    Municipio" is no group's label over them: each column keeps its own header."""
    doc = pymupdf.open()
    page = doc.new_page()
    xs = [72.0, 160.0, 260.0, 400.0]
    head = {0: ("Clave", "Entidad"), 2: ("Clave", "Municipio")}
    for column, (top, bottom) in head.items():
        page.insert_text((xs[column], 100), top, fontsize=9)
        page.insert_text((xs[column], 114), bottom, fontsize=9)
    page.insert_text((xs[1] + 7, 107), "Nombre", fontsize=9)
    page.insert_text((xs[3], 107), "Poblado", fontsize=9)
    body = [
        ["01", "Aguascalientes", "001", "Granja Adelita"],
        ["01", "Aguascalientes", "001", "Agua Azul"],
        ["02", "Baja California", "002", "Rancho Alegre"],
        ["02", "Baja California", "004", "Los Arcos"],
    ]
    for r, row in enumerate(body):
        for column, text in enumerate(row):
            page.insert_text((xs[column], 130 + 12 * r), text, fontsize=9)
    doc.save(tmp_path / "towns.pdf")

    [only] = read(tmp_path / "towns.pdf")
    [table] = only.tables
    assert list(table.cells[0]) == ["Clave Entidad", "Nombre", "Clave Municipio", "Poblado"]


@pytest.mark.parametrize("header", [False, True])
def test_a_table_printed_in_two_halves_side_by_side_reads_as_one_left_half_first(
    tmp_path: Path, header: bool
) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    for first, count, left in ((1, 24, 60.0), (25, 20, 250.0)):
        if header:
            for column, name in enumerate(("Item", "Low", "High")):
                page.insert_text((left + 40 * column, 62), name, fontsize=10)
        for row in range(count):
            y = 80 + 14 * row
            for column, value in enumerate((first + row, 99 + first + row, 199 + first + row)):
                page.insert_text((left + 40 * column, y), str(value), fontsize=10)
    doc.save(tmp_path / "halves.pdf")

    [only] = read(tmp_path / "halves.pdf")
    [table] = only.tables
    body = [list(row) for row in table.cells[table.header_rows :]]
    assert table.columns == 3 and len(body) == 44
    assert body[23] == ["24", "123", "223"] and body[24] == ["25", "124", "224"]
    assert [list(row) for row in table.cells[: table.header_rows]] == (
        [["Item", "Low", "High"]] if header else []
    )
    assert only.text.index("| 24 | 123 | 223 |") < only.text.index("| 25 | 124 | 224 |")


def test_a_footer_rule_under_a_table_with_open_sides_does_not_stretch_its_last_row(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    xs = [72.0, 200.0, 300.0, 400.0]
    rows = [["Crop", "2012", "2013"], *([f"Crop {i}", f"{i},4", f"{i + 1},7"] for i in range(1, 14))]
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            page.insert_text((xs[c] + 4, 100 + 18 * r + 13), cell, fontsize=10)
        for x in xs[1:-1]:  # column rules inside each row, none on the table's outer sides
            page.draw_line((x, 100 + 18 * r + 1), (x, 100 + 18 * r + 17), width=0.5)
    bottom = 100 + 18 * len(rows)
    for r in range(len(rows) + 1):
        page.draw_line((xs[0], 100 + 18 * r), (xs[-1], 100 + 18 * r), width=0.5)
    page.insert_text((72, bottom + 10), "SOURCE: the survey", fontsize=8)
    page.insert_text((72, bottom + 45), "3. Yield estimate", fontsize=12)
    page.insert_text((72, bottom + 65), "The estimated yield is higher than in the year before.", fontsize=10)
    page.draw_line((xs[0], bottom + 150), (xs[-1], bottom + 150), width=0.5)  # the footer's rule
    page.insert_text((72, bottom + 162), "Followup of the crops", fontsize=8)
    doc.save(tmp_path / "open.pdf")

    [only] = read(tmp_path / "open.pdf")
    [table] = only.tables
    assert [list(row) for row in table.cells] == rows
    text = only.text
    assert text.index("| Crop 13 |") < text.index("SOURCE: the survey") < text.index("3. Yield")


def test_a_small_table_ruled_off_from_its_neighbour_is_found_beside_it(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()

    def centred(text: str, middle: float, y: float) -> None:
        page.insert_text((middle - pymupdf.get_text_length(text, fontsize=9) / 2, y), text, fontsize=9)

    def right(text: str, edge: float, y: float) -> None:
        page.insert_text((edge - pymupdf.get_text_length(text, fontsize=9), y), text, fontsize=9)

    # Attendance: a header over all but the row labels, "Absent" filling only its last column; a
    # header set off-centre over its only value.
    for text, middle in (("Identified", 120), ("Unidentified", 194)):
        centred(text, middle, 200)
    right("Total", 283, 200)
    page.insert_text((21, 214), "Present", fontsize=9)
    centred("217", 119, 214)
    centred("0", 188, 214)
    right("217", 283, 214)
    page.insert_text((21, 228), "Absent", fontsize=9)
    right("40", 283, 228)
    page.draw_line((288, 188), (288, 250), width=0.5)  # the rule between it and the tally
    for y, label, numbers in (
        (214, "Votes for", ("129", "0", "129")),
        (228, "Votes against", ("65", "0", "65")),
    ):
        page.insert_text((293, y), label, fontsize=9)
        for edge, number in zip((398, 451, 559), numbers, strict=True):
            right(number, edge, y)
    page.insert_text((293, 242), "Abstentions", fontsize=9)
    right("22", 398, 242)
    right("22", 559, 242)
    doc.save(tmp_path / "tally.pdf")

    [only] = read(tmp_path / "tally.pdf")
    attendance = [[list(row) for row in t.cells] for t in only.tables if t.bbox[2] < 288]
    assert attendance == [
        [
            ["", "Identified", "Unidentified", "Total"],
            ["Present", "217", "0", "217"],
            ["Absent", "", "", "40"],
        ]
    ]


def test_columns_ruled_only_by_breaks_in_the_rules_are_found(tmp_path: Path) -> None:
    """A statement whose rules are drawn cell by cell with no column lines, the latest year's cells shaded
    boxes, the yen signs in columns of their own, a heading row ruled only across the shaded cells: its
    columns are found where the rules break, each sign joins its amount, and each label stands level with
    its amounts."""
    xs = [72.0, 300.0, 312.0, 372.0, 382.0, 442.0]  # label | yen | 2020 | yen | 2021
    rows = [
        ["Net profit", "¥", "233,512", "¥", "201,683"],
        ["Other comprehensive income", "", "", "", ""],
        ["Cash flow hedges", "", "20", "", "92"],
        ["Comprehensive income", "¥", "124,762", "¥", "415,954"],
    ]
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    top, height = 114.0, 20.0
    page.draw_rect(pymupdf.Rect(xs[3], 100, xs[5], top), color=None, fill=(0.3, 0.3, 0.3))
    page.insert_text((xs[2] + 20, 111), "2020", fontsize=9)
    page.insert_text((xs[4] + 20, 111), "2021", fontsize=9)
    for x0, x1 in pairwise(xs[1:]):  # the header's rule, over the amounts only
        page.draw_line((x0, 100), (x1, 100), width=0.5)
    for r, row in enumerate(rows):
        y0 = top + r * height
        for x0, x1 in pairwise(xs[3:]):  # the shaded cells of 2021
            page.draw_rect(pymupdf.Rect(x0, y0, x1, y0 + height), color=None, fill=(0.9, 0.93, 0.97))
        page.insert_text((xs[0] + 4, y0 + 13), row[0], fontsize=9)
        for c in range(1, 5):
            if row[c]:
                page.insert_text(
                    (xs[c + 1] - 3 - pymupdf.get_text_length(row[c], fontsize=9), y0 + 13), row[c], fontsize=9
                )
    for r in range(len(rows) + 1):
        if r == 2:  # under the heading row: the shaded cells' own borders only
            continue
        for x0, x1 in pairwise(xs):  # each row's rule drawn cell by cell
            page.draw_line((x0, top + r * height), (x1, top + r * height), width=0.5)
    doc.save(tmp_path / "statement.pdf")

    [only] = read(tmp_path / "statement.pdf")
    [table] = only.tables
    assert table.source == TableSource.RULED.value
    assert [list(row) for row in table.cells] == [
        ["", "2020", "2021"],
        ["Net profit", "¥ 233,512", "¥ 201,683"],
        ["Other comprehensive income", "", ""],
        ["Cash flow hedges", "20", "92"],
        ["Comprehensive income", "¥ 124,762", "¥ 415,954"],
    ]
