"""The vocabulary stage: its declaration (``declaration``) and the Dagster asset (``asset``)."""
