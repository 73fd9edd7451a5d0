"""Tagged PDFs: the structure tree's reading order, its pagination artifacts and its tables, read by the
PDF reader (readers/pdf/tagged_pages.py); a broken or missing tree leaves the untagged reading.

The PDFs are written here as bytes: a content stream of BDC/EMC marked content with MCIDs, drawn in an
order that differs from the tree's, a StructTreeRoot with /K kids and a /ParentTree, and the catalog's
/MarkInfo."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality.sanitizer import sanitize_document
from readers.core.model import FoundTable, OrderSource, ReadLimits
from readers.pdf.marked_content import MarkedChar
from readers.pdf.mupdf import PyMuPDFReader
from readers.pdf.structure_tree import is_tagged, structure_leaves
from readers.pdf.tagged_pages import _text, prefer_tagged
from tests.test_furniture_rules import _rows

HEAD = "Soil Survey Annual Report"
FOOT = "Page 7"
#: The body paragraphs by MCID; the content draws MCID 1 above MCID 0, and the tree reads 0 first.
PARAGRAPHS = {
    0: "First paragraph of the body, which the structure tree reads first.",
    1: "Second paragraph, drawn above the first but read after it.",
}
TABLE = (("Crop", "Yield"), ("barley", "12"))


def _pdf(objects: list[bytes]) -> bytes:
    """A whole PDF from its numbered objects (1..n, the first the catalog), with a correct xref."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    start = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, start)
    return bytes(out)


def _show(x: int, y: int, text: str, size: int = 11) -> bytes:
    return b"BT /F1 %d Tf %d %d Td (%s) Tj ET\n" % (size, x, y, text.encode("latin-1"))


def tagged_pdf(
    path: Path,
    *,
    order: tuple[int, ...] = (0, 1),
    marked: bool = True,
    document_kids: bytes | None = None,
    root_kids: bytes = b"6 0 R",
    body_row: bytes = b"[17 0 R 18 0 R]",
    stamp: str = "",
    title: str = "",
) -> Path:
    """A one-page tagged PDF: a running head and a page number as pagination artifacts, a rule as a
    layout artifact, two paragraphs (MCIDs 0, 1) drawn bottom-up, and a 2x2 table (TH row, TD row).

    ``order``: the paragraphs' MCIDs in the tree's order; ``document_kids`` replaces the Document
    element's /K, ``root_kids`` the StructTreeRoot's (to break the tree); ``marked``: the catalog's
    /MarkInfo says the document is tagged; ``body_row``: the body row's cells in the tree's order;
    ``stamp``: text drawn first, outside any marked content; ``title``: a first row of one cell (MCID 6)
    above the header row.
    """
    content = (
        (_show(400, 650, stamp) if stamp else b"")
        + b"/Artifact <</Type /Pagination /Subtype /Header>> BDC\n"
        + _show(72, 760, HEAD, 9)
        + b"EMC\n"
        b"/P <</MCID 1>> BDC\n" + _show(72, 700, PARAGRAPHS[1]) + b"EMC\n"
        b"/P <</MCID 0>> BDC\n"
        + _show(72, 600, PARAGRAPHS[0])
        + b"EMC\n"
        + (b"/TD <</MCID 6>> BDC\n" + _show(72, 520, title) + b"EMC\n" if title else b"")
        + b"/TH <</MCID 2>> BDC\n"
        + _show(72, 500, TABLE[0][0])
        + b"EMC\n"
        b"/TH <</MCID 3>> BDC\n" + _show(200, 500, TABLE[0][1]) + b"EMC\n"
        b"/TD <</MCID 4>> BDC\n" + _show(72, 480, TABLE[1][0]) + b"EMC\n"
        b"/TD <</MCID 5>> BDC\n" + _show(200, 480, TABLE[1][1]) + b"EMC\n"
        b"/Artifact <</Type /Layout>> BDC\n72 470 m 300 470 l S\nEMC\n"
        b"/Artifact <</Type /Pagination /Subtype /Footer>> BDC\n" + _show(300, 40, FOOT, 9) + b"EMC\n"
    )
    paragraph = {0: 7, 1: 8}  # MCID -> its P element's object number
    kids = document_kids or b"[" + b" ".join(b"%d 0 R" % paragraph[m] for m in order) + b" 9 0 R]"
    mark = b"/MarkInfo << /Marked true >> " if marked else b""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R " + mark + b"/StructTreeRoot 5 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /StructParents 0 "
        b"/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /StructTreeRoot /K " + root_kids + b" /ParentTree 14 0 R >>",
        b"<< /Type /StructElem /S /Document /P 5 0 R /K " + kids + b" >>",
        b"<< /Type /StructElem /S /P /P 6 0 R /Pg 3 0 R /K 0 >>",
        b"<< /Type /StructElem /S /P /P 6 0 R /Pg 3 0 R /K 1 >>",
        b"<< /Type /StructElem /S /Table /P 6 0 R /Pg 3 0 R /K [10 0 R 11 0 R] >>",
        b"<< /Type /StructElem /S /THead /P 9 0 R /K "
        + (b"[19 0 R 12 0 R]" if title else b"12 0 R")
        + b" >>",
        b"<< /Type /StructElem /S /TBody /P 9 0 R /K 13 0 R >>",
        b"<< /Type /StructElem /S /TR /P 10 0 R /K [15 0 R 16 0 R] >>",
        b"<< /Type /StructElem /S /TR /P 11 0 R /K " + body_row + b" >>",
        b"<< /Nums [0 [7 0 R 8 0 R 15 0 R 16 0 R 17 0 R 18 0 R 20 0 R]] >>",
        b"<< /Type /StructElem /S /TH /P 12 0 R /Pg 3 0 R /K 2 >>",
        b"<< /Type /StructElem /S /TH /P 12 0 R /Pg 3 0 R /K 3 >>",
        b"<< /Type /StructElem /S /TD /P 13 0 R /Pg 3 0 R /K 4 >>",
        b"<< /Type /StructElem /S /TD /P 13 0 R /K << /Type /MCR /Pg 3 0 R /MCID 5 >> >>",
        b"<< /Type /StructElem /S /TR /P 10 0 R /K [20 0 R] >>",
        b"<< /Type /StructElem /S /TD /P 19 0 R /Pg 3 0 R /K 6 >>",
    ]
    path.write_bytes(_pdf(objects))
    return path


