"""The Dagster Definitions: assets, checks, jobs, schedules and resources.

``dagster dev -m orchestration.definitions`` and ``assay ui`` load ``defs``; the command line builds its
own with :func:`make_definitions` so that it can pass its roots and its progress bar.
"""

from __future__ import annotations

import dagster as dg

from assets.calibration import calibration
from assets.catalog import catalog
from assets.extract import extract
from assets.verdicts import verdicts
from assets.vocabulary import vocabulary
from assets.walk import walk
from orchestration.progress import Progress
from orchestration.settings import AssaySettings, settings_from_env

ALL_ASSETS = [walk, extract, vocabulary, verdicts, catalog, calibration]

walk_job = dg.define_asset_job(
    "assay_walk",
    selection=dg.AssetSelection.assets(walk),
    description="Walk the roots (ASSAY_ROOTS, or the roots given in the run config).",
)
extract_job = dg.define_asset_job(
    "assay_extract",
    selection=dg.AssetSelection.assets(extract),
    description="Extract a range of shards; launched as a backfill, runs are batched by the backfill policy.",
)
verdicts_job = dg.define_asset_job(
    "assay_verdicts",
    selection=dg.AssetSelection.assets(verdicts),
    description="Judge a range of shards' pages; backfills run in batches of the backfill policy.",
)
catalog_job = dg.define_asset_job(
    "assay_catalog",
    selection=dg.AssetSelection.assets(catalog),
    description="Rebuild the DuckDB catalog and judge the corpus-wide rates.",
)

vocabulary_job = dg.define_asset_job(
    "assay_vocabulary",
    selection=dg.AssetSelection.assets(vocabulary),
    description="Harvest the corpus vocabulary from the extracted pages.",
)
calibration_job = dg.define_asset_job(
    "assay_calibration",
    selection=dg.AssetSelection.assets(calibration),
    description="Score the corpus's clean pages against their garbled variants (`assay calibrate`).",
)

# Picks up new files nightly; off until switched on in the UI, since the roots come from ASSAY_ROOTS.
nightly_walk = dg.ScheduleDefinition(
    job=walk_job,
    cron_schedule="0 2 * * *",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Walk the configured roots every night at 02:00.",
)


def make_definitions(settings: AssaySettings, progress: Progress | None = None) -> dg.Definitions:
    return dg.Definitions(
        assets=ALL_ASSETS,
        jobs=[walk_job, extract_job, vocabulary_job, verdicts_job, catalog_job, calibration_job],
        schedules=[nightly_walk],
        resources={"assay": settings, "progress": progress if progress is not None else Progress()},
        executor=dg.in_process_executor,
    )


defs = make_definitions(settings_from_env())
