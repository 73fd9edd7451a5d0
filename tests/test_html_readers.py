"""The HTML chain: marked region, trafilatura, whole page; the encoding decision; titles; bounds.

Every fixture is written here as HTML strings or bytes; the corpus test at the end skips without the
shared corpus.
"""

from __future__ import annotations

import codecs
import html
import json
import random
import re
import socket
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from readers.core.base import produced_nothing
from readers.core.errors import CorruptDocument, LimitExceeded, NothingProduced, ReaderError
from readers.core.model import ContentKind, DocumentStatus, ReadLimits, ReadResult
from readers.core.reader_chain import READERS
from readers.engine.dispatch import extract_document
from readers.html.chain import Content, HtmlReader, read_html_bytes
from readers.html.charset import (
    CLEAN_MESS_MAX,
    LIE_MESS_MARGIN,
    badness,
    decode_html,
    prescan_charset,
    whatwg_codec,
)
from readers.html.main import HtmlMainReader
from readers.html.page import HtmlPageReader
from readers.html.region import HtmlRegionReader
from readers.html.tree import HtmlDocument, parse_html, with_title

from .conftest import CORPUS

REGION, MAIN, PAGE = HtmlRegionReader(), HtmlMainReader(), HtmlPageReader()
CHAIN = (REGION, MAIN, PAGE)
LIMITS = ReadLimits()

PROSE = (
    "The committee met on Tuesday to review the budget for the coming year, and agreed to raise the "
    "allocation for public libraries by four percent after a long debate about opening hours."
)
MORE = (
    "Residents who spoke at the meeting asked for longer weekend hours, and the librarian said the "
    "extra money would pay for two more staff members from the spring onwards."
)

# Text that must never reach any reader's output: code, templates, navigation and hidden elements.
FURNITURE = """
<script>var SCRIPTLEAK = 1; document.write("SCRIPTLEAK");</script>
<style>.STYLELEAK { color: red }</style>
<template><p>TEMPLATELEAK</p></template>
<noscript>NOSCRIPTLEAK</noscript>
<nav><a href="/">NAVLEAK home</a> <a href="/a">NAVLEAK about</a></nav>
<div role="navigation"><a href="/x">ROLENAVLEAK</a></div>
<div hidden>HIDDENLEAK</div>
<div aria-hidden="true">ARIALEAK</div>
<div style="display: none">STYLEHIDDENLEAK</div>
<span class="sr-only">SRONLYLEAK</span>
<form role="search"><label>SEARCHLEAK</label><input name="q" value="INPUTLEAK"></form>
"""
LEAKS = re.compile(
    r"SCRIPTLEAK|STYLELEAK|TEMPLATELEAK|NOSCRIPTLEAK|NAVLEAK|ROLENAVLEAK|HIDDENLEAK|ARIALEAK|"
    r"STYLEHIDDENLEAK|SRONLYLEAK|SEARCHLEAK|INPUTLEAK|var |color:"
)


def page(body: str, head: str = "", *, charset: str | None = None) -> str:
    meta = f'<meta charset="{charset}">' if charset else ""
    return f"<!DOCTYPE html><html><head>{meta}{head}</head><body>{body}</body></html>"


def fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def chain(data: bytes | str, *, declared_encoding: str | None = None) -> ReadResult:
    """The three readers in their designed order, through read_html_bytes (the table row may be empty)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return read_html_bytes(raw, declared_encoding=declared_encoding, limits=LIMITS, readers=CHAIN)


def reader_of(result: ReadResult) -> str | None:
    """The step that produced the text, from read_html_bytes's note."""
    return next((n.split(":", 1)[1] for n in result.notes if n.startswith("html_reader:")), None)


# --- the marked region ----------------------------------------------------------------------------------


def test_region_picks_the_widest_marked_region() -> None:
    body = f"""
    {FURNITURE}
    <main><p>Short intro.</p></main>
    <article class="story"><h2>Budget</h2><p>{PROSE}</p><p>{MORE}</p></article>
    <div class="main-content"><p>{PROSE[:60]}</p></div>
    """
    result = REGION.read_bytes(page(body).encode(), limits=LIMITS)
    assert "region:article" in result.notes
    assert PROSE in result.text and MORE in result.text
    assert "Short intro." not in result.text
    assert not LEAKS.search(result.text)


