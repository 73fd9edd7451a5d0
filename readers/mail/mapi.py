"""Outlook ``.msg`` files below the e-mail layer: MAPI properties in an OLE2 compound file (MS-OXMSG).
readers/mail/msg.py turns what this module reads into an e-mail's text and members; the compound file
writer for embedded messages is readers/mail/compound_file.py, the RTF body readers/mail/rtf_body.py.

Why our own: extract-msg, the library that reads these files, is GPL-3.0 (and brings oletools' GPL-3.0
pcodedmp), which an Apache-2.0 project cannot depend on. What the reader needs of the format is small:

- the compound file is read by ``olefile`` (BSD-2-Clause), imported where a file is opened (a hundredth of
  a second of imports that processes never reading a .msg should not pay);
- a MAPI object (the message, an attachment, a recipient, an embedded message) is a storage. Each property
  of variable size is a stream ``__substg1.0_IIIITTTT`` (property id, property type: ``001F`` UTF-16LE
  string, ``001E`` 8-bit string in the message's code page, ``0102`` binary, ``000D`` an object stored as
  a storage of its own); the fixed-size ones are 16-byte records in ``__properties_version1.0``, after a
  header of 32 bytes (the message), 24 (an embedded message) or 8 (attachments and recipients);
  attachments are the storages ``__attach_version1.0_#XXXXXXXX``, recipients ``__recip_version1.0_#...``;
- an embedded message (an attached .msg) becomes a standalone .msg, a member the walk reads in its turn:
  its storage is copied into a new compound file (readers/mail/compound_file.py), with its property header
  widened to the top-level 32 bytes and the named-property mapping (``__nameid_version1.0``, which an
  embedded message shares with the message holding it) copied in, as MS-OXMSG 2.2.3 asks of a saved
  attachment.

Every stream is read whole, but none is believed larger than the file holding it: a directory that says
otherwise (or a sector chain that loops) is ``corrupt``.
"""

from __future__ import annotations

import codecs
import struct
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from readers.core.errors import CorruptDocument, FileUnreadable
from readers.mail.compound_file import OleStorage, OleStream, write_compound_file

if TYPE_CHECKING:
    from olefile import OleFileIO


# --------------------------------------------------------------------------------------------------------
# MAPI property types and storages (MS-OXCDATA 2.11.1, MS-OXMSG 2.2)

PT_SHORT = 0x0002
PT_LONG = 0x0003
PT_BOOLEAN = 0x000B
PT_OBJECT = 0x000D
PT_STRING8 = 0x001E
PT_UNICODE = 0x001F
PT_SYSTIME = 0x0040
PT_BINARY = 0x0102

PROPERTIES = "__properties_version1.0"
NAMEID = "__nameid_version1.0"
ATTACHMENT_PREFIX = "__attach_version1.0_#"
RECIPIENT_PREFIX = "__recip_version1.0_#"
SUBSTG_PREFIX = "__substg1.0_"
#: Bytes before the first property record of ``__properties_version1.0``, by what the storage holds.
HEADER_TOP_MESSAGE = 32
HEADER_EMBEDDED_MESSAGE = 24
HEADER_ATTACHMENT_OR_RECIPIENT = 8
_RECORD = 16
#: The compound file class of an Outlook message (the root storage's CLSID in every .msg).
MSG_CLSID = bytes.fromhex("0b0d020000000000c000000000000046")

#: Windows code pages whose Python codec is not ``cp<N>`` (MS-OXCDATA refers to Windows code page ids).
_CODEPAGE_CODECS: dict[int, str] = {
    936: "gbk",
    1200: "utf-16-le",
    1201: "utf-16-be",
    12000: "utf-32-le",
    12001: "utf-32-be",
    10000: "mac-roman",
    10006: "mac-greek",
    10007: "mac-cyrillic",
    10029: "mac-latin2",
    10079: "mac-iceland",
    10081: "mac-turkish",
    20127: "ascii",
    20866: "koi8-r",
    20932: "euc_jp",
    21866: "koi8-u",
    28591: "iso8859-1",
    28592: "iso8859-2",
    28593: "iso8859-3",
    28594: "iso8859-4",
    28595: "iso8859-5",
    28596: "iso8859-6",
    28597: "iso8859-7",
    28598: "iso8859-8",
    28599: "iso8859-9",
    28603: "iso8859-13",
    28605: "iso8859-15",
    38598: "iso8859-8",
    50220: "iso2022_jp",
    50221: "iso2022_jp",
    50222: "iso2022_jp",
    50225: "iso2022_kr",
    51932: "euc_jp",
    51936: "gb2312",
    51949: "euc_kr",
    52936: "hz",
    54936: "gb18030",
    65000: "utf-7",
    65001: "utf-8",
}


