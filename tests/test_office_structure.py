"""What Office files hold beyond runs of text: a sheet's separate tables and the charts of workbooks and
presentations, written as text.

Every fixture is generated here: openpyxl writes the workbooks and their charts (with the value caches
Excel stores on saving filled in from the cells), python-pptx the presentations; broken variants are the
same packages with one part removed or rewritten.
"""

from __future__ import annotations

import io
import re
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl.chart import BarChart, LineChart, PieChart, Reference
from openpyxl.chart.data_source import AxDataSource, NumData, NumVal, StrData, StrRef, StrVal
from openpyxl.utils.cell import range_boundaries
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Inches

from readers.archives.safezip import parse_xml
from readers.core.errors import LimitExceeded
from readers.core.markup import text_tables
from readers.core.model import ReadLimits
from readers.office.charts import MAX_POINTS, chart_lines
from readers.office.pptx import PptxReader
from readers.office.regions import MAX_REGIONS, GridRow, sheet_regions, sheet_tables
from readers.office.xlsx import MAX_CELLS, XlsxReader

LIMITS = ReadLimits()


def _save(workbook: openpyxl.Workbook, path: Path) -> Path:
    workbook.save(path)
    return path


def _rewrite(path: Path, changes: dict[str, Callable[[bytes], bytes] | None]) -> Path:
    """The package at ``path`` with members rewritten (a function of their bytes) or removed (None)."""
    with zipfile.ZipFile(path) as src:
        members = [(info.filename, src.read(info.filename)) for info in src.infolist()]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for name, data in members:
            if name in changes:
                change = changes[name]
                if change is None:
                    continue
                data = change(data)
            dst.writestr(name, data)
    target = path.with_name("changed-" + path.name)
    target.write_bytes(out.getvalue())
    return target


# --------------------------------------------------------------------------------------------------------
# Sheet regions


def test_side_by_side_tables_under_their_own_titles(tmp_path: Path) -> None:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Two"
    sheet["A1"] = "Staff"
    for row in (["Name", "Age"], ["Ann", 31], ["Bob", 40]):
        sheet.append(row)
    sheet["D1"] = "Stock"
    sheet.merge_cells("D1:E1")  # a merged title: one text over the table's columns
    for r, row in enumerate((["Item", "Qty"], ["pens", 3], ["ink", 12], ["paper", 500]), start=2):
        sheet.cell(r, 4, row[0])
        sheet.cell(r, 5, row[1])
    text = XlsxReader().read(_save(workbook, tmp_path / "two.xlsx"), LIMITS).text
    assert text.split("\n\n") == [
        "## Two\nStaff\n| Name | Age |\n| --- | --- |\n| Ann | 31 |\n| Bob | 40 |",
        "Stock\n| Item | Qty |\n| --- | --- |\n| pens | 3 |\n| ink | 12 |\n| paper | 500 |",
    ]


def test_tables_stacked_with_blank_rows_and_a_spacer_column_inside_one() -> None:
    rows = [
        GridRow(0, {0: "Results"}),
        GridRow(1, {0: "Zone", 1: "Sales", 3: "Profit"}),  # column C is a spacer inside the table
        GridRow(2, {0: "North", 1: "10", 3: "2"}),
        GridRow(4, {0: "South", 1: "12", 3: "(3)"}),  # after a blank row: more of the same table
        GridRow(7, {0: "Code", 1: "Meaning"}),  # a header row after blank rows: a new table
        GridRow(8, {0: "N", 1: "North zone"}),
    ]
    assert sheet_tables(rows) == [
        "Results",
        "| Zone | Sales | Profit |",
        "| --- | --- | --- |",
        "| North | 10 | 2 |",
        "| South | 12 | (3) |",
        "",
        "| Code | Meaning |",
        "| --- | --- |",
        "| N | North zone |",
    ]


