"""Scheduled backfills by extractor version: the real automation conditions, evaluated by Dagster's own
evaluator tick by tick against a real instance, and the runs they request executed as real Dagster runs.
(The daemon that does the same on a schedule is exercised by tests/test_postgres_instance.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import docx
import pytest

from assets.progress import Progress
from assets.resources import AssaySettings
from assets.shard_keys import RANGE_END_TAG, RANGE_START_TAG, covering_shards, shard_ranges
from assets.stages import graph
from orchestration.definitions import make_definitions
from orchestration.home import Home
from orchestration.run_instance import QUIET_LOGS
from orchestration.runner import run
from readers.core.versions import EXTRACTOR_VERSION
from readers.office.docx import DocxReader
from tests.conftest import release_extractor_version
from warehouse.duckdb_catalog import query

TOMORROW = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
MAX_TICKS = 30


def _corpus(root: Path) -> None:
    """Twelve notes and twelve Word documents, each distinct, so that they fall into many shards."""
    root.mkdir()
    for i in range(12):
        (root / f"note-{i}.txt").write_text(
            f"Note {i}: the reservoir at station {i * 7} held {i * 13 + 5} megalitres this morning.\n",
            encoding="utf-8",
        )
        document = docx.Document()
        document.add_heading(f"Inspection report {i}", level=1)
        document.add_paragraph(f"The pumps at site {i * 3} were inspected and found in working order.")
        document.save(root / f"report-{i}.docx")


class Automation:
    """Ticks the definitions' automation conditions and executes what each tick requests."""

    def __init__(self, settings: AssaySettings) -> None:
        self.settings = settings
        self.instance = dg.DagsterInstance.get()
        self.cursor = None
        self.executed: dict[str, set[str]] = {}
        self.progress = Progress()
        self.defs = make_definitions(settings, self.progress)

    def reload(self) -> None:
        """The code location reloaded (after a release): new definitions, same instance and cursor."""
        self.progress = Progress()
        self.defs = make_definitions(self.settings, self.progress)

    def tick(self, at: datetime) -> dict[str, set[str]]:
        result = dg.evaluate_automation_conditions(
            defs=self.defs, instance=self.instance, cursor=self.cursor, evaluation_time=at
        )
        self.cursor = result.cursor
        requested = {}
        for key in self.defs.resolve_asset_graph().get_all_asset_keys():
            if result.get_num_requested(key):
                requested[key.to_user_string()] = result.get_requested_partitions(key)
        return requested

    def execute(self, requested: dict[str, set[str]]) -> None:
        order = [*(s.name for s in graph().order), "report"]
        jobs = {"quality_report": "report"}
        for stage in sorted(requested, key=lambda s: order.index(jobs.get(s, s))):
            job = self.defs.resolve_job_def(f"assay_{jobs.get(stage, stage)}")
            partitions = {p for p in requested[stage] if p is not None}
            batches = shard_ranges(sorted(partitions)) if partitions else [None]
            for batch in batches:
                tags = {RANGE_START_TAG: batch[0], RANGE_END_TAG: batch[1]} if batch else None
                result = job.execute_in_process(instance=self.instance, run_config=QUIET_LOGS, tags=tags)
                assert result.success, f"{stage} {batch} failed"
            self.executed.setdefault(stage, set()).update(partitions)

    def settle(self, start: datetime) -> datetime:
        """Tick a minute apart, executing the requests, until a tick requests nothing."""
        at = start
        for _ in range(MAX_TICKS):
            requested = self.tick(at)
            at += timedelta(minutes=1)
            if not requested:
                return at
            self.execute(requested)
        raise AssertionError(f"the automation still requested runs after {MAX_TICKS} ticks")


