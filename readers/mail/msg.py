"""The ``.msg`` reader: an Outlook message (an OLE2 compound file of MAPI properties, MS-OXMSG), read by
readers/mail/mapi.py on olefile (BSD-2-Clause), with compressed-rtf (MIT) for the RTF body
(readers/mail/rtf_body.py).

The text is laid out as an ``.eml``'s is (readers/mail/message_parts.py): the header lines, a blank line, the
body.

Header lines. The transport headers (``PR_TRANSPORT_MESSAGE_HEADERS``, the message's RFC 5322 header as it
arrived) are the best source of From, To, Cc and Date when the message has them: they are what the sender
wrote, RFC 2047 words decoded, where the MAPI properties hold what the client made of them (the submit
time of a message converted to .msg months later, a sender's Exchange address). What they lack, and
messages that never travelled (drafts, messages saved without headers), come from the properties: From
from the sender's display name and SMTP address, To and Cc from the recipient table (else the display
lists), Date from the submit time of a sent message. Subject is always the property (the header's is the
same, folded and encoded).

Body. The plain-text body (``PR_BODY``) when it has any text, else the HTML body (``PR_HTML``) converted by
the HTML reader's conversion, else the RTF body (``PR_RTF_COMPRESSED``) when it encapsulates HTML or plain
text (what Outlook writes for messages composed in HTML or plain text, MS-OXRTFEX: the original is taken
back out). A native RTF body (composed in Outlook's rich-text editor) with neither of the other two is not
converted here: the message keeps its header lines and the note ``rtf_body_not_read``. A clear-signed
message (``IPM.Note.SMIME.MultipartSigned``) keeps its content in a ``multipart/signed`` MIME attachment:
its body and attachments are that MIME message's, read as the .eml reader reads one.

Strings in a message written without Unicode (``001E`` properties) are in a code page. MS-OXMSG puts it
in ``PR_MESSAGE_CODEPAGE``; many clients only set ``PR_INTERNET_CPID`` (the corpus's Chinese message:
950, Big5). So the code page is taken from the first of the two that is present, and only when neither
is, guessed from the body's bytes (readers/text/encoding.py), noted ``codepage_detected``.

Attachments are never text: :func:`attachments` lists them for readers/walk/containers.py, data attachments as
they are stored, embedded messages as ``.msg`` files of their own (readers/mail/compound_file.py writes their
storage into a new compound file). Encrypted message classes (S/MIME enveloped, rights-managed) are
``encrypted``. Nothing is ever fetched: attachments by reference or link are skipped.
"""

from __future__ import annotations

import email.utils
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email import policy
from email.header import decode_header, make_header
from email.message import Message
from email.parser import HeaderParser
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import ClassVar

from readers.core.base import Reader, require_readable_file
from readers.core.errors import CorruptDocument, EncryptedDocument, LimitExceeded
from readers.core.model import ContentKind, PageText, ReadLimits, ReadResult
from readers.html.chain import html_chain_version
from readers.mail.mapi import (
    PT_BINARY,
    PT_STRING8,
    PT_UNICODE,
    MapiStorage,
    MsgFile,
    codepage_codec,
    substg_name,
)
from readers.mail.message_parts import (
    DECLARED,
    BodyText,
    HeaderLine,
    MailAttachment,
    header_line,
    html_body,
    mail_text,
)
from readers.mail.rtf_body import RtfBodyError, decompress_rtf, deencapsulate_rtf
from readers.text.encoding import decode_text

#: MAPI property ids (MS-OXPROPS) of the message.
MESSAGE_CLASS = 0x001A
SUBJECT = 0x0037
CLIENT_SUBMIT_TIME = 0x0039
SENT_REPRESENTING_ADDRTYPE = 0x0064
SENT_REPRESENTING_EMAIL = 0x0065
TRANSPORT_HEADERS = 0x007D
SENDER_NAME = 0x0C1A
SENDER_ADDRTYPE = 0x0C1E
SENDER_EMAIL = 0x0C1F
SENDER_SMTP_ADDRESS = 0x5D01
DISPLAY_CC = 0x0E03
DISPLAY_TO = 0x0E04
MESSAGE_FLAGS = 0x0E07
PLAIN_BODY = 0x1000
RTF_COMPRESSED = 0x1009
HTML_BODY = 0x1013
INTERNET_CPID = 0x3FDE
MESSAGE_CODEPAGE = 0x3FFD
#: ... of a recipient.
RECIPIENT_TYPE = 0x0C15
DISPLAY_NAME = 0x3001
ADDRTYPE = 0x3002
EMAIL_ADDRESS = 0x3003
SMTP_ADDRESS = 0x39FE
#: ... of an attachment.
ATTACH_DATA = 0x3701
ATTACH_FILENAME = 0x3704
ATTACH_METHOD = 0x3705
ATTACH_LONG_FILENAME = 0x3707
ATTACH_MIME_TAG = 0x370E

