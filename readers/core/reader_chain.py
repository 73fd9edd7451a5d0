"""Which readers are tried, in which order, for each content kind: the decision is data.

A new reader is one module plus two entries here: where it lives, and the kinds it reads. An empty row is
deliberate: documents of that kind get an ``unsupported`` status that names the kind
(``no_reader:<kind>``) until a reader exists, and are retried when the row changes (their chain signature
changes).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from readers.core.base import Reader
from readers.core.errors import ConfigError
from readers.core.model import ContentKind
from readers.core.versions import SIGNALS_VERSION

#: Where each reader lives, by the name it records (``derivations.reader``): ``module:Class``. A reader's
#: module (and the library under it) is imported when a document of one of its kinds is first read, so a
#: process that reads PDFs only never imports openpyxl, trafilatura or python-pptx.
READER_CLASSES: Mapping[str, str] = MappingProxyType(
    {
        "pymupdf": "readers.pdf.mupdf:PyMuPDFReader",
        "pdfplumber": "readers.pdf.plumber:PdfPlumberReader",
        "text": "readers.text.plain:PlainTextReader",
        "html-region": "readers.html.region:HtmlRegionReader",
        "trafilatura": "readers.html.main:HtmlMainReader",
        "html-page": "readers.html.page:HtmlPageReader",
        "email": "readers.mail.eml:EmlReader",
        "msg": "readers.mail.msg:MsgReader",
        "python-docx": "readers.office.docx:DocxReader",
        "openpyxl": "readers.office.xlsx:XlsxReader",
        "python-pptx": "readers.office.pptx:PptxReader",
        "odf": "readers.office.odf:OdfReader",
        "rtf": "readers.office.rtf:RtfReader",
        "zip": "readers.archives.zip:ZipReader",
        "pillow": "readers.images.image:ImageReader",
    }
)

READERS: Mapping[ContentKind, tuple[str, ...]] = MappingProxyType(
    {
        # PyMuPDF first (fast, markdown, facts); pdfplumber (pdfminer, an independent decoder, ~45x
        # slower) only when PyMuPDF produced nothing or failed.
        ContentKind.PDF: ("pymupdf", "pdfplumber"),
        ContentKind.TEXT: ("text",),
        ContentKind.CSV: ("text",),
        ContentKind.TSV: ("text",),
        ContentKind.JSON: ("text",),
        ContentKind.XML: ("text",),
        # Pillow validates the image and returns its pages empty, flagged needs_ocr: OCR reads them.
        ContentKind.PNG: ("pillow",),
        ContentKind.JPEG: ("pillow",),
        ContentKind.TIFF: ("pillow",),
        ContentKind.WEBP: ("pillow",),
        ContentKind.BMP: ("pillow",),
        ContentKind.GIF: ("pillow",),
        # The page's own marked main region first (exact where authors mark it), then trafilatura's
        # main-content detection, then the whole page without scripts, styles and navigation.
        ContentKind.HTML: ("html-region", "trafilatura", "html-page"),
        # Office documents: one reader each; zip containers checked within bounds before a library
        # opens them (readers/office/office_files.py). OpenDocument and RTF: assay's own readers.
        ContentKind.DOCX: ("python-docx",),
        ContentKind.XLSX: ("openpyxl",),
        ContentKind.PPTX: ("python-pptx",),
        ContentKind.ODT: ("odf",),
        ContentKind.ODS: ("odf",),
        ContentKind.ODP: ("odf",),
        ContentKind.RTF: ("rtf",),
        # No reader: recorded as unsupported, naming the kind and what would read it (WOULD_READ).
        ContentKind.MARKDOWN: (),
        ContentKind.DOC: (),
        ContentKind.XLS: (),
        ContentKind.PPT: (),
        # Header lines and the body; attachments are documents of their own (readers/walk/containers.py).
        ContentKind.EML: ("email",),
        ContentKind.MSG: ("msg",),
        # The listing of the members; the members are documents of their own.
        ContentKind.ZIP: ("zip",),
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


@functools.cache
def _reader(location: str) -> Reader:
    module, _, cls = location.partition(":")
    return getattr(importlib.import_module(module), cls)()


def reader(name: str) -> Reader:
    """The reader recorded as ``name`` (one instance per process), its module imported on first use."""
    try:
        location = READER_CLASSES[name]
    except KeyError:
        known = ", ".join(sorted(READER_CLASSES))
        raise ConfigError(f"no reader is named {name!r}; the readers are: {known}") from None
    return _reader(location)


def readers_for(kind: ContentKind) -> tuple[Reader, ...]:
    """The ordered readers for ``kind`` (empty for kinds nothing reads yet)."""
    return tuple(reader(name) for name in READERS.get(kind, ()))


def reader_modules(kinds: Iterable[ContentKind] | None = None) -> list[str]:
    """The modules of the readers of ``kinds`` (of every kind by default): what a reader process imports
    before its first document (readers/engine/isolation.py)."""
    names = (n for k in (ContentKind if kinds is None else kinds) for n in READERS.get(k, ()))
    return sorted({READER_CLASSES[n].partition(":")[0] for n in names})


def chain_signature(kind: ContentKind) -> str:
    """The kind's readers with their versions and the signal code's, e.g.
    ``pymupdf@1+2.0/mupdf-1.28.5>pdfplumber@1+0.11.10/pdfminer-20260107|signals@1``.

    Two extractor versions with the same signature for a kind would read its documents identically, so
    the newer one carries the older one's rows over instead of reading again.
    """
    chain = readers_for(kind)
    readers = ">".join(f"{r.name}@{r.version}" for r in chain) if chain else f"none:{kind.value}"
    return f"{readers}|signals@{SIGNALS_VERSION}"
