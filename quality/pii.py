"""Personal data in page text: found by validating detectors, replaced by typed placeholders (DESIGN §5).

A bare pattern is not evidence: sixteen digits are an order number as often as a card number, and
redacting them destroys content the reader needed. So every detector here works in two steps: a bounded
candidate pattern finds spans cheaply, then a validator confirms them: the Luhn digit and a known card
range, the IBAN's mod-97 and its country's format, a phone number's numbering plan (``phonenumbers``), an
identifier's check character (``python-stdnum``), an address parsed by ``ipaddress``. A number that fails
its check stays in the text.

Each datum found is replaced by a placeholder such as ``⟨EMAIL_1⟩``, numbered per kind in order of first
appearance and stable across the pages of one document (the same address on pages 1 and 9 is the same
placeholder), through a :class:`PlaceholderBook` that the caller keeps for the document. The book keys
values by a keyed digest, never by the value itself, so nothing that reaches a log, a repr or a pickle
can give a value back, and a digest computed for one document means nothing in another.

A redaction records its kind and the offsets of its placeholder in the *output* text: the stored text is
what anyone downstream reads, so that is what the offsets must point into; the original offsets would
point into a text nobody keeps, and the original value is never stored at all.

Detection runs to a fixed point: a redaction can change the neighbourhood of what is next to it (an
address glued to a phone number), so the scrubbed text is scanned again, with placeholders left alone,
until a scan finds nothing. Scrubbing is therefore idempotent on its own output.

Every candidate pattern starts only where a run of its characters starts (a lookbehind) and has bounded
repetition, so the regular expressions are linear in the text: no catastrophic backtracking on long runs
of digits, dots or ``@`` signs.
"""

from __future__ import annotations

import bisect
import hashlib
import ipaddress
import re
import secrets
import string
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar, Protocol, TypeVar

import phonenumbers
from phonenumbers import Leniency, PhoneNumberFormat, PhoneNumberMatcher
from stdnum import iban as stdnum_iban
from stdnum import numdb
from stdnum.be import nn as be_nn
from stdnum.de import idnr as de_idnr
from stdnum.es import dni as es_dni
from stdnum.es import nie as es_nie
from stdnum.eu import vat as eu_vat
from stdnum.fr import nir as fr_nir
from stdnum.it import codicefiscale as it_codicefiscale
from stdnum.nl import bsn as nl_bsn

from quality.pii_view import INVISIBLE, MatchView, match_view
from readers.core.errors import ConfigError


class PiiKind(StrEnum):
    EMAIL = "email"
    PHONE = "phone"
    CARD = "card"
    IBAN = "iban"
    IP = "ip"
    # Personal identifiers with a check character (IdScheme says which); one kind, so that a reader of the
    # stored text sees "a national identifier was here" without learning which country issued it.
    NATIONAL_ID = "national_id"
    # EU VAT numbers: off by default. Most identify companies, are printed on every invoice by law and are
    # content a reader needs; they are personal data only for sole traders.
    VAT = "vat"


class IdScheme(StrEnum):
    """The national identifiers detected under ``NATIONAL_ID``, named as python-stdnum names them.

    Chosen for a real check character and a low chance that an ordinary number passes it. Identifiers
    without a check (US SSN, UK NINO) cannot be told from any other number this way and are not detected;
    identifiers that are not personal (ISBN, company numbers) are not personal data.
    """

    # 16 characters in a fixed letter/digit layout with a check letter: nothing else looks like it.
    IT_CODICE_FISCALE = "it.codicefiscale"
    # 8 digits and a check letter (mod 23): the letter right after eight digits is distinctive.
    ES_DNI = "es.dni"
    # X, Y or Z, 7 digits, a check letter (mod 23).
    ES_NIE = "es.nie"
    # 15 digits with a mod-97 key; without a label only in its printed grouping "1 85 05 78 006 084 36".
    FR_NIR = "fr.nir"
    # 11 digits: a birth date and a mod-97 check; without a label only as "85.07.30-033.28".
    BE_NN = "be.nn"
    # 9 digits with the 11-test; without a label only as "1234.56.789" (1 random number in 11 passes).
    NL_BSN = "nl.bsn"
    # 11 digits, mod 11,10 and a digit-repetition rule (about 1 random number in 60 passes): only with
    # a label, in any grouping.
    DE_IDNR = "de.idnr"


DEFAULT_KINDS = frozenset(PiiKind) - {PiiKind.VAT}
# Bumped whenever a detector finds more or less in the same text: a search index built with other
# detectors is rebuilt (Scrubber.signature).
DETECTORS_VERSION = "4"
DEFAULT_ID_SCHEMES = frozenset(IdScheme)

# When two validated candidates overlap, the longer span wins, then the earlier kind here: a card number
# or an IBAN also parses as a phone number in many numbering plans, and their checks are the stronger
# evidence. IP addresses come last: a dotted quad inside anything longer is part of that thing.
KIND_PRIORITY: tuple[PiiKind, ...] = (
    PiiKind.CARD,
    PiiKind.IBAN,
    PiiKind.NATIONAL_ID,
    PiiKind.VAT,
    PiiKind.EMAIL,
    PiiKind.PHONE,
    PiiKind.IP,
)
_PRIORITY = {kind: rank for rank, kind in enumerate(KIND_PRIORITY)}

# What a placeholder looks like, in this text or in one scrubbed before: detectors never look inside one.
PLACEHOLDER_RE = re.compile(r"⟨[A-Z][A-Z_]*_[1-9][0-9]*⟩")

# A label ("BSN:", "Steuer-ID", "numéro de sécurité sociale") must end within this many characters before
# an identifier that needs one: a label, a colon and a few words ("BSN van de werknemer: ").
CONTEXT_CHARS = 40


