"""The table contracts (expectations checked with Arrow compute) on rows built here, inside real Dagster
runs, and the rate checks around them: the blocking Underivable rate and the fallback rate's movement
between extractor versions."""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import docx
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assets.contract_checks import changed_shards_check_result, contract_check_result
from assets.progress import Progress
from assets.rate_checks import FALLBACK_MOVEMENT, UNDERIVABLE, fallback_movement_result
from assets.resources import AssaySettings, settings_from_env
from orchestration.definitions import stage_asset
from orchestration.demo import make_text_pdf
from orchestration.home import Home
from orchestration.runner import run
from quality import contracts
from quality.contracts import ContractError, ContractResult
from quality.records import PageTextRecord, PageVerdictRecord
from quality.verdicts import Mode
from readers.core.model import ContentKind, DocumentStatus
from readers.core.records import DerivationRecord, DocumentRecord
from warehouse import Warehouse
from warehouse.schema import TABLES, contract_for

CONTRACTS = {name: table.contract for name, table in TABLES.items() if table.contract is not None}
NOW = datetime(2025, 1, 1, tzinfo=UTC)
TABLES_CHECKED = ("documents", "derivations", "pages", "page_verdicts", "ocr_pages", "page_texts", "texts")


def validate(table: str, rows) -> ContractResult:
    return contracts.validate(contract_for(table), rows)


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


def _failed(result, expectation: str, column: str):
    (outcome,) = [o for o in result.failed if o.expectation == expectation and column in o.columns]
    return outcome


# -- the contracts as data ------------------------------------------------------------------------------


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


def test_good_rows_pass_every_expectation() -> None:
    documents = [_document(i) for i in range(40)]
    result = validate("documents", documents)
    assert result.success and result.rows == 40 and not result.failed
    assert len(result.outcomes) == _expectations("documents")

    verdicts = [_verdict(i, page) for i in range(20) for page in (1, 2, 3)]
    assert validate("page_verdicts", verdicts).success
    # A page without text has no trust (null): allowed, a ratio is judged only where present.
    texts = [_page_text(i, 1) for i in range(10)] + [
        _page_text(i, 2, trust=None, mode="BLANK") for i in range(10)
    ]
    assert validate("page_texts", texts).success
    # Empty rows (a run with nothing to write) pass.
    assert validate("chunks", []).success and validate("chunks", []).rows == 0


def test_a_duplicated_composite_key_fails_the_compound_uniqueness_with_both_rows_counted() -> None:
    rows = [_verdict(i, 1) for i in range(10)] + [_verdict(3, 1, mode="REPLACE")]
    result = validate("page_verdicts", rows)
    assert not result.success
    (outcome,) = result.failed
    assert outcome.expectation == "expect_compound_columns_to_be_unique"
    assert outcome.columns == ("sha256", "extractor_version", "page")
    assert outcome.unexpected_count == 2
    assert outcome.examples == ({"sha256": _sha(3), "extractor_version": "v1", "page": 1},)


def test_a_duplicated_single_key_and_a_null_key_fail_with_their_counts() -> None:
    rows = [_document(i) for i in range(10)]
    rows += [rows[4], dataclasses.replace(rows[5], sha256=None)]
    result = validate("documents", rows)
    unique = _failed(result, "expect_column_values_to_be_unique", "sha256")
    assert unique.unexpected_count == 2 and unique.examples == (_sha(4),)
    null = _failed(result, "expect_column_values_to_not_be_null", "sha256")
    assert null.unexpected_count == 1 and null.examples == (None,)
    assert len(result.failed) == 2


def test_a_ratio_of_1_5_and_an_unknown_mode_fail_their_range_and_set() -> None:
    rows = [_page_text(i, 1) for i in range(10)]
    rows[2] = dataclasses.replace(rows[2], trust=1.5)
    rows[7] = dataclasses.replace(rows[7], mode="SCRIBBLE")
    result = validate("page_texts", rows)
    ratio = _failed(result, "expect_column_values_to_be_between", "trust")
    assert (ratio.unexpected_count, ratio.examples) == (1, (1.5,))
    mode = _failed(result, "expect_column_values_to_be_in_set", "mode")
    assert (mode.unexpected_count, mode.examples) == (1, ("SCRIBBLE",))
    assert len(result.failed) == 2