def _read(path: Path):
    return PyMuPDFReader().read(path, ReadLimits()).pages[0]


def _letters(text: str) -> Counter[str]:
    return Counter(ch for ch in text if not ch.isspace() and ch not in "|-")


def test_the_gate_reads_the_catalog(tmp_path: Path) -> None:
    with pymupdf.open(tagged_pdf(tmp_path / "t.pdf")) as doc:
        assert is_tagged(doc)
    with pymupdf.open(tagged_pdf(tmp_path / "u.pdf", marked=False)) as doc:
        assert not is_tagged(doc)
    with pymupdf.open() as doc:  # a new, empty document has no catalog to speak of
        doc.new_page()
        assert not is_tagged(doc)


def test_the_page_reads_in_the_structure_trees_order(tmp_path: Path) -> None:
    page = _read(tagged_pdf(tmp_path / "t.pdf"))
    assert page.order.source == OrderSource.TAGGED.value
    assert page.order.confidence == 1.0 and page.order.columns == 1
    first, second = page.text.index(PARAGRAPHS[0]), page.text.index(PARAGRAPHS[1])
    assert first < second  # drawn the other way round
    assert page.text.index(HEAD) < first and page.text.rindex(FOOT) > page.text.index("barley")
    with pymupdf.open(tmp_path / "t.pdf") as doc:
        xref = doc.page_xref(0)
        assert [leaf.mcid for leaf in structure_leaves(doc) if leaf.page == xref] == [0, 1, 2, 3, 4, 5]


def test_pagination_artifacts_are_listed_and_sanitize_takes_them_out(tmp_path: Path) -> None:
    page = _read(tagged_pdf(tmp_path / "t.pdf"))
    assert page.artifacts == (HEAD, FOOT)
    lines = page.text.split("\n")
    assert HEAD in lines and FOOT in lines  # as they stand in the text, which sanitize then matches
    result = sanitize_document(
        "ab" * 32, "ab", "v", _rows([page.text]), {}, None, paged=True, artifacts={1: page.artifacts}
    )
    assert result.text is not None
    assert HEAD not in result.text.text and FOOT not in result.text.text
    assert PARAGRAPHS[0] in result.text.text
    assert {(f.text, f.why) for f in result.furniture} == {
        (HEAD, "tagged_artifact"),
        (FOOT, "tagged_artifact"),
    }


