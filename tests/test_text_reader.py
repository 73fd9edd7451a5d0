"""readers.text.encoding and readers.text.plain: decoding by the strongest evidence, and one raw page per
file."""

from __future__ import annotations

import codecs
import os
import random
from pathlib import Path

import charset_normalizer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readers.core.base import produced_nothing
from readers.core.errors import LimitExceeded, ReaderError
from readers.core.model import ContentKind, ReadLimits
from readers.text.encoding import UTF16_NUL_SHARE_MIN, decode_text, utf16_by_nul_share
from readers.text.plain import ENCODING_FALLBACK_NOTE, PlainTextReader

READER = PlainTextReader()
LIMITS = ReadLimits()

WESTERN = (
    "Die schöne Frau hat einen Kaffee mit Kuchen gegessen. Sie sagte: „Das war köstlich!“ – 15,50 €.\n"
    "L'été était très chaud cette année. J'ai acheté un café au lait — c'était délicieux… naïve œuvre.\n"
)


# --- decode_text --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "text", "encoding", "source"),
    [
        (b"", "", "utf-8", "utf8"),
        (b"plain ascii\r\nand CRLF", "plain ascii\r\nand CRLF", "utf-8", "utf8"),
        ("Grüße, 東京, emoji 🎉".encode(), "Grüße, 東京, emoji 🎉", "utf-8", "utf8"),
        (codecs.BOM_UTF8 + "café".encode(), "café", "utf-8", "bom"),
        (codecs.BOM_UTF16_LE + "Grüße\n".encode("utf-16-le"), "Grüße\n", "utf-16-le", "bom"),
        (
            codecs.BOM_UTF16_BE + "Stanley Cups,,\n".encode("utf-16-be"),
            "Stanley Cups,,\n",
            "utf-16-be",
            "bom",
        ),
        (codecs.BOM_UTF32_LE + "ab".encode("utf-32-le"), "ab", "utf-32-le", "bom"),
        (codecs.BOM_UTF32_BE + "ab".encode("utf-32-be"), "ab", "utf-32-be", "bom"),
        (
            "This is a test document.\n".encode("utf-16-le"),
            "This is a test document.\n",
            "utf-16-le",
            "nul_share",
        ),
        (
            "This is a test document.\n".encode("utf-16-be"),
            "This is a test document.\n",
            "utf-16-be",
            "nul_share",
        ),
    ],
    ids=[
        "empty",
        "ascii",
        "utf8",
        "utf8-bom",
        "utf16le-bom",
        "utf16be-bom",
        "utf32le",
        "utf32be",
        "le",
        "be",
    ],
)
def test_decode_by_mark_nuls_and_utf8(data: bytes, text: str, encoding: str, source: str) -> None:
    decoded = decode_text(data)
    assert (decoded.text, decoded.encoding, decoded.source) == (text, encoding, source)


def test_utf16_without_mark_survives_a_cut_code_unit() -> None:
    decoded = decode_text("Mostly Latin text with a few ü and ß.".encode("utf-16-le")[:-1])
    assert decoded.source == "nul_share"
    assert decoded.text.startswith("Mostly Latin text with a few ü and ß")


def test_utf16_mixed_scripts_pass_the_nul_share() -> None:
    """A third non-Latin text still shows enough NULs at odd offsets (the threshold's headroom)."""
    data = ("Latin words " * 4 + "кириллица " * 2).encode("utf-16-le")
    share = data[1::2].count(0) / len(data[1::2])
    assert share > UTF16_NUL_SHARE_MIN
    assert decode_text(data).text == "Latin words " * 4 + "кириллица " * 2


def test_utf32_without_mark_is_not_utf16() -> None:
    assert utf16_by_nul_share("abc".encode("utf-32-le")) is None


