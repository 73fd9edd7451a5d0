"""Furniture found on one page: the single-page rules of quality/furniture.py (page numbers, download
stamps, DOIs, copyright, journal and revision lines, running titles), the lines a tagged document marks
as artifacts, and what sanitize records of them. Body text that only looks like furniture stays."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality.furniture import (
    TAGGED_ARTIFACT_CONFIDENCE,
    Furniture,
    FurnitureWhy,
    find_tagged_artifacts,
    merge_furniture,
    spare_body,
    strip_furniture,
)
from quality.furniture_repeats import find_furniture
from quality.furniture_rules import (
    DOWNLOAD_STAMP_CONFIDENCE,
    RULE_BOTTOM_BAND,
    RULE_TOP_BAND,
    find_page_furniture,
)
from quality.records import PageTextRecord
from quality.sanitizer import sanitize_document
from readers.core.model import ReadLimits
from readers.core.reader_chain import reader

#: Prose lines no rule takes, enough that a page has a middle outside both bands.
BODY = [
    "Wheat yield rose with soil moisture on all twelve plots we measured,",
    "and the effect was strongest in the dry spring of the second year.",
    "Plots watered by drip irrigation kept their moisture through June.",
    "Nitrogen was applied at the same rate on every plot in both years.",
    "Yields were weighed at harvest and corrected to a common moisture.",
    "The unwatered plots lost a third of their yield in the dry year,",
    "while the watered ones lost less than a tenth of theirs overall.",
    "Rain in the autumn restored the moisture of all plots by October.",
    "The second spring was wet, and the plots yielded alike that year.",
    "We conclude that moisture in spring decides most of the yield here.",
    "Further seasons are needed to tell the weather from the soil apart.",
    "The field station kept the plots under the same crop rotation.",
]

FURNITURE_LINES = [
    ("3", FurnitureWhy.PAGE_NUMBER),
    ("Page 3 of 10", FurnitureWhy.PAGE_NUMBER),
    ("- 3 -", FurnitureWhy.PAGE_NUMBER),
    ("iii", FurnitureWhy.PAGE_NUMBER),
    ("3 | Journal of Soil Studies", FurnitureWhy.PAGE_NUMBER),
    ("第4 页共6 页", FurnitureWhy.PAGE_NUMBER),
    ("Página 12 de 14", FurnitureWhy.PAGE_NUMBER),
    ("١", FurnitureWhy.PAGE_NUMBER),
    (
        "Downloaded from https://academic.example.org/soil/article/12 on May 3, 2021",
        FurnitureWhy.DOWNLOAD_STAMP,
    ),
    ("Downloaded by University of Leeds at 10:22 12 May 2021", FurnitureWhy.DOWNLOAD_STAMP),
    ("This content downloaded from 128.42.0.7 on Tue, 04 Jan 2022 10:22:31 UTC", FurnitureWhy.DOWNLOAD_STAMP),
    ("doi:10.1016/j.x.2020.01.001", FurnitureWhy.DOI),
    ("https://doi.org/10.1016/j.x.2020.01.001", FurnitureWhy.DOI),
    ("arXiv:2004.04906v3 [cs.CL] 30 Sep 2020", FurnitureWhy.DOI),
    ("© 2020 Elsevier Ltd. All rights reserved.", FurnitureWhy.COPYRIGHT),
    ("Copyright © 2019 The Authors", FurnitureWhy.COPYRIGHT),
    ("Journal of X 12 (2020) 1–20", FurnitureWhy.JOURNAL),
    ("Vol. 3, No. 2, pp. 11-19", FurnitureWhy.JOURNAL),
    ("O. Sanni, A.P.I. Popoola / Data in Brief 22 (2019) 451–457", FurnitureWhy.JOURNAL),
    ("Sensors 2020, 20, 1234", FurnitureWhy.JOURNAL),
    ("Revision: 2.4", FurnitureWhy.REVISION),
    ("Printed 2021-03-04", FurnitureWhy.REVISION),
    ("24.08.2016 21:00", FurnitureWhy.REVISION),
    ("**Page 7 of 9**", FurnitureWhy.PAGE_NUMBER),  # emphasis around the line does not hide it
]

#: Lines a rule's words appear in but that are not furniture as a whole: body text stays.
BODY_LOOKALIKES = [
    "2020",  # a year alone: a date on a cover, not a page number
    "Downloaded files are kept in the local cache for a week.",
    "The DOI of the earlier study, doi:10.1000/xyz123, is cited below.",
    "Copyright law protects the data set as a whole.",
    "We used version 3 of the model in all of these runs.",
    "Table 3",
    "12/5",  # a ratio or a date: page 12 of 5 does not exist
    "Chapter 1",
    "I",
    "# 3",  # a heading
    "| 3 | 4 |",  # a table row
    "Vol. 3 of the series appeared in print soon after.",
    "Mittwoch Mai 30, 2018",  # a date alone: a letter's date is content
    "[5]",  # a citation mark left alone on its line
    "(c) 2019 amendments to the act took effect in May.",  # a list item, not a copyright line
    "Copyright 2020 changes to the act were approved.",
    "Downloaded from the archive, e.g the copy the library keeps.",
]


def _page(*, top: list[str] = (), bottom: list[str] = (), middle: list[str] = ()) -> str:
    """A page of 24 body lines, ``middle`` between its halves: outside both bands."""
    assert len(BODY) >= max(RULE_TOP_BAND, RULE_BOTTOM_BAND)
    return "\n".join([*top, *BODY, *middle, *BODY, *bottom])


@pytest.mark.parametrize(("line", "why"), FURNITURE_LINES)
def test_each_rule_takes_its_line_at_either_end_of_a_page(line: str, why: FurnitureWhy) -> None:
    for page in (_page(top=[line]), _page(bottom=[line])):
        found = find_page_furniture([page])
        assert [(f.text, f.why) for f in found] == [(line, why.value)], page
        assert 0 < found[0].confidence <= 1


@pytest.mark.parametrize(("line", "why"), FURNITURE_LINES)
def test_no_rule_takes_a_line_in_the_middle_of_a_page(line: str, why: FurnitureWhy) -> None:
    assert find_page_furniture([_page(middle=[line])]) == []


@pytest.mark.parametrize("line", BODY_LOOKALIKES)
def test_body_lines_that_look_like_furniture_stay(line: str) -> None:
    assert find_page_furniture([_page(top=[line])]) == []
    assert find_page_furniture([_page(bottom=[line])]) == []


def test_a_column_of_numbers_is_data_not_page_numbers() -> None:
    # a transcript's line numbers, a table read line by line
    page = "\n".join(["1", "2", "3", *BODY, "41", "42"])
    assert find_page_furniture([page]) == []


def test_runs_of_dated_lines_and_numbered_rows_are_data() -> None:
    schedule = ["12.03.2020 10:00", "12.03.2020 11:30", "13.03.2020 09:00"]
    assert find_page_furniture([_page(bottom=schedule)]) == []
    rows = ["12 | Total revenue", "13 | Operating costs"]
    assert find_page_furniture([_page(bottom=rows)]) == []


def test_an_author_year_bibliography_keeps_its_journal_lines() -> None:
    references = [
        "Smith, J. and Brown, C. Soil and water in the dry years,",
        "Journal of Soil Studies 12 (2020) 1–20",
        "Jones, B. Moisture and yield on twelve plots,",
        "Field Crops Research 3 (2019) 11–19",
    ]
    assert find_page_furniture(["\n".join([*BODY, *references])]) == []


def test_a_bibliography_keeps_its_dois_and_journal_lines() -> None:
    references = [
        "[1] A. Smith, Soil and water, Journal of Soil Studies 12 (2020) 1–20,",
        "https://doi.org/10.1016/j.soil.2020.01.001",
        "[2] B. Jones, Moisture and yield, Field Crops 3 (2019) 11–19,",
        "https://doi.org/10.1016/j.fc.2019.02.002",
        "[3] C. Brown, Drip irrigation, Agricultural Water 7 (2018) 5–9,",
        "https://doi.org/10.1016/j.aw.2018.03.003",
    ]
    page = "\n".join([*BODY, *references])
    assert find_page_furniture([page]) == []


def test_the_page_label_makes_a_matching_line_a_page_number() -> None:
    page = _page(bottom=["A-3"])
    assert find_page_furniture([page]) == []  # "A-3" alone could be anything
    (found,) = find_page_furniture([page], ["A-3"])
    assert (found.text, found.why) == ("A-3", FurnitureWhy.PAGE_NUMBER.value)


def test_a_bare_number_is_the_pages_label_or_its_outermost_line() -> None:
    # a book's page 48 whose formula ends in "1": not its page number
    assert find_page_furniture([_page(bottom=["1"])], ["48"]) == []
    assert [f.text for f in find_page_furniture([_page(bottom=["48"])], ["48"])] == ["48"]
    # without a label, only the page's first or last line
    assert find_page_furniture([_page(bottom=["4", BODY[0] + " again"])]) == []
    assert find_page_furniture([_page(bottom=["x"])]) == []  # a formula's letter, not a numeral
    assert [f.text for f in find_page_furniture([_page(bottom=["xii"])])] == ["xii"]


def test_running_titles_repeat_the_title_or_stand_in_capitals_above_it() -> None:
    repeat = "Soil Moisture and Wheat Yield\n\n# Soil Moisture and Wheat Yield: Twelve Plots\n" + "\n".join(
        BODY
    )
    (found,) = find_page_furniture([repeat])
    assert (found.line, found.why) == (0, FurnitureWhy.RUNNING_TITLE.value)
    caps = "RESEARCH ARTICLE\n# Soil Moisture and Wheat Yield\n" + "\n".join(BODY)
    (kicker,) = find_page_furniture([caps])
    assert kicker.text == "RESEARCH ARTICLE" and kicker.confidence < found.confidence
    # a line below the title on its own page is a subtitle or the text
    subtitle = "# Soil Moisture and Wheat Yield\nSoil Moisture and Wheat\n" + "\n".join(BODY)
    assert find_page_furniture([subtitle]) == []
    # the title itself, a capital line below the heading, a capital line without any heading: kept
    assert find_page_furniture(["# Soil Moisture and Wheat Yield\nABSTRACT\n" + "\n".join(BODY)]) == []
    assert find_page_furniture(["ANNUAL REPORT\n" + "\n".join(BODY)]) == []
    # a later page's running title repeats the first page's heading
    later = find_page_furniture(
        [repeat.split("\n", 2)[2], "Soil Moisture and Wheat Yield\n" + "\n".join(BODY)]
    )
    assert [(f.page, f.line, f.why) for f in later] == [(1, 0, FurnitureWhy.RUNNING_TITLE.value)]


def test_tagged_artifacts_are_taken_whole_nearest_the_page_ends() -> None:
    page = "\n".join(["Annual Report", *BODY[:3], "Annual Report", *BODY[3:], "Page 2"])
    found = find_tagged_artifacts([page], [["Annual Report", "Page 2", "Not on the page"]])
    assert [(f.line, f.band, f.why, f.confidence) for f in found] == [
        (0, "top", FurnitureWhy.TAGGED_ARTIFACT.value, TAGGED_ARTIFACT_CONFIDENCE),
        (len(BODY) + 2, "bottom", FurnitureWhy.TAGGED_ARTIFACT.value, TAGGED_ARTIFACT_CONFIDENCE),
    ]
    assert find_tagged_artifacts([page], [[]]) == [] and find_tagged_artifacts([""], [["Page 2"]]) == []
    # what OCR read in the page's figures is not the text layer the artifacts were marked in
    figures = "\n".join([*BODY, "## Page 1 (transcribed figures)", "Page 2"])
    assert find_tagged_artifacts([figures], [["Page 2"]]) == []


def test_merge_keeps_one_entry_per_line_the_surest() -> None:
    weak = Furniture(0, 4, "bottom", "3", FurnitureWhy.PAGE_NUMBER.value, 0.85)
    sure = Furniture(0, 4, "bottom", "3", FurnitureWhy.TAGGED_ARTIFACT.value, 1.0)
    other = Furniture(0, 0, "top", "Head", FurnitureWhy.REPEATED.value, 0.95)
    assert merge_furniture([weak], [sure, other]) == [other, sure]


# --- invariants -----------------------------------------------------------------------------------------

_LINE = st.one_of(
    st.sampled_from([line for line, _ in FURNITURE_LINES] + BODY_LOOKALIKES + BODY + ["", "  "]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=40),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_LINE, max_size=30), min_size=1, max_size=4))
def test_rules_take_only_band_lines_and_the_stripped_text_plus_furniture_is_the_text(
    pages_lines: list[list[str]],
) -> None:
    pages = ["\n".join(lines) for lines in pages_lines]
    found = find_page_furniture(pages)
    for f in found:
        lines = pages[f.page].split("\n")
        assert lines[f.line] == f.text
        content = [i for i, line in enumerate(lines) if line.strip()]
        n = content.index(f.line)
        assert n < RULE_TOP_BAND or n >= len(content) - RULE_BOTTOM_BAND
    stripped = strip_furniture(pages, found)
    for page, (before, after) in enumerate(zip(pages, stripped, strict=True)):
        removed = Counter(f.text for f in found if f.page == page)
        kept = Counter(line for line in after.split("\n") if line.strip())
        assert kept + removed == Counter(line for line in before.split("\n") if line.strip())


# --- sanitize -------------------------------------------------------------------------------------------


def _rows(texts: list[str], *, source: str = "extracted", labels: list[str | None] | None = None):
    return [
        PageTextRecord(
            "ab" * 32,
            "ab",
            "v",
            n,
            "TEXT",
            source,
            None,
            "pymupdf",
            "1",
            1.0,
            None,
            len(text),
            text,
            "lexicon",
            label=labels[n - 1] if labels else None,
        )
        for n, text in enumerate(texts, 1)
    ]


def test_sanitize_records_why_and_confidence_and_the_text_loses_the_lines() -> None:
    stamp = "Downloaded from https://academic.example.org/soil/article/12 on May 3, 2021"
    page = _page(top=[stamp], bottom=["Page 1 of 1"])
    result = sanitize_document("ab" * 32, "ab", "v", _rows([page]), {}, None, paged=True)
    assert result.text is not None
    assert stamp not in result.text.text and "Page 1 of 1" not in result.text.text
    assert all(line in result.text.text for line in BODY)
    rows = {(f.text, f.why, f.confidence) for f in result.furniture}
    assert rows == {
        (stamp, "download_stamp", DOWNLOAD_STAMP_CONFIDENCE),
        ("Page 1 of 1", "page_number", 0.95),
    }
    assert result.text.furniture_removed == 2
    # a kind without printed pages keeps every line
    assert sanitize_document("ab" * 32, "ab", "v", _rows([page]), {}, None, paged=False).furniture == []


def test_sanitize_removes_tagged_artifacts_from_text_layer_pages_only() -> None:
    page = "\n".join(["Soil Report, Spring Edition", *BODY, "Page two"])
    artifacts = {1: ["Soil Report, Spring Edition", "Page two"]}
    result = sanitize_document("ab" * 32, "ab", "v", _rows([page]), {}, None, paged=True, artifacts=artifacts)
    assert result.text is not None and "Spring Edition" not in result.text.text
    assert {(f.text, f.why, f.confidence) for f in result.furniture} == {
        ("Soil Report, Spring Edition", "tagged_artifact", 1.0),
        ("Page two", "tagged_artifact", 1.0),
    }
    # an OCR reading of the page is not the text the artifacts were marked in
    ocr = sanitize_document(
        "ab" * 32, "ab", "v", _rows([page], source="ocr"), {}, None, paged=True, artifacts=artifacts
    )
    assert ocr.text is not None and "Spring Edition" in ocr.text.text


def test_repetition_is_still_found_and_called_repeated() -> None:
    pages = [f"Soil Report, Spring Edition\n{BODY[2 * n]}\n{BODY[2 * n + 1]}" for n in range(5)]
    found = find_furniture(pages)
    assert len(found) == 5 and {(f.why, f.confidence) for f in found} == {("repeated", 0.95)}
    result = sanitize_document("ab" * 32, "ab", "v", _rows(pages), {}, None, paged=True)
    assert {f.why for f in result.furniture} == {"repeated"} and len(result.furniture) == 5


def test_a_generated_one_page_pdf_loses_its_furniture_and_keeps_its_body(tmp_path: Path) -> None:
    path = one_page_article(tmp_path / "article.pdf")
    (page,) = reader("pymupdf").read(path, ReadLimits()).pages
    result = sanitize_document("ab" * 32, "ab", "v", _rows([page.text]), {}, None, paged=True)
    assert result.text is not None
    whys = {f.text: f.why for f in result.furniture}
    assert whys == ONE_PAGE_FURNITURE
    lines = result.text.text.split("\n")
    assert not set(ONE_PAGE_FURNITURE) & set(lines)
    assert all(line in lines for line in ONE_PAGE_BODY)


ONE_PAGE_FURNITURE = {
    "SOIL MOISTURE AND WHEAT YIELD": "running_title",
    "Downloaded from https://journals.example.org/soil/article/12 on May 3, 2021": "download_stamp",
    "https://doi.org/10.1016/j.soil.2020.01.001": "doi",
    "3": "page_number",
}
#: Its body: the lines in the bands that only mention a download or a DOI stay.
ONE_PAGE_BODY = [
    "# Soil Moisture and Wheat Yield",
    "A download of the raw data is offered to readers who ask for it.",
    *BODY[:5],
    "The DOI of the earlier study, doi:10.1000/xyz123, is cited below.",
]


def one_page_article(path: Path) -> Path:
    """A one-page article as a publisher's site serves it: a running title above the title, a download
    stamp, its DOI and its page number at the foot; body lines that mention a download and a DOI stand
    in the bands."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 40), "SOIL MOISTURE AND WHEAT YIELD", fontsize=8)
    page.insert_text((72, 90), "Soil Moisture and Wheat Yield", fontsize=20)
    y = 130.0
    for line in ONE_PAGE_BODY[1:]:
        page.insert_text((72, y), line, fontsize=11)
        y += 16
    page.insert_text((72, 780), list(ONE_PAGE_FURNITURE)[1], fontsize=7)
    page.insert_text((72, 792), list(ONE_PAGE_FURNITURE)[2], fontsize=7)
    page.insert_text((290, 815), "3", fontsize=9)
    doc.save(path)
    return path


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=30), st.data())
def test_tagged_artifacts_take_only_listed_lines_at_most_as_often_as_listed(lines: list[str], data) -> None:
    page = "\n".join(lines)
    marked = data.draw(st.lists(st.sampled_from([*lines, "never on the page"]), max_size=6))
    found = merge_furniture(find_tagged_artifacts([page], [marked]), find_page_furniture([page]))
    tagged = [f for f in found if f.why == FurnitureWhy.TAGGED_ARTIFACT.value]
    folded = Counter(" ".join(m.split()) for m in marked if m.strip())
    assert all(n <= folded[text] for text, n in Counter(" ".join(f.text.split()) for f in tagged).items())
    (after,) = strip_furniture([page], found)
    kept = Counter(line for line in after.split("\n") if line.strip())
    removed = Counter(f.text for f in found)
    assert kept + removed == Counter(line for line in lines if line.strip())


