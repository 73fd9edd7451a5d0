"""Builders of the documents the demo corpus is made of, generated in code with PyMuPDF.

Born-digital PDFs of prose with headings and ruled tables (``make_text_pdf``), "scanned" PDFs that are
only page images (``make_image_only_pdf``), scans saved as PNG (``make_scan_image``), a page with a chart
that exists only as pixels (``make_figure_pdf``) and a PDF whose font maps every glyph to the wrong letter
(``make_garbled_pdf``). orchestration/demo_corpus.py writes the demo corpus with them; the tests use the
same builders to make their fixtures.

Everything is deterministic: the same PyMuPDF version writes the same bytes on every call (fixed
metadata dates, no random document id, seeded noise), so the demo documents keep their sha256 and a
second run is a pure cache hit. Every write replaces its file whole (temporary name, then rename).

The builders only use what ships with PyMuPDF: the text is set in the bundled Nimbus Sans (the
``helv``/``hebo`` base-14 substitutes), embedded and subset, so any Latin text including ``œ « » ’ —``
survives a round trip. This module imports no Dagster.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pymupdf

from readers.core.atomic import written_whole

__all__ = [
    "garble_text",
    "make_figure_pdf",
    "make_garbled_pdf",
    "make_image_only_pdf",
    "make_scan_image",
    "make_text_pdf",
]

# --- page geometry and fixed metadata ---------------------------------------------------------------

_PAGE = pymupdf.paper_rect("a4")
_MARGIN = 72.0
_BODY = pymupdf.Rect(_MARGIN, _MARGIN, _PAGE.width - _MARGIN, _PAGE.height - _MARGIN)
_PARAGRAPH_GAP = 0.6  # in multiples of the body font size
_REGULAR = "F1"  # page resource names of the embedded fonts
_BOLD = "F2"
_FIXED_DATE = "D:20240301120000Z"
_PRODUCER = "assay demo corpus"
_SCAN_DPI = 200

# --- writing bytes ---------------------------------------------------------------------------------


def _write_atomic(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary name and a rename: no half file, ever.

    A file that already holds exactly ``data`` is left alone, so rerunning the demo finds it unchanged
    (same mtime) and assay's walk does not hash it again."""
    path = Path(path)
    try:
        if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
            return path
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    with written_whole(path) as tmp:
        tmp.write_bytes(data)
    return path


def _set_fixed_metadata(doc: pymupdf.Document, title: str | None) -> None:
    doc.set_metadata(
        {
            "title": title or "",
            "author": "Riverside Municipal Water Utility (fictional)",
            "subject": "",
            "keywords": "",
            # the name of the module that wrote the demo corpus first: its files keep their bytes
            "creator": "assay orchestration.demo",
            "producer": _PRODUCER,
            "creationDate": _FIXED_DATE,
            "modDate": _FIXED_DATE,
        }
    )


def _pdf_bytes(doc: pymupdf.Document, title: str | None) -> bytes:
    """The document's bytes, identical on every call: fixed dates, no new /ID, objects renumbered."""
    _set_fixed_metadata(doc, title)
    return doc.tobytes(garbage=4, deflate=True, no_new_id=True)


# --- text layout -----------------------------------------------------------------------------------


def _blocks(page_text: str) -> list[tuple[str, str]]:
    """Split one page's text into ``(kind, text)`` blocks: paragraphs are separated by blank lines, and a
    paragraph whose first line starts with ``# `` is a section heading."""
    blocks: list[tuple[str, str]] = []
    for raw in re.split(r"\n\s*\n", page_text.strip()):
        text = " ".join(line.strip() for line in raw.strip().splitlines())
        if not text:
            continue
        if text.startswith("# "):
            blocks.append(("heading", text[2:].strip()))
        else:
            blocks.append(("paragraph", text))
    return blocks


def _new_page(doc: pymupdf.Document, *, bold: bool = True) -> pymupdf.Page:
    page = doc.new_page(width=_PAGE.width, height=_PAGE.height)
    page.insert_font(fontname=_REGULAR, fontbuffer=pymupdf.Font("helv").buffer)
    if bold:
        page.insert_font(fontname=_BOLD, fontbuffer=pymupdf.Font("hebo").buffer)
    return page


def _place(page: pymupdf.Page, y: float, text: str, fontname: str, fontsize: float) -> float | None:
    """Set ``text`` in the body column from ``y`` down; return the new ``y``, or None when it does not fit
    (nothing is written then)."""
    box = pymupdf.Rect(_BODY.x0, y, _BODY.x1, _BODY.y1)
    if box.height <= fontsize:
        return None
    unused = page.insert_textbox(box, text, fontname=fontname, fontsize=fontsize)
    if unused < 0:
        return None
    return _BODY.y1 - unused


