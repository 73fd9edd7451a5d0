"""The command line's progress bar: a :class:`Progress` that draws itself with rich."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from assets.progress import Progress
from assets.stages import graph


class LiveProgress(Progress):
    """One bar per stage whose declaration names what its bar counts (its ``unit``; a quick stage with
    nothing to count has none: the summary says what it did). A stage that works over several ranges of
    shards adds each range's total to its bar; a bar ends showing what its stage did. The counts the
    stages report (files seen, documents read or judged, pages read) advance the bar of the stage at
    work."""

    def __init__(self, console: Console) -> None:
        super().__init__()
        self._bar = RichProgress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description:<8}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[unit]}"),
            TextColumn("{task.fields[note]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self._tasks: dict[str, Any] = {}
        self._waiting = False

    def __enter__(self) -> LiveProgress:
        self._bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        for task in self._tasks.values():
            completed = self._bar.tasks[task].completed
            self._bar.update(task, total=completed, completed=completed, note="")
        self._bar.__exit__(*exc)

    def stage(self, name: str, total: int | None = None) -> None:
        super().stage(name, total)
        if name == "cleanup":
            self._bar.console.print(f"removed {total} temporary files left by an interrupted run")
            return
        declared = graph().by_name.get(name)
        unit = declared.unit if declared is not None else ""
        if not unit or (declared is not None and declared.needs_total and not total):
            return
        task = self._tasks.get(name)
        if task is None:
            self._tasks[name] = self._bar.add_task(name, total=total, note="", unit=unit)
        elif total:
            self._bar.update(task, total=(self._bar.tasks[task].total or 0) + total)

    def waiting(self, message: str) -> None:
        if not self._waiting:
            self._waiting = True
            self._bar.console.print(message, soft_wrap=True, markup=False, highlight=False)

    def _advance(self, stage: str, **fields: Any) -> None:
        task = self._tasks.get(stage)
        if task is not None:
            self._bar.update(task, **fields)

    def file_seen(self, hashed: bool) -> None:
        super().file_seen(hashed)
        self._advance(self.current, completed=self.walked, note=f"{self.hashed} hashed")

    def document_judged(self) -> None:
        super().document_judged()
        self._advance(self.current, advance=1)

    def page_read(self, status: str) -> None:
        super().page_read(status)
        self._advance(self.current, advance=1)

    def document_done(self, outcome: str, status: str) -> None:
        super().document_done(outcome, status)
        if outcome != "kept":
            self._advance(self.current, advance=1)

    def shard_done(self, stage: str) -> None:
        super().shard_done(stage)
        self._advance(stage, advance=1)

    def stage_done(self, stage: str) -> None:
        super().stage_done(stage)
        self._advance(stage, advance=1)
