"""Run the pipeline in process over the shards a walk touched: what ``assay run`` does.

walk → the stale shards (documents that the current extractor version has not extracted, or shards whose
documents changed) → extract, in runs of contiguous shard ranges (the backfill policy's batch size) →
catalog. Every run is a real Dagster run recorded in the instance under the assay home, so ``assay ui``
shows them.

The whole holds the home's lock (assets/lock.py), so no other writer runs meanwhile, and stops on
SIGINT or SIGTERM between two steps (orchestration/stopping.py): the step running is interrupted, its
Dagster run recorded as canceled, no later stage runs, and :class:`Interrupted` is raised.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg
from dagster._core.storage.tags import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG

from assets.lock import Holder, home_lock
from assets.partitions import SHARDS_PER_RUN, shard_ranges
from assets.plans import plan_after, plan_extract, plan_ocr, plan_verdicts
from assets.progress import Progress
from assets.resources import settings_from_env
from assets.sanitize import SANITIZE_TABLES
from orchestration.definitions import make_definitions
from orchestration.home import Home
from orchestration.stopping import Interrupted, StopSignals
from readers.versions import EXTRACTOR_VERSION
from warehouse import Warehouse

QUIET_LOGS = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


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


@dataclass
class RunReport:
    roots: list[Path]
    touched_shards: list[str] = field(default_factory=list)
    runs: int = 0
    failures: list[RunFailure] = field(default_factory=list)
    checks: list[CheckOutcome] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures


class Pipeline:
    """The three stages as Dagster runs against the instance in the assay home."""

    def __init__(self, home: Home, progress: Progress, shards_per_run: int = SHARDS_PER_RUN) -> None:
        home.prepare()
        self.home = home
        self.progress = progress
        self.shards_per_run = shards_per_run
        self.instance = _instance(home)
        # The ASSAY_* settings of the environment (read budgets, rate bounds, OCR ...), in this home.
        self.settings = settings_from_env({**os.environ, "ASSAY_HOME": str(home.path)})
        self.defs = make_definitions(self.settings, progress)
        self._stop: StopSignals | None = None

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
        config = {"ops": {"walk": {"config": {"roots": [str(r) for r in roots]}}}, **QUIET_LOGS}
        return self._execute("assay_walk", report, "walk", run_config=config)

    def extract(self, shards: list[str], report: RunReport) -> bool:
        return self._over_shards("assay_extract", "extract", shards, report)

    def ocr(self, shards: list[str], report: RunReport) -> bool:
        return self._over_shards("assay_ocr", "ocr", shards, report)

    def sanitize(self, shards: list[str], report: RunReport) -> bool:
        return self._over_shards("assay_sanitize", "sanitize", shards, report)

    def chunk(self, shards: list[str], report: RunReport) -> bool:
        return self._over_shards("assay_chunk", "chunk", shards, report)

    def verdicts(self, shards: list[str], report: RunReport) -> bool:
        return self._over_shards("assay_verdicts", "verdicts", shards, report)

    def _over_shards(self, job: str, stage: str, shards: list[str], report: RunReport) -> bool:
        ok = True
        for start, end in shard_ranges(shards, self.shards_per_run):
            tags = {ASSET_PARTITION_RANGE_START_TAG: start, ASSET_PARTITION_RANGE_END_TAG: end}
            ok &= self._execute(job, report, f"{stage} {start}..{end}", run_config=QUIET_LOGS, tags=tags)
        return ok

    def vocabulary(self, report: RunReport) -> bool:
        return self._execute("assay_vocabulary", report, "vocabulary", run_config=QUIET_LOGS)

    def calibrate(self, report: RunReport) -> dict[str, object]:
        """Run the calibration asset; returns its materialization metadata (plain values)."""
        with self.writing():
            result = self._launch("assay_calibration", run_config=QUIET_LOGS)
        self._record(result, report, "calibration")
        metadata: dict[str, object] = {}
        for event in result.get_asset_materialization_events():
            for key, value in event.materialization.metadata.items():
                metadata[key] = value.value
        return metadata

    def catalog(self, report: RunReport) -> bool:
        return self._execute("assay_catalog", report, "catalog", run_config=QUIET_LOGS)

    def quality_report(self, report: RunReport) -> bool:
        return self._execute("assay_report", report, "report", run_config=QUIET_LOGS)

    def _execute(self, job_name: str, report: RunReport, stage: str, **kwargs) -> bool:
        return self._record(self._launch(job_name, **kwargs), report, stage)

    def _launch(self, job_name: str, **kwargs) -> dg.ExecuteInProcessResult:
        """One Dagster run, unless a stop was asked for; a run a signal interrupted is recorded as canceled
        (its checks then show as skipped, not failed) and the stop raised."""
        stop = self._stop
        if stop is not None:
            stop.check()
        job = self.defs.resolve_job_def(job_name)
        result = job.execute_in_process(instance=self.instance, raise_on_error=False, **kwargs)
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
    home: Home, roots: list[Path], progress: Progress, *, shards_per_run: int = SHARDS_PER_RUN, on_stage=None
) -> RunReport:
    """Walk ``roots``, extract the touched shards, rebuild the catalog."""
    pipeline = Pipeline(home, progress, shards_per_run)
    with pipeline.writing():
        return _run(pipeline, roots, on_stage)


def _run(pipeline: Pipeline, roots: list[Path], on_stage) -> RunReport:
    started = time.perf_counter()
    home = pipeline.home
    report = RunReport(roots=roots)
    removed = home.warehouse.remove_stale_temporaries()
    if removed and on_stage:
        on_stage("cleanup", removed)
    if on_stage:
        on_stage("walk", None)
    if pipeline.walk(roots, report):
        plan = plan_extract(home.warehouse, EXTRACTOR_VERSION)
        report.touched_shards = plan.shards
        if on_stage:
            on_stage("extract", plan.pending)
        if report.touched_shards:
            pipeline.extract(report.touched_shards, report)
        if report.touched_shards or not home.warehouse.has_partition("vocabulary", EXTRACTOR_VERSION):
            pipeline.vocabulary(report)
        judge = plan_verdicts(home.warehouse, EXTRACTOR_VERSION)
        if judge:
            if on_stage:
                on_stage("verdicts", None)
            pipeline.verdicts(judge, report)
        to_read = plan_ocr(home.warehouse, EXTRACTOR_VERSION)
        if to_read.shards:
            if on_stage:
                on_stage("ocr", to_read.pages)
            pipeline.ocr(to_read.shards, report)
        clean = plan_after(home.warehouse, EXTRACTOR_VERSION, "page_texts", SANITIZE_TABLES)
        if clean:
            if on_stage:
                on_stage("sanitize", None)
            pipeline.sanitize(clean, report)
        cut = plan_after(home.warehouse, EXTRACTOR_VERSION, "texts", ("chunks",))
        if cut:
            if on_stage:
                on_stage("chunk", None)
            pipeline.chunk(cut, report)
        if (
            report.touched_shards
            or judge
            or to_read.shards
            or clean
            or cut
            or not _catalog_current(home.warehouse)
        ):
            if on_stage:
                on_stage("catalog", None)
            pipeline.catalog(report)
            # Drawn even when a catalog check failed: the plots help see why.
            if on_stage:
                on_stage("report", None)
            pipeline.quality_report(report)
    report.seconds = time.perf_counter() - started
    return report


RERUN = "rerun the same command to finish"
# The runs of ``assay run`` write their output to the terminal themselves: Dagster's default compute log
# manager would capture it for the web UI through a `tail -F` and a watcher interpreter per stream and
# step, which Ctrl-C (sent to the terminal's whole process group) makes print a KeyboardInterrupt
# traceback each; what those steps print is the progress bar, nothing the UI needs. Runs the daemon or the
# UI launch keep the instance's compute log manager.
NO_COMPUTE_LOGS = {
    "compute_logs": {
        "module": "dagster._core.storage.noop_compute_log_manager",
        "class": "NoOpComputeLogManager",
    }
}


def _instance(home: Home) -> dg.DagsterInstance:
    """The instance of the home (its ``dagster.yaml``), without compute log capture."""
    from dagster._core.instance.ref import InstanceRef

    ref = InstanceRef.from_dir(str(home.dagster_home), overrides=NO_COMPUTE_LOGS)
    return dg.DagsterInstance.from_ref(ref)


def _signal_name(signum: int) -> str:
    return signal.Signals(signum).name


def _catalog_current(wh: Warehouse) -> bool:
    """The catalog exists and was built for the current extractor version: with no shard touched, its
    views (which glob the partitions at query time) already show everything."""
    from warehouse.catalog import catalog_version

    return catalog_version(wh) == EXTRACTOR_VERSION


def _failure_message(result: dg.ExecuteInProcessResult) -> str:
    blocked = [
        e
        for e in result.get_asset_check_evaluations()
        if not e.passed and e.blocking and e.severity == dg.AssetCheckSeverity.ERROR
    ]
    if blocked:
        names = ", ".join(f"{e.asset_key.to_user_string()}:{e.check_name}" for e in blocked)
        return f"blocking check failed: {names} (its figures: `assay ui`, or the summary below)"
    for event in result.all_events:
        if event.is_failure and event.event_specific_data is not None:
            error = getattr(event.event_specific_data, "error", None)
            while error is not None and error.cause is not None:  # the user code's own error, not Dagster's
                error = error.cause
            if error is not None:
                return error.message.strip().splitlines()[-1] if error.message else str(error)
    return "the run failed; open `assay ui` to see its logs"
