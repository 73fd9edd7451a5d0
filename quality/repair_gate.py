"""When a font repair may stand in for a page's text layer (quality/repair.py finds the repairs).

A repair is inferred, not read: a letter bijection fitted to make the text score well. It replaces a text
layer only when all of these hold, and otherwise OCR reads the page (the better witness kept, see
quality/sources.py):

1. the layer was condemned on strong evidence: a garbled font (its words miss the lexicon and its text
   matches no language), bad runes or ``(cid:N)`` passthrough; "no language" or a low lexicon score only
   on a page with enough different words, never on a short or repetitive page;
2. the text holds enough different words for a solution to be told from chance: on a few words many
   bijections make words ("Ok" read as "Je", "Show" as "Sang");
3. the layer itself does not already read like a clean page (then it is no cipher, whatever condemned it);
4. the repaired text is in a language a lexicon judges and scores like a clean page of it
   (:data:`REPAIR_CLEAN_MIN_BY_LANGUAGE`, calibrated on the clean born-digital pages of the dev corpus, not
   on the valley between clean and garbled text), and
   its capitals sit where a clean page's do (a shift fitted to one font of two turns "language" into
   "LAnguAge", which a case-folded lexicon does not see);
5. where the page's fonts differ, in each font with enough words of its own: one mapping fitted to the
   page repairs one font and garbles the other when they were shifted by different amounts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import regex

from quality.judge import TextCheck
from quality.lexicon import JUDGING_LANGUAGES, load_lexicon
from quality.page_signals import judged_tokens

# A repair may replace a layer condemned by these: evidence about its characters or its fonts.
STRONG_REASONS = frozenset({"bad_runes", "cid_passthrough"})
# These condemn on statistics of the page's words: strong only with REPAIR_MIN_DISTINCT_WORDS behind them.
STATISTICAL_REASONS = frozenset({"no_language", "lexicon_low"})

# Different words (case-folded, two letters or more) a text needs for a repair to be told from chance.
# Windows of the dev corpus's clean pages, shift- and shuffle-garbled, repaired with the profile scorer:
# at 3, 5 and 10 different words 6 of 24 repairs were wrong bijections the score accepted; from 20 on none
# that the text check trusted; thirty keeps a margin (docs/decisions.md, "Repairs on strong evidence").
REPAIR_MIN_DISTINCT_WORDS = 30
# The lexicon hit rate (the verdicts' check of a replacement text, over the whole text) a repaired text
# must reach: the 5th percentile of the clean born-digital pages of the dev corpus in its language (German
# 97 pages, English 30, Russian 24; docs/decisions.md), ...
REPAIR_CLEAN_MIN_BY_LANGUAGE = {"de": 0.378, "en": 0.790, "ru": 0.485}
# ... and in a language with fewer clean pages there, the 5th percentile of all 152 (min 0.343).
REPAIR_CLEAN_MIN = 0.393
# Share of the lexicon's words in a text written with a capital after a small letter ("LAnguAge", "hAve"):
# a shift fitted across a case seam puts them there (0.48 on a two-font page), clean born-digital pages
# of the dev corpus have at most 0.011 (camel case and variables miss the lexicon and do not count).
REPAIR_MAX_MISCASED = 0.05

_WORD = regex.compile(r"\p{L}[\p{L}\p{M}]+")
_INNER_CAPITAL = regex.compile(r"\p{Ll}\p{Lu}")


def distinct_words(text: str) -> int:
    """Different words of two letters or more in ``text``, case-folded."""
    return len({w.casefold() for w in _WORD.findall(text)})


def enough_text(text: str) -> bool:
    return distinct_words(text) >= REPAIR_MIN_DISTINCT_WORDS


def miscased(text: str, language: str) -> float:
    """Share of the words of ``text`` that ``language``'s lexicon knows written with a capital right after
    a small letter."""
    lexicon = load_lexicon(language)
    hits = [text[start:end] for start, end, _, hit in judged_tokens(text, lexicon) if hit]
    return sum(1 for h in hits if _INNER_CAPITAL.search(h)) / len(hits) if hits else 0.0


def clean_min(language: str | None) -> float:
    return REPAIR_CLEAN_MIN_BY_LANGUAGE.get(language or "", REPAIR_CLEAN_MIN)


def strongly_condemned(reasons: Iterable[str], text: str) -> bool:
    """Rule 1: the page's text was condemned on evidence a repair may answer."""
    reasons = set(reasons)
    if reasons & STRONG_REASONS or any(r.startswith("font_garbled:") for r in reasons):
        return True
    return bool(reasons & STATISTICAL_REASONS) and enough_text(text)


@dataclass(frozen=True, slots=True)
class GateDecision:
    allowed: bool
    why: str  # the rule that declined it, or "clean" when it passed


def reads_clean(text: str, check: TextCheck) -> GateDecision:
    """Rule 4 for one text, read as the verdicts read a replacement text (``check``): trusted, at its
    language's clean bar where a lexicon judges it, its words' capitals in place."""
    reading = check(text)
    if not reading.trusted:
        return GateDecision(False, "untrusted")
    if reading.language not in JUDGING_LANGUAGES or not reading.score:
        return GateDecision(False, "no_lexicon")  # nothing tells how a clean page of it would score
    if reading.score < clean_min(reading.language):
        return GateDecision(False, "below_clean")
    if miscased(text, reading.language) > REPAIR_MAX_MISCASED:
        return GateDecision(False, "miscased")
    return GateDecision(True, "clean")


def before_repair(reasons: Iterable[str], text: str, check: TextCheck) -> GateDecision:
    """Rules 1-3: whether a repair of ``text`` may be tried at all."""
    if not strongly_condemned(reasons, text):
        return GateDecision(False, "weak_evidence")
    if not enough_text(text):
        return GateDecision(False, "too_little_text")
    if reads_clean(text, check).allowed:
        return GateDecision(False, "layer_reads_clean")
    return GateDecision(True, "clean")


def after_repair(
    repaired: str,
    font_texts: Mapping[str, str],
    apply: Callable[[str], str],
    check: TextCheck,
) -> GateDecision:
    """Rules 4-5: the repaired page, and each font's text with enough words under the same mapping."""
    page = reads_clean(repaired, check)
    if not page.allowed:
        return page
    for font, text in sorted(font_texts.items()):
        if not enough_text(text):
            continue
        own = reads_clean(apply(text), check)
        if not own.allowed:
            return GateDecision(False, f"font:{font}:{own.why}")
    return GateDecision(True, "clean")
