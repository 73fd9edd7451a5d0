"""Which of two OCR engines' readings of a page is kept: the one the verdicts' own evidence scores higher.

Tesseract reads every page sent to OCR; RapidOCR reads a page again where Tesseract is weak
(``assets/ocr/engines.py`` says when). Two readings of one page are two witnesses, and the text layer's
judges judge them: each reading is scored by the letters of its words that a lexicon knows less the
letters of those it does not, in the languages either reading's letters match best (a page mixing
languages is judged in each of them, so that "über" read right counts for a reading and "iiber" read
wrong counts against it), or, where no lexicon judges enough of the text (Japanese, a map's place
names), by its letters weighted by how well they match a language profile.
Garbage scores near nothing either way: letters in no word and no language. The engines' own
confidences are not compared: Tesseract's and RapidOCR's are on different scales, and RapidOCR's line
scores stay near 0.99 even on a script its model cannot read.

The first reading (Tesseract's) is kept unless the second scores :data:`SECOND_MIN_GAIN` more: on a tie
Tesseract's layout analysis (paragraphs, columns) is the better known. Both rows are kept in
``ocr_pages`` with their scores, their word agreement and why one was kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from quality.language import best_language, likely_languages
from quality.lexicon import JUDGING_LANGUAGES, Lexicon
from quality.page_signals import MIN_EVIDENCE_WEIGHT, judged_tokens, letter_count, lexicon_for
from quality.records import OcrChoice, OcrPageRecord
from quality.sources import word_agreement

#: The second engine's reading replaces the first only when its score is higher by at least this share
#: of the first's. Measured on the dev corpus's OCR pages read by both (docs/decisions.md, "Two OCR
#: engines"): clean pages' two readings score within 0.09 of each other, pages the first engine misread
#: (accents lost, a grey header missed, vertical Japanese) 0.19-3.3 higher in the second's reading.
SECOND_MIN_GAIN = 0.1
#: A page is judged in the languages its readings' letters match best, this many of each reading: the
#: dev corpus's page of pangrams in six languages has German, Spanish and Portuguese only among its 8.
SCORING_LANGUAGES = 8


@dataclass(frozen=True, slots=True)
class ReadingScore:
    """What the evidence says of one reading: its score, and the languages that judged it."""

    score: float
    languages: tuple[str, ...]
    judged_by_lexicon: bool


def score_readings(texts: Sequence[str | None]) -> list[ReadingScore]:
    """Each reading of one page scored alike (see the module's docstring): the same languages judge all
    of them, and all are judged by lexicon or all by language profile."""
    languages: list[str] = []
    for text in texts:
        if text:
            languages += likely_languages(text, SCORING_LANGUAGES)
    chosen = tuple(dict.fromkeys(language for language in languages if language in JUDGING_LANGUAGES))
    lexicons = [lexicon for lexicon in (lexicon_for(language) for language in chosen) if lexicon is not None]
    masses = [_known_letters(text or "", lexicons) for text in texts]
    if (
        lexicons
        and all(weight >= MIN_EVIDENCE_WEIGHT for _, weight in masses if weight)
        and any(weight for _, weight in masses)
    ):
        return [ReadingScore(round(2 * hits - weight, 2), chosen, True) for hits, weight in masses]
    out: list[ReadingScore] = []
    for text in texts:
        guess = best_language(text or "")
        letters = letter_count(text or "")
        out.append(ReadingScore(round(letters * guess.similarity, 2), chosen, False))
    return out


def _known_letters(text: str, lexicons: Iterable[Lexicon]) -> tuple[float, float]:
    """(the letters of ``text``'s words that at least one of ``lexicons`` knows, the letters judged)."""
    hits: dict[tuple[int, int], bool] = {}
    weights: dict[tuple[int, int], int] = {}
    for lexicon in lexicons:
        for start, end, weight, hit in judged_tokens(text, lexicon):
            key = (start, end)
            weights[key] = max(weights.get(key, 0), weight)
            hits[key] = hits.get(key, False) or hit
    return float(sum(weights[key] for key, hit in hits.items() if hit)), float(sum(weights.values()))


def only_reading(record: OcrPageRecord) -> OcrPageRecord:
    """A page one engine read: its reading is kept."""
    return replace(record, kept=True, choice=OcrChoice.ONLY.value)


def choose(first: OcrPageRecord, second: OcrPageRecord) -> tuple[OcrPageRecord, OcrPageRecord]:
    """The two readings of one page (or of one page's figure regions), each marked kept or not, with its
    score, why, and the readings' word agreement. A reading that is not ``derived`` (nothing read, or
    nothing legible) is never kept over one that is; when neither is, the first stands."""
    readable = [r.status == "derived" and bool(r.text) for r in (first, second)]
    scores = score_readings([first.text if readable[0] else None, second.text if readable[1] else None])
    agreement = round(word_agreement(first.text, second.text)[0], 4) if all(readable) else None
    one, two = scores[0].score, scores[1].score
    if readable[0] and readable[1]:
        if two > 0 and two - one >= SECOND_MIN_GAIN * max(abs(one), 1.0):
            keep_second, why_first, why_second = True, OcrChoice.LOWER_SCORE, OcrChoice.HIGHER_SCORE
        elif two >= one:
            keep_second, why_first, why_second = False, OcrChoice.FIRST_ON_TIE, OcrChoice.NOT_ENOUGH_HIGHER
        else:
            keep_second, why_first, why_second = False, OcrChoice.HIGHER_SCORE, OcrChoice.LOWER_SCORE
    elif readable[1]:
        keep_second, why_first, why_second = True, OcrChoice.UNREAD, OcrChoice.OTHER_UNREAD
    elif readable[0]:
        keep_second, why_first, why_second = False, OcrChoice.OTHER_UNREAD, OcrChoice.UNREAD
    else:
        keep_second, why_first, why_second = False, OcrChoice.UNREAD, OcrChoice.UNREAD
    return (
        replace(
            first,
            kept=not keep_second,
            choice=why_first.value,
            score=one if readable[0] else None,
            agreement=agreement,
        ),
        replace(
            second,
            kept=keep_second,
            choice=why_second.value,
            score=two if readable[1] else None,
            agreement=agreement,
        ),
    )