def test_region_widest_is_measured_in_prose_not_links() -> None:
    """A feed of links marked as <article> is longer than the article but is not it."""
    feed = "".join(
        f'<li><a href="/n{i}">Another headline number {i} about something</a></li>' for i in range(40)
    )
    body = f'<article class="feed"><ul>{feed}</ul></article><article><p>{PROSE}</p></article>'
    result = REGION.read_bytes(page(body).encode(), limits=LIMITS)
    assert PROSE in result.text
    assert "Another headline" not in result.text


def test_region_keeps_nested_widest_and_drops_its_boilerplate() -> None:
    related = "".join(f'<li><a href="/r{i}">Related story {i} with a long title</a></li>' for i in range(8))
    body = f"""
    <div role="main">
      <article>
        <header><h1>Libraries win</h1></header>
        <p>{PROSE}</p>
        <div class="share-bar">Share this on SHARELEAK</div>
        <footer><a href="/prev">PREVLEAK previous story</a></footer>
      </article>
      <div class="td_block_related_posts"><ul>{related}</ul></div>
      <div id="comments"><h2>COMMENTLEAK Add a new comment</h2><form><textarea></textarea></form></div>
      <section><h3>Tags</h3><ul><li><a href="/t/a">TAGLEAK budget</a></li></ul></section>
    </div>"""
    result = REGION.read_bytes(page(body).encode(), limits=LIMITS)
    assert "region:role=main" in result.notes
    assert "# Libraries win" in result.text and PROSE in result.text
    for leak in ("SHARELEAK", "PREVLEAK", "Related story", "COMMENTLEAK", "TAGLEAK", "### Tags"):
        assert leak not in result.text


def test_region_produces_nothing_without_a_mark_or_with_an_empty_one() -> None:
    unmarked = page(f"<div><p>{PROSE}</p></div>")
    skip_link_target = page(f'<a id="main-content"></a><div><p>{PROSE}</p></div>')
    for data in (unmarked, skip_link_target):
        result = REGION.read_bytes(data.encode(), limits=LIMITS)
        assert produced_nothing(result)


def test_ruby_readings_do_not_interleave_with_the_text() -> None:
    ruby = "<ruby>子<rt>こ</rt></ruby>どもへの<ruby>法律<rp>(</rp><rt>ほうりつ</rt><rp>)</rp></ruby>"
    body = f"<main><p>{ruby}ができて</p></main>"
    assert REGION.read_bytes(page(body).encode(), limits=LIMITS).text == "子どもへの法律ができて"


def test_a_form_wrapping_the_whole_page_is_kept_and_a_search_box_is_not() -> None:
    body = f"""<form id="aspnetForm"><div class="page"><h1>Libraries win</h1><p>{PROSE}</p><p>{MORE}</p>
    <form class="search"><label>FORMLEAK Search</label><input name="q"></form></div></form>"""
    for reader in CHAIN:
        text = reader.read_bytes(page(body).encode(), limits=LIMITS).text
        if text:
            assert PROSE in text and "FORMLEAK" not in text, reader.name


# --- nothing leaks, whichever reader reads ---------------------------------------------------------------


@pytest.mark.parametrize("reader", CHAIN, ids=lambda r: r.name)
def test_scripts_styles_templates_navigation_and_hidden_never_leak(reader: HtmlReader) -> None:
    mark = "<main>" if reader is REGION else "<div>"
    end = "</main>" if reader is REGION else "</div>"
    body = f"{FURNITURE}{mark}<h2>Budget</h2><p>{PROSE}</p>{FURNITURE}<p>{MORE}</p>{end}{FURNITURE}"
    result = reader.read_bytes(page(body, "<title>Budget</title>").encode(), limits=LIMITS)
    assert PROSE in result.text and MORE in result.text
    assert not LEAKS.search(result.text), LEAKS.search(result.text)


def test_the_chain_never_leaks_either() -> None:
    body = f"{FURNITURE}<div><p>{PROSE}</p>{FURNITURE}<p>{MORE}</p></div>{FURNITURE}"
    result = chain(page(body))
    assert PROSE in result.text
    assert not LEAKS.search(result.text)


