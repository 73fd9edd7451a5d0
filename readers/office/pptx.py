"""The PPTX reader: a presentation (.pptx, .pptm, slide shows, templates) as one page per slide.

python-pptx opens the package after :func:`readers.office.office_files.open_ooxml` has checked the container
within bounds. Each page is::

    ## Slide N: <title>            ("(hidden)" for a hidden slide; no title, no colon)
    <the other shapes' text in reading order: top to bottom, then left to right; groups recursed>
    <tables as GFM; charts as their title, type and series (readers.office.charts)>
    Notes:
    <the speaker notes>
    Comments:
    - <author>: <comment>
       - <author>: <reply>

Paragraphs are lines; in body placeholders, whose master styles draw bullets, and wherever a paragraph
sets a bullet or a number itself, they are list items indented by level. A footer or date placeholder on
the slide is read like any shape (slide numbers are not: they are the page number again). Text that lives
only on a layout or master (placeholder prompts, decorations) is not the slide's and is not read.

Comments are parts python-pptx does not model: the legacy ones (``ppt/comments/commentN.xml``, a
``p:cmLst``, authors in ``ppt/commentAuthors.xml``, a reply naming its parent in ``p15:parentCm``) and
the threaded ones of PowerPoint 365 (``ppt/comments/modernComment_*.xml``, a ``p188:cmLst`` whose
comments hold their replies, authors in ``ppt/authors.xml``). Both are found by relationship type from
the slide (authors from the presentation) and parsed with entities refused
(:func:`readers.archives.safezip.parse_xml`). A comments part that is not well-formed is left out: the
slide is read without its comments, never refused for them.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import Any, ClassVar

import pptx
from lxml import etree
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER
from pptx.exc import PythonPptxError
from pptx.package import Package

from readers.archives.safezip import parse_xml
from readers.core.base import Reader
from readers.core.errors import CorruptDocument, LimitExceeded
from readers.core.markup import gfm_table, markup_tables, one_line
from readers.core.model import ContentKind, PageFacts, PageText, ReadLimits, ReadResult
from readers.office.charts import chart_lines
from readers.office.office_files import TextBudget, join_blocks, open_ooxml

#: Main part content types read as presentations.
MAIN_TYPES = (
    "presentationml.presentation.main+xml",
    "presentationml.slideshow.main+xml",
    "presentationml.template.main+xml",
    "ms-powerpoint.presentation.macroEnabled.main+xml",
    "ms-powerpoint.slideshow.macroEnabled.main+xml",
    "ms-powerpoint.template.macroEnabled.main+xml",
)

A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
P188 = "{http://schemas.microsoft.com/office/powerpoint/2018/8/main}"
P15 = "{http://schemas.microsoft.com/office/powerpoint/2012/main}"

#: Relationship types of the comment parts (from a slide) and their authors (from the presentation).
LEGACY_COMMENTS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments"
LEGACY_AUTHORS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/commentAuthors"
MODERN_COMMENTS_REL = "http://schemas.microsoft.com/office/2018/10/relationships/comments"
MODERN_AUTHORS_REL = "http://schemas.microsoft.com/office/2018/10/relationships/authors"
#: Spaces per list level, as in the DOCX reader: enough to nest under "- " and "1. " alike.
LIST_INDENT = "   "

#: Placeholders whose paragraphs are bullets unless a paragraph says otherwise (the master's body style).
_BULLETED = frozenset({PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT})
#: Placeholders not read: the slide number repeats the page number, the notes page's slide image has no
#: text of its own.
_SKIPPED = frozenset({PP_PLACEHOLDER.SLIDE_NUMBER, PP_PLACEHOLDER.SLIDE_IMAGE})

# What python-pptx and lxml raise for a package that opens but is not a well-formed presentation.
_LIBRARY_ERRORS = (
    PythonPptxError,
    KeyError,
    ValueError,
    TypeError,
    AttributeError,
    IndexError,
    etree.LxmlError,
)

Block = tuple[str, bool]

#: The parts python-pptx parses as charts when it opens a package (``ppt/charts/chart1.xml``).
_CHART_PART = re.compile(r"^ppt/charts/chart[^/]*\.xml$")
#: What stands in for a chart part that is not well-formed XML: a chart with nothing in it, which reads
#: as no lines, as a chart frame whose part is missing does.
_EMPTY_CHART = (
    b'<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart">'
    b"<c:chart><c:plotArea/></c:chart></c:chartSpace>"
)


class PptxReader(Reader):
    """Reads a presentation into one page per slide: title, body, tables, notes."""

    name: ClassVar[str] = "python-pptx"
    # What each revision changed: docs/decisions.md, "Text judging: calibration notes".
    revision: ClassVar[int] = 3
    kinds: ClassVar[frozenset[ContentKind]] = frozenset({ContentKind.PPTX})

    @property
    def tool_version(self) -> str:
        return pptx.__version__

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        open_ooxml(path, limits, what="presentation", main_types=MAIN_TYPES)
        try:
            # The package's main part, not pptx.Presentation(): that refuses slide shows and templates.
            presentation = _open_package(path).main_document_part.presentation
            slides = list(presentation.slides)
            if len(slides) > limits.max_pages:
                raise LimitExceeded(
                    f"{path.name}: {len(slides)} slides, over the limit of {limits.max_pages}"
                )
            budget = TextBudget(limits)
            authors = _Authors(presentation.part)
            pages = tuple(
                _slide_page(number, slide, budget, authors) for number, slide in enumerate(slides, start=1)
            )
        except _LIBRARY_ERRORS as exc:
            raise CorruptDocument(
                f"{path.name}: not a readable presentation: {type(exc).__name__}: {exc}"
            ) from exc
        except RecursionError as exc:
            raise CorruptDocument(f"{path.name}: shapes nested too deeply to read") from exc
        budget.check("\n\n".join(p.text for p in pages))
        return markup_tables(ReadResult(pages=pages, page_count=len(pages)), "markup=pptx")


def _open_package(path: Path) -> Package:
    """The presentation's package. python-pptx parses every chart part as it opens one, so a chart that
    is not well-formed XML would stop the whole deck: such a chart is read as empty and the slides are
    read."""
    try:
        return Package.open(str(path))
    except etree.XMLSyntaxError:
        repaired = _with_empty_broken_charts(path)
        if repaired is None:
            raise
        return Package.open(repaired)


def _with_empty_broken_charts(path: Path) -> io.BytesIO | None:
    """A copy of the package (its size already checked by ``open_ooxml``) in which each chart part that
    is not well-formed XML is an empty chart; None when every chart part is well-formed."""
    out = io.BytesIO()
    replaced = False
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
        for item in source.infolist():
            data = source.read(item)
            if _CHART_PART.match(item.filename):
                try:
                    parse_xml(data, what="chart part")
                except CorruptDocument:
                    data, replaced = _EMPTY_CHART, True
            copy.writestr(item, data)
    return out if replaced else None


def _slide_page(number: int, slide: Any, budget: TextBudget, authors: _Authors) -> PageText:
    title_shape = slide.shapes.title
    title = one_line(title_shape.text_frame.text) if title_shape is not None else ""
    hidden = " (hidden)" if slide.element.get("show") in ("0", "false") else ""
    heading = f"## Slide {number}{hidden}: {title}" if title else f"## Slide {number}{hidden}"
    counts = {"tables": 0}
    blocks: list[Block] = [(budget.add(heading), False)]
    blocks += _shapes(slide.shapes, title_shape, budget, counts)
    if slide.has_notes_slide:
        notes = _notes(slide.notes_slide, budget)
        if notes:
            blocks.append(("Notes:", False))
            blocks += notes
    comments = _comments(slide.part, authors, budget)
    if comments:
        blocks.append(("Comments:", False))
        blocks += comments
    facts = PageFacts(tables=counts["tables"], headings=1)
    return PageText(page=number, text=join_blocks(blocks), facts=facts)


def _reading_order(shapes: Any) -> list[Any]:
    """Top to bottom, then left to right; shapes without a position keep their place at the top."""
    return sorted(shapes, key=lambda s: (s.top or 0, s.left or 0))


def _shapes(shapes: Any, title_shape: Any, budget: TextBudget, counts: dict[str, int]) -> list[Block]:
    out: list[Block] = []
    for shape in _reading_order(shapes):
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        placeholder = _placeholder_type(shape)
        if placeholder in _SKIPPED:
            continue
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            out += _shapes(shape.shapes, None, budget, counts)
        elif getattr(shape, "has_table", False) and shape.has_table:
            table = gfm_table(_table_rows(shape.table))
            if table:
                counts["tables"] += 1
                out.append((budget.add(table), False))
        elif getattr(shape, "has_chart", False) and shape.has_chart:
            lines = _chart(shape)
            if lines:
                out.append((budget.add("\n".join(lines)), False))
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            out += _paragraphs(shape.text_frame, bulleted=placeholder in _BULLETED, budget=budget)
    return out


def _chart(shape: Any) -> list[str]:
    """A chart frame's title, type and series as text (:mod:`readers.office.charts`), from the chart
    part's XML; a frame whose chart part is missing or unreadable is no lines."""
    try:
        blob = shape.chart_part.blob
    except (KeyError, ValueError, AttributeError):  # no relationship, or no chart part behind it
        return []
    try:
        return chart_lines(parse_xml(blob, what="chart part"))
    except CorruptDocument:
        return []


