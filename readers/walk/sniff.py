"""Decide a document's content kind from its leading bytes first and its name second.

Names lie (a PDF saved as ``.txt``, an HTML error page saved as ``.pdf``, an old ``.doc`` renamed
``.docx``), so the bytes are asked first, the extension only where the bytes carry no evidence. The
order of evidence, strongest first:

1. A magic number (:data:`_MAGIC`). Container formats (zip, OLE2, ISO media) are narrowed further by
   what the head shows of their members; where it shows nothing, an extension that names a kind of the
   same container family refines the kind.
2. ``%PDF-`` within the first 1024 bytes, as PDF readers accept it.
3. Text: the head is decoded (byte-order mark, UTF-16 by NUL share, UTF-8, else an 8-bit reading) and
   looked at for markup, e-mail headers and JSON. Strong markers (an XML declaration, ``<html``,
   ``<!doctype html``, RFC 822 headers, JSON) decide by bytes; weak ones (an arbitrary HTML or XML
   element: a project's markdown read-me often starts with ``<div align="center">``) yield to an
   extension of the text family.
4. The extension (:data:`_EXTENSIONS`): random bytes named ``x.pdf`` are a PDF by extension (its reader
   will call it corrupt), text named ``x.csv`` is CSV by extension.
5. Text with a silent extension is TEXT; anything else is UNKNOWN.

``decided_by`` answers one question: would the kind be the same if the file were renamed ``x.bin``?
``BYTES`` if so, ``EXTENSION`` if the name chose the kind (even where the bytes narrowed the choice to a
family, e.g. an OLE2 file whose stream directory lies beyond the head, named ``.msg``), ``NONE`` where
neither decided (binary bytes without a known magic or extension).
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from readers.core.model import ContentKind, KindSource
from readers.text.encoding import bom_encoding, utf16_by_nul_share

K = ContentKind

HEAD_BYTES = 8192  # how many leading bytes the walk passes in

#: PDF readers accept the header anywhere in the first 1024 bytes (junk before it is common in the wild).
PDF_SEARCH_BYTES = 1024


@dataclass(frozen=True, slots=True)
class Sniffed:
    """A document's kind and which evidence decided it (module docstring)."""

    kind: ContentKind
    decided_by: KindSource  # BYTES: the bytes decided; EXTENSION: only the name did; NONE: neither


# --------------------------------------------------------------------------------------------------------
# Extensions


def _extensions(groups: Mapping[ContentKind, tuple[str, ...]]) -> Mapping[str, ContentKind]:
    return MappingProxyType({ext: kind for kind, exts in groups.items() for ext in exts})


#: Lower-case extension (without the dot) to kind.
_EXTENSIONS: Mapping[str, ContentKind] = _extensions(
    {
        K.PDF: ("pdf",),
        K.TEXT: ("txt", "text", "log"),
        K.CSV: ("csv",),
        K.TSV: ("tsv", "tab"),
        K.JSON: ("json", "jsonl", "ndjson"),
        K.XML: ("xml",),
        K.HTML: ("html", "htm", "xhtml"),
        K.MARKDOWN: ("md", "markdown"),
        K.RTF: ("rtf",),
        K.DOCX: ("docx", "docm"),
        K.XLSX: ("xlsx", "xlsm"),
        K.PPTX: ("pptx", "pptm"),
        K.ODT: ("odt",),
        K.ODS: ("ods",),
        K.ODP: ("odp",),
        K.DOC: ("doc",),
        K.XLS: ("xls",),
        K.PPT: ("ppt",),
        K.EML: ("eml",),
        K.MSG: ("msg",),
        K.ZIP: ("zip",),
        K.PNG: ("png",),
        K.JPEG: ("jpg", "jpeg"),
        K.TIFF: ("tif", "tiff"),
        K.WEBP: ("webp",),
        K.BMP: ("bmp",),
        K.GIF: ("gif",),
        K.AUDIO: ("mp3", "wav", "flac", "ogg", "m4a"),
        K.VIDEO: ("mp4", "mov", "avi", "mkv"),
    }
)

