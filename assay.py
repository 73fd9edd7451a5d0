"""assay's Python API: ``import assay``; see orchestration/api.py and the README's "Python" section."""

from orchestration.api import (
    AssayError,
    Checked,
    CheckedPage,
    Corpus,
    Document,
    Page,
    RunResult,
    check,
    open_home,
    run,
)

__all__ = [
    "AssayError",
    "Checked",
    "CheckedPage",
    "Corpus",
    "Document",
    "Page",
    "RunResult",
    "check",
    "open_home",
    "run",
]
