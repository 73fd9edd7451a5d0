"""Run the pipeline in process over the shards a walk touched: what ``assay run`` does.

walk (``assay_walk``) → the shards with work through the shard stages (``assay_shards``: extract,
vocabulary, verdicts, OCR, sanitize, chunk), in one run over the range that holds them all where that is
cheapest, else in ranges of at most 32 contiguous keys (the planner's steps: assets/planner.py
:func:`run_steps`) → the catalog and the
quality report (``assay_corpus``). Every run is a real Dagster run recorded in the instance under the
assay home, so ``assay ui`` shows them.

The whole holds the home's lock (assets/lock.py), so no other writer runs meanwhile, and stops on
SIGINT or SIGTERM between two steps (orchestration/stopping.py): the step running is interrupted, its
Dagster run recorded as canceled, no later stage runs, and :class:`Interrupted` is raised.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg

from assets.lock import Holder, home_lock
from assets.planner import RunStep, closing_due, lost, run_steps, stale_shards
from assets.progress import Progress
from assets.resources import resource_from_env
from assets.shard_keys import RANGE_END_TAG, RANGE_START_TAG, SHARDS_PER_RUN
from assets.stages import graph
from orchestration.definitions import make_definitions
from orchestration.home import Home
from orchestration.run_instance import QUIET_LOGS, RUN_INSTANCE_YAML
from orchestration.run_tags import COMMAND_TAG, new_run_id, run_command, run_tags
from orchestration.sqlite_sync import commit_without_sync
from orchestration.stopping import Interrupted, StopSignals
from readers.core.versions import EXTRACTOR_VERSION
from readers.walk.inventory import at_or_under, display_path
from warehouse import Warehouse
from warehouse.store import COMPACT_PREFIX, PART_FILE, parquet_damage


@dataclass
class RunFailure:
    stage: str
    run_id: str
    message: str


@dataclass(frozen=True)
class CheckOutcome:
    asset: str
    name: str
    passed: bool
    severity: str
    over_bound: dict[str, float]
    bound: float | None


@dataclass(frozen=True)
class Repair:
    """A partition the run found lost or unreadable, and wrote again from its inputs: ``path`` under the
    warehouse's tables, what was wrong, where an unreadable file was set aside, and whether the stages
    have written it again (not when the stage that writes it failed)."""

    path: str
    problem: str
    set_aside: str | None = None
    rewritten: bool = False
    current: bool = True  # of the current extractor version (the stages write no other)

    def line(self) -> str:
        aside = f", set aside as {self.set_aside}" if self.set_aside else ""
        if self.rewritten:
            done = "derived again from its inputs"
        elif not self.current:
            done = "another extractor version's, which no stage writes again"
        else:
            done = "not derived again yet (see the failures)"
        return f"{self.path} was {self.problem}{aside}: {done}."


@dataclass
class RunReport:
    roots: list[Path]
    touched_shards: list[str] = field(default_factory=list)
    runs: int = 0
    failures: list[RunFailure] = field(default_factory=list)
    checks: list[CheckOutcome] = field(default_factory=list)
    seconds: float = 0.0
    forced: list[str] = field(default_factory=list)  # paths of the documents read again on request
    repaired: list[Repair] = field(default_factory=list)  # partitions found lost or unreadable
    assay_run: str = ""  # the id its Dagster runs are tagged with (orchestration/run_tags.py)

    @property
    def ok(self) -> bool:
        return not self.failures


class Pipeline:
    """The three stages as Dagster runs against the instance in the assay home, each tagged with the id
    of this pipeline and the command it does (orchestration/run_tags.py)."""

    def __init__(
        self,
        home: Home,
        progress: Progress,
        shards_per_run: int = SHARDS_PER_RUN,
        command: str | None = None,
    ) -> None:
        home.prepare()
        self.home = home
        self.progress = progress
        self.shards_per_run = shards_per_run
        # The ASSAY_* settings of the environment (read budgets, rate bounds, OCR ...), in this home.
        self.settings = resource_from_env({**os.environ, "ASSAY_HOME": str(home.path)})
        self.defs = make_definitions(self.settings, progress)
        self._stop: StopSignals | None = None
        self.run_id = new_run_id()
        self.tags = run_tags(self.run_id, command)

    @functools.cached_property
    def instance(self) -> dg.DagsterInstance:
        """The home's Dagster instance, opened on first use: inside :meth:`writing`, once the home's lock
        is held, so a run that must wait or be refused never opens SQLite files another run is writing."""
        return _instance(self.home)

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the home's lock and take SIGINT and SIGTERM as a request to stop, for the block (once: a
        nested block is part of the outer one)."""
        if self._stop is not None:
            yield
            return
        with StopSignals() as stop:
            self._stop = stop
            try:
                with home_lock(self.home.path, wait_s=self.settings.lock_wait_s, on_wait=self._waiting):
                    yield
            finally:
                self._stop = None

    def _waiting(self, holder: Holder, left: float) -> None:
        if self._stop is not None:
            self._stop.check()
        self.progress.waiting(f"waiting up to {left:.0f} s for the run writing here: {holder.describe()}")

    def walk(self, roots: list[Path], report: RunReport) -> bool:
        """The opening stage (the walk) over ``roots``."""
        opening = graph().opening
        config = {"ops": {opening.name: {"config": {"roots": [str(r) for r in roots]}}}, **QUIET_LOGS}
        return self._execute(opening.job_name, report, opening.name, run_config=config)

    def step(self, step: RunStep, report: RunReport) -> bool:
        """One step of the planner's (assets/planner.py): stages of shards over its ranges, or a
        corpus-wide stage alone."""
        if step.of_shards:
            return self.shard_stages(step.stages, step.ranges, report)
        (name,) = step.stages
        return self._execute(graph().by_name[name].job_name, report, name, run_config=QUIET_LOGS)

    def shard_stages(
        self, stages: Sequence[str], ranges: Sequence[tuple[str, str]], report: RunReport
    ) -> bool:
        """Run ``stages`` (of the ``assay_shards`` job, in the asset graph's order): one Dagster run per
        range of shard keys of ``ranges``."""
        selection = [dg.AssetKey(stage) for stage in stages]
        ok = True
        for start, end in ranges:
            tags = {RANGE_START_TAG: start, RANGE_END_TAG: end}
            ok &= self._execute(
                "assay_shards",
                report,
                f"{'+'.join(stages)} {start}..{end}",
                run_config=QUIET_LOGS,
                tags=tags,
                asset_selection=selection,
            )
        return ok

    def calibrate(self, report: RunReport) -> dict[str, object]:
        """Run the calibration asset; returns its materialization metadata (plain values)."""
        with self.writing():
            result = self._launch("assay_calibration", run_config=QUIET_LOGS, tags={COMMAND_TAG: "calibrate"})
        self._record(result, report, "calibration")
        metadata: dict[str, object] = {}
        for event in result.get_asset_materialization_events():
            for key, value in event.materialization.metadata.items():
                metadata[key] = value.value
        return metadata

    def corpus(self, report: RunReport) -> bool:
        """The catalog and its corpus-wide checks, and the quality report's plots, in one run (the plots
        are drawn even when a catalog check failed: they help see why)."""
        name = "+".join(s.name for s in graph().closing)
        self.progress.stage(name, 1)
        try:
            return self._execute("assay_corpus", report, name, run_config=QUIET_LOGS)
        finally:
            self.progress.stage_done(name)

    def _execute(self, job_name: str, report: RunReport, stage: str, **kwargs) -> bool:
        return self._record(self._launch(job_name, **kwargs), report, stage)

    def _launch(self, job_name: str, **kwargs) -> dg.ExecuteInProcessResult:
        """One Dagster run, unless a stop was asked for; a run a signal interrupted is recorded as canceled
        (its checks then show as skipped, not failed) and the stop raised."""
        stop = self._stop
        if stop is not None:
            stop.check()
        job = self.defs.resolve_job_def(job_name)
        if "asset_selection" in kwargs:
            # The job's own checks of the assets selected, not every check on them (the data-quality
            # checks run once, in assay_corpus: assets/data_quality.py).
            selected = set(kwargs.pop("asset_selection"))
            checks = {k for k in job.asset_layer.asset_graph.asset_check_keys if k.asset_key in selected}
            job = job.get_subset(asset_selection=selected, asset_check_selection=checks)
        tags = {**self.tags, **kwargs.pop("tags", {})}
        result = job.execute_in_process(instance=self.instance, raise_on_error=False, tags=tags, **kwargs)
        signum = stop.signum if stop is not None else None
        if signum is not None:
            run = self.instance.get_run_by_id(result.run_id)
            if not result.success and run is not None:
                self.instance.report_run_canceled(run, f"stopped by {_signal_name(signum)}; {RERUN}")
            raise Interrupted(signum)
        return result

    def _record(self, result: dg.ExecuteInProcessResult, report: RunReport, stage: str) -> bool:
        report.runs += 1
        for evaluation in result.get_asset_check_evaluations():
            meta = evaluation.metadata
            report.checks.append(
                CheckOutcome(
                    asset=evaluation.asset_key.to_user_string(),
                    name=evaluation.check_name,
                    passed=evaluation.passed,
                    severity=evaluation.severity.value,
                    over_bound=dict(meta["over_bound"].value) if "over_bound" in meta else {},
                    bound=meta["bound"].value if "bound" in meta else None,
                )
            )
        if not result.success:
            report.failures.append(RunFailure(stage, result.run_id, _failure_message(result)))
        return result.success


