"""Phone numbers in page text, validated by the numbering plan of their region (``phonenumbers``)."""

from __future__ import annotations

import bisect
import re
import sys
from collections.abc import Iterable
from typing import ClassVar

import phonenumbers
from phonenumbers import Leniency, PhoneNumberFormat, PhoneNumberMatcher

from quality.pii_findings import DisjointSpans, Finding, PiiKind

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
        covered = DisjointSpans((f.start, f.end) for f in matched)
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
