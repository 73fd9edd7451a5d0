"""Running headers and footers: lines that recur at the top or bottom of a document's pages.

A page's final text comes from the text layer, the fallback reader, a repair or OCR (quality/sources.py),
so furniture is found on text lines, never on positions: the **top band** of a page is its first
FURNITURE_BAND non-empty lines, the **bottom band** its last FURNITURE_BAND. A line's **key** is its
text with markdown heading marks dropped (a heading's key is marked as one: it matches headings only),
whitespace folded, case folded and every run of digits folded to ``#``, so "Page 3 of 9", "- 12 -" and
"Federal Register / Vol. 85" match across pages; a number standing at either end of a line of words is
left out of the key, so "47702 Federal Register ..." on odd pages and "Federal Register ..." on even
ones (the page number on a line of its own) are one key.

A key is furniture in a band when, within a sliding window of FURNITURE_WINDOW consecutive pages (the
whole document when it is shorter), it stands in that band on at least FURNITURE_MIN_SHARE of the
window's pages and on at least FURNITURE_MIN_REPEATS of them, and the numbers folded into it agree on
those pages: each the same on all of them, or moving with the page like a page number. A chapter's
running head is caught in the windows inside the chapter, whatever the next chapter's says, while
"Chapter 1" and "Chapter 2", or "(4) In the ... chapter," and "(5) In the ... chapter," are not a
running head. The same test is made over the window's odd pages and its even pages alone, which
catches the book that puts its title on even pages and the chapter on odd ones. A second kind of key
catches the running head that changes every few pages (a textbook's section titles, "48 3.2.
FUNDAMENTALGRUPPE"): the page's outermost line, led or ended by a number that stands at the same
distance from the page index on the window's pages. Nothing is furniture in a document under
FURNITURE_MIN_PAGES pages.

Never furniture: markdown table rows (a table continued over pages repeats its header row, which the
table needs), lines inside fenced code, the ``## Page N (transcribed figures)`` heading and what OCR read
in the figures under it (the bands end where it starts), and lines without a letter unless they are a
page number (digits with dashes, dots, brackets or slashes: "12", "- 12 -", "[12]", "12/40"), so a
closing brace or a lone rule in a code listing stays.

Pass every page of the document, in order, with an empty string for a page that has no text: windows,
the odd/even test and the page numbers count pages. Meant for paginated documents (PDFs, scans): a
workbook's sheets and a deck's slides are not pages with running heads, and what recurs at their top is
content (the sheets of the corpus's unst__2023-half-year-analyses-by-segment.xlsx repeat their title and
their unit line, "In millions of CHF", which the figures below need).

Calibration (the constants below): ``find_furniture`` run on the text the PyMuPDF reader gives for the
dev corpus's 10 born-digital PDFs of 3 pages or more (hidden runs removed first, as sanitize does),
every line it finds read by eye. It finds 282 lines on 265 pages, all of them running heads, page
numbers, the ESKD frame's labels, typesetting stamps or a graphic's file name: the Federal Register's
head on 14 of 15 pages (not the first) and its page numbers, the IEEE paper's head on 12 of 12, the
section heads of pyp__GeoTopo-komprimiert.pdf on 102 of 117 pages (the other 15 open a chapter or the
front or back matter and have none), zhlipsum's on 14 of 15, eskdx's frame on 33 of 35, samplebook's
page numbers on 21 of 22, the footer of pr-136's OCR layer ("第4 页共6 页") on 3 of 6 (page 2's layer
puts it 7 lines from the end, pages 1 and 3 have none). No body line is found.

Furniture on one page (:func:`find_page_furniture`): a document too short for repetition still prints
page numbers, download and source stamps, its DOI, copyright, journal and revision lines, a running title
and its authors' running head. Named rules each take a line of a page's top or bottom band
(RULE_TOP_BAND, RULE_BOTTOM_BAND) that they match as a whole, with a confidence per rule; lines a tagged
PDF marks as pagination artifacts are taken whatever they say (:func:`find_tagged_artifacts`), and lines
already taken so (or by any surer means, such as a layout model's header and footer regions) are passed
as ``marked`` and not judged again. Each line removed says which rule took it (:class:`FurnitureWhy`);
:func:`merge_furniture` keeps the surest where several did.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

Band = Literal["top", "bottom"]

#: Lines at each end of a page that can be furniture. On the corpus, pages stack up to 3 lines of
#: furniture at the top (the ESKD frame of deb-ru__eskdx.pdf: "Лист", "Изм. Лист №докум. Подп. Дата",
#: the page number) and up to 4 at the bottom (the Federal Register's pages with two figures: the GPO
#: stamp "VerDate ...", two graphic names "EP06AU20.014</GPH>", "jbell on ..."; these are drawn white
#: and sanitize removes them as hidden text first, but a fallback reader's text still has them). With
#: 3 lines the stamp is found on 11 of those 15 pages, with 4 on 14 (the 15th has another "Sfmt"
#: number); 5 and 6 find nothing more, and each extra line is one more chance for a body line to recur.
FURNITURE_BAND = 4
#: Pages of the sliding window: short enough to stay inside one section of a book (the sections of
#: pyp__GeoTopo-komprimiert.pdf run 2-20 pages), long enough that the share below needs 4 pages, which
#: no body line of the corpus reaches. With 6 (3 pages of 6) the Federal Register's "(4) In the
#: Operating Procedures chapter," (pages 9-11, numbered 4, 5, 6) and GeoTopo's figure label "γ1" at
#: the top of 3 nearby pages become furniture.
FURNITURE_WINDOW = 8
#: Share of a window's pages (of its odd or even pages, for alternating heads) a key must stand on.
#: On the corpus, running heads stand on 0.5-1.0 of a window's pages (0.5: a section head over 4
#: pages, pr-136's footer on 3 of its 6); body lines on at most 0.375 (3 of 8: "Beweis:" at the foot
#: of GeoTopo pages, the "(N) In the Operating Procedures chapter," above, "γ1"), or on half of a parity
#: population with 2 pages ("Definition", "Bemerkung"), which FURNITURE_MIN_REPEATS rules out.
FURNITURE_MIN_SHARE = 0.5
#: Pages a key must stand on, whatever the share: two pages that open alike ("Definition", "Beweis:")
#: are chance; three in a window of eight that hold half of it are a pattern. It also makes the
#: odd/even test need 5 pages or more.
FURNITURE_MIN_REPEATS = 3
#: Documents shorter than this have no repeated furniture (the single-page rules still apply): a
#: two-page letter whose pages both open with the sender's name has not enough pages to tell a running
#: head from a coincidence.
FURNITURE_MIN_PAGES = 3


class FurnitureWhy(StrEnum):
    """The rule that made a line furniture (``furniture.why``)."""

    REPEATED = "repeated"  # the same line in the same band on many pages (find_furniture)
    PAGE_NUMBER = "page_number"
    DOWNLOAD_STAMP = "download_stamp"
    DOI = "doi"
    COPYRIGHT = "copyright"
    JOURNAL = "journal"
    REVISION = "revision"
    RUNNING_TITLE = "running_title"
    RUNNING_AUTHORS = "running_authors"  # "SMITH ET AL.": the authors' running head
    SOURCE_STAMP = "source_stamp"  # "Source: <url>", a repository's or a printer's address of the page
    TAGGED_ARTIFACT = "tagged_artifact"  # the document marks the line as a pagination artifact
    LAYOUT_MODEL = "layout_model"  # a page-header or page-footer region of PyMuPDF's layout model


#: Cross-page repetition: 282 lines read by eye on the dev corpus, none of them body (module docstring).
REPEATED_CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class Furniture:
    """One line to strip: ``page`` is the index into the sequence given to :func:`find_furniture`
    (0-based: the caller maps it to its page numbers), ``line`` the index of the line in that page's
    text split on ``\\n`` (0-based, blank lines counted), ``text`` the line as it stands."""

    page: int
    line: int
    band: Band
    text: str
    # the rule that found it (FurnitureWhy) and how sure it is, 0-1 (the *_CONFIDENCE constants)
    why: str = FurnitureWhy.REPEATED.value
    confidence: float = REPEATED_CONFIDENCE


_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_HEADING_MARKS = re.compile(r"^#{1,6}\s+")
_START_NUMBER = re.compile(r"^(\d+)\s+(?=\S)")
_END_NUMBER = re.compile(r"(?<=\S)\s+(\d+)$")
_PAGE_NUMBER = re.compile(r"[\s\-–—.·•/|()\[\]#]*#[\s\-–—.·•/|()\[\]#]*")
_LETTER = re.compile(r"[^\W\d_]")
_TABLE_ROW = re.compile(r"\s*\|")
_FENCE = re.compile(r"\s{0,3}(?:```|~~~)")
_FIGURES_HEADING = re.compile(r"## Page \d+ \(transcribed figures\)")
#: Keys of the second kind: a line of words with a number at its start (or end) that moves with the page.
_NUMBERED_HEAD = "\0numbered-head:"

Numbers = tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class _Line:
    """A band line as the pages are compared by: its key and the numbers the key folded (the number at
    each end of a line of words first, None where there is none, then the numbers inside)."""

    index: int
    key: str
    numbers: Numbers


def line_key(line: str) -> str | None:
    """The key a line is compared by across pages, or None when the line can never be furniture."""
    analysed = _analyse(line)
    return analysed[0] if analysed else None


def _analyse(line: str) -> tuple[str, Numbers] | None:
    text = _SPACES.sub(" ", line.strip())
    if not text or _TABLE_ROW.match(text) or _FIGURES_HEADING.fullmatch(text):
        return None
    heading = _HEADING_MARKS.match(text)
    if heading:
        text = text[heading.end() :]
    first: int | None = None
    last: int | None = None
    if _LETTER.search(text):
        # A page number at either end is left out of the key: "47702 Federal Register" on odd pages
        # and "Federal Register" on even ones (the number on a line of its own) are one key.
        if match := _START_NUMBER.match(text):
            first, text = int(match.group(1)), text[match.end() :]
        if match := _END_NUMBER.search(text):
            last, text = int(match.group(1)), text[: match.start()]
    # a "#" of the text itself is kept apart from the folded digits
    key = _DIGITS.sub("#", text.casefold().replace("#", "\\#"))
    if not _LETTER.search(key) and not _PAGE_NUMBER.fullmatch(key):
        return None  # neither words nor a page number: a brace, a rule, a formula
    numbers = (first, *(int(run) for run in _DIGITS.findall(text)), last)
    # A heading matches headings only: the title on page 1 is not the running head of pages 2-n.
    return ("\0heading:" + key if heading else key), numbers


def _bands(lines: Sequence[str], page: int) -> dict[Band, list[_Line]]:
    """The furniture candidates of a page's top and bottom bands."""
    candidates: list[tuple[int, str | None]] = []
    in_fence = False
    for index, line in enumerate(lines):
        if _FIGURES_HEADING.fullmatch(line.strip()):
            break  # what follows is OCR of the page's figures, never furniture
        if _FENCE.match(line):
            in_fence = not in_fence
            candidates.append((index, None))
        elif line.strip():
            candidates.append((index, None if in_fence else line))
    out: dict[Band, list[_Line]] = {}
    for band, chosen in (("top", candidates[:FURNITURE_BAND]), ("bottom", candidates[-FURNITURE_BAND:])):
        entries: list[_Line] = []
        for index, line in chosen:
            analysed = _analyse(line) if line is not None else None
            if analysed is None:
                continue
            key, numbers = analysed
            entries.append(_Line(index, key, numbers))
            # A line of words led or ended by a number: a running head carrying its page number, whatever
            # its words (a section's title over two pages). Keyed by the number's edge and its distance
            # from the page index, which a page number keeps from page to page. Only the page's outermost
            # line: a heading's or a contents entry's number matching the page's by chance is not enough.
            if index != chosen[0 if band == "top" else -1][0]:
                continue
            if numbers[0] is not None:
                entries.append(_Line(index, f"{_NUMBERED_HEAD}start:{numbers[0] - page}", ()))
            if numbers[-1] is not None:
                entries.append(_Line(index, f"{_NUMBERED_HEAD}end:{numbers[-1] - page}", ()))
        out[band] = entries
    return out