def codepage_codec(codepage: int) -> str | None:
    """Python's name for the codec of Windows code page ``codepage`` (``cp950`` for 950), or ``None`` when
    Python has none."""
    name = _CODEPAGE_CODECS.get(codepage, f"cp{codepage}")
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def substg_name(prop_id: int, prop_type: int) -> str:
    """The stream (or storage, for ``PT_OBJECT``) holding a variable-size property."""
    return f"{SUBSTG_PREFIX}{prop_id:04X}{prop_type:04X}"


@dataclass(frozen=True, slots=True)
class FixedProperty:
    """One record of ``__properties_version1.0``: the property's type, its flags, and its 8 value bytes
    (for a variable-size property the value is its size, and the data is in its ``__substg1.0_`` stream)."""

    prop_type: int
    flags: int
    value: bytes

    @property
    def long(self) -> int | None:
        """A PT_LONG (signed 32-bit) value; PT_SHORT and PT_BOOLEAN read the same way (little-endian, the
        value in the low bytes)."""
        if self.prop_type == PT_LONG:
            return int(struct.unpack_from("<i", self.value)[0])
        if self.prop_type in (PT_SHORT, PT_BOOLEAN):
            return int(struct.unpack_from("<h", self.value)[0])
        return None

    @property
    def time(self) -> datetime | None:
        """A PT_SYSTIME value (a FILETIME: 100-nanosecond ticks since 1601, UTC)."""
        if self.prop_type != PT_SYSTIME:
            return None
        return filetime(int(struct.unpack_from("<Q", self.value)[0]))


def parse_properties(data: bytes, header_size: int) -> dict[int, FixedProperty]:
    """The records of a ``__properties_version1.0`` stream, by property id (a trailing partial record is
    ignored: some writers pad the stream).

    Raises ``CorruptDocument`` when the stream is shorter than its header.
    """
    if len(data) < header_size:
        raise CorruptDocument(
            f"property stream of {len(data)} bytes, shorter than its {header_size}-byte header"
        )
    found: dict[int, FixedProperty] = {}
    for at in range(header_size, len(data) - _RECORD + 1, _RECORD):
        tag, flags = struct.unpack_from("<II", data, at)
        found[tag >> 16] = FixedProperty(tag & 0xFFFF, flags, data[at + 8 : at + 16])
    return found


_FILETIME_EPOCH = datetime(1601, 1, 1, tzinfo=UTC)
#: FILETIME values Windows writes for "no time" (0 and the all-ones "never"), and anything past year 9999.
_FILETIME_MAX = (datetime(9999, 12, 31, tzinfo=UTC) - _FILETIME_EPOCH) // timedelta(microseconds=1) * 10


