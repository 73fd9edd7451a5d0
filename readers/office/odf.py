"""The OpenDocument reader: ODT, ODS and ODP from their XML, with no library but the bounded zip reader.

``content.xml`` (and ``styles.xml`` for styles, headers and footers) are read through
:class:`readers.archives.safezip.SafeZip` and parsed by :func:`readers.archives.safezip.parse_xml` (entity
declarations
refused). Which of the three a file is comes from its body (``office:text``, ``office:spreadsheet``,
``office:presentation``), not from its name. An encrypted document says so in ``META-INF/manifest.xml``
(``manifest:encryption-data``): ``EncryptedDocument``. Not a zip, or a zip without ``content.xml``:
``CorruptDocument``.

- ODT, one page: headings (``text:h`` by outline level, and paragraphs whose style is Title or carries an
  outline level) as ``#``; lists as ``- `` / ``N. `` by their list style; tables as GFM; text in frames
  and shapes after the paragraph that anchors them; footnotes and endnotes as ``[^N]`` with their texts
  after the body; headers and footers of the master pages at the end, each distinct one once. Deleted
  text (tracked changes), comments and index templates are not the document's text and are skipped.
- ODS, one page per sheet: ``## <name>`` (``(hidden)`` when it is) and its rows as ``Header: value``
  records, as the XLSX reader writes them. The cells' text is what the spreadsheet displays: ODF stores
  it beside the value, so dates and numbers are already formatted.
- ODP, one page per slide: ``## Slide N: <title>``, the other frames in reading order (top, then left;
  groups recursed), tables as GFM, then ``Notes:`` and the speaker notes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar
from xml.etree.ElementTree import Element

from readers.archives.safezip import parse_xml
from readers.core.base import Reader, require_readable_file
from readers.core.errors import CorruptDocument, EncryptedDocument, LimitExceeded
from readers.core.markup import gfm_table, markup_tables, one_line
from readers.core.model import ContentKind, PageFacts, PageText, ReadLimits, ReadResult
from readers.office.office_files import TextBudget, join_blocks, open_zip
from readers.office.regions import GridRow, sheet_tables

OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
SVG = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}"
PRESENTATION = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"

MAX_HEADING = 6
LIST_INDENT = "   "

# Cells a spreadsheet's tables may expand to, counting repeated cells that hold text (empty repeats, such
# as the 16,384-column and 1,048,576-row padding every ODS sheet ends with, cost nothing). The same bound
# as the XLSX reader's, for the same reason.
MAX_CELLS = 10_000_000
# Empty rows a run of repeated empty rows stands for: the regions of a sheet need to see 2 blank rows
# between tables (readers/office/regions.py's gaps are at most 1), not the run's real length.
EMPTY_ROWS_KEPT = 3

# Elements whose content is not the document's visible text: tracked deletions and change marks,
# comments, declarations, forms, the templates of generated indexes (their bodies are read), drawing
# titles and descriptions (alternative text), and a presentation's notes (read separately).
_SKIP = frozenset(
    {
        f"{TEXT}tracked-changes",
        f"{TEXT}sequence-decls",
        f"{TEXT}variable-decls",
        f"{TEXT}user-field-decls",
        f"{TEXT}dde-connection-decls",
        f"{TEXT}soft-page-break",
        f"{TEXT}change",
        f"{TEXT}change-start",
        f"{TEXT}change-end",
        f"{TEXT}table-of-content-source",
        f"{TEXT}illustration-index-source",
        f"{TEXT}table-index-source",
        f"{TEXT}object-index-source",
        f"{TEXT}user-index-source",
        f"{TEXT}alphabetical-index-source",
        f"{TEXT}bibliography-source",
        f"{OFFICE}annotation",
        f"{OFFICE}annotation-end",
        f"{OFFICE}forms",
        f"{SVG}title",
        f"{SVG}desc",
        f"{PRESENTATION}notes",
        f"{TABLE}shapes",
    }
)
_SHAPES = frozenset(
    {
        f"{DRAW}frame",
        f"{DRAW}text-box",
        f"{DRAW}rect",
        f"{DRAW}custom-shape",
        f"{DRAW}ellipse",
        f"{DRAW}circle",
        f"{DRAW}polygon",
        f"{DRAW}polyline",
        f"{DRAW}path",
        f"{DRAW}caption",
        f"{DRAW}measure",
        f"{DRAW}connector",
        f"{DRAW}line",
        f"{DRAW}g",
    }
)
_UNITS_CM = {"cm": 1.0, "mm": 0.1, "in": 2.54, "pt": 2.54 / 72, "pc": 2.54 / 6, "px": 2.54 / 96}
_WHITESPACE = re.compile(r"[ \t\r\n]+")
_LENGTH = re.compile(r"(-?[\d.]+)\s*([a-z]*)")

Block = tuple[str, bool]


def _attr(element: Element, name: str, default: str = "") -> str:
    return element.get(name, default)


def _int(value: str | None, default: int = 1) -> int:
    return int(value) if value and value.isdigit() else default


@dataclass
class _OdfStyles:
    """What the reader needs of the styles: list levels, paragraph styles' parents, title and outline
    level, and which table styles hide their sheet."""

    lists: dict[str, dict[int, str]] = field(default_factory=dict)  # style -> level -> "bullet"/"number"
    parents: dict[str, str] = field(default_factory=dict)
    display: dict[str, str] = field(default_factory=dict)  # style name -> display name, lower case
    outline: dict[str, int] = field(default_factory=dict)
    hidden_tables: set[str] = field(default_factory=set)

    def add(self, root: Element | None) -> None:
        if root is None:
            return
        for list_style in root.iter(f"{TEXT}list-style"):
            levels: dict[int, str] = {}
            for level in list_style:
                number = _int(level.get(f"{TEXT}level"))
                if level.tag == f"{TEXT}list-level-style-number":
                    levels[number] = "number" if level.get(f"{STYLE}num-format", "1") else "none"
                else:
                    levels[number] = "bullet"
            self.lists[_attr(list_style, f"{STYLE}name")] = levels
        for style in root.iter(f"{STYLE}style"):
            name = _attr(style, f"{STYLE}name")
            family = _attr(style, f"{STYLE}family")
            if family == "table":
                props = style.find(f"{STYLE}table-properties")
                if props is not None and props.get(f"{TABLE}display") == "false":
                    self.hidden_tables.add(name)
                continue
            if family != "paragraph":
                continue
            parent = style.get(f"{STYLE}parent-style-name")
            if parent:
                self.parents[name] = parent
            self.display[name] = _attr(style, f"{STYLE}display-name", name.replace("_20_", " ")).lower()
            level = style.get(f"{STYLE}default-outline-level")
            if level and level.isdigit() and int(level) > 0:
                self.outline[name] = int(level)

    def heading_level(self, style: str | None) -> int | None:
        """1 for a Title paragraph, the outline level of a style that carries one, else None."""
        seen: set[str] = set()
        while style and style not in seen:
            seen.add(style)
            if self.display.get(style) == "title":
                return 1
            if style in self.outline:
                return self.outline[style]
            style = self.parents.get(style)
        return None


@dataclass
class _OdfNotes:
    labels: list[tuple[str, Element]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def ref(self, note: Element) -> str:
        kind = _attr(note, f"{TEXT}note-class", "footnote")
        self.counts[kind] = self.counts.get(kind, 0) + 1
        label = f"{'' if kind == 'footnote' else 'e'}{self.counts[kind]}"
        self.labels.append((label, note))
        return label


class _OdfWalker:
    """ODF text content to markdown blocks; one per document."""

    def __init__(self, styles: _OdfStyles, budget: TextBudget) -> None:
        self.styles = styles
        self.budget = budget
        self.notes = _OdfNotes()
        self.boxes_seen: set[str] = set()
        self.shape_depth = 0
        self.headings = 0
        self.tables = 0
        self.cells = 0

    def blocks(
        self, container: Element, *, in_cell: bool = False, list_style: str | None = None
    ) -> list[Block]:
        out: list[Block] = []
        for child in container:
            tag = child.tag
            if tag in _SKIP:
                continue
            if tag in (f"{TEXT}h", f"{TEXT}p"):
                out += self.paragraph(child, in_cell=in_cell)
            elif tag == f"{TEXT}list":
                out += self.list(child, 0, list_style, in_cell=in_cell)
            elif tag == f"{TABLE}table":
                if in_cell:
                    out.append((" ".join(c for row in self.table_rows(child) for c in row if c), False))
                else:
                    table = gfm_table(self.table_rows(child))
                    if table:
                        self.tables += 1
                        out.append((self.budget.add(table), False))
            elif tag in _SHAPES:
                out += self.shape(child, in_cell=in_cell)
            else:  # sections, index bodies, table rows' wrappers...: containers of blocks
                out += self.blocks(child, in_cell=in_cell, list_style=list_style)
        return out

    def paragraph(self, p: Element, *, in_cell: bool) -> list[Block]:
        pieces: list[str] = []
        shapes: list[Element] = []
        self.inline(p, pieces, shapes)
        text = "".join(pieces).strip()
        out: list[Block] = []
        if text:
            self.budget.add(text)
            level = None
            if not in_cell:
                if p.tag == f"{TEXT}h":
                    level = _int(p.get(f"{TEXT}outline-level"))
                else:
                    level = self.styles.heading_level(p.get(f"{TEXT}style-name"))
            if level is not None:
                self.headings += 1
                out.append(("#" * min(max(level, 1), MAX_HEADING) + " " + one_line(text), False))
            else:
                out.append((text, False))
        for shape in shapes:
            out += self.shape(shape, in_cell=in_cell)
        return out

    def shape(self, shape: Element, *, in_cell: bool) -> list[Block]:
        """A frame or drawing shape's text, once per distinct text (a text box drawn twice reads once);
        judged on the outermost shape, whose text includes its text box's."""
        self.shape_depth += 1
        try:
            blocks = self.blocks(shape, in_cell=in_cell)
        finally:
            self.shape_depth -= 1
        if self.shape_depth:
            return blocks
        key = join_blocks(blocks)
        if not key or key in self.boxes_seen:
            return []
        self.boxes_seen.add(key)
        return blocks

    def list(self, lst: Element, depth: int, style: str | None, *, in_cell: bool) -> list[Block]:
        style = lst.get(f"{TEXT}style-name") or style
        kind = self.styles.lists.get(style or "", {}).get(depth + 1, "bullet")
        out: list[Block] = []
        number = 0
        for item in lst:
            if item.tag not in (f"{TEXT}list-item", f"{TEXT}list-header"):
                continue
            start = item.get(f"{TEXT}start-value")
            number = int(start) if start and start.isdigit() else number + 1
            first = True
            for child in item:
                if child.tag == f"{TEXT}list":
                    out += self.list(child, depth + 1, style, in_cell=in_cell)
                    continue
                for text, _ in self.blocks(_wrap(child), in_cell=True, list_style=style):
                    if in_cell:
                        out.append((text, False))
                        continue
                    mark = ""
                    if item.tag == f"{TEXT}list-item" and kind != "none":
                        mark = f"{number}. " if kind == "number" else "- "
                    indent = LIST_INDENT * depth
                    prefix = indent + mark if first else indent + " " * len(mark)
                    out.append((prefix + text.replace("\n", "\n" + indent + " " * len(mark)), True))
                    first = False
        return out

    def inline(self, element: Element, pieces: list[str], shapes: list[Element]) -> None:
        """A paragraph's text. Whitespace in the XML is collapsed, as ODF 1.2 §6.1.2 says it is displayed;
        ``text:s``, ``text:tab`` and ``text:line-break`` are the document's own spaces and breaks."""
        if element.text:
            pieces.append(_WHITESPACE.sub(" ", element.text))
        for child in element:
            tag = child.tag
            if tag == f"{TEXT}s":
                pieces.append(" " * _int(child.get(f"{TEXT}c")))
            elif tag == f"{TEXT}tab":
                pieces.append("\t")
            elif tag == f"{TEXT}line-break":
                pieces.append("\n")
            elif tag == f"{TEXT}note":
                pieces.append(f"[^{self.notes.ref(child)}]")
            elif tag in _SHAPES:
                shapes.append(child)
            elif tag not in _SKIP:
                self.inline(child, pieces, shapes)
            if child.tail:
                pieces.append(_WHITESPACE.sub(" ", child.tail))

    def table_rows(self, table: Element) -> list[list[str]]:
        rows: list[list[str]] = []
        for cells in self.rows(table):
            width = max(cells, default=-1) + 1
            rows.append([cells.get(i, "") for i in range(width)])
        return rows

    def rows(self, table: Element) -> Iterator[dict[int, str]]:
        """The table's rows as sparse cells (column -> text), repeated rows and cells expanded only where
        they hold text; an empty row is an empty dict (a run of empty repeated rows yields at most
        :data:`EMPTY_ROWS_KEPT`)."""
        for row in _table_row_elements(table):
            cells: dict[int, str] = {}
            column = 0
            for cell in row:
                if cell.tag not in (f"{TABLE}table-cell", f"{TABLE}covered-table-cell"):
                    continue
                repeat = _int(cell.get(f"{TABLE}number-columns-repeated"))
                text = self.cell_text(cell) if cell.tag == f"{TABLE}table-cell" else ""
                if text:
                    self.count_cells(repeat)
                    for offset in range(repeat):
                        cells[column + offset] = text
                column += repeat
            repeat_rows = _int(row.get(f"{TABLE}number-rows-repeated"))
            if cells:
                self.count_cells(len(cells) * (repeat_rows - 1))
                for _ in range(repeat_rows):
                    yield cells
            else:
                # A run of empty rows as up to EMPTY_ROWS_KEPT of them: enough for a sheet's blank rows
                # to part its tables (readers/office/regions.py), never a million rows to walk.
                for _ in range(min(repeat_rows, EMPTY_ROWS_KEPT)):
                    yield cells

    def count_cells(self, n: int) -> None:
        self.cells += n
        if self.cells > MAX_CELLS:
            raise LimitExceeded(f"the document's tables expand to more than {MAX_CELLS} cells")

    def cell_text(self, cell: Element) -> str:
        text = " ".join(one_line(t) for t, _ in self.blocks(cell, in_cell=True) if t.strip())
        if text:
            return text
        for name in ("value", "date-value", "time-value", "boolean-value", "string-value"):
            value = cell.get(f"{OFFICE}{name}")
            if value:
                return value
        return ""

    def note_definitions(self) -> list[Block]:
        out: list[Block] = []
        for label, note in self.notes.labels:
            body = note.find(f"{TEXT}note-body")
            if body is None:
                continue
            text = " ".join(one_line(t) for t, _ in self.blocks(body, in_cell=True) if t.strip())
            if text:
                out.append((self.budget.add(f"[^{label}]: {text}"), False))
        return out


