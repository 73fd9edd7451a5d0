"""What Dagster shows of each shard after `assay run`: the partition's own counts and column schema, an
empty shard said to be empty, and the rate checks' rates as numbers the UI can plot."""

from __future__ import annotations

import dagster as dg
import pytest

from assets.progress import Progress
from assets.shard_keys import SHARD_KEYS
from assets.stages import graph
from orchestration.document_builders import make_text_pdf
from orchestration.home import Home
from orchestration.runner import Pipeline, RunReport, run
from readers.core.versions import EXTRACTOR_VERSION
from warehouse.schema import TABLES

BY_NAME = graph().by_name
PARTITIONED = graph().partitioned_stages
WORDS = "The treatment plant reported its unit consumption to the board every quarter of the year."


def _latest(instance: dg.DagsterInstance, stage: str) -> dict[str, dg.AssetMaterialization]:
    records = instance.fetch_materializations(dg.AssetKey(stage), limit=10_000).records
    latest: dict[str, dg.AssetMaterialization] = {}
    for record in sorted(records, key=lambda r: r.storage_id):
        materialization = record.asset_materialization
        assert materialization is not None and materialization.partition is not None
        latest[materialization.partition] = materialization
    return latest


def _table_rows(wh, table: str) -> int:
    return sum(wh.row_count(table, EXTRACTOR_VERSION, s) for s in wh.shards(table, EXTRACTOR_VERSION))


def _values(materialization: dg.AssetMaterialization) -> dict[str, object]:
    return {k: v.value for k, v in materialization.metadata.items()}


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("shards")
    corpus = root / "corpus"
    corpus.mkdir()
    make_text_pdf(corpus / "one.pdf", [WORDS, WORDS.replace("board", "council")])
    make_text_pdf(corpus / "two.pdf", [WORDS.replace("quarter", "month")])
    home = Home(root / "home")
    report = run(home, [corpus], Progress(), shards_per_run=256)
    assert report.ok, report.failures
    instance = dg.DagsterInstance.from_config(str(home.path / "dagster"), config_filename="assay-run.yaml")
    try:
        yield home, instance
    finally:
        instance.dispose()


def test_each_shard_carries_its_own_counts(ran) -> None:
    home, instance = ran
    wh = home.warehouse
    documents = {
        s: len(wh.rows("documents", EXTRACTOR_VERSION, s)) for s in wh.shards("documents", EXTRACTOR_VERSION)
    }
    assert sum(documents.values()) == 2
    for stage in PARTITIONED:
        latest = _latest(instance, stage)
        counted = BY_NAME[stage].counted_table
        for shard, n in documents.items():
            meta = _values(latest[shard])
            assert meta["documents"] == n and meta["empty"] is False, (stage, shard, meta)
            rows = wh.row_count(counted, EXTRACTOR_VERSION, shard)
            assert meta["dagster/partition_row_count"] == meta[f"rows {counted}"] == rows
            assert meta["dagster/row_count"] == _table_rows(wh, counted), "the table's rows, not the shard's"
        # Two pages in one document, one in the other: the shards' page counts differ, as the rows do.
        assert sorted(_values(latest[s])["pages"] for s in documents) == [1, 2]


def test_an_empty_shard_says_it_is_empty(ran) -> None:
    home, instance = ran
    held = set(home.warehouse.shards("documents", EXTRACTOR_VERSION))
    latest = _latest(instance, "extract")
    # The run's range runs from the first shard with a document to the last: the ones between are empty.
    first, last = SHARD_KEYS.index(min(held)), SHARD_KEYS.index(max(held))
    between = [s for s in SHARD_KEYS[first : last + 1] if s not in held]
    assert between, "the two documents fell in adjacent shards"
    for shard in between:
        meta = _values(latest[shard])
        assert meta["empty"] is True and meta["dagster/partition_row_count"] == 0 and meta["documents"] == 0
        assert meta["ran"] is False
    for shard in held:
        assert _values(latest[shard])["empty"] is False


def test_the_column_schema_is_the_tables(ran) -> None:
    _, instance = ran
    for stage in PARTITIONED:
        meta = next(iter(_latest(instance, stage).values())).metadata
        schema = meta["dagster/column_schema"].value
        table = TABLES[BY_NAME[stage].counted_table]
        assert [c.name for c in schema.columns] == list(table.column_names)
        assert all(c.description for c in schema.columns)


def test_extract_says_what_it_did_with_each_shard(ran) -> None:
    home, instance = ran
    latest = _latest(instance, "extract")
    for shard in home.warehouse.shards("documents", EXTRACTOR_VERSION):
        meta = _values(latest[shard])
        assert meta["ran"] is True and meta["read"] >= 1 and meta["kept"] == 0


def test_the_rate_checks_carry_their_rates_as_numbers(ran) -> None:
    _, instance = ran
    evaluations = {
        (e.asset_key.to_user_string(), e.check_name): e
        for run in instance.get_runs()
        for event in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION)
        if (e := event.dagster_event.event_specific_data) is not None
    }
    for asset, check in (("extract", "fallback_rate"), ("ocr", "underivable_rate")):
        meta = evaluations[(asset, check)].metadata
        assert isinstance(meta["rate"], dg.FloatMetadataValue) and meta["rate"].value == 0.0
        assert isinstance(meta["rate pdf"], dg.FloatMetadataValue)
        assert meta["documents_rated"].value == 2


def test_the_row_count_the_overview_shows_is_the_tables_also_after_an_empty_shard(ran) -> None:
    """The UI's asset overview shows the latest materialization's ``dagster/row_count`` as "Row count":
    when that materialization is a shard with no document (as it is when the run's range ends in one),
    the count is still the table's rows across its partitions. (Last in this file: it runs the stages
    once more, after which no shard's latest materialization is the fixture's run's.)"""
    home, instance = ran
    wh = home.warehouse
    held = wh.shards("documents", EXTRACTOR_VERSION)
    # One more run of the shard stages over a range that ends in empty shards, as a backfill of the
    # shards from the first with a document to the last key would.
    report = RunReport(roots=[])
    Pipeline(home, Progress()).shard_stages(graph().shard_stages, [(held[0], SHARD_KEYS[-1])], report)
    assert report.ok, report.failures
    assert SHARD_KEYS[-1] not in held
    for stage in PARTITIONED:
        counted = BY_NAME[stage].counted_table
        total = _table_rows(wh, counted)
        assert total > 0, (stage, counted)
        latest = instance.get_latest_materialization_event(dg.AssetKey(stage))
        assert latest is not None and latest.asset_materialization is not None
        meta = _values(latest.asset_materialization)
        assert meta["dagster/row_count"] == total, (stage, latest.asset_materialization.partition, meta)
        last = _values(_latest(instance, stage)[SHARD_KEYS[-1]])
        assert last["empty"] is True and last["dagster/partition_row_count"] == 0
        assert last["dagster/row_count"] == total, (stage, last)
