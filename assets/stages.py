"""The stages, declared once: what each reads and writes, the table whose partition marks a shard done, the
stages it comes after, the rule that says where it must run again, and where its asset is.

Plain Python (no Dagster). A :class:`StageGraph` is a set of declarations with what follows from them:
the order (a topological sort of their ``after`` fields, the same graph the assets are built with as
their ``deps`` in orchestration/definitions.py), the stages ``assay run`` takes a range of shards
through, and the tables carried to a new extractor version. The Definitions, ``assay run``'s plan
(orchestration/runner.py), the automation's stale rules (orchestration/automation.py), the home's lock,
the carry-forward (assets/carry.py), the table contracts and the catalog's views read :func:`graph`:
the project's stages (:data:`DECLARED`), and those a caller adds with :func:`declared`.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from graphlib import TopologicalSorter
from types import MappingProxyType
from typing import Any

from assets import plans
from warehouse import Warehouse
from warehouse.schema import TABLES, Table

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
    row count in Dagster (by default the done table).

    ``asset`` is where its Dagster asset is, as ``module:attribute`` (imported when the Definitions are
    built, so that planning a run imports no stage's code); ``checked`` the tables whose contracts are
    checked on the shards it wrote; ``closes``: it comes after every stage of shards (the catalog).
    ``tables`` are the tables a stage brings of its own (the project's are in warehouse/schema.py), each
    with its row record, whose fields declare its columns and its contract; registered while it is
    declared."""

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

    def stale_shards(
        self,
        wh: Warehouse,
        version: str,
        within: Collection[str] | None = None,
        lost: Sequence[tuple[str, str | None]] | None = None,
    ) -> list[str]:
        """The stage's rule, and the shards where a partition it wrote is ``lost`` (by default
        :meth:`StageGraph.lost` now)."""
        if not self.partitioned or self.stale is None:
            raise TypeError(f"{self.name} is not a stage of shards")
        stale = set(self.stale(wh, version, within))  # type: ignore[call-arg]
        gone = {s for t, s in (graph().lost(wh, version) if lost is None else lost) if t in self.writes}
        return sorted(stale | {s for s in gone if s is not None and (within is None or s in within)})


def _within(shards: Sequence[str], within: Collection[str] | None) -> list[str]:
    return [s for s in shards if within is None or s in within]


def newer_input(source: str, outputs: Sequence[str]) -> ShardRule:
    """The rule of a stage of shards that reads ``source`` and writes ``outputs``: a shard runs again
    where ``source`` was written after one of ``outputs``, or an output is missing."""
    return lambda wh, version, within=None: _within(plans.plan_after(wh, version, source, outputs), within)


def _catalog_stale(wh: Warehouse, version: str) -> bool:
    from warehouse.duckdb_catalog import catalog_current

    return not catalog_current(wh, version)


SANITIZE_WRITES = ("unsanitized", "texts", "redactions", "hidden_text", "clean_tables", "furniture")

