"""An Outlook message's RTF body: decompression (MS-OXRTFCP) and de-encapsulation (MS-OXRTFEX).

The compressed RTF body is decompressed by ``compressed-rtf`` (MIT), and :func:`deencapsulate_rtf` takes
the HTML or plain text that Outlook wrapped in it back out; a native RTF body (one composed in Outlook's
rich-text editor) is not de-encapsulated: ``None``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Literal

from readers.mail.mapi import codepage_codec
from readers.office.rtf import _CHARSETS as RTF_CHARSETS


class RtfBodyError(ValueError):
    """The compressed RTF body cannot be decompressed."""


def decompress_rtf(data: bytes) -> bytes:
    """The RTF of a ``PR_RTF_COMPRESSED`` stream (compressed or stored, MS-OXRTFCP), cut after its last
    closing brace (some writers leave bytes after the document).

    Raises ``RtfBodyError`` for a stream the decompressor refuses (a bad header or checksum).
    """
    import compressed_rtf

    try:
        rtf = bytes(compressed_rtf.decompress(data))
    except Exception as exc:  # compressed-rtf raises bare Exceptions (and struct errors on short input)
        raise RtfBodyError(f"compressed RTF body cannot be decompressed: {exc}") from exc
    end = rtf.rfind(b"}")
    return rtf[: end + 1] if end >= 0 else rtf


@dataclass(frozen=True, slots=True)
class Deencapsulated:
    """What an encapsulating RTF body holds: the original HTML, or the original plain text."""

    kind: Literal["html", "text"]
    content: str


#: ``\fromhtml1`` or ``\fromtext`` in the RTF header (before the font table) marks an encapsulating body.
_ENCAPSULATION = re.compile(rb"\\from(html1|text)(?![a-zA-Z0-9])")
_RTF_TOKEN = re.compile(
    rb"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|[\r\n]+|([^\\{}\r\n]+)", re.DOTALL
)
#: Destinations that hold no text of the original (the font table is read for its code pages only).
_RTF_SKIP = frozenset(
    {"colortbl", "stylesheet", "info", "pict", "object", "objdata", "listtable", "listoverridetable",
     "rsidtbl", "revtbl", "filetbl", "themedata", "colorschememapping", "datastore", "latentstyles",
     "xmlnstbl", "generator", "header", "footer", "headerl", "headerr", "headerf", "footerl", "footerr",
     "footerf", "fldinst", "bkmkstart", "bkmkend", "mhtmltag"}
)  # fmt: skip
_RTF_SYMBOLS = {
    "par": "\r\n",
    "line": "\r\n",
    "tab": "\t",
    "emdash": "\u2014",
    "endash": "\u2013",
    "bullet": "\u2022",
    "lquote": "\u2018",
    "rquote": "\u2019",
    "ldblquote": "\u201c",
    "rdblquote": "\u201d",
    "emspace": "\u2003",
    "enspace": "\u2002",
}
_RTF_ESCAPES = {b"~": "\u00a0", b"_": "\u2011", b"-": "", b"{": "{", b"}": "}", b"\\": "\\"}
_RTF_DEFAULT_CODEC = "cp1252"


@dataclass(slots=True)
class _RtfState:
    """What a group inherits: whether its content is skipped, HTML markup, or RTF-only (``\\htmlrtf``)."""

    skip: bool = False
    htmltag: bool = False
    htmlrtf: bool = False
    fonttbl: bool = False
    font: int | None = None
    uc: int = 1


@dataclass(slots=True)
class _RtfOutput:
    """The de-encapsulated text, with runs of 8-bit bytes kept together until their code page is known."""

    parts: list[str] = field(default_factory=list)
    pending: bytearray = field(default_factory=bytearray)
    pending_codec: str = _RTF_DEFAULT_CODEC

    def byte_run(self, data: bytes, codec: str) -> None:
        if self.pending and codec != self.pending_codec:
            self.flush()
        self.pending_codec = codec
        self.pending += data

    def text(self, text: str) -> None:
        self.flush()
        self.parts.append(text)

    def flush(self) -> None:
        if self.pending:
            self.parts.append(bytes(self.pending).decode(self.pending_codec, errors="replace"))
            self.pending.clear()

    def result(self) -> str:
        self.flush()
        # \uN words write astral characters as surrogate pairs: join them.
        return "".join(self.parts).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def deencapsulate_rtf(rtf: bytes) -> Deencapsulated | None:
    """The HTML or plain text an encapsulating RTF body holds (MS-OXRTFEX 2.1.3), ``None`` for an RTF
    body that encapsulates nothing (native RTF).

    HTML: the content of every ``{\\*\\htmltag}`` group (the original markup, decoded in the document's
    ``\\ansicpg``) and the text outside them, except what ``\\htmlrtf`` marks as RTF-only; ``\\*\\mhtmltag``
    (a tag's URL before it was rewritten) is skipped, as the specification says. Text: the text outside
    ``\\htmlrtf``. Text outside the tags is decoded in the code page of its font (``\\fcharset``).
    """
    fonttbl = rtf.find(b"\\fonttbl")
    marker = _ENCAPSULATION.search(rtf, 0, fonttbl if fonttbl >= 0 else len(rtf))
    if marker is None:
        return None
    kind: Literal["html", "text"] = "html" if marker.group(1) == b"html1" else "text"
    ansi = _RTF_DEFAULT_CODEC
    fonts: dict[int, str] = {}
    default_font: int | None = None
    out = _RtfOutput()
    state = _RtfState()
    stack: list[_RtfState] = []
    group_start = False
    starred = False
    skip_fallback = 0
    defining_font: int | None = None
    at = 0
    while at < len(rtf):
        token = _RTF_TOKEN.match(rtf, at)
        if token is None:  # a lone backslash at the very end
            break
        at = token.end()
        word, number, hex_byte, symbol, brace, text = token.groups()
        if brace is not None:
            if brace == b"{":
                stack.append(state)
                state = replace(state)
                group_start, starred = True, False
            else:
                out.flush()
                if not stack:
                    break
                state = stack.pop()
                if not stack:
                    break  # the document's group is closed: what follows is no part of it
                group_start = starred = False
                skip_fallback = 0
            continue
        if symbol == b"*":
            starred = True
            continue
        at_group_start, group_start = group_start, False
        if word is not None:
            name = word.decode("ascii")
            value = int(number) if number is not None else None
            if at_group_start or starred:
                if name == "htmltag" and kind == "html":  # in an encapsulated text, a tag is no text
                    state.htmltag, state.skip = True, False
                    starred = False
                    continue
                if name == "fonttbl":
                    state.fonttbl = True
                    continue
                if starred or name in _RTF_SKIP:
                    state.skip = True
                    starred = False
                    continue
            if state.fonttbl:
                if name == "f":
                    defining_font = value
                elif name == "fcharset" and defining_font is not None and value in RTF_CHARSETS:
                    fonts[defining_font] = RTF_CHARSETS[value]
                continue
            if name == "ansicpg" and value is not None:
                ansi = codepage_codec(value) or ansi
            elif name == "deff":
                default_font = value
            elif name == "htmlrtf":
                state.htmlrtf = value != 0
            elif name == "f":
                state.font = value
            elif name == "uc" and value is not None and value >= 0:
                state.uc = value
            elif name == "bin" and value is not None and value > 0:
                at += value  # binary data: never text
            elif name == "u" and value is not None:
                if _visible(state):
                    out.text(chr(value % 0x10000))
                skip_fallback = state.uc
            elif name in _RTF_SYMBOLS and _visible(state):
                out.text(_RTF_SYMBOLS[name])
            continue
        if text is None and hex_byte is None and symbol is None:
            continue  # line breaks in the RTF source are not text
        if skip_fallback:  # the fallback characters after \uN: each byte, escape or symbol counts one
            if text is not None and len(text) > skip_fallback:
                text = text[skip_fallback:]
                skip_fallback = 0
            else:
                skip_fallback -= len(text) if text is not None else 1
                continue
        if not _visible(state):
            continue
        font = state.font if state.font is not None else default_font
        codec = ansi if state.htmltag or font is None else fonts.get(font, ansi)
        if hex_byte is not None:
            out.byte_run(bytes.fromhex(hex_byte.decode("ascii")), codec)
        elif symbol is not None:
            escaped = _RTF_ESCAPES.get(symbol)
            if escaped is not None:
                out.text(escaped)
        elif text is not None:
            out.byte_run(text, codec)
    return Deencapsulated(kind, out.result())


def _visible(state: _RtfState) -> bool:
    """Whether a group's text belongs to the original: tags always, other text unless RTF-only."""
    if state.skip or state.fonttbl:
        return False
    return state.htmltag or not state.htmlrtf
