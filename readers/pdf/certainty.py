"""Whether a page's structure is certain from the text layer's own signals, cheapest first.

The PDF reader decides a page's structure (furniture lines, tables, reading order) by rules. Most pages
leave the rules nothing to doubt: one column, no table candidate, nothing unexplained at the page's top
and bottom. A page is **uncertain** when one of these holds, each a signal the text-layer path has already
computed (no extra extraction):

- ``table``: a table candidate the own finders disagree on: a table aligned by whitespace with a low
  confidence, or many rows of the page cut into several segments by wide gaps while no finder took them
  (a table the rules rejected);
- ``order``: the chosen reading order breaks sentences at its seams (a low confidence);
- ``columns``: the page has columns and the chosen order still breaks seams;
- ``bands``: short lines in the top or bottom band that no rule explains (not a page number, not a line
  repeated on other pages of the document).

A tagged page is certain (its structure tree says what is furniture, table and order). The uncertain
pages of a PDF with a text layer go to PyMuPDF's layout model (:mod:`readers.pdf.layout_model`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from readers.core.model import ReadingOrder, StructureSource

# --- thresholds -------------------------------------------------------------------------------------

#: An order below this confidence (share of judged seams that are whole) is uncertain. On the dev
#: corpus's born-digital pages the producer's order scores 1.0 on most pages; prose with formulas, code
#: and lists ending without a stop scores 0.4-0.9 (0.5 sent 66 of 241 pages, this 56).
MIN_ORDER_CONFIDENCE = 0.34
#: A page with columns is uncertain when its chosen order breaks at least this many seams (a column
#: read in the right order breaks none; one misjudged seam is noise, as in readers/pdf/order.py).
MIN_COLUMN_SEAMS = 2
#: An aligned table below this confidence is a candidate the finders disagree on.
MIN_ALIGNED_CONFIDENCE = 0.6
#: Rows cut by at least this many wide gaps (segments - 1) look like table rows...
TABLE_ROW_GAPS = 2
#: ...and at least this many such rows, none taken by a finder, are a rejected table candidate.
MIN_REJECTED_ROWS = 10
#: A gap at least this many font sizes wide cuts a row into segments. With 1 em (the aligned finder's)
#: and 4 rows the signal fired on 122 of the dev corpus's 241 born-digital pages (formulas, contents);
#: 2 em and 10 rows, on 31.
WIDE_GAP_EM = 2.0
#: The top and bottom bands: this share of the page's height (running heads and footers stand in the
#: outer 8% of the corpus's pages; body text starts below 10%).
BAND_SHARE = 0.08
#: A band line of at most this many characters can be furniture (running heads on the corpus are
#: 10-90 characters; longer band lines are body text that starts high).
BAND_MAX_CHARS = 100
#: At least this many unexplained band lines make the page uncertain.
MIN_UNMATCHED_BAND_LINES = 1

_PAGE_NUMBER = re.compile(
    r"(?i)^\s*(?:page\s+)?(?:[-–—]\s*)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*[-–—])?"
    r"(?:\s*(?:/|of)\s*\d{1,4})?\s*$"
)
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class BandLine:
    """A line of the page's top or bottom band: its text and which band."""

    text: str
    top: bool


@dataclass(frozen=True, slots=True)
class StructureSignals:
    """What the text-layer path already knows of a page, as the decision needs it."""

    order: ReadingOrder
    aligned_confidences: tuple[float, ...] = ()  # the page's aligned tables
    ruled_tables: int = 0
    gapped_rows: int = 0  # rows cut by TABLE_ROW_GAPS wide gaps, outside every table found
    band_lines: tuple[BandLine, ...] = ()
    # The page has visible text of its own: not empty, not an image under an OCR layer (invisible text or
    # an OCR engine's font), whose structure is the OCR stage's business, not the text layer's.
    text_layer: bool = True


@dataclass(frozen=True, slots=True)
class Decision:
    """A page's structure: certain or not, by which source, and the signals that made it uncertain."""

    certain: bool
    source: str  # a StructureSource value
    reasons: tuple[str, ...] = ()


def band_key(text: str) -> str:
    """A band line as it repeats across pages: whitespace folded, numbers as one placeholder."""
    return _DIGITS.sub("#", " ".join(text.split())).lower()


def decide(signals: StructureSignals, repeated: Counter[str], tagged: bool = False) -> Decision:
    """Decide a page's structure from its signals; ``repeated`` counts each band key over the document's
    pages (a line on two pages or more is a running head the repetition rule takes)."""
    if tagged:
        return Decision(True, StructureSource.TAGGED.value)
    if not signals.text_layer:
        return Decision(True, StructureSource.RULE.value)
    reasons: list[str] = []
    if any(c < MIN_ALIGNED_CONFIDENCE for c in signals.aligned_confidences):
        reasons.append("table:aligned_low")
    if (
        signals.gapped_rows >= MIN_REJECTED_ROWS
        and not signals.aligned_confidences
        and not signals.ruled_tables
    ):
        reasons.append(f"table:rejected_rows={signals.gapped_rows}")
    order = signals.order
    if order.confidence < MIN_ORDER_CONFIDENCE:
        reasons.append(f"order:confidence={order.confidence}")
    if order.columns > 1 and order.broken_seams >= MIN_COLUMN_SEAMS:
        reasons.append(f"columns={order.columns}:broken_seams={order.broken_seams}")
    unmatched = [
        line
        for line in signals.band_lines
        if not _PAGE_NUMBER.fullmatch(line.text) and repeated[band_key(line.text)] < 2
    ]
    if len(unmatched) >= MIN_UNMATCHED_BAND_LINES:
        reasons.append(f"bands:unmatched={len(unmatched)}")
    return Decision(not reasons, StructureSource.RULE.value, tuple(reasons))


def band_lines(lines: Sequence[tuple[str, float, float]], height: float) -> tuple[BandLine, ...]:
    """The short lines (text, top, bottom) standing wholly in the page's top or bottom band."""
    if height <= 0:
        return ()
    top, bottom = BAND_SHARE * height, (1 - BAND_SHARE) * height
    out: list[BandLine] = []
    for text, y0, y1 in lines:
        stripped = text.strip()
        if not stripped or len(stripped) > BAND_MAX_CHARS:
            continue
        if y1 <= top:
            out.append(BandLine(stripped, True))
        elif y0 >= bottom:
            out.append(BandLine(stripped, False))
    return tuple(out)