def test_cp1252_is_detected_and_ties_go_to_cp1252() -> None:
    """charset-normalizer alone ranks cp1250 first on this text (an equal-scoring tie)."""
    decoded = decode_text(WESTERN.encode("cp1252"))
    assert decoded.source == "detected"
    assert decoded.encoding == "cp1252"
    assert decoded.text == WESTERN


def test_latin1_text() -> None:
    text = "Grüße aus Köln, schöne Äpfel. Ça va très bien à Genève. Señor Muñoz, ¿qué tal?\n" * 3
    decoded = decode_text(text.encode("latin-1"))
    assert decoded.source == "detected"
    assert decoded.text == text


def test_binary_bytes_fall_back_to_latin1() -> None:
    data = random.Random(0).randbytes(4000)
    decoded = decode_text(data)
    assert decoded.source == "fallback"
    assert decoded.encoding == "iso8859-1"
    assert decoded.text == data.decode("latin-1")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=4096))
def test_decode_text_never_raises(data: bytes) -> None:
    decoded = decode_text(data)
    assert isinstance(decoded.text, str)
    assert decoded.source in {"bom", "nul_share", "utf8", "detected", "fallback"}
    decoded.text.encode("utf-8")  # no lone surrogates: the text can be stored


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))))
def test_decode_text_is_the_identity_on_utf8(text: str) -> None:
    """Two exclusions, both forced by the encoding rules: a leading U+FEFF *is* a UTF-8 byte-order mark,
    and NULs at alternate offsets are what UTF-16 looks like (no real UTF-8 text contains NULs)."""
    if text.startswith("\ufeff"):
        text = "x" + text
    decoded = decode_text(text.encode("utf-8"))
    assert decoded.text == text
    assert decoded.source == "utf8"


# --- PlainTextReader ----------------------------------------------------------------------------------


def read(tmp_path: Path, name: str, data: bytes, limits: ReadLimits = LIMITS):
    path = tmp_path / name
    path.write_bytes(data)
    return READER.read(path, limits)


def test_reader_identity() -> None:
    assert READER.name == "text"
    assert READER.kinds == {
        ContentKind.TEXT,
        ContentKind.CSV,
        ContentKind.TSV,
        ContentKind.JSON,
        ContentKind.XML,
    }
    assert ContentKind.MARKDOWN not in READER.kinds  # DESIGN §3: deliberately unsupported for now
    assert READER.tool_version == charset_normalizer.__version__
    assert READER.version == f"1+{charset_normalizer.__version__}"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("table.csv", b'name,city\r\n"Smith, J.",Z\xc3\xbcrich\r\n\r\n'),
        ("table.tsv", b"a\tb\n1\t2\n"),
        ("data.json", b'{\n  "a": [1, 2, {"b": null}]\n}\n'),
        ("data.xml", b'<?xml version="1.0"?>\n<root>\n  <item>  spaced  </item>\n</root>\n'),
        ("notes.txt", b"  leading and trailing spaces  \n\n\n\ttab\x0cform feed\n"),
    ],
)
def test_reader_passes_the_text_through_raw(tmp_path: Path, name: str, data: bytes) -> None:
    result = read(tmp_path, name, data)
    assert result.page_count == 1
    assert [page.page for page in result.pages] == [1]
    assert result.pages[0].text == data.decode("utf-8")  # CRLF, blank lines, markup all kept
    assert (result.encoding, result.encoding_source) == ("utf-8", "utf8")
    assert result.notes == ()


