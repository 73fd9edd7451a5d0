"""Every document is read in a worker process, under a wall-time and a memory budget (docs/design.md §8).

Why a process: a pathological document (form XObjects that draw each other thirty levels deep, an image
that decodes to gigabytes, a reader looping for ever) wedges the thread reading it inside C code, where
no Python timeout reaches. Only a process can be stopped whatever it is doing, and only a process gives
its memory back when it is stopped.

How:

- A pool of workers (one per core by default) is started when the first document needs reading, from a
  fork server that has already imported the readers, so a replacement costs tens of milliseconds, not an
  import of PyMuPDF, pdfminer and lxml.
- The parent hands each idle worker one document and, every ``POLL_S``, looks at its reply, the time the
  read has taken against the kind's budget, and the worker's resident memory against the kind's budget.
  Over either: the worker is killed (SIGKILL) and replaced, and the document is ``error`` with reason
  ``timeout`` or ``memory``; an Underivable names the reader that was running.
- A worker that dies by itself (a segmentation fault in a C library) makes the document ``error`` with
  reason ``worker_died``; the other documents go on.
- A worker whose resident memory stays over ``RECYCLE_SHARE`` of the smallest budget after a read is
  replaced before it reads again: memory a library keeps (allocator arenas, MuPDF's store) must not be
  charged to the next document.
- What a worker prints, or a C library writes on its stdout or stderr, goes to a file of its own, not to
  the terminal: what was written while a document was read is the document's (``Extraction.printed``,
  kept in ``derivations.diagnostics`` with what the libraries said: readers/core/diagnostics.py).
- Workers die with their parent (``PR_SET_PDEATHSIG`` through the fork server): a run that is killed
  leaves no reader behind.
- Workers run only assay's own functions, so they are started without the program's ``__main__``: a user's
  script calling ``assay.check()`` or ``assay.run()`` at its top level, with no ``if __name__ ==
  "__main__":`` guard, is not run again in each worker (multiprocessing imports the main script in a
  started process unless the main module has neither a file nor a module name, as in a notebook).
- Each worker reads a private snapshot of the walked bytes (readers/core/snapshot.py) made in a directory of
  its own, removed when the worker is replaced; the pool's directory is removed when the pool stops, and
  one left by a pool whose process was killed is removed by the next pool.
- Other work on a document's bytes that a hostile file can wedge or blow up (opening a container and
  inflating its members: readers/walk/expansion.py) runs in the same workers under the same budgets, as an
  :class:`IsolatedJob` handed to :meth:`IsolatedReads.run`; a job that is stopped gets the outcome its
  ``stopped`` method makes of the reason.

The memory budget is resident memory sampled every ``POLL_S``, not a hard ceiling: a read that allocates
faster than that can overshoot by what it allocates in one interval before it is stopped.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import types
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

import psutil

from readers.core.base import collector_paused, freeze_long_lived
from readers.core.cores import usable_cores
from readers.core.diagnostics import quiet_mupdf
from readers.core.model import ContentKind, DocumentStatus, ReadLimits
from readers.core.reader_chain import chain_signature, reader_modules, readers_for
from readers.engine.dispatch import Attempt, AttemptStarted, Extraction, extract_document

TIMEOUT = "timeout"
MEMORY = "memory"
WORKER_DIED = "worker_died"

# How often the parent looks at its workers. 20 ms keeps the overshoot of a fast allocation small (MuPDF
# decodes an image at a few hundred MB/s: a few MB per interval) and costs nothing measurable: the parent
# waits on the workers' pipes in between.
POLL_S = 0.02
# A worker over this share of the smallest memory budget after a read is replaced (see the docstring).
# A worker that has read the whole dev corpus rests at about 285 MB (benchmarks/read_budgets.py), a
# fourteenth of the default budget, so in practice a worker is replaced only after a read that swelled it.
RECYCLE_SHARE = 0.5
# Modules the fork server imports once, so that each worker starts with the readers loaded (and the
# readers' own modules: readers/core/reader_chain.py reader_modules).
PRELOAD = ["readers.core.reader_chain", "readers.engine.dispatch", "readers.walk.expansion"]
# Imported after every other preload: the fork server freezes what it holds before it forks a worker.
FREEZE_PRELOADED = "readers.engine.frozen"
_PR_SET_PDEATHSIG = 1
# The pool's snapshot directory in the temporary directory: this prefix, the pid of the pool's process.
SCRATCH_PREFIX = "assay-reads-"
# At most this many bytes of what a worker printed while reading one document are kept (the rest of it is
# dropped with the file's content): enough for the diagnostics' 50 lines of 300 characters.
MAX_PRINTED_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class ReadBudget:
    """What one read may take: wall-time seconds and resident bytes of its worker."""

    seconds: float
    memory_bytes: int


@dataclass(frozen=True, slots=True)
class ReadBudgets:
    """The default budget and the kinds that have their own."""

    default: ReadBudget
    by_kind: Mapping[ContentKind, ReadBudget] = field(default_factory=dict)

    def for_kind(self, kind: ContentKind) -> ReadBudget:
        return self.by_kind.get(kind, self.default)

    @property
    def smallest_memory(self) -> int:
        return min([self.default.memory_bytes, *(b.memory_bytes for b in self.by_kind.values())])


@dataclass(frozen=True, slots=True)
class ReadRequest:
    """One document to read."""

    key: str
    path: Path
    kind: ContentKind
    size: int
    # The walk's sha256 of the file: with it the readers read a private snapshot verified to hold exactly
    # the walked bytes (readers/core/snapshot.py); without it (a file named on the command line) the path
    # itself.
    sha256: str | None = None


@dataclass(frozen=True, slots=True)
class ReadDone:
    request: ReadRequest
    extraction: Extraction
    # The largest resident memory of the worker seen while it read (0 when read in process): what the
    # memory budgets are calibrated on (benchmarks/read_budgets.py).
    peak_rss_bytes: int = 0


class DocumentReads(Protocol):
    """How the extract stage has its documents read: in worker processes (the pipeline) or in this process
    (``assay check``, which reads one file the user named and waits for it)."""

    def read(self, requests: Sequence[ReadRequest]) -> Iterator[ReadDone]:
        """Every request read once, in the order the reads finish."""
        ...


class IsolatedJob(Protocol):
    """Work on one document other than its read, run in a reader worker under the budgets of ``kind``.
    It must be picklable; ``run`` executes in the worker and returns the outcome (it should turn its own
    failures into one), ``stopped`` in this process when the worker was stopped (``reason`` is
    ``timeout``, ``memory`` or ``worker_died``)."""

    @property
    def kind(self) -> ContentKind: ...

    @property
    def activity(self) -> str:
        """What the job does, for the messages of a stopped job (``"expansion"``)."""
        ...

    def run(self) -> Any: ...

    def stopped(self, reason: str, detail: str) -> Any: ...


@dataclass(frozen=True, slots=True)
class JobDone:
    job: IsolatedJob
    outcome: Any
    peak_rss_bytes: int = 0


class JobRunner(Protocol):
    """Runs jobs; the caller may append to ``jobs`` while it takes the results."""

    def run(self, jobs: deque[IsolatedJob]) -> Iterator[JobDone]: ...


class InProcessJobs:
    """Jobs run one after the other in this process, without budgets (tests, one-off tools)."""

    def run(self, jobs: deque[IsolatedJob]) -> Iterator[JobDone]:
        while jobs:
            job = jobs.popleft()
            yield JobDone(job, job.run())


@dataclass(frozen=True, slots=True)
class _Ran:
    outcome: Any


@dataclass(frozen=True, slots=True)
class InProcessReads:
    limits: ReadLimits
    max_bytes: int

    def read(self, requests: Sequence[ReadRequest]) -> Iterator[ReadDone]:
        for r in requests:
            # Handed out without a name in this frame: the caller drops the read when it is done with it.
            yield ReadDone(
                r,
                extract_document(
                    r.path, r.kind, size=r.size, limits=self.limits, max_bytes=self.max_bytes, sha256=r.sha256
                ),
            )


@dataclass(frozen=True, slots=True)
class _Job:
    request: ReadRequest
    limits: ReadLimits
    max_bytes: int
    # The reader revisions of the process that planned the read: the rows carry the versions of the code
    # that run was started with (a release it loaded, a reader a test released), whatever the fork server
    # imported.
    revisions: tuple[tuple[str, int], ...]
    # Where the worker makes its private snapshots (readers/core/snapshot.py): a directory of its own in the
    # pool's, removed when the worker is replaced, so the snapshot of a worker killed over its budget does
    # not outlive it.
    scratch: Path | None = None


@dataclass(frozen=True, slots=True)
class _Finished:
    extraction: Extraction


@dataclass(slots=True)
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    ps: psutil.Process
    job: ReadRequest | IsolatedJob | None = None
    started: float = 0.0
    running: AttemptStarted | None = None
    attempts: list[Attempt] = field(default_factory=list)
    peak: int = 0
    scratch: Path | None = None

    def assign(self, job: _Job | IsolatedJob) -> None:
        self.conn.send(job)
        self.job = job.request if isinstance(job, _Job) else job
        self.started, self.running, self.attempts = time.monotonic(), None, []
        self.peak = 0

    def rss(self) -> int:
        try:
            rss = self.ps.memory_info().rss
        except psutil.Error:
            return 0
        self.peak = max(self.peak, rss)
        return rss


class IsolatedReads:
    """A pool of killable reader processes; use as a context manager so the workers are stopped."""

    def __init__(
        self,
        limits: ReadLimits,
        max_bytes: int,
        budgets: ReadBudgets,
        workers: int = 0,
        kinds: Iterable[ContentKind] | None = None,
    ) -> None:
        """``kinds``: the kinds the pool will read, whose readers its workers import before their first
        document (every kind's by default; ``assay check`` names its file's)."""
        self.limits = limits
        self.max_bytes = max_bytes
        self.budgets = budgets
        self.size = workers if workers > 0 else usable_cores()
        self.replaced = 0
        self._workers: list[_Worker] = []
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload([*PRELOAD, *reader_modules(kinds), FREEZE_PRELOADED])
        self._scratch: Path | None = None

    def __enter__(self) -> IsolatedReads:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is not None:  # the reads are abandoned (an interrupt, a failure): stop the workers at once
            for w in self._workers:
                _kill(w)
        self.close()

    def close(self) -> None:
        for w in self._workers:
            with contextlib.suppress(OSError):
                w.conn.send(None)
        for w in self._workers:
            w.process.join(timeout=2)
            if w.process.is_alive():
                _kill(w)
            w.conn.close()
        self._workers.clear()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def read(self, requests: Sequence[ReadRequest]) -> Iterator[ReadDone]:
        yield from self._drive(deque(requests))

    def run(self, jobs: deque[IsolatedJob]) -> Iterator[JobDone]:
        """Every job run once, in the order they finish; ``jobs`` may grow while the results are taken."""
        yield from self._drive(jobs)

    def _drive(self, pending: deque[Any]) -> Iterator[Any]:
        while pending or any(w.job is not None for w in self._workers):
            self._hand_out(pending)
            busy = [w for w in self._workers if w.job is not None]
            for conn in wait([w.conn for w in busy], timeout=POLL_S):
                worker = next(w for w in busy if w.conn is conn)
                received = [self._receive(worker)]
                if received[0] is not None:
                    # Popped as it is handed out, so that this frame keeps no reference to the read
                    # while the caller turns it into rows and drops it (assets/extract/work.py).
                    yield received.pop()
            now = time.monotonic()
            for worker in [w for w in self._workers if w.job is not None]:
                done = self._stop_if_over_budget(worker, now)
                if done is not None:
                    yield done

    def _hand_out(self, pending: deque[Any]) -> None:
        for worker in [w for w in self._workers if w.job is None]:
            if not pending:
                return
            worker.assign(self._job(pending.popleft(), worker.scratch))
        while pending and len(self._workers) < self.size:
            worker = self._start()
            worker.assign(self._job(pending.popleft(), worker.scratch))

    def _job(self, request: ReadRequest | IsolatedJob, scratch: Path | None) -> _Job | IsolatedJob:
        if not isinstance(request, ReadRequest):
            return request
        revisions = tuple((r.name, type(r).revision) for r in readers_for(request.kind))
        return _Job(request, self.limits, self.max_bytes, revisions, scratch)

    def _start(self) -> _Worker:
        parent, child = self._context.Pipe()
        process = self._context.Process(target=_serve, args=(child,), name="assay-reader", daemon=True)
        with _main_left_out():
            process.start()
        child.close()
        if self._scratch is None:
            self._scratch = _pool_scratch()
        scratch = self._scratch / f"worker-{process.pid}"
        scratch.mkdir(mode=0o700)
        worker = _Worker(process, parent, psutil.Process(process.pid), scratch=scratch)
        self._workers.append(worker)
        return worker

    def _receive(self, worker: _Worker) -> ReadDone | JobDone | None:
        try:
            # A finished read is one large tree of small objects without cycles: unpickled with the
            # collector walking it as it grows, a 117-page PDF's took twice as long (docs/decisions.md).
            with collector_paused():
                message = worker.conn.recv()
        except (EOFError, OSError):
            return self._died(worker)
        if isinstance(message, AttemptStarted):
            worker.running = message
        elif isinstance(message, Attempt):
            worker.attempts.append(message)
        elif isinstance(message, _Finished | _Ran):
            resting = worker.rss()
            item = _request(worker)
            if isinstance(message, _Ran) and not isinstance(item, ReadRequest):
                done: ReadDone | JobDone = JobDone(item, message.outcome, worker.peak)
            elif isinstance(message, _Finished) and isinstance(item, ReadRequest):
                done = ReadDone(item, message.extraction, worker.peak)
            else:
                raise RuntimeError("a reader worker replied to another kind of work than it was given")
            worker.job = None
            if resting > RECYCLE_SHARE * self.budgets.smallest_memory:
                self._replace(worker)
            return done
        return None

    def _stop_if_over_budget(self, worker: _Worker, now: float) -> ReadDone | JobDone | None:
        request = _request(worker)
        budget = self.budgets.for_kind(request.kind)
        elapsed = now - worker.started
        activity = "read" if isinstance(request, ReadRequest) else request.activity
        if elapsed > budget.seconds:
            detail = f"the {activity} ran over its budget of {budget.seconds:g} s for {request.kind.value}"
            return self._over_budget(worker, TIMEOUT, detail, elapsed)
        rss = worker.rss()
        if rss > budget.memory_bytes:
            detail = (
                f"the {activity}'s memory reached {rss >> 20} MB, over its budget of "
                f"{budget.memory_bytes >> 20} MB for {request.kind.value}"
            )
            return self._over_budget(worker, MEMORY, detail, elapsed)
        return None

    def _over_budget(self, worker: _Worker, reason: str, detail: str, elapsed: float) -> ReadDone | JobDone:
        return self._stopped(worker, reason, detail + "; the worker was stopped and replaced", elapsed)

    def _died(self, worker: _Worker) -> ReadDone | JobDone:
        worker.process.join(timeout=5)
        code = worker.process.exitcode
        how = f"signal {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit code {code}"
        detail = f"the reader's process died ({how}); the worker was replaced"
        return self._stopped(worker, WORKER_DIED, detail, time.monotonic() - worker.started)

    def _stopped(self, worker: _Worker, reason: str, detail: str, elapsed: float) -> ReadDone | JobDone:
        """The outcome of the work ``worker`` was stopped in (or died in), and the worker replaced."""
        request = _request(worker)
        if isinstance(request, ReadRequest):
            done: ReadDone | JobDone = ReadDone(
                request, _failed(request, worker, reason, detail, elapsed), worker.peak
            )
        else:
            done = JobDone(request, request.stopped(reason, detail), worker.peak)
        self._replace(worker)
        return done

    def _replace(self, worker: _Worker) -> None:
        """Stop ``worker``; a new one is started when a document needs it."""
        _kill(worker)
        worker.conn.close()
        if worker.scratch is not None:
            shutil.rmtree(worker.scratch, ignore_errors=True)
        self._workers.remove(worker)
        self.replaced += 1


def _request(worker: _Worker) -> ReadRequest | IsolatedJob:
    if worker.job is None:
        raise RuntimeError("a reader worker replied while it had no document")
    return worker.job


def _failed(request: ReadRequest, worker: _Worker, reason: str, detail: str, elapsed: float) -> Extraction:
    """The document's outcome when its read was stopped: the attempts that ended, then the one that was
    running, failed with ``reason``."""
    attempts = list(worker.attempts)
    running = worker.running
    if running is not None and attempts and attempts[-1].ordinal == running.ordinal:
        # The reader had ended: the budget ran out while its result was handed back (a very large text
        # is copied to be sent).
        attempts[-1] = dataclasses.replace(
            attempts[-1],
            produced=False,
            failed=True,
            reason=reason,
            detail=f"{detail} (after the reader ended, while its result was handed back)",
        )
    elif running is not None:
        spent = sum(a.duration_ms for a in attempts)
        attempts.append(
            Attempt(
                ordinal=running.ordinal,
                reader=running.reader,
                reader_version=running.reader_version,
                tool_version=running.tool_version,
                produced=False,
                failed=True,
                reason=reason,
                detail=detail,
                duration_ms=round(max(0.0, elapsed * 1000.0 - spent), 3),
            )
        )
    return Extraction(
        kind=request.kind,
        status=DocumentStatus.ERROR,
        reason=reason,
        reader=None,
        reader_version=None,
        chain=chain_signature(request.kind),
        result=None,
        attempts=tuple(attempts),
        duration_ms=round(elapsed * 1000.0, 3),
    )


def remove_orphans(parent: Path, prefix: str = "") -> None:
    """Remove the directories ``<prefix><pid>-…`` under ``parent`` whose process is gone: what a run
    killed with SIGKILL left (it never closed its pool, nor finished its walk)."""
    if not parent.is_dir():
        return
    for old in parent.glob(f"{prefix}*-*"):
        pid = old.name.removeprefix(prefix).split("-", 1)[0]
        if pid.isdigit() and not psutil.pid_exists(int(pid)):
            shutil.rmtree(old, ignore_errors=True)


def _pool_scratch() -> Path:
    """A new private directory for the pool's snapshots, named after this process; the directories of
    pools whose process is gone are removed first."""
    remove_orphans(Path(tempfile.gettempdir()), SCRATCH_PREFIX)
    return Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-"))


def _kill(worker: _Worker) -> None:
    with contextlib.suppress(ProcessLookupError, OSError):
        worker.process.kill()
    worker.process.join(timeout=5)


_MAIN_SWAP = threading.Lock()


@contextlib.contextmanager
def _main_left_out() -> Iterator[None]:
    """Start a process without the program's ``__main__``: while this holds, ``__main__`` is a module with
    neither a file nor a spec, which multiprocessing's preparation data leaves out (as a notebook's), so the
    worker does not import the user's script as ``__mp_main__`` and run its top level again."""
    with _MAIN_SWAP:
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            if main is None:
                del sys.modules["__main__"]
            else:
                sys.modules["__main__"] = main


