"""The catalog reads a table version of many shard files through one compacted copy, a snapshot rebuilt
when a partition is newer than the catalog (warehouse/compaction.py, warehouse/duckdb_catalog.py)."""

from __future__ import annotations

import os
from pathlib import Path

from readers.core.reading_records import PageRecord
from warehouse import Warehouse
from warehouse.compaction import COMPACT_ABOVE_FILES, COMPACT_PREFIX
from warehouse.duckdb_catalog import VERSION_DIFF, build_catalog, catalog_current, query

VERSION = "2099.1.1"


def _page(n: int, text: str) -> PageRecord:
    sha = f"{n:02x}" * 32
    return PageRecord(
        sha256=sha,
        shard=sha[:2],
        extractor_version=VERSION,
        page=1,
        reader="pymupdf",
        reader_version="1",
        text=text,
        chars=len(text),
        width=612.0,
        height=792.0,
        fonts=1,
        font_names=["Body"],
        images=0,
        drawings=0,
        tables=0,
        headings=0,
    )


def _write(wh: Warehouse, numbers: range, text: str = "text of page") -> None:
    for n in numbers:
        row = _page(n, f"{text} {n}")
        wh.write("pages", VERSION, [row], shard=row.shard)


def _compacted(wh: Warehouse, table: str) -> list[Path]:
    return sorted((wh.table_dir(table) / f"extractor_version={VERSION}").glob(f"{COMPACT_PREFIX}*.parquet"))


def test_many_shard_files_are_read_through_one_compacted_file(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "warehouse")
    many = COMPACT_ABOVE_FILES + 4
    _write(wh, range(1, many + 1))
    build_catalog(wh, VERSION)
    assert len(_compacted(wh, "pages")) == 1
    rows = query(wh, "select sha256, text from pages order by sha256").rows
    assert rows == sorted((_page(n, "").sha256, f"text of page {n}") for n in range(1, many + 1))
    assert catalog_current(wh, VERSION)

    # A partition written after the catalog: the catalog is stale until rebuilt, then reads it.
    _write(wh, range(many + 1, many + 2))
    catalog = wh.catalog_path.stat()
    os.utime(wh.catalog_path, ns=(catalog.st_atime_ns, catalog.st_mtime_ns - 10**9))
    assert not catalog_current(wh, VERSION)
    assert query(wh, "select count(*) from pages").rows == [(many,)]  # the snapshot, until rebuilt
    build_catalog(wh, VERSION)
    assert query(wh, "select count(*) from pages").rows == [(many + 1,)]
    assert len(_compacted(wh, "pages")) == 2  # the previous copy is kept for readers of the old catalog

    _write(wh, range(1, 2), text="changed")
    build_catalog(wh, VERSION)
    assert len(_compacted(wh, "pages")) == 2  # the oldest is gone
    assert query(wh, "select text from pages where page = 1 and sha256 like '01%'").rows == [("changed 1",)]


def test_a_table_of_few_shard_files_is_not_compacted_and_reads_live(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "warehouse")
    _write(wh, range(1, 4))
    build_catalog(wh, VERSION)
    assert _compacted(wh, "pages") == []
    _write(wh, range(4, 5))
    assert query(wh, "select count(*) from pages").rows == [(4,)]


def test_the_first_versions_diff_is_the_general_diff_without_a_previous_version(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "warehouse")
    _write(wh, range(1, COMPACT_ABOVE_FILES + 3))
    build_catalog(wh, VERSION)
    general = VERSION_DIFF.format(old="CAST(NULL AS VARCHAR)", new=f"'{VERSION}'")
    expected = query(wh, f"select * from ({general}) order by sha256, page")
    first = query(wh, "select * from version_diff order by sha256, page")
    assert first.columns == expected.columns
    assert first.rows == expected.rows and len(first.rows) == COMPACT_ABOVE_FILES + 2


def test_a_compaction_killed_on_the_way_leaves_a_temporary_the_next_run_removes(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "warehouse")
    _write(wh, range(1, 3))
    base = wh.table_dir("pages") / f"extractor_version={VERSION}"
    leftover = base / f".{COMPACT_PREFIX}0123456789abcdef.parquet.123.dead.tmp"
    leftover.write_bytes(b"half a file")
    assert wh.remove_stale_temporaries() == 1
    assert not leftover.exists()


def test_a_compacted_copy_cut_short_is_removed_with_the_catalog_and_made_again(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "warehouse")
    many = COMPACT_ABOVE_FILES + 2
    _write(wh, range(1, many + 1))
    build_catalog(wh, VERSION)
    (copy,) = _compacted(wh, "pages")
    copy.write_bytes(copy.read_bytes()[:100])
    assert [path for path, _ in wh.damaged()] == [copy]
    assert wh.set_aside(copy) is None  # a snapshot: removed, not kept
    assert not copy.exists() and not wh.catalog_path.exists()  # its views named it
    assert not catalog_current(wh, VERSION)
    build_catalog(wh, VERSION)
    assert _compacted(wh, "pages") == [copy] and query(wh, "select count(*) from pages").rows == [(many,)]
