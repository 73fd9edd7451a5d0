"""Outlook ``.msg`` files below the e-mail layer: MAPI properties in an OLE2 compound file (MS-OXMSG), a
compound file writer for embedded messages, and the RTF body (MS-OXRTFCP compression, MS-OXRTFEX
encapsulation). readers/mail/msg.py turns what this module reads into an e-mail's text and members.

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
  its storage is copied into a new compound file by :func:`write_compound_file` (olefile cannot create
  files, and a minimal MS-CFB writer is some hundred lines), with its property header widened to the
  top-level 32 bytes and the named-property mapping (``__nameid_version1.0``, which an embedded message
  shares with the message holding it) copied in, as MS-OXMSG 2.2.3 asks of a saved attachment;
- the compressed RTF body is decompressed by ``compressed-rtf`` (MIT), and :func:`deencapsulate_rtf`
  takes the HTML or plain text that Outlook wrapped in it back out (MS-OXRTFEX); a native RTF body (one
  composed in Outlook's rich-text editor) is not de-encapsulated: ``None``.

Every stream is read whole, but none is believed larger than the file holding it: a directory that says
otherwise (or a sector chain that loops) is ``corrupt``.
"""

from __future__ import annotations

import codecs
import re
import struct
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from readers.core.errors import CorruptDocument, FileUnreadable
from readers.office.rtf import _CHARSETS as RTF_CHARSETS

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


# --------------------------------------------------------------------------------------------------------
# Writing a compound file (MS-CFB version 3: 512-byte sectors, a mini stream for streams under 4096 bytes)


@dataclass(frozen=True, slots=True)
class OleStream:
    """A stream to write."""

    data: bytes


@dataclass(frozen=True, slots=True)
class OleStorage:
    """A storage to write: its streams and storages by name, and its class id (16 bytes)."""

    children: dict[str, OleStream | OleStorage]
    clsid: bytes = b"\0" * 16


_SECTOR = 512
_MINI_SECTOR = 64
_MINI_CUTOFF = 4096
_PER_FAT_SECTOR = _SECTOR // 4
_DIFAT_IN_HEADER = 109
_FREESECT, _ENDOFCHAIN, _FATSECT, _DIFSECT = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFC
_NOSTREAM = 0xFFFFFFFF
_RED, _BLACK = 0, 1
_ROOT, _STORAGE, _STREAM = 5, 1, 2
_MAX_NAME = 31
_BAD_NAME_CHARS = frozenset("/\\:!")


@dataclass(slots=True)
class _Entry:
    """A directory entry while the file is laid out."""

    name: str
    kind: int
    clsid: bytes = b"\0" * 16
    data: bytes = b""
    left: int = _NOSTREAM
    right: int = _NOSTREAM
    child: int = _NOSTREAM
    color: int = _BLACK
    start: int = _ENDOFCHAIN
    size: int = 0


def _cfb_order(name: str) -> tuple[int, str]:
    """Siblings are ordered by name length, then by the upper-cased names (MS-CFB 2.6.4)."""
    return len(name.encode("utf-16-le")), name.upper()


def _check_name(name: str) -> None:
    if not name or len(name) > _MAX_NAME or _BAD_NAME_CHARS & set(name):
        raise ValueError(f"{name!r} cannot name a compound file entry (1-31 characters, none of / \\ : !)")


def _sibling_tree(entries: list[_Entry], ids: list[int]) -> int:
    """Link the sorted siblings ``ids`` into a red-black tree and return its root.

    The tree is built by halving, so every level but the deepest is full; colouring the deepest level red
    when it is not full (black otherwise) gives every path the same number of black nodes and no red node
    a red child, which is all MS-CFB asks of the tree.
    """
    depth_of: dict[int, int] = {}

    def build(lo: int, hi: int, depth: int) -> int:
        if lo >= hi:
            return _NOSTREAM
        mid = (lo + hi) // 2
        node = ids[mid]
        depth_of[node] = depth
        entries[node].left = build(lo, mid, depth + 1)
        entries[node].right = build(mid + 1, hi, depth + 1)
        return node

    root = build(0, len(ids), 0)
    if not ids:
        return root
    deepest = max(depth_of.values())
    full = len(ids) == 2 ** (deepest + 1) - 1
    for node, depth in depth_of.items():
        entries[node].color = _RED if depth == deepest and not full else _BLACK
    return root


