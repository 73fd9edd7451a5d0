"""Stopping a query of the catalog: after its time limit, or at Ctrl-C.

Both go through DuckDB's own ``interrupt()``, which its operators look for as they work. Ctrl-C cannot be
left to DuckDB's Python client: it looks for signals only between two of its tasks, and one task of a
large join can run for minutes (a SIGINT during one went unanswered for over a minute). So, while
a query runs in the main thread, SIGINT is only recorded, and the number the interpreter's C-level handler
writes to its wakeup file descriptor wakes a thread that interrupts the query at once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from types import TracebackType

import duckdb


class QueryStopper:
    """While entered, stops the query running on ``con`` after ``timeout`` seconds (None: never) and at
    SIGINT (in the main thread, where SIGINT raises KeyboardInterrupt). ``timed_out`` and ``signalled``
    say which."""

    def __init__(self, con: duckdb.DuckDBPyConnection, timeout: float | None) -> None:
        self._con = con
        self._timer = threading.Timer(timeout, self._time_out) if timeout else None
        self._pipe: tuple[int, int] | None = None
        self._watcher: threading.Thread | None = None
        self._previous_fd = -1
        self._previous: object = None
        self.timed_out = False
        self.signalled = False

    def __enter__(self) -> QueryStopper:
        if self._timer is not None:
            self._timer.start()
        # Only where SIGINT would raise KeyboardInterrupt: a handler of a caller's own (the run's) is kept.
        if (
            threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        ):
            read, write = os.pipe()
            os.set_blocking(write, False)
            self._pipe = (read, write)
            self._previous_fd = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
            self._previous = signal.signal(signal.SIGINT, self._record)
            self._watcher = threading.Thread(target=self._watch, args=(read,), daemon=True)
            self._watcher.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._pipe is None:
            return
        signal.signal(signal.SIGINT, self._previous)  # type: ignore[arg-type]
        signal.set_wakeup_fd(self._previous_fd)
        read, write = self._pipe
        os.close(write)  # the watcher reads the end of the pipe and returns
        if self._watcher is not None:
            self._watcher.join()
        os.close(read)
        self._pipe = None

    def _time_out(self) -> None:
        self.timed_out = True
        self._con.interrupt()

    def _record(self, signum: int, frame: object) -> None:
        self.signalled = True

    def _watch(self, read: int) -> None:
        while data := os.read(read, 64):
            if int(signal.SIGINT) in data:
                self.signalled = True
                with contextlib.suppress(duckdb.Error):
                    self._con.interrupt()
