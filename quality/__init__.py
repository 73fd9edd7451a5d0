"""Signals, verdict rules and checks: pure Python over what the readers report (no Dagster import)."""

import readers  # noqa: F401  (first: keeps the process off the network, readers/core/offline.py)
