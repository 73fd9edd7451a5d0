"""Reading order: pages written by PyMuPDF in an order other than the one they are read in (the right column
drawn first, three columns drawn 3-1-2, a title drawn last), read column by column with the order's source,
confidence, broken seams and columns recorded; the choice itself on boxes, as a property."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readers.core.model import OrderSource, ReadLimits
from readers.pdf.mupdf import PyMuPDFReader
from readers.pdf.order import OrderBlock, broken_seams, reading_order

# Three passages that run on from one column into the next, mid-sentence, as a column break does.
FIRST = (
    "Alpha opens the report. "
    + "The river basin and its many tributaries flow north across the plain. " * 5
    + "The longest of them runs for"
)
SECOND = (
    "ninety miles before it meets the lake. "
    + "Beta words go on about the mountain passes and the roads in winter. " * 5
    + "The last road is closed in"
)
THIRD = (
    "winter and opens in spring. " + "Gamma notes tell of the valleys, the farms and the villages below. " * 5
)


def two_columns(path: Path) -> None:
    """A title over two columns; the right column drawn first, the title last."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(310, 100, 540, 700), SECOND, fontsize=10)
    page.insert_textbox(pymupdf.Rect(60, 100, 290, 700), FIRST, fontsize=10)
    page.insert_text((60, 60), "Water Report", fontsize=16)
    doc.save(path)


def three_columns(path: Path) -> None:
    """Three columns drawn third, first, second."""
    doc = pymupdf.open()
    page = doc.new_page()
    width = (595 - 120 - 40) / 3
    for column, text in ((2, THIRD), (0, FIRST), (1, SECOND)):
        left = 60 + column * (width + 20)
        page.insert_textbox(pymupdf.Rect(left, 100, left + width, 700), text, fontsize=9)
    doc.save(path)


def read_one(path: Path):
    [page] = PyMuPDFReader().read(path, ReadLimits()).pages
    return page


def test_a_two_column_page_drawn_right_column_first_reads_column_by_column(tmp_path: Path) -> None:
    two_columns(tmp_path / "two.pdf")
    page = read_one(tmp_path / "two.pdf")
    text = page.text
    assert text.index("Water Report") < text.index("Alpha opens") < text.index("ninety miles")
    assert "runs for\n\nninety miles" in text or "runs for ninety miles" in text.replace("\n", " ")
    assert page.order.source == OrderSource.COLUMNS.value and page.order.columns == 2
    assert page.order.broken_seams == 0 and page.order.confidence == 1.0


def test_a_three_column_page_drawn_out_of_order_reads_column_by_column(tmp_path: Path) -> None:
    three_columns(tmp_path / "three.pdf")
    page = read_one(tmp_path / "three.pdf")
    text = page.text
    assert text.index("Alpha opens") < text.index("ninety miles") < text.index("winter and opens")
    assert page.order.source == OrderSource.COLUMNS.value and page.order.columns == 3
    assert 0 <= page.order.confidence <= 1


def test_a_single_column_page_keeps_the_producers_order(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 520, 400), FIRST, fontsize=10)
    page.insert_textbox(pymupdf.Rect(72, 420, 520, 760), SECOND, fontsize=10)
    doc.save(tmp_path / "one.pdf")
    read = read_one(tmp_path / "one.pdf")
    assert read.order.source == OrderSource.NATIVE.value and read.order.columns == 1
    assert read.text.index("Alpha") < read.text.index("ninety")


