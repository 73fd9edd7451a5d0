"""``assay sql`` reads the catalog and nothing else, unless --allow-external (warehouse/duckdb_catalog.py)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from orchestration.cli import main
from orchestration.exits import Exit
from readers.core.versions import EXTRACTOR_VERSION
from warehouse import Warehouse
from warehouse.duckdb_catalog import build_catalog, query
from warehouse.warehouse_errors import WarehouseError


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


def test_install_is_refused_by_its_name(catalog: Path, capsys) -> None:
    code, _, err = _sql(catalog, capsys, "install httpfs")
    assert code == Exit.FAILED and "INSTALL is refused" in err, err


def test_the_escape_hatch_says_it_can_write(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["sql", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "--allow-external" in shown and "WRITE files, the warehouse's own included" in shown


@pytest.mark.parametrize(
    "statement",
    [
        "explain select 1",
        "explain (format json) select * from derivations",
        "explain (select 1)",
        "/* why */ explain select count(*) from documents",
        "pragma table_info('documents')",
        "call duckdb_tables()",
        "select 'checkpoint' as word",
    ],
)
def test_reading_statements_still_run(catalog: Path, capsys, statement: str) -> None:
    code, _, err = _sql(catalog, capsys, "--json", statement)
    assert code == 0, err


@pytest.mark.parametrize(
    "statement",
    [
        "explain analyze select 1",
        "explain analyse select 1",
        "explain (analyze) select 1",
        "explain (format json, analyze) select 1",
        "explain copy (select 1) to '/tmp/x.csv'",
        "explain (format json) copy (select 1) to '/tmp/x.csv'",
        "explain install httpfs",
        "pragma import_database('/tmp')",
        "pragma enable_profiling",
        "select * from checkpoint()",
        "call truncate_duckdb_logs()",
        "select 1; copy (select 1) to '/tmp/x.csv'",
    ],
)
def test_what_does_more_than_read_is_refused_before_it_runs(catalog: Path, capsys, statement: str) -> None:
    code, out, err = _sql(catalog, capsys, statement)
    assert code == Exit.FAILED and not out
    assert "is refused" in err and "--allow-external" in err, err


# --- the bounds: rows, time, Ctrl-C -------------------------------------------------------------------------

LONG_QUERY = "select count(*) from range(100000) a, range(1000000) b where (a.range * b.range) % 7 = 3"


def test_rows_past_the_limit_are_cut_with_a_line_saying_so(catalog: Path, capsys) -> None:
    code, out, err = _sql(catalog, capsys, "--json", "--limit", "10", "select range as n from range(25)")
    assert code == 0 and [r["n"] for r in json.loads(out)] == list(range(10))
    assert "more than 10 rows" in err and "--limit N" in err, err
    code, out, err = _sql(catalog, capsys, "--json", "--limit", "0", "select range as n from range(25)")
    assert code == 0 and len(json.loads(out)) == 25 and not err
    code, out, err = _sql(catalog, capsys, "--json", "--limit", "25", "select range as n from range(25)")
    assert code == 0 and len(json.loads(out)) == 25 and not err


def test_a_huge_result_prints_the_default_limit(catalog: Path, capsys) -> None:
    code, out, err = _sql(catalog, capsys, "--csv", "select range as n from range(100000000)")
    assert code == 0
    assert len(out.splitlines()) == 1 + 10_000
    assert "more than 10,000 rows" in err


def test_a_query_past_its_time_limit_is_stopped(catalog: Path, capsys) -> None:
    code, out, err = _sql(catalog, capsys, "--timeout", "0.5", LONG_QUERY)
    assert code == Exit.FAILED and not out
    assert "time limit of 0.5 s" in err and "--timeout" in err, err


def test_the_api_takes_a_time_limit(catalog: Path) -> None:
    from orchestration.api import open_home
    from warehouse.warehouse_errors import QueryTimeout

    with pytest.raises(QueryTimeout):
        open_home(catalog).sql(LONG_QUERY, timeout=0.5)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="watches the process through /proc")
def test_ctrl_c_during_a_query_exits_130_with_one_line(catalog: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "orchestration.cli",
            "sql",
            "--home",
            str(catalog),
            "--timeout",
            "0",
            LONG_QUERY,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Whoever started the tests may ignore SIGINT (a background job does): the child takes it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        # Once the catalog is open the query starts: wait for that, and a moment into the query.
        catalog_file = str(catalog / "warehouse" / "catalog.duckdb")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and child.poll() is None:
            with contextlib.suppress(OSError):
                fds = os.listdir(f"/proc/{child.pid}/fd")
                if any(_target(child.pid, fd) == catalog_file for fd in fds):
                    break
            time.sleep(0.05)
        time.sleep(1)
        started = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == Exit.INTERRUPTED, err
    assert time.monotonic() - started < 10
    assert not out and len(err.strip().splitlines()) == 1 and "interrupted" in err, err


def _target(pid: int, fd: str) -> str | None:
    import os

    with contextlib.suppress(OSError):
        return os.readlink(f"/proc/{pid}/fd/{fd}")
    return None


# --- the writes once made through EXPLAIN ANALYZE and COPY, against a home assay built ---------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home after a real run over three generated text files: shards of every table, and a catalog."""
    from assets.progress import Progress
    from orchestration.home import Home
    from orchestration.runner import run

    root = tmp_path_factory.mktemp("sql-writes")
    corpus = root / "corpus"
    corpus.mkdir()
    for i in range(3):
        (corpus / f"report{i}.txt").write_text(
            f"Report {i} on the northern reservoir.\n\nThe levels rose in spring and fell in autumn.\n"
        )
    home = root / "home"
    with pytest.MonkeyPatch.context() as mp:
        for var in ("DAGSTER_HOME", "ASSAY_HOME"):
            mp.delenv(var, raising=False)
        mp.setenv("ASSAY_HOME", str(home))
        report = run(Home(home), [corpus], Progress())
    assert report.ok, report.failures
    return home


