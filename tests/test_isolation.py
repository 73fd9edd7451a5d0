"""Each document is read in a killable worker under its kind's wall-time and memory budget."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import deque
from pathlib import Path

import psutil
import pytest

from assets.settings import settings_from_env
from orchestration.document_builders import make_text_pdf
from readers.core.base import freeze_long_lived
from readers.core.errors import ConfigError
from readers.core.model import ContentKind, DocumentStatus, ReadLimits
from readers.engine.isolation import (
    InProcessReads,
    IsolatedReads,
    ReadBudget,
    ReadBudgets,
    ReadDone,
    ReadRequest,
)
from readers.text.plain import PlainTextReader
from tests.hostile import write_recursive_forms_pdf

MB = 1 << 20
GENEROUS = ReadBudget(120.0, 4096 * MB)


def reader_processes() -> list[psutil.Process]:
    """The pool's workers: the children of this process's fork server."""
    servers = [p for p in psutil.Process().children() if "forkserver" in " ".join(p.cmdline())]
    return [worker for server in servers for worker in server.children()]


def request(path: Path, kind: ContentKind) -> ReadRequest:
    return ReadRequest(path.name, path, kind, path.stat().st_size)


def read_all(pool: IsolatedReads, requests: list[ReadRequest]) -> dict[str, ReadDone]:
    return {done.request.key: done for done in pool.read(requests)}


@pytest.fixture(scope="module")
def forms(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Form XObjects drawing each other twice, thirty levels deep: reading the page takes hours."""
    path = tmp_path_factory.mktemp("forms") / "forms.pdf"
    write_recursive_forms_pdf(path)
    return path


def test_a_read_over_its_time_budget_is_an_error_and_the_others_go_on(tmp_path: Path, forms: Path) -> None:
    ok = make_text_pdf(tmp_path / "ok.pdf", ["An ordinary page of text"])
    note = tmp_path / "note.txt"
    note.write_text("A plain note.\n")
    budgets = ReadBudgets(GENEROUS, {ContentKind.PDF: ReadBudget(3.0, 4096 * MB)})
    started = time.monotonic()
    with IsolatedReads(ReadLimits(), 1 << 30, budgets, workers=1) as pool:
        done = read_all(
            pool,
            [request(forms, ContentKind.PDF), request(ok, ContentKind.PDF), request(note, ContentKind.TEXT)],
        )
        assert pool.replaced == 1
    assert time.monotonic() - started < 60
    stuck = done["forms.pdf"].extraction
    assert (stuck.status, stuck.reason) == (DocumentStatus.ERROR, "timeout")
    [attempt] = stuck.attempts
    assert (attempt.reader, attempt.reason, attempt.failed) == ("pymupdf", "timeout", True)
    assert "budget of 3 s for pdf" in attempt.detail and attempt.duration_ms >= 3000
    # The worker was replaced: the documents after it were read, by the same single-worker pool.
    assert done["ok.pdf"].extraction.status is DocumentStatus.DERIVED
    assert done["note.txt"].extraction.status is DocumentStatus.DERIVED


def test_a_read_over_its_memory_budget_is_an_error(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    line = "plenty of words on one line of a very long text file\n"
    with big.open("w") as fh:
        for _ in range(40):
            fh.write(line * 75_000)  # 160 MB in all: read, decoded and split, several times that
    small = tmp_path / "small.txt"
    small.write_text("A short note.\n")
    budgets = ReadBudgets(GENEROUS, {ContentKind.TEXT: ReadBudget(120.0, 450 * MB)})
    with IsolatedReads(ReadLimits(), 1 << 30, budgets, workers=1) as pool:
        done = read_all(pool, [request(big, ContentKind.TEXT), request(small, ContentKind.TEXT)])
        assert pool.replaced >= 1
    heavy = done["big.txt"].extraction
    assert (heavy.status, heavy.reason) == (DocumentStatus.ERROR, "memory")
    assert (
        heavy.attempts[-1].reader == "text"
        and "over its budget of 450 MB for text" in heavy.attempts[-1].detail
    )
    assert done["small.txt"].extraction.status is DocumentStatus.DERIVED


def test_a_worker_that_dies_is_replaced(tmp_path: Path, forms: Path) -> None:
    note = tmp_path / "note.txt"
    note.write_text("Read after the crash.\n")
    with IsolatedReads(ReadLimits(), 1 << 30, ReadBudgets(GENEROUS), workers=1) as pool:
        reads = pool.read([request(forms, ContentKind.PDF), request(note, ContentKind.TEXT)])

        def crash() -> None:  # what a segmentation fault in a C library does to the reader
            deadline = time.monotonic() + 60
            while not (workers := reader_processes()) and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.5)  # inside the read
            [worker] = workers
            os.kill(worker.pid, signal.SIGSEGV)

        threading.Thread(target=crash, daemon=True).start()
        done = {d.request.key: d for d in reads}
    died = done["forms.pdf"].extraction
    assert (died.status, died.reason) == (DocumentStatus.ERROR, "worker_died")
    assert "SIGSEGV" in died.attempts[-1].detail
    assert done["note.txt"].extraction.status is DocumentStatus.DERIVED