def test_reader_decodes_utf16_with_and_without_mark(tmp_path: Path) -> None:
    text = "This is a test document to use for unit tests.\r\n\r\n    Doylestown, PA 18901\r\n"
    with_mark = read(tmp_path, "a.txt", codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    without = read(tmp_path, "b.txt", text.encode("utf-16-le"))
    assert with_mark.text == without.text == text
    assert (with_mark.encoding, with_mark.encoding_source) == ("utf-16-le", "bom")
    assert (without.encoding, without.encoding_source) == ("utf-16-le", "nul_share")


def test_reader_records_detected_and_fallback_encodings(tmp_path: Path) -> None:
    cp1252 = read(tmp_path, "w.txt", WESTERN.encode("cp1252"))
    assert (cp1252.text, cp1252.encoding, cp1252.encoding_source) == (WESTERN, "cp1252", "detected")
    junk = read(tmp_path, "j.txt", random.Random(0).randbytes(4000))
    assert junk.encoding_source == "fallback"
    assert junk.notes == (ENCODING_FALLBACK_NOTE,)


@pytest.mark.parametrize("data", [b"", b"   \n\t\r\n"])
def test_empty_and_blank_files_produce_nothing_without_raising(tmp_path: Path, data: bytes) -> None:
    result = read(tmp_path, "empty.txt", data)
    assert result.pages[0].text == data.decode()
    assert produced_nothing(result)


def test_over_the_byte_limit(tmp_path: Path) -> None:
    limits = ReadLimits(max_text_bytes=10)
    assert read(tmp_path, "ok.txt", b"x" * 10, limits).text == "x" * 10
    with pytest.raises(LimitExceeded) as info:
        read(tmp_path, "big.txt", b"x" * 11, limits)
    assert info.value.reason == "over_limit"


@pytest.mark.parametrize(
    "make", [lambda p: None, lambda p: p.mkdir(), os.mkfifo], ids=["missing", "directory", "fifo"]
)
def test_unreadable_file_is_a_reader_error(tmp_path: Path, make) -> None:
    path = tmp_path / "gone.txt"
    make(path)
    with pytest.raises(ReaderError) as info:
        READER.read(path, LIMITS)  # a pipe is refused, not waited on
    assert info.value.reason == "unreadable"
    if path.exists():
        assert "not a regular file" in str(info.value)
    else:
        assert isinstance(info.value.__cause__, OSError)


# --- the shared corpus --------------------------------------------------------------------------------

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"

#: How each text-like corpus file decodes, and a line its text must contain.
CORPUS_DECODING: list[tuple[str, str, str, str]] = [
    ("unst__fake-text-utf-16-le.txt", "utf-16-le", "nul_share", "Doylestown, PA 18901"),
    ("unst__fake-email-utf-16-le.eml", "utf-16-le", "nul_share", "MIME-Version: 1.0"),
    ("unst__stanley-cups-utf-16.csv", "utf-16-be", "bom", "Team,Location,Stanley Cups"),
    ("tika__testHTML_charset_utf16le.html", "utf-16-le", "bom", "<title>Title</title>"),
    ("traf__nhk.or.jp.k100.html", "utf-8", "bom", "<!DOCTYPE HTML>"),
    ("unst__UDHR_first_article_all.txt", "utf-8", "utf8", "Universal Declaration of Human Right"),
    # Double-encoded at the source ("â\x80\x93" for "–"): valid UTF-8, so decoded as such; repairing
    # mojibake is not the decoder's business.
    ("unst__norwich-city.txt", "utf-8", "utf8", "Iwan Roberts"),
    ("unst__simple.json", "utf-8", "utf8", '"element_id"'),
    ("unst__fake-html-cp1252.html", "cp1252", "detected", "Der Preis betrug 15,50 €."),
    # Declares UTF-8 in a <meta>, is cp1256: the bytes are believed, not the declaration.
    ("tika__testArabicMisleadingCharset.html", "cp1256", "detected", "اللغة العربية"),
]


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "encoding", "source", "needle"), CORPUS_DECODING, ids=[c[0] for c in CORPUS_DECODING]
)
def test_corpus_decoding(name: str, encoding: str, source: str, needle: str) -> None:
    path = CORPUS / "dev" / name
    if not path.is_file():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    result = READER.read(path, LIMITS)
    assert (result.encoding, result.encoding_source) == (encoding, source)
    assert needle in result.text
    assert "\ufffd" not in result.text
