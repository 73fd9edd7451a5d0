"""The vocabulary every PDF table finder shares: a table placed in a page's text, its GFM, its header rows,
and the links between a table and its continuation on the next page.

A finder (:mod:`readers.pdf.ruled_tables` for ruled grids, :mod:`readers.pdf.unruled_tables` for tables
aligned by whitespace) gives a :class:`PlacedTable`: the cells as rows of strings, the box, how sure it is and
why, the spans it took out of the flow text (``members``, by ``id()``) and the span where it starts
(``first``), where the reader writes its GFM. :func:`found_tables` numbers a document's tables and links each
one that carries on from the previous page's last table (:func:`continues`).

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from readers.core.model import BBox, FoundTable, PageText, TableSource

#: A table that starts this close to the top of its page (a share of the page's height) may carry on
#: from the previous page, and one that ends this close to the bottom may be carried on: the corpus's
#: split tables sit inside 8% margins; 0.25 leaves room for a running head.
CONTINUATION_BAND = 0.25
#: Column edges of a continued table line up with the previous part's within this many points (snap
#: tolerance of the ruled finder, tripled for aligned columns whose edges are word edges).
CONTINUATION_EDGE_TOLERANCE = 9.0

#: What a finder's confidence means: the share of a found table's cells that are right. Each finder
#: scores its tables (ruled: the share of cells filled; aligned: aligned columns and fill); the score
#: maps to the share of cells right measured at that score by benchmarks/table_finders.py on the 41
#: tables with a text layer of the corpus's tables truth (bands in docs/decisions.md). Floors, highest
#: first; a ruled score under 0.8 (fill under 0.6), where no table of the truth was, is kept as it is.
CALIBRATED_CONFIDENCE: dict[str, tuple[tuple[float, float], ...]] = {
    TableSource.RULED.value: ((0.8, 0.97),),
    TableSource.ALIGNED.value: ((0.9, 0.94), (0.0, 0.81)),
}

#: A header set over this many lines or fewer (a cell "Total / Internal / Debt" over three) is read as one
#: header row: the corpus's multi-line headers take 2-4 lines.
MAX_HEADER_LINES = 4
#: A column is a column of numbers when this share of its filled cells are numbers (its header lines
#: are a few cells against a body of dozens).
NUMERIC_COLUMN_SHARE = 0.5

#: A currency sign set in a cell of its own, apart from its amount ($ 178): it belongs to the amount's cell.
CURRENCY = frozenset("$€£¥")

_YEAR = re.compile(r"(19|20)\d\d")
_NUMBER = re.compile(r"^[\s$€£¥(+\-−–]*\d[\d\s.,'’]*%?\)?[\s*†‡$€£¥]*$")


@dataclass(slots=True)
class PlacedTable:
    """A table found on a page, as data, and where it stands among the page's spans."""

    cells: list[list[str]]  # rows of cell texts, header rows first, every row as long as the widest
    bbox: BBox
    source: str  # a TableSource value
    confidence: float
    evidence: str
    header_rows: int
    members: set[int] = field(default_factory=set)  # id() of the spans that went into the table
    first: int = 0  # id() of the first span in reading order, where the table is placed
    column_edges: tuple[float, ...] = ()  # x of its column borders (for linking a continuation)
    above: set[int] = field(default_factory=set)  # id() of spans read before it (a title taken out of it)
    grid_cells: int = 0  # a ruled table read row by row from stacked lines: its cells as the grid has them

    @property
    def markdown(self) -> str:
        return gfm(self.cells)


def calibrated(source: str, score: float) -> float:
    """The confidence of a table of ``source`` its finder scored ``score``: the share of cells right
    measured at that score (:data:`CALIBRATED_CONFIDENCE`)."""
    for floor, share in CALIBRATED_CONFIDENCE.get(source, ()):
        if score >= floor:
            return share
    return round(score, 4)


def is_number(text: str) -> bool:
    """A cell that reads as a number: 1,234.5, (12), 45%, $ 178, 8 €, -3."""
    return bool(text) and _NUMBER.match(text) is not None


