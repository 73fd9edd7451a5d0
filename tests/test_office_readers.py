"""The office readers (DOCX, XLSX, PPTX, ODF, RTF): structure, encryption, damage and bounds, with every
fixture built in code. The shared corpus is read only by the last test, which skips where it is absent."""

from __future__ import annotations

import datetime as dt
import io
import re
import struct
import tempfile
import tracemalloc
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import docx
import openpyxl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pptx import Presentation
from pptx.util import Inches

from readers.core.errors import CorruptDocument, EncryptedDocument, LimitExceeded
from readers.core.markup import gfm_table, one_line, split_gfm_row
from readers.core.model import ReadLimits, ReadResult
from readers.office.docx import DocxReader
from readers.office.odf import OdfReader
from readers.office.pptx import PptxReader
from readers.office.regions import GridRow, sheet_tables
from readers.office.rtf import RtfReader
from readers.office.xlsx import XlsxReader, format_value

LIMITS = ReadLimits()
#: What a refused bomb or a sheet of repeated empty cells may allocate while it is read: a few MB of
#: parsing in fact (the documents are kilobytes); expanding any of them would take gigabytes.
REFUSAL_PEAK_BYTES = 64 << 20


class _Peak:
    bytes = 0


@contextmanager
def _peak_allocation() -> Iterator[_Peak]:
    """The peak of Python's own allocations inside the block (zlib's output and parsed XML count)."""
    peak = _Peak()
    tracemalloc.start()
    try:
        yield peak
    finally:
        peak.bytes = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _patch_zip(data: bytes, changes: dict[str, Callable[[bytes], bytes] | bytes]) -> bytes:
    """The zip with members rewritten (a function of the old bytes) or added (bytes)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            content = src.read(info.filename)
            change = changes.get(info.filename)
            if callable(change):
                content = change(content)
            dst.writestr(info.filename, content)
        for name, change in changes.items():
            if name not in src.namelist() and isinstance(change, bytes):
                dst.writestr(name, change)
    return out.getvalue()


# --------------------------------------------------------------------------------------------------------
# DOCX

_FOOTNOTES_XML = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:footnotes xmlns:w="{W_NS}">
<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>
<w:footnote w:type="continuationSeparator" w:id="0">
 <w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>
<w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r>
 <w:r><w:t xml:space="preserve"> The footnote's own text.</w:t></w:r></w:p></w:footnote>
</w:footnotes>""".encode()

_TEXT_BOX_RUN = f"""<w:r xmlns:w="{W_NS}"
 xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"
 xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"
 xmlns:v="urn:schemas-microsoft-com:vml"><mc:AlternateContent>
<mc:Choice Requires="wps"><w:drawing><wps:wsp><wps:txbx><w:txbxContent>
<w:p><w:r><w:t>Boxed words.</w:t></w:r></w:p></w:txbxContent></wps:txbx></wps:wsp></w:drawing></mc:Choice>
<mc:Fallback><w:pict><v:rect><v:textbox><w:txbxContent>
<w:p><w:r><w:t>Boxed words.</w:t></w:r></w:p></w:txbxContent></v:textbox></v:rect></w:pict></mc:Fallback>
</mc:AlternateContent></w:r>"""


def _docx_bytes() -> bytes:
    document = docx.Document()
    document.add_heading("The Title", 0)
    document.add_heading("Chapter One", 1)
    document.add_heading("A Section", 2)
    outlined = document.add_paragraph("Outlined but plainly styled")
    ppr = outlined._p.get_or_add_pPr()
    level = docx.oxml.OxmlElement("w:outlineLvl")
    level.set(docx.oxml.ns.qn("w:val"), "2")
    ppr.append(level)
    document.add_paragraph("Before the list, FOOTNOTE-HERE and BOX-HERE.")
    document.add_paragraph("first bullet", style="List Bullet")
    document.add_paragraph("second bullet", style="List Bullet")
    document.add_paragraph("first number", style="List Number")
    document.add_paragraph("second number", style="List Number")
    table = document.add_table(rows=3, cols=3)
    for r in range(3):
        for c in range(3):
            table.cell(r, c).text = f"r{r}c{c}"
    table.cell(0, 0).text = "a|b"
    table.cell(0, 1).text = ""
    table.cell(0, 0).merge(table.cell(0, 1))
    table.cell(1, 2).merge(table.cell(2, 2))
    document.add_paragraph("After the table.")
    section = document.sections[0]
    section.header.paragraphs[0].text = "The running header"
    section.footer.paragraphs[0].text = "The running footer"
    buffer = io.BytesIO()
    document.save(buffer)

    def document_xml(xml: bytes) -> bytes:
        text = xml.decode()
        text = text.replace(
            "FOOTNOTE-HERE",
            'noted</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r><w:r><w:t xml:space="preserve">',
        )
        text = text.replace("BOX-HERE", "boxed</w:t></w:r>" + _TEXT_BOX_RUN + "<w:r><w:t>")
        return text.encode()

    def rels(xml: bytes) -> bytes:
        rel = (
            '<Relationship Id="rIdFn" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
            'relationships/footnotes" Target="footnotes.xml"/></Relationships>'
        )
        return xml.replace(b"</Relationships>", rel.encode())

    def content_types(xml: bytes) -> bytes:
        override = (
            '<Override PartName="/word/footnotes.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.wordprocessingml.footnotes+xml"/></Types>'
        )
        return xml.replace(b"</Types>", override.encode())

    return _patch_zip(
        buffer.getvalue(),
        {
            "word/document.xml": document_xml,
            "word/_rels/document.xml.rels": rels,
            "[Content_Types].xml": content_types,
            "word/footnotes.xml": _FOOTNOTES_XML,
        },
    )


@pytest.fixture(scope="module")
def docx_result(tmp_path_factory: pytest.TempPathFactory) -> ReadResult:
    path = _write(tmp_path_factory.mktemp("docx") / "doc.docx", _docx_bytes())
    return DocxReader().read(path, LIMITS)


