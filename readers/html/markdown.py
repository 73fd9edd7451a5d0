"""An HTML tree as markdown-ish text, like the PDF reader's.

``#`` headings, ``- `` list items (``1.`` in ordered lists), tables as GFM rows (a layout grid's cells read
as blocks), code as fenced blocks, paragraphs separated by blank lines.
"""

from __future__ import annotations

import re
from typing import Final

import lxml
import lxml.html

from readers.core.markup import escape_cell

_WHITESPACE = re.compile(r"\s+")


def fold(text: str) -> str:
    """Whitespace runs (any Unicode space, newlines included) to one space, ends stripped."""
    return _WHITESPACE.sub(" ", text).strip()


#: Elements that start and end a block of text (everything else is inline).
BLOCKS: Final = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "center",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "frameset",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "legend",
        "li",
        "main",
        "menu",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    }
)
HEADINGS: Final = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}

#: Deeper than this the renderer stops recursing and takes the text as it stands. libxml2 already stops
#: parsing at depth 256, so only a tree built elsewhere could reach it; it keeps Python's stack safe.
MAX_RENDER_DEPTH = 300

#: Stands for a ``<br>`` among the inline text: NUL, which parse_html never lets into the tree.
_BREAK = "\x00"


class _Renderer:
    """Walks a cleaned tree into markdown blocks: inline text gathers into a paragraph until a block
    element ends it."""

    def __init__(self, *, in_cell: bool = False) -> None:
        self.blocks: list[str] = []
        self._inline: list[str] = []
        #: In a table's cell a list is its items, one per line, without markers (:func:`cell_text`).
        self.in_cell = in_cell

    def render(self, element: lxml.html.HtmlElement, depth: int = 0) -> None:
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        if not tag:
            self._text(element.tail)
            return
        if depth > MAX_RENDER_DEPTH:
            self._text(" ".join(element.itertext()))
        elif tag in HEADINGS:
            self.flush()
            text = fold(text_of(element, depth + 1))
            if text:
                self.blocks.append(f"{'#' * HEADINGS[tag]} {text}")
        elif tag in ("ul", "ol", "menu") and self.in_cell:
            self.flush()
            items = _cell_items(element, depth + 1)
            if items:
                self.blocks.append("\n".join(items))
        elif tag in ("ul", "ol", "menu"):
            self.flush()
            self.blocks.extend(_list_lines(element, ordered=tag == "ol", depth=depth + 1))
        elif tag == "table":
            self.flush()
            self.blocks.extend(_table_blocks(element, depth + 1))
        elif tag == "pre":
            self.flush()
            code = "".join(element.itertext()).strip("\n")
            if code.strip():
                self.blocks.append(f"```\n{code.rstrip()}\n```")
        elif tag == "br":
            self._inline.append(_BREAK)
        elif tag == "hr":
            self.flush()
        elif tag == "blockquote":
            self.flush()
            inner = blocks_of(element, depth + 1)
            if inner:
                quoted = "\n\n".join(inner)
                self.blocks.append("\n".join(f"> {line}" if line else ">" for line in quoted.splitlines()))
        elif tag in BLOCKS:
            self.flush()
            self._children(element, depth)
            self.flush()
        else:
            self._children(element, depth)
        self._text(element.tail)

    def _children(self, element: lxml.html.HtmlElement, depth: int) -> None:
        self._text(element.text)
        for child in element:
            self.render(child, depth + 1)

    def _text(self, text: str | None) -> None:
        if text:
            self._inline.append(text)

    def flush(self) -> None:
        """End the paragraph being gathered: whitespace folded, line breaks (``<br>``) kept."""
        if not self._inline:
            return
        lines = [fold(line) for line in "".join(self._inline).split(_BREAK)]
        self._inline = []
        text = "\n".join(line for line in lines if line)
        if text:
            self.blocks.append(text)


def blocks_of(element: lxml.html.HtmlElement, depth: int = 0) -> list[str]:
    """The markdown blocks of ``element`` and its content."""
    renderer = _Renderer()
    renderer._children(element, depth)
    renderer.flush()
    return renderer.blocks


def text_of(element: lxml.html.HtmlElement, depth: int = 0) -> str:
    """The text of ``element`` on one line: its blocks joined by spaces (for headings, cells, items)."""
    return fold(" ".join(blocks_of(element, depth)).replace("\n", " "))


