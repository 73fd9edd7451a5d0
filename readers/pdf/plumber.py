"""pdfplumber, the PDF fallback and second opinion: plain text per page from an independent decoder.

pdfplumber sits on pdfminer.six, which decodes fonts and content streams with code that shares nothing with
MuPDF, so it can succeed where PyMuPDF produced nothing or failed, and it is the second opinion on pages the
signals flag (docs/design.md §3). It is 20-45 times slower than PyMuPDF (docs/design.md §9: ~13 pages/s), so
the dispatch runs it only when it has to; nothing here tries to be clever about layout:
``page.extract_text()`` with pdfplumber's defaults, raw (no Unicode normalisation).

Errors are translated where they enter. pdfplumber wraps every pdfminer exception in its own
``PdfminerException``; the original is its first argument, and decides the reason: a password
pdfminer cannot get past is ``encrypted``, anything else that stops the file from opening is
``corrupt``. pdfplumber tries the empty user password by itself.
"""

from __future__ import annotations

import contextlib
import itertools
from pathlib import Path
from typing import Any

import pdfminer
import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
from pdfminer.pdfpage import PDFPage
from pdfplumber.page import Page as PlumberPage
from pdfplumber.utils.exceptions import PdfminerException

from readers.core.base import PAGE_FAILED, Reader, refuse_unreadable_pages, require_readable_file
from readers.core.errors import CorruptDocument, EncryptedDocument, FileUnreadable, LimitExceeded, ReaderError
from readers.core.model import ContentKind, PageFacts, PageText, ReadLimits, ReadResult
from readers.pdf.bidi import logical_text


class PdfPlumberReader(Reader):
    """Plain text per page with pdfplumber; facts from the objects pdfminer laid out."""

    name = "pdfplumber"
    # 2: right-to-left lines in reading order (readers/pdf/bidi.py); 3: a PDF none of whose pages could be
    # read
    # is `corrupt`, not an empty read. 4: each page carries its printed label (/PageLabels, pages.label).
    revision = 4
    kinds = frozenset({ContentKind.PDF})

    @property
    def tool_version(self) -> str:
        return f"{pdfplumber.__version__}/pdfminer-{pdfminer.__version__}"

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        path = Path(path)
        pdf, notes = _open(path, limits)
        try:
            return _read_pages(pdf, path, limits, notes)
        except ReaderError:
            raise
        except MemoryError as exc:
            raise LimitExceeded(f"{path.name}: out of memory while reading") from exc
        except Exception as exc:  # anything pdfminer did not foresee is still this document's fault
            raise CorruptDocument(f"{path.name}: pdfplumber failed while reading: {_describe(exc)}") from exc
        finally:
            with contextlib.suppress(Exception):
                pdf.close()

    def read_pages(self, path: Path, pages: list[int], limits: ReadLimits) -> dict[int, str]:
        """The second opinion: the text of only ``pages`` (1-based), for pages the verdicts flagged.

        pdfminer decodes fonts independently of MuPDF, so a page PyMuPDF garbled may read here; only the
        flagged pages pay pdfplumber's cost (~45x PyMuPDF's). The page tree is walked once, up to the
        last page asked for (and never past the page bound), and only the pages asked for are built: on
        the corpus's 117-page thesis, pages 9, 10 and 17 no longer pay for two
        walks of the whole tree, and closing does not build the pages left unread (:func:`_close_unbuilt`).
        Errors raise like :meth:`read`.
        """
        path = Path(path)
        wanted = {number for number in pages if number >= 1}
        if not wanted:
            return {}
        pdf, _ = _open(path, limits, count=False)
        try:
            texts: dict[int, str] = {}
            last = min(max(wanted), limits.max_pages)
            for number, page_object in enumerate(PDFPage.create_pages(pdf.doc), start=1):
                if number > last:
                    break
                if number in wanted:
                    page = PlumberPage(pdf, page_object, page_number=number)
                    try:
                        texts[number] = logical_text(page.extract_text() or "")
                    finally:
                        page.close()
            return texts
        except ReaderError:
            raise
        except Exception as exc:
            raise CorruptDocument(f"{path.name}: pdfplumber failed while reading: {_describe(exc)}") from exc
        finally:
            with contextlib.suppress(Exception):
                _close_unbuilt(pdf)


def _close_unbuilt(pdf: pdfplumber.PDF) -> None:
    """Close a PDF whose ``pages`` were never asked for: ``PDF.close`` closes each of ``pages``, which
    first walks the whole page tree and builds every page (~40 ms of the ~95 ms that page 9 of the
    corpus's 117-page thesis cost); here the caches go and the file is closed,
    as ``close`` does."""
    pdf.flush_cache()
    if not pdf.stream_is_external:
        pdf.stream.close()