#: Kinds whose bytes are text without a magic number: an extension among these may overrule a weak
#: markup marker (a ``.md`` file starting with an HTML ``<div>`` is still Markdown).
_TEXT_FAMILY = frozenset({K.TEXT, K.CSV, K.TSV, K.JSON, K.XML, K.HTML, K.MARKDOWN, K.EML})

#: Kinds stored as a zip, and as an OLE2 compound file: an extension among these refines a container
#: whose head shows nothing more specific.
_ZIP_FAMILY = frozenset({K.ZIP, K.DOCX, K.XLSX, K.PPTX, K.ODT, K.ODS, K.ODP})
_OOXML = frozenset({K.DOCX, K.XLSX, K.PPTX})
_OLE2_FAMILY = frozenset({K.DOC, K.XLS, K.PPT, K.MSG}) | _OOXML  # OOXML when encrypted (MS-OFFCRYPTO)


def _extension_kind(name: str) -> ContentKind | None:
    """The kind the name's extension names, case-insensitively; ``None`` for no or an unknown extension."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, ext = base.rpartition(".")
    if not dot or not stem:  # no extension, or a dot file such as ".pdf"
        return None
    return _EXTENSIONS.get(ext.lower())


# --------------------------------------------------------------------------------------------------------
# Containers: what the head shows of the members


@dataclass(frozen=True, slots=True)
class _ZipMember:
    name: str
    method: int
    data: bytes  # the (possibly truncated) compressed bytes that follow the header within the head


_ZIP_LOCAL = b"PK\x03\x04"
_ZIP_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
_ZIP_STORED, _ZIP_DEFLATED = 0, 8


def _zip_members(head: bytes) -> Iterator[_ZipMember]:
    """Local file headers visible in the head, in order.

    Found by signature rather than by walking sizes: writers that stream (general-purpose flag bit 3)
    leave the sizes zero in the local header, so walking would stop at the first member.
    """
    for match in re.finditer(re.escape(_ZIP_LOCAL), head):
        start = match.start()
        if start + _ZIP_LOCAL_HEADER.size > len(head):
            return
        fields = _ZIP_LOCAL_HEADER.unpack_from(head, start)
        method, size, name_len, extra_len = fields[3], fields[7], fields[9], fields[10]
        name_start = start + _ZIP_LOCAL_HEADER.size
        raw_name = head[name_start : name_start + name_len]
        if len(raw_name) < name_len:
            return  # cut by the head's end
        if not raw_name:
            continue  # not a member: the signature's bytes occurred inside compressed data
        data_start = name_start + name_len + extra_len
        data_end = data_start + size if size else len(head)
        yield _ZipMember(raw_name.decode("utf-8", errors="replace"), method, head[data_start:data_end])


#: ODF: the first member is ``mimetype``, stored, holding the media type (ODF 1.2 part 3, §3.3).
_ODF_MEDIA_TYPES: tuple[tuple[bytes, ContentKind], ...] = (
    (b"application/vnd.oasis.opendocument.text", K.ODT),  # also -template, -master, -web
    (b"application/vnd.oasis.opendocument.spreadsheet", K.ODS),
    (b"application/vnd.oasis.opendocument.presentation", K.ODP),
)

#: OOXML: the part folders of the main document (ECMA-376 part 2 names them by convention; every
#: producer in the corpus follows it), counted only for XML parts so that a user's zip with a folder
#: named ``word/`` stays a zip.
_OOXML_FOLDERS: tuple[tuple[str, ContentKind], ...] = (
    ("word/", K.DOCX),
    ("xl/", K.XLSX),
    ("ppt/", K.PPTX),
)

#: OOXML: the main part's content type in ``[Content_Types].xml``, for files whose first members are
#: not in those folders (a truncated .docx, a producer with other part names). Main parts only: a .docx
#: with a chart declares the spreadsheet type for its embedded workbook.
_OOXML_MAIN_TYPES: tuple[tuple[bytes, ContentKind], ...] = (
    (b"wordprocessingml.document.main+xml", K.DOCX),
    (b"wordprocessingml.template.main+xml", K.DOCX),
    (b"ms-word.document.macroEnabled.main+xml", K.DOCX),
    (b"ms-word.template.macroEnabledTemplate.main+xml", K.DOCX),
    (b"spreadsheetml.sheet.main+xml", K.XLSX),
    (b"spreadsheetml.template.main+xml", K.XLSX),
    (b"ms-excel.sheet.macroEnabled.main+xml", K.XLSX),
    (b"ms-excel.template.macroEnabled.main+xml", K.XLSX),
    (b"presentationml.presentation.main+xml", K.PPTX),
    (b"presentationml.slideshow.main+xml", K.PPTX),
    (b"presentationml.template.main+xml", K.PPTX),
    (b"ms-powerpoint.presentation.macroEnabled.main+xml", K.PPTX),
    (b"ms-powerpoint.slideshow.macroEnabled.main+xml", K.PPTX),
)
_OOXML_CONTENT_TYPES = "[Content_Types].xml"
_OOXML_PART_SUFFIXES = (".xml", ".rels")

#: A cap on what a member's head may inflate to: the sniffer must not be a zip bomb's victim.
_INFLATE_MAX = 64 * 1024


def _inflated(member: _ZipMember) -> bytes:
    """The member's content as far as the head shows it (truncated deflate streams decode up to the cut)."""
    if member.method == _ZIP_STORED:
        return member.data
    if member.method != _ZIP_DEFLATED:
        return b""
    try:
        return zlib.decompressobj(-zlib.MAX_WBITS).decompress(member.data, _INFLATE_MAX)
    except zlib.error:
        return b""