def _consistent(hits: dict[int, Numbers]) -> list[int]:
    """The pages whose lines' numbers agree: each number either the same on all of them or moving with
    the page (a page number: value minus page index the same on all of them); a page without a number
    where others have one (a page number at a line's end on odd pages only) agrees.

    Folding digits makes "Chapter 1" and "Chapter 2", or "(4) In the ... chapter," and "(5) In the ...
    chapter," one key; their numbers follow neither rule, so those lines are not a running head. Which
    rule a number follows is decided by which of the two more pages agree on.
    """
    if not hits:
        return []
    widths = Counter(len(numbers) for numbers in hits.values())
    width = widths.most_common(1)[0][0]
    pages = [p for p, numbers in hits.items() if len(numbers) == width]
    agree = set(pages)
    for i in range(width):
        present = [(p, value) for p in pages if (value := hits[p][i]) is not None]
        if len({value for _, value in present}) <= 1:
            continue  # the same wherever it stands (the common case: a head's fixed numbers)
        same = Counter(value for _, value in present).most_common(1)[0]
        moving = Counter(value - p for p, value in present).most_common(1)[0]
        if moving[1] > same[1]:
            agree -= {p for p, value in present if value - p != moving[0]}
        else:
            agree -= {p for p, value in present if value != same[0]}
    return sorted(agree)


