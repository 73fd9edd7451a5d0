"""The two PDF readers on PDFs generated here with PyMuPDF, and on the shared corpus where present.

Every fixture is written into pytest's ``tmp_path`` by the helpers below, so the tests say exactly
what the PDF holds. Nothing here times anything: speed is ``benchmarks/bench_extract.py``'s job.
"""

from __future__ import annotations

import csv
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pymupdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readers.core.base import Reader, produced_nothing
from readers.core.errors import CorruptDocument, EncryptedDocument, LimitExceeded, ReaderError
from readers.core.model import ContentKind, ReadLimits, ReadResult
from readers.pdf.mupdf import PyMuPDFReader
from readers.pdf.plumber import PdfPlumberReader
from tests.hostile import pdf_bytes

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
LIMITS = ReadLimits()
BODY = "helv"  # Helvetica
BOLD = "hebo"  # Helvetica-Bold

READERS: list[Callable[[], Reader]] = [PyMuPDFReader, PdfPlumberReader]
reader_ids = ["pymupdf", "pdfplumber"]


# --- fixture writers --------------------------------------------------------------------------------


def save(doc: pymupdf.Document, path: Path, **options: object) -> Path:
    doc.save(path, **options)
    doc.close()
    return path


def text_pdf(path: Path, pages: list[str]) -> Path:
    """One page per string, each written as 11 pt Helvetica lines from the top left."""
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_text((72, 72), text, fontname=BODY, fontsize=11)
    return save(doc, path)


def paragraph(page: pymupdf.Page, y: float, lines: list[str], *, font: str = BODY, size: float = 11) -> float:
    """Write ``lines`` as one block starting at ``y``; return the y below it."""
    page.insert_text((72, y), "\n".join(lines), fontname=font, fontsize=size)
    return y + len(lines) * size * 1.2 + 24


BODY_LINES = [
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Pack my box with five dozen liquor jugs before the night is over.",
    "How vexingly quick daft zebras jump when the wind blows hard.",
]


def heading_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    y = paragraph(page, 72, ["Annual Report"], font=BOLD, size=24)
    y = paragraph(page, y, BODY_LINES)
    y = paragraph(page, y, ["Methods and Materials"], font=BOLD, size=11)
    paragraph(page, y, BODY_LINES)
    return save(doc, path)


TABLE = [["Name", "City", "Count"], ["Alice", "Berlin", "12"], ["Bob", "Paris", "7"], ["Carol", "Rome", "3"]]


def ruled_table_pdf(path: Path) -> Path:
    """A paragraph, a 4x3 grid of ruled cells holding TABLE, another paragraph."""
    doc = pymupdf.open()
    page = doc.new_page()
    paragraph(page, 72, ["Before the table comes this sentence."])
    x0, y0, width, height = 72.0, 120.0, 120.0, 24.0
    rows, cols = len(TABLE), len(TABLE[0])
    for r in range(rows + 1):
        page.draw_line((x0, y0 + r * height), (x0 + cols * width, y0 + r * height), width=0.8)
    for c in range(cols + 1):
        page.draw_line((x0 + c * width, y0), (x0 + c * width, y0 + rows * height), width=0.8)
    for r, row in enumerate(TABLE):
        for c, cell in enumerate(row):
            page.insert_text((x0 + c * width + 6, y0 + r * height + 16), cell, fontname=BODY, fontsize=11)
    paragraph(page, y0 + rows * height + 40, ["After the table comes this sentence."])
    return save(doc, path)


def image_only_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 64, 64))
    pixmap.clear_with(180)
    page.insert_image(pymupdf.Rect(72, 72, 472, 472), pixmap=pixmap)
    return save(doc, path)


def encrypted_pdf(path: Path, user_pw: str) -> Path:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Secret but readable text", fontname=BODY, fontsize=11)
    return save(doc, path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=user_pw, owner_pw="owner-pw")


