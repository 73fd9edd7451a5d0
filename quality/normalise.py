"""Text normalisation for sanitize: one form for line ends, characters and hyphenated line breaks.

The signals are computed on the raw text (DESIGN §1); these functions make the text a reader or a
retrieval index gets. Both are idempotent and never introduce a CR or a NUL, so sanitize can run them
again over text that already went through them (a rerun, a carried-over page) without drifting.

- :func:`normalise`: CRLF and lone CR to LF, NUL removed, the Latin (and Armenian) typographic
  ligatures of the Alphabetic Presentation Forms expanded (``ﬁ`` → ``fi``: PyMuPDF keeps them, raw, and a
  search for "find" must find "ﬁnd"), a soft hyphen drawn at a line end kept as ``-`` and removed
  elsewhere, then NFC. NFC comes last because removing a NUL or a soft hyphen can put a letter next to
  the combining mark that belongs to it.
- :func:`join_hyphenated`: a word broken over a line end with a hyphen is joined again when the next
  line goes on in lower case; a hyphen before a capital or a digit is a compound's (``Jean-\\nPaul``,
  ``COVID-\\n19``) and stays.
"""

from __future__ import annotations

import re
import unicodedata

SOFT_HYPHEN = "\u00ad"

#: Ligatures expanded by :func:`normalise`: U+FB00-FB06 (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) and the Armenian ligatures
#: U+FB13-FB17, each to its compatibility decomposition (ﬅ, long s + t, becomes "st" like ﬆ). Only
#: these: NFKC as a whole would also fold superscripts, fractions, full-width forms and the like, which
#: carry meaning (x², ½) that a normalised text should keep.
LIGATURES: dict[int, str] = {
    code: unicodedata.normalize("NFKC", chr(code))
    for code in (*range(0xFB00, 0xFB07), *range(0xFB13, 0xFB18))
}

#: Hyphens that break a word at a line end: the ASCII hyphen-minus and U+2010 HYPHEN (a drawn soft
#: hyphen is already ``-`` after :func:`normalise`). Not the dashes: an en or em dash at a line end
#: separates words.
LINE_END_HYPHENS = "-\u2010"

_SOFT_HYPHEN_AT_LINE_END = re.compile(SOFT_HYPHEN + r"+(?=[ \t]*(?:\n|\Z))")
_FENCE = re.compile(r"\s{0,3}(?:```|~~~)")
_TABLE_ROW = re.compile(r"\s*\|")
_HEADING = re.compile(r"\s{0,3}#{1,6}(?:\s|$)")
_INDENTED_CODE = re.compile(r"(?: {4}|\t)")


def normalise(text: str) -> str:
    """``text`` with LF line ends, no NUL, ligatures expanded, soft hyphens resolved, in NFC."""
    if "\0" in text:
        text = text.replace("\0", "")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.translate(LIGATURES)
    if SOFT_HYPHEN in text:
        # A soft hyphen is drawn only where the line breaks; anywhere else it is an invisible hint.
        text = _SOFT_HYPHEN_AT_LINE_END.sub("-", text).replace(SOFT_HYPHEN, "")
    return unicodedata.normalize("NFC", text)


def join_hyphenated(text: str) -> str:
    """Join the words broken by a hyphen at a line end when the next line goes on in lower case.

    ``infor-\\nmation is`` becomes ``information is``: the hyphen and the line break go, and so does the
    next line's indentation; the rest of the next line joins the first. Nothing is joined across a
    blank line, into or out of a markdown table row, a heading or a fenced or indented code block, nor
    after a hyphen that follows no letter (``- item``, ``2019-``). A compound broken at its hyphen
    (``well-\\nknown``) is joined too: telling the two apart needs a dictionary, and broken words are by
    far the more common case in typeset text.
    """
    if "\n" not in text or not any(h in text for h in LINE_END_HYPHENS):
        return text
    lines = text.split("\n")
    out: list[str] = []
    in_fence = False
    joinable = False  # the last line of ``out`` may take the next line
    for line in lines:
        if _FENCE.match(line):
            in_fence = not in_fence
            out.append(line)
            joinable = False
            continue
        if in_fence:
            out.append(line)
            continue
        if joinable and _continues_word(line):
            previous = out[-1].rstrip(" \t")
            out[-1] = previous[:-1] + line.lstrip(" \t")
        else:
            out.append(line)
        joinable = _breaks_word(out[-1])
    return "\n".join(out)


def _breaks_word(line: str) -> bool:
    """The line ends with a hyphen right after a letter and is prose (not a table row, heading, code)."""
    stripped = line.rstrip(" \t")
    return (
        len(stripped) >= 2
        and stripped[-1] in LINE_END_HYPHENS
        and stripped[-2].isalpha()
        and not _TABLE_ROW.match(line)
        and not _HEADING.match(line)
        and not _INDENTED_CODE.match(line)
    )


def _continues_word(line: str) -> bool:
    """The line starts (after its indentation) with a lower-case letter and is not a table row."""
    rest = line.lstrip(" \t")
    return bool(rest) and rest[0].isalpha() and rest[0].islower()