@dataclass(frozen=True, slots=True)
class Redaction:
    """One datum removed: where its placeholder stands in the scrubbed text, never what it replaced."""

    kind: PiiKind
    start: int
    end: int
    placeholder: str
    # Which identifier, for NATIONAL_ID only.
    scheme: IdScheme | None = None


@dataclass(frozen=True, slots=True)
class Scrubbed:
    text: str
    redactions: list[Redaction]


@dataclass(frozen=True, slots=True)
class Finding:
    """A validated candidate in the text being scanned; ``value`` is normalised and never printed."""

    kind: PiiKind
    start: int
    end: int
    value: str = field(repr=False)
    scheme: IdScheme | None = None


class Detector(Protocol):
    """One kind of personal datum: candidates found by a bounded pattern, kept only when validated."""

    kind: ClassVar[PiiKind]

    def find(self, text: str) -> Iterable[Finding]: ...


class PlaceholderBook:
    """The placeholders of one document, stable across its pages; it never holds an original value.

    Values are keyed by a BLAKE2 digest under a random key made for this book: an unkeyed hash of a phone
    number or a card number can be reversed by enumerating the numbering plan, and a digest that is
    equal across documents would link people across them. The repr shows counts per kind only.
    """

    __slots__ = ("_counts", "_key", "_placeholders")

    def __init__(self) -> None:
        self._key = secrets.token_bytes(16)
        self._placeholders: dict[bytes, str] = {}
        self._counts: dict[PiiKind, int] = {}

    def placeholder(self, kind: PiiKind, value: str) -> str:
        """The placeholder of a normalised value: the one it already has, else the kind's next number."""
        digest = hashlib.blake2b(f"{kind.value}\x00{value}".encode(), key=self._key, digest_size=16).digest()
        found = self._placeholders.get(digest)
        if found is None:
            number = self._counts.get(kind, 0) + 1
            self._counts[kind] = number
            found = f"⟨{kind.name}_{number}⟩"
            self._placeholders[digest] = found
        return found

    def counts(self) -> Mapping[PiiKind, int]:
        """Distinct values seen per kind."""
        return dict(self._counts)

    def __len__(self) -> int:
        return len(self._placeholders)

    def __repr__(self) -> str:
        counts = ", ".join(f"{kind.name}={n}" for kind, n in sorted(self._counts.items()))
        return f"PlaceholderBook({counts})"

    def __reduce__(self) -> tuple[object, ...]:
        # A book lives and dies with the scrubbing of one document; pickling it would carry its key along.
        raise TypeError("a PlaceholderBook is not picklable")


# -- e-mail --

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


# -- phone --

# Characters no phonenumbers candidate contains (its patterns use neither ``\s`` nor ``.`` outside a
# class): line and page breaks, the at sign, and the brackets of placeholders.
PHONE_HARD_SEPARATORS = "\n\r\f\v\x1c\x1d\x1e\x85\u2028\u2029@⟨⟩"
_PHONE_HARD_RE = re.compile(f"[{re.escape(PHONE_HARD_SEPARATORS)}]")
# Text the matcher reads after a candidate: its next character, and a time stamp's ":30".
PHONE_AFTER_CHARS = 4


class PhoneDetector:
    """A number the numbering plan of its region accepts as assigned (``phonenumbers``, Leniency.VALID).

    Without a region, only numbers written in international form (``+44 20 7946 0958``) are accepted: a
    national number means nothing until one knows the country, and guessing one turns every run of eight
    digits into a candidate. With a region (``"GB"``), national forms of that region are accepted too.
    """

    kind: ClassVar[PiiKind] = PiiKind.PHONE

    def __init__(self, region: str | None = None) -> None:
        self.region = region

    def find(self, text: str) -> list[Finding]:
        matched = self._matched(text, 0, len(text))
        return matched + self._unmatched_runs(text, 0, len(text), matched)

    def find_near(self, text: str, spans: Iterable[Finding]) -> list[Finding]:
        """What ``find`` would find that can have changed since ``spans`` became placeholders.

        No matcher candidate crosses a hard separator, and the matcher looks at most one character before
        a candidate and three after it, so the stretch between hard separators on each side of a span,
        read with that much context, gives exactly what the whole text gives there. A plus-led run
        (which may cross a line break) lies within the characters runs are made of, so the extent of
        those on each side of a span holds every run that touches it.
        """
        hard = [m.start() for m in _PHONE_HARD_RE.finditer(text)]
        stretches: set[tuple[int, int]] = set()
        extents: set[tuple[int, int]] = set()
        for f in spans:
            for at in (f.start - 1, f.end):
                if 0 <= at < len(text) and text[at] not in PHONE_HARD_SEPARATORS:
                    i = bisect.bisect_left(hard, at)
                    stretches.add((hard[i - 1] + 1 if i else 0, hard[i] if i < len(hard) else len(text)))
            first = f.start
            while first > 0 and text[first - 1] in _RUN_CHARS:
                first -= 1
            after = _RUN_CHARS_RE.match(text, f.end)
            extents.add((first, f.start))
            if after is not None:
                extents.add(after.span())
        matched = [f for start, end in sorted(stretches) for f in self._matched(text, start, end)]
        runs = [f for start, end in sorted(extents) for f in self._unmatched_runs(text, start, end, matched)]
        return matched + runs

    def _matched(self, text: str, start: int, end: int) -> list[Finding]:
        """The matcher's numbers starting in ``text[start:end]``, a stretch between hard separators (or
        the whole text), read with the context the matcher looks at."""
        left = max(0, start - 1)
        window = text[left : end + PHONE_AFTER_CHARS]
        # Without a region only a plus sign (ASCII or full-width) can start a number.
        if self.region is None and "+" not in window and "＋" not in window:
            return []
        found: list[Finding] = []
        # The matcher stops after max_tries failed candidates (65535 by default): a long page of numbers
        # would hide every phone number after that, so the bound is lifted.
        matcher = PhoneNumberMatcher(window, self.region, leniency=Leniency.VALID, max_tries=sys.maxsize)
        for m in matcher:
            if left + m.start >= end:
                break
            trim = _bracket_trim(m.raw_string)
            if trim is not None:
                value = phonenumbers.format_number(m.number, PhoneNumberFormat.E164)
                found.append(Finding(self.kind, left + m.start + trim, left + m.end, value))
        return found

    def _unmatched_runs(self, text: str, start: int, end: int, matched: list[Finding]) -> list[Finding]:
        """Valid numbers that plus-led runs starting in ``text[start:end]`` begin with, where the matcher
        found none (see _valid_international_prefix)."""
        if "+" not in text[start:end] and "＋" not in text[start:end]:
            return []
        covered = _Spans((f.start, f.end) for f in matched)
        found: list[Finding] = []
        for run in _PLUS_RUN_RE.finditer(text, start, end):
            if covered.claim(run.start(), run.start() + 1):
                prefix = _valid_international_prefix(text, run)
                if prefix is not None:
                    trim, stop, value = prefix
                    found.append(Finding(self.kind, run.start() + trim, stop, value))
        return found