# --- both readers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("make", READERS, ids=reader_ids)
def test_reader_identity(make: Callable[[], Reader]) -> None:
    reader = make()
    assert reader.kinds == frozenset({ContentKind.PDF})
    assert isinstance(reader.revision, int) and reader.revision >= 1
    assert reader.version.startswith(f"{reader.revision}+")
    assert reader.tool_version and re.match(r"\d", reader.tool_version)


@pytest.mark.parametrize("make", READERS, ids=reader_ids)
def test_born_digital_pages_are_numbered_from_one(make: Callable[[], Reader], tmp_path: Path) -> None:
    texts = ["First page text", "Second page text", "Third page text"]
    result = make().read(text_pdf(tmp_path / "three.pdf", texts), LIMITS)
    assert result.page_count == 3
    assert [page.page for page in result.pages] == [1, 2, 3]
    assert [page.text.strip() for page in result.pages] == texts
    facts = result.pages[0].facts
    assert (facts.width, facts.height) == (595.0, 842.0)
    assert facts.fonts == 1 and "Helvetica" in facts.font_names[0]
    assert (facts.images, facts.drawings, facts.tables) == (0, 0, 0)
    assert not produced_nothing(result)


@pytest.mark.parametrize("make", READERS, ids=reader_ids)
def test_image_only_page_gives_empty_text(make: Callable[[], Reader], tmp_path: Path) -> None:
    result = make().read(image_only_pdf(tmp_path / "scan.pdf"), LIMITS)
    assert result.page_count == 1
    assert result.pages[0].text.strip() == ""
    assert result.pages[0].facts.images == 1
    assert produced_nothing(result)


