"""The data-quality checks as Great Expectations suites: the committed suites against what the row records
derive, GX's verdicts on rows built here, the rate suites with their bounds as suite parameters, and inside
real Dagster runs: the one validation step, a contract broken on purpose seen in Dagster and in the Data
Docs, and the blocking Underivable rate. ``assay check`` never imports GX."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import docx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assets.data_quality import _movement, _rate
from assets.progress import Progress
from assets.rate_checks import FALLBACK_MOVEMENT, UNDERIVABLE
from assets.resources import AssaySettings, resource_from_env
from assets.shard_keys import RANGE_END_TAG, RANGE_START_TAG
from assets.suites import stale_suites
from orchestration.definitions import defs, make_definitions
from orchestration.document_builders import make_text_pdf
from orchestration.home import Home
from orchestration.run_instance import QUIET_LOGS
from orchestration.runner import run
from quality.expectations import (
    DATA_DOCS,
    WRITE_COMMAND,
    SuiteResult,
    Validation,
    committed_suite,
    table_suite_name,
)
from quality.records import PageTextRecord, PageVerdictRecord
from quality.verdicts import Mode
from readers.core.model import ContentKind, DocumentStatus
from readers.core.reading_records import DerivationRecord, DocumentRecord
from readers.core.versions import EXTRACTOR_VERSION
from warehouse import Warehouse
from warehouse.outcome_query import outcomes
from warehouse.schema import TABLES

CONTRACTS = {name: table.contract for name, table in TABLES.items() if table.contract is not None}
NOW = datetime(2025, 1, 1, tzinfo=UTC)
TABLES_CHECKED = ("documents", "derivations", "pages", "page_verdicts", "ocr_pages", "page_texts", "texts")
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def gx(tmp_path_factory) -> Validation:
    """One GX context for the module's validations (GX's import is paid once)."""
    return Validation(tmp_path_factory.mktemp("gx") / "docs")


def validate(gx: Validation, table: str, rows) -> SuiteResult:
    """``rows`` (row records, or an Arrow table) validated against the table's committed suite."""
    if not isinstance(rows, pa.Table):
        columns = CONTRACTS[table].columns
        rows = pa.table({c: [getattr(r, c) for r in rows] for c in columns}) if rows else None
        if rows is None:
            rows = TABLES[table].empty().select(list(CONTRACTS[table].columns))
    return gx.validate(committed_suite(table_suite_name(table)), rows.to_pandas())


def _sha(i: int) -> str:
    return f"{i:02x}" + f"{i:062x}"


def _document(i: int, kind: str = "pdf") -> DocumentRecord:
    sha = _sha(i)
    return DocumentRecord(sha, sha[:2], kind, "bytes", 1000 + i, None, None, f"/corpus/{i}.{kind}", "v1")


def _verdict(i: int, page: int, mode: str = "TEXT", score: float | None = 0.93) -> PageVerdictRecord:
    sha = _sha(i)
    return PageVerdictRecord(
        sha, sha[:2], "v1", page, mode, [], "born_digital", "en", score, 0.6, "extracted", "5", "lexicon"
    )


def _page_text(i: int, page: int, trust: float | None = 1.0, mode: str = "TEXT") -> PageTextRecord:
    sha = _sha(i)
    source = "none" if trust is None else "extracted"
    return PageTextRecord(
        sha, sha[:2], "v1", page, mode, source, None, "pymupdf", "1", trust, None, 12, "text", "lexicon"
    )


def _derivation(
    sha: str, version: str, kind: str, *, status: str = "derived", fallback: bool = False
) -> DerivationRecord:
    return DerivationRecord(
        sha256=sha,
        shard=sha[:2],
        extractor_version=version,
        kind=kind,
        status=status,
        reason=None if status == "derived" else "empty_text",
        reader="pdfplumber" if fallback else "pymupdf",
        reader_version="1",
        reader_chain="pymupdf,pdfplumber",
        recovered_by_fallback=fallback,
        attempts=2 if fallback else 1,
        pages=1,
        chars=100,
        encoding=None,
        encoding_source=None,
        carried_from=None,
        duration_ms=1.0,
        derived_at=NOW,
    )