_OPENING = "([（［"
_CLOSING = ")]）］"


def _bracket_trim(raw: str) -> int | None:
    """How many leading characters of a number as written are prose, not number; None if it is no number.

    "+55 11 96123-456) 1" parses, but a number does not close a bracket it never opened. An opening
    bracket it never closes is the prose's ("(+31 6 12345678, ...)"): it stays in the text.
    """
    depth = 0
    for c in raw:
        if c in _OPENING:
            depth += 1
        elif c in _CLOSING:
            depth -= 1
            if depth < 0:
                return None
    return 1 if depth > 0 and raw[0] in _OPENING else 0


# A plus sign and the digit groups after it, joined by up to four punctuation characters as phonenumbers
# joins them, or by a line break (a number wrapped at the end of a line, which the matcher never joins);
# an opening bracket before the plus belongs to the number ("(+44) 20 ...").
_RUN_PUNCTUATION = r" \u00a0\-./()\[\]"
_PLUS_RUN_RE = re.compile(
    rf"[(\[]?[+＋][0-9]+(?:(?:[{_RUN_PUNCTUATION}]{{1,4}}|[ \u00a0]?\n[ \u00a0]?)[0-9]+)*"
)
# The characters runs are made of, as far as they reach on either side of a placeholder.
_RUN_CHARS = frozenset("0123456789+＋\n \u00a0-./()[]")
_RUN_CHARS_RE = re.compile(rf"[0-9+＋\n{_RUN_PUNCTUATION}]+")
_DIGIT_RUN_RE = re.compile(r"[0-9]+")
# E.164 allows 15 digits; national trunk prefixes written in brackets ("+44 (0) 20") add one or two.
PHONE_MAX_DIGITS = 17


def _valid_international_prefix(text: str, run: re.Match[str]) -> tuple[int, int, str] | None:
    """The leading characters to leave, the end and the E.164 form of the longest valid number a ``+``
    run starts with, when the matcher found none there.

    The matcher reads a candidate whole: "+44 20 7946 0958 2 times" is one candidate that is not a
    number, and the number in it is lost; and it never joins a number across a line break. A plus sign is
    strong evidence of a phone number, so the run is cut where a digit group is followed by a space, a
    line break or a closing bracket, longest first, and the first valid reading is taken, as a card
    followed by its security code is. A run on one line is the matcher's to judge whole (it also rejects
    dates and page references), and a run of dotted groups ("+20.5.159") is not cut.
    """
    written = run.group()
    cuts: list[int] = []
    digits = 0
    for g in _DIGIT_RUN_RE.finditer(written):
        digits += g.end() - g.start()
        if digits > PHONE_MAX_DIGITS:
            break
        if g.end() < len(written) and (written[g.end()].isspace() or written[g.end()] in _CLOSING):
            cuts.append(g.end())
        elif g.end() == len(written) and "\n" in written:
            cuts.append(g.end())  # the matcher never saw the run whole: it stops at the line break
    for cut in reversed(cuts):
        end = run.start() + cut
        if end == run.end() and end < len(text) and text[end].isalpha():
            continue
        raw = text[run.start() : end]
        trim = _bracket_trim(raw)
        if trim is None:
            continue
        try:
            number = phonenumbers.parse(raw.replace("\n", " "), None)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number):
            return trim, end, phonenumbers.format_number(number, PhoneNumberFormat.E164)
    return None


# -- payment cards --

CARD_MIN_DIGITS = 13
CARD_MAX_DIGITS = 19


@dataclass(frozen=True, slots=True)
class CardRange:
    """Issuer identification numbers from ``low`` to ``high`` (compared on as many leading digits)."""

    network: str
    low: int
    high: int
    lengths: frozenset[int]


def _lengths(low: int, high: int) -> frozenset[int]:
    return frozenset(range(low, high + 1))


