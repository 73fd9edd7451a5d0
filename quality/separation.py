"""How well a page score separates clean pages from garbled ones: the numbers the calibration reports.

A score is only worth a threshold if the two populations it must tell apart do not overlap, so the
calibration set (clean pages, and the same pages garbled by ``quality.garble``) is summarised by:

- ``margin``: the lowest clean score minus the highest garbled score. Positive means a threshold exists
  that makes no mistake on the calibration set; its size is how much room that threshold has.
- ``widest_gap``: the widest gap between two consecutive distinct scores of the merged, sorted list
  that separates most of both populations. A gap counts when, below it, garbled scores outnumber clean
  ones and more than half of all garbled scores lie there, and, above it, clean scores outnumber garbled
  ones and more than half of all clean scores lie there. With a positive margin it is at least the
  margin (the gap between the highest garbled and the lowest clean score counts); with some overlap it
  still says how clear a cut exists for most pages. 0.0 when no gap counts.
- ``threshold``: Otsu's cut, which maximises the between-class variance of the merged scores, ignoring
  the labels (so it can be compared with where the labels say the cut should be). Each side of the cut
  must hold at least ``coverage_floor`` of the scores, so that one outlier cannot form a class of its
  own; when no cut satisfies the floor, the best cut of all is taken. The threshold is the midpoint
  between the two scores on either side of the cut; ties between equally good cuts go to the lowest.
- ``separability``: Otsu's ratio at that cut, between-class variance over total variance, in [0, 1]
  (1: two point masses; 0: no cut explains any variance, or all scores equal).
- ``inversions``: pairs (garbled, clean) with the garbled score >= the clean score.

Scores are assumed in [0, 1], clean high. Symmetry, as the tests check it: swapping the two arguments
leaves ``threshold`` and ``separability`` unchanged (Otsu does not read labels), turns ``inversions``
into ``n_clean * n_garbled - inversions + ties`` (ties: pairs of equal scores) and ``margin`` into
``min(garbled) - max(clean)``, so at most one of the two margins is positive. Swapping *and* mirroring
the scores (s → 1 - s), which describes the same populations with garbled high, leaves every number
unchanged (margin, widest gap, inversions, separability; the counts trade places) except
``threshold``, which becomes ``1 - threshold`` (unless two cuts tie).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

# Least share of all scores that each side of Otsu's cut must hold. The calibration set pairs every
# clean page with garbled versions of it, so both classes hold well over 10% and the floor does not
# bind on a real split. It binds when a stray page would otherwise be cut off as a class of its own:
# Otsu's variance is dominated by outliers. Measured (tests/test_separation.py): 19 garbled pages at
# 0.74-0.76, one empty page at 0.0 and 20 clean pages at 0.89-0.91; without a floor the cut falls at
# 0.37 (the empty page alone), with 0.05 at 0.74 (the empty page and its nearest neighbour), from 0.075
# on between the populations (0.82).
COVERAGE_FLOOR = 0.1


@dataclass(frozen=True, slots=True)
class Separation:
    """Summary of two score populations; see the module docstring for each definition."""

    margin: float
    widest_gap: float
    threshold: float
    separability: float
    inversions: int
    n_clean: int
    n_garbled: int

    @property
    def separated(self) -> bool:
        """Whether every clean score is above every garbled one."""
        return self.margin > 0


def _checked(name: str, values: Sequence[float]) -> list[float]:
    out = [float(v) for v in values]
    if not out:
        raise ValueError(f"{name} scores are empty")
    if not all(math.isfinite(v) for v in out):
        raise ValueError(f"{name} scores must be finite")
    return out


def between_class_variance(values: Sequence[float], threshold: float) -> float:
    """Otsu's between-class variance w0·w1·(μ0 − μ1)² of ``values`` cut at ``threshold`` (below | at or
    above). 0.0 when one side is empty. Lets a caller compare any threshold with Otsu's."""
    below = [v for v in values if v < threshold]
    above = [v for v in values if v >= threshold]
    if not below or not above:
        return 0.0
    n = len(below) + len(above)
    w0, w1 = len(below) / n, len(above) / n
    return w0 * w1 * (sum(below) / len(below) - sum(above) / len(above)) ** 2


def _otsu(values: list[float], coverage_floor: float) -> tuple[float, float]:
    """(threshold, separability) of sorted ``values``."""
    n = len(values)
    mean = sum(values) / n
    total = sum((v - mean) ** 2 for v in values) / n
    cuts = [k for k in range(1, n) if values[k - 1] < values[k]]
    if not cuts or total <= 0.0:
        return values[0], 0.0
    least = max(1, math.ceil(coverage_floor * n))
    allowed = [k for k in cuts if least <= k <= n - least] or cuts
    prefix = [0.0]
    for v in values:
        prefix.append(prefix[-1] + v)
    best_k, best = allowed[0], -1.0
    for k in allowed:
        mu0 = prefix[k] / k
        mu1 = (prefix[n] - prefix[k]) / (n - k)
        variance = (k / n) * ((n - k) / n) * (mu0 - mu1) ** 2
        if variance > best:
            best_k, best = k, variance
    threshold = (values[best_k - 1] + values[best_k]) / 2
    return threshold, min(1.0, max(0.0, best / total))


def _widest_gap(clean: list[float], garbled: list[float]) -> float:
    merged = sorted([(v, False) for v in garbled] + [(v, True) for v in clean])
    n, n_clean, n_garbled = len(merged), len(clean), len(garbled)
    widest, clean_below = 0.0, 0
    for k in range(1, n):
        clean_below += merged[k - 1][1]
        low, high = merged[k - 1][0], merged[k][0]
        if low == high:
            continue
        garbled_below = k - clean_below
        clean_above, garbled_above = n_clean - clean_below, n_garbled - garbled_below
        below_ok = garbled_below > clean_below and 2 * garbled_below > n_garbled
        above_ok = clean_above > garbled_above and 2 * clean_above > n_clean
        if below_ok and above_ok:
            widest = max(widest, high - low)
    return widest


def separation(
    clean: Sequence[float], garbled: Sequence[float], *, coverage_floor: float = COVERAGE_FLOOR
) -> Separation:
    """How well scores of clean pages (high) separate from those of garbled pages (low).

    Raises ValueError on an empty population, a non-finite score or a floor outside [0, 0.5].
    """
    if not 0.0 <= coverage_floor <= 0.5:
        raise ValueError(f"coverage_floor must lie in [0, 0.5], not {coverage_floor}")
    c, g = _checked("clean", clean), _checked("garbled", garbled)
    c_sorted = sorted(c)
    inversions = sum(bisect_right(c_sorted, v) for v in g)
    threshold, separability = _otsu(sorted(c + g), coverage_floor)
    return Separation(
        margin=c_sorted[0] - max(g),
        widest_gap=_widest_gap(c, g),
        threshold=threshold,
        separability=separability,
        inversions=inversions,
        n_clean=len(c),
        n_garbled=len(g),
    )
