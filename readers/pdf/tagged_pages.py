"""Tagged PDFs: the structure tree's reading order, its pagination artifacts and its tables.

A tagged PDF (catalog ``/MarkInfo <</Marked true>>`` and a ``/StructTreeRoot``) says in its structure
tree in which order its marked content reads, which content is page furniture (``/Artifact`` with
``/Type /Pagination``: running heads, footers, page numbers) and which content is a table (``Table``
elements of ``TR`` rows of ``TH``/``TD`` cells). This module reads that, for tagged PDFs only:

- :func:`~readers.pdf.structure_tree.is_tagged` decides it once per document from the catalog (two
  dictionary look-ups, ~50 us on the corpus), so untagged PDFs, nearly all of the corpus, pay nothing else.
- :func:`~readers.pdf.structure_tree.structure_leaves` walks the tree through PyMuPDF's xref access: every
  element is visited once (a cycle or a ``/K`` pointing nowhere ends that branch, not the walk), and each
  marked-content reference (``/MCID``) becomes a :class:`~readers.pdf.structure_tree.Leaf` in the tree's
  order, with its table cell if any.
- Which characters each MCID marks, and which are artifacts, is read through MuPDF by
  readers.pdf.marked_content (~15 ms a dense tagged page), on pages the tree reaches only.
- :func:`tagged_page` puts the page's text (MuPDF's characters: raw, a glyph without Unicode is
  U+FFFD) in the tree's order where the tree covers the page (at least TAGGED_MIN_COVERAGE of its
  visible characters outside artifacts are in content the tree reaches),
  writes each table as GFM where it stands, and lists the pagination artifacts' lines. Every character
  is written once: what the tree does not reach follows, in content order. Otherwise it returns None
  and the page keeps MuPDF's reading.
- :func:`prefer_tagged` is the rule between tables: where a tagged table and a found one overlap, the
  tagged one wins.

A broken tree, a content stream that cannot be scanned or any failure reading it leaves the document
to the untagged reading: the reader must never fail because of its tags.
"""

from __future__ import annotations

import itertools
import operator
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import pymupdf

from readers.core.model import (
    BBox,
    FoundTable,
    OrderSource,
    PageStructure,
    PageText,
    ReadingOrder,
    StructureSource,
    TableSource,
)
from readers.pdf.bidi import RTL_LETTER, RTL_LINE_SHARE, logical_line, rtl_share
from readers.pdf.marked_content import MarkedChar
from readers.pdf.order import OrderBlock, broken_seams
from readers.pdf.placed_tables import gfm
from readers.pdf.structure_tree import Leaf, is_tagged, marked_chars, structure_leaves

#: The tree covers a page when at least this share of its visible characters outside artifacts is in
#: content the tree reaches. On the corpus's 7 tagged PDFs (24 pages), the 5 whose trees reach text cover
#: 100% of all 22 of their pages; 0.9 leaves room for an untagged stamp, not for a missing paragraph.
TAGGED_MIN_COVERAGE = 0.9
#: Two characters stand on one line when their baselines differ by less than this share of the height.
#: On the corpus's 22 tagged pages 99.8% of the words so joined are MuPDF's words for any of 0.3-0.7.
SAME_LINE_SHARE = 0.5
#: A gap wider than this share of the font size between two characters of one line is a space: a
#: quarter em; the same 22 pages draw their spaces, and 0.15-0.35 give the same words.
SPACE_GAP_SHARE = 0.25
#: Two tables overlap when the intersection is at least this share of the smaller one's area: one table
#: found twice shares nearly all its area, neighbours touching at a rule share a sliver.
OVERLAP_SHARE = 0.5

_HEADING = re.compile(r"^H([1-6])$")
_FIRST_RTL = "\u0590"  # no right-to-left script's letters come before Hebrew's block


# A marked character's run of one marked-content state, and its text.
_RUN = operator.itemgetter(6)
_CHAR_TEXT = operator.itemgetter(0)


