"""What a stage's loop over shards is given and gives back: plain Python, so that a stage's work runs
without Dagster (assets/factory.py makes the asset that calls it)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assets.planner import ShardPlan, stale_plan
from assets.progress import Progress
from assets.settings import Settings
from assets.stages import Stage
from warehouse import Warehouse

if TYPE_CHECKING:
    import dagster as dg


@dataclass(frozen=True, slots=True)
class ShardStep:
    """One run of a stage of shards: the run's range of shards and what the work needs."""

    stage: Stage
    shards: tuple[str, ...]
    wh: Warehouse
    version: str
    settings: Settings
    progress: Progress
    log: logging.Logger | logging.LoggerAdapter

    def plan(self) -> ShardPlan:
        """The shards of the run's range where the planner says the stage must run (the others are not
        read at all), with its total when its rule knows it (assets/planner.py)."""
        return stale_plan(self.stage, self.wh, self.version, set(self.shards))

    def stale(self) -> list[str]:
        """The shards of :meth:`plan`."""
        return self.plan().shards


@dataclass(slots=True)
class StageOutcome:
    """What the work did: the shards it ran on, its own counts by shard (numbers, shown in Dagster), and
    any check results of the stage's own (the contracts of the tables it declares ``checked`` are
    validated once per run, by assets/data_quality.py)."""

    ran: Collection[str]
    figures: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    checks: Iterable[dg.AssetCheckResult] | Iterable[Any] = ()


Work = Callable[[ShardStep], StageOutcome]
