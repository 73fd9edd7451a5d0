"""The demo corpus generator (orchestration/demo_corpus.py) and the document builders other tests import
(orchestration/document_builders.py, tests/fixture_documents.py)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pdfplumber
import pymupdf
import pytest

from orchestration.demo_corpus import DemoFile, write_demo_corpus
from orchestration.document_builders import garble_text, make_garbled_pdf, make_image_only_pdf, make_text_pdf
from tests.fixture_documents import make_encrypted_pdf

NAMES = [
    "born-digital.pdf",
    "scanned.pdf",
    "garbled-font.pdf",
    "french.pdf",
    "chart.pdf",
    "memo-scan.png",
    "notes.txt",
    "empty.txt",
    "corrupt.pdf",
]
STATUSES = {"derived", "underivable", "unsupported", "error", "skipped"}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _text(path: Path) -> list[str]:
    with pymupdf.open(path) as doc:
        return [page.get_text() for page in doc]


def _ink(page: pymupdf.Page, dpi: int = 50) -> int:
    """Number of dark pixels on the page rendered in grey."""
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    return sum(1 for value in pix.samples if value < 128)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, DemoFile]:
    files = write_demo_corpus(tmp_path_factory.mktemp("demo"))
    return {f.name: f for f in files}


def test_writes_the_nine_files(corpus: dict[str, DemoFile]) -> None:
    assert list(corpus) == NAMES
    for name, demo in corpus.items():
        assert demo.path.name == name
        assert demo.path.is_file()
        assert demo.expected_status in STATUSES
        assert demo.expect and "\n" not in demo.expect
        assert demo.expect.startswith(demo.expected_status)
    assert corpus["born-digital.pdf"].expected_status == "derived"
    assert corpus["scanned.pdf"].expected_status == "underivable"
    assert corpus["corrupt.pdf"].expected_status == "error"


def test_deterministic_and_idempotent(corpus: dict[str, DemoFile], tmp_path: Path) -> None:
    first = {name: _sha(demo.path) for name, demo in corpus.items()}
    second = {f.name: _sha(f.path) for f in write_demo_corpus(tmp_path / "again")}
    assert first == second
    # overwriting an existing corpus in place changes nothing and leaves no temporary files behind
    rewritten = {f.name: _sha(f.path) for f in write_demo_corpus(tmp_path / "again")}
    assert rewritten == first
    assert sorted(p.name for p in (tmp_path / "again").iterdir()) == sorted(NAMES)


def test_born_digital_has_prose_headings_and_a_ruled_table(corpus: dict[str, DemoFile]) -> None:
    path = corpus["born-digital.pdf"].path
    pages = _text(path)
    assert len(pages) == 3
    assert "Annual Report 2023" in pages[0]
    assert "Average household consumption fell to 121 litres" in pages[0]
    assert "Tariffs and consumption rates" in pages[1]
    assert "Maintenance and investment" in pages[2]
    assert all(len(page.split()) >= 120 for page in pages)
    with pymupdf.open(path) as doc:
        spans = [
            span
            for block in doc[0].get_text("dict")["blocks"]
            for line in block.get("lines", [])
            for span in line["spans"]
        ]
        biggest = max(spans, key=lambda s: s["size"])
        assert "Annual Report" in biggest["text"]
        assert biggest["flags"] & pymupdf.TEXT_FONT_BOLD
        table_page = doc[1]  # find_tables keeps only a weak reference to its page
        tables = table_page.find_tables().tables
        assert len(tables) == 1
        assert (tables[0].row_count, tables[0].col_count) == (4, 4)
        assert "|Second block|1.95|2.04|2.10|" in tables[0].to_markdown()


def test_scanned_has_full_page_images_and_no_text_layer(corpus: dict[str, DemoFile]) -> None:
    with pymupdf.open(corpus["scanned.pdf"].path) as doc:
        assert doc.page_count == 2
        for page in doc:
            assert page.get_text().strip() == ""
            assert page.get_fonts() == []
            (info,) = page.get_image_info()
            cover = pymupdf.Rect(info["bbox"]) & page.rect
            assert cover.get_area() >= 0.98 * page.rect.get_area()
            assert _ink(page) > 1000


def test_garbled_font_extracts_nonsense_but_renders_the_words(corpus: dict[str, DemoFile]) -> None:
    path = corpus["garbled-font.pdf"].path
    text = "".join(_text(path))
    assert "consumption" not in text
    assert "Voju dpotvnqujpo sbuft" in text
    assert "dpotvnqujpo" in text
    with pymupdf.open(path) as doc:
        assert _ink(doc[0]) > 1000
    with pdfplumber.open(path) as pdf:  # the independent decoder reads the same nonsense
        plumbed = pdf.pages[0].extract_text()
    assert "dpotvnqujpo" in plumbed
    assert "consumption" not in plumbed


def test_garbled_glyphs_are_the_true_glyphs(tmp_path: Path) -> None:
    text = "Unit consumption rates for the year.\n\nThe water tariff has three blocks."
    garbled = make_garbled_pdf(tmp_path / "g.pdf", text)
    plain = make_text_pdf(tmp_path / "p.pdf", [text])
    assert _text(garbled)[0].split() == garble_text(text).split()
    assert _text(plain)[0].split() == text.split()
    with pymupdf.open(garbled) as g, pymupdf.open(plain) as p:
        assert g[0].get_pixmap(dpi=72).samples == p[0].get_pixmap(dpi=72).samples


def test_garble_text_shifts_letters_only() -> None:
    assert garble_text("Unit consumption rates") == "Voju dpotvnqujpo sbuft"
    assert garble_text("Zoo, 2024: zebra!") == "App, 2024: afcsb!"
    assert garble_text("é ç") == "é ç"


def test_garbled_text_flows_onto_more_pages(tmp_path: Path) -> None:
    paragraph = "Unit consumption rates were calculated from quarterly meter readings. " * 8
    path = make_garbled_pdf(tmp_path / "long.pdf", "\n\n".join([paragraph] * 12))
    pages = _text(path)
    assert len(pages) >= 2
    assert all("dpotvnqujpo" in page and "consumption" not in page for page in pages)


def test_french_keeps_its_accents(corpus: dict[str, DemoFile]) -> None:
    pages = _text(corpus["french.pdf"].path)
    assert len(pages) == 2
    text = "".join(pages)
    for needle in ("é", "è", "à", "ç", "ô", "œ", "«", "»", "’", "cœur", "reçu", "Côte", "À l’usine"):
        assert needle in text


def test_text_files(corpus: dict[str, DemoFile]) -> None:
    assert corpus["empty.txt"].path.stat().st_size == 0
    notes = corpus["notes.txt"].path.read_bytes().decode("utf-8")
    assert not notes.isascii()
    assert "Zoë" in notes
    assert len(notes.split("\n\n")) >= 3


def test_corrupt_pdf_defeats_both_readers(corpus: dict[str, DemoFile]) -> None:
    path = corpus["corrupt.pdf"].path
    assert path.read_bytes().startswith(b"%PDF-1.7")
    with pytest.raises(pymupdf.FileDataError):
        pymupdf.open(path)
    with pytest.raises(pdfplumber.utils.exceptions.PdfminerException), pdfplumber.open(path) as pdf:
        _ = pdf.pages


def test_make_text_pdf_refuses_overflow(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not fit"):
        make_text_pdf(tmp_path / "x.pdf", ["word " * 2000])
    assert not (tmp_path / "x.pdf").exists()


def test_make_image_only_pdf_is_deterministic(tmp_path: Path) -> None:
    a = make_image_only_pdf(tmp_path / "a.pdf", ["Hello scanner."], dpi=100)
    b = make_image_only_pdf(tmp_path / "b.pdf", ["Hello scanner."], dpi=100)
    assert _sha(a) == _sha(b)
    assert _text(a) == [""]


def test_encrypted_with_empty_user_password_opens_without_one(tmp_path: Path) -> None:
    path = make_encrypted_pdf(tmp_path / "open.pdf", "", "Unit consumption rates")
    with pymupdf.open(path) as doc:
        assert doc.authenticate("")
        assert not doc.needs_pass
        assert "AES" in (doc.metadata or {}).get("encryption", "")
        assert "Unit consumption rates" in doc[0].get_text()
    assert b"/Encrypt" in path.read_bytes()


def test_encrypted_with_user_password_needs_it(tmp_path: Path) -> None:
    path = make_encrypted_pdf(tmp_path / "locked.pdf", "s3cret", "Unit consumption rates")
    with pymupdf.open(path) as doc:
        assert doc.needs_pass
        assert doc.is_encrypted
        assert not doc.authenticate("")
    with pymupdf.open(path) as doc:
        assert not doc.authenticate("wrong")
    with pymupdf.open(path) as doc:
        assert doc.authenticate("s3cret")
        assert "Unit consumption rates" in doc[0].get_text()
    with pymupdf.open(path) as doc:  # the owner password opens it too
        assert doc.authenticate("assay-owner")
