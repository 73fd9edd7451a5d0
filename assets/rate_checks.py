"""The fallback-rate and Underivable-rate checks on the extract and ocr assets (over the shards a run
wrote) and the catalog asset (over the whole corpus), and the fallback-rate movement check of the catalog
(the corpus's rates under the current extractor version against the previous one's): their specs, and the
figures their results carry beside GX's (GX validates them: assets/data_quality.py, quality/expectations.py).
Every one counts the documents' outcomes as the ``outcomes`` view gives them (warehouse/outcome_query.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, fields

import dagster as dg

from assets.resources import AssaySettings
from quality.expectations import FALLBACK, FALLBACK_MOVEMENT, UNDERIVABLE
from quality.outcomes import OutcomeRecord
from quality.rates import KindRates, rates_by_kind

# KindRates' counts, in field order after its kind.
KIND_COUNTS = tuple(f.name for f in fields(KindRates))[1:]


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


def rate_metadata(
    name: str,
    rates: Mapping[str, KindRates],
    assay: AssaySettings,
    over: Mapping[str, float],
    documents: Sequence[OutcomeRecord] = (),
) -> dict[str, object]:
    """The figures a rate check's result carries besides GX's: the rates the UI plots, the bound, the
    rates judged and those over the bound (``over``: from GX's unexpected rows), the kinds with too few
    documents to judge, each kind's counts, and over a run's shards (``documents`` given) the shard with
    the highest rate per kind."""
    fallback = name == FALLBACK

    def n(r: KindRates) -> int:
        return r.with_text if fallback else r.attempted

    def rate(r: KindRates) -> float:
        return round(r.fallback_rate if fallback else r.underivable_rate, 4)

    judged = {k: rate(r) for k, r in rates.items() if n(r) and n(r) >= assay.min_documents_for_rate}
    too_few = {k: n(r) for k, r in rates.items() if 0 < n(r) < assay.min_documents_for_rate}
    worst = _worst_shards(documents) if documents else {}
    return {
        **_plotted(rates, "fallback" if fallback else "underivable"),
        "bound": assay.fallback_rate_max if fallback else assay.underivable_rate_max,
        **({"bound_by_kind": dict(assay.fallback_rate_max_by_kind)} if fallback else {}),
        "rates_by_kind": judged,
        "over_bound": {k: judged.get(k, v) for k, v in over.items()},
        "not_judged_too_few_documents": too_few,
        "by_kind": {k: kind_figures(r) for k, r in rates.items()},
        f"worst_shard_{'fallback' if fallback else 'underivable'}": worst.get(name, {}),
    }


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


def movement_metadata(
    moves: Sequence[KindMove],
    previous: str | None,
    version: str,
    assay: AssaySettings,
    over: Mapping[str, float],
) -> dict[str, object]:
    """The figures the movement check's result carries besides GX's (``over``: the kinds GX found outside
    the bound, with their moves)."""
    bound = assay.fallback_rate_move_max
    if previous is None:
        return {
            "bound": bound,
            "versions_compared": [version],
            "note": "no previous extractor version in the warehouse: nothing to compare with",
            "over_bound": {},
        }
    return {
        "bound": bound,
        "previous_version": previous,
        "current_version": version,
        "versions_compared": [previous, version],
        "over_bound": dict(over),
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
    }
