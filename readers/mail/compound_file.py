"""Writing a compound file (MS-CFB version 3: 512-byte sectors, a mini stream for streams under 4096
bytes), for an Outlook message's embedded message saved as a standalone .msg (readers/mail/mapi.py).

olefile, which reads the files, cannot create them, and a minimal MS-CFB writer is some hundred lines.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass


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
