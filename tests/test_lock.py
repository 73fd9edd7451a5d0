"""One writer per home (assets/lock.py): a second writer is refused naming the holder, or waits for
it; shard-stage runs share the lock; a killed holder never leaves it behind; SIGINT and SIGTERM become a
stop request (orchestration/stopping.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from assets.lock import LOCK_FILE, HomeBusy, home_lock, lock_for_run, recorded_holder
from assets.progress import Progress
from orchestration.cli import _failed
from orchestration.exits import Exit
from orchestration.home import Home
from orchestration.runner import Pipeline
from orchestration.stopping import Interrupted, StopSignals
from tests.corpus_rows import ASSAY, AssayRun, start_run
from warehouse import Warehouse
from warehouse.duckdb_catalog import query

# How often a test looks at a run meanwhile.
POLL_S = 0.02
# How long a holder process may take to start and take the lock (an interpreter importing the project).
START_TIMEOUT_S = 60
# Holds the lock of argv[1] (shared when argv[2] is "shared") until its stdin closes.
HOLDER = (
    "import sys\nfrom pathlib import Path\nfrom assets.lock import home_lock\n"
    "with home_lock(Path(sys.argv[1]), shared=sys.argv[2] == 'shared', command='holder of the test'):\n"
    "    print('held', flush=True)\n"
    "    sys.stdin.read()\n"
)


class HeldElsewhere:
    """A process holding the lock of a home until it is released or killed."""

    def __init__(self, home: Path, *, shared: bool = False) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(home), "shared" if shared else "exclusive"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "held", "the holder did not take the lock"

    def release(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=START_TIMEOUT_S)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=START_TIMEOUT_S)

    def __enter__(self) -> HeldElsewhere:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.kill()


def test_a_second_writer_is_refused_with_the_holder_named(tmp_path: Path) -> None:
    with HeldElsewhere(tmp_path) as holder:
        with pytest.raises(HomeBusy) as refused, home_lock(tmp_path):
            pytest.fail("the lock was taken twice")
        assert _failed(refused.value, verbose=False) == Exit.BUSY  # what `assay` exits with
        message = str(refused.value)
        assert f"pid {holder.process.pid} (holder of the test) since " in message
        assert "ASSAY_LOCK_WAIT_S" in message
        assert recorded_holder(tmp_path).pid == holder.process.pid
        holder.release()
    with home_lock(tmp_path):  # free again
        assert recorded_holder(tmp_path).pid == os.getpid()


def test_a_waiting_writer_takes_the_lock_once_it_is_released(tmp_path: Path) -> None:
    waits: list[float] = []
    with HeldElsewhere(tmp_path) as holder:

        def on_wait(who, left: float) -> None:
            assert who.pid == holder.process.pid
            waits.append(left)
            if len(waits) == 1:
                holder.release()  # the holder finishes while this run waits for it

        with home_lock(tmp_path, wait_s=START_TIMEOUT_S, on_wait=on_wait):
            assert recorded_holder(tmp_path).pid == os.getpid()
    assert waits and all(0 < w <= START_TIMEOUT_S for w in waits)


def test_a_wait_that_runs_out_is_refused(tmp_path: Path) -> None:
    with (
        HeldElsewhere(tmp_path),
        pytest.raises(HomeBusy, match=r"after waiting 0\.3 s"),
        home_lock(tmp_path, wait_s=0.3),
    ):
        pytest.fail("the lock was taken twice")


def test_the_kernel_releases_the_lock_of_a_killed_holder(tmp_path: Path) -> None:
    with HeldElsewhere(tmp_path) as holder:
        holder.kill()  # SIGKILL: no code of the holder runs
        with home_lock(tmp_path):
            pass
    assert (tmp_path / LOCK_FILE).is_file()  # never removed: every run locks the same file


def test_shard_stage_runs_share_the_lock_and_exclude_the_others(tmp_path: Path) -> None:
    with HeldElsewhere(tmp_path, shared=True):
        with lock_for_run(tmp_path, frozenset({"extract", "ocr"}), command="a backfill", wait_s=0):
            pass  # two shard-stage runs side by side
        for names in ({"walk"}, {"catalog"}, {"extract", "vocabulary"}, set()):
            with pytest.raises(HomeBusy), lock_for_run(tmp_path, frozenset(names), command="x", wait_s=0):
                pytest.fail(f"{names} ran beside a shard-stage run")
        with pytest.raises(HomeBusy), home_lock(tmp_path):  # assay run
            pytest.fail("assay run ran beside a shard-stage run")


def test_taking_the_lock_again_inside_a_run_is_a_no_op(tmp_path: Path) -> None:
    with home_lock(tmp_path), home_lock(tmp_path), home_lock(tmp_path, shared=True):
        assert recorded_holder(tmp_path).pid == os.getpid()
    with HeldElsewhere(tmp_path):  # and the outer block did release it
        pass


def test_a_run_dagster_launches_takes_the_lock_through_the_assay_resource(tmp_path: Path) -> None:
    """What a run the daemon or the web UI launches does: the ``assay`` resource takes the home's lock
    when the run sets it up, so it fails naming the holder instead of writing beside it."""
    from assets.progress import Progress
    from assets.resources import AssaySettings
    from orchestration.definitions import stage_asset

    settings = AssaySettings(home=str(tmp_path))
    with HeldElsewhere(tmp_path) as holder:
        result = dg.materialize(
            [stage_asset("vocabulary")],
            resources={"assay": settings, "progress": Progress()},
            instance=dg.DagsterInstance.ephemeral(),
            raise_on_error=False,
        )
        assert not result.success
        failures = [e for e in result.all_events if e.is_failure and e.event_specific_data is not None]
        messages = " ".join(str(e.event_specific_data.error.to_string()) for e in failures)
        assert f"pid {holder.process.pid} (holder of the test)" in messages, messages


def test_the_first_signal_is_a_stop_request_and_names_its_exit_code() -> None:
    for signum, code in ((signal.SIGINT, Exit.INTERRUPTED), (signal.SIGTERM, Exit.TERMINATED)):
        with StopSignals() as stop:
            stop.check()  # nothing yet
            os.kill(os.getpid(), signum)
            deadline = time.monotonic() + 5
            while stop.signum is None:
                assert time.monotonic() < deadline, "the signal was not seen"
                time.sleep(0.01)
            with pytest.raises(Interrupted) as stopped:
                stop.check()
            assert (stopped.value.signum, stopped.value.exit_code) == (signum, code)
        assert signal.getsignal(signum) is not stop._handle  # restored on the way out


def test_a_second_signal_ends_the_process_at_once() -> None:
    code = (
        "import os, signal, time\nfrom orchestration.stopping import StopSignals\n"
        "with StopSignals() as stop:\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    time.sleep(0.2)\n"
        "    assert stop.signum == signal.SIGINT\n"
        "    print('stopping', flush=True)\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    time.sleep(30)\n"
        "print('not stopped')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == -signal.SIGINT, done.stdout + done.stderr
    assert done.stdout == "stopping\n" and "Traceback" not in done.stderr


# -- assay run against assay run -----------------------------------------------------------------------

# A run of a few notes took 60 to 110 s on a 2-core machine busy with other work; two of them one after the
# other, twice that.
RUN_TIMEOUT_S = 400


def write_notes(root: Path, subject: str, count: int = 3) -> list[Path]:
    """Plain-text notes whose bytes belong to this root alone."""
    root.mkdir(parents=True)
    paths = []
    for i in range(count):
        path = root / f"{subject}-{i}.txt"
        path.write_text(
            f"Field note {i} on the {subject} pumping station: the {subject} intake ran {i * 3 + 2} hours "
            f"and the operators logged {i * 11 + 7} megalitres.\n",
            encoding="utf-8",
        )
        paths.append(path)
    return paths


def wait_until_holding(run: AssayRun) -> None:
    """Until the run has taken its home's lock (it records itself in the lock file once it has)."""
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while (holder := recorded_holder(run.home)) is None or holder.pid != run.process.pid:
        assert run.process.poll() is None, run.log.read_text()[-4000:]
        assert time.monotonic() < deadline, "the run did not take the lock in time"
        time.sleep(POLL_S)


