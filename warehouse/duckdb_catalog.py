"""The DuckDB catalog: a file that holds only views over the Parquet partitions.

It is rebuilt into a new file and renamed over the old one, so a reader never sees half a catalog and no
stage ever holds a DuckDB write lock while others run; readers open it read-only. A table version with
few shard files is read through a glob at query time; one with many is read through the compacted copy
made when the catalog was built (warehouse/compaction.py), a snapshot: so the catalog is rebuilt whenever
a partition was written after it (:func:`catalog_current`), as well as when the extractor version changes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from quality.outcomes import (
    ALL_TEXT_REMOVED,
    ATTEMPTED,
    FINAL_STATUSES,
    SANITIZE_ERROR,
    WITH_TEXT,
    DocumentOutcome,
)
from quality.records import Source
from readers.core.atomic import written_whole
from readers.core.model import DocumentStatus
from warehouse.compaction import COMPACT_ABOVE_FILES, compacted
from warehouse.query_stopper import QueryStopper
from warehouse.reading import require_reading
from warehouse.schema import TABLES, Table
from warehouse.store import PART_FILE, Warehouse, sql_string
from warehouse.warehouse_errors import CatalogMissing, QueryTimeout, WarehouseError

_DUCK_TYPES: dict[pa.DataType, str] = {
    pa.string(): "VARCHAR",
    pa.int64(): "BIGINT",
    pa.float64(): "DOUBLE",
    pa.bool_(): "BOOLEAN",
    pa.timestamp("us", tz="UTC"): "TIMESTAMPTZ",
    pa.list_(pa.string()): "VARCHAR[]",
    pa.list_(pa.int64()): "BIGINT[]",
    pa.list_(pa.list_(pa.string())): "VARCHAR[][]",
}


def duck_type(arrow: pa.DataType) -> str:
    """The DuckDB type a column of ``arrow`` type is read as."""
    return _DUCK_TYPES[arrow]


def _sql_list(values: Iterable[str]) -> str:
    return "(" + ", ".join(sql_string(v) for v in sorted(values)) + ")"


# Views that show a table together with the decisions made about its rows: `pages` carries each page's
# mode, reasons and provenance from `page_verdicts` (docs/design.md §5 lists them as columns of `pages`).
JOINED = {
    "pages": (
        "SELECT p.*, v.mode, v.reasons, v.provenance, v.text_source FROM ({source}) p "
        "LEFT JOIN all_page_verdicts v ON v.sha256 = p.sha256 AND v.extractor_version = p.extractor_version "
        "AND v.page = p.page"
    ),
}


# The edges of every document's derivation graph (docs/design.md §5), one row per edge, over the all_
# views: the bytes seen at a path or taken from a container, the derivation, each page's verdict, its OCR and
# its final text, the clean text and its chunks. Nodes are named "<what>:<id>".
LINEAGE = """
SELECT o.sha256, o.extractor_version, 'path:' || o.path AS "from", 'doc:' || o.sha256 AS "to",
       'walk' AS stage, 'sha256' AS tool, '' AS tool_version
  FROM all_observations o WHERE o.sha256 IS NOT NULL
UNION ALL
SELECT d.sha256, d.extractor_version, 'doc:' || d.parent_sha256, 'doc:' || d.sha256,
       'walk', 'member:' || d.member, '' FROM all_documents d WHERE d.parent_sha256 IS NOT NULL
UNION ALL
SELECT e.sha256, e.extractor_version, 'doc:' || e.sha256,
       'members:' || e.status || coalesce(':' || e.reason, ''), 'walk', 'expand', ''
  FROM all_expansions e WHERE e.status <> 'expanded'
UNION ALL
SELECT v.sha256, v.extractor_version, 'doc:' || v.sha256, 'derivation:' || v.status,
       'extract', coalesce(v.reader, 'none'), coalesce(v.reader_version, '') FROM all_derivations v
