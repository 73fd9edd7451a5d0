"""quality_report: the corpus's quality as pictures (quality/report_plots.py), written as PNG files under
``<home>/reports/`` and shown in the Dagster UI as the materialization's metadata, with the figures
behind them as numbers. A plot with too little to draw is left out: its file is removed and the metadata
says why in its place."""

import base64
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg

from assets.rate_checks import kind_figures
from assets.resources import AssaySettings
from assets.stages import graph
from quality.cross_check import FalsePositives, false_positives, movement
from quality.rates import KindRates, rates_by_kind
from quality.report_plots import (
    VersionRates,
    histogram_left_out,
    judged_pages,
    modes_by_kind_png,
    modes_left_out,
    rates_by_version_png,
    rates_left_out,
    score_histogram_png,
    thresholds,
    valley,
    write_png,
)
from quality.verdicts import Mode, Tier
from readers.core.versions import EXTRACTOR_VERSION
from warehouse import Warehouse
from warehouse.duckdb_catalog import previous_version
from warehouse.outcome_query import outcomes

# The rates chart compares the newest this many extractor versions on disk: enough to see a trend, few
# enough that each kind's bars stay readable.
REPORT_VERSIONS = 4
REPORTS_DIR = "reports"
FALSE_POSITIVE_MOVEMENT = "verdict_false_positive_movement"


@dataclass(frozen=True, slots=True)
class Plot:
    """One plot of the report: drawn (``png``), or left out (``left_out`` says why)."""

    key: str
    caption: str
    path: Path
    png: bytes | None = None
    left_out: str | None = None


#: Each plot's key: what it shows, and the last word of its file's name (quality-<version>-<name>.png).
PLOTS = {
    "score_histogram": ("page scores and thresholds", "scores"),
    "modes_chart": ("modes by kind", "modes"),
    "rates_chart": ("rates by extractor version", "rates"),
}


def plot_path(directory: Path, key: str, version: str = EXTRACTOR_VERSION) -> Path:
    return directory / f"quality-{version}-{PLOTS[key][1]}.png"


def _plot(directory: Path, key: str, left_out: str | None, draw: Callable[[], bytes]) -> Plot:
    caption, path = PLOTS[key][0], plot_path(directory, key)
    if left_out is not None:
        return Plot(key, caption, path, left_out=left_out)
    return Plot(key, caption, path, png=draw())