def _open(path: Path, limits: ReadLimits, *, count: bool = True) -> tuple[pdfplumber.PDF, list[str]]:
    """Open ``path`` with pdfplumber (empty user password), translating every failure; with ``count``,
    refuse a document of more than ``limits.max_pages`` pages."""
    require_readable_file(path)
    try:
        pdf = pdfplumber.open(path)
    except OSError as exc:
        raise FileUnreadable(f"{path}: cannot be read: {exc}") from exc
    except PdfminerException as exc:
        raise _translate(path, exc) from exc
    except MemoryError as exc:
        raise LimitExceeded(f"{path.name}: out of memory while opening") from exc
    except Exception as exc:
        raise CorruptDocument(f"{path.name}: pdfplumber failed to open it: {_describe(exc)}") from exc
    notes: list[str] = []
    if getattr(pdf.doc, "encryption", None) is not None:
        notes.append("opened_with_empty_password")
    try:
        over = count and _more_pages_than(pdf, limits.max_pages)
    except Exception as exc:
        pdf.close()
        raise _translate(path, exc) from exc
    if over:
        pdf.close()
        raise LimitExceeded(f"{path.name}: more than {limits.max_pages} pages")
    return pdf, notes


def _translate(path: Path, exc: BaseException) -> ReaderError:
    original = _unwrap(exc)
    if isinstance(original, PDFPasswordIncorrect):
        return EncryptedDocument(f"{path.name}: encrypted, and the empty user password does not open it")
    if isinstance(original, PDFEncryptionError):
        return EncryptedDocument(f"{path.name}: encrypted in a way pdfminer cannot open: {original}")
    return CorruptDocument(f"{path.name}: not a readable PDF: {_describe(original)}")


def _unwrap(exc: BaseException) -> BaseException:
    """pdfplumber raises ``PdfminerException(original)``: get the original back."""
    if isinstance(exc, PdfminerException):
        if exc.args and isinstance(exc.args[0], BaseException):
            return exc.args[0]
        if exc.__context__ is not None:
            return exc.__context__
    return exc


def _describe(exc: BaseException) -> str:
    original = _unwrap(exc)
    return f"{type(original).__name__}: {original}" if str(original) else type(original).__name__


def _more_pages_than(pdf: pdfplumber.PDF, limit: int) -> bool:
    """Walk the page tree, stopping past ``limit``, before pdfplumber builds a Page for every page.

    The tree is walked rather than its /Count believed: a broken file can claim any count.
    """
    return any(seen > limit for seen, _ in enumerate(PDFPage.create_pages(pdf.doc), start=1))


def _read_pages(pdf: pdfplumber.PDF, path: Path, limits: ReadLimits, notes: list[str]) -> ReadResult:
    try:
        pages = pdf.pages
    except PdfminerException as exc:
        raise _translate(path, exc) from exc
    if len(pages) > limits.max_pages:
        raise LimitExceeded(f"{path.name}: {len(pages)} pages, over the limit of {limits.max_pages}")
    out: list[PageText] = []
    total = 0
    first_failure = ""
    labels = _page_labels(pdf, len(pages))
    for page, label in zip(pages, labels, strict=True):
        try:
            text, facts = _read_page(page)
        except MemoryError as exc:
            raise LimitExceeded(f"{path.name}: out of memory on page {page.page_number}") from exc
        except Exception as exc:
            notes.append(f"{PAGE_FAILED}{page.page_number}")
            first_failure = first_failure or _describe(exc)
            text, facts = "", PageFacts()
        finally:
            page.close()  # drop the page's cached layout: a long document would hold all of them
        total += len(text.encode("utf-8", "surrogatepass"))
        if total > limits.max_text_bytes:
            raise LimitExceeded(f"{path.name}: more than {limits.max_text_bytes} bytes of text")
        out.append(PageText(page=page.page_number, text=text, facts=facts, label=label))
    refuse_unreadable_pages(path, len(pages), notes, first_failure)
    unread = tuple(n for n in notes if n.startswith(PAGE_FAILED))  # kept with the document's diagnostics
    return ReadResult(pages=tuple(out), page_count=len(pages), notes=tuple(notes), unread=unread)


def _page_labels(pdf: pdfplumber.PDF, count: int) -> list[str | None]:
    """Each page's label as the document prints it (its /PageLabels), None where it has none; a broken
    /PageLabels leaves the document unlabelled rather than unread."""
    try:
        labels = list(itertools.islice(pdf.doc.get_page_labels(), count))
    except Exception:  # PDFNoPageLabels, or a malformed number tree
        return [None] * count
    return [label or None for label in labels] + [None] * (count - len(labels))


def _read_page(page: Any) -> tuple[str, PageFacts]:
    text = logical_text(page.extract_text() or "")
    fonts = sorted({str(char.get("fontname", "")) for char in page.chars} - {""})
    facts = PageFacts(
        width=round(float(page.width), 2),
        height=round(float(page.height), 2),
        fonts=len(fonts),
        font_names=tuple(fonts),
        images=len(page.images),
        drawings=len(page.curves) + len(page.lines) + len(page.rects),
    )
    return text, facts
