"""The stages, declared once: what each reads and writes, the table whose partition marks a shard done, the
stages it comes after and the rule that says where it must run again.

Plain Python (no Dagster). The order of the stages is the graph their ``after`` fields draw (a
topological sort, the same graph the assets' ``deps`` are made from); ``assay run``'s plan
(orchestration/runner.py), the automation's stale rules (orchestration/automation.py), the carry-forward
to a new extractor version (:data:`CARRIED_TABLES`) and the assets' dependencies read these declarations.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from graphlib import TopologicalSorter
from types import MappingProxyType

from assets import plans
from warehouse import Warehouse

#: Where a partitioned stage must run again: the stale shards (of ``within`` only, when given).
ShardRule = Callable[[Warehouse, str, Collection[str] | None], Sequence[str]]
#: Whether an unpartitioned stage must run again.
CorpusRule = Callable[[Warehouse, str], bool]


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage of the pipeline, as data.

    ``writes`` are in the order the stage writes them per shard: the last (:attr:`done`) marks the shard
    done, so a run killed between two writes does the shard again (docs/decisions.md, "A stage writes its
    done table last"). ``stale`` is the stage's rule: for a partitioned stage, the shards to run again;
    for a corpus-wide one, whether to run at all. ``counted`` is the table whose rows are the stage's
    row count in Dagster (by default the done table)."""

    name: str
    after: tuple[str, ...]
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    partitioned: bool
    stale: ShardRule | CorpusRule | None = None
    counted: str | None = None

    @property
    def done(self) -> str | None:
        return self.writes[-1] if self.writes else None

    @property
    def counted_table(self) -> str | None:
        return self.counted or self.done

    def stale_shards(self, wh: Warehouse, version: str, within: Collection[str] | None = None) -> list[str]:
        if not self.partitioned or self.stale is None:
            raise TypeError(f"{self.name} is not a stage of shards")
        return list(self.stale(wh, version, within))  # type: ignore[call-arg]


def _within(shards: Sequence[str], within: Collection[str] | None) -> list[str]:
    return [s for s in shards if within is None or s in within]


def _newer_input(source: str, outputs: Sequence[str]) -> ShardRule:
    """Stale where ``source`` was written after one of ``outputs`` (or an output is missing)."""
    return lambda wh, version, within=None: _within(plans.plan_after(wh, version, source, outputs), within)


def _catalog_stale(wh: Warehouse, version: str) -> bool:
    from warehouse.catalog import catalog_version

    return catalog_version(wh) != version


SANITIZE_WRITES = ("texts", "redactions", "hidden_text", "furniture")

STAGES: tuple[Stage, ...] = (
    Stage("walk", after=(), reads=(), writes=("observations", "documents"), partitioned=False),
    Stage(
        "extract",
        after=("walk",),
        reads=("documents",),
        writes=("underivables", "pages", "page_fonts", "derivations"),
        partitioned=True,
        stale=lambda wh, version, within=None: plans.plan_extract(wh, version, within).shards,
    ),
    Stage(
        "vocabulary",
        after=("extract",),
        reads=("pages",),
        writes=("vocabulary",),
        partitioned=False,
        stale=lambda wh, version: not wh.has_partition("vocabulary", version),
    ),
    Stage(
        "verdicts",
        after=("extract", "vocabulary"),
        reads=("documents", "pages", "page_fonts", "vocabulary"),
        writes=("font_verdicts", "repairs", "page_verdicts"),
        partitioned=True,
        stale=lambda wh, version, within=None: _within(plans.plan_verdicts(wh, version), within),
    ),
    Stage(
        "ocr",
        after=("verdicts",),
        reads=("documents", "pages", "page_verdicts", "repairs"),
        writes=("ocr_pages", "page_texts"),
        partitioned=True,
        stale=lambda wh, version, within=None: plans.plan_ocr(wh, version, within).shards,
    ),
    Stage(
        "sanitize",
        after=("ocr",),
        reads=("documents", "page_texts", "page_verdicts", "pages"),
        writes=SANITIZE_WRITES,
        partitioned=True,
        stale=_newer_input("page_texts", SANITIZE_WRITES),
        counted="texts",
    ),
    Stage(
        "chunk",
        after=("sanitize",),
        reads=("texts", "page_verdicts", "page_texts"),
        writes=("chunks",),
        partitioned=True,
        stale=_newer_input("texts", ("chunks",)),
    ),
    Stage(
        "catalog",
        after=("extract", "verdicts", "ocr", "sanitize", "chunk"),
        reads=(),
        writes=(),
        partitioned=False,
        stale=_catalog_stale,
    ),
)


def _ordered(stages: Sequence[Stage]) -> tuple[Stage, ...]:
    """The stages in the order their ``after`` graph gives (declaration order between independent ones)."""
    by_name = {s.name: s for s in stages}
    unknown = {a for s in stages for a in s.after} - set(by_name)
    if unknown:
        raise ValueError(f"stages come after undeclared stages: {sorted(unknown)}")
    sorter = TopologicalSorter({s.name: s.after for s in stages})
    sorter.prepare()
    order: list[str] = []
    position = {s.name: i for i, s in enumerate(stages)}
    while sorter.is_active():
        ready = sorted(sorter.get_ready(), key=position.__getitem__)
        order += ready
        sorter.done(*ready)
    return tuple(by_name[name] for name in order)


ORDER: tuple[Stage, ...] = _ordered(STAGES)
BY_NAME = MappingProxyType({s.name: s for s in ORDER})
_PARTITIONED = [i for i, s in enumerate(ORDER) if s.partitioned]
#: The stages ``assay run`` takes a range of shards through in one run: from the first stage of shards to
#: the last, the corpus vocabulary between (orchestration/definitions.py ``assay_shards``).
SHARD_STAGES: tuple[str, ...] = tuple(s.name for s in ORDER[_PARTITIONED[0] : _PARTITIONED[-1] + 1])
#: The stages after the corpus vocabulary: what judges, OCRs, sanitizes and chunks a range.
JUDGED_STAGES: tuple[str, ...] = SHARD_STAGES[SHARD_STAGES.index("vocabulary") + 1 :]


def _carried(stages: Sequence[Stage]) -> tuple[str, ...]:
    """The tables of the shard stages in pipeline order, each stage's done table after its others, and
    the first stage's done table last of all: its partition is what marks a shard extracted, so a carry
    killed half-way is done again whole."""
    shard_stages = [s for s in stages if s.partitioned]
    first = shard_stages[0].done
    tables = [t for s in shard_stages for t in s.writes if t != first]
    return (*tables, first) if first else tuple(tables)


#: The tables a shard's stages write, in the order :func:`assets.plans.carry_forward` copies them to a new
#: extractor version, so that each stage's output is newer than its input and the planners see the
#: carried shard as up to date.
CARRIED_TABLES: tuple[str, ...] = _carried(ORDER)


def later_work(wh: Warehouse, version: str) -> list[str]:
    """The shards on which a stage after the first stage of shards has work."""
    first = next(s for s in ORDER if s.partitioned)
    todo: set[str] = set()
    for stage in ORDER:
        if stage.partitioned and stage is not first:
            todo |= set(stage.stale_shards(wh, version))
    return sorted(todo)