#: The project's stages. Adding one is a module with its asset (assets/factory.py ``shard_stage`` makes a
#: stage of shards' asset from its declaration) and one declaration here, or in a :func:`declared` block.
DECLARED: tuple[Stage, ...] = (
    Stage(
        "walk",
        after=(),
        reads=(),
        writes=("observations", "documents"),
        partitioned=False,
        asset="assets.walk:walk",
        group="ingest",
        description="Inventory of the corpus roots: observations (one per path) and documents (one per "
        "distinct sha256), with the content kind sniffed from the bytes.",
        job="Walk the roots (ASSAY_ROOTS, or the roots given in the run config).",
        checked=("documents",),
    ),
    Stage(
        "extract",
        after=("walk",),
        reads=("documents",),
        writes=("underivables", "pages", "page_fonts", "tables", "derivations"),
        partitioned=True,
        stale=lambda wh, version, within=None: plans.plan_extract(wh, version, within).shards,
        asset="assets.extract.asset:extract",
        group="ingest",
        description="Text per page from the readers for each content kind, tried in order; one derivation "
        "per document and one Underivable per attempt that produced nothing.",
        job="Extract a range of shards; backfills run in batches of the backfill policy.",
        checked=("derivations", "pages"),
    ),
    Stage(
        "vocabulary",
        after=("extract",),
        reads=("pages",),
        writes=("vocabulary",),
        partitioned=False,
        stale=lambda wh, version: not wh.has_partition("vocabulary", version),
        asset="assets.vocabulary:vocabulary",
        group="judge",
        description="Words missing from the lexicon of their language that occur in three or more distinct "
        "documents (a garbled token occurs in one): the corpus's own vocabulary, feeding the lexicon tier.",
        job="Harvest the corpus vocabulary from the extracted pages.",
    ),
    Stage(
        "verdicts",
        after=("extract", "vocabulary"),
        reads=("documents", "pages", "page_fonts", "vocabulary"),
        writes=("font_verdicts", "repairs", "page_verdicts"),
        partitioned=True,
        stale=lambda wh, version, within=None: _within(plans.plan_verdicts(wh, version), within),
        asset="assets.verdicts.asset:verdicts",
        group="judge",
        description="One mode per page (TEXT, FIGURES, REPLACE, REPAIRED, LANG, BLANK) with reason codes "
        "and a provenance, per-font evidence across each document, and the repairs made without OCR.",
        job="Judge a range of shards' pages; backfills run in batches of the backfill policy.",
        checked=("page_verdicts",),
    ),
    Stage(
        "ocr",
        after=("verdicts",),
        reads=("documents", "pages", "page_verdicts", "repairs"),
        writes=("ocr_pages", "page_texts"),
        partitioned=True,
        stale=lambda wh, version, within=None: plans.plan_ocr(wh, version, within).shards,
        asset="assets.ocr.asset:ocr",
        group="judge",
        description="Tesseract on the pages whose verdict is REPLACE, on image documents and on the figure "
        "regions of FIGURES pages: text, language, rotation, word confidences (ocr_pages); then each "
        "judged page's final text and its source (page_texts). A page read as nothing is underivable, "
        "never an empty text.",
        job="Read the REPLACE pages of a range of shards with Tesseract.",
        checked=("ocr_pages", "page_texts"),
    ),
    Stage(
        "sanitize",
        after=("ocr",),
        reads=("documents", "page_texts", "page_verdicts", "pages", "tables"),
        writes=SANITIZE_WRITES,
        partitioned=True,
        stale=newer_input("page_texts", SANITIZE_WRITES),
        counted="texts",
        asset="assets.sanitize:sanitize",
        group="publish",
        description="One markdown text per document (texts), normalised, without invisible text "
        "(hidden_text), running headers and footers (furniture) or personal data (redactions: kind, page "
        "and offsets, never the value); its tables as data with the same placeholders (clean_tables); a "
        "long text in a worker under the per-document budget, a "
        "document it could not sanitize in unsanitized.",
        job="One clean text per document of a range of shards: hidden text, furniture and personal data out.",
        checked=("texts",),
    ),
    Stage(
        "chunk",
        after=("sanitize",),
        reads=("documents", "texts", "page_verdicts", "page_texts"),
        writes=("unchunked", "chunks"),
        partitioned=True,
        stale=newer_input("texts", ("unchunked", "chunks")),
        asset="assets.chunk:chunk",
        group="publish",
        description="Chunks of each text (chunks): split along the headings to a target size with an "
        "overlap, never inside a table row, each with its heading path, pages, language, sources and "
        "trust (the minimum over its pages); a long text in a worker under the per-document budget, a "
        "text it could not chunk in unchunked.",
        job="Split the texts of a range of shards into chunks with their evidence.",
        checked=("chunks",),
    ),
    Stage(
        "catalog",
        after=(),
        reads=(),
        writes=(),
        partitioned=False,
        stale=_catalog_stale,
        asset="assets.catalog:catalog",
        group="publish",
        description="The DuckDB catalog: views over every table's Parquet files, current version and all_; "
        "the fallback and Underivable rates (after OCR) over the whole corpus.",
        job="Rebuild the DuckDB catalog and judge the corpus-wide rates.",
        closes=True,
    ),
)


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
        #: shards to the last, the corpus vocabulary between (orchestration/definitions.py
        #: ``assay_shards``).
        self.shard_stages: tuple[str, ...] = tuple(
            s.name for s in self.order[partitioned[0] : partitioned[-1] + 1]
        )
        #: The stages of shards alone (one step each per shard of a run's range), in order.
        self.partitioned_stages: tuple[str, ...] = tuple(self.order[i].name for i in partitioned)
        #: The stages after the corpus vocabulary: what judges, OCRs, sanitizes and chunks a range.
        self.judged_stages: tuple[str, ...] = self.shard_stages[self.shard_stages.index("vocabulary") + 1 :]
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
    def closing(self) -> tuple[Stage, ...]:
        """The stages that come after every stage of shards (the catalog)."""
        return tuple(s for s in self.order if s.closes)

    def lost(self, wh: Warehouse, version: str) -> list[tuple[str, str | None]]:
        """The partitions a stage wrote that are not there (deleted, or set aside unreadable), as (table,
        shard; None for a corpus-wide table). A table's partition of a shard is known to have been
        written when a table written after it has that shard's: its stage's done table (written last),
        or a table of a later stage; for the last stage of shards, when the catalog (built at the end of
        every run) is newer than the partitions the stage reads there."""
        present = {
            t: set(wh.shards(t, version))
            if TABLES[t].sharded
            else ({None} if wh.has_partition(t, version) else set())
            for s in self.order
            for t in s.writes
        }
        last = self.order.index(next(s for s in reversed(self.order) if s.partitioned))
        lost: list[tuple[str, str | None]] = []
        for i, stage in enumerate(self.order):
            later = [t for s in self.order[i + 1 :] for t in s.writes]
            for table in stage.writes:
                after = [*later, *([stage.done] if table != stage.done else [])]
                if not TABLES[table].sharded:
                    if not present[table] and any(present[t] for t in after):
                        lost.append((table, None))
                    continue
                known = {s for t in after if TABLES[t].sharded for s in present[t]}
                if i == last:
                    known |= _run_through(wh, version, stage)
                lost += [(table, shard) for shard in sorted(known - present[table])]
        return lost

    def later_work(self, wh: Warehouse, version: str) -> list[str]:
        """The shards on which a stage after the first stage of shards has work."""
        todo: set[str] = set()
        lost = self.lost(wh, version)
        for stage in self.order:
            if stage.partitioned and stage is not self.first_of_shards:
                todo |= set(stage.stale_shards(wh, version, lost=lost))
        return sorted(todo)


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


_graph = StageGraph(DECLARED)


def graph() -> StageGraph:
    """The stages in effect: the project's, and any added by an enclosing :func:`declared`."""
    return _graph


@contextlib.contextmanager
def declared(*stages: Stage) -> Iterator[StageGraph]:
    """Add ``stages`` to the graph for the block, their own tables (and so their contracts) registered
    with the warehouse's schema (the Definitions built inside the block have their assets)."""
    global _graph
    previous = _graph
    tables = {t.name: t for s in stages for t in s.tables}
    clashing = set(tables) & set(TABLES)
    if clashing:
        raise ValueError(f"tables declared twice: {sorted(clashing)}")
    _graph = StageGraph((*previous.stages, *stages))
    TABLES.update(tables)
    try:
        yield _graph
    finally:
        _graph = previous
        for name in tables:
            TABLES.pop(name, None)
