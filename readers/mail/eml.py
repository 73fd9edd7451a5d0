"""The ``.eml`` reader: an RFC 5322 / MIME message parsed by the standard library (``policy.default``).

The text is the header lines (From, To, Cc, Date, Subject, RFC 2047 words decoded), a blank line, and
the body: the first text/plain part that is not an attachment, or, when there is none (or only blank
ones), the first text/html part converted by the HTML reader's conversion. The MIME tree is walked
without entering attached messages (message/rfc822), so a forwarded message's body never becomes this
one's. Every other leaf is an attachment (:func:`attachments`): the walk makes it a document of its own.

Which leaf is what:

- the body: the chosen text/plain (or text/html) part, inline and without a file name;
- its alternatives: the other plain and HTML parts of the same multipart/alternative, dropped (they say
  the same thing again);
- attachments: everything else that carries content: parts with ``Content-Disposition: attachment`` or
  a file name, non-text parts (inline images), attached messages, and inline plain or HTML parts that
  are neither the body nor one of its alternatives (so no text is lost and none leaks into the body);
- signatures (S/MIME, PGP): no content, skipped.

A message whose content is encrypted (multipart/encrypted, S/MIME enveloped data) is ``encrypted``: its
header lines alone would pass an unreadable message off as read.

Files are bytes, but an e-mail saved as UTF-16 (with a byte-order mark, or without one: recognised by its
NULs, readers/text/encoding.py) is decoded to text first and parsed as text. An mbox ``From `` line before the
headers is taken for what it is (the parser's "unix from"), and a text/plain body in ``format=flowed``
(RFC 3676) has its soft line breaks joined.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from email import policy
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.parser import BytesParser, Parser
from pathlib import Path
from typing import ClassVar, cast

from readers.core.base import Reader, read_bounded, require_readable_file
from readers.core.errors import CorruptDocument, EncryptedDocument, LimitExceeded
from readers.core.model import ContentKind, PageText, ReadLimits, ReadResult
from readers.html.chain import html_chain_version
from readers.mail.message_parts import (
    HEADER_FIELDS,
    BodyText,
    HeaderLine,
    MailAttachment,
    decode_body,
    header_line,
    html_body,
    mail_text,
    python_version,
)
from readers.text.encoding import bom_encoding, utf16_by_nul_share

#: Content types that sign a message and carry no content of their own.
SIGNATURE_TYPES = frozenset(
    {"application/pkcs7-signature", "application/x-pkcs7-signature", "application/pgp-signature"}
)
#: S/MIME content types whose ``smime-type`` says whether they are encrypted (RFC 8551 §3.2.2).
PKCS7_MIME_TYPES = frozenset({"application/pkcs7-mime", "application/x-pkcs7-mime"})
ENCRYPTED_SMIME_TYPES = frozenset({"enveloped-data", "authenveloped-data"})
#: Attached messages: leaves of this message, containers of their own.
MESSAGE_TYPES = frozenset({"message/rfc822", "message/global"})
BODY_TYPES = ("text/plain", "text/html")
#: How much larger than its decoded attachments an e-mail file may be: base64 writes 4 bytes for 3 and
#: breaks lines every 76 characters (4/3 x 78/76 = 1.37), quoted-printable at most 3 for 1 but only on
#: bytes that are rare in text. So a message whose attachments fit ``max_container_bytes`` fits this
#: times it, and the container bound proper is checked on the decoded attachments
#: (readers/walk/containers.py).
ENCODED_OVERHEAD = 1.4
#: Transfer encodings that leave the text as it is (no base64, quoted-printable or uuencode to undo).
IDENTITY_ENCODINGS = frozenset({"7bit", "8bit", "binary"})
#: How deep the parts of one message may nest (multiparts and attached messages together). The deepest
#: message of the dev corpus nests 3 deep and a mail client's forward of a forward with HTML and inline
#: images about 8; Python's own parser and generator recurse several frames per level and fail past about
#: 150 (RecursionError), so 32 keeps every real message and refuses the rest cleanly (``over_limit``).
MAX_MIME_DEPTH = 32


@dataclass(frozen=True, slots=True)
class ParsedEml:
    """A parsed message, and the file's own encoding when the file was text in UTF-16 or UTF-32 (then
    every part is already text, whatever charset it declares)."""

    message: EmailMessage
    file_encoding: str | None = None
    file_encoding_source: str | None = None


@dataclass(frozen=True, slots=True)
class _Leaf:
    """A part that is not a multipart, and the multipart/alternative it belongs to (its ordinal in the
    walk; ``None`` outside any)."""

    part: Message
    alternative: int | None


@dataclass(frozen=True, slots=True)
class _Anatomy:
    """What each leaf of the message is (module docstring)."""

    body: _Leaf | None
    attachments: tuple[_Leaf, ...]


def parse_eml(path: Path, limits: ReadLimits) -> ParsedEml:
    """The message in ``path``. An e-mail is a container: its file is bounded by what a container's worth
    of attachments takes once encoded (:data:`ENCODED_OVERHEAD`); the parser itself never fails on bad
    input, it records defects."""
    require_readable_file(path, allow_empty=True)
    bound = int(limits.max_container_bytes * ENCODED_OVERHEAD)
    return parse_eml_bytes(read_bounded(path, bound, what="bytes for an e-mail"))


def parse_eml_bytes(data: bytes) -> ParsedEml:
    """Parse a message's bytes, as text when the file is UTF-16/32 (module docstring)."""
    marked = bom_encoding(data)
    if marked is not None and marked[0] != "utf-8":
        encoding, length = marked
        text = data[length:].decode(encoding, errors="replace")
        return ParsedEml(_parse_text(text), encoding, "bom")
    utf16 = utf16_by_nul_share(data) if marked is None else None
    if utf16 is not None:
        return ParsedEml(_parse_text(data.decode(utf16, errors="replace")), utf16, "nul_share")
    if marked is not None:
        data = data[marked[1] :]
    try:
        message = BytesParser(policy=policy.default).parsebytes(data.lstrip())
    except RecursionError as exc:
        raise LimitExceeded(_TOO_DEEP) from exc
    except Exception as exc:  # the parser records defects; anything it raises is a broken message
        raise CorruptDocument(f"not a readable e-mail: {exc}") from exc
    return ParsedEml(_shallow(cast(EmailMessage, message)))