def _wrap(element: Element) -> Element:
    """A one-child container, so a list item's paragraph goes through :meth:`_OdfWalker.blocks`."""
    holder = Element("holder")
    holder.append(element)
    return holder


def _table_row_elements(table: Element) -> Iterator[Element]:
    for child in table:
        if child.tag == f"{TABLE}table-row":
            yield child
        elif child.tag in (
            f"{TABLE}table-header-rows",
            f"{TABLE}table-rows",
            f"{TABLE}table-row-group",
        ):
            yield from _table_row_elements(child)


def _length_cm(value: str | None) -> float:
    match = _LENGTH.match(value or "")
    if not match:
        return 0.0
    try:
        number = float(match.group(1))
    except ValueError:
        return 0.0
    return number * _UNITS_CM.get(match.group(2), 1.0)


class OdfReader(Reader):
    """Reads OpenDocument text, spreadsheets and presentations from their XML.

    No third-party library decides the text (the XML is parsed by the standard library's expat through
    defusedxml's guard), so the version is the reader's revision alone.
    """

    name: ClassVar[str] = "odf"
    # What each revision changed: docs/decisions.md, "Text judging: calibration notes".
    revision: ClassVar[int] = 2
    kinds: ClassVar[frozenset[ContentKind]] = frozenset({ContentKind.ODT, ContentKind.ODS, ContentKind.ODP})

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        require_readable_file(path)
        with open_zip(path, limits) as zf:
            if zf.has("META-INF/manifest.xml"):
                manifest = parse_xml(zf.read("META-INF/manifest.xml"), "META-INF/manifest.xml")
                if manifest.find(f".//{MANIFEST}encryption-data") is not None:
                    raise EncryptedDocument(f"{path.name}: a password-protected OpenDocument file")
            if not zf.has("content.xml"):
                raise CorruptDocument(f"{path.name}: a zip, but not an OpenDocument file (no content.xml)")
            content = parse_xml(zf.read("content.xml"), "content.xml")
            styles_root = parse_xml(zf.read("styles.xml"), "styles.xml") if zf.has("styles.xml") else None
        body = content.find(f"{OFFICE}body")
        if body is None or not len(body):
            raise CorruptDocument(f"{path.name}: content.xml has no office:body")
        styles = _OdfStyles()
        styles.add(styles_root)
        styles.add(content)
        budget = TextBudget(limits)
        walker = _OdfWalker(styles, budget)
        kind = body[0].tag
        try:
            if kind == f"{OFFICE}spreadsheet":
                pages = _spreadsheet(body[0], walker)
            elif kind in (f"{OFFICE}presentation", f"{OFFICE}drawing"):
                pages = _presentation(body[0], walker)
            elif kind == f"{OFFICE}text":
                pages = [_text(body[0], walker, styles_root)]
            else:
                raise CorruptDocument(f"{path.name}: an OpenDocument body of an unknown kind ({kind})")
        except RecursionError as exc:
            raise CorruptDocument(f"{path.name}: content nested too deeply to read") from exc
        if len(pages) > limits.max_pages:
            raise LimitExceeded(f"{path.name}: {len(pages)} pages, over the limit of {limits.max_pages}")
        budget.check("\n\n".join(p.text for p in pages))
        return markup_tables(ReadResult(pages=tuple(pages), page_count=len(pages)), "markup=odf")


