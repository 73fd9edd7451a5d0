"""assay: orchestration."""

import readers  # noqa: F401  (first: keeps the process off the network, readers/core/offline.py)