def test_docx_headings_by_style_name_and_outline_level(docx_result: ReadResult) -> None:
    lines = docx_result.text.splitlines()
    assert "# The Title" in lines
    assert "# Chapter One" in lines
    assert "## A Section" in lines
    assert "### Outlined but plainly styled" in lines
    assert docx_result.pages[0].facts.headings == 4


def test_docx_lists_are_bullets_and_numbers(docx_result: ReadResult) -> None:
    assert "- first bullet\n- second bullet\n1. first number\n2. second number" in docx_result.text


def test_docx_table_is_gfm_with_merged_cells_once_and_pipes_escaped(docx_result: ReadResult) -> None:
    table = [line for line in docx_result.text.splitlines() if line.startswith("|")]
    assert table[0] == "| a\\|b |  | r0c2 |"
    assert table[1] == "| --- | --- | --- |"
    assert table[2] == "| r1c0 | r1c1 | r1c2 r2c2 |"  # python-docx's merge joins the two texts
    assert table[3] == "| r2c0 | r2c1 |  |"  # the vertical merge continues: left empty
    assert split_gfm_row(table[0]) == ["a|b", "", "r0c2"]
    assert docx_result.pages[0].facts.tables == 1


def test_docx_body_is_in_document_order(docx_result: ReadResult) -> None:
    text = docx_result.text
    order = ["The Title", "first bullet", "| a\\|b", "After the table.", "[^1]: ", "## Header", "## Footer"]
    positions = [text.index(marker) for marker in order]
    assert positions == sorted(positions)


def test_docx_footnote_reference_and_text(docx_result: ReadResult) -> None:
    assert "Before the list, noted[^1] and boxed" in docx_result.text
    assert "[^1]: The footnote's own text." in docx_result.text


def test_docx_text_box_once_despite_its_vml_fallback(docx_result: ReadResult) -> None:
    assert docx_result.text.count("Boxed words.") == 1
    assert docx_result.text.index("and boxed") < docx_result.text.index("Boxed words.")


def test_docx_headers_and_footers_at_the_end_once(docx_result: ReadResult) -> None:
    text = docx_result.text
    assert text.count("The running header") == 1
    assert text.index("## Header\n\nThe running header") > text.index("After the table.")
    assert "## Footer\n\nThe running footer" in text


_PARAGRAPH_TEXT = st.text(
    alphabet=st.characters(categories=("L", "N", "P", "S", "Zs"), exclude_characters="\x85\xa0"),
    max_size=40,
)


@settings(max_examples=30, deadline=None)
@given(st.lists(_PARAGRAPH_TEXT, max_size=12))
def test_docx_paragraphs_read_back_in_order(paragraphs: list[str]) -> None:
    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.docx"
        document.save(path)
        result = DocxReader().read(path, LIMITS)
    expected = [t.strip() for t in paragraphs if t.strip()]
    assert [b for b in result.text.split("\n\n") if b] == expected


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 5).flatmap(
        lambda width: st.lists(
            st.lists(
                st.text(min_size=1, max_size=15).filter(lambda s: one_line(s) != ""),
                min_size=width,
                max_size=width,
            ),
            min_size=1,
            max_size=6,
        )
    )
)
def test_gfm_cell_escaping_round_trips(rows: list[list[str]]) -> None:
    lines = gfm_table(rows).split("\n")
    assert lines[1] == "|" + "|".join(" --- " for _ in rows[0]) + "|"
    parsed = [split_gfm_row(line) for i, line in enumerate(lines) if i != 1]
    assert parsed == [[one_line(cell) for cell in row] for row in rows]