def _first(table: tuple[tuple[bytes, ContentKind], ...], data: bytes, *, prefix: bool) -> ContentKind | None:
    for needle, kind in table:
        if data.startswith(needle) if prefix else needle in data:
            return kind
    return None


def _zip_kind(head: bytes, ext_kind: ContentKind | None) -> Sniffed:
    """OOXML and ODF from the members the head shows; a zip-family extension refines a bare zip."""
    members = list(_zip_members(head))
    if members and members[0].name == "mimetype":
        odf = _first(_ODF_MEDIA_TYPES, members[0].data.strip(), prefix=True)
        if odf is not None:
            return Sniffed(odf, KindSource.BYTES)
    for member in members:
        if member.name.endswith(_OOXML_PART_SUFFIXES):
            for folder, kind in _OOXML_FOLDERS:
                if member.name.startswith(folder):
                    return Sniffed(kind, KindSource.BYTES)
    for member in members:
        if member.name == _OOXML_CONTENT_TYPES:
            ooxml = _first(_OOXML_MAIN_TYPES, _inflated(member), prefix=False)
            if ooxml is not None:
                return Sniffed(ooxml, KindSource.BYTES)
    if ext_kind in _ZIP_FAMILY and ext_kind is not K.ZIP:
        return Sniffed(ext_kind, KindSource.EXTENSION)
    return Sniffed(K.ZIP, KindSource.BYTES)


def _empty_zip(head: bytes, ext_kind: ContentKind | None) -> Sniffed:
    """An empty archive is a zip whatever its name: there is no document inside to be a .docx."""
    return Sniffed(K.ZIP, KindSource.BYTES)


