"""The page facts of readers.pdf.page_facts, vector_paths and unreported_ink, through the PyMuPDF reader, on
PDFs generated here.

Each fixture is written with PyMuPDF into pytest's ``tmp_path`` so the test says exactly what the page
holds. Text drawn as outlines is made the way a vector-only PDF is: a page with text is exported to SVG
with its glyphs as paths, and the SVG converted back to PDF (no font left). The corpus test at the end
prints the facts of the scanned, OCR-layer and some born-digital files, so the calibration is visible.
"""

from __future__ import annotations

import csv
from collections import deque
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readers.core.model import PageText, ReadLimits
from readers.pdf.mupdf import PyMuPDFReader
from readers.pdf.page_facts import INVISIBLE_MAX_SIZE, ocr_font_hint, union_area
from readers.pdf.unreported_ink import measure_unreported_ink, unreported_ink_share
from readers.pdf.vector_paths import Regions

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
LIMITS = ReadLimits()
A4 = (595.0, 842.0)
PROSE = [
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Pack my box with five dozen liquor jugs before the night is over.",
    "How vexingly quick daft zebras jump when the wind blows hard.",
]
#: An unreported-ink share above this is "ink that needs OCR"; see INK_JOIN in readers.pdf.unreported_ink.
INK_GATE = 0.001


def save(doc: pymupdf.Document, path: Path) -> Path:
    doc.save(path)
    doc.close()
    return path


def read_page(path: Path, number: int = 1) -> PageText:
    return PyMuPDFReader().read(path, LIMITS).pages[number - 1]


def grey_pixmap(width: int = 32, height: int = 32, value: int = 120) -> pymupdf.Pixmap:
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, width, height))
    pixmap.clear_with(value)
    return pixmap


def prose(page: pymupdf.Page, y: float = 72, **options: object) -> None:
    page.insert_text((72, y), "\n".join(PROSE), fontname="helv", fontsize=11, **options)


# --- images ---------------------------------------------------------------------------------------


def test_full_page_image_covers_the_page(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_image(page.rect, pixmap=grey_pixmap(), keep_proportion=False)
    facts = read_page(save(doc, tmp_path / "full.pdf")).facts
    assert facts.images == 1
    assert facts.image_coverage == pytest.approx(1.0, abs=1e-3)
    assert facts.largest_image_share == pytest.approx(1.0, abs=1e-3)


def test_overlapping_images_are_counted_once(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_image(pymupdf.Rect(0, 0, 300, 300), pixmap=grey_pixmap(), keep_proportion=False)
    page.insert_image(pymupdf.Rect(150, 150, 450, 450), pixmap=grey_pixmap(value=60), keep_proportion=False)
    page.insert_image(
        pymupdf.Rect(500, 700, 700, 900), pixmap=grey_pixmap(value=200), keep_proportion=False
    )  # half off the page
    facts = read_page(save(doc, tmp_path / "overlap.pdf")).facts
    area = A4[0] * A4[1]
    union = 300 * 300 * 2 - 150 * 150 + 95 * 142  # the third is clipped to 95 x 142
    assert facts.images == 3
    assert facts.image_coverage == pytest.approx(union / area, abs=1e-3)
    assert facts.largest_image_share == pytest.approx(300 * 300 / area, abs=1e-3)


def test_image_coverage_on_a_rotated_cropped_page(tmp_path: Path) -> None:
    """Boxes are in unrotated space relative to the crop box: the share is the same whatever /Rotate says."""
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=800)
    page.insert_image(pymupdf.Rect(100, 100, 300, 400), pixmap=grey_pixmap(), keep_proportion=False)
    page.set_cropbox(pymupdf.Rect(100, 100, 500, 700))
    page.set_rotation(90)
    facts = read_page(save(doc, tmp_path / "rotated.pdf")).facts
    assert facts.image_coverage == pytest.approx(200 * 300 / (400 * 600), abs=1e-3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 40)] * 4), min_size=1, max_size=80))
def test_union_area_is_the_area_of_the_union(raw: list[tuple[int, int, int, int]]) -> None:
    """Exact (coordinate compression) and gridded (many boxes) unions agree with a brute-force count."""
    boxes = [(min(a, c), min(b, d), max(a, c), max(b, d)) for a, b, c, d in raw]
    boxes = [(float(x0), float(y0), float(x1), float(y1)) for x0, y0, x1, y1 in boxes if x1 > x0 and y1 > y0]
    grid = np.zeros((40, 40), dtype=bool)
    for x0, y0, x1, y1 in boxes:
        grid[int(y0) : int(y1), int(x0) : int(x1)] = True
    assert union_area(boxes, 40.0, 40.0) == pytest.approx(float(grid.sum()))


