"""A hostile corpus, generated in code: files built to hang, exhaust or trick a document pipeline.

``write_hostile_corpus(root)`` writes every file below and says, for each, what assay must end up
recording about it (:class:`Expected`): the table that holds the verdict (``observations`` when the walk
refuses the path, ``derivations`` when a reader decides), the status and the reason. Each file is small on
disk and quick to write (the whole corpus, 1.2 MB, in about 1.5 s on a 2-core machine): the bombs are
runs that deflate 1000:1 or objects that reference each other, never bytes actually stored.

The one file that cannot be written up front is the file that changes while it is hashed: the walk
must catch it in the act, so :class:`Appender` keeps appending to it from a thread while the walk runs.
"""

from __future__ import annotations

import io
import os
import random
import tempfile
import threading
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import TracebackType

import pymupdf

# --- what each file must end as -------------------------------------------------------------------------


class Table(StrEnum):
    """Where a file's verdict is recorded: the walk's table when the walk refused the path, the extract
    stage's when a reader decided."""

    OBSERVATIONS = "observations"
    DERIVATIONS = "derivations"


@dataclass(frozen=True, slots=True)
class Expected:
    """The row a hostile file must end with: ``reason`` is matched as a prefix (a reason such as a
    looping symlink's carries the operating system's message after its stable start), ``None`` for a
    row without a reason."""

    table: Table
    status: str
    reason: str | None

    def matches(self, status: str, reason: str | None) -> bool:
        if status != self.status:
            return False
        if self.reason is None:
            return reason is None
        return reason is not None and reason.startswith(self.reason)


@dataclass(frozen=True, slots=True)
class HostileFile:
    """One path of the hostile corpus, relative to its root (bytes for a name that is not UTF-8), what it
    is, and what assay must record about it."""

    rel_path: str | bytes
    what: str
    expected: Expected

    def path(self, root: Path) -> Path:
        """The absolute path under ``root``; for a bytes name, the ``Path`` the operating system's
        surrogate-escaped decoding gives, which opens the file."""
        return root / os.fsdecode(self.rel_path)


def _observed(status: str, reason: str | None) -> Expected:
    return Expected(Table.OBSERVATIONS, status, reason)


def _derived(status: str, reason: str | None) -> Expected:
    return Expected(Table.DERIVATIONS, status, reason)


# --- sizes ------------------------------------------------------------------------------------------------

MiB = 1 << 20
#: The bomb's member: twice the member bound (64 MiB, readers/core/model.py ReadLimits) of blanks, which
#: deflate about 1000:1 to 130 KB, so the compression-ratio bound (100, past 1 MiB) trips after some
#: 13 MiB have been inflated, long before the member bound. Written in about 0.5 s.
BOMB_MEMBER_BYTES = 128 * MiB
#: Zips inside zips: two levels past the depth the walk opens (max_nesting = 3).
NESTED_LEVELS = 5
#: Form XObjects drawing each other twice, this many levels: 2**30 leaf draws, about a billion, from a
#: file of 7 KB. MuPDF extracts the text of 2**17 draws in 2 s on a 2-core machine, and twice as long
#: per level, so 2**30 would take four to five hours.
FORM_DEPTH = 30
#: A form's content: the next form, twice (the second copy shifted a hair, so no reader can tell the two
#: apart as one); the leaf's: a word.
FORM_DRAWS_NEXT_TWICE = b"q /X Do Q q 1 0 0 1 0.001 0 cm /X Do Q"
FORM_LEAF = b"BT /F 8 Tf 10 10 Td (laugh) Tj ET"
#: Twice the page bound (max_pages = 5000).
MANY_PAGES = 10_000
#: A square greyscale image of 200 megapixels, past the image bound (150 Mpx) of image documents.
HUGE_IMAGE_SIDE = 14_143
#: Enough junk for the sniffer and both PDF readers to look at, seeded so its sha256 never changes.
JUNK_BYTES = 64 * 1024
JUNK_SEED = 20261101
#: The file appended to while it is hashed: sparse (no blocks on disk), large enough that hashing it
#: takes about 0.1 s (the walk hashes some 400 MB/s on a 2-core machine), during which the appender
#: lands a hundred writes: the walk cannot miss the change.
GROWING_BYTES = 48 * MiB
#: Seconds between two appends: a write every millisecond or so changes the size many times during one
#: hash, while costing nothing measurable to the rest of the walk.
APPEND_INTERVAL_S = 0.001

# --- Office packages ------------------------------------------------------------------------------------

