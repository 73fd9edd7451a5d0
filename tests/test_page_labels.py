"""Printed page labels ("xii", "A-3"): read from a PDF's /PageLabels by both PDF readers, carried beside
the page number to page_texts, texts, chunks and search hits. Fixtures are PDFs generated here."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality.chunking import PageSpan, chunk_document
from quality.records import PageVerdictRecord
from quality.sources import ExtractedPage, choose_page_texts
from readers.core.model import ReadLimits
from readers.core.reader_chain import reader
from readers.pdf.mupdf import page_labels
from warehouse.search import INDEX_FILE, ChunkRow, build_index, query_index

#: Front matter in roman numerals, the body from 1, an appendix "A-1": what a report prints.
RULES = [
    {"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
    {"startpage": 2, "prefix": "", "style": "D", "firstpagenum": 1},
    {"startpage": 3, "prefix": "A-", "style": "D", "firstpagenum": 1},
]
LABELS = ["i", "ii", "1", "A-1"]
#: A sentence per page, long enough that no page is judged blank.
PAGE_WORDS = [
    "The foreword by the board thanks the staff for a difficult year.",
    "The contents list the chapters on sources, treatment and finances.",
    "The body of the report describes how the river supplied the water.",
    "The appendix tables give the results of every water sample taken.",
]


def labelled_pdf(path: Path, rules: list[dict] | None = RULES, pages: list[str] = PAGE_WORDS) -> Path:
    doc = pymupdf.open()
    for words in pages:
        doc.new_page(width=595, height=842).insert_text((72, 100), words, fontsize=11)
    if rules is not None:
        doc.set_page_labels(rules)
    doc.save(path)
    return path


@pytest.mark.parametrize("name", ["pymupdf", "pdfplumber"])
def test_both_pdf_readers_give_each_page_its_printed_label(tmp_path: Path, name: str) -> None:
    read = reader(name).read(labelled_pdf(tmp_path / "report.pdf"), ReadLimits())
    assert [p.label for p in read.pages] == LABELS
    plain = reader(name).read(labelled_pdf(tmp_path / "plain.pdf", None), ReadLimits())
    assert [p.label for p in plain.pages] == [None] * len(PAGE_WORDS)


@pytest.mark.parametrize("name", ["pymupdf", "pdfplumber"])
def test_a_broken_page_labels_entry_leaves_the_document_unlabelled_not_unread(
    tmp_path: Path, name: str
) -> None:
    path = labelled_pdf(tmp_path / "report.pdf")
    doc = pymupdf.open(path)
    doc.xref_set_key(doc.pdf_catalog(), "PageLabels", "<</Nums 7>>")  # a number, not a number tree
    doc.save(tmp_path / "broken.pdf")
    read = reader(name).read(tmp_path / "broken.pdf", ReadLimits())
    assert [p.label for p in read.pages] == [None] * len(PAGE_WORDS)
    assert PAGE_WORDS[2] in read.pages[2].text


_RULE = st.fixed_dictionaries(
    {
        "prefix": st.sampled_from(["", "A-", "S"]),
        "style": st.sampled_from(["D", "r", "R", "a", "A", ""]),
        "firstpagenum": st.integers(1, 30),
    }
)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.lists(st.tuples(st.integers(0, 11), _RULE), min_size=1, max_size=4))
def test_labels_computed_once_per_document_are_pymupdfs_own(count: int, rules: list) -> None:
    """The reader reads the rules once and computes each page's label; Page.get_label reads them again
    for every page. Both must say the same, for every style, prefix and start."""
    doc = pymupdf.open()
    for _ in range(count):
        doc.new_page()
    chosen = {0: rules[0][1]} | {start % count: rule for start, rule in rules[1:]}
    doc.set_page_labels([{"startpage": start, **rule} for start, rule in chosen.items()])
    assert page_labels(doc) == [doc[i].get_label() or None for i in range(count)]


def _verdict(page: int) -> PageVerdictRecord:
    return PageVerdictRecord(
        "ab" * 32, "ab", "v", page, "TEXT", [], "born_digital", "en", 0.9, 0.5, "extracted", "1", "lexicon"
    )


def test_page_texts_carry_the_extracted_pages_label() -> None:
    pages = [ExtractedPage(n, f"Page {n} words.", "pymupdf", "4", label) for n, label in enumerate(LABELS, 1)]
    pages[3] = ExtractedPage(4, "Appendix", "pymupdf", "4")  # no label
    rows = choose_page_texts("ab" * 32, "ab", "v", [_verdict(n) for n in range(1, 6)], pages, [], [])
    assert [r.label for r in rows] == ["i", "ii", "1", None, None]  # page 5 was never extracted


def test_chunks_list_the_label_of_each_page_they_span() -> None:
    parts = ["Front matter words here.", "More front matter.", "The body text begins."]
    text = "\n\n".join(parts)
    starts = [text.index(p) for p in parts]
    # pages 1, 2 and 4 have text; page 3 has none (it is not among the spans)
    spans = [
        PageSpan(n, s, "en", "extracted", 1.0, label)
        for n, s, label in zip((1, 2, 4), starts, ("i", "ii", "1"), strict=True)
    ]
    (chunk,) = chunk_document("ab" * 32, text, spans, target=1000, overlap=0)
    assert (chunk.page_start, chunk.page_end) == (1, 4)
    assert chunk.page_labels == ("i", "ii", None, "1")
    assert len(chunk.page_labels) == len(chunk.page_offsets)
    unlabelled = chunk_document("ab" * 32, text, [PageSpan(1, 0, "en", "extracted", 1.0)], target=1000)
    assert unlabelled[0].page_labels == (None,)


def test_a_search_hit_names_the_printed_label_of_its_page(tmp_path: Path) -> None:
    text = "Page one talks about rain.\n\nPage two talks about a zeppelin."
    offsets = (0, text.index("Page two"))
    rows = [
        ChunkRow("1" * 32, "a" * 64, 0, (), 1, 2, text, 1.0, offsets, ("xi", "xii")),
        ChunkRow("2" * 32, "b" * 64, 0, (), 4, 5, text, 1.0, offsets, None),  # no labels known
    ]
    target = tmp_path / INDEX_FILE
    build_index(rows, {}, target)
    hits = {h.chunk_id: h for h in query_index(target, "zeppelin")}
    assert (hits["1" * 32].page, hits["1" * 32].label) == (2, "xii")
    assert (hits["2" * 32].page, hits["2" * 32].label) == (5, None)
    assert {h.chunk_id: h.label for h in query_index(target, "rain")}["1" * 32] == "xi"
