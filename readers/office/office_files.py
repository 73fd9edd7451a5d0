"""What the office readers (DOCX, XLSX, PPTX, ODF, RTF) share: the container checks before a library opens
a file, the password-protected OOXML detector, the share of cells that makes a spreadsheet row a header,
and the text budget (the GFM table writer is :mod:`readers.core.markup`, which HTML shares).

Containers. python-docx, openpyxl and python-pptx open the zip themselves and inflate every part they load
without a bound, so :func:`open_ooxml` first walks the whole container with
:class:`readers.archives.safezip.SafeZip`
(member count, each member inflated in blocks within its bound and its compression ratio, the container's
total), and only a container that passes is handed to the library: a zip bomb inside an Office file is
refused before the library inflates it. That costs one extra inflation of the file: measured on the
corpus's 13 readable OOXML files (6-55 KB), 0.4-2.0 ms each, 4-25% of the whole read (the most for small
Word documents, whose reading is itself fast; 4-5% for workbooks).

Encryption. A password-protected OOXML file is not a zip at all but an OLE2 compound file (MS-CFB) holding
an ``EncryptionInfo`` and an ``EncryptedPackage`` stream (MS-OFFCRYPTO). :func:`ole_stream_names` reads the
compound file's directory (header, FAT, directory chain: some 60 lines, no new dependency; olefile would do
the same with more surface than a yes/no question needs), so the reader can say ``encrypted`` rather than
``corrupt``.
"""

from __future__ import annotations

import io
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from xml.etree.ElementTree import Element

from readers.archives.safezip import SafeZip, parse_xml
from readers.core.base import require_readable_file
from readers.core.errors import CorruptDocument, EncryptedDocument, FileUnreadable, LimitExceeded
from readers.core.model import ReadLimits

OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGIC = b"PK"

# --------------------------------------------------------------------------------------------------------
# OLE2 compound files: just enough of MS-CFB to list the directory's names.

_CFB_HEADER = 512
_CFB_DIFAT_IN_HEADER = 109
_CFB_ENTRY = 128
_CFB_END_OF_CHAIN = 0xFFFFFFFE
_CFB_MAX_REGULAR = 0xFFFFFFFA
_CFB_STREAM, _CFB_STORAGE, _CFB_ROOT = 2, 1, 5
# Directory sectors followed before the chain is called broken: 4096 sectors of 4 KiB hold 131,072
# entries, far beyond any real document (the corpus's encrypted files have 1 directory sector of 512
# bytes). The bound also stops a chain that loops back on itself.
_CFB_MAX_DIRECTORY_SECTORS = 4096
#: The streams every password-protected OOXML package has (MS-OFFCRYPTO 2.3.4: "EncryptionInfo" holds the
#: key derivation, "EncryptedPackage" the encrypted zip).
OOXML_ENCRYPTION_STREAMS = frozenset({"EncryptionInfo", "EncryptedPackage"})


def ole_stream_names(path: Path) -> set[str]:
    """The names of the storages and streams in an OLE2 compound file's directory.

    Raises ``CorruptDocument`` when the header or a chain points outside the file or loops.
    """
    try:
        with path.open("rb") as fh:
            header = fh.read(_CFB_HEADER)
            if len(header) < _CFB_HEADER or header[:8] != OLE2_MAGIC:
                raise CorruptDocument("not an OLE2 compound file (header missing or truncated)")
            shift = struct.unpack_from("<H", header, 0x1E)[0]
            if shift not in (9, 12):
                raise CorruptDocument(f"OLE2 compound file with an invalid sector size (shift {shift})")
            size = 1 << shift
            per_sector = size // 4
            fat_sectors = _fat_sector_ids(fh, header, size)

            def read_sector(sector: int) -> bytes:
                if sector > _CFB_MAX_REGULAR:
                    raise CorruptDocument(f"OLE2 chain points at a special sector {sector:#x}")
                fh.seek((sector + 1) << shift)
                data = fh.read(size)
                if len(data) < size:
                    raise CorruptDocument("OLE2 compound file is truncated (a sector lies past its end)")
                return data

            def next_sector(sector: int) -> int:
                index, offset = divmod(sector, per_sector)
                if index >= len(fat_sectors):
                    raise CorruptDocument("OLE2 chain points past the allocation table")
                return struct.unpack_from("<I", read_sector(fat_sectors[index]), offset * 4)[0]

            names: set[str] = set()
            sector = struct.unpack_from("<I", header, 0x30)[0]
            seen: set[int] = set()
            while sector != _CFB_END_OF_CHAIN:
                if sector in seen or len(seen) >= _CFB_MAX_DIRECTORY_SECTORS:
                    raise CorruptDocument("OLE2 directory chain loops or is implausibly long")
                seen.add(sector)
                data = read_sector(sector)
                for at in range(0, size, _CFB_ENTRY):
                    name_len = struct.unpack_from("<H", data, at + 0x40)[0]
                    kind = data[at + 0x42]
                    if kind in (_CFB_STREAM, _CFB_STORAGE, _CFB_ROOT) and 2 <= name_len <= 64:
                        names.add(data[at : at + name_len - 2].decode("utf-16-le", errors="replace"))
                sector = next_sector(sector)
            return names
    except OSError as exc:
        raise FileUnreadable(f"cannot read {path}: {exc}") from exc
    except struct.error as exc:
        raise CorruptDocument(f"OLE2 compound file is truncated: {exc}") from exc