#: ``PR_MESSAGE_FLAGS``: the message was never sent (a draft), so it has no date of sending.
MSGFLAG_UNSENT = 0x8
#: ``PR_RECIPIENT_TYPE`` (its low bits: MAPI_TO, MAPI_CC).
RECIPIENT_TO, RECIPIENT_CC = 1, 2
#: ``PR_ATTACH_METHOD``: an attached message, stored as a storage of its own.
ATTACH_EMBEDDED_MSG = 5
#: Outlook's own header line before the transport headers of some messages, not part of the header.
_HEADER_PREFIX = "Microsoft Mail Internet Headers Version 2.0"
#: Recipients from the recipient table are joined as Outlook's display lists join them.
RECIPIENT_SEPARATOR = "; "

#: Message classes whose content is encrypted: S/MIME (``IPM.Note.SMIME``; clear-signed messages are
#: ``IPM.Note.SMIME.MultipartSigned`` and are read) and rights-managed mail (``IPM.Note.rpmsg.*``).
ENCRYPTED_CLASSES = ("ipm.note.smime", "ipm.note.rpmsg")
SIGNED_CLASS_MARK = "multipartsigned"
SIGNED_MIME_TYPE = "multipart/signed"

#: The content type given to an embedded Outlook message, which becomes a member of its own.
MSG_CONTENT_TYPE = "application/vnd.ms-outlook"
#: The code page of 8-bit strings when the message declares none and has no 8-bit string to guess from.
FALLBACK_CODEC = "cp1252"


@dataclass(frozen=True, slots=True)
class _Encoding:
    """The codec the message's 8-bit strings are decoded with, what decided it, and a note when it was
    guessed."""

    codec: str
    source: str
    note: str | None = None


@dataclass(frozen=True, slots=True)
class OpenMsg:
    """An open message: the file (for attachments and exports), its root MAPI object, the code page of
    its 8-bit strings, and its message class (lower-cased)."""

    file: MsgFile
    message: MapiStorage
    encoding: _Encoding
    message_class: str

    @property
    def signed(self) -> bool:
        return SIGNED_CLASS_MARK in self.message_class


def tool_version() -> str:
    """olefile reads the compound file; compressed-rtf decompresses RTF bodies."""
    return f"{_package_version('olefile')}+{_package_version('compressed-rtf')}"


def _package_version(name: str) -> str:
    try:
        return f"{name}-{version(name)}"
    except PackageNotFoundError:
        return f"{name}-missing"


class MsgReader(Reader):
    """Reads an Outlook ``.msg`` into one page: header lines, a blank line, the body (module docstring)."""

    name: ClassVar[str] = "msg"
    revision: ClassVar[int] = 1
    kinds: ClassVar[frozenset[ContentKind]] = frozenset({ContentKind.MSG})

    @property
    def tool_version(self) -> str:
        """olefile (and compressed-rtf) read the message; the HTML chain reads HTML bodies."""
        return f"{tool_version()}/{html_chain_version()}"

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        with open_msg(path) as opened:
            headers, header_notes = _header_lines(opened)
            body = _body(opened, limits)
        text = mail_text(headers, body.text)
        if len(text.encode("utf-8", errors="replace")) > limits.max_text_bytes:
            raise LimitExceeded(f"{path.name}: the text is over {limits.max_text_bytes} bytes")
        notes = header_notes + ((opened.encoding.note,) if opened.encoding.note else ()) + body.notes
        return ReadResult(
            pages=(PageText(page=1, text=text),),
            page_count=1,
            encoding=body.encoding,
            encoding_source=body.encoding_source,
            notes=notes,
        )


def attachments(path: Path, limits: ReadLimits | None = None) -> Iterator[MailAttachment]:
    """The message's attachments in order: data attachments as they are stored, embedded messages as
    ``.msg`` files of their own; attachments by reference or link, and OLE objects, are skipped (never
    fetched). Each is read only when the previous one has been taken, and one whose stream is over
    ``max_member_bytes`` is refused before it is read; counting the members and their total is the
    caller's (readers/walk/containers.py, with :class:`readers.mail.message_parts.MemberBudget`)."""
    bound = (limits or ReadLimits()).max_member_bytes
    with open_msg(path) as opened:
        mime = _signed_mime(opened)
        if mime is not None:
            yield from _mime_attachments(mime, limits or ReadLimits())
            return
        for attachment in opened.message.attachments():
            found = _attachment(opened, attachment, bound)
            if found is not None:
                yield found


