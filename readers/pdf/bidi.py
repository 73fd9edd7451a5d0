"""Visual order to logical order for right-to-left lines.

pdfminer (under pdfplumber) writes each line's characters left to right as they stand on the page; for
Arabic or Hebrew that is the reverse of the reading order, so every word comes out backwards and no lexicon
knows it. A line whose letters are mostly right-to-left is turned back: its runs are taken in reverse
order, right-to-left runs are reversed inside, left-to-right runs (Latin words, numbers) keep their order,
and brackets are mirrored. Digits are left-to-right in every script (Arabic-Indic ``١٩١٩`` too, though
Unicode counts them in the Arabic script), so they stay in their order.
This is the inverse of the Unicode bidi algorithm for the common case of one
right-to-left paragraph with embedded numbers and Latin words; it is not the full algorithm.
"""

from __future__ import annotations

import unicodedata

import regex

_RTL_SCRIPTS = r"\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}"
# Digits are no part of a right-to-left run: a number reads left to right in every script.
_RTL_RUN = regex.compile(r"(?:(?!\p{Nd})[" + _RTL_SCRIPTS + r"\p{Mn}])+")
#: One letter of a right-to-left script.
RTL_LETTER = regex.compile(r"(?!\p{Nd})[" + _RTL_SCRIPTS + r"]")
# A letter or digit of a left-to-right run: not a right-to-left letter (``00:אגף`` is two runs).
_LTR = r"(?:(?!(?!\p{Nd})[" + _RTL_SCRIPTS + r"])[\p{L}\p{N}])"
_LTR_RUN = regex.compile(_LTR + r"(?:" + _LTR + r"|[\p{Mn}.,:/\u066b\u066c-])*" + _LTR + r"|" + _LTR)
_GRAPHEME = regex.compile(r"\X")
_MIRROR = str.maketrans("()[]{}<>«»", ")(][}{><»«")
# A line is turned when at least this share of its letters are right-to-left.
RTL_LINE_SHARE = 0.5
# No right-to-left script's letters come before Hebrew's block: a text whose highest code point is below
# it holds none, which a page of Latin text answers without running the pattern.
_FIRST_RTL = "\u0590"


def may_hold_rtl(text: str) -> bool:
    """False when ``text`` surely holds nothing of a right-to-left script (a code point test alone)."""
    return max(text, default="") >= _FIRST_RTL


def holds_rtl_letter(text: str) -> bool:
    """Whether ``text`` holds a letter of a right-to-left script (:data:`RTL_LETTER`)."""
    return may_hold_rtl(text) and RTL_LETTER.search(text) is not None


def rtl_share(line: str) -> float:
    letters = regex.findall(r"\p{L}", line)
    if not letters:
        return 0.0
    rtl = sum(len(m) for m in _RTL_RUN.findall(line))
    return min(1.0, rtl / len(letters))


def logical_line(line: str, *, right_to_left: bool | None = None, graphemes: bool = False) -> str:
    """One visual-order line in reading order (unchanged when it is not mostly right-to-left).

    ``right_to_left`` says the line's direction where the caller knows it (a piece of a line: a number
    alone); ``graphemes`` turns right-to-left runs a grapheme at a time, so that a vowel mark written after
    its letter stays after it (a visual line whose marks follow their letters: :func:`visual_text`).
    """
    if right_to_left is None:
        right_to_left = rtl_share(line) >= RTL_LINE_SHARE
    if not right_to_left:
        return line
    runs: list[str] = []
    i = 0
    while i < len(line):
        m = _RTL_RUN.match(line, i)
        if m:
            run = m.group()
            runs.append("".join(reversed(_GRAPHEME.findall(run))) if graphemes else run[::-1])
            i = m.end()
            continue
        m = _LTR_RUN.match(line, i)
        if m:
            runs.append(m.group())
            i = m.end()
            continue
        runs.append(line[i].translate(_MIRROR))
        i += 1
    return "".join(reversed(runs))


def logical_text(text: str) -> str:
    return "\n".join(logical_line(line) for line in text.split("\n"))


# A leftward step between two characters drawn one after the other wider than this share of the font size
# is a space the producer left out (TeX-set Arabic: 0.3 em between words, no space drawn;
# joined Arabic letters of one word touch, 0 em apart).
MIN_DRAWN_SPACE_EM = 0.2
# A step counts as leftward when the next character ends at most this share of the font size right of
# where the previous one starts (glyph boxes of joined letters overlap by a little).
STEP_TOLERANCE_EM = 0.1
_LTR_CHAR = regex.compile(r"[\p{N}\p{L}]")
_NUMBER_SEPARATOR = frozenset(".,:/\u066b\u066c")


