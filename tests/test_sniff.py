"""readers.walk.sniff: the bytes first, the extension second, and ``decided_by`` telling which.

Fixtures are generated here: real documents from the libraries that write them (PyMuPDF, python-docx,
openpyxl, zipfile, wave) where a library exists, minimal headers where the magic number is the point.
"""

from __future__ import annotations

import csv
import io
import json
import struct
import time
import wave
import zipfile
from pathlib import Path

import docx
import openpyxl
import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readers.core.model import ContentKind as K
from readers.core.model import KindSource
from readers.walk.sniff import HEAD_BYTES, Sniffed, sniff

BYTES, EXTENSION, NONE = KindSource.BYTES, KindSource.EXTENSION, KindSource.NONE

OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: Bytes that no magic, text test or extension claims: NULs and controls throughout.
JUNK = bytes(range(256)) * 4


def sniff_file(path: Path) -> Sniffed:
    """Sniff as the walk does: the first HEAD_BYTES of the file and its name."""
    with path.open("rb") as fh:
        return sniff(fh.read(HEAD_BYTES), path.name)


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# --- generated documents -----------------------------------------------------------------------------


def pdf_bytes() -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Hello, sniffer.")
    data = doc.tobytes()
    doc.close()
    return data


def pixmap_bytes(fmt: str) -> bytes:
    return pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 4, 4), False).tobytes(fmt)


