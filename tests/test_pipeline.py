"""Real Dagster runs against a real instance and a real DuckDB catalog, over a corpus the tests write."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from assets.progress import Progress
from orchestration.definitions import defs
from orchestration.demo_corpus import write_demo_corpus
from orchestration.home import Home
from orchestration.runner import run
from readers.core.versions import EXTRACTOR_VERSION
from tests.conftest import release_extractor_version
from warehouse.duckdb_catalog import query

DESIGN_COLUMNS = {
    "observations": ["root", "path", "sha256", "size", "kind", "seen_at"],
    "documents": ["sha256", "kind", "size", "parent_sha256", "member"],
    "derivations": [
        "sha256",
        "extractor_version",
        "status",
        "reader",
        "reader_version",
        "recovered_by_fallback",
        "chars",
    ],
    "underivables": ["sha256", "extractor_version", "tool", "tool_version", "reason"],
    "pages": ["sha256", "extractor_version", "page", "reader", "text"],
}


def test_definitions_load() -> None:
    dg.Definitions.validate_loadable(defs)
    graph = defs.resolve_asset_graph()
    assert {k.to_user_string() for k in graph.get_all_asset_keys()} == {
        "walk",
        "extract",
        "vocabulary",
        "verdicts",
        "ocr",
        "sanitize",
        "chunk",
        "catalog",
        "calibration",
        "quality_report",
    }
    checks = {f"{k.asset_key.to_user_string()}:{k.name}" for k in graph.asset_check_keys}
    assert checks == {
        "walk:documents_contract",
        "extract:fallback_rate",
        "extract:derivations_contract",
        "extract:pages_contract",
        "verdicts:page_verdicts_contract",
        "ocr:underivable_rate",
        "ocr:ocr_confidence",
        "ocr:ocr_pages_contract",
        "ocr:page_texts_contract",
        "sanitize:texts_contract",
        "chunk:chunks_contract",
        "catalog:fallback_rate",
        "catalog:underivable_rate",
        "catalog:fallback_rate_movement",
        "calibration:separation",
        "quality_report:verdict_false_positive_movement",
    }
    extract = graph.get(dg.AssetKey("extract"))
    assert extract.code_version == EXTRACTOR_VERSION
    assert len(extract.partitions_def.get_partition_keys()) == 256


def _run(home: Path, *roots: Path) -> tuple[Progress, object]:
    progress = Progress()
    report = run(Home(home), list(roots), progress)
    assert report.ok, report.failures
    return progress, report


@pytest.fixture
def demo(tmp_path: Path) -> tuple[Path, list]:
    folder = tmp_path / "corpus"
    return folder, write_demo_corpus(folder)


@pytest.mark.slow
def test_demo_corpus_end_to_end_then_incremental(home: Path, demo, tmp_path: Path) -> None:
    folder, files = demo
    progress, report = _run(home, folder)
    wh = Home(home).warehouse
    assert progress.walked == len(files) and progress.outcomes["read"] == len(files)

    statuses = dict(
        query(wh, "select d.path, v.status from derivations v join documents d using (sha256)").rows
    )
    for f in files:
        assert statuses[str(f.path)] == f.expected_status, f.name
    reasons = query(wh, "select status, reason from derivations where status <> 'derived'").rows
    assert all(reason for _, reason in reasons)
    for view, cols in DESIGN_COLUMNS.items():
        query(wh, f"select {', '.join(cols)} from {view} limit 1")
        query(wh, f"select {', '.join(cols)} from all_{view} limit 1")
    # The scanned pages were read by Tesseract: text with word confidences, the rotation recorded.
    ocr = query(
        wh,
        "select o.page, o.status, o.text, o.confidence, o.rotation from ocr_pages o "
        "join documents d using (sha256) where d.path like '%scanned.pdf' order by 1",
    ).rows
    assert [(page, status) for page, status, *_ in ocr] == [(1, "derived"), (2, "derived")]
    assert all(text and confidence > 80 and rotation == 0 for _, _, text, confidence, rotation in ocr)
    sent = query(
        wh,
        "select o.scope, v.mode, count(*) from ocr_pages o "
        "join page_verdicts v using (sha256, page) group by all",
    ).rows
    assert {(scope, mode) for scope, mode, _ in sent} <= {("page", "REPLACE"), ("figures", "FIGURES")}
    # The PNG scan fed sideways is read upright; the chart's labels come from OCR under the page's text.
    memo = query(
        wh,
        "select o.rotation, t.source, t.text from ocr_pages o join page_texts t using (sha256, page) "
        "join documents d using (sha256) where d.path like '%memo-scan.png'",
    ).rows
    assert (
        len(memo) == 1 and memo[0][0] in (90, 270) and memo[0][1] == "ocr" and "meter readings" in memo[0][2]
    )
    chart = query(
        wh,
        "select t.source, t.text from page_texts t join documents d using (sha256) "
        "where d.path like '%chart.pdf'",
    ).rows
    assert chart[0][0] == "extracted+figures" and "## Page 1 (transcribed figures)" in chart[0][1]
    assert "Upper" in chart[0][1].split("(transcribed figures)")[1]
    # Every judged page has its final text recorded; none is an empty string.
    assert query(
        wh, "select count(*) from page_texts where text = '' or (text is null) <> (source = 'none')"
    ).rows == [(0,)]
    pages = query(
        wh,
        "select count(*) from pages p join documents d using (sha256) where d.path like '%born-digital.pdf'",
    ).rows
    assert pages == [(3,)]

    # The Dagster instance under the home recorded the runs, partitions and check evaluations.
    instance = dg.DagsterInstance.get()
    assert Path(instance.root_directory) == home / "dagster"
    touched = instance.get_materialized_partitions(dg.AssetKey("extract"))
    assert set(report.touched_shards) <= touched
    check = instance.event_log_storage.get_latest_asset_check_execution_by_key(
        [dg.AssetCheckKey(dg.AssetKey("catalog"), "underivable_rate")]
    )
    assert check

    # A rerun with nothing changed hashes nothing and reads nothing.
    again, report2 = _run(home, folder)
    assert again.hashed == 0 and again.outcomes.get("read", 0) == 0 and report2.touched_shards == []

    # A new file: only it is hashed and read.
    (folder / "new.txt").write_text("A fresh note about reservoir levels.", encoding="utf-8")
    third, report3 = _run(home, folder)
    assert third.hashed == 1 and third.outcomes["read"] == 1 and len(report3.touched_shards) == 1


@pytest.mark.slow
def test_extractor_version_bump_carries_unchanged_readers_over(home: Path, demo, monkeypatch) -> None:
    folder, files = demo
    _run(home, folder)
    bumped = EXTRACTOR_VERSION + ".test"
    release_extractor_version(monkeypatch, bumped)
    progress, _ = _run(home, folder)
    wh = Home(home).warehouse
    rows = query(wh, "select status, carried_from, shard from derivations").rows
    derived = [(c, shard) for s, c, shard in rows if s == "derived"]
    others = [(c, shard) for s, c, shard in rows if s != "derived"]
    assert derived and all(c == EXTRACTOR_VERSION for c, _ in derived)
    assert others and all(c is None for c, _ in others)  # error and underivable are retried
    # A shard whose documents are all derived by unchanged readers is carried whole by the walk and not
    # extracted again; in a shard with a document to retry, extract carries the derived ones itself.
    retried = {shard for _, shard in others}
    assert progress.outcomes.get("carried", 0) == sum(1 for _, shard in derived if shard in retried)
    assert progress.outcomes["read"] == len(others)
    assert any(shard not in retried for _, shard in derived)  # the corpus has shards of both sorts
    versions = query(wh, "select extractor_version, count(*) from all_derivations group by 1 order by 1").rows
    assert versions == [(EXTRACTOR_VERSION, len(files)), (bumped, len(files))]


@pytest.mark.slow
def test_new_sanitize_rules_reach_carried_shards_without_reading_them_again(
    home: Path, demo, monkeypatch
) -> None:
    """A release that changes what sanitize writes (its personal-data rules, say) and no reader: the
    shards the walk carries to the new version get their texts, hidden text, furniture and chunks made
    again by today's rules from the carried page texts; no document is read again for it."""
    import quality.sanitizer

    folder, _ = demo
    _run(home, folder)
    wh = Home(home).warehouse
    before = query(wh, "select count(*) from texts").rows
    release_extractor_version(monkeypatch, EXTRACTOR_VERSION + ".rules")
    monkeypatch.setattr(quality.sanitizer, "SANITIZE_VERSION", "rules-of-today")
    progress, _ = _run(home, folder)
    retried = query(wh, "select count(*) from derivations where carried_from is null").rows[0][0]
    assert progress.outcomes["read"] == retried  # only the error and underivable documents
    assert query(wh, "select count(*) from texts").rows == before
    assert query(wh, "select distinct sanitize_version from texts").rows == [("rules-of-today",)]
    assert query(wh, "select count(*) from chunks").rows[0][0] > 0
