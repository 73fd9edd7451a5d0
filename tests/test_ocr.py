"""Tesseract on rendered pages: orientation, recognition, confidences, and what a missing language says.

Runs the real Tesseract that ./scripts/setup installs; skipped only where it is not installed."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree

import pymupdf
import pytest
from PIL import Image

from assets.ocr.page_reading import (
    DEFAULT_DOCUMENT_TIMEOUT_S,
    DEFAULT_MAX_PAGES_PER_DOCUMENT,
    OVER_PAGE_BUDGET,
    OVER_TIME_BUDGET,
    DocumentClock,
    LanguageChoice,
    OcrOptions,
    OcrTask,
    ocr_tasks,
)
from assets.ocr.work import ShardInput, keep_better, language_retries, ocr_shards
from orchestration.demo_corpus import _CHART_LABELS, _CHART_TEXT
from orchestration.document_builders import make_figure_pdf, make_image_only_pdf, make_text_pdf
from quality.cer import cer
from quality.records import OcrScope, PageVerdictRecord
from quality.sources import choose_page_texts
from readers.core.model import ContentKind
from readers.core.reading_records import DocumentRecord
from readers.images.orientation import looks_upright
from readers.images.tesseract import (
    OcrFailed,
    OcrUnavailable,
    TesseractProcess,
    TesseractProcesses,
    installed_languages,
    recognise,
    render_page,
)
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


def test_a_page_in_capitals_is_not_turned_upside_down(tmp_path: Path) -> None:
    # Orientation detection guesses 180 degrees on capitals; the reading as the page is wins.
    pdf = make_text_pdf(tmp_path / "caps.pdf", [TEXT.upper()], fontsize=14)
    result = recognise(render_page(pdf, 1), "eng")
    assert result.rotation == 0 and cer(TEXT.upper(), result.text) < 0.05, result.text
    assert result.mean_confidence is not None and result.mean_confidence > 80


def _readings_asked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The page segmentation mode of every reading the Tesseract workers are asked for, in order."""
    asked: list[int] = []
    read = TesseractProcess.read

    def counted(self: TesseractProcess, image: Image.Image, language: str, *, psm: int, **kwargs):
        asked.append(psm)
        return read(self, image, language, psm=psm, **kwargs)

    monkeypatch.setattr(TesseractProcess, "read", counted)
    return asked


def test_an_upright_page_is_read_as_it_is_without_orientation_detection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = render_page(make_text_pdf(tmp_path / "page.pdf", [TEXT * 3], fontsize=12), 1)
    with TesseractProcesses() as workers:
        turned = workers.for_this_thread().read(image, "eng", psm=1, dpi=300, timeout=60)
        asked = _readings_asked(monkeypatch)
        result = recognise(image, "eng", tesseract=workers.for_this_thread())
    assert looks_upright(image) and asked == [3]
    assert (result.text, result.confidences, result.rotation) == (turned.text, turned.confidences, 0)


def test_a_sideways_page_that_looks_upright_still_goes_to_orientation_detection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One word over and over lines up in columns: turned a quarter, the page shows lines running across.
    pdf = make_text_pdf(tmp_path / "page.pdf", [" ".join(["The"] * 60)], fontsize=9)
    image = render_page(pdf, 1).rotate(270, expand=True)
    with TesseractProcesses() as workers:
        worker = workers.for_this_thread()
        as_it_is = worker.read(image, "eng", psm=3, dpi=300, timeout=60)
        turned = worker.read(image, "eng", psm=1, dpi=300, timeout=60)
        asked = _readings_asked(monkeypatch)
        result = recognise(image, "eng", tesseract=worker)
    assert looks_upright(image) and not as_it_is.across  # read as it is, its lines ran down the page
    assert asked == [3, 1]  # then orientation detection; the reading as it is is not asked for twice
    kept = max(as_it_is, turned, key=lambda reading: reading.mean or 0.0)  # as recognise always keeps
    assert (result.text, result.rotation) == (kept.text, kept.rotation) and "The The The" in result.text