def find_furniture(pages: Sequence[str]) -> list[Furniture]:
    """The running header and footer lines of a document's pages, in page and line order."""
    if len(pages) < FURNITURE_MIN_PAGES:
        return []
    lines_of = [text.split("\n") for text in pages]
    bands = [_bands(lines, page) for page, lines in enumerate(lines_of)]
    # per band and key: the pages it stands on, with its line there (the first, if it stands twice)
    where: dict[tuple[Band, str], dict[int, _Line]] = defaultdict(dict)
    for page, page_bands in enumerate(bands):
        for band, entries in page_bands.items():
            for entry in entries:
                where[(band, entry.key)].setdefault(page, entry)
    furniture_pages: dict[tuple[Band, str], set[int]] = defaultdict(set)
    size = min(FURNITURE_WINDOW, len(pages))
    last_start = len(pages) - size
    for (band, key), on in where.items():
        if len(on) < FURNITURE_MIN_REPEATS:
            continue
        # when the numbers agree on all the key's pages they agree on any of them: no need to ask again
        agree_everywhere = len(_consistent({p: line.numbers for p, line in on.items()})) == len(on)
        # only the windows that hold one of the key's pages can count it
        starts = sorted({s for p in on for s in range(max(0, p - size + 1), min(p, last_start) + 1)})
        for start in starts:
            window = range(start, start + size)
            for population in (window, window[0::2], window[1::2]):
                present = {p: on[p].numbers for p in population if p in on}
                hits = list(present) if agree_everywhere else _consistent(present)
                if len(hits) >= FURNITURE_MIN_REPEATS and len(hits) >= FURNITURE_MIN_SHARE * len(population):
                    furniture_pages[(band, key)].update(hits)
    found: dict[tuple[int, int], Furniture] = {}
    for (band, key), on_pages in furniture_pages.items():
        for page in on_pages:
            index = where[(band, key)][page].index
            if (page, index) not in found or band == "top":
                found[(page, index)] = Furniture(
                    page, index, band, lines_of[page][index], FurnitureWhy.REPEATED.value, REPEATED_CONFIDENCE
                )
    return [found[k] for k in sorted(found)]