def _directory(root: OleStorage) -> list[_Entry]:
    """The directory entries, breadth first (the root's own streams first, where a sniffer looks)."""
    entries = [_Entry("Root Entry", _ROOT, clsid=root.clsid)]
    queue: list[tuple[OleStorage, int]] = [(root, 0)]
    while queue:
        storage, index = queue.pop(0)
        ids: list[int] = []
        for name in sorted(storage.children, key=_cfb_order):
            _check_name(name)
            child = storage.children[name]
            ids.append(len(entries))
            if isinstance(child, OleStorage):
                entries.append(_Entry(name, _STORAGE, clsid=child.clsid, start=0))
                queue.append((child, ids[-1]))
            else:
                entries.append(_Entry(name, _STREAM, data=child.data, size=len(child.data)))
        entries[index].child = _sibling_tree(entries, ids)
    return entries


def _sectors(size: int, unit: int) -> int:
    return -(-size // unit)


def _chain(table: list[int], first: int, count: int) -> None:
    for n in range(first, first + count):
        table[n] = n + 1 if n + 1 < first + count else _ENDOFCHAIN


def write_compound_file(root: OleStorage) -> bytes:
    """The bytes of a compound file holding ``root`` (MS-CFB version 3).

    Layout: the directory right after the header (so that a sniffer reading the head sees the stream
    names), then the mini FAT, the mini stream, the large streams, the FAT and, for files over ~7 MB,
    the DIFAT. Raises ``ValueError`` for a name no compound file can hold.
    """
    entries = _directory(root)
    # Small streams go to the mini stream in 64-byte mini sectors, each chained in the mini FAT.
    mini_fat: list[int] = []
    mini_stream = bytearray()
    large: list[_Entry] = []
    for entry in entries:
        if entry.kind != _STREAM or entry.size == 0:
            continue
        if entry.size >= _MINI_CUTOFF:
            large.append(entry)
            continue
        entry.start = len(mini_fat)
        count = _sectors(entry.size, _MINI_SECTOR)
        mini_fat.extend([_FREESECT] * count)
        _chain(mini_fat, entry.start, count)
        mini_stream += entry.data + b"\0" * (count * _MINI_SECTOR - entry.size)
    directory_sectors = _sectors(len(entries), _SECTOR // 128)
    mini_fat_sectors = _sectors(len(mini_fat) * 4, _SECTOR)
    mini_stream_sectors = _sectors(len(mini_stream), _SECTOR)
    large_sectors = sum(_sectors(e.size, _SECTOR) for e in large)
    content = directory_sectors + mini_fat_sectors + mini_stream_sectors + large_sectors
    fat_sectors, difat_sectors = 1, 0
    while True:
        difat_sectors = max(0, _sectors(fat_sectors - _DIFAT_IN_HEADER, _PER_FAT_SECTOR - 1))
        needed = _sectors(content + fat_sectors + difat_sectors, _PER_FAT_SECTOR)
        if needed <= fat_sectors:
            break
        fat_sectors = needed
    fat = [_FREESECT] * (fat_sectors * _PER_FAT_SECTOR)
    at = 0
    _chain(fat, at, directory_sectors)
    directory_start, at = at, at + directory_sectors
    mini_fat_start = at if mini_fat_sectors else _ENDOFCHAIN
    _chain(fat, at, mini_fat_sectors)
    at += mini_fat_sectors
    entries[0].start = at if mini_stream_sectors else _ENDOFCHAIN
    entries[0].size = len(mini_stream)
    _chain(fat, at, mini_stream_sectors)
    at += mini_stream_sectors
    for entry in large:
        count = _sectors(entry.size, _SECTOR)
        entry.start = at
        _chain(fat, at, count)
        at += count
    fat_ids = list(range(at, at + fat_sectors))
    for n in fat_ids:
        fat[n] = _FATSECT
    at += fat_sectors
    difat_ids = list(range(at, at + difat_sectors))
    for n in difat_ids:
        fat[n] = _DIFSECT

    out = bytearray(_header(fat_ids, difat_ids, directory_start, mini_fat_start, len(mini_fat)))
    for n in range(0, directory_sectors * 4):
        out += _encode_entry(entries[n]) if n < len(entries) else _UNUSED_ENTRY
    out += _padded(struct.pack(f"<{len(mini_fat)}I", *mini_fat), mini_fat_sectors)
    out += _padded(bytes(mini_stream), mini_stream_sectors)
    for entry in large:
        out += _padded(entry.data, _sectors(entry.size, _SECTOR))
    out += struct.pack(f"<{len(fat)}I", *fat)
    rest = fat_ids[_DIFAT_IN_HEADER:]
    for i in range(len(difat_ids)):
        chunk = rest[i * (_PER_FAT_SECTOR - 1) : (i + 1) * (_PER_FAT_SECTOR - 1)]
        chunk += [_FREESECT] * (_PER_FAT_SECTOR - 1 - len(chunk))
        following = difat_ids[i + 1] if i + 1 < len(difat_ids) else _ENDOFCHAIN
        out += struct.pack(f"<{_PER_FAT_SECTOR}I", *chunk, following)
    return bytes(out)


def _padded(data: bytes, sectors: int) -> bytes:
    return data + b"\0" * (sectors * _SECTOR - len(data))


def _header(
    fat_ids: list[int], difat_ids: list[int], directory: int, mini_fat: int, mini_fat_entries: int
) -> bytes:
    in_header = fat_ids[:_DIFAT_IN_HEADER] + [_FREESECT] * (
        _DIFAT_IN_HEADER - min(len(fat_ids), _DIFAT_IN_HEADER)
    )
    return struct.pack(
        f"<8s16sHHHHH6sIIIIIIIII{_DIFAT_IN_HEADER}I",
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        b"\0" * 16,
        0x003E,  # minor version
        0x0003,  # major version 3: 512-byte sectors
        0xFFFE,  # little-endian
        9,  # sector shift: 512
        6,  # mini sector shift: 64
        b"\0" * 6,
        0,  # directory sectors: always 0 in version 3
        len(fat_ids),
        directory,
        0,  # transaction signature
        _MINI_CUTOFF,
        mini_fat,
        _sectors(mini_fat_entries * 4, _SECTOR),
        difat_ids[0] if difat_ids else _ENDOFCHAIN,
        len(difat_ids),
        *in_header,
    )


def _encode_entry(entry: _Entry) -> bytes:
    name = entry.name.encode("utf-16-le") + b"\0\0"
    return struct.pack(
        "<64sHBBIII16sIQQIQ",
        name,
        len(name),
        entry.kind,
        entry.color,
        entry.left,
        entry.right,
        entry.child,
        entry.clsid,
        0,  # state bits
        0,  # creation time
        0,  # modification time
        entry.start if entry.kind != _STORAGE else 0,
        entry.size,
    )


_UNUSED_ENTRY = struct.pack(
    "<64sHBBIII16sIQQIQ", b"", 0, 0, 0, _NOSTREAM, _NOSTREAM, _NOSTREAM, b"", 0, 0, 0, 0, 0
)


# --------------------------------------------------------------------------------------------------------
# The RTF body: decompression (MS-OXRTFCP) and de-encapsulation (MS-OXRTFEX)


class RtfBodyError(ValueError):
    """The compressed RTF body cannot be decompressed."""


def decompress_rtf(data: bytes) -> bytes:
    """The RTF of a ``PR_RTF_COMPRESSED`` stream (compressed or stored, MS-OXRTFCP), cut after its last
    closing brace (some writers leave bytes after the document).

    Raises ``RtfBodyError`` for a stream the decompressor refuses (a bad header or checksum).
    """
    import compressed_rtf

    try:
        rtf = bytes(compressed_rtf.decompress(data))
    except Exception as exc:  # compressed-rtf raises bare Exceptions (and struct errors on short input)
        raise RtfBodyError(f"compressed RTF body cannot be decompressed: {exc}") from exc
    end = rtf.rfind(b"}")
    return rtf[: end + 1] if end >= 0 else rtf


@dataclass(frozen=True, slots=True)
class Deencapsulated:
    """What an encapsulating RTF body holds: the original HTML, or the original plain text."""

    kind: Literal["html", "text"]
    content: str


#: ``\fromhtml1`` or ``\fromtext`` in the RTF header (before the font table) marks an encapsulating body.
_ENCAPSULATION = re.compile(rb"\\from(html1|text)(?![a-zA-Z0-9])")
_RTF_TOKEN = re.compile(
    rb"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|[\r\n]+|([^\\{}\r\n]+)", re.DOTALL
)
#: Destinations that hold no text of the original (the font table is read for its code pages only).
_RTF_SKIP = frozenset(
    {"colortbl", "stylesheet", "info", "pict", "object", "objdata", "listtable", "listoverridetable",
     "rsidtbl", "revtbl", "filetbl", "themedata", "colorschememapping", "datastore", "latentstyles",
     "xmlnstbl", "generator", "header", "footer", "headerl", "headerr", "headerf", "footerl", "footerr",
     "footerf", "fldinst", "bkmkstart", "bkmkend", "mhtmltag"}
)  # fmt: skip
_RTF_SYMBOLS = {
    "par": "\r\n",
    "line": "\r\n",
    "tab": "\t",
    "emdash": "\u2014",
    "endash": "\u2013",
    "bullet": "\u2022",
    "lquote": "\u2018",
    "rquote": "\u2019",
    "ldblquote": "\u201c",
    "rdblquote": "\u201d",
    "emspace": "\u2003",
    "enspace": "\u2002",
}
_RTF_ESCAPES = {b"~": "\u00a0", b"_": "\u2011", b"-": "", b"{": "{", b"}": "}", b"\\": "\\"}
_RTF_DEFAULT_CODEC = "cp1252"


@dataclass(slots=True)
class _RtfState:
    """What a group inherits: whether its content is skipped, HTML markup, or RTF-only (``\\htmlrtf``)."""

    skip: bool = False
    htmltag: bool = False
    htmlrtf: bool = False
    fonttbl: bool = False
    font: int | None = None
    uc: int = 1


@dataclass(slots=True)
class _RtfOutput:
    """The de-encapsulated text, with runs of 8-bit bytes kept together until their code page is known."""

    parts: list[str] = field(default_factory=list)
    pending: bytearray = field(default_factory=bytearray)
    pending_codec: str = _RTF_DEFAULT_CODEC

    def byte_run(self, data: bytes, codec: str) -> None:
        if self.pending and codec != self.pending_codec:
            self.flush()
        self.pending_codec = codec
        self.pending += data

    def text(self, text: str) -> None:
        self.flush()
        self.parts.append(text)

    def flush(self) -> None:
        if self.pending:
            self.parts.append(bytes(self.pending).decode(self.pending_codec, errors="replace"))
            self.pending.clear()

    def result(self) -> str:
        self.flush()
        # \uN words write astral characters as surrogate pairs: join them.
        return "".join(self.parts).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def deencapsulate_rtf(rtf: bytes) -> Deencapsulated | None:
    """The HTML or plain text an encapsulating RTF body holds (MS-OXRTFEX 2.1.3), ``None`` for an RTF
    body that encapsulates nothing (native RTF).

    HTML: the content of every ``{\\*\\htmltag}`` group (the original markup, decoded in the document's
    ``\\ansicpg``) and the text outside them, except what ``\\htmlrtf`` marks as RTF-only; ``\\*\\mhtmltag``
    (a tag's URL before it was rewritten) is skipped, as the specification says. Text: the text outside
    ``\\htmlrtf``. Text outside the tags is decoded in the code page of its font (``\\fcharset``).
    """
    fonttbl = rtf.find(b"\\fonttbl")
    marker = _ENCAPSULATION.search(rtf, 0, fonttbl if fonttbl >= 0 else len(rtf))
    if marker is None:
        return None
    kind: Literal["html", "text"] = "html" if marker.group(1) == b"html1" else "text"
    ansi = _RTF_DEFAULT_CODEC
    fonts: dict[int, str] = {}
    default_font: int | None = None
    out = _RtfOutput()
    state = _RtfState()
    stack: list[_RtfState] = []
    group_start = False
    starred = False
    skip_fallback = 0
    defining_font: int | None = None
    at = 0
    while at < len(rtf):
        token = _RTF_TOKEN.match(rtf, at)
        if token is None:  # a lone backslash at the very end
            break
        at = token.end()
        word, number, hex_byte, symbol, brace, text = token.groups()
        if brace is not None:
            if brace == b"{":
                stack.append(state)
                state = replace(state)
                group_start, starred = True, False
            else:
                out.flush()
                if not stack:
                    break
                state = stack.pop()
                if not stack:
                    break  # the document's group is closed: what follows is no part of it
                group_start = starred = False
                skip_fallback = 0
            continue
        if symbol == b"*":
            starred = True
            continue
        at_group_start, group_start = group_start, False
        if word is not None:
            name = word.decode("ascii")
            value = int(number) if number is not None else None
            if at_group_start or starred:
                if name == "htmltag" and kind == "html":  # in an encapsulated text, a tag is no text
                    state.htmltag, state.skip = True, False
                    starred = False
                    continue
                if name == "fonttbl":
                    state.fonttbl = True
                    continue
                if starred or name in _RTF_SKIP:
                    state.skip = True
                    starred = False
                    continue
            if state.fonttbl:
                if name == "f":
                    defining_font = value
                elif name == "fcharset" and defining_font is not None and value in RTF_CHARSETS:
                    fonts[defining_font] = RTF_CHARSETS[value]
                continue
            if name == "ansicpg" and value is not None:
                ansi = codepage_codec(value) or ansi
            elif name == "deff":
                default_font = value
            elif name == "htmlrtf":
                state.htmlrtf = value != 0
            elif name == "f":
                state.font = value
            elif name == "uc" and value is not None and value >= 0:
                state.uc = value
            elif name == "bin" and value is not None and value > 0:
                at += value  # binary data: never text
            elif name == "u" and value is not None:
                if _visible(state):
                    out.text(chr(value % 0x10000))
                skip_fallback = state.uc
            elif name in _RTF_SYMBOLS and _visible(state):
                out.text(_RTF_SYMBOLS[name])
            continue
        if text is None and hex_byte is None and symbol is None:
            continue  # line breaks in the RTF source are not text
        if skip_fallback:  # the fallback characters after \uN: each byte, escape or symbol counts one
            if text is not None and len(text) > skip_fallback:
                text = text[skip_fallback:]
                skip_fallback = 0
            else:
                skip_fallback -= len(text) if text is not None else 1
                continue
        if not _visible(state):
            continue
        font = state.font if state.font is not None else default_font
        codec = ansi if state.htmltag or font is None else fonts.get(font, ansi)
        if hex_byte is not None:
            out.byte_run(bytes.fromhex(hex_byte.decode("ascii")), codec)
        elif symbol is not None:
            escaped = _RTF_ESCAPES.get(symbol)
            if escaped is not None:
                out.text(escaped)
        elif text is not None:
            out.byte_run(text, codec)
    return Deencapsulated(kind, out.result())


def _visible(state: _RtfState) -> bool:
    """Whether a group's text belongs to the original: tags always, other text unless RTF-only."""
    if state.skip or state.fonttbl:
        return False
    return state.htmltag or not state.htmlrtf