# --- the title --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "body_heading", "title", "source"),
    [
        (
            "<title>Budget news</title><meta property='og:title' content='OG title'>",
            "",
            "Budget news",
            "title",
        ),
        ("<title>  </title><meta property='og:title' content='OG  title'>", "", "OG title", "og:title"),
        ("", "<h1>Heading <script>x()</script>title</h1>", "Heading title", "h1"),
    ],
)
def test_title_is_written_as_a_level_one_heading(
    head: str, body_heading: str, title: str, source: str
) -> None:
    body = f"{body_heading}<main><p>{PROSE}</p></main>"
    result = REGION.read_bytes(page(body, head).encode(), limits=LIMITS)
    assert result.text.startswith(f"# {title}\n\n")
    assert f"title:{source}" in result.notes
    assert result.text.count(title) == 1


def test_title_is_not_written_twice() -> None:
    head = "<title>Libraries win | The Daily Example</title>"
    body = f"<main><h1>Libraries win</h1><p>{PROSE}</p></main>"
    text = REGION.read_bytes(page(body, head).encode(), limits=LIMITS).text
    assert text.startswith("# Libraries win\n\n") and text.count("Libraries win") == 1
    assert with_title("## Exactly this\n\nx", "Exactly this") == "## Exactly this\n\nx"
    assert with_title("# Libraries win\n\nx", "The Daily Example - Libraries win").startswith(
        "# Libraries win"
    )
    assert with_title("# News\n\nx", "News about a very long subject | Site").startswith("# News about")
    assert with_title("# Headline\n\nx", "Headline-ish page").startswith("# Headline-ish page\n\n#")
    assert with_title("", "A title") == ""


# --- the chain and its fallbacks --------------------------------------------------------------------------


def test_no_marked_region_falls_back_to_trafilatura() -> None:
    body = f'<nav><a href="/">Home</a></nav><div class="content"><p>{PROSE}</p><p>{MORE}</p></div>'
    result = chain(page(body, "<title>Budget news</title>"))
    assert reader_of(result) == "trafilatura"
    assert "html_fallback" in result.notes
    assert result.text.startswith("# Budget news\n\n") and PROSE in result.text


def test_a_marked_region_is_read_first() -> None:
    result = chain(page(f"<main><p>{PROSE}</p></main>"))
    assert reader_of(result) == "html-region" and "html_fallback" not in result.notes


def test_whole_page_when_trafilatura_finds_nothing() -> None:
    body = '<div class="footer">Opening hours: nine to five, Monday to Friday.</div>'
    assert produced_nothing(MAIN.read_bytes(page(body).encode(), limits=LIMITS))
    result = chain(page(body))
    assert reader_of(result) == "html-page"
    assert result.text == "Opening hours: nine to five, Monday to Friday."


def test_a_crashing_step_is_skipped_like_the_dispatch_would() -> None:
    class Broken(HtmlReader):
        name = "broken"
        revision = 1

        def content(self, document: HtmlDocument, limits: ReadLimits) -> Content:
            raise RuntimeError("bug")

    result = read_html_bytes(page(f"<p>{PROSE}</p>").encode(), limits=LIMITS, readers=(Broken(), PAGE))
    assert "html_skipped:broken:reader_crashed:RuntimeError" in result.notes
    assert reader_of(result) == "html-page"


def test_steps_do_not_modify_the_shared_tree() -> None:
    document = parse_html(page(f"{FURNITURE}<main><p>{PROSE}</p></main>").encode())
    assert document is not None
    before = etree.tostring(document.root)
    for reader in CHAIN:
        reader.extract(document, LIMITS)
    assert etree.tostring(document.root) == before


def test_read_html_bytes_defaults_to_the_table_row() -> None:
    data = page(f"<main><p>{PROSE}</p></main>").encode()
    if not READERS.get(ContentKind.HTML):
        with pytest.raises(NothingProduced):
            read_html_bytes(data, limits=LIMITS)
    else:
        result = read_html_bytes(data, limits=LIMITS)
        assert reader_of(result) in set(READERS[ContentKind.HTML])


def test_read_html_bytes_refuses_a_step_that_cannot_read_bytes() -> None:
    from readers.text.plain import PlainTextReader

    with pytest.raises(TypeError):
        read_html_bytes(b"<p>x</p>", limits=LIMITS, readers=(PlainTextReader(),))