# --- vector figures and text drawn as outlines ---------------------------------------------------


def chart_pdf(path: Path) -> Path:
    """Prose, then a line chart: axes, a diagonal polyline, a Bezier trend and round markers."""
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    prose(page)
    x0, y0, x1, y1 = 100.0, 200.0, 450.0, 450.0
    page.draw_line((x0, y1), (x1, y1), width=0.8)  # axes: furniture
    page.draw_line((x0, y0), (x0, y1), width=0.8)
    points = [(x0 + 20 + 50 * i, y1 - 20 - (37 * i) % 190) for i in range(7)]
    page.draw_polyline(points, color=(0, 0, 1), width=1.2)
    page.draw_bezier((x0 + 10, y1 - 10), (x0 + 120, y0), (x1 - 120, y1), (x1 - 10, y0 + 10), color=(1, 0, 0))
    for x, y in points:
        page.draw_circle((x, y), 3, color=(0, 0, 1), fill=(0, 0, 1))
    return save(doc, path)


def furniture_pdf(path: Path) -> Path:
    """Everything a text page draws that is not a figure: a ruled table, underlines, bullets, a
    rounded box around a note, a page frame and a shaded panel."""
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.draw_rect(pymupdf.Rect(36, 36, 559, 806), width=1.0)  # page frame
    prose(page)
    for i in range(3):  # underlines
        page.draw_line((72, 75 + 13.2 * i), (400, 75 + 13.2 * i), width=0.5)
    for i in range(3):  # bullets
        page.draw_circle((62, 150 + 14 * i), 2, fill=(0, 0, 0))
        page.insert_text((72, 154 + 14 * i), f"bullet item {i}", fontname="helv", fontsize=11)
    x0, y0 = 72.0, 250.0
    for r in range(5):  # a ruled table
        page.draw_line((x0, y0 + 20 * r), (x0 + 360, y0 + 20 * r), width=0.8)
    for c in range(4):
        page.draw_line((x0 + 120 * c, y0), (x0 + 120 * c, y0 + 80), width=0.8)
    for r in range(4):
        for c in range(3):
            page.insert_text(
                (x0 + 120 * c + 6, y0 + 20 * r + 14), f"cell {r}{c}", fontname="helv", fontsize=10
            )
    page.draw_rect(pymupdf.Rect(72, 380, 500, 440), radius=0.15, color=(0, 0, 0.5), width=1)  # rounded note
    page.insert_text((84, 414), "A note in a rounded box.", fontname="helv", fontsize=11)
    page.draw_rect(pymupdf.Rect(72, 480, 420, 700), color=None, fill=(0.9, 0.95, 0.9))  # shaded panel
    page.insert_text((84, 510), "Text on a shaded panel.", fontname="helv", fontsize=11)
    return save(doc, path)


def outline_text_pdf(path: Path, lines: list[str]) -> Path:
    """A page whose text is drawn as filled glyph outlines, with no font at all."""
    source = pymupdf.open()
    page = source.new_page(width=A4[0], height=A4[1])
    page.insert_text((72, 100), "\n".join(lines), fontname="helv", fontsize=14)
    svg = page.get_svg_image(text_as_path=True)
    source.close()
    with pymupdf.open("svg", svg.encode()) as drawing:
        pdf = drawing.convert_to_pdf()
    path.write_bytes(pdf)
    return path


def test_a_chart_is_a_vector_figure(tmp_path: Path) -> None:
    facts = read_page(chart_pdf(tmp_path / "chart.pdf")).facts
    assert facts.vector_figure_area > 0.1  # the chart spans ~0.2 of the page
    assert facts.outline_text_paths == 0  # round markers of one shape are not glyphs


def test_furniture_is_not_a_figure(tmp_path: Path) -> None:
    page = read_page(furniture_pdf(tmp_path / "furniture.pdf"))
    assert page.facts.drawings >= 15
    assert page.facts.tables == 1
    assert page.facts.vector_figure_area == 0.0
    assert page.facts.outline_text_paths == 0


