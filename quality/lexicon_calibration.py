"""Calibration: how far apart clean pages and their garbled variants score, on real pages.

Each clean page is garbled the way a broken font garbles text (a seeded shuffle of its letters; digits,
punctuation and whitespace untouched) and both are scored with the lexicon of the clean page's language:
the length-weighted hit rate that the verdicts hold against ``LEXICON_MIN``. A second population garbles
30% of each page's words, as one broken font among sound ones would, and scores only those words: the
per-font score that condemns such a font. The report gives the margin (lowest clean minus highest garbled),
the widest gap, the Otsu threshold, the separability and the inversions (quality/separation.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quality.garble import partial_garble, shuffle_garble
from quality.lexicon import load_lexicon
from quality.page_signals import lexicon_evidence
from quality.separation import Separation, separation
from quality.verdicts import FONT_GARBLED_MAX, LEXICON_MIN

# The check on the calibration asset fails under these (docs/design.md §6).
MIN_MARGIN = 0.0
MIN_WIDEST_GAP = 0.2
PARTIAL_SHARE = 0.3
# Pages with less judgeable evidence than this are left out: the lexicon abstains on them anyway.
MIN_PAGE_WEIGHT = 80.0


@dataclass(frozen=True, slots=True)
class CleanPage:
    text: str
    language: str
    label: str


@dataclass(frozen=True, slots=True)
class Calibration:
    clean: list[float]
    garbled: list[float]
    partial: list[float]
    labels: list[str]
    summary: Separation
    threshold_in_use: float
    partial_caught: int

    @property
    def passed(self) -> bool:
        return self.summary.margin > MIN_MARGIN and self.summary.widest_gap >= MIN_WIDEST_GAP


def calibrate(pages: Sequence[CleanPage], seed: int = 0) -> Calibration | None:
    """Score every page and its garbled variants; None when no page has enough evidence."""
    clean: list[float] = []
    garbled: list[float] = []
    partial: list[float] = []
    labels: list[str] = []
    for i, page in enumerate(pages):
        lexicon = load_lexicon(page.language)
        original = lexicon_evidence(page.text, lexicon)
        if not original.judged or original.weight < MIN_PAGE_WEIGHT:
            continue
        shuffled = lexicon_evidence(shuffle_garble(page.text, seed + i), lexicon)
        part = partial_garble(page.text, PARTIAL_SHARE, seed + i)
        changed = " ".join(g for o, g in zip(page.text.split(), part.split(), strict=False) if o != g)
        clean.append(round(original.hit_rate, 4))
        garbled.append(round(shuffled.hit_rate, 4))
        partial.append(round(lexicon_evidence(changed, lexicon).hit_rate, 4))
        labels.append(page.label)
    if not clean:
        return None
    caught = sum(1 for p in partial if p < FONT_GARBLED_MAX)
    return Calibration(clean, garbled, partial, labels, separation(clean, garbled), LEXICON_MIN, caught)