def _text(body: Element, walker: _OdfWalker, styles_root: Element | None) -> PageText:
    blocks = walker.blocks(body)
    blocks += walker.note_definitions()
    blocks += _headers_and_footers(walker, styles_root)
    facts = PageFacts(tables=walker.tables, headings=walker.headings)
    return PageText(page=1, text=join_blocks(blocks), facts=facts)


_HEADER_FOOTER = {
    f"{STYLE}header": "Header",
    f"{STYLE}header-left": "Header (left pages)",
    f"{STYLE}header-first": "Header (first page)",
    f"{STYLE}footer": "Footer",
    f"{STYLE}footer-left": "Footer (left pages)",
    f"{STYLE}footer-first": "Footer (first page)",
}


def _headers_and_footers(walker: _OdfWalker, styles_root: Element | None) -> list[Block]:
    if styles_root is None:
        return []
    out: list[Block] = []
    seen: set[str] = set()
    for master in styles_root.iter(f"{STYLE}master-page"):
        for part in master:
            label = _HEADER_FOOTER.get(part.tag)
            if label is None or part.get(f"{STYLE}display") == "false":
                continue
            blocks = walker.blocks(part)
            text = join_blocks(blocks)
            if text and text not in seen:
                seen.add(text)
                out.append((f"## {label}", False))
                out += blocks
    return out


