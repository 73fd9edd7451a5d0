"""assay reads documents without talking to the network and without writing outside its home.

Some libraries it uses report on themselves unless told not to, and one does it merely on import:

- PyMuPDF 2.0 imports its optional layout package (``pymupdf.layout``, installed as ``pymupdf-layout``
  beside ``pymupdf4llm``) from its own ``__init__``; that package loads an ONNX model at import, and
  ONNX Runtime's 1DS telemetry then starts a few seconds later: DNS queries for
  ``mobile.events.data.microsoft.com`` and a device id and an event queue written to
  ``~/.cache/Microsoft/DeveloperTools/.onnxruntime/``. assay never uses the layout model (its PDF reader
  finds tables and reading order itself: ``readers/pdf/tables.py``), so the two modules that bring it in
  are made unimportable before PyMuPDF is first imported: PyMuPDF catches the ImportError and goes on
  without them (and starts about 3 s and 100 MB sooner per process). ``ORT_DISABLE_TELEMETRY=1`` keeps
  ONNX Runtime quiet should anything load it anyway.
- Dagster's usage statistics: ``telemetry: enabled: false`` in ``dagster.yaml`` (and in the production
  instance file), and ``DAGSTER_DISABLE_TELEMETRY`` for instances that have no file.

Importing the ``readers`` package calls :func:`keep_offline`, so every entry point that reads a document
(``assay run`` and its Dagster runs, the reader workers the fork server starts, ``assay check``, the
benchmarks, the tests) has done it before PyMuPDF is imported; ``orchestration``, ``assets`` and
``quality`` import ``readers`` first for the same reason. The variables are inherited by every process
assay starts. ``tests/test_offline.py`` runs ``assay run`` under ``strace`` and fails on any socket
that leaves the machine.
"""

from __future__ import annotations

import os
import sys

#: Set in the environment of this process and so of every process it starts (overriding what was there:
#: the promise is that reading never reaches the network).
ENVIRONMENT: dict[str, str] = {
    "ORT_DISABLE_TELEMETRY": "1",
    "DAGSTER_DISABLE_TELEMETRY": "1",
    # PyMuPDF would otherwise print an advertisement for the layout package it can no longer import.
    "PYMUPDF_SUGGEST_LAYOUT_ANALYZER": "0",
}

#: Modules that load PyMuPDF's layout model (and with it ONNX Runtime) when PyMuPDF is imported.
LAYOUT_MODULES = ("pymupdf.layout", "pymupdf4llm")


def keep_offline() -> None:
    """Switch the telemetry of assay's libraries off, for this process and the ones it starts.

    Idempotent. Must run before PyMuPDF is first imported to keep its layout model out; a module that
    was imported already (by code that chose to, like the pymupdf4llm benchmark) is left as it is.
    """
    os.environ.update(ENVIRONMENT)
    for name in LAYOUT_MODULES:
        # A None entry makes ``import name`` raise ModuleNotFoundError, which PyMuPDF catches.
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def allow_layout_model() -> None:
    """Make PyMuPDF's layout package importable again in this process (the pymupdf4llm baseline of the
    benchmarks measures it with its defaults). ONNX Runtime's telemetry stays off."""
    for name in LAYOUT_MODULES:
        if name in sys.modules and sys.modules[name] is None:
            del sys.modules[name]
