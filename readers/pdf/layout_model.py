"""PyMuPDF's layout model (``pymupdf.layout``), asked only about the pages the rules are unsure of.

The model labels a page's regions (``text``, ``title``, ``section-header``, ``list-item``, ``table``,
``picture``, ``caption``, ``formula``, ``footnote``, ``page-header``, ``page-footer``) in reading order. It
costs 1-2 s a page on this machine, against ~10 ms for the whole text-layer path, so
:mod:`readers.pdf.certainty` decides first which pages need it. Importing the package loads its ONNX
weights (shipped in the wheel) into ONNX Runtime: assay keeps it unimportable
(:func:`readers.core.offline.keep_offline`) until a reader process meets its first uncertain page, then
loads it once for that process, with ONNX Runtime's telemetry off (``ORT_DISABLE_TELEMETRY``, set for
every assay process).

Anything the model does wrong leaves the page to the rules: an exception (at load or on a page), or a
page over :data:`PAGE_BUDGET_SECONDS`; the document is never failed by it. Once a load failed the
process does not try again.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any

import pymupdf

from readers.core.offline import allow_layout_model

#: A page the model takes longer than this on is left to the rules, and the model is asked about no
#: further page of the document (1-2 s a page measured on the dev corpus's born-digital pages).
PAGE_BUDGET_SECONDS = 8.0
#: The model reads at most this share of a document's pages, the most uncertain first (the rules keep
#: the rest): a 500-page report whose pages are all uncertain would otherwise cost ten minutes...
MAX_SHARE_PER_DOCUMENT = 0.1
#: ...but always this many (a short document's uncertain pages are all read), and never more than
#: MAX_PAGES_PER_DOCUMENT.
MIN_PAGES_PER_DOCUMENT = 2
MAX_PAGES_PER_DOCUMENT = 20


def page_budget(pages: int) -> int:
    """How many of a document's ``pages`` the model may read."""
    return min(MAX_PAGES_PER_DOCUMENT, max(MIN_PAGES_PER_DOCUMENT, int(MAX_SHARE_PER_DOCUMENT * pages)))


#: The region labels that mark page furniture, and a table.
FURNITURE_LABELS = frozenset({"page-header", "page-footer"})
TABLE_LABEL = "table"


@dataclass(frozen=True, slots=True)
class ModelRegion:
    """One region the model found: its box (page coordinates) and its label."""

    bbox: tuple[float, float, float, float]
    label: str


@dataclass(frozen=True, slots=True)
class Answer:
    """The model's regions for a page in its reading order, or why there are none (``failed``,
    ``over_budget``, ``not_loaded``), and what it cost."""

    regions: tuple[ModelRegion, ...] = ()
    failure: str = ""
    seconds: float = 0.0


class _ModelState:
    loaded: bool = False
    failed: str = ""
    enabled: bool = True


def set_enabled(enabled: bool) -> None:
    """Let this process ask the model (the default) or not: the benchmarks measure the text-layer path
    with the decision but without the model, whose cost they report apart."""
    _ModelState.enabled = enabled


def loaded() -> bool:
    """Whether this process has loaded the model (tests use it: a certain page never loads it)."""
    return _ModelState.loaded


def _load() -> bool:
    if _ModelState.loaded:
        return True
    if _ModelState.failed:
        return False
    try:
        allow_layout_model()
        import pymupdf.layout

        if not callable(getattr(pymupdf, "_get_layout", None)):
            raise RuntimeError("pymupdf.layout did not activate page.get_layout")
        _ModelState.loaded = True
    except Exception as exc:
        _ModelState.failed = f"{type(exc).__name__}: {exc}"[:200]
        sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]
    return _ModelState.loaded


def read_regions(page: pymupdf.Page) -> Answer:
    """The model's regions on ``page`` (loading the model in this process first, if need be: the load,
    ~3 s, is not counted against the page's budget)."""
    if not _ModelState.enabled:
        return Answer(failure="off")
    if not _load():
        return Answer(failure="not_loaded")
    start = time.perf_counter()
    try:
        page.get_layout()
        raw: Any = page.layout_information or []
        regions = tuple(
            ModelRegion(tuple(float(v) for v in box[:4]), str(box[-1]))  # type: ignore[arg-type]
            for box in raw
        )
    except Exception as exc:
        return Answer(failure=f"failed:{type(exc).__name__}", seconds=time.perf_counter() - start)
    seconds = time.perf_counter() - start
    if seconds > PAGE_BUDGET_SECONDS:
        return Answer(failure="over_budget", seconds=seconds)
    return Answer(regions, seconds=seconds)


def region_tables(page: pymupdf.Page, boxes: list[tuple[float, float, float, float]]) -> list[Any]:
    """PyMuPDF's tables built from the model's table boxes (``find_tables(use_layout=True)``, which
    makes each box's cells with ``make_table_from_bbox``), without running the model again: the page's
    layout is set to these boxes only. Empty on any failure."""
    if not boxes:
        return []
    try:
        page.layout_information = [[*box, TABLE_LABEL] for box in boxes]
        # find_tables asks page.get_layout() again; the answer is already there.
        page.get_layout = lambda **_: None  # type: ignore[method-assign]
        found = page.find_tables(use_layout=True)
        return list(found.tables) if found is not None else []
    except Exception:
        return []