def _command_line_hocr(image: Image.Image, folder: Path, psm: int) -> tuple[str, tuple[float, ...], int]:
    """What Tesseract's command line reads on ``image`` (single-threaded, hOCR), put back the way
    :class:`readers.images.libtesseract.Engine` puts its words: paragraphs, lines, words, whole-number
    confidences, and the ``textangle`` most lines carry."""
    image.save(folder / "page.png")
    command = ["tesseract", str(folder / "page.png"), str(folder / "page"), "-l", "eng"]
    command += ["--psm", str(psm), "--dpi", "300", "hocr"]
    subprocess.run(command, check=True, capture_output=True, env={**os.environ, "OMP_THREAD_LIMIT": "1"})
    paragraphs: list[list[list[str]]] = []
    confidences: list[float] = []
    angles: Counter[int] = Counter()
    for element in ElementTree.parse(folder / "page.hocr").iter():
        kind, title = (element.get("id") or "").partition("_")[0], element.get("title") or ""
        if kind == "par":
            paragraphs.append([])
        elif kind == "line":
            angle = re.search(r"textangle (\d+)", title)
            angles[int(angle.group(1)) % 360 if angle else 0] += 1
            paragraphs[-1].append([])
        elif kind == "word" and (word := "".join(element.itertext()).strip()):
            paragraphs[-1][-1].append(word)
            confidences.append(float(re.search(r"x_wconf (\d+)", title).group(1)))  # type: ignore[union-attr]
    text = "\n\n".join("\n".join(" ".join(w) for w in lines if w) for lines in paragraphs if any(lines))
    return text, tuple(confidences), angles.most_common(1)[0][0] if angles else 0


@pytest.mark.parametrize("turned", [0, 90])
def test_the_worker_reads_what_tesseracts_command_line_reads(tmp_path: Path, turned: int) -> None:
    paragraphs = [TEXT, "Rates & <tariffs>: 12.5%", TEXT]
    pdf = make_text_pdf(tmp_path / "page.pdf", ["\n\n".join(paragraphs)], fontsize=12)
    image = render_page(pdf, 1).rotate(turned, expand=True)
    with TesseractProcesses() as workers:
        reading = workers.for_this_thread().read(image, "eng", psm=1, dpi=300, timeout=60)
    assert (reading.text, reading.confidences, reading.rotation) == _command_line_hocr(image, tmp_path, psm=1)
    assert (reading.rotation != 0) == (turned != 0) and "<tariffs>" in reading.text
    assert reading.across  # turned upright, its lines run across
    assert reading.text.count("\n\n") == 2  # three paragraphs


def test_a_page_over_its_time_ends_its_worker_and_the_next_page_is_read(tmp_path: Path) -> None:
    pdf = make_text_pdf(tmp_path / "page.pdf", [TEXT * 8], fontsize=11)
    image = render_page(pdf, 1)
    with TesseractProcesses() as workers:
        worker = workers.for_this_thread()
        with pytest.raises(OcrFailed) as failed:
            worker.read(image, "eng", psm=3, dpi=300, timeout=0.05)
        assert failed.value.reason == "timeout"
        assert "unit consumption" in worker.read(image, "eng", psm=3, dpi=300, timeout=60).text


def test_a_worker_that_dies_fails_its_page_alone(tmp_path: Path) -> None:
    image = render_page(make_text_pdf(tmp_path / "page.pdf", [TEXT], fontsize=14), 1)
    with TesseractProcesses() as workers:
        worker = workers.for_this_thread()
        assert worker.read(image, "eng", psm=3, dpi=300, timeout=60).confidences
        process = worker._started()
        process.kill()  # as Tesseract crashing would end it
        process.wait()
        with pytest.raises(OcrFailed) as failed:
            worker.read(image, "eng", psm=3, dpi=300, timeout=60)
        assert failed.value.reason == "engine_error" and "worker ended" in str(failed.value)
        assert "unit consumption" in worker.read(image, "eng", psm=3, dpi=300, timeout=60).text


def test_workers_started_ahead_answer_their_first_page(tmp_path: Path) -> None:
    image = render_page(make_text_pdf(tmp_path / "page.pdf", [TEXT], fontsize=14), 1)
    with TesseractProcesses() as workers:
        workers.start(1, "xqz")  # a warm-up that fails costs the page nothing: its own request is answered
        worker = workers.for_this_thread()
        assert worker._process is not None and worker._unanswered == 1  # started before it was asked
        assert "unit consumption" in worker.read(image, "eng", psm=1, dpi=300, timeout=60).text
        assert worker._unanswered == 0


def test_workers_end_with_their_block(tmp_path: Path) -> None:
    image = Image.new("L", (400, 300), 255)
    with TesseractProcesses() as workers:
        worker = workers.for_this_thread()
        worker.read(image, "eng", psm=3, dpi=300, timeout=60)
        process = worker._started()
        assert workers.for_this_thread() is worker and process.poll() is None
    assert process.returncode == 0  # its input closed, it freed its models and exited


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
    """A task on the file at ``path`` as walked now (a missing file: as if walked before it went)."""
    data = path.read_bytes() if path.exists() else b""
    sha = hashlib.sha256(data).hexdigest()
    return OcrTask(sha, sha[:2], path, len(data), kind, page, scope, LanguageChoice("eng", "configured"))


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
    assert rows[2].reason == "vanished" and rows[2].text is None


