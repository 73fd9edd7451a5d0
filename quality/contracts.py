"""The table contracts as data, checked with Arrow compute on the rows a stage wrote.

Each stage's table promises the same few things whatever the corpus: its key columns are present and
unique together, its ratios lie in [0, 1] (confidences in [0, 100]), and its modes, statuses, sources and
kinds are values of the project's enumerations. Each is derived from the fields of the table's row record
(:meth:`TableContract.of`; readers/core/columns.py says how a field declares its key, its bounds and its
values), where the column's type and meaning are declared too: a new column is one field.

Each contract is a list of expectations named and meant as Great Expectations' are
(``expect_column_values_to_not_be_null``, ``..._to_be_unique``, ``expect_compound_columns_to_be_unique``,
``..._to_be_between``, ``..._to_be_in_set``), evaluated by pyarrow's compute functions on the rows of the
shards a run wrote. GX itself ran them until importing it (5.6-6.4 s per process) became most of a small
run's time; the same checks in Arrow take about a millisecond per shard and import nothing
(docs/decisions.md, "Contracts are data").
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from readers.core.columns import Field

# Offending values kept per failed expectation: enough to recognise the fault in the check's metadata,
# few enough that a shard full of bad rows does not bloat the event log: the distinct values among the
# first EXAMPLES_SCANNED offending rows, in row order (GX's BASIC result format did the same).
EXAMPLES_KEPT = 5
EXAMPLES_SCANNED = 20


class ContractError(Exception):
    """A contract could not be evaluated: the table has no contract, or its rows are not a table."""


@dataclass(frozen=True, slots=True)
class Bounded:
    """A numeric column whose values, when present, lie in [low, high] (no upper bound when None)."""

    column: str
    low: float
    high: float | None


@dataclass(frozen=True, slots=True)
class Enumerated:
    """A column whose values, when present, are among ``values`` (an enumeration's values)."""

    column: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TableContract:
    """What one table's rows promise.

    ``key``: the columns that identify a row, never null and unique together; ``required``: other columns
    never null; ``unique``: columns unique on their own besides the key; ``bounded`` and ``enumerated``:
    value domains (nulls are allowed there unless the column is also required)."""

    table: str
    key: tuple[str, ...]
    required: tuple[str, ...] = ()
    unique: tuple[str, ...] = ()
    bounded: tuple[Bounded, ...] = ()
    enumerated: tuple[Enumerated, ...] = ()

    @classmethod
    def of(cls, table: str, fields: Sequence[Field]) -> TableContract | None:
        """The contract the fields of ``table``'s row record declare; None when none is a key column.

        The key columns in field order; required: the other fields declared without None and without a
        default (a field with a default is one a later version added, null in rows written before it)."""
        key = tuple(f.name for f in fields if f.key)
        if not key:
            return None
        return cls(
            table,
            key=key,
            required=tuple(f.name for f in fields if f.required and not f.key),
            unique=tuple(f.name for f in fields if f.unique),
            bounded=tuple(Bounded(f.name, f.between.low, f.between.high) for f in fields if f.between),
            enumerated=tuple(Enumerated(f.name, f.one_of.values) for f in fields if f.one_of),
        )

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column the contract reads, in first-mention order."""
        names = [
            *self.key,
            *self.required,
            *self.unique,
            *(b.column for b in self.bounded),
            *(e.column for e in self.enumerated),
        ]
        return tuple(dict.fromkeys(names))


@dataclass(frozen=True, slots=True)
class ExpectationOutcome:
    """One expectation's verdict on the rows.

    ``expectation`` is the expectation's name, as Great Expectations names it
    (``expect_column_values_to_be_in_set``...); ``examples`` are a few distinct offending values (None
    for a null, a column-to-value mapping for a composite key); ``error`` says why the expectation could
    not be evaluated (a missing column)."""

    expectation: str
    columns: tuple[str, ...]
    success: bool
    unexpected_count: int
    examples: tuple[Any, ...] = ()
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ContractResult:
    table: str
    rows: int
    outcomes: tuple[ExpectationOutcome, ...]
    seconds: float

    @property
    def success(self) -> bool:
        return all(o.success for o in self.outcomes)

    @property
    def failed(self) -> tuple[ExpectationOutcome, ...]:
        return tuple(o for o in self.outcomes if not o.success)


def validate(contract: TableContract, rows: pa.Table | Sequence[Any]) -> ContractResult:
    """Check ``rows`` (an Arrow table, or row dataclasses) against ``contract`` (a table's, from
    ``warehouse.schema.contract_for``).

    Only the columns the contract reads are looked at. A column the rows lack fails the expectations on
    it (the reason in ``error``); rows that cannot be made into a table raise :class:`ContractError`."""
    data = _arrow(contract, rows)
    started = time.perf_counter()
    outcomes = tuple(
        _evaluate(expectation, columns, data, check)
        for expectation, columns, check in _expectations(contract)
    )
    return ContractResult(contract.table, data.num_rows, outcomes, round(time.perf_counter() - started, 4))


def _arrow(contract: TableContract, rows: pa.Table | Sequence[Any]) -> pa.Table:
    """The contract's columns of ``rows`` as an Arrow table (those the rows have)."""
    if isinstance(rows, pa.Table):
        return rows.select([c for c in contract.columns if c in rows.column_names])
    columns = [c for c in contract.columns if all(hasattr(r, c) for r in rows)]
    try:
        return pa.table({c: [getattr(r, c) for r in rows] for c in columns})
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise ContractError(f"{contract.table}: the rows are not a table: {exc}") from exc


# -- the expectations, in Arrow compute -------------------------------------------------------------------
#
# Each expectation keeps Great Expectations' name and meaning (docs/decisions.md: the contracts once ran
# as GX suites), so a check's metadata reads the same: the rows that break it are counted, nulls (and NaN,
# a missing float) count only against ``not_null``, and a row of a duplicated value or key counts each
# time it occurs. Each check returns the mask of the offending rows.

_Check = Callable[[pa.Table, tuple[str, ...]], pa.Array]
_ROW = "__row"


def _missing(column: pa.ChunkedArray) -> pa.ChunkedArray:
    return pc.is_null(column, nan_is_null=True)


def _not_null(data: pa.Table, columns: tuple[str, ...]) -> pa.ChunkedArray:
    return _missing(data[columns[0]])


def _duplicated(data: pa.Table, columns: tuple[str, ...]) -> pa.ChunkedArray:
    """Rows whose value (one column) or key (several: rows with every key column missing are left out,
    as GX does) occurs more than once among the rows where it is present."""
    present = [pc.invert(_missing(data[c])) for c in columns]
    keep = present[0]
    for mask in present[1:]:
        keep = pc.or_(keep, mask)
    index = pa.array(range(data.num_rows), pa.int64())
    indexed = data.select(list(columns)).append_column(_ROW, index).filter(keep)
    counts = indexed.group_by(list(columns), use_threads=False).aggregate([(_ROW, "count")])
    repeated = counts.filter(pc.greater(counts[f"{_ROW}_count"], 1)).drop_columns([f"{_ROW}_count"])
    rows = indexed.join(repeated, keys=list(columns), join_type="inner", use_threads=False)[_ROW]
    return pc.is_in(index, value_set=rows.combine_chunks())


def _between(low: float, high: float | None) -> _Check:
    def check(data: pa.Table, columns: tuple[str, ...]) -> pa.ChunkedArray:
        column = data[columns[0]]
        outside = pc.less(column, low)
        if high is not None:
            outside = pc.or_kleene(outside, pc.greater(column, high))
        return pc.and_kleene(pc.fill_null(outside, False), pc.invert(_missing(column)))

    return check


def _in_set(values: tuple[str, ...]) -> _Check:
    def check(data: pa.Table, columns: tuple[str, ...]) -> pa.ChunkedArray:
        column = data[columns[0]]
        allowed = pc.is_in(column.cast(pa.string()), value_set=pa.array(values, pa.string()))
        return pc.and_(pc.invert(allowed), pc.invert(_missing(column)))

    return check


def _expectations(contract: TableContract) -> list[tuple[str, tuple[str, ...], _Check]]:
    out: list[tuple[str, tuple[str, ...], _Check]] = [
        ("expect_column_values_to_not_be_null", (c,), _not_null) for c in (*contract.key, *contract.required)
    ]
    if len(contract.key) == 1:
        out.append(("expect_column_values_to_be_unique", contract.key, _duplicated))
    else:
        out.append(("expect_compound_columns_to_be_unique", contract.key, _duplicated))
    out += [("expect_column_values_to_be_unique", (c,), _duplicated) for c in contract.unique]
    out += [
        ("expect_column_values_to_be_between", (b.column,), _between(b.low, b.high)) for b in contract.bounded
    ]
    out += [
        ("expect_column_values_to_be_in_set", (e.column,), _in_set(e.values)) for e in contract.enumerated
    ]
    return out


def _evaluate(
    expectation: str, columns: tuple[str, ...], data: pa.Table, check: _Check
) -> ExpectationOutcome:
    absent = [c for c in columns if c not in data.column_names]
    if absent:
        error = f"column {', '.join(repr(c) for c in absent)} is not among the rows' columns"
        return ExpectationOutcome(expectation, columns, False, 0, error=error)
    if data.num_rows == 0:
        return ExpectationOutcome(expectation, columns, True, 0)
    try:
        mask = check(data, columns)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
        return ExpectationOutcome(expectation, columns, False, 0, error=f"could not be evaluated: {exc}")
    offending = data.select(list(columns)).filter(mask)
    distinct: dict[str, Any] = {}
    for row in offending.slice(0, EXAMPLES_SCANNED).to_pylist():
        example = _plain(row[columns[0]]) if len(columns) == 1 else {c: _plain(row[c]) for c in columns}
        distinct.setdefault(repr(example), example)
    examples = tuple(distinct.values())[:EXAMPLES_KEPT]
    count = offending.num_rows
    return ExpectationOutcome(expectation, columns, count == 0, count, examples)


def _plain(value: Any) -> Any:
    """An offending value as plain JSON-able Python: NaN (a missing float) as None, others as text."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
