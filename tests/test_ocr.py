"""Tesseract on rendered pages: orientation, recognition, confidences, and what a missing language says.

Runs the real Tesseract that ./scripts/setup installs; skipped only where it is not installed."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pymupdf
import pytest
from PIL import Image

from orchestration.demo import _CHART_LABELS, _CHART_TEXT, make_figure_pdf, make_image_only_pdf, make_text_pdf
from quality.cer import cer
from quality.records import PageVerdictRecord
from quality.sources import OcrScope, choose_page_texts
from readers.model import ContentKind
from readers.ocr import OcrUnavailable, installed_languages, recognise, render_page
from readers.ocr_shard import keep_better, language_retries
from readers.ocr_stage import LanguageChoice, OcrOptions, OcrTask, ocr_tasks
from tests.conftest import CORPUS

pytestmark = pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed")

TEXT = (
    "The water utility measured unit consumption rates across every district of the city this year. "
    "Tariffs rose slightly in the northern zone while maintenance costs fell in the south."
)


def test_a_rendered_page_is_read_with_confidences(tmp_path: Path) -> None:
    pdf = make_text_pdf(tmp_path / "page.pdf", [TEXT], fontsize=14)
    result = recognise(render_page(pdf, 1), "eng")
    assert result.rotation == 0 and result.dpi == 300 and result.engine_version
    assert cer(TEXT, result.text) < 0.05, result.text
    assert result.mean_confidence is not None and result.mean_confidence > 80
    assert len(result.confidences) >= len(TEXT.split()) - 2


def test_a_sideways_page_is_turned_upright_before_reading(tmp_path: Path) -> None:
    pdf = make_text_pdf(tmp_path / "page.pdf", [TEXT + " " + TEXT], fontsize=14)
    image = render_page(pdf, 1).rotate(90, expand=True)  # as a scanner that fed the page sideways
    result = recognise(image, "eng")
    assert result.rotation in (90, 270)
    assert cer(TEXT + " " + TEXT, result.text) < 0.05


def test_a_blank_page_reads_as_nothing() -> None:
    result = recognise(Image.new("L", (1200, 1600), 255), "eng")
    assert result.text.strip() == "" and result.confidences == () and result.mean_confidence is None


def test_a_missing_language_says_what_to_install(tmp_path: Path) -> None:
    with pytest.raises(OcrUnavailable, match="apt-get install"):
        recognise(Image.new("L", (200, 200), 255), "xqz", rotate=False)


@pytest.mark.corpus
@pytest.mark.slow
def test_the_tesseract_phototest_reads_within_five_percent() -> None:
    image_path = CORPUS / "dev" / "tess__phototest.tif"
    truth_path = CORPUS / "dev_truth" / "tess__phototest.tif.expected.txt"
    if not image_path.exists() or not truth_path.exists():
        pytest.skip("shared corpus not found")
    result = recognise(Image.open(image_path).convert("L"), "eng")
    error = cer(truth_path.read_text(encoding="utf-8"), result.text)
    print(f"\nphototest CER {error:.3%}, mean confidence {result.mean_confidence}")
    assert error <= 0.05


def test_pdf_pages_render_at_the_asked_resolution(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page(width=612, height=792)
    doc.save(tmp_path / "letter.pdf")
    assert render_page(tmp_path / "letter.pdf", 1, dpi=150).size == (1275, 1650)


def _task(
    path: Path, page: int, scope: OcrScope = OcrScope.PAGE, kind: ContentKind = ContentKind.PDF
) -> OcrTask:
    return OcrTask("cd" * 32, "cd", path, kind, page, scope, LanguageChoice("eng", "configured"))


def test_the_stage_reads_every_task_in_order_on_all_cores(tmp_path: Path) -> None:
    scan = make_image_only_pdf(tmp_path / "scan.pdf", [TEXT, TEXT.upper()])
    seen: list[str] = []
    rows = ocr_tasks(
        [_task(scan, 2), _task(scan, 1), _task(tmp_path / "gone.pdf", 1)],
        "v",
        OcrOptions(workers=2),
        on_page=lambda r: seen.append(r.status),
    )
    assert [(r.page, r.status) for r in rows] == [(2, "derived"), (1, "derived"), (1, "error")]
    assert seen == ["derived", "derived", "error"]
    assert cer(TEXT.upper(), rows[0].text) < 0.05 and cer(TEXT, rows[1].text) < 0.05
    assert rows[0].engine_version and rows[0].confidence > 80 and rows[0].words >= 20
    assert rows[0].language == "eng" and rows[0].language_source == "configured" and rows[0].regions == 1
    assert rows[2].reason.startswith("render_failed:") and rows[2].text is None


def test_a_page_over_its_time_budget_is_recorded_and_the_rest_go_on(tmp_path: Path) -> None:
    scan = make_image_only_pdf(tmp_path / "scan.pdf", [TEXT])
    slow, quick = ocr_tasks([_task(scan, 1)], "v", OcrOptions(timeout=0.01)), ocr_tasks([_task(scan, 1)], "v")
    assert (slow[0].status, slow[0].reason, slow[0].text) == ("error", "timeout", None)
    assert quick[0].status == "derived"


def test_a_blank_scan_is_underivable_never_an_empty_text(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_image(page.rect, stream=_blank_png())
    doc.save(tmp_path / "blank.pdf")
    (row,) = ocr_tasks([_task(tmp_path / "blank.pdf", 1)], "v")
    assert (row.status, row.reason, row.text, row.chars) == ("underivable", "no_text", None, 0)
    assert row.engine == "tesseract" and row.engine_version


def _blank_png() -> bytes:
    import io

    buffer = io.BytesIO()
    Image.new("L", (850, 1100), 255).save(buffer, format="PNG")
    return buffer.getvalue()


def test_a_figures_page_reads_only_its_chart_not_its_text_layer(tmp_path: Path) -> None:
    chart = make_figure_pdf(tmp_path / "chart.pdf", _CHART_TEXT, _CHART_LABELS)
    (row,) = ocr_tasks([_task(chart, 1, OcrScope.FIGURES)], "v")
    assert (row.scope, row.status, row.regions, row.rotation) == ("figures", "derived", 1, 0)
    for label in _CHART_LABELS:
        assert label in row.text
    assert "reservoir" not in row.text.lower()  # the body text is the text layer's, not read twice


FRENCH = (
    "Portez ce vieux whisky au juge blond qui fume sur son île intérieure, à côté de l'alcôve ovoïde, où les "
    "bûches se consument dans l'âtre, ce qui lui permet de penser à la qualité de son œuvre. La réunion du "
    "conseil municipal a décidé que les tarifs de l'eau resteront inchangés pendant l'été."
)


def test_a_scan_in_another_language_is_read_again_in_it(tmp_path: Path) -> None:
    scan = make_image_only_pdf(tmp_path / "french.pdf", [FRENCH])
    first = ocr_tasks([_task(scan, 1)], "v")
    assert first[0].language == "eng"
    retries = language_retries([_task(scan, 1)], first, installed_languages())
    if "fra" not in installed_languages():
        assert retries == []
        return
    assert [(t.language.language, t.language.source) for t in retries] == [("fra", "ocr_text")]
    (best,) = keep_better(first, ocr_tasks(retries, "v"))
    assert best.language == "fra" and best.language_source == "ocr_text"
    assert cer(FRENCH, best.text) < cer(FRENCH, first[0].text) and cer(FRENCH, best.text) < 0.03
    # An English scan is not read twice.
    english = make_image_only_pdf(tmp_path / "english.pdf", [TEXT])
    assert (
        language_retries([_task(english, 1)], ocr_tasks([_task(english, 1)], "v"), installed_languages())
        == []
    )


CHINESE = "我们今天讨论城市供水系统的改进计划以及明年的预算安排"


def _chinese_scan(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for i in range(8):
        page.insert_text((60, 100 + 40 * i), CHINESE[: 16 + i], fontname="china-s", fontsize=20)
    page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY, alpha=False).save(path)
    return path


def test_a_page_read_as_nonsense_is_illegible_and_never_used(tmp_path: Path) -> None:
    scan = _chinese_scan(tmp_path / "chinese.png")
    (row,) = ocr_tasks([_task(scan, 1, kind=ContentKind.PNG)], "v")
    # Read with English data, Chinese comes out as Latin nonsense: the row keeps what was read, for
    # inspection, but the page has no final text.
    assert row.status == "underivable" and row.reason in ("illegible", "no_data:Han"), row
    assert row.text and row.confidence < 50
    sha = row.sha256
    verdicts = [PageVerdictRecord(sha, "cd", "v", 1, "REPLACE", [], "raw_scan", None, None, None, "ocr", "5")]
    (final,) = choose_page_texts(sha, "cd", "v", verdicts, [], [], [row])
    assert (final.source, final.text) == ("none", None) and final.reason.startswith("ocr_underivable:")
    if "chi_sim" in installed_languages():
        chinese = replace(
            _task(scan, 1, kind=ContentKind.PNG), language=LanguageChoice("chi_sim", "configured")
        )
        (read,) = ocr_tasks([chinese], "v")
        assert read.status == "derived" and CHINESE[:12] in read.text.replace(" ", "")
