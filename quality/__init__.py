"""Signals, verdict rules and checks: pure Python over what the readers report (no Dagster import)."""
