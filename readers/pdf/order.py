"""The reading order of a page's text blocks: the producer's, top to bottom, or column by column.

MuPDF reports a page's blocks in the order the producer drew them. That is the reading order for most
born-digital pages, but not for a page whose producer drew the right column first, a scan's OCR layer laid
out in the order of detection, or a form filled in field by field. Three candidate orders are compared:

- ``native``: the blocks as MuPDF reports them;
- ``rows``: top to bottom, then left to right;
- ``columns``: the page cut into horizontal bands at the gaps that run across the whole page, consecutive
  bands with the same gutters (vertical gaps found by projecting the blocks' boxes on the x axis) taken
  as one stretch of columns, and each stretch read column by column, left to right (``columns_rtl``:
  right to left, where the page's letters are mostly of a right-to-left script).

Each candidate's **broken seams** are counted: consecutive blocks where a sentence breaks off (the first
block ends inside a sentence) without the next going on with it (it starts a new sentence), or where the
next block goes on with a sentence (it starts in lower case) the first did not leave open; a seam next to
a label (a heading, a caption: one short line) is not judged. The order with the fewest broken seams
wins: where the layout has columns, the column order stands when it breaks no more seams than the
producer's (the geometry decides a tie: a producer that drew the right column first breaks no seam doing
so); otherwise the native order keeps the page unless another has at least :data:`MIN_SEAM_GAIN` fewer
and at most :data:`MAX_SEAM_SHARE` of its broken seams. Its confidence is the share of its judged seams
that are whole (1 when none can be judged).

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from readers.core.model import OrderSource, ReadingOrder
from readers.pdf.bidi import RTL_LINE_SHARE, rtl_share

# --- thresholds -------------------------------------------------------------------------------------

#: A vertical gap between blocks at least this wide (points) may be a gutter between columns: calibrated
#: on the corpus's multi-column PDFs (gutters 10-36 pt); a column's own blocks overlap on the x axis.
MIN_GUTTER = 6.0
#: A column holds at least this share of the page's width (three columns of a Letter page are 0.3 each;
#: the cells of a table without rules are narrower and not columns of text).
MIN_COLUMN_SHARE = 0.15
#: A block of one line of at most this many words is a label (a heading, a caption, a page number):
#: LaTeX and Word headings on the corpus are 1-10 words.
LABEL_MAX_WORDS = 12
#: A column of text holds at least this many lines; narrower stacks side by side are a figure's labels,
#: a form's fields or a table's cells (a thesis's figure labels: 1-4 lines a stack).
MIN_COLUMN_LINES = 6
#: Another order replaces the producer's only with at least this many fewer broken seams, and at most
#: MAX_SEAM_SHARE of the producer's: on the corpus's born-digital PDFs the producer's order is right on
#: all but a handful of pages, and a seam is misjudged now and then (a formula, a code line, a list item
#: ending without a stop), so a difference of one seam is noise; a page drawn column by column in the
#: wrong order breaks a seam at every column.
MIN_SEAM_GAIN = 2
MAX_SEAM_SHARE = 0.5
#: A page wider than high, cut down its middle by a gap at least this share of its width that no text
#: crosses, is a spread of two pages (two A4 pages on one A3 sheet: a gap of 0.14; a two-column page's
#: gutter is at most 0.06 of a landscape Letter page).
SPREAD_MIN_GAP = 0.08
#: Lines within this many points of height start level, a row of a table or a form; blocks cut at a gutter
#: are columns only where at most MAX_ROW_SHARE of their lines start level with a line across it (two
#: columns drawn across the page in turn: 8 of 58 lines, a small table's rows).
ROW_LEVEL = 1.0
MAX_ROW_SHARE = 0.5
#: The bottom band of a page, as a share of its height, where a running footer stands (the band the page
#: structure decision looks at: readers/pdf/certainty.py).
FOOTER_BAND = 0.08
#: The native order's confidence when it is the only order there is (a single block, or no columns and
#: rows that agree with it).
SINGLE_ORDER_CONFIDENCE = 1.0

_TERMINAL = frozenset(".!?:;)]}\"'”’»…。！？")


@dataclass(frozen=True, slots=True)
class OrderBlock:
    """What the order needs of a text block: its box, and the first and last characters of its text."""

    bbox: tuple[float, float, float, float]
    first: str  # the block's text, its first line
    last: str  # its last line
    lines: int = 2

    @property
    def label(self) -> bool:
        """A heading, a caption or a page number: one short line. Seams next to it are not judged, since
        a heading neither ends a sentence nor is continued."""
        return self.lines == 1 and len(self.first.split()) <= LABEL_MAX_WORDS


@dataclass(frozen=True, slots=True)
class Ordered:
    """The blocks' reading order (a permutation of their indexes) and what the page records of it."""

    permutation: tuple[int, ...]
    order: ReadingOrder


