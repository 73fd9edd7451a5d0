"""The table contract checks (quality/contracts.py) as Dagster asset checks: one per table a stage writes,
named ``<table>_contract``, evaluated on the rows of the shards the run wrote.

A null or duplicated key, or a value outside its set or range, is an ERROR: the rows break a promise every
later stage and every SQL query relies on. The checks do not block (the stage's rows are written and
the next stage may run); the check's metadata names the failed expectations with their counts and a few
offending values, and `assay ui` shows them in red.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dagster as dg
import pyarrow as pa

from quality.contracts import ContractError, ContractResult, validate
from warehouse import Warehouse
from warehouse.schema import TABLES, contract_for


def contract_check_name(table: str) -> str:
    return f"{table}_contract"


def contract_check_specs(asset: str, tables: Sequence[str]) -> list[dg.AssetCheckSpec]:
    specs = []
    for table in tables:
        contract = contract_for(table)
        domains = [*(b.column for b in contract.bounded), *(e.column for e in contract.enumerated)]
        specs.append(
            dg.AssetCheckSpec(
                contract_check_name(table),
                asset=asset,
                description=f"The {table} rows this run wrote keep their contract: "
                f"key ({', '.join(contract.key)}) present and unique"
                + (f"; {', '.join(domains)} within their ranges and sets" if domains else "")
                + ". Fails (ERROR) on any violation.",
            )
        )
    return specs


def contract_check_result(
    asset: str, table: str, rows: pa.Table | Sequence[Any], shards: Sequence[str] = ()
) -> dg.AssetCheckResult:
    """The check of ``rows`` (an Arrow table or row dataclasses) against ``table``'s contract. A contract
    that could not be evaluated fails the check with the reason, not the stage."""
    name = contract_check_name(table)
    if len(rows) == 0:
        # Nothing written: no rows can break the contract (an unchanged walk).
        return dg.AssetCheckResult(
            asset_key=asset,
            check_name=name,
            passed=True,
            severity=dg.AssetCheckSeverity.ERROR,
            metadata={
                "rows_validated": 0,
                "shards": len(shards),
                "note": "no rows written: nothing to check",
            },
        )
    try:
        result = validate(contract_for(table), rows)
    except ContractError as exc:
        return dg.AssetCheckResult(
            asset_key=asset,
            check_name=name,
            passed=False,
            severity=dg.AssetCheckSeverity.ERROR,
            metadata={"error": str(exc), "shards": len(shards)},
        )
    return dg.AssetCheckResult(
        asset_key=asset,
        check_name=name,
        passed=result.success,
        severity=dg.AssetCheckSeverity.ERROR,
        metadata=_metadata(result, shards),
    )


def changed_shards_check_result(
    asset: str, table: str, rows: Sequence[Any], previous: Sequence[Any]
) -> dg.AssetCheckResult:
    """The check of the rows of the shards whose rows differ from ``previous`` (what was on disk before
    the run): the shards the run wrote. Row dataclasses with a ``shard`` field."""
    now, before = _by_shard(rows), _by_shard(previous)
    changed = sorted(s for s in now if now[s] != before.get(s))
    return contract_check_result(asset, table, [r for s in changed for r in now[s]], changed)


def _by_shard(rows: Sequence[Any]) -> dict[str, list[Any]]:
    grouped: dict[str, list[Any]] = {}
    for row in rows:
        grouped.setdefault(row.shard, []).append(row)
    return grouped


def contract_check_results(
    asset: str, tables: Sequence[str], wh: Warehouse, version: str, shards: Sequence[str]
) -> list[dg.AssetCheckResult]:
    """One check per table over the ``shards`` partitions of ``version`` the run wrote, reading only the
    columns the contracts name (no page text is read)."""
    results = []
    for table in tables:
        columns = contract_for(table).columns
        parts = [wh.read(table, version, shard, columns) for shard in shards]
        rows = pa.concat_tables(parts) if parts else TABLES[table].empty().select(list(columns))
        results.append(contract_check_result(asset, table, rows, shards))
    return results


def _metadata(result: ContractResult, shards: Sequence[str]) -> dict[str, Any]:
    return {
        "rows_validated": result.rows,
        "shards": len(shards),
        "expectations_evaluated": len(result.outcomes),
        "expectations_failed": len(result.failed),
        "failed": [
            {
                "expectation": o.expectation,
                "columns": list(o.columns),
                "unexpected_count": o.unexpected_count,
                "examples": list(o.examples),
                **({"error": o.error} if o.error else {}),
            }
            for o in result.failed
        ],
        "seconds": result.seconds,
    }