@contextmanager
def open_msg(path: Path) -> Iterator[OpenMsg]:
    """The message opened, with its code page (module docstring), closed on leaving.

    A file that is not an OLE2 message, or whose directory or property streams break the format, is
    ``corrupt``; an encrypted message class is ``encrypted``.
    """
    require_readable_file(path)
    msg = MsgFile(path)
    try:
        message = msg.root
        try:
            message_class = (message.string(MESSAGE_CLASS, FALLBACK_CODEC) or "").lower()
        except UnicodeDecodeError as exc:
            raise CorruptDocument(f"{path.name}: the message class cannot be decoded") from exc
        if message_class.startswith(ENCRYPTED_CLASSES) and SIGNED_CLASS_MARK not in message_class:
            raise EncryptedDocument(f"{path.name}: the message is encrypted ({message_class})")
        yield OpenMsg(msg, message, _encoding(message), message_class)
    finally:
        msg.close()


def _encoding(message: MapiStorage) -> _Encoding:
    """Which code page decodes the message's 8-bit strings (module docstring)."""
    for prop in (MESSAGE_CODEPAGE, INTERNET_CPID):
        codepage = message.long(prop)
        codec = codepage_codec(codepage) if codepage is not None else None
        if codec is not None:
            return _Encoding(codec, DECLARED)
    sample = message.stream(PLAIN_BODY, PT_STRING8)
    if sample is None:
        strings = [message.msg.read((*message.path, name)) or b"" for name in message.string8_streams()]
        if not any(strings):
            return _Encoding(FALLBACK_CODEC, DECLARED)  # a Unicode message: no 8-bit string to decode
        sample = b"\n".join(strings)
    decoded = decode_text(sample)
    return _Encoding(decoded.encoding, decoded.source, "codepage_detected")


# --------------------------------------------------------------------------------------------------------
# Headers


def _header_lines(opened: OpenMsg) -> tuple[tuple[HeaderLine, ...], tuple[str, ...]]:
    """From, To, Cc, Date, Subject (module docstring); a field whose property cannot be decoded is left
    out and noted."""
    message, codec = opened.message, opened.encoding.codec
    transport = _transport_headers(message, codec)

    def from_header(name: str, fallback: Callable[[], str | None]) -> Callable[[], str | None]:
        return lambda: _header_value(transport, name) or fallback()

    fields: list[tuple[str, Callable[[], str | None]]] = [
        ("From", from_header("From", lambda: _sender(message, codec))),
        ("To", from_header("To", lambda: _recipients(message, codec, RECIPIENT_TO, DISPLAY_TO))),
        ("Cc", from_header("Cc", lambda: _recipients(message, codec, RECIPIENT_CC, DISPLAY_CC))),
        ("Date", from_header("Date", lambda: _sent_date(message))),
        ("Subject", lambda: message.string(SUBJECT, codec) or _header_value(transport, "Subject")),
    ]
    lines: list[HeaderLine] = []
    notes: list[str] = []
    for name, getter in fields:
        try:
            value = getter()
        except (UnicodeDecodeError, CorruptDocument):  # one broken property: the others still make the header
            notes.append(f"header_unparsed:{name.lower()}")
            continue
        line = header_line(name, value)
        if line is not None:
            lines.append(line)
    return tuple(lines), tuple(notes)


def _transport_headers(message: MapiStorage, codec: str) -> Message | None:
    """The transport headers parsed (``compat32``: values as written, folded lines and all), or ``None``
    when the message has none or they cannot be decoded."""
    try:
        text = message.string(TRANSPORT_HEADERS, codec)
    except (UnicodeDecodeError, CorruptDocument):
        return None
    if not text or not text.strip():
        return None
    text = text.lstrip()
    if text.startswith(_HEADER_PREFIX):
        text = text[len(_HEADER_PREFIX) :].lstrip()
    return HeaderParser(policy=policy.compat32).parsestr(text, headersonly=True)


def _header_value(headers: Message | None, name: str) -> str | None:
    """The field's values (RFC 2047 words decoded) joined, ``None`` when absent or blank."""
    if headers is None:
        return None
    values = [_decoded(str(v)) for v in headers.get_all(name, [])]
    joined = ", ".join(v for v in values if v.strip())
    return joined or None


def _decoded(raw: str) -> str:
    try:
        return str(make_header(decode_header(raw)))
    except Exception:  # malformed encoded words: the raw text is still the best evidence there is
        return raw