def _expectations(table: str) -> int:
    """Not null per key and required column, the key's uniqueness, then one per unique, bounded and
    enumerated column."""
    c = CONTRACTS[table]
    return len(c.key) + len(c.required) + 1 + len(c.unique) + len(c.bounded) + len(c.enumerated)


def _failed(result: SuiteResult, expectation: str, column: str):
    (outcome,) = [o for o in result.failed if o.expectation == expectation and column in o.columns]
    return outcome


# -- the suites as data -----------------------------------------------------------------------------------


def test_the_committed_suites_are_what_the_records_derive() -> None:
    stale = stale_suites()
    assert not stale, f"the suites {stale} differ from the row records: run `{WRITE_COMMAND}`"
    for name in CONTRACTS:
        suite = committed_suite(table_suite_name(name))
        assert suite is not None and len(suite["expectations"]) == _expectations(name), name


def test_no_suite_holds_a_setting_of_the_machine() -> None:
    """The rate suites' bounds are given at validation from the settings: suite parameters, or for the
    fallback rate each kind's bound as a column of the frame validated."""
    text = "".join(p.read_text(encoding="utf-8") for p in (REPO / "quality" / "suites").glob("*rate*.json"))
    assert '"$PARAMETER": "underivable_rate_max"' in text and '"column_A": "fallback_rate_max"' in text
    assert "0.75" not in text and "0.25" not in text


def test_contracts_name_only_columns_of_their_tables_and_cover_every_stage_table() -> None:
    assert set(TABLES_CHECKED) | {"chunks"} <= set(CONTRACTS)
    for name, contract in CONTRACTS.items():
        assert set(contract.columns) <= set(TABLES[name].column_names), name
        assert contract.key, name
    # The sets come from the enumerations: a new mode or status is allowed without editing the contracts.
    modes = {e.column: set(e.values) for e in CONTRACTS["page_verdicts"].enumerated}
    assert modes["mode"] == {m.value for m in Mode}
    statuses = {e.column: set(e.values) for e in CONTRACTS["derivations"].enumerated}
    assert statuses["status"] == {s.value for s in DocumentStatus}
    assert statuses["kind"] == {k.value for k in ContentKind}


def test_good_rows_pass_every_expectation(gx: Validation) -> None:
    documents = [_document(i) for i in range(40)]
    result = validate(gx, "documents", documents)
    assert result.success and result.rows == 40 and not result.failed
    assert len(result.results) == _expectations("documents")
    verdicts = [_verdict(i, page) for i in range(20) for page in (1, 2, 3)]
    assert validate(gx, "page_verdicts", verdicts).success
    # A page without text has no trust (null): allowed, a ratio is judged only where present.
    texts = [_page_text(i, 1) for i in range(10)] + [
        _page_text(i, 2, trust=None, mode="BLANK") for i in range(10)
    ]
    assert validate(gx, "page_texts", texts).success
    # Empty rows (a run with nothing to write) pass.
    assert validate(gx, "chunks", []).success


def test_a_duplicated_composite_key_fails_the_compound_uniqueness_with_both_rows_counted(gx) -> None:
    rows = [_verdict(i, 1) for i in range(10)] + [_verdict(3, 1, mode="REPLACE")]
    result = validate(gx, "page_verdicts", rows)
    assert not result.success
    (outcome,) = result.failed
    assert outcome.expectation == "expect_compound_columns_to_be_unique"
    assert outcome.columns == ("sha256", "extractor_version", "page")
    assert outcome.unexpected_count == 2
    assert outcome.examples == ({"sha256": _sha(3), "extractor_version": "v1", "page": 1},)


def test_a_duplicated_single_key_and_a_null_key_fail_with_their_counts(gx) -> None:
    rows = [_document(i) for i in range(10)]
    rows += [rows[4], dataclasses.replace(rows[5], sha256=None)]
    result = validate(gx, "documents", rows)
    unique = _failed(result, "expect_column_values_to_be_unique", "sha256")
    assert unique.unexpected_count == 2 and unique.examples == (_sha(4),)
    null = _failed(result, "expect_column_values_to_not_be_null", "sha256")
    assert null.unexpected_count == 1
    assert len(result.failed) == 2