def test_a_huge_band_line_is_not_furniture_and_costs_little() -> None:
    import time

    huge = "Downloaded from https://example.org on May 3, 2021 " + "and so on " * 100_000
    started = time.perf_counter()
    assert find_page_furniture([_page(top=[huge], bottom=["© 2020 " + "x" * 500_000])]) == []
    assert time.perf_counter() - started < 1.0


def test_a_line_that_is_all_there_is_on_a_page_is_body() -> None:
    # One line per page, its numbers folded: a running head by repetition, but each page's only text.
    pages = [f"Document 0 page {n}: annual rainfall statistics for the region" for n in (1, 2, 3)]
    assert len(find_furniture(pages)) == 3
    result = sanitize_document("ab" * 32, "ab", "v", _rows(pages), {}, None, paged=True)
    assert result.text is not None and result.furniture == []
    assert all(page in result.text.text for page in pages)
    # Beside a page number, the line is still the body: the number goes, the line stays.
    numbered = [f"{page}\n{n}" for n, page in enumerate(pages, 1)]
    result = sanitize_document("ab" * 32, "ab", "v", _rows(numbered), {}, None, paged=True)
    assert result.text is not None and all(page in result.text.text for page in pages)
    assert [f.text for f in result.furniture] == ["1", "2", "3"]
    # A running head above a body keeps being taken.
    with_body = [f"{page}\n{BODY[n]}" for n, page in enumerate(pages)]
    assert [f.text for f in spare_body(with_body, find_furniture(with_body))] == pages