UNION ALL
SELECT u.sha256, u.extractor_version, 'doc:' || u.sha256, 'underivable:' || u.reason,
       'extract', u.tool, u.tool_version FROM all_underivables u
UNION ALL
SELECT p.sha256, p.extractor_version, 'doc:' || p.sha256, 'page:' || p.page || ':' || p.mode,
       'verdicts', 'verdicts', p.verdicts_version FROM all_page_verdicts p
UNION ALL
SELECT o.sha256, o.extractor_version, 'page:' || o.page || ':' || v.mode, 'ocr:' || o.page || ':' || o.scope
       || ':' || o.engine || ':' || o.status
       || CASE WHEN o.kept IS NOT DISTINCT FROM false THEN ':not_kept' ELSE '' END,
       'ocr', o.engine, o.engine_version
  FROM all_ocr_pages o JOIN all_page_verdicts v
    ON v.sha256 = o.sha256 AND v.page = o.page AND v.extractor_version = o.extractor_version
UNION ALL
SELECT t.sha256, t.extractor_version, 'page:' || t.page || ':' || t.mode,
       'page_text:' || t.page || ':' || t.source, 'ocr', t.tool, t.tool_version FROM all_page_texts t
UNION ALL
SELECT t.sha256, t.extractor_version, 'page_text:' || t.page || ':' || t.source, 'text:' || t.sha256,
       'sanitize', 'sanitize', t.sanitize_version
  FROM (SELECT sha256, extractor_version, sanitize_version, unnest(pages) AS page,
               unnest(page_sources) AS source FROM all_texts) t
UNION ALL
SELECT c.sha256, c.extractor_version, 'text:' || c.sha256, 'chunk:' || c.chunk_id,
       'chunk', 'chunk', '' FROM all_chunks c
"""


# What a new extractor version changed, page by page and kind by kind, against the version before it (the
# most recent other version on disk): what to read before trusting a new version. The two versions are
# fixed when the catalog is built; {old} and {new} are their SQL literals.
VERSION_DIFF = """
WITH n AS (SELECT * FROM all_pages WHERE extractor_version = {new}),
     o AS (SELECT * FROM all_pages WHERE extractor_version = {old}),
     dn AS (SELECT sha256, reader, reader_version FROM all_derivations WHERE extractor_version = {new}),
     dol AS (SELECT sha256, reader, reader_version FROM all_derivations WHERE extractor_version = {old}),
     k AS (SELECT sha256, any_value(kind) AS kind FROM all_documents GROUP BY sha256)
SELECT coalesce(n.sha256, o.sha256) AS sha256, coalesce(n.page, o.page) AS page, k.kind,
       {old} AS old_version, {new} AS new_version,
       o.mode AS old_mode, n.mode AS new_mode, o.reasons AS old_reasons, n.reasons AS new_reasons,
       dol.reader AS old_reader, dn.reader AS new_reader,
       dol.reader_version AS old_reader_version, dn.reader_version AS new_reader_version,
       o.text IS DISTINCT FROM n.text AS text_changed,
       CASE WHEN o.sha256 IS NULL THEN 'added'
            WHEN n.sha256 IS NULL THEN 'removed'
            WHEN o.mode IS DISTINCT FROM n.mode THEN 'mode'
            WHEN o.text IS DISTINCT FROM n.text THEN 'text'
            WHEN o.reasons IS DISTINCT FROM n.reasons THEN 'reasons'
            WHEN dol.reader IS DISTINCT FROM dn.reader
                 OR dol.reader_version IS DISTINCT FROM dn.reader_version THEN 'reader'
            ELSE 'same' END AS change
  FROM n FULL OUTER JOIN o ON n.sha256 = o.sha256 AND n.page = o.page
  LEFT JOIN dn ON dn.sha256 = coalesce(n.sha256, o.sha256)
  LEFT JOIN dol ON dol.sha256 = coalesce(n.sha256, o.sha256)
  LEFT JOIN k ON k.sha256 = coalesce(n.sha256, o.sha256)
