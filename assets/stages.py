"""The stages, each declared once in its own folder: what it reads and writes, the table whose partition
marks a shard done, the stages it comes after, the rule that says where it must run again, and where its
asset is.

Plain Python (no Dagster). A stage is a folder under ``assets/`` whose ``declaration`` module holds its
:class:`Stage` as ``STAGE``; :func:`graph` finds them all (every package on the ``assets`` package's path,
so a stage is added by adding its folder). A :class:`StageGraph` is a set of declarations with what
follows from them: the order (a topological sort of their ``after`` fields, the same graph the assets are
built with as their ``deps`` in orchestration/definitions.py), the stages ``assay run`` takes a range of
shards through, and the tables carried to a new extractor version. What must run, where and when, is the
planner's (assets/planner.py); the Definitions, the automation, the home's lock, the carry-forward, the
table contracts, the progress bars and the catalog's views all read the graph.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from graphlib import TopologicalSorter
from types import MappingProxyType
from typing import Any

import assets
from warehouse import Warehouse
from warehouse.schema import TABLES, Table

#: Where a partitioned stage must run again: the stale shards (of ``within`` only, when given).
ShardRule = Callable[[Warehouse, str, Collection[str] | None], Sequence[str]]
#: Whether an unpartitioned stage must run again.
CorpusRule = Callable[[Warehouse, str], bool]
#: Whether a shard's partitions that ``source`` (an earlier extractor version) wrote for this stage may be
#: carried to a new version: the stage ran there with the rules of today.
CarryRule = Callable[[Warehouse, str, str], bool]

#: The module of a stage's folder that declares it, and the name it declares it under.
DECLARATION_MODULE = "declaration"
DECLARATION_NAME = "STAGE"


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage of the pipeline, as data.

    ``writes`` are in the order the stage writes them per shard: the last (:attr:`done`) marks the shard
    done, so a run killed between two writes does the shard again (docs/decisions.md, "A stage writes its
    done table last"). ``stale`` is the stage's rule: for a partitioned stage, the shards to run again;
    for a corpus-wide one, whether to run at all. ``counted`` is the table whose rows are the stage's
    row count in Dagster (by default the done table).

    ``asset`` is where its Dagster asset is, as ``module:attribute`` (imported when the Definitions are
    built, so that planning a run imports no stage's code); ``checked`` the tables whose contracts are
    checked on the shards it wrote; ``closes``: it comes after every stage of shards (the catalog).
    ``tables`` are the tables a stage brings of its own (the project's are in warehouse/schema.py), each
    with its row record, whose fields declare its columns and its contract; registered while it is
    declared. ``carried``: whether an earlier version's partitions of this stage (and of the stages after
    it) may be carried to a new version, when its rules may have changed since. ``unit`` is what the
    progress bar of ``assay run`` counts for it (no bar without one); ``needs_total``: no bar when it
    has nothing counted to do. ``rates``: the rate checks (check, table) on the stage's asset, over the
    partitions of the table it wrote since they were last validated (assets/data_quality.py)."""

    name: str
    after: tuple[str, ...]
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    partitioned: bool
    stale: ShardRule | CorpusRule | None = None
    counted: str | None = None
    asset: str | None = None
    group: str | None = None
    description: str = ""
    job: str = ""
    checked: tuple[str, ...] = ()
    closes: bool = False
    tables: tuple[Table, ...] = ()
    carried: CarryRule | None = None
    unit: str = ""
    needs_total: bool = False
    rates: tuple[tuple[str, str], ...] = ()

    @property
    def done(self) -> str | None:
        return self.writes[-1] if self.writes else None

    @property
    def counted_table(self) -> str | None:
        return self.counted or self.done

    @property
    def group_name(self) -> str:
        return self.group or self.name

    @property
    def job_name(self) -> str:
        return f"assay_{self.name}"

    def load_asset(self) -> Any:
        """The stage's Dagster asset (imported now)."""
        if self.asset is None:
            raise TypeError(f"stage {self.name} declares no asset")
        module, _, attribute = self.asset.partition(":")
        return getattr(importlib.import_module(module), attribute)


