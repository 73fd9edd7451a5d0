"""Chunks of one document's text (quality/chunking.py): heading paths, sizes, overlap, tables, pages."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quality.chunking import (
    HARD_MAX_FACTOR,
    OVERLAP_CHARS,
    TARGET_CHARS,
    Chunk,
    PageSpan,
    chunk_document,
    reassemble,
)

SHA = "ab" * 32
SENTENCE = "The water was tested in March and the lead levels stayed below the limit. "


def one_page(text: str, trust: float | None = 1.0) -> list[PageSpan]:
    return [PageSpan(1, 0, "en", "extracted", trust)]


def prose(sentences: int, seed: str = "") -> str:
    return "".join(f"{seed}Sample {i}: {SENTENCE}" for i in range(sentences))


def table(rows: int) -> str:
    head = "| site | lead (ppb) | copper (ppb) |\n|---|---|---|\n"
    return head + "".join(f"| site {i} | {i}.5 | {2 * i}.25 |\n" for i in range(rows))


def table_rows(text: str) -> list[tuple[int, int]]:
    """Spans of the markdown table rows of ``text`` (outside code fences), an oracle independent of the
    chunker's own parser."""
    rows, pos, fenced = [], 0, False
    for line in text.split("\n"):
        if re.match(r" {0,3}```", line):
            fenced = not fenced
        elif not fenced and re.fullmatch(r"[ \t]*\|.*\|[ \t]*", line.rstrip("\r")):
            rows.append((pos, pos + len(line)))
        pos += len(line) + 1
    return rows


def check_invariants(text: str, chunks: list[Chunk], pages: Sequence[PageSpan] = ()) -> None:
    if not text.strip():
        assert chunks == []
        return
    assert reassemble(chunks) == text
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    rows = table_rows(text)
    previous_end = 0
    for c in chunks:
        assert 0 <= c.start < c.end <= len(text)
        assert c.new_text and c.text.strip()
        new_start = c.end - len(c.new_text)
        assert new_start == previous_end, "chunks tile the text"
        previous_end = c.end
        assert c.start <= new_start
        header = c.text[: len(c.text) - (c.end - c.start)]
        assert c.text == header + text[c.start : c.end]
        assert c.overlap == len(header) + (new_start - c.start)
        if header:
            assert c.start == new_start, "a repeated table header is the only overlap"
            lines = header.splitlines()
            assert len(lines) == 2 and all(re.fullmatch(r"[ \t]*\|.*\|[ \t]*", ln) for ln in lines)
            assert re.fullmatch(r"[ \t]*\|(\s*:?-+:?\s*\|)+[ \t]*", lines[1])
        for lo, hi in ((c.start, c.end), (new_start, c.end)):
            for rs, re_ in rows:
                assert re_ <= lo or rs >= hi or (lo <= rs and re_ <= hi), f"row {rs}-{re_} cut by {lo}-{hi}"
        assert 1 <= c.page_start <= c.page_end
        offsets = c.page_offsets
        assert len(offsets) == c.page_end - c.page_start + 1 and offsets[0] == 0
        assert list(offsets) == sorted(offsets) and offsets[-1] <= len(c.text)
        if pages:  # the page of a character, as the chunk tells it, is the page it is on (at every page edge)
            starts = [p.start for p in pages]
            probes = {c.start, c.end - 1} | {q + d for q in starts for d in (-1, 0, 1)}
            for x in sorted(q for q in probes if c.start <= q < c.end):
                if not text[x].isspace():
                    on = pages[max(0, bisect.bisect_right(starts, x) - 1)].page
                    assert c.page_at(len(header) + x - c.start) == on
        assert len(c.chunk_id) == 32 and int(c.chunk_id, 16) >= 0
    assert previous_end == len(text)
    assert len({c.chunk_id for c in chunks}) == len(chunks)


# -- headings --------------------------------------------------------------------------------------------


def test_headings_give_heading_paths() -> None:
    body = prose(25)  # each section larger than the target: nothing merges
    text = (
        f"# Annual report\n\n{body}\n\n## Water quality\n\n{body}\n\n### Lead\n\n{body}\n\n"
        f"### Copper\n\n{body}\n\n## Budget\n\n{body}\n\n# Appendix\n\n{body}"
    )
    chunks = chunk_document(SHA, text, one_page(text))
    check_invariants(text, chunks)
    paths = [c.heading_path for c in chunks]
    expected = [
        ("Annual report",),
        ("Annual report", "Water quality"),
        ("Annual report", "Water quality", "Lead"),
        ("Annual report", "Water quality", "Copper"),
        ("Annual report", "Budget"),
        ("Appendix",),
    ]
    assert list(dict.fromkeys(paths)) == expected
    # every section starts a chunk of its own, with its heading at the chunk's start and no overlap
    for title in ("# Annual report", "## Water quality", "### Lead", "### Copper", "## Budget", "# Appendix"):
        first = next(c for c in chunks if c.text.startswith(title + "\n"))
        assert first.overlap == 0


