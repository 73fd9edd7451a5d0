"""catalog: rebuild the DuckDB file of views over every table and swap it in, then judge the fallback
and Underivable rates over the whole corpus."""

from dataclasses import replace

import dagster as dg

from assets.rate_checks import (
    UNDERIVABLE,
    CorpusOutcome,
    fallback_movement_result,
    movement_check_spec,
    rate_check_results,
    rate_check_specs,
)
from orchestration.settings import AssaySettings
from readers.records import DerivationRecord
from readers.versions import EXTRACTOR_VERSION
from warehouse.catalog import build_catalog
from warehouse.store import to_pylist


@dg.asset(
    group_name="warehouse",
    deps=["extract", "verdicts", "ocr", "sanitize", "chunk"],
    code_version=EXTRACTOR_VERSION,
    kinds={"duckdb"},
    check_specs=[
        *rate_check_specs(
            "catalog", scope="the whole corpus (current extractor version)", blocking={UNDERIVABLE}
        ),
        movement_check_spec("catalog"),
    ],
    description="The DuckDB catalog: views over every table's Parquet files, current version and all_; "
    "the fallback and Underivable rates (after OCR) over the whole corpus.",
)
def catalog(context: dg.AssetExecutionContext, assay: AssaySettings):
    wh = assay.warehouse()
    path = build_catalog(wh, EXTRACTOR_VERSION)
    # A document whose garbled pages the fallback reader decoded (page_verdicts.text_source = fallback)
    # counts as recovered by fallback too: it is the same signal of a primary reader falling short.
    rescued = {
        row["sha256"]
        for row in to_pylist(wh.read_all_shards("page_verdicts", EXTRACTOR_VERSION))
        if row["text_source"] == "fallback"
    }
    derivations = [
        replace(d, recovered_by_fallback=d.recovered_by_fallback or d.sha256 in rescued)
        for d in (
            DerivationRecord(**row) for row in to_pylist(wh.read_all_shards("derivations", EXTRACTOR_VERSION))
        )
    ]
    # A document whose text layer gave nothing but whose pages OCR read is derived in the end: the
    # Underivable rate is of the final outcome.
    ocr_read = {
        sha
        for sha, source in wh.columns("page_texts", EXTRACTOR_VERSION, ("sha256", "source"))
        if source == "ocr"
    }
    context.log.info(f"catalog rebuilt at {path}")
    yield dg.MaterializeResult(
        metadata={"path": dg.MetadataValue.path(str(path)), "documents": len(derivations)}
    )
    yield from rate_check_results("catalog", derivations, assay, ocr_read=ocr_read)
    yield fallback_movement_result(
        "catalog", wh, EXTRACTOR_VERSION, assay, current=CorpusOutcome(derivations, frozenset(ocr_read))
    )
