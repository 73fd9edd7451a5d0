"""What the three HTML readers share: bytes to a tree, the encoding decision, the title, tree to text.

DESIGN §3 reads a page with three readers, tried in order by ``readers/core/table.py``: the marked region
(:mod:`readers.html.region`), trafilatura's main-content extraction (:mod:`readers.html.main`), the whole
page (:mod:`readers.html.page`). They differ only in which part of the page they keep; everything else is
here, so that the three agree on the encoding, the title and the shape of the text, and so that an HTML
e-mail body goes through the same chain (:func:`read_html_bytes`).

**Encoding.** Strongest evidence first, as the HTML Standard orders it: a byte-order mark; then a charset
declared by the caller (the transport: an e-mail part's ``Content-Type``); then one declared in the page
(``<meta charset>``, ``<meta http-equiv="Content-Type">``, the XML declaration) within its first bytes,
read as browsers read the label (ISO-8859-1 means windows-1252; a label of an encoding browsers do not
support, UTF-7 above all, is no declaration, and the prescan goes on to the next); then the evidence
:func:`readers.text.encoding.decode_text` weighs for undeclared text (UTF-16 by its NULs, strict UTF-8,
charset-normalizer). A declaration is believed unless it is shown to lie (:func:`_believed`): the bytes are
valid UTF-8 with non-ASCII characters and it names another codec, or the text decoded with it is a mess
(charset-normalizer's mess ratio over the words that hold non-ASCII characters, the only ones two
ASCII-compatible codecs disagree on, plus the share of undecodable bytes) while the undeclared evidence
decodes it cleanly. The recorded ``encoding_source`` is one of :data:`HTML_ENCODING_SOURCES`.

**Safety.** The parser never touches the network, keeps libxml2's resource limits (nesting depth 256, 10 MB
text nodes: a page over them is ``over_limit``, not half read), and drops comments and processing
instructions. libxml2's HTML parser reads no DTD and expands only HTML's own named entities, so there is
no external entity to resolve (lxml's ``HTMLParser`` has no ``resolve_entities`` switch to set).

**Text.** Markdown-ish, like the PDF reader's: ``#`` headings, ``- `` list items (``1.`` in ordered
lists), tables as GFM rows, code as fenced blocks, paragraphs separated by blank lines; the document's own
title (``<title>``, else ``og:title``, else the first ``<h1>``) written on top as a level-1 heading. A
page whose only text is its title has produced nothing (a redirect stub, an empty template): the title is
written above text, never instead of it.
"""

from __future__ import annotations

import codecs
import copy
import re
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Final, Literal, get_args

import charset_normalizer
import lxml
import lxml.html
from charset_normalizer.md import mess_ratio
from lxml import etree

from readers.core.base import Reader, produced_nothing, read_bounded, require_readable_file
from readers.core.errors import CorruptDocument, LimitExceeded, NothingProduced, ReaderError
from readers.core.markup import escape_cell, markup_tables
from readers.core.model import ContentKind, PageText, ReadLimits, ReadResult
from readers.core.reader_chain import readers_for
from readers.text.encoding import Decoded, bom_encoding, canonical, decode_text, utf16_by_nul_share

# --- encoding ---------------------------------------------------------------------------------------------

#: How the encoding of a page was decided, strongest evidence first. The last four are
#: :func:`readers.text.encoding.decode_text`'s, used when nothing was declared; ``declared_lie`` means a
#: declaration was tested and rejected, and the page was decoded by that same undeclared evidence (a note
#: ``charset_lie:<label>:<evidence>`` says which declaration and which evidence).
HtmlEncodingSource = Literal[
    "bom", "transport", "declared", "declared_lie", "nul_share", "utf8", "detected", "fallback"
]
HTML_ENCODING_SOURCES: Final = get_args(HtmlEncodingSource)

#: How far into the bytes a ``<meta>`` charset or the XML declaration is looked for. The HTML Standard's
#: prescan reads 1024 bytes, but browsers still honour a declaration found later in the head (they
#: re-parse), so assay reads further: the corpus's declarations all sit in the first 712 bytes, and 8 KiB
#: leaves room for the pages that put long scripts or comments first. Past the head a ``<meta>`` is no
#: longer the document's declaration, so the scan also stops at ``<body``.
PRESCAN_BYTES = 8192

#: A declaration is a lie only when the undeclared evidence decodes the page cleanly: its :func:`badness`
#: at most this, charset-normalizer's own bound for rejecting a decoding. Correct decodings measured
#: 0.000-0.014 on the corpus's twelve HTML pages and 0.00-0.02 on Arabic, Russian, Greek, German, French,
#: Czech, Japanese and Chinese samples in each of their legacy codecs (tests/test_html_readers.py).
CLEAN_MESS_MAX = 0.2

#: ...and the declared decoding is worse by at least this much. On those samples, decoded with every
#: other common codec, wrong decodings measured 0.13-2.5 except between close relatives (French cp1252 read
#: as cp1250 or iso8859-2: 0.02-0.09; Greek cp1253 read as cp1251: 0.07), where a declaration is better
#: evidence than a detector is. Five times the worst correct decoding: a page's own declaration is kept
#: unless it is plainly wrong.
LIE_MESS_MARGIN = 0.1

#: At most this many characters of non-ASCII words are measured: the mess ratio of a sample this size is
#: already stable, and it bounds the cost on a large page.
MESS_SAMPLE_CHARS = 100_000

#: Labels the HTML Standard's Encoding spec decodes differently from the codec of the same name: a page
#: labelled latin-1 or ASCII is decoded as windows-1252 by every browser (its authors wrote 0x80-0x9F as
#: curly quotes and the euro), and so on. Keys and values are Python codec names.
WHATWG_CODECS: Final[dict[str, str]] = {
    "ascii": "cp1252",
    "latin-1": "cp1252",
    "iso8859-1": "cp1252",
    "iso8859-9": "cp1254",
    "iso8859-11": "cp874",
    "tis-620": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "big5": "big5hkscs",
}

