"""A PDF whose page tree is lost keeps the pages still whole in it.

Writers that stream a PDF write each page as they go and the page tree, the catalog and the
cross-reference table last, so a file cut short, or garbled past its first pages, loses all three.
MuPDF repairs the cross-references by scanning the file's objects, but with no catalog it finds no page
(0 pages, "cannot find startxref ... repairing PDF document") and pdfminer refuses the file ("No /Root
object"): the pages still whole in the file were lost with the rest, and the document read as empty.

:func:`open_salvaged` opens a PDF as MuPDF does and, when the document it opens has no page while page
objects (``/Type /Page``) survive in it, gives it a new catalog and page tree of those pages, in the order
of their object numbers (the order writers number them in), in memory: the file is never written. Every
reading of a PDF's pages opens it so (the PDF reader, the verdicts' measures, the rendering for OCR), so
that all agree on its pages. Pages past the damage are gone: nothing in the file says how many there were.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from readers.pdf.cid_fonts import supply_font_descriptors

#: The reader's line (``ReadResult.unread``) for a document read from its surviving page objects, followed
#: by their number.
PAGE_TREE_LOST = "page_tree_lost:pages_kept="
#: The page size given to a surviving page that inherited its size from the lost tree (US Letter, as MuPDF
#: assumes for a page without one).
DEFAULT_MEDIABOX = "[0 0 612 792]"


def open_salvaged(path: Path | str) -> tuple[pymupdf.Document, int]:
    """``path`` opened as a PDF, and the number of pages given a new page tree (0 when its own held).
    Raises what ``pymupdf.open`` raises."""
    doc = pymupdf.open(path, filetype="pdf")
    try:
        if doc.page_count or doc.needs_pass:
            return doc, 0
        kids = _page_objects(doc)
        if not kids:
            return doc, 0
        data = _with_page_tree(doc, kids)
    except BaseException:
        doc.close()
        raise
    doc.close()
    return pymupdf.open(stream=data, filetype="pdf"), len(kids)


def open_pdf_file(path: Path | str) -> pymupdf.Document:
    """``path`` opened as :func:`open_salvaged` opens it, its CID fonts given the descriptors they lack
    (:mod:`readers.pdf.cid_fonts`), as the PDF reader reads it; the caller closes it."""
    doc = open_salvaged(path)[0]
    supply_font_descriptors(doc)
    return doc


def _page_objects(doc: pymupdf.Document) -> list[int]:
    """The object numbers of the page objects the repaired cross-references hold, in order."""
    kids = []
    for xref in range(1, doc.xref_length()):
        try:
            kind, value = doc.xref_get_key(xref, "Type")
        except Exception:  # an object MuPDF cannot parse: not a page
            continue
        if kind == "name" and value == "/Page":
            kids.append(xref)
    return kids


def _with_page_tree(doc: pymupdf.Document, kids: list[int]) -> bytes:
    """The document's bytes with a catalog and a page tree of ``kids``."""
    pages = doc.get_new_xref()
    doc.update_object(
        pages, f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>"
    )
    for kid in kids:
        doc.xref_set_key(kid, "Parent", f"{pages} 0 R")
        if doc.xref_get_key(kid, "MediaBox")[0] == "null":
            doc.xref_set_key(kid, "MediaBox", DEFAULT_MEDIABOX)
    catalog = doc.get_new_xref()
    doc.update_object(catalog, f"<< /Type /Catalog /Pages {pages} 0 R >>")
    doc.xref_set_key(-1, "Root", f"{catalog} 0 R")
    return doc.tobytes()