@dg.asset(
    group_name="quality",
    # Drawn from the stages' tables, beside the catalog rather than after it: a blocking catalog check
    # that fails does not keep the plots that help see why from being drawn.
    deps=[graph().writer(t).name for t in ("derivations", "page_verdicts", "ocr_pages")],
    code_version=EXTRACTOR_VERSION,
    kinds={"python", "png"},
    check_specs=[
        dg.AssetCheckSpec(
            FALSE_POSITIVE_MOVEMENT,
            asset="quality_report",
            description="The verdicts' false-positive rate (REPLACE pages whose text layer OCR read back, "
            "over the pages so cross-checked) against the previous extractor version's. Warns when it "
            "moves by more than the configured bound (verdict_false_positive_move_max); passes when there "
            "is no previous version or too few cross-checked pages to compare.",
        )
    ],
    description="Plots of the corpus's quality, as PNG files under `<home>/reports/` and in this asset's "
    "metadata: the page score histogram with its thresholds and valley, the page modes by content kind, "
    "the fallback and Underivable rates by kind across extractor versions.",
)
def quality_report(context: dg.AssetExecutionContext, assay: AssaySettings) -> dg.MaterializeResult:
    wh = assay.warehouse()
    directory = assay.home_path / REPORTS_DIR
    kinds = {sha: kind for sha, kind in wh.columns("derivations", EXTRACTOR_VERSION, ("sha256", "kind"))}
    verdicts = wh.columns(
        "page_verdicts",
        EXTRACTOR_VERSION,
        ("sha256", "mode", "provenance", "score", "threshold", "judged_by"),
    )
    # One record the histogram and the modes chart are both drawn from, so that their counts agree.
    judged = judged_pages(verdicts, kinds)
    scored, modes = judged.scored, judged.kinds
    tiers = Counter(tier for *_, tier in verdicts if tier != Tier.NO_TEXT)
    now = _false_positives(wh, EXTRACTOR_VERSION)
    versions = wh.versions("derivations")[-REPORT_VERSIONS:]
    rates = [VersionRates(v, _rates(wh, v)) for v in versions]

    found = thresholds(scored)
    v = valley(scored, found[0].value) if found else None
    title = f"Page scores, extractor {EXTRACTOR_VERSION}: {len(scored)} of {judged.pages} judged pages"
    modes_title = f"Page modes by content kind, extractor {EXTRACTOR_VERSION}"
    plots = [
        _plot(
            directory,
            "score_histogram",
            histogram_left_out(judged),
            lambda: score_histogram_png(judged, title=title),
        ),
        _plot(
            directory,
            "modes_chart",
            modes_left_out(modes),
            lambda: modes_by_kind_png(modes, title=modes_title),
        ),
        _plot(directory, "rates_chart", rates_left_out(rates), lambda: rates_by_version_png(rates)),
    ]
    metadata: dict[str, Any] = {}
    for plot in plots:
        if plot.png is None:
            plot.path.unlink(missing_ok=True)  # a plot drawn by an earlier run is not this corpus's
            metadata[plot.key] = f"left out: {plot.left_out}"
            continue
        write_png(plot.png, plot.path)
        encoded = base64.b64encode(plot.png).decode("ascii")
        metadata[plot.key] = dg.MetadataValue.md(f"![{plot.caption}](data:image/png;base64,{encoded})")
        metadata[f"{plot.key}_file"] = dg.MetadataValue.path(str(plot.path))
    context.log.info(f"quality report written to {directory}")
    totals = judged.modes
    metadata |= {
        "pages_judged": judged.pages,
        "pages_scored": len(scored),
        "pages_by_tier": dg.MetadataValue.json(dict(sorted(tiers.items()))),
        "pages_unjudgeable_share": round(tiers[Tier.UNJUDGEABLE] / max(1, sum(tiers.values())), 4),
        "verdict_false_positives": now.confirmed,
        "pages_cross_checked_by_ocr": now.cross_checked,
        "verdict_false_positive_rate": round(now.rate, 4),
        **{f"pages_{mode.value}": totals[mode] for mode in Mode},
        "thresholds": dg.MetadataValue.json(
            [{"value": t.value, "provenances": list(t.provenances), "pages": t.pages} for t in found]
        ),
        "valley": f"{v.low:.3f}-{v.high:.3f}: {v.pages} pages" if v else "none between two modes",
        **({"valley_low": v.low, "valley_high": v.high, "valley_pages": v.pages} if v else {}),
        "modes_by_kind": dg.MetadataValue.json(
            {m.kind: {mode.value: n for mode, n in m.counts.items()} for m in modes}
        ),
        "versions": dg.MetadataValue.json(versions),
        "rates_by_version": dg.MetadataValue.json(
            {r.version: {kind: kind_figures(k) for kind, k in r.rates.items()} for r in rates}
        ),
    }
    return dg.MaterializeResult(
        metadata=metadata, check_results=[false_positive_check(wh, EXTRACTOR_VERSION, assay, now)]
    )


def _false_positives(wh: Warehouse, version: str) -> FalsePositives:
    return false_positives(c for (c,) in wh.columns("page_texts", version, ("cross_check",)))


def false_positive_check(
    wh: Warehouse, version: str, assay: AssaySettings, now: FalsePositives | None = None
) -> dg.AssetCheckResult:
    """The false-positive movement check of ``version`` against the most recently written other one."""
    now = now or _false_positives(wh, version)
    bound = assay.verdict_false_positive_move_max
    previous = previous_version(wh, version)
    meta: dict[str, Any] = {
        "bound": bound,
        "rate": round(now.rate, 4),
        "confirmed": now.confirmed,
        "cross_checked": now.cross_checked,
    }
    if previous is None:
        meta["note"] = "no previous extractor version in the warehouse: nothing to compare with"
        return dg.AssetCheckResult(
            check_name=FALSE_POSITIVE_MOVEMENT,
            passed=True,
            severity=dg.AssetCheckSeverity.WARN,
            metadata=meta,
        )
    m = movement(_false_positives(wh, previous), now, assay.min_documents_for_rate)
    meta |= {
        "previous_version": previous,
        "previous_rate": round(m.before.rate, 4),
        "move": round(m.move, 4),
        "judged": m.judged,
    }
    return dg.AssetCheckResult(
        check_name=FALSE_POSITIVE_MOVEMENT,
        passed=not (m.judged and abs(m.move) > bound),
        severity=dg.AssetCheckSeverity.WARN,
        metadata=meta,
    )


def _rates(wh: Warehouse, version: str) -> dict[str, KindRates]:
    """The fallback and Underivable rates of one version by kind, of its documents' outcomes, counted as
    the catalog's checks count them."""
    return rates_by_kind(outcomes(wh, version))