#: OLE2 (MS-CFB) directory entries are 128 bytes, their UTF-16LE names at the entry's start, and the
#: directory sectors are aligned to 128 bytes from the file's start. ``None`` marks the encrypted
#: OOXML package (MS-OFFCRYPTO): which of DOCX/XLSX/PPTX it is only the name can say.
_OLE2_ENTRY = 128
_OLE2_STREAMS: tuple[tuple[str, ContentKind | None], ...] = (
    ("__substg1.0_", K.MSG),  # a prefix: MAPI property streams (MS-OXMSG)
    ("__properties_version1.0\x00", K.MSG),
    ("WordDocument\x00", K.DOC),
    ("PowerPoint Document\x00", K.PPT),
    ("Workbook\x00", K.XLS),
    ("Book\x00", K.XLS),  # Excel 5/95
    ("EncryptedPackage\x00", None),
)


def _ole2_kind(head: bytes, ext_kind: ContentKind | None) -> Sniffed:
    """The stream that appears first in the directory (the document's own, created before any embedded
    object's) decides; without one in the head, an OLE2-family extension does; else UNKNOWN by bytes."""
    found: list[tuple[int, ContentKind | None]] = []
    for stream, kind in _OLE2_STREAMS:
        needle = stream.encode("utf-16-le")
        for match in re.finditer(re.escape(needle), head):
            if match.start() % _OLE2_ENTRY == 0:
                found.append((match.start(), kind))
                break
    if found:
        _, kind = min(found, key=lambda pair: pair[0])
        if kind is not None:
            return Sniffed(kind, KindSource.BYTES)
        if ext_kind in _OOXML:
            return Sniffed(ext_kind, KindSource.EXTENSION)
        return Sniffed(K.UNKNOWN, KindSource.BYTES)
    if ext_kind in _OLE2_FAMILY:
        return Sniffed(ext_kind, KindSource.EXTENSION)
    return Sniffed(K.UNKNOWN, KindSource.BYTES)


#: ISO base media (``ftyp`` box): the major brand says audio, still image or video.
_FTYP_AUDIO = frozenset({b"M4A ", b"M4B ", b"M4P ", b"F4A ", b"F4B "})
_FTYP_IMAGE = frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1", b"avif"})


def _ftyp_kind(head: bytes, ext_kind: ContentKind | None) -> Sniffed:
    """MP4/M4A/MOV/3GP by major brand. HEIF and AVIF stills have no kind of their own: UNKNOWN."""
    brand = head[8:12]
    if brand in _FTYP_AUDIO:
        return Sniffed(K.AUDIO, KindSource.BYTES)
    if brand in _FTYP_IMAGE:
        return Sniffed(K.UNKNOWN, KindSource.BYTES)
    return Sniffed(K.VIDEO, KindSource.BYTES)


# --------------------------------------------------------------------------------------------------------
# Magic numbers

_BMP_DIB_HEADER_SIZES = frozenset({12, 16, 40, 52, 56, 64, 108, 124})


def _plausible_bmp(head: bytes) -> bool:
    """``BM`` alone starts many texts ("BMW ..."): also ask for a known DIB header size and a pixel
    offset past the headers."""
    if len(head) < 18:
        return False
    pixels, dib = struct.unpack_from("<II", head, 10)
    return dib in _BMP_DIB_HEADER_SIZES and pixels >= 14 + dib


Resolver = Callable[[bytes, ContentKind | None], Sniffed]


@dataclass(frozen=True, slots=True)
class _Magic:
    """A signature at an offset, optional further fixed bytes, an optional plausibility check, and for
    containers a resolver that looks inside (``kind`` is then only the family's name for the table)."""

    signature: bytes
    kind: ContentKind
    offset: int = 0
    also: tuple[tuple[int, bytes], ...] = ()
    check: Callable[[bytes], bool] | None = None
    resolve: Resolver | None = None

    def sniff(self, head: bytes, ext_kind: ContentKind | None) -> Sniffed | None:
        if head[self.offset : self.offset + len(self.signature)] != self.signature:
            return None
        if any(head[at : at + len(value)] != value for at, value in self.also):
            return None
        if self.check is not None and not self.check(head):
            return None
        if self.resolve is not None:
            return self.resolve(head, ext_kind)
        return Sniffed(self.kind, KindSource.BYTES)