# The networks' published IIN ranges and lengths (ISO/IEC 7812). A Luhn-valid number outside them is an
# account or order number of some other scheme: about one 16-digit number in ten passes Luhn by chance, so
# the range is what makes a card number evidence.
CARD_RANGES: tuple[CardRange, ...] = (
    CardRange("visa", 4, 4, frozenset({13, 16, 19})),
    CardRange("mastercard", 51, 55, frozenset({16})),
    CardRange("mastercard", 2221, 2720, frozenset({16})),
    CardRange("amex", 34, 34, frozenset({15})),
    CardRange("amex", 37, 37, frozenset({15})),
    CardRange("discover", 6011, 6011, _lengths(16, 19)),
    CardRange("discover", 644, 649, _lengths(16, 19)),
    CardRange("discover", 65, 65, _lengths(16, 19)),
    CardRange("diners", 300, 305, _lengths(14, 19)),
    CardRange("diners", 36, 36, _lengths(14, 19)),
    CardRange("diners", 38, 39, _lengths(14, 19)),
    CardRange("jcb", 3528, 3589, _lengths(16, 19)),
    CardRange("unionpay", 62, 62, _lengths(16, 19)),
    CardRange("maestro", 50, 50, _lengths(13, 19)),
    CardRange("maestro", 56, 58, _lengths(13, 19)),
    CardRange("maestro", 63, 63, _lengths(13, 19)),
    CardRange("maestro", 67, 67, _lengths(13, 19)),
    CardRange("mir", 2200, 2204, _lengths(16, 19)),
)

# Runs of digit groups of at least three digits joined by one space, dash or dot ("4111 1111 1111 1111",
# "3782-822463-10005", "4111.1111.1111.1111"), or by a line break (with the spaces around it) between
# groups of any length: a number wrapped at the end of a line, between its groups or inside one (a
# window crosses one break at most: a column of numbers one per line is no card). Not inside a longer
# digit run. Each group must be followed by a separator to continue, so a run is matched
# in one way only: linear.
_CARD_RUN_RE = re.compile(
    r"[0-9](?<![0-9]{2})(?:[0-9]{2,18}|[0-9]?(?=[ \t]*\n[ \t]*[0-9]))"
    r"(?:[ \-.][0-9]{3,19}|[ \-.][0-9]{1,2}(?=[ \t]*\n)|-?[ \t]*\n[ \t]*[\-.]?[0-9]{1,19})*(?![0-9])"
)
_GROUP_RE = re.compile(r"[0-9]+")


# The longest code a card run can continue that is looked at: an IBAN's first group, a reference number.
CODE_LOOKBACK_CHARS = 34


def _continues_code(text: str, start: int) -> bool:
    """Whether the run at ``start`` continues a code of letters and digits ("DE89 3704 0044 0532 ...").

    The groups of an IBAN or a reference are not a card whatever their digits pass: a run joined by one
    space or dash to a token mixing letters and digits is part of that token's code. A word ("Visa 4111
    ...") or a bare number before the run does not count.
    """
    if start < 2 or text[start - 1] not in " -":
        return False
    token_start = start - 1
    floor = max(0, start - 1 - CODE_LOOKBACK_CHARS)
    while token_start > floor and text[token_start - 1].isascii() and text[token_start - 1].isalnum():
        token_start -= 1
    token = text[token_start : start - 1]
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


# Groupings cards are printed in besides fours: American Express 4-6-5, Diners Club 4-6-4.
CARD_LAYOUTS_6 = ((4, 6, 5), (4, 6, 4))


def _card_layout(sizes: list[int]) -> bool:
    """Whether digit groups are laid out as a card number is printed: in one piece, in fours with a last
    group of three to five, or 4-6-5 / 4-6-4. A run of numbers in a table ("1417 271 2903 391") is not."""
    if len(sizes) == 1:
        return True
    if tuple(sizes) in CARD_LAYOUTS_6:
        return True
    return len(sizes) >= 3 and all(size == 4 for size in sizes[:-1]) and 3 <= sizes[-1] <= 5


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = ord(c) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def known_card_range(digits: str) -> bool:
    for r in CARD_RANGES:
        width = len(str(r.low))
        if len(digits) in r.lengths and r.low <= int(digits[:width]) <= r.high:
            return True
    return False


class CardDetector:
    """13 to 19 digits in a known card range, passing Luhn, in one piece or grouped as cards are printed.

    A run of groups is read whole first. When it is not a card, the longest group-aligned window that
    is (leftmost on ties) is taken: a card followed by its security code or expiry ("4111 1111 1111 1111
    123") is still a card. A 19-digit number whose first 16 digits happen to pass is therefore redacted
    as a card: the text cannot tell the two readings apart, and redacting is the safe one.
    """

    kind: ClassVar[PiiKind] = PiiKind.CARD

    def find(self, text: str) -> Iterator[Finding]:
        for m in _CARD_RUN_RE.finditer(text):
            run = m.group()
            groups = [(g.start(), g.end()) for g in _GROUP_RE.finditer(run)]
            wrapped = [i > 0 and "\n" in run[groups[i - 1][1] : g[0]] for i, g in enumerate(groups)]
            # a run continuing a code is no card on its first line; a card may start on the next
            first = (
                [i for i in range(len(groups)) if wrapped[i]] if _continues_code(text, m.start()) else None
            )
            best = self._best_window(run, groups, wrapped, first)
            if best is not None:
                start, end, digits = best
                yield Finding(self.kind, m.start() + start, m.start() + end, digits)

    @staticmethod
    def _best_window(
        run: str, groups: list[tuple[int, int]], wrapped: list[bool], first: list[int] | None = None
    ) -> tuple[int, int, str] | None:
        """``wrapped[k]``: a line break stands before group ``k``; the groups on either side of it are
        read both as two groups and as one group cut by the break. ``first``: the groups a window may
        start at (default: any)."""
        best: tuple[int, int, str] | None = None
        for i in range(len(groups)) if first is None else first:
            digits = ""
            for j in range(i, len(groups)):
                digits += run[groups[j][0] : groups[j][1]]
                if len(digits) > CARD_MAX_DIGITS or sum(wrapped[i + 1 : j + 1]) > 1:
                    break
                if (
                    len(digits) >= CARD_MIN_DIGITS
                    and (best is None or len(digits) > len(best[2]))
                    and _wrapped_layout(
                        [end - start for start, end in groups[i : j + 1]], wrapped[i + 1 : j + 1]
                    )
                    and known_card_range(digits)
                    and luhn_valid(digits)
                ):
                    best = (groups[i][0], groups[j][1], digits)
        return best


