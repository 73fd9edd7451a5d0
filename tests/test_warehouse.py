"""Parquet partitions written atomically, and the DuckDB catalog of views over them."""

from __future__ import annotations

import dataclasses
import os
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from readers.core.reading_records import DerivationRecord
from warehouse import Warehouse
from warehouse.duckdb_catalog import build_catalog, query
from warehouse.schema import TABLES, markdown
from warehouse.warehouse_errors import CatalogMissing, SchemaMismatch, WarehouseError

REPO = Path(__file__).resolve().parents[1]


def _derivation(sha: str, version: str = "v1", **kw) -> DerivationRecord:
    base = dict(
        sha256=sha,
        shard=sha[:2],
        extractor_version=version,
        kind="pdf",
        status="derived",
        reason=None,
        reader="pymupdf",
        reader_version="1",
        reader_chain="pymupdf@1",
        recovered_by_fallback=False,
        attempts=1,
        pages=1,
        chars=10,
        encoding=None,
        encoding_source=None,
        carried_from=None,
        duration_ms=1.0,
        derived_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    base.update(kw)
    return DerivationRecord(**base)


def test_docs_tables_md_is_generated_from_the_schema() -> None:
    assert (REPO / "docs" / "tables.md").read_text(encoding="utf-8") == markdown(), (
        "docs/tables.md is stale: run `python -m warehouse.schema > docs/tables.md`"
    )


def test_write_and_read_a_partition_round_trips(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    rows = [_derivation("ab" + "0" * 62), _derivation("ab" + "1" * 62, status="error", reason="encrypted")]
    path = wh.write("derivations", "v1", rows, shard="ab")
    assert path == tmp_path / "tables/derivations/extractor_version=v1/shard=ab/part.parquet"
    back = [DerivationRecord(**r) for r in wh.rows("derivations", "v1", "ab")]
    assert back == rows
    assert wh.shards("derivations", "v1") == ["ab"]
    assert wh.versions("derivations") == ["v1"]
    assert not list(path.parent.glob("*.tmp")), "no temporary file may be left"


def test_a_missing_partition_reads_as_an_empty_table(tmp_path: Path) -> None:
    table = Warehouse(tmp_path).read("pages", "v1", "00")
    assert table.num_rows == 0 and table.schema.names == list(TABLES["pages"].column_names)


def test_rows_of_the_wrong_type_are_refused(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    with pytest.raises(SchemaMismatch):
        wh.write("pages", "v1", [_derivation("ab" + "0" * 62)], shard="ab")
    with pytest.raises(SchemaMismatch):
        wh.write("derivations", "v1", [{"sha256": "x"}], shard="ab")
    with pytest.raises(WarehouseError):
        wh.write("derivations", "v1", [], shard=None)


def test_a_failed_write_leaves_the_old_partition_whole(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    good = [_derivation("ab" + "0" * 62)]
    wh.write("derivations", "v1", good, shard="ab")
    bad = [_derivation("ab" + "1" * 62, attempts="many")]  # not an integer: the write fails
    with pytest.raises(SchemaMismatch):
        wh.write("derivations", "v1", bad, shard="ab")
    assert [DerivationRecord(**r) for r in wh.rows("derivations", "v1", "ab")] == good


def test_stale_temporaries_are_removed(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    wh.write("derivations", "v1", [_derivation("ab" + "0" * 62)], shard="ab")
    leftover = wh.partition_path("derivations", "v1", "ab").with_name(".part.parquet.123.dead.tmp")
    leftover.write_bytes(b"half a file")
    assert wh.remove_stale_temporaries() == 1
    assert not leftover.exists()


def test_catalog_has_current_and_all_views(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    wh.write("derivations", "v1", [_derivation("ab" + "0" * 62, version="v1")], shard="ab")
    wh.write(
        "derivations",
        "v2",
        [_derivation("ab" + "0" * 62, version="v2"), _derivation("cd" + "0" * 62, version="v2")],
        shard="ab",
    )
    build_catalog(wh, "v2")
    assert query(wh, "select count(*) from derivations").rows == [(2,)]
    assert query(
        wh, "select extractor_version, count(*) from all_derivations group by 1 order by 1"
    ).rows == [("v1", 1), ("v2", 2)]
    # Tables with no file yet still answer, with their declared columns.
    result = query(wh, "select * from underivables")
    assert result.rows == [] and tuple(result.columns) == TABLES["underivables"].column_names
    assert query(wh, "select extractor_version from catalog_info").rows == [("v2",)]


def test_catalog_is_read_only_and_swapped_atomically(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    build_catalog(wh, "v1")
    reader = duckdb.connect(str(wh.catalog_path), read_only=True)
    inode = os.stat(wh.catalog_path).st_ino
    build_catalog(wh, "v1")  # a rebuild while a reader holds the old file
    assert os.stat(wh.catalog_path).st_ino != inode
    assert reader.execute("select count(*) from derivations").fetchone() == (0,)
    reader.close()
    with pytest.raises(WarehouseError):
        query(wh, "create table x as select 1")
    assert not list(tmp_path.glob(".catalog.*"))


def test_querying_before_any_run_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(CatalogMissing, match="assay run"):
        query(Warehouse(tmp_path / "nothing"), "select 1")


def test_write_sharded_rewrites_only_changed_shards(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    a, b = _derivation("ab" + "0" * 62), _derivation("cd" + "0" * 62)
    assert wh.write_sharded("derivations", "v1", [a, b]) == ["ab", "cd"]
    assert wh.write_sharded("derivations", "v1", [a, b]) == []  # compared with the files
    assert wh.write_sharded("derivations", "v1", [a, b], previous=[a, b]) == []  # compared with the caller's
    changed = dataclasses.replace(b, chars=99)
    assert wh.write_sharded("derivations", "v1", [a, changed], previous=[a, b]) == ["cd"]
    assert wh.write_sharded("derivations", "v1", [a]) == ["cd"]  # a shard that lost its rows is emptied
    assert wh.rows("derivations", "v1", "cd") == []
    assert wh.keys_by_shard("derivations", "v1") == {"ab": {a.sha256}, "cd": set()}


def test_the_derived_views_have_the_documented_columns(tmp_path) -> None:
    from warehouse.duckdb_catalog import build_catalog, query
    from warehouse.schema import VIEWS

    wh = Warehouse(tmp_path / "warehouse")
    build_catalog(wh, "v1")
    for view in VIEWS.values():
        columns = [r[0] for r in query(wh, f"describe {view.name}").rows]
        assert columns == [name for name, _ in view.columns], view.name
        assert query(wh, f"select count(*) from {view.name}").rows == [(0,)]