@pytest.mark.skipif(
    ContentKind.HTML not in READERS or not READERS[ContentKind.HTML],
    reason="readers/core/reader_chain.py has no HTML row yet",
)
def test_dispatch_records_recovered_by_fallback(tmp_path: Path) -> None:
    path = tmp_path / "unmarked.html"
    path.write_text(page(f"<div><p>{PROSE}</p><p>{MORE}</p></div>", "<title>Budget</title>"), "utf-8")
    ex = extract_document(path, ContentKind.HTML, size=path.stat().st_size, limits=LIMITS, max_bytes=10**9)
    assert ex.status is DocumentStatus.DERIVED
    assert ex.recovered_by_fallback and ex.reader == "trafilatura"
    assert ex.attempts[0].reader == "html-region" and ex.attempts[0].reason == "empty_text"
    marked = tmp_path / "marked.html"
    marked.write_text(page(f"<main><p>{PROSE}</p></main>"), "utf-8")
    ex = extract_document(
        marked, ContentKind.HTML, size=marked.stat().st_size, limits=LIMITS, max_bytes=10**9
    )
    assert ex.status is DocumentStatus.DERIVED and not ex.recovered_by_fallback


# --- markdown ---------------------------------------------------------------------------------------------


def test_structure_becomes_markdown() -> None:
    body = """<main>
      <h2>Section  one</h2><p>First<br>second line</p>
      <ul><li>apple<ul><li>green</li></ul></li><li>pear</li></ul>
      <ol start="3"><li>three</li><li>four</li></ol>
      <table><caption>Stock</caption><tr><th>Name</th><th>Qty</th></tr><tr><td>Apples</td><td>3 | 4</td></tr>
             <tr><td colspan="2">total</td></tr></table>
      <pre>def f():\n    return 1</pre>
      <blockquote><p>Quoted words.</p></blockquote>
    </main>"""
    text = REGION.read_bytes(page(body).encode(), limits=LIMITS).text
    assert text.split("\n\n") == [
        "## Section one",
        "First\nsecond line",
        "- apple\n  - green\n- pear",
        "3. three\n4. four",
        "Stock",
        "| Name | Qty |\n|---|---|\n| Apples | 3 \\| 4 |\n| total |  |",
        "```\ndef f():\n    return 1\n```",
        "> Quoted words.",
    ]


def test_a_layout_table_is_read_as_blocks() -> None:
    body = f"<main><table><tr><td><h2>Left</h2><p>{PROSE}</p></td><td><p>{MORE}</p></td></tr></table></main>"
    text = REGION.read_bytes(page(body).encode(), limits=LIMITS).text
    assert text.split("\n\n") == ["## Left", PROSE, MORE]


# --- encodings --------------------------------------------------------------------------------------------

ARABIC = "في قرية من القرى كان هناك رجل حكيم يعرف كل شيء عن الحياة وكان يعلم الناس كيف يعيشون بسلام."
RUSSIAN = "Экс-игрок Арсенала и Баварии попал в заявку сборной. Решение далось мне очень тяжело, сказал он."
GERMAN = "Die schöne Frau sagte: „Das war köstlich!“ – der Preis betrug 15,50 €. Grüße aus Köln."


def encoded_page(text: str, encoding: str, *, charset: str | None) -> bytes:
    return page(f"<main><p>{text}</p></main>", "<title>t</title>", charset=charset).encode(encoding)