def _draw_table(page: pymupdf.Page, y: float, rows: Sequence[Sequence[str]], fontsize: float) -> float:
    """Draw a ruled grid (every cell boxed, first row in bold) with its cell text; return the new ``y``."""
    ncols = max(len(row) for row in rows)
    row_h = fontsize * 2.0
    col_w = _BODY.width / ncols
    height = row_h * len(rows)
    if y + height > _BODY.y1:
        raise ValueError("the table does not fit below the page's text")
    shape = page.new_shape()
    for i in range(len(rows) + 1):
        shape.draw_line((_BODY.x0, y + i * row_h), (_BODY.x1, y + i * row_h))
    for j in range(ncols + 1):
        shape.draw_line((_BODY.x0 + j * col_w, y), (_BODY.x0 + j * col_w, y + height))
    shape.finish(width=0.75, color=(0, 0, 0))
    shape.commit()
    for i, row in enumerate(rows):
        baseline = y + i * row_h + (row_h + fontsize * 0.7) / 2
        for j, cell in enumerate(row):
            page.insert_text(
                (_BODY.x0 + j * col_w + fontsize * 0.5, baseline),
                str(cell),
                fontname=_BOLD if i == 0 else _REGULAR,
                fontsize=fontsize,
            )
    return y + height + fontsize * _PARAGRAPH_GAP


def _layout(
    pages: Sequence[str],
    *,
    title: str | None,
    fontsize: float,
    tables: Mapping[int, Sequence[Sequence[str]]] | None = None,
) -> pymupdf.Document:
    """Lay out one PDF page per entry of ``pages``; raise ValueError when a page's text does not fit."""
    doc = pymupdf.open()
    for index, page_text in enumerate(pages):
        page = _new_page(doc)
        y = _BODY.y0
        if index == 0 and title:
            y = _place(page, y, title, _BOLD, fontsize * 2)
            if y is None:
                raise ValueError("the title does not fit on the page")
            y += fontsize
        for kind, text in _blocks(page_text):
            if kind == "heading":
                y = _place(page, y + fontsize * 0.4, text, _BOLD, fontsize * 1.3)
            else:
                y = _place(page, y, text, _REGULAR, fontsize)
            if y is None:
                raise ValueError(f"the text of page {index + 1} does not fit on one page")
            y += fontsize * _PARAGRAPH_GAP
        if tables and index in tables:
            _draw_table(page, y + fontsize * 0.4, tables[index], fontsize)
    doc.subset_fonts()
    return doc


def make_text_pdf(
    path: Path,
    pages: list[str],
    *,
    title: str | None = None,
    fontsize: float = 11,
    tables: Mapping[int, Sequence[Sequence[str]]] | None = None,
) -> Path:
    """Write a born-digital PDF with one page per entry of ``pages`` and return ``path``.

    Paragraphs are separated by blank lines; a paragraph starting with ``# `` is set as a bold section
    heading. ``title`` is set on page 1 in bold at twice ``fontsize``. ``tables`` maps a 0-based page
    index to rows of cells, drawn as a ruled grid (lines, first row bold) below that page's text. The
    text is set in the embedded, subset Nimbus Sans that ships with PyMuPDF, so accents, ``œ``,
    guillemets and typographic quotes extract correctly. Raises ValueError if a page's text overflows.
    """
    doc = _layout(pages, title=title, fontsize=fontsize, tables=tables)
    return _write_atomic(path, _pdf_bytes(doc, title))


def make_image_only_pdf(
    path: Path,
    pages: list[str],
    *,
    fontsize: float = 13,
    dpi: int = _SCAN_DPI,
    noise: float = 0.0004,
) -> Path:
    """Write a "scanned" PDF: each page is only a full-page greyscale image of its text, no text layer.

    The text is laid out as in :func:`make_text_pdf` (large enough to OCR), rendered at ``dpi`` in grey,
    sprinkled with seeded speckles (``noise`` is the share of pixels touched, deterministic), and
    inserted as a PNG covering the whole page of a new PDF. No font and no text operator is written.
    """
    out = pymupdf.open()
    for index, text in enumerate(pages):
        pix = _scan_pixmap(text, fontsize=fontsize, dpi=dpi, seed=f"assay-scan-{index}", noise=noise)
        page = out.new_page(width=_PAGE.width, height=_PAGE.height)
        page.insert_image(page.rect, stream=pix.tobytes("png"))
    return _write_atomic(path, _pdf_bytes(out, None))