def run(
    home: Home,
    roots: list[Path],
    progress: Progress,
    *,
    shards_per_run: int = SHARDS_PER_RUN,
    on_stage: Callable[[str, int | None], None] | None = None,
    force: bool = False,
) -> RunReport:
    """Walk ``roots``, take the touched shards through the stages, rebuild the catalog. ``on_stage`` is
    told each stage as it begins its work (before it reads anything), with its total when known.
    ``force``: the documents at or under ``roots`` are derived again by every stage, from their bytes."""
    if on_stage is not None:
        progress.listeners.append(on_stage)
    pipeline = Pipeline(home, progress, shards_per_run, command=run_command([str(r) for r in roots]))
    with pipeline.writing():
        return _run(pipeline, roots, force=force)


def _run(pipeline: Pipeline, roots: list[Path], *, force: bool = False) -> RunReport:
    """walk; then every shard stage that has work, over the shards that have it, in as few runs as the
    ranges allow; then the catalog and the report when anything changed."""
    started = time.perf_counter()
    home, progress = pipeline.home, pipeline.progress
    wh = home.warehouse
    report = RunReport(roots=roots, assay_run=pipeline.run_id)
    removed = wh.remove_stale_temporaries()
    if removed:
        progress.stage("cleanup", removed)
    found = _damage(wh)
    progress.stage(graph().opening.name, None)
    if pipeline.walk(roots, report):
        if force:
            report.forced = _forget(wh, roots)
        touched = stale_shards(graph().first_of_shards, wh, EXTRACTOR_VERSION)
        report.touched_shards = list(touched)
        # The catalog is rebuilt when a stage ran, or when it is missing, of another version or older
        # than a partition (its compacted copies are a snapshot: warehouse/compaction.py).
        ran = False
        for step in run_steps(wh, EXTRACTOR_VERSION, touched, pipeline.shards_per_run):
            pipeline.step(step, report)
            ran = True
        if ran or closing_due(wh, EXTRACTOR_VERSION):
            pipeline.corpus(report)
    report.repaired = [dataclasses.replace(r, rewritten=_rewritten(wh, r)) for r in found]
    report.seconds = time.perf_counter() - started
    return report