def test_furniture_never_takes_all_of_a_documents_text() -> None:
    pages = ["- 1 -", "- 2 -", "- 3 -"]  # nothing but page numbers: no line with a letter to spare
    found = merge_furniture(find_furniture(pages), find_page_furniture(pages))
    assert len(found) == 3 and spare_body(pages, found) == []
    result = sanitize_document("ab" * 32, "ab", "v", _rows(pages), {}, None, paged=True)
    assert result.text is not None and result.furniture == []


# --- a journal article's first page: citation lines, stamps, author heads -------------------------------

#: The furniture of a journal article's one page as a repository serves it, each with the rule that takes it.
JOURNAL_PAGE_FURNITURE = {
    "Journal of Applied Ecology 2019, 56, 1123-1131": "journal",
    "Vol. 12, No. 3, March 2020": "journal",
    "SMITH ET AL.": "running_authors",
    "Downloaded from https://academic.example.org/jae/article/56/5/1123 by guest on 12 March 2024": (
        "download_stamp"
    ),
    "xii": "page_number",
}
#: Its body, the first and last lines of which mention a volume and a web address.
JOURNAL_PAGE_BODY = [
    "Vol. 12 of the survey reports appeared in 2020, after the plots were mapped again.",
    *BODY,
    "The data are kept at https://data.example.org/plots for anyone who asks for them.",
]


