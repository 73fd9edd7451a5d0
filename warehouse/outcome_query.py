"""Each document's final outcome (quality/outcomes.py), by the one SQL definition of the ``outcomes`` view
(warehouse/duckdb_catalog.py ``OUTCOMES``), wherever the rows are.

The catalog's views bind it to every version's partitions (``assay sql "select * from outcomes"``). The
stages that judge the rates before the catalog is rebuilt, and the quality report beside it, evaluate the
same SQL over one version's partitions (:func:`outcomes`); ``assay check``, which stores nothing, over the
rows it made in memory (:func:`outcomes_of`). So every consumer reads the outcome the view shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from quality.outcomes import OutcomeRecord
from readers.core.columns import fields_of
from warehouse.duckdb_catalog import OUTCOMES, duck_type
from warehouse.schema import TABLES
from warehouse.store import Warehouse, parquet_cursor, sql_string, to_arrow
from warehouse.warehouse_errors import WarehouseError

#: The tables the outcome is computed from, and the columns of each it reads (never a page's text).
SOURCES: dict[str, tuple[str, ...]] = {
    "derivations": (
        "sha256",
        "shard",
        "extractor_version",
        "kind",
        "status",
        "reason",
        "recovered_by_fallback",
    ),
    "page_texts": ("sha256", "extractor_version", "page", "source", "reason"),
    "documents": ("sha256", "extractor_version", "path"),
    # what sanitize made of the pages' text: a clean text, or what it took out when it left none
    "texts": ("sha256", "extractor_version"),
    "hidden_text": ("sha256", "extractor_version"),
    "furniture": ("sha256", "extractor_version"),
    "unsanitized": ("sha256", "extractor_version", "reason"),
}
COLUMNS = tuple(f.name for f in fields_of(OutcomeRecord))


def outcomes(wh: Warehouse, version: str, shards: Iterable[str] | None = None) -> list[OutcomeRecord]:
    """The outcome of every document of ``version`` (of ``shards`` only, when given), by sha256."""
    wanted = None if shards is None else set(shards)
    relations = {}
    for name, columns in SOURCES.items():
        present = wh.shards(name, version)
        files = [wh.partition_path(name, version, s) for s in present if wanted is None or s in wanted]
        relations[name] = _parquet(name, columns, files)
    return _evaluate(relations, {})


def outcomes_of(
    derivations: Sequence[Any],
    page_texts: Sequence[Any],
    documents: Sequence[Any],
    texts: Sequence[Any] = (),
    hidden_text: Sequence[Any] = (),
    furniture: Sequence[Any] = (),
    unsanitized: Sequence[Any] = (),
) -> list[OutcomeRecord]:
    """The outcome of rows held in memory (the row records of the tables of :data:`SOURCES`), by sha256;
    without sanitize's rows, as the view says before sanitize has run."""
    rows = {
        "derivations": derivations,
        "page_texts": page_texts,
        "documents": documents,
        "texts": texts,
        "hidden_text": hidden_text,
        "furniture": furniture,
        "unsanitized": unsanitized,
    }
    arrows = {f"rows_{name}": to_arrow(TABLES[name], rows[name]) for name in SOURCES}
    return _evaluate({name: f"SELECT * FROM rows_{name}" for name in SOURCES}, arrows)


def _parquet(name: str, columns: Sequence[str], files: Sequence[Path]) -> str:
    """A relation of ``columns`` of the partition ``files``; empty and typed when there are none."""
    if not files:
        table = TABLES[name]
        types = {c.name: c.type for c in table.columns}
        typed = ", ".join(f'CAST(NULL AS {duck_type(types[c])}) AS "{c}"' for c in columns)
        return f"SELECT {typed} WHERE false"
    listed = ", ".join(sql_string(f) for f in files)
    select = ", ".join(f'"{c}"' for c in columns)
    return f"SELECT {select} FROM read_parquet([{listed}], union_by_name = true, hive_partitioning = false)"


def _evaluate(relations: Mapping[str, str], arrows: Mapping[str, pa.Table]) -> list[OutcomeRecord]:
    bound = ", ".join(f"all_{name} AS ({sql})" for name, sql in relations.items())
    select = ", ".join(f'"{c}"' for c in COLUMNS)
    sql = f"WITH {bound} SELECT {select} FROM ({OUTCOMES}) ORDER BY sha256, extractor_version"
    try:
        con = parquet_cursor()
        try:
            for name, arrow in arrows.items():
                con.register(name, arrow)
            rows = con.execute(sql).fetchall()
        finally:
            con.close()
    except duckdb.Error as exc:
        raise WarehouseError(f"could not compute the documents' outcomes: {exc}") from exc
    return [OutcomeRecord(*row) for row in rows]