def test_two_titled_tables_two_blank_columns_apart_stay_two() -> None:
    rows = [
        GridRow(0, {0: "Sales by region", 4: "Staff by office"}),  # a blank row under each title
        GridRow(2, {0: "Region", 1: "Sales", 4: "Office", 5: "Staff"}),  # columns C and D blank
        GridRow(3, {0: "Alps", 1: "120", 4: "Lyon", 5: "12"}),
        GridRow(4, {0: "Coast", 1: "340", 4: "Nantes", 5: "7"}),
    ]
    assert sheet_tables(rows) == [
        *("Sales by region", "| Region | Sales |", "| --- | --- |", "| Alps | 120 |", "| Coast | 340 |", ""),
        *("Staff by office", "| Office | Staff |", "| --- | --- |", "| Lyon | 12 |", "| Nantes | 7 |"),
    ]


def test_a_one_column_region_is_its_lines() -> None:
    rows = [
        GridRow(0, {0: "Name", 1: "Qty"}),
        GridRow(1, {0: "pens", 1: "3"}),
        GridRow(3, {0: "(a) Counted in June."}),
        GridRow(4, {0: "(b) Estimated."}),
    ]
    assert sheet_tables(rows) == [
        "| Name | Qty |",
        "| --- | --- |",
        "| pens | 3 |",
        "",
        "(a) Counted in June.",
        "(b) Estimated.",
    ]


def test_scattered_cells_past_the_region_bound_are_one_table() -> None:
    side = int((MAX_REGIONS + 1) ** 0.5) + 1
    rows = [GridRow(2 * r, {2 * c: f"v{r}.{c}" for c in range(side)}) for r in range(side)]
    started = time.perf_counter()
    regions = sheet_regions(rows)
    assert len(regions) == 1
    assert time.perf_counter() - started < 2.0
    assert sum(len(r.cells) for r in regions[0].rows) == side * side


def test_a_sheet_of_many_small_tables_is_read_in_time() -> None:
    """Just under the region bound, blocks beside and below each other, some a spacer apart: the
    joins are looked up, not tried pair by pair."""
    cells: dict[int, dict[int, str]] = {}
    count = 0
    for band in range(31):
        for block in range(32):
            gap = 2 if block % 2 else 4  # alternately spacers (joined) and gaps between tables
            left = block * (2 + 3) + (gap - 3)
            cells.setdefault(3 * band, {}).update({left: f"h{count}a", left + 1: f"h{count}b"})
            cells.setdefault(3 * band + 1, {}).update({left: f"{count}", left + 1: f"{count + 1}"})
            count += 2
    rows = [GridRow(n, cells[n]) for n in sorted(cells)]
    started = time.perf_counter()
    regions = sheet_regions(rows)
    assert time.perf_counter() - started < 2.0
    assert MAX_REGIONS // 4 < len(regions) < MAX_REGIONS
    assert sum(len(r.cells) for region in regions for r in region.rows) == 4 * 31 * 32


def test_a_sheet_over_the_cell_bound_is_refused(tmp_path: Path) -> None:
    """Each row claims a cell in the last column, so every row costs 16,384 cells: the bound holds on
    what openpyxl pads, not on what is filled."""
    workbook = openpyxl.Workbook()
    workbook.active["A1"] = "x"
    path = _save(workbook, tmp_path / "wide.xlsx")
    rows_needed = MAX_CELLS // 16_384 + 2
    body = "".join(
        f'<row r="{r}"><c r="XFD{r}" t="inlineStr"><is><t>v</t></is></c></row>' for r in range(1, rows_needed)
    )

    def wide(data: bytes) -> bytes:
        return re.sub(
            rb"<sheetData>.*</sheetData>|<sheetData/>", f"<sheetData>{body}</sheetData>".encode(), data
        )

    with pytest.raises(LimitExceeded, match="cells"):
        XlsxReader().read(_rewrite(path, {"xl/worksheets/sheet1.xml": wide}), LIMITS)


