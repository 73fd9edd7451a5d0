"""The OCR stage's declaration: what the verdicts sent to OCR, read, and the rule that says which shards
must be read again."""

from __future__ import annotations

from collections.abc import Collection

from assets.planner import ShardPlan
from assets.stages import Stage
from quality.expectations import UNDERIVABLE
from warehouse import Warehouse


def stale_ocr(wh: Warehouse, version: str, within: Collection[str] | None = None) -> ShardPlan:
    """Shards whose pages sent to OCR (REPLACE pages, image frames, FIGURES pages' figures) differ from
    the pages OCR has rows for, or whose verdicts were written after their final page texts; ``within``:
    only these shards (a run's range). The total is the pages to read."""
    from assets.ocr.scope import RENDERABLE, RETRIED_REASONS, SENT_TO_OCR
    from readers.core.model import ContentKind

    renderable = {
        sha
        for sha, kind in wh.columns("documents", version, ("sha256", "kind"))
        if ContentKind(kind) in RENDERABLE
    }
    wanted: dict[str, set[tuple[str, int, str]]] = {}
    for shard, sha, page, mode in wh.columns("page_verdicts", version, ("shard", "sha256", "page", "mode")):
        if mode in SENT_TO_OCR and sha in renderable:
            wanted.setdefault(shard, set()).add((sha, page, SENT_TO_OCR[mode].value))
    done: dict[str, set[tuple[str, int, str]]] = {}
    retry: set[str] = set()
    columns = ("shard", "sha256", "page", "scope", "reason")
    for shard, sha, page, scope, reason in wh.columns("ocr_pages", version, columns):
        done.setdefault(shard, set()).add((sha, page, scope))
        if reason in RETRIED_REASONS:
            retry.add(shard)
    if retry:
        from readers.images.tesseract import installed_version

        if not installed_version():
            retry = set()  # still nothing to retry with
    judged, final = wh.written_at("page_verdicts", version), wh.written_at("page_texts", version)
    stale = sorted(
        s
        for s in set(wanted) | set(done) | set(judged)
        if (within is None or s in within)
        and (wanted.get(s, set()) != done.get(s, set()) or s in retry or final.get(s, -1) < judged.get(s, -1))
    )
    pages = sum(len(wanted.get(s, set()) - done.get(s, set())) for s in stale)
    return ShardPlan(stale, pages)


STAGE = Stage(
    "ocr",
    after=("verdicts",),
    reads=("documents", "pages", "page_verdicts", "repairs"),
    writes=("ocr_pages", "page_texts"),
    partitioned=True,
    stale=stale_ocr,
    asset="assets.ocr.asset:ocr",
    group="judge",
    description="Tesseract on the pages whose verdict is REPLACE, on image documents and on the figure "
    "regions of FIGURES pages: text, language, rotation, word confidences (ocr_pages); then each "
    "judged page's final text and its source (page_texts). A page read as nothing is underivable, "
    "never an empty text.",
    job="Read the REPLACE pages of a range of shards with Tesseract.",
    checked=("ocr_pages", "page_texts"),
    unit="pages",
    rates=((UNDERIVABLE, "page_texts"),),
    needs_total=True,
)