def test_text_drawn_as_outlines_is_told_apart(tmp_path: Path) -> None:
    page = read_page(outline_text_pdf(tmp_path / "outlines.pdf", PROSE))
    glyphs = sum(len(line.replace(" ", "")) for line in PROSE)
    assert page.text == "" and page.facts.fonts == 0
    assert page.facts.drawings >= glyphs
    assert page.facts.outline_text_paths >= 0.8 * glyphs  # periods and i-dots are too small to count
    assert page.facts.vector_figure_area == 0.0  # text, not a figure


# --- invisible text --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hidden", "options"),
    [
        ("render mode 3", {"render_mode": 3}),
        ("render mode 7", {"render_mode": 7}),
        ("zero opacity", {"fill_opacity": 0.0}),
        ("tiny", {"fontsize": 2}),
        ("white on white", {"color": (1, 1, 1)}),
        ("near white", {"color": (0.97, 0.97, 0.97)}),
    ],
)
def test_invisible_text_is_counted(tmp_path: Path, hidden: str, options: dict[str, object]) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_text((72, 72), "Visible words", fontname="helv", fontsize=11)
    page.insert_text((72, 300), "Hiddenwords", **{"fontname": "helv", "fontsize": 11, **options})
    result = read_page(save(doc, tmp_path / "hidden.pdf"))
    assert "Hiddenwords" in result.text  # the text layer still holds it: the facts say it is hidden
    assert result.facts.invisible_chars == len("Hiddenwords"), hidden
    assert result.facts.invisible_share == pytest.approx(11 / 23, abs=1e-3)
    spans = {
        span.text.strip(): span for block in result.blocks for line in block.lines for span in line.spans
    }
    assert spans["Hiddenwords"].invisible and not spans["Visible words"].invisible


