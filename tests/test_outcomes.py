"""One final outcome per document (quality/outcomes.py), the same wherever it is read: the `outcomes` view
of the catalog, the rate checks, the run summary, `version_diff_rates` and `assay check`."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import pymupdf
import pytest
from rich.console import Console

from orchestration.checkfile import check_file
from orchestration.cli import main
from orchestration.document_builders import make_image_only_pdf, make_text_pdf
from orchestration.home import Home
from orchestration.summary import kind_outcomes, print_summary
from quality.outcomes import ATTEMPTED, WITH_TEXT, DocumentOutcome, OutcomeRecord
from quality.rates import rates_by_kind
from quality.records import PageTextRecord
from readers.core.reading_records import DerivationRecord, DocumentRecord
from readers.core.versions import EXTRACTOR_VERSION
from tests.conftest import CORPUS, DevCorpusRun
from tests.test_cli import check_exit
from warehouse import Warehouse
from warehouse.duckdb_catalog import build_catalog, query
from warehouse.outcome_query import outcomes, outcomes_of

PROSE = (
    "The water board met on Tuesday to review the quarterly readings from the northern reservoirs. "
    "Levels had risen after the spring rains, and the engineers reported that the spillway was sound."
)
SCAN = "The council approved the new budget for the treatment plant and asked for monthly reports."
V = "v1"
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _sha(n: int) -> str:
    return f"{n:02x}" + "0" * 62


def _document(sha: str, kind: str) -> DocumentRecord:
    return DocumentRecord(sha, sha[:2], kind, "bytes", 100, None, None, f"/corpus/{sha[:4]}.{kind}", V)


def _derivation(sha: str, kind: str, status: str, reason: str | None = None, *, fallback: bool = False):
    return DerivationRecord(
        sha256=sha,
        shard=sha[:2],
        extractor_version=V,
        kind=kind,
        status=status,
        reason=reason,
        reader=("pdfplumber" if fallback else "pymupdf") if status == "derived" else None,
        reader_version="1" if status == "derived" else None,
        reader_chain="pymupdf@1,pdfplumber@1",
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


def _page(sha: str, page: int, source: str, reason: str | None = None) -> PageTextRecord:
    text = None if source == "none" else "Some words of the page."
    mode = {"ocr": "REPLACE", "repaired": "REPAIRED", "none": "REPLACE" if reason else "BLANK"}.get(
        source, "TEXT"
    )
    return PageTextRecord(
        sha,
        sha[:2],
        V,
        page,
        mode,
        source,
        reason,
        "tool",
        "1",
        None if text is None else 1.0,
        None,
        0,
        text,
        "lexicon" if text else "no_text",
    )


# Documents whose rows cover every rule of quality/outcomes.py, with the outcome and reason each must get.
CASES: list[tuple[str, str, str, dict, list[tuple[str, str | None]], str, str | None]] = [
    # (name, kind, derivation status, derivation options, pages (source, reason), outcome, reason)
    ("text layer", "pdf", "derived", {}, [("extracted", None), ("extracted+figures", None)], "derived", None),
    (
        "capped",
        "text",
        "derived",
        {"reason": "text_capped:10"},
        [("extracted", None)],
        "derived",
        "text_capped:10",
    ),
    ("fallback reader", "pdf", "derived", {"fallback": True}, [("extracted", None)], "fallback", None),
    ("fallback page", "pdf", "derived", {}, [("extracted", None), ("fallback", None)], "fallback", None),
    ("repair", "pdf", "derived", {}, [("fallback", None), ("repaired", None)], "repaired", None),
    ("scan", "pdf", "underivable", {"reason": "empty_text"}, [("ocr", None), ("none", "blank")], "ocr", None),
    ("one page replaced", "pdf", "derived", {}, [("extracted", None), ("ocr", None)], "ocr", None),
    ("image", "png", "underivable", {"reason": "needs_ocr"}, [("ocr", None)], "ocr", None),
    (
        "illegible scan",
        "pdf",
        "underivable",
        {"reason": "empty_text"},
        [("none", "blank"), ("none", "ocr_underivable:illegible"), ("none", "ocr_error:timeout")],
        "underivable",
        "ocr_underivable:illegible",
    ),
    (
        "garbage replaced by nothing",
        "pdf",
        "derived",
        {},
        [("none", "ocr_not_run")],
        "underivable",
        "ocr_not_run",
    ),
    (
        "blank pages",
        "pdf",
        "underivable",
        {"reason": "empty_text"},
        [("none", "blank")],
        "underivable",
        "empty_text",
    ),
    ("empty file", "text", "underivable", {"reason": "empty_text"}, [], "underivable", "empty_text"),
    ("not judged yet", "docx", "derived", {}, [], "derived", None),
    ("not judged, fallback", "html", "derived", {"fallback": True}, [], "fallback", None),
    ("corrupt", "pdf", "error", {"reason": "corrupt"}, [], "error", "corrupt"),
    ("no reader", "doc", "unsupported", {"reason": "no_reader:doc"}, [], "unsupported", "no_reader:doc"),
    ("too large", "pdf", "skipped", {"reason": "too_large"}, [], "skipped", "too_large"),
]


def _rows():
    documents, derivations, pages = [], [], []
    for n, (_, kind, status, options, texts, _, _) in enumerate(CASES):
        sha = _sha(n)
        documents.append(_document(sha, kind))
        derivations.append(_derivation(sha, kind, status, **options))
        pages += [_page(sha, i + 1, source, reason) for i, (source, reason) in enumerate(texts)]
    return documents, derivations, pages


def test_the_outcome_rules_in_order_in_the_view_and_over_rows(tmp_path: Path) -> None:
    documents, derivations, pages = _rows()
    wh = Warehouse(tmp_path / "warehouse")
    for table, rows in (("documents", documents), ("derivations", derivations), ("page_texts", pages)):
        for shard in sorted({r.shard for r in rows}):
            wh.write(table, V, [r for r in rows if r.shard == shard], shard=shard)
    build_catalog(wh, V)
    view = [OutcomeRecord(*row) for row in query(wh, "select * from outcomes order by sha256").rows]
    assert [(name, o.outcome, o.reason) for (name, *_), o in zip(CASES, view, strict=True)] == [
        (name, outcome, reason) for name, *_, outcome, reason in CASES
    ]
    # The same SQL over the partitions, and over the rows in memory (what `assay check` reads), agrees.
    assert outcomes(wh, V) == view
    assert outcomes_of(derivations, pages, documents) == view
    assert outcomes(wh, V, shards={_sha(5)[:2]}) == [view[5]]
    scan = view[5]
    assert (scan.derivation_status, scan.pages, scan.pages_with_text, scan.pages_ocr) == (
        "underivable",
        2,
        1,
        1,
    )
    assert scan.path == "/corpus/0500.pdf"


def test_the_rates_are_of_the_outcomes() -> None:
    documents, derivations, pages = _rows()
    rates = rates_by_kind(outcomes_of(derivations, pages, documents))
    pdf = rates["pdf"]
    assert (pdf.derived, pdf.fallback, pdf.repaired, pdf.ocr, pdf.underivable, pdf.error, pdf.skipped) == (
        1,
        2,
        1,
        2,
        3,
        1,
        1,
    )
    assert (pdf.with_text, pdf.attempted) == (6, 10)
    assert (pdf.fallback_rate, pdf.underivable_rate) == (2 / 6, 3 / 10)
    assert rates["png"].underivable_rate == 0.0 and rates["png"].ocr == 1
    assert rates["doc"].attempted == 0 and rates["doc"].unsupported == 1


def test_a_scan_ocr_reads_is_derived_by_ocr_and_an_empty_page_underivable(tmp_path: Path, capsys) -> None:
    """Generated files through the stages, their rows in a warehouse: the view says derived, ocr,
    underivable and unsupported, as `assay check` does of each file, with its exit code."""
    files = {
        "text.pdf": make_text_pdf(tmp_path / "text.pdf", [PROSE]),
        "scan.pdf": make_image_only_pdf(tmp_path / "scan.pdf", [SCAN]),
        "notes.md": tmp_path / "notes.md",
        "empty.pdf": tmp_path / "empty.pdf",
    }
    files["notes.md"].write_text(
        "# Notes\n\nA markdown file: no reader reads markdown yet.\n", encoding="utf-8"
    )
    empty = pymupdf.open()
    empty.new_page()
    empty.save(files["empty.pdf"])
    empty.close()
    expected = {
        "text.pdf": ("derived", None),
        "scan.pdf": ("ocr", None),
        "notes.md": ("unsupported", "no_reader:markdown"),
        "empty.pdf": ("underivable", "empty_text"),
    }
    checked = {name: check_file(path) for name, path in files.items()}
    assert {name: (c.final.outcome, c.final.reason) for name, c in checked.items()} == expected
    assert checked["scan.pdf"].derivation.status == "underivable"  # what the readers did

    wh = Warehouse(tmp_path / "warehouse")
    # Each table written shard by shard, as the stages write it: files that share a shard go together.
    wh.write_sharded("documents", EXTRACTOR_VERSION, [c.document for c in checked.values()])
    wh.write_sharded("derivations", EXTRACTOR_VERSION, [c.derivation for c in checked.values()])
    wh.write_sharded("page_texts", EXTRACTOR_VERSION, [t for c in checked.values() for t in c.texts])
    build_catalog(wh, EXTRACTOR_VERSION)
    view = {r["sha256"]: r for r in query(wh, "select * from outcomes").records()}
    for name, c in checked.items():
        assert (view[c.sha256]["outcome"], view[c.sha256]["reason"]) == expected[name], name
        assert OutcomeRecord(**view[c.sha256]) == c.final

    for name, (outcome, _) in expected.items():
        code = main(["check", str(files[name]), "--json"])
        out = json.loads(capsys.readouterr().out)
        assert (out["outcome"], code) == (outcome, check_exit(outcome, out["outcome_reason"])), name


# -- the dev corpus ---------------------------------------------------------------------------------------


def _latest_evaluation(home: Path, asset: str, check: str) -> dict:
    instance = dg.DagsterInstance.from_config(str(home / "dagster"))
    try:
        (record,) = instance.event_log_storage.get_asset_check_execution_history(
            dg.AssetCheckKey(dg.AssetKey(asset), check), limit=1
        )
        return {k: v.value for k, v in record.event.dagster_event.event_specific_data.metadata.items()}
    finally:
        instance.dispose()


@pytest.mark.corpus
@pytest.mark.slow
def test_every_reader_of_the_outcome_agrees_on_the_dev_corpus(dev_corpus: DevCorpusRun, capsys) -> None:
    home = Home(dev_corpus.home)
    wh = home.warehouse
    assert dev_corpus.report.ok, dev_corpus.report.failures

    # `assay sql` on the view: one outcome per document.
    assert main(["sql", "--home", str(home.path), "--json", "select * from outcomes order by sha256"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert (
        len(view)
        == len({r["sha256"] for r in view})
        == query(wh, "select count(*) from derivations").rows[0][0]
    )
    by_kind: dict[str, dict[str, int]] = {}
    for r in view:
        by_kind.setdefault(r["kind"], {o.value: 0 for o in DocumentOutcome})[r["outcome"]] += 1

    # What the stages judge the rates over: the same SQL over the partitions, document by document.
    assert [(o.sha256, o.outcome, o.reason) for o in outcomes(wh, EXTRACTOR_VERSION)] == [
        (r["sha256"], r["outcome"], r["reason"]) for r in view
    ]

    # The run summary's counts, and the table it printed (its columns that are zero everywhere left out).
    summary = {r.kind: r for r, _ in kind_outcomes(wh)}
    pages = {r.kind: n for r, n in kind_outcomes(wh)}
    for kind, counts in by_kind.items():
        assert {o: getattr(summary[kind], o) for o in counts} == counts, kind
        assert summary[kind].documents == sum(counts.values())
    console = Console(file=io.StringIO(), width=250)
    print_summary(console, home, dev_corpus.report, dev_corpus.progress)
    labels = {"by OCR": "ocr", "fallback %": "fallback_rate", "underivable %": "underivable_rate"}
    text = console.file.getvalue()
    for shown_as, name in labels.items():
        text = text.replace(shown_as, name)
    lines = [line.split() for line in text.splitlines()]
    header = next(cells for cells in lines if cells[:2] == ["kind", "docs"])
    columns = ["documents" if c == "docs" else c for c in header[1:] if not c.endswith("_rate")]
    printed = {cells[0]: cells[1 : 1 + len(columns)] for cells in lines if cells and cells[0] in by_kind}
    assert set(printed) == set(by_kind)
    for kind, cells in printed.items():
        figures = {c: pages[kind] if c == "pages" else getattr(summary[kind], c) for c in columns}
        assert [int(c) for c in cells] == [figures[c] for c in columns], kind

    # The corpus-wide rate checks as the catalog recorded them in the run.
    for check in ("underivable_rate", "fallback_rate"):
        recorded = _latest_evaluation(home.path, "catalog", check)["by_kind"]
        for kind, counts in by_kind.items():
            assert {o: recorded[kind][o] for o in counts} == counts, (check, kind)
            with_text = sum(counts[o] for o in WITH_TEXT)
            attempted = sum(counts[o] for o in ATTEMPTED)
            assert recorded[kind]["underivable_rate"] == (
                round(counts["underivable"] / attempted, 4) if attempted else 0.0
            ), kind
            assert recorded[kind]["fallback_rate"] == (
                round(counts["fallback"] / with_text, 4) if with_text else 0.0
            ), kind

    # version_diff_rates counts the current version's documents by the same outcomes.
    rates = {r["kind"]: r for r in query(wh, "select * from version_diff_rates").records()}
    for kind, counts in by_kind.items():
        r = rates[kind]
        assert (r["new_documents"], r["new_underivable"], r["new_fallback"]) == (
            sum(counts.values()),
            counts["underivable"],
            counts["fallback"],
        ), kind
        attempted = sum(counts[o] for o in ATTEMPTED)
        if attempted:
            assert r["new_underivable_rate"] == pytest.approx(counts["underivable"] / attempted), kind

    # A document ends with text exactly when sanitize made it a clean text; and the scans OCR read are
    # `ocr`, never `underivable`, though their readers found no text layer.
    texts = {sha for (sha,) in query(wh, "select sha256 from texts").rows}
    assert {r["sha256"] for r in view if r["outcome"] in WITH_TEXT} == texts
    ocr_read = {sha for (sha,) in query(wh, "select sha256 from page_texts where source = 'ocr'").rows}
    assert ocr_read and {r["sha256"] for r in view if r["outcome"] == "ocr"} == ocr_read
    names = {Path(r["path"]).name: r for r in view}
    for name in ("ocrmypdf__linn.pdf", "tess__phototest.tif"):
        assert (names[name]["derivation_status"], names[name]["outcome"]) == ("underivable", "ocr"), name

    # `assay check` of one scanned PDF that OCR reads says the same as the view: derived by OCR.
    scan = CORPUS / "dev" / "ocrmypdf__linn.pdf"
    assert main(["check", str(scan)]) == 0
    assert "status: derived by OCR" in capsys.readouterr().out
    checked = check_file(scan)
    assert (checked.final.outcome, checked.final.reason) == ("ocr", None)
    assert OutcomeRecord(**names["ocrmypdf__linn.pdf"]) == checked.final
