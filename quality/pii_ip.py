"""IP addresses in page text, told apart from the dotted numbers of a document's structure and versions."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator
from typing import ClassVar

from quality.pii_findings import Finding, PiiKind

# Dotted quads not inside a longer dotted number ("1.2.3.4.5") nor glued to a word ("v1.2.3.4").
_IPV4_RE = re.compile(r"[0-9](?<![\w.][0-9])[0-9]{0,2}\.(?:[0-9]{1,3}\.){2}[0-9]{1,3}(?!\w|\.[0-9])")
# At least two colons, hexadecimal groups, optionally an embedded dotted quad; bounded to the longest
# written form (45 characters).
_IPV6_RE = re.compile(
    r"(?<![\w:.])(?=[0-9A-Fa-f]*:[0-9A-Fa-f]*:)[0-9A-Fa-f:]{2,39}"
    r"(?:(?<=:)[0-9]{1,3}(?:\.[0-9]{1,3}){3})?(?![\w:]|\.[0-9])"
)
# Words after which a dotted number numbers a part of the document, an object or a release, never a host:
# section and paragraph marks, captions, list and step numbers, version words, in English, German, French,
# Spanish, Italian, Dutch and Russian, in the singular or plural, abbreviated or not, and optionally
# followed by "No." ("Table No. 1.1.1.1"). Collected from the captions and references of standards and
# manuals; "address", "host", "server" and "IP" are not among them, so "Server 8.8.8.8" stays an address.
# fmt: off
STRUCTURE_WORDS = (
    r"section", r"sect", r"sec", r"paragraph", r"para", r"chapter", r"ch", r"clause", r"article", r"art",
    r"subsection", r"subclause", r"figure", r"fig", r"table", r"tab", r"appendix", r"annex", r"item",
    r"step", r"note", r"part", r"point", r"requirement", r"req", r"equation", r"eq", r"listing",
    r"example", r"page", r"oid", r"heading",
    r"abschnitt", r"kapitel", r"absatz", r"abs", r"ziffer", r"ziff", r"abbildung", r"abb", r"tabelle",
    r"anhang", r"anlage", r"punkt", r"bild", r"chapitre", r"paragraphe", r"tableau", r"annexe",
    r"secci[oó]n", r"cap[ií]tulo", r"apartado", r"tabla", r"figura", r"anexo", r"capitolo", r"sezione",
    r"tabella", r"allegato", r"hoofdstuk", r"afdeling", r"tabel", r"bijlage", r"figuur",
    r"раздел", r"пункт", r"п", r"глава", r"рисунок", r"рис", r"таблица", r"табл", r"приложение",
)
VERSION_WORDS = (
    r"v", r"version", r"ver", r"release", r"rel", r"build", r"rev", r"revision", r"update", r"patch",
    r"firmware", r"fw", r"versi[oó]n", r"versione", r"versie", r"fassung", r"версия",
)
# Software whose name is written right before its version ("Python 3.11.7.1", "Acrobat Distiller
# 9.0.0.1"): runtimes, operating systems, browsers and the PDF producers of the corpus's metadata. Names
# that are also common words (Word, Reader, Edge, Office, Go) are left out: "Word 10.0.0.1" is too rare
# to pay for "the edge 10.0.0.1" being kept.
SOFTWARE_NAMES = (
    r"python", r"java", r"jdk", r"jre", r"node(?:\.?js)?", r"npm", r"pip", r"perl", r"ruby", r"php",
    r"rust", r"gcc", r"clang", r"llvm", r"windows", r"linux", r"kernel", r"ubuntu", r"debian",
    r"fedora", r"centos", r"rhel", r"android", r"ios", r"ipados", r"macos", r"chrome", r"chromium",
    r"firefox", r"safari", r"acrobat", r"distiller", r"ghostscript", r"libreoffice", r"openoffice",
    r"pdftex", r"xetex", r"luatex", r"mupdf", r"pymupdf", r"tesseract", r"postgresql", r"postgres",
    r"mysql", r"mariadb", r"sqlite", r"openssl", r"openssh", r"nginx", r"tomcat", r"docker",
    r"kubernetes", r"dotnet", r"\.net", r"excel", r"outlook", r"powerpoint", r"unicode",
)
# fmt: on
# How far before a dotted number its structure or version word may end: the longest word, "No. " and a
# space or two ("приложение No. ").
STRUCTURE_LOOKBACK_CHARS = 24
_STRUCTURE_BEFORE_RE = re.compile(
    rf"(?:(?<![\w.])(?:{'|'.join(STRUCTURE_WORDS + VERSION_WORDS)})s?\.?|§§?)"
    r"[ \t\u00a0]*(?:(?:no|nr|n°|№)\.?[ \t\u00a0]*)?$",
    re.IGNORECASE,
)
_SOFTWARE_BEFORE_RE = re.compile(rf"(?<![\w.])(?:{'|'.join(SOFTWARE_NAMES)})[ \t\u00a0]+$", re.IGNORECASE)
# A pre-release or build suffix ("3.11.7.1-beta", "1.2.3.4+build5", "2.0.0.1~rc1"): a version.
_VERSION_SUFFIX_RE = re.compile(r"[-+~][A-Za-z]")
# What may open a line before the number of a heading, a list item or a contents line: indentation and
# markdown's heading, quote, list and table marks and emphasis ("#### 1.2.3.1 Scope", "| 1.2.3.1 | ...",
# "**1.2.3.1** Scope"). Longer openings are prose.
HEADING_OPENING_CHARS = 12
_HEADING_OPENING_RE = re.compile(r"[ \t]*(?:(?:#{1,6}|>|[-*+•]|\|)[ \t]*|\*\*|__)*")
# After the number: a closing dot, emphasis, a space, and a title, a word with a capital
# initial and a small letter after it ("Scope", "Überblick", "Область"). An all-capital word is left
# out: "192.168.1.20 GET /" opens a line of a web server's log. So is a title in the next table cell:
# "| 10.0.0.1 | Gateway |" is a row of a network's inventory as often as of a list of requirements.
_TITLE_AFTER_RE = re.compile(r"\.?(?:\*\*|__)?[ \t\u00a0]+(?:\*\*|__|\*|_)?([^\W\d_]{2,})")


def structural_number(text: str, start: int, end: int) -> bool:
    """Whether the dotted number at ``text[start:end]`` is a piece of the document's structure or a
    version, not an address: after a structure or version word or a software name, with a pre-release
    suffix, or opening a line before a title (a heading, a list item, a line of contents).

    An address needs the dots of a dotted quad, and so do "Paragraph 1.2.3.1", "Python 3.11.7.1" and
    "Figure 2.1.3.4"; their octets all parse. Only the words around tell them apart.
    """
    before = text[max(0, start - STRUCTURE_LOOKBACK_CHARS) : start]
    if _STRUCTURE_BEFORE_RE.search(before) or _SOFTWARE_BEFORE_RE.search(before):
        return True
    if _VERSION_SUFFIX_RE.match(text, end):
        return True
    # the line's start looked for within the opening's reach only: linear on a long line of quads
    floor = max(0, start - HEADING_OPENING_CHARS - 1)
    line_start = text.rfind("\n", floor, start) + 1
    if (line_start == 0 and floor > 0) or not _HEADING_OPENING_RE.fullmatch(text, line_start, start):
        return False
    title = _TITLE_AFTER_RE.match(text, end)
    return title is not None and _is_title(title.group(1))


def _is_title(word: str) -> bool:
    """A capital initial and a small letter after it: "Scope", not "GET" nor "scope"."""
    return word[0].isupper() and any(c.islower() for c in word[1:])


class IpDetector:
    """IPv4 and IPv6 addresses that ``ipaddress`` parses (octets to 255, no leading zeros).

    ``include_private`` (the ``redact_private_ips`` setting, on by default): every such address. Off:
    only globally routable ones, since private, loopback, link-local, shared (CGNAT), documentation and
    multicast addresses name a device on some network ("open 192.168.0.1"), content of the technical
    documents they appear in. On by default because the text cannot tell a leaked internal address
    (which maps a network and a host of a known organisation) from a tutorial's example; a corpus of
    manuals turns it off knowingly.
    """

    kind: ClassVar[PiiKind] = PiiKind.IP

    def __init__(self, include_private: bool = True) -> None:
        self.include_private = include_private

    def find(self, text: str) -> Iterator[Finding]:
        if "." in text:
            for m in _IPV4_RE.finditer(text):
                if not structural_number(text, m.start(), m.end()):
                    yield from self._validated(m, ipaddress.IPv4Address)
        if "::" in text or text.count(":") >= 2:
            for m in _IPV6_RE.finditer(text):
                yield from self._validated(m, ipaddress.IPv6Address)

    def _validated(
        self, m: re.Match[str], parse: Callable[[str], ipaddress.IPv4Address | ipaddress.IPv6Address]
    ) -> Iterator[Finding]:
        try:
            address = parse(m.group())
        except ValueError:
            return
        if self.include_private or address.is_global:
            yield Finding(self.kind, m.start(), m.end(), str(address))