def test_inline_image_is_counted(tmp_path: Path) -> None:
    """An inline image (BI ... ID ... EI) is named by no resource, and still counts."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "caption", fontname=BODY, fontsize=11)
    two_by_two_grey = b"BI /W 2 /H 2 /CS /G /BPC 8 ID \x00\xff\xff\x00 EI"
    doc.update_stream(page.get_contents()[0], b"q 100 0 0 100 72 600 cm " + two_by_two_grey + b" Q")
    result = PyMuPDFReader().read(save(doc, tmp_path / "inline.pdf"), LIMITS)
    assert result.pages[0].facts.images == 1


@pytest.mark.parametrize("make", READERS, ids=reader_ids)
def test_empty_user_password_opens(make: Callable[[], Reader], tmp_path: Path) -> None:
    result = make().read(encrypted_pdf(tmp_path / "open.pdf", user_pw=""), LIMITS)
    assert "Secret but readable text" in result.text
    assert "opened_with_empty_password" in result.notes


@pytest.mark.parametrize("make", READERS, ids=reader_ids)
def test_real_user_password_is_encrypted(make: Callable[[], Reader], tmp_path: Path) -> None:
    with pytest.raises(EncryptedDocument) as caught:
        make().read(encrypted_pdf(tmp_path / "locked.pdf", user_pw="s3cret"), LIMITS)
    assert caught.value.reason == "encrypted"


@pytest.mark.parametrize("make", READERS, ids=reader_ids)
def test_zero_byte_file_is_empty_file(make: Callable[[], Reader], tmp_path: Path) -> None:
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    with pytest.raises(CorruptDocument) as caught:
        make().read(path, LIMITS)
    assert caught.value.reason == "empty_file"


@pytest.mark.parametrize("make", READERS, ids=reader_ids)
def test_junk_bytes_are_corrupt(make: Callable[[], Reader], tmp_path: Path) -> None:
    path = tmp_path / "junk.pdf"
    path.write_bytes(random.Random(1234).randbytes(8192))
    with pytest.raises(CorruptDocument) as caught:
        make().read(path, LIMITS)
    assert caught.value.reason == "corrupt"


@pytest.mark.parametrize("make", READERS, ids=reader_ids)
def test_truncated_pdf_never_raises_a_foreign_error(make: Callable[[], Reader], tmp_path: Path) -> None:
    """A valid PDF cut in half: read what can be read, or raise a ReaderError, nothing else."""
    whole = text_pdf(tmp_path / "whole.pdf", [f"Page {n} says hello" for n in range(1, 7)]).read_bytes()
    path = tmp_path / "half.pdf"
    path.write_bytes(whole[: len(whole) // 2])
    try:
        result = make().read(path, LIMITS)
    except ReaderError:
        return
    assert result.page_count == len(result.pages)
    assert [page.page for page in result.pages] == list(range(1, result.page_count + 1))


@pytest.mark.parametrize("make", READERS, ids=reader_ids)
def test_missing_file_is_a_reader_error(make: Callable[[], Reader], tmp_path: Path) -> None:
    with pytest.raises(ReaderError) as caught:
        make().read(tmp_path / "nowhere.pdf", LIMITS)
    assert caught.value.reason == "unreadable"


@pytest.mark.parametrize("make", READERS, ids=reader_ids)
def test_page_limit(make: Callable[[], Reader], tmp_path: Path) -> None:
    path = text_pdf(tmp_path / "three.pdf", ["one", "two", "three"])
    with pytest.raises(LimitExceeded) as caught:
        make().read(path, ReadLimits(max_pages=2))
    assert caught.value.reason == "over_limit"
    assert make().read(path, ReadLimits(max_pages=3)).page_count == 3


@pytest.mark.parametrize("make", READERS, ids=reader_ids)
def test_text_limit(make: Callable[[], Reader], tmp_path: Path) -> None:
    path = text_pdf(tmp_path / "long.pdf", ["a line of text that is longer than the limit"])
    with pytest.raises(LimitExceeded):
        make().read(path, ReadLimits(max_text_bytes=10))


def test_the_second_opinion_reads_only_the_pages_asked_for(tmp_path: Path) -> None:
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    path = text_pdf(tmp_path / "six.pdf", [f"page {word}" for word in words])
    plumber = PdfPlumberReader()
    texts = plumber.read_pages(path, [5, 2, 2, 0, -1, 9], LIMITS)
    assert texts == {2: "page bravo", 5: "page echo"}
    # Never past the page bound: the pages after it are not read, and the rest are.
    assert plumber.read_pages(path, [1, 4], ReadLimits(max_pages=3)) == {1: "page alpha"}
    assert plumber.read_pages(path, [], LIMITS) == {}
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    with pytest.raises(ReaderError):
        plumber.read_pages(junk, [1], LIMITS)


# --- PyMuPDF: markdown, raw text, robustness -----------------------------------------------------


def test_heading_from_a_larger_bold_font(tmp_path: Path) -> None:
    result = PyMuPDFReader().read(heading_pdf(tmp_path / "report.pdf"), LIMITS)
    lines = result.pages[0].text.splitlines()
    assert "# Annual Report" in lines
    assert "#### Methods and Materials" in lines  # a standalone bold line at body size
    assert BODY_LINES[0] in lines  # body text stays text
    assert result.pages[0].facts.headings == 2


def test_blocks_mirror_the_text(tmp_path: Path) -> None:
    """The model blocks hold the spans the markdown was written from, in MuPDF's reading order."""
    page = PyMuPDFReader().read(heading_pdf(tmp_path / "report.pdf"), LIMITS).pages[0]
    lines = [line.text.strip() for block in page.blocks for line in block.lines]
    assert lines == ["Annual Report", *BODY_LINES, "Methods and Materials", *BODY_LINES]
    title = page.blocks[0].lines[0].spans[0]
    assert (title.font, title.bold, title.invisible) == ("Helvetica-Bold", True, False)
    assert title.size == pytest.approx(24) and title.bbox[0] == pytest.approx(72, abs=1)
    facts = page.facts  # a plain text page: no images, figures, outlines or hidden text
    assert (facts.image_coverage, facts.vector_figure_area, facts.invisible_share) == (0.0, 0.0, 0.0)
    assert (facts.outline_text_paths, facts.invisible_chars, facts.ocr_font_hint) == (0, 0, False)


