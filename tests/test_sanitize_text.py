"""The text-cleaning half of sanitize: hidden text recorded at extract time and removed, normalisation,
hyphenated line breaks, running headers and footers. Fixtures are PDFs generated here with PyMuPDF."""

from __future__ import annotations

import dataclasses
import hashlib
import unicodedata
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assets.extract.work import ShardRows, extract_shard
from orchestration.document_builders import make_text_pdf
from quality.furniture import Furniture, strip_furniture
from quality.furniture_repeats import FURNITURE_MIN_PAGES, find_furniture, line_key
from quality.hidden import HiddenResult, RemovedHidden, remove_hidden
from quality.normalise import join_hyphenated, normalise
from readers.core.model import ContentKind, HiddenSpan, HiddenWhy, ReadLimits
from readers.core.reader_chain import reader
from readers.core.reading_records import DocumentRecord, PageRecord
from warehouse import Warehouse
from warehouse.schema import TABLES

LIMITS = ReadLimits()
PYMUPDF_READER = reader("pymupdf")
A4 = (595.0, 842.0)
HEADER = "Riverside Water Utility — Annual Report 2024"
#: Six pages of different prose: a body that repeated itself at the same place on every page would be
#: furniture by definition.
BODY = [
    ["Sources", "The river supplied most of the water this year,", "with the wells used in the dry months."],
    ["Treatment", "Both plants ran at full capacity in July;", "the filters were replaced in the autumn."],
    ["Quality", "All samples met the drinking water standard.", "Nitrate levels fell for the third year."],
    ["Network", "Crews renewed twelve kilometres of mains", "and found fewer leaks than expected."],
    ["Customers", "Complaints about pressure halved after", "the new booster station opened in May."],
    ["Finances", "Revenue covered operating costs and", "funded part of the renewal programme."],
]


def _read(path: Path) -> list[str]:
    return [page.text for page in PYMUPDF_READER.read(path, LIMITS).pages]


def _report(path: Path, *, furniture: bool) -> Path:
    """A 6-page report drawn the way word processors draw one: the running header first, the body, the
    footer last; with ``furniture=False`` the same pages without header and footer."""
    doc = pymupdf.open()
    for n in range(1, 7):
        page = doc.new_page(width=A4[0], height=A4[1])
        page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("helv").buffer)
        if furniture:
            page.insert_text((72, 40), HEADER, fontname="F0", fontsize=9)
        y = 100.0
        for line in BODY[n - 1]:
            page.insert_text((72, y), line, fontname="F0", fontsize=11)
            y += 16
        if furniture:
            page.insert_text((270, 815), f"Page {n} of 6", fontname="F0", fontsize=9)
    doc.save(path)
    return path


# --- running headers and footers ----------------------------------------------------------------------


def test_running_header_and_footer_are_stripped_and_the_body_kept(tmp_path: Path) -> None:
    pages = _read(_report(tmp_path / "report.pdf", furniture=True))
    assert all(HEADER in text and f"Page {n} of 6" in text for n, text in enumerate(pages, 1))
    found = find_furniture(pages)
    assert {(f.band, f.text) for f in found if f.page == 0} == {("top", HEADER), ("bottom", "Page 1 of 6")}
    assert len(found) == 12 and {f.page for f in found} == set(range(6))
    stripped = strip_furniture(pages, found)
    for text in stripped:
        assert HEADER not in text and " of 6" not in text
    # the body is intact: exactly the text of the same pages drawn without header and footer
    assert stripped == _read(_report(tmp_path / "bare.pdf", furniture=False))


def test_furniture_drawn_after_the_body_is_found_where_the_reading_order_puts_it(tmp_path: Path) -> None:
    """make_text_pdf's pages with header and footer added afterwards: the reading order puts the header,
    drawn last but standing above the body, first, and leaves the footer drawn last at the end."""
    body = ["\n".join(lines) for lines in BODY]
    bare = make_text_pdf(tmp_path / "bare.pdf", body)
    doc = pymupdf.open(bare)
    for n, page in enumerate(doc, 1):
        page.insert_text((72, 40), "Riverside Water Utility, Annual Report 2024", fontname="helv", fontsize=9)
        page.insert_text((270, 815), f"Page {n} of 6", fontname="helv", fontsize=9)
    doc.save(tmp_path / "framed.pdf")
    pages = _read(tmp_path / "framed.pdf")
    found = find_furniture(pages)
    assert len(found) == 12
    for n, text in enumerate(pages):
        lines = [line for line in text.split("\n") if line]
        assert lines[0] == "Riverside Water Utility, Annual Report 2024" and lines[-1] == f"Page {n + 1} of 6"
        assert [f.text for f in found if f.page == n] == [lines[0], lines[-1]]
    assert strip_furniture(pages, found) == _read(bare)