def spare_body(pages: Sequence[str], furniture: Iterable[Furniture]) -> list[Furniture]:
    """``furniture`` without what would leave a page or the document with no body text.

    A page whose every line was found to be furniture keeps its line with the most letters (the first of
    equals) as body: a line that is all there is on a page is the page's text, whatever it repeats (a
    document of one line per page, "Document 1: Page 2", whose lines fold to one key). A page whose lines
    have no letter (a page number alone) gives up nothing to that rule; but when stripping would leave the
    whole document without text, nothing is taken from it. The lines of a page are those before its
    transcribed figures, as the rules see them.
    """
    found = list(furniture)
    by_page: dict[int, set[int]] = defaultdict(set)
    for item in found:
        by_page[item.page].add(item.line)
    spared: set[tuple[int, int]] = set()
    for page, taken in by_page.items():
        lines = pages[page].split("\n")
        content = []
        for index, line in enumerate(lines):
            if _FIGURES_HEADING.fullmatch(line.strip()):
                break
            if line.strip():
                content.append(index)
        if not content or any(index not in taken for index in content):
            continue
        letters = {index: len(_LETTER.findall(lines[index])) for index in content}
        best = max(content, key=lambda index: (letters[index], -index))
        if letters[best]:
            spared.add((page, best))
    kept = [item for item in found if (item.page, item.line) not in spared]
    if kept and not any(text.strip() for text in strip_furniture(pages, kept)):
        return []
    return kept