def test_heading_path_skips_levels_and_strips_emphasis_and_closing_hashes() -> None:
    body = prose(25)
    text = f"# **Report** #\n\n{body}\n\n### Deep one\n\n{body}\n\n## Middle ##\n\n{body}"
    paths = list(dict.fromkeys(c.heading_path for c in chunk_document(SHA, text, one_page(text))))
    assert paths == [("Report",), ("Report", "Deep one"), ("Report", "Middle")]


def test_no_headings_gives_the_empty_path() -> None:
    text = prose(60)
    chunks = chunk_document(SHA, text, one_page(text))
    assert len(chunks) > 1
    assert all(c.heading_path == () for c in chunks)
    check_invariants(text, chunks)


def test_text_before_the_first_heading_is_its_own_section() -> None:
    text = f"Preamble line.\n\n# Title\n\n{prose(3)}"
    chunks = chunk_document(SHA, text, one_page(text))
    assert [c.heading_path for c in chunks] == [(), ("Title",)]
    assert chunks[0].text == "Preamble line.\n\n"


def test_a_hash_line_inside_a_code_fence_is_no_heading() -> None:
    text = f"# Setup\n\n```sh\n# install it\npip install assay\n```\n\n{prose(2)}"
    chunks = chunk_document(SHA, text, one_page(text))
    assert [c.heading_path for c in chunks] == [("Setup",)]


def test_small_sections_under_one_parent_merge_and_top_level_siblings_do_not() -> None:
    text = (
        "# Report\n\nIntro.\n\n## Lead\n\nLow.\n\n## Copper\n\nHigh.\n\n"
        "# Appendix\n\nTables.\n\n# Glossary\n\nWords.\n"
    )
    chunks = chunk_document(SHA, text, one_page(text))
    check_invariants(text, chunks)
    assert [c.heading_path for c in chunks] == [("Report",), ("Appendix",), ("Glossary",)]
    assert "## Lead" in chunks[0].text and "## Copper" in chunks[0].text


def test_sections_two_levels_apart_are_not_merged() -> None:
    text = "# Report\n\nIntro.\n\n## Water\n\nSome.\n\n### Lead\n\nLow.\n\n## Budget\n\nSmall.\n"
    chunks = chunk_document(SHA, text, one_page(text))
    # Report's intro merges with Water (its child); Lead (a grandchild) starts a chunk, and Budget (Lead's
    # parent's sibling) cannot join it: the path must name every section a chunk covers.
    assert [c.heading_path for c in chunks] == [
        ("Report",),
        ("Report", "Water", "Lead"),
        ("Report", "Budget"),
    ]


def test_a_heading_without_body_is_glued_to_the_section_under_it() -> None:
    body = prose(25)
    text = f"# Annual report\n\n## Water quality\n\n### Lead\n\n{body}"
    chunks = chunk_document(SHA, text, one_page(text))
    assert chunks[0].text.startswith("# Annual report\n\n## Water quality\n\n### Lead\n\n")
    assert {c.heading_path for c in chunks} == {("Annual report", "Water quality", "Lead")}


# -- sizes and overlap -----------------------------------------------------------------------------------


def test_a_long_section_is_split_with_overlap_at_sentence_or_word_starts() -> None:
    paragraphs = "\n\n".join(prose(4, f"P{i} ") for i in range(12))
    text = f"# Water\n\n{paragraphs}\n"
    chunks = chunk_document(SHA, text, one_page(text), target=1500, overlap=200)
    check_invariants(text, chunks)
    assert len(chunks) >= 4
    assert chunks[0].overlap == 0
    for prev, c in itertools.pairwise(chunks):
        assert len(c.text) <= 1500
        assert 0 < c.overlap <= 200
        assert prev.text.endswith(c.text[: c.overlap]), "the overlap is the previous chunk's end"
        assert text[c.start - 1].isspace() and not text[c.start].isspace(), "snapped to a word start"
        assert c.text.startswith(("Sample", "P")), "snapped to a sentence start where one is near"
        assert c.new_text.startswith("P"), "split at paragraph boundaries"
    # even split: no tiny leftover chunk
    assert min(len(c.text) for c in chunks) >= 1500 * 0.4


