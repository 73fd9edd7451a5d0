"""Imported last by the read workers' fork server: what it has loaded is frozen before it forks a worker.

A worker forked after the freeze inherits the frozen generation and its cached call of
:func:`~readers.core.base.freeze_long_lived`, so its collector never walks the fork server's objects: a
walk writes into every object it visits, which would turn the memory pages the worker shares with the
fork server into private copies (Python's ``gc.freeze`` documentation recommends freezing before a fork
for this). ``multiprocessing`` takes preloads as module names, so the freeze is this module's import.
"""

from readers.core.base import freeze_long_lived

freeze_long_lived()