def _rewritten(wh: Warehouse, repair: Repair) -> bool:
    """The repaired file is whole again (a compacted copy: the catalog that makes it again is built)."""
    path = wh.data_dir / repair.path
    if path.name.startswith(COMPACT_PREFIX):
        return wh.catalog_path.is_file()
    if path.is_dir():  # a table missing in full: whole again when every partition written is readable
        parts = list(path.glob(f"shard=*/{PART_FILE}"))
        return bool(parts) and all(parquet_damage(p) is None for p in parts)
    return path.is_file() and parquet_damage(path) is None


def _damage(wh: Warehouse) -> list[Repair]:
    """The partitions that are unreadable (each set aside, so that no reader trips on it and its stage
    writes it again) or lost (deleted: :func:`assets.planner.lost`)."""
    found = []
    for path, why in wh.damaged():
        aside = wh.set_aside(path)
        current = f"extractor_version={EXTRACTOR_VERSION}" in path.parts
        where = str(path.relative_to(wh.data_dir))
        found.append(Repair(where, f"unreadable ({why})", str(aside) if aside else None, current=current))
    seen = {r.path for r in found}
    whole: set[str] = set()
    for table, shard in lost(wh, EXTRACTOR_VERSION):
        if shard is not None and not wh.shards(table, EXTRACTOR_VERSION):
            # No partition of the table at all: one line for the table, not one per shard (a table this
            # version of assay adds to a home made before it, or a table removed whole).
            if table not in whole:
                whole.add(table)
                path = str(
                    wh.partition_path(table, EXTRACTOR_VERSION, shard).parent.parent.relative_to(wh.data_dir)
                )
                found.append(Repair(path, "missing in full (a table new to this assay, or removed)"))
            continue
        path = str(wh.partition_path(table, EXTRACTOR_VERSION, shard).relative_to(wh.data_dir))
        if path not in seen:
            found.append(Repair(path, "missing"))
    return found