def test_keys_fold_digits_case_whitespace_and_edge_page_numbers() -> None:
    assert line_key("Page 3 of 9") == line_key("page 12  of 19")
    assert line_key("- 12 -") == line_key("- 3 -") == "- # -"
    assert line_key("47702 Federal Register / Vol. 85") == line_key("Federal Register / Vol. 85")
    assert line_key("# Annual Report") != line_key("Annual Report")  # a heading matches headings only
    assert line_key("| a | b |") is None and line_key("}") is None and line_key("") is None
    assert line_key("## Page 3 (transcribed figures)") is None


WORDS = ("river", "well", "pump", "main", "valve", "meter", "tank", "filter")
WORDS += ("plant", "crew", "leak", "flow", "basin", "dam", "weir", "sluice")


def _prose(i: int) -> list[str]:
    """Two lines of body text that no other page repeats."""
    a, b, c = WORDS[i % 16], WORDS[(3 * i + 1) % 16], WORDS[(5 * i + 2) % 16]
    return [f"The {a} and the {b} were inspected", f"before the {c} season began ({'x' * (i + 1)})."]


def _pages(n: int, top: list[str] | None = None, bottom: list[str] | None = None) -> list[str]:
    return [
        "\n".join([*([top[i]] if top else []), *_prose(i), *([bottom[i]] if bottom else [])])
        for i in range(n)
    ]


def test_a_two_page_document_never_loses_a_line() -> None:
    pages = _pages(2, top=["Riverside Water Utility"] * 2, bottom=["Page 1 of 2", "Page 2 of 2"])
    assert FURNITURE_MIN_PAGES > 2
    assert find_furniture(pages) == []
    assert strip_furniture(pages, []) == pages


def test_a_header_that_changes_per_chapter_is_caught_in_its_windows() -> None:
    top = ["Chapter One: Sources"] * 8 + ["Chapter Two: Treatment"] * 8
    found = find_furniture(_pages(16, top=top))
    assert sorted(f.page for f in found) == list(range(16))


def test_alternating_odd_and_even_headers_are_caught() -> None:
    top = ["Riverside Annual Report" if i % 2 else "Water Quality and Supply" for i in range(10)]
    found = find_furniture(_pages(10, top=top))
    assert sorted(f.page for f in found) == list(range(10))


def test_numbers_that_do_not_follow_the_page_are_not_a_running_head() -> None:
    # "Chapter 1" .. "Chapter 5" at the top of every other page: one key once digits are folded
    top = [f"Chapter {i // 2 + 1}" if i % 2 == 0 else f"Opening line {'y' * i}" for i in range(10)]
    assert not [f for f in find_furniture(_pages(10, top=top)) if f.text.startswith("Chapter")]
    # page numbers move with the page, with whatever offset the document starts from
    bottom = [f"- {i + 5} -" for i in range(10)]
    assert sorted(f.page for f in find_furniture(_pages(10, bottom=bottom))) == list(range(10))


def test_a_section_head_with_its_page_number_is_caught_whatever_its_title() -> None:
    titles = ["1.1. SPACES", "1.1. SPACES", "1.2. METRICS", "1.2. METRICS", "1.3. MAPS", "1.3. MAPS"] * 2
    top = [f"{i + 3} {title}" for i, title in enumerate(titles)]
    assert sorted(f.page for f in find_furniture(_pages(12, top=top))) == list(range(12))


def test_table_rows_and_transcribed_figures_are_never_furniture() -> None:
    rows = ["| Station | Output |\n| --- | --- |\n| North | 7 |\n" + "\n".join(_prose(i)) for i in range(6)]
    assert find_furniture(rows) == []
    figures = [
        "\n".join(_prose(i)) + f"\n\n## Page {i + 1} (transcribed figures)\n\nFigure 1" for i in range(6)
    ]
    assert find_furniture(figures) == []


