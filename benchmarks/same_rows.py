"""Whether two assay homes hold the same rows: every table's columns (name and type) and every row,
compared after leaving out what differs from run to run by design.

Left out: the timing columns (``*_seconds``, ``*_at``, ``*_ms``, ``seconds``, ``mtime_ns``), the
``model_ms=`` figure inside ``pages.structure_why``, and each home's own path (written as ``<HOME>``).
The layout model's per-page time budget makes which pages it reads depend on the machine's load: for a
comparison of two versions of the code, run both with the budget lifted, e.g. a ``sitecustomize.py`` on
``PYTHONPATH`` that sets ``readers.pdf.layout_model.PAGE_BUDGET_SECONDS`` high.

    .venv/bin/python benchmarks/same_rows.py HOME_BEFORE HOME_AFTER [--keep DIR]

Prints each table that differs (its rows only on one side, a few of each) and ``identical`` or
``different``; exits 1 when they differ.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import duckdb

TIMING = {"seconds", "mtime_ns"}
TIMING_SUFFIXES = ("_seconds", "_at", "_ms")
SHOWN = 2  # rows shown of each side of a table that differs


def table_rows(home: Path) -> dict[str, tuple[list[tuple[str, str]], list[str]]]:
    """Each table of ``home``'s warehouse: its columns (name, type) and its rows as sorted JSON lines."""
    con = duckdb.connect()
    found: dict[str, tuple[list[tuple[str, str]], list[str]]] = {}
    for table in sorted((home / "warehouse" / "tables").iterdir()):
        files = sorted(str(p) for p in table.rglob("*.parquet") if not p.name.startswith("compact-"))
        if not files:
            found[table.name] = ([], [])
            continue
        source = f"read_parquet({files!r}, hive_partitioning=true, union_by_name=true)"
        described = con.execute(f"select * from {source} limit 0").description
        columns = [(d[0], str(d[1])) for d in described]
        kept = [c for c, _ in columns if c not in TIMING and not c.endswith(TIMING_SUFFIXES)]
        selected = ", ".join(f'"{c}"' for c in kept)
        rows = con.execute(f"select {selected} from {source}").fetchall()
        text = [json.dumps(r, default=str, sort_keys=True).replace(str(home), "<HOME>") for r in rows]
        found[table.name] = (columns, sorted(re.sub(r"model_ms=\d+", "model_ms=N", t) for t in text))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    before, after = table_rows(args.before), table_rows(args.after)
    same = True
    for table in sorted(set(before) | set(after)):
        if table not in before or table not in after:
            print(f"{table}: only in {'after' if table in after else 'before'}")
            same = False
            continue
        (columns_a, rows_a), (columns_b, rows_b) = before[table], after[table]
        if columns_a != columns_b:
            print(f"{table}: columns differ: {sorted(set(columns_a) ^ set(columns_b))}")
            same = False
        if rows_a != rows_b:
            gone, new = sorted(set(rows_a) - set(rows_b)), sorted(set(rows_b) - set(rows_a))
            print(
                f"{table}: {len(rows_a)} rows before, {len(rows_b)} after; {len(gone)} only before, "
                f"{len(new)} only after"
            )
            for row in gone[:SHOWN]:
                print(f"  - {row[:300]}")
            for row in new[:SHOWN]:
                print(f"  + {row[:300]}")
            same = False
        else:
            print(f"{table}: {len(rows_a)} rows, {len(columns_a)} columns, the same")
    print("identical" if same else "different")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
