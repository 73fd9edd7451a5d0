"""Each PDF page's structure decided (:mod:`readers.pdf.certainty`) from the signals the PyMuPDF reader's
first pass has at hand, and what PyMuPDF's layout model (:mod:`readers.pdf.layout_model`) decides on the
uncertain pages within its budget: their furniture lines, the tables the own finders missed, and an
unsure reading order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from itertools import pairwise
from typing import Any

import pymupdf

from readers.core.model import (
    Block,
    OrderSource,
    PageStructure,
    ReadingOrder,
    StructureSource,
    TableSource,
)
from readers.pdf import layout_model
from readers.pdf.certainty import (
    BAND_SHARE,
    WIDE_GAP_EM,
    Decision,
    StructureSignals,
    band_key,
    band_lines,
    decide,
)
from readers.pdf.flow_text import _layout, _merge_same_baseline, _PageDraft, _text_line
from readers.pdf.order import (
    OrderBlock,
    broken_seams,
)
from readers.pdf.page_spans import _PageScan, _SpanLine
from readers.pdf.placed_tables import PlacedTable, header_rows
from readers.pdf.ruled_cells import TABLE_MIN_FILL
from readers.pdf.unruled_columns import LEADER

# --- the page-structure decision and the layout model ---------------------------------------------------

#: A model table region overlapping an own table by at least this share of its own area is the same
#: table (the own finders found it): only regions where the finders found nothing are built.
SAME_TABLE_OVERLAP = 0.3
#: The confidence of a table built from a model region (the model found it and the rules did not): the
#: share of its cells right on the tables truth, 98 of 177 on the one such table (docs/decisions.md).
MODEL_TABLE_CONFIDENCE = 0.55
#: A model table whose rows mostly hold dot leaders is a table of contents, which the own finders leave
#: as text on purpose (readers/pdf/unruled_tables.py): the model labels them tables.
MAX_LEADER_ROW_SHARE = 0.5


def _signals(
    scan: _PageScan, tables: list[PlacedTable], order: ReadingOrder, height: float
) -> StructureSignals:
    """The structure signals of a page, from what the first pass has at hand."""
    band: list[tuple[str, float, float]] = []
    top, bottom = BAND_SHARE * height, (1 - BAND_SHARE) * height
    for block in scan.lines:
        for line in block:
            if line.bottom <= top or line.top >= bottom:
                band.append(("".join([span.text for span in line.spans]), line.top, line.bottom))
    ruled = sum(1 for t in tables if t.source == TableSource.RULED.value)
    aligned = tuple(t.confidence for t in tables if t.source == TableSource.ALIGNED.value)
    gapped = 0 if tables else _gapped_rows(scan.lines)
    return StructureSignals(order, aligned, ruled, gapped, band_lines(band, height))


def _gapped_rows(blocks: list[list[_SpanLine]]) -> int:
    """Visual rows of the page cut into three or more pieces by gaps of a font size or more: rows of a
    table whose finder did not take them (or of a form, a table of contents)."""
    rows: dict[int, list[tuple[float, float, float]]] = {}
    for block in blocks:
        for line in block:
            if line.horizontal:
                for span in line.spans:
                    box = span.bbox
                    rows.setdefault(round(box[3] / 3), []).append((box[0], box[2], span.size))
    count = 0
    for pieces in rows.values():
        if len(pieces) < 3:
            continue
        pieces.sort()
        gaps = sum(1 for a, b in pairwise(pieces) if b[0] - a[1] >= WIDE_GAP_EM * max(a[2], 1.0))
        count += gaps >= 2
    return count


def _decide_structure(doc: pymupdf.Document, drafts: list[_PageDraft], covered: set[int]) -> bool:
    """Decide each page's structure (readers/pdf/certainty.py), the pages the structure tree covers
    (``covered``) being the tree's, and let the layout model decide the uncertain pages' furniture,
    missing tables and unsure order, within its budget. True when the model decided some page."""
    repeated: Counter[str] = Counter()
    for draft in drafts:
        if draft.signals is not None:
            repeated.update({band_key(line.text) for line in draft.signals.band_lines})
    decisions = {
        draft.number: decide(draft.signals, repeated, draft.number in covered)
        for draft in drafts
        if draft.signals is not None
    }
    # The most uncertain pages (the most signals) first, within the document's budget.
    ranked = sorted(
        (n for n, d in decisions.items() if not d.certain), key=lambda n: -len(decisions[n].reasons)
    )
    chosen = set(ranked[: layout_model.page_budget(len(drafts))])
    stop = ""
    decided = False
    for draft in drafts:
        if draft.signals is None:
            continue
        decision = decisions[draft.number]
        why = " ".join(decision.reasons)
        confidence = draft.order.confidence
        draft.structure = PageStructure(decision.source, round(confidence, 4), why)
        if decision.certain:
            continue
        if stop or draft.number not in chosen:
            draft.structure = PageStructure(
                decision.source, round(confidence, 4), f"{why} model:{stop or 'cap'}"
            )
            continue
        answer = layout_model.read_regions(doc.load_page(draft.number - 1))
        if answer.failure:
            if answer.failure in ("over_budget", "not_loaded", "off"):
                stop = answer.failure
            draft.structure = PageStructure(
                decision.source, round(confidence, 4), f"{why} model:{answer.failure}"
            )
            continue
        _apply_regions(doc, draft, decision, answer)
        decided = True
    return decided


def _centre_in(box: tuple[float, float, float, float], region: tuple[float, float, float, float]) -> bool:
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return region[0] <= x <= region[2] and region[1] <= y <= region[3]


def _line_box(line: _SpanLine) -> tuple[float, float, float, float]:
    return (line.spans[0].bbox[0], line.top, line.spans[-1].bbox[2], line.bottom)


def _apply_regions(
    doc: pymupdf.Document, draft: _PageDraft, decision: Decision, answer: layout_model.Answer
) -> None:
    """What the model's regions decide on an uncertain page: its header and footer lines are furniture,
    its table regions where the own finders found none are tables, and an unsure order becomes the
    regions' order where that breaks fewer sentences."""
    regions = answer.regions
    lines = draft.lines
    decided: list[str] = []
    # Furniture: the lines in page-header and page-footer regions, never the page's only text.
    furniture_boxes = [r.bbox for r in regions if r.label in layout_model.FURNITURE_LABELS]
    every = [line for block in lines for line in block]
    furniture: list[str] = []
    if furniture_boxes:
        taken = [
            [line for line in block if any(_centre_in(_line_box(line), b) for b in furniture_boxes)]
            for block in lines
        ]
        count = sum(len(block) for block in taken)
        if 0 < count < len(every):
            for block in taken:
                for group in _merge_same_baseline(block):
                    text_line = _text_line(group, Counter())
                    if text_line is not None:
                        furniture.append(text_line.text)
            decided.append(f"model:furniture={len(furniture)}")
    # Tables: model regions no own table overlaps.
    relayout = False
    tables = list(draft.tables)
    boxes = [
        r.bbox
        for r in regions
        if r.label == layout_model.TABLE_LABEL and not any(_overlap(r.bbox, t.bbox) for t in tables)
    ]
    if boxes:
        page = doc.load_page(draft.number - 1)
        for table in layout_model.region_tables(page, boxes):
            placed = _placed_model_table(table, lines, draft.permutation, tables)
            if placed is not None:
                tables.append(placed)
                relayout = True
        if relayout:
            tables.sort(key=lambda t: (t.bbox[1], t.bbox[0]))
            decided.append(f"model:tables={len(tables) - len(draft.tables)}")
    # Order: the regions' order, where the rules were unsure of theirs and it breaks fewer seams.
    permutation = draft.permutation
    order = draft.order
    if any(r.startswith(("order:", "columns=")) for r in decision.reasons):
        candidate = _region_order(lines, draft.blocks, regions, permutation)
        ends = [
            OrderBlock(
                model.bbox,
                "".join(s.text for s in block[0].spans),
                "".join(s.text for s in block[-1].spans),
                len(block),
            )
            for block, model in zip(lines, draft.blocks, strict=True)
        ]
        broken = broken_seams(ends, candidate)
        if candidate != permutation and broken < order.broken_seams:
            judged = max(len(candidate) - 1, 1)
            order = ReadingOrder(
                OrderSource.LAYOUT_MODEL.value, round(1.0 - broken / judged, 4), broken, order.columns
            )
            permutation = candidate
            relayout = True
            decided.append(f"model:order broken_seams={draft.order.broken_seams}->{broken}")
    if relayout:
        draft.items, draft.sizes = _layout([lines[i] for i in permutation], tables)
        draft.tables, draft.permutation, draft.order = tables, permutation, order
        draft.facts = replace(draft.facts, tables=len(tables))
    draft.artifacts = tuple(furniture)
    covered = sum(1 for line in every if any(_centre_in(_line_box(line), r.bbox) for r in regions))
    confidence = round(covered / len(every), 4) if every else 0.0
    why = " ".join(
        [*decision.reasons, *(decided or ["model:no_change"]), f"model_ms={round(answer.seconds * 1000)}"]
    )
    draft.structure = PageStructure(StructureSource.LAYOUT_MODEL.value, confidence, why)


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    area = (a[2] - a[0]) * (a[3] - a[1])
    return w > 0 and h > 0 and area > 0 and w * h >= SAME_TABLE_OVERLAP * area


