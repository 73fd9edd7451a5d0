"""A backfill on a real Dask cluster, the executor chosen by the Definitions' setting: a scheduler and two
single-thread workers on loopback, started as `dask scheduler` and `dask worker`, and the Dagster daemon.

A small corpus (two scanned PDFs without a text layer, one born-digital PDF) goes through walk, extract,
vocabulary and verdicts in process. Then the daemon is started on the project's code location
(deploy/workspace.yaml) with ``ASSAY_EXECUTOR=dask`` and the scheduler's address: its automation sensor
finds the scans' pages waiting for OCR and emits a backfill of the OCR stage, and each run of the backfill
sends its step to a Dask worker. The test's instance queues the runs one at a time: two runs of one job
at once would share their Dask tasks (dagster-io/dagster#21418, deploy/README.md).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest
import yaml

from assets.resources import AssaySettings
from assets.shard_keys import RANGE_END_TAG, RANGE_START_TAG, SHARD_KEYS
from assets.stages import graph
from orchestration.definitions import make_definitions
from orchestration.document_builders import make_image_only_pdf, make_text_pdf
from orchestration.home import Home
from orchestration.run_instance import QUIET_LOGS
from readers.core.versions import EXTRACTOR_VERSION
from tests.servers import (
    BACKFILL_ID_TAG,
    DEPLOY,
    REPO,
    daemon_until_covered,
    dask_cluster,
    free_port,
    worker_environment,
)
from warehouse import Warehouse
from warehouse.store import to_pylist

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed"),
]

# Each scan's text, under a word only it has, which its OCR text must show.
SCANS = {
    "reservoir": "Reservoir levels fell by a third during the dry summer months across the eastern valley.",
    "tariffs": "The council approved new tariffs for water meters installed after the spring inspection.",
}
BORN_DIGITAL = "Quarterly maintenance summary: pumps, valves and meters were serviced on schedule."
# Seconds between the automation sensor's evaluations in the test (Dagster's default is 30).
SENSOR_INTERVAL_S = 5
# The daemon's backfill loop looks every 30 s; a run of the OCR stage on a Dask worker takes 10-25 s here
# (the worker rebuilds the job, Tesseract reads a page at 300 dpi). A backfill not over in this long is
# stuck.
BACKFILL_TIMEOUT_S = 600
# A sensor tick while the verdicts run here holds the home may launch a run of the shards already judged;
# that run waits for the home as a run queued behind another does (assets/settings.py lock_wait_s), rather
# than failing its backfill.
LOCK_WAIT_S = 300


@dataclass(frozen=True, slots=True)
class StepRun:
    run_id: str
    step: str
    pid: int


def test_a_backfill_runs_its_steps_on_dask_workers_chosen_by_the_definitions(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    scans = _write_scans(corpus)
    make_text_pdf(corpus / "summary.pdf", [BORN_DIGITAL])

    # The home's SQLite instance (persistent, as the daemon and the Dask executor need), its runs queued
    # one at a time.
    monkeypatch.setenv("ASSAY_DAGSTER_YAML", str(_queued_instance_yaml(tmp_path)))
    Home(home).prepare()
    instance = dg.DagsterInstance.get()
    _in_process(instance, home, corpus, ("walk", "extract", "vocabulary"))

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = worker_environment(
        home,
        {
            "ASSAY_EXECUTOR": "dask",
            "ASSAY_DASK_SCHEDULER": address,
            "ASSAY_DAGSTER_YAML": os.environ["ASSAY_DAGSTER_YAML"],
            "ASSAY_AUTOMATION_INTERVAL_SECONDS": str(SENSOR_INTERVAL_S),
            "ASSAY_VERSION_BACKFILL_CRON": "",
            "ASSAY_LOCK_WAIT_S": str(LOCK_WAIT_S),
        },
    )
    # What the daemon's code location builds from that environment: every job on the Dask executor.
    chosen = make_definitions(AssaySettings(home=str(home), executor="dask", dask_scheduler=address))
    assert chosen.resolve_job_def("assay_ocr").executor_def.name == "dask_executor"
    with dask_cluster(env, tmp_path / "dask", workers=2, port=port) as cluster:
        # The daemon's sensor evaluates once with nothing to do; then the verdicts are made, here, and
        # send the scans' pages to OCR, which the sensor finds stale and backfills on the cluster.
        backfills = daemon_until_covered(
            instance,
            "ocr",
            workspace=DEPLOY / "workspace.yaml",
            env=env,
            log=tmp_path / "daemon.log",
            timeout_s=BACKFILL_TIMEOUT_S,
            after_first_tick=lambda: _in_process(instance, home, corpus, ("verdicts",)),
            covering={_shard(p) for p in scans},
        )
        worker_pids = set(cluster.worker_pids.values())

    assert all(b.status.value == "COMPLETED_SUCCESS" for b in backfills), [b.status for b in backfills]
    requested = {
        key
        for b in backfills
        for key in b.asset_backfill_data.target_subset.get_partitions_subset(
            dg.AssetKey("ocr")
        ).get_partition_keys()
    }
    assert {_shard(p) for p in scans} <= requested
    runs = [
        run
        for b in backfills
        for run in instance.get_runs(filters=dg.RunsFilter(tags={BACKFILL_ID_TAG: b.backfill_id}))
    ]
    assert runs and all(r.status == dg.DagsterRunStatus.SUCCESS for r in runs), runs
    steps = [step for run in runs for step in _steps(instance, run.run_id)]
    assert "ocr" in {s.step for s in steps}
    # Every step ran in a Dask worker's process: not the run's own process, not the test's.
    assert {s.pid for s in steps} <= worker_pids and os.getpid() not in worker_pids, (steps, worker_pids)
    run_pids = {_run_pid(instance, r.run_id) for r in runs}
    assert not run_pids & worker_pids

    wh = Warehouse(home / "warehouse")
    scan_shas = {hashlib.sha256(p.read_bytes()).hexdigest(): word for p, word in scans.items()}
    ocr = [r for r in _rows(wh, "ocr_pages") if r["sha256"] in scan_shas]
    assert {r["sha256"] for r in ocr} == set(scan_shas)
    for row in ocr:
        assert row["status"] == "derived" and row["engine"] == "tesseract", row
        assert scan_shas[row["sha256"]] in row["text"].lower(), row["text"]
    finals = {r["sha256"]: r for r in _rows(wh, "page_texts") if r["sha256"] in scan_shas}
    assert {sha: r["source"] for sha, r in finals.items()} == {sha: "ocr" for sha in scan_shas}


def _queued_instance_yaml(tmp: Path) -> Path:
    """The repository's instance file with a run queue that lets one run go at a time."""
    config = yaml.safe_load((REPO / "dagster.yaml").read_text(encoding="utf-8"))
    config["run_coordinator"] = {
        "module": "dagster.core.run_coordinator",
        "class": "QueuedRunCoordinator",
        "config": {"max_concurrent_runs": 1, "dequeue_interval_seconds": 1},
    }
    path = tmp / "dagster.queued.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def _rows(wh: Warehouse, table: str) -> list[dict]:
    return to_pylist(wh.read_all_shards(table, EXTRACTOR_VERSION))


