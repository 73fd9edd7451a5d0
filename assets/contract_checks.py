"""The table contract checks as Dagster asset checks: one per table a stage writes, named
``<table>_contract`` on the stage's asset, validated by Great Expectations once per run on the partitions
written since they were last validated (assets/data_quality.py).

A null or duplicated key, or a value outside its set or range, is an ERROR: the rows break a promise every
later stage and every SQL query relies on. The checks do not block; the check's metadata names the failed
expectations with GX's counts and a few unexpected values, and the Data Docs page of the validation.
"""

from __future__ import annotations

import dagster as dg

from warehouse.schema import contract_for


def contract_check_name(table: str) -> str:
    return f"{table}_contract"


def contract_check_spec(asset: str, table: str) -> dg.AssetCheckSpec:
    contract = contract_for(table)
    domains = [*(b.column for b in contract.bounded), *(e.column for e in contract.enumerated)]
    return dg.AssetCheckSpec(
        contract_check_name(table),
        asset=asset,
        description=f"The {table} rows written since the last validation keep their contract "
        f"(the GX suite quality/suites/{contract_check_name(table)}.json): "
        f"key ({', '.join(contract.key)}) present and unique"
        + (f"; {', '.join(domains)} within their ranges and sets" if domains else "")
        + ". Fails (ERROR) on any violation.",
    )