@st.composite
def _block_layouts(draw: st.DrawFn) -> list[tuple[int, int, list[list[str]]]]:
    """Blocks (top, left, rows) on a sheet, a header row of text each, separated by blank rows and
    columns: laid out in bands of blocks side by side, each block at its own height in its band."""
    blocks: list[tuple[int, int, list[list[str]]]] = []
    counter = iter(range(10**6))
    top = 0
    for _ in range(draw(st.integers(1, 3))):
        left = 0
        band_bottom = top
        for _ in range(draw(st.integers(1, 3))):
            width = draw(st.integers(2, 4))
            height = draw(st.integers(2, 5))
            offset = draw(st.integers(0, 2))
            header = [f"h{next(counter)}x" for _ in range(width)]
            body = [[f"v{next(counter)}x" for _ in range(width)] for _ in range(height - 1)]
            blocks.append((top + offset, left, [header, *body]))
            band_bottom = max(band_bottom, top + offset + height)
            left += width + draw(st.integers(3, 4))  # wider than a spacer: separate tables
        top = band_bottom + draw(st.integers(2, 3))
    return blocks


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_block_layouts())
def test_every_value_once_under_its_own_blocks_header(blocks: list[tuple[int, int, list[list[str]]]]) -> None:
    cells: dict[int, dict[int, str]] = {}
    for top, left, rows in blocks:
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                cells.setdefault(top + r, {})[left + c] = value
    text = "\n".join(sheet_tables([GridRow(n, cells[n]) for n in sorted(cells)]))
    tables = {found[0]: found[1:] for _, found in text_tables(text)}
    assert len(tables) == len(blocks)
    for _, _, rows in blocks:
        for row in rows[1:]:
            for value in row:
                assert len(re.findall(rf"\b{value}\b", text)) == 1, value
        assert tables[tuple(rows[0])] == tuple(tuple(row) for row in rows[1:]), "each row under its header"


# --------------------------------------------------------------------------------------------------------
# Charts in workbooks


def _cache(chart: object, sheet: object) -> None:
    """Fill in a chart's value caches from the cells its references name, as Excel does on saving
    (openpyxl writes the references alone)."""

    def values(ref: str) -> list[object]:
        min_col, min_row, max_col, max_row = range_boundaries(ref.split("!", 1)[1].replace("$", ""))
        rows = sheet.iter_rows(  # type: ignore[attr-defined]
            min_row=min_row, max_row=max_row, min_col=min_col, max_col=max_col, values_only=True
        )
        return [value for row in rows for value in row]

    for series in chart.series:  # type: ignore[attr-defined]
        if series.tx is not None and series.tx.strRef is not None:
            name = values(series.tx.strRef.f)
            series.tx.strRef.strCache = StrData(ptCount=1, pt=[StrVal(idx=0, v=str(name[0]))])
        if series.val is not None and series.val.numRef is not None:
            nums = values(series.val.numRef.f)
            series.val.numRef.numCache = NumData(
                ptCount=len(nums), pt=[NumVal(idx=i, v=v) for i, v in enumerate(nums)]
            )
        if series.cat is not None and series.cat.numRef is not None:
            ref = series.cat.numRef.f
            labels = values(ref)
            series.cat = AxDataSource(
                strRef=StrRef(
                    f=ref,
                    strCache=StrData(
                        ptCount=len(labels), pt=[StrVal(idx=i, v=str(v)) for i, v in enumerate(labels)]
                    ),
                )
            )


def _chart_workbook(tmp_path: Path, *, cached: bool = True) -> Path:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Data"
    for row in (["Quarter", "Revenue", "Cost"], ["Q1", 10, 7], ["Q2", 12, 8], ["Q3", 9.5, 8]):
        sheet.append(row)
    bar = BarChart()
    bar.title = "Quarterly revenue"
    bar.add_data(Reference(sheet, min_col=2, min_row=1, max_col=3, max_row=4), titles_from_data=True)
    bar.set_categories(Reference(sheet, min_col=1, min_row=2, max_row=4))
    pie = PieChart()
    pie.title = "Cost share"
    pie.add_data(Reference(sheet, min_col=3, min_row=1, max_row=4), titles_from_data=True)
    pie.set_categories(Reference(sheet, min_col=1, min_row=2, max_row=4))
    if cached:
        _cache(bar, sheet)
        _cache(pie, sheet)
    sheet.add_chart(pie, "E20")  # lower on the sheet: read second
    sheet.add_chart(bar, "E2")
    sheet_chart = workbook.create_chartsheet("Trend")
    sheet_chart.sheet_state = "hidden"
    line = LineChart()
    line.title = "Revenue trend"
    line.add_data(Reference(sheet, min_col=2, min_row=1, max_row=4), titles_from_data=True)
    line.set_categories(Reference(sheet, min_col=1, min_row=2, max_row=4))
    if cached:
        _cache(line, sheet)
    sheet_chart.add_chart(line)
    return _save(workbook, tmp_path / "charts.xlsx")