#: The codecs of the encodings the Encoding Standard defines, as Python names them after
#: :data:`WHATWG_CODECS`: the only ones a browser decodes a page with. The HTML Standard forbids the others
#: (UTF-7, UTF-32, EBCDIC, CESU-8...): a label naming one is no declaration at all (the Encoding Standard's
#: "get an encoding" fails), so the page is decoded as if it declared nothing. UTF-7 above all: its
#: ``+ADw-`` spells ``<``, so a page read as UTF-7 holds markup a browser shows as text.
BROWSER_CODECS: Final = frozenset(
    {
        "utf-8",
        "utf-16",
        "utf-16-be",
        "utf-16-le",
        "cp866",
        *(f"iso8859-{n}" for n in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)),
        "koi8-r",
        "koi8-u",
        "mac-roman",
        "mac-cyrillic",
        "cp874",
        *(f"cp{n}" for n in range(1250, 1259)),
        "gb18030",
        "big5hkscs",
        "euc_jp",
        "iso2022_jp",
        "cp932",
        "cp949",
    }
)

_UTF16_FAMILY = frozenset({"utf-16", "utf-16-le", "utf-16-be"})
_META = re.compile(rb"<meta\b[^>]*>", re.IGNORECASE)
_META_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([^\s"';>/]+)""", re.IGNORECASE)
_XML_DECLARATION = re.compile(rb"""^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
_COMMENT = re.compile(rb"<!--.*?-->", re.DOTALL)
_BODY = re.compile(rb"<body\b", re.IGNORECASE)
_NON_ASCII_WORD = re.compile(r"\S*[^\x00-\x7f]\S*")


@dataclass(frozen=True, slots=True)
class HtmlDecoded:
    """A page's text, the codec it was decoded with, the evidence (:data:`HTML_ENCODING_SOURCES`), and what
    was learned on the way (a lying or unknown declaration)."""

    text: str
    encoding: str
    source: HtmlEncodingSource
    declared: str | None = None
    notes: tuple[str, ...] = ()


def prescan_charset(data: bytes) -> str | None:
    """The charset the page declares in its first :data:`PRESCAN_BYTES` (XML declaration, then the first
    ``<meta>`` naming one; comments skipped), as written, or ``None``."""
    return next(iter(prescan_charsets(data)), None)


def prescan_charsets(data: bytes) -> list[str]:
    """Every charset the page declares in its first :data:`PRESCAN_BYTES`, in order, as written: the XML
    declaration's alone, else each ``<meta>``'s before ``<body`` (comments skipped). A browser takes the
    first whose label names an encoding it supports and passes over the others (:func:`whatwg_codec`)."""
    head = data[:PRESCAN_BYTES]
    declaration = _XML_DECLARATION.match(head)
    if declaration:
        return [declaration.group(1).decode("ascii", "replace").strip()]
    head = _COMMENT.sub(b"", head)
    body = _BODY.search(head)
    if body:
        head = head[: body.start()]
    labels = []
    for meta in _META.finditer(head):
        found = _META_CHARSET.search(meta.group(0))
        if found:
            labels.append(found.group(1).decode("ascii", "replace").strip())
    return labels


def whatwg_codec(label: str, *, in_page: bool) -> str | None:
    """The Python codec a browser decodes ``label`` with, or ``None`` for a label no codec knows or that
    names an encoding browsers do not support (:data:`BROWSER_CODECS`: ``utf-7`` is not declared at all).

    A page cannot declare UTF-16 about itself in ASCII bytes, so the HTML Standard reads such an in-page
    declaration as UTF-8; a caller's (transport) UTF-16 is believed, then tested like any declaration.
    """
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except (LookupError, ValueError):
        return None
    codec = WHATWG_CODECS.get(name, name)
    if codec not in BROWSER_CODECS:
        return None
    if in_page and codec in _UTF16_FAMILY:
        return "utf-8"
    return codec


def mess(text: str) -> float:
    """charset-normalizer's mess ratio over the words holding non-ASCII characters (0 when there are none).

    Two ASCII-compatible decodings agree on every ASCII byte, so markup and English dilute the measure
    without informing it; the words where they differ are the evidence.
    """
    sample = " ".join(_NON_ASCII_WORD.findall(text))[:MESS_SAMPLE_CHARS]
    return mess_ratio(sample, maximum_threshold=1.0) if sample else 0.0


def badness(text: str) -> float:
    """How wrong a decoding looks: :func:`mess` plus the share of the non-ASCII characters that are
    replacement characters (bytes the codec could not decode; the mess ratio does not always count them:
    a Russian cp1251 page read as UTF-8 is all replacement characters and measures 0)."""
    non_ascii = sum(1 for c in text if ord(c) > 0x7F)
    replaced = text.count("\ufffd")
    return mess(text) + (replaced / non_ascii if non_ascii else 0.0)


def decode_html(data: bytes, *, declared_encoding: str | None = None) -> HtmlDecoded:
    """Decode a page's bytes by the strongest evidence that holds (module docstring); never raises."""
    marked = bom_encoding(data)
    if marked is not None:
        encoding, length = marked
        return HtmlDecoded(data[length:].decode(encoding, errors="replace"), encoding, "bom")
    declarations: list[tuple[str, HtmlEncodingSource]] = []
    if declared_encoding and declared_encoding.strip():
        declarations.append((declared_encoding.strip(), "transport"))
    notes: list[str] = []
    for label in prescan_charsets(data):
        if whatwg_codec(label, in_page=True) is None:
            notes.append(f"charset_unknown:{label}")  # no declaration: the prescan goes on to the next
            continue
        declarations.append((label, "declared"))
        break
    undeclared: list[Decoded] = []

    def evidence() -> Decoded:
        """decode_text's reading, computed once and only when a declaration needs testing."""
        if not undeclared:
            undeclared.append(decode_text(data))
        return undeclared[0]

    lied: str | None = None
    for label, source in declarations:
        codec = whatwg_codec(label, in_page=source == "declared")
        if codec is None:
            notes.append(f"charset_unknown:{label}")
            continue
        believed = _believed(data, codec, evidence)
        if believed is not None:
            text, codec = believed
            return HtmlDecoded(text, codec, source, declared=label, notes=tuple(notes))
        lied = lied or label
        notes.append(f"charset_lie:{label}:{evidence().source}")
    fallback = evidence()
    source: HtmlEncodingSource = "declared_lie" if lied else fallback.source
    return HtmlDecoded(fallback.text, fallback.encoding, source, declared=lied, notes=tuple(notes))


def _believed(data: bytes, codec: str, evidence: Callable[[], Decoded]) -> tuple[str, str] | None:
    """The text decoded with the declared ``codec`` and the codec, or ``None`` when the declaration is
    shown to lie.

    ``evidence()`` is :func:`readers.text.encoding.decode_text`'s reading of the same bytes, what the
    declaration is tested against:

    - UTF-16 without a mark must show its NULs (:func:`readers.text.encoding.utf16_by_nul_share`), which also
      say its byte order;
    - valid UTF-8 declared UTF-8 is believed, and valid UTF-8 holding non-ASCII bytes declared as anything
      else is a lie: legacy text is valid UTF-8 only by a vanishing accident, and a legacy codec reads
      UTF-8 as mojibake (or, for GB18030 and Shift JIS, as plausible-looking wrong ideographs, which no
      mess measure catches);
    - otherwise the declared decoding lies when it is worse (:func:`badness`) than the undeclared one by
      :data:`LIE_MESS_MARGIN` while that one is clean (:data:`CLEAN_MESS_MAX`).
    """
    if codec in _UTF16_FAMILY:
        order = utf16_by_nul_share(data)
        if order is None or not codec.startswith("utf-16"):
            return None
        return data.decode(order, errors="replace"), order
    try:
        text = data.decode(codec)
        strict = True
    except UnicodeDecodeError:
        text = data.decode(codec, errors="replace")
        strict = False
    except LookupError:
        return None
    if codec == "utf-8" and strict:
        return text, codec
    other = evidence()
    if other.source == "utf8" and not data.isascii():
        return None
    if other.source == "fallback" or canonical(other.encoding) == codec:
        return text, codec  # nothing to test the declaration against, or the evidence agrees with it
    if badness(other.text) <= CLEAN_MESS_MAX and badness(text) - badness(other.text) >= LIE_MESS_MARGIN:
        return None
    return text, codec


# --- parsing ----------------------------------------------------------------------------------------------

#: libxml2 reports its resource limits (nesting depth 256, text nodes over 10 MB without ``huge_tree``)
#: with this error type (``XML_ERR_RESOURCE_LIMIT``), and stops parsing there.
_RESOURCE_LIMIT = "ERR_RESOURCE_LIMIT"


@dataclass(frozen=True, slots=True)
class HtmlDocument:
    """A parsed page: its tree (never modified by a reader: each works on a copy), its title and where
    the title came from, and how its bytes were decoded."""

    root: lxml.html.HtmlElement
    title: str | None
    title_source: str | None
    decoded: HtmlDecoded


def _parser() -> lxml.html.HTMLParser:
    """A fresh parser per page (lxml's parsers are not to be shared between threads): no network, no
    decompression, libxml2's limits kept, comments and processing instructions dropped."""
    return lxml.html.HTMLParser(
        encoding="utf-8",
        no_network=True,
        decompress=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        default_doctype=False,
        collect_ids=False,
    )


def parse_html(data: bytes, *, declared_encoding: str | None = None) -> HtmlDocument | None:
    """Decode and parse a page; ``None`` when there is no document at all (no bytes but whitespace).

    Raises :class:`LimitExceeded` when libxml2 stops at one of its limits (the rest of the page would be
    silently lost) and :class:`CorruptDocument` when lxml cannot build a tree.
    """
    decoded = decode_html(data, declared_encoding=declared_encoding)
    # The tree is built from UTF-8 with the encoding forced, so a <meta charset> in the page cannot make
    # libxml2 decode it a second time, differently; NUL is not a character HTML allows (the parser would
    # cut the text there), so it becomes the replacement character, as browsers show it.
    payload = decoded.text.replace("\x00", "\ufffd").encode("utf-8", errors="replace")
    if not payload.strip():
        return None
    parser = _parser()
    try:
        root = etree.fromstring(payload, parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:
        raise CorruptDocument(f"the page could not be parsed: {exc}") from exc
    for entry in parser.error_log:
        if entry.type_name == _RESOURCE_LIMIT:
            raise LimitExceeded(f"the page is over a parser limit: {entry.message}")
    if root is None:
        return None
    if not isinstance(root, lxml.html.HtmlElement):
        raise CorruptDocument(f"the page parsed to a {type(root).__name__}, not an HTML element")
    unnest_voids(root)
    title, title_source = page_title(root)
    return HtmlDocument(root, title, title_source, decoded)


#: Elements that never have content (the HTML Standard's void elements, and the obsolete ones browsers still
#: parse as void). libxml2's HTML parser knows only some of them: it opens ``<embed>``, ``<keygen>``,
#: ``<source>``, ``<track>``, ``<wbr>``... as containers and nests everything up to the end of their parent
#: inside them, where a reader dropping ``embed`` drops the text with it.
VOID_ELEMENTS: Final = frozenset(
    {
        "area",
        "base",
        "basefont",
        "bgsound",
        "br",
        "col",
        "command",
        "embed",
        "frame",
        "hr",
        "image",
        "img",
        "input",
        "isindex",
        "keygen",
        "link",
        "menuitem",
        "meta",
        "nextid",
        "param",
        "source",
        "spacer",
        "track",
        "wbr",
    }
)


def unnest_voids(root: lxml.html.HtmlElement) -> None:
    """Put back after each void element what libxml2 nested inside it (its text and its children, in
    order), as a browser builds the tree: the void element is left empty. A ``<col>`` outside a table,
    which browsers ignore, is taken out and the paragraph libxml2 closed at it goes on."""
    for void in list(root.iter(*VOID_ELEMENTS)):
        parent = void.getparent()
        if void.tag == "col" and parent is not None and not _in_table(void):
            _rejoin_paragraph(void)
            continue
        if parent is None or (void.text is None and len(void) == 0):
            continue
        children, tail = list(void), void.tail
        void.tail, void.text = void.text, None
        at = parent.index(void)
        for offset, child in enumerate(children, start=1):
            parent.insert(at + offset, child)  # the child's tail moves with it
        last = children[-1] if children else void
        if tail:
            last.tail = (last.tail or "") + tail


def _in_table(element: lxml.html.HtmlElement) -> bool:
    return any(a.tag in ("table", "colgroup") for a in element.iterancestors())


def _rejoin_paragraph(stray: lxml.html.HtmlElement) -> None:
    """Take ``stray`` out; its tail and the inline elements after it go back to the end of the paragraph
    just before it, where the page wrote them."""
    before = stray.getprevious()
    if before is not None and before.tag == "p" and not (before.tail or "").strip():
        _append_text(before, stray.tail)
        stray.tail = None
        follower = stray.getnext()
        while follower is not None and isinstance(follower.tag, str) and follower.tag not in BLOCKS:
            after = follower.getnext()
            before.append(follower)  # its tail moves with it
            follower = after
    stray.drop_tree()  # keeps its tail, if still there


def _append_text(element: lxml.html.HtmlElement, text: str | None) -> None:
    if not text:
        return
    if len(element):
        element[-1].tail = (element[-1].tail or "") + text
    else:
        element.text = (element.text or "") + text


def check_size(data: bytes, limits: ReadLimits) -> None:
    if len(data) > limits.max_text_bytes:
        raise LimitExceeded(f"the page is over the limit of {limits.max_text_bytes} bytes of text")


# --- title ------------------------------------------------------------------------------------------------

_WHITESPACE = re.compile(r"\s+")


def fold(text: str) -> str:
    """Whitespace runs (any Unicode space, newlines included) to one space, ends stripped."""
    return _WHITESPACE.sub(" ", text).strip()


def page_title(root: lxml.html.HtmlElement) -> tuple[str | None, str | None]:
    """The document's own title and its source: ``<title>``, else ``og:title``, else the first ``<h1>``.

    Scripts inside an ``<h1>`` and ruby readings (``<rt>``, ``<rp>``: furigana over Japanese) are not its
    title.
    """
    for element in root.iter("title"):
        text = fold(element.text_content())
        if text:
            return text, "title"
        break
    for content in root.xpath("//meta[@property='og:title' or @name='og:title']/@content"):
        text = fold(str(content))
        if text:
            return text, "og:title"
    for element in root.iter("h1"):
        text = fold(text_of(clean(element, PAGE_DROP)))
        if text:
            return text, "h1"
    return None, None


#: What sites put between a page's headline and their own name in ``<title>`` ("Headline | Site",
#: "Site - Headline"): a first heading so decorated is the title already, and is not written twice.
TITLE_SEPARATORS = "|-–—:·»«/•"
_AFTER_HEADLINE = re.compile(rf"\s+[{re.escape(TITLE_SEPARATORS)}]\s*\S")
_BEFORE_HEADLINE = re.compile(rf"\S\s*[{re.escape(TITLE_SEPARATORS)}]\s+$")


def _decorates(title: str, heading: str) -> bool:
    """``title`` is ``heading`` with a site's name after or before it, across a spaced separator."""
    if not heading:
        return False
    after, before = title.removeprefix(heading), title.removesuffix(heading)
    return bool(
        (after != title and _AFTER_HEADLINE.match(after))
        or (before != title and _BEFORE_HEADLINE.search(before))
    )


def with_title(text: str, title: str | None) -> str:
    """``text`` under ``# title``, unless it already starts with that heading (at any level) or with the
    headline the title decorates with the site's name (:data:`TITLE_SEPARATORS`); text that is empty
    stays empty (module docstring)."""
    if not title or not text.strip():
        return text
    first = next((line for line in text.splitlines() if line.strip()), "")
    wanted = title.casefold()
    heading = fold(first.lstrip("#")).casefold()
    if heading == wanted or (first.startswith("#") and _decorates(wanted, heading)):
        return text
    return f"# {title}\n\n{text.lstrip()}"


# --- cleaning ---------------------------------------------------------------------------------------------

#: Elements that are never text: code, styling, embedded objects, form controls, and ruby readings (the
#: furigana of Japanese text, which would interleave with the words they gloss).
NEVER_TEXT: Final = frozenset(
    {
        "script",
        "style",
        "template",
        "noscript",
        "iframe",
        "frame",
        "object",
        "embed",
        "applet",
        "svg",
        "canvas",
        "audio",
        "video",
        "map",
        "head",
        "link",
        "meta",
        "base",
        "button",
        "input",
        "select",
        "option",
        "textarea",
        "datalist",
        "dialog",
        "rt",
        "rp",
    }
)

#: The page's furniture: navigation, banner, footer, sidebars (forms are judged by :data:`FORM_PROSE_MAX`).
FURNITURE: Final = frozenset({"nav", "header", "footer", "aside", "menu"})

#: A ``<form>`` with at most this much prose (text outside links and controls) is furniture: a search box,
#: a login, a newsletter or comment form. More, and the form wraps the page: ASP.NET pages put their whole
#: body in one form. Measured on the corpus: real forms hold 0-162 characters of prose (a newsletter
#: box's pitch), football.ua's page-wide ``aspnetForm`` 2190.
FORM_PROSE_MAX = 500

#: ARIA roles that mark the same furniture on generic elements.
FURNITURE_ROLES: Final = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "dialog", "alert"}
)

#: Class names (whole, or as a ``hide-``/``hidden-`` prefix) that hide an element by CSS convention
#: (Bootstrap's ``d-none``, ``sr-only``, WordPress's ``screen-reader-text``...): assay cannot evaluate
#: stylesheets, and responsive pages carry the same text twice, once hidden per layout. ``-print``
#: variants hide on paper only, and are kept.
HIDDEN_CLASSES: Final = frozenset(
    {
        "hidden",
        "hide",
        "d-none",
        "is-hidden",
        "invisible",
        "sr-only",
        "visually-hidden",
        "screen-reader-text",
        "element-invisible",
    }
)

_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class DropRules:
    """What one reader removes before it reads: element names, ARIA roles, and whether hidden elements go."""

    tags: frozenset[str]
    roles: frozenset[str]
    hidden: bool = True
    small_forms: bool = True


#: The whole-page reader's rules: no code, no furniture, nothing hidden.
PAGE_DROP = DropRules(tags=NEVER_TEXT | FURNITURE, roles=FURNITURE_ROLES)

#: The rules of the readers that look for the main content (the marked region, trafilatura): the same,
#: except that ``header`` stays, because an article's header holds its headline (the page's banner is
#: outside the region, and trafilatura judges it itself).
CONTENT_DROP = DropRules(tags=NEVER_TEXT | (FURNITURE - {"header"}), roles=FURNITURE_ROLES)


def is_hidden(element: lxml.html.HtmlElement) -> bool:
    """Hidden by the ``hidden`` attribute, ``aria-hidden``, an inline style, or a hiding class."""
    if element.get("hidden") is not None or element.get("aria-hidden", "").strip().lower() == "true":
        return True
    if _HIDDEN_STYLE.search(element.get("style", "")):
        return True
    for name in element.get("class", "").lower().split():
        if name in HIDDEN_CLASSES:
            return True
        if name.startswith(("hide-", "hidden-")) and not name.endswith("print"):
            return True
    return False


def elements(root: lxml.html.HtmlElement) -> Iterator[lxml.html.HtmlElement]:
    """The elements under ``root`` (itself included), skipping comments, entities and PIs."""
    for element in root.iter():
        if isinstance(element.tag, str):
            yield element


def drop(nodes: Iterable[lxml.html.HtmlElement]) -> None:
    """Remove each element with its content, keeping the text that follows it (its tail)."""
    for element in list(nodes):
        if element.getparent() is not None:
            element.drop_tree()


def clean(root: lxml.html.HtmlElement, rules: DropRules) -> lxml.html.HtmlElement:
    """A copy of ``root`` without what ``rules`` remove (``root`` itself is never removed)."""
    tree = copy.deepcopy(root)
    doomed = [
        e
        for e in elements(tree)
        if e is not tree
        and (
            e.tag.lower() in rules.tags
            or e.get("role", "").strip().lower() in rules.roles
            or (rules.hidden and is_hidden(e))
        )
    ]
    drop(doomed)
    if rules.small_forms:
        drop(e for e in tree.iter("form") if e is not tree and prose_chars(e) <= FORM_PROSE_MAX)
    return tree


def _length(text: str) -> int:
    return len(fold(text))


def link_chars(element: lxml.html.HtmlElement) -> int:
    """Characters of text inside links (a link inside a link counted once)."""
    total = 0
    for link in element.iter("a"):
        if not any(a.tag == "a" for a in link.iterancestors()):
            total += _length(link.text_content())
    return total


def text_chars(element: lxml.html.HtmlElement) -> int:
    """Characters of text, whitespace folded."""
    return _length(element.text_content())


def prose_chars(element: lxml.html.HtmlElement) -> int:
    """Characters of text outside links: what is read rather than clicked."""
    return max(0, text_chars(element) - link_chars(element))


# --- tree to text -----------------------------------------------------------------------------------------

#: Elements that start and end a block of text (everything else is inline).
BLOCKS: Final = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "center",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "frameset",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "legend",
        "li",
        "main",
        "menu",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    }
)
HEADINGS: Final = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}

