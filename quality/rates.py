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

A rate over fewer than ``min_documents_for_rate`` documents is reported but not judged: one scanned PDF in
a shard of two would otherwise be a 50% alarm. The judging is Great Expectations' (quality/expectations.py
the suites, assets/data_quality.py the step that validates them).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from quality.outcomes import DocumentOutcome


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


def rates_by_kind(outcomes: Iterable[OutcomeLike]) -> dict[str, KindRates]:
    """The documents of each kind counted by outcome."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for o in outcomes:
        counts[o.kind][DocumentOutcome(o.outcome).value] += 1
    return {
        kind: KindRates(kind, sum(c.values()), **{o.value: c[o.value] for o in DocumentOutcome})
        for kind, c in sorted(counts.items())
    }