def to_markdown(element: lxml.html.HtmlElement, *, prune_empty_sections: bool = False) -> str:
    """The markdown of a cleaned element: blocks separated by blank lines. With
    ``prune_empty_sections``, headings left with nothing under them are dropped (:func:`without_empty`)."""
    blocks = blocks_of(element)
    return "\n\n".join(without_empty(blocks) if prune_empty_sections else blocks)


def heading_level(block: str) -> int:
    """The level of a markdown heading block (0 for any other block)."""
    marks = len(block) - len(block.lstrip("#"))
    return marks if 1 <= marks <= 6 and block[marks : marks + 1] == " " else 0


def without_empty(blocks: list[str]) -> list[str]:
    """The blocks without headings that head nothing: followed by a heading of the same or a higher level,
    or by the end. Removing a section's content (a tag cloud, a comment form) leaves its heading behind."""
    kept: list[str] = []
    for block in reversed(blocks):
        level = heading_level(block)
        if level:
            following = heading_level(kept[-1]) if kept else 1
            if not kept or (following and following <= level):
                continue
        kept.append(block)
    return kept[::-1]


def _list_lines(element: lxml.html.HtmlElement, *, ordered: bool, depth: int) -> list[str]:
    """One ``- `` (or ``N.``) line per item, nested lists indented under their item, as one block."""
    lines: list[str] = []
    try:
        number = int(element.get("start", "1"))
    except ValueError:
        number = 1
    for child in element:
        if not isinstance(child.tag, str):
            continue
        tag = child.tag.lower()
        if tag in ("ul", "ol"):
            lines.extend(
                f"  {line}"
                for block in _list_lines(child, ordered=tag == "ol", depth=depth + 1)
                for line in block.splitlines()
            )
            continue
        nested = [n for n in child if isinstance(n.tag, str) and n.tag.lower() in ("ul", "ol")]
        head = _item_text(child, depth)
        marker = f"{number}." if ordered else "-"
        if head:
            lines.append(f"{marker} {head}")
            number += 1
        for n in nested:
            for block in _list_lines(n, ordered=n.tag.lower() == "ol", depth=depth + 1):
                lines.extend(f"  {line}" for line in block.splitlines())
    return ["\n".join(lines)] if lines else []


def _item_text(item: lxml.html.HtmlElement, depth: int) -> str:
    """An item's own text, without its nested lists (rendered under it)."""
    renderer = _Renderer()
    renderer._text(item.text)
    for child in item:
        if isinstance(child.tag, str) and child.tag.lower() in ("ul", "ol"):
            renderer._text(child.tail)
            continue
        renderer.render(child, depth + 1)
    renderer.flush()
    return fold(" ".join(renderer.blocks).replace("\n", " "))


