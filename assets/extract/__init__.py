"""The extract stage: its declaration and rule (``declaration``), the Dagster asset (``asset``) and its
plain work over one shard (``work``)."""
