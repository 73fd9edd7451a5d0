"""assay: orchestration."""

import readers  # noqa: F401  (first: keeps the process off the network, readers/offline.py)
