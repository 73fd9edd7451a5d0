"""The vocabulary stage's declaration: the corpus's own words, harvested between the extract and the
verdicts."""

from __future__ import annotations

from assets.stages import Stage

STAGE = Stage(
    "vocabulary",
    after=("extract",),
    reads=("pages",),
    writes=("vocabulary",),
    partitioned=False,
    stale=lambda wh, version: not wh.has_partition("vocabulary", version),
    asset="assets.vocabulary.asset:vocabulary",
    group="judge",
    description="Words missing from the lexicon of their language that occur in three or more distinct "
    "documents (a garbled token occurs in one): the corpus's own vocabulary, feeding the lexicon tier.",
    job="Harvest the corpus vocabulary from the extracted pages.",
)