def _parse_text(text: str) -> EmailMessage:
    try:
        return _shallow(cast(EmailMessage, Parser(policy=policy.default).parsestr(text.lstrip())))
    except RecursionError as exc:
        raise LimitExceeded(_TOO_DEEP) from exc
    except LimitExceeded:
        raise
    except Exception as exc:
        raise CorruptDocument(f"not a readable e-mail: {exc}") from exc


_TOO_DEEP = "the message's parts nest too deep for the e-mail parser"


def _shallow(message: EmailMessage) -> EmailMessage:
    """``message`` if its own parts (attached messages not entered, as the reader walks them) nest at
    most :data:`MAX_MIME_DEPTH` deep, else ``LimitExceeded``: the reader walks the tree by recursion, so
    its depth is measured first, without any."""
    deepest = max(depth for depth, messages in _depths(message) if messages == 0)
    if deepest > MAX_MIME_DEPTH:
        raise LimitExceeded(f"the message's parts nest {deepest} deep, over the limit of {MAX_MIME_DEPTH}")
    return message


def _depths(message: Message) -> Iterator[tuple[int, int]]:
    """(part depth, attached-message depth) of every part of ``message``, iteratively; the root is
    (1, 0) and a message/rfc822 part and everything under it count one more attached message."""
    stack: list[tuple[Message, int, int]] = [(message, 1, 0)]
    while stack:
        part, depth, messages = stack.pop()
        yield depth, messages
        payload = part.get_payload() if part.is_multipart() else None
        if isinstance(payload, list):
            inner = messages + (part.get_content_type() in MESSAGE_TYPES)
            stack.extend((sub, depth + 1, inner) for sub in payload if isinstance(sub, Message))


class EmlReader(Reader):
    """Reads an ``.eml`` message into one page: header lines, a blank line, the body (module docstring)."""

    name: ClassVar[str] = "email"
    revision: ClassVar[int] = 1
    kinds: ClassVar[frozenset[ContentKind]] = frozenset({ContentKind.EML})

    @property
    def tool_version(self) -> str:
        """The standard library's ``email`` parses; the HTML chain reads HTML bodies."""
        return f"{python_version()}/{html_chain_version()}"

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        parsed = parse_eml(path, limits)
        message = parsed.message
        _refuse_encrypted(message)
        headers, header_notes = _header_lines(message)
        chosen = _anatomy(message).body
        body = _body_text(chosen.part, parsed, limits) if chosen is not None else BodyText("")
        text = mail_text(headers, body.text)
        if len(text.encode("utf-8", errors="replace")) > limits.max_text_bytes:
            raise LimitExceeded(f"{path.name}: the text is over {limits.max_text_bytes} bytes")
        defects = ("defects:" + ",".join(sorted({type(d).__name__ for d in message.defects})),)
        return ReadResult(
            pages=(PageText(page=1, text=text),),
            page_count=1,
            encoding=parsed.file_encoding or body.encoding,
            encoding_source=parsed.file_encoding_source or body.encoding_source,
            notes=header_notes + body.notes + (defects if message.defects else ()),
        )