@pytest.mark.parametrize(
    ("mark", "codec"), [(codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")]
)
def test_utf16_with_a_byte_order_mark(mark: bytes, codec: str) -> None:
    data = mark + page(f"<main><p>{RUSSIAN}</p></main>", charset="utf-16").encode(codec)
    result = chain(data)
    assert (result.encoding, result.encoding_source) == (codec, "bom")
    assert RUSSIAN in result.text


def test_utf16_without_a_mark_needs_its_nuls() -> None:
    data = page(f"<main><p>{RUSSIAN}</p></main>").encode("utf-16-be")
    decided = decode_html(data, declared_encoding="utf-16")
    assert (decided.encoding, decided.source) == ("utf-16-be", "transport")
    assert RUSSIAN in decided.text
    # A page written in ASCII bytes cannot be UTF-16 whatever it says: browsers read it as UTF-8.
    decided = decode_html(page(f"<p>{RUSSIAN}</p>", charset="utf-16").encode("utf-8"))
    assert (decided.encoding, decided.source) == ("utf-8", "declared")


def test_cp1252_declared() -> None:
    result = chain(encoded_page(GERMAN, "cp1252", charset="windows-1252"))
    assert (result.encoding, result.encoding_source) == ("cp1252", "declared")
    assert GERMAN in result.text


def test_latin1_label_means_windows_1252() -> None:
    """Browsers read a page labelled ISO-8859-1 as windows-1252: 0x93/0x94 are curly quotes, not C1."""
    data = page("<main><p>\u201cQuoted\u201d and 15 \u20ac</p></main>", charset="iso-8859-1").encode("cp1252")
    result = chain(data)
    assert (result.encoding, result.encoding_source) == ("cp1252", "declared")
    assert "\u201cQuoted\u201d and 15 \u20ac" in result.text


@pytest.mark.parametrize("declared", ["iso-8859-1", "windows-1252"])
@pytest.mark.parametrize("text", [ARABIC, RUSSIAN], ids=["arabic", "cyrillic"])
def test_a_legacy_declaration_over_utf8_bytes_is_a_lie(declared: str, text: str) -> None:
    result = chain(encoded_page(text, "utf-8", charset=declared))
    assert (result.encoding, result.encoding_source) == ("utf-8", "declared_lie")
    assert f"charset_lie:{declared}:utf8" in result.notes
    assert text in result.text


@pytest.mark.parametrize(
    ("text", "codec"), [(ARABIC, "cp1256"), (RUSSIAN, "cp1251")], ids=["arabic", "cyrillic"]
)
def test_a_utf8_declaration_over_legacy_bytes_is_a_lie(text: str, codec: str) -> None:
    result = chain(encoded_page(text, codec, charset="utf-8"))
    assert (result.encoding, result.encoding_source) == (codec, "declared_lie")
    assert text in result.text


def test_a_wrong_legacy_declaration_over_legacy_bytes_is_a_lie() -> None:
    result = chain(encoded_page(ARABIC, "cp1256", charset="windows-1252"))
    assert (result.encoding, result.encoding_source) == ("cp1256", "declared_lie")
    assert ARABIC in result.text


def test_a_stray_byte_does_not_make_a_utf8_declaration_a_lie() -> None:
    body = f"<main><p>{RUSSIAN * 20}</p><p>broken \xff byte</p></main>"
    data = page(body, charset="utf-8").encode("utf-8").replace(b"\xc3\xbf", b"\xff")
    result = chain(data)
    assert (result.encoding, result.encoding_source) == ("utf-8", "declared")
    assert RUSSIAN in result.text


def test_the_transport_declaration_comes_first_and_is_tested_too() -> None:
    data = encoded_page(RUSSIAN, "cp1251", charset="koi8-r")
    result = chain(data, declared_encoding="windows-1251")
    assert (result.encoding, result.encoding_source) == ("cp1251", "transport")
    # A transport that lies gives way to the page's own declaration.
    result = chain(encoded_page(RUSSIAN, "utf-8", charset="utf-8"), declared_encoding="us-ascii")
    assert (result.encoding, result.encoding_source) == ("utf-8", "declared")
    assert RUSSIAN in result.text


def test_undeclared_pages_use_the_plain_text_evidence() -> None:
    assert chain(page(f"<p>{RUSSIAN}</p>")).encoding_source == "utf8"
    result = chain(page(f"<main><p>{GERMAN} {GERMAN}</p></main>").encode("cp1252"))
    assert (result.encoding, result.encoding_source) == ("cp1252", "detected")
    assert GERMAN in result.text


def test_an_unknown_label_is_noted_and_ignored() -> None:
    result = chain(encoded_page(RUSSIAN, "utf-8", charset="x-no-such-charset"))
    assert result.encoding_source == "utf8" and "charset_unknown:x-no-such-charset" in result.notes


#: A paragraph written in UTF-7's escapes: as UTF-7 it is "<b>bold</b> and Café" (markup a browser never
#: sees); as what browsers decode it with, the characters as they stand.
UTF7_BODY = "Plain words +ADw-b+AD4-bold+ADw-/b+AD4- and Caf+AOk- +ADw-span hidden+AD4-unseen+ADw-/span+AD4-"


@pytest.mark.parametrize(
    ("head", "transport"),
    [
        ('<meta charset="utf-7">', None),
        ('<meta http-equiv="Content-Type" content="text/html; charset=UTF-7">', None),
        ("", "utf-7"),
    ],
    ids=["meta-charset", "http-equiv", "transport"],
)
def test_a_utf7_declaration_is_no_declaration_as_for_browsers(head: str, transport: str | None) -> None:
    """Browsers support no UTF-7 (the HTML Standard forbids it; the Encoding Standard has no such label), so
    the page reads as if it declared nothing, its escapes as text, and a note names the label."""
    data = f"<html><head>{head}<title>t</title></head><body><main><p>{UTF7_BODY}</p></main></body></html>"
    result = chain(data.encode("ascii"), declared_encoding=transport)
    assert (result.encoding, result.encoding_source) == ("utf-8", "utf8")
    assert any(n.lower() == "charset_unknown:utf-7" for n in result.notes)
    assert "+ADw-b+AD4-bold+ADw-/b+AD4- and Caf+AOk-" in result.text and "unseen" in result.text
    assert "Café" not in result.text
    assert whatwg_codec("utf-7", in_page=False) is None and whatwg_codec("UTF-32", in_page=True) is None


def test_a_page_declaring_utf7_then_a_supported_charset_is_read_with_the_second() -> None:
    data = page(f"<main><p>{GERMAN}</p></main>", '<meta charset="windows-1252">', charset="utf-7")
    result = chain(data.encode("cp1252"))
    assert (result.encoding, result.encoding_source) == ("cp1252", "declared")
    assert "charset_unknown:utf-7" in result.notes and GERMAN in result.text


def test_prescan() -> None:
    assert prescan_charset(b'<?xml version="1.0" encoding="ISO-8859-2"?><html>') == "ISO-8859-2"
    assert prescan_charset(b"<!-- <meta charset=\"koi8-r\"> --><meta charset='utf-8'>") == "utf-8"
    http_equiv = b'<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'
    assert prescan_charset(http_equiv) == "Shift_JIS"
    assert prescan_charset(b'<script charset="utf-8" src="x.js"></script><p>x') is None
    assert prescan_charset(b'<body><meta charset="koi8-r">') is None
    assert whatwg_codec("UTF-16LE", in_page=True) == "utf-8"
    assert whatwg_codec("latin1", in_page=True) == "cp1252"
    assert whatwg_codec("no-such", in_page=True) is None


# The margins, on samples the thresholds were calibrated on: every correct decoding is clean, every
# decoding with a codec from another script is worse by more than the margin.
SAMPLES = {
    "arabic": (ARABIC, ("cp1256", "iso8859-6")),
    "russian": (RUSSIAN, ("cp1251", "koi8-r", "iso8859-5")),
    "greek": ("Η Ελλάδα είναι χώρα της νοτιοανατολικής Ευρώπης με πρωτεύουσα την Αθήνα.", ("cp1253",)),
    "german": (GERMAN, ("cp1252",)),
    "czech": ("Příliš žluťoučký kůň úpěl ďábelské ódy; čeština je západoslovanský jazyk.", ("cp1250",)),
    "japanese": (
        "子どもへの虐待をなくすための法律ができて、親が子どもを教育するために。",
        ("shift_jis", "euc_jp"),
    ),
    "chinese": ("新华社北京2月17日电 记者萧海川报道，今年以来各地积极推进复工复产。", ("gb18030",)),
}
FOREIGN = {"arabic": "cp1252", "russian": "cp1256", "greek": "cp1252", "german": "cp1251", "czech": "cp1256"}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_lie_thresholds_separate_the_samples(name: str) -> None:
    text, codecs_ = SAMPLES[name]
    for codec in codecs_:
        data = text.encode(codec)
        assert badness(data.decode(codec)) <= CLEAN_MESS_MAX / 4
        if name in FOREIGN:
            wrong = data.decode(FOREIGN[name], errors="replace")
            assert badness(wrong) - badness(text) >= LIE_MESS_MARGIN
        decided = decode_html(page(text, charset=codec).encode(codec))
        assert text in decided.text and decided.source == "declared"


# --- bounds, emptiness and junk ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [b"", b"   \n\t ", b"<html><body></body></html>", page("<main></main><nav>x</nav>").encode()],
    ids=["no bytes", "whitespace", "empty body", "only furniture"],
)
def test_an_empty_page_produces_nothing(data: bytes) -> None:
    for reader in CHAIN:
        assert produced_nothing(reader.read_bytes(data, limits=LIMITS)), reader.name
    assert produced_nothing(chain(data))


def test_a_page_whose_only_text_is_its_title_produces_nothing() -> None:
    assert produced_nothing(chain(page("", "<title>Redirecting...</title>")))


def test_a_deeply_nested_page_is_over_the_limit_not_a_crash() -> None:
    data = ("<html><body>" + "<div>" * 100_000 + "deep" + "</div>" * 100_000 + "</body></html>").encode()
    for reader in CHAIN:
        with pytest.raises(LimitExceeded):
            reader.read_bytes(data, limits=LIMITS)
    with pytest.raises(LimitExceeded):
        chain(data)


def test_a_wide_page_within_the_bounds_is_read() -> None:
    body = "<main>" + "".join(f"<p>Paragraph {i} of the long page.</p>" for i in range(20_000)) + "</main>"
    text = REGION.read_bytes(page(body).encode(), limits=LIMITS).text
    assert "Paragraph 19999 of the long page." in text


def test_a_page_over_the_byte_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.html"
    path.write_bytes(page(f"<p>{PROSE}</p>").encode())
    small = ReadLimits(max_text_bytes=100)
    for reader in CHAIN:
        with pytest.raises(LimitExceeded):
            reader.read(path, small)
    with pytest.raises(LimitExceeded):
        read_html_bytes(path.read_bytes(), limits=small, readers=CHAIN)


def test_reading_a_file(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(encoded_page(RUSSIAN, "cp1251", charset="windows-1251"))
    result = REGION.read(path, LIMITS)
    assert RUSSIAN in result.text and result.encoding == "cp1251" and result.page_count == 1
    assert REGION.version.startswith(f"{REGION.revision}+lxml-")
    assert MAIN.version.startswith(f"{MAIN.revision}+2.")


@pytest.mark.parametrize("seed", range(8))
def test_junk_bytes_never_raise_anything_but_a_reader_error(seed: int) -> None:
    rng = random.Random(seed)
    data = bytes(rng.randrange(256) for _ in range(rng.choice([1, 17, 4096, 65536])))
    for reader in CHAIN:
        try:
            result = reader.read_bytes(data, limits=LIMITS)
        except ReaderError as exc:
            assert isinstance(exc, (CorruptDocument, LimitExceeded))
            continue
        assert isinstance(result.text, str) and "\x00" not in result.text


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2048))
def test_any_bytes_give_text_or_a_reader_error(data: bytes) -> None:
    try:
        result = chain(data)
    except ReaderError:
        return
    assert isinstance(result.text, str)


