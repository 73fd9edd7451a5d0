"""The stages as software-defined assets, one folder each: its declaration (``declaration.py``, found by
``stages.py``), its Dagster asset (``asset.py``) and its plain work over shards. The text logic the stages
share is in ``readers/`` and ``quality/``, the storage in ``warehouse/``; what must run where is the
planner's (``planner.py``)."""

import readers  # noqa: F401  (first: keeps the process off the network, readers/core/offline.py)
