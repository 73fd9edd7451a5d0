"""Run the pipeline in process over the shards a walk touched: what ``assay run`` does.

walk → the stale shards (documents that the current extractor version has not extracted, or shards whose
documents changed) → extract, in runs of contiguous shard ranges (the backfill policy's batch size) →
catalog. Every run is a real Dagster run recorded in the instance under the assay home, so ``assay ui``
shows them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg
from dagster._core.storage.tags import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG

from assets.sanitize import SANITIZE_TABLES
from orchestration.definitions import make_definitions
from orchestration.home import Home
from orchestration.partitions import SHARDS_PER_RUN, shard_ranges
from orchestration.progress import Progress
from orchestration.settings import AssaySettings
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


@dataclass(frozen=True, slots=True)
class ExtractPlan:
    """The shards whose documents differ from what the current version has extracted (or that lack a
    partition), and how many documents in them are not extracted yet (the progress bar's total)."""

    shards: list[str]
    pending: int


def plan_extract(wh: Warehouse, version: str) -> ExtractPlan:
    docs = wh.keys_by_shard("documents", version)
    done = wh.keys_by_shard("derivations", version)
    complete = set(done)
    for table in ("underivables", "pages", "page_fonts"):
        complete &= set(wh.shards(table, version))
    stale = sorted(
        shard
        for shard in set(docs) | set(done)
        if docs.get(shard, set()) != done.get(shard, set()) or (docs.get(shard) and shard not in complete)
    )
    pending = sum(len(docs.get(s, set()) - done.get(s, set())) for s in stale)
    return ExtractPlan(stale, pending)


def plan_verdicts(wh: Warehouse, version: str) -> list[str]:
    """Shards whose documents with pages are not all judged under ``version`` with the current rules and
    vocabulary, or that lack a partition."""
    from quality.stage import verdicts_version_for
    from quality.vocabulary import VocabularyWord, by_language

    words = by_language(
        VocabularyWord(r["language"], r["word"], r["documents"]) for r in wh.rows("vocabulary", version)
    )
    current = verdicts_version_for(words)
    paged = wh.keys_by_shard("pages", version)
    judged = wh.keys_by_shard("page_verdicts", version)
    versions = wh.values_by_shard("page_verdicts", version, "verdicts_version")
    return sorted(
        s
        for s in set(paged) | set(judged)
        if paged.get(s, set()) != judged.get(s) or versions.get(s, set()) - {current}
    )


@dataclass(frozen=True, slots=True)
class OcrPlan:
    """The shards the OCR stage must run on, and how many pages it will read (the progress bar's total)."""

    shards: list[str]
    pages: int


def plan_ocr(wh: Warehouse, version: str) -> OcrPlan:
    """Shards whose pages sent to OCR (REPLACE pages, image frames, FIGURES pages' figures) differ from
    the pages OCR has rows for, or whose verdicts were written after their final page texts."""
    from readers.model import ContentKind
    from readers.ocr import installed_version
    from readers.ocr_shard import RENDERABLE, RETRIED_REASONS, SENT_TO_OCR

    renderable = {
        sha
        for sha, kind in wh.columns("documents", version, ("sha256", "kind"))
        if ContentKind(kind) in RENDERABLE
    }
    wanted: dict[str, set[tuple[str, int, str]]] = {}
    for shard, sha, page, mode in wh.columns("page_verdicts", version, ("shard", "sha256", "page", "mode")):
        if mode in SENT_TO_OCR and sha in renderable:
            wanted.setdefault(shard, set()).add((sha, page, SENT_TO_OCR[mode].value))
    done: dict[str, set[tuple[str, int, str]]] = {}
    retry: set[str] = set()
    columns = ("shard", "sha256", "page", "scope", "reason")
    for shard, sha, page, scope, reason in wh.columns("ocr_pages", version, columns):
        done.setdefault(shard, set()).add((sha, page, scope))
        if reason in RETRIED_REASONS:
            retry.add(shard)
    if retry and not installed_version():
        retry = set()  # still nothing to retry with
    judged, final = wh.written_at("page_verdicts", version), wh.written_at("page_texts", version)
    stale = sorted(
        s
        for s in set(wanted) | set(done) | set(judged)
        if wanted.get(s, set()) != done.get(s, set()) or s in retry or final.get(s, -1) < judged.get(s, -1)
    )
    pages = sum(len(wanted.get(s, set()) - done.get(s, set())) for s in stale)
    return OcrPlan(stale, pages)


def plan_after(wh: Warehouse, version: str, source: str, tables: Sequence[str]) -> list[str]:
    """Shards whose ``source`` partition was written after one of ``tables``' partitions, or that lack one:
    the stage that turns ``source`` into ``tables`` must run there again."""
    written = wh.written_at(source, version)
    outputs = [wh.written_at(t, version) for t in tables]
    return sorted(s for s, at in written.items() if any(out.get(s, -1) < at for out in outputs))


class Pipeline:
    """The three stages as Dagster runs against the instance in the assay home."""

    def __init__(self, home: Home, progress: Progress, shards_per_run: int = SHARDS_PER_RUN) -> None:
        home.prepare()
        self.home = home
        self.progress = progress
        self.shards_per_run = shards_per_run
        self.instance = dg.DagsterInstance.get()
        self.settings = AssaySettings(home=str(home.path))
        self.defs = make_definitions(self.settings, progress)

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
        job = self.defs.resolve_job_def("assay_calibration")
        result = job.execute_in_process(instance=self.instance, raise_on_error=False, run_config=QUIET_LOGS)
        self._record(result, report, "calibration")
        metadata: dict[str, object] = {}
        for event in result.get_asset_materialization_events():
            for key, value in event.materialization.metadata.items():
                metadata[key] = value.value
        return metadata

    def catalog(self, report: RunReport) -> bool:
        return self._execute("assay_catalog", report, "catalog", run_config=QUIET_LOGS)

    def _execute(self, job_name: str, report: RunReport, stage: str, **kwargs) -> bool:
        job = self.defs.resolve_job_def(job_name)
        result = job.execute_in_process(instance=self.instance, raise_on_error=False, **kwargs)
        return self._record(result, report, stage)

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
    started = time.perf_counter()
    report = RunReport(roots=roots)
    pipeline = Pipeline(home, progress, shards_per_run)
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
    report.seconds = time.perf_counter() - started
    return report


def _catalog_current(wh: Warehouse) -> bool:
    """The catalog exists and was built for the current extractor version: with no shard touched, its
    views (which glob the partitions at query time) already show everything."""
    from warehouse.catalog import catalog_version

    return catalog_version(wh) == EXTRACTOR_VERSION


def _failure_message(result: dg.ExecuteInProcessResult) -> str:
    for event in result.all_events:
        if event.is_failure and event.event_specific_data is not None:
            error = getattr(event.event_specific_data, "error", None)
            while error is not None and error.cause is not None:  # the user code's own error, not Dagster's
                error = error.cause
            if error is not None:
                return error.message.strip().splitlines()[-1] if error.message else str(error)
    return "the run failed; open `assay ui` to see its logs"