def _fat_sector_ids(fh: BinaryIO, header: bytes, size: int) -> list[int]:
    """The sectors holding the allocation table: 109 listed in the header, the rest in the DIFAT chain."""
    count = struct.unpack_from("<I", header, 0x2C)[0]
    ids = [s for s in struct.unpack_from(f"<{_CFB_DIFAT_IN_HEADER}I", header, 0x4C) if s <= _CFB_MAX_REGULAR]
    difat = struct.unpack_from("<I", header, 0x44)[0]
    seen: set[int] = set()
    while difat <= _CFB_MAX_REGULAR and len(ids) < count:
        if difat in seen or len(seen) >= _CFB_MAX_DIRECTORY_SECTORS:
            raise CorruptDocument("OLE2 DIFAT chain loops or is implausibly long")
        seen.add(difat)
        fh.seek((difat + 1) * size)
        data = fh.read(size)
        if len(data) < size:
            raise CorruptDocument("OLE2 compound file is truncated (DIFAT past its end)")
        entries = struct.unpack(f"<{size // 4}I", data)
        ids.extend(s for s in entries[:-1] if s <= _CFB_MAX_REGULAR)
        difat = entries[-1]
    return ids[:count] if count else ids


def refuse_ole(path: Path, what: str) -> None:
    """Raise for a file that is an OLE2 compound file where a zip was expected: ``EncryptedDocument`` for a
    password-protected OOXML package, ``CorruptDocument`` (naming the likely cause) otherwise."""
    names = ole_stream_names(path)
    if names >= OOXML_ENCRYPTION_STREAMS:
        raise EncryptedDocument(f"{path.name}: a password-protected {what} (an encrypted OLE2 package)")
    raise CorruptDocument(
        f"{path.name}: an OLE2 compound file, not a {what} zip (a legacy binary Office file renamed?)"
    )


# --------------------------------------------------------------------------------------------------------
# Zip containers


def open_zip(path: Path | BinaryIO, limits: ReadLimits) -> SafeZip:
    """``SafeZip(path, limits)``, with the one error its constructor lets through translated: zipfile
    raises ``NotImplementedError`` while reading the directory when a member claims a "version needed to
    extract" beyond its own (a damaged or hostile directory entry)."""
    try:
        return SafeZip(path, limits)
    except NotImplementedError as exc:
        name = path.name if isinstance(path, Path) else "the package"
        raise CorruptDocument(f"{name}: not a readable zip: {exc}") from exc


#: The Open Packaging Conventions (ECMA-376 Part 2) forbid DTD declarations in a package's XML parts, so
#: a part that declares one is refused here, before python-docx (lxml) or openpyxl (defusedxml) parse it:
#: both stop an entity expansion, but with errors of their own that would read ``corrupt``. Searched in
#: the encodings XML parts are written in (UTF-8, UTF-16 either way).
_DTD_MARKERS = tuple("<!DOCTYPE".encode(encoding) for encoding in ("utf-8", "utf-16-le", "utf-16-be"))


def validate_container(zf: SafeZip) -> None:
    """Inflate every member within the bounds (``SafeZip.read`` refuses bombs, lies and overruns) and
    discard the bytes: only a container that passes is handed to a library that inflates unbounded. An XML
    part that declares a DTD is refused with the reason ``parse_xml`` gives (``xml_entities``)."""
    for member in zf.files():
        data = zf.read_member(member)
        if member.name.endswith((".xml", ".rels")) and any(m in data for m in _DTD_MARKERS):
            raise CorruptDocument(
                f"{member.name} declares a DTD, which an Office package may not: refused",
                reason="xml_entities",
            )


@dataclass(frozen=True, slots=True)
class OoxmlPackage:
    """An OOXML zip that passed the container checks: its main part's name and content type."""

    main_part: str
    content_type: str


_RELS_NS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_CT_NS = "{http://schemas.openxmlformats.org/package/2006/content-types}"
_OFFICE_DOCUMENT_REL = re.compile(r"/officeDocument$")