def _wrapped_layout(sizes: list[int], wrapped: list[bool]) -> bool:
    """Whether groups are laid out as a card is printed, a line break read as a separator or as a cut
    inside a group (``wrapped[k]``: a break before group ``k + 1``)."""
    if _card_layout(sizes):
        return True
    if not any(wrapped):
        return False
    merged = [sizes[0]]
    for size, cut in zip(sizes[1:], wrapped, strict=True):
        if cut:
            merged[-1] += size
        else:
            merged.append(size)
    return _card_layout(merged)


# -- IBAN --

IBAN_MIN_CHARS = 15  # Norway
IBAN_MAX_CHARS = 34
# A country code, two check digits, then characters optionally in groups of four (the printed form). The
# match ends at the end of a token; shorter readings that end at a space inside it are tried too, since a
# BIC or a word written in capitals may follow the IBAN ("DE89 3704 0044 0532 0130 00 BIC COBADEFF").
# Letters in either case ("de89 3704 ..." is the same IBAN), groups joined by a space or a dash, or cut by
# a line break (with the spaces around it).
_IBAN_SEPARATOR = r"(?:[ \-]|[ \t]*\n[ \t]*)"
_IBAN_RE = re.compile(
    rf"[A-Za-z](?<![A-Za-z0-9].)[A-Za-z][0-9]{{2}}"
    rf"(?:{_IBAN_SEPARATOR}?[A-Za-z0-9]){{{IBAN_MIN_CHARS - 4},{IBAN_MAX_CHARS - 4}}}(?![A-Za-z0-9])"
)
_IBAN_SEPARATOR_CHARS = frozenset(" -\t\n")


def _mod97(compact: str) -> bool:
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


class IbanDetector:
    """An IBAN whose mod-97 check holds and whose national part has its country's length and format
    (python-stdnum's IBAN registry).

    Letters in either case, groups joined by spaces, dashes or a line break. The cheap mod-97 test runs
    first so that stdnum's table lookup only sees the one candidate in 97 that passes it. stdnum's
    country checks are not asked for: the Belgian one looks the bank up in a registry snapshot (it
    rejects BE68 5390 0754 7034, the example IBAN of the Belgian banks' own documentation), and a real
    IBAN of a bank the snapshot lacks
    would stay in the text.
    """

    kind: ClassVar[PiiKind] = PiiKind.IBAN

    def find(self, text: str) -> Iterator[Finding]:
        # A candidate can run on into the words after it ("IE06 CGBW ... 55 and then GB13 OFCN ..."): the
        # next search starts after the reading taken, or one character on when none was, so an IBAN
        # inside a candidate that is none is still found.
        position = 0
        while (m := _IBAN_RE.search(text, position)) is not None:
            candidate = m.group()
            position = m.start() + 1
            length = IBAN_LENGTHS.get(candidate[:2].upper())
            if length is None:
                continue
            # the one reading of the country's length, ending at the candidate's end or a separator
            kept = 0
            end = None
            for k, c in enumerate(candidate):
                if c not in _IBAN_SEPARATOR_CHARS:
                    kept += 1
                    if kept == length:
                        end = k + 1
                        break
            if end is None or (end < len(candidate) and candidate[end] not in _IBAN_SEPARATOR_CHARS):
                continue
            compact = "".join(c for c in candidate[:end] if c not in _IBAN_SEPARATOR_CHARS).upper()
            if _mod97(compact) and stdnum_iban.is_valid(compact, check_country=False):
                yield Finding(self.kind, m.start(), m.start() + end, compact)
                position = m.start() + end


def _iban_lengths() -> dict[str, int]:
    """The length of the IBANs of each country python-stdnum's registry knows (``DE``: 22)."""
    lengths: dict[str, int] = {}
    db = numdb.get("iban")
    for a in string.ascii_uppercase:
        for b in string.ascii_uppercase:
            info = db.info(a + b)
            structure = info[0][1].get("bban") if info else None
            if structure:
                lengths[a + b] = 4 + sum(int(n) for n in re.findall(r"(\d+)!?[nac]", structure))
    return lengths


IBAN_LENGTHS = _iban_lengths()


# -- IP addresses --

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


# -- national identifiers and VAT numbers --


@dataclass(frozen=True, slots=True)
class IdRule:
    """One written form of an identifier: its pattern, its validator, and the label it needs, if any."""

    scheme: IdScheme
    pattern: re.Pattern[str]
    is_valid: Callable[[str], bool]
    label: re.Pattern[str] | None = None


def _bounded(first: str, rest: str) -> re.Pattern[str]:
    """An identifier not glued to a word or to a longer dotted or dashed number.

    The lookbehind follows the identifier's first character class instead of preceding it: a pattern
    that starts with a class lets the regular expression engine skip to where that class matches, one
    that starts with a lookbehind is tried at every position (two to three times slower on prose).
    """
    return re.compile(rf"{first}(?<![\w.\-].){rest}(?![\w]|[.\-][\w])")


def _label(*words: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(words) + r")\b", re.IGNORECASE)


_CF_DIGIT = "[0-9LMNPQRSTUV]"  # a digit, or its omocodia letter
_NIR_LABEL = _label(r"nir", r"insee", r"s[ée]curit[ée] sociale", r"s[ée]cu", r"social security")
_BE_NN_LABEL = _label(
    r"rijksregister(?:nummer)?", r"insz", r"niss", r"num[ée]ro national", r"national (?:register )?number"
)
_BSN_LABEL = _label(r"bsn", r"burgerservicenummer", r"sofi-?nummer", r"citizen service number")
_IDNR_LABEL = _label(
    r"steuer-?id", r"steuer-?identifikationsnummer", r"identifikationsnummer", r"idnr", r"tax id", r"tin"
)

