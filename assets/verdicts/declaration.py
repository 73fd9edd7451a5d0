"""The verdicts stage's declaration: one mode per page with its reasons, and the rule that says which
shards must be judged again."""

from __future__ import annotations

from collections.abc import Collection

from assets.planner import ShardPlan, within
from assets.stages import Stage
from warehouse import Warehouse


def stale_verdicts(wh: Warehouse, version: str, only: Collection[str] | None = None) -> ShardPlan:
    """Shards whose documents with pages are not all judged under ``version`` with the current rules and
    vocabulary, or that lack a partition; ``only``: only these shards (a run's range)."""
    from quality.corpus_vocabulary import VocabularyWord, by_language
    from quality.verdicts import verdicts_version_for

    words = by_language(
        VocabularyWord(r["language"], r["word"], r["documents"]) for r in wh.rows("vocabulary", version)
    )
    current = verdicts_version_for(words)
    paged = wh.keys_by_shard("pages", version)
    judged = wh.keys_by_shard("page_verdicts", version)
    versions = wh.values_by_shard("page_verdicts", version, "verdicts_version")
    stale = sorted(
        s
        for s in set(paged) | set(judged)
        if paged.get(s, set()) != judged.get(s) or versions.get(s, set()) - {current}
    )
    return ShardPlan(within(stale, only))


STAGE = Stage(
    "verdicts",
    after=("extract", "vocabulary"),
    reads=("documents", "pages", "page_fonts", "vocabulary"),
    writes=("font_verdicts", "repairs", "page_verdicts"),
    partitioned=True,
    stale=stale_verdicts,
    asset="assets.verdicts.asset:verdicts",
    group="judge",
    description="One mode per page (TEXT, FIGURES, REPLACE, REPAIRED, LANG, BLANK) with reason codes "
    "and a provenance, per-font evidence across each document, and the repairs made without OCR.",
    job="Judge a range of shards' pages; backfills run in batches of the backfill policy.",
    checked=("page_verdicts",),
    unit="documents",
)