"""

# version_diff while one extractor version has pages: every page is added, nothing is compared, and the
# pages' texts are read only when text_changed is asked for (the text of every page, once per query, was
# most of what the README's version_diff queries read on a large corpus).
VERSION_DIFF_FIRST = """
WITH n AS (SELECT * FROM all_pages WHERE extractor_version = {new}),
     dn AS (SELECT sha256, reader, reader_version FROM all_derivations WHERE extractor_version = {new}),
     k AS (SELECT sha256, any_value(kind) AS kind FROM all_documents GROUP BY sha256)
SELECT n.sha256, n.page, k.kind, {old} AS old_version, {new} AS new_version,
       CAST(NULL AS VARCHAR) AS old_mode, n.mode AS new_mode,
       CAST(NULL AS VARCHAR[]) AS old_reasons, n.reasons AS new_reasons,
       CAST(NULL AS VARCHAR) AS old_reader, dn.reader AS new_reader,
       CAST(NULL AS VARCHAR) AS old_reader_version, dn.reader_version AS new_reader_version,
       n.text IS NOT NULL AS text_changed, 'added' AS change
  FROM n LEFT JOIN dn ON dn.sha256 = n.sha256 LEFT JOIN k ON k.sha256 = n.sha256
"""

# What each document finally yielded after every stage (quality/outcomes.py has the rules, in order),
# from what the readers did (derivations) and the text each judged page ends with (page_texts): the one
# definition the run summary, `assay check`, the rate checks, the quality report and version_diff_rates
# read. It reads the all_ names of derivations, page_texts and documents, whatever binds them: the
# catalog's views, or a query's own relations over partitions or rows (warehouse/outcome_query.py).
OUTCOMES = f"""
WITH t AS (
  SELECT sha256, extractor_version, count(*) AS pages,
         count(*) FILTER (WHERE source <> {sql_string(Source.NONE)}) AS pages_with_text,
         count(*) FILTER (WHERE source = {sql_string(Source.OCR)}) AS pages_ocr,
         count(*) FILTER (WHERE source = {sql_string(Source.REPAIRED)}) AS pages_repaired,
         count(*) FILTER (WHERE source = {sql_string(Source.FALLBACK)}) AS pages_fallback,
         arg_min(reason, page) FILTER (WHERE source = {sql_string(Source.NONE)} AND reason <> 'blank')
           AS page_reason
    FROM all_page_texts GROUP BY sha256, extractor_version),
s AS (
  SELECT sha256, extractor_version, bool_or(what = 'texts') AS has_clean_text,
         string_agg(DISTINCT what, '+' ORDER BY what) FILTER (WHERE what <> 'texts') AS removed
    FROM (SELECT sha256, extractor_version, 'texts' AS what FROM all_texts
          UNION ALL SELECT sha256, extractor_version, 'hidden_text' FROM all_hidden_text
          UNION ALL SELECT sha256, extractor_version, 'furniture' FROM all_furniture)
   GROUP BY sha256, extractor_version),