def test_without_paragraphs_a_section_splits_at_sentences_then_words() -> None:
    text = prose(60)  # one paragraph
    chunks = chunk_document(SHA, text, one_page(text), target=800, overlap=100)
    check_invariants(text, chunks)
    assert all(c.new_text.startswith("Sample") for c in chunks)
    words = " ".join(["lorem"] * 1000)  # no sentence at all
    chunks = chunk_document(SHA, words, one_page(words), target=800, overlap=100)
    check_invariants(words, chunks)
    assert all(c.new_text.startswith("lorem") and len(c.text) <= 800 for c in chunks)


def test_overlap_never_crosses_a_section() -> None:
    body = prose(40)
    text = f"# A\n\n{body}\n\n# B\n\n{body}"
    chunks = chunk_document(SHA, text, one_page(text))
    starts = [c for c in chunks if c.text.startswith(("# A", "# B"))]
    assert len(starts) == 2 and all(c.overlap == 0 for c in starts)
    b = text.index("# B")
    assert all(c.start >= b or c.end <= b for c in chunks)


def test_a_run_without_spaces_is_cut_within_the_hard_maximum() -> None:
    text = "水質報告" * 2000  # 8,000 characters, no space, no full stop
    chunks = chunk_document(SHA, text, one_page(text), target=1000, overlap=100)
    check_invariants(text, chunks)
    assert len(chunks) >= 8 and all(len(c.text) <= 1000 * HARD_MAX_FACTOR for c in chunks)
    cjk = "这是一个句子。" * 400
    chunks = chunk_document(SHA, cjk, one_page(cjk), target=500, overlap=50)
    check_invariants(cjk, chunks)
    assert all(c.new_text.startswith("这") for c in chunks), "CJK full stops are sentence ends"


def test_a_word_longer_than_the_hard_maximum_is_cut_but_never_before_a_combining_mark() -> None:
    word = "e\u0301" * 3000
    text = f"Start. {word} end."
    chunks = chunk_document(SHA, text, one_page(text), target=500, overlap=50)
    check_invariants(text, chunks)
    assert all(c.text[0] != "\u0301" for c in chunks)


def test_bad_parameters_and_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="overlap"):
        chunk_document(SHA, "text", one_page("text"), target=100, overlap=60)
    with pytest.raises(ValueError, match="page"):
        chunk_document(SHA, "text", [])
    with pytest.raises(ValueError, match="page starts"):
        backwards = [PageSpan(1, 5, None, "ocr", None), PageSpan(2, 2, None, "ocr", None)]
        chunk_document(SHA, "some text", backwards)
    assert chunk_document(SHA, "", []) == []
    assert chunk_document(SHA, " \n\n\t", one_page("")) == []


# -- tables ----------------------------------------------------------------------------------------------


def test_a_long_table_is_split_between_rows_with_its_header_repeated() -> None:
    text = f"# Results\n\nThe samples:\n\n{table(120)}\nAll below the limit.\n"
    chunks = chunk_document(SHA, text, one_page(text), target=600, overlap=100)
    check_invariants(text, chunks)
    header = "| site | lead (ppb) | copper (ppb) |\n|---|---|---|\n"
    in_table = [c for c in chunks if "| site " in c.new_text]
    assert len(in_table) > 3
    for c in in_table:
        assert c.text.startswith(header) or c.text.startswith("# Results"), "the table reads alone"
    for c in in_table[1:]:
        assert c.overlap == len(header) and c.start == c.end - len(c.new_text)
        assert len(c.text) <= 600
    # every row is in exactly one chunk's new text, whole
    for i in range(120):
        row = f"| site {i} | {i}.5 | {2 * i}.25 |\n"
        assert sum(row in c.new_text for c in chunks) == 1


def test_a_table_row_longer_than_the_target_is_kept_whole() -> None:
    long_row = "| " + " | ".join(["x" * 50] * 30) + " |\n"
    text = "| a | b |\n|---|---|\n" + long_row * 3 + "| c | d |\n"
    chunks = chunk_document(SHA, text, one_page(text), target=400, overlap=50)
    check_invariants(text, chunks)
    assert all(long_row.strip() in c.text for c in chunks[1:-1])


def test_a_chunk_starting_after_a_table_takes_no_overlap_from_its_rows() -> None:
    text = f"# T\n\n{table(30)}\n{prose(30)}"
    chunks = chunk_document(SHA, text, one_page(text), target=700, overlap=200)
    check_invariants(text, chunks)
    table_end = text.index("\n\nSample 0") + 1
    for c in chunks:
        if c.end - len(c.new_text) >= table_end and c.overlap:
            assert c.start >= table_end


