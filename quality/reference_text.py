"""An independent reading of a spreadsheet, a Word document or an HTML page: the reference text the
office text F1 of ``assay eval`` scores assay's text against, where the corpus holds no transcription.

Each reading takes the library's plain view of the file and nothing of assay's readers:

- **XLSX**: openpyxl's cell values (cached at the last save), sheet by sheet, row by row. Numbers are
  written as Python writes them (a whole float without its ``.0``), dates in ISO 8601 (a midnight as
  the date alone): the number formats Excel displays are not applied, so a percent or a thousands
  separator differs from the display alike in every version of assay measured.
- **DOCX**: python-docx's package: the text runs (``w:t``, tabs and breaks as spaces) of each paragraph of
  the body (its tables and text boxes included, an alternate content's fallback left out, as it repeats
  its choice), then of the headers, footers, footnotes and endnotes.
- **HTML**: lxml's text of the body, with scripts, styles, templates and ``noscript`` left out, and a
  line break around each block, cell and line break: the whole visible page, boilerplate included. The
  bytes are decoded by their byte-order mark, else as UTF-8 when they are UTF-8, else by the charset
  they declare (windows-1252 when they declare none, as a browser does), else, when the bytes break
  that charset, by charset-normalizer's best guess.
"""

from __future__ import annotations

import codecs
import datetime as dt
import re
from pathlib import Path

from lxml import etree

#: The kinds of document (as the corpus lists them) that have an independent reading.
READABLE_KINDS = ("xlsx", "docx", "html")

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
_RELATED_PARTS = ("/header", "/footer", "/footnotes", "/endnotes")
#: A Word part is parsed without entities or the network, as the readers parse every container's XML.
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
#: The elements a browser sets apart from their neighbours (blocks, cells, line breaks): their text is
#: read with a line break before and after, as the page shows it.
_BLOCKS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "caption",
        "dd",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "option",
        "p",
        "pre",
        "section",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    ]
)
_DECLARED = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


def reference_text(path: Path, kind: str) -> str | None:
    """The independent reading of ``path`` as a document of ``kind``; None for a kind with none."""
    if kind == "xlsx":
        return xlsx_text(path)
    if kind == "docx":
        return docx_text(path)
    if kind == "html":
        return html_text(path.read_bytes())
    return None


def _cell(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime) and value.time() == dt.time():
        return value.date().isoformat()  # a date is stored as a timestamp at midnight
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return str(value)


def xlsx_text(path: Path) -> str:
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        lines: list[str] = []
        for sheet in book.worksheets:
            lines.append(sheet.title)
            for row in sheet.iter_rows(values_only=True):
                cells = [_cell(v) for v in row if v is not None and str(v).strip()]
                if cells:
                    lines.append(" ".join(cells))
        return "\n".join(lines)
    finally:
        book.close()


def _paragraphs(element: etree._Element) -> list[str]:
    """The text of each paragraph under ``element`` that no alternate content's fallback holds."""
    texts: list[str] = []
    for paragraph in element.iter(f"{{{_W}}}p"):
        if any(a.tag == f"{{{_MC}}}Fallback" for a in paragraph.iterancestors()):
            continue
        parts: list[str] = []
        for node in paragraph.iter(f"{{{_W}}}t", f"{{{_W}}}tab", f"{{{_W}}}br", f"{{{_W}}}p"):
            if node is not paragraph and node.tag == f"{{{_W}}}p":
                break  # a text box's paragraph inside this one is read as its own
            parts.append(node.text or "" if node.tag == f"{{{_W}}}t" else " ")
        text = "".join(parts).strip()
        if text:
            texts.append(text)
    return texts


def docx_text(path: Path) -> str:
    import docx

    document = docx.Document(str(path))
    texts = _paragraphs(document.element.body)
    for part in document.part.package.iter_parts():
        if any(str(part.partname).startswith(f"/word{name}") for name in _RELATED_PARTS):
            texts += _paragraphs(etree.fromstring(part.blob, _PARSER))
    return "\n".join(texts)


def _decoded(data: bytes) -> str:
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            return data.decode(encoding)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    declared = _DECLARED.search(data[:4096])
    try:
        # the charset declared, else windows-1252, a browser's default for a page that declares none
        return data.decode(declared.group(1).decode("ascii") if declared else "cp1252")
    except (LookupError, UnicodeDecodeError):
        pass
    import charset_normalizer

    best = charset_normalizer.from_bytes(data).best()
    return str(best) if best is not None else data.decode("cp1252", errors="replace")


def html_text(data: bytes) -> str:
    import lxml.html

    text = _decoded(data)
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)  # lxml refuses a declaration in a decoded string
    root = lxml.html.document_fromstring(text)
    for node in list(root.iter("script", "style", "template", "noscript")):
        node.drop_tree()
    for node in root.iter(*sorted(_BLOCKS)):
        node.text, node.tail = f"\n{node.text or ''}", f"\n{node.tail or ''}"
    body = root.find("body")
    return (body if body is not None else root).text_content()