def _serve(conn: Connection) -> None:
    """A worker: read the documents it is sent until it is sent ``None`` or its parent goes away."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it stops the workers
    freeze_long_lived()  # made in the fork server before the fork (readers/engine/frozen.py): found done
    quiet_mupdf()
    printed = _hold_output()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        if not isinstance(job, _Job):
            conn.send(_Ran(job.run()))
            continue
        revisions = dict(job.revisions)
        for reader in readers_for(job.request.kind):
            type(reader).revision = revisions.get(reader.name, type(reader).revision)
        r = job.request
        # The read is made, sent and dropped with the collector paused, so that no collection walks it;
        # the cycles a reader makes wait for the end of the document (docs/decisions.md).
        with collector_paused():
            extraction = extract_document(
                r.path,
                r.kind,
                size=r.size,
                limits=job.limits,
                max_bytes=job.max_bytes,
                sha256=r.sha256,
                scratch=job.scratch,
                on_attempt=conn.send,
            )
            said = _printed(printed)
            if said:
                extraction = dataclasses.replace(extraction, printed=said)
            conn.send(_Finished(extraction))
            del extraction


def _hold_output() -> int | None:
    """Send this worker's stdout and stderr (file descriptors 1 and 2, and what C libraries write there)
    to an unnamed temporary file; its descriptor, or None where it cannot be made (the output then stays
    where it was)."""
    try:
        with tempfile.TemporaryFile() as held:
            fd = os.dup(held.fileno())
        for target in (1, 2):
            os.dup2(fd, target)
    except OSError:
        return None
    return fd


def _printed(fd: int | None) -> tuple[str, ...]:
    """The lines written on the held output since the last call, and the file emptied."""
    if fd is None:
        return ()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        data = os.pread(fd, MAX_PRINTED_BYTES, 0)
        if data:
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        return ()
    return tuple(line for line in data.decode("utf-8", "replace").splitlines() if line.strip())


def _die_with_parent() -> None:
    """Ask Linux to kill this worker when the fork server that started it ends (it ends with the run)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
