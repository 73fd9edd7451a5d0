"""The verdicts' work on a document's file (the second opinion, the ink measure, the texts of a page's fonts)
as jobs a reader worker runs under the read budgets of the document's kind (readers/engine/isolation.py).

A hostile page can make any of them blow up: pdfminer holds an object per character laid out, so pdfplumber
on one page of 1.5 million one-character spans reached 7.9 GB. Run in the verdicts stage's own process
that took the run with it; in a worker it is stopped at the budget, the worker is replaced, and the call
raises :class:`readers.core.errors.LimitExceeded` with ``reason`` ``timeout``, ``memory`` or
``worker_died``, which the judge records on the pages it asked about (quality/judge.py). After one such
stop the document's file is not worked on again: every later call raises the same.

This module is imported in the workers: it imports only the readers.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from readers.core.base import collector_paused
from readers.core.diagnostics import heard
from readers.core.errors import LimitExceeded, ReaderError
from readers.core.model import ContentKind, ReadLimits
from readers.engine.isolation import IsolatedJob, JobRunner

#: Characters of a worker's error kept in the message raised in the verdicts stage.
DETAIL_CHARS = 500


class FileWork(StrEnum):
    """What the verdicts read from a file; the value names it in the reasons (``<value>_over_limit:..``)."""

    SECOND_OPINION = "second_opinion"
    INK = "ink"
    FONT_TEXTS = "repair"


#: How a stopped job names what it was doing (readers/engine/isolation.py's messages).
ACTIVITIES = {
    FileWork.SECOND_OPINION: "second opinion",
    FileWork.INK: "ink measure",
    FileWork.FONT_TEXTS: "font check of a repair",
}


@dataclass(frozen=True, slots=True)
class FileWorkDone:
    """A job's outcome: the value asked for, or the error it raised, or why its worker was stopped."""

    value: Any = None
    error: str | None = None
    stopped: str | None = None  # timeout, memory or worker_died
    detail: str | None = None
    said: tuple[str, ...] = ()  # what the libraries said meanwhile (readers/core/diagnostics.py)


@dataclass(frozen=True, slots=True)
class FileWorkJob:
    """One call of the verdicts on a PDF's file, run in a reader worker."""

    work: FileWork
    path: Path
    pages: tuple[int, ...]
    limits: ReadLimits
    kind: ContentKind = ContentKind.PDF

    @property
    def activity(self) -> str:
        return ACTIVITIES[self.work]

    def run(self) -> FileWorkDone:
        # As in a read, the collector is paused: pdfminer's layout objects hold no cycles.
        with heard() as said, collector_paused():
            try:
                done = FileWorkDone(value=self._value())
            except Exception as exc:  # a library's failure is the call's, raised again where it was made
                done = FileWorkDone(error=f"{type(exc).__name__}: {exc}"[:DETAIL_CHARS])
        return dataclasses.replace(done, said=tuple(said))

    def _value(self) -> Any:
        from readers.core.reader_chain import reader
        from readers.pdf.page_facts import font_texts
        from readers.pdf.unreported_ink import measure_unreported_ink

        if self.work is FileWork.SECOND_OPINION:
            return reader("pdfplumber").read_pages(self.path, list(self.pages), self.limits)
        if self.work is FileWork.INK:
            return measure_unreported_ink(self.path, self.pages)
        return font_texts(self.path, self.pages[0])

    def stopped(self, reason: str, detail: str) -> FileWorkDone:
        return FileWorkDone(stopped=reason, detail=detail)


class DocumentFileWork:
    """The calls of one document's verdicts on its file, each a job for ``jobs``; once one is stopped over
    its budget, every later call raises at once (the file is not opened again)."""

    def __init__(self, jobs: JobRunner, kind: ContentKind, limits: ReadLimits) -> None:
        self.jobs = jobs
        self.kind = kind
        self.limits = limits
        self.over: LimitExceeded | None = None

    def __call__(self, work: FileWork, path: Path, pages: list[int] | tuple[int, ...]) -> Any:
        if self.over is not None:
            raise LimitExceeded(str(self.over), reason=self.over.reason)
        job = FileWorkJob(work, path, tuple(pages), self.limits, self.kind)
        pending: deque[IsolatedJob] = deque([job])
        [done] = [d.outcome for d in self.jobs.run(pending)]
        for line in done.said:  # said again here, where the verdicts hear what the libraries say
            name, _, message = line.partition(": ")
            logging.getLogger(name).warning(message)
        if done.stopped is not None:
            self.over = LimitExceeded(done.detail or done.stopped, reason=done.stopped)
            raise LimitExceeded(str(self.over), reason=done.stopped)
        if done.error is not None:
            raise ReaderError(done.error)
        return done.value