def test_a_ratio_of_1_5_and_an_unknown_mode_fail_their_range_and_set(gx) -> None:
    rows = [_page_text(i, 1) for i in range(10)]
    rows[2] = dataclasses.replace(rows[2], trust=1.5)
    rows[7] = dataclasses.replace(rows[7], mode="SCRIBBLE")
    result = validate(gx, "page_texts", rows)
    ratio = _failed(result, "expect_column_values_to_be_between", "trust")
    assert (ratio.unexpected_count, ratio.examples) == (1, (1.5,))
    mode = _failed(result, "expect_column_values_to_be_in_set", "mode")
    assert (mode.unexpected_count, mode.examples) == (1, ("SCRIBBLE",))
    assert mode.as_metadata()["partial_unexpected_list"] == ["SCRIBBLE"]
    assert len(result.failed) == 2


def test_a_missing_column_and_a_wrongly_typed_one_fail_with_gxs_reason(gx) -> None:
    rows = pa.table({"sha256": [_sha(1)], "extractor_version": ["v1"], "shard": ["01"], "text": ["x"]})
    result = validate(gx, "texts", rows)
    assert {o.columns for o in result.failed if o.columns == ("chars",)} == {("chars",)}
    assert all("chars" in (o.error or "") for o in result.failed if o.columns == ("chars",))
    texts = [_page_text(i, 1) for i in range(2)]
    table = pa.table({c: [getattr(r, c) for r in texts] for c in CONTRACTS["page_texts"].columns})
    typed = table.set_column(
        table.column_names.index("ocr_confidence"), "ocr_confidence", pa.array(["high", None])
    )
    (failed,) = validate(gx, "page_texts", typed).failed
    assert failed.columns == ("ocr_confidence",) and failed.error


@settings(max_examples=10, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 5),
            st.integers(1, 3),
            st.one_of(st.none(), st.floats(-0.5, 1.5, allow_nan=False)),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_unexpected_counts_are_what_a_plain_recount_finds(
    gx: Validation, rows: list[tuple[int, int, float | None]]
) -> None:
    """Whatever the rows, GX counts the rows whose key occurs more than once and the trusts outside
    [0, 1], as a recount in Python does."""
    records = [_page_text(i, page, trust=trust) for i, page, trust in rows]
    result = validate(gx, "page_texts", records)
    keys = Counter((i, page) for i, page, _ in rows)
    duplicated = sum(n for n in keys.values() if n > 1)
    outside = sum(1 for *_, t in rows if t is not None and not 0 <= t <= 1)
    counts = {(o.expectation, o.columns): o.unexpected_count for o in result.results}
    assert (
        counts[("expect_compound_columns_to_be_unique", ("sha256", "extractor_version", "page"))]
        == duplicated
    )
    assert counts[("expect_column_values_to_be_between", ("trust",))] == outside
    assert result.success == (duplicated == 0 and outside == 0)


# -- the rate suites --------------------------------------------------------------------------------------


def test_the_corpus_underivable_check_blocks_and_the_per_run_one_does_not() -> None:
    (step,) = defs.asset_checks if hasattr(defs, "asset_checks") else []
    blocking = {(spec.asset_key.to_user_string(), spec.name): spec.blocking for spec in step.check_specs}
    assert blocking[("catalog", UNDERIVABLE)] is True and blocking[("catalog", FALLBACK_MOVEMENT)] is False
    assert blocking[("ocr", UNDERIVABLE)] is False


def _outcomes_of(kinds: dict[str, tuple[int, int, int]]):
    """``kinds``: kind -> (derived, of which fallback, underivable) as outcome rows."""

    @dataclasses.dataclass
    class Row:
        kind: str
        outcome: str
        shard: str = "00"

    rows = []
    for kind, (derived, fallback, underivable) in kinds.items():
        rows += [Row(kind, "fallback" if i < fallback else "derived") for i in range(derived)]
        rows += [Row(kind, "underivable") for _ in range(underivable)]
    return rows


