"""The DOCX reader: a Word document as one page of markdown.

python-docx opens the package (content types, relationships, every part parsed by lxml with entities left
unresolved) after :func:`readers.office.office_files.open_ooxml` has checked the container within bounds. Its
object model only walks paragraphs and tables of the body, so the reader walks the parts' XML itself, in
document order:

- headings as ``#`` by style name (Title, Heading 1-9) and, where the style's name does not say, by outline
  level (``w:outlineLvl`` on the paragraph or inherited through its styles);
- list items (``w:numPr`` on the paragraph or its style) as ``- `` or ``N. `` by the level's number
  format in the numbering part, indented by level;
- tables as GFM, the first row the header, merged cells (``gridSpan``, ``vMerge``) written once and left
  empty where they continue, nested tables flattened into their cell;
- text boxes (``w:txbxContent``) after the paragraph that anchors them; of an ``mc:AlternateContent`` only
  the first branch with text is read (the DrawingML choice and its VML fallback hold the same box), and
  a box whose text was already written is not written again;
- footnote and endnote references as ``[^N]`` / ``[^eN]``, their texts after the body as definitions;
- headers and footers at the end under ``## Header`` / ``## Footer`` headings, each distinct one once;
- hyperlink text, field results, insertions; not deleted text, field codes or comments;
- equations (``m:oMath``) as linear text where they stand (:mod:`readers.office.omml`), a display
  equation (``m:oMathPara``) on a line of its own;
- embedded documents (``w:altChunk``: Word's "insert text from file", a part holding HTML, MHT, RTF,
  plain text or a whole DOCX that Word shows in the chunk's place) where they stand, each read by the
  reader of its kind (the HTML chain, :func:`readers.office.rtf.read_rtf_bytes`, this reader) within the
  document's limits, a DOCX in a DOCX to ``max_nesting`` deep; a chunk that cannot be read is named in
  the result's ``unread`` (``altchunk:<kind>:<reason>``), which the document's diagnostics keep.

The whole document is one page: Word's pagination is decided at layout time and is not in the file.
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import docx
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.exceptions import OpcError
from docx.opc.package import OpcPackage
from docx.opc.part import Part, PartFactory
from lxml import etree

from readers.archives.safezip import parse_xml
from readers.core.base import Reader
from readers.core.errors import CorruptDocument, LimitExceeded, ReaderError
from readers.core.markup import gfm_table, markup_tables, one_line
from readers.core.model import ContentKind, PageFacts, PageText, ReadLimits, ReadResult
from readers.html.chain import html_chain_version, read_html_bytes
from readers.office import omml
from readers.office.office_files import TextBudget, join_blocks, open_ooxml
from readers.text.encoding import decode_text

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"

#: Main part content types read as Word documents: documents and templates, with and without macros.
MAIN_TYPES = (
    "wordprocessingml.document.main+xml",
    "wordprocessingml.template.main+xml",
    "ms-word.document.macroEnabled.main+xml",
    "ms-word.template.macroEnabledTemplate.main+xml",
)

#: Markdown has six heading levels; Heading 7-9 (and outline levels 7-9) are written at the sixth.
MAX_HEADING = 6
#: ``w:outlineLvl`` 9 is "body text", not a level.
BODY_OUTLINE_LEVEL = 9
#: Spaces per list level: "1. " is three characters wide, so a nested item indented by three is nested
#: under either kind of item in CommonMark.
LIST_INDENT = "   "
#: Footnote types that are the separator lines Word draws, not notes.
_NOT_NOTES = frozenset({"separator", "continuationSeparator", "continuationNotice"})
_HEADING_NAME = re.compile(r"heading\s*([1-9])")
#: Number formats that are not numbers: a bullet, or no label at all.
_UNNUMBERED = frozenset({"bullet", "none"})

#: An altChunk's part by its content type (its parameters dropped), as the kind it is read as; a content
#: type holding one of :data:`MAIN_TYPES`, or the DOCX package's own, is a whole Word document.
ALT_CHUNK_KINDS = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "message/rfc822": "mht",
    "multipart/related": "mht",
    "application/x-mimearchive": "mht",
    "application/rtf": "rtf",
    "text/rtf": "rtf",
    "text/plain": "text",
}
#: How an altChunk that is not read is named in ``ReadResult.unread``, followed by ``<kind>:<reason>``.
ALT_CHUNK_UNREAD = "altchunk:"


def _part_class(content_type: str, reltype: str) -> type[Part] | None:
    """python-docx's choice of a part's class, except that an altChunk's part is kept as its bytes: a
    DOCX chunk's content type is a main document part's, and python-docx would parse its zip as XML,
    failing the whole document."""
    if reltype == RT.A_F_CHUNK:
        return Part
    return _DOCX_PART_CLASS(content_type, reltype) if _DOCX_PART_CLASS is not None else None


_DOCX_PART_CLASS = PartFactory.__dict__.get("part_class_selector")
PartFactory.part_class_selector = _part_class

# What python-docx and lxml raise for a package that opens but is not a well-formed Word document.
_LIBRARY_ERRORS = (OpcError, KeyError, ValueError, TypeError, AttributeError, IndexError, etree.LxmlError)

Block = tuple[str, bool]  # (markdown text, is a list item)


def _val(element: Any, tag: str) -> str | None:
    """The ``w:val`` of ``element``'s child ``tag``, or None."""
    if element is None:
        return None
    child = element.find(tag)
    return None if child is None else child.get(f"{W}val")