def test_the_tagged_table_is_one_found_table_written_as_gfm_where_it_stands(tmp_path: Path) -> None:
    page = _read(tagged_pdf(tmp_path / "t.pdf"))
    (table,) = page.tables
    assert table.source == "tagged" and table.confidence == 1.0
    assert table.cells == TABLE and table.header_rows == 1 and table.page == 1 and table.index == 0
    assert table.markdown == "| Crop | Yield |\n| --- | --- |\n| barley | 12 |"
    assert table.markdown in page.text
    assert page.text.index(PARAGRAPHS[1]) < page.text.index(table.markdown) < page.text.index(FOOT)
    x0, y0, x1, y1 = table.bbox
    # the cells' characters: from x=72 to past x=200, between the two rows' baselines (792 - 500, 480)
    assert 71 <= x0 < 73 and 200 < x1 < 260 and 280 < y0 < 292 < 312 < y1 < 316


def test_a_rows_cells_tagged_out_of_order_stand_left_to_right(tmp_path: Path) -> None:
    page = _read(tagged_pdf(tmp_path / "t.pdf", body_row=b"[18 0 R 17 0 R]"))
    (table,) = page.tables
    assert table.cells == TABLE


def test_a_title_tagged_as_the_tables_first_row_stays_text_above_it(tmp_path: Path) -> None:
    page = _read(tagged_pdf(tmp_path / "t.pdf", title="Crop Report 2015"))
    (table,) = page.tables
    assert table.cells == TABLE and table.header_rows == 1
    assert table.markdown.startswith("Crop Report 2015\n\n| Crop | Yield |\n| --- | --- |\n")
    assert table.bbox[1] > 792 - 515  # the title (baseline 520) is not inside the table's box


def test_text_the_tree_does_not_reach_follows_and_lowers_the_confidence(tmp_path: Path) -> None:
    page = _read(tagged_pdf(tmp_path / "t.pdf", stamp="COPY"))
    assert page.order.source == OrderSource.TAGGED.value and 0.9 <= page.order.confidence < 1.0
    assert page.text.index("barley") < page.text.index("COPY") < page.text.index(FOOT)
    long = _read(tagged_pdf(tmp_path / "l.pdf", stamp="A stamp long enough to be more than a tenth"))
    assert long.order.source != OrderSource.TAGGED.value  # the tree no longer covers the page


def test_every_character_is_read_once_in_either_reading(tmp_path: Path) -> None:
    tagged = _read(tagged_pdf(tmp_path / "t.pdf"))
    untagged = _read(tagged_pdf(tmp_path / "u.pdf", marked=False))
    assert _letters(tagged.text) == _letters(untagged.text)


def test_an_untagged_pdf_is_unaffected(tmp_path: Path) -> None:
    page = _read(tagged_pdf(tmp_path / "u.pdf", marked=False))
    assert page.order.source != OrderSource.TAGGED.value and page.structure.source != "tagged"
    # No tagged artifacts: its running head and page number, which no rule explains on a single page,
    # are the layout model's page-header and page-footer regions.
    assert all(table.source == "layout_model" for table in page.tables)
    assert page.artifacts == () or page.artifacts_source == "layout_model"
    assert page.text.index(PARAGRAPHS[1]) < page.text.index(PARAGRAPHS[0])  # the content's order
    assert "| --- |" not in page.text or page.structure.source == "layout_model"


@pytest.mark.parametrize(
    ("case", "changes"),
    [
        ("cycle", {"document_kids": b"[6 0 R 5 0 R]"}),
        ("root kid pointing nowhere", {"root_kids": b"999 0 R"}),
        ("kids that are no elements", {"document_kids": b"[(text) /Name 4 0 R 2 0 R]"}),
        ("missing MCIDs", {"document_kids": b"[7 0 R]"}),
        ("no kids", {"root_kids": b"null"}),
    ],
)
def test_a_broken_structure_tree_leaves_the_untagged_reading(tmp_path: Path, case: str, changes) -> None:
    broken = _read(tagged_pdf(tmp_path / "b.pdf", **changes))
    untagged = _read(tagged_pdf(tmp_path / "u.pdf", marked=False))
    assert broken.order.source != OrderSource.TAGGED.value, case
    # the untagged reading, the layout model's regions included where the rules were unsure
    assert broken.text == untagged.text and broken.artifacts == untagged.artifacts
    assert broken.tables == untagged.tables and broken.structure.source != "tagged"