def _fingerprint(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` by its relative path, with the SHA-256 of its bytes."""
    import hashlib

    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _writes(home: Path) -> list[str]:
    wh = Warehouse(home / "warehouse")
    shard = query(wh, "select min(shard) from texts").rows[0][0]
    part = f"extractor_version={EXTRACTOR_VERSION}/shard={shard}/part.parquet"
    texts, derivations = wh.table_dir("texts") / part, wh.table_dir("derivations") / part
    assert texts.is_file() and derivations.is_file()
    planted = (
        f"(select * replace ('call jane@x.org' as text) from texts where shard = '{shard}') to '{texts}'"
    )
    pages = wh.table_dir("pages")
    overwrite = f"(select * from pages) to '{pages}' (format parquet, partition_by (shard), overwrite)"
    return [
        f"explain analyze copy {planted}",
        f"explain (analyze) copy {planted}",
        f"explain (format json, analyze) copy {planted}",
        f"copy {planted}",
        f"explain analyze copy (select * from derivations) to '{derivations}' (format csv)",
        f"copy (select * from derivations) to '{derivations}' (format csv)",
        f"copy {overwrite}",
        f"explain analyze copy {overwrite}",
        f"select 1; copy {planted}",
    ]


def test_no_query_writes_into_the_warehouse(built: Path, capsys) -> None:
    before = _fingerprint(built / "warehouse")
    assert any(p.startswith("tables/texts/") for p in before)
    for statement in _writes(built):
        code, out, err = _sql(built, capsys, statement)
        assert code == Exit.FAILED and not out, statement
        assert "is refused" in err and "--allow-external" in err, err
        assert _fingerprint(built / "warehouse") == before, statement
    code, out, _ = _sql(
        built, capsys, "--json", "select count(*) as n from texts where text like '%jane@x.org%'"
    )
    assert code == 0 and json.loads(out) == [{"n": 0}]


def test_no_query_through_the_api_writes_into_the_warehouse(built: Path) -> None:
    from orchestration.api import open_home

    before = _fingerprint(built / "warehouse")
    corpus = open_home(built)
    for statement in _writes(built):
        with pytest.raises(WarehouseError, match="is refused"):
            corpus.sql(statement)
        assert _fingerprint(built / "warehouse") == before, statement
    assert corpus.sql("select count(*) as n from pages")[0]["n"] == 3
