"""Payment data in page text: card numbers (a known issuer range and Luhn) and IBANs (mod-97 and the
country's format).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from stdnum import iban as stdnum_iban
from stdnum import numdb

from quality.pii_findings import Finding, PiiKind

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