def test_docx_truncated_is_corrupt(tmp_path: Path) -> None:
    data = _docx_bytes()
    path = _write(tmp_path / "cut.docx", data[: len(data) // 2])
    with pytest.raises(CorruptDocument):
        DocxReader().read(path, LIMITS)


def test_docx_zip_without_a_word_document_is_corrupt(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("notes.txt", "hello")
    path = _write(tmp_path / "fake.docx", buffer.getvalue())
    with pytest.raises(CorruptDocument, match="not a Word document"):
        DocxReader().read(path, LIMITS)


def test_a_workbook_named_docx_is_corrupt_with_its_main_part_named(tmp_path: Path) -> None:
    workbook = openpyxl.Workbook()
    workbook.active["A1"] = "x"
    path = tmp_path / "book.docx"
    workbook.save(path)
    with pytest.raises(CorruptDocument, match="spreadsheetml"):
        DocxReader().read(path, LIMITS)


def test_a_directory_claiming_a_future_zip_version_is_corrupt(tmp_path: Path) -> None:
    data = bytearray(_docx_bytes())
    central = data.index(b"PK\x01\x02")
    struct.pack_into("<H", data, central + 6, 99)  # "version needed to extract": 9.9
    with pytest.raises(CorruptDocument, match="version"):
        DocxReader().read(_write(tmp_path / "future.docx", bytes(data)), LIMITS)


# --- DOCX embedded documents (w:altChunk) ------------------------------------------------------------------

WORDPROCESSING_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
CHUNK_MHT = (
    b'MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary="b"\r\n\r\n--b\r\n'
    b'Content-Type: text/html; charset="windows-1252"\r\n'
    b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
    b"<html><body><p>Chunk of web archive words, caf=E9.</p></body></html>\r\n--b--\r\n"
)


def _docx_with_chunks(chunks: list[tuple[str, str, bytes]], *, in_header: bool = False) -> bytes:
    """A Word document of "Before the chunks.", a w:altChunk for each (content type, extension, bytes), then
    "After the chunks." (as Word writes "insert text from file"); with ``in_header``, one more HTML chunk in
    the header, related to the header part."""
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    document = docx.Document()
    document.add_paragraph("Before the chunks.")
    body = document.element.body

    def chunk(owner: object, n: int, content_type: str, ext: str, blob: bytes) -> object:
        part = Part(PackURI(f"/word/afchunk{n}.{ext}"), content_type, blob, document.part.package)
        rid = owner.relate_to(part, RT.A_F_CHUNK)  # type: ignore[attr-defined]
        return parse_xml(f'<w:altChunk {nsdecls("w", "r")} r:id="{rid}"/>')

    for n, (content_type, ext, blob) in enumerate(chunks, start=1):
        body.sectPr.addprevious(chunk(document.part, n, content_type, ext, blob))
    document.add_paragraph("After the chunks.")
    if in_header:
        header = document.sections[0].header
        header.paragraphs[0].text = "Header line."
        html = b"<html><body><p>Header chunk words.</p></body></html>"
        header._element.append(chunk(header.part, 99, "text/html", "html", html))
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_docx_embedded_documents_are_read_in_their_place_by_their_kinds_reader(tmp_path: Path) -> None:
    inner_document = docx.Document()
    inner_document.add_paragraph("Inner document words.")
    buffer = io.BytesIO()
    inner_document.save(buffer)
    inner = buffer.getvalue()
    chunks = [
        ("text/html", "html", b"<html><body><h2>Chunk heading</h2><p>Chunk of HTML words.</p></body></html>"),
        ("application/rtf", "rtf", rb"{\rtf1\ansi Chunk of RTF words.\par}"),
        ("message/rfc822", "mht", CHUNK_MHT),
        ("text/plain", "txt", "Chunk of plain words, naïve.".encode()),
        (WORDPROCESSING_MAIN, "docx", inner),
        ("image/png", "png", b"\x89PNG\r\n\x1a\n"),
        ("application/rtf", "rtf", b"not rtf at all"),
    ]
    path = _write(tmp_path / "chunks.docx", _docx_with_chunks(chunks, in_header=True))
    result = DocxReader().read(path, LIMITS)
    text = result.text
    order = [
        "Before the chunks.",
        "Chunk of HTML words.",
        "Chunk of RTF words.",
        "Chunk of web archive words, café.",
        "Chunk of plain words, naïve.",
        "Inner document words.",
        "After the chunks.",
        "Header chunk words.",
    ]
    positions = [text.find(words) for words in order]
    assert -1 not in positions and positions == sorted(positions), text
    assert text.count("After the chunks.") == 1 and "Chunk heading" in text
    # What cannot be read says so.
    assert result.unread == ("altchunk:image/png:unsupported", "altchunk:rtf:corrupt")
    # ...and the document's diagnostics keep it, so that it is a row of derivations.
    from readers.core.model import ContentKind
    from readers.engine.dispatch import extract_document

    extraction = extract_document(
        path, ContentKind.DOCX, size=path.stat().st_size, limits=LIMITS, max_bytes=1 << 30
    )
    assert extraction.status.value == "derived" and "Chunk of RTF words." in extraction.result.text
    assert "python-docx: unread: altchunk:image/png:unsupported" in (extraction.diagnostics or "")
    assert "python-docx: unread: altchunk:rtf:corrupt" in (extraction.diagnostics or "")


def test_docx_embedded_word_documents_nest_to_max_nesting(tmp_path: Path) -> None:
    data = _docx_with_chunks([("text/plain", "txt", b"Deepest words.")])
    for _ in range(3):
        data = _docx_with_chunks([(WORDPROCESSING_MAIN, "docx", data)])
    path = _write(tmp_path / "nested.docx", data)
    limits = ReadLimits(max_nesting=3)
    result = DocxReader().read(path, limits)
    assert "Deepest words." not in result.text and result.unread == ("altchunk:docx:max_nesting",)
    assert "Deepest words." in DocxReader().read(path, ReadLimits(max_nesting=4)).text
    # An embedded document is held to the document's limits.
    big = _docx_with_chunks([("text/html", "html", b"<p>" + b"word " * 4000 + b"</p>")])
    with pytest.raises(LimitExceeded):
        DocxReader().read(_write(tmp_path / "big.docx", big), ReadLimits(max_text_bytes=10_000))


@pytest.fixture(scope="module")
def docx_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real DOCX with one more member: 300 MB of zeros, deflated to some 300 KB."""
    out = io.BytesIO(_docx_bytes())
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED) as z, z.open("word/media/bomb.bin", "w") as w:
        zeros = bytes(1024 * 1024)
        for _ in range(300):
            w.write(zeros)
    return _write(tmp_path_factory.mktemp("bomb") / "bomb.docx", out.getvalue())


def test_a_zip_bomb_inside_a_docx_is_refused_before_it_inflates(docx_bomb: Path) -> None:
    assert docx_bomb.stat().st_size < 1024 * 1024
    with _peak_allocation() as peak, pytest.raises(LimitExceeded, match="zip bomb"):
        DocxReader().read(docx_bomb, LIMITS)
    assert peak.bytes < REFUSAL_PEAK_BYTES, f"{peak.bytes:,} bytes allocated before the refusal"


# --------------------------------------------------------------------------------------------------------
# Encrypted OOXML: an OLE2 compound file with the MS-OFFCRYPTO streams

_FREE, _END, _FATSECT, _NOSTREAM = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF


def _ole_file(streams: list[str]) -> bytes:
    """A minimal, valid MS-CFB version 3 file: header, one FAT sector, one directory sector (the root and
    up to three empty streams, chained as right siblings)."""
    assert len(streams) <= 3
    header = bytearray(512)
    header[0:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 0x18, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<IIIIIIIII", header, 0x28, 0, 1, 1, 0, 4096, _END, 0, _END, 0)
    difat = [0] + [_FREE] * 108
    struct.pack_into("<109I", header, 0x4C, *difat)
    fat = struct.pack("<128I", _FATSECT, _END, *([_FREE] * 126))

    def entry(name: str, kind: int, right: int, child: int) -> bytes:
        raw = bytearray(128)
        encoded = (name + "\0").encode("utf-16-le")
        raw[: len(encoded)] = encoded
        struct.pack_into("<HBB", raw, 0x40, len(encoded), kind, 1)
        struct.pack_into("<III", raw, 0x44, _NOSTREAM, right, child)
        struct.pack_into("<I", raw, 0x74, _END)
        return bytes(raw)

    entries = [entry("Root Entry", 5, _NOSTREAM, 1 if streams else _NOSTREAM)]
    for i, name in enumerate(streams, start=1):
        entries.append(entry(name, 2, i + 1 if i < len(streams) else _NOSTREAM, _NOSTREAM))
    directory = b"".join(entries).ljust(512, b"\0")
    return bytes(header) + fat + directory


@pytest.mark.parametrize(
    ("reader", "name"),
    [(DocxReader(), "locked.docx"), (XlsxReader(), "locked.xlsx"), (PptxReader(), "locked.pptx")],
)
def test_password_protected_ooxml_is_encrypted(tmp_path: Path, reader: object, name: str) -> None:
    path = _write(tmp_path / name, _ole_file(["EncryptionInfo", "EncryptedPackage"]))
    with pytest.raises(EncryptedDocument):
        reader.read(path, LIMITS)  # type: ignore[attr-defined]


def test_a_legacy_binary_file_named_docx_is_corrupt_not_encrypted(tmp_path: Path) -> None:
    path = _write(tmp_path / "old.docx", _ole_file(["WordDocument"]))
    with pytest.raises(CorruptDocument, match="legacy binary"):
        DocxReader().read(path, LIMITS)


def test_a_truncated_ole_file_is_corrupt(tmp_path: Path) -> None:
    path = _write(tmp_path / "cut.xlsx", _ole_file(["EncryptionInfo", "EncryptedPackage"])[:700])
    with pytest.raises(CorruptDocument):
        XlsxReader().read(path, LIMITS)


# --------------------------------------------------------------------------------------------------------
# XLSX


@pytest.fixture(scope="module")
def xlsx_result(tmp_path_factory: pytest.TempPathFactory) -> ReadResult:
    workbook = openpyxl.Workbook()
    sales = workbook.active
    sales.title = "Sales"
    sales["A1"] = "Quarterly report"
    sales.append([])
    sales.append(["Region", "Date", "Share", "Revenue", "Units", "Change"])
    rows = [
        ["North", dt.datetime(2024, 3, 5), 0.256, 1234567.891, 1500, -1234],
        ["South", dt.datetime(2023, 12, 31), 0.05, 0.5, 0, 0],
    ]
    for row in rows:
        sales.append(row)
    sales.append([])
    sales.append(["West", None, None, None, 7])
    for r in (4, 5):
        sales.cell(r, 2).number_format = "d-mmm-yy"
        sales.cell(r, 3).number_format = "0.0%"
        sales.cell(r, 4).number_format = "#,##0.00"
        sales.cell(r, 5).number_format = "#,##0"
        sales.cell(r, 6).number_format = '_(* #,##0_);_(* \\(#,##0\\);_(* "-"_);_(@_)'
    notes = workbook.create_sheet("Notes")
    notes.append(["Key", "Value"])
    notes.append(["when", dt.datetime(2024, 1, 2, 14, 7)])
    notes["B2"].number_format = "yyyy-mm-dd h:mm AM/PM"
    secret = workbook.create_sheet("Secret")
    secret.append(["Hidden", "Sheet"])
    secret.append(["still", "read"])
    secret.sheet_state = "hidden"
    path = tmp_path_factory.mktemp("xlsx") / "book.xlsx"
    workbook.save(path)
    return XlsxReader().read(path, LIMITS)


def test_xlsx_one_page_per_sheet_with_its_heading(xlsx_result: ReadResult) -> None:
    assert xlsx_result.page_count == 3
    assert [p.text.splitlines()[0] for p in xlsx_result.pages] == [
        "## Sales",
        "## Notes",
        "## Secret (hidden)",
    ]


def test_xlsx_rows_are_a_gfm_table_as_displayed(xlsx_result: ReadResult) -> None:
    lines = xlsx_result.pages[0].text.splitlines()
    assert lines[1] == "Quarterly report"  # a title line above the header row
    assert lines[2] == "| Region | Date | Share | Revenue | Units | Change |"
    assert lines[3] == "| --- | --- | --- | --- | --- | --- |"
    assert lines[4] == "| North | 5-Mar-24 | 25.6% | 1,234,567.89 | 1,500 | (1,234) |"
    assert lines[5] == "| South | 31-Dec-23 | 5.0% | 0.50 | 0 | - |"
    assert lines[6] == "| West |  |  |  | 7 |  |"  # empty cells in their columns, the empty row skipped
    assert len(lines) == 7
    assert xlsx_result.pages[1].text.splitlines()[3] == "| when | 2024-01-02 2:07 PM |"
    assert "| still | read |" in xlsx_result.pages[2].text


def test_xlsx_a_claimed_huge_dimension_costs_nothing(tmp_path: Path) -> None:
    workbook = openpyxl.Workbook()
    workbook.active["A1"] = "only"
    workbook.active["A2"] = "cell"
    buffer = io.BytesIO()
    workbook.save(buffer)
    data = _patch_zip(
        buffer.getvalue(),
        {
            "xl/worksheets/sheet1.xml": lambda x: re.sub(
                rb'<dimension ref="[^"]*"', b'<dimension ref="A1:XFD1048576"', x
            )
        },
    )
    path = _write(tmp_path / "big.xlsx", data)
    with _peak_allocation() as peak:
        result = XlsxReader().read(path, LIMITS)
    assert peak.bytes < REFUSAL_PEAK_BYTES, f"{peak.bytes:,} bytes allocated for one cell"
    assert result.text == "## Sheet\nonly\ncell"  # one column: its lines, no header


def test_xlsx_is_read_whatever_its_name(tmp_path: Path) -> None:
    workbook = openpyxl.Workbook()
    workbook.active.append(["Name", "Qty"])
    workbook.active.append(["pens", 3])
    buffer = io.BytesIO()
    workbook.save(buffer)
    path = _write(tmp_path / "export.bin", buffer.getvalue())  # openpyxl refuses this name given as a path
    assert XlsxReader().read(path, LIMITS).text == "## Sheet\n| Name | Qty |\n| --- | --- |\n| pens | 3 |"


@pytest.mark.parametrize(
    ("value", "fmt", "shown"),
    [
        (1234.5, "#,##0.00", "1,234.50"),
        (1234.5, "0", "1235"),
        (0.256, "0%", "26%"),
        (0.256, "0.00%", "25.60%"),
        (12345, "0.00E+00", "1.23E+04"),
        (1234567, "#,##0,", "1,235"),
        (5, '"$"#,##0.00', "$5.00"),
        (5, "[$€-407]#,##0.00", "€5.00"),
        (-5, "#,##0;[Red](#,##0)", "(5)"),
        (-5, "#,##0.0", "-5.0"),
        (0, '0.0;-0.0;"zero"', "zero"),
        (0.1 + 0.2, "General", "0.3"),
        (1e20, "General", "1E+20"),
        (42, "General", "42"),
        (True, "General", "TRUE"),
        (0.5, "#.00", ".50"),
        (dt.datetime(2024, 3, 5), "yyyy-mm-dd", "2024-03-05"),
        (dt.datetime(2024, 3, 5), "d-mmm-yy", "5-Mar-24"),
        (dt.datetime(2024, 3, 5), "dddd, mmmm d, yyyy", "Tuesday, March 5, 2024"),
        (dt.datetime(2024, 3, 5, 14, 7), "h:mm AM/PM", "2:07 PM"),
        (dt.datetime(2024, 3, 5, 9, 5, 3), "hh:mm:ss", "09:05:03"),
        (dt.time(9, 5, 3), "mm:ss", "05:03"),
        (dt.datetime(2024, 3, 5, 9, 5), "dd/mm/yyyy hh:mm", "05/03/2024 09:05"),
        (dt.timedelta(hours=27, minutes=5), "[h]:mm", "27:05"),
        (45356, "yyyy-mm-dd", "2024-03-05"),  # a serial under a date format
    ],
)
def test_number_formats(value: object, fmt: str, shown: str) -> None:
    assert format_value(value, fmt) == shown


def test_locale_dependent_date_formats_are_iso() -> None:
    assert format_value(dt.datetime(2018, 9, 20), "mm-dd-yy", format_id=14) == "2018-09-20"
    assert format_value(dt.datetime(2018, 9, 20), "mm-dd-yy") == "09-20-18"


def test_sheet_table_title_lines_then_a_gfm_table_with_escaped_cells() -> None:
    rows = [
        GridRow(0, {0: "Big title"}),
        GridRow(1, {0: "Name", 1: "Age", 2: "City"}),
        GridRow(2, {0: "Ann", 1: "31", 2: "Oslo"}),
        GridRow(3, {1: "40", 3: "extra | pipe\nsecond line"}),
    ]
    assert sheet_tables(rows) == [
        "Big title",
        "| Name | Age | City |  |",
        "| --- | --- | --- | --- |",
        "| Ann | 31 | Oslo |  |",
        "|  | 40 |  | extra \\| pipe second line |",
    ]


# --------------------------------------------------------------------------------------------------------
# PPTX


@pytest.fixture(scope="module")
def pptx_result(tmp_path_factory: pytest.TempPathFactory) -> ReadResult:
    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])  # title and content
    slide.shapes.title.text = "Quarterly Plan"
    body = slide.placeholders[1].text_frame
    body.text = "Grow revenue"
    sub = body.add_paragraph()
    sub.text = "in the north"
    sub.level = 1
    slide.notes_slide.notes_text_frame.text = "Say hello first."

    second = presentation.slides.add_slide(presentation.slide_layouts[5])  # title only
    second.shapes.title.text = "Figures"
    low = second.shapes.add_textbox(Inches(1), Inches(6), Inches(3), Inches(1))
    low.text_frame.text = "Written last (lowest)"
    right = second.shapes.add_textbox(Inches(6), Inches(2), Inches(3), Inches(1))
    right.text_frame.text = "Right of the table"
    frame = second.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(4), Inches(2))
    cells = [["Name", "Score"], ["Ann", "9"], ["Bob | Jr", "7"]]
    for r, row in enumerate(cells):
        for c, text in enumerate(row):
            frame.table.cell(r, c).text = text
    group = second.shapes.add_group_shape()
    inner = group.shapes.add_textbox(Inches(1), Inches(7), Inches(2), Inches(1))
    inner.text_frame.text = "Inside a group"

    third = presentation.slides.add_slide(presentation.slide_layouts[6])  # blank
    third.shapes.add_textbox(Inches(1), Inches(1), Inches(2), Inches(1)).text_frame.text = "No title here"
    path = tmp_path_factory.mktemp("pptx") / "deck.pptx"
    presentation.save(path)
    return PptxReader().read(path, LIMITS)


def test_pptx_one_page_per_slide_with_title_body_and_notes(pptx_result: ReadResult) -> None:
    assert pptx_result.page_count == 3
    first = pptx_result.pages[0].text
    assert (
        first
        == "## Slide 1: Quarterly Plan\n\n- Grow revenue\n   - in the north\n\nNotes:\n\nSay hello first."
    )


def test_pptx_reading_order_tables_and_groups(pptx_result: ReadResult) -> None:
    second = pptx_result.pages[1].text
    assert second.startswith("## Slide 2: Figures")
    assert "| Name | Score |\n| --- | --- |\n| Ann | 9 |\n| Bob \\| Jr | 7 |" in second
    order = ["| Name | Score |", "Right of the table", "Written last (lowest)", "Inside a group"]
    positions = [second.index(marker) for marker in order]
    assert positions == sorted(positions)
    assert pptx_result.pages[1].facts.tables == 1


def test_pptx_slide_without_title(pptx_result: ReadResult) -> None:
    assert pptx_result.pages[2].text == "## Slide 3\n\nNo title here"


# --------------------------------------------------------------------------------------------------------
# ODF

_ODF_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.2"'
)


def _odf(mimetype: str, content: str, styles: str = "", manifest: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), mimetype)  # stored, first
        z.writestr(
            "META-INF/manifest.xml",
            manifest
            or (
                '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
                f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{mimetype}"/>'
                "</manifest:manifest>"
            ),
        )
        z.writestr("content.xml", content)
        if styles:
            z.writestr("styles.xml", styles)
    return buffer.getvalue()


_ODT_CONTENT = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-content {_ODF_NS}>
<office:automatic-styles>
 <text:list-style style:name="L1"><text:list-level-style-number text:level="1" style:num-format="1"/>
  <text:list-level-style-bullet text:level="2" text:bullet-char="•"/></text:list-style>
 <style:style style:name="P1" style:family="paragraph" style:parent-style-name="Title"/>
</office:automatic-styles>
<office:body><office:text>
<text:tracked-changes><text:changed-region text:id="c1"><text:deletion><text:p>DELETED WORDS</text:p>
</text:deletion></text:changed-region></text:tracked-changes>
<text:p text:style-name="P1">Document Title</text:p>
<text:h text:outline-level="1">First Heading</text:h>
<text:p>Plain<text:s text:c="2"/>text with a note<text:note text:note-class="footnote">
 <text:note-citation>1</text:note-citation><text:note-body><text:p>Footnote body.</text:p></text:note-body>
 </text:note> and a comment<office:annotation><dc:creator>X</dc:creator><text:p>COMMENT TEXT</text:p>
 </office:annotation> here.<text:change text:change-id="c1"/></text:p>
<text:h text:outline-level="2">Second Heading</text:h>
<text:list text:style-name="L1">
 <text:list-item><text:p>one</text:p></text:list-item>
 <text:list-item><text:p>two</text:p>
  <text:list><text:list-item><text:p>two-a</text:p></text:list-item></text:list></text:list-item>
</text:list>
<table:table table:name="T1">
 <table:table-column table:number-columns-repeated="3"/>
 <table:table-header-rows><table:table-row>
  <table:table-cell table:number-columns-spanned="2"><text:p>Wide</text:p></table:table-cell>
  <table:covered-table-cell/><table:table-cell><text:p>C</text:p></table:table-cell>
 </table:table-row></table:table-header-rows>
 <table:table-row><table:table-cell table:number-columns-repeated="2"><text:p>x|y</text:p></table:table-cell>
  <table:table-cell><text:p>z</text:p></table:table-cell></table:table-row>
</table:table>
<text:p>Anchor<draw:frame svg:x="1cm" svg:y="1cm"><draw:text-box><text:p>Framed text.</text:p>
</draw:text-box></draw:frame></text:p>
</office:text></office:body></office:document-content>"""

_ODT_STYLES = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-styles {_ODF_NS}>
<office:styles><style:style style:name="Title" style:family="paragraph"/></office:styles>
<office:master-styles><style:master-page style:name="Standard">
 <style:header><text:p>Page header</text:p></style:header>
 <style:footer><text:p>Page footer</text:p></style:footer>
</style:master-page><style:master-page style:name="Other">
 <style:header><text:p>Page header</text:p></style:header></style:master-page></office:master-styles>
</office:document-styles>"""


def test_odt_structure(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "doc.odt", _odf("application/vnd.oasis.opendocument.text", _ODT_CONTENT, _ODT_STYLES)
    )
    result = OdfReader().read(path, LIMITS)
    assert result.page_count == 1
    assert result.text == (
        "# Document Title\n\n"
        "# First Heading\n\n"
        "Plain  text with a note[^1] and a comment here.\n\n"
        "## Second Heading\n\n"
        "1. one\n2. two\n   - two-a\n\n"
        "| Wide |  | C |\n| --- | --- | --- |\n| x\\|y | x\\|y | z |\n\n"
        "Anchor\n\nFramed text.\n\n"
        "[^1]: Footnote body.\n\n"
        "## Header\n\nPage header\n\n## Footer\n\nPage footer"
    )
    assert result.pages[0].facts.tables == 1


def test_ods_one_page_per_sheet_records_and_hidden_sheets(tmp_path: Path) -> None:
    content = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-content {_ODF_NS}>
<office:automatic-styles><style:style style:name="ta2" style:family="table">
<style:table-properties table:display="false"/></style:style></office:automatic-styles>
<office:body><office:spreadsheet>
<table:table table:name="Prices">
 <table:table-row><table:table-cell><text:p>Item</text:p></table:table-cell>
  <table:table-cell><text:p>Price</text:p></table:table-cell>
  <table:table-cell table:number-columns-repeated="16382"/></table:table-row>
 <table:table-row><table:table-cell><text:p>Tea</text:p></table:table-cell>
  <table:table-cell office:value-type="float" office:value="1234.5"><text:p>1,234.50</text:p>
  </table:table-cell>
  <table:table-cell table:number-columns-repeated="16382"/></table:table-row>
 <table:table-row table:number-rows-repeated="1048574">
  <table:table-cell table:number-columns-repeated="16384"/>
 </table:table-row>
</table:table>
<table:table table:name="Later" table:style-name="ta2">
 <table:table-row><table:table-cell><text:p>A</text:p></table:table-cell></table:table-row>
 <table:table-row>
  <table:table-cell office:value-type="date" office:date-value="2024-03-05"/></table:table-row>
</table:table>
</office:spreadsheet></office:body></office:document-content>"""
    path = _write(tmp_path / "sheet.ods", _odf("application/vnd.oasis.opendocument.spreadsheet", content))
    with _peak_allocation() as peak:
        result = OdfReader().read(path, LIMITS)
    assert peak.bytes < REFUSAL_PEAK_BYTES, "the repeated empty rows and columns are not expanded"
    assert [p.text for p in result.pages] == [
        "## Prices\n| Item | Price |\n| --- | --- |\n| Tea | 1,234.50 |",
        "## Later (hidden)\nA\n2024-03-05",  # one column: its lines, no header
    ]


def test_odp_one_page_per_slide(tmp_path: Path) -> None:
    content = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-content {_ODF_NS}><office:body><office:presentation>
<draw:page draw:name="one">
 <draw:frame presentation:class="outline" svg:x="2cm" svg:y="5cm"><draw:text-box>
  <text:list><text:list-item><text:p>Point A</text:p></text:list-item></text:list>
 </draw:text-box></draw:frame>
 <draw:frame presentation:class="title" svg:x="2cm" svg:y="1cm"><draw:text-box><text:p>Opening</text:p>
 </draw:text-box></draw:frame>
 <draw:frame svg:x="2cm" svg:y="3cm"><table:table><table:table-row>
  <table:table-cell><text:p>h1</text:p></table:table-cell><table:table-cell><text:p>h2</text:p></table:table-cell>
 </table:table-row><table:table-row><table:table-cell><text:p>v1</text:p></table:table-cell>
  <table:table-cell><text:p>v2</text:p></table:table-cell></table:table-row></table:table></draw:frame>
 <presentation:notes><draw:frame presentation:class="notes"><draw:text-box><text:p>Speak slowly.</text:p>
 </draw:text-box></draw:frame></presentation:notes>
</draw:page>
<draw:page draw:name="two">
 <draw:custom-shape svg:x="1in" svg:y="1in"><text:p>Shape text</text:p></draw:custom-shape>
 <draw:frame presentation:class="page-number"><draw:text-box><text:p>2</text:p></draw:text-box></draw:frame>
</draw:page>
</office:presentation></office:body></office:document-content>"""
    path = _write(tmp_path / "deck.odp", _odf("application/vnd.oasis.opendocument.presentation", content))
    result = OdfReader().read(path, LIMITS)
    assert [p.text for p in result.pages] == [
        "## Slide 1: Opening\n\n| h1 | h2 |\n| --- | --- |\n| v1 | v2 |\n\n- Point A\n\n"
        "Notes:\n\nSpeak slowly.",
        "## Slide 2\n\nShape text",
    ]


def test_odt_encrypted_corrupt_and_entity_expansion(tmp_path: Path) -> None:
    manifest = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">'
        '<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="AAAA"/>'
        "</manifest:file-entry></manifest:manifest>"
    )
    locked = _write(
        tmp_path / "locked.odt", _odf("application/vnd.oasis.opendocument.text", "garbage", manifest=manifest)
    )
    with pytest.raises(EncryptedDocument):
        OdfReader().read(locked, LIMITS)

    not_zip = _write(tmp_path / "text.odt", b"This is not a zip file!\n")
    with pytest.raises(CorruptDocument):
        OdfReader().read(not_zip, LIMITS)

    no_content = io.BytesIO()
    with zipfile.ZipFile(no_content, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
    with pytest.raises(CorruptDocument, match=r"no content\.xml"):
        OdfReader().read(_write(tmp_path / "empty.odt", no_content.getvalue()), LIMITS)

    laughs = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">'
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;">]>'
        f"<office:document-content {_ODF_NS}><office:body><office:text><text:p>&lol3;</text:p>"
        "</office:text></office:body></office:document-content>"
    )
    bomb = _write(tmp_path / "laughs.odt", _odf("application/vnd.oasis.opendocument.text", laughs))
    with pytest.raises(CorruptDocument) as caught:
        OdfReader().read(bomb, LIMITS)
    assert caught.value.reason == "xml_entities"


# --------------------------------------------------------------------------------------------------------
# RTF

_JAPANESE = "ゾルゲと尾崎、淡々と最期"
_CZECH = "Příliš žluťoučký kůň úpěl ďábelské ódy"


def _hex(text: str, codec: str) -> str:
    return "".join(f"\\'{b:02x}" for b in text.encode(codec))


def _rtf(path: Path, body: str) -> ReadResult:
    path.write_bytes(body.encode("latin-1"))
    return RtfReader().read(path, LIMITS)


def test_rtf_shift_jis_by_code_page_and_by_font_charset(tmp_path: Path) -> None:
    by_codepage = "{\\rtf1\\ansi\\ansicpg932\\deff0{\\fonttbl{\\f0 MS Mincho;}}\\pard " + _hex(
        _JAPANESE, "cp932"
    )
    assert _rtf(tmp_path / "a.rtf", by_codepage + "\\par}").text == _JAPANESE
    by_font = (
        "{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0\\fcharset0 Times;}{\\f1\\fcharset128 MS Gothic;}}"
        "\\pard Latin {\\f1 " + _hex(_JAPANESE, "cp932") + "} again\\par}"
    )
    assert _rtf(tmp_path / "b.rtf", by_font).text == f"Latin {_JAPANESE} again"
    # A double-byte character whose trail byte is written as a literal character ("\\'95\\" is 表).
    literal_trail = "{\\rtf1\\ansi\\ansicpg932 \\'95\\\\\\'8e\\'a6\\par}"
    assert _rtf(tmp_path / "c.rtf", literal_trail).text == "表示"


def test_rtf_cp1250_by_code_page_and_by_font_charset(tmp_path: Path) -> None:
    by_codepage = "{\\rtf1\\ansi\\ansicpg1250\\deff0{\\fonttbl{\\f0\\fcharset0 Arial;}}\\pard " + _hex(
        _CZECH, "cp1250"
    )
    assert _rtf(tmp_path / "a.rtf", by_codepage + "\\par}").text == _CZECH
    by_font = (
        "{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0\\fcharset0 Arial;}{\\f1\\fcharset238 Arial CE;}}"
        "\\pard\\f1 " + _hex(_CZECH, "cp1250") + "\\par}"
    )
    assert _rtf(tmp_path / "b.rtf", by_font).text == _CZECH
    unicode = "{\\rtf1\\ansi\\uc1\\pard P\\u345?\\u237\\'3fli\\u353 ?\\par}"  # \\uN, fallbacks skipped
    assert _rtf(tmp_path / "c.rtf", unicode).text == "Příliš"


def test_rtf_structure(tmp_path: Path) -> None:
    document = (
        "{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0\\froman Times;}}"
        "{\\stylesheet{\\s0 Normal;}{\\s1\\outlinelevel0 heading 1;}{\\s5 Quote;}}"
        "{\\info{\\title Not the text}}{\\*\\generator Writer;}"
        "{\\header\\pard Running head\\par}"
        "\\pard\\s1 Big Heading\\par"
        "\\pard\\outlinelevel1 Smaller heading\\par"
        "\\pard Some {\\b bold} text{\\footnote\\pard {\\super\\chftn} Note text.}"
        ' and {\\field{\\*\\fldinst HYPERLINK "http://x"}{\\fldrslt link text}}.\\par'
        "{\\*\\unknowndestination hidden stuff}"
        "{\\pict\\pngblip 89504e47}"
        "{\\listtext 1.\\tab}\\pard First item\\par"
        "{\\listtext \\'b7\\tab}\\pard\\ilvl1 Sub item\\par"
        "\\trowd\\cellx1000\\cellx2000\\pard\\intbl Name\\cell Age\\cell\\row"
        "\\trowd\\cellx1000\\cellx2000\\pard\\intbl Ann|x\\cell 31\\cell\\row"
        "\\pard After table\\line second line\\tab end\\par"
        "\\pard Binary {\\bin4 \\}{}}skipped\\par"
        "}"
    )
    result = _rtf(tmp_path / "doc.rtf", document)
    assert result.text == (
        "# Big Heading\n\n"
        "## Smaller heading\n\n"
        "Some bold text[^1] and link text.\n\n"
        "1. First item\n   - Sub item\n\n"
        "| Name | Age |\n| --- | --- |\n| Ann\\|x | 31 |\n\n"
        "After table\nsecond line\tend\n\n"
        "Binary skipped\n\n"
        "[^1]: Note text.\n\n"
        "## Header\n\nRunning head"
    )
    assert result.encoding == "cp1252"
    assert result.pages[0].facts.tables == 1


def test_rtf_not_rtf_is_corrupt(tmp_path: Path) -> None:
    with pytest.raises(CorruptDocument):
        RtfReader().read(_write(tmp_path / "x.rtf", b"hello"), LIMITS)


def test_rtf_deep_nesting_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CorruptDocument, match="nested"):
        RtfReader().read(
            _write(tmp_path / "deep.rtf", b"{\\rtf1 " + b"{" * 5000 + b"x" + b"}" * 5001), LIMITS
        )


def test_text_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "long.rtf", b"{\\rtf1 " + b"word " * 1000 + b"}")
    with pytest.raises(LimitExceeded):
        RtfReader().read(path, ReadLimits(max_text_bytes=1000))


# --------------------------------------------------------------------------------------------------------
# The shared corpus

_CORPUS_READERS = {
    "docx": DocxReader(),
    "xlsx": XlsxReader(),
    "pptx": PptxReader(),
    "odt": OdfReader(),
    "rtf": RtfReader(),
}
_CORPUS_FAILURES = {
    "tika__testWORD_protected_passtika.docx": "encrypted",
    "unst__password_protected.xlsx": "encrypted",
    "tika__testODTEncrypted.odt": "encrypted",
    "tika__testWORD_truncated.docx": "corrupt",
    "tika__testODTnotaZipFile.odt": "corrupt",
}


@pytest.mark.corpus
def test_the_corpus_office_files_read_or_fail_with_their_reason() -> None:
    from quality.cer import cer
    from readers.core.errors import ReaderError
    from tests.conftest import CORPUS, corpus_manifest

    rows = [r for r in corpus_manifest() if r["path"].rsplit(".", 1)[-1] in _CORPUS_READERS]
    assert rows
    texts: dict[str, str] = {}
    for row in rows:
        path = CORPUS / row["path"]
        name = path.name
        reader = _CORPUS_READERS[path.suffix[1:]]
        if name in _CORPUS_FAILURES:
            with pytest.raises(ReaderError) as caught:
                reader.read(path, LIMITS)
            assert caught.value.reason == _CORPUS_FAILURES[name], name
        else:
            texts[name] = reader.read(path, LIMITS).text
            assert texts[name].strip(), name
    for name in ("unst__eng_spa_mult.docx", "unst__eng_spa_mult.odt"):
        truth = (CORPUS / "dev_truth" / f"{name}.expected.txt").read_text(encoding="utf-8")
        assert cer(truth, texts[name]) < 0.01
    assert "[^1]: This is a footnote." in texts["tika__testWORD_various.docx"]
    assert "inside of a text box in the header" in texts["tika__testWORD_text_box.docx"]
    assert "Master footer is here" in texts["tika__testPPT_masterFooter.pptx"]
    assert "ゾルゲと尾崎、淡々と最期" in texts["tika__testRTFJapanese.rtf"]
    assert "Článek týdne" in texts["tika__testRTFWord2010CzechCharacters.rtf"]
    assert "| ö | ü |" in texts["tika__testRTFTableCellSeparation.rtf"]
