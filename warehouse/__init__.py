"""Storage: Parquet per table, extractor version and shard, and the DuckDB catalog of views on top.

The only package that knows where files live and how DuckDB is opened. It imports no reader: stages hand
it rows (dataclasses) and it checks them against the declared table schemas.
"""

from warehouse.store import Warehouse

__all__ = ["Warehouse"]
