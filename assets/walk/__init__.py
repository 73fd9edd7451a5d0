"""The walk stage: its declaration (``declaration``) and the Dagster asset (``asset``)."""
