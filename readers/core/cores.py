"""How many cores this process may use: the size of every pool of CPU-bound workers (readers, Tesseract)."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on (its affinity, which a container or ``taskset`` narrows), at
    least one."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)
