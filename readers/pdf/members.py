"""The files a PDF carries: its embedded files (the ``/EmbeddedFiles`` name tree of the catalog, what a
viewer lists as attachments) and the files of its file attachment annotations (a paper clip on a page).

They are members of the PDF as attachments are of an e-mail (readers/walk/containers.py): the walk makes each
a
document of its own, read by its own reader; the PDF's text stays what its readers find on its pages.

- Embedded files come first, in the name tree's order, named by their file name (``/UF``, else ``/F``,
  else the name tree's key); then the annotations' files, page by page, named likewise.
- A file is refused before MuPDF inflates it when its declared size (``/Params /Size``) or its stored
  size is over ``max_member_bytes``, or when the declared size is over ``max_compression_ratio`` times the
  stored one past ``COMPRESSION_CHECK_FLOOR`` (a bomb); what MuPDF then gives is checked again, since a
  declaration is a claim. The number and the total are bounded by
  :class:`readers.mail.message_parts.MemberBudget`.
- Only pages whose dictionary has ``/Annots`` are loaded, so a PDF without annotations costs no page.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pymupdf

from readers.archives.safezip import COMPRESSION_CHECK_FLOOR
from readers.core.errors import CorruptDocument, LimitExceeded
from readers.core.model import ReadLimits
from readers.mail.message_parts import MailAttachment
from readers.pdf.mupdf import open_pdf

#: The content type handed to the member names for a file whose name is unknown.
OCTET_STREAM = "application/octet-stream"


def pdf_attachments(path: Path, limits: ReadLimits) -> Iterator[MailAttachment]:
    """The embedded files, then the file attachment annotations' files (module docstring)."""
    doc = open_pdf(path, limits)
    try:
        yield from _embedded(doc, limits)
        yield from _annotated(doc, limits)
    finally:
        doc.close()


def _embedded(doc: pymupdf.Document, limits: ReadLimits) -> Iterator[MailAttachment]:
    try:
        count = doc.embfile_count()
    except Exception as exc:  # a name tree MuPDF cannot walk
        raise CorruptDocument(f"the embedded files cannot be listed: {exc}") from exc
    if count > limits.max_members:
        raise LimitExceeded(f"{count} embedded files, over the limit of {limits.max_members}")
    for index in range(count):
        try:
            info = doc.embfile_info(index)
        except Exception as exc:
            raise CorruptDocument(f"embedded file {index + 1} cannot be described: {exc}") from exc
        name = info.get("ufilename") or info.get("filename") or info.get("name")
        _refuse_declared(name, info, limits)
        try:
            data = doc.embfile_get(index)
        except MemoryError:
            raise
        except Exception as exc:
            raise CorruptDocument(f"embedded file {name!r} cannot be read: {exc}") from exc
        yield MailAttachment(name or None, OCTET_STREAM, _bounded(name, data, info, limits))


def _annotated(doc: pymupdf.Document, limits: ReadLimits) -> Iterator[MailAttachment]:
    for index in range(doc.page_count):
        kind, _ = doc.xref_get_key(doc.page_xref(index), "Annots")
        if kind == "null":
            continue
        for annot in doc.load_page(index).annots(types=[pymupdf.PDF_ANNOT_FILE_ATTACHMENT]):
            try:
                info = annot.file_info
                name = info.get("filename")
                _refuse_declared(name, info, limits)
                data = annot.get_file()
            except LimitExceeded:
                raise
            except Exception as exc:
                raise CorruptDocument(
                    f"the file of an annotation on page {index + 1} cannot be read: {exc}"
                ) from exc
            yield MailAttachment(name or None, OCTET_STREAM, _bounded(name, data, info, limits))


def _refuse_declared(name: str | None, info: dict, limits: ReadLimits) -> None:
    """Refuse a file by what its specification declares, before it is inflated: ``size`` is the declared
    inflated size, ``length`` the stored (compressed) one."""
    declared, stored = _size(info, "size"), _size(info, "length")
    if max(declared, stored) > limits.max_member_bytes:
        raise LimitExceeded(
            f"embedded file {name!r} declares {max(declared, stored)} bytes, over {limits.max_member_bytes}"
        )
    _refuse_ratio(name, declared, stored, limits)


def _bounded(name: str | None, data: bytes, info: dict, limits: ReadLimits) -> bytes:
    """What MuPDF inflated, checked again against the bounds (the declaration may have lied)."""
    if len(data) > limits.max_member_bytes:
        raise LimitExceeded(f"embedded file {name!r} is {len(data)} bytes, over {limits.max_member_bytes}")
    _refuse_ratio(name, len(data), _size(info, "length"), limits)
    return data


def _refuse_ratio(name: str | None, inflated: int, stored: int, limits: ReadLimits) -> None:
    if inflated > COMPRESSION_CHECK_FLOOR and inflated > limits.max_compression_ratio * max(1, stored):
        raise LimitExceeded(
            f"embedded file {name!r} inflates more than {limits.max_compression_ratio:.0f} times its stored "
            f"size: a bomb"
        )


def _size(info: dict, key: str) -> int:
    try:
        return max(0, int(info.get(key) or 0))
    except (TypeError, ValueError):
        return 0