def _model_cells(table: Any) -> list[list[str]] | None:
    """The cells of a table PyMuPDF built in a model region, or None when they make no table: fewer than
    two rows or columns, rows of dot leaders (a table of contents), or a grid of mostly empty cells (words
    cut into columns of their own: under the ruled finder's TABLE_MIN_FILL)."""
    try:
        cells = [[" ".join((cell or "").split()) for cell in row] for row in table.extract()]
    except Exception:
        return None
    if len(cells) < 2 or max((len(r) for r in cells), default=0) < 2:
        return None
    if sum(1 for row in cells if any(LEADER.search(c) for c in row)) > MAX_LEADER_ROW_SHARE * len(cells):
        return None
    if sum(1 for row in cells for c in row if c) < TABLE_MIN_FILL * sum(len(row) for row in cells):
        return None
    return cells


def _placed_model_table(
    table: Any, lines: list[list[_SpanLine]], permutation: tuple[int, ...], tables: list[PlacedTable]
) -> PlacedTable | None:
    """A table PyMuPDF built in a model region, placed among the page's spans: the spans whose centre
    lies in its box (and in no other table) leave the flow text, and it stands where the first of them
    stood."""
    try:
        bbox = tuple(float(v) for v in table.bbox)
    except Exception:
        return None
    cells = _model_cells(table)
    if cells is None:
        return None
    taken: set[int] = set()
    for t in tables:
        taken |= t.members
    members: set[int] = set()
    first = 0
    for index in permutation:
        for line in lines[index]:
            for span in line.spans:
                if id(span) not in taken and _centre_in(span.bbox, bbox):  # type: ignore[arg-type]
                    if not members:
                        first = id(span)
                    members.add(id(span))
    if not members:
        return None
    width = max(len(r) for r in cells)
    cells = [[*row, *([""] * (width - len(row)))] for row in cells]
    return PlacedTable(
        cells,
        bbox,  # type: ignore[arg-type]
        TableSource.LAYOUT_MODEL.value,
        MODEL_TABLE_CONFIDENCE,
        f"layout_model_region rows={len(cells)} columns={width}",
        header_rows(cells),
        members,
        first,
    )


def _region_order(
    lines: list[list[_SpanLine]],
    blocks: tuple[Block, ...],
    regions: tuple[layout_model.ModelRegion, ...],
    permutation: tuple[int, ...],
) -> tuple[int, ...]:
    """The blocks in the order of the model's regions (each block in the region holding its centre); a
    block in no region stays after the block that preceded it."""
    keys: dict[int, tuple[int, int]] = {}
    last = -1
    for position, index in enumerate(permutation):
        box = blocks[index].bbox
        region = next((r for r, reg in enumerate(regions) if _centre_in(box, reg.bbox)), None)
        if region is not None:
            last = region
        keys[index] = (last, position)
    return tuple(sorted(permutation, key=keys.__getitem__))
