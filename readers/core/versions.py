"""The extractor version: one string, bumped whenever a reader, signal or verdict rule changes what it
would write. It is every extract-stage asset's ``code_version``, a column of every row and a path level of
every Parquet file (docs/design.md §2)."""

EXTRACTOR_VERSION = "2026.12.6"

#: The version of the page signals measured during extract (quality/document_signals.py): part of every reader
#: chain's signature, so that rows carried over to a new extractor version were computed by the same
#: signal code.
SIGNALS_VERSION = "2"
