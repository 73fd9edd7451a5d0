"""A stage is a folder: one written in the shape of the project's own (its declaration with its table,
its Dagster asset, its loop over shards and its row record), put on the ``assets`` package's path, and no
other file changed, is planned and run by ``assay run``, requested and run by the automation, checked by
its table's contract, and queried in the catalog.

The folder is written by the test into a temporary directory; ``assets.__path__`` is the package's
search path, as a second installed directory of the package would extend it."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import assets
from assets.planner import stale_rules
from assets.progress import Progress
from assets.resources import AssaySettings
from assets.shard_keys import covering_shards
from assets.stages import graph
from orchestration.automation import conditions
from orchestration.definitions import make_definitions
from orchestration.document_builders import make_text_pdf
from orchestration.home import Home
from orchestration.runner import run
from tests.test_automation import TOMORROW, Automation
from tests.test_toy_stage import TEXTS, _stage_runs
from warehouse.duckdb_catalog import query
from warehouse.schema import TABLES

FOLDER = {
    "__init__.py": '''
        """The line_count stage: lines per clean text."""
    ''',
    "records.py": '''
        """The row of the stage's table: each field one column, its type, meaning and domain."""

        from dataclasses import dataclass

        from readers.core.columns import KEY, Annotated, Count, Doc
        from readers.core.reading_records import Sha256, Shard, Version
        from warehouse.schema import Table


        @dataclass(frozen=True, slots=True)
        class LineCountRecord:
            sha256: Annotated[Sha256, KEY]
            shard: Shard
            extractor_version: Version
            lines: Annotated[Count, Doc("lines in the document's clean text")]


        LINE_COUNTS = Table("line_counts", LineCountRecord, "clean text", sharded=True)
    ''',
    "declaration.py": '''
        """The line_count stage's declaration."""

        from assets.line_count.records import LINE_COUNTS
        from assets.planner import newer_input
        from assets.stages import Stage

        STAGE = Stage(
            "line_count",
            after=("sanitize",),
            reads=("texts",),
            writes=("line_counts",),
            partitioned=True,
            stale=newer_input("texts", ("line_counts",)),
            asset="assets.line_count.asset:line_count",
            description="Lines per clean text.",
            job="Count the lines of a range of shards' clean texts.",
            checked=("line_counts",),
            tables=(LINE_COUNTS,),
            unit="shards",
        )
    ''',
    "work.py": '''
        """The stage's loop over the shards its planner finds stale."""

        from assets.shard_step import ShardStep, StageOutcome
        from assets.line_count.records import LineCountRecord


        def count_lines(step: ShardStep) -> StageOutcome:
            plan = step.plan()
            if plan.shards:
                step.progress.stage(step.stage.name, plan.total)
            figures = {}
            for shard in plan.shards:
                rows = [
                    LineCountRecord(t["sha256"], shard, step.version, len(t["text"].splitlines()))
                    for t in step.wh.rows("texts", step.version, shard)
                ]
                step.wh.write("line_counts", step.version, rows, shard=shard)
                figures[shard] = {"texts": len(rows)}
                step.progress.shard_done(step.stage.name)
            return StageOutcome(ran=plan.shards, figures=figures)
    ''',
    "asset.py": '''
        """line_count: the Dagster asset, made from the declaration and the loop."""

        from assets.factory import shard_stage
        from assets.line_count.declaration import STAGE
        from assets.line_count.work import count_lines

        line_count = shard_stage(STAGE)(count_lines)
    ''',
}


def _write_folder(root: Path) -> None:
    folder = root / "line_count"
    folder.mkdir(parents=True)
    for name, text in FOLDER.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


def _forget_folder() -> None:
    """The stage's modules unloaded; the graph of the package's own folders again, and their tables."""
    for name in [m for m in sys.modules if m.partition(".")[0] == "assets" and "line_count" in m]:
        del sys.modules[name]
    graph()


@pytest.fixture()
def stage_folder(tmp_path: Path) -> Iterator[Path]:
    """The stage's folder on the ``assets`` package's path for the test; afterwards the path, the modules
    and the schema are as they were."""
    root = tmp_path / "more_stages"
    _write_folder(root)
    before = list(assets.__path__)
    assets.__path__.append(str(root))
    try:
        yield root
    finally:
        assets.__path__[:] = before
        for name in [
            m for m in sys.modules if m == "assets.line_count" or m.startswith("assets.line_count.")
        ]:
            del sys.modules[name]
        graph()  # the stages of the package's own folders again, and their tables
    assert "line_counts" not in TABLES and "line_count" not in graph().by_name


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    for name, pages in TEXTS.items():
        make_text_pdf(root / name, pages)
    return root


def _lines_in_texts(home: Home) -> dict[str, int]:
    rows = query(home.warehouse, "SELECT sha256, text FROM texts").records()
    return {r["sha256"]: len(r["text"].splitlines()) for r in rows}


def test_a_stage_folder_on_the_package_path_is_a_stage_of_the_graph_the_definitions_and_the_rules(
    stage_folder: Path,
) -> None:
    stages = graph()
    assert stages.by_name["line_count"].after == ("sanitize",) and "line_counts" in TABLES
    assert "line_count" in stages.shard_stages and "line_count" in stages.after("catalog")
    assert "line_counts" in stages.carried_tables and "line_count" in stale_rules()
    settings = AssaySettings()
    assert "line_count" in conditions(settings)
    defs = make_definitions(settings)
    assert defs.resolve_job_def("assay_line_count").description == stages.by_name["line_count"].job


def test_assay_run_runs_a_stage_folder_checks_its_rows_and_the_catalog_shows_them(
    stage_folder: Path, corpus: Path, tmp_path: Path
) -> None:
    home = Home(tmp_path / "home")
    report = run(home, [corpus], Progress())
    assert report.ok, report.failures
    counted = {r["sha256"]: r["lines"] for r in query(home.warehouse, "SELECT * FROM line_counts").records()}
    assert counted == _lines_in_texts(home) and len(counted) == len(TEXTS)
    checks = {(c.asset, c.name): c.passed for c in report.checks}
    assert checks[("line_count", "line_counts_contract")] is True
    again = run(home, [corpus], Progress())
    assert again.ok and again.runs == 1, again  # the walk alone: nothing stale


@pytest.mark.slow
def test_the_automation_requests_and_runs_a_stage_folder_added_to_a_home_already_run(
    home: Path, tmp_path: Path, corpus: Path
) -> None:
    home = Home(home)
    first = run(home, [corpus], Progress())
    assert first.ok, first.failures
    texts = {r[0] for r in query(home.warehouse, "SELECT DISTINCT shard FROM texts").rows}
    automation = Automation(AssaySettings(home=str(home.path), roots=[str(corpus)]))
    at = automation.settle(TOMORROW)  # the first ticks only learn the state
    assert not automation.executed
    root = tmp_path / "more_stages"
    _write_folder(root)
    before = list(assets.__path__)
    assets.__path__.append(str(root))
    try:
        automation.reload()  # the code location reloaded with the new folder
        automation.settle(at)
        # The new stage ran on the blocks of shards holding a clean text, and nothing else ran again.
        assert automation.executed["line_count"] == covering_shards(texts)
        assert not {"extract", "verdicts", "ocr", "sanitize", "chunk"} & set(automation.executed)
        counted = {
            r["sha256"]: r["lines"] for r in query(home.warehouse, "SELECT * FROM line_counts").records()
        }
        assert counted == _lines_in_texts(home)
        assert set(_stage_runs(home, "line_count")) >= texts
    finally:
        assets.__path__[:] = before
        for name in [
            m for m in sys.modules if m == "assets.line_count" or m.startswith("assets.line_count.")
        ]:
            del sys.modules[name]
        graph()
