"""The Dagster Definitions: assets, checks, jobs, schedules and resources.

``dagster dev -m orchestration.definitions`` and ``assay ui`` load ``defs``; the command line builds its
own with :func:`make_definitions` so that it can pass its roots and its progress bar.
"""

from __future__ import annotations

import dagster as dg

from assets.calibration import calibration
from assets.catalog import catalog
from assets.chunk import chunk
from assets.extract.asset import extract
from assets.ocr.asset import ocr
from assets.progress import Progress
from assets.report import quality_report
from assets.resources import AssaySettings, settings_from_env
from assets.sanitize import sanitize
from assets.stages import SHARD_STAGES
from assets.verdicts.asset import verdicts
from assets.vocabulary import vocabulary
from assets.walk import walk
from orchestration.automation import automation_sensor, with_conditions

ALL_ASSETS = [walk, extract, vocabulary, verdicts, ocr, sanitize, chunk, catalog, calibration, quality_report]

# One job per stage, as data: (asset, what the job does), for the web UI and the tests.
STAGE_JOBS = {
    "assay_walk": (walk, "Walk the roots (ASSAY_ROOTS, or the roots given in the run config)."),
    "assay_extract": (extract, "Extract a range of shards; backfills run in batches of the backfill policy."),
    "assay_vocabulary": (vocabulary, "Harvest the corpus vocabulary from the extracted pages."),
    "assay_verdicts": (
        verdicts,
        "Judge a range of shards' pages; backfills run in batches of the backfill policy.",
    ),
    "assay_ocr": (ocr, "Read the REPLACE pages of a range of shards with Tesseract."),
    "assay_sanitize": (
        sanitize,
        "One clean text per document of a range of shards: hidden text, furniture and personal data out.",
    ),
    "assay_chunk": (chunk, "Split the texts of a range of shards into chunks with their evidence."),
    "assay_catalog": (catalog, "Rebuild the DuckDB catalog and judge the corpus-wide rates."),
    "assay_calibration": (
        calibration,
        "Score the corpus's clean pages against garbled variants (`assay calibrate`).",
    ),
    "assay_report": (quality_report, "Draw the quality report's plots (PNG files under `<home>/reports/`)."),
}
JOBS = {
    name: dg.define_asset_job(name, selection=dg.AssetSelection.assets(asset), description=description)
    for name, (asset, description) in STAGE_JOBS.items()
}
# The runs of `assay run`: the shard stages of a range of shards in one run (a subset of them where
# fewer have work: assets/stages.py SHARD_STAGES), and the corpus-wide assets in one.
JOBS["assay_shards"] = dg.define_asset_job(
    "assay_shards",
    selection=dg.AssetSelection.assets(*SHARD_STAGES),
    description="Take a range of shards through every stage: extract, the corpus vocabulary, verdicts, "
    "OCR, sanitize and chunk; each stage works only where its planner finds the shard stale.",
)
JOBS["assay_corpus"] = dg.define_asset_job(
    "assay_corpus",
    selection=dg.AssetSelection.assets(catalog, quality_report),
    description="Rebuild the DuckDB catalog, judge the corpus-wide rates and draw the quality report.",
)


def walk_schedule(settings: AssaySettings) -> dg.ScheduleDefinition:
    """Walks the roots on ``walk_cron`` to pick up new files; the automation then runs only their shards.
    On by default when roots are configured (ASSAY_ROOTS), since a walk without roots has nothing to do."""
    status = dg.DefaultScheduleStatus.RUNNING if settings.roots else dg.DefaultScheduleStatus.STOPPED
    return dg.ScheduleDefinition(
        name="assay_walk_schedule",
        job=JOBS["assay_walk"],
        cron_schedule=settings.walk_cron,
        default_status=status,
        description=f"Walk the configured roots ({settings.walk_cron}, UTC) for new and changed files.",
    )


def make_definitions(settings: AssaySettings, progress: Progress | None = None) -> dg.Definitions:
    return dg.Definitions(
        assets=with_conditions(ALL_ASSETS, settings),
        jobs=list(JOBS.values()),
        schedules=[walk_schedule(settings)],
        sensors=[automation_sensor(settings)],
        resources={"assay": settings, "progress": progress if progress is not None else Progress()},
        executor=dg.in_process_executor,
    )


defs = make_definitions(settings_from_env())