def test_an_empty_page_has_no_order(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page()
    doc.save(tmp_path / "empty.pdf")
    assert read_one(tmp_path / "empty.pdf").order.source in {OrderSource.NONE.value}


def test_a_seam_is_broken_where_a_sentence_stops_or_starts_midway() -> None:
    open_end = OrderBlock((0, 0, 10, 10), "The road runs", "and the road runs for", 3)
    goes_on = OrderBlock((0, 20, 10, 30), "ninety miles to the lake.", "It ends there.", 3)
    fresh = OrderBlock((0, 40, 10, 50), "Another paragraph starts.", "It ends.", 3)
    heading = OrderBlock((0, 60, 10, 70), "Results", "Results", 1)
    blocks = [open_end, goes_on, fresh, heading]
    assert broken_seams(blocks, [0, 1, 2]) == 0
    assert broken_seams(blocks, [0, 2, 1]) == 2  # stops midway, then goes on from nothing
    assert broken_seams(blocks, [0, 3, 1]) == 0  # a heading's seams are not judged


_WORD = st.sampled_from(["river", "Lake", "road.", "winter,", "Spring", "north", "farm.", "village"])


@st.composite
def pages(draw: st.DrawFn) -> tuple[list[OrderBlock], float]:
    width = 600.0
    blocks = []
    for _ in range(draw(st.integers(min_value=0, max_value=12))):
        x0 = draw(st.floats(min_value=0, max_value=500))
        y0 = draw(st.floats(min_value=0, max_value=780))
        w = draw(st.floats(min_value=5, max_value=width - x0))
        h = draw(st.floats(min_value=5, max_value=60))
        words = draw(st.lists(_WORD, min_size=1, max_size=14))
        lines = draw(st.integers(min_value=1, max_value=9))
        blocks.append(
            OrderBlock((x0, y0, x0 + w, y0 + h), " ".join(words[:7]), " ".join(words[7:]) or words[0], lines)
        )
    return blocks, width


@settings(max_examples=200, deadline=None)
@given(pages())
def test_the_chosen_order_is_a_permutation_no_worse_than_the_producers(
    page: tuple[list[OrderBlock], float],
) -> None:
    """Every block once, and never more broken seams than the producer's order."""
    blocks, width = page
    chosen = reading_order(blocks, width)
    assert sorted(chosen.permutation) == list(range(len(blocks)))
    assert chosen.order.broken_seams == broken_seams(blocks, chosen.permutation)
    assert chosen.order.broken_seams <= broken_seams(blocks, range(len(blocks)))
    assert 0.0 <= chosen.order.confidence <= 1.0
    assert chosen.order.source in {s.value for s in OrderSource}


@pytest.mark.slow
def test_a_run_stores_each_pages_order(home: Path, tmp_path: Path) -> None:
    from assets.progress import Progress
    from orchestration.home import Home
    from orchestration.runner import run
    from warehouse.duckdb_catalog import query

    folder = tmp_path / "corpus"
    folder.mkdir()
    three_columns(folder / "three.pdf")
    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    ((source, confidence, seams, columns),) = query(
        Home(home).warehouse, "select reading_order, order_confidence, broken_seams, columns from pages"
    ).rows
    assert (source, seams, columns) == ("columns", 0, 3) and 0 < confidence <= 1
    ((text,),) = query(Home(home).warehouse, "select text from texts").rows
    assert text.index("Alpha opens") < text.index("ninety miles") < text.index("winter and opens")


def interleaved_columns(path: Path) -> tuple[list[str], list[str]]:
    """Two columns of prose whose lines the producer drew across the page in turn, left line, right line,
    the right column's baselines a little lower: MuPDF makes one block of both columns. The columns'
    lines, as drawn."""
    doc = pymupdf.open()
    page = doc.new_page()
    font = pymupdf.Font("helv")

    def lines(words: list[str]) -> list[str]:
        out, current = [], ""
        for word in words:
            if current and font.text_length(current + " " + word, fontsize=10) > 230:
                out.append(current)
                current = word
            else:
                current = f"{current} {word}".strip()
        return [*out, current]

    left, right = lines((FIRST + " " + SECOND).split()), lines(THIRD.split())
    rows = min(len(left), len(right))
    for row in range(rows):
        page.insert_text((60, 100 + row * 12), left[row], fontsize=10)
        page.insert_text((320, 103 + row * 12), right[row], fontsize=10)
    doc.save(path)
    return left[:rows], right[:rows]


def test_two_columns_drawn_line_by_line_across_the_page_read_column_by_column(tmp_path: Path) -> None:
    left, right = interleaved_columns(tmp_path / "across.pdf")
    blocks = pymupdf.open(tmp_path / "across.pdf")[0].get_text("dict")["blocks"]
    assert any(b["bbox"][0] < 100 and b["bbox"][2] > 400 for b in blocks)  # MuPDF's blocks cross the gutter
    page = read_one(tmp_path / "across.pdf")
    assert "\n".join(left) in page.text and "\n".join(right) in page.text
    assert page.text.index(left[-1]) < page.text.index(right[0])
    assert page.order.source == OrderSource.COLUMNS.value and page.order.columns == 2


def test_a_spread_of_two_pages_reads_the_left_page_before_the_right() -> None:
    """Two pages on one landscape sheet, the right one drawn first; their labels (no seam to judge) at
    heights that never share a band, so no gutter runs between columns."""
    left = [
        OrderBlock((60, 100 + 30 * i, 300, 110 + 30 * i), f"Left item {i}", f"Left item {i}", 1)
        for i in range(6)
    ]
    right = [
        OrderBlock((480, 115 + 30 * i, 760, 125 + 30 * i), f"Right item {i}", f"Right item {i}", 1)
        for i in range(6)
    ]
    blocks = [*right, *left]
    chosen = reading_order(blocks, 842, 595)
    assert [blocks[i].first for i in chosen.permutation] == [b.first for b in [*left, *right]]
    assert chosen.order.source == OrderSource.COLUMNS.value and chosen.order.columns == 2
    assert reading_order(blocks, 842).permutation == tuple(range(12))  # no height: not a spread


def test_a_title_drawn_after_the_text_below_it_is_read_first() -> None:
    """The producer drew the body, then went back up to the title and a caption over it: read top down."""
    body = [
        OrderBlock((72, 200 + 100 * i, 520, 280 + 100 * i), "It starts here.", "It ends here.", 6)
        for i in range(3)
    ]
    title = OrderBlock((72, 100, 400, 120), "Annual Report", "Annual Report", 1)
    subtitle = OrderBlock((72, 130, 400, 145), "Figures for the year", "Figures for the year", 1)
    blocks = [*body, title, subtitle]
    chosen = reading_order(blocks, 612, 792)
    assert chosen.permutation == (3, 4, 0, 1, 2)
    assert chosen.order.source == OrderSource.ROWS.value


_GLYPH_NAMES = {
    **{c: c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"},
    **dict(
        zip(
            "0123456789",
            ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
            strict=True,
        )
    ),
    " ": "space",
    ".": "period",
    "-": "hyphen",
    ":": "colon",
}


def scaled_type3_page(path: Path, lines: list[str]) -> None:
    """Lines set in a Type 3 font at 0.24 pt whose font matrix scales its 1000-unit glyphs 45 times over
    the usual: 10.8 pt boxes on the page (a producer that sets every font at a nominal size)."""
    doc = pymupdf.open()
    doc.new_page()
    page = doc[0]
    chars = sorted(set("".join(lines)))
    codes = {c: 33 + i for i, c in enumerate(chars)}
    glyph = doc.get_new_xref()
    doc.update_object(glyph, "<<>>")
    doc.update_stream(glyph, b"600 0 0 0 500 700 d1 0 0 500 700 re f")
    procs = " ".join(f"/{_GLYPH_NAMES[c]} {glyph} 0 R" for c in chars)
    names = " ".join(f"/{_GLYPH_NAMES[c]}" for c in chars)
    font = doc.get_new_xref()
    doc.update_object(
        font,
        f"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 600 750] /FontMatrix [0.045 0 0 0.045 0 0] "
        f"/CharProcs << {procs} >> /Encoding << /Type /Encoding /Differences [33 {names}] >> "
        f"/FirstChar 33 /LastChar {32 + len(chars)} /Widths [{' '.join(['600'] * len(chars))}] "
        "/Resources << >> >>",
    )
    doc.xref_set_key(page.xref, "Resources", f"<< /Font << /T3 {font} 0 R >> >>")
    shown = []
    for i, line in enumerate(lines):
        hexed = "".join(f"{codes[c]:02x}" for c in line)
        shown.append(f"BT /T3 0.24 Tf 40 {700 - 14 * i} Td <{hexed}> Tj ET")
    contents = doc.get_new_xref()
    doc.update_object(contents, "<<>>")
    doc.update_stream(contents, " ".join(shown).encode())
    doc.xref_set_key(page.xref, "Contents", f"{contents} 0 R")
    doc.save(path)


def test_text_set_tiny_but_scaled_up_to_legible_glyphs_is_kept(tmp_path: Path) -> None:
    lines = ["Saturday 8 a.m.-6 p.m.", "Phone: 1-800-743-5000"]
    scaled_type3_page(tmp_path / "scaled.pdf", lines)
    [span] = pymupdf.open(tmp_path / "scaled.pdf")[0].get_text("dict")["blocks"][0]["lines"][0]["spans"][:1]
    assert span["size"] < 1 and span["bbox"][3] - span["bbox"][1] > 8  # set tiny, drawn legible
    page = read_one(tmp_path / "scaled.pdf")
    assert page.hidden == () and page.facts.invisible_chars == 0  # not taken for hidden text
    assert page.text.index("Saturday 8 a.m.-6 p.m.") < page.text.index("Phone: 1-800-743-5000")


def test_a_running_footer_drawn_first_does_not_turn_the_page_to_rows() -> None:
    """A producer that draws each page's footer, then its body: the step up from the footer is not one."""
    footer = OrderBlock((72, 740, 400, 750), "Annual Report 2011", "Annual Report 2011", 1)
    body = [
        OrderBlock((72, 100 + 100 * i, 520, 180 + 100 * i), "It starts here.", "It ends here.", 6)
        for i in range(3)
    ]
    chosen = reading_order([footer, *body], 612, 792)
    assert chosen.permutation == (0, 1, 2, 3) and chosen.order.source == OrderSource.NATIVE.value


def test_a_page_turned_upside_down_is_ordered_as_it_is_shown(tmp_path: Path) -> None:
    """A page rotated 180 degrees, its heading and paragraphs drawn in reading order: MuPDF's boxes run
    bottom up in the unrotated page's space, which is not a climb back up the page."""
    doc = pymupdf.open()
    page = doc.new_page()
    lines = ["Authority", *(FIRST[i : i + 60] for i in range(0, 360, 60))]
    for i, line in enumerate(lines):
        page.insert_text((560, 700 - 40 * i), line, fontsize=11, rotate=180)
    page.set_rotation(180)
    doc.save(tmp_path / "turned.pdf")
    read = read_one(tmp_path / "turned.pdf")
    assert read.order.source == OrderSource.NATIVE.value
    assert read.text.index("Authority") < read.text.index(lines[-1])