def reading_order(blocks: Sequence[OrderBlock], page_width: float, page_height: float = 0.0) -> Ordered:
    """Choose the order of ``blocks`` (in the producer's order) on a page ``page_width`` wide (and
    ``page_height`` high: a page wider than high may be a spread of two pages, read one after the other)."""
    halves = _spread(blocks, page_width) if page_width > page_height > 0 else None
    if halves is not None:
        spread = _read_spread(blocks, page_width, halves)
        if spread.order.broken_seams <= broken_seams(blocks, range(len(blocks))):
            return spread
    n = len(blocks)
    if n == 0:
        return Ordered((), ReadingOrder(OrderSource.NONE.value, 0.0, 0, 1))
    native = tuple(range(n))
    if n == 1:
        return Ordered(native, ReadingOrder(OrderSource.NATIVE.value, SINGLE_ORDER_CONFIDENCE, 0, 1))
    rows = tuple(sorted(native, key=lambda i: (round(blocks[i].bbox[1]), blocks[i].bbox[0])))
    columns, count = _columns(blocks, page_width, rtl=False)
    # The script decides the columns' direction only where there are columns: one pass over the text then.
    rtl = count > 1 and _right_to_left(blocks)
    if rtl:
        columns, count = _columns(blocks, page_width, rtl=True)
    ends = _Ends.of(blocks)
    seams = {
        OrderSource.NATIVE: ends.broken(native),
        OrderSource.ROWS: ends.broken(rows),
    }
    orders = {OrderSource.NATIVE: native, OrderSource.ROWS: rows}
    column_source = OrderSource.COLUMNS_RTL if rtl else OrderSource.COLUMNS
    if count > 1:
        orders[column_source] = columns
        seams[column_source] = ends.broken(columns)
    chosen = OrderSource.NATIVE
    native_seams = seams[OrderSource.NATIVE]
    if count > 1 and seams[column_source] <= native_seams:
        # Columns found by the layout, read with no more broken seams than the producer's order: the
        # geometry decides (a producer that drew the right column first breaks no seam doing so).
        chosen = column_source
    elif seams[OrderSource.ROWS] <= min(native_seams - MIN_SEAM_GAIN, MAX_SEAM_SHARE * native_seams):
        chosen = OrderSource.ROWS
    elif seams[OrderSource.ROWS] <= native_seams and _climbs(blocks, native, page_height):
        # The producer's order goes back up the page over text it has read (a title or a table's caption
        # drawn last, a form filled field by field), and top to bottom breaks no more seams: rows.
        chosen = OrderSource.ROWS
    elif (
        count > 1
        and seams[column_source] <= native_seams - MIN_SEAM_GAIN
        and seams[column_source] <= MAX_SEAM_SHARE * native_seams
    ):
        chosen = column_source
    broken = seams[chosen]
    labels = ends.labels
    judged = sum(1 for a, b in pairwise(orders[chosen]) if not (labels[a] or labels[b]))
    confidence = 1.0 - broken / judged if judged else SINGLE_ORDER_CONFIDENCE
    return Ordered(orders[chosen], ReadingOrder(chosen.value, round(confidence, 4), broken, count))


def _spread(blocks: Sequence[OrderBlock], page_width: float) -> tuple[list[int], list[int]] | None:
    """The blocks of the left and the right page of a spread: a gap of at least :data:`SPREAD_MIN_GAP` of
    the page's width, holding its middle, that no block crosses, with a column's lines on either side."""
    middle = page_width / 2
    left = [i for i, b in enumerate(blocks) if b.bbox[2] <= middle]
    right = [i for i, b in enumerate(blocks) if b.bbox[0] >= middle]
    if len(left) + len(right) < len(blocks) or not left or not right:
        return None
    gap = min(blocks[i].bbox[0] for i in right) - max(blocks[i].bbox[2] for i in left)
    lines = min(sum(blocks[i].lines for i in left), sum(blocks[i].lines for i in right))
    if gap < SPREAD_MIN_GAP * page_width or lines < MIN_COLUMN_LINES:
        return None
    return left, right