def _bump(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    """What a release that changed the DOCX reader does: its revision and the extractor version move."""
    release_extractor_version(monkeypatch, version)
    monkeypatch.setattr(DocxReader, "revision", DocxReader.revision + 1)


@pytest.mark.slow
def test_a_reader_version_bump_backfills_exactly_that_readers_shards(
    home: Path, tmp_path, monkeypatch
) -> None:
    root = tmp_path / "corpus"
    _corpus(root)
    run(Home(home), [root], Progress())
    wh = Home(home).warehouse
    shards_by_kind = {}
    for kind, shard in query(wh, "select kind, shard from documents").rows:
        shards_by_kind.setdefault(kind, set()).add(shard)
    docx_shards, text_shards = shards_by_kind["docx"], shards_by_kind["text"]
    assert len(docx_shards - text_shards) >= 5 and len(text_shards - docx_shards) >= 5
    old_reader = query(wh, "select distinct reader_version from derivations where kind = 'docx'").rows

    settings = AssaySettings(home=str(home), roots=[str(root)], version_backfill_cron="0 2 * * *")
    automation = Automation(settings)
    at = automation.settle(TOMORROW)  # the first ticks only learn the state
    assert "extract" not in automation.executed and "walk" not in automation.executed

    bumped = EXTRACTOR_VERSION + ".docx"
    _bump(monkeypatch, bumped)
    automation.reload()
    automation.executed.clear()
    # The version changed, but the backfill window (02:00 UTC) has not opened: nothing runs.
    assert automation.tick(at) == {}
    assert automation.tick(TOMORROW + timedelta(hours=1, minutes=30)) == {}
    # The window opens: the walk carries the unchanged shards, then exactly the DOCX shards run.
    automation.settle(TOMORROW + timedelta(hours=2, minutes=1))

    assert "walk" in automation.executed
    # Extract ran over the blocks of shards that hold the DOCX ones (one Dagster run covers one range of
    # keys), and read the Word documents and nothing else: the notes in those blocks were kept as they were.
    assert automation.executed["extract"] == covering_shards(docx_shards)
    assert automation.progress.outcomes.get("read") == 12
    # (a note sharing a shard with a Word document is carried over by extract itself, the others kept)
    outcomes = automation.progress.outcomes
    assert outcomes.get("kept", 0) + outcomes.get("carried", 0) == sum(
        1
        for (s,) in query(wh, "select shard from documents where kind = 'text'").rows
        if s in covering_shards(docx_shards)
    )
    assert automation.executed.get("verdicts", set()) <= covering_shards(docx_shards)
    assert "catalog" in automation.executed and "quality_report" in automation.executed

    # The catalog shows the new version; every document is there, the notes carried over unread.
    rows = query(wh, "select kind, reader_version, carried_from from derivations").rows
    assert len(rows) == 24
    new_reader = {v for k, v, _ in rows if k == "docx"}
    assert new_reader and new_reader.isdisjoint({v for (v,) in old_reader})
    assert {c for k, _, c in rows if k == "text"} == {EXTRACTOR_VERSION}
    # The older rows stay queryable.
    older = query(
        wh,
        "select count(*) from all_derivations where extractor_version = ? and kind = 'docx'",
        [EXTRACTOR_VERSION],
    ).rows
    assert older == [(12,)]
    # version_diff: the DOCX pages were derived again by a new reader version, the notes are the same.
    changes = dict(query(wh, "select kind, list(distinct change) from version_diff group by kind").rows)
    assert changes == {"docx": ["reader"], "text": ["same"]}
    rates = query(
        wh,
        "select kind, old_version, new_version, old_documents, new_documents, pages_changed "
        "from version_diff_rates order by kind",
    ).rows
    assert rates == [
        ("docx", EXTRACTOR_VERSION, bumped, 12, 12, 12),
        ("text", EXTRACTOR_VERSION, bumped, 12, 12, 0),
    ]

    # The scheduled walk finds a new file; the automation runs its shard, and only it, downstream.
    (root / "note-new.txt").write_text(
        "A new note: the sluice gates were opened at dawn.\n", encoding="utf-8"
    )
    schedule = automation.defs.resolve_schedule_def("assay_walk_schedule")
    assert schedule.cron_schedule == settings.walk_cron
    assert schedule.default_status == dg.DefaultScheduleStatus.RUNNING  # roots are configured
    with dg.build_schedule_context(instance=automation.instance) as context:
        requests = list(schedule.evaluate_tick(context).run_requests or [])
    assert len(requests) == 1
    automation.executed.clear()
    automation.progress.outcomes.clear()
    automation.execute({"walk": {None}})
    automation.settle(TOMORROW + timedelta(hours=3))
    (new_shard,) = {
        s for (s,) in query(wh, "select shard from documents where path like '%note-new.txt'").rows
    }
    assert automation.executed["extract"] == covering_shards({new_shard})  # its block of 32 shards
    assert automation.progress.outcomes.get("read") == 1
    assert automation.executed.get("verdicts", set()) <= covering_shards({new_shard})
    assert query(
        wh, "select count(*) from chunks c join documents d using (sha256) where d.path like '%note-new.txt'"
    ).rows == [(1,)]
