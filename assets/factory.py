"""A stage's Dagster asset, made from its declaration (assets/stages.py) once the stage graph is known.

A stage's module holds only its work over a range of shards::

    @shard_stage("chunk")
    def chunk(step: ShardStep) -> StageOutcome:
        for shard in step.stale():
            ...  # read the stage's inputs, write its tables (its done table last)
        return StageOutcome(ran=...)

and :func:`shard_stage` gives it what every stage of shards has: the shard partitions and the backfill
policy, the group, kinds and description of its declaration, and after the work one materialization per
shard with that shard's own figures (assets/materializations.py). A corpus-wide stage is an asset
function as Dagster writes them, under :func:`corpus_stage`. Either is a :class:`StageAsset`: the
Definitions build it with the stages it comes after in the graph as its ``deps``
(orchestration/definitions.py), so the order lives in the declarations only.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import dagster as dg

from assets.materializations import shard_materializations
from assets.partitions import backfill_policy, shards
from assets.progress import Progress
from assets.resources import AssaySettings
from assets.shard_step import ShardStep, Work
from assets.stages import Stage, graph
from readers.core.versions import EXTRACTOR_VERSION


@dataclass(frozen=True, slots=True)
class StageAsset:
    """A stage's asset, to be built with its upstream stages as ``deps``."""

    stage: Stage
    make: Callable[[Sequence[str]], dg.AssetsDefinition]

    def build(self, deps: Sequence[str]) -> dg.AssetsDefinition:
        return self.make(tuple(deps))


def _declaration(declared: Stage | str) -> Stage:
    return declared if isinstance(declared, Stage) else graph().by_name[declared]


def corpus_stage(declared: Stage | str, **asset_args: Any) -> Callable[[Callable[..., Any]], StageAsset]:
    """A corpus-wide stage's asset: the decorated asset function under the declaration's name, group and
    description, and ``asset_args`` (kinds, other check specs ...) as Dagster's ``@asset`` takes them."""
    stage = _declaration(declared)
    if stage.partitioned:
        raise TypeError(f"{stage.name} is a stage of shards: see shard_stage")

    specs = list(asset_args.pop("check_specs", ()))

    def decorate(fn: Callable[..., Any]) -> StageAsset:
        def make(deps: Sequence[str]) -> dg.AssetsDefinition:
            return dg.asset(
                check_specs=specs,
                name=stage.name,
                group_name=stage.group_name,
                description=stage.description or fn.__doc__,
                code_version=EXTRACTOR_VERSION,
                deps=deps,
                **asset_args,
            )(fn)

        return StageAsset(stage, make)

    return decorate


def shard_stage(
    declared: Stage | str, *, check_specs: Sequence[dg.AssetCheckSpec] = ()
) -> Callable[[Work], StageAsset]:
    """The asset of the stage of shards ``declared`` (a declaration, or the name of one in the graph),
    running the decorated work; ``check_specs`` are the stage's own checks."""
    stage = _declaration(declared)
    if not stage.partitioned:
        raise TypeError(f"{stage.name} is not a stage of shards")

    def decorate(work: Work) -> StageAsset:
        return StageAsset(stage, lambda deps: _shard_asset(stage, work, check_specs, deps))

    return decorate


def _shard_asset(
    stage: Stage, work: Work, check_specs: Sequence[dg.AssetCheckSpec], deps: Sequence[str]
) -> dg.AssetsDefinition:
    @dg.asset(
        name=stage.name,
        group_name=stage.group_name,
        partitions_def=shards,
        backfill_policy=backfill_policy,
        code_version=EXTRACTOR_VERSION,
        kinds={"python", "parquet"},
        check_specs=list(check_specs),
        description=stage.description or work.__doc__,
        deps=deps,
    )
    def asset(context: dg.AssetExecutionContext, assay: AssaySettings, progress: dg.ResourceParam[Progress]):
        wh = assay.warehouse()
        step = ShardStep(
            stage, tuple(context.partition_keys), wh, EXTRACTOR_VERSION, assay, progress, context.log
        )
        outcome = work(step)
        yield from shard_materializations(
            context, stage.name, wh, EXTRACTOR_VERSION, ran=outcome.ran, figures=outcome.figures
        )
        yield from outcome.checks

    return asset