def test_an_arrow_table_missing_a_contract_column_fails_with_the_reason() -> None:
    rows = pa.table({"sha256": [_sha(1)], "extractor_version": ["v1"], "shard": ["01"], "text": ["x"]})
    result = validate("texts", rows)
    # Every expectation on a column the rows lack fails, saying which column; the others pass.
    assert result.failed and all(
        len(o.columns) == 1 and o.columns[0] not in rows.column_names and o.columns[0] in (o.error or "")
        for o in result.failed
    )
    assert {o.expectation for o in result.failed if o.columns == ("chars",)} == {
        "expect_column_values_to_not_be_null",
        "expect_column_values_to_be_between",
    }
    assert all(o.success for o in result.outcomes if set(o.columns) <= set(rows.column_names))


def test_nan_is_a_missing_value_and_a_wrongly_typed_column_fails_with_the_reason() -> None:
    rows = pa.table(
        {
            "sha256": [_sha(1), _sha(2)],
            "extractor_version": ["v1", "v1"],
            "page": [1, 1],
            "shard": ["01", "02"],
            "mode": ["TEXT", "TEXT"],
            "source": ["extracted", "extracted"],
            "tool": ["pymupdf", "pymupdf"],
            "tool_version": ["1", "1"],
            "chars": [4, 4],
            "trust": [float("nan"), 0.5],  # a missing ratio: allowed, not out of range
            "ocr_confidence": ["high", None],  # text where a number belongs
            "judged_by": ["lexicon", "lexicon"],
            "cross_check": pa.array([None, None], pa.string()),
            "agreement": pa.array([None, None], pa.float64()),
        }
    )
    result = validate("page_texts", rows)
    (typed,) = result.failed
    assert typed.columns == ("ocr_confidence",) and "could not be evaluated" in (typed.error or "")
    rows = rows.set_column(1, "extractor_version", pa.array([None, "v1"], pa.string()))
    null = _failed(validate("page_texts", rows), "expect_column_values_to_not_be_null", "extractor_version")
    assert (null.unexpected_count, null.examples) == (1, (None,))


def test_a_table_without_a_contract_is_a_contract_error() -> None:
    with pytest.raises(ContractError, match="no contract"):
        validate("page_fonts", [])


@settings(max_examples=15, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 5),
            st.integers(1, 3),
            st.one_of(st.none(), st.floats(-0.5, 1.5, allow_nan=False)),
        ),
        max_size=30,
    )
)
def test_unexpected_counts_are_what_a_plain_recount_finds(rows: list[tuple[int, int, float | None]]) -> None:
    """Whatever the rows, the contract counts the rows whose key occurs more than once and the trusts outside
    [0, 1], as a recount in Python does."""
    records = [_page_text(i, page, trust=trust) for i, page, trust in rows]
    result = validate("page_texts", records)
    keys = Counter((i, page) for i, page, _ in rows)
    duplicated = sum(n for n in keys.values() if n > 1)
    outside = sum(1 for *_, t in rows if t is not None and not 0 <= t <= 1)
    counts = {(o.expectation, o.columns): o.unexpected_count for o in result.outcomes}
    assert (
        counts[("expect_compound_columns_to_be_unique", ("sha256", "extractor_version", "page"))]
        == duplicated
    )
    assert counts[("expect_column_values_to_be_between", ("trust",))] == outside
    assert result.success == (duplicated == 0 and outside == 0)


def test_the_check_result_carries_the_figures_and_fails_at_error() -> None:
    rows = [_verdict(i, 1) for i in range(5)] + [_verdict(9, 1, mode="SCRIBBLE", score=2.0)]
    result = contract_check_result("verdicts", "page_verdicts", rows, shards=["00", "09"])
    assert not result.passed and result.severity == dg.AssetCheckSeverity.ERROR
    meta = {k: v.value for k, v in result.metadata.items()}
    assert meta["rows_validated"] == 6 and meta["shards"] == 2 and meta["expectations_failed"] == 2
    failed = {f["columns"][0]: f for f in meta["failed"]}
    assert failed["mode"]["examples"] == ["SCRIBBLE"] and failed["score"]["unexpected_count"] == 1
    assert meta["expectations_evaluated"] == _expectations("page_verdicts")


def test_an_unchanged_walk_checks_nothing_and_a_changed_shard_only_its_rows() -> None:
    before = [_document(i) for i in range(1, 40, 7)]
    same = changed_shards_check_result("walk", "documents", before, before)
    assert (
        same.passed
        and same.metadata["rows_validated"].value == 0
        and "nothing" in same.metadata["note"].value
    )
    now = [*before, dataclasses.replace(before[2], sha256=before[2].shard + "e" * 62)]
    changed = changed_shards_check_result("walk", "documents", now, before)
    assert changed.passed and changed.metadata["shards"].value == 1
    assert changed.metadata["rows_validated"].value == 2  # the shard's old document and the new one