# --- the page in the tree's order ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TaggedPage:
    """A page read in its structure tree's order: the text, the order, its tables and artifact lines."""

    text: str
    order: ReadingOrder
    tables: tuple[FoundTable, ...]
    artifacts: tuple[str, ...]


def tagged_page(
    leaves: Sequence[Leaf],
    page_xref: int,
    number: int,
    chars: Sequence[MarkedChar],
    found: Sequence[FoundTable] = (),
) -> TaggedPage | None:
    """The page in the tree's order, or None where the tree does not cover it (see module doc). Its
    tables are numbered on the page; the reader numbers a document's tables once they are all known
    (readers.pdf.placed_tables.renumber_tables). On a page whose tree tags no table, the ``found`` tables (the
    finders') are written where their first leaf stands, in place of their leaves' text."""
    mine = [leaf for leaf in leaves if leaf.page == page_xref]
    reached = {leaf.mcid for leaf in mine}
    content = covered = 0
    by_mcid: dict[int, list[MarkedChar]] = {}
    rest: list[MarkedChar] = []  # characters outside artifacts in content the tree does not reach
    furniture: dict[int, list[MarkedChar]] = {}  # pagination artifacts' characters by their run
    # Characters come in runs of one marked-content state: each run is counted and filed at once, and
    # its drawn characters are counted in C (the text of the run without its white space).
    for run_number, run in itertools.groupby(chars, key=_RUN):
        run = list(run)
        _, _, _, mcid, artifact, is_furniture, _ = run[0]
        if artifact:
            if is_furniture:
                furniture.setdefault(run_number, []).extend(run)
            continue
        drawn = len("".join("".join(map(_CHAR_TEXT, run)).split()))
        content += drawn
        if mcid in reached:
            covered += drawn
            by_mcid.setdefault(mcid, []).extend(run)
        else:
            rest.extend(run)
    if not content or not mine:
        return None
    coverage = covered / content
    if coverage < TAGGED_MIN_COVERAGE:
        return None
    parts: list[str] = []
    tables: list[FoundTable] = []
    done: set[int] = set()
    index = 0
    while index < len(mine):
        leaf = mine[index]
        if leaf.table >= 0:
            end = index
            while end < len(mine) and mine[end].table == leaf.table:
                end += 1
            table = _table(mine[index:end], by_mcid, done, number, len(tables), coverage)
            if table is not None:
                tables.append(table)
                parts.append(table.markdown)
            else:
                parts.extend(_blocks(mine[index:end], by_mcid, done))
            index = end
            continue
        end = index
        while end < len(mine) and mine[end].element == leaf.element and mine[end].table < 0:
            end += 1
        parts.extend(_blocks(mine[index:end], by_mcid, done))
        index = end
    if found and not tables and not any(leaf.table >= 0 for leaf in mine):
        parts = _with_found_tables(mine, by_mcid, found)
    heads, feet, artifacts = _artifact_lines(furniture, chars)
    leftover = _text(rest)
    body = [p for p in parts if p]
    if leftover:
        body.append(leftover)
    text = "\n\n".join(heads + body + feet)
    order = ReadingOrder(
        source=OrderSource.TAGGED.value,
        confidence=round(coverage, 4),
        broken_seams=_broken_seams(body),
        columns=1,
    )
    return TaggedPage(text, order, tuple(tables), tuple(artifacts))


def _with_found_tables(
    mine: Sequence[Leaf], by_mcid: dict[int, list[MarkedChar]], found: Sequence[FoundTable]
) -> list[str]:
    """The page's blocks in the tree's order, each found table written once where its first leaf stands
    and its leaves' text left out: a leaf is in a table when most of its drawn characters' centres lie in
    the table's box."""
    parts: list[str] = []
    done: set[int] = set()
    written: set[int] = set()
    index = 0
    while index < len(mine):
        table = _found_table_of(mine[index], by_mcid, found)
        end = index + 1
        while (
            end < len(mine)
            and _found_table_of(mine[end], by_mcid, found) == table
            and (table is not None or mine[end].element == mine[index].element)
        ):
            end += 1
        if table is None:
            parts.extend(_blocks(mine[index:end], by_mcid, done))
        else:
            done.update(leaf.mcid for leaf in mine[index:end])
            if table not in written:
                written.add(table)
                parts.append(found[table].markdown)
        index = end
    return parts


