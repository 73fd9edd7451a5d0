"""The command line's progress bar: a :class:`Progress` that draws itself with rich."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from assets.progress import Progress

# Stages that get no bar: quick, with nothing to count; the summary says what they did.
UNBARRED = frozenset({"vocabulary"})
#: What each stage's bar counts, shown after its count (never the last document's status).
UNITS = {
    "walk": "paths",
    "extract": "documents",
    "verdicts": "documents",
    "ocr": "pages",
    "sanitize": "shards",
    "chunk": "shards",
    "catalog": "step",
}


class LiveProgress(Progress):
    """One bar per stage that reads (walk, extract, verdicts, ocr). A stage that works over several ranges
    of shards adds each range's total to its bar; a bar ends showing what its stage did."""

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
        if name in UNBARRED or (name in ("extract", "ocr") and not total):
            return
        task = self._tasks.get(name)
        if task is None:
            self._tasks[name] = self._bar.add_task(name, total=total, note="", unit=UNITS.get(name, ""))
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
        self._advance("walk", completed=self.walked, note=f"{self.hashed} hashed")

    def document_judged(self) -> None:
        super().document_judged()
        self._advance("verdicts", advance=1)

    def page_read(self, status: str) -> None:
        super().page_read(status)
        self._advance("ocr", advance=1)

    def document_done(self, outcome: str, status: str) -> None:
        super().document_done(outcome, status)
        if outcome != "kept":
            self._advance("extract", advance=1)

    def shard_done(self, stage: str) -> None:
        super().shard_done(stage)
        self._advance(stage, advance=1)

    def stage_done(self, stage: str) -> None:
        super().stage_done(stage)
        self._advance(stage, advance=1)