ID_RULES: tuple[IdRule, ...] = (
    # Upper case, as printed: matching lower case too would try the pattern at every letter of prose.
    IdRule(
        IdScheme.IT_CODICE_FISCALE,
        _bounded(
            "[A-Z]", f"[A-Z]{{5}}{_CF_DIGIT}{{2}}[ABCDEHLMPRST]{_CF_DIGIT}{{2}}[A-Z]{_CF_DIGIT}{{3}}[A-Z]"
        ),
        it_codicefiscale.is_valid,
    ),
    # A lower-case check letter only when glued: "12345678 a" is a number and an article.
    IdRule(IdScheme.ES_DNI, _bounded("[0-9]", r"[0-9]{7}(?:[ \-]?[A-Z]|[a-z])"), es_dni.is_valid),
    IdRule(IdScheme.ES_NIE, _bounded("[XYZ]", r"[ \-]?[0-9]{7}[ \-]?[A-Z]"), es_nie.is_valid),
    IdRule(
        IdScheme.FR_NIR,
        _bounded("[1278]", r" [0-9]{2} [0-9]{2} (?:[0-9]{2}|2[AB]) [0-9]{3} [0-9]{3} [0-9]{2}"),
        fr_nir.is_valid,
    ),
    IdRule(
        IdScheme.FR_NIR,
        _bounded("[1278]", r"[0-9]{4}(?:[0-9]{2}|2[AB])[0-9]{8}"),
        fr_nir.is_valid,
        _NIR_LABEL,
    ),
    IdRule(
        IdScheme.BE_NN, _bounded("[0-9]", r"[0-9]\.[0-9]{2}\.[0-9]{2}-[0-9]{3}\.[0-9]{2}"), be_nn.is_valid
    ),
    IdRule(IdScheme.BE_NN, _bounded("[0-9]", r"[0-9]{10}"), be_nn.is_valid, _BE_NN_LABEL),
    IdRule(IdScheme.NL_BSN, _bounded("[0-9]", r"[0-9]{3}\.[0-9]{2}\.[0-9]{3}"), nl_bsn.is_valid),
    IdRule(IdScheme.NL_BSN, _bounded("[0-9]", r"[0-9]{8}"), nl_bsn.is_valid, _BSN_LABEL),
    IdRule(
        IdScheme.DE_IDNR,
        _bounded("[0-9]", r"[0-9] ?[0-9]{3} ?[0-9]{3} ?[0-9]{3}"),
        de_idnr.is_valid,
        _IDNR_LABEL,
    ),
)


def _compact(candidate: str) -> str:
    return "".join(c for c in candidate if c.isalnum()).upper()


class NationalIdDetector:
    """The identifiers of :class:`IdScheme` that are switched on, validated by python-stdnum."""

    kind: ClassVar[PiiKind] = PiiKind.NATIONAL_ID

    def __init__(self, schemes: frozenset[IdScheme] = DEFAULT_ID_SCHEMES) -> None:
        self.rules = tuple(r for r in ID_RULES if r.scheme in schemes)

    def find(self, text: str) -> Iterator[Finding]:
        for rule in self.rules:
            for m in rule.pattern.finditer(text):
                if rule.label is not None and not rule.label.search(
                    text, max(0, m.start() - CONTEXT_CHARS), m.start()
                ):
                    continue
                value = _compact(m.group())
                if rule.is_valid(value):
                    yield Finding(self.kind, m.start(), m.end(), value, rule.scheme)


_VAT_COUNTRIES = "AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|XI"
_VAT_RE = re.compile(rf"(?<![\w])(?:{_VAT_COUNTRIES}) ?[0-9A-Z][0-9A-Z+*]{{7,12}}(?!\w)")


class VatDetector:
    """An EU VAT number with its country prefix that the country's check accepts (``stdnum.eu.vat``)."""

    kind: ClassVar[PiiKind] = PiiKind.VAT

    def find(self, text: str) -> Iterator[Finding]:
        for m in _VAT_RE.finditer(text):
            value = m.group().replace(" ", "")
            if eu_vat.is_valid(value):
                yield Finding(self.kind, m.start(), m.end(), value)


# -- the scrubber --


_E = TypeVar("_E", bound=StrEnum)


def parse_kinds(names: Iterable[str]) -> frozenset[PiiKind]:
    """Kinds from configuration ("email", "card"...); an unknown name is a configuration error."""
    return frozenset(_parse(PiiKind, names, "PII kind"))


def parse_id_schemes(names: Iterable[str]) -> frozenset[IdScheme]:
    """Identifier schemes from configuration ("nl.bsn", "fr.nir"...)."""
    return frozenset(_parse(IdScheme, names, "identifier scheme"))


def _parse(enum: type[_E], names: Iterable[str], what: str) -> Iterator[_E]:
    for name in names:
        try:
            yield enum(name.strip().lower())
        except ValueError:
            known = ", ".join(e.value for e in enum)
            raise ConfigError(f"unknown {what} {name!r}; known: {known}") from None


