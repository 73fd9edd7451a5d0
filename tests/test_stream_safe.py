"""Normalisation in linear time: long runs of combining marks made stream-safe (UAX #15 §13) before NFC."""

from __future__ import annotations

import time
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from quality.normalise import CGJ, MAX_NON_STARTERS, normalise, stream_safe

#: Marks of different combining classes (230 above, 220 below, 202 attached below, 1 overlay, 240, 9
#: virama) and characters that decompose into several (U+0344, U+0F73) or end with marks (ǘ, ά).
_MARKS = "\u0301\u0316\u0327\u0334\u0345\u094d\u0344\u0f73\u0308"
_STARTERS = "ae\u01d8\u03ac\u0915 \n"


def _uax15(text: str) -> str:
    """The Stream-Safe Text Process as UAX #15 §13 writes it, one character at a time."""
    out: list[str] = []
    count = 0
    for c in text:
        decomposed = unicodedata.normalize("NFKD", c)
        lead = len(decomposed) - len(decomposed.lstrip(_all_marks(decomposed)))
        trail = len(decomposed) - len(decomposed.rstrip(_all_marks(decomposed)))
        if count + lead > MAX_NON_STARTERS:
            out.append(CGJ)
            count = 0
        count = count + lead if lead == len(decomposed) else trail
        out.append(c)
    return "".join(out)


def _all_marks(text: str) -> str:
    return "".join(c for c in text if unicodedata.combining(c))


def _longest_run(text: str) -> int:
    longest = run = 0
    for c in unicodedata.normalize("NFKD", text):
        run = run + 1 if unicodedata.combining(c) else 0
        longest = max(longest, run)
    return longest


def _seconds(text: str) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        normalise(text)
        best = min(best, time.perf_counter() - start)
    return best


@settings(max_examples=4, deadline=None)
@given(st.lists(st.sampled_from("\u0301\u0316\u0327\u0334\u0345\u094d"), min_size=2, max_size=2, unique=True))
def test_normalising_a_run_of_marks_takes_time_linear_in_its_length(pair: list[str]) -> None:
    """A base letter and 50,000 then 200,000 pairs of marks of two combining classes: NFC alone sorts such a
    run by insertion (16 times the time for 4 times the marks); stream-safe runs are sorted 30 at a time."""
    small, large = ("a" + "".join(pair) * n for n in (50_000, 200_000))
    ratio = _seconds(large) / max(_seconds(small), 1e-4)
    assert ratio < 10, f"4x the marks took {ratio:.1f}x the time"


def test_a_text_of_one_letter_and_800_000_marks_is_normalised_in_seconds() -> None:
    text = "a" + "\u0301\u0316" * 400_000  # 1.6 MB of UTF-8: 512 s through NFC alone
    start = time.perf_counter()
    clean = normalise(text)
    assert time.perf_counter() - start < 20
    # Nothing is dropped: every mark is there (the first acute composed with the a), a CGJ after every 30.
    assert clean.startswith("\u00e1") and clean.count("\u0301") + clean.count("\u0316") == 800_000 - 1
    assert clean.count(CGJ) == 800_000 // MAX_NON_STARTERS - (800_000 % MAX_NON_STARTERS == 0)
    assert _longest_run(clean) <= MAX_NON_STARTERS
    assert normalise(clean) == clean


_TEXT = st.lists(st.sampled_from([*_MARKS, *_STARTERS]), max_size=200).map("".join)
_RUNS = st.lists(
    st.tuples(st.sampled_from(_STARTERS), st.lists(st.sampled_from(_MARKS), max_size=80).map("".join)),
    max_size=6,
).map(lambda parts: "".join(s + m for s, m in parts))


@settings(max_examples=300, deadline=None)
@given(_TEXT | _RUNS)
def test_normalise_is_nfc_on_text_without_long_runs_and_stream_safe_is_uax15(text: str) -> None:
    assert stream_safe(text) == _uax15(text)
    if _longest_run(text) <= MAX_NON_STARTERS:
        assert stream_safe(text) == text
        assert normalise(text) == unicodedata.normalize("NFC", text)
    clean = normalise(text)
    assert _longest_run(clean) <= MAX_NON_STARTERS
    assert normalise(clean) == clean
    # Only CGJs are added: with them taken out, the text is the text's NFC.
    assert unicodedata.normalize("NFC", clean.replace(CGJ, "")) == unicodedata.normalize("NFC", text)
