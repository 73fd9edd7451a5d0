"""``assay sql`` reads the catalog and nothing else, unless --allow-external (warehouse/catalog.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestration.cli import main
from orchestration.exits import Exit
from readers.core.versions import EXTRACTOR_VERSION
from warehouse import Warehouse
from warehouse.catalog import build_catalog, query
from warehouse.errors import WarehouseError


@pytest.fixture
def catalog(home: Path) -> Path:
    """A home whose catalog exists (over no rows yet): what `assay sql` opens."""
    from orchestration.home import Home

    Home(home).prepare()
    build_catalog(Warehouse(home / "warehouse"), EXTRACTOR_VERSION)
    return home


def _sql(home: Path, capsys, *args: str) -> tuple[int, str, str]:
    code = main(["sql", "--home", str(home), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_reading_the_tables_works(catalog: Path, capsys) -> None:
    code, out, _ = _sql(catalog, capsys, "--json", "select count(*) as n from derivations")
    assert code == 0 and json.loads(out) == [{"n": 0}]
    code, out, _ = _sql(catalog, capsys, "--json", "describe documents")
    assert code == 0 and "sha256" in {r["column_name"] for r in json.loads(out)}
    code, out, _ = _sql(catalog, capsys, "--json", "pragma show_tables")
    assert code == 0 and "chunks" in out


def test_a_partition_of_the_warehouse_can_be_read_directly(home: Path, capsys) -> None:
    wh = Warehouse(home / "warehouse")
    written = wh.write("derivations", EXTRACTOR_VERSION, [], shard="ab")
    build_catalog(wh, EXTRACTOR_VERSION)
    code, out, err = _sql(home, capsys, "--json", f"select count(*) as n from read_parquet('{written}')")
    assert code == 0, err
    assert json.loads(out) == [{"n": 0}]


@pytest.mark.parametrize(
    "statement",
    [
        "copy (select 1 as one) to '{outside}'",
        "copy (select 1 as one) to '{inside}'",
        "export database '{outside_dir}'",
        "attach '{outside_db}' as other",
        "install httpfs",
        "load httpfs",
        "set enable_external_access = true",
        "create temp table t as select 1",
    ],
)
def test_statements_that_write_or_widen_are_refused(
    catalog: Path, capsys, tmp_path: Path, statement: str
) -> None:
    paths = {
        "outside": tmp_path / "out.csv",
        "inside": catalog / "warehouse" / "tables" / "documents" / "planted.csv",
        "outside_dir": tmp_path / "exported",
        "outside_db": tmp_path / "other.duckdb",
    }
    code, out, err = _sql(catalog, capsys, statement.format(**paths))
    assert code == Exit.FAILED and not out
    assert "refused" in err and "--allow-external" in err, err
    assert not any(p.exists() for p in paths.values())


@pytest.mark.parametrize(
    "select",
    [
        "select * from read_text('/etc/passwd')",
        "select * from read_csv('/etc/passwd')",
        "select * from read_blob('{catalog}/../../etc/hostname')",
        "select * from glob('/etc/*')",
        "select * from read_json('https://example.com/data.json')",
        "select * from read_text('{catalog}/dagster/dagster.yaml')",
    ],
)
def test_reading_outside_the_warehouse_is_refused(catalog: Path, capsys, select: str) -> None:
    code, out, err = _sql(catalog, capsys, select.format(catalog=catalog))
    assert code == Exit.FAILED and not out
    assert "reaches outside the warehouse" in err and "--allow-external" in err, err
    assert "root:" not in out + err


def test_the_sandbox_holds_for_every_query_of_the_catalog(catalog: Path) -> None:
    with pytest.raises(WarehouseError, match="outside the warehouse"):
        query(Warehouse(catalog / "warehouse"), "select * from read_text('/etc/passwd')")


def test_allow_external_lets_a_query_write_a_file(catalog: Path, capsys, tmp_path: Path) -> None:
    target = tmp_path / "kinds.csv"
    code, _, err = _sql(
        catalog, capsys, "--allow-external", f"copy (select 'pdf' as kind) to '{target}' (header)"
    )
    assert code == 0, err
    assert target.read_text().splitlines() == ["kind", "pdf"]
    code, out, _ = _sql(catalog, capsys, "--allow-external", "--json", f"select * from read_csv('{target}')")
    assert code == 0 and json.loads(out) == [{"kind": "pdf"}]
