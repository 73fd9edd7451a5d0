"""The verdicts stage: its declaration and rule (``declaration``), the Dagster asset (``asset``), its plain
work over stored rows (``judging``) and what it reads of a document's file again (``file_work``)."""
