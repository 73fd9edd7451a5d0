"""What a table's column is, declared once, on the field of the row dataclass that the stages write.

Each row record (``readers/core/records.py``, ``quality/records.py``) is one table's row, and each of its
fields is one column: its Python type gives the column's type and whether it may be null (``X | None``),
and its ``Annotated`` metadata gives the rest::

    sha256: Annotated[str, KEY, Doc("sha256 of the document's bytes: the document's identity")]
    ratio: Annotated[float, Doc("share of ..."), Between(0, 1)]
    kind: Annotated[str, Doc("content kind"), OneOf.of(ContentKind)]

From these, ``warehouse/schema.py`` derives the table's Arrow schema (and ``docs/tables.md``), and
``quality/contracts.py`` the table's contract: the key columns never null and unique together, the other
fields without a default never null (a field with a default is one a later version added: rows written
before it read back null), the bounds and the enumerations. Nothing here imports more than the standard
library, so every layer can declare rows with it.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any

__all__ = ["KEY", "UNIQUE", "Annotated", "Between", "Doc", "Field", "OneOf", "fields_of"]


@dataclass(frozen=True, slots=True)
class Doc:
    """What the column means, as ``docs/tables.md`` and the UI's column schema say it."""

    text: str


@dataclass(frozen=True, slots=True)
class Between:
    """The column's values, when present, lie in [low, high] (no upper bound when ``high`` is None)."""

    low: float
    high: float | None = None


@dataclass(frozen=True, slots=True)
class OneOf:
    """The column's values, when present, are among ``values``."""

    values: tuple[str, ...]

    @classmethod
    def of(cls, *enums: type[Enum]) -> OneOf:
        """The values of every member of ``enums``, sorted."""
        return cls(tuple(sorted(str(m.value) for enum in enums for m in enum)))

    @classmethod
    def members(cls, *members: Enum) -> OneOf:
        """The values of ``members`` (some of an enumeration's), sorted."""
        return cls(tuple(sorted(str(m.value) for m in members)))


@dataclass(frozen=True, slots=True)
class _Marker:
    name: str


#: The column is part of the row's key: never null, and the key columns are unique together.
KEY = _Marker("key")
#: The column is unique on its own (besides the key).
UNIQUE = _Marker("unique")


@dataclass(frozen=True, slots=True)
class Field:
    """One column as a row record declares it."""

    name: str
    type: Any  # the Python type without None: str, int, float, bool, datetime, list[str], list[int]
    nullable: bool
    has_default: bool
    doc: str
    key: bool = False
    unique: bool = False
    between: Between | None = None
    one_of: OneOf | None = None

    @property
    def required(self) -> bool:
        """Never null in a stored row: a key column, or one declared without None and without a default."""
        return self.key or not (self.nullable or self.has_default)


def fields_of(record: type) -> tuple[Field, ...]:
    """The columns of the row dataclass ``record``, in field order.

    Raises TypeError when a field has no ``Doc``: every column says what it means."""
    hints = typing.get_type_hints(record, include_extras=True)
    out: list[Field] = []
    for f in dataclasses.fields(record):
        hint = hints[f.name]
        extras: tuple[Any, ...] = ()
        if typing.get_origin(hint) is Annotated:
            hint, *rest = typing.get_args(hint)
            extras = tuple(rest)
        python_type, nullable = _without_none(hint)
        docs = [e.text for e in extras if isinstance(e, Doc)]
        if not docs:
            raise TypeError(f"{record.__name__}.{f.name} has no Doc: say what the column means")
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        out.append(
            Field(
                name=f.name,
                type=python_type,
                nullable=nullable,
                has_default=has_default,
                doc=docs[-1],
                key=KEY in extras,
                unique=UNIQUE in extras,
                between=next((e for e in extras if isinstance(e, Between)), None),
                one_of=next((e for e in extras if isinstance(e, OneOf)), None),
            )
        )
    return tuple(out)


def _without_none(hint: Any) -> tuple[Any, bool]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0], len(args) < len(typing.get_args(hint))
    return hint, False
