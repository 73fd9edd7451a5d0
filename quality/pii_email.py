"""E-mail addresses in page text: written plainly, or with the at sign or the dots spelled out."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import ClassVar

from quality.pii_findings import Finding, PiiKind

# RFC 5321 bounds: a local part of 64 characters, a domain of 253, a label of 63.
EMAIL_LOCAL_MAX = 64
EMAIL_DOMAIN_MAX = 253
DNS_LABEL_MAX = 63
# Endings of file names that are not delegated top-level domains (.zip and .mov are, and stay part of
# an address): a domain never ends in one. "jane@corp.com.pdf" is the address "jane@corp.com" before a
# file's extension; "icon@2x.png" is an image name in HTML and CSS, no address ("2x" is one label).
# fmt: off
FILE_NAME_ENDINGS = frozenset({
    "png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico", "tif", "tiff",
    "css", "js", "json", "htm", "html", "xhtml", "php", "txt", "csv", "tsv", "xml", "rtf",
    "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "eml", "msg", "epub",
    "min", "map",  # "jquery@3.6.0.min.js", "app@2.1.min.js.map": a package's file, no address
})
# fmt: on
_LOCAL_CHARS = r"\w.%+\-"
# Anchored at the start of a run of local-part characters, repetition bounded: linear in the text.
_EMAIL_RE = re.compile(
    rf"(?<![{_LOCAL_CHARS}])[{_LOCAL_CHARS}]{{1,{EMAIL_LOCAL_MAX}}}@"
    rf"(?:[^\W_][\w\-]{{0,{DNS_LABEL_MAX - 1}}}\.){{1,10}}[^\W\d_]{{2,{DNS_LABEL_MAX}}}(?![^\W_]|-)"
)
_LABEL_RE = re.compile(r"[^\W_](?:[^\W_]|-)*")


class EmailDetector:
    """An address with a dot-atom local part and a domain of at least two labels ending in a letter TLD.

    ``user@localhost`` and ``a@b.c`` are not addresses anyone writes to from outside, and the letters-only
    TLD keeps version strings and file names out.
    """

    kind: ClassVar[PiiKind] = PiiKind.EMAIL

    def find(self, text: str) -> Iterator[Finding]:
        if "@" not in text:
            return
        for m in _EMAIL_RE.finditer(text):
            start = m.start()
            # A run of dots before the address is punctuation ("see...a@b.com"), not its local part.
            while text[start] == ".":
                start += 1
            local, _, domain = text[start : m.end()].partition("@")
            domain = _without_file_endings(domain)
            if _valid_local(local) and _valid_domain(domain):
                end = start + len(local) + 1 + len(domain)
                yield Finding(self.kind, start, end, f"{local}@{domain}".lower())


def _without_file_endings(domain: str) -> str:
    """``domain`` without the file-name endings it ends in ("corp.com.pdf", "d.org.txt.txt": an address
    before a file's extensions), or as it is when no domain of two labels or more would be left."""
    labels = domain.split(".")
    cut = len(labels)
    while cut > 2 and labels[cut - 1].lower() in FILE_NAME_ENDINGS:
        cut -= 1
    return ".".join(labels[:cut])


def _valid_local(local: str) -> bool:
    return bool(local) and not local.endswith(".") and ".." not in local


def _valid_domain(domain: str) -> bool:
    labels = domain.split(".")
    return (
        len(domain) <= EMAIL_DOMAIN_MAX
        and all(_LABEL_RE.fullmatch(label) and not label.endswith("-") for label in labels)
        and labels[-1].lower() not in FILE_NAME_ENDINGS
        and labels[-1].isalpha()
    )


# Addresses spelled out so that harvesters miss them: "jane [at] example [dot] org", "jane (at) example
# (dot) org", "jane at example dot org", and mixtures ("jane [at] example.org", "jane@example [dot] org").
_SPELLED_AT_RE = re.compile(r"\s*[\[({<]\s*(?:at|AT)\s*[\])}>]\s*|\s+(?:at|AT)\s+")
_SPELLED_DOT = r"(?:\s*[\[({<]\s*(?:dot|DOT)\s*[\])}>]\s*|\s+(?:dot|DOT)\s+|\.)"
_SPELLED_DOMAIN_RE = re.compile(
    rf"[^\W_][\w\-]{{0,{DNS_LABEL_MAX - 1}}}(?:{_SPELLED_DOT}[^\W_][\w\-]{{0,{DNS_LABEL_MAX - 1}}}){{1,10}}"
    r"(?![^\W_]|-)"
)
_SPELLED_DOT_RE = re.compile(_SPELLED_DOT)
# A local part spelled with dots too ("jane dot roe at ..."): the word and spelled dot before it.
_SPELLED_LOCAL_PREFIX_RE = re.compile(
    rf"[{_LOCAL_CHARS}]{{1,{EMAIL_LOCAL_MAX}}}(?:\s*[\[({{<]\s*(?:dot|DOT)\s*[\])}}>]\s*|\s+(?:dot|DOT)\s+)$"
)
_LOCAL_CHAR_RE = re.compile(rf"[{_LOCAL_CHARS}]")
_LOCAL_WORD_RE = re.compile(rf"[{_LOCAL_CHARS}]+")
_LOCAL_RUN_RE = re.compile(rf"[{_LOCAL_CHARS}]{{1,{EMAIL_LOCAL_MAX}}}$")
SPELLED_LOOKBACK_CHARS = EMAIL_LOCAL_MAX + 16
# The top-level domains a bare "at ... dot ..." must end in. Only there: "look at the dot in the middle"
# has the shape of an address in India; a bracketed [at] or (at) is deliberate and takes any TLD. The
# generic domains and the country codes of the corpus's languages' countries that are no English word
# ("in", "it", "be", "to", "no", "at", "is", "me", "us", "my", "so", "do", "am", "as", "by", "of" are).
# fmt: off
SPELLED_BARE_TLDS = frozenset({
    "com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "io", "eu",
    "uk", "de", "fr", "es", "nl", "ch", "se", "dk", "fi", "pl", "cz", "ru", "cn", "jp", "au", "ca",
    "br", "ar", "mx", "za", "nz", "ie", "pt", "gr", "hu", "ro", "sk", "si", "hr", "lt", "lv", "ee",
    "lu", "ua", "kr", "tw", "hk", "sg", "il", "tr", "ir", "sa", "ae", "eg",
})
# fmt: on


class SpelledEmailDetector:
    """An address whose ``@`` or dots are written as words: ``[at]``/``(at)``/`` at `` and
    ``[dot]``/``(dot)``/`` dot ``.

    At least one of them must be spelled (a plain address is :class:`EmailDetector`'s). The bare word
    ``at`` is an English preposition, so after it every dot of the domain must be spelled and the last
    label must be one of :data:`SPELLED_BARE_TLDS`: "available at example.com" names a web site, and
    "look at this dot" is prose.
    """

    kind: ClassVar[PiiKind] = PiiKind.EMAIL

    def find(self, text: str) -> Iterator[Finding]:
        lowered = text.lower()
        if "at" not in lowered and "dot" not in lowered:
            return
        for at in _SPELLED_AT_RE.finditer(text):
            bare = not any(c in at.group() for c in "[({<")
            yield from self._address(text, at.start(), at.end(), bare=bare, spelled_dot=bare)
        if "@" in text and "dot" in lowered:
            for at in re.finditer("@", text):
                yield from self._address(text, at.start(), at.end(), bare=False, spelled_dot=True)

    def _address(
        self, text: str, at_start: int, at_end: int, *, bare: bool, spelled_dot: bool
    ) -> Iterator[Finding]:
        """The address around an at sign or spelled at from ``at_start`` to ``at_end``, if any;
        ``spelled_dot``: the domain must spell at least one dot."""
        run = _LOCAL_RUN_RE.search(text, max(0, at_start - EMAIL_LOCAL_MAX), at_start)
        if run is None:
            return
        start = run.start()
        while start < at_start and text[start] == ".":
            start += 1
        words = [text[start:at_start]]
        if not _valid_local(words[0]):
            return
        while (
            prefix := _SPELLED_LOCAL_PREFIX_RE.search(text, max(0, start - SPELLED_LOOKBACK_CHARS), start)
        ) and not (prefix.start() > 0 and _LOCAL_CHAR_RE.match(text, prefix.start() - 1)):
            word = _LOCAL_WORD_RE.match(prefix.group()).group()  # type: ignore[union-attr]
            # A local part is at most EMAIL_LOCAL_MAX characters: the words before those are prose, and
            # a page of "a dot a dot ..." is looked back over a bounded stretch, not to its start.
            if sum(map(len, words)) + len(words) + len(word) > EMAIL_LOCAL_MAX:
                break
            words.insert(0, word)
            start = prefix.start()
        domain = _SPELLED_DOMAIN_RE.match(text, at_end)
        if domain is None:
            return
        dots = [d.group() for d in _SPELLED_DOT_RE.finditer(domain.group())]
        spelled = sum(1 for d in dots if d != ".")
        if (spelled_dot and not spelled) or (bare and spelled != len(dots)):
            return
        labels = _SPELLED_DOT_RE.split(domain.group())
        if bare and labels[-1].lower() not in SPELLED_BARE_TLDS:
            return
        name = ".".join(labels)
        if not labels[-1].isalpha() or len(labels[-1]) < 2 or not _valid_domain(name):
            return
        local = ".".join(words)
        if _valid_local(local):
            yield Finding(self.kind, start, domain.end(), f"{local}@{name}".lower())