def _forget(wh: Warehouse, roots: list[Path]) -> list[str]:
    """Take the documents walked at or under ``roots`` out of every stage's tables, so that each stage
    derives them again (``assay run --force``); returns their paths."""
    given = [display_path(os.path.abspath(r)) for r in roots]
    found = [
        (row["path"], row["sha256"])
        for row in wh.rows("observations", EXTRACTOR_VERSION)
        if row["sha256"] and at_or_under(row["path"], given)
    ]
    wh.forget(EXTRACTOR_VERSION, {sha for _, sha in found})
    return sorted({path for path, _ in found})


RERUN = "rerun the same command to finish"


def _instance(home: Home) -> dg.DagsterInstance:
    """The home's instance as ``assay run``'s own runs use it: without compute log capture
    (orchestration/run_instance.py ``RUN_INSTANCE_YAML`` says why), its SQLite files committed without
    waiting for the disk (orchestration/sqlite_sync.py)."""
    commit_without_sync(home.dagster_home)
    return dg.DagsterInstance.from_config(str(home.dagster_home), config_filename=RUN_INSTANCE_YAML)


def _signal_name(signum: int) -> str:
    return signal.Signals(signum).name


#: How a stage run's failure message starts when a blocking check failed, not the stage's own work.
BLOCKING_CHECK_FAILED = "blocking check failed"


def _failure_message(result: dg.ExecuteInProcessResult) -> str:
    blocked = [
        e
        for e in result.get_asset_check_evaluations()
        if not e.passed and e.blocking and e.severity == dg.AssetCheckSeverity.ERROR
    ]
    if blocked:
        names = ", ".join(f"{e.asset_key.to_user_string()}:{e.check_name}" for e in blocked)
        return f"{BLOCKING_CHECK_FAILED}: {names} (its figures: `assay ui`, or the summary below)"
    for event in result.all_events:
        if event.is_failure and event.event_specific_data is not None:
            error = getattr(event.event_specific_data, "error", None)
            while error is not None and error.cause is not None:  # the user code's own error, not Dagster's
                error = error.cause
            if error is not None:
                return error.message.strip().splitlines()[-1] if error.message else str(error)
    return "the run failed; open `assay ui` to see its logs"
