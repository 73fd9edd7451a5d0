"""The prose gate: which blocks of a page are running body text, the only text a lexicon judges fairly.

A lexicon hit rate is a fair test only of prose: tables, code, references, formulas, running heads,
figure labels and captions are full of numbers, names, abbreviations and identifiers that no 20k word
list holds, and would drag a clean page's hit rate down to where garbage lives. So the hit rate counts
only blocks that pass every one of these conditions (a conjunction: one failure is enough, and the
verdict names every failure so that a threshold can be audited):

- ``lines``: at least :data:`MIN_LINES` lines (a heading or a label is one line), or one line of at
  least :data:`MIN_SINGLE_LINE_TOKENS` tokens;
- ``tokens_per_line``: the median line (the last line of a paragraph left out) holds at least
  :data:`MIN_TOKENS_PER_LINE` whitespace tokens (table rows and lists of terms hold fewer);
- ``letter_ratio``: letters are at least :data:`MIN_LETTER_RATIO` of the non-whitespace characters
  (numbers, formulas, code);
- ``margin``: the lines share one margin: left edges agree within :data:`MARGIN_TOLERANCE_EM` of the
  font size, a paragraph's first line may be indented by up to :data:`MAX_FIRST_LINE_INDENT_EM`;
  right-aligned edges (right-to-left scripts) count as one margin too. Centred text and hanging lists
  fail;
- ``gutter``: no gap wider than :data:`GUTTER_EM` between consecutive spans of a line (two columns or a
  table read as one line);
- ``monospaced``: at most :data:`MAX_MONOSPACED_SHARE` of the characters in a monospaced font (code);
- ``body_size``: the block's median font size within :data:`BODY_SIZE_BAND` of the page's body size
  (headings, footnotes, captions at other sizes); skipped when the body size is unknown;
- ``running_band``: the block is not wholly inside the top or bottom :data:`RUNNING_BAND` of the page
  (running heads and feet, page numbers); skipped when the page height is unknown;
- ``figure``: the block is not inside a figure box (at least :data:`FIGURE_OVERLAP` of its area). The
  caller passes figures, not every image: a page-sized scan under an OCR layer is the page itself.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
import re
import statistics
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import regex

from readers.core.model import BBox, Block, Line

#: A paragraph of one line cannot be told from a heading, a label or a table row. Two lines keep short
#: paragraphs of narrow columns (a two-column page's paragraphs are often 2-4 lines).
MIN_LINES = 2
#: A one-line block still counts as lines enough when it holds this many tokens: readers cut a
#: paragraph's last line or a one-sentence paragraph into a block of its own (on the corpus's German
#: thesis 883 blocks failed on ``lines`` alone, most of them full sentences); headings, labels and
#: table rows hold fewer.
MIN_SINGLE_LINE_TOKENS = 10
#: Median tokens per line. Body lines hold 10-16 words in one column and 5-9 in two columns (LaTeX
#: two-column, 8.5 cm column at 10 pt); table rows and reference lists on the corpus hold 1-4 tokens
#: per MuPDF line (MuPDF cuts a table row at each cell). 5 keeps narrow-column prose.
MIN_TOKENS_PER_LINE = 5
#: Letters over non-whitespace characters. Prose is 0.85-0.97 (punctuation and the odd number);
#: numeric tables, formulas and code fall well below. 0.7 keeps prose that quotes figures ("In 2019,
#: 45% of 1,200 respondents ...") and letter-garbled text (still letters), drops number-heavy text.
MIN_LETTER_RATIO = 0.7
#: Left edges of a paragraph's lines agree within this many font sizes (ems). Justified prose agrees
#: within a fraction of a point; an opening quote or italic overhang shifts a line by ~0.3 em.
MARGIN_TOLERANCE_EM = 0.5
#: The first line may start up to this many ems right of the margin (paragraph indent: LaTeX 1.5 em,
#: word processors 1.27 cm = 3.6 em at 10 pt).
MAX_FIRST_LINE_INDENT_EM = 4.0
#: A line that stops more than this many ems short of the block's right edge ends a paragraph, so the
#: next line may be indented (a justified line ends within a fraction of an em of the edge).
PARAGRAPH_END_EM = 2.0
#: A gap of more than this many ems between two spans (or two reader lines on one baseline) is a
#: column gutter or a table cell gap. On the corpus the widest gap in blocks that pass every other
#: condition is 1.4 em (loose justified lines, spaced math); tables, definition lists and two columns
#: read as one line start at 1.5 em and reach 7.
GUTTER_EM = 1.5
#: Share of characters in a monospaced font above which a block is code or a terminal listing.
MAX_MONOSPACED_SHARE = 0.5
#: The block's median size over the page's body size must lie in this band. Running heads and author
#: lines sit at 1.05-1.14 of the body, headings at 1.15 and up (readers/pdf/mupdf.py calibration);
#: footnotes and small captions at 0.8 and below. Abstracts and captions at 0.9 stay prose.
BODY_SIZE_BAND = (0.85, 1.15)
#: Top and bottom share of the page height holding running heads and feet. A 1-inch margin on US Letter
#: is 9% of the height, a 2.5 cm margin on A4 8.4%; running heads sit inside it, body text below it.
RUNNING_BAND = 0.08
#: A block is inside a figure when this share of its area lies in one figure box (labels of a chart).
FIGURE_OVERLAP = 0.9

#: Font names of monospaced families, for readers that do not set :attr:`Span.monospaced`.
_MONO_NAME = re.compile(r"mono|courier|consol|menlo|typewriter|cmtt|sftt|lmmono|inconsolata|fixed", re.I)
_MARK = regex.compile(r"\p{M}")


def non_blank(text: str) -> int:
    """Characters of ``text`` that are not whitespace: ``len("".join(text.split()))`` without the copies.

    Every whitespace character but the blank is unprintable, so a printable text's only whitespace is
    its blanks.
    """
    if text.isprintable():
        return len(text) - text.count(" ")
    return len("".join(text.split()))


def count_letters(text: str) -> int:
    """Letters and combining marks (Indic vowel signs are marks, and letters of their word)."""
    letters = sum(map(str.isalpha, text))
    return letters if text.isascii() else letters + len(_MARK.findall(text))


CONDITIONS = (
    "lines",
    "tokens_per_line",
    "letter_ratio",
    "margin",
    "gutter",
    "monospaced",
    "body_size",
    "running_band",
    "figure",
)


@dataclass(frozen=True, slots=True)
class ProseVerdict:
    """Whether a block is prose, and which conditions (names from :data:`CONDITIONS`) it failed."""

    passed: bool
    failed: tuple[str, ...]


@functools.lru_cache(maxsize=4096)
def is_mono_font(font: str) -> bool:
    """The font's name is a monospaced family's (code listings, typewriter text)."""
    return bool(_MONO_NAME.search(font))


@dataclass(slots=True)
class _VisualLine:
    """Reader lines that sit side by side on one baseline, joined: what a reader of the page sees.

    MuPDF cuts a visual line in two at a wide gap ("facto method.   In this work" in a justified
    abstract; every cell of a table row), so the geometry conditions judge visual lines.
    """

    x0: float
    y0: float
    x1: float
    y1: float
    tokens: int
    lines: list[Line]  # the reader lines joined, left to right
    join_gap: float  # widest gap between two joined reader lines (-inf: one reader line)

    def widest_gap(self) -> float:
        """The widest horizontal gap between consecutive spans or joined lines. Asked only of blocks that
        pass the cheaper conditions (most fail on ``lines`` or ``tokens_per_line``), so it is measured
        then: the gate over the born-digital pages' blocks takes 0.94 of the time it took with every
        line's gaps measured up front."""
        widest = self.join_gap
        for line in self.lines:
            spans = line.spans
            gap = 0.0
            if len(spans) > 1:
                boxes = [span.bbox for span in spans if not span.text.isspace() and span.text]
                if len(boxes) > 1:
                    boxes.sort(key=_LEFT)
                    gap = max([b[0] - a[2] for a, b in itertools.pairwise(boxes)])
            if gap > widest:
                widest = gap
        return widest


