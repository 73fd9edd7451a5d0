"""``assay eval``'s OCR figures: pages read and seconds per engine and kind of page, each engine's character
error rate and the kept readings', present facts per engine kept, and the share of pages each engine's
reading was kept on; from a home's rows as today's ``ocr_pages`` holds them (one engine, no ``kept``), and
from readings of two engines built here."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from orchestration.evaluation import baseline as committed
from orchestration.evaluation.figures import (
    Figure,
    OcrReading,
    SetRows,
    dev_figures,
    ocr_figures,
)
from orchestration.evaluation.sets import CorpusSet, SetRun
from quality.fact_checks import Absent, Fact, FactOutcome, Present
from readers.core.versions import EXTRACTOR_VERSION
from warehouse import Warehouse
from warehouse.duckdb_catalog import build_catalog
from warehouse.schema import TABLES

SCAN, TWO, FIG, SANDWICH = ("a" * 64, "b" * 64, "c" * 64, "d" * 64)


def _run(tmp_path: Path, kinds: dict[str, str]) -> SetRun:
    folder = tmp_path / "dev"
    folder.mkdir(exist_ok=True)
    return SetRun(CorpusSet("dev", folder, kinds), tmp_path / "home", ran=False)


def _write(wh: Warehouse, table: str, rows: list[dict[str, object]]) -> None:
    """``rows`` written as the table's partition of shard ``aa``; columns not given are null."""
    schema = TABLES[table].empty().schema
    wh.write_arrow(table, EXTRACTOR_VERSION, pa.Table.from_pylist(rows, schema=schema), shard="aa")


def _ocr_row(sha: str, page: int, scope: str, status: str = "derived", text: str | None = "read") -> dict:
    return {
        "sha256": sha, "shard": "aa", "extractor_version": EXTRACTOR_VERSION, "page": page, "scope": scope,
        "regions": 1, "status": status, "reason": None if status == "derived" else "over_budget:pages",
        "engine": "tesseract", "engine_version": "5.3.0", "language": "eng", "language_source": "configured",
        "dpi": 300, "rotation": 0, "low_confidence_words": 0, "words": 1, "chars": 4,
        "seconds": 2.0 if status == "derived" else 0.0, "text": text,
    }  # fmt: skip


def _verdict(sha: str, page: int, mode: str, provenance: str) -> dict:
    return {
        "sha256": sha, "shard": "aa", "extractor_version": EXTRACTOR_VERSION, "page": page, "mode": mode,
        "reasons": [], "provenance": provenance, "text_source": "ocr", "verdicts_version": "5",
        "judged_by": "no_text",
    }  # fmt: skip


def test_a_home_of_one_engine_without_a_kept_column_reads_every_row_as_kept(tmp_path: Path) -> None:
    """Today's ``ocr_pages``: Tesseract's rows only, no ``kept`` column; each row's kind of page comes
    from its scope and its page's provenance, and a page never sent to the engine was not read."""
    run = _run(tmp_path, {})
    wh = Warehouse(run.home / "warehouse")
    _write(
        wh,
        "ocr_pages",
        [
            _ocr_row(SCAN, 1, "page"),
            _ocr_row(SCAN, 2, "page", status="error", text=None),
            _ocr_row(SANDWICH, 1, "page"),
            _ocr_row(FIG, 3, "figures"),
        ],
    )
    _write(
        wh,
        "page_verdicts",
        [
            _verdict(SCAN, 1, "REPLACE", "raw_scan"),
            _verdict(SCAN, 2, "REPLACE", "raw_scan"),
            _verdict(SANDWICH, 1, "REPLACE", "ocr_sandwich"),
            _verdict(FIG, 3, "FIGURES", "born_digital"),
        ],
    )
    build_catalog(wh, EXTRACTOR_VERSION)

    readings = SetRows(run).ocr
    assert [(r.sha256[0], r.page, r.kind, r.engine, r.read, r.kept) for r in readings] == [
        ("a", 1, "scan", "tesseract", True, True),
        ("a", 2, "scan", "tesseract", False, True),
        ("c", 3, "figure", "tesseract", True, True),
        ("d", 1, "sandwich", "tesseract", True, True),
    ]
    figures: list[Figure] = []
    ocr_figures({"dev": SetRows(run)}, tmp_path / "truth", [], figures)
    shown = {f.key: (f.value, f.count) for f in figures}
    assert shown["ocr_pages_read/tesseract scan"] == (1.0, 1)
    assert shown["ocr_pages_read/rapidocr scan"] == (0.0, 0)  # always reported: the gate finds it again
    assert shown["ocr_seconds_per_page/tesseract sandwich"] == (2.0, 1)
    assert shown["ocr_kept_share/tesseract"] == (1.0, 3)


def _reading(sha: str, page: int, engine: str, text: str, *, kept: bool, kind: str = "scan") -> OcrReading:
    scope = "figures" if kind == "figure" else "page"
    return OcrReading(sha, page, scope, engine, kind, True, kept, 1.0 if engine == "tesseract" else 3.0, text)