def _placeholder_type(shape: Any) -> Any:
    if not shape.is_placeholder:
        return None
    try:
        return shape.placeholder_format.type
    except ValueError:  # a placeholder element without a type python-pptx knows
        return None


def _paragraphs(frame: Any, *, bulleted: bool, budget: TextBudget) -> list[Block]:
    """A text frame's paragraphs as lines, or as list items where a bullet or number is drawn."""
    out: list[Block] = []
    counters: dict[int, int] = {}
    for paragraph in frame.paragraphs:
        text = paragraph.text.replace("\v", "\n").strip()
        if not text:
            continue
        budget.add(text)
        level = paragraph.level or 0
        mark = _bullet(paragraph, bulleted)
        if mark is None:
            counters.clear()
            out.append((text, False))
            continue
        for deeper in [k for k in counters if k > level]:
            del counters[deeper]
        if mark == "number":
            counters[level] = counters.get(level, 0) + 1
            mark = f"{counters[level]}. "
        indent = LIST_INDENT * level
        out.append((indent + mark + text.replace("\n", "\n" + indent + " " * len(mark)), True))
    return out


def _bullet(paragraph: Any, bulleted: bool) -> str | None:
    """ "- " for a bullet, "number" for an auto-numbered item, None for a plain paragraph: the paragraph's
    own setting wins, else the placeholder's default."""
    ppr = paragraph._p.pPr  # python-pptx has no bullet API; the paragraph properties element is public XML
    if ppr is not None:
        if ppr.find(f"{A}buNone") is not None:
            return None
        if ppr.find(f"{A}buAutoNum") is not None:
            return "number"
        if ppr.find(f"{A}buChar") is not None or ppr.find(f"{A}buBlip") is not None:
            return "- "
    return "- " if bulleted else None


