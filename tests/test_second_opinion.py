"""The second opinion on a document's pages that pass but read poorly: a few are read first, the rest
only when those read better (quality/judge.py, SECOND_OPINION_PROBE)."""

from __future__ import annotations

from assets.verdicts.judging import JUDGING, check_text
from quality.judge import SECOND_OPINION_BELOW, SECOND_OPINION_PROBE, judge_one
from quality.verdicts import LEXICON_MIN
from readers.core.reading_records import PageRecord

SPACED = (
    "The committee met on Tuesday to review the annual budget and the plans for the new library. "
    "Members agreed that the reading room should open earlier in the morning and close later at night. "
) * 4
# The same sentences with most word boundaries lost, as a text layer without spaces reads.
GLUED = SPACED.replace("the ", "the").replace("and ", "and").replace("to ", "to").replace("that ", "that")

# A hit rate that passes but reads poorly: the pages the second opinion is asked about.
SUSPECT = (LEXICON_MIN + SECOND_OPINION_BELOW) / 2


def _page(number: int, text: str, hit_rate: float) -> PageRecord:
    return PageRecord(
        "ab" * 32,
        "ab",
        "v",
        number,
        "pymupdf",
        "1",
        text,
        len(text),
        612.0,
        792.0,
        1,
        ["Body"],
        0,
        0,
        0,
        0,
        lexicon_judged=True,
        lexicon_hit_rate=hit_rate,
        lexicon_weight=400.0,
        language="en",
        language_similarity=0.8,
        lexicon_language="en",
    )


def _judge(pages: list[PageRecord], second_opinion):
    return judge_one(
        "ab" * 32,
        "ab",
        "v",
        pages,
        [],
        judging_languages=JUDGING,
        check_text=check_text,
        second_opinion=second_opinion,
    )


def _judged(pages: list[PageRecord], fallback: dict[int, str]):
    """The document judged with ``fallback`` as the fallback reader's texts, and the pages it was asked."""
    asked: list[list[int]] = []

    def second_opinion(numbers: list[int]) -> dict[int, str]:
        asked.append(list(numbers))
        return {n: fallback[n] for n in numbers if n in fallback}

    return _judge(pages, second_opinion), asked


def test_the_texts_are_a_suspect_and_its_better_reading() -> None:
    assert check_text(SPACED).score >= check_text(GLUED).score * 1.5 + 0.1
    assert check_text(SPACED).trusted


def test_suspects_that_read_no_better_stop_the_second_opinion_after_the_probe() -> None:
    pages = [_page(n, GLUED, SUSPECT) for n in range(1, 8)]
    out, asked = _judged(pages, dict.fromkeys(range(1, 8), GLUED))
    assert asked == [list(range(1, SECOND_OPINION_PROBE + 1))]
    assert not out.repairs and all(v.text_source == "extracted" for v in out.pages)


def test_suspects_that_read_better_are_all_read_again() -> None:
    pages = [_page(n, GLUED, SUSPECT) for n in range(1, 8)]
    out, asked = _judged(pages, dict.fromkeys(range(1, 8), SPACED))
    assert asked == [list(range(1, SECOND_OPINION_PROBE + 1)), list(range(SECOND_OPINION_PROBE + 1, 8))]
    assert [v.text_source for v in out.pages] == ["fallback"] * 7
    assert all("fallback_reader_better" in v.reasons for v in out.pages)
    assert sorted(r.page for r in out.repairs) == list(range(1, 8))


def test_garbage_pages_are_all_read_whatever_the_probe_finds() -> None:
    pages = [_page(n, GLUED, SUSPECT) for n in range(1, 6)]
    pages += [_page(n, "Xqvbrtz wqpzlkm zzyxwvq " * 20, 0.0) for n in range(6, 10)]
    out, asked = _judged(pages, {**dict.fromkeys(range(1, 6), GLUED), **dict.fromkeys(range(6, 10), SPACED)})
    assert asked == [[*range(1, SECOND_OPINION_PROBE + 1), 6, 7, 8, 9]]
    rescued = {v.page: v.text_source for v in out.pages if v.page >= 6}
    assert rescued == dict.fromkeys(range(6, 10), "fallback")


def test_the_probe_is_the_suspect_that_reads_worst() -> None:
    # Page 4 scores lowest: it alone is asked, and when it reads no better nothing else is.
    pages = [_page(n, GLUED, SUSPECT) for n in range(1, 7)]
    pages[3] = _page(4, GLUED, (LEXICON_MIN + SUSPECT) / 2)
    out, asked = _judged(pages, dict.fromkeys(range(1, 7), GLUED))
    probe = sorted(range(1, 7), key=lambda n: (n != 4, n))[:SECOND_OPINION_PROBE]
    assert asked == [sorted(probe)]
    assert not out.repairs


def test_a_failing_second_opinion_changes_nothing() -> None:
    pages = [_page(n, GLUED, SUSPECT) for n in range(1, 5)]

    def broken(numbers: list[int]) -> dict[int, str]:
        raise OSError("gone")

    out = _judge(pages, broken)
    assert not out.repairs and [v.mode for v in out.pages] == ["TEXT"] * 4
