"""Furniture found by repetition: lines that recur at the top or bottom of a document's pages.

The **top band** of a page is its first FURNITURE_BAND non-empty lines, the **bottom band** its last
FURNITURE_BAND. A line's **key** is its text with markdown heading marks dropped (a heading's key is
marked as one: it matches headings only), whitespace folded, case folded and every run of digits folded
to ``#``, so "Page 3 of 9", "- 12 -" and "Federal Register / Vol. 85" match across pages; a number
standing at either end of a line of words is left out of the key, so "47702 Federal Register ..." on odd
pages and "Federal Register ..." on even ones (the page number on a line of its own) are one key.

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

The constants were calibrated on the dev corpus's born-digital PDFs of 3 pages or more, every line found
read by eye: all running heads, page numbers, frame labels or stamps, no body line (docs/decisions.md,
"Text judging: calibration notes").
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from quality.furniture import (
    FENCE,
    FIGURES_HEADING,
    HEADING_MARKS,
    LETTER,
    REPEATED_CONFIDENCE,
    SPACES,
    TABLE_ROW,
    Band,
    Furniture,
    FurnitureWhy,
)

#: Lines at each end of a page that can be furniture: pages stack up to 3 lines of it at the top (a
#: drawing frame's labels) and 4 at the bottom (production stamps and graphic names under two figures).
#: Calibrated on the dev corpus's paginated PDFs, 3 to 6 lines tried (docs/decisions.md, "Text judging:
#: calibration notes").
FURNITURE_BAND = 4
#: Pages of the sliding window: short enough to stay inside one section of a book, long enough that the
#: share below needs 4 pages. Calibrated on a textbook's 2-20-page sections and the body lines that
#: recur on 3 nearby pages (docs/decisions.md, "Text judging: calibration notes").
FURNITURE_WINDOW = 8
#: Share of a window's pages (of its odd or even pages, for alternating heads) a key must stand on.
#: Calibrated on the dev corpus: running heads stand on 0.5-1.0 of a window's pages, body lines on at
#: most 0.375 (docs/decisions.md, "Text judging: calibration notes").
FURNITURE_MIN_SHARE = 0.5
#: Pages a key must stand on, whatever the share: two pages that open alike ("Definition", "Beweis:")
#: are chance; three in a window of eight that hold half of it are a pattern. It also makes the
#: odd/even test need 5 pages or more.
FURNITURE_MIN_REPEATS = 3
#: Documents shorter than this have no repeated furniture (the single-page rules still apply): a
#: two-page letter whose pages both open with the sender's name has not enough pages to tell a running
#: head from a coincidence.
FURNITURE_MIN_PAGES = 3

_DIGITS = re.compile(r"\d+")
_START_NUMBER = re.compile(r"^(\d+)\s+(?=\S)")
_END_NUMBER = re.compile(r"(?<=\S)\s+(\d+)$")
_PAGE_NUMBER = re.compile(r"[\s\-–—.·•/|()\[\]#]*#[\s\-–—.·•/|()\[\]#]*")
#: Keys of the second kind: a line of words with a number at its start (or end) that moves with the page.
_NUMBERED_HEAD = "\0numbered-head:"

Numbers = tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class _KeyedLine:
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
    text = SPACES.sub(" ", line.strip())
    if not text or TABLE_ROW.match(text) or FIGURES_HEADING.fullmatch(text):
        return None
    heading = HEADING_MARKS.match(text)
    if heading:
        text = text[heading.end() :]
    first: int | None = None
    last: int | None = None
    if LETTER.search(text):
        # A page number at either end is left out of the key: "47702 Federal Register" on odd pages
        # and "Federal Register" on even ones (the number on a line of its own) are one key.
        if match := _START_NUMBER.match(text):
            first, text = int(match.group(1)), text[match.end() :]
        if match := _END_NUMBER.search(text):
            last, text = int(match.group(1)), text[: match.start()]
    # a "#" of the text itself is kept apart from the folded digits
    key = _DIGITS.sub("#", text.casefold().replace("#", "\\#"))
    if not LETTER.search(key) and not _PAGE_NUMBER.fullmatch(key):
        return None  # neither words nor a page number: a brace, a rule, a formula
    numbers = (first, *(int(run) for run in _DIGITS.findall(text)), last)
    # A heading matches headings only: the title on page 1 is not the running head of pages 2-n.
    return ("\0heading:" + key if heading else key), numbers


def _bands(lines: Sequence[str], page: int) -> dict[Band, list[_KeyedLine]]:
    """The furniture candidates of a page's top and bottom bands."""
    candidates: list[tuple[int, str | None]] = []
    in_fence = False
    for index, line in enumerate(lines):
        if FIGURES_HEADING.fullmatch(line.strip()):
            break  # what follows is OCR of the page's figures, never furniture
        if FENCE.match(line):
            in_fence = not in_fence
            candidates.append((index, None))
        elif line.strip():
            candidates.append((index, None if in_fence else line))
    out: dict[Band, list[_KeyedLine]] = {}
    for band, chosen in (("top", candidates[:FURNITURE_BAND]), ("bottom", candidates[-FURNITURE_BAND:])):
        entries: list[_KeyedLine] = []
        for index, line in chosen:
            analysed = _analyse(line) if line is not None else None
            if analysed is None:
                continue
            key, numbers = analysed
            entries.append(_KeyedLine(index, key, numbers))
            # A line of words led or ended by a number: a running head carrying its page number, whatever
            # its words (a section's title over two pages). Keyed by the number's edge and its distance
            # from the page index, which a page number keeps from page to page. Only the page's outermost
            # line: a heading's or a contents entry's number matching the page's by chance is not enough.
            if index != chosen[0 if band == "top" else -1][0]:
                continue
            if numbers[0] is not None:
                entries.append(_KeyedLine(index, f"{_NUMBERED_HEAD}start:{numbers[0] - page}", ()))
            if numbers[-1] is not None:
                entries.append(_KeyedLine(index, f"{_NUMBERED_HEAD}end:{numbers[-1] - page}", ()))
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
    where: dict[tuple[Band, str], dict[int, _KeyedLine]] = defaultdict(dict)
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
