"""How an HTML page's bytes become text: the encoding decision the three HTML readers share.

Strongest evidence first, as the HTML Standard orders it: a byte-order mark; then a charset declared by
the caller (the transport: an e-mail part's ``Content-Type``); then one declared in the page (``<meta
charset>``, ``<meta http-equiv="Content-Type">``, the XML declaration) within its first bytes, read as
browsers read the label (ISO-8859-1 means windows-1252; a label of an encoding browsers do not support,
UTF-7 above all, is no declaration, and the prescan goes on to the next); then the evidence
:func:`readers.text.encoding.decode_text` weighs for undeclared text (UTF-16 by its NULs, strict UTF-8,
charset-normalizer). A declaration is believed unless it is shown to lie (:func:`_believed`): the bytes are
valid UTF-8 with non-ASCII characters and it names another codec, or the text decoded with it is a mess
(charset-normalizer's mess ratio over the words that hold non-ASCII characters, the only ones two
ASCII-compatible codecs disagree on, plus the share of undecodable bytes) while the undeclared evidence
decodes it cleanly. The recorded ``encoding_source`` is one of :data:`HTML_ENCODING_SOURCES`.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal, get_args

from charset_normalizer.md import mess_ratio

from readers.text.encoding import Decoded, bom_encoding, canonical, decode_text, utf16_by_nul_share

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