@pytest.fixture
def two_engines(tmp_path: Path) -> SetRows:
    """A home read by both engines: an image RapidOCR read better (kept), a two-page scan Tesseract read
    whole (kept) and RapidOCR only in part (a page timed out), a FIGURES page RapidOCR read, a sandwich
    Tesseract read again."""
    kinds = {"scan.tif": "image-scan", "two.pdf": "pdf-scanned", "fig.pdf": "pdf-born-digital"}
    rows = SetRows(_run(tmp_path, kinds | {"sandwich.pdf": "pdf-ocr-text-layer"}))
    rows.__dict__["documents"] = {"scan.tif": SCAN, "two.pdf": TWO, "fig.pdf": FIG, "sandwich.pdf": SANDWICH}
    rows.__dict__["texts"] = {SCAN: "Hello world", TWO: "one two", FIG: "A chart", SANDWICH: "layer"}
    rows.__dict__["pages"] = {SCAN: [1], TWO: [1, 2], FIG: [1, 2, 3], SANDWICH: [1]}
    rows.__dict__["ocr"] = [
        _reading(SCAN, 1, "tesseract", "Hello wor1d", kept=False),
        _reading(SCAN, 1, "rapidocr", "Hello world", kept=True),
        _reading(TWO, 1, "tesseract", "one", kept=True),
        _reading(TWO, 2, "tesseract", "two", kept=True),
        OcrReading(TWO, 1, "page", "rapidocr", "scan", False, False, 0.0, ""),  # timed out: not read
        _reading(TWO, 2, "rapidocr", "tw0", kept=False),
        _reading(FIG, 3, "rapidocr", "A chart", kept=True, kind="figure"),
        _reading(SANDWICH, 1, "tesseract", "layer", kept=True, kind="sandwich"),
    ]
    truth = tmp_path / "truth"
    truth.mkdir()
    (truth / "scan.tif.expected.txt").write_text("Hello world\n")
    (truth / "two.pdf.expected.txt").write_text("one\n\ntwo\n")
    return rows


def _facts() -> list[FactOutcome]:
    def fact(sha: str, check: Present | Absent) -> Fact:
        return Fact("x", sha, check, "seen on the page")

    return [
        FactOutcome(fact(SCAN, Present("Hello")), passed=True),
        FactOutcome(fact(TWO, Present("three")), passed=False),
        FactOutcome(fact(TWO, Absent("Page 1")), passed=True),  # not a present fact: not counted
        FactOutcome(fact(FIG, Present("chart")), passed=True),
    ]


def test_each_engine_is_measured_on_what_it_read_and_the_kept_readings_on_theirs(
    two_engines: SetRows, tmp_path: Path
) -> None:
    figures: list[Figure] = []
    ocr_figures({"dev": two_engines}, tmp_path / "truth", _facts(), figures)
    shown = {f.key: (round(f.value, 4), f.count) for f in figures}
    assert {k: v for k, v in shown.items() if k.startswith("ocr_pages_read/") and v[1]} == {
        "ocr_pages_read/tesseract scan": (3.0, 3),
        "ocr_pages_read/tesseract sandwich": (1.0, 1),
        "ocr_pages_read/rapidocr scan": (2.0, 2),
        "ocr_pages_read/rapidocr figure": (1.0, 1),
    }
    assert len([k for k in shown if k.startswith("ocr_pages_read/")]) == 6  # two engines, three kinds
    assert shown["ocr_seconds_per_page/rapidocr scan"] == (3.0, 2)
    assert "ocr_seconds_per_page/rapidocr sandwich" not in shown
    # Tesseract read both transcribed documents whole; RapidOCR only the image (one page of two of the scan)
    assert shown["ocr_cer/tesseract"] == (round(1 / 11 / 2, 4), 2)
    assert shown["ocr_cer/rapidocr"] == (0.0, 1)
    assert shown["ocr_cer/kept"] == (0.0, 2)
    # the image's and the figure page's facts go to RapidOCR, whose readings they kept; the scan's to
    # Tesseract
    assert shown["ocr_present_facts/rapidocr"] == (1.0, 2)
    assert shown["ocr_present_facts/tesseract"] == (0.0, 1)
    assert shown["ocr_kept_share/tesseract"] == (0.6, 5)
    assert shown["ocr_kept_share/rapidocr"] == (0.4, 5)


def test_each_scored_document_says_whose_reading_was_kept(two_engines: SetRows, tmp_path: Path) -> None:
    scored = {s.document: s for s in dev_figures(two_engines, tmp_path / "truth", [])}
    assert (scored["scan.tif"].engine, scored["two.pdf"].engine) == ("rapidocr", "tesseract")
    assert scored["scan.tif"].cer == 0.0


def test_only_the_kept_readings_error_rate_is_gated(tmp_path: Path) -> None:
    before = [Figure("ocr_cer", "kept", 0.05, 4), Figure("ocr_cer", "tesseract", 0.05, 4)]
    path = tmp_path / "baseline.json"
    committed.write(path, before, {})
    after = [Figure("ocr_cer", "kept", 0.08, 4), Figure("ocr_cer", "tesseract", 0.2, 3)]
    comparisons = {c.key: c.status for c in committed.compare(committed.load(path), after)}
    assert comparisons == {"ocr_cer/kept": "worse", "ocr_cer/tesseract": "same"}
