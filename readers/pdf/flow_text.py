"""A PDF page's flow text, for the PyMuPDF reader (:mod:`readers.pdf.mupdf`): its lines of spans laid
out in reading order with the tables' spans taken out and each table placed where it starts, the pieces
of one visual line put back together (horizontal or vertical writing), and the page's draft that the
headings and the structure decision finish.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from readers.core.model import (
    Block,
    HiddenSpan,
    PageFacts,
    PageStructure,
    ReadingOrder,
    Span,
)
from readers.pdf.bidi import (
    RTL_LINE_SHARE,
    may_hold_rtl,
    rtl_share,
)
from readers.pdf.certainty import StructureSignals
from readers.pdf.page_spans import _SpanLine
from readers.pdf.placed_tables import PlacedTable

#: Sizes are compared after rounding to half a point: 9.9626 (LaTeX's 10 pt) and 10.0 are one size.
_SIZE_QUANTUM = 0.5
#: The blank between two stacked pieces of one column of vertical writing is at most this many ems
#: (character pitch in vertical Japanese is 1-1.1 em; a new paragraph starts a new column, not a gap).
VERTICAL_JOIN_EM = 1.0


@dataclass(slots=True)
class _FlowLine:
    """A reconstructed output line with what the heading rules need."""

    text: str
    size: float
    bold: bool
    horizontal: bool = True
    widest_gap: float = 0.0  # widest gap between the MuPDF lines put together, in font sizes


@dataclass(slots=True)
class _FlowBlock:
    lines: list[_FlowLine]


@dataclass(slots=True)
class _TableMarkdown:
    markdown: str


@dataclass(slots=True)
class _PageDraft:
    """One page after the first pass; headings need the whole document's body size to be decided."""

    number: int
    items: list[_FlowBlock | _TableMarkdown]
    facts: PageFacts
    sizes: Counter[float] = field(default_factory=Counter)
    blocks: tuple[Block, ...] = ()
    hidden: tuple[HiddenSpan, ...] = ()
    tables: list[PlacedTable] = field(default_factory=list)
    order: ReadingOrder = field(default_factory=ReadingOrder)
    # What the structure decision needs, and may lay the page out again with (readers/pdf/certainty.py).
    signals: StructureSignals | None = None
    lines: list[list[_SpanLine]] = field(default_factory=list)
    permutation: tuple[int, ...] = ()
    artifacts: tuple[str, ...] = ()
    structure: PageStructure = field(default_factory=PageStructure)


# --- flow text ----------------------------------------------------------------------------------------


def _layout(
    blocks: list[list[_SpanLine]], tables: list[PlacedTable]
) -> tuple[list[_FlowBlock | _TableMarkdown], Counter[float]]:
    """The page's items in reading order: text blocks with table spans removed, tables where they start.

    Also counts the characters per (rounded) font size of the flow text, for the body size.
    """
    members: set[int] = set()
    for table in tables:
        members |= table.members
    starts = _starts(blocks, tables, members)
    items: list[_FlowBlock | _TableMarkdown] = []
    sizes: Counter[float] = Counter()
    if not tables:  # most pages: every line is flow text
        for block in blocks:
            _flush(block, items, sizes)
        return items, sizes
    for block in blocks:
        current: list[_SpanLine] = []
        for line in block:
            kept: list[Span] = []
            for span in line.spans:
                key = id(span)
                if key in starts:
                    _flush(current, items, sizes)
                    current = []
                    if kept:
                        current.append(_SpanLine.of(kept, line.horizontal, line.key, line.direction))
                        _flush(current, items, sizes)
                        current, kept = [], []
                    items.append(_TableMarkdown(starts[key].markdown))
                if key not in members:
                    kept.append(span)
            if len(kept) == len(line.spans):
                current.append(line)
            elif kept:
                current.append(_SpanLine.of(kept, line.horizontal, line.key, line.direction))
        _flush(current, items, sizes)
    if None in starts:  # a table whose title is the page's last text: after it
        items.append(_TableMarkdown(starts[None].markdown))
    return items, sizes


def _starts(
    blocks: list[list[_SpanLine]], tables: list[PlacedTable], members: set[int]
) -> dict[int | None, PlacedTable]:
    """Where each table is written: before its first span, or, when a title taken out of it reads after
    that span, before the first flow span after the title (None: at the end of the page)."""
    starts: dict[int | None, PlacedTable] = {table.first: table for table in tables if not table.above}
    titled = [table for table in tables if table.above]
    if not titled:
        return starts
    order = [id(span) for block in blocks for line in block for span in line.spans]
    index = {key: i for i, key in enumerate(order)}
    for table in titled:
        last = max((index[key] for key in table.above if key in index), default=-1)
        if last < index.get(table.first, 0):
            starts[table.first] = table
            continue
        after = next((key for key in order[last + 1 :] if key not in members and key not in starts), None)
        starts[table.first if after is None and None in starts else after] = table
    return starts


