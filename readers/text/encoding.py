"""Decode the bytes of a text document into a ``str``, and say how the encoding was decided.

The order of evidence is fixed, strongest first, so that the recorded ``source`` tells an auditor how much
to trust the decoding:

1. ``"bom"``: a byte-order mark names the encoding outright.
2. ``"nul_share"``: UTF-16 without a mark, recognised by NUL bytes in every other position (the high
   bytes of Latin text). This must come before UTF-8, because ``b"T\\x00h\\x00"`` *is* valid UTF-8.
3. ``"utf8"``: strict UTF-8. Text in a legacy 8-bit encoding almost never validates by accident.
4. ``"detected"``: charset-normalizer's best guess, ties broken in favour of the commonest encodings.
5. ``"fallback"``: latin-1, which maps every byte, with ``errors="replace"`` for completeness.

:func:`decode_text` never raises, whatever the bytes: a document whose encoding cannot be told is still
text, and the signals downstream judge how good it is. The BOM and NUL-share tests are exported for
:mod:`readers.walk.sniff`, so that the sniffer and the reader agree on what UTF-16 looks like.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Literal

import charset_normalizer

EncodingSource = Literal["bom", "nul_share", "utf8", "detected", "fallback"]

#: Byte-order marks, longest first: the UTF-32 LE mark begins with the UTF-16 LE one.
BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

#: Share of the high-byte positions (odd offsets for LE, even for BE) that must be NUL to call BOM-less
#: bytes UTF-16. Latin text with a sprinkling of non-ASCII letters stays above 90%; 30% still accepts
#: text that is two-thirds non-Latin (Cyrillic and CJK have non-NUL high bytes, so those are left to
#: charset-normalizer). No UTF-8 text contains NULs. Calibrated on the corpus's UTF-16 text, e-mail and
#: HTML files (docs/decisions.md, "Text judging: calibration notes").
UTF16_NUL_SHARE_MIN = 0.30

#: The other positions must be nearly free of NULs: binary formats and UTF-32 (``A\\0\\0\\0``: half of
#: the even offsets are NUL) have NULs on both sides, text in UTF-16 has them on one side only.
UTF16_OTHER_NUL_SHARE_MAX = 0.05

#: Fewer bytes than this are not enough evidence for UTF-16 without a mark (one code unit is two bytes).
UTF16_MIN_BYTES = 2

#: When charset-normalizer finds several encodings equally plausible (it cannot tell cp1250 from cp1252
#: on most Western text: both decode it without chaos), prefer the commonest one. cp1252 is what
#: Windows and the web (WHATWG treats "latin-1" as cp1252) mean by "ANSI".
TIE_PREFERENCE: tuple[str, ...] = ("cp1252", "iso8859-1", "iso8859-15")

#: What counts as a tie: charset-normalizer's own bounds (``CharsetMatch.__lt__`` in 3.x), inside which it
#: falls back to "most multi-byte characters decoded", a criterion that means nothing for 8-bit codepages.
TIE_CHAOS = 0.005
TIE_COHERENCE = 0.02


@dataclass(frozen=True, slots=True)
class Decoded:
    """The decoded text, the encoding (Python codec name) and which evidence decided it."""

    text: str
    encoding: str
    source: EncodingSource


def canonical(encoding: str) -> str:
    """Python's canonical codec name (``utf_8`` and ``UTF8`` are both ``utf-8``), or the name as given."""
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        return encoding


def bom_encoding(data: bytes) -> tuple[str, int] | None:
    """The encoding a byte-order mark names and the mark's length, or ``None`` without a mark."""
    for mark, encoding in BOMS:
        if data.startswith(mark):
            return encoding, len(mark)
    return None


def utf16_by_nul_share(data: bytes) -> str | None:
    """``"utf-16-le"`` or ``"utf-16-be"`` when NULs sit in one parity of offsets only, else ``None``."""
    if len(data) < UTF16_MIN_BYTES:
        return None
    even, odd = data[0::2], data[1::2]
    even_share = even.count(0) / len(even)
    odd_share = odd.count(0) / len(odd)
    if odd_share >= UTF16_NUL_SHARE_MIN and even_share <= UTF16_OTHER_NUL_SHARE_MAX:
        return "utf-16-le"
    if even_share >= UTF16_NUL_SHARE_MIN and odd_share <= UTF16_OTHER_NUL_SHARE_MAX:
        return "utf-16-be"
    return None


def _detected(data: bytes) -> Decoded | None:
    """charset-normalizer's guess, or ``None`` when it has none (binary bytes) or its guess fails."""
    try:
        matches = charset_normalizer.from_bytes(data)
        best = matches.best()
        if best is None:
            return None
        tied = [
            m
            for m in matches
            if abs(m.chaos - best.chaos) < TIE_CHAOS and abs(m.coherence - best.coherence) <= TIE_COHERENCE
        ]
        encoding = canonical(best.encoding)
        for preferred in TIE_PREFERENCE:
            if any(preferred in {canonical(e) for e in m.could_be_from_charset} for m in tied):
                encoding = preferred
                break
        # charset-normalizer samples large payloads, so a byte outside its samples may not fit the guess:
        # one replacement character is a better answer than abandoning the guess for latin-1.
        return Decoded(data.decode(encoding, errors="replace"), encoding, "detected")
    except (LookupError, ValueError, RuntimeError):
        return None


def decode_text(data: bytes) -> Decoded:
    """Decode ``data`` by the strongest evidence available (module docstring); never raises.

    A byte-order mark is not part of the text and is dropped. UTF-16 recognised by its NULs is decoded
    with ``errors="replace"``: a truncated last code unit or a lone surrogate should cost one character,
    not the document.
    """
    marked = bom_encoding(data)
    if marked is not None:
        encoding, length = marked
        return Decoded(data[length:].decode(encoding, errors="replace"), encoding, "bom")
    utf16 = utf16_by_nul_share(data)
    if utf16 is not None:
        return Decoded(data.decode(utf16, errors="replace"), utf16, "nul_share")
    try:
        return Decoded(data.decode("utf-8"), "utf-8", "utf8")
    except UnicodeDecodeError:
        pass
    detected = _detected(data)
    if detected is not None:
        return detected
    return Decoded(data.decode("latin-1", errors="replace"), "iso8859-1", "fallback")