_MAGIC: tuple[_Magic, ...] = (
    _Magic(b"%PDF-", K.PDF),
    _Magic(b"\x89PNG\r\n\x1a\n", K.PNG),
    _Magic(b"\xff\xd8\xff", K.JPEG),
    _Magic(b"GIF87a", K.GIF),
    _Magic(b"GIF89a", K.GIF),
    _Magic(b"II*\x00", K.TIFF),
    _Magic(b"MM\x00*", K.TIFF),
    _Magic(b"II+\x00", K.TIFF),  # BigTIFF
    _Magic(b"MM\x00+", K.TIFF),
    _Magic(b"RIFF", K.WEBP, also=((8, b"WEBP"),)),
    _Magic(b"BM", K.BMP, check=_plausible_bmp),
    _Magic(b"{\\rtf", K.RTF),
    _Magic(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", K.DOC, resolve=_ole2_kind),
    _Magic(_ZIP_LOCAL, K.ZIP, resolve=_zip_kind),
    _Magic(b"PK\x05\x06", K.ZIP, resolve=_empty_zip),
    # Audio. MPEG audio without an ID3 tag starts with a frame sync (MPEG-1 layer III, MPEG-2 layer III).
    _Magic(b"ID3", K.AUDIO, check=lambda head: head[3:4] in (b"\x02", b"\x03", b"\x04")),
    _Magic(b"\xff\xfb", K.AUDIO),
    _Magic(b"\xff\xf3", K.AUDIO),
    _Magic(b"\xff\xf2", K.AUDIO),
    _Magic(b"fLaC", K.AUDIO),
    _Magic(b"OggS\x00", K.AUDIO),
    _Magic(b"RIFF", K.AUDIO, also=((8, b"WAVE"),)),
    _Magic(b"FORM", K.AUDIO, also=((8, b"AIFF"),)),
    _Magic(b"FORM", K.AUDIO, also=((8, b"AIFC"),)),
    # Video.
    _Magic(b"ftyp", K.VIDEO, offset=4, resolve=_ftyp_kind),
    _Magic(b"RIFF", K.VIDEO, also=((8, b"AVI "),)),
    _Magic(b"\x1a\x45\xdf\xa3", K.VIDEO),  # Matroska, WebM
    _Magic(b"FLV\x01", K.VIDEO),
    _Magic(b"\x00\x00\x01\xba", K.VIDEO),  # MPEG program stream
    _Magic(b"\x00\x00\x01\xb3", K.VIDEO),  # MPEG video sequence header
    _Magic(b"\x30\x26\xb2\x75\x8e\x66\xcf\x11", K.VIDEO),  # ASF (WMV)
)

#: ``%PDF-`` after junk: at a line start or after a binary byte, so that a script or a text that merely
#: mentions ``b"%PDF-1.4"`` is not taken for a PDF.
_PDF_ANYWHERE = re.compile(rb"(?:^|(?<=[\r\n\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\xff]))%PDF-\d")


# --------------------------------------------------------------------------------------------------------
# Text

#: Characters that do not occur in text: C0 controls other than whitespace, escape and backspace (ANSI
#: logs and overstruck man pages have those), DEL, C1 controls, and the replacement character.
_NOT_TEXT = re.compile("[\x00-\x07\x0e-\x1a\x1c-\x1f\x7f-\x9f\ufffd]")

#: Share of such characters above which a head is binary. Text has none (a stray one at most); random
#: bytes read as cp1252 have about 12%.
_TEXT_MAX_BAD_SHARE = 0.02


def _as_text(head: bytes) -> str | None:
    """The head as text, or ``None`` when it is binary.

    UTF-8 is tried strictly (a multi-byte character cut at the head's end is forgiven); otherwise cp1252
    stands in for every 8-bit encoding, since only the ASCII markers are looked for.
    """
    marked = bom_encoding(head)
    utf16 = utf16_by_nul_share(head) if marked is None else None
    if marked is not None:
        text = head[marked[1] :].decode(marked[0], errors="replace")
    elif utf16 is not None:
        text = head.decode(utf16, errors="replace")
    else:
        try:
            text = head.decode("utf-8")
        except UnicodeDecodeError as exc:
            cut = exc.reason == "unexpected end of data" and exc.start >= len(head) - 3
            text = head[: exc.start].decode("utf-8") if cut else head.decode("cp1252", errors="replace")
    if not text:
        return text
    bad = len(_NOT_TEXT.findall(text))
    return text if bad / len(text) <= _TEXT_MAX_BAD_SHARE else None


#: What may come before the root element: whitespace, comments, processing instructions.
_PROLOG = re.compile(r"\s+|<!--.*?(?:-->|\Z)|<\?.*?(?:\?>|\Z)", re.DOTALL)
_XML_DECLARATION = re.compile(r"\s*<\?xml[\s?]", re.IGNORECASE)
#: A document type declaration, its name, and an internal subset if any. Possessive quantifiers: the head
#: is untrusted, and overlapping greedy runs would backtrack quadratically on an unterminated one.
_DOCTYPE = re.compile(
    r"<!doctype\s++([^\s>\[]++)[^>\[]*+(?:\[.*?\][^>]*+)?(?:>|\Z)", re.IGNORECASE | re.DOTALL
)
#: Roots that make a document HTML whatever its name (after the WHATWG sniffing rules).
_HTML_ROOT = re.compile(r"<(?:html|head|body)[\s>/]", re.IGNORECASE)
#: Elements the WHATWG MIME sniffing standard also takes for HTML; weak, since Markdown and XML may
#: start with them too.
_HTML_ELEMENT = re.compile(
    r"<(?:script|iframe|h1|div|font|table|a|style|title|b|br|p|meta|link)[\s>/]", re.IGNORECASE
)
#: A complete start tag of any element (not ``<https://...>``, an autolink): weak evidence of XML.
_XML_ELEMENT = re.compile(r"<[A-Za-z_][\w.:-]*(?:\s[^<>]*)?>")


def _skip_prolog(text: str, pos: int) -> int:
    while (match := _PROLOG.match(text, pos)) and match.end() > pos:
        pos = match.end()
    return pos


def _markup_kind(text: str) -> tuple[ContentKind, bool] | None:
    """HTML or XML from the document's start, and whether the evidence is strong."""
    declared_xml = _XML_DECLARATION.match(text) is not None
    pos = _skip_prolog(text, 0)
    doctype = _DOCTYPE.match(text, pos)
    if doctype is not None:
        if doctype.group(1).lower().startswith("html"):
            return K.HTML, True
        pos = _skip_prolog(text, doctype.end())
    if _HTML_ROOT.match(text, pos):
        return K.HTML, True
    if declared_xml or doctype is not None:
        return K.XML, True
    if _HTML_ELEMENT.match(text, pos):
        return K.HTML, False
    if _XML_ELEMENT.match(text, pos):
        return K.XML, False
    return None


#: RFC 5322 header fields: a name of printable ASCII without colon, a colon, the value.
_HEADER_FIELD = re.compile(r"([!-9;-~]+):")
_MBOX_FROM = re.compile(r"From \S")
#: Fields of which a message shows at least two among its first lines.
_MAIL_FIELDS = frozenset(
    {"from", "to", "subject", "date", "received", "return-path", "message-id", "mime-version"}
)
_MAIL_MIN_FIELDS = 2


def _is_mail(text: str) -> bool:
    """RFC 822 headers from the first line (after an optional mbox ``From `` line) up to the first line
    that is not a header, with at least two of the usual fields among them."""
    lines = text.lstrip("\r\n").split("\n")
    if lines and _MBOX_FROM.match(lines[0]):
        lines = lines[1:]
    seen: set[str] = set()
    for raw in lines:
        line = raw.rstrip("\r")
        if not line:
            break
        if line[0] in " \t":
            if not seen:
                return False  # a continuation with no field to continue: not a header block
            continue  # a folded continuation of the previous field
        match = _HEADER_FIELD.match(line)
        if match is None:
            break
        seen.add(match.group(1).lower())
    return len(seen & _MAIL_FIELDS) >= _MAIL_MIN_FIELDS


#: JSON tokens (RFC 8259). The head is JSON-like when it is a run of these, up to a token cut by the
#: head's end: a head cut at 8 KiB rarely parses, and JSON Lines never does as one document.
_JSON_TOKENS = re.compile(
    r"""(?:\s*(?:[{}\[\],:]|"(?:[^"\\\x00-\x1f]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null))*\s*""",
    re.DOTALL,
)
_JSON_CUT_TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*\\?|-?[\d.eE+-]*|t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?'
)
#: What may follow an opening bracket in JSON.
_JSON_AFTER_OBJECT = re.compile(r'\{\s*(?:"|\}|\Z)')
_JSON_AFTER_ARRAY = re.compile(r'\[\s*(?:[-"{\[\]\d]|true|false|null|\Z)')