# -- pages, language, sources, trust ---------------------------------------------------------------------


def test_pages_across_boundaries_sources_language_and_trust() -> None:
    page1 = prose(8, "one ")
    page2 = prose(8, "two ")
    page3 = prose(8, "three ")
    text = page1 + "\n\n" + page2 + "\n\n" + page3
    pages = [
        PageSpan(1, 0, "en", "extracted", 1.0),
        PageSpan(2, len(page1) + 2, "fr", "ocr", 0.81),
        PageSpan(3, len(page1) + len(page2) + 4, "fr", "repaired", 0.9),
    ]
    chunks = chunk_document(SHA, text, pages, target=1200, overlap=150)
    check_invariants(text, chunks, pages)
    for c in chunks:
        touched = [p for p in pages if p.start < c.end and (p.page == 3 or pages[p.page].start > c.start)]
        assert (c.page_start, c.page_end) == (touched[0].page, touched[-1].page)
        assert c.sources == tuple(sorted({p.source for p in touched}))
        assert c.trust == min(p.trust for p in touched if p.trust is not None)
    spanning = [c for c in chunks if c.page_start != c.page_end]
    assert spanning, "some chunk crosses a page boundary"
    whole = chunk_document(SHA, text, pages, target=100_000, overlap=0)
    assert len(whole) == 1
    c = whole[0]
    assert (c.page_start, c.page_end, c.trust) == (1, 3, 0.81)
    assert c.sources == ("extracted", "ocr", "repaired")
    assert c.language == "fr", "the language of most characters"


def test_a_chunk_ending_with_a_page_break_belongs_to_its_text_pages() -> None:
    text = "Alpha beta gamma.\n\nDelta epsilon."
    pages = [PageSpan(1, 0, "en", "extracted", 1.0), PageSpan(2, text.index("Delta"), None, "ocr", 0.7)]
    chunks = chunk_document(SHA, text, pages, target=20, overlap=0)
    assert [(c.page_start, c.page_end) for c in chunks] == [(1, 1), (2, 2)]
    assert chunks[1].language is None and chunks[1].trust == 0.7


def test_trust_ignores_pages_without_one_and_is_none_when_none_has_one() -> None:
    text = "First page text.\n\nSecond page text."
    mid = text.index("Second")
    mixed = [PageSpan(1, 0, "en", "extracted", None), PageSpan(2, mid, "en", "ocr", 0.75)]
    assert chunk_document(SHA, text, mixed)[0].trust == 0.75
    none = [PageSpan(1, 0, "en", "extracted", None), PageSpan(2, mid, "en", "ocr", None)]
    assert chunk_document(SHA, text, none)[0].trust is None


def test_empty_pages_are_skipped_for_attribution() -> None:
    text = "Page one.\n\nPage three."
    third = text.index("Page three")
    pages = [
        PageSpan(1, 0, "en", "extracted", 1.0),
        PageSpan(2, third, None, "none", None),  # a blank page: no text, no characters
        PageSpan(3, third, "en", "ocr", 0.6),
    ]
    [c] = chunk_document(SHA, text, pages)
    assert (c.page_start, c.page_end, c.sources, c.trust) == (1, 3, ("extracted", "ocr"), 0.6)
    assert c.page_offsets == (0, third, third)
    assert (c.page_at(0), c.page_at(third - 1), c.page_at(third)) == (1, 1, 3)


# -- identity --------------------------------------------------------------------------------------------


def test_ids_are_stable_across_calls_and_differ_for_different_texts() -> None:
    text = f"# A\n\n{prose(40)}"
    first = chunk_document(SHA, text, one_page(text))
    again = chunk_document(SHA, text, one_page(text))
    assert [c.chunk_id for c in first] == [c.chunk_id for c in again]
    other_doc = chunk_document("cd" * 32, text, one_page(text))
    assert not {c.chunk_id for c in first} & {c.chunk_id for c in other_doc}
    edited = chunk_document(SHA, text.replace("Sample 3:", "Sample three:"), one_page(text))
    assert [c.chunk_id for c in edited] != [c.chunk_id for c in first]
    # the same text twice in one document: two chunks, two ids (the offsets are part of the identity)
    twice = f"# A\n\n{prose(20)}\n\n# A\n\n{prose(20)}"
    chunks = chunk_document(SHA, twice, one_page(twice))
    assert len({c.text for c in chunks}) < len(chunks) == len({c.chunk_id for c in chunks})


