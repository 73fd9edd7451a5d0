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
    from warehouse.catalog import query

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