_LEFT = operator.itemgetter(0)


def _visual_lines(block: Block) -> list[_VisualLine]:
    out: list[_VisualLine] = []
    for line in block.lines:
        x0, y0, x1, y1 = line.bbox
        spans = line.spans
        if len(spans) > 1:
            tokens = len("".join([span.text for span in spans]).split())
        else:
            tokens = len(spans[0].text.split()) if spans else 0
        if out:
            last = out[-1]
            if last.y0 <= (y0 + y1) / 2 <= last.y1 and x0 >= last.x1 - 1.0:
                last.join_gap = max(last.join_gap, x0 - last.x1)
                last.x1 = max(last.x1, x1)
                last.tokens += tokens
                last.lines.append(line)
                continue
        out.append(_VisualLine(x0, y0, x1, y1, tokens, [line], -math.inf))
    return out


def _one_margin(lines: list[_VisualLine], size: float) -> bool:
    """Left edges agree, allowing paragraph indents; or right edges agree (right-aligned text).

    A line may start up to :data:`MAX_FIRST_LINE_INDENT_EM` right of the margin when it opens a
    paragraph: it is the block's first line, or the line before it stops short of the block's right
    edge (readers often put several paragraphs in one block). A hanging indent (a list item's wrapped
    lines) or centred lines fail.
    """
    if len(lines) < 2:
        return True
    tolerance = MARGIN_TOLERANCE_EM * size
    indent = MAX_FIRST_LINE_INDENT_EM * size
    right_edge = max(line.x1 for line in lines)
    left = min(line.x0 for line in lines)
    left_aligned = True
    for number, line in enumerate(lines):
        offset = line.x0 - left
        if offset <= tolerance:
            continue
        opens = number == 0 or right_edge - lines[number - 1].x1 > PARAGRAPH_END_EM * size
        if not (opens and offset <= indent):
            left_aligned = False
            break
    if left_aligned:
        return True
    rights = [line.x1 for line in lines[:-1]]
    right = statistics.median(rights)
    return all(abs(x - right) <= tolerance for x in rights) and lines[-1].x1 <= right + tolerance


