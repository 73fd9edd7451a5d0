"""Faults of the machine or the home: one line saying what to do, and exit code 3 (orchestration/faults.py).

The faults are real: writes to a full device (``/dev/full``, or one made with mknod), SQLite over its page
limit, a read-only SQLite file, and, as root, small tmpfs mounts that fill up or are remounted read-only
(skipped where that is refused).
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sqlalchemy as sa

from orchestration.cli import main
from orchestration.exits import Exit
from orchestration.faults import EnvironmentFault, as_seen_on, fault_in_message, fault_of
from orchestration.home import Home
from readers.core.versions import EXTRACTOR_VERSION
from warehouse import Warehouse
from warehouse.duckdb_catalog import build_catalog

ASSAY = Path(sys.executable).with_name("assay")


@pytest.fixture
def full_device(tmp_path: Path) -> Path:
    """A device every write to fails with ENOSPC: /dev/full, or the same device made here (as root)."""
    if Path("/dev/full").exists():
        return Path("/dev/full")
    node = tmp_path / "full"
    try:
        os.mknod(node, 0o600 | stat.S_IFCHR, os.makedev(1, 7))
    except OSError as exc:
        pytest.skip(f"no /dev/full and mknod is refused: {exc}")
    return node


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Home.prepare points DAGSTER_HOME and ASSAY_HOME at the home: restored after each test."""
    for var in ("DAGSTER_HOME", "ASSAY_HOME"):
        monkeypatch.setenv(var, "")
        monkeypatch.delenv(var)


def _raised(action) -> BaseException:
    try:
        action()
    except Exception as exc:
        return exc
    raise AssertionError("the action did not fail")


# -- the translation -----------------------------------------------------------------------------------


def test_a_write_to_a_full_disk_is_a_disk_full_fault(full_device: Path) -> None:
    def write() -> None:
        with full_device.open("wb") as fh:
            fh.write(b"x" * 65536)
            fh.flush()

    found = fault_of(_raised(write))
    assert found is not None and found.code == errno.ENOSPC and found.exit_code == Exit.ENVIRONMENT
    assert str(found).startswith("the disk is full") and "free some space" in str(found)


def test_a_parquet_write_to_a_full_disk_is_a_disk_full_fault(full_device: Path) -> None:
    exc = _raised(lambda: pq.write_table(pa.table({"a": list(range(100_000))}), str(full_device)))
    found = fault_of(exc)
    assert found is not None and found.code == errno.ENOSPC


def test_a_duckdb_write_to_a_full_disk_is_a_disk_full_fault(full_device: Path) -> None:
    con = duckdb.connect()
    sql = (
        "copy (select range as i, repeat('x', 100) as s from range(100000)) "
        f"to '{full_device}' (format parquet)"
    )
    found = fault_of(_raised(lambda: con.execute(sql)))
    assert found is not None and found.code == errno.ENOSPC and str(full_device) in str(found)


def test_sqlite_full_and_read_only_through_sqlalchemy(tmp_path: Path) -> None:
    """Dagster's SQLite instance fails through SQLAlchemy: "database or disk is full" (here: SQLite's
    page limit) and "attempt to write a readonly database"."""
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'runs.db'}")
    with engine.begin() as con:
        con.execute(sa.text("create table runs (body text)"))

    def fill() -> None:
        with engine.begin() as con:
            con.execute(sa.text("pragma max_page_count = 3"))
            for _ in range(50):
                con.execute(sa.text("insert into runs values (:b)"), {"b": "permission denied " * 100})

    full = fault_of(_raised(fill))
    assert full is not None and full.code == errno.ENOSPC  # the parameters' words are not read
    read_only = sa.create_engine(f"sqlite:///file:{tmp_path / 'runs.db'}?mode=ro&uri=true")

    def write() -> None:
        with read_only.begin() as con:
            con.execute(sa.text("insert into runs values ('x')"))

    found = fault_of(_raised(write))
    assert found is not None and found.code == errno.EROFS and "read-only" in str(found)


def test_errors_that_only_quote_the_words_are_not_faults() -> None:
    con = duckdb.connect()
    binder = _raised(lambda: con.execute("select no_such_column from (select 'permission denied' as t)"))
    assert fault_of(binder) is None
    assert fault_of(ValueError("No space left on device")) is None


def test_the_chain_of_causes_is_followed() -> None:
    try:
        try:
            raise OSError(errno.EROFS, "Read-only file system", "/data/home/warehouse")
        except OSError as inner:
            raise RuntimeError("could not write the partition") from inner
    except RuntimeError as outer:
        found = fault_of(outer)
    assert found is not None and "read-only at /data/home/warehouse" in str(found)


@pytest.mark.parametrize(
    ("message", "code", "where"),
    [
        (
            "OSError: [Errno 28] No space left on device: '/h/warehouse/tables/pages/x.tmp'",
            errno.ENOSPC,
            True,
        ),
        ("(sqlite3.OperationalError) database or disk is full", errno.ENOSPC, False),
        ("(sqlite3.OperationalError) attempt to write a readonly database", errno.EROFS, False),
        ("PermissionError: [Errno 13] Permission denied: '/h/warehouse'", errno.EACCES, True),
        ("(sqlite3.OperationalError) disk I/O error", errno.EIO, False),
    ],
)
def test_a_failed_runs_message_names_its_fault(message: str, code: int, where: bool) -> None:
    found = fault_in_message(message)
    assert found is not None and found.code == code
    assert (" at /h/" in str(found)) is where