def test_a_cycle_and_a_kid_pointing_nowhere_inside_a_covering_tree_are_skipped(tmp_path: Path) -> None:
    kids = b"[7 0 R 6 0 R 999 0 R 8 0 R 9 0 R 5 0 R]"
    page = _read(tagged_pdf(tmp_path / "c.pdf", document_kids=kids))
    assert page.order.source == OrderSource.TAGGED.value
    assert page.text.index(PARAGRAPHS[0]) < page.text.index(PARAGRAPHS[1])
    assert _letters(page.text) == _letters(_read(tagged_pdf(tmp_path / "u.pdf", marked=False)).text)


@settings(max_examples=12, deadline=None)
@given(st.permutations([0, 1]))
def test_the_text_follows_any_tree_order_and_keeps_every_character(
    tmp_path_factory, order: list[int]
) -> None:
    path = tagged_pdf(tmp_path_factory.mktemp("p") / "t.pdf", order=tuple(order))
    page = _read(path)
    positions = [page.text.index(PARAGRAPHS[m]) for m in order]
    assert positions == sorted(positions)
    untagged = _read(tagged_pdf(path.with_name("u.pdf"), marked=False))
    assert _letters(page.text) == _letters(untagged.text)


def _table(bbox, source: str) -> FoundTable:
    return FoundTable(1, 0, bbox, (("a", "b"), ("c", "d")), 1, "", source, 1.0)


def test_a_tagged_table_wins_over_a_found_one_it_overlaps() -> None:
    tagged = _table((100.0, 100.0, 300.0, 200.0), "tagged")
    same = _table((105.0, 102.0, 298.0, 205.0), "ruled")
    elsewhere = _table((100.0, 400.0, 300.0, 500.0), "aligned")
    touching = _table((290.0, 190.0, 400.0, 300.0), "ruled")  # overlaps by a corner only
    assert prefer_tagged([tagged], [same, elsewhere, touching]) == [tagged, elsewhere, touching]
    assert prefer_tagged([], [same]) == [same]


@pytest.mark.slow
def test_a_pipeline_run_records_the_tagged_order_and_the_artifacts_as_furniture(
    home: Path, tmp_path: Path
) -> None:
    from assets.progress import Progress
    from orchestration.home import Home
    from orchestration.runner import run
    from warehouse.duckdb_catalog import query

    folder = tmp_path / "corpus"
    folder.mkdir()
    tagged_pdf(folder / "tagged.pdf")
    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    wh = Home(home).warehouse
    ((sha,),) = query(wh, "select sha256 from documents where path like '%tagged.pdf'").rows
    assert query(wh, f"select reading_order from pages where sha256 = '{sha}'").rows == [("tagged",)]
    furniture = query(wh, f"select text, why from furniture where sha256 = '{sha}' order by text").rows
    assert furniture == [(FOOT, "tagged_artifact"), (HEAD, "tagged_artifact")]
    ((text,),) = query(wh, f"select text from texts where sha256 = '{sha}'").rows
    assert HEAD not in text and PARAGRAPHS[0] in text


_KID_TOKENS = [
    "7 0 R",
    "8 0 R",
    "9 0 R",
    "6 0 R",
    "5 0 R",
    "1 0 R",
    "999 0 R",
    "0",
    "1",
    "5",
    "-3",
    "/P",
    "(x)",
]
_KID_TOKENS += ["<< /Type /MCR /MCID 1 >>", "<< /Type /OBJR /Obj 7 0 R >>", "[7 0 R]", "null", "true"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(_KID_TOKENS), max_size=8), st.sampled_from(["6 0 R", "[6 0 R 6 0 R]", "7"]))
def test_any_structure_tree_reads_without_error_and_keeps_every_character(
    tmp_path_factory, kids: list[str], root: str
) -> None:
    folder = tmp_path_factory.mktemp("k")
    document_kids = ("[" + " ".join(kids) + "]").encode()
    page = _read(tagged_pdf(folder / "t.pdf", document_kids=document_kids, root_kids=root.encode()))
    untagged = _read(tagged_pdf(folder / "u.pdf", marked=False))
    assert _letters(page.text) == _letters(untagged.text)
    if page.order.source != OrderSource.TAGGED.value:
        assert page.text == untagged.text and page.artifacts == untagged.artifacts


