"""The verdicts' false positives, as OCR's second opinion counts them (quality/sources.py): pages judged
REPLACE on statistical evidence whose OCR reading agreed with their text layer.

The rate is of the cross-checked pages (REPLACE pages with a text layer that only statistical evidence
condemned, and enough words on both sides to compare): confirmed over cross-checked. It moves when a verdict
rule or a lexicon changes what is condemned; the quality report's check warns when it moves.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from quality.records import CrossCheck

_VERDICT_CHECKS = frozenset({CrossCheck.TEXT_LAYER_CONFIRMED.value, CrossCheck.OCR_DISAGREES.value})


@dataclass(frozen=True, slots=True)
class FalsePositives:
    cross_checked: int
    confirmed: int

    @property
    def rate(self) -> float:
        return self.confirmed / self.cross_checked if self.cross_checked else 0.0


def false_positives(cross_checks: Iterable[str | None]) -> FalsePositives:
    """Counted over ``page_texts.cross_check`` values (None: the page was not cross-checked; an OCR layer's
    own comparison, ocr_layer_kept or ocr_layer_replaced, is not a verdict on a born-digital layer)."""
    checked = confirmed = 0
    for value in cross_checks:
        if value not in _VERDICT_CHECKS:
            continue
        checked += 1
        confirmed += value == CrossCheck.TEXT_LAYER_CONFIRMED
    return FalsePositives(checked, confirmed)


@dataclass(frozen=True, slots=True)
class Movement:
    before: FalsePositives
    now: FalsePositives
    judged: bool  # both versions cross-checked enough pages to compare

    @property
    def move(self) -> float:
        return self.now.rate - self.before.rate


def movement(before: FalsePositives, now: FalsePositives, min_pages: int) -> Movement:
    return Movement(before, now, before.cross_checked >= min_pages and now.cross_checked >= min_pages)