#: Elements whose presence in a cell makes a table a layout grid rather than data. A list is not one: a
#: data table's cell may list its values (uses, authors, options), and is read as ``item; item``.
_LAYOUT_CELL_CONTENT = frozenset({"table", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote"})

#: What separates a cell's list items and its ``<br>`` lines when the cell is written on one line.
CELL_SEPARATOR = "; "


def cell_text(cell: lxml.html.HtmlElement, depth: int = 0) -> str:
    """A data table cell's text on one line: paragraphs joined by a space, list items (nested ones in
    order after their item) and ``<br>`` lines by :data:`CELL_SEPARATOR`; inline formatting as its text."""
    renderer = _Renderer(in_cell=True)
    renderer._children(cell, depth)
    renderer.flush()
    blocks = (
        CELL_SEPARATOR.join(fold(line) for line in b.split("\n") if line.strip()) for b in renderer.blocks
    )
    return fold(" ".join(b for b in blocks if b))


def _cell_items(element: lxml.html.HtmlElement, depth: int) -> list[str]:
    """A list's item texts in document order, a nested list's items after the item that holds them."""
    items: list[str] = []
    if depth > MAX_RENDER_DEPTH:
        return [fold(" ".join(element.itertext()))]
    for child in element:
        if not isinstance(child.tag, str):
            continue
        tag = child.tag.lower()
        if tag in ("ul", "ol", "menu"):
            items.extend(_cell_items(child, depth + 1))
            continue
        head = _item_text(child, depth)
        if head:
            items.append(head)
        for nested in child:
            if isinstance(nested.tag, str) and nested.tag.lower() in ("ul", "ol", "menu"):
                items.extend(_cell_items(nested, depth + 1))
    return items


def is_layout_cell(cell: lxml.html.HtmlElement) -> bool:
    """Whether a cell holds what only a layout grid's cell does (:data:`_LAYOUT_CELL_CONTENT`)."""
    return any(
        isinstance(e.tag, str) and e.tag.lower() in _LAYOUT_CELL_CONTENT for e in cell.iterdescendants()
    )


def flatten_cells(root: lxml.html.HtmlElement) -> None:
    """Replace, in place, the content of each data table's cell holding a list or a ``<br>`` by its
    :func:`cell_text`: for an extractor (trafilatura) that would drop a cell's list or run its lines
    together. Layout grids (:func:`is_layout_grid`) are left as they are."""
    for table in list(root.iter("table")):
        grid = [_cells(r) for r in _rows(table)]
        if is_layout_grid(grid):
            continue
        for cell in (c for cells in grid for c in cells):
            if not any(
                isinstance(e.tag, str) and e.tag.lower() in ("ul", "ol", "menu", "br") for e in cell.iter()
            ):
                continue
            text = cell_text(cell)
            for child in list(cell):
                cell.remove(child)
            cell.text = text


def _grid_width(grid: list[list[lxml.html.HtmlElement]]) -> int:
    return max((sum(_span(c) for c in cells) for cells in grid), default=0)


def is_layout_grid(grid: list[list[lxml.html.HtmlElement]]) -> bool:
    """Whether a table's cells (by row) are a layout grid: a single column, or a cell holding what only a
    layout grid's cell does (:func:`is_layout_cell`)."""
    return _grid_width(grid) < 2 or any(is_layout_cell(c) for cells in grid for c in cells)


def _rows(table: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    """The table's own rows (not a nested table's), in order."""
    rows = []
    for child in table:
        if not isinstance(child.tag, str):
            continue
        tag = child.tag.lower()
        if tag == "tr":
            rows.append(child)
        elif tag in ("thead", "tbody", "tfoot"):
            rows.extend(r for r in child if isinstance(r.tag, str) and r.tag.lower() == "tr")
    return rows


def _cells(row: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    return [c for c in row if isinstance(c.tag, str) and c.tag.lower() in ("td", "th")]


def _table_blocks(table: lxml.html.HtmlElement, depth: int) -> list[str]:
    """A data table as GFM rows (the first row as header); a layout table (nested tables, headings, code
    or quotes in cells, a single column) as the blocks of its cells, in reading order."""
    grid = [_cells(r) for r in _rows(table)]
    width = _grid_width(grid)
    layout = is_layout_grid(grid)
    blocks: list[str] = []
    for caption in table:
        if isinstance(caption.tag, str) and caption.tag.lower() == "caption":
            blocks.extend(blocks_of(caption, depth))
    if layout:
        for cells in grid:
            for c in cells:
                blocks.extend(blocks_of(c, depth))
        return blocks
    rows: list[list[str]] = []
    # Slots taken by a cell of a row above that spans down (rowspan): row offset -> columns.
    below: dict[int, set[int]] = {}
    for r, cells in enumerate(grid):
        taken = below.pop(r, set())
        texts: list[str] = []
        for c in cells:
            while len(texts) in taken:
                texts.append("")
            for row in range(r + 1, r + _row_span(c)):
                below.setdefault(row, set()).update(range(len(texts), len(texts) + _span(c)))
            texts.append(escape_cell(cell_text(c, depth)))
            texts.extend([""] * (_span(c) - 1))
        if any(texts):
            rows.append(texts)
    width = max([width, *(len(t) for t in rows)])
    lines = ["| " + " | ".join(t + [""] * (width - len(t))) + " |" for t in rows]
    if lines:
        lines.insert(1, "|" + "|".join(["---"] * width) + "|")
    return blocks + (["\n".join(lines)] if lines else [])


def _row_span(cell: lxml.html.HtmlElement) -> int:
    """The rows a cell spans down (1 when the attribute is missing, nonsense or 0; at most 100)."""
    try:
        return max(1, min(int(cell.get("rowspan", "1")), 100))
    except ValueError:
        return 1


def _span(cell: lxml.html.HtmlElement) -> int:
    """The columns a cell spans (1 when the attribute is missing or nonsense; at most 100)."""
    try:
        return max(1, min(int(cell.get("colspan", "1")), 100))
    except ValueError:
        return 1
