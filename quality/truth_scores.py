"""How close a text, or a table found, is to its truth: the measures ``assay eval`` reports.

- **Words** (:func:`text_score`): the text and its truth cut into words (runs of letters, marks and digits;
  each Han, kana or Hangul character on its own, since those scripts write no spaces), composed (NFC) and
  case-folded. Precision and recall count the words both hold (as multisets), F1 joins them. **Order** is
  the longest common subsequence of the two word sequences over the words they share: 1 when every shared
  word comes in the truth's order, lower when columns are interleaved or lines reversed.
- **Table cells** (:func:`table_score`): the expected grid's non-empty cells against the found table's,
  compared with all whitespace taken out (a cell's line breaks are the reference tool's, not the page's).
  A body cell is **kept under its header** when the found table holds the expected header cell above that
  cell in the same column. The expected header row is the grid's first row that is not a title: the
  reference tools keep a table's title or caption as a leading row of one cell (:func:`header_row`). A
  header the reference tool split over several rows is kept when the found header cell begins with the
  expected one (its first line): one header cell set over two lines is one cell of the found table.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import regex
from rapidfuzz.distance import LCSseq

_WORD = regex.compile(
    r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]|[\p{L}\p{M}\p{N}--\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]+",
    regex.V1,
)
_MARKUP = regex.compile(r"</?s>")


def words(text: str) -> list[str]:
    """The words of ``text`` as the word measures count them (module docstring)."""
    return _WORD.findall(unicodedata.normalize("NFC", text).casefold())


@dataclass(frozen=True)
class TextScore:
    """A text against its truth: word counts and the order of the words both hold."""

    truth_words: int
    text_words: int
    common: int
    in_order: int

    @property
    def precision(self) -> float:
        return self.common / self.text_words if self.text_words else float(not self.truth_words)

    @property
    def recall(self) -> float:
        return self.common / self.truth_words if self.truth_words else float(not self.text_words)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def order(self) -> float:
        return self.in_order / self.common if self.common else 0.0


def text_score(truth: str, text: str) -> TextScore:
    expected, found = words(truth), words(text)
    common = sum((Counter(expected) & Counter(found)).values())
    in_order = int(LCSseq.similarity(expected, found)) if common else 0
    return TextScore(len(expected), len(found), common, in_order)


#: A letter of a right-to-left script.
_RTL_LETTER = regex.compile(r"[\p{Script=Arabic}\p{Script=Hebrew}--\p{N}]", regex.V1)


def cell_key(cell: str) -> str:
    """A cell as cells are compared: composed, the reference tools' ``<s>`` marks and all whitespace out.

    A cell holding right-to-left letters is compared by its characters alone, in any order, after NFKC:
    the reference tools write such cells in the order they were drawn (pdfminer's visual order of
    presentation forms in camelot's grid, parentheses mirrored in tabula's), not in reading order."""
    text = "".join(_MARKUP.sub("", unicodedata.normalize("NFC", cell)).split())
    if _RTL_LETTER.search(text):
        return "".join(sorted("".join(unicodedata.normalize("NFKC", text).split())))
    return text


@dataclass(frozen=True)
class TableScore:
    """An expected table against the table found for it (``found_cells`` 0 when none was)."""

    expected_cells: int
    found_cells: int
    matched: int
    headed_cells: int
    kept_under_header: int

    def __add__(self, other: TableScore) -> TableScore:
        return TableScore(
            self.expected_cells + other.expected_cells,
            self.found_cells + other.found_cells,
            self.matched + other.matched,
            self.headed_cells + other.headed_cells,
            self.kept_under_header + other.kept_under_header,
        )

    @property
    def recall(self) -> float:
        return self.matched / self.expected_cells if self.expected_cells else 0.0

    @property
    def precision(self) -> float:
        return self.matched / self.found_cells if self.found_cells else 0.0

    @property
    def header_kept(self) -> float:
        return self.kept_under_header / self.headed_cells if self.headed_cells else 0.0


#: Nothing expected, nothing found: what scores are summed from.
NO_TABLE = TableScore(0, 0, 0, 0, 0)


def table_score(expected: Sequence[Sequence[str]], found: Sequence[Sequence[str]] | None) -> TableScore:
    """``found`` (a grid, or None when no table was found) scored against the ``expected`` grid."""
    want = [[cell_key(c) for c in row] for row in expected]
    have = [[cell_key(c) for c in row] for row in found or ()]
    want_cells = Counter(c for row in want for c in row if c)
    have_cells = Counter(c for row in have for c in row if c)
    matched = sum((want_cells & have_cells).values())
    top = header_row(want)
    headers = want[top] if want else []
    headed = kept = 0
    for row in want[top + 1 :]:
        for column, value in enumerate(row):
            if not value or column >= len(headers) or not headers[column]:
                continue
            headed += 1
            kept += _under(have, headers[column], value)
    return TableScore(sum(want_cells.values()), sum(have_cells.values()), matched, headed, kept)


#: A leading row of an expected grid with at most this many non-empty cells, in a grid of three columns or
#: more, is a title or caption the reference tool kept as a row (camelot's hybrid and stream grids).
TITLE_ROW_CELLS = 1


def header_row(grid: Sequence[Sequence[str]]) -> int:
    """The index of ``grid``'s header row: its first row that is not a title (one cell in a wide grid);
    0 when every row is, or the grid is narrow."""
    if max((len(row) for row in grid), default=0) < 3:
        return 0
    for index, row in enumerate(grid):
        if sum(1 for cell in row if cell) > TITLE_ROW_CELLS:
            return index
    return 0


def _under(grid: list[list[str]], header: str, value: str) -> bool:
    """Whether some column of ``grid`` holds ``header`` (or a header cell beginning with it) in a row
    above one that holds ``value``."""
    for top, row in enumerate(grid):
        for column, cell in enumerate(row):
            if not cell.startswith(header):
                continue
            if value in cell[len(header) :]:
                return True  # the header's second line, joined to its first in one found cell
            if any(column < len(below) and below[column] == value for below in grid[top + 1 :]):
                return True
    return False


def best_table(
    expected: Sequence[Sequence[str]], candidates: Sequence[Sequence[Sequence[str]]]
) -> TableScore:
    """The score of the candidate (the tables found on the expected table's page) that matches most of its
    cells; the expected table's own counts, nothing found, when there is none."""
    scores = [table_score(expected, c) for c in candidates]
    if not scores:
        return table_score(expected, None)
    return max(scores, key=lambda s: (s.matched, s.kept_under_header, -s.found_cells))
