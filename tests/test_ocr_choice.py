"""Which of two engines' readings of a page is kept (quality/ocr_choice.py), and which pages the second
engine is asked to read (assets/ocr/engines.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quality.ocr_choice import SECOND_MIN_GAIN, choose, only_reading, score_readings
from quality.records import OcrChoice, OcrEngine, OcrPageRecord

PANGRAMS = (
    "The quick brown fox jumps over the lazy dog. Der schnelle braune Fuchs springt über den faulen Hund. "
    "Le renard brun rapide saute par-dessus le chien paresseux. La volpe marrone rapida salta sopra il "
    "cane pigro. El zorro marrón rápido salta sobre el perro perezoso. A raposa marrom rápida salta sobre "
    "o cão preguiçoso."
)
# The same page read without its accents, as an engine reading it with English data alone does.
PANGRAMS_WITHOUT_ACCENTS = (
    PANGRAMS.replace("über", "iiber")
    .replace("marrón", "marron")
    .replace("rápido", "rapido")
    .replace("rápida", "rapida")
    .replace("cão", "céo")
    .replace("preguiçoso", "preguicoso")
)
PROSE = (
    "The committee met on Tuesday to review the annual budget. Members discussed the proposal to expand "
    "the library and agreed to publish the report before the end of the month, after the public hearing."
)


def reading(engine: OcrEngine, text: str | None, status: str = "derived", **kw) -> OcrPageRecord:
    return OcrPageRecord(
        sha256="a" * 64,
        shard="aa",
        extractor_version="v",
        page=1,
        scope="page",
        regions=1,
        status=status,
        reason=None if status == "derived" else "illegible",
        engine=engine.value,
        engine_version="1",
        language="eng",
        language_source="configured",
        dpi=300,
        rotation=0,
        script=None,
        confidence=90.0,
        confidence_p10=80.0,
        confidence_p50=90.0,
        low_confidence_words=0,
        words=len((text or "").split()),
        chars=len((text or "").replace(" ", "")),
        seconds=1.0,
        text=text,
        **kw,
    )


def test_a_reading_that_keeps_its_accents_scores_higher_on_a_page_mixing_languages() -> None:
    right, wrong = score_readings([PANGRAMS, PANGRAMS_WITHOUT_ACCENTS])
    assert right.judged_by_lexicon and wrong.judged_by_lexicon
    assert right.score > wrong.score
    assert {"de", "es", "pt"} <= set(right.languages)


def test_garbage_scores_far_below_prose() -> None:
    prose, garbage = score_readings([PROSE, "GLLN U LL ULL ALE LUN L ULNCELLGCTUX CLEULLU LAN ALLE LAU " * 3])
    assert prose.score > 50
    assert garbage.score < 0.2 * prose.score


def test_readings_of_the_same_text_score_the_same() -> None:
    a, b = score_readings([PROSE, PROSE])
    assert a == b


def test_the_second_reading_is_kept_when_it_scores_clearly_higher() -> None:
    first, second = choose(
        reading(OcrEngine.TESSERACT, PANGRAMS_WITHOUT_ACCENTS), reading(OcrEngine.RAPIDOCR, PANGRAMS)
    )
    assert (first.kept, second.kept) == (False, True)
    assert (first.choice, second.choice) == (OcrChoice.LOWER_SCORE, OcrChoice.HIGHER_SCORE)
    assert second.score is not None and first.score is not None
    assert second.score - first.score >= SECOND_MIN_GAIN * abs(first.score)
    assert first.agreement == second.agreement and 0.5 < (first.agreement or 0) < 1


def test_the_first_reading_stands_on_a_tie() -> None:
    first, second = choose(reading(OcrEngine.TESSERACT, PROSE), reading(OcrEngine.RAPIDOCR, PROSE))
    assert (first.kept, second.kept) == (True, False)
    assert first.agreement == 1.0


def test_an_illegible_reading_is_never_kept_over_a_legible_one() -> None:
    first, second = choose(
        reading(OcrEngine.TESSERACT, PROSE, status="underivable"), reading(OcrEngine.RAPIDOCR, PROSE)
    )
    assert (first.kept, second.kept) == (False, True)
    assert (first.choice, second.choice) == (OcrChoice.UNREAD, OcrChoice.OTHER_UNREAD)
    assert first.score is None and first.agreement is None


def test_when_neither_reads_the_first_stands_with_its_reason() -> None:
    first, second = choose(
        reading(OcrEngine.TESSERACT, None, status="underivable"),
        reading(OcrEngine.RAPIDOCR, None, status="underivable"),
    )
    assert (first.kept, second.kept) == (True, False)
    assert first.choice == second.choice == OcrChoice.UNREAD


def test_a_page_one_engine_read_keeps_its_reading() -> None:
    only = only_reading(reading(OcrEngine.TESSERACT, PROSE))
    assert only.kept and only.choice == OcrChoice.ONLY


_TEXT = st.one_of(st.none(), st.sampled_from([PROSE, PANGRAMS, PANGRAMS_WITHOUT_ACCENTS, "x y z", "ÿÿÿ 123"]))


@given(_TEXT, _TEXT, st.booleans(), st.booleans())
def test_exactly_one_reading_is_kept_and_never_an_unread_one_over_a_read_one(
    one: str | None, two: str | None, one_read: bool, two_read: bool
) -> None:
    first = reading(OcrEngine.TESSERACT, one, status="derived" if one_read and one else "underivable")
    second = reading(OcrEngine.RAPIDOCR, two, status="derived" if two_read and two else "underivable")
    a, b = choose(first, second)
    assert [a.kept, b.kept].count(True) == 1
    kept = a if a.kept else b
    if first.status == "derived" or second.status == "derived":
        assert kept.status == "derived"
    assert a.choice is not None and b.choice is not None


@pytest.mark.parametrize(
    ("change", "asked"),
    [
        ({}, None),  # dense, confident, Latin: Tesseract's alone
        ({"words": 60}, None),  # short, but read at 93
        ({"words": 60, "confidence": 91.0}, "sparse"),
        ({"confidence": 70.0}, "doubtful"),
        ({"status": "underivable", "reason": "illegible"}, "illegible"),
        ({"status": "underivable", "reason": "no_text", "words": 0}, "no_text"),
        ({"language": "jpn"}, "han"),
        ({"scope": "figures", "words": 12, "confidence": 70.0}, "figures"),
        ({"scope": "figures", "status": "underivable", "reason": "no_text", "words": 0}, "figures"),
        ({"scope": "figures", "words": 12, "confidence": 95.0}, None),
        # Never to an engine that cannot read the page's script or language.
        ({"confidence": 40.0, "script": "Hebrew"}, None),
        # A script named on a page Tesseract could not read is a guess: RapidOCR is asked.
        ({"status": "underivable", "reason": "illegible", "script": "Arabic"}, "illegible"),
        # The document's language is known to be in a script RapidOCR does not read.
        ({"status": "underivable", "reason": "illegible", "language_source": "no_data:fa"}, None),
        ({"status": "underivable", "reason": "illegible", "language_source": "no_data:vi"}, "illegible"),
        ({"words": 30, "language": "ara"}, None),
        ({"words": 30, "language": "rus"}, None),
        ({"status": "error", "reason": "timeout"}, None),
    ],
)
def test_the_second_engine_is_asked_where_the_first_is_weak(change: dict, asked: str | None) -> None:
    from assets.ocr.engines import asked_because

    dense = replace(reading(OcrEngine.TESSERACT, PROSE), words=500, confidence=93.0)
    assert asked_because(replace(dense, **change)) == asked