def filetime(ticks: int) -> datetime | None:
    """A FILETIME as an aware UTC datetime, ``None`` for 0 and values past year 9999 (``never``)."""
    if ticks <= 0 or ticks >= _FILETIME_MAX:
        return None
    return _FILETIME_EPOCH + timedelta(microseconds=ticks // 10)


# --------------------------------------------------------------------------------------------------------
# Reading


class MsgFile:
    """An open ``.msg`` compound file: its directory, its streams (bounded by the file's size), and the
    MAPI storage at its root. Close it (or use it as a context manager) to release the file.

    Raises ``CorruptDocument`` when the file is not an OLE2 compound file, its directory is broken, or it
    has no root property stream (an OLE2 file that is not a message: a .doc named .msg).
    """

    def __init__(self, path: Path) -> None:
        import olefile

        self.path = path
        try:
            self.size = path.stat().st_size
            with path.open("rb") as fh:
                magic = fh.read(len(olefile.MAGIC))
        except OSError as exc:
            raise FileUnreadable(f"cannot read {path}: {exc}") from exc
        if magic != olefile.MAGIC:
            raise CorruptDocument(f"{path.name}: not an OLE2 compound file")
        try:
            self._ole: OleFileIO = olefile.OleFileIO(str(path))
        except _OLE_ERRORS as exc:
            raise CorruptDocument(f"{path.name}: a broken OLE2 compound file: {exc}") from exc
        try:
            self._index(olefile.STGTY_STORAGE)
            if (PROPERTIES.upper(),) not in self._paths:
                raise CorruptDocument(
                    f"{path.name}: an OLE2 compound file without MAPI properties (not a message)"
                )
            self.root = MapiStorage(self, (), HEADER_TOP_MESSAGE)
        except BaseException:
            self.close()
            raise

    def _index(self, storage_type: int) -> None:
        """Index the directory. Names in a compound file compare case-insensitively (MS-CFB 2.6.4), so the
        keys are upper-cased paths; the values are the names as stored."""
        self._paths: dict[tuple[str, ...], list[str]] = {}
        self._storages: set[tuple[str, ...]] = {()}
        self._children: dict[tuple[str, ...], list[str]] = {}
        try:
            for entry in self._ole.listdir(streams=True, storages=True):
                key = _key(entry)
                self._paths[key] = entry
                self._children.setdefault(key[:-1], []).append(entry[-1])
                if self._ole.get_type(entry) == storage_type:
                    self._storages.add(key)
        except _OLE_ERRORS as exc:
            raise CorruptDocument(f"{self.path.name}: a broken OLE2 directory: {exc}") from exc

    def __enter__(self) -> MsgFile:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._ole.close()

    def exists(self, path: tuple[str, ...]) -> bool:
        return _key(path) in self._paths

    def is_storage(self, path: tuple[str, ...]) -> bool:
        return _key(path) in self._storages

    def children(self, path: tuple[str, ...]) -> list[str]:
        """The names of the streams and storages directly in the storage at ``path``, as stored."""
        return list(self._children.get(_key(path), ()))

    def stream_size(self, path: tuple[str, ...]) -> int:
        try:
            return int(self._ole.get_size(self._paths[_key(path)]))
        except _OLE_ERRORS as exc:
            raise CorruptDocument(f"{self.path.name}: stream {'/'.join(path)} is broken: {exc}") from exc

    def read(self, path: tuple[str, ...]) -> bytes | None:
        """The stream at ``path``, ``None`` when there is none. Raises ``CorruptDocument`` for a stream
        larger than the file or one whose sectors cannot be read."""
        entry = self._paths.get(_key(path))
        if entry is None or self.is_storage(path):
            return None
        size = self.stream_size(path)
        if size > self.size:
            raise CorruptDocument(
                f"{self.path.name}: stream {'/'.join(path)} claims {size} bytes, more than the file"
            )
        try:
            with self._ole.openstream(entry) as stream:
                data = bytes(stream.read(size))
        except _OLE_ERRORS as exc:
            raise CorruptDocument(f"{self.path.name}: stream {'/'.join(path)} is broken: {exc}") from exc
        if len(data) < size:
            raise CorruptDocument(f"{self.path.name}: stream {'/'.join(path)} is truncated")
        return data

    def tree(self, path: tuple[str, ...]) -> OleStorage:
        """The storage at ``path`` with everything in it, read into memory (to be written elsewhere)."""
        children: dict[str, OleStorage | OleStream] = {}
        for name in self.children(path):
            sub = (*path, name)
            if self.is_storage(sub):
                children[name] = self.tree(sub)
            else:
                children[name] = OleStream(self.read(sub) or b"")
        return OleStorage(children)

    def stored_bytes(self, path: tuple[str, ...]) -> int:
        """The size of every stream under the storage at ``path``, as the directory declares them."""
        total = 0
        for name in self.children(path):
            sub = (*path, name)
            total += self.stored_bytes(sub) if self.is_storage(sub) else self.stream_size(sub)
        return total

    def export_message(self, storage: MapiStorage) -> bytes:
        """An embedded message's storage as a standalone ``.msg`` (module docstring).

        The streams copied cannot hold more bytes than the file: a directory whose streams share sectors
        (a crafted file) would otherwise make one small file many large exports.
        """
        declared = self.stored_bytes(storage.path) + self.stored_bytes((NAMEID,))
        if declared > self.size:
            raise CorruptDocument(
                f"{self.path.name}: embedded message {'/'.join(storage.path)} claims {declared} bytes, "
                "more than the file"
            )
        tree = self.tree(storage.path)
        children = dict(tree.children)
        props_name = next((n for n in children if n.upper() == PROPERTIES.upper()), PROPERTIES)
        props = children.get(props_name)
        if isinstance(props, OleStream) and storage.header_size < HEADER_TOP_MESSAGE:
            head = props.data[: storage.header_size]
            padding = b"\0" * (HEADER_TOP_MESSAGE - storage.header_size)
            children[props_name] = OleStream(head + padding + props.data[storage.header_size :])
        if not any(n.upper() == NAMEID.upper() for n in children) and self.is_storage((NAMEID,)):
            children[NAMEID] = self.tree((NAMEID,))
        return write_compound_file(OleStorage(children, MSG_CLSID))


#: What olefile raises on a broken file: its own errors are OSError; broken tables surface as the rest.
_OLE_ERRORS = (OSError, ValueError, struct.error, IndexError, KeyError, EOFError, TypeError)


def _key(path: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(name.upper() for name in path)


class MapiStorage:
    """One MAPI object in a ``.msg``: the message, an attachment, a recipient or an embedded message.

    Strings come from the ``001F`` stream when there is one, else from the ``001E`` stream decoded with
    the caller's code page; decoding errors propagate (``UnicodeDecodeError``), so that the caller can
    say which property it could not read. Trailing NULs, which some writers store, are dropped.
    """

    def __init__(self, msg: MsgFile, path: tuple[str, ...], header_size: int) -> None:
        self.msg = msg
        self.path = path
        self.header_size = header_size
        data = msg.read((*path, PROPERTIES))
        self.properties = parse_properties(data, header_size) if data is not None else {}

    def stream(self, prop_id: int, prop_type: int) -> bytes | None:
        return self.msg.read((*self.path, substg_name(prop_id, prop_type)))

    def has(self, prop_id: int, prop_type: int) -> bool:
        return self.msg.exists((*self.path, substg_name(prop_id, prop_type)))

    def string(self, prop_id: int, codec: str) -> str | None:
        unicode = self.stream(prop_id, PT_UNICODE)
        if unicode is not None:
            return unicode.decode("utf-16-le").rstrip("\0")
        eight_bit = self.stream(prop_id, PT_STRING8)
        if eight_bit is not None:
            return eight_bit.decode(codec).rstrip("\0")
        return None

    def binary(self, prop_id: int) -> bytes | None:
        return self.stream(prop_id, PT_BINARY)

    def long(self, prop_id: int) -> int | None:
        found = self.properties.get(prop_id)
        return found.long if found is not None else None

    def time(self, prop_id: int) -> datetime | None:
        found = self.properties.get(prop_id)
        return found.time if found is not None else None

    def string8_streams(self) -> list[str]:
        """The names of this object's 8-bit string streams (a message written without Unicode has some)."""
        return [
            n
            for n in self.msg.children(self.path)
            if n.upper().startswith(SUBSTG_PREFIX.upper()) and n.upper().endswith("001E")
        ]

    def attachments(self) -> list[MapiStorage]:
        return self._numbered(ATTACHMENT_PREFIX)

    def recipients(self) -> list[MapiStorage]:
        return self._numbered(RECIPIENT_PREFIX)

    def embedded_message(self) -> MapiStorage | None:
        """The message an attachment embeds (its ``PT_OBJECT`` data storage), if that is what it holds."""
        path = (*self.path, substg_name(0x3701, PT_OBJECT))
        if not self.msg.is_storage(path) or not self.msg.exists((*path, PROPERTIES)):
            return None
        return MapiStorage(self.msg, path, HEADER_EMBEDDED_MESSAGE)

    def _numbered(self, prefix: str) -> list[MapiStorage]:
        """The sub-objects named ``prefix`` + 8 hex digits, in the order of their numbers."""
        found: list[tuple[int, str]] = []
        for name in self.msg.children(self.path):
            if name.upper().startswith(prefix.upper()) and self.msg.is_storage((*self.path, name)):
                try:
                    found.append((int(name[len(prefix) :], 16), name))
                except ValueError:
                    continue
        return [
            MapiStorage(self.msg, (*self.path, name), HEADER_ATTACHMENT_OR_RECIPIENT)
            for _, name in sorted(found)
        ]