def test_white_text_on_a_dark_fill_or_an_image_is_visible(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.draw_rect(pymupdf.Rect(60, 50, 300, 90), color=None, fill=(0.1, 0.2, 0.6))
    page.insert_text((72, 75), "White on a banner", fontname="helv", fontsize=14, color=(1, 1, 1))
    page.insert_image(pymupdf.Rect(60, 150, 300, 250), pixmap=grey_pixmap(value=40), keep_proportion=False)
    page.insert_text((72, 200), "White on a photo", fontname="helv", fontsize=14, color=(1, 1, 1))
    page.draw_rect(pymupdf.Rect(60, 300, 300, 340), color=None, fill=(0.99, 0.99, 0.99))
    page.insert_text((72, 325), "White on white", fontname="helv", fontsize=14, color=(1, 1, 1))
    facts = read_page(save(doc, tmp_path / "banner.pdf")).facts
    assert facts.invisible_chars == len("Whiteonwhite")


def test_text_outside_the_crop_box_is_counted(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=800)
    page.insert_text((150, 200), "Inside the crop box", fontname="helv", fontsize=11)
    page.insert_text((20, 40), "Outside", fontname="helv", fontsize=11)
    page.set_cropbox(pymupdf.Rect(100, 100, 500, 700))
    result = read_page(save(doc, tmp_path / "cropped.pdf"))
    assert "Outside" not in result.text  # MuPDF drops it; the facts still see it
    assert result.facts.invisible_chars == len("Outside")
    assert result.facts.invisible_share == pytest.approx(7 / 23, abs=1e-3)


def test_ocr_sandwich_is_invisible_text_over_a_page_image(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_image(page.rect, pixmap=grey_pixmap(200, 280, 235), keep_proportion=False)
    prose(page, render_mode=3)
    result = read_page(save(doc, tmp_path / "sandwich.pdf"))
    assert result.text.splitlines() == PROSE
    assert result.facts.image_coverage == pytest.approx(1.0, abs=1e-3)
    assert result.facts.invisible_share == pytest.approx(1.0)
    assert result.facts.invisible_chars == sum(len("".join(line.split())) for line in PROSE)


def test_ocr_font_names() -> None:
    assert ocr_font_hint(["GlyphLessFont"])
    assert ocr_font_hint(["Helvetica", "ABCDEF+GlyphLessFont"])
    assert (
        ocr_font_hint(["HiddenHorzOCR"]) and ocr_font_hint(["HiddenVertOCR"]) and ocr_font_hint(["Occulta"])
    )
    assert not ocr_font_hint(["Helvetica", "TimesNewRomanPSMT", "SimSun", "Glyphicons"])


def test_fine_print_is_read_and_a_hidden_size_is_not(tmp_path: Path) -> None:
    """Cells printed at 3.6 pt, as a spreadsheet printed to one page sets them, are legible text; a note
    set at 0.8 pt, a hidden-text trick, is invisible."""
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_text((72, 100), "Mukand Infotel Pvt. Ltd. Assam 10-01-2014", fontname="helv", fontsize=3.6)
    page.insert_text((72, 200), "Tiny secret note", fontname="helv", fontsize=0.8)
    result = read_page(save(doc, tmp_path / "fine.pdf"))
    assert "Mukand Infotel" in result.text
    assert 0.8 < INVISIBLE_MAX_SIZE < 3.6
    assert result.facts.invisible_chars == len("Tinysecretnote")


# --- blocks ----------------------------------------------------------------------------------------


def test_blocks_carry_spans_with_fonts_and_boxes(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_text((72, 72), "A bold title", fontname="hebo", fontsize=18)
    prose(page, y=120)
    page.insert_text((72, 300), "code = 42", fontname="cour", fontsize=10)
    page.insert_text((72, 400), "hidden layer", fontname="helv", fontsize=11, render_mode=3)
    result = read_page(save(doc, tmp_path / "blocks.pdf"))
    spans = [span for block in result.blocks for line in block.lines for span in line.spans]
    by_text = {span.text.strip(): span for span in spans}
    title = by_text["A bold title"]
    assert title.font == "Helvetica-Bold" and title.bold and title.size == pytest.approx(18)
    assert by_text["code = 42"].monospaced and not title.monospaced
    assert by_text["hidden layer"].invisible
    for block in result.blocks:
        bx0, by0, bx1, by1 = block.bbox
        for line in block.lines:
            for span in line.spans:
                x0, y0, x1, y1 = span.bbox
                assert bx0 - 0.01 <= x0 <= x1 <= bx1 + 0.01 and by0 - 0.01 <= y0 <= y1 <= by1 + 0.01
    assert [line.text for block in result.blocks[1:2] for line in block.lines] == PROSE


# --- unreported ink ---------------------------------------------------------------------------------


def test_unreported_ink_finds_outlined_text(tmp_path: Path) -> None:
    path = outline_text_pdf(tmp_path / "outlines.pdf", PROSE)
    shares = measure_unreported_ink(path, [1, 2, 0])  # pages out of range are left out
    assert list(shares) == [1]
    assert shares[1] > INK_GATE


def test_unreported_ink_is_nil_on_clean_pages(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page(width=A4[0], height=A4[1])  # blank
    prose(doc.new_page(width=A4[0], height=A4[1]))  # text
    sandwich = doc.new_page(width=A4[0], height=A4[1])  # image with an OCR layer
    sandwich.insert_image(sandwich.rect, pixmap=grey_pixmap(value=30), keep_proportion=False)
    prose(sandwich, render_mode=3)
    path = save(doc, tmp_path / "clean.pdf")
    paths = {
        "clean": path,
        "chart": chart_pdf(tmp_path / "chart.pdf"),
        "furniture": furniture_pdf(tmp_path / "furniture.pdf"),
    }
    assert measure_unreported_ink(paths["clean"], [1, 2, 3]) == {1: 0.0, 2: 0.0, 3: 0.0}
    assert measure_unreported_ink(paths["chart"], [1])[1] < INK_GATE / 4
    assert measure_unreported_ink(paths["furniture"], [1])[1] < INK_GATE / 4


def test_unreported_ink_short_cuts_a_page_an_image_covers(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_image(page.rect, pixmap=grey_pixmap(value=30), keep_proportion=False)
    path = save(doc, tmp_path / "covered.pdf")
    facts = read_page(path).facts
    with pymupdf.open(path) as pdf:
        assert unreported_ink_share(pdf[0], facts) == 0.0
        assert unreported_ink_share(pdf[0]) == 0.0


def _largest_by_flood_fill(grid: np.ndarray) -> int:
    seen = np.zeros_like(grid)
    best = 0
    rows, cols = grid.shape
    for r in range(rows):
        for c in range(cols):
            if not grid[r, c] or seen[r, c]:
                continue
            seen[r, c] = True
            queue, size = deque([(r, c)]), 0
            while queue:
                y, x = queue.popleft()
                size += 1
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        ny, nx = y + dy, x + dx
                        if 0 <= ny < rows and 0 <= nx < cols and grid[ny, nx] and not seen[ny, nx]:
                            seen[ny, nx] = True
                            queue.append((ny, nx))
            best = max(best, size)
    return best


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 24).flatmap(
        lambda cols: st.lists(st.lists(st.booleans(), min_size=cols, max_size=cols), min_size=1, max_size=24)
    )
)
def test_regions_are_8_connected_components(cells: list[list[bool]]) -> None:
    grid = np.array(cells, dtype=bool)
    regions = Regions(grid)
    assert regions.largest_area() == _largest_by_flood_fill(grid)
    for r, c in zip(*np.nonzero(~grid), strict=True):
        assert regions.label_at(int(r), int(c)) == -1


def test_regions_join_diagonal_neighbours() -> None:
    grid = np.zeros((4, 6), dtype=bool)
    grid[0, 0] = grid[1, 1] = grid[2, 2] = True  # a diagonal: one region
    grid[0, 5] = grid[3, 5] = True  # two lone cells
    regions = Regions(grid)
    assert regions.largest_area() == 3
    assert regions.label_at(0, 0) == regions.label_at(2, 2) != regions.label_at(0, 5)
    assert regions.label_at(0, 5) != regions.label_at(3, 5)


# --- the shared corpus ------------------------------------------------------------------------------

CALIBRATION_FILES = (
    "dev/pyp__multicolumn.pdf",
    "dev/plumb__federal-register-2020-17221.pdf",
    "dev/pdfminer__issue-1061-colour-space-stack.pdf",
    "dev/unst__reliance.pdf",
    "dev/tika__testExtraSpaces.pdf",
)


@pytest.mark.corpus
def test_corpus_facts_table(capsys: pytest.CaptureFixture[str]) -> None:
    """The facts of the scans, the OCR sandwiches and a few born-digital files (first 3 pages each)."""
    manifest = CORPUS / "manifest.csv"
    if not manifest.is_file():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    with manifest.open(newline="", encoding="utf-8") as handle:
        rows = [
            row
            for row in csv.DictReader(handle)
            if row["kind"] in ("pdf-scanned", "pdf-ocr-text-layer") or row["path"] in CALIBRATION_FILES
        ]
    header = f"{'kind':18} {'file':42} {'pg':>3} {'img':>5} {'imgmax':>6} {'vecfig':>6} {'outl':>4}"
    header += f" {'invis':>5} {'invsh':>5} {'ocrf':>4} {'ink':>7}"
    table = [header]
    facts_of: dict[tuple[str, int], tuple[object, float]] = {}
    reader = PyMuPDFReader()
    for row in rows:
        path = CORPUS / row["path"]
        result = reader.read(path, LIMITS)
        ink = measure_unreported_ink(path, range(1, 4))
        for page in result.pages[:3]:
            f = page.facts
            name = Path(row["path"]).name
            facts_of[(name, page.page)] = (f, ink[page.page])
            table.append(
                f"{row['kind']:18} {name[:42]:42} {page.page:3} {f.image_coverage:5.3f} "
                f"{f.largest_image_share:6.3f} {f.vector_figure_area:6.3f} {f.outline_text_paths:4} "
                f"{f.invisible_chars:5} {f.invisible_share:5.3f} {'yes' if f.ocr_font_hint else '-':>4} "
                f"{ink[page.page]:7.4f}"
            )
    with capsys.disabled():
        print("\n" + "\n".join(table))
    for row in rows:  # the calibration points the thresholds were set on
        name = Path(row["path"]).name
        f, ink = facts_of[(name, 1)]
        if row["kind"] == "pdf-ocr-text-layer":
            assert f.image_coverage > 0.95 and f.invisible_share > 0.9, name
        elif name == "ocrmypdf__vector.pdf":
            assert f.outline_text_paths >= 100 and f.image_coverage == 0 and ink > INK_GATE
        elif row["kind"] == "pdf-scanned":
            assert f.invisible_chars == 0 and f.outline_text_paths == 0 and ink < INK_GATE, name
    assert facts_of[("ocrmypdf__graph_ocred.pdf", 1)][0].ocr_font_hint
    prose_page = facts_of[("pyp__multicolumn.pdf", 1)][0]
    assert prose_page.vector_figure_area == 0 and prose_page.invisible_chars == 0
    assert facts_of[("pdfminer__issue-1061-colour-space-stack.pdf", 1)][0].vector_figure_area == 0
