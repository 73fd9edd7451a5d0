"""The stages as software-defined assets. Each module reads as the story of its stage; the work itself is
done by plain functions in ``readers/`` and ``quality/``, the storage by ``warehouse/``."""

import readers  # noqa: F401  (first: keeps the process off the network, readers/core/offline.py)