def header_rows(cells: Sequence[Sequence[str]]) -> int:
    """1 when the first row reads as a header, else 0.

    The rule: the first row has no number in a column whose other cells are mostly numbers, and at least
    one such column exists, or no cell of the first row is a number while some later row has one. Years
    over a numeric column (2023 2022 2021) are headers too: a first row whose only numbers are 4-digit
    years, above non-year numbers. A table of words only (no number anywhere) takes its first row as the
    header, as GFM must.
    """
    if len(cells) < 2:
        return 0
    first, rest = cells[0], cells[1:]
    if not any(is_number(c) for row in rest for c in row):
        return 1
    if not any(is_number(c) for c in first if c):
        return 1
    numbers = [c for c in first if is_number(c)]
    if all(_YEAR.fullmatch(c.strip()) for c in numbers) and any(
        is_number(c) and not _YEAR.fullmatch(c.strip()) for row in rest for c in row
    ):  # a label over the labels, years over the numbers
        return 1
    return 0


def one_header(cells: list[list[str]]) -> list[list[str]]:
    """The table with a header set over several lines read as one header row.

    The header lines are those :func:`header_lines` finds; two or more are joined column by column
    ("Total" over "Internal" over "Debt" is "Total Internal Debt"). A table without a column of numbers,
    or whose first row is already in its body, is given back as it is."""
    if len(cells) < 3:
        return cells
    cells = _joined_wraps(cells)
    lines = header_lines(cells)
    if lines is None:
        return cells
    start, end = lines
    width = max(len(row) for row in cells)
    joined = [" ".join(row[c] for row in cells[start:end] if c < len(row) and row[c]) for c in range(width)]
    return [*cells[:start], joined, *cells[end:]]


def header_lines(cells: list[list[str]]) -> tuple[int, int] | None:
    """The rows ``start:end`` of a header set over two to MAX_HEADER_LINES lines, or None.

    They are the rows above the first row holding a number in a column of numbers (years over the
    columns do not count: they head them), not counting a title above them or a group's label under them
    (a row with only its first cell filled)."""
    width = max((len(row) for row in cells), default=0)
    numeric: set[int] = set()
    for column in range(width):
        texts = [row[column] for row in cells if column < len(row) and row[column]]
        if texts and sum(1 for c in texts if is_number(c)) >= NUMERIC_COLUMN_SHARE * len(texts):
            numeric.add(column)
    if not numeric:
        return None
    body = next(
        (
            index
            for index, row in enumerate(cells)
            if any(
                column in numeric and is_number(cell) and not _YEAR.fullmatch(cell.strip())
                for column, cell in enumerate(row)
            )
        ),
        0,
    )
    start, end = 0, body
    while start < end and not any(cells[start][1:]):  # a title over the header
        start += 1
    while end > start and not any(cells[end - 1][1:]):  # a group's label over the body
        end -= 1
    if end - start < 2 or end - start > MAX_HEADER_LINES:
        return None
    return start, end


def _joined_wraps(cells: list[list[str]]) -> list[list[str]]:
    """Rows whose only cell is a first cell going on in lower case from the row above ("Knowledge of the
    school system and" over "education in the partner countries") joined to that row: a row's label
    wrapped onto a second line."""
    out: list[list[str]] = []
    for row in cells:
        first = row[0] if row else ""
        if out and out[-1][0] and first[:1].islower() and not any(row[1:]):
            out[-1] = [f"{out[-1][0]} {first}", *out[-1][1:]]
            continue
        out.append(list(row))
    return out


def gfm(cells: Sequence[Sequence[str]]) -> str:
    """The table as GFM: the first row is GFM's header row (GFM has no table without one, whatever
    ``header_rows`` says), then the separator, then the other rows; pipes in cells are escaped and line
    breaks become blanks."""
    if not cells:
        return ""
    width = max(len(row) for row in cells)

    def line(row: Sequence[str]) -> str:
        padded = [*(_cell(c) for c in row), *([""] * (width - len(row)))]
        return "| " + " | ".join(padded) + " |"

    separator = "| " + " | ".join("---" for _ in range(width)) + " |"
    return "\n".join([line(cells[0]), separator, *map(line, cells[1:])])


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def found_tables(pages: Sequence[tuple[int, float, Sequence[PlacedTable]]]) -> list[list[FoundTable]]:
    """Each page's tables as :class:`FoundTable`, numbered through the document, each linked to the table
    it carries on from. ``pages`` gives, per page, its number, its height and its placed tables, top to
    bottom."""
    out: list[list[FoundTable]] = []
    index = 0
    previous: tuple[PlacedTable, int, float] | None = None  # the previous page's last table
    for number, height, placed in pages:
        found: list[FoundTable] = []
        for position, table in enumerate(placed):
            link = None
            if position == 0 and previous is not None and continues(previous[0], previous[2], table, height):
                link = previous[1]
            found.append(
                FoundTable(
                    page=number,
                    index=index,
                    bbox=table.bbox,
                    cells=tuple(tuple(row) for row in table.cells),
                    header_rows=table.header_rows,
                    markdown=table.markdown,
                    source=table.source,
                    confidence=table.confidence,
                    evidence=table.evidence,
                    continues=link,
                )
            )
            index += 1
        previous = (placed[-1], index - 1, height) if placed else None
        out.append(found)
    return out


