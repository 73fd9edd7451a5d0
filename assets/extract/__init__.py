"""The extract stage: the Dagster asset (``asset``) and its plain work over one shard (``shard``)."""