def strip_furniture(pages: Sequence[str], furniture: Iterable[Furniture]) -> list[str]:
    """The pages without their furniture lines; blank lines the removal leaves at a page's ends or
    doubled in its middle are dropped, so no page starts or ends with a hole."""
    by_page: dict[int, set[int]] = defaultdict(set)
    for item in furniture:
        by_page[item.page].add(item.line)
    out: list[str] = []
    for page, text in enumerate(pages):
        drop = by_page.get(page)
        if not drop:
            out.append(text)
            continue
        kept: list[str] = []
        after_drop = False
        last_content = -1  # index (in the page) of the last kept line with content
        for index, line in enumerate(text.split("\n")):
            if index in drop:
                after_drop = True
                continue
            blank = not line.strip()
            if blank and after_drop and (not kept or not kept[-1].strip()):
                continue  # a blank line the dropped line stood next to: the previous one is enough
            kept.append(line)
            after_drop = after_drop and blank
            if not blank:
                last_content = index
        if max(drop) > last_content:  # the page's last lines went: so do the blank lines before them
            while kept and not kept[-1].strip():
                kept.pop()
        out.append("\n".join(kept))
    return out


# --- furniture on one page ----------------------------------------------------------------------------
#
# Repetition needs pages to compare; a one- or two-page document (an article's first page, a letter, a
# printed web page) still carries a download stamp, its DOI, a journal line, a copyright line and a page
# number. These rules read one page at a time: a line is furniture when it stands in the page's top or
# bottom band (its first RULE_TOP_BAND, last RULE_BOTTOM_BAND non-empty lines, before any transcribed
# figures) and one rule matches the whole line (markdown emphasis around it dropped). Never a heading, a
# table row, a line inside fenced code, or a line a rule only matches part of: a sentence mentioning a
# download, a DOI inside a reference, a number in a table row stay. Each rule has a confidence, the share
# of its matches that are furniture as judged on the dev corpus and on the shapes publishers print.
#
# Calibration: the sanitize stage over the dev corpus, every line these rules took read by eye. They
# take 18 lines in 14 documents, all furniture: 13 page numbers ("١", "1 von 19", "Page 1 of 205",
# "第2 页共6 页", "Página 12 de 14", "PG 44", "iii"...), 2 print stamps ("24.08.2016 21:00", "Printed
# by"), an arXiv stamp, a "Data in Brief 22 (2019) 451–457" line and the ESKD frame's title on page 2
# of eskdx. Before the guards on bare numbers and capitals they also took 17 formula letters and
# indices of pyp__GeoTopo-komprimiert.pdf ("x", "1", "U1 × X2 U2 × X2"), a place number of an OCR'd
# map, a listing's line number and a transcript's first line number; run over the corpus's HTML,
# e-mail and office texts cut into 40-line pages they took only Wikipedia's lone citation marks
# ("[5]", now refused) and two real copyright lines. Known misses: bare dates ("Mittwoch Mai 30, 2018"),
# stamps in other words ("Wydruk pochodzi z systemu wFirma.pl"), and furniture the text's order puts
# inside the page (the Federal Register's masthead after the boxed notice on its page 1, the CACM page
# number "633" at the end of the left column): the bands are lines of text, not places on the page.
#
# The rules for citations in the journals' styles, journal footers in short lines, authors' running
# heads, source stamps and numbers in the page's cited range take 5 more lines of the dev corpus's full
# run (293 furniture rows against 288), each read on the rendered page: the CACM footer ("Communications
# August 1978", "of Volume 21", "the ACM Number 8"), the repository's "Source: <url>" under an OCR'd
# scan and the journal's "454" on the document's page 4; on 400 PDFs of the robust set and the 35 of
# the tables set they took 3 addresses alone at the top of a test page ("www.mozilla.org"), content, and
# none once a page's address had to have a path.