def continues(before: PlacedTable, before_height: float, after: PlacedTable, after_height: float) -> bool:
    """``after`` (the first table of a page) carries on ``before`` (the last table of the previous page):
    ``before`` ends in the bottom band of its page, ``after`` starts in the top band of its own, they have
    as many columns, and their column edges line up (or ``after`` repeats ``before``'s header row)."""
    if not (before.cells and after.cells) or len(before.cells[0]) != len(after.cells[0]):
        return False
    if not _across_the_break(before.bbox, before_height, after.bbox, after_height):
        return False
    if _same_header(before, after):
        return True
    a, b = before.column_edges, after.column_edges
    return (
        len(a) == len(b) > 0
        and max(abs(x - y) for x, y in zip(a, b, strict=True)) <= CONTINUATION_EDGE_TOLERANCE
    )


def renumber_tables(pages: Sequence[PageText]) -> list[PageText]:
    """The pages with their tables numbered again through the document, in page order, and each link
    to a continued table following its table's new number (a tagged page replaces the tables found on
    it by its tagged ones, which leaves gaps and repeats in the numbers :func:`found_tables` gave)."""
    new_index: dict[int, int] = {}  # a found (untagged) table's number -> its new number
    count = 0
    out: list[PageText] = []
    previous: tuple[FoundTable, float] | None = None  # the previous page's last table, renumbered
    for page in pages:
        tables: list[FoundTable] = []
        for position, table in enumerate(page.tables):
            tagged = table.source == TableSource.TAGGED.value
            if not tagged:
                new_index[table.index] = count
            link = new_index.get(table.continues) if table.continues is not None else None
            if tagged and position == 0 and previous is not None:
                before, before_height = previous
                if before.source == table.source and _tagged_continues(
                    before, before_height, table, page.facts.height
                ):
                    link = before.index
            tables.append(replace(table, index=count, continues=link))
            count += 1
        previous = (tables[-1], page.facts.height) if tables else None
        out.append(replace(page, tables=tuple(tables)) if page.tables else page)
    return out


def _tagged_continues(
    before: FoundTable, before_height: float, after: FoundTable, after_height: float
) -> bool:
    """:func:`continues` for two tagged tables, which have no column edges: the same number of columns,
    the same bands, and the same left and right sides (or the same header row). A tagged table split by
    page breaks (one table over 16 pages of a tagged report) is one table row by row."""
    if not (before.cells and after.cells) or before.columns != after.columns:
        return False
    if before_height <= 0 or after_height <= 0:
        return False
    if not _across_the_break(before.bbox, before_height, after.bbox, after_height):
        return False
    if _same_header(before, after):
        return True
    return (
        abs(before.bbox[0] - after.bbox[0]) <= CONTINUATION_EDGE_TOLERANCE
        and abs(before.bbox[2] - after.bbox[2]) <= CONTINUATION_EDGE_TOLERANCE
    )


def _across_the_break(
    before: Sequence[float], before_height: float, after: Sequence[float], after_height: float
) -> bool:
    """Whether a table whose box is ``before`` ends in the bottom band of its page and one whose box is
    ``after`` starts in the top band of the next (CONTINUATION_BAND)."""
    return (
        before[3] >= before_height * (1 - CONTINUATION_BAND) and after[1] <= after_height * CONTINUATION_BAND
    )


def _same_header(before: PlacedTable | FoundTable, after: PlacedTable | FoundTable) -> bool:
    """Whether both tables have a header row and it is the same (a header repeated on the next page)."""
    return bool(before.header_rows and after.header_rows and before.cells[0] == after.cells[0])