def test_body_lines_are_not_headings(tmp_path: Path) -> None:
    path = text_pdf(tmp_path / "plain.pdf", ["\n".join(BODY_LINES)])
    page = PyMuPDFReader().read(path, LIMITS).pages[0]
    assert page.facts.headings == 0
    assert not any(line.startswith("#") for line in page.text.splitlines())


def test_ruled_table_becomes_gfm_in_reading_order(tmp_path: Path) -> None:
    page = PyMuPDFReader().read(ruled_table_pdf(tmp_path / "table.pdf"), LIMITS).pages[0]
    expected = ["| " + " | ".join(row) + " |" for row in TABLE]
    expected.insert(1, "| --- | --- | --- |")
    text = page.text
    assert "\n".join(expected) in text
    assert text.index("Before the table") < text.index("| Name |") < text.index("After the table")
    for row in TABLE:
        for cell in row:  # each cell once: inside the table, not again in the flow text
            assert len(re.findall(rf"\b{cell}\b", text)) == 1, cell
    assert page.facts.tables == 1
    assert page.facts.drawings == 9  # 5 horizontal and 4 vertical rules


def test_table_cells_agree_with_find_tables(tmp_path: Path) -> None:
    """The reader's own grid finder and PyMuPDF's find_tables (lines strategy) see the same cells."""
    path = ruled_table_pdf(tmp_path / "table.pdf")
    with pymupdf.open(path) as doc:
        found = doc[0].find_tables(use_layout=False)
        assert found is not None and len(found.tables) == 1
        theirs = [[(cell or "").strip() for cell in row] for row in found.tables[0].extract()]
    text = PyMuPDFReader().read(path, LIMITS).pages[0].text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    ours = [[cell.strip() for cell in row.strip("| ").split(" | ")] for row in rows]
    assert ours == theirs == TABLE


def test_boxes_without_text_are_not_a_table(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    for r in range(3):
        for c in range(3):
            page.draw_rect(pymupdf.Rect(72 + c * 50, 72 + r * 50, 122 + c * 50, 122 + r * 50))
    paragraph(page, 300, BODY_LINES)
    result = PyMuPDFReader().read(save(doc, tmp_path / "boxes.pdf"), LIMITS)
    assert result.pages[0].facts.tables == 0
    assert "|" not in result.pages[0].text


def test_text_is_raw(tmp_path: Path) -> None:
    """Blanks inside a line survive, and a code the font cannot map to Unicode stays U+FFFD.

    (A tab written with Helvetica's WinAnsi encoding has no glyph name, hence no Unicode: MuPDF says
    U+FFFD, which the bad-rune signal counts. With TEXT_CID_FOR_UNKNOWN_UNICODE it would be a tab.)
    """
    path = text_pdf(tmp_path / "raw.pdf", ["left    right", "tab\there"])
    pages = PyMuPDFReader().read(path, LIMITS).pages
    assert pages[0].text == "left    right"
    assert pages[1].text == "tab\ufffdhere"


def test_a_failing_page_is_recorded_and_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = text_pdf(tmp_path / "three.pdf", ["first", "second", "third"])
    original = pymupdf.Page.get_textpage

    def broken_second_page(self: pymupdf.Page, *args: object, **kwargs: object) -> pymupdf.TextPage:
        if self.number == 1:
            raise RuntimeError("simulated MuPDF failure")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "get_textpage", broken_second_page)
    result = PyMuPDFReader().read(path, LIMITS)
    assert [page.text for page in result.pages] == ["first", "", "third"]
    assert "page_failed:2" in result.notes


def test_unexpected_library_errors_become_corrupt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = text_pdf(tmp_path / "one.pdf", ["text"])

    def explode(self: pymupdf.Document) -> int:
        raise ValueError("simulated")

    monkeypatch.setattr(pymupdf.Document, "page_count", property(explode))
    with pytest.raises(CorruptDocument) as caught:
        PyMuPDFReader().read(path, LIMITS)
    assert isinstance(caught.value.__cause__, ValueError)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hypothesis")


