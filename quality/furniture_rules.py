"""Furniture on one page: named rules for the lines a page prints at its edges.

Repetition needs pages to compare (quality/furniture_repeats.py); a one- or two-page document (an
article's first page, a letter, a printed web page) still carries page numbers, download and source
stamps, its DOI, copyright, journal and revision lines, a running title and its authors' running head.
These rules read one page at a time: a line is furniture when it stands in the page's top or bottom band
(its first RULE_TOP_BAND, last RULE_BOTTOM_BAND non-empty lines, before any transcribed figures) and one
rule matches the whole line (markdown emphasis around it dropped). Never a heading, a table row, a line
inside fenced code, or a line a rule only matches part of: a sentence mentioning a download, a DOI inside
a reference, a number in a table row stay. Each rule has a confidence, the share of its matches that are
furniture as judged on the dev corpus and on the shapes publishers print. Lines already taken by surer
means (a tagged PDF's artifacts, a layout model's header and footer regions) are passed as ``marked``
and not judged again.

Calibrated on the sanitize stage over the dev corpus, every line the rules took read by eye (all
furniture), and on the robust and tables sets (docs/decisions.md, "Text judging: calibration notes").
Known misses: bare dates, stamps in other words, and furniture the text's order puts inside the page:
the bands are lines of text, not places on the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from quality.furniture import (
    FENCE,
    FIGURES_HEADING,
    HEADING_MARKS,
    SPACES,
    TABLE_ROW,
    Band,
    Furniture,
    FurnitureWhy,
)

#: Non-empty lines at the top and bottom of a page the single-page rules look at. An article's first
#: page stacks 4 lines of header (journal line, "Contents lists available at", journal name, homepage)
#: and 5 of footer under its footnotes (corresponding author, e-mail, DOI, received/accepted, copyright).
#: Calibrated on the dev corpus's paged documents, bands of 3 to 8 lines tried: none takes a body line,
#: and every top-band match stands in the first 3 lines (docs/decisions.md, "Text judging: calibration
#: notes").
RULE_TOP_BAND = 5
RULE_BOTTOM_BAND = 8

#: "Page 3 of 10", "- 3 -", "第4 页共6 页", "3 | Journal": worded as a page number, nothing else reads so.
PAGE_NUMBER_WORDED_CONFIDENCE = 0.95
#: A bare number ("3", "iii", "١"): a page number on every dev corpus page that ends with one, but a
#: figure's axis value or a count alone on a line reads the same, hence less.
PAGE_NUMBER_BARE_CONFIDENCE = 0.85
#: "Downloaded from <url> on <date>", "This content downloaded from <ip>": a publisher's stamp, never prose.
DOWNLOAD_STAMP_CONFIDENCE = 0.95
#: A line that is only a DOI (or arXiv identifier) on a page citing no other DOI: the article's own.
DOI_CONFIDENCE = 0.9
#: "© 2020 Elsevier Ltd. All rights reserved.": a year or the rights clause after the copyright sign.
COPYRIGHT_CONFIDENCE = 0.9
#: "Journal of X 12 (2020) 1–20", "Vol. 3, No. 2, pp. 11-19": a citation of the page itself; a wrapped
#: reference can read the same, which the bibliography test below rules out on reference pages.
JOURNAL_CONFIDENCE = 0.85
#: "Communications / of Volume 21 / the ACM Number 8": short lines ending in a volume, a number or a
#: month, stacked at a page's edge; each alone could be a label of the body, hence less than a whole
#: journal line.
JOURNAL_BLOCK_CONFIDENCE = 0.75
#: "SMITH ET AL.", "1124 J. SMITH ET AL.": a surname and "et al." alone on a line is a running head; in
#: the body "et al." is followed by what they found.
RUNNING_AUTHORS_CONFIDENCE = 0.85
#: "Source: <url>", "Retrieved from <url>", "Available online at <url>": the address the page was
#: taken from, worded as such.
SOURCE_STAMP_CONFIDENCE = 0.9
#: A web address with a path alone as a page's first or last line, at the foot after a closed sentence: a
#: printed page's address, though a footnote's address can stand so.
BARE_URL_CONFIDENCE = 0.7
#: "Revision: 2.4", "Printed 2021-03-04", a date with a time of day: document metadata, though a
#: version line can belong to a title block.
REVISION_CONFIDENCE = 0.8
#: A short top line repeating the document's first heading: a running title, or a kicker above it.
RUNNING_TITLE_REPEAT_CONFIDENCE = 0.7
#: A short all-caps line above the page's first heading ("RESEARCH ARTICLE", "SOIL AND WATER"): a
#: running title or a journal's section mark more often than not, but only by its look.
RUNNING_TITLE_CAPS_CONFIDENCE = 0.5
#: Lines longer than this are never single-page furniture: the longest stamp the rules are written
#: for ("This content downloaded from <ip> on <weekday, date time UTC>", a journal line with its
#: authors) runs under 150 characters, and the bound keeps the patterns' work per line small.
RULE_MAX_CHARS = 300
#: A journal footer's line is short: at most this many words ("the ACM Number 8" has 4).
JOURNAL_PART_MAX_WORDS = 5
#: A running title is short: at most this many words (the corpus's running heads have 2-9).
RUNNING_TITLE_MAX_WORDS = 10
#: Share of an all-caps running title's characters that are letters: words, not a formula ("U1 × X2 U2
#: × X2" above a heading of a mathematics textbook has 4 letters in 10 characters).
RUNNING_TITLE_LETTER_SHARE = 0.8
#: A page with this many reference-like lines ("[12] ...") or other DOIs is a bibliography: its DOIs and
#: journal lines are references, not the page's own.
BIBLIOGRAPHY_MIN_REFERENCES = 2

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|januar|februar|märz|mai|juni|juli|oktober|dezember"
    r"|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre)\.?"
)
_WEEKDAY = (
    r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag"
)
_DATE = (
    rf"(?:(?:{_WEEKDAY})\s+)?(?:\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}[./-]\d{{1,2}}[./-]\d{{2,4}}"
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|\d{{1,2}}(?:st|nd|rd|th)?\.?\s+{_MONTH},?\s+\d{{4}})"
)
_TIME = r"\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?(?:\s*(?:utc|gmt|[a-z]{3}))?"
# a web address: scheme, www. or a name ending in a top-level domain ("e.g" and "3.5" are not one)
_URL = r"(?:https?://\S+|www\.\S+|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?:/\S*)?)"
_DOI_CORE = r"10\.\d{4,9}/\S+"
_I = re.IGNORECASE

#: Page numbers worded as such.
_PAGE_WORDED = re.compile(
    r"(?:page|p\.|pg\.?|pp\.|seite|s\.|página|pagina|pág\.|стр\.?|страница|sayfa|strona)\s*\d+"
    r"(?:\s*(?:of|/|von|de|di|из|sur|z)\s*\d+)?"
    # not "[12]": alone on a line that is a citation mark more often than a page number
    r"|[-–—]\s*\d+\s*[-–—]|\d+\s*/\s*\d+|\d+\s+(?:of|von|de|sur)\s+\d+"
    r"|第\s*\d+\s*页(?:\s*[,，]?\s*共\s*\d+\s*页)?",
    _I,
)
#: "3 | Journal Name", "Journal Name | 3": a page number beside a running title.
_PAGE_BESIDE_TITLE = re.compile(r"\d{1,5}\s*\|\s*[^|\d][^|]{1,80}|[^|\d][^|]{1,80}\|\s*\d{1,5}")
_BARE_NUMBER = re.compile(r"\d{1,5}")
_BARE_ROMAN = re.compile(r"x{0,3}(?:ix|iv|v?i{0,3})")  # lower case, up to xxxix: front matter
_YEAR = re.compile(r"1[89]\d\d|20\d\d")
_DOWNLOAD = re.compile(
    rf"(?:this\s+(?:content|article|document)\s+(?:was\s+)?)?downloaded\s+(?:from|by|on|via|at)\b.*"
    rf"(?:{_URL}|{_DATE}|{_TIME}|\d{{1,3}}(?:\.\d{{1,3}}){{3}}).*"
    r"|access\s+provided\s+by\s+.{2,100}|heruntergeladen\s+(?:von|am)\s+.{2,100}|téléchargé\s+(?:depuis|le)\s+.{2,100}",
    _I,
)
_DOI = re.compile(
    rf"(?:doi\s*:?\s*|https?://(?:dx\.)?doi\.org/)\s*{_DOI_CORE}"
    r"|arxiv:\d{4}\.\d{4,5}(?:v\d+)?(?:\s+\[[\w.-]+\])?(?:\s+\d{1,2}\s+\w{3,9}\s+\d{4})?",
    _I,
)
_ANY_DOI = re.compile(_DOI_CORE)
# a journal's name, abbreviated or not: "Journal of Applied Ecology", "J. Appl. Ecol.", "PLoS ONE"
_JOURNAL_NAME = r"[A-Z][\w.&’'-]*(?:\s+[\w.&’'-]+){0,8}"
_VOLUME = r"\d{1,4}(?:\s*\(\d{1,4}(?:[-–]\d{1,4})?\))?"
_PAGE_RANGE = r"(?:\d{1,6}\s*[-–—]\s*\d{1,6}|e\d{3,7})"
_PAGES = rf"(?:{_PAGE_RANGE}|\d{{1,6}})"
_SURNAME = r"(?:[A-Z][^\W\d_]+(?:[-'’][A-Z]?[^\W\d_]+)?)"
_INITIALS = r"(?:[A-Z]\.\s*(?:-?[A-Z]\.\s*)*)?"
_COPYRIGHT = re.compile(
    # the sign, then a year, the rights clause or the authors: "0167-1987/© 2020 Elsevier B.V."
    r"[\w/.-]*\s*©.{0,160}"
    r"(?:(?<!\d)(?:19|20)\d\d(?!\d).{0,160}|all\s+rights\s+reserved\.?.{0,60}|the\s+authors?\b.{0,120})"
    # the word or "(c)" only with the year right after: "(c) In 2019 the board..." is a list item
    r"|(?:copyright\s*(?:©|\(c\))?|\(c\))\s*(?:19|20)\d\d(?!\d)(?:\s*[-–,]\s*(?:19|20)?\d\d)?"
    r"(?:\s+(?:by\s+)?(?-i:[A-Z\u00c0-\u024f]).{0,160})?"
    r"|.{0,120}all\s+rights\s+reserved\.?"
    # an accepted manuscript's stamp: "This article is protected by copyright. All rights reserved."
    r"|this\s+(?:article|document|work|manuscript|content)\s+is\s+protected\s+by\s+copyright\.?",
    _I,
)
_JOURNAL = re.compile(
    # "Journal of X 12 (2020) 1–20", "Data in Brief 22 (2019) 451–457"
    r".{2,120}?\s\d{1,4}\s*\((?:19|20)\d\d\)\s*\d+\s*[-–]\s*\d+"
    # "Vol. 3, No. 2, pp. 11-19", "Journal of X, Vol. 3, No. 2 (2020)", "Volume 21, Number 8, August 1978"
    # a volume numbered in roman or left as the template's "X": "IEEE TRANSACTIONS ..., VOL. X, NO. X, JULY
    # 2016", with the page number the head carries at either end
    r"|(?:\d{1,5}\s+)?(?:[A-Z][\w.&’'-]*(?:\s+[\w.&’'-]+){0,10},?\s+)?(?i:vol\.?|volume)\s*(?:\d+|(?i:[ivxlc]+))"
    r"\s*[,;]?\s*(?:(?i:no\.?|issue|number|nr\.?|heft)\s*(?:\d+|(?i:[ivxlc]+))\s*[,;]?\s*)"
    r"(?:(?i:pp?\.|pages)\s*\d+\s*[-–]\s*\d+\s*[,;]?\s*)?(?:\(?(?:\w+\.?\s+)?(?:19|20)\d\d\)?)?(?:\s+\d{1,5})?"
    # "Sensors 2020, 20, 1234", "Sensors 2020, 20, 1234; doi:..."
    r"|[A-Z][\w.&-]*(?:\s+[\w.&-]+){0,6}\s+(?:19|20)\d\d,\s*\d{1,4},\s*\d{1,6}(?:\s*[;,].{0,80})?",
)
_YEAR_RE = r"(?:19|20)\d\d"
#: A citation of the page in the journal's own styles, a full stop and the DOI after it or not (PubMed
#: Central's "J Appl Ecol. 2019 May; 56(5): 1123–1131. doi:10.1111/..."): a name, a year, a volume and
#: pages in one of the orders publishers print them, nothing else on the line.
_CITATION = re.compile(
    # "Journal of Applied Ecology 2019, 56, 1123-1131", "J. Appl. Ecol. 2019; 56(5): 1123–1131"
    rf"(?:{_JOURNAL_NAME}\s+{_YEAR_RE}(?:\s+(?i:{_MONTH})(?:\s+\d{{1,2}})?)?\s*[,;]\s*{_VOLUME}\s*[,:]\s*{_PAGES}"
    # "Proc. Natl. Acad. Sci. USA 117(12):6543–6550", "Nature 580, 123–127 (2020)"
    rf"|{_JOURNAL_NAME}\s+\d{{1,4}}(?:\s*\(\d{{1,4}}\)\s*:|,)\s*{_PAGE_RANGE}(?:\s*\({_YEAR_RE}\))?"
    # "Ecology, 101(3), 2020, pp. 12-19"
    rf"|{_JOURNAL_NAME},\s*{_VOLUME},\s*{_YEAR_RE},\s*(?:pp?\.\s*)?{_PAGE_RANGE}"
    # "Ecology Letters, (2019) 22: 1123–1131"
    rf"|{_JOURNAL_NAME},?\s*\({_YEAR_RE}\)\s*{_VOLUME}\s*[,:]\s*{_PAGES}"
    # "Journal of Hydrology 590 (2020) 125432": an article number instead of pages
    rf"|.{{2,120}}?\s\d{{1,4}}\s*\({_YEAR_RE}\)\s*(?:\d{{4,7}}|e\d{{3,7}}))"
    rf"(?:\s*[.;,]?\s*(?i:doi\s*:?\s*|https?://(?:dx\.)?doi\.org/){_DOI_CORE})?\.?",
)
#: "PLOS ONE | https://doi.org/10.1371/journal.pone.0123456 May 12, 2020 1 / 15", "Nature | Vol 580 | 2
#: April 2020 | 123": short parts between bars, one of them a volume or a DOI (:func:`_piped_citation`).
_PIPED_PART = re.compile(rf"(?:vol\.?|volume)\s*\d{{1,4}}\b.*|.*{_DOI_CORE}.*", _I)
_RANGE = re.compile(r"(?<![\d.])(\d{1,6})\s*[-–—]\s*(\d{1,6})(?![\d.])")
#: An article's pages: a range longer than this in a citation line is not one (a year range, a DOI's digits).
CITED_MAX_PAGES = 200
#: Parts of a piped running head: 2 to this many.
PIPED_MAX_PARTS = 6
#: "Communications August 1978", "of Volume 21", "the ACM Number 8": a journal's footer set in short
#: lines, each ending in its volume, its number or its month (:func:`_journal_block`).
_JOURNAL_PART = re.compile(
    rf"(?:\S+\s+){{0,3}}?(?:(?P<volume>(?:vol\.?|volume|bd\.|band)\s*\d{{1,4}})|(?P<number>(?:no\.|number|issue|"
    rf"nr\.|heft)\s*\d{{1,4}})|(?P<month>{_MONTH}\s+(?:19|20)\d\d))",
    _I,
)
#: A running head of authors: "SMITH ET AL.", "J. Smith et al.", "1124 J. SMITH ET AL.". Not two names
#: joined by "and": a first page's byline ("A. B. SMITH AND C. D. JONES") reads the same and is content.
_AUTHORS = re.compile(rf"(?:\d{{1,5}}\s+)?{_INITIALS}{_SURNAME}\s+(?i:et\s+al\.?)(?:\s+\d{{1,5}})?")
# a page's address: a host and a path ("www.mozilla.org" alone on a test page is its text)
_STRICT_URL = r"(?:https?://|www\.)[^\s/]+\.[^\s/]+/[^\s/]\S*"
#: The address the page was taken from, worded as such, and the publishers' and repositories' stamps
#: naming where it is kept ("Contents lists available at ScienceDirect", "Author manuscript").
_SOURCE = re.compile(
    rf"(?:source|retrieved\s+(?:from|on)|available\s+(?:online\s+)?(?:at|from)|accessed\s+(?:at|from|via)|"
    rf"url|permalink|quelle|abgerufen\s+(?:von|am)|fuente|(?:journal\s+)?home\s*page|all\s+use\s+subject\s+to)"
    rf"\s*:?\s*{_URL}(?:,?\s*(?:on|at|am)?\s*:?\s*{_DATE}(?:,?\s*{_TIME})?)?"
    r"|contents\s+lists?\s+available\s+at\s+\S+(?:\s+\S+)?"
    r"|author\s+manuscript(?:\s*;\s*available\s+in\s+pmc\s+.{4,40})?",
    _I,
)
_BARE_URL = re.compile(_STRICT_URL, _I)
_SENTENCE_END = re.compile(r"[.!?…。)\]\"”»]\s*$|^\W*\d+\W*$")
_REVISION = re.compile(
    rf"(?:revision|rev\.|version|ver\.|release)\s*:?\s*v?\d+(?:\.\d+)*[a-z]?(?:\s*[,;(]?\s*{_DATE}\)?)?"
    rf"|(?:printed|generated|last\s+(?:updated|modified|revised)|updated|revised|created|gedruckt|"
    rf"stand|imprimé\s+le)\s*(?:on|at|am|by)?\s*:?\s*{_DATE}(?:,?\s*(?:at\s+)?{_TIME})?"
    rf"|printed\s+by(?:\s+\S+){{0,4}}"
    # a date with a time of day alone: a browser's or printer's stamp; a letter's date has no time
    rf"|{_DATE},?\s+{_TIME}|{_TIME},?\s+{_DATE}",
    _I,
)
#: A line that opens a reference: "[12] ", "12. ", or an author-year entry's "Smith, J." / "Smith, John".
_REFERENCE_LINE = re.compile(
    r"\s*(?:\[\d{1,3}\]|\d{1,3}\.)\s+\S|\s*[A-Z][^\W\d_]+(?:[-'’][^\W\d_]+)?,\s+(?:[A-Z]\.\s*){1,3}"
)
_EMPHASIS = re.compile(r"^(\*\*|__|\*|_|`)(.+)\1$")
_WORD = re.compile(r"[^\W_]+")


def _plain(line: str) -> str:
    """A band line as the rules read it: whitespace folded, emphasis around it dropped."""
    text = SPACES.sub(" ", line.strip())
    while match := _EMPHASIS.match(text):
        text = match.group(2).strip()
    return text


def _is_number_line(text: str) -> bool:
    return bool(_BARE_NUMBER.fullmatch(text) or _PAGE_WORDED.fullmatch(text))


def _page_number(
    text: str, label: str | None, neighbours: Sequence[str], outermost: bool, cited: range | None = None
) -> float | None:
    """The confidence that ``text`` is the page's number, or None.

    ``cited``: the pages of the page's own citation line ("Data in Brief 22 (2019) 451–457"): a bare
    number in that range is the page's number whatever its label says (the journal's 454 on the
    document's page 4).

    Worded ("Page 3 of 10", "- 3 -") it is one wherever it stands in the bands. A bare number or roman
    numeral reads like a formula's index, a map's label or a table's value, so it must be the page's
    label when the page has one (a book's "1" at the foot of its page 48 is a formula's); without a
    label, the page's first or last line. Either way a bare number next to another number line is a
    column of data (a transcript's line numbers, a table read line by line), and a bare year is a date.
    """
    if _PAGE_BESIDE_TITLE.fullmatch(text):
        # "3 | Journal Name"; several such lines together are a plain-text table's rows
        if any(_PAGE_BESIDE_TITLE.fullmatch(n) for n in neighbours) or len(text.split()) > 10:
            return None
        return PAGE_NUMBER_BARE_CONFIDENCE
    if _PAGE_WORDED.fullmatch(text):
        if "/" in text and not re.search(r"\D", text.replace("/", "").replace(" ", "")):
            first, _, second = text.partition("/")
            if int(first) > int(second) or int(first) == 0:
                return None  # "12/5" is a ratio or a date, not page 12 of 5
        return PAGE_NUMBER_WORDED_CONFIDENCE
    bare = bool(_BARE_NUMBER.fullmatch(text) or _BARE_ROMAN.fullmatch(text))
    is_label = bool(label) and text.casefold() == (label or "").casefold()
    if any(_is_number_line(n) for n in neighbours) and (bare or is_label):
        return None
    if cited is not None and _BARE_NUMBER.fullmatch(text) and int(text) in cited:
        return PAGE_NUMBER_WORDED_CONFIDENCE
    if is_label:
        return PAGE_NUMBER_WORDED_CONFIDENCE
    if not bare or label or not outermost or _YEAR.fullmatch(text):
        return None
    if _BARE_ROMAN.fullmatch(text) and len(text) < 2:
        return None  # "i", "v", "x" alone are a formula's letters more often than a page's numeral
    return PAGE_NUMBER_BARE_CONFIDENCE


def _bibliography(lines: Sequence[str], own: str) -> bool:
    """The page cites others: reference-like lines, or DOIs other than those on ``own``."""
    references = sum(1 for line in lines if _REFERENCE_LINE.match(line))
    own_dois = set(_ANY_DOI.findall(own))
    others = {d for line in lines for d in _ANY_DOI.findall(line)} - own_dois
    return references >= BIBLIOGRAPHY_MIN_REFERENCES or len(others) >= BIBLIOGRAPHY_MIN_REFERENCES


def _title_words(text: str) -> tuple[str, ...]:
    return tuple(w.casefold() for w in _WORD.findall(text))


@dataclass(frozen=True, slots=True)
class _RuleCandidate:
    index: int  # line index in the page's text
    band: Band
    text: str  # as the rules read it (_plain; a heading without its marks)
    # a markdown heading: only a stamp (an address, a download, a DOI) can be one; OCR and layout readers
    # make a stamp set apart at a page's foot a heading ("# Source: https://...")
    heading: bool = False


def _rule_candidates(lines: Sequence[str]) -> tuple[list[_RuleCandidate], list[int]]:
    """The band lines the single-page rules may take, and the indices of every non-empty line before any
    transcribed figures (the page's lines, for the neighbour and bibliography tests)."""
    content: list[tuple[int, bool]] = []  # (index, may be furniture)
    in_fence = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if FIGURES_HEADING.fullmatch(stripped):
            break
        if FENCE.match(line):
            in_fence = not in_fence
            content.append((index, False))
        elif stripped:
            content.append((index, not in_fence and not TABLE_ROW.match(stripped)))
    top = content[:RULE_TOP_BAND]
    bottom = content[-RULE_BOTTOM_BAND:] if len(content) > RULE_TOP_BAND else []
    bottom = [c for c in bottom if c not in top]
    out: list[_RuleCandidate] = []
    for band, chosen in (("top", top), ("bottom", bottom)):
        for i, ok in chosen:
            if not ok:
                continue
            heading = HEADING_MARKS.match(lines[i].strip())
            text = _plain(lines[i].strip()[heading.end() :]) if heading else _plain(lines[i])
            out.append(_RuleCandidate(i, band, text, heading is not None))  # type: ignore[arg-type]
    return out, [i for i, _ in content]


def _first_heading(pages: Sequence[str]) -> tuple[int, int, tuple[str, ...]] | None:
    """(page, line, words) of the document's first markdown heading: its title, as far as text tells."""
    for page, text in enumerate(pages):
        for index, line in enumerate(text.split("\n")):
            if FIGURES_HEADING.fullmatch(line.strip()):
                break
            if match := HEADING_MARKS.match(line.strip()):
                words = _title_words(line.strip()[match.end() :])
                if words:
                    return page, index, words
    return None


def find_page_furniture(
    pages: Sequence[str],
    labels: Sequence[str | None] | None = None,
    marked: Iterable[Furniture] = (),
) -> list[Furniture]:
    """The lines the single-page rules find in each page's bands, in page and line order. ``labels``:
    each page's printed label (pages.label), which makes a line that reads the same a page number.
    ``marked``: lines already found to be furniture by surer means (the document's own artifacts, a
    layout model's header and footer regions): not judged again, though they keep their place in the
    page, so the bands are counted from the page's printed edges whatever took them."""
    title = _first_heading(pages)
    taken = {(m.page, m.line) for m in marked}
    out: list[Furniture] = []
    for page, text in enumerate(pages):
        if not text:
            continue
        lines = text.split("\n")
        candidates, content = _rule_candidates(lines)
        position = {index: n for n, index in enumerate(content)}
        label = labels[page] if labels is not None and page < len(labels) else None
        page_text = [lines[i] for i in content]
        first_heading = next((i for i in content if HEADING_MARKS.match(lines[i].strip())), None)
        candidates = [
            c for c in candidates if c.text and len(c.text) <= RULE_MAX_CHARS and (page, c.index) not in taken
        ]
        block = _journal_block(candidates, position)
        cited = _cited_pages(candidates)
        for c in candidates:
            n = position[c.index]
            neighbours = [_plain(lines[content[k]]) for k in (n - 1, n + 1) if 0 <= k < len(content)]
            outermost = n in (0, len(content) - 1)
            before = neighbours[0] if n > 0 else None  # the line above: the first neighbour when there is one
            found = _stamp(c, page_text, lines[c.index], before, outermost)
            if found is None and not c.heading:
                found = _match(c, label, neighbours, page_text, lines[c.index], outermost, cited)
                if found is None and c.index in block:
                    found = FurnitureWhy.JOURNAL.value, JOURNAL_BLOCK_CONFIDENCE
                if found is None:
                    found = _running_title(c, title, page, first_heading)
            if found is not None:
                why, confidence = found
                out.append(Furniture(page, c.index, c.band, lines[c.index], why, confidence))
    return out


def _cited_pages(candidates: Sequence[_RuleCandidate]) -> range | None:
    """The page range of the page's own citation line in its bands, if it has one."""
    for c in candidates:
        if c.heading or not (_JOURNAL.fullmatch(c.text) or _CITATION.fullmatch(c.text)):
            continue
        for match in _RANGE.finditer(c.text):
            first, last = int(match.group(1)), int(match.group(2))
            if first <= last <= first + CITED_MAX_PAGES:
                return range(first, last + 1)
    return None


def _piped_citation(text: str) -> bool:
    """A running head of short parts between bars, one of them the journal's volume or the page's DOI."""
    parts = [part.strip() for part in text.split("|")]
    if not 2 <= len(parts) <= PIPED_MAX_PARTS or not all(parts):
        return False
    if any(len(part.split()) > RUNNING_TITLE_MAX_WORDS or part.endswith((".", ":", ",")) for part in parts):
        return False
    return any(_PIPED_PART.fullmatch(part) for part in parts)


def _journal_block(candidates: Sequence[_RuleCandidate], position: dict[int, int]) -> set[int]:
    """The lines of a journal's footer or header set in short lines ("Communications August 1978", "of
    Volume 21", "the ACM Number 8"): adjacent band lines of at most JOURNAL_PART_MAX_WORDS words, each
    ending in a volume, a number or a month and year, holding a volume and a number or a month between
    them. One such line alone is a label of the body as often ("Volume 2" on a cover)."""
    out: set[int] = set()
    run: list[tuple[_RuleCandidate, re.Match[str]]] = []

    def close() -> None:
        groups = {name for _, m in run for name, value in m.groupdict().items() if value}
        if len(run) >= 2 and "volume" in groups and groups & {"number", "month"}:
            out.update(c.index for c, _ in run)
        run.clear()

    for c in candidates:
        match = _JOURNAL_PART.fullmatch(c.text) if not c.heading else None
        if match is None or len(c.text.split()) > JOURNAL_PART_MAX_WORDS:
            close()
            continue
        if run and (run[-1][0].band != c.band or position[run[-1][0].index] + 1 != position[c.index]):
            close()
        run.append((c, match))
    close()
    return out


def _stamp(
    c: _RuleCandidate, page_text: Sequence[str], raw: str, before: str | None, outermost: bool
) -> tuple[str, float] | None:
    """A stamp naming where the page comes from: a download stamp, a source address, the page's DOI.
    ``before``: the line above it, if any."""
    text = c.text
    if _DOWNLOAD.fullmatch(text):
        return FurnitureWhy.DOWNLOAD_STAMP.value, DOWNLOAD_STAMP_CONFIDENCE
    if _SOURCE.fullmatch(text):
        return FurnitureWhy.SOURCE_STAMP.value, SOURCE_STAMP_CONFIDENCE
    if _DOI.fullmatch(text) and not _bibliography(page_text, raw):
        return FurnitureWhy.DOI.value, DOI_CONFIDENCE
    if (
        _BARE_URL.fullmatch(text)
        and outermost
        # at the foot, the line above ends a sentence: an address ending a footnote's words stays
        and (c.band == "top" or before is None or _SENTENCE_END.search(before))
        and not _bibliography(page_text, raw)
    ):
        return FurnitureWhy.SOURCE_STAMP.value, BARE_URL_CONFIDENCE
    return None


def _match(
    c: _RuleCandidate,
    label: str | None,
    neighbours: Sequence[str],
    page_text: Sequence[str],
    raw: str,
    outermost: bool,
    cited: range | None = None,
) -> tuple[str, float] | None:
    text = c.text
    confidence = _page_number(text, label, neighbours, outermost, cited)
    if confidence is not None:
        return FurnitureWhy.PAGE_NUMBER.value, confidence
    if _COPYRIGHT.fullmatch(text) and len(text) <= 240:
        return FurnitureWhy.COPYRIGHT.value, COPYRIGHT_CONFIDENCE
    cites = (_JOURNAL.fullmatch(text) and not text.endswith(".")) or _CITATION.fullmatch(text)
    if (cites or _piped_citation(text)) and not _bibliography(page_text, raw):
        return FurnitureWhy.JOURNAL.value, JOURNAL_CONFIDENCE
    if _REVISION.fullmatch(text) and not any(_REVISION.fullmatch(n) for n in neighbours):
        # one stamp; a run of dated lines is a schedule or a change log
        return FurnitureWhy.REVISION.value, REVISION_CONFIDENCE
    if _AUTHORS.fullmatch(text) and not any(_AUTHORS.fullmatch(n) for n in neighbours):
        # one head; a column of names is a list of authors or a table
        return FurnitureWhy.RUNNING_AUTHORS.value, RUNNING_AUTHORS_CONFIDENCE
    return None


def _running_title(
    c: _RuleCandidate,
    title: tuple[int, int, tuple[str, ...]] | None,
    page: int,
    first_heading: int | None,
) -> tuple[str, float] | None:
    """A short top-band line repeating the document's first heading (not that heading itself), or a
    short all-caps line above the page's first heading."""
    if c.band != "top":
        return None
    words = _title_words(c.text)
    if not words or len(words) > RUNNING_TITLE_MAX_WORDS or c.text.endswith((".", ":", ",", ";")):
        return None
    # on the title's own page only a line above it: one below is a subtitle or the text
    if title is not None and (title[0] != page or c.index < title[1]):
        heading = title[2]
        if len(words) >= 2 and heading[: len(words)] == words:
            return FurnitureWhy.RUNNING_TITLE.value, RUNNING_TITLE_REPEAT_CONFIDENCE
    letters = [ch for ch in c.text if ch.isalpha()]
    visible = [ch for ch in c.text if not ch.isspace()]
    if (
        first_heading is not None
        and c.index < first_heading
        and all(ch.isupper() for ch in letters)
        and len(letters) >= RUNNING_TITLE_LETTER_SHARE * len(visible)
        and any(len(w) >= 3 and w.isalpha() for w in words)  # a word, not a formula's "U1 × X2"
    ):
        return FurnitureWhy.RUNNING_TITLE.value, RUNNING_TITLE_CAPS_CONFIDENCE
    return None