def test_a_chart_on_a_sheet_follows_its_cells_in_reading_order(tmp_path: Path) -> None:
    page = XlsxReader().read(_chart_workbook(tmp_path), LIMITS).pages[0].text
    tables, bar, pie = page.split("\n\n")
    assert tables.splitlines()[-1] == "| Q3 | 9.5 | 8 |"
    assert bar.splitlines() == [
        "Chart: Quarterly revenue (bar)",
        "Series Revenue: Q1 = 10; Q2 = 12; Q3 = 9.5",
        "Series Cost: Q1 = 7; Q2 = 8; Q3 = 8",
    ]
    assert pie.splitlines() == ["Chart: Cost share (pie)", "Series Cost: Q1 = 7; Q2 = 8; Q3 = 8"]


def test_a_chart_sheet_is_its_charts_text(tmp_path: Path) -> None:
    result = XlsxReader().read(_chart_workbook(tmp_path), LIMITS)
    assert result.pages[1].text == (
        "## Trend (chart) (hidden)\nChart: Revenue trend (line)\nSeries Revenue: Q1 = 10; Q2 = 12; Q3 = 9.5"
    )


def test_a_chart_without_caches_is_its_title_only(tmp_path: Path) -> None:
    result = XlsxReader().read(_chart_workbook(tmp_path, cached=False), LIMITS)
    assert "Chart: Quarterly revenue (bar)" in result.pages[0].text
    assert "Series" not in result.text  # references alone are never evaluated
    assert result.pages[1].text == "## Trend (chart) (hidden)\nChart: Revenue trend (line)"


