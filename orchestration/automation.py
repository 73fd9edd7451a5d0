"""Scheduled backfills by extractor version, as declarative automation (docs/design.md §2).

One sensor, ``assay_automation``, runs by default and evaluates every stage asset's condition; where
several shards of a stage are due it emits a backfill, which the daemon runs in batches of the backfill
policy (``SHARDS_PER_RUN`` shards per run).

The conditions:

- **walk**: the code's extractor version changed since the walk last ran, and the backfill window
  (``version_backfill_cron``) has opened since. The walk carries the shards the new version would read
  identically over to it (assets/carry.py ``carry_forward``). The ``assay_walk`` schedule
  (``walk_cron``) walks the roots for new files.
- **extract, verdicts, ocr, sanitize, chunk** (per shard): something upstream was updated (or the shard is
  missing, or the version changed and the window opened, or the condition is evaluated for the first
  time: a stage added to the code), *and* the warehouse says the shard is stale for
  the stage: the rule its declaration names, as the planner asks it (assets/planner.py), which
  ``assay run`` follows too (:class:`StaleInWarehouse`). So a new version re-reads only the shards
  whose documents' readers changed, and a walk that found new files only their shards. The condition
  asks for the fixed blocks of 32 shards that hold a stale one (a Dagster run covers one range of
  keys): the other shards of a block are kept as they are, nothing read.
- **vocabulary, catalog**: something upstream was updated, or their output is missing for this version.
- **quality_report**: the catalog was rebuilt.

Every condition waits while an upstream asset is running, part of a backfill, or about to be requested, so
that a stage never reads its inputs half-written.

The stale rules read the warehouse, so the sensor is evaluated in the code server
(``use_user_code_server``), where the project's code and settings are.
"""

import warnings
from collections.abc import Callable

import dagster as dg

from assets.planner import stale_rules
from assets.resources import AssaySettings, resource_from_env
from assets.shard_keys import covering_shards
from assets.stages import graph
from readers.core import versions

# Evaluating the sensor in the code server is a beta parameter in Dagster 1.13, which assay pins: the
# warning at every load tells a user nothing they can act on.
warnings.filterwarnings("ignore", message=r".*`use_user_code_server`.*beta", category=dg.BetaWarning)


class StaleInWarehouse(dg.AutomationCondition):
    """True for the partitions (shards) of ``stage`` that the warehouse says must run again under the
    current extractor version, or for the whole of an unpartitioned stage whose output is out of date.

    Dagster knows when an asset was last materialised and with which code version; only the warehouse
    knows which documents a shard holds and which readers derived them, hence this condition.
    """

    def __init__(self, stage: str, settings: Callable[[], AssaySettings] = resource_from_env) -> None:
        rules = stale_rules()
        if stage not in rules:
            raise ValueError(f"no stale rule for stage {stage!r}; known: {', '.join(rules)}")
        self.stage = stage
        self._settings = settings

    @property
    def name(self) -> str:
        return "stale_in_warehouse"

    @property
    def description(self) -> str:
        return f"the warehouse says {self.stage} must run again under the current extractor version"

    @property
    def requires_cursor(self) -> bool:
        return False

    def evaluate(self, context: dg.AutomationContext) -> dg.AutomationResult:
        candidates = context.candidate_subset
        if candidates.is_empty:
            return dg.AutomationResult(context, candidates)
        stale = stale_rules()[self.stage](self._settings().warehouse(), versions.EXTRACTOR_VERSION)
        if isinstance(stale, bool):
            return dg.AutomationResult(context, candidates if stale else context.get_empty_subset())
        # Requested as whole blocks of shards, one run each (assets/shard_keys.py covering_shards).
        return dg.AutomationResult(
            context, candidates.compute_intersection_with_partition_keys(covering_shards(stale))
        )


def version_due(cron: str) -> dg.AutomationCondition:
    """The code's version changed since the asset last ran (or was requested), and the backfill window
    opened since: a tick of ``cron`` passed. ``cron`` empty: no window."""
    changed = dg.AutomationCondition.code_version_changed().since_last_handled()
    if not cron:
        return changed.with_label("version changed")
    window = dg.AutomationCondition.cron_tick_passed(cron).since_last_handled()
    return (changed & window).with_label(f"version changed, window {cron} open")


def _upstream_busy() -> dg.AutomationCondition:
    """An upstream asset is in a run or a backfill (``in_progress`` covers both) or about to be."""
    return dg.AutomationCondition.any_deps_match(
        dg.AutomationCondition.in_progress() | dg.AutomationCondition.will_be_requested()
    ).with_label("upstream busy")


def _not_running() -> dg.AutomationCondition:
    return ~dg.AutomationCondition.in_progress()


def conditions(settings: AssaySettings) -> dict[str, dg.AutomationCondition]:
    """Each stage asset's automation condition (see the module docstring)."""
    cron = settings.version_backfill_cron

    def current() -> AssaySettings:
        return settings

    due = version_due(cron)
    updated = (
        (dg.AutomationCondition.newly_missing() | dg.AutomationCondition.any_deps_updated())
        .since_last_handled()
        .with_label("upstream updated or missing")
    )
    # Nothing downstream of the walk starts while it runs: it writes the documents and carries shards over.
    stages = graph()
    opening = stages.opening.name
    walking = dg.AutomationCondition.asset_matches(
        opening, dg.AutomationCondition.in_progress() | dg.AutomationCondition.will_be_requested()
    ).with_label(f"{opening} busy")
    quiet = ~_upstream_busy() & ~walking & _not_running()
    found = {opening: due & _not_running()}
    first = stages.first_of_shards.name
    # A stage new to the code location (a folder added) runs where its rule finds work, without waiting
    # for its inputs to change.
    new = dg.AutomationCondition.initial_evaluation().with_label("first evaluation")
    for stage in (s for s in stages.order if s.stale is not None):
        if stage.partitioned:
            trigger = (due | updated | new) if stage.name == first else (updated | new)
            found[stage.name] = trigger & StaleInWarehouse(stage.name, current) & quiet
        else:
            found[stage.name] = (updated | (due & StaleInWarehouse(stage.name, current))) & quiet
    found["quality_report"] = updated & quiet  # redrawn after each catalog build
    return found


def with_conditions(assets: list[dg.AssetsDefinition], settings: AssaySettings) -> list[dg.AssetsDefinition]:
    """The assets with their automation conditions and the code's extractor version as code version
    (read when the definitions are built, so that a code location loaded after a release carries the new
    version)."""
    table = conditions(settings)

    def stamp(spec: dg.AssetSpec) -> dg.AssetSpec:
        condition = table.get(spec.key.to_user_string())
        return spec.replace_attributes(
            code_version=versions.EXTRACTOR_VERSION,
            **({"automation_condition": condition} if condition is not None else {}),
        )

    return list(dg.map_asset_specs(stamp, assets))


def automation_sensor(settings: AssaySettings) -> dg.AutomationConditionSensorDefinition:
    return dg.AutomationConditionSensorDefinition(
        "assay_automation",
        target=dg.AssetSelection.all(),
        default_status=dg.DefaultSensorStatus.RUNNING,
        minimum_interval_seconds=settings.automation_interval_seconds,
        use_user_code_server=True,
        emit_backfills=True,
        description="Re-runs the stale shards of each stage: after a new extractor version (from the "
        f"window {settings.version_backfill_cron or 'at once'}) and after a walk found new files.",
    )
