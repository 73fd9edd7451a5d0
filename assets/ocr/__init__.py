"""The OCR stage: its declaration and rule (``declaration``), the Dagster asset (``asset``), its plain
work over shards (``work``), the pages the engines read (``page_reading``), the engines and which pages the
second reads (``engines``), and what is sent to OCR (``scope``)."""