u AS (SELECT sha256, extractor_version, min(reason) AS reason FROM all_unsanitized GROUP BY 1, 2),
o AS (
  SELECT d.sha256, d.shard, d.extractor_version, d.kind, d.status, d.reason, t.page_reason,
         -- sanitize could not make a clean text of the pages' text (over its budget, or failed)
         CASE WHEN u.sha256 IS NOT NULL AND NOT coalesce(s.has_clean_text, false)
              THEN {sql_string(SANITIZE_ERROR)} || u.reason END AS unsanitized_reason,
         coalesce(t.pages, 0) AS pages, coalesce(t.pages_with_text, 0) AS pages_with_text,
         coalesce(t.pages_ocr, 0) AS pages_ocr,
         -- sanitize took out all the text the pages ended with: what it took says why
         CASE WHEN t.pages_with_text > 0 AND s.removed IS NOT NULL AND NOT s.has_clean_text
              THEN {sql_string(ALL_TEXT_REMOVED)} || s.removed END AS removed_reason,
         CASE WHEN d.status IN {_sql_list(FINAL_STATUSES)} THEN d.status
              WHEN unsanitized_reason IS NOT NULL THEN {sql_string(DocumentOutcome.ERROR)}
              WHEN t.sha256 IS NULL THEN
                CASE WHEN d.status <> {sql_string(DocumentStatus.DERIVED)}
                       THEN {sql_string(DocumentOutcome.UNDERIVABLE)}
                     WHEN d.recovered_by_fallback THEN {sql_string(DocumentOutcome.FALLBACK)}
                     ELSE {sql_string(DocumentOutcome.DERIVED)} END
              WHEN t.pages_with_text = 0 THEN {sql_string(DocumentOutcome.UNDERIVABLE)}
              WHEN removed_reason IS NOT NULL THEN {sql_string(DocumentOutcome.UNDERIVABLE)}
              WHEN t.pages_ocr > 0 THEN {sql_string(DocumentOutcome.OCR)}
              WHEN t.pages_repaired > 0 THEN {sql_string(DocumentOutcome.REPAIRED)}
              WHEN t.pages_fallback > 0 OR d.recovered_by_fallback THEN {sql_string(DocumentOutcome.FALLBACK)}
              ELSE {sql_string(DocumentOutcome.DERIVED)} END AS outcome
    FROM all_derivations d
    LEFT JOIN t ON t.sha256 = d.sha256 AND t.extractor_version = d.extractor_version
    LEFT JOIN s ON s.sha256 = d.sha256 AND s.extractor_version = d.extractor_version
    LEFT JOIN u ON u.sha256 = d.sha256 AND u.extractor_version = d.extractor_version)
SELECT o.sha256, o.shard, o.extractor_version, o.kind, doc.path, o.outcome,
       CASE WHEN o.unsanitized_reason IS NOT NULL THEN o.unsanitized_reason
            WHEN o.outcome IN {_sql_list(FINAL_STATUSES)} THEN o.reason
            WHEN o.outcome = {sql_string(DocumentOutcome.UNDERIVABLE)}
              THEN coalesce(o.removed_reason, o.page_reason, o.reason, 'blank')
            WHEN o.status = {sql_string(DocumentStatus.DERIVED)} THEN o.reason END AS reason,
       o.status AS derivation_status, o.pages, o.pages_with_text, o.pages_ocr
  FROM o LEFT JOIN all_documents doc ON doc.sha256 = o.sha256 AND doc.extractor_version = o.extractor_version
"""

# Per kind, the two rates under the previous and the current extractor version, of the documents'
# outcomes (the `outcomes` view), counted as the rate checks count them (quality/rates.py).
VERSION_DIFF_RATES = f"""
WITH r AS (
  SELECT kind, extractor_version, count(*) AS documents,
         count(*) FILTER (WHERE outcome IN {_sql_list(WITH_TEXT)}) AS with_text,
         count(*) FILTER (WHERE outcome = {sql_string(DocumentOutcome.FALLBACK)}) AS fallback,
         count(*) FILTER (WHERE outcome = {sql_string(DocumentOutcome.UNDERIVABLE)}) AS underivable,
         count(*) FILTER (WHERE outcome IN {_sql_list(ATTEMPTED)}) AS attempted
    FROM all_outcomes WHERE extractor_version IN ({{old}}, {{new}}) GROUP BY 1, 2)