def _scan_pixmap(text: str, *, fontsize: float, dpi: int, seed: str, noise: float) -> pymupdf.Pixmap:
    page = _layout([text], title=None, fontsize=fontsize)[0]
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    rng = random.Random(seed)
    for _ in range(int(pix.width * pix.height * noise)):
        pix.set_pixel(rng.randrange(pix.width), rng.randrange(pix.height), (rng.randrange(60, 200),))
    pix.set_dpi(dpi, dpi)
    return pix


def make_scan_image(
    path: Path,
    text: str,
    *,
    fontsize: float = 13,
    dpi: int = _SCAN_DPI,
    rotate: int = 0,
    noise: float = 0.0004,
) -> Path:
    """Write an image document: one page of ``text`` rendered in grey with seeded speckles, as a scanner
    would, turned ``rotate`` degrees clockwise (a page fed sideways), saved as PNG with its resolution."""
    from PIL import Image

    pix = _scan_pixmap(text, fontsize=fontsize, dpi=dpi, seed=f"assay-image-{path.name}", noise=noise)
    image = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    if rotate:
        image = image.rotate(-rotate, expand=True, fillcolor=255)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", dpi=(dpi, dpi))
    return _write_atomic(path, buffer.getvalue())


def make_figure_pdf(path: Path, text: str, figure_labels: Sequence[str], *, fontsize: float = 11) -> Path:
    """Write a born-digital page of ``text`` with a bar chart below it that exists only as pixels: a raster
    image (over a third of the page) whose title and labels are ``figure_labels``. Its text layer is
    trustworthy, so the page is FIGURES: the labels can only come from OCR of the figure region."""
    doc = _layout([text], title=None, fontsize=fontsize)
    page = doc[0]
    area = pymupdf.Rect(_BODY.x0, _BODY.y1 - 330, _BODY.x1, _BODY.y1)
    chart = pymupdf.open()
    canvas = chart.new_page(width=area.width, height=area.height)
    canvas.insert_text((20, 34), figure_labels[0], fontname="hebo", fontsize=16)
    bars = figure_labels[1:]
    width = (area.width - 60) / max(1, len(bars))
    for i, label in enumerate(bars):
        x = 30 + i * width
        height = 60 + 50 * ((i * 7) % 4)
        canvas.draw_rect(
            pymupdf.Rect(x + 10, 290 - height, x + width - 10, 290), color=(0, 0, 0), fill=(0.55,) * 3
        )
        canvas.insert_text((x + 10, 312), label, fontname="helv", fontsize=13)
    pix = canvas.get_pixmap(dpi=_SCAN_DPI, colorspace=pymupdf.csGRAY, alpha=False)
    page.insert_image(area, stream=pix.tobytes("png"))
    return _write_atomic(path, _pdf_bytes(doc, None))


# --- the garbled font ------------------------------------------------------------------------------


def _shift_char(ch: str) -> str:
    if "a" <= ch <= "z":
        return chr((ord(ch) - ord("a") + 1) % 26 + ord("a"))
    if "A" <= ch <= "Z":
        return chr((ord(ch) - ord("A") + 1) % 26 + ord("A"))
    return ch


def garble_text(text: str) -> str:
    """What extraction returns for ``text`` set by :func:`make_garbled_pdf`: each ASCII letter replaced by
    the next one (``z`` wraps to ``a``), everything else unchanged: "Unit consumption" -> "Voju
    dpotvnqujpo"."""
    return "".join(_shift_char(ch) for ch in text)


_HEX = r"<([0-9A-Fa-f]+)>"
_BFCHAR = re.compile(r"beginbfchar(.*?)endbfchar", re.S)
_BFRANGE = re.compile(r"beginbfrange(.*?)endbfrange", re.S)
_RANGE_ENTRY = re.compile(_HEX + r"\s*" + _HEX + r"\s*(?:" + _HEX + r"|\[([^\]]*)\])")


def _utf16(hexstr: str) -> str:
    return bytes.fromhex(hexstr).decode("utf-16-be", errors="surrogatepass")