def _is_json(text: str) -> bool:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return False
    try:
        json.loads(stripped)
        return True
    except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested deeper than the stack
        pass
    opening = _JSON_AFTER_OBJECT if stripped[0] == "{" else _JSON_AFTER_ARRAY
    if opening.match(stripped) is None:
        return False
    tokens = _JSON_TOKENS.match(stripped)
    end = tokens.end() if tokens is not None else 0
    return end == len(stripped) or _JSON_CUT_TOKEN.fullmatch(stripped, end) is not None


def _text_kind(text: str) -> tuple[ContentKind, bool] | None:
    """The kind the text's own content shows and whether the evidence is strong, else ``None``."""
    markup = _markup_kind(text)
    if markup is not None:
        return markup
    if _is_mail(text):
        return K.EML, True
    if _is_json(text):
        return K.JSON, True
    return None


# --------------------------------------------------------------------------------------------------------


def sniff(head: bytes, name: str) -> Sniffed:
    """The content kind of a document whose first bytes are ``head`` and whose file name is ``name``.

    Never raises. Only the first :data:`HEAD_BYTES` bytes are looked at, so the answer does not depend
    on how much the caller read.
    """
    head = head[:HEAD_BYTES]
    ext_kind = _extension_kind(name)
    if not head:
        return Sniffed(ext_kind, KindSource.EXTENSION) if ext_kind else Sniffed(K.EMPTY, KindSource.BYTES)
    for magic in _MAGIC:
        sniffed = magic.sniff(head, ext_kind)
        if sniffed is not None:
            return sniffed
    if _PDF_ANYWHERE.search(head, 0, PDF_SEARCH_BYTES):
        return Sniffed(K.PDF, KindSource.BYTES)
    text = _as_text(head)
    if text is not None:
        found = _text_kind(text)
        bytes_kind, strong = found if found is not None else (K.TEXT, False)
        if strong or ext_kind is None or ext_kind is bytes_kind:
            return Sniffed(bytes_kind, KindSource.BYTES)
        if found is not None and ext_kind not in _TEXT_FAMILY:
            return Sniffed(bytes_kind, KindSource.BYTES)  # e.g. an HTML error page saved as .pdf
        return Sniffed(ext_kind, KindSource.EXTENSION)
    if ext_kind is not None:
        return Sniffed(ext_kind, KindSource.EXTENSION)
    return Sniffed(K.UNKNOWN, KindSource.NONE)
