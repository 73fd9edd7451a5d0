"""One writer per home: the runs that write the warehouse hold a lock on ``<home>/.lock``.

Two runs writing one home at once lose data: each walk reads the observations, merges its roots in and
writes them back, so the walk that writes last drops what the other found, and the next run drops those
roots' documents. Two runs over the same roots do all the work twice. So:

- ``assay run`` and ``assay calibrate`` hold the lock **exclusively** from before the walk until the
  catalog is built (orchestration/runner.py);
- a run Dagster launches itself (the daemon, the web UI, a schedule or a backfill) takes it when its
  ``assay`` resource is set up (``AssaySettings.yield_for_execution``): **shared** when the run holds only
  shard stages (extract, verdicts, ocr, sanitize, chunk), whose runs write disjoint partitions and run
  side by side by design (two per backfill), **exclusive** for anything else (walk, vocabulary, catalog,
  calibration, report). Inside ``assay run``'s own process the lock is already held and taking it again
  is a no-op.

Readers (``assay sql``, ``search``, ``lineage``, the web UI) never take it: the catalog and the search
index are swapped in whole, and every partition is renamed into place.

The lock is ``flock(2)`` on an open file description: the kernel drops it when the holder's process ends
however it ends (SIGKILL, the OOM killer), so a killed run never leaves a stale lock behind. The file is
never removed (removing it would let two runs lock two different files); it holds one JSON line naming
the last run to take it, for the message a refused run prints.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from assets.stages import graph
from readers.core.errors import AssayError

LOCK_FILE = ".lock"
# How often a run waiting for the lock tries it again: a quarter of a second is nothing beside a run's
# minimum of a few seconds, and the polling costs one system call.
POLL_S = 0.25
# The longest command line a holder records (a run over many paths names them all).
COMMAND_CHARS = 300


@dataclass(frozen=True, slots=True)
class Holder:
    """Who took the lock last: the process, what it runs, since when (UTC)."""

    pid: int | None
    command: str
    since: str

    def describe(self) -> str:
        if self.pid is None:
            return "another assay run (it did not say which)"
        return f"pid {self.pid} ({self.command}) since {self.since}"


class HomeBusy(AssayError):
    """Another run holds the home's lock; ``assay`` exits with ``Exit.BUSY`` (orchestration/exits.py)."""

    def __init__(self, home: Path, holder: Holder, waited_s: float) -> None:
        waited = f" after waiting {waited_s:g} s" if waited_s > 0 else ""
        super().__init__(
            f"another assay run is writing {home}{waited}: {holder.describe()}. Let it finish, or set "
            f"ASSAY_LOCK_WAIT_S to the seconds to wait for it"
        )
        self.holder = holder


# The homes this process holds the lock of (absolute paths), so that taking it again inside a run is a
# no-op instead of a lock against itself (flock locks conflict across open file descriptions).
_held: set[Path] = set()


@contextlib.contextmanager
def home_lock(
    home: Path,
    *,
    shared: bool = False,
    wait_s: float = 0.0,
    command: str | None = None,
    on_wait: Callable[[Holder, float], None] | None = None,
) -> Iterator[None]:
    """Hold the lock of ``home`` for the block: exclusive, or ``shared`` with other shard-stage runs.

    Taken at once if free; otherwise tried again every ``POLL_S`` for up to ``wait_s`` seconds (0: not
    at all), calling ``on_wait(holder, seconds_left)`` before each wait (it may raise to give up), then
    :class:`HomeBusy` naming the holder."""
    home = home.absolute()
    if home in _held:
        yield
        return
    home.mkdir(parents=True, exist_ok=True)
    # O_CLOEXEC: a program the run starts (Tesseract) must not inherit the lock and keep it past the run.
    fd = os.open(home / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        _acquire(fd, home, shared=shared, wait_s=wait_s, on_wait=on_wait)
        _record_holder(fd, command if command is not None else _this_command())
        _held.add(home)
        try:
            yield
        finally:
            _held.discard(home)
    finally:
        os.close(fd)  # releases the lock


def recorded_holder(home: Path) -> Holder | None:
    """The run that last took ``home``'s lock, as its file names it (None before any run), whether it still
    holds the lock or not: reading it takes no lock."""
    path = home.absolute() / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        return _read_holder(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def lock_for_run(home: Path, asset_names: frozenset[str], *, command: str, wait_s: float) -> Iterator[None]:
    """The lock a run Dagster launched takes: shared when it holds only shard stages.

    On an executor with a process per step (several processes, a Dask cluster) each step builds the
    ``assay`` resource again in its own process. Its run's process holds the lock for the whole run, and
    names the run in the lock file (``command`` holds the run's id): a step of the same run then goes
    on under its run's lock, where taking it again would be refused when the run holds it exclusively."""
    if _held_by_own_run(home, command):
        yield
        return
    # The stages whose runs each write only their own shards' partitions: the partitioned ones.
    shard_stages = {stage.name for stage in graph().order if stage.partitioned}
    shared = bool(asset_names) and asset_names <= shard_stages
    with home_lock(home, shared=shared, wait_s=wait_s, command=command):
        yield


def _held_by_own_run(home: Path, command: str) -> bool:
    """Whether another process holds ``home``'s lock exclusively and its file names ``command``."""
    try:
        fd = os.open(home.absolute() / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        holder = _read_holder(fd)
        if holder.command != command[:COMMAND_CHARS] or holder.pid == os.getpid():
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # free, or only shared: take it as usual
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            return True
        return False
    finally:
        os.close(fd)  # releases the shared lock the probe may have taken


def _acquire(
    fd: int, home: Path, *, shared: bool, wait_s: float, on_wait: Callable[[Holder, float], None] | None
) -> None:
    mode = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB
    deadline = time.monotonic() + max(wait_s, 0.0)
    while True:
        try:
            fcntl.flock(fd, mode)
            return
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
        left = deadline - time.monotonic()
        holder = _read_holder(fd)
        if left <= 0:
            raise HomeBusy(home, holder, wait_s)
        if on_wait is not None:
            on_wait(holder, left)
        time.sleep(min(POLL_S, left))


def _record_holder(fd: int, command: str) -> None:
    since = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    line = json.dumps({"pid": os.getpid(), "command": command[:COMMAND_CHARS], "since": since}) + "\n"
    os.ftruncate(fd, 0)
    os.pwrite(fd, line.encode(), 0)


def _read_holder(fd: int) -> Holder:
    try:
        record = json.loads(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
        return Holder(int(record["pid"]), str(record["command"]), str(record["since"]))
    except (OSError, ValueError, KeyError, TypeError):  # empty, being rewritten, or not ours
        return Holder(None, "", "")


def _this_command() -> str:
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
    return shlex.join([name, *sys.argv[1:]])