def test_an_io_error_on_a_disk_with_no_room_is_a_full_disk(mount) -> None:
    """SQLite says "disk I/O error" when its journal finds no room: on a full disk that is a full disk."""
    io_error = fault_in_message("(sqlite3.OperationalError) disk I/O error")
    assert io_error is not None and io_error.code == errno.EIO
    disk = mount("1m")
    assert as_seen_on(io_error, disk).code == errno.EIO  # room left: the disk's own error
    _fill(disk)
    assert as_seen_on(io_error, disk).code == errno.ENOSPC


def test_a_failed_runs_message_without_a_fault() -> None:
    assert fault_in_message("ValueError: a shard range must be contiguous") is None


# -- the home ------------------------------------------------------------------------------------------


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_a_home_that_is_a_file(tmp_path: Path, capsys, monkeypatch) -> None:
    file = tmp_path / "home.txt"
    file.write_text("not a directory")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("a note")
    for argv in (
        ["run", "--home", str(file), str(corpus)],
        ["run", "--home", str(file / "below"), str(corpus)],
        ["sql", "--home", str(file), "select 1"],
        ["search", "--home", str(file), "note"],
        ["lineage", "--home", str(file), "abcdef"],
    ):
        assert main(argv) == Exit.ENVIRONMENT, argv
        line = _one_line(capsys.readouterr().err)
        assert f"{file} is a file, where assay needs a directory" in line and "--home" in line, line
    monkeypatch.setenv("ASSAY_HOME", str(file))
    assert main(["search", "note"]) == Exit.ENVIRONMENT
    assert "ASSAY_HOME" in _one_line(capsys.readouterr().err)


def test_verbose_adds_the_traceback(tmp_path: Path, capsys) -> None:
    file = tmp_path / "home.txt"
    file.write_text("")
    assert main(["--verbose", "sql", "--home", str(file), "select 1"]) == Exit.ENVIRONMENT
    err = capsys.readouterr().err
    assert "Traceback" in err and "is a file" in err
    assert main(["sql", "--verbose", "--home", str(file), "select 1"]) == Exit.ENVIRONMENT
    assert "Traceback" in capsys.readouterr().err


@pytest.fixture
def mount(tmp_path: Path) -> Iterator:
    """``mount(size)``: a fresh tmpfs of that size (as root; skipped where mounting is refused)."""
    mounted: list[Path] = []

    def make(size: str) -> Path:
        target = tmp_path / f"mnt{len(mounted)}"
        target.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(target)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()[:200]}")
        mounted.append(target)
        return target

    yield make
    for target in reversed(mounted):
        subprocess.run(["umount", "-l", str(target)], capture_output=True)


def _fill(folder: Path) -> None:
    """Write to ``folder`` until its file system is full."""
    with (folder / "filler").open("wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC


def test_a_full_disk_under_the_home_is_found_before_anything_runs(mount, tmp_path: Path, capsys) -> None:
    disk = mount("1m")
    (disk / "home" / "dagster").mkdir(parents=True)
    _fill(disk)
    with pytest.raises(EnvironmentFault, match="the disk is full"):
        Home(disk / "home").prepare()
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("a note")
    assert main(["run", "--home", str(disk / "home"), str(corpus)]) == Exit.ENVIRONMENT
    assert "the disk is full" in _one_line(capsys.readouterr().err)


def test_a_read_only_home_can_be_read_not_run(mount, tmp_path: Path, capsys) -> None:
    disk = mount("16m")
    home = Home(disk / "home")
    home.prepare()
    build_catalog(Warehouse(home.path / "warehouse"), EXTRACTOR_VERSION)
    remount = subprocess.run(["mount", "-o", "remount,ro", str(disk)], capture_output=True, text=True)
    if remount.returncode != 0:
        pytest.skip(f"cannot remount read-only: {remount.stderr.strip()[:200]}")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("a note")
    assert main(["run", "--home", str(home.path), str(corpus)]) == Exit.ENVIRONMENT
    line = _one_line(capsys.readouterr().err)
    assert "read-only" in line and "writable" in line
    # Reading needs no write: the catalog opens read-only.
    assert main(["sql", "--home", str(home.path), "--json", "select count(*) as n from documents"]) == 0
    assert capsys.readouterr().out.strip() == '[{"n": 0}]'


@pytest.mark.slow
def test_a_disk_that_fills_during_a_run(mount, tmp_path: Path) -> None:
    """A home on a 3 MB disk: the run stops where the disk fills (Dagster's SQLite event log, a Parquet
    partition or the catalog, whichever comes first) with one line and exit code 3; with space freed,
    the same command finishes cleanly."""
    disk = mount("3m")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n in range(4):
        words = " ".join(f"entry{n}x{i} of the ledger" for i in range(6000))
        (corpus / f"ledger-{n}.txt").write_text(words, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "ASSAY_"))}
    command = [str(ASSAY), "run", "--home", str(disk / "home"), str(corpus)]
    full = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert full.returncode == Exit.ENVIRONMENT, full.stdout + full.stderr
    assert "the disk is full" in _one_line(full.stderr)
    assert "Traceback" not in full.stdout
    grown = subprocess.run(["mount", "-o", "remount,size=200m", str(disk)], capture_output=True, text=True)
    assert grown.returncode == 0, grown.stderr
    again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == Exit.OK, again.stdout + again.stderr
    assert "Traceback" not in again.stdout + again.stderr
    assert "Documents by kind and final outcome" in again.stdout