# -- the rate checks --------------------------------------------------------------------------------------


def test_the_corpus_underivable_check_blocks_and_the_per_run_one_does_not() -> None:
    blocking = {spec.name: spec.blocking for spec in stage_asset("catalog").check_specs}
    assert blocking[UNDERIVABLE] is True and blocking[FALLBACK_MOVEMENT] is False
    assert {spec.name: spec.blocking for spec in stage_asset("ocr").check_specs}[UNDERIVABLE] is False


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


def test_the_fallback_movement_check_compares_with_the_previous_version(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "warehouse")
    assay = AssaySettings(home=str(tmp_path))
    _write_version(wh, "v1", {"pdf": (20, 1), "docx": (10, 0), "html": (3, 0)})

    alone = fallback_movement_result("catalog", wh, "v1", assay)
    assert alone.passed and "no previous" in alone.metadata["note"].value

    _age(wh, "v1", 3600)
    _write_version(wh, "v2", {"pdf": (20, 5), "docx": (10, 0), "html": (3, 3)})
    result = fallback_movement_result("catalog", wh, "v2", assay)
    assert not result.passed and result.severity == dg.AssetCheckSeverity.WARN
    meta = {k: v.value for k, v in result.metadata.items()}
    assert meta["versions_compared"] == ["v1", "v2"] and meta["bound"] == assay.fallback_rate_move_max
    assert meta["over_bound"] == {"pdf": 0.2}  # 5/20 - 1/20; html moved by 1.0 but over 3 documents
    pdf = meta["by_kind"]["pdf"]
    assert (pdf["previous_rate"], pdf["current_rate"], pdf["move"]) == (0.05, 0.25, 0.2)
    assert (pdf["previous_documents"], pdf["current_documents"]) == (20, 20)
    assert meta["by_kind"]["docx"]["move"] == 0.0 and meta["not_judged_too_few_documents"] == ["html"]

    # A wider bound (from the environment, as `assay run` reads it) lets the same move pass.
    wide = settings_from_env({"ASSAY_HOME": str(tmp_path), "ASSAY_FALLBACK_RATE_MOVE_MAX": "0.25"})
    assert fallback_movement_result("catalog", wh, "v2", wide).passed


# -- inside real Dagster runs ---------------------------------------------------------------------------


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


@pytest.mark.slow
def test_pipeline_runs_the_contract_checks_and_blocks_on_the_underivable_rate(
    home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "corpus"
    _corpus(folder)
    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    contract = {(c.asset, c.name): c for c in report.checks if c.name.endswith("_contract")}
    expected = {
        ("walk", "documents_contract"),
        ("extract", "derivations_contract"),
        ("extract", "pages_contract"),
        ("verdicts", "page_verdicts_contract"),
        ("sanitize", "texts_contract"),
        ("chunk", "chunks_contract"),
    }
    # OCR runs only on shards with pages to read; a born-digital corpus sends it none.
    assert (
        expected
        <= set(contract)
        <= expected | {("ocr", "ocr_pages_contract"), ("ocr", "page_texts_contract")}
    )
    assert all(c.passed for c in contract.values())
    (documents,) = _evaluations("walk", "documents_contract")
    assert documents.passed and documents.metadata["rows_validated"].value == 4
    assert documents.metadata["expectations_failed"].value == 0 and documents.metadata["failed"].value == []
    pages = _evaluations("extract", "pages_contract")
    assert sum(p.metadata["rows_validated"].value for p in pages) == 5  # 2 PDF pages, the DOCX, 2 texts
    assert all(p.metadata["expectations_evaluated"].value == _expectations("pages") for p in pages)
    (movement,) = _evaluations("catalog", FALLBACK_MOVEMENT)
    assert movement.passed and "no previous" in movement.metadata["note"].value

    # Six texts of nothing but whitespace: nothing gets text from them, the Underivable rate of text files
    # (6 of 8) is past its bound over the corpus, and the blocking check fails the catalog run.
    for i in range(6):
        (folder / f"blank-{i}.txt").write_text(" " * (i + 1) + "\n", encoding="utf-8")
    report = run(Home(home), [folder], Progress())
    assert [f.stage for f in report.failures] == ["catalog"]
    underivable = _evaluations("catalog", UNDERIVABLE)[0]
    assert not underivable.passed and underivable.severity == dg.AssetCheckSeverity.ERROR
    assert underivable.blocking and underivable.metadata["over_bound"].value == {"text": 0.75}
    assert Home(home).warehouse.catalog_path.is_file()  # the catalog was built before the check failed