def journal_first_page(path: Path) -> Path:
    """One page: a journal line, a volume/issue line and an author running head at the top, the body, a
    download stamp and a roman page number at the foot."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    heads = list(JOURNAL_PAGE_FURNITURE)
    page.insert_text((72, 36), heads[0], fontsize=8)
    page.insert_text((400, 22), heads[1], fontsize=8)
    page.insert_text((72, 50), heads[2], fontsize=8)
    y = 110.0
    for line in JOURNAL_PAGE_BODY:
        page.insert_text((72, y), line, fontsize=10)
        y += 15
    page.insert_text((72, 790), heads[3], fontsize=7)
    page.insert_text((290, 815), heads[4], fontsize=9)
    doc.save(path)
    return path


def test_a_journal_page_loses_its_five_furniture_lines_and_keeps_its_body(tmp_path: Path) -> None:
    path = journal_first_page(tmp_path / "journal.pdf")
    (page,) = reader("pymupdf").read(path, ReadLimits()).pages
    result = sanitize_document("ab" * 32, "ab", "v", _rows([page.text]), {}, None, paged=True)
    assert result.text is not None
    assert {f.text: f.why for f in result.furniture} == JOURNAL_PAGE_FURNITURE
    assert all(0 < f.confidence <= 1 for f in result.furniture)
    lines = result.text.text.split("\n")
    assert not set(JOURNAL_PAGE_FURNITURE) & set(lines)
    assert all(line in result.text.text for line in JOURNAL_PAGE_BODY)


#: Citation lines, stamps and author heads the rules take in a page's bands, with their why.
JOURNAL_LINES = [
    ("Journal of Applied Ecology 2019, 56, 1123-1131", FurnitureWhy.JOURNAL),
    ("J. Appl. Ecol. 2019; 56(5): 1123–1131", FurnitureWhy.JOURNAL),
    ("Proc. Natl. Acad. Sci. USA 117(12):6543–6550", FurnitureWhy.JOURNAL),
    ("Ecology, 101(3), 2020, pp. 12-19", FurnitureWhy.JOURNAL),
    ("Vol. 12, No. 3, March 2020", FurnitureWhy.JOURNAL),
    (
        "IEEE TRANSACTIONS ON INFORMATION FORENSICS AND SECURITY, VOL. X, NO. X, JULY 2016",
        FurnitureWhy.JOURNAL,
    ),
    ("J Appl Ecol. 2019 May; 56(5): 1123–1131. doi:10.1111/1365-2664.13333.", FurnitureWhy.JOURNAL),
    ("Ecology Letters, (2019) 22: 1123–1131", FurnitureWhy.JOURNAL),
    ("Journal of Hydrology 590 (2020) 125432", FurnitureWhy.JOURNAL),
    ("Nature 580, 123–127 (2020)", FurnitureWhy.JOURNAL),
    ("PLOS ONE | https://doi.org/10.1371/journal.pone.0123456 May 12, 2020", FurnitureWhy.JOURNAL),
    ("Nature | Vol 580 | 2 April 2020", FurnitureWhy.JOURNAL),
    ("SMITH ET AL.", FurnitureWhy.RUNNING_AUTHORS),
    ("Smith et al.", FurnitureWhy.RUNNING_AUTHORS),
    ("1124 J. SMITH ET AL.", FurnitureWhy.RUNNING_AUTHORS),
    ("This article is protected by copyright. All rights reserved.", FurnitureWhy.COPYRIGHT),
    ("This article is protected by copyright", FurnitureWhy.COPYRIGHT),
    ("Source: https://www.industrydocuments.ucsf.edu/docs/mjgl0226", FurnitureWhy.SOURCE_STAMP),
    ("Retrieved from https://academic.example.org/jae/article/56", FurnitureWhy.SOURCE_STAMP),
    ("Available online at www.sciencedirect.com", FurnitureWhy.SOURCE_STAMP),
    ("https://academic.example.org/jae/article/56/5/1123", FurnitureWhy.SOURCE_STAMP),
    ("Contents lists available at ScienceDirect", FurnitureWhy.SOURCE_STAMP),
    ("journal homepage: www.elsevier.com/locate/jhydrol", FurnitureWhy.SOURCE_STAMP),
    ("All use subject to https://about.jstor.org/terms", FurnitureWhy.SOURCE_STAMP),
    ("Author manuscript; available in PMC 2021 May 03.", FurnitureWhy.SOURCE_STAMP),
]

#: Body lines that hold what those rules look for but are sentences or headings of the body.
JOURNAL_LOOKALIKES = [
    "Vol. 12 of the survey reports appeared in 2020, after the plots were mapped again.",
    "The data are kept at https://data.example.org/plots for anyone who asks for them.",
    "Smith et al. found the same effect on sandy soils in 2019.",
    "As Smith et al. (2019, 56, 1123-1131) showed, moisture decides the yield.",
    "1. Introduction and methods ........ 3",  # a table of contents line
    "2 Results 2019, 4, 12",
    "Source: the field station's own records",
    "METHODS AND RESULTS",
    "Smith and Jones",
    "A. B. SMITH AND C. D. JONES",  # a first page's byline
    "Volume 21",  # alone: a cover's or a label's volume as often as a journal's
    "Volume 21 of the series",
    "Retrieved from the archive in 2021 after a long search.",
    "Yields | rose in the dry | spring of the second year.",
    "http://www.example.org/",  # an address without a path: a site named on the page
    "www.mozilla.org",
    "Results from 12 plots (2020) 125 of which",
    "the yields 2019, 56, 1123-1131",
]


@pytest.mark.parametrize(("line", "why"), JOURNAL_LINES)
def test_journal_rules_take_their_line_at_either_end_of_a_page(line: str, why: FurnitureWhy) -> None:
    for page in (_page(top=[line]), _page(bottom=[line])):
        found = find_page_furniture([page])
        assert [(f.text, f.why) for f in found] == [(line, why.value)], page
    assert find_page_furniture([_page(middle=[line])]) == []


@pytest.mark.parametrize("line", JOURNAL_LOOKALIKES)
def test_body_lines_mentioning_volumes_urls_or_authors_stay(line: str) -> None:
    assert find_page_furniture([_page(top=[line])]) == []
    assert find_page_furniture([_page(bottom=[line])]) == []


def test_a_table_of_contents_keeps_its_lines() -> None:
    contents = ["Contents", "1 Introduction 1", "2 Methods 5", "3 Results 12", "4 Discussion 20"]
    found = find_page_furniture(["\n".join([*contents, *BODY[:3], "5 Appendix 31", "References 40"])])
    assert found == []


def test_a_one_line_page_keeps_its_line() -> None:
    for line in ("Journal of Applied Ecology 2019, 56, 1123-1131", "SMITH ET AL.", "xii"):
        result = sanitize_document("ab" * 32, "ab", "v", _rows([line]), {}, None, paged=True)
        assert result.text is not None and result.text.text == line and result.furniture == []


def test_lines_already_marked_are_not_judged_again() -> None:
    page = _page(top=["SMITH ET AL."], bottom=["xii"])
    lines = page.split("\n")
    marked = [Furniture(0, 0, "top", lines[0], FurnitureWhy.TAGGED_ARTIFACT.value, 1.0)]
    found = find_page_furniture([page], marked=marked)
    assert [(f.text, f.why) for f in found] == [("xii", FurnitureWhy.PAGE_NUMBER.value)]


def test_a_number_in_the_pages_citation_range_is_its_page_number() -> None:
    head = "O. Sanni, A.P.I. Popoola / Data in Brief 22 (2019) 451–457"
    page = _page(bottom=[head, "454"])
    # the document's page 4 prints the journal's page 454
    found = find_page_furniture([page], ["4"])
    assert [(f.text, f.why) for f in found] == [(head, "journal"), ("454", "page_number")]
    # outside the range, or without a citation line, the label decides
    assert [f.text for f in find_page_furniture([_page(bottom=[head, "460"])], ["4"])] == [head]
    assert find_page_furniture([_page(bottom=["454"])], ["4"]) == []


def test_an_address_continuing_a_footnote_stays() -> None:
    footnote = ["1 The plot maps are kept at", "https://data.example.org/plots/maps"]
    assert find_page_furniture([_page(bottom=footnote)]) == []
    closed = ["1 The plot maps are kept online.", "https://data.example.org/plots/maps"]
    assert [f.why for f in find_page_furniture([_page(bottom=closed)])] == ["source_stamp"]
