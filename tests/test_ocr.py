"""Tesseract on rendered pages: orientation, recognition, confidences, and what a missing language says.

Runs the real Tesseract that ./scripts/setup installs; skipped only where it is not installed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pymupdf
import pytest
from PIL import Image

from orchestration.demo import make_text_pdf
from readers.ocr import OcrUnavailable, recognise, render_page
from tests.conftest import CORPUS

pytestmark = pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed")

TEXT = (
    "The water utility measured unit consumption rates across every district of the city this year. "
    "Tariffs rose slightly in the northern zone while maintenance costs fell in the south."
)


def cer(truth: str, text: str) -> float:
    """Character error rate: edit distance over the truth's length, whitespace folded."""
    a, b = " ".join(truth.split()), " ".join(text.split())
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1] / max(1, len(a))


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
