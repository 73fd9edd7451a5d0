"""Sanitize and chunk work on a long text in a worker under the per-document budget: a document over it
gets an ``unsanitized`` or ``unchunked`` row saying why, and the shard goes on (assets/budgeted.py)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from assets.budgeted import BudgetedWork
from assets.progress import Progress
from assets.settings import Settings
from orchestration.home import Home
from orchestration.runner import run
from quality.chunking import Chunked, ChunkJob, PageSpan
from quality.records import PageTextRecord
from quality.sanitizer import Sanitized, SanitizeJob
from readers.core.model import ContentKind
from warehouse.duckdb_catalog import query

SHA = "b" * 64


def _prose(chars: int, seed: int = 7) -> str:
    words = ("the", "water", "meters", "of", "the", "district", "were", "read", "in", "march", "and", "their")
    rng = random.Random(seed)
    lines: list[str] = []
    total = 0
    while total < chars:
        line = " ".join(rng.choice(words) for _ in range(12)).capitalize() + "."
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


def _sanitize_job(text: str) -> SanitizeJob:
    page = PageTextRecord(
        SHA, "bb", "v", 1, "TEXT", "extracted", None, "plain", "1", 0.9, 90.0, len(text), text, None
    )
    return SanitizeJob(SHA, "bb", "v", [page], {}, None, False, {}, ContentKind.TEXT)


def test_a_short_text_is_worked_on_here_and_a_long_one_in_a_worker_alike(tmp_path: Path) -> None:
    settings = Settings(home=str(tmp_path / "home"))
    short, long = _sanitize_job("A short page.\n"), _sanitize_job(_prose(3_000))
    with BudgetedWork(settings, in_worker_chars=1_000) as work:
        here, there = work.run([short, long])
        assert work._pool is not None  # the long text went to a worker
    assert isinstance(here, Sanitized) and here.text is not None and here.stopped is None
    assert there == long.run()


def test_work_over_its_time_budget_is_stopped_and_says_so(tmp_path: Path) -> None:
    settings = Settings(home=str(tmp_path / "home"), read_timeout_s=0.02)
    jobs = [_sanitize_job(_prose(200_000)), _sanitize_job("Short enough to stay here.\n")]
    with BudgetedWork(settings, in_worker_chars=100_000) as work:
        stopped, kept = work.run(jobs)
    assert stopped.text is None and stopped.redactions == [] and stopped.stopped is not None
    assert stopped.stopped.reason == "timeout" and stopped.stopped.chars == jobs[0].chars
    assert "over its budget of 0.02 s" in stopped.stopped.detail and "sanitize" in stopped.stopped.detail
    assert kept.text is not None and kept.stopped is None


def test_chunking_over_its_memory_budget_is_stopped_and_impossible_input_is_a_row(tmp_path: Path) -> None:
    settings = Settings(home=str(tmp_path / "home"), read_memory_mb=1)
    text = _prose(5_000)
    page = [PageSpan(1, 0, "en", "extracted", 0.9, None)]
    over = ChunkJob(SHA, "bb", "v", text, page, 1500, 200, ContentKind.TEXT)
    bad = ChunkJob("c" * 64, "bb", "v", text[:500], [], 1500, 200, ContentKind.TEXT)  # no page: here
    with BudgetedWork(settings, in_worker_chars=1_000) as work:
        memory, error = work.run([over, bad])
    assert isinstance(memory, Chunked) and memory.chunks == [] and memory.stopped is not None
    assert memory.stopped.reason == "memory" and "chunking" in memory.stopped.detail
    assert error.chunks == [] and error.stopped is not None and error.stopped.reason == "error"
    assert "needs at least one page" in error.stopped.detail


@pytest.mark.slow
def test_a_document_over_the_sanitize_budget_is_an_error_with_its_reason_and_the_shard_goes_on(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 300,000-character text with a sanitize budget of 0.05 s (reads keep theirs): its outcome is
    ``error``, ``sanitize_error:timeout``, with an ``unsanitized`` row; the short text beside it is clean."""
    monkeypatch.setenv("ASSAY_READ_TIMEOUT_S", "0.05")
    monkeypatch.setenv("ASSAY_READ_TIMEOUT_S_BY_KIND", "text=120")
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "long.txt").write_text(_prose(300_000), encoding="utf-8")
    (folder / "short.txt").write_text("A short letter about the water meters.\n", encoding="utf-8")
    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    wh = Home(home).warehouse
    outcomes = dict(
        (path.rsplit("/", 1)[-1], (outcome, reason))
        for path, outcome, reason in query(wh, "select path, outcome, reason from outcomes").rows
    )
    assert outcomes == {"long.txt": ("error", "sanitize_error:timeout"), "short.txt": ("derived", None)}
    (row,) = query(wh, "select reason, chars, detail from unsanitized").rows
    assert row[0] == "timeout" and row[1] > 300_000 - 100 and "0.05 s" in row[2]
    texts = query(wh, "select d.path from texts t join documents d using (sha256)").rows
    assert [p.rsplit("/", 1)[-1] for (p,) in texts] == ["short.txt"]
    assert query(wh, "select count(*) from unchunked").rows == [(0,)]