def _sender(message: MapiStorage, codec: str) -> str | None:
    """The sender's display name and SMTP address, ``Name <address>`` (an Exchange address is no address
    a reader can use: it is left out)."""
    name = message.string(SENDER_NAME, codec)
    address = message.string(SENDER_SMTP_ADDRESS, codec)
    for addrtype, prop in (
        (SENDER_ADDRTYPE, SENDER_EMAIL),
        (SENT_REPRESENTING_ADDRTYPE, SENT_REPRESENTING_EMAIL),
    ):
        if address:
            break
        if (message.string(addrtype, codec) or "").strip().upper() == "SMTP":
            address = message.string(prop, codec)
    return _name_address(name, address)


def _name_address(name: str | None, address: str | None) -> str | None:
    name, address = (name or "").strip(), (address or "").strip()
    if name and address and name != address:
        return f"{name} <{address}>"
    return name or address or None


def _recipients(message: MapiStorage, codec: str, kind: int, display: int) -> str | None:
    """The recipients of one kind from the recipient table, else the message's display list of them."""
    recipients = message.recipients()
    if not recipients:
        return message.string(display, codec)
    found: list[str] = []
    for recipient in recipients:
        if (recipient.long(RECIPIENT_TYPE) or 0) & 0xF != kind:
            continue
        address = recipient.string(SMTP_ADDRESS, codec)
        if not address and (recipient.string(ADDRTYPE, codec) or "SMTP").strip().upper() == "SMTP":
            address = recipient.string(EMAIL_ADDRESS, codec)
        formatted = _name_address(recipient.string(DISPLAY_NAME, codec), address)
        if formatted:
            found.append(formatted)
    return RECIPIENT_SEPARATOR.join(found) or None


def _sent_date(message: MapiStorage) -> str | None:
    """The submit time of a sent message (a draft has none), as a header date in UTC."""
    if (message.long(MESSAGE_FLAGS) or 0) & MSGFLAG_UNSENT:
        return None
    sent = message.time(CLIENT_SUBMIT_TIME)
    return email.utils.format_datetime(sent) if sent is not None else None


# --------------------------------------------------------------------------------------------------------
# Body


def _body(opened: OpenMsg, limits: ReadLimits) -> BodyText:
    """Plain, else HTML, else RTF-encapsulated HTML or text (module docstring)."""
    mime = _signed_mime(opened)
    if mime is not None:
        return _mime_body(mime, limits)
    message, encoding = opened.message, opened.encoding
    notes: tuple[str, ...] = ()
    try:
        plain = message.string(PLAIN_BODY, encoding.codec)
    except (UnicodeDecodeError, CorruptDocument) as exc:  # a body that cannot be decoded: try the others
        plain, notes = None, (f"plain_body_unreadable:{type(exc).__name__}",)
    if plain is not None and plain.strip():
        if message.has(PLAIN_BODY, PT_UNICODE):
            return BodyText(plain, "utf-16-le", DECLARED)
        return BodyText(plain, encoding.codec, encoding.source)
    html = _html_bytes(message, encoding)
    if html is not None:
        converted = html_body(html[0], html[1], limits)
        if converted.text.strip():
            return BodyText(
                converted.text, converted.encoding, converted.encoding_source, notes + converted.notes
            )
        notes += converted.notes
    rtf = _rtf_body(message, limits)
    return BodyText(rtf.text, rtf.encoding, rtf.encoding_source, notes + rtf.notes)


def _html_bytes(message: MapiStorage, encoding: _Encoding) -> tuple[bytes, str | None] | None:
    """The HTML body's bytes and the charset to try first: the binary property in the message's internet
    code page (``PR_INTERNET_CPID``), an 8-bit string in the message's code page, a Unicode string as
    UTF-8."""
    try:
        binary = message.binary(HTML_BODY)
        if binary and binary.strip(b"\0 \r\n\t"):
            cpid = message.long(INTERNET_CPID)
            return binary, codepage_codec(cpid) if cpid is not None else None
        unicode = message.stream(HTML_BODY, PT_UNICODE)
        if unicode:
            return unicode.decode("utf-16-le", errors="replace").rstrip("\0").encode("utf-8"), "utf-8"
        eight_bit = message.stream(HTML_BODY, PT_STRING8)
        if eight_bit:
            return eight_bit.rstrip(b"\0"), encoding.codec
    except CorruptDocument:  # a broken HTML stream: the RTF body may still hold the message
        return None
    return None


