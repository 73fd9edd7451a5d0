"""SIGINT (Ctrl-C) and SIGTERM as a request to stop ``assay run`` between two steps.

The first signal stops the run: the runner launches no further Dagster run, and the step running when it
came is interrupted by Dagster itself (inside a step Dagster's handlers turn the signal into
``DagsterExecutionInterruptedError``; outside one they hold it until the step starts). What a stopped step
leaves is what a killed one leaves, and the runner relies on the same guarantees: every partition is
renamed into place whole and each stage writes the table its planner reads as done last (README
"State"), so the rerun finishes exactly what was left. The interrupted Dagster run is recorded as
canceled, not failed, and nothing after it runs: no corpus-wide check judges a half-done corpus.

Which signal came is read from the interpreter's wakeup file descriptor, where the C-level handler writes
the number of every signal that arrives, whichever Python handler (ours or Dagster's) then runs.

A second signal ends the process at once, by that signal's default action: like a SIGKILL, it may leave a
temporary file the next run removes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from types import FrameType, TracebackType

from orchestration.exits import Exit

SIGNALS = (signal.SIGINT, signal.SIGTERM)
EXIT_CODES = {signal.SIGINT: Exit.INTERRUPTED, signal.SIGTERM: Exit.TERMINATED}
MESSAGE = "interrupted: rerun the same command to finish; nothing is lost."


class Interrupted(KeyboardInterrupt):
    """The run stopped on a signal; ``assay`` exits with 130 (SIGINT) or 143 (SIGTERM)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"{signal.Signals(signum).name}: {MESSAGE}")
        self.signum = signum
        self.exit_code = EXIT_CODES.get(signal.Signals(signum), Exit.INTERRUPTED)


class StopSignals:
    """While entered (in the main thread), SIGINT and SIGTERM are recorded instead of raised; ``check()``
    raises :class:`Interrupted` once one came. Outside the main thread it records nothing."""

    def __init__(self) -> None:
        self._received: list[int] = []
        self._pipe: tuple[int, int] | None = None
        self._previous_fd = -1
        self._previous: dict[int, object] = {}

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is not threading.main_thread():
            return self
        read, write = os.pipe()
        for fd in (read, write):
            os.set_blocking(fd, False)
            os.set_inheritable(fd, False)
        self._pipe = (read, write)
        self._previous_fd = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        self._previous = {s: signal.signal(s, self._handle) for s in SIGNALS}
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._pipe is None:
            return
        for s, handler in self._previous.items():
            signal.signal(s, handler)  # type: ignore[arg-type]
        signal.set_wakeup_fd(self._previous_fd)
        for fd in self._pipe:
            os.close(fd)
        self._pipe = None

    @property
    def signum(self) -> int | None:
        """The first SIGINT or SIGTERM that came while entered, or None."""
        self._drain()
        return self._received[0] if self._received else None

    def check(self) -> None:
        """Raise :class:`Interrupted` if a signal came."""
        signum = self.signum
        if signum is not None:
            raise Interrupted(signum)

    def _drain(self) -> None:
        if self._pipe is None:
            return
        with contextlib.suppress(BlockingIOError, InterruptedError):
            while chunk := os.read(self._pipe[0], 64):
                self._received += [n for n in chunk if n in SIGNALS]

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self._drain()
        if len(self._received) > 1:  # the second one: stop at once
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)
