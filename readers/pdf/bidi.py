"""Visual order to logical order for right-to-left lines.

pdfminer (under pdfplumber) writes each line's characters left to right as they stand on the page; for
Arabic or Hebrew that is the reverse of the reading order, so every word comes out backwards and no lexicon
knows it. A line whose letters are mostly right-to-left is turned back: its runs are taken in reverse
order, right-to-left runs are reversed inside, left-to-right runs (Latin words, numbers) keep their order,
and brackets are mirrored. This is the inverse of the Unicode bidi algorithm for the common case of one
right-to-left paragraph with embedded numbers and Latin words; it is not the full algorithm.
"""

from __future__ import annotations

import regex

_RTL_SCRIPTS = r"\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}"
_RTL_RUN = regex.compile(r"[" + _RTL_SCRIPTS + r"\p{Mn}]+")
#: One letter of a right-to-left script.
RTL_LETTER = regex.compile(r"[" + _RTL_SCRIPTS + r"]")
_LTR_RUN = regex.compile(r"[\p{L}\p{N}][\p{L}\p{N}\p{Mn}.,:/-]*[\p{L}\p{N}]|[\p{L}\p{N}]")
_MIRROR = str.maketrans("()[]{}<>«»", ")(][}{><»«")
# A line is turned when at least this share of its letters are right-to-left.
RTL_LINE_SHARE = 0.5


def rtl_share(line: str) -> float:
    letters = regex.findall(r"\p{L}", line)
    if not letters:
        return 0.0
    rtl = sum(len(m) for m in _RTL_RUN.findall(line))
    return min(1.0, rtl / len(letters))


def logical_line(line: str) -> str:
    """One visual-order line in reading order (unchanged when it is not mostly right-to-left)."""
    if rtl_share(line) < RTL_LINE_SHARE:
        return line
    runs: list[str] = []
    i = 0
    while i < len(line):
        m = _RTL_RUN.match(line, i)
        if m:
            runs.append(m.group()[::-1])
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
