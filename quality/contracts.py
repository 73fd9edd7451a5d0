"""The table contracts as data: what each table's rows promise, derived from the fields of its row record.

Each stage's table promises the same few things whatever the corpus: its key columns are present and
unique together, its ratios lie in [0, 1] (confidences in [0, 100]), and its modes, statuses, sources and
kinds are values of the project's enumerations. Each is derived from the fields of the table's row record
(:meth:`TableContract.of`; readers/core/columns.py says how a field declares its key, its bounds and its
values), where the column's type and meaning are declared too: a new column is one field.

A contract becomes a Great Expectations suite (quality/expectations.py), committed as JSON in
quality/suites/ and validated by GX once per run (assets/data_quality.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from readers.core.columns import Field


class ContractError(Exception):
    """A table has no contract."""


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