def open_ooxml(
    source: Path | bytes, limits: ReadLimits, *, what: str, main_types: Iterable[str], name: str = ""
) -> OoxmlPackage:
    """Check an OOXML file (or a package held in memory, named ``name`` in messages) before a library
    opens it: readable, not a password-protected OLE2 package, a zip within every bound, and a main part
    whose content type contains one of ``main_types``.

    ``what`` names the format in messages ("Word document"). Raises the project's errors only.
    """
    if isinstance(source, bytes):
        name = name or f"a {what} held in memory"
        magic = source[:8]
        if magic == OLE2_MAGIC:
            raise CorruptDocument(f"{name}: an OLE2 compound file, not a {what} zip")
        zipped: Path | BinaryIO = io.BytesIO(source)
    else:
        require_readable_file(source)
        name = source.name
        try:
            with source.open("rb") as fh:
                magic = fh.read(8)
        except OSError as exc:
            raise FileUnreadable(f"cannot read {source}: {exc}") from exc
        if magic == OLE2_MAGIC:
            refuse_ole(source, what)
        zipped = source
    with open_zip(zipped, limits) as zf:
        validate_container(zf)
        main, content_type = _main_part(zf)
    if main is None:
        raise CorruptDocument(f"{name}: a zip, but not a {what} (no main document part)")
    if not any(t in content_type for t in main_types):
        raise CorruptDocument(
            f"{name}: a zip, but not a {what}: its main part {main!r} is {content_type or 'untyped'}"
        )
    return OoxmlPackage(main, content_type)


def _main_part(zf: SafeZip) -> tuple[str | None, str]:
    """The package's main part (``_rels/.rels``'s officeDocument target) and its declared content type."""
    if not zf.has("_rels/.rels") or not zf.has("[Content_Types].xml"):
        return None, ""
    rels = parse_xml(zf.read("_rels/.rels"), "_rels/.rels")
    target = next(
        (
            r.get("Target", "")
            for r in rels.iter(f"{_RELS_NS}Relationship")
            if _OFFICE_DOCUMENT_REL.search(r.get("Type", ""))
        ),
        None,
    )
    if not target:
        return None, ""
    name = target.lstrip("/")
    if not zf.has(name):
        return None, ""
    types = parse_xml(zf.read("[Content_Types].xml"), "[Content_Types].xml")
    for override in types.iter(f"{_CT_NS}Override"):
        if override.get("PartName", "").lstrip("/") == name:
            return name, override.get("ContentType", "")
    return name, ""


# --------------------------------------------------------------------------------------------------------
# Text


class TextBudget:
    """Counts the characters a reader has produced and refuses past ``limits.max_text_bytes``.

    Characters are counted as they are produced (each is at least one byte), so a document that expands
    into more text than the limit is stopped before it is all in memory; :meth:`check` measures the
    final text's UTF-8 bytes exactly.
    """

    def __init__(self, limits: ReadLimits) -> None:
        self.limit = limits.max_text_bytes
        self.chars = 0

    def add(self, text: str) -> str:
        self.chars += len(text)
        if self.chars > self.limit:
            raise LimitExceeded(f"the text is over the limit of {self.limit} bytes")
        return text

    def check(self, text: str) -> str:
        if len(text.encode("utf-8", errors="surrogatepass")) > self.limit:
            raise LimitExceeded(f"the text is over the limit of {self.limit} bytes")
        return text


def join_blocks(blocks: Iterable[tuple[str, bool]]) -> str:
    """Blocks as markdown: a blank line between blocks, a single line break between consecutive list
    items (``(text, is_list_item)``), so that a list stays one tight list."""
    out: list[str] = []
    previous_item = False
    for text, item in blocks:
        if not text.strip():
            continue
        if out:
            out.append("\n" if item and previous_item else "\n\n")
        out.append(text)
        previous_item = item
    return "".join(out)


# --------------------------------------------------------------------------------------------------------
# Spreadsheet tables

# A row is taken for the header when it fills at least this share of the cells the sheet's widest row
# fills; the rows above it are title lines ("3. Analyses by segment", "In millions of CHF"). Calibrated
# on the corpus's workbooks: their title rows fill 1-2 cells of rows 4-13 cells wide, their header rows
# 3 of 4 (a telecom's index) and 6-9 of 8-13 (the segment analyses). A sheet whose rows are all equally
# narrow takes its first row.
HEADER_MIN_SHARE = 0.5


def xml_children(element: Element, tag: str) -> list[Element]:
    """Direct children of ``element`` with the Clark-notation ``tag``."""
    return [child for child in element if child.tag == tag]