def _parse_tounicode(cmap: str) -> tuple[dict[int, str], int]:
    """Parse the bfchar and bfrange sections of a ToUnicode CMap: code -> text, and the code width in hex
    digits."""
    mapping: dict[int, str] = {}
    width = 4
    for block in _BFCHAR.findall(cmap):
        for src, dst in re.findall(_HEX + r"\s*" + _HEX, block):
            width = len(src)
            mapping[int(src, 16)] = _utf16(dst)
    for block in _BFRANGE.findall(cmap):
        for lo, hi, dst, array in _RANGE_ENTRY.findall(block):
            width = len(lo)
            start, end = int(lo, 16), int(hi, 16)
            if array:
                for code, item in zip(range(start, end + 1), re.findall(_HEX, array), strict=False):
                    mapping[code] = _utf16(item)
            else:
                base = bytes.fromhex(dst)
                for offset in range(end - start + 1):
                    last = int.from_bytes(base[-2:], "big") + offset
                    mapping[start + offset] = _utf16((base[:-2] + last.to_bytes(2, "big")).hex())
    return mapping, width


def _write_tounicode(mapping: Mapping[int, str], width: int) -> bytes:
    """A ToUnicode CMap with one bfchar entry per code, in blocks of at most 100 as the spec asks."""
    lines = [
        "/CIDInit /ProcSet findresource begin",
        "12 dict begin",
        "begincmap",
        "/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def",
        "/CMapName /Adobe-Identity-UCS def",
        "/CMapType 2 def",
        "1 begincodespacerange",
        f"<{'0' * width}> <{'F' * width}>",
        "endcodespacerange",
    ]
    items = sorted(mapping.items())
    for start in range(0, len(items), 100):
        chunk = items[start : start + 100]
        lines.append(f"{len(chunk)} beginbfchar")
        for code, text in chunk:
            lines.append(f"<{code:0{width}X}> <{text.encode('utf-16-be', 'surrogatepass').hex().upper()}>")
        lines.append("endbfchar")
    lines += ["endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end", ""]
    return "\n".join(lines).encode("ascii")


def _garble_font(doc: pymupdf.Document, font_xref: int, garble: Callable[[str], str] = garble_text) -> None:
    """Rewrite the font's /ToUnicode stream so that every glyph maps to ``garble`` of its text (by default
    the next letter)."""
    kind, value = doc.xref_get_key(font_xref, "ToUnicode")
    if kind != "xref":
        raise ValueError(f"font {font_xref} has no ToUnicode stream to rewrite")
    cmap_xref = int(value.split()[0])
    mapping, width = _parse_tounicode(doc.xref_stream(cmap_xref).decode("latin-1"))
    if not mapping:
        raise ValueError(f"the ToUnicode CMap of font {font_xref} maps nothing")
    doc.update_stream(cmap_xref, _write_tounicode({c: garble(t) for c, t in mapping.items()}, width))


def _garbled_document(text: str, fontsize: float) -> pymupdf.Document:
    doc = pymupdf.open()
    page = _new_page(doc, bold=False)
    y = _BODY.y0
    for _kind, paragraph in _blocks(text):
        placed = _place(page, y, paragraph, _REGULAR, fontsize)
        if placed is None:  # flow on to a new page
            page = _new_page(doc, bold=False)
            placed = _place(page, _BODY.y0, paragraph, _REGULAR, fontsize)
            if placed is None:
                raise ValueError("a paragraph is longer than a page")
        y = placed + fontsize * _PARAGRAPH_GAP
    doc.subset_fonts()
    fonts = {xref for page in doc for xref, *_ in page.get_fonts()}
    for xref in sorted(fonts):
        _garble_font(doc, xref)
    return doc


def make_garbled_pdf(path: Path, text: str, *, fontsize: float = 11) -> Path:
    """Write a PDF whose page shows ``text`` but whose text layer spells :func:`garble_text` of it.

    How: the text is set in PyMuPDF's bundled Nimbus Sans, embedded as a Type0/Identity-H font (a CFF
    CIDFont, subset) with a /ToUnicode CMap; that CMap stream is then parsed and rewritten so that each
    glyph code maps to the next letter (a->b, ..., z->a, A->B, ..., Z->A; other characters unchanged).
    The glyphs, widths and content stream are untouched, so the page renders the right words, while
    every extractor that trusts ToUnicode (PyMuPDF, pdfminer/pdfplumber) returns valid Unicode that
    spells nothing. The glyph names in the embedded font program still say what each glyph is, which
    is the evidence a repair can use. Paragraphs (blank-line separated) flow onto further pages.
    """
    doc = _garbled_document(text, fontsize)
    return _write_atomic(path, _pdf_bytes(doc, None))
