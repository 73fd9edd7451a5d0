"""Personal data in page text: found by validating detectors, replaced by typed placeholders
(docs/design.md §5).

A bare pattern is not evidence: sixteen digits are an order number as often as a card number, and
redacting them destroys content the reader needed. So every detector works in two steps: a bounded
candidate pattern finds spans cheaply, then a validator confirms them: the Luhn digit and a known card
range, the IBAN's mod-97 and its country's format, a phone number's numbering plan (``phonenumbers``), an
identifier's check character (``python-stdnum``), an address parsed by ``ipaddress``. A number that fails
its check stays in the text. The detectors live beside this module, one module per family of data:
quality/pii_email.py, pii_phone.py, pii_payment.py (cards and IBANs), pii_ip.py and pii_identifiers.py
(national identifiers and VAT numbers); what they find is a quality/pii_findings.py ``Finding``.

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
import re
import secrets
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

import phonenumbers

from quality.pii_email import EmailDetector, SpelledEmailDetector
from quality.pii_findings import (
    DEFAULT_ID_SCHEMES,
    DEFAULT_KINDS,
    Detector,
    DisjointSpans,
    Finding,
    IdScheme,
    PiiKind,
)
from quality.pii_identifiers import NationalIdDetector, VatDetector
from quality.pii_ip import IpDetector
from quality.pii_payment import CardDetector, IbanDetector
from quality.pii_phone import PhoneDetector
from quality.pii_view import INVISIBLE, MatchView, match_view
from readers.core.errors import ConfigError

# Bumped whenever a detector finds more or less in the same text: a search index built with other
# detectors is rebuilt (Scrubber.signature).
DETECTORS_VERSION = "4"

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
    taken = DisjointSpans((m.start(), m.end()) for m in PLACEHOLDER_RE.finditer(text))
    found.sort(key=lambda f: (f.start - f.end, _PRIORITY[f.kind], f.start))
    kept = [f for f in found if taken.claim(f.start, f.end)]
    kept.sort(key=lambda f: f.start)
    return kept


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