def _rtf_body(message: MapiStorage, limits: ReadLimits) -> BodyText:
    """The HTML or text an encapsulating RTF body holds; a native RTF body is not converted here."""
    try:
        compressed = message.binary(RTF_COMPRESSED)
    except CorruptDocument as exc:
        return BodyText("", notes=(f"rtf_body_unreadable:{type(exc).__name__}",))
    if not compressed:
        return BodyText("")
    try:
        found = deencapsulate_rtf(decompress_rtf(compressed))
    except RtfBodyError as exc:
        return BodyText("", notes=(f"rtf_body_unreadable:{type(exc).__name__}",))
    if found is None:
        return BodyText("", notes=("rtf_body_not_read",))
    if found.kind == "html":
        converted = html_body(found.content.encode("utf-8"), "utf-8", limits)
        return BodyText(
            converted.text, converted.encoding, converted.encoding_source, ("rtf_body", *converted.notes)
        )
    return BodyText(found.content, None, None, ("rtf_body",))


# --------------------------------------------------------------------------------------------------------
# Attachments


def _attachment(opened: OpenMsg, attachment: MapiStorage, bound: int) -> MailAttachment | None:
    """One attachment as a member (:func:`attachments`), ``None`` for one that holds no bytes here."""
    codec = opened.encoding.codec
    try:
        long_name = attachment.string(ATTACH_LONG_FILENAME, codec)
        short_name = attachment.string(ATTACH_FILENAME, codec)
        mime_tag = attachment.string(ATTACH_MIME_TAG, codec)
    except UnicodeDecodeError:  # a name that cannot be decoded: the attachment is name-less
        long_name = short_name = mime_tag = None
    filename = long_name or short_name
    data_path = (*attachment.path, substg_name(ATTACH_DATA, PT_BINARY))
    if opened.file.exists(data_path) and not opened.file.is_storage(data_path):
        _refuse_over(filename, opened.file.stream_size(data_path), bound)
        return MailAttachment(
            filename, mime_tag or "application/octet-stream", attachment.binary(ATTACH_DATA) or b""
        )
    method = attachment.long(ATTACH_METHOD)
    embedded = attachment.embedded_message()
    if embedded is None or method not in (ATTACH_EMBEDDED_MSG, None):
        return None  # by reference, a web link, an OLE object: no bytes of a document to read here
    try:
        display = attachment.string(DISPLAY_NAME, codec)
    except UnicodeDecodeError:
        display = None
    name = f"{display}.msg" if display else filename
    data = opened.file.export_message(embedded)
    _refuse_over(name, len(data), bound)
    return MailAttachment(name, MSG_CONTENT_TYPE, data)


def _refuse_over(name: str | None, size: int, bound: int) -> None:
    if size > bound:
        raise LimitExceeded(f"attachment {name!r} is {size} bytes, over {bound}")


# --------------------------------------------------------------------------------------------------------
# Clear-signed messages: the content is a MIME message in an attachment (MS-OXOSMIME 2.1.3.2)


def _signed_mime(opened: OpenMsg) -> bytes | None:
    """The ``multipart/signed`` MIME message a clear-signed message keeps its content in, if it is one."""
    if not opened.signed:
        return None
    codec = opened.encoding.codec
    for attachment in opened.message.attachments():
        try:
            tag = (attachment.string(ATTACH_MIME_TAG, codec) or "").strip().lower()
        except UnicodeDecodeError:
            continue
        if tag == SIGNED_MIME_TYPE:
            return attachment.binary(ATTACH_DATA)
    return None


def _mime_body(data: bytes, limits: ReadLimits) -> BodyText:
    """The body of the signed MIME message, chosen and decoded as the .eml reader does."""
    from readers.mail.eml import _anatomy, _body_text, _refuse_encrypted, parse_eml_bytes

    parsed = parse_eml_bytes(data)
    _refuse_encrypted(parsed.message)
    chosen = _anatomy(parsed.message).body
    return _body_text(chosen.part, parsed, limits) if chosen is not None else BodyText("")


def _mime_attachments(data: bytes, limits: ReadLimits) -> Iterator[MailAttachment]:
    """The attachments of the signed MIME message, as the .eml reader lists them."""
    from readers.mail.eml import (
        _anatomy,
        _attachment_bytes,
        _filename,
        _refuse_encrypted,
        parse_eml_bytes,
        refuse_deep_messages,
    )

    parsed = parse_eml_bytes(data)
    _refuse_encrypted(parsed.message)
    refuse_deep_messages(parsed.message, limits)
    for leaf in _anatomy(parsed.message).attachments:
        part = leaf.part
        yield MailAttachment(_filename(part), part.get_content_type(), _attachment_bytes(part, parsed))
