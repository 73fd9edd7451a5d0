"""One document's work in a stage after extract, under the per-document budget every read has.

Sanitize and chunk work on a document's text, which the readers cap at ``max_text_chars`` (10 million
characters) but do not bound otherwise: a text that is slow to normalise, scan for personal data or cut
into chunks would hold the whole run, in the run's own process, where no timeout reaches C code and
nothing stops its memory. So a long text's work runs as an ``IsolatedJob`` in a worker process
(readers/engine/isolation.py), under the default read budget (``read_timeout_s``, ``read_memory_mb``):
over it, the worker is stopped and the document gets the job's ``stopped`` outcome (an ``unsanitized``
or ``unchunked`` row saying why); the shard goes on. A short text's work runs in this process, where a
worker would cost more than the work (docs/decisions.md).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any, Protocol

from assets.settings import Settings
from readers.engine.isolation import IsolatedJob, IsolatedReads, ReadBudgets

# Texts of at least this many characters are worked on in a worker. Calibrated on sanitize: 100,000
# characters of prose with addresses take 0.4 s in process, a worker's start about 1 s.
IN_WORKER_CHARS = 250_000


class TextJob(IsolatedJob, Protocol):
    @property
    def chars(self) -> int: ...


class BudgetedWork:
    """Runs a stage's jobs: long texts' in workers (a pool started on the first one, stopped on
    :meth:`close`), short texts' here. Use as a context manager."""

    def __init__(self, settings: Settings, in_worker_chars: int = IN_WORKER_CHARS) -> None:
        self.settings = settings
        self.in_worker_chars = in_worker_chars
        self._pool: IsolatedReads | None = None

    def __enter__(self) -> BudgetedWork:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def run(self, jobs: Sequence[TextJob]) -> list[Any]:
        """The outcome of every job, in the order of ``jobs``."""
        outcomes: list[Any] = [None] * len(jobs)
        isolated: deque[IsolatedJob] = deque()
        index: dict[int, int] = {}
        for i, job in enumerate(jobs):
            if job.chars >= self.in_worker_chars:
                index[id(job)] = i
                isolated.append(job)
            else:
                outcomes[i] = job.run()
        if isolated:
            for done in self._workers().run(isolated):
                outcomes[index[id(done.job)]] = done.outcome
        return outcomes

    def _workers(self) -> IsolatedReads:
        if self._pool is None:
            s = self.settings
            budget = ReadBudgets(s.budgets().default)
            self._pool = IsolatedReads(s.limits(), s.max_document_bytes, budget, s.read_workers, kinds=())
        return self._pool