_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_DOCX_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
    'wordprocessingml.document.main+xml"/>'
    "</Types>"
)
_DOCX_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'officeDocument" Target="word/document.xml"/>'
    "</Relationships>"
)
_XLSX_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.'
    'spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.worksheet+xml"/>'
    '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.sharedStrings+xml"/>'
    "</Types>"
)
_XLSX_RELS = _DOCX_RELS.replace("word/document.xml", "xl/workbook.xml")
_XLSX_WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="Laughs" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
_XLSX_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'worksheet" Target="worksheets/sheet1.xml"/>'
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'sharedStrings" Target="sharedStrings.xml"/>'
    "</Relationships>"
)
_XLSX_SHEET = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    '<sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>'
)
_ODF_MIMETYPE = "application/vnd.oasis.opendocument.text"
_ODF_MANIFEST = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" '
    'manifest:version="1.2">'
    f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{_ODF_MIMETYPE}"/>'
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
    "</manifest:manifest>"
)


def _laughs_dtd(root: str, levels: int = 10) -> str:
    """The "billion laughs" DTD: each entity is ten of the one before, so ``&lol9;`` is 10**9 laughs (some
    3 GB of text) from a declaration of under a kilobyte."""
    entities = ['<!ENTITY lol0 "lol">']
    entities += [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, levels)]
    return f"<!DOCTYPE {root} [\n" + "\n".join(entities) + "\n]>"


def _laughs_reference(levels: int = 10) -> str:
    return f"&lol{levels - 1};"


def _write_zip(path: Path, members: list[tuple[str, bytes]], *, stored: frozenset[str] = frozenset()) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data, zipfile.ZIP_STORED if name in stored else zipfile.ZIP_DEFLATED)


# --- the files --------------------------------------------------------------------------------------------


def write_docx_zip_bomb(path: Path) -> None:
    """A Word document whose ``word/document.xml`` inflates to 128 MiB of blanks inside a well-formed
    document: refused by readers/archives/safezip.py as a zip bomb (ratio) before python-docx inflates it."""
    head = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        f'<w:document xmlns:w="{_W_NS}"><w:body><w:p><w:r><w:t>Bomb</w:t></w:r></w:p>'
    ).encode()
    tail = b"</w:body></w:document>"
    block = b" " * MiB
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", _DOCX_CONTENT_TYPES)
        z.writestr("_rels/.rels", _DOCX_RELS)
        with z.open("word/document.xml", "w", force_zip64=True) as fh:
            fh.write(head)
            for _ in range(BOMB_MEMBER_BYTES // MiB):
                fh.write(block)
            fh.write(tail)


def write_nested_zips(path: Path) -> None:
    """A zip in a zip in a zip ... ``NESTED_LEVELS`` deep, a text file at the bottom: the walk opens three
    levels (max_nesting), so the bottom text never becomes a document."""
    data = _zip_bytes([("bottom.txt", b"A note at the bottom of five archives about reservoir levels.")])
    for level in range(NESTED_LEVELS, 1, -1):  # the archive of level N is a member of level N - 1's
        data = _zip_bytes([(f"level{level}.zip", data)])
    path.write_bytes(data)


def _zip_bytes(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data)
    return buffer.getvalue()


def write_docx_billion_laughs(path: Path) -> None:
    """A Word document whose main part declares the billion-laughs entities and uses the last one."""
    document = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        + _laughs_dtd("w:document")
        + f'\n<w:document xmlns:w="{_W_NS}"><w:body><w:p><w:r><w:t>{_laughs_reference()}</w:t></w:r></w:p>'
        "</w:body></w:document>"
    )
    _write_zip(
        path,
        [
            ("[Content_Types].xml", _DOCX_CONTENT_TYPES.encode()),
            ("_rels/.rels", _DOCX_RELS.encode()),
            ("word/document.xml", document.encode()),
        ],
    )


def write_xlsx_billion_laughs(path: Path) -> None:
    """A workbook whose shared strings declare the billion-laughs entities; its one cell uses the last."""
    strings = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        + _laughs_dtd("sst")
        + '\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" uniqueCount="1">'
        f"<si><t>{_laughs_reference()}</t></si></sst>"
    )
    _write_zip(
        path,
        [
            ("[Content_Types].xml", _XLSX_CONTENT_TYPES.encode()),
            ("_rels/.rels", _XLSX_RELS.encode()),
            ("xl/workbook.xml", _XLSX_WORKBOOK.encode()),
            ("xl/_rels/workbook.xml.rels", _XLSX_WORKBOOK_RELS.encode()),
            ("xl/worksheets/sheet1.xml", _XLSX_SHEET.encode()),
            ("xl/sharedStrings.xml", strings.encode()),
        ],
    )


