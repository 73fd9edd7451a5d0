"""Text normalisation for sanitize: one form for line ends, characters and hyphenated line breaks.

The signals are computed on the raw text (docs/design.md §1); these functions make the text a reader or a
retrieval index gets. Both are idempotent and never introduce a CR or a NUL, so sanitize can run them
again over text that already went through them (a rerun, a carried-over page) without drifting.

- :func:`normalise`: CRLF and lone CR to LF, NUL removed, the Latin (and Armenian) typographic
  ligatures of the Alphabetic Presentation Forms expanded (``ﬁ`` → ``fi``: PyMuPDF keeps them, raw, and a
  search for "find" must find "ﬁnd"), a soft hyphen drawn at a line end kept as ``-`` and removed
  elsewhere, then NFC. NFC comes last because removing a NUL or a soft hyphen can put a letter next to
  the combining mark that belongs to it. Before NFC the text is made stream-safe (:func:`stream_safe`):
  a run of more than 30 combining marks gets a COMBINING GRAPHEME JOINER after every 30th, as Unicode
  recommends (UAX #15 §13), so NFC takes time linear in the text: it sorts each run of marks by
  insertion, and a long run made one text take hours (docs/decisions.md). No mark is dropped.
- :func:`join_hyphenated`: a word broken over a line end with a hyphen is joined again when the next
  line goes on in lower case; a hyphen before a capital or a digit is a compound's (``Jean-\\nPaul``,
  ``COVID-\\n19``) and stays.
"""

from __future__ import annotations

import functools
import re
import unicodedata

SOFT_HYPHEN = "\u00ad"

#: Ligatures expanded by :func:`normalise`: U+FB00-FB06 (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) and the Armenian ligatures
#: U+FB13-FB17, each to its compatibility decomposition (ﬅ, long s + t, becomes "st" like ﬆ), and the
#: Hebrew and Arabic presentation forms (U+FB1D-FDFF, U+FE70-FEFF: the contextual shapes a PDF's font
#: draws, ``ﻟﺒﺎب`` for ``لباب``), to the base letters a search types. Only these: NFKC as a whole would
#: also fold superscripts, fractions, full-width forms and the like, which carry meaning (x², ½) that a
#: normalised text should keep.
LIGATURES: dict[int, str] = {
    code: unicodedata.normalize("NFKC", chr(code))
    for code in (*range(0xFB00, 0xFB07), *range(0xFB13, 0xFB18))
}


def _presentation_form(code: int) -> str:
    """A presentation form's base letters; a spacing vowel mark (U+FE70 ``ﹰ``, NFKC: space and mark)
    becomes its mark alone, since the space would split the word it stands in."""
    folded = unicodedata.normalize("NFKC", chr(code))
    if len(folded) > 1 and folded[0] == " " and all(unicodedata.combining(c) for c in folded[1:]):
        return folded[1:]
    return folded


LIGATURES.update(
    (code, folded)
    for code in (*range(0xFB1D, 0xFE00), *range(0xFE70, 0xFEFF))
    if (folded := _presentation_form(code)) != chr(code)
)

#: Hyphens that break a word at a line end: the ASCII hyphen-minus and U+2010 HYPHEN (a drawn soft
#: hyphen is already ``-`` after :func:`normalise`). Not the dashes: an en or em dash at a line end
#: separates words.
LINE_END_HYPHENS = "-\u2010"

#: What UAX #15 §13 (the Stream-Safe Text Format) allows in a row: 30 non-starters (characters of a
#: non-zero canonical combining class, counted in the compatibility decomposition), then a
#: COMBINING GRAPHEME JOINER (a starter that draws nothing and joins nothing) before the 31st.
MAX_NON_STARTERS = 30
CGJ = "\u034f"
# MAX_NON_STARTERS characters that more follow: a CGJ goes after them.
_FULL_RUN = re.compile(f"(.{{{MAX_NON_STARTERS}}})(?=.)", re.DOTALL)

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
    return unicodedata.normalize("NFC", stream_safe(text))


def stream_safe(text: str) -> str:
    """``text`` in the Stream-Safe Text Format of UAX #15 §13: wherever its compatibility decomposition
    would hold more than ``MAX_NON_STARTERS`` non-starters in a row, a ``CGJ`` is put before the one that
    would be too many. Text without such a run (every real script's) comes back unchanged; the work is a
    regular-expression scan, and the standard's process only over the runs it finds."""
    if text.isascii():
        return text
    runs, several = _non_starters()
    if runs.search(text) is None:
        return text
    parts: list[str] = []
    done = 0
    for match in runs.finditer(text):
        start, run = match.start(), match.group()
        count = _trailing(text[start - 1]) if start else 0
        parts.append(text[done:start])
        done = match.end()
        if several.search(run) is None:  # one non-starter a character: a CGJ after every 30th
            first = MAX_NON_STARTERS - count
            rest = run[first:]
            parts += [run[:first], CGJ if rest else "", _FULL_RUN.sub(r"\g<1>" + CGJ, rest)]
            continue
        for c in run:
            lead, whole = _leading(c)
            if count + lead > MAX_NON_STARTERS:
                parts.append(CGJ)
                count = 0
            count = count + lead if whole else _trailing(c)
            parts.append(c)
    parts.append(text[done:])
    return "".join(parts)


@functools.cache
def _non_starters() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A pattern for the runs of characters whose decomposition starts with a non-starter that are long
    enough to go over ``MAX_NON_STARTERS``, and one for the few characters among them that are more than
    one non-starter (U+0344, U+0F73...). Built on first use (0.2 s: every code point from U+0300, where
    the combining marks begin)."""
    members: list[int] = []
    several: list[int] = []
    most_leading = most_trailing = 1
    for code in range(0x300, 0x20000):
        c = chr(code)
        if not unicodedata.combining(c) and not unicodedata.decomposition(c):
            continue
        lead, whole = _leading(c)
        if lead:
            members.append(code)
            most_leading = max(most_leading, lead)
            if lead > 1 or not whole:
                several.append(code)
        if not whole:
            most_trailing = max(most_trailing, _trailing(c))
    # The shortest run that can reach MAX_NON_STARTERS + 1 after the most marks a starter ends with.
    shortest = -(-(MAX_NON_STARTERS + 1 - most_trailing) // most_leading)
    return re.compile(f"[{_char_class(members)}]{{{shortest},}}"), re.compile(f"[{_char_class(several)}]")


def _char_class(codes: list[int]) -> str:
    """The body of a regular-expression class matching exactly ``codes`` (sorted), as ranges."""
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in ranges)


@functools.cache
def _leading(c: str) -> tuple[int, bool]:
    """The non-starters ``c``'s compatibility decomposition starts with, and whether that is all of it."""
    if not unicodedata.combining(c) and not unicodedata.decomposition(c):
        return 0, False
    decomposed = unicodedata.normalize("NFKD", c)
    lead = 0
    for d in decomposed:
        if not unicodedata.combining(d):
            break
        lead += 1
    return lead, lead == len(decomposed)


@functools.cache
def _trailing(c: str) -> int:
    """The non-starters ``c``'s compatibility decomposition ends with."""
    if not unicodedata.combining(c) and not unicodedata.decomposition(c):
        return 0
    trail = 0
    for d in reversed(unicodedata.normalize("NFKD", c)):
        if not unicodedata.combining(d):
            break
        trail += 1
    return trail


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