#: Printable text: letters, marks, digits, punctuation, symbols and spaces of the Basic Multilingual
#: Plane. (Astral characters work too, but insert_text spends ~15 ms on each looking for a fallback
#: font, which would make this test slow without testing the reader any harder.)
PRINTABLE = st.text(
    alphabet=st.characters(categories=("L", "M", "N", "P", "S", "Zs"), max_codepoint=0xFFFF),
    max_size=120,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pages=st.lists(PRINTABLE, min_size=1, max_size=4), size=st.floats(min_value=4, max_value=40))
def test_any_printable_text_reads_without_error(scratch: Path, pages: list[str], size: float) -> None:
    doc = pymupdf.open()
    for text in pages:
        doc.new_page().insert_text((36, 72), text, fontname=BODY, fontsize=size)
    path = save(doc, scratch / "prop.pdf")
    result = PyMuPDFReader().read(path, LIMITS)
    assert isinstance(result, ReadResult)
    assert result.page_count == len(pages) == len(result.pages)
    assert result.notes == ()


# --- the shared corpus ------------------------------------------------------------------------------


def corpus_rows() -> Iterator[dict[str, str]]:
    manifest = CORPUS / "manifest.csv"
    if not manifest.is_file():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    with manifest.open(newline="", encoding="utf-8") as handle:
        yield from csv.DictReader(handle)


def corpus_file(name: str) -> Path:
    path = CORPUS / "dev" / name
    if not path.is_file():
        pytest.skip(f"{name} is not in the shared corpus at {CORPUS}")
    return path


@pytest.mark.corpus
def test_corpus_born_digital_pdfs_give_text() -> None:
    rows = [row for row in corpus_rows() if row["kind"] == "pdf-born-digital"]
    assert rows
    reader, empty = PyMuPDFReader(), []
    for row in rows:
        result = reader.read(CORPUS / row["path"], LIMITS)
        assert result.page_count == len(result.pages) >= 1
        if produced_nothing(result):
            empty.append(row["path"])
    assert empty == []


@pytest.mark.corpus
def test_corpus_empty_user_password_opens() -> None:
    result = PyMuPDFReader().read(corpus_file("pdfminer__issue-625-identity-cmap.pdf"), LIMITS)
    assert not produced_nothing(result)
    assert "opened_with_empty_password" in result.notes


@pytest.mark.corpus
@pytest.mark.parametrize("make", READERS, ids=reader_ids)
@pytest.mark.parametrize(
    "name", ["pyp__libreoffice-writer-password.pdf", "pdfminer__aes-256.pdf", "unst__password.pdf"]
)
def test_corpus_password_protected_pdfs_are_encrypted(make: Callable[[], Reader], name: str) -> None:
    with pytest.raises(EncryptedDocument):
        make().read(corpus_file(name), LIMITS)


@pytest.mark.corpus
def test_corpus_ruled_table_is_gfm() -> None:
    page = PyMuPDFReader().read(corpus_file("plumb__ca-warn-report.pdf"), LIMITS).pages[0]
    assert page.facts.tables == 1
    assert "| Notice Date | Effective | Received | Company | City |" in page.text


# --- a PDF whose page tree is lost ---------------------------------------------------------------------

STREAMED_LINES = (
    "The reservoir held {n} million litres after the spring rains.",
    "Pump station {n} ran on its backup generator for three days.",
)