def docx_bytes() -> bytes:
    document = docx.Document()
    document.add_paragraph("A paragraph.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def xlsx_bytes() -> bytes:
    workbook = openpyxl.Workbook()
    workbook.active["A1"] = "cell"
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def zip_bytes(*members: tuple[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members:
            archive.writestr(name, data, compress_type=compression)
    return buffer.getvalue()


def odf_bytes(media_type: str) -> bytes:
    """ODF packaging: ``mimetype`` first and stored, then the rest compressed."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", media_type, compress_type=zipfile.ZIP_STORED)
        archive.writestr("content.xml", "<office:document-content/>", compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def wav_bytes() -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * 80)
    return buffer.getvalue()


def bmp_bytes() -> bytes:
    """A 1x1 24-bit BMP: file header, BITMAPINFOHEADER, one padded pixel row."""
    pixels = b"\xff\x00\x00\x00"
    info = struct.pack("<IiiHHIIiiII", 40, 1, 1, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
    header = struct.pack("<2sIHHI", b"BM", 14 + len(info) + len(pixels), 0, 0, 14 + len(info))
    return header + info + pixels


def ole2_bytes(*streams: str) -> bytes:
    """An OLE2 header and one directory sector whose 128-byte entries carry the given stream names."""
    header = OLE2_MAGIC.ljust(512, b"\x00")
    entries = b"".join(
        (name + "\x00").encode("utf-16-le").ljust(128, b"\x00") for name in ("Root Entry", *streams)
    )
    return header + entries.ljust(512, b"\x00")


# --- magic numbers ------------------------------------------------------------------------------------

MAGIC_CASES: list[tuple[str, bytes, K]] = [
    ("pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", K.PDF),
    ("pdf after junk", b"HTTP garbage\r\n" * 20 + b"%PDF-1.4\n1 0 obj", K.PDF),
    ("png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", K.PNG),
    ("jpeg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", K.JPEG),
    ("gif87a", b"GIF87a\x01\x00\x01\x00", K.GIF),
    ("gif89a", b"GIF89a\x01\x00\x01\x00", K.GIF),
    ("tiff le", b"II*\x00\x08\x00\x00\x00", K.TIFF),
    ("tiff be", b"MM\x00*\x00\x00\x00\x08", K.TIFF),
    ("webp", b"RIFF\x24\x00\x00\x00WEBPVP8 ", K.WEBP),
    ("bmp", bmp_bytes(), K.BMP),
    ("rtf", b"{\\rtf1\\ansi\\deff0 {\\fonttbl}", K.RTF),
    ("empty zip", b"PK\x05\x06" + bytes(18), K.ZIP),
    ("id3", b"ID3\x03\x00\x00\x00\x00\x00\x00" + bytes(32), K.AUDIO),
    ("flac", b"fLaC\x00\x00\x00\x22" + bytes(34), K.AUDIO),
    ("ogg", b"OggS\x00\x02" + bytes(20), K.AUDIO),
    ("wave", wav_bytes(), K.AUDIO),
    ("m4a", b"\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00", K.AUDIO),
    ("mp4", b"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00", K.VIDEO),
    ("quicktime", b"\x00\x00\x00\x14ftypqt  \x00\x00\x00\x00", K.VIDEO),
    ("avi", b"RIFF\x00\x10\x00\x00AVI LIST", K.VIDEO),
    ("matroska", b"\x1a\x45\xdf\xa3\x01\x00\x00\x00", K.VIDEO),
]


@pytest.mark.parametrize(("head", "kind"), [c[1:] for c in MAGIC_CASES], ids=[c[0] for c in MAGIC_CASES])
def test_magic_decides_by_bytes_whatever_the_name(head: bytes, kind: K) -> None:
    for name in ("document", "document.bin", "document.txt", "document.pdf"):
        assert sniff(head, name) == Sniffed(kind, BYTES), name


def test_pdf_header_after_junk_only_at_a_line_start_or_after_binary() -> None:
    assert sniff(b"\x00" * 128 + b"%PDF-1.4\n", "x") == Sniffed(K.PDF, BYTES)  # a MacBinary header
    assert sniff(b'data = b"%PDF-1.4"  # a test fixture\n', "make_pdf.py") == Sniffed(K.TEXT, BYTES)
    assert sniff(b" " * 1030 + b"\n%PDF-1.4\n", "x") == Sniffed(K.TEXT, BYTES)  # beyond 1024 bytes


def test_bm_without_a_bitmap_header_is_text() -> None:
    assert sniff(b"BMW and Mercedes, a comparison\n", "cars") == Sniffed(K.TEXT, BYTES)


def test_heif_is_an_image_without_a_kind() -> None:
    assert sniff(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00", "photo.heic") == Sniffed(K.UNKNOWN, BYTES)


# --- real documents, renamed or not -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (pdf_bytes, K.PDF),
        (lambda: pixmap_bytes("png"), K.PNG),
        (lambda: pixmap_bytes("jpeg"), K.JPEG),
        (docx_bytes, K.DOCX),
        (xlsx_bytes, K.XLSX),
        (lambda: odf_bytes("application/vnd.oasis.opendocument.text"), K.ODT),
        (lambda: odf_bytes("application/vnd.oasis.opendocument.spreadsheet"), K.ODS),
        (lambda: odf_bytes("application/vnd.oasis.opendocument.presentation"), K.ODP),
        (lambda: zip_bytes(("[Content_Types].xml", b"<Types/>"), ("ppt/presentation.xml", b"<p/>")), K.PPTX),
        (lambda: zip_bytes(("notes.txt", b"hello"), ("data/a.csv", b"a,b\n")), K.ZIP),
    ],
    ids=["pdf", "png", "jpeg", "docx", "xlsx", "odt", "ods", "odp", "pptx", "zip"],
)
def test_real_documents_sniff_by_bytes_even_renamed(tmp_path: Path, make, kind: K) -> None:
    data = make()
    assert sniff_file(write(tmp_path, "renamed.bin", data)) == Sniffed(kind, BYTES)
    assert sniff_file(write(tmp_path, "no-extension", data)) == Sniffed(kind, BYTES)


def test_ooxml_by_main_content_type_when_no_part_folder_is_in_the_head() -> None:
    """A truncated .docx (tika__testWORD_truncated.docx): only ``[Content_Types].xml`` is visible."""
    types = (
        b'<Types><Default Extension="xlsx" ContentType="application/vnd.openxmlformats-officedocument.'
        b'spreadsheetml.sheet"/><Override PartName="/word/document.xml" ContentType="application/'
        b'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
    )
    data = zip_bytes(("[Content_Types].xml", types), ("docProps/core.xml", b"<core/>"))
    assert sniff(data, "x.bin") == Sniffed(K.DOCX, BYTES)  # the embedded workbook's type does not count


def test_zip_family_extension_refines_a_zip_that_shows_nothing() -> None:
    data = zip_bytes(("[Content_Types].xml", b"<Types/>"), ("docProps/core.xml", b"<core/>"))
    assert sniff(data, "sheet.xlsx") == Sniffed(K.XLSX, EXTENSION)
    assert sniff(data, "sheet.zip") == Sniffed(K.ZIP, BYTES)
    assert sniff(data, "sheet.pdf") == Sniffed(K.ZIP, BYTES)  # not a zip-family name: the bytes win


def test_a_users_folder_named_word_is_still_a_zip() -> None:
    assert sniff(zip_bytes(("word/notes.txt", b"hi")), "archive") == Sniffed(K.ZIP, BYTES)


def test_odf_other_than_text_sheet_slides_is_a_zip() -> None:
    assert sniff(odf_bytes("application/vnd.oasis.opendocument.graphics"), "x.odg") == Sniffed(K.ZIP, BYTES)


@pytest.mark.parametrize(
    ("stream", "kind"),
    [
        ("WordDocument", K.DOC),
        ("Workbook", K.XLS),
        ("Book", K.XLS),
        ("PowerPoint Document", K.PPT),
        ("__substg1.0_0037001F", K.MSG),
    ],
)
def test_ole2_by_stream_name(stream: str, kind: K) -> None:
    assert sniff(ole2_bytes("\x05SummaryInformation", stream), "file.bin") == Sniffed(kind, BYTES)


def test_ole2_first_stream_wins_over_an_embedded_object() -> None:
    assert sniff(ole2_bytes("Workbook", "MBD0001", "WordDocument"), "x") == Sniffed(K.XLS, BYTES)


def test_ole2_without_stream_evidence() -> None:
    data = ole2_bytes("\x05SummaryInformation")
    assert sniff(data, "mail.msg") == Sniffed(K.MSG, EXTENSION)  # directory beyond the head
    assert sniff(data, "old.DOC") == Sniffed(K.DOC, EXTENSION)
    assert sniff(data, "x.bin") == Sniffed(K.UNKNOWN, BYTES)
    assert sniff(data, "x.pdf") == Sniffed(K.UNKNOWN, BYTES)  # not an OLE2-family name


def test_ole2_stream_names_count_only_at_directory_entries() -> None:
    data = OLE2_MAGIC.ljust(512, b"\x00") + b"\x00\x00" + "WordDocument\x00".encode("utf-16-le")
    assert sniff(data, "x.bin") == Sniffed(K.UNKNOWN, BYTES)


def test_encrypted_ooxml_is_named_by_its_extension() -> None:
    data = ole2_bytes("EncryptionInfo", "EncryptedPackage")
    assert sniff(data, "secret.docx") == Sniffed(K.DOCX, EXTENSION)
    assert sniff(data, "secret.xlsx") == Sniffed(K.XLSX, EXTENSION)
    assert sniff(data, "secret.bin") == Sniffed(K.UNKNOWN, BYTES)


def test_stream_evidence_beats_the_extension() -> None:
    assert sniff(ole2_bytes("WordDocument"), "renamed.docx") == Sniffed(K.DOC, BYTES)


# --- names, empties, junk -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("a.pdf", K.PDF),
        ("A.PDF", K.PDF),
        ("dir/sub.dir/b.Docx", K.DOCX),
        ("c:\\windows\\d.XLSM", K.XLSX),
        ("e.pptm", K.PPTX),
        ("f.htm", K.HTML),
        ("g.ndjson", K.JSON),
        ("h.tab", K.TSV),
        ("i.markdown", K.MARKDOWN),
        ("j.jpeg", K.JPEG),
        ("k.tif", K.TIFF),
        ("l.flac", K.AUDIO),
        ("m.mkv", K.VIDEO),
        ("n.msg", K.MSG),
    ],
)
def test_extension_decides_for_junk_and_for_empty_files(name: str, kind: K) -> None:
    assert sniff(JUNK, name) == Sniffed(kind, EXTENSION)
    assert sniff(b"", name) == Sniffed(kind, EXTENSION)


@pytest.mark.parametrize("name", ["noext", "x.bin", "x.unknownext", ".pdf", "dir.pdf/file", ""])
def test_without_a_known_extension(name: str) -> None:
    assert sniff(JUNK, name) == Sniffed(K.UNKNOWN, NONE)
    assert sniff(b"", name) == Sniffed(K.EMPTY, BYTES)


def test_empty_file_on_disk(tmp_path: Path) -> None:
    assert sniff_file(write(tmp_path, "empty.pdf", b"")) == Sniffed(K.PDF, EXTENSION)
    assert sniff_file(write(tmp_path, "empty", b"")) == Sniffed(K.EMPTY, BYTES)


@pytest.mark.parametrize(
    ("data", "name", "kind"),
    [
        (pdf_bytes(), "report.txt", K.PDF),
        (pixmap_bytes("png"), "photo.jpg", K.PNG),
        (docx_bytes(), "letter.pdf", K.DOCX),
        (b"<!DOCTYPE html><html><body>404 Not Found</body></html>", "download.pdf", K.HTML),
        (b"<!doctype html>\n<p>hello</p>", "notes.txt", K.HTML),
        (b'{"a": [1, 2, 3]}', "data.csv", K.JSON),
        (b"From: a@example.com\nTo: b@example.com\nSubject: hi\n\nbody\n", "mail.txt", K.EML),
    ],
    ids=[
        "pdf-as-txt",
        "png-as-jpg",
        "docx-as-pdf",
        "html-as-pdf",
        "html-as-txt",
        "json-as-csv",
        "eml-as-txt",
    ],
)
def test_bytes_beat_a_lying_extension(tmp_path: Path, data: bytes, name: str, kind: K) -> None:
    assert sniff_file(write(tmp_path, name, data)) == Sniffed(kind, BYTES)


# --- text ---------------------------------------------------------------------------------------------

TEXT_CASES: list[tuple[str, bytes, str, Sniffed]] = [
    ("plain", b"Just some words.\nAnd another line.\n", "notes", Sniffed(K.TEXT, BYTES)),
    ("plain .txt", b"Just some words.\n", "notes.txt", Sniffed(K.TEXT, BYTES)),
    ("plain .log", b"2024-01-01 started\n", "run.log", Sniffed(K.TEXT, BYTES)),
    ("csv", b"a,b,c\r\n1,2,3\r\n", "table.csv", Sniffed(K.CSV, EXTENSION)),
    ("tsv", b"a\tb\n1\t2\n", "table.tsv", Sniffed(K.TSV, EXTENSION)),
    ("markdown", b"# Title\n\nSome *text*.\n", "README.md", Sniffed(K.MARKDOWN, EXTENSION)),
    (
        "md with html",
        b'<div align="center">\n<img src="x.png">\n</div>\n',
        "README.md",
        Sniffed(K.MARKDOWN, EXTENSION),
    ),
    ("html fragment", b'<div class="x">hello</div>', "fragment", Sniffed(K.HTML, BYTES)),
    ("html fragment .html", b"<p>hello</p>", "page.html", Sniffed(K.HTML, BYTES)),
    ("xml declaration", b'<?xml version="1.0"?>\n<catalog><book/></catalog>', "data", Sniffed(K.XML, BYTES)),
    ("xml named html", b'<?xml version="1.0"?><rss version="2.0"/>', "feed.html", Sniffed(K.XML, BYTES)),
    (
        "xhtml",
        b'<?xml version="1.0" encoding="utf-8"?>\n<!-- generated -->\n'
        b'<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x.dtd">\n'
        b'<html xmlns="http://www.w3.org/1999/xhtml">',
        "page.xml",
        Sniffed(K.HTML, BYTES),
    ),
    (
        "xml then html root",
        b"<?xml  version='1.0'?>\n<!-- c -->\n<html>\n<head>",
        "x",
        Sniffed(K.HTML, BYTES),
    ),
    (
        "xml doctype",
        b'<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "s.dtd">\n<svg/>',
        "x",
        Sniffed(K.XML, BYTES),
    ),
    (
        "xml root element",
        b'<catalog xmlns="urn:x">\n  <book id="1"/>\n</catalog>\n',
        "x",
        Sniffed(K.XML, BYTES),
    ),
    ("xml root in .txt", b"<catalog>\n</catalog>\n", "x.txt", Sniffed(K.TEXT, EXTENSION)),
    ("doctype after blank lines", b"\r\n\r\n<!DOCTYPE html>\r\n<html>", "x", Sniffed(K.HTML, BYTES)),
    ("html after comment", b"<!-- saved from url -->\n<HTML><BODY>", "x", Sniffed(K.HTML, BYTES)),
    ("head first", b"  <head><title>t</title></head>", "x", Sniffed(K.HTML, BYTES)),
    ("autolink is not xml", b"<https://example.com> is where it lives\n", "x", Sniffed(K.TEXT, BYTES)),
    (
        "email",
        b"MIME-Version: 1.0\r\nDate: Fri, 16 Dec 2022 17:04:16 -0500\r\nMessage-ID: <x@y>\r\n"
        b"Subject: Test\r\n  continued\r\nFrom: a@b.c\r\n\r\nBody\r\n",
        "message",
        Sniffed(K.EML, BYTES),
    ),
    (
        "mbox",
        b"From 1462821104707864209@xxx Mon Mar 17 11:15:17 +0000 2014\nX-GM-THRID: 1\nReceived: by x\n"
        b"Return-Path: <a@b>\n\nbody\n",
        "message",
        Sniffed(K.EML, BYTES),
    ),
    ("one header only", b"Subject: minutes\n\nWe met.\n", "minutes", Sniffed(K.TEXT, BYTES)),
    ("headers not first", b"Dear all,\nFrom: me\nTo: you\n", "letter", Sniffed(K.TEXT, BYTES)),
    ("json object", b' \n{"a": 1, "b": [true, null]}', "data", Sniffed(K.JSON, BYTES)),
    ("json array", b'[\n  {\n    "x": -1.5e3\n  }\n]\n', "data", Sniffed(K.JSON, BYTES)),
    ("json lines", b'{"a": 1}\n{"a": 2}\n', "data", Sniffed(K.JSON, BYTES)),
    ("not json: footnote", b"[1] Introduction to the topic\n", "notes", Sniffed(K.TEXT, BYTES)),
    ("not json: template", b"{{ name }} says hello\n", "notes", Sniffed(K.TEXT, BYTES)),
    ("empty json", b"{}", "x", Sniffed(K.JSON, BYTES)),
    ("whitespace only", b"      \n\n    \n", "empty.eml", Sniffed(K.EML, EXTENSION)),
    ("text named like a container", b"This is not a zip file!\n", "x.odt", Sniffed(K.ODT, EXTENSION)),
    ("utf-8 bom", b"\xef\xbb\xbf<!DOCTYPE HTML>\n<html>", "x", Sniffed(K.HTML, BYTES)),
    ("utf-16 le bom", "\ufeff<html>\n  <head>".encode("utf-16-le"), "x", Sniffed(K.HTML, BYTES)),
    (
        "utf-16 be bom",
        "\ufeffStanley Cups,,\nTeam,Location\n".encode("utf-16-be"),
        "x.csv",
        Sniffed(K.CSV, EXTENSION),
    ),
    ("utf-32 le bom", '\ufeff{"a": 1}'.encode("utf-32-le"), "x", Sniffed(K.JSON, BYTES)),
    (
        "utf-16 le no bom",
        "MIME-Version: 1.0\nDate: Fri, 16 Dec 2022\nSubject: x\n\nbody".encode("utf-16-le"),
        "x.eml",
        Sniffed(K.EML, BYTES),
    ),
    ("utf-16 le no bom text", "This is a test document.\n".encode("utf-16-le"), "x", Sniffed(K.TEXT, BYTES)),
    ("cp1252", "Grüße – “quoted” € 15,50\n".encode("cp1252"), "x", Sniffed(K.TEXT, BYTES)),
    ("ansi log", b"\x1b[32mOK\x1b[0m build finished\n", "x", Sniffed(K.TEXT, BYTES)),
]


@pytest.mark.parametrize(
    ("head", "name", "expected"), [c[1:] for c in TEXT_CASES], ids=[c[0] for c in TEXT_CASES]
)
def test_text(head: bytes, name: str, expected: Sniffed) -> None:
    assert sniff(head, name) == expected


def test_json_cut_by_the_head_is_still_json() -> None:
    data = json.dumps([{"id": i, "text": "word " * 20} for i in range(200)]).encode()
    assert len(data) > HEAD_BYTES
    for cut in range(HEAD_BYTES - 40, HEAD_BYTES):
        assert sniff(data[:cut], "x") == Sniffed(K.JSON, BYTES), cut


def test_utf8_cut_inside_a_character_is_still_text() -> None:
    data = ("é" * HEAD_BYTES).encode()
    assert sniff(data[: HEAD_BYTES - 1], "x") == Sniffed(K.TEXT, BYTES)
    assert sniff(data, "x") == Sniffed(K.TEXT, BYTES)


def test_only_the_head_counts() -> None:
    text = b"plain words " * (HEAD_BYTES // 12 + 1)
    assert sniff(text + JUNK, "x") == sniff(text[:HEAD_BYTES], "x") == Sniffed(K.TEXT, BYTES)


def test_adversarial_heads() -> None:
    """Deep nesting must not overflow the JSON parser's stack; an unterminated doctype with an internal
    subset once backtracked quadratically (0.8 s on 8 KiB)."""
    assert sniff(b"[" * HEAD_BYTES, "x") == Sniffed(K.JSON, BYTES)
    doctype = b"<!doctype " + b"a" * 4000 + b" " + b"b" * 4000 + b"["
    started = time.perf_counter()
    assert sniff(doctype, "x") == Sniffed(K.TEXT, BYTES)
    assert time.perf_counter() - started < 0.2


# --- properties ---------------------------------------------------------------------------------------

NAMES = st.one_of(
    st.text(max_size=40),
    st.builds(
        "{}.{}".format,
        st.text(max_size=10),
        st.sampled_from(["pdf", "TXT", "docx", "msg", "csv", "json", "md", "zip", "png", "mp3", "bin", ""]),
    ),
)


@settings(max_examples=300, deadline=None)
@given(head=st.binary(max_size=HEAD_BYTES + 64), name=NAMES)
def test_sniff_never_raises(head: bytes, name: str) -> None:
    result = sniff(head, name)
    assert isinstance(result.kind, K)
    assert isinstance(result.decided_by, KindSource)
    if result.decided_by is NONE:
        assert result.kind is K.UNKNOWN


@settings(max_examples=100, deadline=None)
@given(
    head=st.binary(max_size=2048),
    name=NAMES,
    prefix=st.sampled_from([b"%PDF-1.4\n", b"\x89PNG\r\n\x1a\n", b"{\\rtf1", b"GIF89a", b"\xff\xd8\xff"]),
)
def test_a_magic_number_is_never_overruled_by_the_name(head: bytes, name: str, prefix: bytes) -> None:
    assert sniff(prefix + head, name).decided_by is BYTES


@settings(max_examples=100, deadline=None)
@given(
    parts=st.lists(
        st.sampled_from(["PK\x03\x04", "PK\x05\x06", "\xd0\xcf\x11\xe0", "ftyp", "\x00"]), max_size=8
    )
)
def test_container_parsers_survive_truncated_headers(parts: list[str]) -> None:
    """Zip, OLE2 and ftyp resolvers read fields at offsets: a head cut anywhere must not break them."""
    data = zip_bytes(("[Content_Types].xml", b"<Types/>" * 50), ("word/document.xml", b"<w/>"))
    junk = "".join(parts).encode("latin-1")
    for cut in range(0, 120, 7):
        sniff(data[:cut] + junk, "x.docx")
        sniff(ole2_bytes("Workbook")[: cut * 5] + junk, "x")
        sniff(b"\x00\x00\x00\x20ftyp"[:cut] + junk, "x")


# --- the shared corpus --------------------------------------------------------------------------------

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"

#: The manifest's ``kind`` label family and the kinds that agree with it.
LABEL_KINDS: dict[str, frozenset[K]] = {
    "pdf": frozenset({K.PDF}),
    "html": frozenset({K.HTML}),
    "docx": frozenset({K.DOCX}),
    "xlsx": frozenset({K.XLSX}),
    "pptx": frozenset({K.PPTX}),
    "eml": frozenset({K.EML}),
    "msg": frozenset({K.MSG}),
    "rtf": frozenset({K.RTF}),
    "odt": frozenset({K.ODT}),
    "csv": frozenset({K.CSV}),
    "json": frozenset({K.JSON}),
    "txt": frozenset({K.TEXT}),
    "image": frozenset({K.PNG, K.JPEG, K.TIFF, K.WEBP, K.BMP, K.GIF}),
}

#: Files whose sniffed kind may disagree with their label, and why. None do today: the corrupt and
#: empty ones agree by extension (see DECIDED_BY_EXTENSION).
KNOWN_EXCEPTIONS: dict[str, str] = {}

#: The files the name decides, each for a reason the bytes cannot overrule.
DECIDED_BY_EXTENSION: dict[str, str] = {
    "plumb__empty.pdf": "0 bytes",
    "tika__testODTnotaZipFile.odt": "a line of text, no magic: the ODT reader will call it corrupt",
    "tika__testWORD_protected_passtika.docx": "encrypted OOXML: OLE2 with EncryptedPackage",
    "unst__password_protected.xlsx": "encrypted OOXML: OLE2 with EncryptedPackage",
    "unst__fake-email-attachment.msg": "OLE2 whose directory (at 9216) lies beyond the head",
    "unst__empty.eml": "13 bytes of whitespace",
    "unst__stanley-cups-utf-16.csv": "text; only the name says CSV",
}


def label_family(label: str) -> str:
    return label.split("-", 1)[0]


@pytest.mark.corpus
def test_corpus_kinds_agree_with_the_manifest() -> None:
    manifest = CORPUS / "manifest.csv"
    if not manifest.is_file():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    with manifest.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    disagreements: list[str] = []
    by_extension: set[str] = set()
    for row in rows:
        path = CORPUS / row["path"]
        sniffed = sniff_file(path)
        if sniffed.decided_by is EXTENSION:
            by_extension.add(path.name)
        expected = LABEL_KINDS[label_family(row["kind"])]
        if sniffed.kind not in expected and path.name not in KNOWN_EXCEPTIONS:
            disagreements.append(
                f"{path.name:50} {row['kind']:20} {sniffed.kind.value:8} {sniffed.decided_by.value}"
            )
    table = "\n".join(["file | label | sniffed | decided by", *disagreements])
    assert not disagreements, f"{len(disagreements)} of {len(rows)} disagree:\n{table}"
    assert by_extension == set(DECIDED_BY_EXTENSION)