def _write_scans(corpus: Path) -> dict[Path, str]:
    """Two scanned PDFs whose bytes fall in different shards (a suffix moves the second if they clash),
    each with the word only it has."""
    scans: dict[Path, str] = {}
    for word, text in SCANS.items():
        for attempt in range(20):
            path = make_image_only_pdf(corpus / f"scan-{word}.pdf", [text + " ." * attempt])
            if _shard(path) not in {_shard(p) for p in scans}:
                scans[path] = word
                break
    assert len(scans) == len(SCANS)
    return scans


def _shard(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:2]


def _in_process(instance: dg.DagsterInstance, home: Path, corpus: Path, stages: tuple[str, ...]) -> None:
    """The stages' jobs, in process as `assay run` runs them: a stage of shards over every shard."""
    defs = make_definitions(AssaySettings(home=str(home)))
    every = {RANGE_START_TAG: SHARD_KEYS[0], RANGE_END_TAG: SHARD_KEYS[-1]}
    walk = {"ops": {"walk": {"config": {"roots": [str(corpus)]}}}, **QUIET_LOGS}
    for name in stages:
        stage = graph().by_name[name]
        result = defs.resolve_job_def(stage.job_name).execute_in_process(
            instance=instance,
            run_config=walk if name == "walk" else QUIET_LOGS,
            tags=every if stage.partitioned else None,
        )
        assert result.success, name


def _steps(instance: dg.DagsterInstance, run_id: str) -> list[StepRun]:
    """Each step of the run and the pid of the process that started it (recorded with its event)."""
    starts = instance.all_logs(run_id, of_type=dg.DagsterEventType.STEP_START)
    return [StepRun(run_id, e.step_key, e.dagster_event.pid) for e in starts]


def _run_pid(instance: dg.DagsterInstance, run_id: str) -> int:
    """The pid of the run's own process (the one that started the run)."""
    (start,) = instance.all_logs(run_id, of_type=dg.DagsterEventType.RUN_START)
    return start.dagster_event.pid