def _tag(element: Any) -> str:
    """The element's Clark tag ("" for comments and processing instructions, whose tag is not a str)."""
    tag = element.tag
    return tag if isinstance(tag, str) else ""


def _root(part: Any) -> Any:
    """A part's XML root: python-docx parsed the parts it models; the others (footnotes, endnotes, the
    main part of a macro-enabled document) are parsed here, entities refused."""
    element = getattr(part, "element", None)
    if element is not None:
        return element
    return parse_xml(part.blob, str(part.partname))


@dataclass(frozen=True, slots=True)
class _Style:
    name: str
    based_on: str | None
    outline: int | None
    num_id: str | None
    ilvl: str | None


class _Styles:
    """Paragraph styles by id, with the inherited properties the reader needs."""

    def __init__(self, root: Any | None) -> None:
        self.styles: dict[str, _Style] = {}
        self.default: str | None = None
        if root is None:
            return
        for style in root.iter(f"{W}style"):
            if style.get(f"{W}type", "paragraph") != "paragraph":
                continue
            sid = style.get(f"{W}styleId", "")
            ppr = style.find(f"{W}pPr")
            num = ppr.find(f"{W}numPr") if ppr is not None else None
            outline = _val(ppr, f"{W}outlineLvl")
            self.styles[sid] = _Style(
                name=(_val(style, f"{W}name") or "").lower(),
                based_on=_val(style, f"{W}basedOn"),
                outline=int(outline) if outline and outline.isdigit() else None,
                num_id=_val(num, f"{W}numId"),
                ilvl=_val(num, f"{W}ilvl"),
            )
            if style.get(f"{W}default") in ("1", "true", "on"):
                self.default = sid

    def chain(self, sid: str | None) -> Iterator[_Style]:
        """The style and the styles it is based on, nearest first (a loop is cut)."""
        seen: set[str] = set()
        sid = sid or self.default
        while sid and sid not in seen and sid in self.styles:
            seen.add(sid)
            style = self.styles[sid]
            yield style
            sid = style.based_on


