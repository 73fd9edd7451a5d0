"""Zip containers read within bounds: archives, Office (OOXML) and OpenDocument files, and the XML inside.

A zip's central directory declares each member's sizes, and a hostile file lies about them, so nothing
here trusts them: a member is inflated in blocks and refused as soon as it passes its bound, the whole
container's inflated bytes are counted, and a member that inflates far beyond its compressed size is a
bomb. XML parts are parsed with DTDs and entity declarations refused (defusedxml), so an entity
expansion ("billion laughs") or an external entity cannot run.

Every failure is one of the project's errors: ``CorruptDocument`` (truncated, not a zip, a broken member),
``EncryptedDocument`` (a password-protected member), ``LimitExceeded`` (over a bound).
"""

from __future__ import annotations

import lzma
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO
from xml.etree.ElementTree import Element

import defusedxml.ElementTree
from defusedxml import DefusedXmlException

from readers.core.base import require_readable_file
from readers.core.errors import CorruptDocument, EncryptedDocument, FileUnreadable, LimitExceeded
from readers.core.model import ReadLimits

# Inflated bytes a member may reach before its compression ratio is judged: small members of highly
# repetitive XML (an empty sheet, a style part) legitimately compress 100x and more.
COMPRESSION_CHECK_FLOOR = 1024 * 1024
_BLOCK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Member:
    """One entry of a zip's directory, as declared (the sizes are claims, checked while reading)."""

    name: str
    declared_size: int
    compressed_size: int
    encrypted: bool
    is_dir: bool
    index: int = 0  # its place in the directory: two entries may share a name


class SafeZip:
    """A zip opened for bounded reading; use as a context manager."""

    def __init__(self, source: Path | IO[bytes], limits: ReadLimits) -> None:
        self.limits = limits
        self.inflated = 0  # bytes inflated so far across members: the container's budget
        if isinstance(source, Path):
            require_readable_file(source, allow_empty=True)  # a pipe or a device would block or never end
        try:
            self._zip = zipfile.ZipFile(source)
        except FileNotFoundError as exc:
            raise FileUnreadable(f"cannot open {source}: {exc}") from exc
        except PermissionError as exc:
            raise FileUnreadable(f"cannot open {source}: {exc}") from exc
        except (
            zipfile.BadZipFile,
            zipfile.LargeZipFile,
            OSError,
            EOFError,
            ValueError,
            NotImplementedError,
        ) as exc:
            raise CorruptDocument(f"not a readable zip (truncated or damaged): {exc}") from exc
        infos = self._zip.infolist()
        if len(infos) > limits.max_members:
            self._zip.close()
            raise LimitExceeded(f"{len(infos)} members, over the limit of {limits.max_members}")
        self._entries = infos  # every entry, in directory order, entries of the same name included
        self._infos = {i.filename: i for i in infos}  # by name: the last entry of a name, as zipfile's

    def __enter__(self) -> SafeZip:
        return self

    def __exit__(self, *exc: object) -> None:
        self._zip.close()

    def members(self) -> list[Member]:
        """Every entry of the directory in its order, entries that share a name with another included."""
        return [
            Member(i.filename, i.file_size, i.compress_size, bool(i.flag_bits & 0x1), i.is_dir(), index)
            for index, i in enumerate(self._entries)
        ]

    def names(self) -> list[str]:
        """The distinct names of the entries."""
        return list(self._infos)

    def has(self, name: str) -> bool:
        return name in self._infos

    def read(self, name: str, *, max_bytes: int | None = None) -> bytes:
        """The bytes of the member ``name`` (the last entry of that name, as ``zipfile`` reads a package),
        inflated in blocks and refused as soon as a bound is passed."""
        info = self._infos.get(name)
        if info is None:
            raise CorruptDocument(f"no member {name!r}")
        return self._inflate(info, max_bytes)

    def read_member(self, member: Member) -> bytes:
        """The bytes of this very entry (one of several of its name, when it is), as :meth:`read`."""
        return self._inflate(self._entries[member.index], None)

    def _inflate(self, info: zipfile.ZipInfo, max_bytes: int | None) -> bytes:
        name = info.filename
        if info.flag_bits & 0x1:
            raise EncryptedDocument(f"member {name!r} is password-protected")
        limit = min(max_bytes or self.limits.max_member_bytes, self.limits.max_member_bytes)
        out = bytearray()
        try:
            with self._zip.open(info) as fh:
                for block in iter(lambda: fh.read(_BLOCK), b""):
                    out += block
                    self.inflated += len(block)
                    self._check(name, len(out), info.compress_size, limit)
        except (
            zipfile.BadZipFile,
            zlib.error,
            lzma.LZMAError,
            EOFError,
            OSError,
            ValueError,
            NotImplementedError,
        ) as exc:
            raise CorruptDocument(f"member {name!r} cannot be inflated: {exc}") from exc
        return bytes(out)

    def _check(self, name: str, size: int, compressed: int, limit: int) -> None:
        if size > limit:
            raise LimitExceeded(f"member {name!r} inflates past {limit} bytes")
        if self.inflated > self.limits.max_container_bytes:
            raise LimitExceeded(f"the container inflates past {self.limits.max_container_bytes} bytes")
        if size > COMPRESSION_CHECK_FLOOR and size > self.limits.max_compression_ratio * max(1, compressed):
            raise LimitExceeded(
                f"member {name!r} inflates more than {self.limits.max_compression_ratio:.0f} times its "
                f"compressed size: a zip bomb"
            )

    def files(self) -> Iterator[Member]:
        """The members that are files, in directory order (every entry, named alike or not)."""
        return (m for m in self.members() if not m.is_dir)


def parse_xml(data: bytes, what: str = "XML") -> Element:
    """An XML document parsed with DTDs, entity declarations and external references refused."""
    try:
        return defusedxml.ElementTree.fromstring(
            data, forbid_dtd=True, forbid_entities=True, forbid_external=True
        )
    except DefusedXmlException as exc:
        raise CorruptDocument(
            f"{what} declares a DTD or entities, which are refused: {exc}", reason="xml_entities"
        ) from exc
    except Exception as exc:  # ParseError and friends: malformed XML
        raise CorruptDocument(f"{what} is not well-formed XML: {exc}") from exc