def _flush(lines: list[_SpanLine], items: list[_FlowBlock | _TableMarkdown], sizes: Counter[float]) -> None:
    """Turn a run of MuPDF lines into a block of reconstructed text lines."""
    out: list[_FlowLine] = []
    for group in _merge_same_baseline(lines):
        if len(group) > 1 and _right_to_left(group):
            group.sort(key=lambda line: -line.spans[0].bbox[0])  # pieces of a right-to-left line
        text_line = _text_line(group, sizes)
        if text_line is not None:
            out.append(text_line)
    if out:
        items.append(_FlowBlock(out))


def _right_to_left(group: list[_SpanLine]) -> bool:
    """The pieces of one line hold mostly right-to-left letters: they read from right to left."""
    text = "".join([span.text for line in group for span in line.spans])
    return may_hold_rtl(text) and rtl_share(text) >= RTL_LINE_SHARE


def _merge_same_baseline(lines: list[_SpanLine]) -> Iterator[list[_SpanLine]]:
    """MuPDF sometimes splits one visual line into several (a wide gap, a tab stop): put them back.

    Two consecutive horizontal lines are one when they overlap vertically by at least half the smaller
    height and the second starts to the right of where the first ends. Vertical writing likewise: MuPDF
    often makes each character of a column set top to bottom its own line, and two consecutive downward
    lines are one when they share the column (overlap horizontally by half the narrower) and the second
    starts below the first, within :data:`VERTICAL_JOIN_EM` of it.
    """
    group: list[_SpanLine] = []
    for line in lines:
        if group and _continues(group[-1], line):
            group.append(line)
            continue
        if group:
            yield group
        group = [line]
    if group:
        yield group


def _continues(previous: _SpanLine, line: _SpanLine) -> bool:
    if previous.downward and line.downward:
        return _continues_downward(previous, line)
    if not (previous.horizontal and line.horizontal):
        return False
    overlap = min(previous.bottom, line.bottom) - max(previous.top, line.top)
    smaller = min(previous.bottom - previous.top, line.bottom - line.top)
    return (
        smaller > 0 and overlap >= smaller / 2 and line.spans[0].bbox[0] >= previous.spans[-1].bbox[2] - 1.0
    )


def _continues_downward(previous: _SpanLine, line: _SpanLine) -> bool:
    left = min(s.bbox[0] for s in line.spans)
    right = max(s.bbox[2] for s in line.spans)
    previous_left = min(s.bbox[0] for s in previous.spans)
    previous_right = max(s.bbox[2] for s in previous.spans)
    overlap = min(right, previous_right) - max(left, previous_left)
    narrower = min(right - left, previous_right - previous_left)
    em = max(line.spans[0].size, 1.0)
    return (
        narrower > 0
        and overlap >= narrower / 2
        and line.top >= previous.bottom - 1.0
        and line.top - previous.bottom <= VERTICAL_JOIN_EM * em
    )


def _joins_without_space(before: str, after: str) -> bool:
    """Whether two pieces of one column of vertical writing meet without a space: between CJK
    characters (which write no spaces) or where a piece is a single character stacked on the other."""
    before, after = before.strip(), after.strip()
    return len(before) == 1 or len(after) == 1 or (_wide(before[-1:]) and _wide(after[:1]))


def _wide(char: str) -> bool:
    return bool(char) and unicodedata.east_asian_width(char) in ("W", "F")


def _text_line(group: list[_SpanLine], sizes: Counter[float]) -> _FlowLine | None:
    """One output line from MuPDF lines on one baseline; adds its characters per size to ``sizes``.

    The line's size is the size of most of its characters, and it is bold when every visible span is.
    """
    parts: list[str] = []
    weights: dict[float, int] = {}  # visible characters per rounded size
    counted: dict[float, int] = {}  # all characters per rounded size
    quantised: dict[float, float] = {}  # each span size, rounded
    quantum = _SIZE_QUANTUM
    bold = True
    widest_gap = 0.0
    previous: _SpanLine | None = None
    previous_text = ""
    for line in group:
        spans = line.spans
        first = spans[0]
        stacked = previous is not None and previous.downward and line.downward
        if previous is not None and not stacked:
            gap = first.bbox[0] - previous.spans[-1].bbox[2]
            widest_gap = max(widest_gap, gap / max(first.size, 1.0))
        line_text = "".join([span.text for span in spans])
        if (
            parts
            and not parts[-1][-1:].isspace()
            and not first.text[:1].isspace()
            and not (stacked and _joins_without_space(previous_text, line_text))
        ):
            parts.append(" ")
        previous, previous_text = line, line_text
        for span in spans:
            text = span.text
            parts.append(text)
            size = span.size
            size = quantised.get(size) or quantised.setdefault(size, round(size / quantum) * quantum)
            count = len(text)
            counted[size] = counted.get(size, 0) + count
            if not text.isspace():
                weights[size] = weights.get(size, 0) + count
                if bold:
                    bold = span.bold
    for size, count in counted.items():  # in the order the spans first had each size
        sizes[size] += count
    text = "".join(parts).strip()
    if not text:
        return None
    size = max(weights, key=weights.__getitem__) if weights else 0.0
    return _FlowLine(text, size, bold, all(line.horizontal for line in group), widest_gap)