@pytest.mark.parametrize(
    "change",
    [
        None,  # the part is missing
        lambda data: data[: len(data) // 2],  # cut: not well-formed
        lambda data: b"<chartSpace xmlns='urn:not-a-chart'/>",  # a root of another kind
    ],
    ids=["missing", "truncated", "foreign"],
)
def test_a_broken_chart_part_leaves_the_rest_of_the_workbook(
    tmp_path: Path, change: Callable[[bytes], bytes] | None
) -> None:
    good = _chart_workbook(tmp_path)
    with zipfile.ZipFile(good) as package:
        charts = sorted(n for n in package.namelist() if n.startswith("xl/charts/"))
    broken = _rewrite(good, dict.fromkeys(charts, change))
    result = XlsxReader().read(broken, LIMITS)
    assert "Chart" not in result.text
    assert result.pages[0].text.splitlines()[-1] == "| Q3 | 9.5 | 8 |"
    assert result.pages[1].text == "## Trend (chart) (hidden)"


def test_a_broken_drawing_or_relationship_leaves_the_rest(tmp_path: Path) -> None:
    good = _chart_workbook(tmp_path)
    broken = _rewrite(
        good,
        {
            "xl/drawings/drawing1.xml": lambda data: b"not xml",
            "xl/chartsheets/_rels/sheet1.xml.rels": lambda data: b"<Relationships",
        },
    )
    result = XlsxReader().read(broken, LIMITS)
    assert "Chart" not in result.text
    assert result.page_count == 2


def test_chart_parts_by_their_xml() -> None:
    c = "http://schemas.openxmlformats.org/drawingml/2006/chart"
    many = "".join(f'<c:pt idx="{i}"><c:v>{i}</c:v></c:pt>' for i in range(MAX_POINTS + 3))
    xml = f"""<c:chartSpace xmlns:c="{c}"><c:chart><c:plotArea>
      <c:lineChart><c:ser><c:tx><c:v>Literal name</c:v></c:tx>
        <c:val><c:numLit><c:ptCount val="999999999"/><c:pt idx="2"><c:v>5.300000000000001</c:v></c:pt>
          <c:pt idx="0"><c:v>3</c:v></c:pt><c:pt idx="x"><c:v>9</c:v></c:pt></c:numLit></c:val></c:ser>
        <c:ser><c:val><c:numRef><c:f>Sheet1!A1:A9</c:f></c:numRef></c:val></c:ser>
        <c:ser><c:val><c:numRef><c:numCache>{many}</c:numCache></c:numRef></c:val></c:ser></c:lineChart>
      <c:barChart><c:ser><c:cat><c:multiLvlStrRef><c:multiLvlStrCache>
          <c:lvl><c:pt idx="0"><c:v>Jan</c:v></c:pt></c:lvl>
          <c:lvl><c:pt idx="0"><c:v>2024</c:v></c:pt></c:lvl>
        </c:multiLvlStrCache></c:multiLvlStrRef></c:cat>
        <c:val><c:numRef><c:numCache><c:pt idx="0"><c:v>1.5</c:v></c:pt></c:numCache></c:numRef></c:val>
      </c:ser>
      </c:barChart></c:plotArea></c:chart></c:chartSpace>"""
    lines = chart_lines(parse_xml(xml.encode()))
    assert lines[0] == "Chart (line, bar)"  # no title: the types alone
    # points in index order, a bad index skipped, a number without its float noise
    assert lines[1] == "Series Literal name: 3; 5.3"
    assert lines[2].startswith("Series 3: 0; 1; 2; ") and lines[2].endswith(
        "; (3 more)"
    )  # series 2 had no cache
    assert lines[3] == "Series 4: Jan = 1.5"
    assert len(lines) == 4
    assert chart_lines(parse_xml(f'<c:chartSpace xmlns:c="{c}"><c:chart/></c:chartSpace>'.encode())) == []


#: Labels as the writer shows them: words of letters, digits and signs, one space between.
_WORD = st.text(alphabet="abcxyzABC019-=;%", min_size=1, max_size=5)
_LABEL = st.lists(_WORD, min_size=1, max_size=3).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_LABEL, min_size=1, max_size=8, unique=True),
    st.lists(st.tuples(_LABEL, st.lists(st.integers(-(10**6), 10**6), min_size=8, max_size=8)), max_size=4),
)
def test_every_cached_point_is_written_beside_its_category(
    categories: list[str], series: list[tuple[str, list[int]]]
) -> None:
    c = "http://schemas.openxmlformats.org/drawingml/2006/chart"

    def cache(tag: str, values: list[object]) -> str:
        points = "".join(f'<c:pt idx="{i}"><c:v>{v}</c:v></c:pt>' for i, v in enumerate(values))
        return f'<c:{tag}><c:ptCount val="{len(values)}"/>{points}</c:{tag}>'

    sers = "".join(
        f"<c:ser><c:tx><c:strRef>{cache('strCache', [name])}</c:strRef></c:tx>"
        f"<c:cat><c:strRef>{cache('strCache', list(categories))}</c:strRef></c:cat>"
        f"<c:val><c:numRef>{cache('numCache', values[: len(categories)])}</c:numRef></c:val></c:ser>"
        for name, values in series
    )
    plot = f"<c:plotArea><c:areaChart>{sers}</c:areaChart></c:plotArea>"
    xml = f'<c:chartSpace xmlns:c="{c}"><c:chart>{plot}</c:chart></c:chartSpace>'
    lines = chart_lines(parse_xml(xml.encode()))
    if not series:
        assert lines == []
        return
    assert lines[0] == "Chart (area)"
    for line, (name, values) in zip(lines[1:], series, strict=True):
        assert line == f"Series {name}: " + "; ".join(
            f"{category} = {value}" for category, value in zip(categories, values, strict=False)
        )


# --------------------------------------------------------------------------------------------------------
# Charts in presentations