def _area(box: BBox) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def _inside_figure(box: BBox, figures: Iterable[BBox]) -> bool:
    area = _area(box)
    for fig in figures:
        overlap = (
            max(0.0, min(box[2], fig[2]) - max(box[0], fig[0])),
            max(0.0, min(box[3], fig[3]) - max(box[1], fig[1])),
        )
        inter = overlap[0] * overlap[1]
        if area > 0 and inter >= FIGURE_OVERLAP * area:
            return True
        if area == 0 and fig[0] <= box[0] <= fig[2] and fig[1] <= box[1] <= fig[3]:
            return True
    return False


def block_text(block: Block) -> str:
    """The block's text, one line per line (the text the lexicon tokenises)."""
    return "\n".join([line.text for line in block.lines])


def prose_verdict(
    block: Block,
    *,
    body_size: float | None,
    page_height: float,
    figure_boxes: Sequence[BBox] = (),
) -> ProseVerdict:
    """Judge one block against every condition of the gate (see the module docstring); the failed
    conditions are named in :data:`CONDITIONS` order."""
    failed = sorted(_failures(block, body_size, page_height, figure_boxes), key=CONDITIONS.index)
    return ProseVerdict(not failed, tuple(failed))


def is_prose(
    block: Block, *, body_size: float | None, page_height: float, figure_boxes: Sequence[BBox] = ()
) -> bool:
    """``prose_verdict(...).passed``, stopping at the first condition that fails: the signals ask it of
    every block of every page, and most blocks (headings, labels, table cells) fail a cheap one."""
    return next(_failures(block, body_size, page_height, figure_boxes), None) is None


def _failures(
    block: Block, body_size: float | None, page_height: float, figure_boxes: Sequence[BBox]
) -> Iterator[str]:
    """The conditions the block fails, the cheapest tested first."""
    if page_height > 0:
        top, bottom = block.bbox[1], block.bbox[3]
        if bottom <= RUNNING_BAND * page_height or top >= (1.0 - RUNNING_BAND) * page_height:
            yield "running_band"
    if figure_boxes and _inside_figure(block.bbox, figure_boxes):
        yield "figure"
    lines = _visual_lines(block)
    if len(lines) < MIN_LINES and not (len(lines) == 1 and lines[0].tokens >= MIN_SINGLE_LINE_TOKENS):
        yield "lines"
    counted = lines[:-1] if len(lines) > 1 else lines
    if not counted or statistics.median(line.tokens for line in counted) < MIN_TOKENS_PER_LINE:
        yield "tokens_per_line"
    chars = mono = 0
    sized: dict[float, int] = {}  # visible characters per span size
    for line in block.lines:
        for span in line.spans:
            text = span.text
            visible = non_blank(text)
            if not visible:
                continue
            chars += visible
            if span.monospaced or is_mono_font(span.font):
                mono += visible
            size = span.size
            sized[size] = sized.get(size, 0) + visible
    size = _weighted_median(list(sized.items())) if sized else 0.0
    if body_size and body_size > 0:
        low, high = BODY_SIZE_BAND
        if not low * body_size <= size <= high * body_size:
            yield "body_size"
    if chars and mono > MAX_MONOSPACED_SHARE * chars:
        yield "monospaced"
    em = size if size > 0 else 10.0  # a block with no sizes: judge geometry as if at 10 pt
    if any(line.widest_gap() > GUTTER_EM * em for line in lines):
        yield "gutter"
    if not _one_margin(lines, em):
        yield "margin"
    if not chars or count_letters(block_text(block)) < MIN_LETTER_RATIO * chars:
        yield "letter_ratio"


def _weighted_median(pairs: list[tuple[float, int]]) -> float:
    """Median of values weighted by counts (the size most of the block's characters are set in)."""
    pairs = sorted(pairs)
    half = sum(weight for _, weight in pairs) / 2.0
    running = 0
    for value, weight in pairs:
        running += weight
        if running >= half:
            return value
    return pairs[-1][0]