def attachments(path: Path, limits: ReadLimits) -> Iterator[MailAttachment]:
    """The attachments of the message in ``path``, in the order the message holds them (module
    docstring), each decoded only when the previous one has been taken: the caller (readers/
    containers.py) bounds their sizes as they come."""
    parsed = parse_eml(path, limits)
    _refuse_encrypted(parsed.message)
    refuse_deep_messages(parsed.message, limits)
    for leaf in _anatomy(parsed.message).attachments:
        part = leaf.part
        yield MailAttachment(_filename(part), part.get_content_type(), _attachment_bytes(part, parsed))


def refuse_deep_messages(message: Message, limits: ReadLimits) -> None:
    """Raise ``LimitExceeded`` when attached messages nest deeper inside ``message`` than the walk opens
    containers (``max_nesting``), or all its parts deeper than :data:`MAX_MIME_DEPTH`: the walk would never
    make the deepest ones documents, and writing each level out again as a member recurses through the
    whole depth below it."""
    depths = list(_depths(message))
    deepest = max(messages for _, messages in depths)
    if deepest > limits.max_nesting:
        raise LimitExceeded(
            f"attached messages nest {deepest} deep inside the message, over max_nesting {limits.max_nesting}"
        )
    parts = max(depth for depth, _ in depths)
    if parts > MAX_MIME_DEPTH:  # written out again by the generator, which recurses through them
        raise LimitExceeded(
            f"the parts of the message and its attached messages nest {parts} deep, over the limit of "
            f"{MAX_MIME_DEPTH}"
        )


# --------------------------------------------------------------------------------------------------------
# Headers


def _header_lines(message: Message) -> tuple[tuple[HeaderLine, ...], tuple[str, ...]]:
    """The header lines present, and a note for each field the header parser could not make sense of
    (its raw value, RFC 2047 words decoded as far as they go, is written instead)."""
    lines: list[HeaderLine] = []
    notes: list[str] = []
    for name in HEADER_FIELDS:
        try:
            values = [str(v) for v in message.get_all(name, [])]
        except Exception:  # policy.default's structured parsers raise on some malformed fields
            values = [_raw_header(v) for k, v in message.raw_items() if k.lower() == name.lower()]
            notes.append(f"header_unparsed:{name.lower()}")
        line = header_line(name, ", ".join(v for v in values if v.strip()))
        if line is not None:
            lines.append(line)
    return tuple(lines), tuple(notes)


def _raw_header(value: object) -> str:
    raw = str(value)
    try:
        return str(make_header(decode_header(raw)))
    except Exception:  # malformed encoded words: the raw text is still the best evidence there is
        return raw


# --------------------------------------------------------------------------------------------------------
# The MIME tree


def _refuse_encrypted(message: Message) -> None:
    """Raise :class:`EncryptedDocument` when the message's content is encrypted (at its root, or as the
    signed content of a multipart/signed root)."""
    candidates: list[Message] = [message]
    if message.get_content_type() == "multipart/signed" and message.is_multipart():
        payload = message.get_payload()
        if isinstance(payload, list) and payload:
            candidates.append(payload[0])
    for part in candidates:
        ctype = part.get_content_type()
        if ctype == "multipart/encrypted":
            raise EncryptedDocument("the message is encrypted (multipart/encrypted)")
        if ctype in PKCS7_MIME_TYPES:
            smime = str(part.get_param("smime-type", "") or "").lower()
            filename = (part.get_filename() or "").lower()
            if smime in ENCRYPTED_SMIME_TYPES or (not smime and filename.endswith(".p7m")):
                raise EncryptedDocument("the message is encrypted (S/MIME enveloped data)")


def _leaves(part: Message, alternative: int | None, counter: list[int]) -> Iterator[_Leaf]:
    """The leaves under ``part`` in order; attached messages are leaves (never entered)."""
    if part.get_content_maintype() == "multipart" and part.is_multipart():
        if part.get_content_subtype() == "alternative":
            counter[0] += 1
            alternative = counter[0]
        for sub in cast(list[Message], part.get_payload()):
            yield from _leaves(sub, alternative, counter)
    else:
        yield _Leaf(part, alternative)


def _is_body_candidate(part: Message) -> bool:
    """Inline plain or HTML without a file name: what a mail client shows as the message."""
    return (
        part.get_content_type() in BODY_TYPES
        and part.get_content_disposition() != "attachment"
        and not part.get_filename()
    )


