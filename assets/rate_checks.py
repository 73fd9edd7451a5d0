"""The fallback-rate and Underivable-rate checks, shared by the extract asset (over the shards of a run)
and the catalog asset (over the whole corpus)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet

import dagster as dg

from orchestration.settings import AssaySettings
from quality.rates import Bound, judge_fallback, judge_underivable, rates_by_kind
from readers.records import DerivationRecord

FALLBACK = "fallback_rate"
UNDERIVABLE = "underivable_rate"


def rate_check_specs(
    asset: str, *, scope: str, checks: Sequence[str] = (FALLBACK, UNDERIVABLE)
) -> list[dg.AssetCheckSpec]:
    descriptions = {
        FALLBACK: f"Share of derived documents per content kind whose text came from a fallback reader, "
        f"over {scope}. Warns past the configured bound.",
        UNDERIVABLE: f"Share of documents per content kind that nothing (readers, repairs, OCR) got text "
        f"from, over {scope}. Fails past the configured bound.",
    }
    return [dg.AssetCheckSpec(name, asset=asset, description=descriptions[name]) for name in checks]


def rate_check_results(
    asset: str,
    derivations: Sequence[DerivationRecord],
    assay: AssaySettings,
    per_shard: Mapping[str, Sequence[DerivationRecord]] | None = None,
    underivable_severity: dg.AssetCheckSeverity = dg.AssetCheckSeverity.ERROR,
    ocr_read: AbstractSet[str] = frozenset(),
    checks: Sequence[str] = (FALLBACK, UNDERIVABLE),
) -> Iterator[dg.AssetCheckResult]:
    """The checks' results. Over a run's shards (a few dozen documents, scans clustered by chance) the
    Underivable rate only warns; over the corpus it is an error. ``ocr_read``: documents OCR read text
    from, counted derived (the rate is of the final outcome)."""
    rates = rates_by_kind(derivations, ocr_read)
    fallback = judge_fallback(
        rates, Bound(assay.fallback_rate_max, assay.min_documents_for_rate, assay.fallback_rate_max_by_kind)
    )
    underivable = judge_underivable(rates, Bound(assay.underivable_rate_max, assay.min_documents_for_rate))
    table = {
        k: {
            "documents": r.documents,
            "derived": r.derived,
            "fallback": r.fallback,
            "underivable": r.underivable,
            "read_by_ocr": r.ocr,
            "error": r.error,
            "fallback_rate": round(r.fallback_rate, 4),
            "underivable_rate": round(r.underivable_rate, 4),
        }
        for k, r in rates.items()
    }
    shard_worst = _worst_shards(per_shard or {}, ocr_read)
    if FALLBACK in checks:
        yield dg.AssetCheckResult(
            asset_key=asset,
            check_name=FALLBACK,
            passed=fallback.passed,
            severity=dg.AssetCheckSeverity.WARN,
            metadata={
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
                "bound": assay.underivable_rate_max,
                "rates_by_kind": underivable.judged,
                "over_bound": underivable.over,
                "not_judged_too_few_documents": underivable.too_few,
                "by_kind": table,
                "worst_shard_underivable": shard_worst.get(UNDERIVABLE, {}),
            },
        )


def _worst_shards(
    per_shard: Mapping[str, Sequence[DerivationRecord]], ocr_read: AbstractSet[str]
) -> dict[str, dict[str, object]]:
    """Per kind, the shard with the highest rate (reported, not judged: shards are small)."""
    worst: dict[str, dict[str, object]] = {FALLBACK: {}, UNDERIVABLE: {}}
    for shard, rows in per_shard.items():
        for kind, r in rates_by_kind(rows, ocr_read).items():
            for name, rate in ((FALLBACK, r.fallback_rate), (UNDERIVABLE, r.underivable_rate)):
                best = worst[name].get(kind)
                if rate > 0 and (best is None or rate > best["rate"]):
                    worst[name][kind] = {"shard": shard, "rate": round(rate, 4)}
    return worst
