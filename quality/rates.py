"""The two numbers to watch after any change to a reader: the fallback rate and the Underivable rate.

- **fallback rate** of a kind: derived documents whose text came from a reader other than the first, over
  derived documents. It moves when a primary reader breaks or improves.
- **Underivable rate** of a kind: documents nothing could get text from, over documents a reader was
  tried on (derived + underivable + error). Unsupported and skipped documents are left out: no reader was
  tried. A scan or an image whose readers found no text layer but whose pages OCR read is not
  underivable: the rate is of the final outcome, after OCR (``ocr_read``), so that it measures what the
  corpus owner gets, and an image kind (always "underivable" to the text-layer readers) is not a
  permanent alarm.

A rate over fewer than ``min_documents`` documents is reported but not judged: one scanned PDF in a shard
of two would otherwise be a 50% alarm.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Protocol


class DerivationLike(Protocol):
    sha256: str
    kind: str
    status: str
    recovered_by_fallback: bool


@dataclass(frozen=True, slots=True)
class KindRates:
    kind: str
    documents: int
    attempted: int
    derived: int
    fallback: int
    underivable: int
    error: int
    ocr: int = 0  # documents counted derived because OCR read them (their text layer gave nothing)

    @property
    def fallback_rate(self) -> float:
        return self.fallback / self.derived if self.derived else 0.0

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


def rates_by_kind(
    derivations: Iterable[DerivationLike], ocr_read: AbstractSet[str] = frozenset()
) -> dict[str, KindRates]:
    """Counts per kind; ``ocr_read`` holds the documents some page of which OCR read text from."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for d in derivations:
        c = counts[d.kind]
        c["documents"] += 1
        if d.status in ("derived", "underivable", "error"):
            c["attempted"] += 1
        if d.status == "underivable" and d.sha256 in ocr_read:
            c["derived"] += 1
            c["ocr"] += 1
            continue
        c[d.status] += 1
        if d.status == "derived" and d.recovered_by_fallback:
            c["fallback"] += 1
    return {
        kind: KindRates(
            kind=kind,
            documents=c["documents"],
            attempted=c["attempted"],
            derived=c["derived"],
            fallback=c["fallback"],
            underivable=c["underivable"],
            error=c["error"],
            ocr=c["ocr"],
        )
        for kind, c in sorted(counts.items())
    }


def judge_fallback(rates: dict[str, KindRates], bound: Bound) -> RateJudgement:
    return _judge({k: (r.fallback_rate, r.derived) for k, r in rates.items()}, bound)


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
