"""The OCR stage: the Dagster asset (``asset``), its plain work over shards (``shard``) and the pages
Tesseract reads (``work``)."""
