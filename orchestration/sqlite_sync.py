"""Dagster's SQLite storage under an assay home, committed without waiting for the disk.

Dagster's SQLite event log commits every event on a connection of its own, and SQLite's default
(``synchronous=FULL``) waits for the disk on each commit. A stage over a range of shards logs three
events per shard, so those waits were a third of Dagster's cost per shard: a step logging 64 shards'
events took 2.7-3.3 s, and 1.7-2.1 s with ``synchronous=OFF`` (docs/decisions.md; ``benchmarks/record.py``
section 5 measures the pipeline's).

``OFF`` hands each write to the operating system and goes on. A process that is killed loses nothing the
operating system was given (the SIGKILL tests kill ``assay run`` mid-stage); an operating system crash or
a power cut during a run may leave the run history damaged. That history is a record of runs, not the
data: the warehouse's Parquet files are written with their own fsync and rename, and the planner reads
them, not Dagster. The setting applies to the SQLite files under the home given, in this process only
(``assay run``'s own runs); the daemon and the web UI, and a Postgres instance, are left as they are.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import sqlalchemy
from sqlalchemy.engine import Engine

#: The Dagster homes (real paths, each ending in a separator) whose SQLite files are committed unsynced.
_HOMES: set[str] = set()


def commit_without_sync(dagster_home: Path) -> None:
    """From now on in this process, SQLite connections that SQLAlchemy opens on files under
    ``dagster_home`` use ``PRAGMA synchronous=OFF``."""
    if not sqlalchemy.event.contains(Engine, "connect", _on_connect):
        sqlalchemy.event.listen(Engine, "connect", _on_connect)
    _HOMES.add(os.path.join(os.path.realpath(dagster_home), ""))


def _on_connect(dbapi_connection: Any, _record: Any) -> None:
    if not isinstance(dbapi_connection, sqlite3.Connection):
        return
    cursor = dbapi_connection.cursor()
    try:
        databases = cursor.execute("PRAGMA database_list").fetchall()
        main = next((row[2] for row in databases if row[1] == "main" and row[2]), None)
        if main is not None and os.path.realpath(main).startswith(tuple(_HOMES)):
            cursor.execute("PRAGMA synchronous=OFF")
    finally:
        cursor.close()