def test_nothing_touches_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    head = """<title>t</title><meta property="og:url" content="https://example.com/a">
    <link rel="canonical" href="https://example.com/a"><base href="https://example.com/">
    <link rel="stylesheet" href="https://example.com/s.css">"""
    body = f"""<!DOCTYPE html SYSTEM "https://example.com/x.dtd"><div><p>{PROSE}</p>
    <img src="https://example.com/i.png"><iframe src="https://example.com/f"></iframe>
    <time datetime="2020-01-01">1 January 2020</time><p>{MORE}</p></div>"""
    for reader in CHAIN:
        reader.read_bytes(page(body, head).encode(), limits=LIMITS)
    assert PROSE in chain(page(body, head)).text


# --- property ---------------------------------------------------------------------------------------------

PRINTABLE = st.text(
    alphabet=st.characters(categories=("L", "N", "P", "S", "Zs"), exclude_characters="\x00"),
    min_size=1,
    max_size=200,
).filter(lambda s: s.strip())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PRINTABLE)
def test_any_printable_text_in_main_comes_back(text: str) -> None:
    data = page(f"<main><p>{html.escape(text)}</p></main>").encode("utf-8")
    result = REGION.read_bytes(data, limits=LIMITS)
    assert fold(result.text) == fold(text)
    assert fold(chain(data).text) == fold(text)