def test_a_pages_seconds_are_its_rendering_and_recognition_not_its_wait(tmp_path: Path) -> None:
    # One Tesseract thread and four pages: each page rendered waits for the one before it to be read.
    scan = make_image_only_pdf(tmp_path / "scan.pdf", [TEXT, TEXT.upper(), TEXT, TEXT.lower()])
    clock = DocumentClock(DEFAULT_DOCUMENT_TIMEOUT_S)
    rows = ocr_tasks([_task(scan, p) for p in (1, 2, 3, 4)], "v", OcrOptions(workers=1), clock=clock)
    assert {r.status for r in rows} == {"derived"}
    charged = DEFAULT_DOCUMENT_TIMEOUT_S - clock.left(rows[0].sha256)
    # The rows' seconds add up to what the document was charged (each row rounds to the millisecond).
    assert abs(sum(r.seconds for r in rows) - charged) <= 0.001 * len(rows), (rows, charged)
    assert all(r.seconds > 0 for r in rows)


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
    verdicts = [
        PageVerdictRecord(
            sha, "cd", "v", 1, "REPLACE", [], "raw_scan", None, None, None, "ocr", "5", "no_text"
        )
    ]
    (final,) = choose_page_texts(sha, "cd", "v", verdicts, [], [], [row])
    assert (final.source, final.text) == ("none", None) and final.reason.startswith("ocr_underivable:")
    if "chi_sim" in installed_languages():
        chinese = replace(
            _task(scan, 1, kind=ContentKind.PNG), language=LanguageChoice("chi_sim", "configured")
        )
        (read,) = ocr_tasks([chinese], "v")
        assert read.status == "derived" and CHINESE[:12] in read.text.replace(" ", "")


# --- the OCR budget per document -----------------------------------------------------------------------


def _frames_tiff(path: Path, frames: int) -> Path:
    """A multi-frame TIFF (a fax or a scanner's batch), each frame a short line of large print."""
    from PIL import ImageDraw, ImageFont

    font = ImageFont.load_default(size=40)
    images = []
    for i in range(frames):
        image = Image.new("L", (900, 160), 255)
        ImageDraw.Draw(image).text((30, 50), f"Frame {i + 1} water meter reading", fill=0, font=font)
        images.append(image)
    images[0].save(path, save_all=True, append_images=images[1:], dpi=(300, 300))
    return path


def _tiff_input(path: Path, frames: int, existing=()) -> ShardInput:
    import hashlib

    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    doc = DocumentRecord(sha, sha[:2], "tiff", "bytes", path.stat().st_size, None, None, str(path), "v")
    verdicts = [
        PageVerdictRecord(
            sha, sha[:2], "v", page, "REPLACE", [], "raw_scan", None, None, None, "ocr", "5", "no_text"
        )
        for page in range(1, frames + 1)
    ]
    return ShardInput(sha[:2], [doc], verdicts, [], [], [], list(existing))


@pytest.mark.slow
def test_pages_past_a_documents_page_budget_are_recorded_unread(tmp_path: Path) -> None:
    inp = _tiff_input(_frames_tiff(tmp_path / "batch.tif", 40), 40)
    options = OcrOptions(max_pages_per_document=5, workers=2)
    (first,) = ocr_shards(
        [inp], "v", default_language="eng", installed=installed_languages(), options=options
    )
    # A page's readings: Tesseract's, and RapidOCR's of these short pages; one of them kept.
    kept = [r for r in first.ocr if r.kept]
    tesseract = [r for r in first.read if r.engine == "tesseract"]
    assert len(kept) == 40 and [r.page for r in tesseract] == [1, 2, 3, 4, 5] and first.refused == 35
    assert all(r.status == "derived" and "water meter" in r.text for r in first.read)
    refused = [r for r in first.ocr if r.page > 5]
    assert {(r.status, r.reason, r.text, r.chars) for r in refused} == {("error", OVER_PAGE_BUDGET, None, 0)}
    sources = [(t.page, t.source, t.reason) for t in first.texts]
    assert sources[:5] == [(p, "ocr", None) for p in range(1, 6)]
    assert set(sources[5:]) == {(p, "none", f"ocr_error:{OVER_PAGE_BUDGET}") for p in range(6, 41)}
    # A rerun keeps the five readings and reads nothing; a larger budget reads on from where it stopped.
    again = replace(inp, existing=first.ocr)
    (same,) = ocr_shards(
        [again], "v", default_language="eng", installed=installed_languages(), options=options
    )
    assert same.read == [] and same.kept == 5 and same.refused == 35
    wider = replace(options, max_pages_per_document=7)
    (more,) = ocr_shards([again], "v", default_language="eng", installed=installed_languages(), options=wider)
    assert [r.page for r in more.read if r.engine == "tesseract"] == [6, 7]
    assert more.kept == 5 and more.refused == 33


