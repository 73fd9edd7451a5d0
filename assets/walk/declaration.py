"""The walk stage's declaration: the inventory of the corpus roots, before every other stage."""

from __future__ import annotations

from assets.stages import Stage

STAGE = Stage(
    "walk",
    after=(),
    reads=(),
    writes=("observations", "documents"),
    partitioned=False,
    asset="assets.walk.asset:walk",
    group="ingest",
    description="Inventory of the corpus roots: observations (one per path) and documents (one per "
    "distinct sha256), with the content kind sniffed from the bytes.",
    job="Walk the roots (ASSAY_ROOTS, or the roots given in the run config).",
    checked=("documents",),
    unit="paths",
)