class _Numbering:
    """List levels by (numId, ilvl): number format and start value, and running counters."""

    def __init__(self, root: Any | None) -> None:
        self.levels: dict[tuple[str, int], tuple[str, int]] = {}
        self.counters: dict[str, dict[int, int]] = {}
        if root is None:
            return
        abstract: dict[str, dict[int, tuple[str, int]]] = {}
        for a in root.iter(f"{W}abstractNum"):
            abstract[a.get(f"{W}abstractNumId", "")] = {
                int(lvl.get(f"{W}ilvl", "0")): _level(lvl) for lvl in a.iter(f"{W}lvl")
            }
        for num in root.iter(f"{W}num"):
            num_id = num.get(f"{W}numId", "")
            levels = dict(abstract.get(_val(num, f"{W}abstractNumId") or "", {}))
            for override in num.iter(f"{W}lvlOverride"):
                ilvl = int(override.get(f"{W}ilvl", "0"))
                lvl = override.find(f"{W}lvl")
                fmt, start = _level(lvl) if lvl is not None else levels.get(ilvl, ("bullet", 1))
                start_override = _val(override, f"{W}startOverride")
                if start_override and start_override.lstrip("-").isdigit():
                    start = int(start_override)
                levels[ilvl] = (fmt, start)
            for ilvl, level in levels.items():
                self.levels[(num_id, ilvl)] = level

    def label(self, num_id: str, ilvl: int) -> str | None:
        """``- `` or ``N. `` for the next item of the list, or None for a level without a label."""
        fmt, start = self.levels.get((num_id, ilvl), ("bullet", 1))
        counters = self.counters.setdefault(num_id, {})
        for deeper in [k for k in counters if k > ilvl]:
            del counters[deeper]
        if fmt == "none":
            return None
        if fmt == "bullet":
            return "- "
        counters[ilvl] = counters.get(ilvl, start - 1) + 1
        return f"{counters[ilvl]}. "


def _level(lvl: Any) -> tuple[str, int]:
    fmt = _val(lvl, f"{W}numFmt") or "decimal"
    start = _val(lvl, f"{W}start") or "1"
    return fmt, int(start) if start.lstrip("-").isdigit() else 1