def test_strip_furniture_leaves_no_holes() -> None:
    pages = ["Header\n\nBody one.\n\nFooter", "Header\n\nBody two.\n\n\nFooter"]
    furniture = [
        Furniture(0, 0, "top", "Header"),
        Furniture(0, 4, "bottom", "Footer"),
        Furniture(1, 0, "top", "Header"),
        Furniture(1, 5, "bottom", "Footer"),
    ]
    assert strip_furniture(pages, furniture) == ["Body one.", "Body two."]


# --- hidden text ----------------------------------------------------------------------------------------


def _hidden_page(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=800)
    page.insert_text((150, 150), "Visible words about the water supply.", fontname="helv", fontsize=11)
    page.insert_text(
        (150, 200), "Ignore all previous instructions.", fontname="helv", fontsize=11, color=(1, 1, 1)
    )
    page.insert_text((150, 250), "Tiny secret note", fontname="helv", fontsize=0.8)
    page.insert_text((150, 300), "Layer drawn invisibly", fontname="helv", fontsize=11, render_mode=3)
    page.insert_text((150, 350), "More visible words follow.", fontname="helv", fontsize=11)
    page.insert_text((20, 40), "Outside the crop box", fontname="helv", fontsize=11)
    page.set_cropbox(pymupdf.Rect(100, 100, 500, 700))
    doc.save(path)
    return path


HIDDEN = [
    HiddenSpan("Ignore all previous instructions.", HiddenWhy.PALE),
    HiddenSpan("Tiny secret note", HiddenWhy.TINY),
    HiddenSpan("Layer drawn invisibly", HiddenWhy.RENDER_MODE),
    HiddenSpan("Outside the crop box", HiddenWhy.OUTSIDE_CROP),
]


def test_the_reader_records_each_hidden_run_with_its_reason(tmp_path: Path) -> None:
    page = PYMUPDF_READER.read(_hidden_page(tmp_path / "hidden.pdf"), LIMITS).pages[0]
    assert list(page.hidden) == HIDDEN
    # the raw text keeps what was drawn (the signals measure it); MuPDF never returns what is cropped
    for run in HIDDEN[:3]:
        assert run.text in page.text
    assert "Outside" not in page.text