def drawn_text(chars: list[dict], size: float) -> str:
    """A span's text from its characters (MuPDF's ``rawdict``), for a span of a line that holds
    right-to-left letters (the caller decides: a span may hold only a number of such a line).

    A producer that draws right-to-left text glyph by glyph from right to left gives the letters in reading
    order, but a number (or a Latin word) inside it also drawn from right to left comes out reversed
    (``٩١٩١`` for ``١٩١٩``), and where it leaves no space glyph between words MuPDF, which looks for gaps
    in the left-to-right direction only, writes none. Here each run of left-to-right characters (letters
    and digits not of a right-to-left script, with the separators between them: ``١٢٫٥``, ``3.14``) drawn
    leftwards is put back in left-to-right order, and a leftward gap of :data:`MIN_DRAWN_SPACE_EM` or more
    between two characters becomes a space. Characters drawn left to right are left as they are.
    """
    text = [c["c"] for c in chars]
    tolerance, space = STEP_TOLERANCE_EM * size, MIN_DRAWN_SPACE_EM * size
    n = len(chars)
    leftward = [False] + [chars[i]["bbox"][2] <= chars[i - 1]["bbox"][0] + tolerance for i in range(1, n)]
    strong = [bool(_LTR_CHAR.match(c)) and not RTL_LETTER.match(c) for c in text]
    ltr = [
        strong[i]
        or (
            text[i] in _NUMBER_SEPARATOR
            and 0 < i < n - 1
            and strong[i - 1]
            and strong[i + 1]
            and leftward[i]
            and leftward[i + 1]
        )
        for i in range(n)
    ]
    out: list[str] = []
    run: list[str] = []  # left-to-right characters drawn leftwards, pending
    for i, c in enumerate(text):
        if run and not (ltr[i] and leftward[i]):
            out.extend(reversed(run))
            run = []
        if (
            leftward[i]
            and chars[i - 1]["bbox"][0] - chars[i]["bbox"][2] >= space
            and not c.isspace()
            and not text[i - 1].isspace()
        ):
            out.extend(reversed(run))
            run = []
            out.append(" ")
        (run if ltr[i] else out).append(c)
    out.extend(reversed(run))
    return "".join(out)


def visual_text(chars: list[dict], size: float) -> str:
    """A span's characters (MuPDF's ``rawdict``) as they stand on the page, left to right.

    A combining mark stays with the letter drawn before it (a vowel mark stands over or under its letter,
    not beside it); a gap of :data:`MIN_DRAWN_SPACE_EM` or more between two characters that are not
    spaces becomes a space. Python's sort is stable: characters at one place keep their drawing order.
    """
    clusters: list[tuple[float, float, list[str]]] = []  # (left, right, characters)
    for char in chars:
        c = char["c"]
        if clusters and unicodedata.combining(c):
            clusters[-1][2].append(c)
            continue
        clusters.append((char["bbox"][0], char["bbox"][2], [c]))
    clusters.sort(key=lambda cluster: (cluster[0] + cluster[1]) / 2)
    space = MIN_DRAWN_SPACE_EM * size
    out: list[str] = []
    previous: tuple[float, float, list[str]] | None = None
    for cluster in clusters:
        if (
            previous is not None
            and cluster[0] - previous[1] >= space
            and not previous[2][0].isspace()
            and not cluster[2][0].isspace()
        ):
            out.append(" ")
        out.extend(cluster[2])
        previous = cluster
    return "".join(out)


def drawn_rightwards(chars: list[dict]) -> bool:
    """The characters were drawn mostly left to right: as many of the steps from one to the next (between
    their centres) go rightwards as leftwards, or more. A producer that draws a right-to-left line in reading
    order steps leftwards from letter to letter; one that draws it as it stands, or its words left to
    right (each word's letters right to left, its numbers left to right), steps rightwards as often or
    more. Steps are counted, not measured: a glyph drawn out of place (a dash set at the line's far end)
    is one step, however far."""
    rightwards = leftwards = 0
    previous: float | None = None
    for char in chars:
        if char["c"].isspace():
            continue
        centre = (char["bbox"][0] + char["bbox"][2]) / 2
        if previous is not None and centre != previous:
            if centre > previous:
                rightwards += 1
            else:
                leftwards += 1
        previous = centre
    return rightwards >= leftwards
