"""RapidOCR, the second reader of pixels: its worker reads generated pages with the wheel's models, its
lines come back in reading order (columns one after the other), a page over its time ends the worker, and
an engine that is not installed says what to install. The order is also checked on boxes laid out here."""

from __future__ import annotations

import sys
from pathlib import Path

import psutil
import pymupdf
import pytest
from PIL import Image

from orchestration.document_builders import make_text_pdf
from readers.images.ocr_result import OcrFailed, OcrUnavailable
from readers.images.rapidocr import (
    RAPIDOCR_LANGUAGES,
    RapidOcrLine,
    RapidOcrProcesses,
    installed_version,
    model_names,
    probe,
    reading_text,
    reads,
    recognise_rapid,
)
from readers.images.tesseract import render_page

pytestmark = pytest.mark.skipif(not installed_version(), reason="RapidOCR is not installed")

TEXT = (
    "The water utility measured unit consumption rates across every district of the city this year. "
    "Tariffs rose slightly in the northern zone while maintenance costs fell in the south."
)
LEFT = "The river flooded the lower fields during the spring thaw. " * 6
RIGHT = "Our bakery sells fresh bread every morning downtown. " * 6


@pytest.fixture(scope="module")
def workers():
    with RapidOcrProcesses() as processes:
        yield processes


def test_a_rendered_page_is_read_with_its_words(tmp_path: Path, workers: RapidOcrProcesses) -> None:
    image = render_page(make_text_pdf(tmp_path / "page.pdf", [TEXT], fontsize=14), 1)
    result = recognise_rapid(image, dpi=300, timeout=120, rapid=workers.for_this_thread())
    words = result.text.lower().split()
    for word in ("water", "utility", "consumption", "district", "tariffs", "maintenance", "south."):
        assert word in words, result.text
    assert result.engine == "rapidocr" and result.engine_version.startswith(installed_version())
    assert "PP-OCRv6_det_small" in result.engine_version and "PP-OCRv6_rec_small" in result.engine_version
    assert len(result.confidences) == len(words) and all(50 <= c <= 100 for c in result.confidences)
    assert result.mean_confidence is not None and result.rotation == 0


def test_a_page_turned_is_read_once_turned_back(tmp_path: Path, workers: RapidOcrProcesses) -> None:
    image = render_page(make_text_pdf(tmp_path / "page.pdf", [TEXT], fontsize=14), 1)
    sideways = image.rotate(90, expand=True, fillcolor=255)  # a quarter turn anticlockwise
    result = recognise_rapid(sideways, dpi=300, rotation=90, timeout=120, rapid=workers.for_this_thread())
    assert "consumption" in result.text and result.rotation == 90


