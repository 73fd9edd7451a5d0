"""The command line's progress bar: a :class:`Progress` that draws itself with rich."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from assets.progress import Progress


class LiveProgress(Progress):
    def __init__(self, console: Console) -> None:
        super().__init__()
        self._bar = RichProgress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description:<8}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[note]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self._task: Any = None
        self._stage = ""
        self._waiting = False

    def __enter__(self) -> LiveProgress:
        self._bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._finish()
        self._bar.__exit__(*exc)

    def stage(self, name: str, total: int | None) -> None:
        self._finish()
        self._stage = name
        if name == "cleanup":
            self._bar.console.print(f"removed {total} temporary files left by an interrupted run")
            return
        if name in ("catalog", "sanitize", "chunk") or (name in ("extract", "ocr") and not total):
            return  # quick or nothing to do; the summary says what happened
        self._task = self._bar.add_task(name, total=total, note="")

    def waiting(self, message: str) -> None:
        if not self._waiting:
            self._waiting = True
            self._bar.console.print(message, soft_wrap=True, markup=False, highlight=False)

    def _finish(self) -> None:
        if self._task is not None:
            task = self._bar.tasks[self._task]
            self._bar.update(self._task, total=task.completed, completed=task.completed)
            self._task = None

    def file_seen(self, hashed: bool) -> None:
        super().file_seen(hashed)
        if self._task is not None and self._stage == "walk":
            self._bar.update(self._task, completed=self.walked, note=f"{self.hashed} hashed")

    def document_judged(self) -> None:
        super().document_judged()
        if self._task is not None and self._stage == "verdicts":
            self._bar.advance(self._task)

    def page_read(self, status: str) -> None:
        super().page_read(status)
        if self._task is not None and self._stage == "ocr":
            self._bar.advance(self._task)
            self._bar.update(self._task, note=status)

    def document_done(self, outcome: str, status: str) -> None:
        super().document_done(outcome, status)
        if self._task is not None and self._stage == "extract" and outcome != "kept":
            self._bar.advance(self._task)
            self._bar.update(self._task, note=status)