def _anatomy(message: Message) -> _Anatomy:
    """Sort the leaves into the body, its alternatives and the attachments (module docstring). The body
    is chosen by structure alone (the first plain part with content, else the first HTML part with
    content), so that listing the attachments never converts a body."""
    leaves = list(_leaves(message, None, [0]))
    candidates = {id(leaf) for leaf in leaves if _is_body_candidate(leaf.part)}
    with_content = {
        id(leaf) for leaf in leaves if id(leaf) in candidates and _payload_bytes(leaf.part).strip()
    }
    body: _Leaf | None = None
    for ctype in BODY_TYPES:
        body = next((x for x in leaves if id(x) in with_content and x.part.get_content_type() == ctype), None)
        if body is not None:
            break
    found: list[_Leaf] = []
    for leaf in leaves:
        if leaf is body or leaf.part.get_content_type() in SIGNATURE_TYPES:
            continue
        if id(leaf) in candidates:
            if id(leaf) not in with_content:
                continue  # a blank body part: nothing to read
            if body is not None and leaf.alternative is not None and leaf.alternative == body.alternative:
                continue  # the same content in another form
        found.append(leaf)
    return _Anatomy(body, tuple(found))


def _body_text(part: Message, parsed: ParsedEml, limits: ReadLimits) -> BodyText:
    """A body part as text: plain decoded by its charset (and unflowed), HTML through the HTML reader."""
    charset = part.get_content_charset()
    is_html = part.get_content_type() == "text/html"
    if parsed.file_encoding is not None and _identity_encoded(part):
        # The file was decoded to text before parsing: the part is text already, whatever it declares.
        text = str(part.get_payload(decode=False))
        if is_html:
            return html_body(text.encode("utf-8"), "utf-8", limits)
        decoded = BodyText(text, parsed.file_encoding, parsed.file_encoding_source)
    else:
        payload = _payload_bytes(part)
        if is_html:
            return html_body(payload, charset, limits)
        decoded = decode_body(payload, charset)
    if str(part.get_param("format", "") or "").lower() != "flowed":
        return decoded
    delsp = str(part.get_param("delsp", "") or "").lower() == "yes"
    return BodyText(
        unflow(decoded.text, delsp=delsp), decoded.encoding, decoded.encoding_source, decoded.notes
    )


def _identity_encoded(part: Message) -> bool:
    return part.get("content-transfer-encoding", "7bit").strip().lower() in IDENTITY_ENCODINGS


def _payload_bytes(part: Message) -> bytes:
    payload = part.get_payload(decode=True)
    return payload if isinstance(payload, bytes) else b""


def _filename(part: Message) -> str | None:
    try:
        return part.get_filename()
    except Exception:  # an RFC 2231 parameter too broken to decode: the attachment is name-less
        return None


def _attachment_bytes(part: Message, parsed: ParsedEml) -> bytes:
    """The attachment's decoded bytes; an attached message's bytes as a message file (``.eml``)."""
    if part.get_content_type() in MESSAGE_TYPES and part.is_multipart():
        inner = cast(list[Message], part.get_payload())[0]
        try:
            return inner.as_bytes(policy=policy.default)
        except Exception:  # a header the generator cannot fold: write the message as it was parsed
            return inner.as_string(policy=policy.compat32).encode("utf-8", errors="surrogateescape")
    if parsed.file_encoding is not None and _identity_encoded(part):
        text = str(part.get_payload(decode=False))
        return text.encode(part.get_content_charset() or "utf-8", errors="replace")
    return _payload_bytes(part)


# --------------------------------------------------------------------------------------------------------
# format=flowed (RFC 3676)

SIGNATURE_SEPARATOR = "-- "


def unflow(text: str, *, delsp: bool) -> str:
    """Join the soft line breaks of a ``format=flowed`` body (RFC 3676 §4).

    A line ending in a space is continued by the next line of the same quote depth; with ``delsp=yes``
    that space was inserted by the sender and is removed. A leading space on a line is space-stuffing
    and is removed. The signature separator ``"-- "`` is never joined.
    """
    out: list[str] = []
    paragraph: list[str] = []
    depth_of_paragraph = 0
    for raw in text.replace("\r\n", "\n").split("\n"):
        depth = len(raw) - len(raw.lstrip(">"))
        line = raw[depth:]
        if line.startswith(" "):
            line = line[1:]
        flowed = line.endswith(" ") and line != SIGNATURE_SEPARATOR
        if paragraph and depth != depth_of_paragraph:
            out.append(_quoted(depth_of_paragraph, "".join(paragraph)))
            paragraph = []
        depth_of_paragraph = depth
        if flowed:
            paragraph.append(line[:-1] if delsp else line)
            continue
        paragraph.append(line)
        out.append(_quoted(depth, "".join(paragraph)))
        paragraph = []
    if paragraph:
        out.append(_quoted(depth_of_paragraph, "".join(paragraph)))
    return "\n".join(out)


def _quoted(depth: int, line: str) -> str:
    return f"{'>' * depth} {line}" if depth else line
