"""The catalog stage's declaration: the DuckDB catalog over every table, after every stage of shards."""

from __future__ import annotations

from assets.stages import Stage
from warehouse import Warehouse


def catalog_stale(wh: Warehouse, version: str) -> bool:
    """The catalog is missing, of another version, or older than a partition."""
    from warehouse.duckdb_catalog import catalog_current

    return not catalog_current(wh, version)


STAGE = Stage(
    "catalog",
    after=(),
    reads=(),
    writes=(),
    partitioned=False,
    stale=catalog_stale,
    asset="assets.catalog.asset:catalog",
    group="publish",
    description="The DuckDB catalog: views over every table's Parquet files, current version and all_; "
    "the fallback and Underivable rates (after OCR) over the whole corpus.",
    job="Rebuild the DuckDB catalog and judge the corpus-wide rates.",
    closes=True,
    unit="step",
)
