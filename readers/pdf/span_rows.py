"""A page's spans put back into visual rows, each row cut into segments where a gap is wider than word
spacing, and the runs of consecutive rows of several segments (what the unruled table finder,
:mod:`readers.pdf.unruled_tables`, looks at).

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from readers.pdf.placed_tables import (
    CURRENCY,
)
from readers.pdf.ruled_cells import LineLike, SpanLike

# --- thresholds -------------------------------------------------------------------------------------

#: A table has at least this many rows with two or more segments (the "three or more lines" of the
#: definition); fewer and the page is not looked at further (the gate).
MIN_ROWS = 3
#: A gap between two spans of one visual row wider than this many font sizes separates two cells. Word
#: spacing is 0.2-0.35 em and a sentence gap under 0.6 em in every corpus font; tab-set columns in the
#: corpus's statements and schedules are 1.5-20 em apart.
SEGMENT_GAP_EM = 1.0
#: Two spans of one cell closer than this share of the smaller one's height touch: one word set in two
#: fonts or with a superscript ("km" and "2" 0-0.5 pt apart at 10 pt in a LaTeX paper).
TOUCHING_GAP_SHARE = 0.15
#: Two spans are on one visual row when their vertical centres are closer than this share of the
#: smaller span's height (superscripts and mixed sizes on one baseline stay together).
SAME_ROW_SHARE = 0.5
#: The blank between consecutive rows of one table is at most this many row heights (0.1-0.8 in the
#: corpus's tables and in generated ones; a gap wider than a line is a new paragraph or a new table).
ROW_GAP_HEIGHTS = 1.2
_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")


@dataclass(slots=True)
class _Segment:
    x0: float
    x1: float
    spans: list[SpanLike]
    text: str = ""


@dataclass(slots=True)
class _Row:
    top: float
    bottom: float
    centre: float
    height: float
    spans: list[tuple[float, int, SpanLike]] = field(default_factory=list)  # (left, reading position, span)
    segments: list[_Segment] = field(default_factory=list)


def _rows(blocks: Sequence[Sequence[LineLike]], taken: set[int]) -> list[_Row]:
    """The page's horizontal spans grouped into visual rows, top to bottom, each cut into segments.

    Runs over every span of every page, so it keeps to locals and plain comparisons.
    """
    spans: list[tuple[float, int, SpanLike]] = []
    append = spans.append
    position = 0
    for block in blocks:
        for line in block:
            if not line.horizontal:
                continue
            for span in line.spans:
                position += 1
                text = span.text
                if text and not text.isspace() and (not taken or id(span) not in taken):
                    box = span.bbox
                    append(((box[1] + box[3]) / 2, position, span))
    return _group(spans)


def _group(spans: list[tuple[float, int, SpanLike]]) -> list[_Row]:
    """Spans (vertical centre, reading position, span) grouped into visual rows, each cut into segments."""
    spans.sort(key=_first)
    rows: list[_Row] = []
    share = SAME_ROW_SHARE
    # The current row's fields as locals, written back when the next row starts.
    members: list[tuple[float, int, SpanLike]] = []
    top = bottom = row_centre = row_height = 0.0
    for centre, position, span in spans:
        x0, y0, _, y1 = span.bbox
        height = y1 - y0
        if height < 0.1:
            height = 0.1
        if members:
            smaller = height if height < row_height else row_height
            # near centres, or a superscript overlapping the row by half its height or more
            overlap = (y1 if y1 < bottom else bottom) - (y0 if y0 > top else top)
            if abs(centre - row_centre) <= share * smaller or overlap >= share * smaller:
                members.append((x0, position, span))
                if y0 < top:
                    top = y0
                if y1 > bottom:
                    bottom = y1
                continue
            rows.append(_Row(top, bottom, row_centre, row_height, members))
        members = [(x0, position, span)]
        top, bottom, row_centre, row_height = y0, y1, centre, height
    if members:
        rows.append(_Row(top, bottom, row_centre, row_height, members))
    for row in rows:
        row.segments = _segments(row)
    return rows


# A span's vertical centre in _rows' spans, its left edge in a row's: sorting by it keeps ties in order.
_first = operator.itemgetter(0)


def _segments(row: _Row) -> list[_Segment]:
    """The row cut into segments, left to right, at gaps wider than SEGMENT_GAP_EM of its median height.

    The row's spans carry their left edge, taken while the rows were grouped, so they are sorted by it
    without a Python call per span (~3 ms a pass on the corpus's born-digital pages).
    """
    if len(row.spans) == 1:  # most rows of a page of prose: one span, one segment
        span = row.spans[0][2]
        return [_Segment(span.bbox[0], span.bbox[2], [span])]
    ordered = sorted(row.spans, key=_first)
    heights = sorted([span.bbox[3] - span.bbox[1] for _, _, span in ordered])
    middle = len(heights) // 2
    size = heights[middle] if len(heights) % 2 else (heights[middle - 1] + heights[middle]) / 2
    gap = SEGMENT_GAP_EM * size
    segments: list[_Segment] = []
    current: _Segment | None = None
    for x0, _, span in ordered:
        x1 = span.bbox[2]
        if current is not None and x0 - current.x1 <= gap:
            current.spans.append(span)
            if x1 > current.x1:
                current.x1 = x1
            continue
        current = _Segment(x0, x1, [span])
        segments.append(current)
    if len(segments) == 1:
        return segments
    # A currency sign set apart from its amount ($ 178) belongs to the amount's cell.
    merged: list[_Segment] = []
    for segment in segments:
        if merged and len(merged[-1].spans) == 1 and merged[-1].spans[0].text.strip() in CURRENCY:
            sign = merged.pop()
            segment = _Segment(sign.x0, segment.x1, [*sign.spans, *segment.spans])
        merged.append(segment)
    return merged


def _texts(run: list[_Row]) -> list[_Segment]:
    """The run's segments with their text: only a candidate table's are ever needed. A segment written
    right to left (Hebrew, Arabic) joins its spans in reading order, not from left to right."""
    segments = [segment for row in run for segment in row.segments]
    order: dict[int, int] | None = None
    for segment in segments:
        if not segment.text:
            spans = segment.spans
            if len(spans) > 1 and any(_RIGHT_TO_LEFT.search(s.text) for s in spans):
                if order is None:
                    order = {id(span): position for row in run for _, position, span in row.spans}
                spans = sorted(spans, key=lambda span: order[id(span)])
            segment.text = _joined(spans)
    return segments


def _joined(spans: Sequence[SpanLike]) -> str:
    """The spans' text, a space between two spans unless they touch (a superscript, a change of font inside
    a word: "km" and "2" of "km2")."""
    out = ""
    previous: SpanLike | None = None
    for span in spans:
        text = " ".join(span.text.split())
        if not text:
            continue
        if previous is not None:
            gap = span.bbox[0] - previous.bbox[2]
            height = min(span.bbox[3] - span.bbox[1], previous.bbox[3] - previous.bbox[1])
            level = span.bbox[1] < previous.bbox[3] and previous.bbox[1] < span.bbox[3]
            touching = level and abs(gap) <= TOUCHING_GAP_SHARE * height
            glued = touching and not span.text[0].isspace() and not previous.text[-1].isspace()
            out += "" if glued else " "
        out += text
        previous = span
    return out


def _runs(rows: list[_Row]) -> list[list[_Row]]:
    """Runs of consecutive rows with two or more segments, close together; a one-segment row between two
    such rows (a section label of a statement) stays in its run."""
    runs: list[list[_Row]] = []
    current: list[_Row] = []
    pending: _Row | None = None  # a one-segment row that may be inside the run
    for row in rows:
        last = pending if pending is not None else (current[-1] if current else None)
        near = last is not None and row.top - last.bottom <= ROW_GAP_HEIGHTS * last.height
        if len(row.segments) >= 2:
            if current and near:
                if pending is not None:
                    current.append(pending)
                current.append(row)
            else:
                _close(runs, current)
                current = [row]
            pending = None
        elif current and near and pending is None:
            pending = row
        else:
            _close(runs, current)
            current, pending = [], None
    _close(runs, current)
    return runs


def _close(runs: list[list[_Row]], run: list[_Row]) -> None:
    if sum(1 for row in run if len(row.segments) >= 2) >= MIN_ROWS:
        runs.append(run)