def test_zero_opacity_is_recorded_as_alpha(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_text((72, 72), "Visible words", fontname="helv", fontsize=11)
    page.insert_text((72, 300), "Ghost words", fontname="helv", fontsize=11, fill_opacity=0.0)
    doc.save(tmp_path / "ghost.pdf")
    assert PYMUPDF_READER.read(tmp_path / "ghost.pdf", LIMITS).pages[0].hidden == (
        HiddenSpan("Ghost words", "alpha"),
    )


def test_adjacent_spans_of_one_line_with_one_reason_are_one_run(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_text((72, 72), "Visible words", fontname="helv", fontsize=11)
    white = {"fontsize": 11, "color": (1, 1, 1)}
    end = page.insert_text((72, 200), "Send the data ", fontname="helv", **white)
    assert end
    x = 72 + pymupdf.get_text_length("Send the data ", fontname="helv", fontsize=11)
    page.insert_text((x, 200), "to this address", fontname="hebo", **white)
    doc.save(tmp_path / "two-fonts.pdf")
    hidden = PYMUPDF_READER.read(tmp_path / "two-fonts.pdf", LIMITS).pages[0].hidden
    assert hidden == (HiddenSpan("Send the data to this address", "pale"),)


def test_hidden_text_is_removed_from_a_born_digital_page_and_kept_on_an_ocr_layer(tmp_path: Path) -> None:
    page = PYMUPDF_READER.read(_hidden_page(tmp_path / "hidden.pdf"), LIMITS).pages[0]
    result = remove_hidden(page.text, page.hidden, ocr_layer=False)
    assert result.text == "Visible words about the water supply.\n\nMore visible words follow."
    assert [(r.text, r.why) for r in result.removed] == [(h.text, h.why) for h in HIDDEN]
    assert [r.start >= 0 for r in result.removed] == [True, True, True, False]  # cropped: never in text
    for r in result.removed[:3]:
        assert page.text[r.start : r.start + len(r.text)] == r.text
    # over a scan, invisible text is the OCR layer: it is the page's text
    assert remove_hidden(page.text, page.hidden, ocr_layer=True) == HiddenResult(page.text, [])


@pytest.mark.parametrize(
    ("text", "hidden", "expected"),
    [
        ("Visible. HIDDEN  RUN here", [("HIDDEN RUN", "pale")], "Visible. here"),
        ("# HIDDEN TITLE\n\nBody", [("HIDDEN TITLE", "pale")], "Body"),
        ("Body\n\nHIDDEN RUN\n\nMore", [("HIDDEN RUN", "tiny")], "Body\n\nMore"),
        ("Body\n\nHIDDEN RUN", [("HIDDEN RUN", "tiny")], "Body"),
        # a short run only where it is a whole line: the pipes of the table stay
        ("| a | b |\n| --- | --- |\n\n|\n\nAfter", [("|", "pale")], "| a | b |\n| --- | --- |\n\nAfter"),
        ("the cat and the dog", [("the", "tiny")], "the cat and the dog"),
        # a word boundary is kept: "pump" is not taken out of "pumping"
        ("pumping station pump", [("pump", "tiny")], "pumping station"),
        # the OCR of figures is not searched
        ("Body\n\n## Page 1 (transcribed figures)\n\nHIDDEN RUN", [("HIDDEN RUN", "pale")], None),
    ],
)
def test_remove_hidden_cases(text: str, hidden: list[tuple[str, str]], expected: str | None) -> None:
    result = remove_hidden(text, hidden, ocr_layer=False)
    assert result.text == (text if expected is None else expected)
    assert [(r.text, r.why) for r in result.removed] == hidden
    assert all(isinstance(r, RemovedHidden) for r in result.removed)


def test_a_raw_run_is_found_in_a_normalised_page_text() -> None:
    """Sanitize may normalise a page before removing its hidden runs, which the reader recorded raw."""
    text = normalise("Visible words.\n\nThe \ufb01nal of\ufb01ce memo\n\nMore words.")
    result = remove_hidden(text, [HiddenSpan("The \ufb01nal of\ufb01ce memo", "pale")], ocr_layer=False)
    assert result.text == "Visible words.\n\nMore words." and result.removed[0].start == 16


def test_hidden_runs_are_carried_into_the_pages_table(tmp_path: Path) -> None:
    pdf = _hidden_page(tmp_path / "hidden.pdf")
    sha = hashlib.sha256(pdf.read_bytes()).hexdigest()
    doc = DocumentRecord(
        sha, sha[:2], ContentKind.PDF.value, "bytes", pdf.stat().st_size, None, None, str(pdf), "v1"
    )
    rows = extract_shard(
        doc.shard,
        [doc],
        version="v1",
        existing=ShardRows(),
        prior=None,
        limits=LIMITS,
        max_document_bytes=1 << 30,
    ).rows
    [page] = rows.pages[sha]
    assert page.hidden_text == [h.text for h in HIDDEN]
    assert page.hidden_why == [h.why for h in HIDDEN]
    wh = Warehouse(tmp_path / "wh")
    wh.write("pages", "v1", rows.sorted_pages(), shard=doc.shard)
    assert [PageRecord(**r) for r in wh.rows("pages", "v1", doc.shard)] == [page]


def test_pages_written_before_the_hidden_columns_still_load(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    page = PageRecord("ab" + "0" * 62, "ab", "v0", 1, "pymupdf", "1", "text", 4, 0.0, 0.0, 0, [], 0, 0, 0, 0)
    path = wh.write("pages", "v0", [page], shard="ab")
    old = pq.read_table(path).drop_columns(["hidden_text", "hidden_why"])
    pq.write_table(old, path)
    [row] = wh.rows("pages", "v0", "ab")
    assert (row["hidden_text"], row["hidden_why"]) == (None, None)
    back = PageRecord(**row)
    assert back == page and back.hidden_text == [] and back.hidden_why == []
    assert TABLES["pages"].schema.field("hidden_why").type == pa.list_(pa.string())
    # carried over to a new version as it is
    assert dataclasses.replace(back, extractor_version="v1").hidden_text == []


# --- normalisation ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("one\r\ntwo\rthree\n", "one\ntwo\nthree\n"),
        ("nul\x00 byte", "nul byte"),
        (
            "\ufb01nd the \ufb02ow, e\ufb00ect, o\ufb03ce, ba\ufb04e, \ufb05 \ufb06op",
            "find the flow, effect, office, baffle, st stop",
        ),
        ("cafe\u0301", "caf\u00e9"),
        ("hyphen\u00ad\nation", "hyphen-\nation"),
        ("hyphen\u00ad  \nation", "hyphen-  \nation"),
        ("soft\u00adly in the line", "softly in the line"),
        ("ends with a soft hyphen\u00ad", "ends with a soft hyphen-"),
        ("x\u00b2 and \u00bd stay", "x\u00b2 and \u00bd stay"),
    ],
)
def test_normalise(raw: str, clean: str) -> None:
    assert normalise(raw) == clean


@pytest.mark.parametrize(
    ("raw", "joined"),
    [
        ("infor-\nmation", "information"),
        ("the infor-\n   mation is here", "the information is here"),
        ("a long hyphen\u2010\nated word", "a long hyphenated word"),
        ("Jean-\nPaul", "Jean-\nPaul"),
        ("COVID-\n19", "COVID-\n19"),
        ("infor-\n\nmation", "infor-\n\nmation"),
        ("- item one\n- item two", "- item one\n- item two"),
        ("year 2019-\nend", "year 2019-\nend"),
        ("| cell | pre- |\nfix", "| cell | pre- |\nfix"),
        ("word-\n| cell |", "word-\n| cell |"),
        ("## Well-\nknown", "## Well-\nknown"),
        ("```\ncode-\nline\n```\nnext-\nline", "```\ncode-\nline\n```\nnextline"),
        ("a-\nb-\nc", "abc"),
        ("über-\nall", "überall"),
    ],
)
def test_join_hyphenated(raw: str, joined: str) -> None:
    assert join_hyphenated(raw) == joined


def test_normalise_then_join_a_drawn_soft_hyphen() -> None:
    assert join_hyphenated(normalise("the infor\u00ad\r\nmation")) == "the information"


#: Text made of the pieces the functions care about (line ends, NUL, soft hyphens, ligatures, combining
#: marks, hyphens, table pipes, code fences, indentation), or any text at all.
_PIECES = [
    *"abcXY 19-|#`~\t\n\r\x00\u00ad\u2010\u0301\u00e9",
    *("\ufb00", "\ufb01", "\ufb03", "\ufb05", "\ufb13", "```", "\r\n", "e\u0301", "    ", "-\n"),
]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=60).map("".join) | st.text(max_size=60)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_normalise_is_idempotent_and_introduces_no_cr_or_nul(text: str) -> None:
    once = normalise(text)
    assert normalise(once) == once
    assert "\r" not in once and "\x00" not in once
    assert unicodedata.is_normalized("NFC", once)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_join_hyphenated_is_idempotent_and_introduces_no_cr_or_nul(text: str) -> None:
    once = join_hyphenated(text)
    assert join_hyphenated(once) == once
    assert once.count("\r") <= text.count("\r") and once.count("\x00") <= text.count("\x00")
    clean = join_hyphenated(normalise(text))
    assert join_hyphenated(clean) == clean and "\r" not in clean and "\x00" not in clean


def test_pages_that_repeat_each_other_whole_lose_no_line() -> None:
    from quality.records import PageTextRecord
    from quality.sanitizer import sanitize_document

    body = "\n".join(f"Line {i} of a scanned page about water meters and their readings." for i in range(20))
    pages = [
        PageTextRecord(
            "a" * 64, "aa", "v", n, "REPLACE", "ocr", None, "tesseract", "5", 0.9, 90.0, 900, body, "no_text"
        )
        for n in range(1, 5)
    ]
    result = sanitize_document("a" * 64, "aa", "v", pages, {}, None, paged=True)
    assert result.furniture == [] and result.text is not None
    assert result.text.text.count("Line 0 of") == 4 and result.text.text.count("Line 19 of") == 4