def test_a_slides_chart_in_reading_order(tmp_path: Path) -> None:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Results"
    data = CategoryChartData()
    data.categories = ["Q1", "Q2", "Q3"]
    data.add_series("Revenue", (10, 12, 9.5))
    data.add_series("Cost", (7, 8, 8))
    below = slide.shapes.add_textbox(Inches(1), Inches(6.5), Inches(4), Inches(0.5))
    below.text_frame.text = "Below the chart"
    frame = slide.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(6), Inches(4), data
    )
    frame.chart.has_title = True
    frame.chart.chart_title.text_frame.text = "Quarterly revenue"
    pie_data = CategoryChartData()
    pie_data.categories = ["North", "South"]
    pie_data.add_series("Share", (0.6, 0.4))
    slide.shapes.add_chart(XL_CHART_TYPE.PIE, Inches(7), Inches(2), Inches(2), Inches(2), pie_data)
    deck.save(tmp_path / "deck.pptx")
    text = PptxReader().read(tmp_path / "deck.pptx", LIMITS).text
    assert text.split("\n\n") == [
        "## Slide 1: Results",
        "Chart: Quarterly revenue (bar)\n"
        "Series Revenue: Q1 = 10; Q2 = 12; Q3 = 9.5\n"
        "Series Cost: Q1 = 7; Q2 = 8; Q3 = 8",
        "Chart (pie)\nSeries Share: North = 0.6; South = 0.4",
        "Below the chart",
    ]


def test_a_chart_that_is_not_well_formed_leaves_the_rest_of_the_deck_read(tmp_path: Path) -> None:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Results"
    data = CategoryChartData()
    data.categories = ["Q1", "Q2"]
    data.add_series("Revenue", (10, 12))
    slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(4), Inches(3), data)
    good = deck.slides.add_slide(deck.slide_layouts[1])
    good.shapes.title.text = "Outlook"
    good.placeholders[1].text = "Unit consumption fell in the south."
    deck.save(tmp_path / "deck.pptx")
    broken = tmp_path / "broken.pptx"
    with zipfile.ZipFile(tmp_path / "deck.pptx") as source, zipfile.ZipFile(broken, "w") as copy:
        for item in source.infolist():
            data_bytes = source.read(item)
            if item.filename.startswith("ppt/charts/chart"):
                data_bytes = data_bytes[: len(data_bytes) // 2]  # cut off mid-element, as a torn write
            copy.writestr(item, data_bytes)
    pages = PptxReader().read(broken, LIMITS).pages
    assert [p.text for p in pages] == [
        "## Slide 1: Results",
        "## Slide 2: Outlook\n\n- Unit consumption fell in the south.",
    ]


# --------------------------------------------------------------------------------------------------------
# The shared corpus


@pytest.mark.corpus
def test_the_corpus_workbooks_tables_keep_their_own_headers() -> None:
    from tests.conftest import CORPUS, corpus_manifest

    corpus_manifest()
    subtables = XlsxReader().read(CORPUS / "dev" / "unst__xlsx-subtable-cases.xlsx", LIMITS).text
    tables = subtables.split("\n\n")
    assert len(tables) == 13  # the sheet's 13 blocks, each its own table
    assert "| a |  |" not in subtables and "| b |  |" not in subtables  # no table's title as another's row
    assert "a\n| b | c |\n| --- | --- |\n| d | e |\n|  | f |\n\n" in subtables  # a short last row kept
    index = XlsxReader().read(CORPUS / "dev" / "unst__vodafone.xlsx", LIMITS).text
    # the page column beyond a spacer column stays in its table; section titles are not rows
    assert "| Mobile customers | Nine quarters to 30 June 2023 | 6 |" in index
    assert "\n\nOperational metrics\n| Topic | Period | Page |\n" in index
    segments = XlsxReader().read(CORPUS / "dev" / "unst__2023-half-year-analyses-by-segment.xlsx", LIMITS)
    first = segments.pages[0].text
    assert "\n| Total | 46,293 | 7,904 |" in first
    assert "\n(a) Inter-segment sales are not significant.\n(b) Trading" in first  # footnotes as lines