def _spreadsheet(spreadsheet: Element, walker: _OdfWalker) -> list[PageText]:
    pages: list[PageText] = []
    sheets = [child for child in spreadsheet if child.tag == f"{TABLE}table"]
    for number, table in enumerate(sheets, start=1):
        name = _attr(table, f"{TABLE}name", f"Sheet{number}")
        hidden = " (hidden)" if table.get(f"{TABLE}style-name") in walker.styles.hidden_tables else ""
        rows = [GridRow(n, cells) for n, cells in enumerate(walker.rows(table)) if cells]
        lines = [f"## {name}{hidden}", *sheet_tables(rows)]
        pages.append(PageText(page=number, text=walker.budget.add("\n".join(lines))))
    return pages


def _presentation(presentation: Element, walker: _OdfWalker) -> list[PageText]:
    pages: list[PageText] = []
    for number, page in enumerate(presentation.iter(f"{DRAW}page"), start=1):
        title = ""
        body: list[Block] = []
        walker.tables = 0
        walker.boxes_seen.clear()  # a text repeated on another slide is that slide's text too
        for frame in _reading_order(page):
            klass = frame.get(f"{PRESENTATION}class", "")
            if klass in ("page-number", "date-time") or frame.tag in _SKIP:
                continue
            if klass == "title" and not title:
                title = one_line(" ".join(t for t, _ in walker.blocks(frame, in_cell=True)))
                continue
            body += walker.blocks(_wrap(frame))
        heading = f"## Slide {number}: {title}" if title else f"## Slide {number}"
        blocks: list[Block] = [(walker.budget.add(heading), False), *body]
        notes = page.find(f"{PRESENTATION}notes")
        if notes is not None:
            note_blocks = [
                b
                for frame in _reading_order(notes)
                if frame.get(f"{PRESENTATION}class") == "notes"
                for b in walker.blocks(_wrap(frame))
            ]
            if note_blocks:
                blocks += [("Notes:", False), *note_blocks]
        pages.append(PageText(page=number, text=join_blocks(blocks), facts=PageFacts(tables=walker.tables)))
    return pages


def _reading_order(container: Element) -> list[Element]:
    """Shapes top to bottom, then left to right (svg:y, svg:x); others keep their place at the top."""
    return sorted(
        (child for child in container if child.tag not in _SKIP),
        key=lambda e: (_length_cm(e.get(f"{SVG}y")), _length_cm(e.get(f"{SVG}x"))),
    )
