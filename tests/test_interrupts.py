"""``assay run`` stopped by Ctrl-C (SIGINT to its whole process group, as a terminal sends it) in the middle
of extracting, run again and stopped by SIGTERM (to its process alone, as ``kill`` sends it) once OCR has
started, then run again: each stop exits 130 or 143 with the "interrupted" message and no traceback,
leaves no process behind, records no failed run and no failed check, builds no catalog, and the last run
ends exactly where an uninterrupted run ends."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import dagster as dg
import pytest

from assets.extract.asset import EXTRACT_TABLES
from orchestration.exits import Exit
from tests.corpus_rows import AssayRun, differences, home_rows, start_run, write_corpus
from tests.test_crash_safety import (
    POLL_S,
    RUN_TIMEOUT_S,
    STAGE_START_TIMEOUT_S,
    StageProgress,
    leftovers,
    unreadable_parts,
    wait_for_group_gone,
)
from warehouse import Warehouse

# How long a stopped run may take to exit once signalled: the step running ends at its next Python
# instruction, the reader workers are stopped (up to 2 s each), a Tesseract running finishes its page.
STOP_TIMEOUT_S = 120
INTERRUPTED = "interrupted: rerun the same command to finish; nothing is lost."


def extract_started(home: Path) -> Callable[[], bool]:
    """Once one shard's extract partitions are all in place (so the stage is under way)."""
    warehouse = Warehouse(home / "warehouse")
    return lambda: bool(StageProgress.of(warehouse, EXTRACT_TABLES).whole)


def ocr_started(home: Path) -> Callable[[], bool]:
    """Once the home's Dagster instance records the start of an OCR step."""

    def started() -> bool:
        if not (home / "dagster" / "storage").is_dir():
            return False
        instance = dg.DagsterInstance.from_config(str(home / "dagster"))
        try:
            running = instance.get_run_records(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
            return any(
                event.step_key == "ocr"
                for record in running
                for event in instance.all_logs(
                    record.dagster_run.run_id, of_type=dg.DagsterEventType.STEP_START
                )
            )
        finally:
            instance.dispose()

    return started


def stop_when(run: AssayRun, moment: Callable[[], bool], signum: int, *, group: bool) -> str:
    """Signal the run once ``moment()`` holds; returns its output after it exited."""
    deadline = time.monotonic() + STAGE_START_TIMEOUT_S
    while not moment():
        assert run.process.poll() is None, "the run ended before the moment to stop it"
        assert time.monotonic() < deadline, "the run did not reach the moment to stop it in time"
        time.sleep(POLL_S)
    if group:
        os.killpg(run.process.pid, signum)
    else:
        os.kill(run.process.pid, signum)
    run.process.wait(timeout=STOP_TIMEOUT_S)
    wait_for_group_gone(run.process.pid)  # its reader workers, fork server and Tesseracts are gone too
    return run.log.read_text(encoding="utf-8", errors="replace")


def assert_stopped_cleanly(run: AssayRun, output: str, code: Exit) -> None:
    assert run.process.returncode == code, output[-4000:]
    assert INTERRUPTED in output, output[-4000:]
    assert "Traceback" not in output and "Error" not in output, output[-4000:]
    instance = dg.DagsterInstance.from_config(str(run.home / "dagster"))
    try:
        runs = instance.get_runs()
        assert runs, "no Dagster run was recorded"
        statuses = {r.job_name: r.status for r in runs}
        assert dg.DagsterRunStatus.FAILURE not in statuses.values(), statuses
        assert "assay_corpus" not in statuses, statuses  # nothing judges a half-done corpus
        for r in runs:
            records = instance.get_records_for_run(
                r.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION
            ).records
            failed = [
                e.event_log_entry.dagster_event.event_specific_data.check_name
                for e in records
                if not e.event_log_entry.dagster_event.event_specific_data.passed
            ]
            assert failed == [], (r.job_name, failed)
    finally:
        instance.dispose()
    assert not Warehouse(run.home / "warehouse").catalog_path.exists()


@pytest.mark.slow
def test_sigint_then_sigterm_stop_cleanly_then_the_rerun_ends_like_an_uninterrupted_run(
    tmp_path: Path,
) -> None:
    corpus = write_corpus(tmp_path / "corpus", reports=12, notes=4, pages=4)
    with start_run(tmp_path / "uninterrupted", corpus.root, hash_seed="1") as reference:
        home = tmp_path / "stopped"

        with start_run(home, corpus.root, hash_seed="2", log=tmp_path / "sigint.log") as first:
            output = stop_when(first, extract_started(home), signal.SIGINT, group=True)
        assert_stopped_cleanly(first, output, Exit.INTERRUPTED)

        with start_run(home, corpus.root, hash_seed="3", log=tmp_path / "sigterm.log") as second:
            output = stop_when(second, ocr_started(home), signal.SIGTERM, group=False)
        assert_stopped_cleanly(second, output, Exit.TERMINATED)
        assert "interrupted" in (tmp_path / "sigterm.log").read_text()

        with start_run(home, corpus.root, hash_seed="4", log=tmp_path / "rerun.log") as last:
            last.wait(RUN_TIMEOUT_S)
        reference.wait(RUN_TIMEOUT_S)
    warehouse = Warehouse(home / "warehouse")
    assert leftovers(warehouse.root) == []
    assert unreadable_parts(warehouse.root) == []
    rerun, uninterrupted = home_rows(home, corpus.root), home_rows(reference.home, corpus.root)
    assert len(uninterrupted.view("derivations").rows) == corpus.documents
    assert len(uninterrupted.view("ocr_pages").rows) >= 1  # the scan was read by Tesseract
    assert differences(rerun, uninterrupted) == []
    assert rerun == uninterrupted
