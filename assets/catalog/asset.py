"""catalog: rebuild the DuckDB file of views over every table and swap it in. Its checks (the fallback
and Underivable rates over the whole corpus, and the fallback rate's movement between extractor versions)
are validated after it, with the other data-quality checks (assets/data_quality.py)."""

import dagster as dg

from assets.factory import corpus_stage
from assets.resources import AssaySettings
from readers.core.versions import EXTRACTOR_VERSION
from warehouse.duckdb_catalog import build_catalog
from warehouse.outcome_query import outcomes


@corpus_stage("catalog", kinds={"duckdb"})
def catalog(context: dg.AssetExecutionContext, assay: AssaySettings):
    wh = assay.warehouse()
    path = build_catalog(wh, EXTRACTOR_VERSION)
    # Each document's final outcome, as the catalog's `outcomes` view gives it (warehouse/outcome_query.py).
    documents = outcomes(wh, EXTRACTOR_VERSION)
    context.log.info(f"catalog rebuilt at {path}")
    return dg.MaterializeResult(
        metadata={"path": dg.MetadataValue.path(str(path)), "documents": len(documents)}
    )
