"""The OCR stage's steps on a real Dask cluster: a scheduler and two single-thread workers on loopback.

A small corpus (two scanned PDFs without a text layer, one born-digital PDF) goes through walk, extract,
vocabulary and verdicts in process; then the Dask jobs of tests/servers.py read the scans and make texts
and chunks, each step on a Dask worker, against the assay home's Dagster instance. The shards are read in
two ranges, pipelined: while the second range's OCR runs on one worker, the text stages of the first run on
the other, so both workers execute steps. (Two runs of one Dask job at once would share their Dask tasks,
dagster-io/dagster#21418: deploy/dagster.postgres.yaml queues them one at a time.)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest

from assets.partitions import RANGE_END_TAG, RANGE_START_TAG, SHARD_KEYS
from assets.resources import AssaySettings
from orchestration.definitions import make_definitions
from orchestration.demo import make_image_only_pdf, make_text_pdf
from orchestration.home import Home
from readers.core.versions import EXTRACTOR_VERSION
from tests.servers import (
    DASK_JOB_TAG,
    DASK_SCHEDULER_ENV,
    REPO,
    VENV_BIN,
    dask_cluster,
    free_port,
    log_tail,
    ocr_on_dask,
    start_logged,
    stop_process_group,
    text_on_dask,
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
QUIET_LOGS = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
# A run of a Dask job here takes 10-25 s (the worker rebuilds the job, Tesseract reads a page at 300 dpi);
# a run that has not ended in this long is stuck.
RUN_TIMEOUT_S = 300
POLL_S = 0.2


@dataclass(frozen=True, slots=True)
class DaskRun:
    job: str
    run_id: str


@dataclass(frozen=True, slots=True)
class StepRun:
    job: str
    step: str
    pid: int


def test_ocr_steps_run_on_two_dask_workers(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    scans = _write_scans(corpus)
    make_text_pdf(corpus / "summary.pdf", [BORN_DIGITAL])
    first, second = _ranges_apart(sorted(_shard(p) for p in scans))

    Home(home).prepare()  # the home's SQLite instance: persistent, as the Dask executor requires
    instance = dg.DagsterInstance.get()
    _judge_in_process(instance, home, corpus)

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    monkeypatch.setenv(DASK_SCHEDULER_ENV, address)
    env = worker_environment(home, {DASK_SCHEDULER_ENV: address})
    with dask_cluster(env, tmp_path / "dask", workers=2, port=port) as cluster:
        runs = [_execute(ocr_on_dask, first, instance)]
        # The second range's OCR, launched from its own process (the `dagster job execute` command), runs
        # beside the first range's text stages, launched from here once the OCR step is on a worker: the
        # scheduler then gives them the other one. One run per process, as Dagster's logging set-up is not
        # safe for two runs starting in threads of one process.
        log = tmp_path / "ocr-second.log"
        ocr_second = start_logged(_cli_run("ocr_on_dask", second), log=log, env=env, cwd=REPO)
        try:
            _wait_for_task(address, "assay_ocr_dask.", ocr_second, log)
            runs.append(_execute(text_on_dask, first, instance))
            assert ocr_second.wait(timeout=RUN_TIMEOUT_S) == 0, log_tail(log)
        finally:
            stop_process_group(ocr_second)
        runs.append(_run_of(instance, "assay_ocr_dask", second))
        worker_pids = set(cluster.worker_pids.values())

    for run in runs:
        record = instance.get_run_by_id(run.run_id)
        assert record.status == dg.DagsterRunStatus.SUCCESS, run
        assert record.tags[DASK_JOB_TAG] == run.job
    steps = [step for run in runs for step in _steps(instance, run)]
    assert sorted((s.job, s.step) for s in steps) == sorted(
        [("assay_ocr_dask", "ocr")] * 2 + [("assay_text_dask", "sanitize"), ("assay_text_dask", "chunk")]
    )
    # Every step ran in a Dask worker's process, never in the test's, and each worker ran some.
    assert {s.pid for s in steps} <= worker_pids and os.getpid() not in worker_pids
    assert {s.pid for s in steps} == worker_pids, steps

    wh = Warehouse(home / "warehouse")
    scan_shas = {hashlib.sha256(p.read_bytes()).hexdigest(): word for p, word in scans.items()}
    ocr = [r for r in _rows(wh, "ocr_pages") if r["sha256"] in scan_shas]
    assert {r["sha256"] for r in ocr} == set(scan_shas)
    for row in ocr:
        assert row["status"] == "derived" and row["engine"] == "tesseract", row
        assert scan_shas[row["sha256"]] in row["text"].lower(), row["text"]
    finals = {r["sha256"]: r for r in _rows(wh, "page_texts") if r["sha256"] in scan_shas}
    assert {sha: r["source"] for sha, r in finals.items()} == {sha: "ocr" for sha in scan_shas}
    # The first range's texts were cut into chunks (its scan's from its OCR text); the second's wait for
    # their text stages.
    first_scan = next(sha for sha in scan_shas if first[0] <= sha[:2] <= first[1])
    chunks = [r for r in _rows(wh, "chunks") if r["sha256"] == first_scan]
    assert chunks and scan_shas[first_scan] in " ".join(c["text"] for c in chunks).lower()
    assert {r["sha256"][:2] for r in _rows(wh, "chunks")} <= set(SHARD_KEYS[: SHARD_KEYS.index(first[1]) + 1])


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


def _ranges_apart(shards: list[str]) -> tuple[tuple[str, str], tuple[str, str]]:
    """Two contiguous shard ranges covering all 256 shards, the first holding the first scan, the second
    the second."""
    split = SHARD_KEYS.index(shards[0])
    return (SHARD_KEYS[0], SHARD_KEYS[split]), (SHARD_KEYS[split + 1], SHARD_KEYS[-1])


def _judge_in_process(instance: dg.DagsterInstance, home: Path, corpus: Path) -> None:
    """walk, extract, vocabulary and verdicts, in process as `assay run` runs them."""
    defs = make_definitions(AssaySettings(home=str(home)))
    every = {RANGE_START_TAG: SHARD_KEYS[0], RANGE_END_TAG: SHARD_KEYS[-1]}
    walk = {"ops": {"walk": {"config": {"roots": [str(corpus)]}}}, **QUIET_LOGS}
    for job, run_config, tags in (
        ("assay_walk", walk, None),
        ("assay_extract", QUIET_LOGS, every),
        ("assay_vocabulary", QUIET_LOGS, None),
        ("assay_verdicts", QUIET_LOGS, every),
    ):
        result = defs.resolve_job_def(job).execute_in_process(
            instance=instance, run_config=run_config, tags=tags
        )
        assert result.success, job


def _range_tags(shards: tuple[str, str]) -> dict[str, str]:
    return {RANGE_START_TAG: shards[0], RANGE_END_TAG: shards[1]}


def _execute(factory, shards: tuple[str, str], instance: dg.DagsterInstance) -> DaskRun:
    """One run of a Dask job over a shard range; the orchestration runs here, the steps on the cluster."""
    job = dg.reconstructable(factory)
    result = dg.execute_job(job, instance=instance, tags=_range_tags(shards), run_config=QUIET_LOGS)
    return DaskRun(result.job_def.name, result.run_id)


def _cli_run(factory: str, shards: tuple[str, str]) -> list[str]:
    """The command that runs a Dask job of tests.servers over a shard range from its own process."""
    tags = json.dumps(_range_tags(shards))
    return [str(VENV_BIN / "dagster"), "job", "execute", "-m", "tests.servers", "-a", factory, "--tags", tags]


def _wait_for_task(address: str, prefix: str, process: subprocess.Popen, log: Path) -> None:
    """Until a task whose key starts with ``prefix`` is processing on a worker of the cluster."""
    from distributed import Client

    deadline = time.monotonic() + RUN_TIMEOUT_S
    with Client(address) as client:
        while time.monotonic() < deadline:
            if any(str(key).startswith(prefix) for keys in client.processing().values() for key in keys):
                return
            if process.poll() is not None:
                pytest.fail(
                    f"the run exited with {process.returncode} before its step started:\n{log_tail(log)}"
                )
            time.sleep(POLL_S)
    pytest.fail(f"no {prefix}* task on the cluster within {RUN_TIMEOUT_S} s:\n{log_tail(log)}")


def _run_of(instance: dg.DagsterInstance, job: str, shards: tuple[str, str]) -> DaskRun:
    (run,) = instance.get_runs(filters=dg.RunsFilter(job_name=job, tags=_range_tags(shards)))
    return DaskRun(job, run.run_id)


def _steps(instance: dg.DagsterInstance, run: DaskRun) -> list[StepRun]:
    """Each step of the run and the pid of the process that started it (recorded with its event)."""
    starts = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.STEP_START)
    return [StepRun(run.job, e.step_key, e.dagster_event.pid) for e in starts]
