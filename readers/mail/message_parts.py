"""What the e-mail readers (``.eml`` and ``.msg``) share: the text layout, charsets, the HTML body, and the
names and bounds of the attachments that become documents of their own.

An e-mail's text is its header lines (From, To, Cc, Date, Subject: the fields a person looks a message up
by), a blank line, and its body. Attachments are never part of it: they are members
(readers/walk/containers.py)
that the walk turns into child documents, read by their own readers, so that a PDF attached to a message is
searched, judged and OCRed as a PDF and its words never pass for the message's.
"""

from __future__ import annotations

import codecs
import mimetypes
import platform
import re
from collections.abc import Sequence
from dataclasses import dataclass

from readers.core.errors import LimitExceeded, NothingProduced, ReaderError
from readers.core.model import ReadLimits
from readers.html.chain import read_html_bytes
from readers.text.encoding import decode_text

#: The header fields written into an e-mail's text, in this order; absent or empty ones are left out.
HEADER_FIELDS: tuple[str, ...] = ("From", "To", "Cc", "Date", "Subject")

#: ``encoding_source`` of a body decoded with the charset its MIME part (or the .msg code page) declares.
DECLARED = "declared"

#: The stem of a member name made up for an attachment that has none ("attachment-3.png").
UNNAMED_STEM = "attachment"

#: Line breaks of any convention; header values are written on one line each.
_LINE_BREAKS = re.compile(r"\s*[\r\n]+\s*")

#: Extensions guessed from the content type with Python's built-in table only (``MimeTypes()`` ignores
#: the machine's /etc/mime.types), so that a member's name does not depend on the machine it was read on.
_MIME_TYPES = mimetypes.MimeTypes()

#: Content types attached to mail that Python's table has no extension for, and the extension that lets
#: the walk's sniffer name the kind when the bytes alone do not (readers/walk/sniff.py).
EXTRA_EXTENSIONS: dict[str, str] = {
    "application/vnd.ms-outlook": ".msg",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
    "application/vnd.oasis.opendocument.text": ".odt",
    "text/calendar": ".ics",
    "text/markdown": ".md",
}


@dataclass(frozen=True, slots=True)
class HeaderLine:
    """One header field as it is written into the text: ``name: value`` on one line."""

    name: str
    value: str


@dataclass(frozen=True, slots=True)
class BodyText:
    """A body decoded to text, the encoding it was decoded with, what decided it, and what went wrong."""

    text: str
    encoding: str | None = None
    encoding_source: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MailAttachment:
    """An attachment as the message holds it, before it is named as a member of its parent."""

    filename: str | None
    content_type: str
    data: bytes


def header_line(name: str, value: str | None) -> HeaderLine | None:
    """The header line for ``value``, unfolded onto one line; ``None`` when the value is empty."""
    if value is None:
        return None
    flat = _LINE_BREAKS.sub(" ", value).strip()
    return HeaderLine(name, flat) if flat else None


def mail_text(headers: Sequence[HeaderLine], body: str) -> str:
    """The e-mail's text: the header lines, a blank line, the body.

    Line breaks are made ``\\n``: CRLF is how MIME transports text (RFC 2046 §4.1.1), not part of what was
    written. A message without a body is its header lines alone: they are text the user searches by (who
    wrote, when, about what), so a header-only message is derived, not underivable (docs/design.md §3: a
    derivation is text some reader produced).
    """
    head = "\n".join(f"{h.name}: {h.value}" for h in headers)
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    if not body.strip():
        return head
    return f"{head}\n\n{body}" if head else body


def decode_body(payload: bytes, charset: str | None) -> BodyText:
    """A text part's bytes decoded by its declared charset, with evidence where the declaration fails.

    - no charset declared: :func:`readers.text.encoding.decode_text` decides (RFC 2046 says US-ASCII, but
      8-bit bodies without a charset are common and are usually UTF-8 or the sender's code page);
    - a charset Python does not know: ``decode_text`` decides, noted ``charset_unknown:<charset>``;
    - a charset the bytes do not fit: UTF-8 when they are valid UTF-8 (mail declared "us-ascii" or
      "iso-8859-1" by a client that wrote UTF-8 is the common case), noted ``charset_mismatch:<charset>``;
      else the declared charset with replacement characters, noted ``charset_replaced:<charset>``.
    """
    if charset is None:
        return _by_evidence(payload, ())
    try:
        codec = codecs.lookup(charset).name
    except LookupError:
        return _by_evidence(payload, (f"charset_unknown:{charset}",))
    try:
        return BodyText(_strip_bom(payload.decode(codec)), codec, DECLARED)
    except UnicodeDecodeError:
        pass
    try:
        return BodyText(
            _strip_bom(payload.decode("utf-8")), "utf-8", "utf8", (f"charset_mismatch:{charset}",)
        )
    except UnicodeDecodeError:
        text = payload.decode(codec, errors="replace")
        return BodyText(_strip_bom(text), codec, DECLARED, (f"charset_replaced:{charset}",))


