"""Errors raised by the warehouse, translated from pyarrow and DuckDB where they enter."""

from readers.core.errors import AssayError


class WarehouseError(AssayError):
    """Reading or writing the warehouse failed; the message says which file or query."""


class SchemaMismatch(WarehouseError):
    """Rows handed to the warehouse do not match the table's declared columns."""


class CatalogMissing(WarehouseError):
    """No catalog yet: nothing has been run with this home directory."""


class QueryTimeout(WarehouseError):
    """A query of the catalog ran past the time limit it was given and was stopped."""