# --- the corpus (skips without it) ------------------------------------------------------------------------


@pytest.mark.corpus
def test_corpus_pages() -> None:
    """The acceptance of the HTML issue: the annotated pages (at least six of seven), and every HTML page
    of the corpus derived (benchmarks/eval_html.py prints the detail)."""
    pages = sorted((CORPUS / "dev").glob("traf__*.html"))
    if not pages:
        pytest.skip(f"shared corpus not found at {CORPUS}")

    def plain(s: str) -> str:
        s = re.sub(r"(?m)^\s*(?:#{1,6}\s+|[-*]\s+|\d+\.\s+|>\s?|\|)|\*\*|`+|\s\|\s?", " ", s)
        return fold(unicodedata.normalize("NFC", s))

    passed = 0
    for path in pages:
        truth = json.loads((CORPUS / "dev_truth" / f"{path.name}.expected_segments.json").read_text("utf-8"))
        text = plain(chain(path.read_bytes()).text)
        passed += all(plain(s) in text for s in truth["with"]) and not any(
            plain(s) in text for s in truth["without"]
        )
    assert passed >= 6
    for name in (
        "tika__testArabicMisleadingCharset.html",
        "tika__testHTML_charset_utf16le.html",
        "unst__fake-html-cp1252.html",
        "unst__example-10k-1p.html",
        "unst__example-with-scripts.html",
    ):
        assert not produced_nothing(chain((CORPUS / "dev" / name).read_bytes())), name