#: Non-empty lines at the top and bottom of a page the single-page rules look at. An article's first
#: page stacks 4 lines of header (journal line, "Contents lists available at", journal name, homepage)
#: and 5 of footer under its footnotes (corresponding author, e-mail, DOI, received/accepted, copyright).
#: On the dev corpus (`find_page_furniture` over every paged document's final page texts, each line
#: read): with bands of 3 the rules take 15 lines, 5 take 16 (+ "Printed by" of a printed listing,
#: 3rd from the end), 8 take 18 (+ its "Page 1/1", 6th from the end, and pr-136's "第2 页共6 页", 7th
#: from the end of page 2); no band from 3 to 8 takes a body line, and all top-band matches stand in
#: the first 3 lines, so the top band stays at 5.
RULE_TOP_BAND = 5
RULE_BOTTOM_BAND = 8

#: The document marks the line itself (a tagged PDF's /Artifact /Pagination): no guess at all.
TAGGED_ARTIFACT_CONFIDENCE = 1.0
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
#: × X2" above a heading of pyp__GeoTopo-komprimiert.pdf has 4 letters in 10 characters).
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
    text = _SPACES.sub(" ", line.strip())
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
class _Candidate:
    index: int  # line index in the page's text
    band: Band
    text: str  # as the rules read it (_plain; a heading without its marks)
    # a markdown heading: only a stamp (an address, a download, a DOI) can be one; OCR and layout readers
    # make a stamp set apart at a page's foot a heading ("# Source: https://...")
    heading: bool = False


def _rule_candidates(lines: Sequence[str]) -> tuple[list[_Candidate], list[int]]:
    """The band lines the single-page rules may take, and the indices of every non-empty line before any
    transcribed figures (the page's lines, for the neighbour and bibliography tests)."""
    content: list[tuple[int, bool]] = []  # (index, may be furniture)
    in_fence = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if _FIGURES_HEADING.fullmatch(stripped):
            break
        if _FENCE.match(line):
            in_fence = not in_fence
            content.append((index, False))
        elif stripped:
            content.append((index, not in_fence and not _TABLE_ROW.match(stripped)))
    top = content[:RULE_TOP_BAND]
    bottom = content[-RULE_BOTTOM_BAND:] if len(content) > RULE_TOP_BAND else []
    bottom = [c for c in bottom if c not in top]
    out: list[_Candidate] = []
    for band, chosen in (("top", top), ("bottom", bottom)):
        for i, ok in chosen:
            if not ok:
                continue
            heading = _HEADING_MARKS.match(lines[i].strip())
            text = _plain(lines[i].strip()[heading.end() :]) if heading else _plain(lines[i])
            out.append(_Candidate(i, band, text, heading is not None))  # type: ignore[arg-type]
    return out, [i for i, _ in content]


