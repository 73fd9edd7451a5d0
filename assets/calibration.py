"""calibration: garble the corpus's own clean pages the way broken fonts do, score both, and check that the
lexicon score still separates them with a margin; the histogram is written as a PNG and shown in the UI."""

import base64

import dagster as dg

from assets.resources import AssaySettings
from assets.stages import graph
from readers.core.versions import EXTRACTOR_VERSION
from warehouse.store import to_pylist

# At most this many clean pages are garbled and scored (spread evenly over the corpus: every k-th).
CALIBRATION_PAGES = 400
CLEAN_MODES = ("TEXT", "FIGURES")


@dg.asset(
    group_name="quality",
    deps=[graph().writer("page_verdicts").name],
    code_version=EXTRACTOR_VERSION,
    kinds={"python"},
    check_specs=[
        dg.AssetCheckSpec(
            "separation",
            asset="calibration",
            description="Clean pages must score above every garbled variant (margin > 0) with a widest gap "
            "of at least 0.2.",
        )
    ],
    description="Clean born-digital pages of the corpus against their garbled variants: margin, widest gap, "
    "separability, inversions and a histogram.",
)
def calibration(context: dg.AssetExecutionContext, assay: AssaySettings):
    from quality.lexicon_calibration import MIN_WIDEST_GAP, CleanPage, calibrate
    from quality.plots import score_histogram

    wh = assay.warehouse()
    verdicts = {
        (r["sha256"], r["page"]): r
        for r in to_pylist(wh.read_all_shards("page_verdicts", EXTRACTOR_VERSION))
        if r["mode"] in CLEAN_MODES and r["provenance"] == "born_digital" and r["text_source"] == "extracted"
    }
    # PDF pages only: the garbling calibrated against is a broken font's; a text file has no fonts.
    pdfs = {
        r["sha256"]
        for r in to_pylist(wh.read_all_shards("derivations", EXTRACTOR_VERSION))
        if r["kind"] == "pdf" and r["status"] == "derived"
    }
    pages = [
        CleanPage(r["text"], r["lexicon_language"], f"{r['sha256'][:12]} p{r['page']}")
        for r in to_pylist(wh.read_all_shards("pages", EXTRACTOR_VERSION))
        if r["sha256"] in pdfs
        and (r["sha256"], r["page"]) in verdicts
        and r["lexicon_judged"]
        and r["lexicon_language"]
    ]
    step = max(1, len(pages) // CALIBRATION_PAGES)
    result = calibrate(pages[::step])
    if result is None:
        yield dg.MaterializeResult(metadata={"pages": 0})
        yield dg.AssetCheckResult(
            check_name="separation", passed=True, metadata={"note": "no clean pages yet"}
        )
        return
    s = result.summary
    png = score_histogram(
        result.clean,
        result.garbled,
        threshold=result.threshold_in_use,
        path=assay.home_path / "reports" / f"calibration-{EXTRACTOR_VERSION}.png",
        title=f"Lexicon score: {s.n_clean} clean pages and their garbled variants",
    )
    figures = {
        "pages": s.n_clean,
        "margin": round(s.margin, 4),
        "widest_gap": round(s.widest_gap, 4),
        "otsu_threshold": round(s.threshold, 4),
        "separability": round(s.separability, 4),
        "inversions": s.inversions,
        "threshold_in_use": result.threshold_in_use,
        "partial_30pct_caught_by_font_score": f"{result.partial_caught}/{len(result.partial)}",
    }
    encoded = base64.b64encode(png.read_bytes()).decode("ascii")
    yield dg.MaterializeResult(
        metadata={
            **figures,
            "histogram": dg.MetadataValue.path(str(png)),
            "plot": dg.MetadataValue.md(f"![calibration](data:image/png;base64,{encoded})"),
        }
    )
    yield dg.AssetCheckResult(
        check_name="separation",
        passed=result.passed,
        metadata={**figures, "min_widest_gap": MIN_WIDEST_GAP},
    )