# --- void elements ----------------------------------------------------------------------------------------

# Void elements libxml2 parses as containers (or knows as void: they must stay harmless), each followed by
# text in its paragraph and by a paragraph after it.
VOIDS = [
    "embed",
    "keygen",
    "param",
    "source",
    "track",
    "wbr",
    "area",
    "base",
    "col",
    "command",
    "basefont",
    "bgsound",
    "frame",
    "image",
    "isindex",
    "menuitem",
    "nextid",
    "spacer",
    "br",
    "img",
    "hr",
    "input",
    "meta",
    "link",
]


def void_page(tag: str) -> str:
    body = (
        f"<main><article><h2>Library budget</h2><p>{PROSE} <{tag} src=a.swf name=x> "
        f"AFTERVOID the words that follow the element, <b>BOLDAFTER</b> too.</p>"
        f"<p>NEXTPARAGRAPH {MORE}</p></article></main>"
    )
    return page(body, "<title>Budget news</title>")


@pytest.mark.parametrize("reader", CHAIN, ids=lambda r: r.name)
@pytest.mark.parametrize("tag", VOIDS)
def test_a_void_element_does_not_swallow_the_text_after_it(tag: str, reader: HtmlReader) -> None:
    text = fold(reader.read_bytes(void_page(tag).encode(), limits=LIMITS).text)
    assert "AFTERVOID the words that follow the element" in text
    assert "BOLDAFTER" in text and "NEXTPARAGRAPH" in text
    assert text.index(PROSE[-20:]) < text.index("AFTERVOID") < text.index("NEXTPARAGRAPH")


@pytest.mark.parametrize("tag", VOIDS)
def test_a_void_element_is_left_empty_in_the_tree(tag: str) -> None:
    document = parse_html(f"<p>one <{tag}>two <i>three</i> four<{tag}>five</p>six".encode())
    assert document is not None
    for void in document.root.iter(tag):
        assert void.text is None and len(void) == 0
    assert fold(document.root.text_content()) == "one two three fourfivesix"


@pytest.mark.parametrize("tag", ["embed", "keygen", "source", "wbr"])
def test_an_html_e_mail_body_keeps_the_text_after_a_void_element(tmp_path: Path, tag: str) -> None:
    from email.message import EmailMessage

    from readers.mail.eml import EmlReader

    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "a@example.org", "b@example.org", "Budget"
    msg.set_content(void_page(tag), subtype="html")
    path = tmp_path / "m.eml"
    path.write_bytes(msg.as_bytes())
    text = fold(EmlReader().read(path, LIMITS).text)
    assert "AFTERVOID the words that follow the element" in text and "NEXTPARAGRAPH" in text