def _first_heading(pages: Sequence[str]) -> tuple[int, int, tuple[str, ...]] | None:
    """(page, line, words) of the document's first markdown heading: its title, as far as text tells."""
    for page, text in enumerate(pages):
        for index, line in enumerate(text.split("\n")):
            if _FIGURES_HEADING.fullmatch(line.strip()):
                break
            if match := _HEADING_MARKS.match(line.strip()):
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
        first_heading = next((i for i in content if _HEADING_MARKS.match(lines[i].strip())), None)
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


def _cited_pages(candidates: Sequence[_Candidate]) -> range | None:
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


def _journal_block(candidates: Sequence[_Candidate], position: dict[int, int]) -> set[int]:
    """The lines of a journal's footer or header set in short lines ("Communications August 1978", "of
    Volume 21", "the ACM Number 8"): adjacent band lines of at most JOURNAL_PART_MAX_WORDS words, each
    ending in a volume, a number or a month and year, holding a volume and a number or a month between
    them. One such line alone is a label of the body as often ("Volume 2" on a cover)."""
    out: set[int] = set()
    run: list[tuple[_Candidate, re.Match[str]]] = []

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
    c: _Candidate, page_text: Sequence[str], raw: str, before: str | None, outermost: bool
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
    c: _Candidate,
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
    c: _Candidate,
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


def find_tagged_artifacts(pages: Sequence[str], artifacts: Sequence[Sequence[str]]) -> list[Furniture]:
    """The lines each page's document marks as pagination artifacts (``artifacts[page]``, as they stand
    in the text), whole lines only: each listed line takes one line of the page that reads the same
    (whitespace folded), the one nearest the page's ends, where furniture stands. Its band is the end
    it is nearer. The OCR of the page's figures under its transcribed-figures heading is not the text
    layer the artifacts were marked in: never taken."""
    out: list[Furniture] = []
    for page, text in enumerate(pages):
        marked = artifacts[page] if page < len(artifacts) else ()
        if not text or not marked:
            continue
        lines = text.split("\n")
        figures = next((i for i, line in enumerate(lines) if _FIGURES_HEADING.fullmatch(line.strip())), None)
        if figures is not None:
            lines = lines[:figures]
        wanted = Counter(
            folded
            for item in marked
            for part in item.split("\n")
            if (folded := _SPACES.sub(" ", part.strip()))
        )
        # from both ends inwards: 0, n-1, 1, n-2, ...
        order = [
            i for pair in itertools.zip_longest(range(len(lines)), reversed(range(len(lines)))) for i in pair
        ]
        taken: set[int] = set()
        for index in order:
            if index is None or index in taken:
                continue
            folded = _SPACES.sub(" ", lines[index].strip())
            if folded and wanted[folded] > 0:
                wanted[folded] -= 1
                taken.add(index)
        for index in sorted(taken):
            band: Band = "top" if index < len(lines) / 2 else "bottom"
            out.append(
                Furniture(
                    page,
                    index,
                    band,
                    lines[index],
                    FurnitureWhy.TAGGED_ARTIFACT.value,
                    TAGGED_ARTIFACT_CONFIDENCE,
                )
            )
    return out


def merge_furniture(*found: Iterable[Furniture]) -> list[Furniture]:
    """One entry per line, in page and line order: where several rules took a line, the surest one (the
    first given, on a tie)."""
    best: dict[tuple[int, int], Furniture] = {}
    for items in found:
        for item in items:
            key = (item.page, item.line)
            if key not in best or item.confidence > best[key].confidence:
                best[key] = item
    return [best[k] for k in sorted(best)]