@dataclass
class _Notes:
    """Footnote and endnote labels, numbered in the order the body first refers to them."""

    labels: dict[tuple[str, str], str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def ref(self, kind: str, note_id: str) -> str:
        key = (kind, note_id)
        if key not in self.labels:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            prefix = "" if kind == "footnote" else "e"
            self.labels[key] = f"{prefix}{self.counts[kind]}"
        return self.labels[key]


class _Walker:
    """Turns WordprocessingML block content into markdown blocks; one per document."""

    def __init__(
        self, styles: _Styles, numbering: _Numbering, budget: TextBudget, chunks: _AltChunks
    ) -> None:
        self.styles = styles
        self.numbering = numbering
        self.budget = budget
        self.chunks = chunks
        self.notes = _Notes()
        self.boxes_seen: set[str] = set()
        self.headings = 0
        self.tables = 0

    # Blocks ------------------------------------------------------------------------------------------

    def blocks(self, container: Any, *, in_cell: bool = False) -> list[Block]:
        out: list[Block] = []
        for child in container:
            tag = _tag(child)
            if tag == f"{W}p":
                out.extend(self.paragraph(child, in_cell=in_cell))
            elif tag == f"{W}tbl":
                if in_cell:
                    out.append((self.flat_table(child), False))
                else:
                    table = gfm_table(self.table_rows(child))
                    if table:
                        self.tables += 1
                        out.append((self.budget.add(table), False))
            elif tag in (f"{W}sdt", f"{W}sdtContent", f"{W}customXml", f"{W}ins", f"{W}moveTo"):
                out.extend(self.blocks(child, in_cell=in_cell))
            elif tag == f"{MC}AlternateContent":
                branch = _branch(child)
                if branch is not None:
                    out.extend(self.blocks(branch, in_cell=in_cell))
            elif tag == f"{W}altChunk":
                text = self.chunks.text(child.get(R_ID, ""))
                if text:
                    out.append((self.budget.add(text), False))
        return out

    def paragraph(self, p: Any, *, in_cell: bool) -> list[Block]:
        pieces: list[str] = []
        boxes: list[Any] = []
        self.inline(p, pieces, boxes)
        text = "".join(pieces).strip()
        out: list[Block] = []
        if text:
            self.budget.add(text)
            ppr = p.find(f"{W}pPr")
            level = None if in_cell else self.heading_level(ppr)
            if level is not None:
                self.headings += 1
                out.append(("#" * min(level, MAX_HEADING) + " " + one_line(text), False))
            else:
                label = None if in_cell else self.list_label(ppr)
                if label is not None:
                    indent, mark = label
                    out.append((indent + mark + text.replace("\n", "\n" + indent + " " * len(mark)), True))
                else:
                    out.append((text, False))
        for box in boxes:
            box_blocks = self.blocks(box, in_cell=in_cell)
            key = join_blocks(box_blocks)
            if key and key not in self.boxes_seen:
                self.boxes_seen.add(key)
                out.extend(box_blocks)
        return out

    def heading_level(self, ppr: Any) -> int | None:
        """1-9 from the style's name (Title, Heading N), else from the outline level, else None."""
        sid = _val(ppr, f"{W}pStyle")
        own = next(self.styles.chain(sid), None)
        if own is not None:
            if own.name == "title":
                return 1
            match = _HEADING_NAME.fullmatch(own.name)
            if match:
                return int(match.group(1))
        outline = _val(ppr, f"{W}outlineLvl")
        if outline is None:
            outline = next((str(s.outline) for s in self.styles.chain(sid) if s.outline is not None), None)
        if outline is not None and outline.isdigit() and int(outline) < BODY_OUTLINE_LEVEL:
            return int(outline) + 1
        return None

    def list_label(self, ppr: Any) -> tuple[str, str] | None:
        """(indent, "- " or "N. ") for a numbered paragraph, None otherwise."""
        num = ppr.find(f"{W}numPr") if ppr is not None else None
        num_id = _val(num, f"{W}numId")
        ilvl = _val(num, f"{W}ilvl")
        if num_id is None:
            for style in self.styles.chain(_val(ppr, f"{W}pStyle")):
                if style.num_id is not None:
                    num_id, ilvl = style.num_id, ilvl or style.ilvl
                    break
        if num_id is None or num_id == "0":
            return None
        level = int(ilvl) if ilvl and ilvl.isdigit() else 0
        mark = self.numbering.label(num_id, level)
        return None if mark is None else (LIST_INDENT * level, mark)

    # Inline content ----------------------------------------------------------------------------------

    def inline(self, element: Any, pieces: list[str], boxes: list[Any]) -> None:
        for child in element:
            tag = _tag(child)
            if tag == f"{W}t":
                pieces.append(child.text or "")
            elif tag == f"{M}oMath":
                pieces.append(omml.linear(child))
            elif tag == f"{M}oMathPara":
                pieces.append("\n" + "\n".join(omml.display_lines(child)) + "\n")
            elif tag == f"{W}tab":
                pieces.append("\t")
            elif tag in (f"{W}br", f"{W}cr"):
                pieces.append("\n")
            elif tag == f"{W}noBreakHyphen":
                pieces.append("-")
            elif tag == f"{W}sym":
                pieces.append(_symbol(child))
            elif tag == f"{W}footnoteReference":
                pieces.append(f"[^{self.notes.ref('footnote', child.get(f'{W}id', ''))}]")
            elif tag == f"{W}endnoteReference":
                pieces.append(f"[^{self.notes.ref('endnote', child.get(f'{W}id', ''))}]")
            elif tag == f"{W}txbxContent":
                boxes.append(child)
            elif tag == f"{MC}AlternateContent":
                branch = _branch(child)
                if branch is not None:
                    self.inline(branch, pieces, boxes)
            elif tag and tag not in _SKIP_INLINE:
                self.inline(child, pieces, boxes)

    # Tables ------------------------------------------------------------------------------------------

    def table_rows(self, tbl: Any) -> list[list[str]]:
        rows: list[list[str]] = []
        for tr in _children(tbl, f"{W}tr"):
            row: list[str] = []
            trpr = tr.find(f"{W}trPr")
            row.extend([""] * _int(_val(trpr, f"{W}gridBefore")))
            for tc in _children(tr, f"{W}tc"):
                tcpr = tc.find(f"{W}tcPr")
                span = max(1, _int(_val(tcpr, f"{W}gridSpan")) or 1)
                vmerge = tcpr.find(f"{W}vMerge") if tcpr is not None else None
                continues = vmerge is not None and vmerge.get(f"{W}val", "continue") == "continue"
                text = "" if continues else self.cell_text(tc)
                row.append(text)
                row.extend([""] * (span - 1))
            rows.append(row)
        return rows

    def cell_text(self, tc: Any) -> str:
        return " ".join(one_line(text) for text, _ in self.blocks(tc, in_cell=True) if text.strip())

    def flat_table(self, tbl: Any) -> str:
        """A table inside a table's cell, as one line of its cell texts."""
        return " ".join(cell for row in self.table_rows(tbl) for cell in row if cell)

    # Notes -------------------------------------------------------------------------------------------

    def note_definitions(self, kind: str, root: Any | None) -> list[Block]:
        """``[^N]: text`` for each note, the referenced ones in reference order, then any others."""
        if root is None:
            return []
        bodies: dict[str, Any] = {}
        for note in root.iter(f"{W}{kind}"):
            if note.get(f"{W}type", "normal") in _NOT_NOTES:
                continue
            bodies[note.get(f"{W}id", "")] = note
        referenced = [(nid, label) for (k, nid), label in self.notes.labels.items() if k == kind]
        order = [nid for nid, _ in referenced] + [
            nid for nid in bodies if (kind, nid) not in self.notes.labels
        ]
        out: list[Block] = []
        for nid in order:
            note = bodies.get(nid)
            if note is None:
                continue
            label = self.notes.ref(kind, nid)
            text = " ".join(one_line(t) for t, _ in self.blocks(note, in_cell=True) if t.strip())
            if text:
                out.append((self.budget.add(f"[^{label}]: {text}"), False))
        return out


_SKIP_INLINE = frozenset(
    {
        f"{W}pPr",
        f"{W}rPr",
        f"{W}del",
        f"{W}moveFrom",
        f"{W}delText",
        f"{W}instrText",
        f"{W}delInstrText",
        f"{W}footnoteRef",
        f"{W}endnoteRef",
        f"{W}annotationRef",
        f"{W}commentReference",
        f"{W}fldChar",
    }
)


def _symbol(sym: Any) -> str:
    """A ``w:sym`` character; symbol fonts' private-use codes (F0xx) have no Unicode meaning: dropped."""
    code = sym.get(f"{W}char", "")
    try:
        value = int(code, 16)
    except ValueError:
        return ""
    return "" if 0xE000 <= value <= 0xF8FF else chr(value)


def _branch(alternate: Any) -> Any | None:
    """The branch of an ``mc:AlternateContent`` to read: the first choice that holds text (an equation's
    runs count: Word gives an equation a picture of itself as the fallback), else the fallback, else the
    first choice."""
    choices = [c for c in alternate if _tag(c) == f"{MC}Choice"]
    fallback = next((c for c in alternate if _tag(c) == f"{MC}Fallback"), None)
    for choice in choices:
        if any(True for _ in choice.iter(f"{W}t", f"{M}t")):  # an equation's choice holds only math runs
            return choice
    return fallback if fallback is not None else (choices[0] if choices else None)


def _children(element: Any, tag: str) -> Iterator[Any]:
    """Children with ``tag``, looking through content controls and custom XML wrapping rows or cells."""
    for child in element:
        child_tag = _tag(child)
        if child_tag == tag:
            yield child
        elif child_tag in (f"{W}sdt", f"{W}sdtContent", f"{W}customXml"):
            yield from _children(child, tag)


def _int(value: str | None) -> int:
    return int(value) if value and value.isdigit() else 0


_HEADER_FOOTER_TYPES = {"default": "", "first": " (first page)", "even": " (even pages)"}


class DocxReader(Reader):
    """Reads a Word document (.docx, .docm, templates) into one page of markdown."""

    name: ClassVar[str] = "python-docx"
    # What each revision changed: docs/decisions.md, "Text judging: calibration notes".
    revision: ClassVar[int] = 4
    kinds: ClassVar[frozenset[ContentKind]] = frozenset({ContentKind.DOCX})

    @property
    def tool_version(self) -> str:
        """python-docx opens the package; the HTML chain reads embedded HTML."""
        return f"{docx.__version__}/{html_chain_version()}"

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        open_ooxml(path, limits, what="Word document", main_types=MAIN_TYPES)
        return markup_tables(read_package(str(path), limits, name=path.name, depth=1), "markup=docx")


def read_package(source: str | io.BytesIO, limits: ReadLimits, *, name: str, depth: int) -> ReadResult:
    """A Word package that passed :func:`readers.office.office_files.open_ooxml`, read; ``depth`` counts the
    documents it is embedded in, itself included (1 for a file)."""
    try:
        package = OpcPackage.open(source)
        return _read_main(package.main_document_part, limits, depth)
    except _LIBRARY_ERRORS as exc:
        raise CorruptDocument(f"{name}: not a readable Word document: {exc}") from exc
    except RecursionError as exc:
        raise CorruptDocument(f"{name}: content nested too deeply to read") from exc


def _read_main(main: Any, limits: ReadLimits, depth: int) -> ReadResult:
    budget = TextBudget(limits)
    chunks = _AltChunks(main, limits, depth)
    walker = _Walker(
        _Styles(_related_root(main, RT.STYLES)), _Numbering(_related_root(main, RT.NUMBERING)), budget, chunks
    )
    document = _root(main)
    body = document.find(f"{W}body")
    blocks = walker.blocks(body) if body is not None else []
    for kind, reltype in (("footnote", RT.FOOTNOTES), ("endnote", RT.ENDNOTES)):
        part = _related(main, reltype)
        with chunks.of(part):
            blocks += walker.note_definitions(kind, _root(part) if part is not None else None)
    blocks += _headers_and_footers(walker, main, document)
    text = budget.check(join_blocks(blocks))
    facts = PageFacts(tables=walker.tables, headings=walker.headings)
    return ReadResult(
        pages=(PageText(page=1, text=text, facts=facts),), page_count=1, unread=tuple(chunks.unread)
    )


class _AltChunks:
    """The embedded documents a main part's ``w:altChunk`` elements refer to, read by their kind's reader
    within the document's limits (module docstring); what cannot be read is named in :attr:`unread`."""

    def __init__(self, main: Any, limits: ReadLimits, depth: int) -> None:
        self.part = main  # the part whose relationships the chunks' ids name
        self.limits = limits
        self.depth = depth
        self.unread: list[str] = []
        self.read: dict[str, str] = {}  # the text of each part read, by its name

    @contextlib.contextmanager
    def of(self, part: Any | None) -> Iterator[None]:
        """Read the chunks of ``part`` (a header, a footer, the notes) meanwhile: their ids are its own."""
        before = self.part
        self.part = part if part is not None else before
        try:
            yield
        finally:
            self.part = before

    def text(self, rid: str) -> str:
        """The chunk's text as markdown, or "" and a line of :attr:`unread` saying why."""
        part = self.part.related_parts.get(rid)
        if part is None:
            return self._unread("missing", "no_part")
        kind = _chunk_kind(part.content_type)
        if kind is None:
            return self._unread(part.content_type.split(";")[0].strip() or "untyped", "unsupported")
        name = f"the embedded {kind} {part.partname}"
        if name not in self.read:  # a part referred to again is read once
            self.read[name] = self._chunk(kind, part.blob, name)
        return self.read[name]

    def _chunk(self, kind: str, data: bytes, name: str) -> str:
        try:
            text = self._read(kind, data, name)
        except LimitExceeded:
            raise  # bounds are bounds: the document's own
        except ReaderError as exc:
            return self._unread(kind, exc.reason)
        except Exception as exc:  # as in readers/engine/dispatch.py: one reader's bug must not lose the rest
            return self._unread(kind, f"reader_crashed:{type(exc).__name__}")
        return text.strip() or self._unread(kind, "empty_text")

    def _read(self, kind: str, data: bytes, name: str) -> str:
        if kind == "html":
            return read_html_bytes(data, limits=self.limits).text
        if kind == "mht":
            html = _mht_html(data)
            if html is None:
                raise CorruptDocument(f"{name}: no text/html part", reason="no_html_part")
            return read_html_bytes(html[0], declared_encoding=html[1], limits=self.limits).text
        if kind == "rtf":
            from readers.office.rtf import read_rtf_bytes  # rtf imports nothing of this module: no cycle

            return read_rtf_bytes(data, self.limits, name=name).text
        if kind == "text":
            if len(data) > self.limits.max_text_bytes:
                raise LimitExceeded(f"{name} is over the limit of {self.limits.max_text_bytes} bytes")
            return decode_text(data).text
        if self.depth >= self.limits.max_nesting:
            raise CorruptDocument(
                f"{name}: Word documents nest deeper than {self.limits.max_nesting}", reason="max_nesting"
            )
        open_ooxml(data, self.limits, what="Word document", main_types=MAIN_TYPES, name=name)
        nested = read_package(io.BytesIO(data), self.limits, name=name, depth=self.depth + 1)
        self.unread.extend(nested.unread)
        return nested.text

    def _unread(self, kind: str, reason: str) -> str:
        self.unread.append(f"{ALT_CHUNK_UNREAD}{kind}:{reason}")
        return ""


def _chunk_kind(content_type: str) -> str | None:
    """The kind an altChunk's content type is read as (:data:`ALT_CHUNK_KINDS`), or None."""
    bare = content_type.split(";")[0].strip().lower()
    if any(t in bare for t in MAIN_TYPES) or bare.endswith("wordprocessingml.document"):
        return "docx"
    return ALT_CHUNK_KINDS.get(bare)


def _mht_html(data: bytes) -> tuple[bytes, str | None] | None:
    """The first text/html part of a MIME web archive (MHT) and its declared charset."""
    message = email.message_from_bytes(data, policy=email.policy.compat32)
    for part in message.walk():
        if part.get_content_type() == "text/html":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                return payload, part.get_content_charset()
    return None


def _related(part: Any, reltype: str) -> Any | None:
    try:
        return part.part_related_by(reltype)
    except KeyError:
        return None


def _related_root(part: Any, reltype: str) -> Any | None:
    related = _related(part, reltype)
    return None if related is None else _root(related)


def _headers_and_footers(walker: _Walker, main: Any, document: Any) -> list[Block]:
    """Each distinct header and footer once, in the order the sections refer to them, under a heading."""
    out: list[Block] = []
    seen_parts: set[str] = set()
    seen_texts: set[str] = set()
    for sect in document.iter(f"{W}sectPr"):
        for ref in sect:
            tag = _tag(ref)
            if tag not in (f"{W}headerReference", f"{W}footerReference"):
                continue
            part = main.related_parts.get(ref.get(R_ID, ""))
            if part is None or str(part.partname) in seen_parts:
                continue
            seen_parts.add(str(part.partname))
            with walker.chunks.of(part):
                blocks = walker.blocks(_root(part))
            text = join_blocks(blocks)
            if not text or text in seen_texts:
                continue
            seen_texts.add(text)
            kind = "Header" if tag == f"{W}headerReference" else "Footer"
            qualifier = _HEADER_FOOTER_TYPES.get(ref.get(f"{W}type", "default"), "")
            out.append((f"## {kind}{qualifier}", False))
            out.extend(blocks)
    return out
