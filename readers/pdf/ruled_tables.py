"""Ruled tables on a PDF page, found from its drawings and filled from its text spans.

The PyMuPDF reader (:mod:`readers.pdf.mupdf`) calls :func:`find_ruled_tables` on every page with
what it has already extracted: the items of ``page.get_cdrawings()``, its text lines of spans and the
TextPage. It gets back the page's tables as GFM, each with the spans it took (so they leave the flow
text) and the span where it starts (so it is placed there in the reading order).

Why not ``page.find_tables()`` (measured on the corpus's 28 born-digital PDFs, 241 pages, 2-core
machine; ``benchmarks/bench_extract.py`` repeats the comparison): it costs ~100 ms per page of ruled
table (its ``make_chars`` turns the page into one Python dict per character), 30 times a whole page of
``dict`` extraction, and with the optional ``pymupdf-layout`` package installed its default
``use_layout=True`` runs an ONNX model (200-500 ms/page, and output that depends on what else is
installed). On the corpus, 16 ruled-table pages out of 241 would have cost more than all other pages
together. So this module finds ruled tables with the same "lines" algorithm (snap, join, intersect,
smallest cells, connected cells), from the segments the reader already has, and fills the cells with
the spans it already has (and the TextPage's words where a span crosses a cell border): ~2-5 ms on a
dense table page. ``tests/test_pdf_readers.py`` checks it against ``find_tables`` on a generated grid.

The grids are found in :mod:`readers.pdf.ruled_grids` and their cells filled in
:mod:`readers.pdf.ruled_cells`; this module holds the finder's entry and the tables of rows ruled apart
with no column lines.

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Any

import pymupdf

from readers.pdf.placed_tables import PlacedTable
from readers.pdf.ruled_cells import (
    _CELL_OVERHANG,
    STACK_WRAP_GAP_HEIGHTS,
    LineLike,
    SpanLike,
    _fill_grid,
    _fill_tables,
    _turn,
    _Words,
)
from readers.pdf.ruled_grids import (
    GATE_MIN_SEGMENTS,
    _Edge,
    _find_grids,
    _Grid,
    _rule_stacks,
    _segments,
    _snap_join,
)

#: Rows ruled apart with no column lines (a stack of RULES_FOR_OPEN_SIDES rules) get their columns from
#: blanks at least this many line heights wide running down every row: the stacked tables of the corpus
#: leave 0.76-10.8 line heights between columns, words about 0.25.
COLUMN_GAP_HEIGHTS = 0.5
#: A line set at most this many of its heights above such a stack's top rule is the table's header row.
HEAD_GAP_HEIGHTS = 1.0
#: Cells of such a stack averaging more words a line than this are prose ruled into sections, not rows.
STACK_MAX_CELL_WORDS = 6.0


def find_ruled_tables(
    paths: Sequence[dict[str, Any]],
    blocks: Sequence[Sequence[LineLike]],
    textpage: pymupdf.TextPage,
) -> list[PlacedTable]:
    """The ruled tables of a page, top to bottom, as :class:`~readers.pdf.placed_tables.PlacedTable` (source
    ``ruled``).

    ``paths`` are the items of ``page.get_cdrawings()``, ``blocks`` the page's text blocks as lines of
    spans in reading order, and ``textpage`` the TextPage they came from (its words are read only when a
    span crosses a cell border).
    """
    found = _segments(paths)
    if len(found.horizontal) < GATE_MIN_SEGMENTS:
        return []
    breaks: list[tuple[float, float]] = []
    hs = _snap_join(found.horizontal, breaks)
    grids = _find_grids(found, hs, breaks)
    words = _Words(textpage)
    tables = _fill_tables(grids, blocks, words) if grids else []
    stacked = [
        table
        for stack in _rule_stacks(hs, found.vertical, tables)
        if (table := _stack_table(stack, blocks, tables, words)) is not None
    ]
    if stacked:
        tables = sorted([*tables, *stacked], key=lambda t: (t.bbox[1], t.bbox[0]))
    return tables


def _stack_table(
    stack: list[_Edge], blocks: Sequence[Sequence[LineLike]], tables: list[PlacedTable], words: _Words
) -> PlacedTable | None:
    """The table of a stack of rules: one row between each two rules (and a header line set just above
    the top rule), its columns cut at the blanks that run down every row (see _blank_columns)."""
    x0, x1 = min(e.start for e in stack), max(e.end for e in stack)
    top, bottom = stack[0].pos, stack[-1].pos
    taken: set[int] = set().union(*(t.members for t in tables)) if tables else set()
    body: list[list[SpanLike]] = []
    head: list[list[SpanLike]] = []
    for block in blocks:
        for line in block:
            if _turn(line) != 0:
                continue
            spans = [s for s in line.spans if x0 < (s.bbox[0] + s.bbox[2]) / 2 < x1 and id(s) not in taken]
            if not spans:
                continue
            ly0, ly1 = min(s.bbox[1] for s in spans), max(s.bbox[3] for s in spans)
            centre = (ly0 + ly1) / 2
            if top < centre < bottom:
                body.append(spans)
            elif centre <= top and top - ly1 <= HEAD_GAP_HEIGHTS * (ly1 - ly0):
                head.append(spans)
    bounds = _blank_columns([s for spans in body for s in spans])
    if not bounds or not _rows_apart(stack, body, bounds):
        return None
    ys = [e.pos for e in stack]
    heads = [s for spans in head for s in spans]
    crossing = any(s.bbox[0] < b < s.bbox[2] for s in heads for b in bounds)
    if not crossing and len({bisect.bisect(bounds, (s.bbox[0] + s.bbox[2]) / 2) for s in heads}) >= 2:
        ys.insert(0, min(s.bbox[1] for s in heads) - _CELL_OVERHANG)
    xs = [x0, *bounds, x1]
    grid = _Grid(xs, ys, [(r, c, r + 1, c + 1) for r in range(len(ys) - 1) for c in range(len(xs) - 1)])
    table = _fill_grid(grid, blocks, taken, words)
    if table is None:
        return None
    return replace(table, evidence=f"{table.evidence} columns_by=blanks")


def _blank_columns(spans: list[SpanLike]) -> list[float]:
    """The x of the middle of each blank at least COLUMN_GAP_HEIGHTS line heights wide that no span
    crosses: where the columns of rows ruled without column lines meet."""
    if not spans:
        return []
    heights = sorted(s.bbox[3] - s.bbox[1] for s in spans)
    least = COLUMN_GAP_HEIGHTS * heights[len(heights) // 2]
    bounds: list[float] = []
    ordered = sorted((s.bbox[0], s.bbox[2]) for s in spans)
    reach = ordered[0][1]
    for sx0, sx1 in ordered[1:]:
        if sx0 - reach >= least:
            bounds.append((reach + sx0) / 2)
        reach = max(reach, sx1)
    return bounds


def _rows_apart(stack: list[_Edge], body: list[list[SpanLike]], bounds: list[float]) -> bool:
    """Whether each band between two rules reads as one row: it is not several rows of an unruled body
    (a booktabs table's body between its mid and bottom rules, where every column has one line per row),
    nor lines spaced apart under a section's rule (a CV's entries), nor prose set in columns (more than
    STACK_MAX_CELL_WORDS words a line in each cell on average)."""
    pieces = words_in = 0
    for upper, lower in pairwise(stack):
        counts: dict[int, int] = {}
        lines: dict[int, list[tuple[float, float]]] = {}
        for spans in body:
            centre = (spans[0].bbox[1] + spans[0].bbox[3]) / 2
            if not upper.pos < centre < lower.pos:
                continue
            columns = {bisect.bisect(bounds, (s.bbox[0] + s.bbox[2]) / 2) for s in spans}
            for column in columns:
                counts[column] = counts.get(column, 0) + 1
                lines.setdefault(column, []).extend((s.bbox[1], s.bbox[3]) for s in spans)
            pieces += len(columns)
            words_in += sum(len(s.text.split()) for s in spans)
        if len(counts) >= 2 and len(set(counts.values())) == 1 and min(counts.values()) >= 2:
            return False
        for boxes in lines.values():  # a cell's lines follow each other closely: it wraps
            boxes.sort()
            if any(b[0] - a[1] > STACK_WRAP_GAP_HEIGHTS * (a[1] - a[0]) for a, b in pairwise(boxes)):
                return False
    return pieces > 0 and words_in / pieces <= STACK_MAX_CELL_WORDS