#: Deeper than this the renderer stops recursing and takes the text as it stands. libxml2 already stops
#: parsing at depth 256, so only a tree built elsewhere could reach it; it keeps Python's stack safe.
MAX_RENDER_DEPTH = 300

#: Stands for a ``<br>`` among the inline text: NUL, which parse_html never lets into the tree.
_BREAK = "\x00"


class _Renderer:
    """Walks a cleaned tree into markdown blocks: inline text gathers into a paragraph until a block
    element ends it."""

    def __init__(self, *, in_cell: bool = False) -> None:
        self.blocks: list[str] = []
        self._inline: list[str] = []
        #: In a table's cell a list is its items, one per line, without markers (:func:`cell_text`).
        self.in_cell = in_cell

    def render(self, element: lxml.html.HtmlElement, depth: int = 0) -> None:
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        if not tag:
            self._text(element.tail)
            return
        if depth > MAX_RENDER_DEPTH:
            self._text(" ".join(element.itertext()))
        elif tag in HEADINGS:
            self.flush()
            text = fold(text_of(element, depth + 1))
            if text:
                self.blocks.append(f"{'#' * HEADINGS[tag]} {text}")
        elif tag in ("ul", "ol", "menu") and self.in_cell:
            self.flush()
            items = _cell_items(element, depth + 1)
            if items:
                self.blocks.append("\n".join(items))
        elif tag in ("ul", "ol", "menu"):
            self.flush()
            self.blocks.extend(_list_lines(element, ordered=tag == "ol", depth=depth + 1))
        elif tag == "table":
            self.flush()
            self.blocks.extend(_table_blocks(element, depth + 1))
        elif tag == "pre":
            self.flush()
            code = "".join(element.itertext()).strip("\n")
            if code.strip():
                self.blocks.append(f"```\n{code.rstrip()}\n```")
        elif tag == "br":
            self._inline.append(_BREAK)
        elif tag == "hr":
            self.flush()
        elif tag == "blockquote":
            self.flush()
            inner = blocks_of(element, depth + 1)
            if inner:
                quoted = "\n\n".join(inner)
                self.blocks.append("\n".join(f"> {line}" if line else ">" for line in quoted.splitlines()))
        elif tag in BLOCKS:
            self.flush()
            self._children(element, depth)
            self.flush()
        else:
            self._children(element, depth)
        self._text(element.tail)

    def _children(self, element: lxml.html.HtmlElement, depth: int) -> None:
        self._text(element.text)
        for child in element:
            self.render(child, depth + 1)

    def _text(self, text: str | None) -> None:
        if text:
            self._inline.append(text)

    def flush(self) -> None:
        """End the paragraph being gathered: whitespace folded, line breaks (``<br>``) kept."""
        if not self._inline:
            return
        lines = [fold(line) for line in "".join(self._inline).split(_BREAK)]
        self._inline = []
        text = "\n".join(line for line in lines if line)
        if text:
            self.blocks.append(text)


