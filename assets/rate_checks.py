"""The fallback-rate and Underivable-rate checks, shared by the extract and ocr assets (over the shards of
a run) and the catalog asset (over the whole corpus), and the fallback-rate movement check of the catalog
(the corpus's rates under the current extractor version against the previous one's). Every one counts the
documents' outcomes as the ``outcomes`` view gives them (warehouse/outcomes.py): on extract, before the
verdicts and OCR have run, that is what the readers did; after OCR, what the documents finally yielded."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, fields

import dagster as dg

from assets.resources import AssaySettings
from quality.outcomes import OutcomeRecord
from quality.rates import Bound, KindRates, judge_fallback, judge_underivable, rates_by_kind
from warehouse import Warehouse
from warehouse.catalog import previous_version
from warehouse.outcomes import outcomes

# KindRates' counts, in field order after its kind.
KIND_COUNTS = tuple(f.name for f in fields(KindRates))[1:]

FALLBACK = "fallback_rate"
UNDERIVABLE = "underivable_rate"
FALLBACK_MOVEMENT = "fallback_rate_movement"


def rate_check_specs(
    asset: str,
    *,
    scope: str,
    checks: Sequence[str] = (FALLBACK, UNDERIVABLE),
    blocking: AbstractSet[str] = frozenset(),
) -> list[dg.AssetCheckSpec]:
    """``blocking``: checks whose ERROR stops the run (the step fails once its results are recorded)."""
    descriptions = {
        FALLBACK: f"Share of the documents per content kind that end with text whose outcome is fallback "
        f"(a fallback reader's text), over {scope}. Warns past the configured bound.",
        UNDERIVABLE: f"Share of the documents per content kind a reader was tried on whose outcome is "
        f"underivable (nothing, readers, repairs or OCR, got text from them), over {scope}. "
        + (
            "Fails (ERROR, blocking: the run fails) past the configured bound."
            if UNDERIVABLE in blocking
            else "Fails past the configured bound."
        ),
    }
    return [
        dg.AssetCheckSpec(name, asset=asset, description=descriptions[name], blocking=name in blocking)
        for name in checks
    ]


def rate_check_results(
    asset: str,
    documents: Sequence[OutcomeRecord],
    assay: AssaySettings,
    *,
    by_shard: bool = False,
    underivable_severity: dg.AssetCheckSeverity = dg.AssetCheckSeverity.ERROR,
    checks: Sequence[str] = (FALLBACK, UNDERIVABLE),
) -> Iterator[dg.AssetCheckResult]:
    """The checks' results over the ``documents``' outcomes. Over a run's shards (a few dozen documents,
    scans clustered by chance) the Underivable rate only warns; over the corpus it is an error.
    ``by_shard``: report the shard with the highest rate per kind too."""
    rates = rates_by_kind(documents)
    fallback = judge_fallback(
        rates, Bound(assay.fallback_rate_max, assay.min_documents_for_rate, assay.fallback_rate_max_by_kind)
    )
    underivable = judge_underivable(rates, Bound(assay.underivable_rate_max, assay.min_documents_for_rate))
    table = {k: kind_figures(r) for k, r in rates.items()}
    shard_worst = _worst_shards(documents) if by_shard else {}
    if FALLBACK in checks:
        yield dg.AssetCheckResult(
            asset_key=asset,
            check_name=FALLBACK,
            passed=fallback.passed,
            severity=dg.AssetCheckSeverity.WARN,
            metadata={
                **_plotted(rates, "fallback"),
                "bound": assay.fallback_rate_max,
                "bound_by_kind": dict(assay.fallback_rate_max_by_kind),
                "rates_by_kind": fallback.judged,
                "over_bound": fallback.over,
                "not_judged_too_few_documents": fallback.too_few,
                "by_kind": table,
                "worst_shard_fallback": shard_worst.get(FALLBACK, {}),
            },
        )
    if UNDERIVABLE in checks:
        yield dg.AssetCheckResult(
            asset_key=asset,
            check_name=UNDERIVABLE,
            passed=underivable.passed,
            severity=underivable_severity,
            metadata={
                **_plotted(rates, "underivable"),
                "bound": assay.underivable_rate_max,
                "rates_by_kind": underivable.judged,
                "over_bound": underivable.over,
                "not_judged_too_few_documents": underivable.too_few,
                "by_kind": table,
                "worst_shard_underivable": shard_worst.get(UNDERIVABLE, {}),
            },
        )


def _plotted(rates: Mapping[str, KindRates], which: str) -> dict[str, float | int]:
    """The rate as plain numbers the UI plots over runs: over every kind (``rate``), then per kind
    (``rate <kind>``), with the documents it is over; the JSON tables beside them are for reading. The
    rates are KindRates' own, the whole corpus counted as one kind."""
    total = KindRates(
        "all",
        *(sum(getattr(r, f) for r in rates.values()) for f in KIND_COUNTS),
    )

    def rate(r: KindRates) -> float:
        return r.fallback_rate if which == "fallback" else r.underivable_rate

    def over(r: KindRates) -> int:
        return r.with_text if which == "fallback" else r.attempted

    plotted: dict[str, float | int] = {"rate": round(rate(total), 4), "documents_rated": over(total)}
    plotted |= {f"rate {k}": round(rate(r), 4) for k, r in sorted(rates.items()) if over(r)}
    return plotted