def test_workers_die_with_a_killed_run(tmp_path: Path, forms: Path) -> None:
    script = textwrap.dedent(
        f"""
        import threading, time
        from pathlib import Path
        import psutil
        from readers.engine.isolation import IsolatedReads, ReadBudget, ReadBudgets, ReadRequest
        from readers.core.model import ContentKind, ReadLimits

        if __name__ == "__main__":
            path = Path({str(forms)!r})
            pool = IsolatedReads(ReadLimits(), 1 << 30, ReadBudgets(ReadBudget(600, 1 << 32)), workers=1)
            request = ReadRequest("f", path, ContentKind.PDF, path.stat().st_size)
            threading.Thread(target=lambda: list(pool.read([request])), daemon=True).start()
            while len(psutil.Process().children(recursive=True)) < 2:  # the fork server and its worker
                time.sleep(0.05)
            time.sleep(0.5)
            print(" ".join(str(p.pid) for p in psutil.Process().children(recursive=True)), flush=True)
            time.sleep(600)
        """
    )
    run = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1]
    )
    assert run.stdout is not None
    pids = [int(p) for p in run.stdout.readline().split()]
    assert pids, "the run started no reader"
    run.send_signal(signal.SIGKILL)
    run.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(psutil.pid_exists(p) and _alive(p) for p in pids):
        time.sleep(0.1)
    assert not [p for p in pids if psutil.pid_exists(p) and _alive(p)]


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_workers_read_with_the_revisions_of_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    note = tmp_path / "note.txt"
    note.write_text("Versions come from the process that planned the run.\n")
    monkeypatch.setattr(PlainTextReader, "revision", PlainTextReader.revision + 7)
    with IsolatedReads(ReadLimits(), 1 << 30, ReadBudgets(GENEROUS), workers=1) as pool:
        [done] = pool.read([request(note, ContentKind.TEXT)])
    assert done.extraction.reader_version == PlainTextReader().version


@pytest.mark.parametrize("isolated", [True, False], ids=["workers", "in-process"])
def test_a_finished_read_is_handed_out_without_a_reference_kept(tmp_path: Path, isolated: bool) -> None:
    """The extract stage turns a read into rows and drops it before the collector runs again, so that no
    collection walks it: the reads' generator must not hold the read while the stage works on it."""
    notes = []
    for n in range(2):
        note = tmp_path / f"note{n}.txt"
        note.write_text(f"Note {n} of two.\n")
        notes.append(request(note, ContentKind.TEXT))
    pool = (
        IsolatedReads(ReadLimits(), 1 << 30, ReadBudgets(GENEROUS), workers=1)
        if isolated
        else contextlib.nullcontext(InProcessReads(ReadLimits(), 1 << 30))
    )
    with pool as reads:
        finished = reads.read(notes)
        first = next(finished)
        # One reference here (the read: in what was handed out), one as getrefcount's argument: none in
        # the suspended generator. Counted outside the asserts, whose rewriting keeps values of its own.
        handed, read = sys.getrefcount(first), sys.getrefcount(first.extraction)
        assert (handed, read) == (2, 2)
        assert first.extraction.status is DocumentStatus.DERIVED
        assert [done.request.key for done in finished] == ["note1.txt"]


class _CollectorState:
    """A job that reports its worker's collector: how many objects are frozen, and whether the freeze was
    made before the worker's own call (the call found cached)."""

    kind = ContentKind.TEXT
    activity = "collector state"

    def run(self) -> tuple[int, int]:
        return gc.get_freeze_count(), freeze_long_lived.cache_info().hits

    def stopped(self, reason: str, detail: str) -> None:
        raise AssertionError(f"the job was stopped: {reason} {detail}")


def test_the_fork_server_freezes_what_it_preloaded_before_it_forks_a_worker() -> None:
    """A worker's collector never walks the readers the fork server loaded, so it never writes into the
    memory pages it shares with the fork server: the freeze is made there, before the fork."""
    with IsolatedReads(ReadLimits(), 1 << 30, ReadBudgets(GENEROUS), workers=1) as pool:
        [done] = pool.run(deque([_CollectorState()]))
    frozen, found_made = done.outcome
    assert frozen > 10_000  # PyMuPDF and the readers' modules
    assert found_made >= 1  # the worker's own call found the fork server's


def test_budgets_come_from_the_settings() -> None:
    settings = settings_from_env(
        {
            "ASSAY_READ_TIMEOUT_S": "90",
            "ASSAY_READ_TIMEOUT_S_BY_KIND": "pdf=20, docx=5",
            "ASSAY_READ_MEMORY_MB_BY_KIND": "pdf=512",
        }
    )
    budgets = settings.budgets()
    assert budgets.for_kind(ContentKind.PDF) == ReadBudget(20.0, 512 * MB)
    assert budgets.for_kind(ContentKind.DOCX) == ReadBudget(5.0, 4096 * MB)
    assert budgets.for_kind(ContentKind.TEXT) == ReadBudget(90.0, 4096 * MB)
    with pytest.raises(ConfigError, match="unknown kinds \\['pfd'\\]"):
        settings_from_env({"ASSAY_READ_TIMEOUT_S_BY_KIND": "pfd=20"}).budgets()