def blocks_of(element: lxml.html.HtmlElement, depth: int = 0) -> list[str]:
    """The markdown blocks of ``element`` and its content."""
    renderer = _Renderer()
    renderer._children(element, depth)
    renderer.flush()
    return renderer.blocks


def text_of(element: lxml.html.HtmlElement, depth: int = 0) -> str:
    """The text of ``element`` on one line: its blocks joined by spaces (for headings, cells, items)."""
    return fold(" ".join(blocks_of(element, depth)).replace("\n", " "))


def to_markdown(element: lxml.html.HtmlElement, *, prune_empty_sections: bool = False) -> str:
    """The markdown of a cleaned element: blocks separated by blank lines. With
    ``prune_empty_sections``, headings left with nothing under them are dropped (:func:`without_empty`)."""
    blocks = blocks_of(element)
    return "\n\n".join(without_empty(blocks) if prune_empty_sections else blocks)


def heading_level(block: str) -> int:
    """The level of a markdown heading block (0 for any other block)."""
    marks = len(block) - len(block.lstrip("#"))
    return marks if 1 <= marks <= 6 and block[marks : marks + 1] == " " else 0


def without_empty(blocks: list[str]) -> list[str]:
    """The blocks without headings that head nothing: followed by a heading of the same or a higher level,
    or by the end. Removing a section's content (a tag cloud, a comment form) leaves its heading behind."""
    kept: list[str] = []
    for block in reversed(blocks):
        level = heading_level(block)
        if level:
            following = heading_level(kept[-1]) if kept else 1
            if not kept or (following and following <= level):
                continue
        kept.append(block)
    return kept[::-1]