def _found_table_of(
    leaf: Leaf, by_mcid: dict[int, list[MarkedChar]], found: Sequence[FoundTable]
) -> int | None:
    """The index of the found table most of the leaf's drawn characters lie in, or None."""
    drawn = [char for char in by_mcid.get(leaf.mcid, ()) if not char.text.isspace()]
    for index, table in enumerate(found):
        x0, y0, x1, y1 = table.bbox
        inside = sum(
            1
            for char in drawn
            if x0 <= (char.bbox[0] + char.bbox[2]) / 2 <= x1 and y0 <= (char.bbox[1] + char.bbox[3]) / 2 <= y1
        )
        if drawn and inside * 2 > len(drawn):
            return index
    return None


def _blocks(leaves: Sequence[Leaf], by_mcid: dict[int, list[MarkedChar]], done: set[int]) -> list[str]:
    """One block for a run of leaves of one element (a heading gets ``#`` by its level)."""
    chars: list[MarkedChar] = []
    for leaf in leaves:
        if leaf.mcid not in done:
            done.add(leaf.mcid)
            chars.extend(by_mcid.get(leaf.mcid, ()))
    text = _text(chars)
    if not text:
        return []
    kind = leaves[0].kind
    heading = _HEADING.match(kind)
    if (heading or kind == "Title") and "\n" not in text:
        return ["#" * (int(heading.group(1)) if heading else 1) + " " + text]
    return [text]


def _table(
    leaves: Sequence[Leaf],
    by_mcid: dict[int, list[MarkedChar]],
    done: set[int],
    number: int,
    index: int,
    coverage: float,
) -> FoundTable | None:
    """A Table element's cells as a FoundTable; None when it has fewer than two rows or columns."""
    cells: dict[tuple[int, int], list[MarkedChar]] = {}
    header_rows: set[int] = set()
    body_rows: set[int] = set()
    loose: list[Leaf] = []
    for leaf in leaves:
        if leaf.row < 0 or leaf.cell < 0:
            loose.append(leaf)
            continue
        if leaf.mcid in done:
            continue
        done.add(leaf.mcid)
        cells.setdefault((leaf.row, leaf.cell), []).extend(by_mcid.get(leaf.mcid, ()))
        (header_rows if leaf.header else body_rows).add(leaf.row)
    rows = sorted({r for r, _ in cells})
    width = max((c for _, c in cells), default=-1) + 1
    _cells_left_to_right(cells, rows, width)
    if len(rows) < 2 or width < 2:
        for leaf in leaves:
            done.discard(leaf.mcid)
        return None
    matrix = tuple(tuple(" ".join(_text(cells.get((r, c), [])).split()) for c in range(width)) for r in rows)
    titles = [cell for row in matrix[: _title_rows(matrix)] for cell in row if cell]
    if titles:  # a title tagged into the table's top rows stays text above it
        matrix, rows = matrix[len(titles) :], rows[len(titles) :]
        cells = {key: chars for key, chars in cells.items() if key[0] in rows}
    header = 0
    for r in rows:  # header rows are the leading rows all of whose cells are TH
        if r in header_rows and r not in body_rows:
            header += 1
        else:
            break
    boxes = [c[1] for chars in cells.values() for c in chars if not c[0].isspace()]
    if not boxes:
        return None
    x0s, y0s, x1s, y1s = zip(*boxes, strict=True)
    bbox = (min(x0s), min(y0s), max(x1s), max(y1s))
    markdown = "\n\n".join([*titles, gfm(matrix)])
    extra = _text([c for leaf in loose if leaf.mcid not in done for c in by_mcid.get(leaf.mcid, ())])
    for leaf in loose:
        done.add(leaf.mcid)
    if extra:  # a caption or other content of the Table outside its cells stays in the text, after it
        markdown = markdown + "\n\n" + extra
    return FoundTable(
        page=number,
        index=index,
        bbox=tuple(round(v, 2) for v in bbox),  # type: ignore[arg-type]
        cells=matrix,
        header_rows=header,
        markdown=markdown,
        source=TableSource.TAGGED.value,
        confidence=round(coverage, 4),
        evidence=f"structure=Table rows={len(rows)} columns={width} th_rows={header}",
    )