def test_a_document_whose_time_budget_is_spent_is_not_read_and_the_others_are(tmp_path: Path) -> None:
    spent = _frames_tiff(tmp_path / "spent.tif", 3)
    other = make_image_only_pdf(tmp_path / "other.pdf", [TEXT])
    tasks = [replace(_task(spent, p, kind=ContentKind.TIFF), sha256="ab" * 32) for p in (1, 2, 3)]
    clock = DocumentClock(60.0, {"ab" * 32: 60.0})
    rows = ocr_tasks([*tasks, _task(other, 1)], "v", OcrOptions(workers=2), clock=clock)
    assert [(r.page, r.status, r.reason) for r in rows[:3]] == [
        (p, "error", OVER_TIME_BUDGET) for p in (1, 2, 3)
    ]
    assert all(r.text is None and r.words == 0 for r in rows[:3])
    assert rows[3].status == "derived" and cer(TEXT, rows[3].text) < 0.05


def test_a_tiny_document_time_budget_stops_the_page_in_flight_and_the_rest(tmp_path: Path) -> None:
    inp = _tiff_input(_frames_tiff(tmp_path / "batch.tif", 6), 6)
    options = OcrOptions(document_timeout=0.02, workers=2)
    (out,) = ocr_shards([inp], "v", default_language="eng", installed=installed_languages(), options=options)
    assert {(r.status, r.reason, r.text) for r in out.ocr} == {("error", OVER_TIME_BUDGET, None)}
    assert {t.source for t in out.texts} == {"none"}
    # What the document spent counts on a rerun: nothing is read again.
    (again,) = ocr_shards(
        [replace(inp, existing=out.ocr)], "v", default_language="eng", installed=[], options=options
    )
    assert all(r.seconds < 1 for r in again.read) and {r.reason for r in again.ocr} == {OVER_TIME_BUDGET}


def test_the_budget_defaults_are_the_settings_defaults() -> None:
    from assets.resources import AssaySettings

    settings = AssaySettings()
    assert settings.ocr_max_pages_per_document == DEFAULT_MAX_PAGES_PER_DOCUMENT
    assert settings.ocr_document_timeout_s == DEFAULT_DOCUMENT_TIMEOUT_S


@pytest.mark.slow
def test_a_run_over_a_long_tiff_reads_its_budget_and_goes_on(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assets.progress import Progress
    from orchestration.home import Home
    from orchestration.runner import run
    from warehouse.duckdb_catalog import query

    folder = tmp_path / "corpus"
    folder.mkdir()
    _frames_tiff(folder / "batch.tif", 40)
    (folder / "note.txt").write_text(TEXT, encoding="utf-8")
    monkeypatch.setenv("ASSAY_OCR_MAX_PAGES_PER_DOCUMENT", "5")
    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    wh = Home(home).warehouse
    rows = query(
        wh, "select status, reason, count(*) from ocr_pages where kept group by all order by all"
    ).rows
    assert rows == [("derived", None, 5), ("error", OVER_PAGE_BUDGET, 35)]
    sources = query(wh, "select source, count(*) from page_texts group by all order by all").rows
    assert ("ocr", 5) in sources and ("none", 35) in sources
    statuses = query(wh, "select d.path, v.status from derivations v join documents d using (sha256)").rows
    assert {(Path(p).name, s) for p, s in statuses} == {("batch.tif", "underivable"), ("note.txt", "derived")}
    # The TIFF got text from OCR, so the Underivable rate does not count it; its checks all pass.
    checks = {(c.asset, c.name): c.passed for c in report.checks}
    assert checks[("ocr", "underivable_rate")] and checks[("ocr", "ocr_confidence")]
    # A rerun with nothing changed plans no OCR: the pages over the budget do not bring the stage back.
    again = Progress()
    assert run(Home(home), [folder], again).ok and sum(again.ocr_pages.values()) == 0
    assert query(wh, "select count(*) from ocr_pages where reason = 'over_budget:pages'").rows == [(35,)]


def test_without_the_second_engine_every_page_keeps_tesseracts_reading(tmp_path: Path) -> None:
    inp = _tiff_input(_frames_tiff(tmp_path / "two.tif", 2), 2)
    options = OcrOptions(workers=2, second_engine=False)
    (off,) = ocr_shards([inp], "v", default_language="eng", installed=installed_languages(), options=options)
    assert [(r.page, r.engine, r.kept, r.choice) for r in off.ocr] == [
        (page, "tesseract", True, "only_reading") for page in (1, 2)
    ]
    assert [t.source for t in off.texts] == ["ocr", "ocr"]