def write_odt_billion_laughs(path: Path) -> None:
    """An OpenDocument text whose content.xml declares the billion-laughs entities and uses the last."""
    content = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        + _laughs_dtd("office:document-content")
        + '\n<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        f"<office:body><office:text><text:p>{_laughs_reference()}</text:p></office:text></office:body>"
        "</office:document-content>"
    )
    _write_zip(
        path,
        [
            ("mimetype", _ODF_MIMETYPE.encode()),
            ("META-INF/manifest.xml", _ODF_MANIFEST.encode()),
            ("content.xml", content.encode()),
        ],
        stored=frozenset({"mimetype"}),
    )


def write_recursive_forms_pdf(path: Path, depth: int = FORM_DEPTH) -> None:
    """One page drawing form X0, which draws X1 twice, which draws X2 twice ... down to X{depth}, which
    draws a word: 2**depth draws of the word, from ``depth + 1`` small, valid objects. Reading the page
    (its text, images or drawings) interprets every draw: at depth 30, a billion of them."""
    doc = pymupdf.open()
    page = doc.new_page(width=200, height=200)
    font = doc.get_new_xref()
    doc.update_object(font, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    forms = [doc.get_new_xref() for _ in range(depth + 1)]
    for level, xref in enumerate(forms):
        if level < depth:
            resources = f"<< /XObject << /X {forms[level + 1]} 0 R >> >>"
            content = FORM_DRAWS_NEXT_TWICE
        else:
            resources = f"<< /Font << /F {font} 0 R >> >>"
            content = FORM_LEAF
        doc.update_object(
            xref, f"<< /Type /XObject /Subtype /Form /BBox [0 0 200 200] /Resources {resources} >>"
        )
        doc.update_stream(xref, content)
    contents = doc.get_new_xref()
    doc.update_object(contents, "<< >>")
    doc.update_stream(contents, b"q /X Do Q")
    doc.xref_set_key(page.xref, "Contents", f"{contents} 0 R")
    doc.xref_set_key(page.xref, "Resources", f"<< /XObject << /X {forms[0]} 0 R >> >>")
    doc.save(path, garbage=1, deflate=True, no_new_id=True)
    doc.close()


def pdf_bytes(objects: list[bytes], *, prev_is_self: bool = False) -> bytes:
    """A PDF of ``objects`` (object 1 the catalog), numbered from 1, with an exact cross-reference table;
    with ``prev_is_self`` the trailer's /Prev points at that same table (a loop of updates)."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    prev = b" /Prev %d" % xref if prev_is_self else b""
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, prev, xref)
    return bytes(out)


def write_many_pages_pdf(path: Path) -> None:
    """10,000 blank pages, twice the page bound: each page a distinct object of 30 bytes, written
    directly (PyMuPDF's ``new_page`` takes seconds for as many)."""
    first = 3
    kids = b" ".join(b"%d 0 R" % n for n in range(first, first + MANY_PAGES))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /MediaBox [0 0 200 200] /Count %d /Kids [%s] >>" % (MANY_PAGES, kids),
        *[b"<< /Type /Page /Parent 2 0 R >>"] * MANY_PAGES,
    ]
    path.write_bytes(pdf_bytes(objects))


def write_huge_image_pdf(path: Path) -> None:
    """A page carrying one 14143 x 14143 greyscale image (200 megapixels) of black, Flate-compressed to
    some 200 KB: its stream is written directly, never held as pixels."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    image = doc.get_new_xref()
    side = HUGE_IMAGE_SIDE
    compressor = zlib.compressobj(9)
    rows = bytes(side * 256)  # 256 rows at a time: 3.6 MB, never the 200 MB of the whole image
    parts = [compressor.compress(rows) for _ in range(side // 256)]
    parts += [compressor.compress(bytes(side * (side % 256))), compressor.flush()]
    doc.update_object(
        image,
        f"<< /Type /XObject /Subtype /Image /Width {side} /Height {side} /ColorSpace /DeviceGray "
        f"/BitsPerComponent 8 /Filter /FlateDecode >>",
    )
    doc.update_stream(image, b"".join(parts), compress=False)
    contents = doc.get_new_xref()
    doc.update_object(contents, "<< >>")
    doc.update_stream(contents, b"q 595 0 0 842 0 0 cm /Im Do Q")
    doc.xref_set_key(page.xref, "Contents", f"{contents} 0 R")
    doc.xref_set_key(page.xref, "Resources", f"<< /XObject << /Im {image} 0 R >> >>")
    doc.save(path, garbage=1, no_new_id=True)
    doc.close()


def write_broken_xref_pdf(path: Path) -> None:
    """A one-page PDF with valid objects but a cross-reference table whose offsets all point 7 bytes
    early, and a trailer cut off before its end."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text(
        (72, 72), "The broken table still holds a readable page about water meters.", fontsize=11
    )
    data = doc.tobytes(garbage=4, no_new_id=True)
    doc.close()
    start = data.rindex(b"\nxref\n") + 1
    head, table = data[:start], data[start:]
    lines = table.split(b"\n")
    shifted = []
    for line in lines:
        fields = line.split(b" ")
        if len(fields) >= 3 and fields[2] in (b"n", b"n\r") and len(fields[0]) == 10:
            offset = max(0, int(fields[0]) - 7)
            line = b"%010d " % offset + b" ".join(fields[1:])
        shifted.append(line)
    table = b"\n".join(shifted)
    cut = table.index(b"trailer") + len(b"trailer\n<</Size")
    path.write_bytes(head + table[:cut])


