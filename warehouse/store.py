"""Parquet per table, extractor version and shard, written atomically.

Layout under the data directory (docs/design.md §5)::

    <table>/extractor_version=<v>/shard=<ss>/part.parquet   (sharded tables)
    <table>/extractor_version=<v>/part.parquet              (corpus-wide tables: observations)

A partition is written to a temporary name in its own directory and renamed over the old file, so a
rerun replaces a partition whole and a crash leaves no half file behind.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import Collection, Iterable, Sequence
from datetime import UTC
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from readers.core.atomic import written_whole
from warehouse.schema import TABLES, Table
from warehouse.warehouse_errors import SchemaMismatch, WarehouseError

PART_FILE = "part.parquet"
#: A table version's compacted copy for the catalog: ``compact-<fingerprint>.parquet`` beside its shards
#: (warehouse/compaction.py).
COMPACT_PREFIX = "compact-"
#: The tables the walk writes: a document's identity, kept when its derivations are forgotten.
WALK_TABLES = frozenset({"observations", "documents", "expansions"})
#: The tables a document's derivations are in, in the order the stages write them (the schema's): what
#: :meth:`Warehouse.forget` takes a document out of.
FORGETTABLE = tuple(
    name
    for name, table in TABLES.items()
    if table.sharded and "sha256" in table.column_names and name not in WALK_TABLES
)

# The in-memory DuckDB database this process reads Parquet columns with, and the process that made it:
# connecting costs about 20-30 ms on this kind of machine and a cursor on a connection 0.3 ms, and the
# planners of one run read some columns of a table a dozen times (about 1 s of a rerun over the dev
# corpus before, 0.3 s after). DuckDB keeps no local file's blocks or Parquet metadata between queries
# (cache_local_files and parquet_metadata_cache are off), so every query reads the files as they are.
_PARQUET_READER: tuple[int, duckdb.DuckDBPyConnection] | None = None
_PARQUET_READER_LOCK = threading.Lock()


def parquet_cursor() -> duckdb.DuckDBPyConnection:
    """A cursor of its own (DuckDB's connections are not shared between threads) on this process's
    in-memory database; a process forked from this one makes its own database."""
    global _PARQUET_READER
    with _PARQUET_READER_LOCK:
        if _PARQUET_READER is None or _PARQUET_READER[0] != os.getpid():
            _PARQUET_READER = (os.getpid(), duckdb.connect())
        return _PARQUET_READER[1].cursor()


class Warehouse:
    """The data directory and the catalog under one home (``<home>/warehouse``)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).absolute()
        self.data_dir = self.root / "tables"
        self.catalog_path = self.root / "catalog.duckdb"
        # The bytes of documents that are not files of their own (e-mail attachments, archive members),
        # content-addressed: <blobs>/<first two hex digits>/<sha256>.
        self.blobs_dir = self.root / "blobs"

    # -- paths -----------------------------------------------------------------------------------

    def table_dir(self, table: str) -> Path:
        return self.data_dir / _table(table).name

    def partition_path(self, table: str, version: str, shard: str | None = None) -> Path:
        spec = _table(table)
        base = self.table_dir(table) / f"extractor_version={version}"
        if spec.sharded:
            if shard is None:
                raise WarehouseError(f"table {table} is sharded: a shard is needed")
            return base / f"shard={shard}" / PART_FILE
        return base / PART_FILE

    def versions(self, table: str) -> list[str]:
        """Extractor versions that have files for ``table``, oldest write first."""
        tdir = self.table_dir(table)
        if not tdir.is_dir():
            return []
        found = []
        for d in tdir.iterdir():
            if d.is_dir() and d.name.startswith("extractor_version="):
                stamp = max((p.stat().st_mtime_ns for p in d.rglob(PART_FILE)), default=None)
                if stamp is not None:
                    found.append((stamp, d.name.split("=", 1)[1]))
        return [v for _, v in sorted(found)]

    def last_write(self, table: str, version: str) -> int | None:
        """mtime (ns) of the newest partition file of ``table`` under ``version``; None when none."""
        base = self.table_dir(table) / f"extractor_version={version}"
        return max((p.stat().st_mtime_ns for p in base.rglob(PART_FILE)), default=None)

    def shard_files(self, table: str, version: str) -> list[Path]:
        """The readable partition files of sharded ``table`` under ``version``, in shard order: a file
        that is not Parquet whole (:func:`parquet_damage`) is as good as missing, so the stage that writes
        it runs there again."""
        base = self.table_dir(table) / f"extractor_version={version}"
        return [p for p in sorted(base.glob(f"shard=*/{PART_FILE}")) if parquet_damage(p) is None]

    def written_at(self, table: str, version: str) -> dict[str, int]:
        """mtime (ns) of each shard's partition file of ``table`` under ``version``: a stage whose input
        partition is newer than its output's has to run again."""
        return {
            p.parent.name.split("=", 1)[1]: p.stat().st_mtime_ns for p in self.shard_files(table, version)
        }

    def shards(self, table: str, version: str) -> list[str]:
        return [p.parent.name.split("=", 1)[1] for p in self.shard_files(table, version)]

    # -- writing ---------------------------------------------------------------------------------

    def write(self, table: str, version: str, rows: Sequence[Any], shard: str | None = None) -> Path:
        """Write ``rows`` (dataclass instances) as the whole partition, atomically."""
        spec = _table(table)
        arrow = to_arrow(spec, rows)
        return self.write_arrow(table, version, arrow, shard)

    def write_sharded(
        self, table: str, version: str, rows: Sequence[Any], previous: Sequence[Any] | None = None
    ) -> list[str]:
        """Write the shards of ``rows`` (grouped by their ``shard`` field) whose content changed, and empty
        the shards that had rows before and have none now; returns the shards written.

        ``previous`` is what the caller knows to be on disk (the rows it wrote last time); without it the
        partitions are read to compare. Either way an unchanged shard is not rewritten, so an unchanged
        corpus costs no write."""
        spec = _table(table)
        by_shard = _group(rows)
        existing = set(self.shards(table, version))
        before = _group(previous) if previous is not None else None
        written = []
        for shard in sorted(set(by_shard) | existing):
            new_rows = by_shard.get(shard, [])
            if shard in existing:
                if before is not None and before.get(shard, []) == new_rows:
                    continue
                if before is None and self.read(table, version, shard).equals(to_arrow(spec, new_rows)):
                    continue
            self.write(table, version, new_rows, shard=shard)
            written.append(shard)
        return written

    def write_arrow(self, table: str, version: str, arrow: pa.Table, shard: str | None = None) -> Path:
        spec = _table(table)
        if arrow.schema.names != list(spec.column_names):
            raise SchemaMismatch(f"{table}: columns {arrow.schema.names} != {list(spec.column_names)}")
        target = self.partition_path(table, version, shard)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with written_whole(target, fsync=True) as tmp:
                pq.write_table(arrow.cast(spec.schema), tmp, compression="zstd")
        except (OSError, pa.ArrowException) as exc:
            raise WarehouseError(f"could not write {target}: {exc}") from exc
        return target

    def carry_partition(
        self, table: str, from_version: str, to_version: str, shard: str | None = None
    ) -> Path:
        """Copy one partition to another extractor version, its rows unchanged but for
        ``extractor_version`` (and ``carried_from``, where the table has it, naming the version that first
        wrote the row), atomically like any write."""
        spec = _table(table)
        arrow = self.read(table, from_version, shard)
        names = arrow.schema.names
        if "carried_from" in names:
            origin = pc.coalesce(arrow.column("carried_from"), arrow.column("extractor_version"))
            arrow = arrow.set_column(names.index("carried_from"), spec.schema.field("carried_from"), origin)
        version = pa.array([to_version] * arrow.num_rows, pa.string())
        arrow = arrow.set_column(
            names.index("extractor_version"), spec.schema.field("extractor_version"), version
        )
        return self.write_arrow(table, to_version, arrow, shard)

    # -- reading ---------------------------------------------------------------------------------

    def read(
        self, table: str, version: str, shard: str | None = None, columns: Sequence[str] | None = None
    ) -> pa.Table:
        """One partition (only ``columns`` of it, when given, so that a stage needing a page's numbers
        does not read its text); an empty table with the declared schema when it does not exist."""
        spec = _table(table)
        path = self.partition_path(table, version, shard)
        if not self.has_partition(table, version, shard):
            empty = spec.empty()
            return empty.select(list(columns)) if columns is not None else empty
        return _read_file(spec, path, columns)

    def read_all_shards(self, table: str, version: str) -> pa.Table:
        spec = _table(table)
        if not spec.sharded:
            return self.read(table, version)
        parts = [
            _read_file(spec, self.partition_path(table, version, s)) for s in self.shards(table, version)
        ]
        return pa.concat_tables(parts) if parts else spec.empty()

    def keys_by_shard(self, table: str, version: str) -> dict[str, set[str]]:
        """``sha256`` values per shard of a sharded table (see :meth:`values_by_shard`)."""
        return self.values_by_shard(table, version, "sha256")

    def values_by_shard(self, table: str, version: str, column: str) -> dict[str, set[Any]]:
        """The distinct values of one column per shard of a sharded table; a shard with an empty partition
        maps to an empty set."""
        found: dict[str, set[Any]] = {s: set() for s in self.shards(table, version)}
        for shard, value in self.columns(table, version, ("shard", column)):
            found.setdefault(shard, set()).add(value)
        return found

    def columns(self, table: str, version: str, names: Sequence[str]) -> list[tuple[Any, ...]]:
        """Some columns of every partition of a sharded table, in one DuckDB pass (a few columns of a few
        hundred small files: ~20 ms), without reading the others (page texts)."""
        spec = _table(table)
        if not spec.sharded:
            raise WarehouseError(f"table {table} is not sharded")
        unknown = [n for n in names if n not in spec.column_names]
        if unknown:
            raise WarehouseError(f"table {table} has no column {', '.join(unknown)}")
        files = [str(p) for p in self.shard_files(table, version)]
        if not files:
            return []
        select = ", ".join(f'"{n}"' for n in names)
        try:
            con = parquet_cursor()
            try:
                return con.execute(
                    f"select {select} from read_parquet(?, hive_partitioning = false, union_by_name = true)",
                    [files],
                ).fetchall()
            finally:
                con.close()
        except duckdb.BinderException:
            # Every partition of an older version lacks a column added since: read shard by shard, the
            # missing column filled with nulls as :meth:`read` fills it.
            rows: list[tuple[Any, ...]] = []
            for shard in self.shards(table, version):
                arrow = self.read(table, version, shard, columns=names)
                rows.extend(zip(*(arrow.column(n).to_pylist() for n in names), strict=True))
            return rows
        except duckdb.Error as exc:
            raise WarehouseError(f"could not read {select} of {table} {version}: {exc}") from exc

    def rows(self, table: str, version: str, shard: str | None = None) -> list[dict[str, Any]]:
        return to_pylist(self.read(table, version, shard))

    def has_partition(self, table: str, version: str, shard: str | None = None) -> bool:
        """Whether the partition has a file, and a readable one (:func:`parquet_damage`)."""
        path = self.partition_path(table, version, shard)
        return path.exists() and parquet_damage(path) is None

    def row_count(self, table: str, version: str, shard: str | None = None) -> int:
        """The rows of one partition, from its Parquet footer (no data read); 0 when it has no readable
        file."""
        if not self.has_partition(table, version, shard):
            return 0
        path = self.partition_path(table, version, shard)
        try:
            return pq.ParquetFile(path).metadata.num_rows
        except FileNotFoundError:
            return 0
        except (OSError, pa.ArrowException) as exc:
            raise WarehouseError(f"could not read the footer of {path}: {exc}") from exc

    def damaged(self) -> list[tuple[Path, str]]:
        """Every partition and compacted file under the data directory that is not Parquet whole (cut
        short, overwritten), with what is wrong with it."""
        if not self.data_dir.is_dir():
            return []
        found = [
            *self.data_dir.glob(f"*/extractor_version=*/{PART_FILE}"),
            *self.data_dir.glob(f"*/extractor_version=*/shard=*/{PART_FILE}"),
            *self.data_dir.glob(f"*/extractor_version=*/{COMPACT_PREFIX}*.parquet"),
        ]
        return [(p, why) for p in sorted(found) if (why := parquet_damage(p)) is not None]

    def set_aside(self, path: Path) -> Path | None:
        """Move a damaged file out of the data directory, to ``<warehouse>/damaged/`` under its place
        there (the stages then see its partition as missing and write it again); returns where it went,
        or None for a compacted copy, which is removed with the catalog whose views read it (the next
        catalog build makes both again)."""
        if path.name.startswith(COMPACT_PREFIX):
            path.unlink(missing_ok=True)
            self.catalog_path.unlink(missing_ok=True)
            return None
        target = self.damaged_dir / path.relative_to(self.data_dir)
        target = target.with_name(f"{target.name}.{time.strftime('%Y%m%dT%H%M%S')}.{uuid.uuid4().hex[:6]}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(path, target)
        return target

    @property
    def damaged_dir(self) -> Path:
        return self.root / "damaged"

    def remove_stale_temporaries(self) -> int:
        """Delete temporary files a killed writer left behind; returns how many.

        Every temporary is named by :func:`temporary_beside` (partitions and blobs here, the catalog and
        the search index in warehouse/duckdb_catalog.py and warehouse/search.py, with DuckDB's write-ahead log
        beside them while they are open). One whose writer is still running on this machine is left
        alone, unless it is older than ``STALE_TEMPORARY_S``: a run started while another writes must not
        break that one's rename, and a home on a volume shared between machines still gets cleaned.
        """
        found: list[Path] = []
        if self.data_dir.is_dir():
            found += self.data_dir.glob(f"*/extractor_version=*/**/.{PART_FILE}.*.tmp")
            found += self.data_dir.glob(f"*/extractor_version=*/.{COMPACT_PREFIX}*.tmp")
        if self.blobs_dir.is_dir():
            found += self.blobs_dir.glob("*/.*.tmp")
        if self.root.is_dir():
            found += [*self.root.glob(".*.tmp"), *self.root.glob(".*.tmp.wal")]
        removed = 0
        for tmp in found:
            if stale_temporary(tmp):
                tmp.unlink(missing_ok=True)
                removed += 1
        return removed

    # -- re-reading on request --------------------------------------------------------------------

    def forget(self, version: str, shas: Collection[str]) -> int:
        """Take the documents ``shas`` out of every stage's tables of ``version`` (what the walk wrote
        stays), so that every stage derives them again; returns the partitions rewritten.

        They are first written down as forced (:meth:`forced`), so that extract reads them rather than
        carrying an earlier version's rows; extract settles them (:meth:`settle_forced`) once their rows
        are written. The tables are emptied of them from the last stage's to ``derivations``, which says
        what extract has read: a run killed on the way leaves them to be forgotten again by the same
        command, never a document with its derivation but without its pages."""
        wanted = set(shas)
        if not wanted:
            return 0
        self._write_forced(self.forced() | wanted)
        shards = {sha[:2] for sha in wanted}
        rewritten = 0
        for name in reversed(FORGETTABLE):
            for shard in sorted(shards & set(self.shards(name, version))):
                arrow = self.read(name, version, shard)
                keep = pc.invert(pc.is_in(arrow.column("sha256"), pa.array(sorted(wanted))))
                kept = arrow.filter(keep)
                if kept.num_rows != arrow.num_rows:
                    self.write_arrow(name, version, kept, shard)
                    rewritten += 1
        return rewritten

    def forced(self) -> set[str]:
        """The documents a ``--force`` asked to read again that extract has not read yet."""
        try:
            return set(json.loads(self._forced_path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            return set()
        except (OSError, ValueError) as exc:
            raise WarehouseError(f"could not read {self._forced_path}: {exc}") from exc

    def settle_forced(self, shas: Collection[str]) -> None:
        """``shas`` have been read again: they are forced no more."""
        left = self.forced() - set(shas)
        if left:
            self._write_forced(left)
        else:
            self._forced_path.unlink(missing_ok=True)

    @property
    def _forced_path(self) -> Path:
        return self.root / "forced.json"

    def _write_forced(self, shas: set[str]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        with written_whole(self._forced_path) as tmp:
            tmp.write_text(json.dumps(sorted(shas)), encoding="utf-8")

    # -- blobs -----------------------------------------------------------------------------------

    def blob_path(self, sha256: str) -> Path:
        return self.blobs_dir / sha256[:2] / sha256

    def put_blob(self, sha256: str, data: bytes) -> Path:
        """Store ``data`` under its sha256 (once: identical bytes are one blob), atomically."""
        target = self.blob_path(sha256)
        if target.is_file() and target.stat().st_size == len(data):
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        with written_whole(target, fsync=True) as tmp:
            tmp.write_bytes(data)
        return target


def to_arrow(spec: Table, rows: Iterable[Any]) -> pa.Table:
    """Rows (dataclass instances) to an Arrow table with the declared schema, checking the columns."""
    names = spec.column_names
    dicts = []
    for row in rows:
        if not dataclasses.is_dataclass(row):
            raise SchemaMismatch(f"{spec.name}: rows must be dataclass instances, got {type(row).__name__}")
        fields = tuple(f.name for f in dataclasses.fields(row))
        if fields != names:
            raise SchemaMismatch(f"{spec.name}: {type(row).__name__} has fields {fields}, table has {names}")
        dicts.append({n: getattr(row, n) for n in names})
    try:
        return pa.Table.from_pylist(dicts, schema=spec.schema)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise SchemaMismatch(f"{spec.name}: rows do not fit the schema: {exc}") from exc


def _group(rows: Iterable[Any]) -> dict[str, list[Any]]:
    by_shard: dict[str, list[Any]] = {}
    for row in rows:
        by_shard.setdefault(row.shard, []).append(row)
    return by_shard


def to_pylist(arrow: pa.Table) -> list[dict[str, Any]]:
    """Rows as dicts; UTC timestamps become aware datetimes without pyarrow's detour through pandas."""
    columns: dict[str, list[Any]] = {}
    for field in arrow.schema:
        col = arrow.column(field.name)
        if pa.types.is_timestamp(field.type) and field.type.tz is not None:
            naive = col.cast(pa.timestamp(field.type.unit)).to_pylist()
            columns[field.name] = [None if v is None else v.replace(tzinfo=UTC) for v in naive]
        else:
            columns[field.name] = col.to_pylist()
    names = arrow.schema.names
    return [
        dict(zip(names, values, strict=True)) for values in zip(*(columns[n] for n in names), strict=True)
    ]


# The Parquet files this process has checked, by path: (size, time of writing, what is wrong or None).
# Checking one (12 bytes read) costs about 80 us, a stat a few, and a run lists a table's files dozens of
# times; a file rewritten since (another size or time) is checked again. (A dict's get and set are
# atomic: the stages' threads share it without a lock.)
_CHECKED: dict[Path, tuple[int, int, str | None]] = {}
_MAGIC = b"PAR1"


def parquet_damage(path: Path) -> str | None:
    """What makes ``path`` no Parquet file that can be read (cut short, overwritten with something
    else), or None when it is whole or does not exist: its magic bytes at both ends and its footer's
    length are checked. The footer is not parsed: that costs ten times as much (0.85 ms a file, 1,552
    files of a 98-shard home) and finds nothing these miss but a footer garbled in place, which a
    read still names (:class:`WarehouseError` "could not read <file>")."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    known = _CHECKED.get(path)
    if known is not None and known[0] == st.st_size and known[1] == st.st_mtime_ns:
        return known[2]
    why = _footer_damage(path, st.st_size)
    _CHECKED[path] = (st.st_size, st.st_mtime_ns, why)
    return why


def _footer_damage(path: Path, size: int) -> str | None:
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(_MAGIC))
            fh.seek(max(size - 8, 0))
            tail = fh.read(8)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be opened ({exc.strerror or exc})"
    if size < 12 or head != _MAGIC or tail[4:] != _MAGIC:
        return f"not a whole Parquet file ({size} bytes, cut short or overwritten)"
    if int.from_bytes(tail[:4], "little") + 12 > size:
        return f"not a whole Parquet file (its footer is longer than its {size} bytes)"
    return None


def _read_file(spec: Table, path: Path, columns: Sequence[str] | None = None) -> pa.Table:
    schema = spec.schema if columns is None else pa.schema([spec.schema.field(c) for c in columns])
    try:
        # ParquetFile, not read_table: one file needs no dataset machinery (which also imports pandas).
        parquet = pq.ParquetFile(path)
        present = set(parquet.schema_arrow.names)
        arrow = parquet.read(columns=[f.name for f in schema if f.name in present])
    except (OSError, pa.ArrowException) as exc:
        raise WarehouseError(f"could not read {path}: {exc}") from exc
    # Older versions may lack columns added since: fill them with nulls so every reader sees one schema.
    cols = []
    for field in schema:
        if field.name in arrow.column_names:
            cols.append(arrow.column(field.name).cast(field.type))
        else:
            cols.append(pa.nulls(arrow.num_rows, field.type))
    return pa.Table.from_arrays(cols, schema=schema)


def _table(name: str) -> Table:
    try:
        return TABLES[name]
    except KeyError:
        raise WarehouseError(f"unknown table {name!r}; known: {', '.join(TABLES)}") from None


def sql_string(value: object) -> str:
    """``value`` as an SQL string literal (a path, a version), its quotes doubled."""
    return "'" + str(value).replace("'", "''") + "'"


def files_fingerprint(paths: Iterable[Path], base: Path, salt: str = "") -> str:
    """A digest of ``paths`` as they are now: each one's place under ``base``, size and time of writing,
    after ``salt`` (what else the fingerprinted thing depends on)."""
    h = hashlib.sha256(salt.encode())
    for path in paths:
        st = path.stat()
        h.update(f"\x00{path.relative_to(base)}\x00{st.st_size}\x00{st.st_mtime_ns}".encode())
    return h.hexdigest()


# A writer holds a temporary for as long as one partition or one catalog takes to write: seconds, minutes
# for the largest search index. One older than this is left by a writer that is gone, even when its pid
# was reused or it ran on another machine sharing the home.
STALE_TEMPORARY_S = 6 * 3600


def stale_temporary(tmp: Path) -> bool:
    """``tmp`` (named by :func:`temporary_beside`, maybe with DuckDB's ``.wal`` after it) was left by a
    writer that no longer runs."""
    parts = tmp.name.removesuffix(".wal").split(".")
    try:
        pid = int(parts[-3])
        age = time.time() - tmp.stat().st_mtime
    except (IndexError, ValueError, OSError):
        return True
    if age > STALE_TEMPORARY_S or pid == os.getpid():
        return True  # this process writes one temporary at a time, and not while it cleans up
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    return False
