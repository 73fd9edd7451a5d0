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
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
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
#: Documents shorter than this have no furniture: a two-page letter whose pages both open with the
#: sender's name has not enough pages to tell a running head from a coincidence.
FURNITURE_MIN_PAGES = 3


@dataclass(frozen=True, slots=True)
class Furniture:
    """One line to strip: ``page`` is the index into the sequence given to :func:`find_furniture`
    (0-based: the caller maps it to its page numbers), ``line`` the index of the line in that page's
    text split on ``\\n`` (0-based, blank lines counted), ``text`` the line as it stands."""

    page: int
    line: int
    band: Band
    text: str


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
                found[(page, index)] = Furniture(page, index, band, lines_of[page][index])
    return [found[k] for k in sorted(found)]


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
