"""The separation summary of the calibration, its documented symmetries, and the histogram it draws."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality.plots import score_histogram
from quality.separation import COVERAGE_FLOOR, between_class_variance, separation

# Scores on a dyadic grid: k / 1024 is exact in binary, and so is 1 - k / 1024, which lets the mirror
# symmetry be checked exactly rather than up to rounding.
_SCORE = st.integers(0, 1024).map(lambda k: k / 1024)
_SCORES = st.lists(_SCORE, min_size=1, max_size=40)


def test_a_clean_split() -> None:
    s = separation([0.8, 0.9, 0.85], [0.1, 0.2])
    assert s.margin == pytest.approx(0.6)
    assert s.widest_gap == pytest.approx(0.6)
    assert s.inversions == 0
    assert s.threshold == pytest.approx(0.5)  # midway between 0.2 and 0.8
    assert s.separability > 0.95
    assert (s.n_clean, s.n_garbled) == (3, 2)
    assert s.separated


def test_an_overlap() -> None:
    s = separation([0.3, 0.7, 0.9], [0.1, 0.3, 0.5])
    assert s.margin == pytest.approx(-0.2)
    # (0.3, 0.3) tie, (0.5, 0.3): two inversions
    assert s.inversions == 2
    # merged: 0.1g 0.3g 0.3c 0.5g 0.7c 0.9c; the gaps counted leave garbled scores the majority below
    # and more than half of them there, and the same for clean above: after 0.3/0.3 (2g 1c | 1g 2c)
    # and after 0.5 (3g 1c | 2c), both 0.2 wide; after 0.1 only one garbled score is below
    assert s.widest_gap == pytest.approx(0.2)
    assert not s.separated


def test_no_majority_split_gives_no_gap() -> None:
    assert separation([0.1, 0.2], [0.8, 0.9]).widest_gap == 0.0  # populations the wrong way round


def test_all_equal_scores() -> None:
    s = separation([0.5, 0.5], [0.5])
    assert s.threshold == 0.5
    assert s.separability == 0.0
    assert s.widest_gap == 0.0
    assert s.inversions == 2


def test_the_coverage_floor_keeps_an_outlier_from_forming_a_class() -> None:
    clean = [0.89 + i / 1000 for i in range(20)]
    garbled = [0.74 + i / 1000 for i in range(19)] + [0.0]  # an empty page among the garbled ones
    assert separation(clean, garbled, coverage_floor=0.0).threshold < 0.74  # the outlier cut off alone
    assert separation(clean, garbled, coverage_floor=0.05).threshold < 0.758  # it and its neighbour
    assert 0.758 < separation(clean, garbled).threshold < 0.89  # between the populations
    # the gap between the outlier and the rest holds too few garbled pages below it to count
    assert separation(clean, garbled).widest_gap == pytest.approx(0.89 - 0.758)


@pytest.mark.parametrize(
    ("clean", "garbled", "floor"),
    [
        ([], [0.1], COVERAGE_FLOOR),
        ([0.9], [], COVERAGE_FLOOR),
        ([math.nan], [0.1], 0.05),
        ([0.9], [0.1], 0.6),
    ],
)
def test_bad_input_is_refused(clean: list[float], garbled: list[float], floor: float) -> None:
    with pytest.raises(ValueError):
        separation(clean, garbled, coverage_floor=floor)


@settings(max_examples=200, deadline=None)
@given(_SCORES, _SCORES)
def test_margin_and_inversions_agree(clean: list[float], garbled: list[float]) -> None:
    s = separation(clean, garbled)
    assert (s.margin > 0) == (s.inversions == 0)
    if s.margin > 0:
        assert s.widest_gap >= s.margin
    assert 0 <= s.inversions <= len(clean) * len(garbled)


@settings(max_examples=200, deadline=None)
@given(_SCORES, _SCORES)
def test_threshold_and_ratios_stay_in_range(clean: list[float], garbled: list[float]) -> None:
    s = separation(clean, garbled)
    values = clean + garbled
    assert min(values) <= s.threshold <= max(values)
    assert 0.0 <= s.separability <= 1.0
    assert 0.0 <= s.widest_gap <= max(values) - min(values)


@settings(max_examples=200, deadline=None)
@given(_SCORES, _SCORES)
def test_otsu_threshold_is_the_best_allowed_cut(clean: list[float], garbled: list[float]) -> None:
    values = sorted(clean + garbled)
    s = separation(clean, garbled)
    least = max(1, math.ceil(COVERAGE_FLOOR * len(values)))
    cuts = [k for k in range(1, len(values)) if values[k - 1] < values[k]]
    allowed = [k for k in cuts if least <= k <= len(values) - least] or cuts
    if not allowed:
        return
    best = max(between_class_variance(values, (values[k - 1] + values[k]) / 2) for k in allowed)
    assert between_class_variance(values, s.threshold) == pytest.approx(best, rel=1e-9, abs=1e-15)


@settings(max_examples=200, deadline=None)
@given(_SCORES, _SCORES)
def test_swapping_the_populations(clean: list[float], garbled: list[float]) -> None:
    s, w = separation(clean, garbled), separation(garbled, clean)
    assert (w.threshold, w.separability) == (s.threshold, s.separability)  # Otsu reads no labels
    ties = sum(c == g for c in clean for g in garbled)
    assert s.inversions + w.inversions == len(clean) * len(garbled) + ties
    assert w.margin == min(garbled) - max(clean)
    assert s.margin + w.margin <= 0
    assert (w.n_clean, w.n_garbled) == (s.n_garbled, s.n_clean)


@settings(max_examples=200, deadline=None)
@given(_SCORES, _SCORES)
def test_swapping_and_mirroring_changes_only_the_threshold_side(
    clean: list[float], garbled: list[float]
) -> None:
    s = separation(clean, garbled)
    m = separation([1 - g for g in garbled], [1 - c for c in clean])
    assert (m.margin, m.widest_gap, m.inversions) == (s.margin, s.widest_gap, s.inversions)
    assert (m.n_clean, m.n_garbled) == (s.n_garbled, s.n_clean)
    assert m.separability == pytest.approx(s.separability, abs=1e-12)
    values = clean + garbled
    tied = between_class_variance(values, 1 - m.threshold) == pytest.approx(
        between_class_variance(values, s.threshold), rel=1e-9, abs=1e-15
    )
    assert 1 - m.threshold == s.threshold or tied


def test_score_histogram_writes_a_png(tmp_path: Path) -> None:
    clean = [0.7 + (i % 25) / 100 for i in range(120)]
    garbled = [0.05 + (i % 30) / 100 for i in range(100)]
    s = separation(clean, garbled)
    path = score_histogram(
        clean, garbled, threshold=s.threshold, path=tmp_path / "plots" / "lexicon.png", title="lexicon"
    )
    assert path == tmp_path / "plots" / "lexicon.png"
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 10_000
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    assert (width, height) == (800, 450)
    again = score_histogram(
        clean, garbled, threshold=s.threshold, path=tmp_path / "again.png", title="lexicon"
    )
    assert again.read_bytes() == data, "same scores, same bytes"


def test_score_histogram_draws_overlapping_populations(tmp_path: Path) -> None:
    path = score_histogram(
        [0.4, 0.6, 0.9], [0.1, 0.5, 0.7], threshold=0.5, path=tmp_path / "o.png", title="t"
    )
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
