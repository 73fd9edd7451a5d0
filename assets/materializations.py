"""What Dagster records of each shard a stage ran on: one materialization per partition, with that shard's
own figures read off the warehouse.

A stage of shards runs over a range of partitions in one step, and Dagster records one materialization
per partition of the step's range when the step yields its result. Before yielding it, the stage gives
each partition its own metadata with ``context.add_asset_metadata(..., partition_key=shard)`` (a
partition it found up to date or empty included), so each partition's materialization carries:

- ``dagster/partition_row_count``: the rows of the shard's partition of the stage's counted table
  (assets/stages.py: the table that marks it done, texts for sanitize), from the Parquet footer;
- ``dagster/row_count``: the rows of that table across all its partitions once the step is done, as
  Dagster means it (the table's, where ``partition_row_count`` is the partition's). The UI's overview of
  the asset shows the latest materialization's ``dagster/row_count`` as the asset's "Row count", and the
  latest materialization of a run is often a shard with no document: its own count there would read 0;
- ``dagster/column_schema``: that table's columns, types and meanings (warehouse/schema.py);
- the shard's rows of every table the stage writes, and its ``documents`` and ``pages``;
- ``empty``: true when the shard holds no document;
- what the stage did there (``ran``, and the stage's own counts, e.g. extract's read, kept, carried over).

Every value is a number or a flag, so the UI plots them over the partition's materializations.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from functools import cache, lru_cache

import dagster as dg
import pyarrow as pa
import pyarrow.parquet as pq

from assets.stages import graph
from warehouse import Warehouse
from warehouse.schema import TABLES, Table
from warehouse.warehouse_errors import WarehouseError


def column_schema(table: str) -> dg.TableSchema:
    """The table's columns as Dagster shows them: name, Arrow type and meaning (of the table registered
    now: a stage's own table is registered only while it is declared)."""
    return _schema_of(TABLES[table])


@cache
def _schema_of(table: Table) -> dg.TableSchema:
    return dg.TableSchema(
        columns=[dg.TableColumn(c.name, str(c.type), description=c.doc) for c in table.columns]
    )


def shard_metadata(
    stage: str,
    wh: Warehouse,
    version: str,
    shard: str,
    *,
    ran: bool,
    table_rows: int,
    figures: Mapping[str, int] | None = None,
) -> dict[str, object]:
    """The metadata of one shard's materialization by ``stage``; ``table_rows``: the rows of the stage's
    counted table in all its partitions (:func:`table_row_count`)."""
    done = counted_table(stage)
    rows = {table: wh.row_count(table, version, shard) for table in graph().by_name[stage].writes}
    documents = wh.row_count("documents", version, shard)
    return {
        "dagster/row_count": table_rows,
        "dagster/partition_row_count": rows[done],
        "dagster/column_schema": column_schema(done),
        "documents": documents,
        "pages": rows["pages"] if "pages" in rows else wh.row_count("pages", version, shard),
        **{f"rows {table}": n for table, n in rows.items()},
        "empty": documents == 0 and not any(rows.values()),
        "ran": ran,
        **dict(figures or {}),
        "extractor_version": version,
    }


def counted_table(stage: str) -> str:
    """The table whose rows count ``stage``'s work (assets/stages.py)."""
    done = graph().by_name[stage].counted_table
    assert done is not None, f"{stage} writes no table"
    return done


def table_row_count(wh: Warehouse, table: str, version: str) -> int:
    """The rows of every readable partition of ``table`` under ``version``, from their Parquet footers: a
    footer read once for each state of its file (a step rewrites a few partitions of many)."""
    total = 0
    for path in wh.shard_files(table, version):
        try:
            stat = path.stat()
        except FileNotFoundError:
            continue
        total += _footer_rows(str(path), stat.st_mtime_ns, stat.st_size)
    return total


@lru_cache(maxsize=1 << 14)
def _footer_rows(path: str, mtime_ns: int, size: int) -> int:
    try:
        return pq.read_metadata(path).num_rows
    except FileNotFoundError:
        return 0
    except (OSError, pa.ArrowException) as exc:
        raise WarehouseError(f"could not read the footer of {path}: {exc}") from exc


def shard_materializations(
    context: dg.AssetExecutionContext,
    stage: str,
    wh: Warehouse,
    version: str,
    *,
    ran: Collection[str],
    figures: Mapping[str, Mapping[str, int]] | None = None,
) -> Iterator[dg.MaterializeResult]:
    """The step's result, with the metadata of each partition of the run: ``ran`` are the shards the stage
    did work on (the rest it found up to date or empty), ``figures`` its own counts by shard."""
    figures = figures or {}
    total = table_row_count(wh, counted_table(stage), version)  # once a step: the same for its shards
    for shard in context.partition_keys:
        metadata = shard_metadata(
            stage, wh, version, shard, ran=shard in ran, table_rows=total, figures=figures.get(shard)
        )
        context.add_asset_metadata(metadata, partition_key=shard)
    yield dg.MaterializeResult()
