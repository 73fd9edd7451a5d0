"""Which readers are tried, in which order, for each content kind: the decision is data.

A new reader is one module plus an entry here. An empty row is deliberate: documents of that kind get an
``unsupported`` status that names the kind (``no_reader:<kind>``) until a reader exists, and are retried
when the row changes (their chain signature changes).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from quality.versions import SIGNALS_VERSION
from readers.base import Reader
from readers.image import ImageReader
from readers.model import ContentKind
from readers.pdf_plumber import PdfPlumberReader
from readers.pdf_pymupdf import PyMuPDFReader
from readers.text import PlainTextReader

PYMUPDF = PyMuPDFReader()
PDFPLUMBER = PdfPlumberReader()
PLAIN_TEXT = PlainTextReader()
IMAGE = ImageReader()

READERS: Mapping[ContentKind, tuple[Reader, ...]] = MappingProxyType(
    {
        # PyMuPDF first (fast, markdown, facts); pdfplumber (pdfminer, an independent decoder, ~45x
        # slower) only when PyMuPDF produced nothing or failed.
        ContentKind.PDF: (PYMUPDF, PDFPLUMBER),
        ContentKind.TEXT: (PLAIN_TEXT,),
        ContentKind.CSV: (PLAIN_TEXT,),
        ContentKind.TSV: (PLAIN_TEXT,),
        ContentKind.JSON: (PLAIN_TEXT,),
        ContentKind.XML: (PLAIN_TEXT,),
        # Pillow validates the image and returns its pages empty, flagged needs_ocr: OCR reads them.
        ContentKind.PNG: (IMAGE,),
        ContentKind.JPEG: (IMAGE,),
        ContentKind.TIFF: (IMAGE,),
        ContentKind.WEBP: (IMAGE,),
        ContentKind.BMP: (IMAGE,),
        ContentKind.GIF: (IMAGE,),
        # No reader yet: recorded as unsupported, naming the kind.
        ContentKind.HTML: (),
        ContentKind.MARKDOWN: (),
        ContentKind.RTF: (),
        ContentKind.DOCX: (),
        ContentKind.XLSX: (),
        ContentKind.PPTX: (),
        ContentKind.ODT: (),
        ContentKind.ODS: (),
        ContentKind.ODP: (),
        ContentKind.DOC: (),
        ContentKind.XLS: (),
        ContentKind.PPT: (),
        ContentKind.EML: (),
        ContentKind.MSG: (),
        ContentKind.ZIP: (),
        ContentKind.AUDIO: (),
        ContentKind.VIDEO: (),
        ContentKind.EMPTY: (),
        ContentKind.UNKNOWN: (),
    }
)


def readers_for(kind: ContentKind) -> tuple[Reader, ...]:
    """The ordered readers for ``kind`` (empty for kinds nothing reads yet)."""
    return READERS.get(kind, ())


def chain_signature(kind: ContentKind) -> str:
    """The kind's readers with their versions and the signal code's, e.g.
    ``pymupdf@1+2.0/mupdf-1.28.5>pdfplumber@1+0.11.10/pdfminer-20260107|signals@1``.

    Two extractor versions with the same signature for a kind would read its documents identically, so
    the newer one carries the older one's rows over instead of reading again.
    """
    chain = readers_for(kind)
    readers = ">".join(f"{r.name}@{r.version}" for r in chain) if chain else f"none:{kind.value}"
    return f"{readers}|signals@{SIGNALS_VERSION}"