class StageGraph:
    """A set of stage declarations and what follows from them."""

    def __init__(self, stages: Sequence[Stage]) -> None:
        names = [s.name for s in stages]
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise ValueError(f"stages declared twice: {duplicated}")
        self.stages = tuple(stages)
        self.order: tuple[Stage, ...] = _ordered(self.stages)
        self.by_name = MappingProxyType({s.name: s for s in self.order})
        partitioned = [i for i, s in enumerate(self.order) if s.partitioned]
        #: The stages ``assay run`` takes a range of shards through in one run: from the first stage of
        #: shards to the last, the corpus-wide stages between (orchestration/definitions.py
        #: ``assay_shards``).
        self.shard_stages: tuple[str, ...] = tuple(
            s.name for s in self.order[partitioned[0] : partitioned[-1] + 1]
        )
        #: The stages of shards alone (one step each per shard of a run's range), in order.
        self.partitioned_stages: tuple[str, ...] = tuple(self.order[i].name for i in partitioned)
        #: The corpus-wide stages between the stages of shards (the corpus vocabulary): each reads what
        #: the stages before it wrote over the whole corpus.
        self.between_stages: tuple[str, ...] = tuple(
            s for s in self.shard_stages if not self.by_name[s].partitioned
        )
        #: The stages after the last corpus-wide stage between: what judges, OCRs, sanitizes and chunks a
        #: range once the corpus-wide stages are done.
        last_between = max((self.shard_stages.index(s) for s in self.between_stages), default=0)
        self.judged_stages: tuple[str, ...] = self.shard_stages[last_between + 1 :]
        #: The tables a shard's stages write, in the order :func:`assets.carry.carry_forward` copies
        #: them to a new extractor version, so that each stage's output is newer than its input and the
        #: planners see the carried shard as up to date.
        self.carried_tables: tuple[str, ...] = _carried(self.order)

    def after(self, stage: str) -> tuple[str, ...]:
        """The stages ``stage`` comes after: its own ``after``, and every stage of shards if it closes."""
        return _after(self.by_name[stage], self.stages)

    @cached_property
    def first_of_shards(self) -> Stage:
        return next(s for s in self.order if s.partitioned)

    @cached_property
    def opening(self) -> Stage:
        """The stage every other comes after, directly or not (the walk of the roots)."""
        return next(s for s in self.order if not s.after and not s.closes)

    @cached_property
    def closing(self) -> tuple[Stage, ...]:
        """The stages that come after every stage of shards (the catalog)."""
        return tuple(s for s in self.order if s.closes)

    def writer(self, table: str) -> Stage:
        """The stage that writes ``table``."""
        return next(s for s in self.order if table in s.writes)

    def from_stage(self, stage: str) -> tuple[Stage, ...]:
        """``stage`` and the stages of shards after it, in order."""
        start = self.order.index(self.by_name[stage])
        return tuple(s for s in self.order[start:] if s.partitioned)


def _after(stage: Stage, stages: Sequence[Stage]) -> tuple[str, ...]:
    if not stage.closes:
        return stage.after
    return (*stage.after, *(s.name for s in stages if s.partitioned and s.name not in stage.after))


def _ordered(stages: Sequence[Stage]) -> tuple[Stage, ...]:
    """The stages in the order their ``after`` graph gives (declaration order between independent ones)."""
    by_name = {s.name: s for s in stages}
    after = {s.name: _after(s, stages) for s in stages}
    unknown = {a for names in after.values() for a in names} - set(by_name)
    if unknown:
        raise ValueError(f"stages come after undeclared stages: {sorted(unknown)}")
    sorter = TopologicalSorter(after)
    sorter.prepare()  # raises graphlib.CycleError on a circle
    order: list[str] = []
    position = {s.name: i for i, s in enumerate(stages)}
    while sorter.is_active():
        ready = sorted(sorter.get_ready(), key=position.__getitem__)
        order += ready
        sorter.done(*ready)
    return tuple(by_name[name] for name in order)


def _carried(stages: Sequence[Stage]) -> tuple[str, ...]:
    """The tables of the shard stages in pipeline order, each stage's done table after its others, and
    the first stage's done table last of all: its partition is what marks a shard extracted, so a carry
    killed half-way is done again whole."""
    shard_stages = [s for s in stages if s.partitioned]
    first = shard_stages[0].done
    tables = [t for s in shard_stages for t in s.writes if t != first]
    return (*tables, first) if first else tuple(tables)


def discover(package: Any = assets) -> tuple[Stage, ...]:
    """The stages declared by the folders of ``package`` (every directory on its path): each folder's
    ``declaration`` module's ``STAGE``, in the order of the folders' names."""
    found: list[Stage] = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        name = f"{package.__name__}.{info.name}.{DECLARATION_MODULE}"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
            continue  # a folder of shared code, not a stage
        found.append(getattr(module, DECLARATION_NAME))
    return tuple(found)


_found: dict[tuple[str, ...], StageGraph] = {}
_added: list[StageGraph] = []
_in_effect: StageGraph | None = None  # the graph found last, whose own tables are registered


def graph() -> StageGraph:
    """The stages in effect: those the folders on the ``assets`` package's path declare, and any added by
    an enclosing :func:`declared`."""
    if _added:
        return _added[-1]
    path = tuple(assets.__path__)
    if path not in _found:
        _found[path] = StageGraph(discover())
    found = _found[path]
    global _in_effect
    if _in_effect is not found:
        # The tables the stages bring of their own are the schema's while their stages are in effect.
        for stage in _in_effect.stages if _in_effect is not None else ():
            for table in stage.tables:
                TABLES.pop(table.name, None)
        tables = {t.name: t for s in found.stages for t in s.tables}
        clashing = set(tables) & set(TABLES)
        if clashing:
            raise ValueError(f"tables declared twice: {sorted(clashing)}")
        TABLES.update(tables)
        _in_effect = found
    return found


@contextlib.contextmanager
def declared(*stages: Stage) -> Iterator[StageGraph]:
    """Add ``stages`` to the graph for the block, their own tables (and so their contracts) registered
    with the warehouse's schema (the Definitions built inside the block have their assets)."""
    previous = graph()
    tables = {t.name: t for s in stages for t in s.tables}
    clashing = set(tables) & set(TABLES)
    if clashing:
        raise ValueError(f"tables declared twice: {sorted(clashing)}")
    added = StageGraph((*previous.stages, *stages))
    TABLES.update(tables)
    _added.append(added)
    try:
        yield added
    finally:
        _added.remove(added)
        for name in tables:
            TABLES.pop(name, None)