def test_an_elements_keys_read_from_its_source_are_pymupdfs_own(tmp_path: Path) -> None:
    from readers.pdf.structure_tree import _keys

    kids = b"[7 0 R 8 0 R 9 0 R] /Alt (a /K 3 and /S /Fake) /A << /O /Layout >>"
    with pymupdf.open(tagged_pdf(tmp_path / "t.pdf", document_kids=kids)) as doc:
        for xref in range(1, doc.xref_length()):
            if doc.xref_is_stream(xref):
                continue
            s_kind, s = doc.xref_get_key(xref, "S")
            pg_kind, pg = doc.xref_get_key(xref, "Pg")
            expected = (
                s.lstrip("/") if s_kind == "name" else None,
                int(pg.split()[0]) if pg_kind == "xref" else -1,
                doc.xref_get_key(xref, "K"),
            )
            assert _keys(doc, xref) == expected, xref


def _char(text: str, x: float, y: float) -> MarkedChar:
    return MarkedChar(text, (x, y, x + 5.0, y + 10.0), 10.0, 0, False, False, 0)


def test_characters_become_lines_with_a_space_at_a_gap_and_no_blank_edges() -> None:
    assert _text([]) == ""
    assert _text(iter([_char("a", 0, 0)])) == "a"
    line = [_char("a", 0, 0), _char("b", 5, 0), _char("c", 20, 0), _char(" ", 25, 0)]
    assert _text([*line, _char("d", 0, 20), _char(" ", 5, 20)]) == "ab c\nd"
    assert _text([_char(" ", 0, 0), _char("x", 0, 20), _char(" ", 0, 40)]) == "x"


@pytest.mark.parametrize("kids", ["[0]", "[ 0 ]", "[00]", "[0 99 0 R]", "[0 << /MCID 7 >>]"])
def test_a_one_item_k_array_reads_as_the_item_alone(tmp_path: Path, kids: str) -> None:
    with pymupdf.open(tagged_pdf(tmp_path / "t.pdf")) as doc:
        plain = structure_leaves(doc)
        doc.xref_set_key(7, "K", kids)  # the P element of MCID 0
        leaves = structure_leaves(doc)
    extra = 1 if "MCID 7" in kids else 0  # an MCR dictionary after the MCID is one more leaf
    assert leaves[:1] + leaves[1 + extra :] == plain
    assert [leaf.mcid for leaf in leaves[: 1 + extra]] == [0, 7][: 1 + extra]


# --- right-to-left lines ----------------------------------------------------------------------------

#: Hebrew letters drawn with Helvetica's codes a-z, a ToUnicode CMap mapping them to U+05D0-U+05E9.
_HEBREW_CMAP = (
    b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Hebrew def\n"
    b"1 begincodespacerange <00> <FF> endcodespacerange\n"
    b"1 beginbfrange <61> <7A> <05D0> endbfrange\n"
    b"endcmap CMapName currentdict /CMap defineresource pop end end"
)
#: Two lines in reading (logical) order: Hebrew words with a number and a question mark.
RTL_LINES = ("שלום עולם 15 פעמים?", "אני כבר ילד")


def _hebrew_bytes(text: str) -> bytes:
    return bytes(ord(ch) - 0x05D0 + 0x61 if "\u05d0" <= ch <= "\u05ea" else ord(ch) for ch in text)


def _visual(line: str) -> str:
    """The line as it stands on the page, left to right (the inverse of readers.pdf.bidi.logical_line)."""
    from readers.pdf.bidi import logical_line

    return logical_line(line)  # for these lines (no brackets) the reordering is its own inverse


