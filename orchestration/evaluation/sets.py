"""The labelled sets of the shared corpus ``assay eval`` measures on, and one run of assay over each.

A set is a folder of real documents and what is known of them: ``dev`` (documents of every kind, labelled
in the corpus's manifest, some with a truth in ``dev_truth/``), ``tables`` (PDFs with the expected cells of
real tables in the set's truth file) and ``robust`` (PDFs that broke a reader, with no truth). Each set is
run by ``assay run --json`` in a child process of its own, into a home of its own, exactly as a user runs
it: its time, the peak memory of its processes together, and everything it printed besides the one JSON
object (which a clean run leaves empty) are part of what is measured.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from orchestration.runner import BLOCKING_CHECK_FAILED
from readers.core.errors import AssayError

#: How often the memory of a set's processes is sampled while it runs.
MEMORY_SAMPLE_SECONDS = 0.25
#: What marks a traceback in what a run printed.
TRACEBACK = "Traceback (most recent call last)"

SET_NAMES = ("dev", "tables", "robust")


@dataclass(frozen=True)
class CorpusSet:
    """A set's name, its folder of documents and each document's kind by file name."""

    name: str
    folder: Path
    kinds: dict[str, str]

    @property
    def files(self) -> list[Path]:
        return sorted(p for p in self.folder.iterdir() if p.is_file())


def find_corpus(given: Path | None, repo: Path) -> Path:
    """The shared corpus: ``given``, else ``../shared/corpus`` beside the working folder or the project."""
    candidates = [given] if given else [Path("../shared/corpus"), repo.parent / "shared" / "corpus"]
    for candidate in candidates:
        if candidate is not None and (candidate / "manifest.csv").is_file():
            return candidate.resolve()
    where = given or candidates[-1]
    raise AssayError(
        f"no corpus at {where}: `assay eval` measures on the shared corpus (a folder with manifest.csv, "
        "dev/, tables/ and robust/); pass it with --corpus DIR"
    )


def corpus_sets(corpus: Path, names: tuple[str, ...] = SET_NAMES) -> list[CorpusSet]:
    """The sets present in ``corpus``, in ``names``' order."""
    sets: list[CorpusSet] = []
    for name in names:
        if name == "dev":
            folder, manifest = corpus / "dev", corpus / "manifest.csv"
        else:
            folder, manifest = corpus / name / "pdf", corpus / name / "manifest.csv"
        if not folder.is_dir():
            continue
        kinds = {p.name: name for p in folder.iterdir()}  # the set's name stands for a PDF set's kind
        if name == "dev" and manifest.is_file():
            with manifest.open(newline="", encoding="utf-8") as f:
                kinds |= {Path(r["path"]).name: r["kind"] for r in csv.DictReader(f)}
        sets.append(CorpusSet(name, folder, kinds))
    return sets


@dataclass
class SetRun:
    """One run of assay over a set: where it went, how long it took, what it held and printed."""

    corpus_set: CorpusSet
    home: Path
    seconds: float = 0.0
    peak_memory_mb: float = 0.0
    exit_code: int = 0
    report: dict[str, object] = field(default_factory=dict)
    stray_lines: list[str] = field(default_factory=list)
    #: False for a home measured as it is (``assay eval --measure-only``): no time, memory or output.
    ran: bool = True

    @property
    def failed(self) -> bool:
        """The run printed no report, or a stage of it failed. A corpus-wide rate check that fails (most of
        the robust set holds no text) is the corpus's figure, not the run's failure."""
        failures = self.report.get("failures") or []
        return not self.report or any(
            not str(f.get("message", "")).startswith(BLOCKING_CHECK_FAILED)  # type: ignore[union-attr]
            for f in failures  # type: ignore[union-attr]
        )

    @property
    def checks_failed(self) -> list[str]:
        """The corpus-wide checks that failed (shown: the robust set's Underivable rate fails rightly)."""
        return [
            f"{c['asset']}:{c['check']}"  # type: ignore[index]
            for c in self.report.get("checks") or []  # type: ignore[union-attr]
            if not c["passed"]  # type: ignore[index]
        ]

    @property
    def tracebacks(self) -> int:
        return sum(TRACEBACK in line for line in self.stray_lines)


def run_set(corpus_set: CorpusSet, home: Path, *, tick: Callable[[], None] = lambda: None) -> SetRun:
    """``assay run --json`` over the set into ``home``, in a child process; ``tick`` is called while it
    runs (a progress display's refresh)."""
    command = [
        sys.executable,
        "-c",
        "import sys; from orchestration.cli import main; sys.exit(main())",
        "--home",
        str(home),
        "run",
        "--json",
        str(corpus_set.folder),
    ]
    result = SetRun(corpus_set, home)
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = _MemoryWatch(child.pid)
    peak.start()
    out: list[str] = []
    err: list[str] = []
    readers = [
        threading.Thread(target=lambda: out.append(child.stdout.read()), daemon=True),  # type: ignore[union-attr]
        threading.Thread(target=lambda: err.append(child.stderr.read()), daemon=True),  # type: ignore[union-attr]
    ]
    for r in readers:
        r.start()
    while child.poll() is None:
        tick()
        time.sleep(0.2)
    for r in readers:
        r.join()
    peak.stop()
    result.seconds = time.perf_counter() - started
    result.peak_memory_mb = peak.peak_bytes / 2**20
    result.exit_code = child.returncode
    stdout, stderr = "".join(out), "".join(err)
    result.report, rest = _report(stdout)
    result.stray_lines = [line for line in (rest + "\n" + stderr).splitlines() if line.strip()]
    return result


def _report(stdout: str) -> tuple[dict[str, object], str]:
    """The run's JSON object (``assay-run/1``) wherever it starts in ``stdout``, and what else was printed."""
    decoder = json.JSONDecoder()
    at = stdout.find("{")
    while at >= 0:
        try:
            report, end = decoder.raw_decode(stdout, at)
        except json.JSONDecodeError:
            report, end = None, at + 1
        if isinstance(report, dict) and str(report.get("schema", "")).startswith("assay-run/"):
            return report, stdout[:at] + stdout[end:]
        at = stdout.find("{", end if report is not None else at + 1)
    return {}, stdout


class _MemoryWatch(threading.Thread):
    """Samples the resident memory of a process and all its descendants, summed, and keeps the peak."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_bytes = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        try:
            root = psutil.Process(self.pid)
        except psutil.Error:
            return
        while not self._stop_event.wait(MEMORY_SAMPLE_SECONDS):
            total = 0
            try:
                processes = [root, *root.children(recursive=True)]
            except psutil.Error:
                break
            for process in processes:
                try:
                    total += process.memory_info().rss
                except psutil.Error:
                    continue
            self.peak_bytes = max(self.peak_bytes, total)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()