def write_binary_junk_pdf(path: Path) -> None:
    """Random bytes from a fixed seed, named ``.pdf``."""
    path.write_bytes(random.Random(JUNK_SEED).randbytes(JUNK_BYTES))


def write_zero_bytes(path: Path) -> None:
    """Nothing at all, named ``.pdf``: the readers of a binary format say ``empty_file``."""
    path.write_bytes(b"")


def write_symlink_loop(a: Path, b: Path) -> None:
    """``a -> b -> a``: resolving either never ends."""
    a.symlink_to(b.name)
    b.symlink_to(a.name)


def write_directory_loop(directory: Path) -> None:
    """``directory/up -> ..``: a link to a directory that holds it."""
    directory.mkdir()
    (directory / "note.txt").write_text("A note beside a link to its own parent.\n", encoding="utf-8")
    (directory / "up").symlink_to("..", target_is_directory=True)


def write_unreadable(path: Path) -> None:
    """A text file with no permission bits at all."""
    path.write_text("A note nobody may read but its owner's superuser.\n", encoding="utf-8")
    path.chmod(0)


def write_undecodable_name(root: Path, name: bytes) -> None:
    """A text file whose name is not valid UTF-8 (Latin-1 ``é``)."""
    with open(os.path.join(os.fsencode(root), name), "wb") as fh:
        fh.write("Un café au bord du réservoir, sous un nom en Latin-1.\n".encode())


def write_growing(path: Path) -> None:
    """A sparse file to be appended to while the walk hashes it (:class:`Appender`)."""
    with path.open("wb") as fh:
        fh.truncate(GROWING_BYTES)


