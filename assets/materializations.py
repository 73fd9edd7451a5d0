"""What Dagster records of each shard a stage ran on: one materialization per partition, with that shard's
own figures read off the warehouse.

A stage of shards runs over a range of partitions in one step, and the result of a step covers its whole
range: Dagster gives every partition of the range the same materialization, with the same metadata, and
has no public way to give each its own (dagster-io/dagster#18123). So the stage yields that result
without metadata, and then logs one ``AssetMaterialization`` of its own per partition of the range (a
partition it found up to date or empty included), which is the partition's latest and carries:

- ``dagster/row_count`` and ``dagster/partition_row_count``: the rows of the shard's partition of the
  stage's counted table (assets/stages.py: the table that marks it done, texts for sanitize), from the
  Parquet footer;
- ``dagster/column_schema``: that table's columns, types and meanings (warehouse/schema.py);
- the shard's rows of every table the stage writes, and its ``documents`` and ``pages``;
- ``empty``: true when the shard holds no document (the description says so too);
- what the stage did there (``ran``, and the stage's own counts, e.g. extract's read, kept, carried over).

Every value is a number or a flag, so the UI plots them over the partition's materializations.

Why not ``output_required=False`` and only the events of our own: Dagster then skips every later stage of
the same run (a step whose upstream output was not yielded is skipped), and the stages of shards run in
one run (docs/decisions.md, "One materialization per shard").
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from functools import cache

import dagster as dg

from assets.stages import graph
from warehouse import Warehouse
from warehouse.schema import TABLES, Table

EMPTY = "An empty shard: it holds no document of this extractor version."


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
    figures: Mapping[str, int] | None = None,
) -> tuple[dict[str, object], bool]:
    """The metadata of one shard's materialization by ``stage``, and whether the shard is empty."""
    declared = graph().by_name[stage]
    done = declared.counted_table
    assert done is not None, f"{stage} writes no table"
    rows = {table: wh.row_count(table, version, shard) for table in declared.writes}
    documents = wh.row_count("documents", version, shard)
    empty = documents == 0 and not any(rows.values())
    metadata: dict[str, object] = {
        "dagster/row_count": rows[done],
        "dagster/partition_row_count": rows[done],
        "dagster/column_schema": column_schema(done),
        "documents": documents,
        "pages": rows["pages"] if "pages" in rows else wh.row_count("pages", version, shard),
        **{f"rows {table}": n for table, n in rows.items()},
        "empty": empty,
        "ran": ran,
        **dict(figures or {}),
        "extractor_version": version,
    }
    return metadata, empty


def shard_materializations(
    context: dg.AssetExecutionContext,
    stage: str,
    wh: Warehouse,
    version: str,
    *,
    ran: Collection[str],
    figures: Mapping[str, Mapping[str, int]] | None = None,
) -> Iterator[dg.MaterializeResult]:
    """The step's result, then one materialization of ``stage``'s asset per partition of the run: ``ran``
    are the shards the stage did work on (the rest it found up to date or empty), ``figures`` its own
    counts by shard."""
    yield dg.MaterializeResult()
    figures = figures or {}
    for shard in context.partition_keys:
        metadata, empty = shard_metadata(
            stage, wh, version, shard, ran=shard in ran, figures=figures.get(shard)
        )
        context.log_event(
            dg.AssetMaterialization(
                asset_key=context.asset_key,
                partition=shard,
                description=EMPTY if empty else None,
                metadata=metadata,
            )
        )