def _read_spread(
    blocks: Sequence[OrderBlock], page_width: float, halves: tuple[list[int], list[int]]
) -> Ordered:
    """A spread read page by page, each page in its own order; its seams and confidence over the whole.
    It stands where it breaks no more seams than the producer's order."""
    permutation: list[int] = []
    for half in halves:
        ordered = reading_order([blocks[i] for i in half], page_width / 2)
        permutation.extend(half[i] for i in ordered.permutation)
    ends = _Ends.of(blocks)
    broken = ends.broken(permutation)
    labels = ends.labels
    judged = sum(1 for a, b in pairwise(permutation) if not (labels[a] or labels[b]))
    confidence = 1.0 - broken / judged if judged else SINGLE_ORDER_CONFIDENCE
    order = ReadingOrder(OrderSource.COLUMNS.value, round(confidence, 4), broken, 2)
    return Ordered(tuple(permutation), order)


def column_pieces(
    boxes: Sequence[tuple[float, float, float, float]], page_width: float, gutters: Sequence[float] = ()
) -> list[list[int]]:
    """A block's lines (by their boxes) cut at the vertical gaps that could be gutters between columns.

    MuPDF makes one block of two columns whose lines a producer drew across the page in turn, left line,
    right line; read as a block, the columns' lines interleave. A block is cut at a
    gap of at least :data:`MIN_GUTTER` no line spans, where the parts on both sides are each at least
    :data:`MIN_COLUMN_SHARE` of the page wide (narrower parts are a table's or a form's cells: they stay
    with their neighbour), or at a gap that holds one of ``gutters`` (the page's gutters, found in its
    other blocks: a column's last line, "procedure.", is narrow). The pieces are left to right, each with
    its lines' indexes in their order; one piece (every line) where no gap cuts the block.
    """
    spans = sorted(range(len(boxes)), key=lambda i: boxes[i][0])
    clusters: list[list[float]] = []  # [x0, x1] of lines overlapping or closer than a gutter
    for i in spans:
        x0, x1 = boxes[i][0], boxes[i][2]
        if clusters and x0 < clusters[-1][1] + MIN_GUTTER:
            clusters[-1][1] = max(clusters[-1][1], x1)
        else:
            clusters.append([x0, x1])
    min_width = MIN_COLUMN_SHARE * page_width
    cuts: list[float] = []  # x of each cut: the left edge of the piece to its right
    start = clusters[0][0] if clusters else 0.0
    for left, right in pairwise(clusters):
        wide = left[1] - start >= min_width and clusters[-1][1] - right[0] >= min_width
        if wide or any(left[1] < g < right[0] for g in gutters):
            cuts.append(right[0])
            start = right[0]
    if not cuts:
        return [list(range(len(boxes)))]
    edges = [float("-inf"), *cuts, float("inf")]
    pieces = [
        [i for i in range(len(boxes)) if edges[p] <= boxes[i][0] < edges[p + 1]] for p in range(len(cuts) + 1)
    ]
    return [piece for piece in pieces if piece]


def piece_gutters(
    boxes: Sequence[tuple[float, float, float, float]], pieces: Sequence[Sequence[int]]
) -> list[float]:
    """The middles of the gaps between a block's pieces (see column_pieces)."""
    return [
        (max(boxes[i][2] for i in left) + min(boxes[i][0] for i in right)) / 2
        for left, right in pairwise(pieces)
    ]


def _climbs(blocks: Sequence[OrderBlock], order: Sequence[int], page_height: float) -> bool:
    """Somewhere ``order`` goes on with a block wholly above the one before it, in the same stretch of the
    page's width (their boxes overlap on the x axis): not a move to the next column, a step back up. A
    step up from the page's bottom band is not one: a producer that draws the running footer first, then
    the body, reads every page so, and the running heads are found by where they stand in its text."""
    floor = (1.0 - FOOTER_BAND) * page_height if page_height > 0 else float("inf")
    for a, b in pairwise(order):
        above, below = blocks[b].bbox, blocks[a].bbox
        if below[1] >= floor:
            continue
        if above[3] <= below[1] and min(above[2], below[2]) > max(above[0], below[0]):
            return True
    return False


def row_pairs(
    boxes: Sequence[tuple[float, float, float, float]], pieces: Sequence[Sequence[int]]
) -> tuple[int, int]:
    """Of the lines of a block's pieces after the first, how many start level with a line of the piece to
    their left (within :data:`ROW_LEVEL` points), and how many there are: a table's or a form's rows."""
    level = total = 0
    for left, right in pairwise(pieces):
        tops = [boxes[i][1] for i in left]
        total += len(right)
        level += sum(1 for i in right if any(abs(boxes[i][1] - top) <= ROW_LEVEL for top in tops))
    return level, total


def broken_seams(blocks: Sequence[OrderBlock], order: Sequence[int]) -> int:
    """Consecutive blocks in ``order`` where a sentence breaks off, or one goes on that was not open."""
    return _Ends.of(blocks).broken(order)


