"""Invisible text out of a page's text: how instructions are smuggled into documents fed to language models.

The PDF reader records every run of text a reader of the page cannot see (``pages.hidden_text`` and
``hidden_why``, :class:`readers.core.model.HiddenSpan`) and leaves it in the raw text the signals measure.
Sanitize calls :func:`remove_hidden` on each page's final text to take those runs out and keep them as
evidence (``hidden_text``).

What is removed: on a page whose verdict's provenance is ``ocr_sandwich``, nothing: its invisible text
(render mode 3 over a scan) *is* the page's text. On every other page, every run, whatever its reason:
``render_mode`` and ``alpha`` included. docs/design.md §1 says invisible text that is not an OCR layer is
removed, and a born-digital page has no business drawing text nobody can see; a scanned figure with its
own OCR layer on a born-digital page loses that layer, and the OCR of the figure regions (FIGURES pages)
reads the figure again.

Which texts it applies to: texts that came from the PDF's text layer (``page_texts.source`` extracted,
extracted+figures, fallback, repaired: :data:`TEXT_LAYER_SOURCES`). An ``ocr`` text was read from the
rendered page, where hidden text does not show; matching the layer's runs there could only remove
words that are really on the page. In an extracted+figures text only the part before the transcribed
figures heading is searched, for the same reason.

Matching: the runs are looked for in reading order, each from where the previous one ended, with any
run of whitespace in the run matching any run of whitespace in the text (the reader joins the pieces of
a line with single spaces, markdown puts a table's cells between pipes). A run that starts or ends with
a letter or digit must start or end at a word boundary. The runs are raw, as the reader saw them; in a
page text already normalised (quality/normalise.py: ligatures expanded, NFC) a run not found as it is
is looked for normalised. A run with fewer than
:data:`INLINE_MIN_WORD_CHARS` letters and digits is taken out only where it is a whole line: a hidden
``|`` or ``x`` inside a line could as well be a visible one. A run that is not found (text outside the
crop box, which the reader never puts in the text; a short run inside a line) is still recorded, with
``start = -1``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from quality.normalise import normalise

#: page_texts sources whose text comes from the PDF's text layer, where the recorded runs can be.
TEXT_LAYER_SOURCES = frozenset({"extracted", "extracted+figures", "fallback", "repaired"})

#: A run with fewer letters and digits than this is removed only where it stands as a whole line. On the
#: corpus the born-digital pages' hidden runs are the Federal Register's white production stamp (runs of
#: 6-40 characters: "Jkt 250001", "06AUP1") and white table rules drawn as "|" (pdfminer issue 625,
#: which the text also has inside its GFM tables); a 1-3 letter run ("x", "the") would too often match
#: a visible word between the previous run and its own place.
INLINE_MIN_WORD_CHARS = 4

_FIGURES_HEADING = re.compile(r"^## Page \d+ \(transcribed figures\)$", re.MULTILINE)
_LINE_DECOR = " \t#>"  # what may stay of a line whose content was all hidden: indentation, heading marks


class HiddenLike(Protocol):
    """A recorded hidden run: :class:`readers.core.model.HiddenSpan`, or anything with its two fields."""

    @property
    def text(self) -> str: ...

    @property
    def why(self) -> str: ...


@dataclass(frozen=True, slots=True)
class RemovedHidden:
    """One hidden run of a page: its text, why it is invisible, and where it started in the page text
    given to :func:`remove_hidden` (-1 when it was not found there, or not removed)."""

    text: str
    why: str
    start: int


@dataclass(frozen=True, slots=True)
class HiddenResult:
    text: str
    removed: list[RemovedHidden] = field(default_factory=list)


def remove_hidden(
    text: str, hidden: Sequence[HiddenLike | tuple[str, str]], *, ocr_layer: bool
) -> HiddenResult:
    """``text`` without its hidden runs, and every run with where it was (see the module docstring).

    ``ocr_layer``: the page is an OCR sandwich (provenance ``ocr_sandwich``); nothing is removed or
    recorded. A line left with nothing visible is removed with its line break, and a blank line it
    leaves doubled is merged, so a hidden paragraph does not leave a hole in the markdown.
    """
    if ocr_layer or not hidden:
        return HiddenResult(text)
    figures = _FIGURES_HEADING.search(text)
    searchable = figures.start() if figures else len(text)
    removed: list[RemovedHidden] = []
    spans: list[tuple[int, int]] = []
    cursor = 0
    for item in hidden:
        run_text, why = item if isinstance(item, tuple) else (item.text, item.why)
        found = _find(text, run_text, cursor, searchable, spans)
        if found is None and (normalised := normalise(run_text)) != run_text:
            found = _find(text, normalised, cursor, searchable, spans)  # the page text was normalised
        if found is None:
            removed.append(RemovedHidden(run_text, why, -1))
            continue
        start, end = found
        spans.append(found)
        cursor = end
        removed.append(RemovedHidden(run_text, why, start))
    if not spans:
        return HiddenResult(text, removed)
    return HiddenResult(_cut(text, spans), removed)


def _pattern(run: str) -> re.Pattern[str] | None:
    words = run.split()
    if not words:
        return None
    body = r"\s+".join(re.escape(w) for w in words)
    head = r"(?<!\w)" if re.match(r"\w", words[0]) else ""
    tail = r"(?!\w)" if re.search(r"\w$", words[-1]) else ""
    return re.compile(head + body + tail)


def _find(
    text: str, run: str, cursor: int, limit: int, taken: Sequence[tuple[int, int]]
) -> tuple[int, int] | None:
    """Where ``run`` is in ``text[:limit]``: first from ``cursor`` on, then from the start; never
    overlapping a run already found."""
    pattern = _pattern(run)
    if pattern is None:
        return None
    whole_line_only = sum(c.isalnum() for c in run) < INLINE_MIN_WORD_CHARS
    for origin in (cursor, 0) if cursor else (0,):
        for match in pattern.finditer(text, origin, limit):
            start, end = match.span()
            if any(s < end and start < e for s, e in taken):
                continue
            if whole_line_only and not _is_whole_line(text, start, end):
                continue
            return start, end
    return None


def _is_whole_line(text: str, start: int, end: int) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    return not text[line_start:start].strip(_LINE_DECOR) and not text[end:line_end].strip()


def _cut(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` without ``spans``; a line emptied of content goes, blank lines it leaves doubled merge."""
    cuts = sorted(spans)
    out: list[str] = []
    dropped_after: set[int] = set()  # indexes in ``out`` before which a line was dropped
    first = 0  # the first cut that may still reach the current line
    offset = 0
    for line in text.split("\n"):
        end = offset + len(line)
        while first < len(cuts) and cuts[first][1] <= offset:
            first += 1
        pieces: list[str] = []
        position = 0
        # Cuts are sorted and do not overlap; one that reaches into the line starts before its end (an
        # empty line is reached only by a cut across it).
        for k in range(first, len(cuts)):
            start, stop = cuts[k]
            if start >= end:
                break
            a, b = max(start, offset) - offset, min(stop, end) - offset
            pieces.append(line[position:a])
            position = max(position, b)
        if not pieces:
            out.append(line)
        else:
            pieces.append(line[position:])
            kept = _join_pieces(pieces)
            if kept.strip(_LINE_DECOR):
                out.append(kept)
            else:
                dropped_after.add(len(out))
        offset = end + 1
    return "\n".join(_merge_blank_lines(out, dropped_after))


def _join_pieces(pieces: list[str]) -> str:
    """The pieces of a line around removed runs, with one space where a run stood between two words, and
    no space left at the line's start or end where a run stood there."""
    out = pieces[0]
    for piece in pieces[1:]:
        if not out.strip():
            out += piece.lstrip(" \t")
        elif out.endswith((" ", "\t")) and piece.startswith((" ", "\t")):
            out = out.rstrip(" \t") + " " + piece.lstrip(" \t")
        else:
            out += piece
    return out.rstrip(" \t") if not pieces[-1].strip() else out


def _merge_blank_lines(lines: list[str], dropped_after: set[int]) -> list[str]:
    """Where a line was dropped between two blank lines (or a blank line and the text's edge), keep one."""
    if not dropped_after:
        return lines
    out: list[str] = []
    for index, line in enumerate(lines):
        if index in dropped_after and not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line)
    if len(lines) in dropped_after:  # dropped at the very end: no trailing blank line left behind
        while out and not out[-1].strip():
            out.pop()
    return out
