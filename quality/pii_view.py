"""The text the personal-data detectors read, and the way back to the text they redact.

A datum written to dodge a pattern is still the datum: ``ｊｏｈｎ＠ｅｘａｍｐｌｅ．ｏｒｇ`` in full-width
letters, ``john\u200b@example.org`` with a zero-width space in it, ``john.smith@exam`` at the end of
a line and ``ple.org`` at the start of the next. The detectors therefore read a *view* of the text:

- each character folded to its compatibility form (NFKC: full-width letters and digits, the
  mathematical alphabets, the no-break space), except numbers that are not digits (superscripts,
  fractions, circled numbers), which NFKC would turn into digits glued to the number before them;
- the characters that draw nothing removed (:data:`INVISIBLE`);
- for e-mail addresses only, a line break inside a candidate joined (:meth:`MatchView.joined`).

A view keeps, for each of its characters, the span of the original character it came from, so a span
found in the view maps back to the original span that holds it exactly (:meth:`MatchView.original`):
the placeholder replaces the characters the reader of the original saw, zero-width ones included.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

#: Characters that draw nothing and split a word for a pattern: zero-width space, non-joiner and joiner,
#: word joiner, the byte-order mark (a zero-width no-break space inside a text), the soft hyphen.
INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")

# A single line break with the spaces or tabs around it, between two characters an address is made of:
# a break a text wraps a long address at. A blank line (a paragraph break) never joins.
_BREAK_RE = re.compile(r"(?<=[\w.@%+\-])[ \t]*\n[ \t]*(?=[\w.@%+\-])")


@dataclass(frozen=True, slots=True)
class MatchView:
    """``text`` as the detectors read it; ``starts[i]``/``ends[i]``: the original span of ``text[i]``
    (``None`` for both: the view is the original text itself)."""

    text: str
    starts: tuple[int, ...] | None = None
    ends: tuple[int, ...] | None = None
    # the original offsets of the line breaks the view joined (only in a view made by ``joined``)
    joins: tuple[int, ...] = ()

    @property
    def identity(self) -> bool:
        return self.starts is None

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original span holding the view's ``text[start:end]`` (``start < end``)."""
        if self.starts is None or self.ends is None:
            return start, end
        return self.starts[start], self.ends[end - 1]

    def joined(self) -> MatchView:
        """This view with line breaks inside address-like runs removed (the view itself when there are
        none)."""
        if "\n" not in self.text:
            return self
        breaks = list(_BREAK_RE.finditer(self.text))
        if not breaks:
            return self
        starts = self.starts or tuple(range(len(self.text)))
        ends = self.ends or tuple(range(1, len(self.text) + 1))
        keep: list[str] = []
        new_starts: list[int] = []
        new_ends: list[int] = []
        joins: list[int] = []
        cursor = 0
        for m in breaks:
            left, right = self.text[m.start() - 1], self.text[m.end()]
            if left == "." and right.isupper():
                continue  # a sentence ends there
            keep.append(self.text[cursor : m.start()])
            new_starts += starts[cursor : m.start()]
            new_ends += ends[cursor : m.start()]
            joins.append(starts[m.start() + m.group().index("\n")])
            cursor = m.end()
        if not joins:
            return self
        keep.append(self.text[cursor:])
        new_starts += starts[cursor:]
        new_ends += ends[cursor:]
        return MatchView("".join(keep), tuple(new_starts), tuple(new_ends), tuple(joins))


def _fold(c: str) -> str:
    if c in INVISIBLE:
        return ""
    if unicodedata.category(c) == "No":  # ² ½ ①: NFKC would make them digits of the number before
        return c
    return unicodedata.normalize("NFKC", c)


def match_view(text: str) -> MatchView:
    """The view of ``text`` the detectors read (module docstring)."""
    if text.isascii() or (unicodedata.is_normalized("NFKC", text) and not any(c in INVISIBLE for c in text)):
        return MatchView(text)
    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    changed = False
    for i, c in enumerate(text):
        folded = c if c.isascii() else _fold(c)
        if folded != c:
            changed = True
        parts.append(folded)
        starts += [i] * len(folded)
        ends += [i + 1] * len(folded)
    if not changed:
        return MatchView(text)
    return MatchView("".join(parts), tuple(starts), tuple(ends))