@dataclass(frozen=True, slots=True)
class _Ends:
    """Each block's ends as the seams judge them: a label, left open, going on (by block index).

    Judged once per page, not once per seam of every candidate order: a page's two or three orders
    judge each block four to six times over (~8 ms a pass on the corpus's born-digital pages).
    """

    labels: list[bool]
    opens: list[bool]
    goes_on: list[bool]

    @classmethod
    def of(cls, blocks: Sequence[OrderBlock]) -> _Ends:
        return cls(
            [block.label for block in blocks],
            [_open(block.last) for block in blocks],
            [_continues(block.first) for block in blocks],
        )

    def broken(self, order: Sequence[int]) -> int:
        """The broken seams of ``order`` (see broken_seams)."""
        labels, opens, goes_on = self.labels, self.opens, self.goes_on
        return sum(1 for a, b in pairwise(order) if not (labels[a] or labels[b]) and opens[a] != goes_on[b])


def _open(text: str) -> bool:
    """The text ends inside a sentence: with a letter, a digit, a comma or a hyphen."""
    end = text.rstrip()[-1:]
    return bool(end) and end not in _TERMINAL and (end.isalnum() or end in ",-–")


def _continues(text: str) -> bool:
    """The text goes on with a sentence: it starts in lower case."""
    start = text.lstrip()[:1]
    return start.islower()


def _right_to_left(blocks: Sequence[OrderBlock]) -> bool:
    text = " ".join(b.first + " " + b.last for b in blocks)
    return rtl_share(text) >= RTL_LINE_SHARE


def _columns(blocks: Sequence[OrderBlock], page_width: float, rtl: bool) -> tuple[tuple[int, ...], int]:
    """The column-by-column order and the most columns a stretch of the page has (1: no columns)."""
    bands = _bands(blocks)
    stretches: list[tuple[list[float], list[int]]] = []  # (gutters, blocks) per stretch of bands
    for band in bands:
        gutters = _gutters(blocks, band, page_width)
        if stretches and stretches[-1][0] and not _crosses(blocks, band, stretches[-1][0]):
            stretches[-1][1].extend(band)
        else:
            stretches.append((gutters, list(band)))
    order: list[int] = []
    most = 1
    for gutters, members in stretches:
        edges = [float("-inf"), *gutters, float("inf")]
        columns = [
            [i for i in members if edges[c] <= _centre(blocks[i]) < edges[c + 1]]
            for c in range(len(edges) - 1)
        ]
        if any(sum(blocks[i].lines for i in column) < MIN_COLUMN_LINES for column in columns):
            columns = [members]  # side by side, but not columns of text: a figure's labels, a form
        most = max(most, len(columns))
        if rtl:
            columns.reverse()
        for column in columns:
            order.extend(sorted(column, key=lambda i: (blocks[i].bbox[1], blocks[i].bbox[0])))
    return tuple(order), most


def _centre(block: OrderBlock) -> float:
    return (block.bbox[0] + block.bbox[2]) / 2


def _bands(blocks: Sequence[OrderBlock]) -> list[list[int]]:
    """The blocks cut into horizontal bands at the gaps no block spans, top to bottom."""
    ordered = sorted(range(len(blocks)), key=lambda i: blocks[i].bbox[1])
    bands: list[list[int]] = []
    bottom = float("-inf")
    for i in ordered:
        y0, y1 = blocks[i].bbox[1], blocks[i].bbox[3]
        if bands and y0 < bottom:
            bands[-1].append(i)
            bottom = max(bottom, y1)
        else:
            bands.append([i])
            bottom = y1
    return bands


def _gutters(blocks: Sequence[OrderBlock], band: list[int], page_width: float) -> list[float]:
    """The middles of the vertical gaps that cut a band into columns of text, left to right."""
    spans = sorted((blocks[i].bbox[0], blocks[i].bbox[2]) for i in band)
    merged: list[list[float]] = []
    for x0, x1 in spans:
        if merged and x0 < merged[-1][1] + MIN_GUTTER:
            merged[-1][1] = max(merged[-1][1], x1)
        else:
            merged.append([x0, x1])
    min_width = MIN_COLUMN_SHARE * page_width
    if len(merged) < 2 or any(x1 - x0 < min_width for x0, x1 in merged):
        return []
    return [(a[1] + b[0]) / 2 for a, b in pairwise(merged)]


def _crosses(blocks: Sequence[OrderBlock], band: list[int], gutters: list[float]) -> bool:
    """Some block of the band spans a gutter: the band is not part of that stretch of columns."""
    return any(blocks[i].bbox[0] < g < blocks[i].bbox[2] for i in band for g in gutters)