def _title_rows(matrix: Sequence[Sequence[str]]) -> int:
    """How many leading rows are a title or a caption: one filled cell, the first, with at least two rows
    of two or more filled cells under them (a report may tag its title, dates and publication note as
    the table's first rows)."""
    count = 0
    filled = [sum(1 for cell in row if cell) for row in matrix]
    while count < len(matrix) and filled[count] == 1 and matrix[count][0]:
        count += 1
    full = sum(1 for n in filled[count:] if n >= 2)
    return count if full >= 2 else 0


def _cells_left_to_right(cells: dict[tuple[int, int], list[MarkedChar]], rows: list[int], width: int) -> None:
    """Put each row's filled cells in the order they stand on the page, left to right, in the slots the
    filled cells hold: a producer may tag a row's cells out of order (a wrapped cell tagged after the
    row's last column), and the tree's order would shift them."""
    for r in rows:
        lefts: dict[int, float] = {}  # each filled slot's leftmost drawn character, slots in order
        for c in range(width):
            xs = [ch[1][0] for ch in cells.get((r, c), ()) if not ch[0].isspace()]
            if xs:
                lefts[c] = min(xs)
        slots = list(lefts)
        moved = [cells[(r, c)] for c in sorted(slots, key=lefts.__getitem__)]
        for c, chars in zip(slots, moved, strict=True):
            cells[(r, c)] = chars


def _artifact_lines(
    runs: dict[int, list[MarkedChar]], chars: Sequence[MarkedChar]
) -> tuple[list[str], list[str], list[str]]:
    """The pagination artifacts' text: (lines before the body, lines after it, every line), from the
    page's furniture characters by run (``runs``) and all of its characters (``chars``).

    Each artifact sequence is written as its own line(s); one in the page's upper half stands before the
    body, the others after it, so that the text reads head, body, foot.
    """
    heads: list[str] = []
    feet: list[str] = []
    lines: list[str] = []
    if not runs:
        return heads, feet, lines
    height = max([c[1][3] for c in chars])
    for run in runs.values():
        text = _text(run)
        if not text:
            continue
        top = min(c.bbox[1] for c in run)
        (heads if top < height / 2 else feet).append(text)
        lines.extend(line for line in text.split("\n") if line.strip())
    return heads, feet, lines


