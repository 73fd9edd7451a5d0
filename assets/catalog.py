"""catalog: rebuild the DuckDB file of views over every table and swap it in, then judge the fallback
and Underivable rates over the whole corpus."""

import dagster as dg

from assets.factory import corpus_stage
from assets.rate_checks import (
    UNDERIVABLE,
    fallback_movement_result,
    movement_check_spec,
    rate_check_results,
    rate_check_specs,
)
from assets.resources import AssaySettings
from readers.core.versions import EXTRACTOR_VERSION
from warehouse.catalog import build_catalog
from warehouse.outcomes import outcomes


@corpus_stage(
    "catalog",
    kinds={"duckdb"},
    check_specs=[
        *rate_check_specs(
            "catalog", scope="the whole corpus (current extractor version)", blocking={UNDERIVABLE}
        ),
        movement_check_spec("catalog"),
    ],
)
def catalog(context: dg.AssetExecutionContext, assay: AssaySettings):
    wh = assay.warehouse()
    path = build_catalog(wh, EXTRACTOR_VERSION)
    # Each document's final outcome, as the catalog's `outcomes` view gives it (warehouse/outcomes.py).
    documents = outcomes(wh, EXTRACTOR_VERSION)
    context.log.info(f"catalog rebuilt at {path}")
    yield dg.MaterializeResult(
        metadata={"path": dg.MetadataValue.path(str(path)), "documents": len(documents)}
    )
    yield from rate_check_results("catalog", documents, assay)
    yield fallback_movement_result("catalog", wh, EXTRACTOR_VERSION, assay, current=documents)
