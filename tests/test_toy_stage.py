"""A stage added in one module with one declaration, and nothing else changed: this module declares a stage
of shards (words per clean text) and its table's row record, whose fields declare the table's columns and
its contract, and `assay run` plans it, runs it, checks its rows and shows its table in the catalog.

The stage is declared with ``assets.stages.declared`` for the length of a test; the Definitions, the
planner of ``assay run``, the automation's stale rules, the carried tables, the contracts and the catalog
read the stage graph then in effect.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest

from assets.factory import shard_stage
from assets.planner import later_work, newer_input, stale_rules
from assets.progress import Progress
from assets.resources import AssaySettings
from assets.shard_step import ShardStep, StageOutcome
from assets.stages import Stage, declared, graph
from orchestration.definitions import make_definitions
from orchestration.document_builders import make_text_pdf
from orchestration.home import Home
from orchestration.runner import run
from readers.core.columns import KEY, Annotated, Count, Doc
from readers.core.reading_records import Sha256, Shard, Version
from readers.core.versions import EXTRACTOR_VERSION
from warehouse.duckdb_catalog import query
from warehouse.schema import Table


@dataclass(frozen=True, slots=True)
class WordCountRecord:
    """The row of the stage's table: each field one column, its type, meaning and domain."""

    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Version
    words: Annotated[Count, Doc("words in the document's clean text")]


WORD_COUNTS = Table("word_counts", WordCountRecord, "clean text", sharded=True)


WORD_COUNT = Stage(
    "word_count",
    after=("sanitize",),
    reads=("texts",),
    writes=("word_counts",),
    partitioned=True,
    stale=newer_input("texts", ("word_counts",)),
    asset="tests.test_toy_stage:word_count",
    description="Words per clean text.",
    job="Count the words of a range of shards' clean texts.",
    checked=("word_counts",),
    tables=(WORD_COUNTS,),
)


@shard_stage(WORD_COUNT)
def word_count(step: ShardStep) -> StageOutcome:
    stale = step.stale()
    figures: dict[str, dict[str, int]] = {}
    for shard in stale:
        rows = [
            WordCountRecord(t["sha256"], shard, step.version, len(t["text"].split()))
            for t in step.wh.rows("texts", step.version, shard)
        ]
        step.wh.write("word_counts", step.version, rows, shard=shard)
        figures[shard] = {"texts": len(rows)}
    return StageOutcome(ran=stale, figures=figures)


TEXTS = {
    "one.pdf": ["The pumping station reported its monthly output to the water board."],
    "two.pdf": ["Meters were read twice this quarter.", "The second page of the report."],
}


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    for name, pages in TEXTS.items():
        make_text_pdf(root / name, pages)
    return root


def _words_in_texts(home: Home) -> dict[str, int]:
    rows = query(home.warehouse, "SELECT sha256, text FROM texts").records()
    return {r["sha256"]: len(r["text"].split()) for r in rows}


def _stage_runs(home: Home, asset: str) -> dict[str, bool]:
    """Each shard's latest materialization of ``asset``: whether the stage did work there."""
    instance = dg.DagsterInstance.from_config(str(home.dagster_home), config_filename="assay-run.yaml")
    try:
        records = instance.fetch_materializations(dg.AssetKey(asset), limit=1000).records
        latest = {
            r.asset_materialization.partition: r.asset_materialization
            for r in sorted(records, key=lambda r: r.storage_id)
        }
        return {shard: bool(m.metadata["ran"].value) for shard, m in latest.items()}
    finally:
        instance.dispose()


def test_a_declared_stage_is_in_the_graph_the_definitions_and_the_rules_only_while_declared() -> None:
    assert "word_count" not in graph().by_name
    with declared(WORD_COUNT) as stages:
        assert stages.shard_stages[-1] == "word_count" and "word_count" in stages.after("catalog")
        assert "word_counts" in stages.carried_tables and "word_count" in stale_rules()
        defs = make_definitions(AssaySettings())
        node = defs.resolve_asset_graph().get(dg.AssetKey("word_count"))
        assert {k.to_user_string() for k in node.parent_keys} == {"sanitize"}
        assert dg.AssetKey("word_count") in defs.resolve_asset_graph().get(dg.AssetKey("catalog")).parent_keys
        assert {c.name for c in node.check_keys} == {"word_counts_contract"}
        assert defs.resolve_job_def("assay_word_count").description == WORD_COUNT.job
    assert "word_count" not in graph().by_name and "word_count" not in stale_rules()
    with pytest.raises(ValueError, match="twice"), declared(WORD_COUNT, WORD_COUNT):
        pass


def test_assay_run_runs_a_declared_stage_checks_its_rows_and_shows_its_table(
    tmp_path: Path, corpus: Path
) -> None:
    home = Home(tmp_path / "home")
    with declared(WORD_COUNT):
        report = run(home, [corpus], Progress())
        assert report.ok, report.failures
        counted = {
            r["sha256"]: r["words"] for r in query(home.warehouse, "SELECT * FROM word_counts").records()
        }
        assert counted == _words_in_texts(home) and len(counted) == len(TEXTS)
        checks = {(c.asset, c.name): c.passed for c in report.checks}
        assert checks[("word_count", "word_counts_contract")] is True
        assert set(_stage_runs(home, "word_count").values()) == {True}

        # Up to date: a rerun reads nothing and runs no stage of shards.
        again = run(home, [corpus], Progress())
        assert again.ok and again.runs == 1, again  # the walk alone
    # Its table leaves the schema with its declaration; its files stay in the warehouse.
    assert (home.warehouse.data_dir / "word_counts" / f"extractor_version={EXTRACTOR_VERSION}").is_dir()


def test_a_stage_declared_on_a_home_already_run_is_planned_alone(tmp_path: Path, corpus: Path) -> None:
    home = Home(tmp_path / "home")
    first = run(home, [corpus], Progress())
    assert first.ok, first.failures
    extracted = _stage_runs(home, "extract")
    with declared(WORD_COUNT):
        shards = sorted(later_work(home.warehouse, EXTRACTOR_VERSION))
        assert shards == sorted(extracted)  # the new stage's work, on every shard that holds a text
        report = run(home, [corpus], Progress())
        assert report.ok, report.failures
        assert set(_stage_runs(home, "word_count")) == set(shards)
        # Only the new stage worked: extract was not run again, and no other stage of shards did work.
        assert _stage_runs(home, "extract") == extracted
        for stage in ("verdicts", "ocr", "sanitize", "chunk"):
            assert not any(_stage_runs(home, stage)[s] for s in shards), stage
        counted = {
            r["sha256"]: r["words"] for r in query(home.warehouse, "SELECT * FROM word_counts").records()
        }
        assert counted == _words_in_texts(home)