def streamed_pdf(pages: int) -> tuple[bytes, list[int]]:
    """A PDF written as streaming writers write one: each page (its content, then its page object) in
    turn, the page tree, the catalog and the cross-references last; and where each page object ends."""
    objects: dict[int, bytes] = {1: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    tree = 2 + 2 * pages
    order, kids = [1], []
    for i in range(pages):
        content, page = 2 + 2 * i, 3 + 2 * i
        lines = b" ".join(b"(%s) '" % line.format(n=i + 1).encode() for line in STREAMED_LINES)
        ops = b"BT /F1 11 Tf 72 760 Td 16 TL " + lines + b" ET"
        objects[content] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(ops), ops)
        objects[page] = (
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Contents %d 0 R "
            b"/Resources << /Font << /F1 1 0 R >> >> >>" % (tree, content)
        )
        order += [content, page]
        kids.append(page)
    objects[tree] = b"<< /Type /Pages /Count %d /Kids [%s] >>" % (
        pages,
        b" ".join(b"%d 0 R" % k for k in kids),
    )
    objects[tree + 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    order += [tree, tree + 1]
    out, offsets, ends = bytearray(b"%PDF-1.7\n"), {}, []
    for number in order:
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, objects[number])
        if number in kids:
            ends.append(len(out))
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (tree + 2)
    out += b"".join(b"%010d 00000 n \n" % offsets[n] for n in range(1, tree + 2))
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (tree + 2, tree + 1, xref)
    return bytes(out), ends


@pytest.mark.parametrize("tail", ["cut", "garbage"])
def test_a_pdf_good_for_three_pages_then_cut_or_garbage_keeps_its_three_pages(
    tmp_path: Path, tail: str
) -> None:
    """Its page tree, catalog and cross-references went with the tail: MuPDF's repair found no page and
    pdfminer no /Root, so the document read as empty. Its three whole pages are read, and a line says so."""
    from readers.engine.dispatch import extract_document
    from readers.images.tesseract import render_page
    from readers.pdf.page_facts import font_texts
    from readers.pdf.salvage import open_pdf_file

    data, ends = streamed_pdf(6)
    rest = len(data) - ends[2]
    junk = random.Random(3).randbytes(rest) if tail == "garbage" else b""
    path = tmp_path / f"{tail}.pdf"
    path.write_bytes(data[: ends[2]] + junk)
    result = PyMuPDFReader().read(path, LIMITS)
    assert result.page_count == 3
    for n, page in enumerate(result.pages, start=1):
        assert STREAMED_LINES[0].format(n=n) in page.text and STREAMED_LINES[1].format(n=n) in page.text
    assert result.unread == ("page_tree_lost:pages_kept=3",)
    extraction = extract_document(
        path, ContentKind.PDF, size=path.stat().st_size, limits=LIMITS, max_bytes=1 << 30
    )
    assert extraction.status.value == "derived" and extraction.reader == "pymupdf"
    assert "pymupdf: unread: page_tree_lost:pages_kept=3" in (extraction.diagnostics or "")
    # The later stages open it as the reader did: the same three pages.
    assert "Helvetica" in font_texts(path, 3)
    assert render_page(path, 3, 72, opener=open_pdf_file).size == (595, 842)
    # A whole file is read as ever, with nothing unread.
    whole = tmp_path / "whole.pdf"
    whole.write_bytes(data)
    assert (
        PyMuPDFReader().read(whole, LIMITS).page_count == 6
        and PyMuPDFReader().read(whole, LIMITS).unread == ()
    )


def _vertical_pdf(columns: list[str]) -> bytes:
    """A page of Japanese set top to bottom (a predefined vertical CMap, ``UniJIS-UCS2-V``), one column
    per string, right to left: MuPDF reports each character as its own line, as in real vertical PDFs."""
    ops = [
        f"BT /F1 20 Tf 1 0 0 1 {500 - 30 * i} 750 Tm <{''.join(f'{ord(c):04X}' for c in column)}> Tj ET"
        for i, column in enumerate(columns)
    ]
    content = "\n".join(ops).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >>"
        b" /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type0 /BaseFont /HeiseiMin-W3 /Encoding /UniJIS-UCS2-V"
        b" /DescendantFonts [6 0 R] >>",
        b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /HeiseiMin-W3 /CIDSystemInfo << /Registry (Adobe)"
        b" /Ordering (Japan1) /Supplement 2 >> /FontDescriptor 7 0 R /DW 1000 >>",
        b"<< /Type /FontDescriptor /FontName /HeiseiMin-W3 /Flags 4 /FontBBox [0 -200 1000 900]"
        b" /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>",
    ]
    return pdf_bytes(objects)


