"""How stages report progress to whoever runs them (the command line's progress bar, or nobody)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Progress:
    """Counts what the stages did; the command line subclasses it to drive a progress bar.

    Passed to the assets as a resource. Under the web UI or a daemon it only counts.
    """

    walked: int = 0
    hashed: int = 0
    judged: int = 0
    ocr_pages: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    shards: Counter[str] = field(default_factory=Counter)  # per stage counting in shards: shards done
    #: Told once of each stage, as it begins its work, with its total when known: what tests hook into
    #: between two stages.
    listeners: list[Callable[[str, int | None], None]] = field(default_factory=list)
    begun: set[str] = field(default_factory=set)
    current: str = ""  # the stage at work: the last to begin

    def stage(self, name: str, total: int | None = None) -> None:
        """A stage begins its work, before it reads anything: ``total`` documents or pages to read when it
        knows them. A stage that works over several ranges of shards says so once per range; the
        listeners hear of its first."""
        self.current = name
        if name in self.begun:
            return
        self.begun.add(name)
        for listener in self.listeners:
            listener(name, total)

    def file_seen(self, hashed: bool) -> None:
        self.walked += 1
        self.hashed += int(hashed)

    def document_judged(self) -> None:
        self.judged += 1

    def page_read(self, status: str) -> None:
        self.ocr_pages[status] += 1

    def document_done(self, outcome: str, status: str) -> None:
        self.outcomes[outcome] += 1
        self.statuses[status] += 1

    def shard_done(self, stage: str) -> None:
        """A stage that counts its work in shards (sanitize, chunk) finished one."""
        self.shards[stage] += 1

    def stage_done(self, stage: str) -> None:
        """A one-step stage (the catalog) finished."""

    def waiting(self, message: str) -> None:
        """The run waits for another run's lock on the home (said once per wait)."""
