"""Compacted copies of the sharded tables, for the catalog's views.

A sharded table has one Parquet file per shard and extractor version: up to 256 files a version, each
small. A query over the catalog opens every file its views read, and on a corpus of 3,136 documents
(benchmarks/scale_corpus.py at 64x: 256 files a table) that opening, not the rows, was most of the
time: the README's example queries took 2 to 6 times what they took on 49 documents (52 files a table).
So when the catalog is built, each table version with more than :data:`COMPACT_ABOVE_FILES` shard
files gets one compacted file of all its rows (``compact-<fingerprint>.parquet`` beside its shards),
and the views read that one file. The shard files stay what every stage reads and writes; the
compacted file is the catalog's snapshot of them, named by a fingerprint of the shard files it was
made from (shard, size, mtime), so an unchanged table version is not compacted again.
docs/decisions.md ("The catalog reads compacted copies") has the figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from readers.core.atomic import written_whole
from warehouse.store import (
    COMPACT_PREFIX,
    Warehouse,
    files_fingerprint,
    parquet_cursor,
    sql_string,
)

# A table version with more shard files than this is read through one compacted file. On the 1x corpus
# of benchmarks/scale_corpus.py (49 documents, 52 shard files a table) the README's queries took 26-243
# ms over the shard files and 22-59 ms over compacted ones, for 0.25 s of compaction over every table;
# a few files cost a query little, and a one-file run compacts nothing.
COMPACT_ABOVE_FILES = 16
# Compacted files of a table version kept besides the current one: a reader that opened the catalog
# before this build still finds the files its views name.
KEEP_PREVIOUS = 1


def compacted(wh: Warehouse, table: str, version: str, files: Sequence[Path]) -> Path:
    """The one file holding the rows of ``files`` (the shard files of ``table`` under ``version``),
    written when it is not there yet; older compacted files of the table version beyond
    :data:`KEEP_PREVIOUS` are removed."""
    base = wh.table_dir(table) / f"extractor_version={version}"
    # Named by what it holds: the shard files' places, sizes and times of writing.
    target = base / f"{COMPACT_PREFIX}{files_fingerprint(files, base)[:16]}.parquet"
    if not target.exists():
        listed = ", ".join(sql_string(f) for f in files)
        with written_whole(target) as tmp:
            con = parquet_cursor()
            try:
                con.execute(
                    f"COPY (SELECT * FROM read_parquet([{listed}], union_by_name = true, "
                    f"hive_partitioning = false)) TO {sql_string(tmp)} (FORMAT parquet, COMPRESSION zstd)"
                )
            finally:
                con.close()
    older = sorted(
        (p for p in base.glob(f"{COMPACT_PREFIX}*.parquet") if p != target),
        key=lambda p: p.stat().st_mtime_ns,
        reverse=True,
    )
    for stale in older[KEEP_PREVIOUS:]:
        stale.unlink(missing_ok=True)
    return target