def test_vertical_writing_reads_a_column_as_one_line(tmp_path: Path) -> None:
    """A column of vertical Japanese is one line of text, without a break or a space between its
    characters, and the columns come right to left."""
    path = tmp_path / "vertical.pdf"
    path.write_bytes(_vertical_pdf(["わたくしといふ現象は", "假定された有機交流電燈の"]))
    text = PyMuPDFReader().read(path, LIMITS).pages[0].text
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines == ["わたくしといふ現象は", "假定された有機交流電燈の"]


def test_horizontal_lines_side_by_side_stay_apart(tmp_path: Path) -> None:
    """Joining stacked vertical pieces leaves ordinary lines alone: two short lines one above the other
    stay two lines."""
    path = tmp_path / "lines.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "A", fontsize=12)
    page.insert_text((72, 114), "B", fontsize=12)
    doc.save(path)
    text = PyMuPDFReader().read(path, LIMITS).pages[0].text
    assert [line for line in text.splitlines() if line.strip()] == ["A", "B"]


def _vertical_run_pdf(descendant_inline: bool) -> bytes:
    """A page with "Hello", then a run of hiragana in a composite font with the ``Identity-V`` encoding
    (vertical writing) whose CID font has no font descriptor, then "World", all in one text object: where
    "World" is drawn depends on how far the vertical run advanced (down, not right)."""
    hiragana = "".join(f"{cid:04X}" for cid in (843, 845, 847, 849, 851))  # あいうえお in Adobe-Japan1
    content = f"BT /F1 48 Tf 0 700 Td (Hello) Tj /F2 48 Tf <{hiragana}> Tj /F1 24 Tf (World) Tj ET".encode()
    cid_font = (
        b"<< /Type /Font /Subtype /CIDFontType0 /CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1)"
        b" /Supplement 1 >> >>"
    )
    descendants = b"[" + cid_font + b"]" if descendant_inline else b"[7 0 R]"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R"
        b" /F2 6 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Font /Subtype /Type0 /BaseFont /Ryumin-Light-Identity-V /Encoding /Identity-V"
        b" /DescendantFonts " + descendants + b" >>",
        cid_font,
    ]
    return pdf_bytes(objects)


@pytest.mark.parametrize("descendant_inline", [True, False])
def test_vertical_run_in_a_font_without_descriptor_reads_as_a_column(
    tmp_path: Path, descendant_inline: bool
) -> None:
    """A CID font without its font descriptor is given one: its vertical run is read as the characters
    it draws, in one column, and the text drawn after it stays on the page, below the column, read after
    what precedes the run."""
    path = tmp_path / "vertical_run.pdf"
    path.write_bytes(_vertical_run_pdf(descendant_inline))
    result = PyMuPDFReader().read(path, LIMITS)
    page = result.pages[0]
    assert "あいうえお" in page.text
    assert "World" in page.text and page.text.index("Hello") < page.text.index("World")
    spans = {span.text: span.bbox for block in page.blocks for line in block.lines for span in line.spans}
    kana = [box for text, box in spans.items() if text in "あいうえお"]
    assert len(kana) == 5 and len({round(box[0]) for box in kana}) == 1  # one column
    world = spans["World"]
    # On the page, where the run ended: its left edge at the column's middle, below the column's middle.
    assert world[2] <= 612 and abs(world[0] - (kana[0][0] + kana[0][2]) / 2) < 1
    assert world[1] > (min(box[1] for box in kana) + max(box[3] for box in kana)) / 2
    assert "font_descriptors_supplied=1" in result.notes
    # The later stages open the file as the reader does: the same characters.
    from readers.pdf.salvage import open_pdf_file

    with open_pdf_file(path) as doc:
        assert "World" in doc[0].get_text() and "あ" in doc[0].get_text()
