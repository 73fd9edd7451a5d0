"""Documents written in code, each with the facts a reader sees on it, declared beside its writer.

    write_generated(folder) -> list[Fact]

PyMuPDF writes the PDFs (a two-column page, a three-column page, a page with a running head, footer,
page number and DOI line, an unruled whitespace-aligned table, a ruled table); python-docx, openpyxl
and python-pptx write the Office files (a DOCX table, an XLSX with two side-by-side tables under title
rows, a PPTX table); an HTML page holds a table. A fact names its document by file name and the sha256
of the bytes just written, as a corpus fact does.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable
from pathlib import Path

from quality.fact_checks import Absent, Check, Fact, Order, Present, TableCell

_COLUMN_1 = (
    "The river rose slowly through the night and by morning the lower fields were under water. "
    "Farmers moved their animals to the ridge before the bridge closed at dawn."
)
_COLUMN_2 = (
    "Engineers inspected the dam at noon and found the spillway working as designed. "
    "The council announced that the road would reopen within two days."
)
_COLUMN_3 = (
    "Schools stayed open in the upper town while volunteers filled sandbags at the station. "
    "By evening the water had fallen below the warning mark."
)


def _pdf(path: Path, draw: Callable[[object, int], None], pages: int = 1) -> None:
    import pymupdf

    doc = pymupdf.open()
    for number in range(pages):
        page = doc.new_page(width=595, height=842)
        draw(page, number)
    doc.set_metadata({})
    doc.save(path, no_new_id=True)
    doc.close()


def _columns(path: Path, texts: tuple[str, ...]) -> list[Check]:
    import pymupdf

    width = (595 - 72 * 2 - 20 * (len(texts) - 1)) / len(texts)

    def draw(page: object, _: int) -> None:
        for i, text in enumerate(texts):
            x = 72 + i * (width + 20)
            page.insert_textbox(pymupdf.Rect(x, 100, x + width, 700), text, fontsize=10)  # type: ignore[attr-defined]

    _pdf(path, draw)
    checks: list[Check] = [Present(t.split(". ")[0] + ".") for t in texts]
    for a, b in itertools.pairwise(texts):
        checks.append(Order(a.split(". ")[-1], b.split(". ")[0]))
    return checks


def _two_columns(path: Path) -> list[Check]:
    return _columns(path, (_COLUMN_1, _COLUMN_2))


def _three_columns(path: Path) -> list[Check]:
    return _columns(path, (_COLUMN_1, _COLUMN_2, _COLUMN_3))


#: The body of the furniture pages: words that differ on every page, as a report's pages do (a body
#: repeated on every page is itself furniture).
_SITES = ("Alder Creek", "Birch Hollow", "Cedar Point", "Dune Ridge")
_BODY = [
    "Chapter {n} of the field report describes the samples taken at {site}.",
    "At {site} the team dug {holes} test holes along the eastern slope.",
    "The soil of hole {n}{n} held clay over a layer of coarse sand.",
    "Water reached the surface after {hours} hours of steady rain at {site}.",
    "The measurements of {site} agree with the survey of the previous season.",
]


def _furniture(path: Path) -> list[Check]:
    import pymupdf

    def draw(page: object, n: int) -> None:
        page.insert_text((72, 40), "Journal of Field Studies, Volume 12", fontsize=8)  # type: ignore[attr-defined]
        y = 120
        for line in _BODY:
            text = line.format(n=n + 1, site=_SITES[n], holes=3 + 2 * n, hours=5 + n)
            page.insert_text((72, y), text, fontsize=11)  # type: ignore[attr-defined]
            y += 16
        page.insert_text((72, 800), "https://doi.org/10.1234/jfs.2024.0012", fontsize=8)  # type: ignore[attr-defined]
        page.insert_textbox(  # type: ignore[attr-defined]
            pymupdf.Rect(250, 810, 345, 830), str(n + 1), fontsize=9, align=1
        )

    _pdf(path, draw, pages=4)
    return [
        Present("At Birch Hollow the team dug 5 test holes along the eastern slope."),
        Present("Chapter 3 of the field report describes the samples taken at Cedar Point."),
        Order("samples taken at Alder Creek.", "samples taken at Birch Hollow."),
        Absent("Journal of Field Studies, Volume 12"),
        Absent("https://doi.org/10.1234/jfs.2024.0012"),
        Absent("3"),
    ]


_TABLE = [
    ("Station", "Depth", "Salinity", "Temperature"),
    ("North", "12", "34.1", "8.5"),
    ("East", "40", "35.0", "6.2"),
    ("South", "18", "33.7", "9.9"),
    ("West", "25", "34.6", "7.4"),
    ("Harbour", "7", "31.2", "11.0"),
]


def _table_checks() -> list[Check]:
    return [
        TableCell("35.0", "Salinity", "East"),
        TableCell("11.0", "Temperature", "Harbour"),
        TableCell("25", "Depth", "West"),
    ]


def _unruled_table(path: Path) -> list[Check]:
    def draw(page: object, _: int) -> None:
        page.insert_text((72, 90), "Measurements at the five stations", fontsize=12)  # type: ignore[attr-defined]
        for r, row in enumerate(_TABLE):
            for c, cell in enumerate(row):
                page.insert_text((72 + c * 110, 130 + r * 18), cell, fontsize=10)  # type: ignore[attr-defined]

    _pdf(path, draw)
    return _table_checks()


def _ruled_table(path: Path) -> list[Check]:
    import pymupdf

    def draw(page: object, _: int) -> None:
        x0, y0, w, h = 72, 120, 110, 20
        for r, row in enumerate(_TABLE):
            for c, cell in enumerate(row):
                rect = pymupdf.Rect(x0 + c * w, y0 + r * h, x0 + (c + 1) * w, y0 + (r + 1) * h)
                page.draw_rect(rect, color=(0, 0, 0), width=0.7)  # type: ignore[attr-defined]
                page.insert_text((rect.x0 + 4, rect.y1 - 6), cell, fontsize=10)  # type: ignore[attr-defined]

    _pdf(path, draw)
    return _table_checks()


def _docx(path: Path) -> list[Check]:
    import docx

    document = docx.Document()
    document.add_paragraph("Inventory of the spring delivery.")
    table = document.add_table(rows=0, cols=3)
    for row in [("Item", "Count", "Shelf"), ("Lamps", "14", "B2"), ("Cables", "220", "C7")]:
        cells = table.add_row().cells
        for cell, value in zip(cells, row, strict=True):
            cell.text = value
    document.add_paragraph("Signed by the warehouse manager.")
    document.save(path)
    return [
        TableCell("220", "Count", "Cables"),
        TableCell("B2", "Shelf", "Lamps"),
        Order("Inventory of the spring delivery.", "Signed by the warehouse manager."),
    ]


def _xlsx(path: Path) -> list[Check]:
    import openpyxl
    from openpyxl.chart import BarChart, Reference

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Results"
    sheet["A1"] = "Sales by region"
    sheet["E1"] = "Staff by office"
    for r, row in enumerate([("Region", "Sales"), ("Alps", 120), ("Coast", 340)], 3):
        for c, value in enumerate(row, 1):
            sheet.cell(row=r, column=c, value=value)
    for r, row in enumerate([("Office", "Staff"), ("Lyon", 12), ("Nantes", 7)], 3):
        for c, value in enumerate(row, 5):
            sheet.cell(row=r, column=c, value=value)
    chart = BarChart()
    chart.title = "Sales chart"
    chart.add_data(Reference(sheet, min_col=2, min_row=3, max_row=5), titles_from_data=True)
    sheet.add_chart(chart, "A8")
    book.save(path)
    return [
        Present("Sales by region"),
        Present("Staff by office"),
        TableCell("340", "Sales", "Coast"),
        TableCell("7", "Staff", "Nantes"),
    ]


def _pptx(path: Path) -> list[Check]:
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Quarterly figures"
    rows = [("Quarter", "Revenue"), ("Q1", "410"), ("Q2", "465")]
    shape = slide.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            shape.table.cell(r, c).text = value
    deck.save(path)
    return [Present("Quarterly figures"), TableCell("465", "Revenue", "Q2")]


def _html(path: Path) -> list[Check]:
    path.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>Opening hours</title></head><body>"
        "<nav><a href='/'>Home</a> | <a href='/shop'>Shop online today</a></nav>"
        "<main><h1>Opening hours</h1><p>The library opens every weekday and on Saturday mornings.</p>"
        "<table><tr><th>Day</th><th>Opens</th><th>Closes</th></tr>"
        "<tr><td>Monday</td><td>09:00</td><td>18:00</td></tr>"
        "<tr><td>Saturday</td><td>10:00</td><td>13:00</td></tr></table></main></body></html>",
        encoding="utf-8",
    )
    return [
        Present("The library opens every weekday and on Saturday mornings."),
        TableCell("13:00", "Closes", "Saturday"),
        Absent("Home | Shop online today"),
    ]


GENERATORS: dict[str, Callable[[Path], list[Check]]] = {
    "two-columns.pdf": _two_columns,
    "three-columns.pdf": _three_columns,
    "running-furniture.pdf": _furniture,
    "unruled-table.pdf": _unruled_table,
    "ruled-table.pdf": _ruled_table,
    "inventory.docx": _docx,
    "side-by-side.xlsx": _xlsx,
    "figures.pptx": _pptx,
    "opening-hours.html": _html,
}


def write_generated(folder: Path) -> list[Fact]:
    """Write every generated document into ``folder`` and return the facts about them. A document
    already there is kept as it is (the Office writers stamp the time into their files): a home that
    has read it is not sent to read a new copy of the same document."""
    folder.mkdir(parents=True, exist_ok=True)
    facts = []
    for name, write in GENERATORS.items():
        path = folder / name
        fresh = folder / f".new-{name}"
        checks = write(fresh)
        if path.is_file():
            fresh.unlink()
        else:
            fresh.replace(path)
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        facts += [Fact(name, sha, c, _why(c)) for c in checks]
    return facts


def _why(fact_check: Check) -> str:
    """What the fact says, in a line: its arguments shortened."""

    def short(text: str) -> str:
        return text if len(text) <= 40 else text[:39] + "…"

    if isinstance(fact_check, Present):
        return f"drawn on the page: {short(fact_check.passage)!r}"
    if isinstance(fact_check, Absent):
        return f"furniture on every page: {short(fact_check.line)!r}"
    if isinstance(fact_check, Order):
        return f"{short(fact_check.before)!r} is read before {short(fact_check.after)!r}"
    where = f" in row {fact_check.row!r}" if fact_check.row else ""
    return f"table: {fact_check.value!r} under {fact_check.header!r}{where}"