def _two_columns(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_textbox(pymupdf.Rect(72, 60, 540, 100), "Annual Field Report", fontsize=22, align=1)
    page.insert_textbox(pymupdf.Rect(72, 120, 290, 700), LEFT, fontsize=12)
    page.insert_textbox(pymupdf.Rect(322, 120, 540, 700), RIGHT, fontsize=12)
    doc.save(path)
    return path


@pytest.mark.slow
def test_a_two_column_page_is_read_column_by_column(tmp_path: Path, workers: RapidOcrProcesses) -> None:
    image = render_page(_two_columns(tmp_path / "columns.pdf"), 1)
    text = recognise_rapid(image, dpi=300, timeout=120, rapid=workers.for_this_thread()).text
    assert text.startswith("Annual Field Report"), text
    assert text.count("river") >= 5 and text.count("bakery") >= 5, text
    assert text.rindex("thaw") < text.index("bakery"), text  # the left column ends before the right begins


def test_reading_order_of_two_columns_under_a_title_and_over_a_page_number() -> None:
    """Boxes as RapidOCR draws them (padded: a column's boxes touch), level rows across the gutter."""
    lines = [RapidOcrLine("Title across both columns", 0.99, 100, 40, 1100, 90)]
    for row in range(6):
        y = 120 + 50 * row
        lines.append(RapidOcrLine(f"left {row}", 0.99, 100, y, 580, y + 56))
        lines.append(RapidOcrLine(f"right {row}", 0.99, 640, y, 1100, y + 56))
    lines.append(
        RapidOcrLine("Caption in the gutter", 0.99, 500, 460, 720, 500)
    )  # into both columns a little
    for row in range(6, 9):
        y = 120 + 50 * row + 60
        lines.append(RapidOcrLine(f"left {row}", 0.99, 100, y, 580, y + 56))
        lines.append(RapidOcrLine(f"right {row}", 0.99, 640, y, 1100, y + 56))
    lines.append(RapidOcrLine("7", 0.99, 20, 800, 50, 840))  # a page number in the margin, under everything
    text, ordered = reading_text(sorted(lines, key=lambda b: (b.y0, b.x0)))
    words = [line.text for line in ordered]
    lefts, rights = [f"left {r}" for r in range(9)], [f"right {r}" for r in range(9)]
    assert words[0] == "Title across both columns"
    assert [w for w in words if w.startswith("left")] == lefts
    assert [w for w in words if w.startswith("right")] == rights
    assert words.index("left 8") < words.index("right 0")  # the left column to its end, then the right
    assert words.index("7") > words.index("left 8")
    assert text.startswith("Title across both columns\n\nleft 0\nleft 1")


def test_reading_order_of_boxes_in_one_row_and_paragraphs() -> None:
    lines = [
        RapidOcrLine("two", 0.9, 300, 0, 400, 40),
        RapidOcrLine("one", 0.9, 0, 2, 200, 42),
        RapidOcrLine("next line", 0.9, 0, 36, 400, 76),
        RapidOcrLine("a new paragraph", 0.9, 0, 120, 400, 160),
    ]
    assert reading_text(lines)[0] == "one two\nnext line\n\na new paragraph"
    assert reading_text([]) == ("", [])


def test_vertical_columns_are_read_right_to_left_top_to_bottom() -> None:
    """Japanese set vertically: each column a tall box, the rightmost read first; the single character
    at the top of the left column (as high as wide) does not make the page horizontal."""
    lines = [
        RapidOcrLine("左の列", 0.99, 100, 20, 140, 300),
        RapidOcrLine("真ん中の列", 0.99, 200, 20, 240, 400),
        RapidOcrLine("右の列", 0.99, 300, 20, 340, 300),
        RapidOcrLine("下", 0.99, 100, 320, 140, 360),
    ]
    text, ordered = reading_text(lines)
    assert text == "右の列\n真ん中の列\n左の列\n下"
    assert ordered[0].text == "右の列"


@pytest.mark.slow
def test_a_page_over_its_time_ends_its_worker_and_the_next_page_is_read(tmp_path: Path) -> None:
    image = render_page(make_text_pdf(tmp_path / "page.pdf", [TEXT * 8], fontsize=11), 1)
    with RapidOcrProcesses() as workers:
        worker = workers.for_this_thread()
        worker.warm()
        pid = worker.pid
        assert pid is not None
        with pytest.raises(OcrFailed) as failed:
            recognise_rapid(image, dpi=300, timeout=0.05, rapid=worker)
        assert failed.value.reason == "timeout"
        assert worker.pid is None and not psutil.pid_exists(pid)  # the worker was killed and reaped
        assert "consumption" in recognise_rapid(image, dpi=300, timeout=120, rapid=worker).text


@pytest.mark.slow
def test_a_worker_over_its_memory_is_ended_and_the_next_page_is_read(tmp_path: Path) -> None:
    image = render_page(make_text_pdf(tmp_path / "page.pdf", [TEXT * 4], fontsize=11), 1)
    with RapidOcrProcesses() as workers:
        worker = workers.for_this_thread()
        worker.memory_bytes = 50 * 2**20  # its models alone take more
        with pytest.raises(OcrFailed) as failed:
            recognise_rapid(image, dpi=300, timeout=120, rapid=worker)
        assert failed.value.reason == "memory" and worker.pid is None
        worker.memory_bytes = 3 * 2**30
        assert "consumption" in recognise_rapid(image, dpi=300, timeout=120, rapid=worker).text


def test_a_missing_engine_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rapidocr", None)  # the package not importable
    with pytest.raises(OcrUnavailable, match="pip install rapidocr"):
        recognise_rapid(Image.new("L", (200, 200), 255), dpi=300, timeout=60)


def test_the_probe_names_version_models_and_languages() -> None:
    found = probe()
    assert found.found and found.version == installed_version()
    assert set(model_names()) == {
        "PP-OCRv6_det_small",
        "PP-OCRv6_rec_small",
        "ch_ppocr_mobile_v2.0_cls_mobile",
    }
    assert "eng" in found.detail and "PP-OCRv6_rec_small" in found.detail
    assert reads("fra+eng") and reads("chi_sim") and not reads("heb") and not reads("rus+eng")
    assert not {"ara", "heb", "rus", "ell", "hin", "kor"} & RAPIDOCR_LANGUAGES


def test_assay_doctor_reports_rapidocr() -> None:
    import json
    import subprocess

    assay = Path(sys.executable).with_name("assay")
    doctor = subprocess.run([str(assay), "doctor", "--json"], capture_output=True, text=True, timeout=120)
    found = {p["name"]: p for p in json.loads(doctor.stdout)}
    assert found["rapidocr"]["found"] and found["rapidocr"]["version"] == installed_version()
    assert "PP-OCRv6_det_small" in found["rapidocr"]["detail"] and "eng" in found["rapidocr"]["detail"]