def _text(chars: Iterable[MarkedChar]) -> str:
    """Characters in content order as lines: a new line where the baseline moves, a space at a gap.

    Runs once per character of every tagged page, so it keeps to locals and plain comparisons: the first
    character is taken before the loop, each character's height is computed once and each line stripped
    once (its ~81,000 characters on the corpus's tagged pages took 17.5 -> 16.5 ms a pass). Text with a
    right-to-left letter is read again line by line in reading order (:func:`_right_to_left_text`).
    """
    if not isinstance(chars, list):
        chars = list(chars)
    iterator = iter(chars)
    char = next(iterator, None)
    if char is None:
        return ""
    same_line, space_gap = SAME_LINE_SHARE, SPACE_GAP_SHARE
    previous_text = char[0]
    _, top, previous_right, previous_bottom = char[1]
    previous_height = previous_bottom - top
    out = [previous_text]
    append = out.append
    for char in iterator:
        text = char[0]
        x0, top, x1, bottom = char[1]
        height = bottom - top
        line_height = height if height > previous_height else previous_height
        if line_height < 1.0:
            line_height = 1.0
        moved = bottom - previous_bottom
        limit = same_line * line_height
        if moved > limit or -moved > limit:
            append("\n")
        else:
            size = char[2]
            if (
                x0 - previous_right > space_gap * (size if size > 1.0 else 1.0)
                and not text.isspace()
                and not previous_text.isspace()
            ):
                append(" ")
        append(text)
        previous_text, previous_height, previous_bottom, previous_right = text, height, bottom, x1
    joined = "".join(out)
    if joined and max(joined) >= _FIRST_RTL and RTL_LETTER.search(joined):
        return _right_to_left_text(chars)
    lines = [line.strip() for line in joined.split("\n")]
    return "\n".join([line for line in lines if line])


def _right_to_left_text(chars: list[MarkedChar]) -> str:
    """:func:`_text` of characters among which some are right-to-left, each line in reading order.

    A line whose letters are mostly right-to-left (readers.pdf.bidi.RTL_LINE_SHARE) is taken in the order
    it was drawn in, which the positions of its right-to-left letters tell. Where they step rightwards
    as drawn, the producer wrote the line as it stands on the page (most do): its characters are put left
    to right (a combining mark stays with its letter) and turned into reading order as the layout path's
    text is (readers.pdf.bidi.logical_line). Where they step leftwards, the producer wrote it in reading
    order, which is kept. In either, a gap on either side of a character is a space. Other lines read as
    in :func:`_text`.
    """
    lines: list[str] = []
    for line in _line_groups(chars):
        text = _joined(line, either_side=False)
        if rtl_share(text) >= RTL_LINE_SHARE:
            if _drawn_left_to_right(line):
                text = logical_line(_joined(_left_to_right(line), either_side=True))
            else:
                text = _joined(line, either_side=True)
        text = text.strip()
        if text:
            lines.append(text)
    return "\n".join(lines)


def _line_groups(chars: list[MarkedChar]) -> list[list[MarkedChar]]:
    """The characters cut into lines where the baseline moves, as :func:`_text` cuts them."""
    groups: list[list[MarkedChar]] = []
    previous_bottom = previous_height = 0.0
    for char in chars:
        _, top, _, bottom = char[1]
        height = bottom - top
        limit = SAME_LINE_SHARE * max(height, previous_height, 1.0)
        if not groups or abs(bottom - previous_bottom) > limit:
            groups.append([char])
        else:
            groups[-1].append(char)
        previous_bottom, previous_height = bottom, height
    return groups


def _joined(line: Sequence[MarkedChar], *, either_side: bool) -> str:
    """One line's characters in the order given, with a space at a gap after (or ``either_side``: after
    or before) the previous character."""
    out: list[str] = []
    previous: MarkedChar | None = None
    for char in line:
        text = char[0]
        if previous is not None and not text.isspace() and not previous[0].isspace():
            gap = char[1][0] - previous[1][2]
            if either_side:
                gap = max(gap, previous[1][0] - char[1][2])
            if gap > SPACE_GAP_SHARE * max(char[2], 1.0):
                out.append(" ")
        out.append(text)
        previous = char
    return "".join(out)


def _drawn_left_to_right(line: Sequence[MarkedChar]) -> bool:
    """The line's right-to-left letters step rightwards as drawn more often than leftwards (a line with
    no two of them in a row counts as drawn left to right, as it stands on the page)."""
    rightwards = leftwards = 0
    previous: MarkedChar | None = None
    for char in line:
        if not RTL_LETTER.match(char[0]):
            if not unicodedata.combining(char[0]):
                previous = None
            continue
        if previous is not None:
            step = char[1][0] - previous[1][0]
            rightwards += step > 0
            leftwards += step < 0
        previous = char
    return rightwards >= leftwards


