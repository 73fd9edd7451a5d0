"""Running headers and footers: the lines of a page that are its furniture, not its text.

A page's final text comes from the text layer, the fallback reader, a repair or OCR (quality/sources.py),
so furniture is found on text lines, never on positions, in three ways: by repetition across the pages of
a document (:func:`quality.furniture_repeats.find_furniture`), by named rules that read one page at a time
(:func:`quality.furniture_rules.find_page_furniture`), and as the lines a tagged PDF marks as pagination
artifacts (:func:`find_tagged_artifacts`, here). Each line removed is a :class:`Furniture` saying which
rule took it (:class:`FurnitureWhy`); :func:`merge_furniture` keeps the surest where several did,
:func:`spare_body` gives back what would leave a page or the document without text, and
:func:`strip_furniture` removes the rest.

Never furniture: markdown table rows (a table continued over pages repeats its header row, which the
table needs), lines inside fenced code, the ``## Page N (transcribed figures)`` heading and what OCR read
in the figures under it (the bands end where it starts), and lines without a letter unless they are a
page number (digits with dashes, dots, brackets or slashes: "12", "- 12 -", "[12]", "12/40"), so a
closing brace or a lone rule in a code listing stays.

Pass every page of the document, in order, with an empty string for a page that has no text: windows,
the odd/even test and the page numbers count pages. Meant for paginated documents (PDFs, scans): a
workbook's sheets and a deck's slides are not pages with running heads, and what recurs at their top is
content (a financial workbook's sheets repeat their title and their unit line, "In millions of CHF",
which the figures below need).
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


#: Cross-page repetition: every line it found on the dev corpus read by eye, none of them body
#: (quality/furniture_repeats.py).
REPEATED_CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class Furniture:
    """One line to strip: ``page`` is the index into the sequence of pages given to the finder
    (0-based: the caller maps it to its page numbers), ``line`` the index of the line in that page's
    text split on ``\\n`` (0-based, blank lines counted), ``text`` the line as it stands."""

    page: int
    line: int
    band: Band
    text: str
    # the rule that found it (FurnitureWhy) and how sure it is, 0-1 (the *_CONFIDENCE constants)
    why: str = FurnitureWhy.REPEATED.value
    confidence: float = REPEATED_CONFIDENCE


#: The document marks the line itself (a tagged PDF's /Artifact /Pagination): no guess at all.
TAGGED_ARTIFACT_CONFIDENCE = 1.0

#: What the ways of finding furniture read alike: a page's lines, its table rows, fences and headings.
SPACES = re.compile(r"\s+")
HEADING_MARKS = re.compile(r"^#{1,6}\s+")
LETTER = re.compile(r"[^\W\d_]")
TABLE_ROW = re.compile(r"\s*\|")
FENCE = re.compile(r"\s{0,3}(?:```|~~~)")
FIGURES_HEADING = re.compile(r"## Page \d+ \(transcribed figures\)")


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
            if FIGURES_HEADING.fullmatch(line.strip()):
                break
            if line.strip():
                content.append(index)
        if not content or any(index not in taken for index in content):
            continue
        letters = {index: len(LETTER.findall(lines[index])) for index in content}
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
        figures = next((i for i, line in enumerate(lines) if FIGURES_HEADING.fullmatch(line.strip())), None)
        if figures is not None:
            lines = lines[:figures]
        wanted = Counter(
            folded
            for item in marked
            for part in item.split("\n")
            if (folded := SPACES.sub(" ", part.strip()))
        )
        # from both ends inwards: 0, n-1, 1, n-2, ...
        order = [
            i for pair in itertools.zip_longest(range(len(lines)), reversed(range(len(lines)))) for i in pair
        ]
        taken: set[int] = set()
        for index in order:
            if index is None or index in taken:
                continue
            folded = SPACES.sub(" ", lines[index].strip())
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
