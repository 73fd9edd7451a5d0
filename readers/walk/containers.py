"""The members of a container, for the walk to turn into child documents that point at their parent.

- ``.eml`` and ``.msg``: the attachments (readers/mail/eml.py and readers/mail/msg.py say which parts
  are attachments and which are the body), attached messages included: a member that is itself a
  container is opened by the walk in its turn, to ``ReadLimits.max_nesting``, which is the walk's to
  count.
- zip: the file members (not directories), each read through :class:`readers.archives.safezip.SafeZip`.
- PDF: its embedded files and the files of its file attachment annotations (readers/pdf/members.py); the
  PDF's own text is still read by the PDF readers.

Every member's bytes are bounded by ``max_member_bytes``, the members of one container together by
``max_container_bytes``, their number by ``max_members``; a container over a bound, damaged or encrypted
raises the project's error (``LimitExceeded``, ``CorruptDocument``, ``EncryptedDocument``) and yields no
members: the walk records why (readers/walk/expansion.py, which also bounds a container's whole tree).

Member names are unique within their parent. A zip member is named by its path in the archive exactly as
stored, also when the path is unsafe (absolute, ``..``, a drive letter): the name is data that says
where the bytes came from, and nothing is ever written to disk by it (the walk stores members under their
sha256). Every entry of a zip is a member, also when entries share a path: the first keeps it, the
second and later ones get their count among the entries of that path before the extension
(``report.txt``, ``report-2.txt``), as attachments named alike do (readers/mail/message_parts.py MemberNames),
never a path another entry holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from readers.archives.safezip import SafeZip
from readers.core.model import ContentKind, ReadLimits
from readers.mail.message_parts import MailAttachment, MemberBudget, MemberNames, split_extension

#: Kinds whose members become documents of their own.
CONTAINER_KINDS = frozenset({ContentKind.EML, ContentKind.MSG, ContentKind.ZIP, ContentKind.PDF})


@dataclass(frozen=True, slots=True)
class ContainerMember:
    """One member of a container: its name within the parent (unique there) and its bytes."""

    member: str  # an attachment's file name (made unique), "attachment-N.<ext>" without one, a zip path
    data: bytes


def members_of(path: Path, kind: ContentKind, limits: ReadLimits) -> list[ContainerMember]:
    """The members of the container at ``path`` in the order it holds them; ``[]`` for a kind that is not
    a container (module docstring)."""
    return list(iter_members(path, kind, limits))


def iter_members(path: Path, kind: ContentKind, limits: ReadLimits) -> Iterator[ContainerMember]:
    """:func:`members_of` one member at a time, each inflated only when the previous one has been taken,
    so that the caller holds one member's bytes at once and can stop at a bound of its own."""
    if kind is ContentKind.ZIP:
        return _zip_members(path, limits)
    if kind is ContentKind.EML:
        from readers.mail.eml import attachments as eml_attachments

        return _named(eml_attachments(path, limits), limits)
    if kind is ContentKind.MSG:
        from readers.mail.msg import attachments as msg_attachments

        return _named(msg_attachments(path, limits), limits)
    if kind is ContentKind.PDF:
        from readers.pdf.members import pdf_attachments

        return _named(pdf_attachments(path, limits), limits)
    return iter(())


def _zip_members(path: Path, limits: ReadLimits) -> Iterator[ContainerMember]:
    """Each file member inflated within the bounds; SafeZip counts the container's total as it goes."""
    with SafeZip(path, limits) as archive:
        files = list(archive.files())
        for m, name in zip(files, zip_member_names([m.name for m in files]), strict=True):
            yield ContainerMember(name, archive.read_member(m))


def zip_member_names(paths: Sequence[str]) -> list[str]:
    """The member name of each entry, in order: its path, or for the second and later entries of a path,
    the path with their count before its extension (module docstring)."""
    taken = set(paths)
    counts: dict[str, int] = {}
    names: list[str] = []
    for path in paths:
        n = counts.get(path, 0) + 1
        counts[path] = n
        if n == 1:
            names.append(path)
            continue
        stem, ext = split_extension(path)
        candidate = f"{stem}-{n}{ext}"
        while candidate in taken:  # a path some entry holds, or a name already given
            n += 1
            candidate = f"{stem}-{n}{ext}"
        counts[path] = n
        taken.add(candidate)
        names.append(candidate)
    return names


def _named(attachments: Iterable[MailAttachment], limits: ReadLimits) -> Iterator[ContainerMember]:
    """Attachments with unique names, within the container bounds."""
    names = MemberNames()
    budget = MemberBudget(limits)
    for attachment in attachments:
        name = names.claim(attachment.filename, attachment.content_type)
        budget.admit(name, len(attachment.data))
        yield ContainerMember(name, attachment.data)