def test_the_rate_bounds_are_parameters_per_kind_and_judge_only_enough_documents(gx, tmp_path) -> None:
    assay = AssaySettings(home=str(tmp_path))
    # pdf: 3 of 20 fallback (0.15 > 0.10); html 10 of 20 (under its own 0.75); docx 2 of 3 (too few).
    documents = _outcomes_of({"pdf": (20, 3, 0), "html": (20, 10, 0), "docx": (3, 2, 0), "text": (4, 0, 4)})
    result, meta = _rate(gx, "fallback_rate", documents, assay)
    assert not result.success and meta["over_bound"] == {"pdf": 0.15}
    assert meta["not_judged_too_few_documents"] == {"docx": 3, "text": 4}
    (failed,) = result.failed
    assert failed.expectation == "expect_column_pair_values_a_to_be_greater_than_b"
    assert failed.columns == ("fallback_rate_max", "fallback_rate") and failed.unexpected_kinds == ("pdf",)
    assert failed.examples == ([assay.fallback_rate_max, 0.15],)  # (its bound, its rate)
    # The text kind's Underivable rate, 4 of 8, is past 0.25.
    result, meta = _rate(gx, UNDERIVABLE, documents, assay)
    assert not result.success and meta["over_bound"] == {"text": 0.5}
    wide = resource_from_env({"ASSAY_HOME": str(tmp_path), "ASSAY_UNDERIVABLE_RATE_MAX": "0.5"})
    assert _rate(gx, UNDERIVABLE, documents, wide)[0].success


def _write_version(wh: Warehouse, version: str, kinds: dict[str, tuple[int, int]]) -> None:
    """``kinds``: kind -> (derived documents, of which recovered by fallback)."""
    rows = []
    for k, (kind, (derived, fallback)) in enumerate(sorted(kinds.items())):
        rows += [_derivation(_sha(100 * k + i), version, kind, fallback=i < fallback) for i in range(derived)]
    for shard in sorted({r.shard for r in rows}):
        wh.write("derivations", version, [r for r in rows if r.shard == shard], shard=shard)


def _age(wh: Warehouse, version: str, seconds: int) -> None:
    """Make ``version``'s files older: Warehouse.versions orders versions by their last write."""
    for part in (wh.table_dir("derivations") / f"extractor_version={version}").rglob("*.parquet"):
        stamp = part.stat().st_mtime - seconds
        os.utime(part, (stamp, stamp))


def test_the_fallback_movement_check_compares_with_the_previous_version(gx, tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "warehouse")
    assay = AssaySettings(home=str(tmp_path))
    _write_version(wh, "v1", {"pdf": (20, 1), "docx": (10, 0), "html": (3, 0)})

    alone, meta = _movement(gx, wh, assay, outcomes(wh, "v1"), "v1")
    assert alone.success and "no previous" in meta["note"]

    _age(wh, "v1", 3600)
    _write_version(wh, "v2", {"pdf": (20, 5), "docx": (10, 0), "html": (3, 3)})
    result, meta = _movement(gx, wh, assay, outcomes(wh, "v2"), "v2")
    assert not result.success
    assert meta["versions_compared"] == ["v1", "v2"] and meta["bound"] == assay.fallback_rate_move_max
    assert meta["over_bound"] == {"pdf": 0.2}  # 5/20 - 1/20; html moved by 1.0 but over 3 documents
    pdf = meta["by_kind"]["pdf"]
    assert (pdf["previous_rate"], pdf["current_rate"], pdf["move"]) == (0.05, 0.25, 0.2)
    assert meta["by_kind"]["docx"]["move"] == 0.0 and meta["not_judged_too_few_documents"] == ["html"]

    # A wider bound (from the environment, as `assay run` reads it) lets the same move pass.
    wide = resource_from_env({"ASSAY_HOME": str(tmp_path), "ASSAY_FALLBACK_RATE_MOVE_MAX": "0.25"})
    assert _movement(gx, wh, wide, outcomes(wh, "v2"), "v2")[0].success