def rtl_tagged_pdf(path: Path, *, logical: bool) -> Path:
    """A one-page tagged PDF of RTL_LINES, one paragraph (MCID 0), right-aligned at x=400.

    Each character is drawn on its own at its place: ``logical=False`` left to right (visual order, as
    most producers write it); ``logical=True`` in reading order, right to left, with no space drawn
    between words (a gap).
    """
    helvetica = pymupdf.Font("helv")
    content = b"/P <</MCID 0>> BDC\n"
    for row, line in enumerate(RTL_LINES):
        y = 700 - 20 * row
        visual = _hebrew_bytes(_visual(line))
        # Each glyph's left edge, left to right, as Helvetica advances over the line's codes.
        lefts, x = [], 400.0 - helvetica.text_length(visual.decode("latin-1"), 11)
        for code in visual:
            lefts.append(x)
            x += helvetica.text_length(chr(code), 11)
        glyphs = list(zip(lefts, visual, strict=True))
        if logical:  # reading order: right to left, but a number's digits left to right
            glyphs = [g for g in glyphs if g[1] != 0x20]
            glyphs.reverse()
            for i, (_, code) in enumerate(glyphs):
                if chr(code).isdigit() and (i == 0 or not chr(glyphs[i - 1][1]).isdigit()):
                    end = i
                    while end < len(glyphs) and chr(glyphs[end][1]).isdigit():
                        end += 1
                    glyphs[i:end] = reversed(glyphs[i:end])
        for gx, code in glyphs:
            content += b"BT /F1 11 Tf %.2f %d Td (%s) Tj ET\n" % (gx, y, bytes([code]))
    content += b"EMC\n"
    cmap = b"<< /Length %d >>\nstream\n" % len(_HEBREW_CMAP) + _HEBREW_CMAP + b"\nendstream"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /MarkInfo << /Marked true >> /StructTreeRoot 5 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /StructParents 0 "
        b"/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
        b"/ToUnicode 9 0 R >> >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /StructTreeRoot /K 6 0 R /ParentTree 8 0 R >>",
        b"<< /Type /StructElem /S /Document /P 5 0 R /K [7 0 R] >>",
        b"<< /Type /StructElem /S /P /P 6 0 R /Pg 3 0 R /K 0 >>",
        b"<< /Nums [0 [7 0 R]] >>",
        cmap,
    ]
    path.write_bytes(_pdf(objects))
    return path


@pytest.mark.parametrize("logical", [False, True], ids=["drawn-visual", "drawn-logical"])
def test_right_to_left_lines_read_in_the_trees_order_come_out_in_logical_order(
    tmp_path: Path, logical: bool
) -> None:
    page = _read(rtl_tagged_pdf(tmp_path / "rtl.pdf", logical=logical))
    assert page.order.source == OrderSource.TAGGED.value
    assert page.text.split("\n") == list(RTL_LINES)


def test_a_table_the_tree_does_not_tag_is_written_as_a_table_where_it_stands(tmp_path: Path) -> None:
    """A tagged page whose tree holds a table's lines as a paragraph, with no Table element: the table the
    finders see there is written in the tree's order in place of its lines, once."""
    rows = [("Crop", "2022", "2023"), ("Barley", "12", "14"), ("Wheat", "30", "33"), ("Oats", "7", "9")]
    content = b"/P <</MCID 0>> BDC\n" + _show(72, 700, PARAGRAPHS[0]) + b"EMC\n/P <</MCID 1>> BDC\n"
    for index, row in enumerate(rows):
        y = 640 - 16 * index
        content += _show(72, y, row[0])
        for column, cell in enumerate(row[1:]):
            right = 260 + 80 * column
            content += _show(right - round(pymupdf.get_text_length(cell, fontsize=11)), y, cell)
    content += b"EMC\n"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /MarkInfo << /Marked true >> /StructTreeRoot 5 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /StructParents 0 "
        b"/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /StructTreeRoot /K 6 0 R /ParentTree 9 0 R >>",
        b"<< /Type /StructElem /S /Document /P 5 0 R /K [7 0 R 8 0 R] >>",
        b"<< /Type /StructElem /S /P /P 6 0 R /Pg 3 0 R /K 0 >>",
        b"<< /Type /StructElem /S /P /P 6 0 R /Pg 3 0 R /K 1 >>",
        b"<< /Nums [0 [7 0 R 8 0 R]] >>",
    ]
    path = tmp_path / "untagged-table.pdf"
    path.write_bytes(_pdf(objects))

    page = _read(path)
    assert page.order.source == OrderSource.TAGGED.value
    [table] = page.tables
    assert [list(row) for row in table.cells] == [list(row) for row in rows]
    assert page.text.index(PARAGRAPHS[0]) < page.text.index(table.markdown)
    assert page.text.count("Barley") == 1
