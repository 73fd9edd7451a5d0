"""The Dagster Definitions: assets, checks, jobs, schedules and resources.

``dagster dev -m orchestration.definitions`` and ``assay ui`` load ``defs``; the command line builds its
own with :func:`make_definitions` so that it can pass its roots and its progress bar.
"""

from __future__ import annotations

import dagster as dg

from assets.calibration import calibration
from assets.data_quality import data_quality_checks
from assets.progress import Progress
from assets.report import quality_report
from assets.resources import AssaySettings, resource_from_env
from assets.stages import StageGraph, graph
from orchestration.automation import automation_sensor, with_conditions

# On the Dask executor, the tag of every run with the job's name: dagster-dask names a step's Dask task
# `<job>.<step>`, so two runs of one job at once would share their tasks (dagster-io/dagster#21418); the
# run queue's limit on this tag (deploy/dagster.postgres.yaml) runs them one after the other.
DASK_JOB_TAG = "assay/dask-job"

# The assets that are not stages of the pipeline: run by their own commands, beside the stages.
OTHER_ASSETS = {
    "assay_calibration": (
        calibration,
        "Score the corpus's clean pages against garbled variants (`assay calibrate`).",
    ),
    "assay_report": (quality_report, "Draw the quality report's plots (PNG files under `<home>/reports/`)."),
}


def stage_assets(stages: StageGraph) -> list[dg.AssetsDefinition]:
    """Each declared stage's asset (assets/factory.py), built with the stages it comes after in the stage
    graph as its ``deps``."""
    return [stage.load_asset().build(stages.after(stage.name)) for stage in stages.order]


def stage_asset(name: str) -> dg.AssetsDefinition:
    """The asset of the stage ``name``, built as the Definitions build it."""
    stages = graph()
    return stages.by_name[name].load_asset().build(stages.after(name))


def make_jobs(stages: StageGraph, *, dask: bool = False) -> dict[str, dg.UnresolvedAssetJobDefinition]:
    """One job per stage (``assay_<stage>``, described by its declaration) and per other asset, for the
    web UI and the tests; and the two runs of ``assay run``: the stages of shards of a range in one run
    (a subset of them where fewer have work), and the corpus-wide assets in one. On the Dask executor each
    job's runs carry :data:`DASK_JOB_TAG`, by which the run queue lets one of them run at a time. The
    data-quality checks (assets/data_quality.py) run in ``assay_corpus`` only, once per run."""
    checks = dg.AssetSelection.checks(data_quality_checks(stages))

    def define(name: str, selection: dg.AssetSelection, description: str) -> dg.UnresolvedAssetJobDefinition:
        tags = {DASK_JOB_TAG: name} if dask else None
        selection = selection | checks if name == "assay_corpus" else selection - checks
        return dg.define_asset_job(name, selection=selection, description=description, tags=tags)

    jobs = {
        stage.job_name: define(stage.job_name, dg.AssetSelection.assets(stage.name), stage.job)
        for stage in stages.order
    }
    for name, (asset, description) in OTHER_ASSETS.items():
        jobs[name] = define(name, dg.AssetSelection.assets(asset), description)
    jobs["assay_shards"] = define(
        "assay_shards",
        dg.AssetSelection.assets(*stages.shard_stages),
        f"Take a range of shards through every stage ({', '.join(stages.shard_stages)}); "
        "each stage works only where its planner finds the shard stale.",
    )
    jobs["assay_corpus"] = define(
        "assay_corpus",
        dg.AssetSelection.assets(*(s.name for s in stages.closing), quality_report),
        "Rebuild the DuckDB catalog, draw the quality report, and validate the data-quality checks with "
        "Great Expectations (the contracts and the rates).",
    )
    return jobs


def walk_schedule(settings: AssaySettings, job: dg.UnresolvedAssetJobDefinition) -> dg.ScheduleDefinition:
    """Walks the roots on ``walk_cron`` to pick up new files; the automation then runs only their shards.
    On by default when roots are configured (ASSAY_ROOTS), since a walk without roots has nothing to do."""
    status = dg.DefaultScheduleStatus.RUNNING if settings.roots else dg.DefaultScheduleStatus.STOPPED
    return dg.ScheduleDefinition(
        name="assay_walk_schedule",
        job=job,
        cron_schedule=settings.walk_cron,
        default_status=status,
        description=f"Walk the configured roots ({settings.walk_cron}, UTC) for new and changed files.",
    )


def executor_for(settings: AssaySettings) -> dg.ExecutorDefinition:
    """The executor the settings choose for the runs Dagster launches (``ASSAY_EXECUTOR``)."""
    if settings.executor == "multiprocess":
        return dg.multiprocess_executor
    if settings.executor == "dask":
        from dagster_dask import dask_executor

        return dask_executor.configured(
            {"cluster": {"existing": {"address": settings.dask_scheduler}}}, name="dask_executor"
        )
    return dg.in_process_executor


def make_definitions(settings: AssaySettings, progress: Progress | None = None) -> dg.Definitions:
    """The Definitions of the stages in effect (assets/stages.py :func:`graph`)."""
    stages = graph()
    jobs = make_jobs(stages, dask=settings.executor == "dask")
    return dg.Definitions(
        assets=with_conditions([*stage_assets(stages), *(a for a, _ in OTHER_ASSETS.values())], settings),
        asset_checks=[data_quality_checks(stages)],
        jobs=list(jobs.values()),
        schedules=[walk_schedule(settings, jobs[stages.opening.job_name])],
        sensors=[automation_sensor(settings)],
        resources={"assay": settings, "progress": progress if progress is not None else Progress()},
        executor=executor_for(settings),
    )


defs = make_definitions(resource_from_env())
