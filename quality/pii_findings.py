"""What the personal-data detectors find: the kinds of data, the identifier schemes, a finding, the
detector protocol, and the spans of a text already claimed (quality/pii.py scrubs with them).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar, Protocol


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
DEFAULT_ID_SCHEMES = frozenset(IdScheme)


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


class DisjointSpans:
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