class Scrubber:
    """Finds the personal data of the configured kinds in a text and replaces them by placeholders.

    ``phone_region`` is the region national phone numbers are read in (``"GB"``); ``None`` accepts only
    numbers in international form. ``id_schemes`` narrows ``NATIONAL_ID``; ``include_private_ips``
    (default on) redacts private, loopback, link-local and documentation addresses too.

    The detectors read a view of the text (quality/pii_view.py: compatibility forms, no zero-width
    characters, and for e-mail addresses line breaks inside a candidate joined) and every span they
    find is mapped back to the original characters, which the placeholder replaces.
    """

    def __init__(
        self,
        kinds: frozenset[PiiKind] = DEFAULT_KINDS,
        phone_region: str | None = None,
        *,
        id_schemes: frozenset[IdScheme] = DEFAULT_ID_SCHEMES,
        include_private_ips: bool = True,
    ) -> None:
        if phone_region is not None:
            phone_region = phone_region.strip().upper()
            if phone_region not in phonenumbers.SUPPORTED_REGIONS:
                raise ConfigError(
                    f"phone region {phone_region!r} is not a region phonenumbers knows: use a two-letter "
                    "country code such as US, GB or FR, or none for international numbers only"
                )
        self.kinds = frozenset(kinds)
        self.phone_region = phone_region
        self.include_private_ips = include_private_ips
        self.id_schemes = frozenset(id_schemes)
        candidates: tuple[Detector, ...] = (
            EmailDetector(),
            SpelledEmailDetector(),
            PhoneDetector(phone_region),
            CardDetector(),
            IbanDetector(),
            IpDetector(include_private_ips),
            NationalIdDetector(id_schemes),
            VatDetector(),
        )
        self.detectors = tuple(d for d in candidates if d.kind in self.kinds)

    def __repr__(self) -> str:
        return f"Scrubber({self.signature})"

    @property
    def signature(self) -> str:
        """What this scrubber redacts, as a string: equal for two scrubbers that redact alike."""
        kinds = ",".join(sorted(k.value for k in self.kinds))
        schemes = ",".join(sorted(s.value for s in self.id_schemes))
        return (
            f"kinds={kinds}, phone_region={self.phone_region}, private_ips={self.include_private_ips}, "
            f"id_schemes={schemes}, detectors={DETECTORS_VERSION}"
        )

    def scrub(self, text: str, book: PlaceholderBook) -> Scrubbed:
        """The text with each datum replaced by its placeholder from ``book``, and where they stand.

        The scans replace what they find by a provisional placeholder of the same shape (detectors see
        only its brackets); the book numbers them once the text is final, in order of appearance.
        """
        placed: list[Finding] = []
        findings = self._scan(text, None)
        # A redaction changes only its neighbourhood, so a second scan finds what one uncovered (an IBAN
        # glued to a card number, "4111111111111111FR14 2004...", starts a token only once the card is a
        # placeholder) and a third finds nothing: in 3,000 hypothesis runs of glued identifiers, 2 % needed
        # the second scan and none a third. The loop ends: every scan that finds something claims text
        # outside placeholders, and there is less of it each time.
        while findings:
            text, placed, fresh = _replace(text, findings, placed)
            findings = self._scan(text, fresh)
        return _number(text, placed, book)

    def _scan(self, text: str, fresh: list[Finding] | None) -> list[Finding]:
        """The findings of every detector in the view of ``text``, mapped back to ``text``. After a scan
        placed ``fresh`` placeholders, the phone matcher (by far the slowest) reads only the stretches
        next to a new placeholder, the only ones whose numbers can have changed (where the view is the
        text itself; elsewhere it reads the view whole)."""
        view = match_view(text)
        found: list[Finding] = []
        for d in self.detectors:
            if isinstance(d, PhoneDetector) and fresh is not None and view.identity:
                found += d.find_near(text, fresh)
            else:
                found += [_mapped(f, view) for f in d.find(view.text)]
        if PiiKind.EMAIL in self.kinds:
            found += _wrapped_emails(text, view, [f for f in found if f.kind is PiiKind.EMAIL])
        return _resolve(text, found)


def _mapped(f: Finding, view: MatchView) -> Finding:
    if view.identity:
        return f
    start, end = view.original(f.start, f.end)
    return Finding(f.kind, start, end, f.value, f.scheme)


def _wrapped_emails(text: str, view: MatchView, plain: list[Finding]) -> list[Finding]:
    """Addresses a line break cuts ("jane.roe@exam" at a line's end, "ple.org" at the next start): found
    in the view with the breaks inside address-like runs joined, kept where the address crosses a break
    that is not a sentence's end (a dot after the at sign, then the break), and, if addresses were found
    there without joining, every break it crosses continues an address for sure: an at sign before
    it, an at sign or a dot after it (no word or sentence starts with one). A break between two words
    with an address on one side ("write to\njane@example.org", "Contact us.\njane@example.org") joins
    nothing: the text cannot tell "us." from the first half of a local part, "jane.", and the address
    on the next line is redacted whole either way."""
    joined = view.joined()
    if joined is view:
        return []
    out: list[Finding] = []
    for d in (EmailDetector(), SpelledEmailDetector()):
        for f in d.find(joined.text):
            g = _mapped(f, joined)
            # The joins are in order: the ones inside the address by bisection, not by a walk over all.
            inside = bisect.bisect_right(joined.joins, g.start), bisect.bisect_left(joined.joins, g.end)
            breaks = joined.joins[inside[0] : inside[1]]
            if not breaks or any(_ends_sentence(text, g.start, b) for b in breaks):
                continue
            overlapping = [p for p in plain if p.start < g.end and g.start < p.end]
            if overlapping and not all(_continues_address(text, b) for b in breaks):
                continue
            out.append(g)
    return out


# How far from a line break its neighbours are looked for: indentation and invisible characters.
BREAK_CONTEXT_CHARS = 32
_BLANK = " \t" + "".join(INVISIBLE)


def _beside(text: str, at: int) -> tuple[str, str]:
    """The nearest characters before and after the line break at ``text[at]`` that are not a space, a
    tab or invisible ("" at an end)."""
    before = text[max(0, at - BREAK_CONTEXT_CHARS) : at].rstrip(_BLANK)[-1:]
    after = text[at + 1 : at + 1 + BREAK_CONTEXT_CHARS].lstrip(_BLANK)[:1]
    return before, after