def _table_rows(table: Any) -> list[list[str]]:
    """Cell texts by row; a merged cell's text once, at its origin, the cells it spans left empty."""
    rows: list[list[str]] = []
    for row in table.rows:
        rows.append(["" if cell.is_spanned else one_line(cell.text_frame.text) for cell in row.cells])
    return rows


def _notes(notes_slide: Any, budget: TextBudget) -> list[Block]:
    """The notes page's text: its body (the speaker notes) and any header, footer or date it shows."""
    out: list[Block] = []
    seen: set[str] = set()
    for shape in _reading_order(notes_slide.shapes):
        if _placeholder_type(shape) in _SKIPPED or not getattr(shape, "has_text_frame", False):
            continue
        for block in _paragraphs(shape.text_frame, bulleted=False, budget=budget):
            if block[0] not in seen:
                seen.add(block[0])
                out.append(block)
    return out


# --------------------------------------------------------------------------------------------------------
# Comments


def _related_xml(part: Any, reltype: str) -> list[Any]:
    """The parsed roots of ``part``'s related parts of ``reltype``; a part that is not well-formed XML
    (or declares entities) is left out."""
    roots = []
    for rel in part.rels.values():
        if rel.is_external or rel.reltype != reltype:
            continue
        target = rel.target_part
        try:
            roots.append(parse_xml(target.blob, str(target.partname)))
        except CorruptDocument:
            continue
    return roots