def wait_for_output(run: AssayRun, text: str) -> None:
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while text not in run.log.read_text(encoding="utf-8", errors="replace"):
        assert run.process.poll() is None, run.log.read_text()[-4000:]
        assert time.monotonic() < deadline, f"the run did not print {text!r} in time"
        time.sleep(POLL_S)


def rows_by_root(home: Path, roots: dict[str, list[Path]]) -> dict[str, dict[str, int]]:
    """For each root, how many of its files each table has rows for."""
    warehouse = Warehouse(home / "warehouse")
    queries = {
        "observations": "select path from observations",
        "documents": "select path from documents",
        "derivations": "select d.path from derivations v join documents d using (sha256)",
        "texts": "select d.path from texts t join documents d using (sha256)",
    }
    counts: dict[str, dict[str, int]] = {}
    for name, files in roots.items():
        wanted = {str(p.absolute()) for p in files}
        counts[name] = {
            table: len({row[0] for row in query(warehouse, sql).rows} & wanted)
            for table, sql in queries.items()
        }
    return counts


@pytest.mark.slow
def test_two_runs_with_different_roots_on_one_home_wait_for_each_other_and_keep_both(tmp_path: Path) -> None:
    """The second run waits for the first (ASSAY_LOCK_WAIT_S), then walks its root beside the first's."""
    home = tmp_path / "home"
    roots = {
        "alpha": write_notes(tmp_path / "alpha", "alpha"),
        "beta": write_notes(tmp_path / "beta", "beta"),
    }
    wait = {"ASSAY_LOCK_WAIT_S": str(RUN_TIMEOUT_S)}
    with start_run(home, tmp_path / "alpha", settings=wait, log=tmp_path / "alpha.log") as first:
        wait_until_holding(first)
        os.kill(first.process.pid, signal.SIGSTOP)  # holds the lock while the second one starts
        try:
            with start_run(home, tmp_path / "beta", settings=wait, log=tmp_path / "beta.log") as second:
                wait_for_output(second, "waiting up to")
                os.kill(first.process.pid, signal.SIGCONT)
                second_output = second.wait(RUN_TIMEOUT_S)
                first.wait(RUN_TIMEOUT_S)
        finally:
            if first.process.poll() is None:  # a failure above: let it go on, to be killed on the way out
                os.kill(first.process.pid, signal.SIGCONT)
    said = " ".join(second_output.split())
    assert f"for the run writing here: pid {first.process.pid} (assay run --home {home} " in said
    every = {"observations": 3, "documents": 3, "derivations": 3, "texts": 3}
    assert rows_by_root(home, roots) == {"alpha": every, "beta": every}


