"""The verdicts stage: the Dagster asset (``asset``) and its plain work over stored rows (``judging``)."""
