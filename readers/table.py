"""Which readers are tried, in which order, for each content kind: the decision is data.

A new reader is one module plus an entry here. An empty row is deliberate: documents of that kind get an
``unsupported`` status that names the kind (``no_reader:<kind>``) until a reader exists, and are retried
when the row changes (their chain signature changes).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from quality.versions import SIGNALS_VERSION
from readers.archive import ZipReader
from readers.base import Reader
from readers.docx import DocxReader
from readers.email_eml import EmlReader
from readers.email_msg import MsgReader
from readers.html_main import HtmlMainReader
from readers.html_page import HtmlPageReader
from readers.html_region import HtmlRegionReader
from readers.image import ImageReader
from readers.model import ContentKind
from readers.odf import OdfReader
from readers.pdf_plumber import PdfPlumberReader
from readers.pdf_pymupdf import PyMuPDFReader
from readers.pptx import PptxReader
from readers.rtf import RtfReader
from readers.text import PlainTextReader
from readers.xlsx import XlsxReader

PYMUPDF = PyMuPDFReader()
PDFPLUMBER = PdfPlumberReader()
PLAIN_TEXT = PlainTextReader()
HTML_REGION = HtmlRegionReader()
HTML_MAIN = HtmlMainReader()
HTML_PAGE = HtmlPageReader()
EMAIL = EmlReader()
OUTLOOK = MsgReader()
DOCX = DocxReader()
XLSX = XlsxReader()
PPTX = PptxReader()
ODF = OdfReader()
RTF = RtfReader()
ZIP = ZipReader()
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
        # The page's own marked main region first (exact where authors mark it), then trafilatura's
        # main-content detection, then the whole page without scripts, styles and navigation.
        ContentKind.HTML: (HTML_REGION, HTML_MAIN, HTML_PAGE),
        # Office documents: one reader each; zip containers checked within bounds before a library
        # opens them (readers/office_common.py). OpenDocument and RTF: assay's own readers.
        ContentKind.DOCX: (DOCX,),
        ContentKind.XLSX: (XLSX,),
        ContentKind.PPTX: (PPTX,),
        ContentKind.ODT: (ODF,),
        ContentKind.ODS: (ODF,),
        ContentKind.ODP: (ODF,),
        ContentKind.RTF: (RTF,),
        # No reader: recorded as unsupported, naming the kind and what would read it (WOULD_READ).
        ContentKind.MARKDOWN: (),
        ContentKind.DOC: (),
        ContentKind.XLS: (),
        ContentKind.PPT: (),
        # Header lines and the body; attachments are documents of their own (readers/containers.py).
        ContentKind.EML: (EMAIL,),
        ContentKind.MSG: (OUTLOOK,),
        # The listing of the members; the members are documents of their own.
        ContentKind.ZIP: (ZIP,),
        ContentKind.AUDIO: (),
        ContentKind.VIDEO: (),
        ContentKind.EMPTY: (),
        ContentKind.UNKNOWN: (),
    }
)


# What would read the kinds that have no reader, named in their `unsupported` reason
# (`no_reader:doc(libreoffice|antiword)`): the legacy binary Office formats are converted by LibreOffice
# (`soffice --headless --convert-to docx|xlsx|pptx`) or read by the catdoc family.
WOULD_READ: Mapping[ContentKind, str] = MappingProxyType(
    {
        ContentKind.DOC: "libreoffice|antiword",
        ContentKind.XLS: "libreoffice|xls2csv",
        ContentKind.PPT: "libreoffice|catppt",
        ContentKind.AUDIO: "a speech recogniser",
        ContentKind.VIDEO: "a speech recogniser",
    }
)


def unsupported_reason(kind: ContentKind) -> str:
    """``no_reader:<kind>``, with what would read it where something would."""
    hint = WOULD_READ.get(kind)
    return f"no_reader:{kind.value}" + (f"({hint})" if hint else "")


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