class Appender:
    """Appends to a file from a thread, a few bytes every millisecond, from ``__enter__`` until
    ``stop()`` or ``__exit__``: a file that keeps changing for as long as the walk looks at it.

    ``__enter__`` returns once the first append has landed, so a walk started inside the block always
    sees a file in motion."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.appends = 0
        self._stop = threading.Event()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"append {path.name}", daemon=True)

    def _run(self) -> None:
        with self.path.open("ab", buffering=0) as fh:
            while not self._stop.is_set():
                fh.write(b"tick\n")
                self.appends += 1
                self._started.set()
                self._stop.wait(APPEND_INTERVAL_S)

    def __enter__(self) -> Appender:
        self._thread.start()
        if not self._started.wait(5):
            raise RuntimeError(f"could not append to {self.path}")
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


# --- the corpus -----------------------------------------------------------------------------------------

UNDECODABLE_NAME = b"caf\xe9.txt"
GROWING_NAME = "growing.log"


def _permissions_bind() -> bool:
    """Whether this process is refused a file with no permission bits. Root is not (it reads every file
    whatever its mode), unless it runs without the capability to override permissions: asked of the
    kernel with a file of its own rather than guessed from the user id."""
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "probe"
        probe.write_bytes(b"")
        probe.chmod(0)
        try:
            probe.open("rb").close()
        except PermissionError:
            return True
        return False


#: The file with no permission bits is refused by the walk, or, for root, simply read.
PERMISSIONS_BIND = _permissions_bind()

_Writer = Callable[[Path, Path], None]  # (root, path of the file under it)

_CORPUS: tuple[tuple[HostileFile, _Writer], ...] = (
    (
        HostileFile(
            "bomb.docx",
            "a Word document whose main part inflates 1000:1 to 128 MiB",
            _derived("error", "over_limit"),
        ),
        lambda root, p: write_docx_zip_bomb(p),
    ),
    (
        HostileFile(
            "nested.zip",
            f"zips nested {NESTED_LEVELS} deep, a text file at the bottom; the archive's own listing is its "
            "text, three levels become documents, the bottom text does not",
            _derived("derived", None),
        ),
        lambda root, p: write_nested_zips(p),
    ),
    (
        HostileFile(
            "laughs.docx",
            "a Word document whose main part is a billion-laughs entity expansion",
            _derived("error", "xml_entities"),
        ),
        lambda root, p: write_docx_billion_laughs(p),
    ),
    (
        HostileFile(
            "laughs.xlsx",
            "a workbook whose shared strings are a billion-laughs entity expansion",
            _derived("error", "xml_entities"),
        ),
        lambda root, p: write_xlsx_billion_laughs(p),
    ),
    (
        HostileFile(
            "laughs.odt",
            "an OpenDocument text whose content is a billion-laughs entity expansion",
            _derived("error", "xml_entities"),
        ),
        lambda root, p: write_odt_billion_laughs(p),
    ),
    (
        HostileFile(
            "forms.pdf",
            f"form XObjects drawing each other twice, {FORM_DEPTH} levels: 2**{FORM_DEPTH} draws; stopped by "
            "the read time budget",
            _derived("error", "timeout"),
        ),
        lambda root, p: write_recursive_forms_pdf(p),
    ),
    (
        HostileFile("many-pages.pdf", f"{MANY_PAGES:,} blank pages", _derived("error", "over_limit")),
        lambda root, p: write_many_pages_pdf(p),
    ),
    (
        HostileFile(
            "huge-image.pdf",
            f"a page carrying a {HUGE_IMAGE_SIDE}x{HUGE_IMAGE_SIDE} greyscale image of black, no text",
            _derived("underivable", "empty_text"),
        ),
        lambda root, p: write_huge_image_pdf(p),
    ),
    (
        HostileFile(
            "broken-xref.pdf",
            "valid objects, cross-reference offsets 7 bytes off, the trailer cut short: MuPDF rebuilds the "
            "table by scanning the objects and reads the page",
            _derived("derived", None),
        ),
        lambda root, p: write_broken_xref_pdf(p),
    ),
    (
        HostileFile("junk.pdf", "64 KiB of seeded random bytes named .pdf", _derived("error", "corrupt")),
        lambda root, p: write_binary_junk_pdf(p),
    ),
    (
        HostileFile("zero-bytes.pdf", "a 0-byte file named .pdf", _derived("error", "empty_file")),
        lambda root, p: write_zero_bytes(p),
    ),
    (
        HostileFile(
            "loop-a",
            "a symlink to loop-b, which links back to loop-a",
            _observed("unreadable", "symlink loop"),
        ),
        lambda root, p: write_symlink_loop(p, p.with_name("loop-b")),
    ),
    (
        HostileFile(
            "loop-b",
            "a symlink to loop-a (written with loop-a)",
            _observed("unreadable", "symlink loop"),
        ),
        lambda root, p: None,
    ),
    (
        HostileFile(
            "cycle/up",
            "a symlink inside a directory to the directory's parent",
            _observed("not_a_file", "symlink to a directory inside the root"),
        ),
        lambda root, p: write_directory_loop(p.parent),
    ),
    (
        HostileFile(
            "cycle/note.txt",
            "a plain note beside the looping link (written with it)",
            _derived("derived", None),
        ),
        lambda root, p: None,
    ),
    (
        HostileFile(
            "no-permission.txt",
            "a text file with mode 000"
            + ("" if PERMISSIONS_BIND else ": the walk runs as root, which reads it anyway"),
            _observed("unreadable", "PermissionError") if PERMISSIONS_BIND else _derived("derived", None),
        ),
        lambda root, p: write_unreadable(p),
    ),
    (
        HostileFile(
            UNDECODABLE_NAME, "a text file whose name is Latin-1, not UTF-8", _derived("derived", None)
        ),
        lambda root, p: write_undecodable_name(root, UNDECODABLE_NAME),
    ),
    (
        HostileFile(
            GROWING_NAME,
            "a file appended to while the walk hashes it (Appender)",
            _observed("changed_while_hashed", "size or mtime changed"),
        ),
        lambda root, p: write_growing(p),
    ),
)

#: Every file of the hostile corpus and what it must end as.
HOSTILE_FILES: tuple[HostileFile, ...] = tuple(f for f, _ in _CORPUS)


def write_hostile_corpus(root: Path) -> list[HostileFile]:
    """Write the hostile corpus under ``root`` (created; it must not hold these names yet) and say what
    each file must end as. The growing file is written still: wrap the walk in
    ``Appender(root / GROWING_NAME)`` to make it change while it is hashed."""
    root.mkdir(parents=True, exist_ok=True)
    for file, write in _CORPUS:
        write(root, file.path(root))
    return list(HOSTILE_FILES)
