"""The sanitize stage: its declaration and rule (``declaration``) and the Dagster asset (``asset``)."""