def _ends_sentence(text: str, start: int, at: int) -> bool:
    """Whether the line break at ``text[at]`` of an address starting at ``start`` follows a dot after
    its at sign: "user@localhost.\nsee below" is a sentence's end and a new line, as far as the text
    can tell."""
    before, _ = _beside(text, at)
    return before in (".", "．") and ("@" in text[start:at] or "＠" in text[start:at])


def _continues_address(text: str, at: int) -> bool:
    """Whether the line break at ``text[at]`` follows an at sign or precedes an at sign or a dot."""
    before, after = _beside(text, at)
    return before in ("@", "＠") or after in ("@", "＠", ".", "．")


def _resolve(text: str, found: list[Finding]) -> list[Finding]:
    """Validated findings outside placeholders, overlaps resolved (longest, then KIND_PRIORITY), in order."""
    taken = _Spans((m.start(), m.end()) for m in PLACEHOLDER_RE.finditer(text))
    found.sort(key=lambda f: (f.start - f.end, _PRIORITY[f.kind], f.start))
    kept = [f for f in found if taken.claim(f.start, f.end)]
    kept.sort(key=lambda f: f.start)
    return kept


class _Spans:
    """Disjoint spans of a text, sorted: a page listing thousands of addresses is not checked pair by pair."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        for start, end in spans:
            self.starts.append(start)
            self.ends.append(end)

    def claim(self, start: int, end: int) -> bool:
        """Add the span unless it overlaps one already there; whether it was added."""
        i = bisect.bisect_right(self.starts, start)
        if i > 0 and self.ends[i - 1] > start:
            return False
        if i < len(self.starts) and self.starts[i] < end:
            return False
        self.starts.insert(i, start)
        self.ends.insert(i, end)
        return True


def _provisional(kind: PiiKind) -> str:
    return f"⟨{kind.name}_1⟩"


def _replace(
    text: str, findings: list[Finding], placed: list[Finding]
) -> tuple[str, list[Finding], list[Finding]]:
    """Replace findings (sorted, disjoint) by provisional placeholders; those placed before move along.

    Returns the text, every finding placed so far and the ones placed now, with the spans of their
    provisional placeholders in the returned text.
    """
    parts: list[str] = []
    moved: list[Finding] = []
    fresh: list[Finding] = []
    earlier = iter(placed)
    waiting = next(earlier, None)
    cursor = 0
    shift = 0  # output length minus input length so far
    for f in findings:
        while waiting is not None and waiting.start < f.start:
            moved.append(_shifted(waiting, waiting.start + shift, waiting.end + shift))
            waiting = next(earlier, None)
        parts.append(text[cursor : f.start])
        placeholder = _provisional(f.kind)
        parts.append(placeholder)
        start = f.start + shift
        moved.append(_shifted(f, start, start + len(placeholder)))
        fresh.append(moved[-1])
        shift += len(placeholder) - (f.end - f.start)
        cursor = f.end
    while waiting is not None:
        moved.append(_shifted(waiting, waiting.start + shift, waiting.end + shift))
        waiting = next(earlier, None)
    parts.append(text[cursor:])
    return "".join(parts), moved, fresh


def _shifted(f: Finding, start: int, end: int) -> Finding:
    return Finding(f.kind, start, end, f.value, f.scheme)


def _number(text: str, placed: list[Finding], book: PlaceholderBook) -> Scrubbed:
    """The final text: each provisional placeholder replaced by the book's, in order of appearance."""
    parts: list[str] = []
    redactions: list[Redaction] = []
    cursor = 0
    length = 0
    for f in placed:
        parts.append(text[cursor : f.start])
        length += f.start - cursor
        placeholder = book.placeholder(f.kind, f.value)
        parts.append(placeholder)
        redactions.append(Redaction(f.kind, length, length + len(placeholder), placeholder, f.scheme))
        length += len(placeholder)
        cursor = f.end
    parts.append(text[cursor:])
    return Scrubbed("".join(parts), redactions)


# -- paths --

# What separates the components of a shown path: directory separators, and " › " between a container
# and its member (warehouse/search.py, document_paths).
_PATH_SEPARATOR_RE = re.compile(r"( › |/|\\)")
# A file name's extension: "jane@example.org.pdf" holds an address that ends before it.
_EXTENSION_RE = re.compile(r"^(.+?)(\.[A-Za-z0-9]{1,8})$")


def redact_path(path: str, scrubber: Scrubber | None) -> str:
    """``path`` with the personal data in each of its components replaced by placeholders, numbered
    within the path; separators and the rest of each component kept. ``None``: nothing to redact.

    A component is scrubbed whole, then without its extension, for a datum its extension would hide from
    a detector (an address before a file-name ending, "jane@example.org.pdf", is found whole and keeps
    the ending: ``⟨EMAIL_1⟩.pdf``).
    """
    if scrubber is None or not path:
        return path
    book = PlaceholderBook()
    parts = _PATH_SEPARATOR_RE.split(path)
    for i in range(0, len(parts), 2):
        part = scrubber.scrub(parts[i], book).text
        named = _EXTENSION_RE.match(part)
        if named is not None:
            part = scrubber.scrub(named.group(1), book).text + named.group(2)
        parts[i] = part
    return "".join(parts)


class PathRedactor:
    """:func:`redact_path` with one scrubber, as a callable; ``signature`` says what it redacts (an index
    of redacted paths is rebuilt when it changes)."""

    __slots__ = ("scrubber",)

    def __init__(self, scrubber: Scrubber | None) -> None:
        self.scrubber = scrubber

    @property
    def signature(self) -> str:
        return "none" if self.scrubber is None else self.scrubber.signature

    def __call__(self, path: str) -> str:
        return redact_path(path, self.scrubber)