def _list_lines(element: lxml.html.HtmlElement, *, ordered: bool, depth: int) -> list[str]:
    """One ``- `` (or ``N.``) line per item, nested lists indented under their item, as one block."""
    lines: list[str] = []
    try:
        number = int(element.get("start", "1"))
    except ValueError:
        number = 1
    for child in element:
        if not isinstance(child.tag, str):
            continue
        tag = child.tag.lower()
        if tag in ("ul", "ol"):
            lines.extend(
                f"  {line}"
                for block in _list_lines(child, ordered=tag == "ol", depth=depth + 1)
                for line in block.splitlines()
            )
            continue
        nested = [n for n in child if isinstance(n.tag, str) and n.tag.lower() in ("ul", "ol")]
        head = _item_text(child, depth)
        marker = f"{number}." if ordered else "-"
        if head:
            lines.append(f"{marker} {head}")
            number += 1
        for n in nested:
            for block in _list_lines(n, ordered=n.tag.lower() == "ol", depth=depth + 1):
                lines.extend(f"  {line}" for line in block.splitlines())
    return ["\n".join(lines)] if lines else []


def _item_text(item: lxml.html.HtmlElement, depth: int) -> str:
    """An item's own text, without its nested lists (rendered under it)."""
    renderer = _Renderer()
    renderer._text(item.text)
    for child in item:
        if isinstance(child.tag, str) and child.tag.lower() in ("ul", "ol"):
            renderer._text(child.tail)
            continue
        renderer.render(child, depth + 1)
    renderer.flush()
    return fold(" ".join(renderer.blocks).replace("\n", " "))


