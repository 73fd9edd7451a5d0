"""The stage declarations (each stage folder's declaration.py, found by assets/stages.py): the asset
graph is the one they draw, and what is derived from them (the order, the stages of an `assay run`
range, the carried tables, the stale rules) follows a new declaration without another edit."""

from __future__ import annotations

import graphlib

import dagster as dg
import pytest

from assets.planner import stale_rules
from assets.stages import Stage, StageGraph, graph
from orchestration.definitions import defs
from readers.core.versions import EXTRACTOR_VERSION
from warehouse import Warehouse
from warehouse.schema import TABLES

ORDER = graph().order
DECLARED = graph().stages
BY_NAME = graph().by_name


def test_the_asset_graph_is_the_declared_one() -> None:
    assets = defs.resolve_asset_graph()
    for stage in ORDER:
        node = assets.get(dg.AssetKey(stage.name))
        assert {k.to_user_string() for k in node.parent_keys} == set(graph().after(stage.name)), stage.name
        assert node.is_partitioned == stage.partitioned, stage.name
        assert node.group_name == stage.group_name and node.description == stage.description, stage.name
    # The catalog closes the graph: it comes after every stage of shards, though it names none.
    assert set(graph().after("catalog")) == {s.name for s in ORDER if s.partitioned}


def test_every_stage_is_after_its_upstreams_and_each_table_has_one_writer() -> None:
    position = {s.name: i for i, s in enumerate(ORDER)}
    assert all(position[a] < position[s.name] for s in ORDER for a in s.after)
    writers = [t for s in ORDER for t in s.writes]
    assert len(writers) == len(set(writers))
    assert set(writers) <= set(TABLES)
    for stage in ORDER:
        assert set(stage.reads) <= set(TABLES), stage.name


def test_the_carried_tables_are_every_shard_stages_writes_with_extracts_done_table_last() -> None:
    shard_tables = {t for s in ORDER if s.partitioned for t in s.writes}
    CARRIED_TABLES = graph().carried_tables
    assert set(CARRIED_TABLES) == shard_tables
    assert CARRIED_TABLES[-1] == BY_NAME["extract"].done == "derivations"
    assert all(TABLES[t].sharded for t in CARRIED_TABLES)
    # Within a stage, its done table after its others; the stages in the graph's order.
    index = {t: i for i, t in enumerate(CARRIED_TABLES)}
    for stage in ORDER:
        if stage.partitioned and stage.name != "extract":
            assert all(index[t] <= index[stage.done] for t in stage.writes), stage.name
    assert index["page_verdicts"] < index["page_texts"] < index["texts"] < index["chunks"]


def test_the_declared_rules_answer_on_an_empty_warehouse_as_the_automation_asks_them(tmp_path) -> None:
    """Nothing to do on shards that hold nothing; the corpus-wide outputs are missing, so due."""
    wh = Warehouse(tmp_path / "warehouse")
    answers = {name: rule(wh, EXTRACTOR_VERSION) for name, rule in stale_rules().items()}
    assert answers == {
        "extract": set(),
        "vocabulary": True,
        "verdicts": set(),
        "ocr": set(),
        "sanitize": set(),
        "chunk": set(),
        "catalog": True,
    }
    assert graph().shard_stages == ("extract", "vocabulary", "verdicts", "ocr", "sanitize", "chunk")


def _toy(after: tuple[str, ...] = ("chunk",)) -> Stage:
    return Stage(
        "toy", after=after, reads=("chunks",), writes=("toy_rows",), partitioned=True, stale=lambda *a: []
    )


def test_a_new_declaration_takes_its_place_in_the_order_the_runs_and_the_carry() -> None:
    added = StageGraph((*DECLARED, _toy()))  # declared after the catalog
    names = [s.name for s in added.order]
    # After chunk, and before the catalog, which closes the graph whatever the declarations' order.
    assert names.index("toy") == names.index("chunk") + 1 and names[-1] == "catalog"
    assert "toy" in added.after("catalog") and added.shard_stages[-1] == "toy"
    assert added.carried_tables[-2:] == ("toy_rows", "derivations")
    # Declared first, it still comes after the stage it is declared after.
    names = [s.name for s in StageGraph((_toy(), *DECLARED)).order]
    assert names.index("toy") > names.index("chunk")


def test_a_stage_after_nothing_declared_or_in_a_cycle_is_refused() -> None:
    with pytest.raises(ValueError, match="undeclared"):
        StageGraph((*DECLARED, _toy(after=("nowhere",))))
    looped = (Stage("a", ("b",), (), (), True), Stage("b", ("a",), (), (), True))
    with pytest.raises(graphlib.CycleError):
        StageGraph(looped)
    with pytest.raises(ValueError, match="twice"):
        StageGraph((*DECLARED, _toy(), _toy()))