# -- assay check, and inside real Dagster runs -------------------------------------------------------------


def test_assay_check_does_not_import_great_expectations(tmp_path: Path) -> None:
    (tmp_path / "note.txt").write_text("The meter is read on the first of the month.", encoding="utf-8")
    code = (
        "import sys\n"
        "from orchestration.cli import main\n"
        "try:\n"
        f"    main(['check', {str(tmp_path / 'note.txt')!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('GX', 'great_expectations' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert "GX False" in out.stdout, out.stdout + out.stderr


def _corpus(folder: Path) -> None:
    folder.mkdir()
    make_text_pdf(
        folder / "report.pdf",
        [
            "The reservoir levels rose steadily through the spring, and the water board recorded every "
            "reading at the main gauge. Engineers checked the spillway twice a week.",
            "In the summer the demand for water increased, and the board asked households to save water "
            "in the evenings. The levels fell slowly until the autumn rains returned.",
        ],
        title="Annual water report",
    )
    document = docx.Document()
    document.add_heading("Meeting notes", level=1)
    document.add_paragraph("The committee approved the budget for the new treatment plant next year.")
    document.save(folder / "notes.docx")
    (folder / "letter.txt").write_text(
        "Dear neighbours, the road will be closed on Monday.", encoding="utf-8"
    )
    (folder / "memo.txt").write_text(
        "Remember to read the meter before the end of the month.", encoding="utf-8"
    )


def _evaluations(asset: str, name: str) -> list[dg.AssetCheckEvaluation]:
    """Every recorded evaluation of one check, latest first (a stage runs once per range of shards)."""
    records = dg.DagsterInstance.get().event_log_storage.get_asset_check_execution_history(
        dg.AssetCheckKey(dg.AssetKey(asset), name), limit=100
    )
    return [r.event.dagster_event.event_specific_data for r in records if r.event]


def _gx_failed(evaluation: dg.AssetCheckEvaluation) -> list[dict]:
    return evaluation.metadata["failed"].value


@pytest.mark.slow
def test_one_step_validates_every_check_and_a_broken_contract_shows_in_dagster_and_the_data_docs(
    home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "corpus"
    _corpus(folder)
    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    contract = {(c.asset, c.name): c for c in report.checks if c.name.endswith("_contract")}
    assert {
        ("walk", "documents_contract"),
        ("extract", "derivations_contract"),
        ("extract", "pages_contract"),
        ("verdicts", "page_verdicts_contract"),
        ("ocr", "page_texts_contract"),
        ("sanitize", "texts_contract"),
        ("chunk", "chunks_contract"),
    } <= set(contract)
    assert all(c.passed for c in contract.values())
    (documents,) = _evaluations("walk", "documents_contract")
    assert documents.passed and documents.metadata["rows_validated"].value == 4
    assert documents.metadata["expectations_evaluated"].value == _expectations("documents")
    (pages,) = _evaluations("extract", "pages_contract")
    assert pages.metadata["rows_validated"].value == 5  # 2 PDF pages, the DOCX, 2 texts
    (movement,) = _evaluations("catalog", FALLBACK_MOVEMENT)
    assert movement.passed and "no previous" in movement.metadata["note"].value
    index = home / DATA_DOCS / "index.html"
    assert index.is_file() and "chunks_contract" in index.read_text(encoding="utf-8")
    # Every check was evaluated in the one step of the last Dagster run, none in a stage's.
    instance = dg.DagsterInstance.get()
    steps = {
        (r.job_name, e.step_key)
        for r in instance.get_runs()
        for e in instance.all_logs(r.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION)
        if e.dagster_event.event_specific_data.check_name.endswith(("_contract", "_rate", "rate_movement"))
    }
    assert steps == {("assay_corpus", "data_quality")}

    # A chunk partition with a row twice: its key is duplicated. The next run validates that partition
    # (written since the last validation) and nothing else; the check fails with GX's figures.
    wh = Home(home).warehouse
    shard = wh.shards("chunks", EXTRACTOR_VERSION)[0]
    path = wh.partition_path("chunks", EXTRACTOR_VERSION, shard)
    rows = pq.read_table(path)
    pq.write_table(pa.concat_tables([rows, rows.slice(0, 1)]), path)
    report = run(Home(home), [folder], Progress())
    chunks = _evaluations("chunk", "chunks_contract")[0]
    assert not chunks.passed and chunks.severity == dg.AssetCheckSeverity.ERROR
    assert chunks.metadata["partitions"].value == 1
    failed = {f["expectation"]: f for f in _gx_failed(chunks)}
    assert failed["expect_compound_columns_to_be_unique"]["unexpected_count"] == 2
    assert failed["expect_column_values_to_be_unique"]["columns"] == ["chunk_id"]
    page = Path(chunks.metadata["data_docs"].value)
    html = page.read_text(encoding="utf-8")
    assert page.is_relative_to(home / DATA_DOCS) and "chunk_id" in html and "Failed" in html
    assert ("chunk", "chunks_contract") in {(c.asset, c.name) for c in report.checks if not c.passed}
    assert _evaluations("walk", "documents_contract")[0].metadata["rows_validated"].value == 0
    listed = page.relative_to(home / DATA_DOCS).as_posix()
    assert listed in index.read_text(encoding="utf-8")

    # A run with nothing new to validate (the catalog is made again, no table has a new partition and the
    # corpus's rates are those validated last) validates nothing: the Data Docs are left as they were,
    # the failure in them, and the check says there was nothing to check.
    stamp = index.stat().st_mtime_ns
    wh.catalog_path.unlink()
    report = run(Home(home), [folder], Progress())
    assert report.ok and index.stat().st_mtime_ns == stamp and page.read_text(encoding="utf-8") == html
    again = _evaluations("chunk", "chunks_contract")[0]
    assert again.passed and "nothing to check" in again.metadata["note"].value
    movement = _evaluations("catalog", FALLBACK_MOVEMENT)[0]
    assert movement.passed and "not validated again" in movement.metadata["note"].value

    # Six texts of nothing but whitespace: nothing gets text from them, the Underivable rate of text files
    # (6 of 8) is past its bound over the corpus, and the blocking check fails the run's last step.
    for i in range(6):
        (folder / f"blank-{i}.txt").write_text(" " * (i + 1) + "\n", encoding="utf-8")
    report = run(Home(home), [folder], Progress())
    assert [f.stage for f in report.failures] == ["catalog"]
    assert "blocking check failed" in report.failures[0].message
    underivable = _evaluations("catalog", UNDERIVABLE)[0]
    assert not underivable.passed and underivable.severity == dg.AssetCheckSeverity.ERROR
    assert underivable.blocking and underivable.metadata["over_bound"].value == {"text": 0.75}
    assert Home(home).warehouse.catalog_path.is_file()  # the catalog was built before the check failed
    # The Data Docs list every run's validations: this run's failure and the broken contract's before it.
    listing = index.read_text(encoding="utf-8")
    assert listed in listing and page.is_file()
    assert Path(underivable.metadata["data_docs"].value).relative_to(home / DATA_DOCS).as_posix() in listing


@pytest.mark.slow
def test_a_run_of_one_stage_asset_does_not_fail_nor_carry_the_validation_step_needlessly(
    home: Path, tmp_path: Path
) -> None:
    """The runs Dagster starts for one stage asset: the stage's own job (the web UI's jobs, the automation's
    runs) has no validation step; materialising the asset with its checks, as the web UI offers, runs the
    step for that asset's checks only, and with nothing written since the last validation it validates
    nothing (GX not imported); under the automation the checks do not ride along with a stage's runs but
    are requested together once the catalog is rebuilt (one run of the step)."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "note.txt").write_text("The meter is read on the first of the month.\n", encoding="utf-8")
    assert run(Home(home), [folder], Progress()).ok
    settings = AssaySettings(home=str(home), roots=[str(folder)])
    definitions = make_definitions(settings, Progress())
    instance = dg.DagsterInstance.get()
    (shard,) = Home(home).warehouse.shards("derivations", EXTRACTOR_VERSION)
    tags = {RANGE_START_TAG: shard, RANGE_END_TAG: shard}

    job = definitions.resolve_job_def("assay_extract")
    assert "data_quality" not in {n.name for n in job.graph.nodes}
    assert job.execute_in_process(instance=instance, run_config=QUIET_LOGS, tags=tags).success

    # The asset with its checks, as the web UI's "Materialize" launches it: one step for its checks.
    extract = dg.AssetKey("extract")
    implicit = definitions.resolve_implicit_global_asset_job_def()
    subset = implicit.get_subset(asset_selection={extract})
    checks = subset.asset_layer.asset_graph.asset_check_keys
    assert {k.asset_key for k in checks} == {extract} and dg.AssetCheckKey(
        extract, "pages_contract"
    ) in checks
    result = subset.execute_in_process(instance=instance, run_config=QUIET_LOGS, tags=tags)
    assert result.success
    evaluations = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert {"derivations_contract", "pages_contract", "fallback_rate"} <= set(evaluations)
    assert all(e.passed for e in evaluations.values())
    logged = [
        e.user_message
        for e in instance.all_logs(result.run_id)
        if e.step_key == "data_quality" and "Great Expectations" in (e.user_message or "")
    ]
    assert len(logged) == 1 and "GX not imported" in logged[0], logged

    # Under the automation: every data-quality check has the condition "catalog rebuilt", so that Dagster
    # does not add it to the runs it requests for its asset (the checks with no condition of their own
    # ride along), and the tick after the catalog is rebuilt requests them all together.
    graph = definitions.resolve_asset_graph()
    (step,) = definitions.asset_checks
    assert all(graph.get(key).automation_condition is not None for key in step.check_keys)
    now = datetime.now(UTC)

    def requested(at: datetime, cursor=None):
        ticked = dg.evaluate_automation_conditions(
            defs=definitions, instance=instance, cursor=cursor, evaluation_time=at
        )
        checks = {r.key for r in ticked.results if isinstance(r.key, dg.AssetCheckKey) and r.true_subset.size}
        return checks & set(step.check_keys), ticked.cursor

    first, cursor = requested(now)  # the first tick learns the state
    assert first == set()
    catalog = definitions.resolve_job_def("assay_catalog")
    assert catalog.execute_in_process(instance=instance, run_config=QUIET_LOGS).success
    after, cursor = requested(now + timedelta(minutes=1), cursor)
    assert requested(now + timedelta(minutes=2), cursor)[0] == set()
    assert after == set(step.check_keys)


def test_the_home_keeps_the_latest_validations_and_their_pages(tmp_path: Path, monkeypatch) -> None:
    """Each run's validations are kept as files and listed in the Data Docs; beyond VALIDATIONS_KEPT the
    oldest go, their pages with them."""
    import pandas as pd

    import quality.expectations as expectations

    monkeypatch.setattr(expectations, "VALIDATIONS_KEPT", 3)
    docs, stores = tmp_path / "docs", tmp_path / "gx"
    suite = committed_suite(table_suite_name("texts"))
    frame = pd.DataFrame({c: [] for c in CONTRACTS["texts"].columns})
    for run_name, assets in (("first", ("a", "b", "c")), ("second", ("d", "e"))):
        gx = Validation(docs, stores, run_name)
        for asset in assets:
            gx.validate(suite, frame, asset=asset)
        gx.build_docs()
    stored = (stores / "validations").rglob("*.json")
    results = sorted(p.relative_to(stores / "validations").parts[1] for p in stored)
    pages = sorted(
        p.relative_to(docs / "validations").parts[1] for p in (docs / "validations").rglob("*.html")
    )
    assert results == pages and len(results) == 3 and results.count("second") == 2
    index = (docs / "index.html").read_text(encoding="utf-8")
    assert "second" in index and index.count("texts_contract") >= 3
