"""A short scan the wrong way round: a poor reading is read again turned the other ways, the better reading
kept with its rotation (readers/images/tesseract.py), and a page that reads well pays nothing for it.

Runs the real Tesseract that ./scripts/setup installs; skipped only where it is not installed."""

from __future__ import annotations

import hashlib
import io
import shutil
from pathlib import Path

import pymupdf
import pytest
from PIL import Image

from assets.ocr.page_reading import LanguageChoice, OcrTask, ocr_tasks
from orchestration.checkfile import check_file
from orchestration.document_builders import make_image_only_pdf, make_text_pdf
from quality.cer import cer
from quality.records import OcrScope
from readers.core.model import ContentKind
from readers.images.tesseract import (
    MAX_TURNED_READINGS,
    TesseractProcess,
    TesseractProcesses,
    recognise,
    render_page,
)

pytestmark = pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed")

# Three short lines: too few letters for orientation detection to be sure of the way round (Tesseract
# reads such a page upside down as it stands, at a mean confidence of about 28).
MINUTES = (
    "Minutes of the annual meeting held on the third of March.\n\n"
    "The treasurer reported a small surplus for the year.\n\n"
    "The board approved the budget."
)
ANNEX = "Annex B: water tariffs"  # one line: orientation detection finds too little text to say anything
BODY = (
    "The water utility measured unit consumption rates across every district of the city this year. "
    "Tariffs rose slightly in the northern zone while maintenance costs fell in the south. "
)


def _scan(tmp_path: Path, text: str, turned: int) -> Image.Image:
    """A page holding ``text``, as a 300 dpi grey scan turned ``turned`` degrees counter-clockwise (a
    page fed to the scanner the wrong way round): to be read, it is turned back ``turned`` clockwise."""
    pdf = make_text_pdf(tmp_path / f"typed-{turned}.pdf", [text], fontsize=12)
    return render_page(pdf, 1).rotate(turned, expand=True)


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", dpi=(300, 300))
    return buffer.getvalue()


def _scanned_pdf(path: Path, images: list[Image.Image]) -> Path:
    """A PDF of image-only pages, one per image, each page the image's size at 300 dpi."""
    doc = pymupdf.open()
    for image in images:
        page = doc.new_page(width=image.width * 72 / 300, height=image.height * 72 / 300)
        page.insert_image(page.rect, stream=_png(image))
    doc.save(path)
    return path


def _task(path: Path, page: int, kind: ContentKind) -> OcrTask:
    data = path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    return OcrTask(
        sha, sha[:2], path, len(data), kind, page, OcrScope.PAGE, LanguageChoice("eng", "configured")
    )


@pytest.mark.parametrize(("text", "turned"), [(MINUTES, 180), (MINUTES, 90), (ANNEX, 180), (ANNEX, 90)])
def test_a_short_scan_the_wrong_way_round_is_read_turned_in_a_pdf_and_as_an_image(
    tmp_path: Path, text: str, turned: int
) -> None:
    image = _scan(tmp_path, text, turned)
    png = tmp_path / "scan.png"
    png.write_bytes(_png(image))
    pdf = _scanned_pdf(tmp_path / "scan.pdf", [image])
    rows = ocr_tasks([_task(pdf, 1, ContentKind.PDF), _task(png, 1, ContentKind.PNG)], "v")
    for row in rows:
        assert (row.status, row.reason, row.rotation) == ("derived", None, turned), row
        assert cer(text.replace("\n\n", "\n"), row.text) < 0.05, row.text
        assert row.confidence > 85


def _readings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each recognition and orientation detection the Tesseract workers are asked for, in order."""
    asked: list[str] = []
    read, detect = TesseractProcess.read, TesseractProcess.detect

    def counted_read(self: TesseractProcess, image: Image.Image, language: str, *, psm: int, **kwargs):
        asked.append(f"psm {psm}")
        return read(self, image, language, psm=psm, **kwargs)

    def counted_detect(self: TesseractProcess, image: Image.Image, **kwargs):
        asked.append("detect")
        return detect(self, image, **kwargs)

    monkeypatch.setattr(TesseractProcess, "read", counted_read)
    monkeypatch.setattr(TesseractProcess, "detect", counted_detect)
    return asked


def test_an_upright_short_page_that_reads_well_pays_nothing_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = _scan(tmp_path, MINUTES, 0)
    with TesseractProcesses() as workers:
        asked = _readings(monkeypatch)
        result = recognise(image, "eng", tesseract=workers.for_this_thread())
    assert asked == ["psm 3"] and result.rotation == 0 and result.mean_confidence > 85


def test_orientation_detection_s_way_round_is_read_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Upside down, three lines: orientation detection says 180 degrees without being sure of it, and
    # that reading is confident, so no other way round is read.
    image = _scan(tmp_path, MINUTES, 180)
    with TesseractProcesses() as workers:
        asked = _readings(monkeypatch)
        result = recognise(image, "eng", tesseract=workers.for_this_thread())
    assert asked == ["psm 1", "detect", "psm 3"] and result.rotation == 180 and result.script is None


def test_a_page_that_reads_poorly_every_way_round_is_read_within_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Symbols, not writing: every way round reads as nonsense; the turned readings stop at the budget.
    doc = pymupdf.open()
    page = doc.new_page()
    for line in range(4):
        page.insert_text(
            (72, 120 + 40 * line), "\u2701\u2702\u2703\u2704\u2706 " * 4, fontname="zadb", fontsize=18
        )
    doc.save(tmp_path / "symbols.pdf")
    image = render_page(tmp_path / "symbols.pdf", 1)
    with TesseractProcesses() as workers:
        asked = _readings(monkeypatch)
        recognise(image, "eng", tesseract=workers.for_this_thread())
    turned = asked[asked.index("detect") + 1 :] if "detect" in asked else []
    assert len(turned) <= MAX_TURNED_READINGS, asked
    assert asked.count("detect") <= 1 and len(asked) <= 3 + MAX_TURNED_READINGS, asked


def test_a_four_page_scan_keeps_its_short_page_upside_down(tmp_path: Path) -> None:
    pages = make_image_only_pdf(tmp_path / "pages.pdf", [BODY * 3, BODY * 2, BODY * 3])
    with pymupdf.open(pages) as doc:
        upright = [
            Image.frombytes("L", (p.width, p.height), p.samples)
            for p in (page.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY) for page in doc)
        ]
    scan = _scanned_pdf(tmp_path / "report.pdf", [*upright[:2], _scan(tmp_path, MINUTES, 180), upright[2]])
    checked = check_file(scan)
    ocr = {row.page: row for row in checked.ocr}
    assert ocr[3].status == "derived" and ocr[3].rotation == 180, ocr[3]
    texts = {row.page: row for row in checked.texts}
    assert sorted(texts) == [1, 2, 3, 4]
    assert texts[3].source == "ocr" and cer(MINUTES.replace("\n\n", "\n"), texts[3].text) < 0.05, texts[3]
    assert all(texts[page].text for page in (1, 2, 4))
    assert checked.yields_text