#: Elements whose presence in a cell makes a table a layout grid rather than data. A list is not one: a
#: data table's cell may list its values (uses, authors, options), and is read as ``item; item``.
_LAYOUT_CELL_CONTENT = frozenset({"table", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote"})

#: What separates a cell's list items and its ``<br>`` lines when the cell is written on one line.
CELL_SEPARATOR = "; "


def cell_text(cell: lxml.html.HtmlElement, depth: int = 0) -> str:
    """A data table cell's text on one line: paragraphs joined by a space, list items (nested ones in
    order after their item) and ``<br>`` lines by :data:`CELL_SEPARATOR`; inline formatting as its text."""
    renderer = _Renderer(in_cell=True)
    renderer._children(cell, depth)
    renderer.flush()
    blocks = (
        CELL_SEPARATOR.join(fold(line) for line in b.split("\n") if line.strip()) for b in renderer.blocks
    )
    return fold(" ".join(b for b in blocks if b))


def _cell_items(element: lxml.html.HtmlElement, depth: int) -> list[str]:
    """A list's item texts in document order, a nested list's items after the item that holds them."""
    items: list[str] = []
    if depth > MAX_RENDER_DEPTH:
        return [fold(" ".join(element.itertext()))]
    for child in element:
        if not isinstance(child.tag, str):
            continue
        tag = child.tag.lower()
        if tag in ("ul", "ol", "menu"):
            items.extend(_cell_items(child, depth + 1))
            continue
        head = _item_text(child, depth)
        if head:
            items.append(head)
        for nested in child:
            if isinstance(nested.tag, str) and nested.tag.lower() in ("ul", "ol", "menu"):
                items.extend(_cell_items(nested, depth + 1))
    return items


def is_layout_cell(cell: lxml.html.HtmlElement) -> bool:
    """Whether a cell holds what only a layout grid's cell does (:data:`_LAYOUT_CELL_CONTENT`)."""
    return any(
        isinstance(e.tag, str) and e.tag.lower() in _LAYOUT_CELL_CONTENT for e in cell.iterdescendants()
    )


def flatten_cells(root: lxml.html.HtmlElement) -> None:
    """Replace, in place, the content of each data table's cell holding a list or a ``<br>`` by its
    :func:`cell_text`: for an extractor (trafilatura) that would drop a cell's list or run its lines
    together. Layout grids (:func:`is_layout_grid`) are left as they are."""
    for table in list(root.iter("table")):
        grid = [_cells(r) for r in _rows(table)]
        if is_layout_grid(grid):
            continue
        for cell in (c for cells in grid for c in cells):
            if not any(
                isinstance(e.tag, str) and e.tag.lower() in ("ul", "ol", "menu", "br") for e in cell.iter()
            ):
                continue
            text = cell_text(cell)
            for child in list(cell):
                cell.remove(child)
            cell.text = text


def _grid_width(grid: list[list[lxml.html.HtmlElement]]) -> int:
    return max((sum(_span(c) for c in cells) for cells in grid), default=0)


def is_layout_grid(grid: list[list[lxml.html.HtmlElement]]) -> bool:
    """Whether a table's cells (by row) are a layout grid: a single column, or a cell holding what only a
    layout grid's cell does (:func:`is_layout_cell`)."""
    return _grid_width(grid) < 2 or any(is_layout_cell(c) for cells in grid for c in cells)


def _rows(table: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    """The table's own rows (not a nested table's), in order."""
    rows = []
    for child in table:
        if not isinstance(child.tag, str):
            continue
        tag = child.tag.lower()
        if tag == "tr":
            rows.append(child)
        elif tag in ("thead", "tbody", "tfoot"):
            rows.extend(r for r in child if isinstance(r.tag, str) and r.tag.lower() == "tr")
    return rows


def _cells(row: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    return [c for c in row if isinstance(c.tag, str) and c.tag.lower() in ("td", "th")]


def _table_blocks(table: lxml.html.HtmlElement, depth: int) -> list[str]:
    """A data table as GFM rows (the first row as header); a layout table (nested tables, headings, code
    or quotes in cells, a single column) as the blocks of its cells, in reading order."""
    grid = [_cells(r) for r in _rows(table)]
    width = _grid_width(grid)
    layout = is_layout_grid(grid)
    blocks: list[str] = []
    for caption in table:
        if isinstance(caption.tag, str) and caption.tag.lower() == "caption":
            blocks.extend(blocks_of(caption, depth))
    if layout:
        for cells in grid:
            for c in cells:
                blocks.extend(blocks_of(c, depth))
        return blocks
    rows: list[list[str]] = []
    # Slots taken by a cell of a row above that spans down (rowspan): row offset -> columns.
    below: dict[int, set[int]] = {}
    for r, cells in enumerate(grid):
        taken = below.pop(r, set())
        texts: list[str] = []
        for c in cells:
            while len(texts) in taken:
                texts.append("")
            for row in range(r + 1, r + _row_span(c)):
                below.setdefault(row, set()).update(range(len(texts), len(texts) + _span(c)))
            texts.append(escape_cell(cell_text(c, depth)))
            texts.extend([""] * (_span(c) - 1))
        if any(texts):
            rows.append(texts)
    width = max([width, *(len(t) for t in rows)])
    lines = ["| " + " | ".join(t + [""] * (width - len(t))) + " |" for t in rows]
    if lines:
        lines.insert(1, "|" + "|".join(["---"] * width) + "|")
    return blocks + (["\n".join(lines)] if lines else [])


def _row_span(cell: lxml.html.HtmlElement) -> int:
    """The rows a cell spans down (1 when the attribute is missing, nonsense or 0; at most 100)."""
    try:
        return max(1, min(int(cell.get("rowspan", "1")), 100))
    except ValueError:
        return 1


def _span(cell: lxml.html.HtmlElement) -> int:
    """The columns a cell spans (1 when the attribute is missing or nonsense; at most 100)."""
    try:
        return max(1, min(int(cell.get("colspan", "1")), 100))
    except ValueError:
        return 1


# --- readers and the chain ----------------------------------------------------------------------------


def _tool_version() -> str:
    """lxml and libxml2 parse; charset-normalizer decides undeclared encodings."""
    libxml2 = ".".join(str(n) for n in etree.LIBXML_VERSION)
    return f"lxml-{lxml.__version__}/libxml2-{libxml2}/charset-normalizer-{charset_normalizer.__version__}"


class HtmlReader(Reader):
    """One step of the HTML chain: reads a page file, or bytes (:meth:`read_bytes`), or an already parsed
    page (:meth:`extract`, so that :func:`read_html_bytes` parses once for the whole chain).

    A step that finds nothing to keep returns a result with empty text; the dispatch's one predicate
    (:func:`readers.core.base.produced_nothing`) then falls through to the next step.
    """

    kinds: ClassVar[frozenset[ContentKind]] = frozenset({ContentKind.HTML})

    @property
    def tool_version(self) -> str:
        return _tool_version()

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        require_readable_file(Path(path), allow_empty=True)
        data = read_bounded(Path(path), limits.max_text_bytes, what="bytes of text")
        return self.read_bytes(data, limits=limits)

    def read_bytes(
        self, data: bytes, *, declared_encoding: str | None = None, limits: ReadLimits
    ) -> ReadResult:
        check_size(data, limits)
        document = parse_html(data, declared_encoding=declared_encoding)
        if document is None:
            return empty_result(decode_html(data, declared_encoding=declared_encoding), ("html_empty",))
        return self.extract(document, limits)

    def extract(self, document: HtmlDocument, limits: ReadLimits) -> ReadResult:
        """The step's text for a parsed page, under its title; ``document.root`` is left as it was."""
        content = self.content(document, limits)
        body = with_title(content.text, document.title) if content.text.strip() else ""
        notes = list(document.decoded.notes) + list(content.notes)
        if body and document.title_source:
            notes.append(f"title:{document.title_source}")
        result = ReadResult(
            pages=(PageText(page=1, text=body),),
            page_count=1,
            encoding=document.decoded.encoding,
            encoding_source=document.decoded.source,
            notes=tuple(notes),
        )
        return markup_tables(result, "markup=html")

    @abstractmethod
    def content(self, document: HtmlDocument, limits: ReadLimits) -> Content:
        """The step's text for the page, without the title (empty when the step finds nothing); works on
        a copy of ``document.root``."""


@dataclass(frozen=True, slots=True)
class Content:
    """What one step kept of a page: its text (no title yet) and notes on how it chose it."""

    text: str
    notes: tuple[str, ...] = ()


def empty_result(decoded: HtmlDecoded, notes: tuple[str, ...] = ()) -> ReadResult:
    """One empty page: the reader read the document and it holds no text."""
    return ReadResult(
        pages=(PageText(page=1, text=""),),
        page_count=1,
        encoding=decoded.encoding,
        encoding_source=decoded.source,
        notes=decoded.notes + notes,
    )


def read_html_bytes(
    data: bytes,
    *,
    declared_encoding: str | None = None,
    limits: ReadLimits,
    readers: Sequence[Reader] | None = None,
) -> ReadResult:
    """Read an HTML page held in memory (an HTML e-mail body) with the HTML chain; the first step that
    produced text wins, and a note ``html_reader:<name>`` says which (``html_fallback`` too when it was
    not the first). ``declared_encoding`` is the transport's charset (the MIME part's).

    ``readers`` defaults to ``readers/core/table.py``'s HTML row, the one place the chain's order is written,
    so that a file and an e-mail body are read alike; every step must be an :class:`HtmlReader`. Raises
    :class:`NothingProduced` (``no_reader:html``) when the row is empty, the :class:`ReaderError` of the
    page itself (over a limit, unparseable); a step that fails on its own is noted and skipped, as the
    dispatch would. When no step produced text, the result's text is empty and its notes say why.
    """
    chain = tuple(readers) if readers is not None else _table_chain()
    if not chain:
        raise NothingProduced(
            "readers/core/table.py has no HTML reader", reason=f"no_reader:{ContentKind.HTML}"
        )
    steps = [r for r in chain if isinstance(r, HtmlReader)]
    if len(steps) != len(chain):
        raise TypeError("every step of the HTML chain must be an HtmlReader, to read bytes")
    check_size(data, limits)
    document = parse_html(data, declared_encoding=declared_encoding)
    if document is None:
        return empty_result(decode_html(data, declared_encoding=declared_encoding), ("html_empty",))
    skipped: list[str] = []
    for ordinal, step in enumerate(steps, start=1):
        try:
            result = step.extract(document, limits)
        except ReaderError as exc:
            skipped.append(f"html_skipped:{step.name}:{exc.reason}")
            continue
        except Exception as exc:  # as in readers/engine/dispatch.py: one step's bug must not lose the page
            skipped.append(f"html_skipped:{step.name}:reader_crashed:{type(exc).__name__}")
            continue
        if produced_nothing(result):
            skipped.append(f"html_skipped:{step.name}:empty_text")
            continue
        chosen = (f"html_reader:{step.name}",) + (("html_fallback",) if ordinal > 1 else ())
        return ReadResult(
            pages=result.pages,
            page_count=result.page_count,
            encoding=result.encoding,
            encoding_source=result.encoding_source,
            notes=result.notes + tuple(skipped) + chosen,
        )
    return empty_result(document.decoded, tuple(skipped))


def html_chain_version() -> str:
    """The HTML chain's readers and versions (``html=html-region@1+...>trafilatura@1+...``).

    Part of the version of a reader that reads HTML it holds by this chain (an e-mail's HTML body, a Word
    document's embedded HTML): when the chain changes, such a document would read differently, so it must
    not be carried over unread (DESIGN §2).
    """
    return "html=" + ">".join(f"{r.name}@{r.version}" for r in readers_for(ContentKind.HTML))


def _table_chain() -> tuple[Reader, ...]:
    return readers_for(ContentKind.HTML)