def _by_evidence(payload: bytes, notes: tuple[str, ...]) -> BodyText:
    decoded = decode_text(payload)
    fallback = ("encoding_fallback_latin1",) if decoded.source == "fallback" else ()
    return BodyText(decoded.text, decoded.encoding, decoded.source, notes + fallback)


def _strip_bom(text: str) -> str:
    return text[1:] if text.startswith("\ufeff") else text


def html_body(data: bytes, declared_encoding: str | None, limits: ReadLimits) -> BodyText:
    """An HTML body converted to text by the HTML reader's conversion (readers/html/chain.py), so that a
    message written in HTML reads like an HTML document does.

    The HTML chain is readers/core/reader_chain.py's HTML row, so that a body reads as an HTML file would.
    A body over a bound stays an error of the message (bounds are bounds); an HTML body that converts to
    nothing,
    or that the HTML chain refuses (or that has no chain yet: ``no_reader:html``), leaves the message its
    header lines and a note.
    """
    try:
        result = read_html_bytes(data, declared_encoding=declared_encoding, limits=limits)
    except LimitExceeded:
        raise
    except NothingProduced as exc:
        return BodyText("", notes=(f"html_body_empty:{exc.reason}",))
    except ReaderError as exc:
        return BodyText("", notes=(f"html_body_unreadable:{exc.reason}",))
    return BodyText(result.text, result.encoding, result.encoding_source, ("html_body", *result.notes))


def python_version() -> str:
    """The standard library's version: its ``email`` and ``zipfile`` packages are the tools underneath."""
    return f"python-{platform.python_version()}"


class MemberNames:
    """Hands out the member names of one parent, each unique within it.

    An attachment keeps its file name; a second one of the same name gets a numeric suffix before the
    extension (``report-2.pdf``); one without a name gets ``attachment-<N>`` (N its 1-based position
    among the parent's members) and an extension guessed from its content type, so that the walk's
    sniffing has a name to fall back on. Names are data, never paths: nothing is written to disk by them.
    """

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._count = 0

    def claim(self, filename: str | None, content_type: str) -> str:
        self._count += 1
        name = (filename or "").strip()
        if not name:
            name = f"{UNNAMED_STEM}-{self._count}{guess_extension(content_type)}"
        stem, ext = split_extension(name)
        candidate, n = name, 1
        while candidate in self._used:
            n += 1
            candidate = f"{stem}-{n}{ext}"
        self._used.add(candidate)
        return candidate


def guess_extension(content_type: str) -> str:
    """The usual extension of ``content_type`` with its dot, or ``""`` when there is none."""
    content_type = content_type.lower()
    return EXTRA_EXTENSIONS.get(content_type) or _MIME_TYPES.guess_extension(content_type) or ""


def split_extension(name: str) -> tuple[str, str]:
    """``("dir/report", ".pdf")`` for ``"dir/report.pdf"``; a leading dot (``.profile``) is no extension."""
    base_at = max(name.rfind("/"), name.rfind("\\")) + 1
    dot = name.rfind(".")
    if dot > base_at:
        return name[:dot], name[dot:]
    return name, ""


class MemberBudget:
    """The container bounds of :class:`readers.core.model.ReadLimits` applied to attachments an e-mail decodes
    itself (zip members are bounded by readers/archives/safezip.py while they inflate).

    A decoded attachment is never larger than its encoded form (base64 shrinks by a quarter, quoted-
    printable only shrinks) and a .msg stores attachments uncompressed, so the bytes are bounded by the
    file's size before they are counted here; these bounds make an e-mail obey the same limits as a zip.
    """

    def __init__(self, limits: ReadLimits) -> None:
        self.limits = limits
        self.members = 0
        self.total = 0

    def admit(self, name: str, size: int) -> None:
        self.members += 1
        self.total += size
        if self.members > self.limits.max_members:
            raise LimitExceeded(f"more than {self.limits.max_members} attachments")
        if size > self.limits.max_member_bytes:
            raise LimitExceeded(f"attachment {name!r} is {size} bytes, over {self.limits.max_member_bytes}")
        if self.total > self.limits.max_container_bytes:
            raise LimitExceeded(f"the attachments pass {self.limits.max_container_bytes} bytes in all")