def test_one_call_is_one_document() -> None:
    a, b = f"# A\n\n{prose(30, 'a ')}", f"# B\n\n{prose(30, 'b ')}"
    for sha, text in (("aa" * 32, a), ("bb" * 32, b)):
        chunks = chunk_document(sha, text, one_page(text))
        assert reassemble(chunks) == text
        assert all(c.text in text or c.overlap for c in chunks)


def test_defaults_are_calibrated_as_documented() -> None:
    assert (TARGET_CHARS, OVERLAP_CHARS) == (1500, 200)
    assert OVERLAP_CHARS <= TARGET_CHARS // 2


# -- properties ------------------------------------------------------------------------------------------

_WORDS = st.sampled_from(
    ["lead", "water", "Copper", "e.g.", "ppb", "10", "Straße", "naïve", "水質", "x" * 40, "y" * 700, "—"]
)


@st.composite
def markdownish(draw: st.DrawFn) -> str:
    blocks: list[str] = []
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.sampled_from(["heading", "para", "para", "table", "list", "code", "cjk"]))
        if kind == "heading":
            level = draw(st.integers(1, 6))
            blocks.append("#" * level + " " + " ".join(draw(st.lists(_WORDS, min_size=1, max_size=4))))
        elif kind == "para":
            sentences = draw(st.lists(st.lists(_WORDS, min_size=1, max_size=25), min_size=1, max_size=12))
            blocks.append(
                " ".join(
                    " ".join(s).capitalize() + draw(st.sampled_from([".", "!", "?", ""])) for s in sentences
                )
            )
        elif kind == "table":
            cols = draw(st.integers(1, 4))
            cell = st.lists(_WORDS, max_size=3).map(" ".join)
            lines = ["| " + " | ".join(draw(cell) for _ in range(cols)) + " |"]
            if draw(st.booleans()):
                lines.append("|" + "---|" * cols)
            for _ in range(draw(st.integers(0, 40))):
                lines.append("| " + " | ".join(draw(cell) for _ in range(cols)) + " |")
            blocks.append("\n".join(lines))
        elif kind == "list":
            items = draw(st.lists(st.lists(_WORDS, min_size=1, max_size=8), min_size=1, max_size=10))
            blocks.append("\n".join("- " + " ".join(i) for i in items))
        elif kind == "code":
            words = " ".join(draw(st.lists(_WORDS)))
            blocks.append(f"```\n# not a heading\n| not | a row |\n{words}\n```")
        else:
            blocks.append("漢字かな交じり文" * draw(st.integers(1, 300)) + draw(st.sampled_from(["", "。"])))
    seps = st.sampled_from(["\n\n", "\n", "\n\n\n", "\n \n"])
    out = draw(st.sampled_from(["", "\n", "  "]))
    for block in blocks:
        out += block + draw(seps)
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdownish(), data=st.data())
def test_property_chunks_tile_the_text_and_never_cut_a_table_row(text: str, data: st.DataObject) -> None:
    target = data.draw(st.integers(20, 2500), label="target")
    overlap = data.draw(st.integers(0, target // 2), label="overlap")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=6), label="page starts"))
    starts = [0, *cuts]
    pages = [
        PageSpan(i + 1, s, data.draw(st.sampled_from(["en", "de", None])), "extracted", 0.5 + i / 100)
        for i, s in enumerate(starts)
    ]
    chunks = chunk_document(SHA, text, pages, target=target, overlap=overlap)
    check_invariants(text, chunks, pages)
    for c in chunks:
        assert c.trust is not None and c.trust >= 0.5
        assert c.sources == ("extracted",)
    assert chunk_document(SHA, text, pages, target=target, overlap=overlap) == chunks, "deterministic"


_SHORT_WORDS = st.sampled_from(["lead", "water", "Copper", "e.g.", "ppb", "10", "Straße", "naïve", "a.b"])


@settings(max_examples=150, deadline=None)
@given(
    sections=st.lists(
        st.tuples(
            st.integers(0, 6),
            st.lists(st.lists(_SHORT_WORDS, min_size=1, max_size=30).map(" ".join), min_size=1, max_size=30),
        ),
        min_size=1,
        max_size=8,
    ),
    target=st.integers(300, 2000),
    data=st.data(),
)
def test_property_prose_chunks_stay_within_the_target(sections, target: int, data: st.DataObject) -> None:
    text = "".join(
        ("#" * level + " Heading\n\n" if level else "") + ". ".join(paragraphs) + ".\n\n"
        for level, paragraphs in sections
    )
    overlap = data.draw(st.integers(0, target // 2))
    chunks = chunk_document(SHA, text, one_page(text), target=target, overlap=overlap)
    check_invariants(text, chunks)
    assert all(len(c.text) <= target for c in chunks)
