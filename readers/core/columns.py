"""What a table's column is, declared once, on the field of the row dataclass that the stages write.

Each row record (``readers/core/reading_records.py``, ``quality/records.py``) is one table's row, and each
of its
fields is one column: its Python type gives the column's type and whether it may be null (``X | None``),
and its ``Annotated`` metadata gives the rest::

    sha256: Annotated[str, KEY, Doc("sha256 of the document's bytes: the document's identity")]
    size: Annotated[int, Doc("size in bytes"), Between(0)]
    score: Annotated[Ratio | None, Doc("share of ...")]     # a shared domain (Ratio, Percent, Count...)
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
from typing import Annotated, Any, TypeVar

_M = TypeVar("_M")

__all__ = [
    "KEY",
    "UNIQUE",
    "Annotated",
    "Between",
    "Count",
    "Doc",
    "Field",
    "OneOf",
    "PageNumber",
    "Percent",
    "Ratio",
    "fields_of",
]


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
        return cls.members(*(m for enum in enums for m in enum))

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

# The domains the tables' columns share (a use adds its Doc, and may be ``X | None``).
#: A share or a rate.
Ratio = Annotated[float, Between(0, 1)]
#: Tesseract's word confidences.
Percent = Annotated[float, Between(0, 100)]
#: A count, a size or an offset.
Count = Annotated[int, Between(0)]
#: A page (or an image's frame).
PageNumber = Annotated[int, Doc("page number, 1-based"), Between(1)]


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
        python_type, nullable, extras = _unwrap(hints[f.name])
        doc = _last(extras, Doc)
        if doc is None:
            raise TypeError(f"{record.__name__}.{f.name} has no Doc: say what the column means")
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        out.append(
            Field(
                name=f.name,
                type=python_type,
                nullable=nullable,
                has_default=has_default,
                doc=doc.text,
                key=KEY in extras,
                unique=UNIQUE in extras,
                between=_last(extras, Between),
                one_of=_last(extras, OneOf),
            )
        )
    return tuple(out)


def _unwrap(hint: Any) -> tuple[Any, bool, tuple[Any, ...]]:
    """The type under ``Annotated`` and ``| None``, whether it may be None, and the metadata, innermost
    first (so that ``Annotated[Ratio | None, Doc(...)]`` keeps the ratio's bounds)."""
    extras: tuple[Any, ...] = ()
    nullable = False
    while True:
        if typing.get_origin(hint) is Annotated:
            hint, *inner = typing.get_args(hint)
            extras = (*inner, *extras)  # what this layer wraps is inner to what was peeled before
            continue
        if typing.get_origin(hint) in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(hint) if a is not type(None)]
            if len(args) == 1:
                hint, nullable = args[0], True
                continue
        return hint, nullable, extras


def _last(extras: tuple[Any, ...], kind: type[_M]) -> _M | None:
    """The outermost of ``extras`` of ``kind``: an alias's metadata is overridden where it is used."""
    found = [e for e in extras if isinstance(e, kind)]
    return found[-1] if found else None
