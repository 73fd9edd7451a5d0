"""The chunk stage's declaration: each clean text split into chunks with their evidence."""

from __future__ import annotations

from assets.planner import newer_input
from assets.stages import Stage

STAGE = Stage(
    "chunk",
    after=("sanitize",),
    reads=("documents", "texts", "page_verdicts", "page_texts"),
    writes=("unchunked", "chunks"),
    partitioned=True,
    stale=newer_input("texts", ("unchunked", "chunks")),
    asset="assets.chunk.asset:chunk",
    group="publish",
    description="Chunks of each text (chunks): split along the headings to a target size with an "
    "overlap, never inside a table row, each with its heading path, pages, language, sources and "
    "trust (the minimum over its pages); a long text in a worker under the per-document budget, a "
    "text it could not chunk in unchunked.",
    job="Split the texts of a range of shards into chunks with their evidence.",
    checked=("chunks",),
    unit="shards",
)