def _left_to_right(line: Sequence[MarkedChar]) -> list[MarkedChar]:
    """The line's characters as they stand, left to right; a combining mark keeps its place after the
    character it was drawn with, and a drawn space that stands over a letter is left out (a producer
    may draw a line's last space, in reading order, over its leftmost letter: its place says nothing)."""
    keys: list[float] = []
    for char in line:
        keys.append(keys[-1] if keys and unicodedata.combining(char[0]) else char[1][0])
    ordered = [line[i] for i in sorted(range(len(line)), key=keys.__getitem__)]
    drawn = [c for c in ordered if not c[0].isspace()]
    return [c for c in ordered if not c[0].isspace() or not _over_a_letter(c, drawn)]


def _over_a_letter(space: MarkedChar, drawn: Sequence[MarkedChar]) -> bool:
    """More than half of the space's width lies inside one of the ``drawn`` characters' boxes."""
    x0, _, x1, _ = space[1]
    half = (x1 - x0) / 2
    return any(min(x1, c[1][2]) - max(x0, c[1][0]) > half for c in drawn)


def _broken_seams(blocks: Sequence[str]) -> int:
    """The broken seams between the page's blocks in the tree's order, counted as the layout orders
    count them (readers.pdf.order.broken_seams): each block by its first and last line."""
    lines = [block.split("\n") for block in blocks]
    boxes = [OrderBlock((0.0, 0.0, 0.0, 0.0), text[0], text[-1], len(text)) for text in lines]
    return broken_seams(boxes, range(len(boxes)))


# --- tagged and found tables ------------------------------------------------------------------------


def prefer_tagged(tagged: Sequence[FoundTable], found: Sequence[FoundTable]) -> list[FoundTable]:
    """The page's tables: every tagged one, and each found one that overlaps no tagged one.

    Two tables overlap when their intersection is at least OVERLAP_SHARE of the smaller's area.
    """
    kept = list(tagged)
    for table in found:
        if not any(_overlaps(table.bbox, t.bbox) for t in tagged):
            kept.append(table)
    return kept


def _overlaps(a: BBox, b: BBox) -> bool:
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return False
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return smaller > 0 and width * height >= OVERLAP_SHARE * smaller


# --- the reader's entry ------------------------------------------------------------------------------


def read_tagged(doc: pymupdf.Document, pages: Sequence[PageText]) -> list[PageText]:
    """``pages`` with each page the structure tree covers read in the tree's order (text, order,
    tables, artifacts); the others, and every page of an untagged or unreadable tree, as they are."""
    if not is_tagged(doc):
        return list(pages)
    try:
        return _read_tagged(doc, pages)
    except MemoryError:
        raise
    except Exception:  # the tags must never cost the document its reading
        return list(pages)


def _read_tagged(doc: pymupdf.Document, pages: Sequence[PageText]) -> list[PageText]:
    out = list(pages)
    leaves = structure_leaves(doc)
    if not leaves:
        return out
    by_page: dict[int, list[Leaf]] = {}  # grouped once: a long document has a long tree
    for leaf in leaves:
        by_page.setdefault(leaf.page, []).append(leaf)
    wanted = {i for i in range(min(doc.page_count, len(out))) if doc.page_xref(i) in by_page}
    chars = marked_chars(doc, wanted)
    for index, page in enumerate(out):
        tagged = None
        if index in chars:
            xref = doc.page_xref(index)
            tagged = tagged_page(by_page[xref], xref, page.page, chars[index], page.tables)
        if tagged is None:
            continue
        kept = prefer_tagged(tagged.tables, page.tables)
        out[index] = replace(
            page,
            text=tagged.text,
            order=tagged.order,
            tables=tuple(kept),
            artifacts=tagged.artifacts,
            artifacts_source=StructureSource.TAGGED.value,
            structure=PageStructure(StructureSource.TAGGED.value, tagged.order.confidence, "tagged"),
        )
    return out