SELECT coalesce(n.kind, o.kind) AS kind, {{old}} AS old_version, {{new}} AS new_version,
       o.documents AS old_documents, n.documents AS new_documents,
       o.fallback AS old_fallback, n.fallback AS new_fallback,
       o.underivable AS old_underivable, n.underivable AS new_underivable,
       o.fallback / nullif(o.with_text, 0) AS old_fallback_rate,
       n.fallback / nullif(n.with_text, 0) AS new_fallback_rate,
       o.underivable / nullif(o.attempted, 0) AS old_underivable_rate,
       n.underivable / nullif(n.attempted, 0) AS new_underivable_rate,
       (SELECT count(*) FROM version_diff d WHERE d.kind = coalesce(n.kind, o.kind) AND d.change = 'mode')
         AS pages_mode_changed,
       (SELECT count(*) FROM version_diff d WHERE d.kind = coalesce(n.kind, o.kind) AND d.change <> 'same')
         AS pages_changed
  FROM (SELECT * FROM r WHERE extractor_version = {{new}}) n
  FULL OUTER JOIN (SELECT * FROM r WHERE extractor_version = {{old}}) o ON n.kind = o.kind
"""


def previous_version(wh: Warehouse, current_version: str) -> str | None:
    """The extractor version a new one is compared with: the most recently written other version."""
    others = [v for v in wh.versions("derivations") if v != current_version]
    return others[-1] if others else None


def _glob(wh: Warehouse, table: Table, version: str = "*") -> str:
    shard = "shard=*/" if table.sharded else ""
    return str(wh.table_dir(table.name) / f"extractor_version={version}" / f"{shard}{PART_FILE}")


def _source(wh: Warehouse, table: Table) -> str:
    """SELECT over every version's files, or an empty typed relation when there are none yet. A sharded
    table version with many shard files is read through its compacted file (warehouse/compaction.py)."""
    cols = ", ".join(f'"{c}"' for c in table.column_names)
    sources: list[str] = []
    for version in wh.versions(table.name):
        files = wh.shard_files(table.name, version) if table.sharded else []
        if len(files) > COMPACT_ABOVE_FILES:
            sources.append(str(compacted(wh, table.name, version, files)))
        else:
            sources.append(_glob(wh, table, version))
    if sources:
        return (
            f"SELECT {cols} FROM read_parquet([{', '.join(sql_string(s) for s in sources)}], "
            "union_by_name = true, hive_partitioning = false)"
        )
    typed = ", ".join(f'CAST(NULL AS {_DUCK_TYPES[c.type]}) AS "{c.name}"' for c in table.columns)
    return f"SELECT {typed} WHERE false"


def build_catalog(wh: Warehouse, current_version: str) -> Path:
    """Rebuild the catalog file and swap it in atomically; returns its path."""
    wh.root.mkdir(parents=True, exist_ok=True)
    try:
        with written_whole(wh.catalog_path, name="catalog", companions=(".wal",)) as tmp:
            con = duckdb.connect(str(tmp))
            try:
                ordered = sorted(TABLES.values(), key=lambda t: t.name in JOINED)  # joined views last
                for table in ordered:
                    source = _source(wh, table)
                    if table.name in JOINED:
                        source = JOINED[table.name].format(source=source)
                    con.execute(f"CREATE VIEW all_{table.name} AS {source}")
                    con.execute(
                        f"CREATE VIEW {table.name} AS SELECT * FROM all_{table.name} "
                        f"WHERE extractor_version = {sql_string(current_version)}"
                    )
                con.execute(f"CREATE VIEW all_lineage AS {LINEAGE}")
                con.execute(
                    "CREATE VIEW lineage AS SELECT * FROM all_lineage "
                    f"WHERE extractor_version = {sql_string(current_version)}"
                )
                previous = previous_version(wh, current_version)
                versions = {
                    "old": sql_string(previous) if previous is not None else "CAST(NULL AS VARCHAR)",
                    "new": sql_string(current_version),
                }
                con.execute(f"CREATE VIEW all_outcomes AS {OUTCOMES}")
                con.execute(
                    "CREATE VIEW outcomes AS SELECT * FROM all_outcomes "
                    f"WHERE extractor_version = {sql_string(current_version)}"
                )
                diff = VERSION_DIFF if previous is not None else VERSION_DIFF_FIRST
                con.execute(f"CREATE VIEW version_diff AS {diff.format(**versions)}")
                con.execute(f"CREATE VIEW version_diff_rates AS {VERSION_DIFF_RATES.format(**versions)}")
                built = datetime.now(UTC).isoformat(timespec="seconds")
                con.execute(
                    "CREATE VIEW catalog_info AS SELECT "
                    f"{sql_string(current_version)} AS extractor_version, "
                    f"CAST({sql_string(built)} AS TIMESTAMPTZ) AS built_at, "
                    f"{sql_string(str(wh.data_dir))} AS data_dir"
                )
                con.execute("CHECKPOINT")
            finally:
                con.close()
    except duckdb.Error as exc:
        raise WarehouseError(f"could not build the catalog at {wh.catalog_path}: {exc}") from exc
    return wh.catalog_path


@dataclass(frozen=True, slots=True)
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool = False  # the query returned more rows than the limit it was run with
    #: For a query run with ``arrow=True``: the rows as DuckDB hands them to Arrow, in place of ``rows``.
    table: pa.Table | None = None

    def records(self) -> list[dict[str, Any]]:
        if self.table is not None:
            return self.table.to_pylist()
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def _arrow_result(
    con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None, limit: int | None
) -> QueryResult:
    # Through a relation: Arrow from a DB-API cursor costs DuckDB an extra copy of the rows.
    relation = con.sql(sql, params=params or None)
    if relation is None:  # a statement without rows
        return QueryResult([], [], table=pa.table({}))
    if limit is None:
        table = relation.to_arrow_table()
        return QueryResult(table.column_names, [], table=table)
    table = relation.limit(limit + 1).to_arrow_table()
    return QueryResult(table.column_names, [], truncated=table.num_rows > limit, table=table.slice(0, limit))


def catalog_version(wh: Warehouse) -> str | None:
    """The extractor version the catalog was built for; None when there is no readable catalog."""
    if not wh.catalog_path.exists():
        return None
    try:
        con = connect(wh)
        try:
            row = con.execute("select extractor_version from catalog_info").fetchone()
        finally:
            con.close()
    except (duckdb.Error, WarehouseError):
        return None
    return row[0] if row else None


def catalog_current(wh: Warehouse, version: str) -> bool:
    """Whether the catalog was built for ``version`` after every shard file was written: what it reads
    through compacted copies is a snapshot taken when it was built. (Tables of one file a version, such
    as the walk's, are read live: the walk rewrites them on every run without making the catalog stale.)"""
    if catalog_version(wh) != version:
        return False
    built = wh.catalog_path.stat().st_mtime_ns
    for partition in wh.data_dir.glob(f"*/extractor_version=*/shard=*/{PART_FILE}"):
        try:
            if partition.stat().st_mtime_ns > built:
                return False
        except FileNotFoundError:  # removed since it was listed (a document forgotten): not newer
            continue
    return True


def connect(wh: Warehouse, *, external: bool = False) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the catalog.

    Unless ``external``, it reaches no file but the warehouse's Parquet partitions, which its views read:
    DuckDB's external access is off with exactly the tables' directory allowed, extensions are neither
    installed nor loaded on demand, and the configuration is locked, so no statement can widen it again
    (``read_text('/etc/passwd')``, ``ATTACH``, ``COPY ... TO`` elsewhere, ``INSTALL`` fail). DuckDB allows
    a directory for writing as well as reading, and its views need the directory (they read globs), so
    what keeps a statement from writing there is :func:`query`'s check that it reads
    (warehouse/reading.py): a caller that runs its own SQL on this connection checks it first.
    """
    if not wh.catalog_path.exists():
        raise CatalogMissing(
            f"no catalog at {wh.catalog_path}: run `assay run PATH` first (or pass the --home you used)"
        )
    config = {} if external else {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    try:
        con = duckdb.connect(str(wh.catalog_path), read_only=True, config=config)
    except duckdb.Error as exc:
        raise WarehouseError(f"could not open the catalog {wh.catalog_path}: {exc}") from exc
    if not external:
        try:
            # Allowed directories can only be set while external access is on; then it goes off for good.
            con.execute(f"SET allowed_directories = [{sql_string(str(wh.data_dir) + os.sep)}]")
            con.execute("SET enable_external_access = false")
            con.execute("SET lock_configuration = true")
        except duckdb.Error as exc:
            con.close()
            raise WarehouseError(f"could not open the catalog {wh.catalog_path} read-only: {exc}") from exc
    return con


def query(
    wh: Warehouse,
    sql: str,
    params: list[Any] | None = None,
    *,
    external: bool = False,
    limit: int | None = None,
    timeout: float | None = None,
    arrow: bool = False,
) -> QueryResult:
    """Run one query against the catalog, read-only; unless ``external``, a query that would reach
    another file than the warehouse's tables, or that is not a reading statement (warehouse/reading.py),
    is refused. At most ``limit`` rows are fetched (``truncated`` says whether there were more); a query
    still running after ``timeout`` seconds is stopped with an error saying so. Ctrl-C stops the query
    and raises KeyboardInterrupt. ``arrow``: the rows are fetched as an Arrow table (``table``), columnar
    from DuckDB without a Python object per value."""
    if not external:
        require_reading(sql)
    con = connect(wh, external=external)
    stopper = QueryStopper(con, timeout)
    try:
        with stopper:
            if arrow:
                result = _arrow_result(con, sql, params, limit)
            else:
                cur = con.execute(sql, params or [])
                columns = [d[0] for d in cur.description] if cur.description else []
                if not columns:
                    result = QueryResult(columns, [])
                elif limit is None:
                    result = QueryResult(columns, cur.fetchall())
                else:
                    rows = cur.fetchmany(limit + 1)
                    result = QueryResult(columns, rows[:limit], truncated=len(rows) > limit)
        if stopper.signalled:
            raise KeyboardInterrupt("the query was interrupted")
        return result
    except (duckdb.InterruptException, RuntimeError) as exc:
        if stopper.signalled or str(exc) == _INTERRUPTED:
            raise KeyboardInterrupt("the query was interrupted") from exc
        if stopper.timed_out:
            raise QueryTimeout(
                f"the query ran past its time limit of {timeout:g} s and was stopped: narrow it, or give "
                "it more time with --timeout SECONDS (0: no limit)"
            ) from exc
        if isinstance(exc, duckdb.Error):
            raise WarehouseError(f"query failed: {exc}") from exc
        raise
    except duckdb.PermissionException as exc:
        raise WarehouseError(
            f"the query reaches outside the warehouse ({_first_line(exc)}): queries read the catalog's "
            "tables only; pass --allow-external to let one read or write other files"
        ) from exc
    except duckdb.CatalogException as exc:
        if "does not exist" not in str(exc):
            raise WarehouseError(f"query failed: {exc}") from exc
        names = [r[0] for r in con.execute(_OWN_TABLES).fetchall()]
        raise WarehouseError(
            f"query failed: {_first_line(exc)}\nthe catalog's tables and views: {', '.join(names)} "
            "(each with all_<name> for every extractor version; docs/tables.md says what they hold)"
        ) from exc
    except duckdb.Error as exc:
        raise WarehouseError(f"query failed: {exc}") from exc
    finally:
        con.close()


#: What DuckDB's Python client raises (as a RuntimeError) when a signal comes while a query runs.
_INTERRUPTED = "Query interrupted"

#: The catalog's own tables and views, for the message about one that does not exist.
_OWN_TABLES = """
select table_name from information_schema.tables
where table_schema = 'main' and table_name not like 'all\\_%' escape '\\' order by table_name
"""


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
