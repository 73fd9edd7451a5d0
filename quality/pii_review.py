"""Whether a redaction took personal data, judged from the stored text around its placeholder alone.

A corpus carries no labels of its personal data, and the value a placeholder replaced is stored nowhere,
so the judge reads what anyone reading the sanitized tables can read: ``texts.text`` around each
placeholder of ``redactions``. Its rules are its own and never ask the detectors (quality/pii.py): a
detector keeps "Paragraph 1.2.3.1" by its rules, and a judge that reused them would find exactly its
blind spots correct. So they are written apart, and wider: any structure word a few words before, an
all-capital heading, a table row of numbers, a placeholder glued to a longer number.

Each redaction gets one verdict and the rule that gave it:

- ``structure``: not personal data. The number of a heading, list item or contents line, a caption or a
  cross-reference, a version, an object identifier, a piece of a longer number, a cell of a row of
  numbers. Never said of an e-mail address, which no number of a document looks like.
- ``personal``: a label of its kind stands before it ("From:", "tel.", "IBAN", "IP address"), or an
  e-mail address in angle brackets after a name.
- ``undecided``: neither; ``assay redactions`` lists them with their context to be read by eye.

Precision per kind is (made - structure) / made. Undecided redactions count as personal data, so it is an
upper bound; the figures say how many were undecided.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

# Characters of context read (and shown) on each side of a placeholder: a label and a few words, or a
# table row's neighbouring cells.
REVIEW_CONTEXT_CHARS = 60
# How many words before a placeholder a structure or version word may stand: "Sections 1.2.3.1 and
# ⟨IP_1⟩", "version 2 build ⟨IP_1⟩".
REVIEW_WORDS_BEFORE = 3
# A row of numbers: at least this many of the other cells or tokens on the line are numbers, and at least
# half of them.
NUMBER_ROW_MIN = 2


class Verdict(StrEnum):
    STRUCTURE = "structure"
    PERSONAL = "personal"
    UNDECIDED = "undecided"


@dataclass(frozen=True, slots=True)
class Judged:
    """One redaction, its verdict and the rule that gave it, and the sanitized text around it."""

    kind: str
    placeholder: str
    verdict: Verdict
    rule: str
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class Precision:
    """The redactions of one kind: made, judged not personal data, judged personal, undecided."""

    kind: str
    made: int
    structure: int
    personal: int
    undecided: int

    @property
    def precision(self) -> float | None:
        """Share of the redactions not judged structure; None when none were made."""
        return None if not self.made else (self.made - self.structure) / self.made


# fmt: off
# Caption and cross-reference words that name a part of a document and nothing else: they count up to
# REVIEW_WORDS_BEFORE words before ("Sections 1.2.3.1 and ⟨IP_1⟩").
_CAPTION_WORDS = (
    r"sections?", r"§+", r"paragraphs?", r"chapters?", r"clauses?", r"subclauses?", r"figures?",
    r"figs?", r"tables?", r"appendix", r"appendices", r"annex(?:es)?", r"equations?", r"eqs?",
    r"abschnitt\w*", r"kapitel\w*", r"absatz", r"abbildung\w*", r"abb", r"tabelle\w*", r"anhang",
    r"chapitres?", r"paragraphes?", r"tableaux?", r"annexes?", r"secci[oó]n\w*", r"cap[ií]tulo\w*",
    r"apartado\w*", r"tablas?", r"figuras?", r"anexos?", r"capitol\w*", r"sezion\w*", r"tabell\w*",
    r"hoofdstuk\w*", r"bijlage\w*", r"figuur", r"раздел\w*", r"пункт\w*", r"глав\w*", r"рисун\w*",
    r"рис", r"таблиц\w*", r"табл", r"приложени\w*",
)
# Words that number a part only right before the number: "step 1.2.3.4", not "note that host 10.0.0.1".
_NEAR_WORDS = (
    r"sect", r"sec", r"para", r"ch", r"art", r"articles?", r"tab", r"items?", r"steps?", r"parts?",
    r"pages?", r"pp?", r"see", r"cf", r"listings?", r"examples?", r"notes?", r"requirements?", r"req",
    r"abs", r"ziff(?:er)?", r"anlage\w*", r"punkt\w*", r"bild\w*", r"п",
)
_VERSION_WORDS = (
    r"v", r"versions?", r"ver", r"releases?", r"rel", r"builds?", r"rev", r"revisions?", r"updates?",
    r"patch(?:es)?", r"firmware", r"sp", r"versi[oó]n", r"versione", r"versie", r"fassung", r"верси\w*",
)
# The labels that say what a redaction of a kind is: one of the few words before it, or before it on
# its line or at the end of the line before ("email:\n⟨EMAIL_1⟩").
_LABELS: Mapping[str, tuple[str, ...]] = {
    "email": (r"e-?mail", r"mail", r"from", r"to", r"cc", r"bcc", r"reply-to", r"sender", r"contact",
              r"courriel", r"correo", r"kontakt"),
    "phone": (r"tel", r"tél", r"phone", r"telephone", r"téléphone", r"telefon", r"teléfono", r"fax",
              r"mobile", r"mobil", r"cell", r"handy", r"call", r"ring", r"whatsapp"),
    "ip": (r"ip", r"ipv4", r"ipv6", r"host", r"hostname", r"server", r"address", r"addr", r"gateway",
           r"router", r"dns", r"nameserver", r"client", r"from", r"to", r"connect\w*", r"ping", r"ssh",
           r"proxy", r"subnet", r"peer", r"remote", r"src", r"dst"),
    "iban": (r"iban", r"account", r"acct", r"konto\w*", r"bank\w*", r"rib", r"compte", r"cuenta"),
    "card": (r"card", r"visa", r"mastercard", r"amex", r"karte", r"kreditkarte", r"carte", r"tarjeta"),
    "national_id": (r"ssn", r"bsn", r"nir", r"insee", r"dni", r"nie", r"codice fiscale", r"steuer-?id",
                    r"idnr", r"rijksregister\w*", r"insz", r"niss", r"national (?:register )?number",
                    r"s[ée]curit[ée] sociale", r"burgerservicenummer"),
    "vat": (r"vat", r"ust-?id\w*", r"tva", r"btw", r"iva", r"mwst", r"uid"),
}
# fmt: on
# How far before a placeholder a label may end on its line, and on the line before.
LABEL_CHARS = 24
LABEL_LINE_END_CHARS = 8
# The kinds a heading or a contents line can number: dotted numbers.
DOTTED_KINDS = frozenset({"ip", "national_id"})
# An all-capital word after a line's opening number that is a request of a web server's log, not a title.
_HTTP_METHODS = frozenset({"GET", "POST", "PUT", "HEAD", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE"})


def _words(words: Iterable[str]) -> re.Pattern[str]:
    return re.compile(rf"(?:{'|'.join(words)})\.?", re.IGNORECASE)


_WORD_RE = re.compile(r"[^\W\d_][\w\-]*\.?|§+")
_CAPTION_RE = _words(_CAPTION_WORDS)
_NEAR_RE = _words(_NEAR_WORDS)
_VERSION_RE = _words(_VERSION_WORDS)
_OID_RE = _words((r"oid", r"iso", r"urn:oid"))
_LABEL_WORD_RES = {kind: _words(words) for kind, words in _LABELS.items()}
_LABEL_RES = {
    kind: re.compile(
        rf"(?<![^\W_])(?:{'|'.join(words)})(?![^\W_])"
        rf"(?:[^\n]{{0,{LABEL_CHARS}}}|[^\n]{{0,{LABEL_LINE_END_CHARS}}}\n[ \t]*)$",
        re.IGNORECASE,
    )
    for kind, words in _LABELS.items()
}
_PLACEHOLDER_RE = re.compile(r"⟨[A-Z][A-Z_]*_[1-9][0-9]*⟩")
_NUMBER_RE = re.compile(r"[-+(]?[0-9][0-9.,:/%)\-]*")
# What may open a heading's line before its number: indentation, markdown heading, quote, list and
# table marks, and emphasis.
_LINE_OPENING_RE = re.compile(r"[ \t]*(?:(?:#{1,6}|>|[-*+•]|\|)[ \t]*|\*\*|__)*")
# After a heading's number: a dot or a bracket, emphasis, a space, and a word with a capital initial.
_HEADING_AFTER_RE = re.compile(r"[.)]?(?:\*\*|__)?[ \t\u00a0]+(?:\*\*|__|\*|_)?([^\W\d_]{2,})")
_DOT_LEADER_RE = re.compile(r"(?:\.\s?){4,}\s*[0-9ivxlc]+\s*$", re.IGNORECASE)
_VERSION_SUFFIX_RE = re.compile(r"[-+~](?:alpha|beta|rc|dev|pre|post|build|snapshot)", re.IGNORECASE)


def judge(kind: str, placeholder: str, text: str, start: int, end: int) -> Judged:
    """The verdict on the redaction whose placeholder stands at ``text[start:end]`` (module docstring)."""
    before = text[max(0, start - REVIEW_CONTEXT_CHARS) : start]
    after = text[end : end + REVIEW_CONTEXT_CHARS]
    verdict, rule = _verdict(kind, text, start, end, before, after)
    return Judged(kind, placeholder, verdict, rule, before, after)


def _verdict(kind: str, text: str, start: int, end: int, before: str, after: str) -> tuple[Verdict, str]:
    """Structure rules first for the kinds a number of a document can look like (never an e-mail
    address); of the words before, the nearest structure word or label decides."""
    if kind != "email":
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        line = text[line_start : len(text) if line_end < 0 else line_end]
        if _glued(before, after):
            return Verdict.STRUCTURE, "part of a longer number"
        if kind in DOTTED_KINDS and _heading(text, line_start, start, end, line):
            return Verdict.STRUCTURE, "heading, list or contents numbering"
        if _VERSION_SUFFIX_RE.match(after):
            return Verdict.STRUCTURE, "version"
        words = _WORD_RE.findall(_PLACEHOLDER_RE.sub(" ", text[line_start:start]))[-REVIEW_WORDS_BEFORE:]
        label_word = _LABEL_WORD_RES.get(kind)
        for distance, word in enumerate(reversed(words)):
            if label_word is not None and label_word.fullmatch(word):
                return Verdict.PERSONAL, "labelled"
            if _OID_RE.fullmatch(word):
                return Verdict.STRUCTURE, "object identifier"
            if _VERSION_RE.fullmatch(word):
                return Verdict.STRUCTURE, "version"
            if _CAPTION_RE.fullmatch(word) or (distance == 0 and _NEAR_RE.fullmatch(word)):
                return Verdict.STRUCTURE, "caption or cross-reference"
        if _number_row(line, start - line_start, end - line_start):
            return Verdict.STRUCTURE, "in a row of numbers"
    label = _LABEL_RES.get(kind)
    # a placeholder before is no label ("⟨EMAIL_1⟩\n⟨EMAIL_2⟩" names no e-mail address)
    if label is not None and label.search(_PLACEHOLDER_RE.sub("\x00", before)):
        return Verdict.PERSONAL, "labelled"
    if kind == "email" and before.endswith("<") and after.startswith(">"):
        return Verdict.PERSONAL, "name and address"
    return Verdict.UNDECIDED, ""


def _glued(before: str, after: str) -> bool:
    """A placeholder glued to a digit, or to a dot and a digit: a piece of a longer number."""
    left = before[-1:].isdigit() or (before[-1:] == "." and before[-2:-1].isdigit())
    right = after[:1].isdigit() or (after[:1] == "." and after[1:2].isdigit())
    return left or right


def _heading(text: str, line_start: int, start: int, end: int, line: str) -> bool:
    """A placeholder on a markdown heading line or a contents line (a dot leader and a page number), or
    one that opens its line before a word with a capital initial (a heading, a list item)."""
    if line.lstrip().startswith("#") or _DOT_LEADER_RE.search(line):
        return True
    if not _LINE_OPENING_RE.fullmatch(text, line_start, start):
        return False
    word = _HEADING_AFTER_RE.match(text, end)
    return word is not None and word.group(1)[0].isupper() and word.group(1) not in _HTTP_METHODS


def _number_row(line: str, start: int, end: int) -> bool:
    """A placeholder among numbers: the other cells of a table row, or the other tokens of a line (other
    placeholders are no numbers: a listing of "⟨EMAIL_1⟩ ⟨IBAN_1⟩.txt  75" is no row of them)."""
    rest = _PLACEHOLDER_RE.sub(" ", line[:start] + " " + line[end:])
    cells = [c.strip() for c in rest.split("|")] if "|" in line else rest.split()
    cells = [c for c in cells if c]
    numbers = sum(1 for c in cells if _NUMBER_RE.fullmatch(c))
    return numbers >= NUMBER_ROW_MIN and 2 * numbers >= len(cells)


def precision(judged: Iterable[Judged]) -> list[Precision]:
    """The figures per kind, in the order of kinds' names."""
    counts: dict[str, dict[Verdict, int]] = {}
    for j in judged:
        per = counts.setdefault(j.kind, dict.fromkeys(Verdict, 0))
        per[j.verdict] += 1
    return [
        Precision(
            kind,
            sum(per.values()),
            per[Verdict.STRUCTURE],
            per[Verdict.PERSONAL],
            per[Verdict.UNDECIDED],
        )
        for kind, per in sorted(counts.items())
    ]