class _Authors:
    """Comment authors' names by id, legacy and threaded, read once per presentation."""

    def __init__(self, presentation_part: Any) -> None:
        self.legacy: dict[str, str] = {}
        self.modern: dict[str, str] = {}
        for root in _related_xml(presentation_part, LEGACY_AUTHORS_REL):
            for author in root.iter(f"{P}cmAuthor"):
                self.legacy[author.get("id", "")] = one_line(author.get("name", ""))
        for root in _related_xml(presentation_part, MODERN_AUTHORS_REL):
            for author in root.iter(f"{P188}author"):
                self.modern[author.get("id", "")] = one_line(author.get("name", ""))


def _comment_line(author: str, text: str, indent: str = "") -> str:
    return f"{indent}- {author}: {text}" if author else f"{indent}- {text}"


def _body_text(element: Any) -> str:
    """A threaded comment's or reply's text: its ``p188:txBody`` paragraphs, one line."""
    body = element.find(f"{P188}txBody")
    if body is None:
        return ""
    paragraphs = ["".join(t.text or "" for t in p.iter(f"{A}t")) for p in body.iter(f"{A}p")]
    return one_line(" ".join(paragraphs))


def _legacy_threads(root: Any, authors: _Authors) -> list[str]:
    """A legacy comments part's comments, each with the replies PowerPoint 2013 threads under it (a
    ``p15:parentCm`` naming its parent's author and index) indented below; a reply whose parent is not
    in the part stands on its own."""
    comments: list[tuple[tuple[str, str], tuple[str, str] | None, str]] = []
    for cm in root.iter(f"{P}cm"):
        text_element = cm.find(f"{P}text")
        text = one_line(text_element.text or "") if text_element is not None else ""
        if not text:
            continue
        parent = next(cm.iter(f"{P15}parentCm"), None)
        parent_key = None if parent is None else (parent.get("authorId", ""), parent.get("idx", ""))
        line = _comment_line(authors.legacy.get(cm.get("authorId", ""), ""), text)
        comments.append(((cm.get("authorId", ""), cm.get("idx", "")), parent_key, line))
    keys = {key for key, _, _ in comments}
    replies: dict[tuple[str, str], list[str]] = {}
    for _, parent_key, line in comments:
        if parent_key is not None and parent_key in keys:
            replies.setdefault(parent_key, []).append(LIST_INDENT + line)
    return [
        "\n".join([line, *replies.get(key, [])])
        for key, parent_key, line in comments
        if parent_key is None or parent_key not in keys
    ]


def _comments(slide_part: Any, authors: _Authors, budget: TextBudget) -> list[Block]:
    """The slide's comments as list items, ``- author: text``, a threaded comment's replies under it."""
    out: list[Block] = []
    for root in _related_xml(slide_part, LEGACY_COMMENTS_REL):
        out += [(budget.add(thread), True) for thread in _legacy_threads(root, authors)]
    for root in _related_xml(slide_part, MODERN_COMMENTS_REL):
        for cm in root.iter(f"{P188}cm"):
            lines = []
            text = _body_text(cm)
            if text:
                lines.append(_comment_line(authors.modern.get(cm.get("authorId", ""), ""), text))
            for reply in cm.iter(f"{P188}reply"):
                reply_text = _body_text(reply)
                if reply_text:
                    author = authors.modern.get(reply.get("authorId", ""), "")
                    lines.append(_comment_line(author, reply_text, LIST_INDENT if text else ""))
            if lines:
                out.append((budget.add("\n".join(lines)), True))
    return out
