"""The one planner: which shards of which stage must run, in which order and in which Dagster runs, for
``assay run``, the automation and ``assay run --force`` alike, computed from the stage declarations
(assets/stages.py) and what the warehouse holds.

- A stage's own rule (its declaration's ``stale``) says where its inputs changed; :func:`stale_plan` adds
  the shards where a partition it wrote is lost (deleted, or set aside unreadable), so every caller sees
  the same shards: the stage's asset over its run's range, ``assay run`` planning its runs, and the
  automation's conditions (orchestration/automation.py), so that a scheduled backfill runs exactly the
  shards a manual run would.
- :func:`run_steps` is ``assay run``'s plan over the shards a walk touched, one Dagster run at a time
  (each step planned once the one before it ran: a new corpus vocabulary makes verdicts stale).
- A new extractor version does not make every shard stale: assets/carry.py first carries the shards it
  would read identically, and only the others, and new ones, are left to extract.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass

from assets.shard_keys import (
    DOCUMENTS_PER_RUN,
    RUN_COST_S,
    SHARD_KEYS,
    SHARDS_PER_RUN,
    runs_cost,
    shard_ranges,
)
from assets.stages import ShardRule, Stage, StageGraph, graph
from warehouse import Warehouse
from warehouse.schema import TABLES


@dataclass(frozen=True, slots=True)
class ShardPlan:
    """The shards a stage of shards must run on, and how many documents or pages it will read there when
    it knows (its progress bar's total)."""

    shards: list[str]
    total: int | None = None


def within(shards: Sequence[str], only: Collection[str] | None) -> list[str]:
    """``shards`` that are in ``only`` (all when ``only`` is None)."""
    return [s for s in shards if only is None or s in only]


def newer_input(source: str, outputs: Sequence[str]) -> ShardRule:
    """The rule of a stage of shards that reads ``source`` and writes ``outputs``: a shard runs again
    where ``source`` was written after one of ``outputs``, or an output is missing. Its total is the
    shards."""

    def rule(wh: Warehouse, version: str, only: Collection[str] | None = None) -> ShardPlan:
        shards = within(written_after(wh, version, source, outputs), only)
        return ShardPlan(shards, len(shards))

    return rule


def written_after(wh: Warehouse, version: str, source: str, tables: Sequence[str]) -> list[str]:
    """Shards whose ``source`` partition was written after one of ``tables``' partitions, or that lack one:
    the stage that turns ``source`` into ``tables`` must run there again."""
    written = wh.written_at(source, version)
    outputs = [wh.written_at(t, version) for t in tables]
    return sorted(s for s, at in written.items() if any(out.get(s, -1) < at for out in outputs))


def stale_plan(
    stage: Stage,
    wh: Warehouse,
    version: str,
    only: Collection[str] | None = None,
    gone: Sequence[tuple[str, str | None]] | None = None,
) -> ShardPlan:
    """The stage's rule over ``only`` (every shard when None), and the shards where a partition it wrote
    is ``gone`` (by default :func:`lost` now)."""
    if not stage.partitioned or stage.stale is None:
        raise TypeError(f"{stage.name} is not a stage of shards")
    found = stage.stale(wh, version, only)  # type: ignore[call-arg]
    plan = found if isinstance(found, ShardPlan) else ShardPlan(list(found))
    missing = {
        s
        for t, s in (lost(wh, version) if gone is None else gone)
        if t in stage.writes and s is not None and (only is None or s in only)
    }
    return ShardPlan(sorted(set(plan.shards) | missing), plan.total)


def stale_shards(
    stage: Stage,
    wh: Warehouse,
    version: str,
    only: Collection[str] | None = None,
    gone: Sequence[tuple[str, str | None]] | None = None,
) -> list[str]:
    """The shards of :func:`stale_plan`."""
    return stale_plan(stage, wh, version, only, gone).shards


def stale_rules() -> dict[str, Callable[[Warehouse, str], set[str] | bool]]:
    """Each stage's rule as the automation asks it, by stage: its stale shards, or whether it is stale."""

    def rule(stage: Stage) -> Callable[[Warehouse, str], set[str] | bool]:
        if stage.partitioned:
            return lambda wh, version: set(stale_shards(stage, wh, version))
        return stage.stale  # type: ignore[return-value]

    return {stage.name: rule(stage) for stage in graph().order if stage.stale is not None}


def lost(wh: Warehouse, version: str, stages: StageGraph | None = None) -> list[tuple[str, str | None]]:
    """The partitions a stage wrote that are not there (deleted, or set aside unreadable), as (table,
    shard; None for a corpus-wide table). A table's partition of a shard is known to have been
    written when a table written after it has that shard's: its stage's done table (written last),
    or a table of a later stage; for the last stage of shards, when the catalog (built at the end of
    every run) is newer than the partitions the stage reads there."""
    order = (stages or graph()).order
    present = {
        t: set(wh.shards(t, version))
        if TABLES[t].sharded
        else ({None} if wh.has_partition(t, version) else set())
        for s in order
        for t in s.writes
    }
    last = order.index(next(s for s in reversed(order) if s.partitioned))
    found: list[tuple[str, str | None]] = []
    for i, stage in enumerate(order):
        later = [t for s in order[i + 1 :] for t in s.writes]
        for table in stage.writes:
            after = [*later, *([stage.done] if table != stage.done else [])]
            if not TABLES[table].sharded:
                if not present[table] and any(present[t] for t in after):
                    found.append((table, None))
                continue
            known = {s for t in after if TABLES[t].sharded for s in present[t]}
            if i == last:
                known |= _run_through(wh, version, stage)
            found += [(table, shard) for shard in sorted(known - present[table])]
    return found


def _run_through(wh: Warehouse, version: str, stage: Stage) -> set[str]:
    """The shards whose partitions of every table ``stage`` reads were written before the catalog was
    last built: a run that finished has taken the stage over them since."""
    if not wh.catalog_path.exists():
        return set()
    built = wh.catalog_path.stat().st_mtime_ns
    inputs = [wh.written_at(t, version) for t in stage.reads if TABLES[t].sharded]
    if not inputs:
        return set()
    shards = set.intersection(*(set(i) for i in inputs))
    return {s for s in shards if all(i[s] < built for i in inputs)}


def later_work(wh: Warehouse, version: str) -> list[str]:
    """The shards on which a stage after the first stage of shards has work."""
    stages = graph()
    todo: set[str] = set()
    gone = lost(wh, version)
    for stage in stages.order:
        if stage.partitioned and stage is not stages.first_of_shards:
            todo |= set(stale_shards(stage, wh, version, gone=gone))
    return sorted(todo)


def closing_due(wh: Warehouse, version: str) -> bool:
    """A closing stage (the catalog) must run: it is missing, of another version or older than a
    partition."""
    return any(s.stale(wh, version) for s in graph().closing)  # type: ignore[call-arg]


def one_range_costs_less(
    shards: Sequence[str], documents: dict[str, int], per_run: int = SHARDS_PER_RUN, steps: int = 5
) -> bool:
    """Whether one run through ``steps`` stages of shards, over the range from the first of ``shards`` to
    the last, costs Dagster less than the runs over :func:`assets.shard_keys.shard_ranges` of at most
    ``per_run`` keys (extract over each, the vocabulary, then the ``steps - 1`` later stages over each),
    and holds at most :data:`assets.shard_keys.DOCUMENTS_PER_RUN` of the ``documents`` (by shard). The
    untouched shards inside the range read nothing, but each costs every stage its events."""
    if not shards:
        return False
    ordered = sorted(shards, key=SHARD_KEYS.index)
    apart = shard_ranges(ordered, per_run)
    if len(apart) == 1:
        return True
    whole = [(ordered[0], ordered[-1])]
    inside = SHARD_KEYS[SHARD_KEYS.index(ordered[0]) : SHARD_KEYS.index(ordered[-1]) + 1]
    if sum(documents.get(s, 0) for s in inside) > DOCUMENTS_PER_RUN:
        return False
    separate = runs_cost(apart, 1) + RUN_COST_S + runs_cost(apart, steps - 1)
    return runs_cost(whole, steps) <= separate


@dataclass(frozen=True, slots=True)
class RunStep:
    """One Dagster run of ``assay run``: ``stages`` over ``ranges`` of shard keys (several runs, one per
    range), or a corpus-wide stage alone (no ranges)."""

    stages: tuple[str, ...]
    ranges: tuple[tuple[str, str], ...] = ()

    @property
    def of_shards(self) -> bool:
        return bool(self.ranges)


def run_steps(
    wh: Warehouse, version: str, touched: Sequence[str], per_run: int = SHARDS_PER_RUN
) -> Iterator[RunStep]:
    """``assay run``'s runs after its walk, each planned once the one before it ran: the stages of shards
    where they have work, ``touched`` being the shards the first stage of shards (extract) must run on.

    One run takes the shards through every stage, the corpus-wide stages between (the vocabulary), over
    the one range from the first shard with work to the last, where that costs Dagster less than ranges of
    at most ``per_run`` keys (:func:`one_range_costs_less`). Over several ranges, the first stage runs
    over all of them first, so that the later stages judge with the whole corpus's vocabulary; then one
    run per range takes the shards through the later stages. Each stage does only what its rule finds
    stale in the run's range. A stage that reads a corpus-wide stage's table (the verdicts read the
    vocabulary) is stale wherever a new one was written since: one more pass takes those shards through
    the later stages again.
    """
    stages = graph()
    first = stages.first_of_shards
    between = stages.between_stages
    corpus_due = bool(touched) or any(
        stages.by_name[s].stale(wh, version)  # type: ignore[call-arg]
        for s in between
    )
    if touched:
        together = sorted({*touched, *later_work(wh, version)})
        documents = {s: len(d) for s, d in wh.keys_by_shard("documents", version).items()}
        if one_range_costs_less(together, documents, per_run, len(stages.partitioned_stages)):
            yield RunStep(stages.shard_stages, ((together[0], together[-1]),))
            corpus_due = False
        else:
            yield RunStep((first.name,), tuple(shard_ranges(list(touched), per_run)))
    if corpus_due:
        for name in between:
            yield RunStep((name,))
    written_between = {t for name in between for t in stages.by_name[name].writes}
    readers_of_between = [
        s
        for s in stages.order
        if s.partitioned and s.name in stages.judged_stages and set(s.reads) & written_between
    ]
    shards = later_work(wh, version)
    if shards:
        yield RunStep(stages.judged_stages, tuple(shard_ranges(shards, per_run)))
    shards = sorted({shard for s in readers_of_between for shard in stale_shards(s, wh, version)})
    if shards:
        yield RunStep(stages.judged_stages, tuple(shard_ranges(shards, per_run)))