def kind_figures(r: KindRates) -> dict[str, float | int]:
    """One kind's counts by outcome and its two rates, as the checks' and the report's metadata show them."""
    return {
        **{f: getattr(r, f) for f in KIND_COUNTS},
        "with_text": r.with_text,
        "attempted": r.attempted,
        "fallback_rate": round(r.fallback_rate, 4),
        "underivable_rate": round(r.underivable_rate, 4),
    }


def _worst_shards(documents: Sequence[OutcomeRecord]) -> dict[str, dict[str, object]]:
    """Per kind, the shard with the highest rate (reported, not judged: shards are small)."""
    per_shard: dict[str, list[OutcomeRecord]] = {}
    for d in documents:
        per_shard.setdefault(d.shard, []).append(d)
    worst: dict[str, dict[str, object]] = {FALLBACK: {}, UNDERIVABLE: {}}
    for shard, rows in sorted(per_shard.items()):
        for kind, r in rates_by_kind(rows).items():
            for name, rate in ((FALLBACK, r.fallback_rate), (UNDERIVABLE, r.underivable_rate)):
                best = worst[name].get(kind)
                if rate > 0 and (best is None or rate > best["rate"]):
                    worst[name][kind] = {"shard": shard, "rate": round(rate, 4)}
    return worst


# -- the fallback rate's movement between extractor versions -------------------------------------------


@dataclass(frozen=True, slots=True)
class KindMove:
    """One kind's fallback rate under the previous and the current extractor version. ``move`` is the
    signed difference (current - previous); None when the kind is missing under one of the versions."""

    kind: str
    previous_rate: float | None
    current_rate: float | None
    previous_documents: int
    current_documents: int
    move: float | None
    judged: bool


def fallback_moves(
    previous: Mapping[str, KindRates], current: Mapping[str, KindRates], min_documents: int
) -> list[KindMove]:
    """Per kind, the fallback rate (fallback over the documents with text) under both versions; a move is
    judged only when both versions gave text to at least ``min_documents`` documents of the kind (the same
    floor as the rate checks: one document of three switching reader is not a trend)."""
    moves = []
    for kind in sorted(set(previous) | set(current)):
        before, now = previous.get(kind), current.get(kind)
        rate_before = before.fallback_rate if before and before.with_text else None
        rate_now = now.fallback_rate if now and now.with_text else None
        n_before = before.with_text if before else 0
        n_now = now.with_text if now else 0
        move = rate_now - rate_before if rate_before is not None and rate_now is not None else None
        moves.append(
            KindMove(
                kind,
                None if rate_before is None else round(rate_before, 4),
                None if rate_now is None else round(rate_now, 4),
                n_before,
                n_now,
                None if move is None else round(move, 4),
                judged=move is not None and min(n_before, n_now) >= min_documents,
            )
        )
    return moves


def movement_check_spec(asset: str) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(
        FALLBACK_MOVEMENT,
        asset=asset,
        description="Per content kind, the fallback rate over the corpus under the current extractor version "
        "against the previous version in the warehouse. Warns when a kind's rate moves by more than the "
        "configured bound (fallback_rate_move_max, absolute, either way); passes when there is no previous "
        "version.",
    )


def fallback_movement_result(
    asset: str,
    wh: Warehouse,
    version: str,
    assay: AssaySettings,
    current: Sequence[OutcomeRecord] | None = None,
) -> dg.AssetCheckResult:
    """The movement check's result. ``current``: the outcomes under ``version`` when the caller already
    has them (read from the warehouse otherwise). The previous version is the most recently written other one,
    as ``version_diff`` takes it."""
    bound = assay.fallback_rate_move_max
    previous = previous_version(wh, version)
    if previous is None:
        return dg.AssetCheckResult(
            asset_key=asset,
            check_name=FALLBACK_MOVEMENT,
            passed=True,
            severity=dg.AssetCheckSeverity.WARN,
            metadata={
                "bound": bound,
                "versions_compared": [version],
                "note": "no previous extractor version in the warehouse: nothing to compare with",
                "over_bound": {},
            },
        )
    now = current if current is not None else outcomes(wh, version)
    moves = fallback_moves(
        rates_by_kind(outcomes(wh, previous)), rates_by_kind(now), assay.min_documents_for_rate
    )
    over = {m.kind: m.move for m in moves if m.judged and m.move is not None and abs(m.move) > bound}
    return dg.AssetCheckResult(
        asset_key=asset,
        check_name=FALLBACK_MOVEMENT,
        passed=not over,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "bound": bound,
            "previous_version": previous,
            "current_version": version,
            "versions_compared": [previous, version],
            "over_bound": over,
            # Numbers the UI plots over runs, one per kind judged.
            **{f"move {m.kind}": m.move for m in moves if m.move is not None},
            "by_kind": {
                m.kind: {
                    "previous_rate": m.previous_rate,
                    "current_rate": m.current_rate,
                    "move": m.move,
                    "previous_documents": m.previous_documents,
                    "current_documents": m.current_documents,
                    "judged": m.judged,
                }
                for m in moves
            },
            "not_judged_too_few_documents": [m.kind for m in moves if not m.judged],
        },
    )
