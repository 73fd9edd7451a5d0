"""National identifiers and EU VAT numbers in page text, validated by their check characters
(python-stdnum).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import ClassVar

from stdnum.be import nn as be_nn
from stdnum.de import idnr as de_idnr
from stdnum.es import dni as es_dni
from stdnum.es import nie as es_nie
from stdnum.eu import vat as eu_vat
from stdnum.fr import nir as fr_nir
from stdnum.it import codicefiscale as it_codicefiscale
from stdnum.nl import bsn as nl_bsn

from quality.pii_findings import DEFAULT_ID_SCHEMES, Finding, IdScheme, PiiKind

# A label ("BSN:", "Steuer-ID", "numéro de sécurité sociale") must end within this many characters before
# an identifier that needs one: a label, a colon and a few words ("BSN van de werknemer: ").
CONTEXT_CHARS = 40


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