@pytest.mark.slow
def test_a_second_run_is_refused_naming_the_holder_and_a_killed_holder_frees_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    roots = {
        "alpha": write_notes(tmp_path / "alpha", "alpha"),
        "beta": write_notes(tmp_path / "beta", "beta"),
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSAY_", "DAGSTER_"))}
    with start_run(home, tmp_path / "alpha", log=tmp_path / "alpha.log") as first:
        wait_until_holding(first)
        os.kill(first.process.pid, signal.SIGSTOP)  # holds the lock for as long as the test needs
        refused = subprocess.run(
            [str(ASSAY), "run", "--home", str(home), str(tmp_path / "beta")],
            capture_output=True,
            text=True,
            env=env,
            timeout=RUN_TIMEOUT_S,
        )
        first.kill()  # SIGKILL, stopped as it is: the kernel releases its lock
    assert refused.returncode == Exit.BUSY, refused.stdout + refused.stderr
    message = " ".join((refused.stdout + refused.stderr).split())
    assert f"another assay run is writing {home}: pid {first.process.pid} (assay run --home {home}" in message
    assert "Traceback" not in message
    with start_run(home, tmp_path / "beta", log=tmp_path / "beta.log") as third:
        third.wait(RUN_TIMEOUT_S)
    every = {"observations": 3, "documents": 3, "derivations": 3, "texts": 3}
    assert rows_by_root(home, roots)["beta"] == every


def test_a_step_in_its_own_process_goes_on_under_its_runs_exclusive_lock(tmp_path: Path) -> None:
    """On an executor with a process per step, each step takes the lock again: under its own run's
    exclusive lock it goes on; under another run's it is refused, naming that run."""
    with HeldElsewhere(tmp_path) as holder:  # the run's own process, here holding the corpus stages
        run = "holder of the test"
        with lock_for_run(tmp_path, frozenset({"catalog"}), command=run, wait_s=0):
            assert recorded_holder(tmp_path).command == run  # nothing rewritten by the step
        other = lock_for_run(tmp_path, frozenset({"catalog"}), command="Dagster run other", wait_s=0)
        with pytest.raises(HomeBusy, match="holder of the test"), other:
            pass
        holder.release()
    # The run over, a step that claims it takes the lock itself.
    with lock_for_run(tmp_path, frozenset({"catalog"}), command="holder of the test", wait_s=0):
        assert recorded_holder(tmp_path).pid == os.getpid()


def test_a_pipeline_opens_no_sqlite_file_of_its_home_before_it_holds_the_lock(tmp_path: Path) -> None:
    """A run that must wait for the home's lock, or be refused, never opens the SQLite files the holder
    is writing (a stopped holder's write lock made such a run fail with "locking protocol")."""
    home = Home(tmp_path / "home")
    pipeline = Pipeline(home, Progress())
    assert not list(home.dagster_home.rglob("*.db"))
    with pipeline.writing():
        assert pipeline.instance is pipeline.instance
        assert list(home.dagster_home.rglob("*.db"))
