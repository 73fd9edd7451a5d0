"""Headings and markdown for the PyMuPDF reader (:mod:`readers.pdf.mupdf`): the document's body size,
the lines set clearly larger than it (``#``..``###`` by the rank of their size) or short and bold at
body size (``####``), and every page's markdown written from its draft.

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

from readers.core.model import (
    PageText,
    StructureSource,
)
from readers.pdf.flow_text import _FlowBlock, _FlowLine, _PageDraft, _TableMarkdown
from readers.pdf.placed_tables import found_tables

# --- headings ---------------------------------------------------------------------------------------

#: A line at least this many times the document's body size is a size heading: calibrated on the dev
#: corpus's running heads and author lines (1.05-1.14x the body) against its headings (1.16x and up).
HEADING_SIZE_RATIO = 1.15
#: A bold line counts as "at body size" between these ratios (Word Heading 3 is 12/11 = 1.09 bold;
#: LaTeX \subsubsection is bold at 1.0). Below 0.95 it is a caption or footnote, not a heading.
BODY_SIZE_RATIO_MIN = 0.95
#: A size near the most common one that holds at least this share of the document's characters is body
#: text, not a heading size (see _body_size): calibrated on the dev corpus's headings (0.2-4.5% of the
#: characters) against the prose of a document set mostly in smaller samples (9%).
BODY_MIN_SHARE = 0.08
BODY_MAX_RATIO = 1.25
#: At most this many consecutive heading-size lines make one heading (a title that wraps); a longer run
#: is display text, a pull quote or a slide body, and stays text.
HEADING_MAX_LINES = 3
#: At most this many characters in a size heading (a title of two or three lines fits, a paragraph
#: does not) / a bold body-size heading (longer bold lines are emphasised sentences). The longest real
#: headings on the corpus are ~110 characters (a two-line title) and ~60 (a bold side heading).
HEADING_MAX_CHARS = 160
BOLD_HEADING_MAX_CHARS = 80
#: A bold line whose parts are further apart than this many font sizes is a row of columns, not a
#: heading: LaTeX puts 1 em between a section's number and title, a bold table header row 3-9 em.
BOLD_HEADING_MAX_GAP = 2.0
#: Size headings get ``#``, ``##``, ``###`` by the rank of their size in the document; every smaller
#: size shares ``###``. Bold body-size headings get ``####``.
SIZE_HEADING_LEVELS = 3
BOLD_HEADING_LEVEL = 4
_LETTER = re.compile(r"[^\W\d_]")
_SENTENCE_END = (".", ",", ";", ":", "-")  # a bold line ending so continues: it is not a heading
_TOC_ENTRY = re.compile(r"\s\d+$")


# --- second pass: headings and markdown ---------------------------------------------------------------


def _render(drafts: list[_PageDraft]) -> list[PageText]:
    """Decide the headings with the document's body size, then write every page's markdown."""
    totals: Counter[float] = Counter()
    for draft in drafts:
        totals.update(draft.sizes)
    body = _body_size(totals)
    heading_sizes: set[float] = set()
    for draft in drafts:
        for item in draft.items:
            if isinstance(item, _FlowBlock):
                heading_sizes.update(size for size, _ in _size_headings(item.lines, body))
    ranks = {
        size: min(rank, SIZE_HEADING_LEVELS - 1) + 1
        for rank, size in enumerate(sorted(heading_sizes, reverse=True))
    }
    pages: list[PageText] = []
    tables = found_tables([(draft.number, draft.facts.height, draft.tables) for draft in drafts])
    for draft, found in zip(drafts, tables, strict=True):
        parts: list[str] = []
        headings = 0
        for item in draft.items:
            if isinstance(item, _TableMarkdown):
                parts.append(item.markdown)
                continue
            text, count = _block_markdown(item.lines, body, ranks)
            parts.append(text)
            headings += count
        facts = replace(draft.facts, headings=headings) if headings else draft.facts
        pages.append(
            PageText(
                page=draft.number,
                text="\n\n".join(parts),
                facts=facts,
                blocks=draft.blocks,
                hidden=draft.hidden,
                tables=tuple(found),
                order=draft.order,
                artifacts=draft.artifacts,
                artifacts_source=StructureSource.LAYOUT_MODEL.value if draft.artifacts else "tagged",
                structure=draft.structure,
            )
        )
    return pages


def _body_size(sizes: Counter[float]) -> float:
    """The document's body size: the most common size (by characters), or a slightly larger one.

    A size up to BODY_MAX_RATIO times the most common one that holds at least BODY_MIN_SHARE of the
    characters is body text too, and the largest such size is the body: a document set mostly in small
    samples has its prose a size up, which the most common size alone would make "headings". Farther
    sizes are not considered, whatever their share: in a short document the title can hold 8% of the
    characters.
    """
    total = sum(sizes.values())
    if not total:
        return 0.0
    mode = sizes.most_common(1)[0][0]
    return max(
        size
        for size, count in sizes.items()
        if size == mode or (count >= BODY_MIN_SHARE * total and size <= mode * BODY_MAX_RATIO)
    )


def _size_headings(lines: list[_FlowLine], body: float) -> Iterator[tuple[float, range]]:
    """Runs of consecutive lines set clearly larger than the body: (their size, their line indexes)."""
    if body <= 0:
        return
    start = 0
    while start < len(lines):
        if not _heading_sized(lines[start], body):
            start += 1
            continue
        end = start
        while end < len(lines) and _heading_sized(lines[end], body):
            end += 1
        run = lines[start:end]
        text = " ".join(line.text for line in run)
        if len(run) <= HEADING_MAX_LINES and len(text) <= HEADING_MAX_CHARS and _LETTER.search(text):
            yield max(line.size for line in run), range(start, end)
        start = end


def _heading_sized(line: _FlowLine, body: float) -> bool:
    return line.horizontal and line.size >= body * HEADING_SIZE_RATIO


def _is_bold_heading(lines: list[_FlowLine], body: float) -> bool:
    """A standalone short bold line at body size (Word's Heading 3, LaTeX's \\subsubsection).

    Not when its parts stand in columns (a table's header row) and not when it ends in a page number (a
    bold table-of-contents entry).
    """
    if len(lines) != 1 or body <= 0:
        return False
    line = lines[0]
    return (
        line.bold
        and line.horizontal
        and line.widest_gap <= BOLD_HEADING_MAX_GAP
        and not _TOC_ENTRY.search(line.text)
        and body * BODY_SIZE_RATIO_MIN <= line.size < body * HEADING_SIZE_RATIO
        and len(line.text) <= BOLD_HEADING_MAX_CHARS
        and not line.text.endswith(_SENTENCE_END)
        and _LETTER.search(line.text) is not None
    )


def _block_markdown(lines: list[_FlowLine], body: float, ranks: dict[float, int]) -> tuple[str, int]:
    """A block's markdown and how many headings it holds."""
    if _is_bold_heading(lines, body):
        return "#" * BOLD_HEADING_LEVEL + " " + lines[0].text, 1
    runs = list(_size_headings(lines, body))
    if not runs:
        return "\n".join(line.text for line in lines), 0
    parts: list[str] = []
    cursor = 0
    for size, run in runs:
        if cursor < run.start:
            parts.append("\n".join(line.text for line in lines[cursor : run.start]))
        heading = " ".join(lines[i].text for i in run)
        parts.append("#" * ranks[size] + " " + heading)
        cursor = run.stop
    if cursor < len(lines):
        parts.append("\n".join(line.text for line in lines[cursor:]))
    return "\n\n".join(parts), len(runs)
