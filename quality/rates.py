"""The two numbers to watch after any change to a reader: the fallback rate and the Underivable rate,
both of the documents' final outcomes (quality/outcomes.py), so that they measure what the corpus owner
gets and say the same as the run summary, ``assay check`` and ``version_diff_rates``.

- **fallback rate** of a kind: documents whose outcome is ``fallback`` (some of their final text is a
  fallback reader's, or a reader other than the first derived them), over the documents that end with
  text (derived, fallback, repaired or ocr). It moves when a primary reader breaks or improves.
- **Underivable rate** of a kind: documents whose outcome is ``underivable`` (nothing, readers, repairs
  or OCR, gave them text), over the documents something was tried on (those with text, underivable and
  error). Unsupported and skipped documents are left out: no reader was tried. A scan or an image whose
  pages OCR read is ``ocr``, not underivable, so an image kind (always "underivable" to the text-layer
  readers) is not a permanent alarm.

A rate over fewer than ``min_documents`` documents is reported but not judged: one scanned PDF in a shard
of two would otherwise be a 50% alarm.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from quality.outcomes import Outcome


class OutcomeLike(Protocol):
    kind: str
    outcome: str


@dataclass(frozen=True, slots=True)
class KindRates:
    """One kind's documents counted by outcome."""

    kind: str
    documents: int
    derived: int  # by the first reader's text layer alone
    fallback: int
    repaired: int
    ocr: int
    underivable: int
    error: int
    unsupported: int = 0
    skipped: int = 0

    @property
    def with_text(self) -> int:
        """Documents that end with text: the fallback rate's denominator."""
        return self.derived + self.fallback + self.repaired + self.ocr

    @property
    def attempted(self) -> int:
        """Documents something was tried on: the Underivable rate's denominator."""
        return self.with_text + self.underivable + self.error

    @property
    def fallback_rate(self) -> float:
        return self.fallback / self.with_text if self.with_text else 0.0

    @property
    def underivable_rate(self) -> float:
        return self.underivable / self.attempted if self.attempted else 0.0


@dataclass(frozen=True, slots=True)
class Bound:
    """An upper bound on a rate, judged only with enough documents."""

    maximum: float
    min_documents: int
    # Kinds whose chain falls back by design get their own maximum (HTML: a page without a marked main
    # region is read by the second reader).
    per_kind: Mapping[str, float] = field(default_factory=dict)

    def maximum_for(self, kind: str) -> float:
        return self.per_kind.get(kind, self.maximum)


@dataclass(frozen=True, slots=True)
class RateJudgement:
    passed: bool
    judged: dict[str, float]
    over: dict[str, float]
    too_few: dict[str, int]


def rates_by_kind(outcomes: Iterable[OutcomeLike]) -> dict[str, KindRates]:
    """The documents of each kind counted by outcome."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for o in outcomes:
        counts[o.kind][Outcome(o.outcome).value] += 1
    return {
        kind: KindRates(kind, sum(c.values()), **{o.value: c[o.value] for o in Outcome})
        for kind, c in sorted(counts.items())
    }


def judge_fallback(rates: dict[str, KindRates], bound: Bound) -> RateJudgement:
    return _judge({k: (r.fallback_rate, r.with_text) for k, r in rates.items()}, bound)


def judge_underivable(rates: dict[str, KindRates], bound: Bound) -> RateJudgement:
    return _judge({k: (r.underivable_rate, r.attempted) for k, r in rates.items()}, bound)


def _judge(values: dict[str, tuple[float, int]], bound: Bound) -> RateJudgement:
    judged, over, too_few = {}, {}, {}
    for kind, (rate, n) in values.items():
        if n == 0:
            continue
        if n < bound.min_documents:
            too_few[kind] = n
            continue
        judged[kind] = round(rate, 4)
        if rate > bound.maximum_for(kind):
            over[kind] = round(rate, 4)
    return RateJudgement(passed=not over, judged=judged, over=over, too_few=too_few)
