"""Two pages Tesseract reads poorly and RapidOCR reads, through a real run: a cover whose title is set over
a picture, and a note hand-printed in pencil capitals (tests/ocr_fixtures.py).

On each, the page's final text must hold the page's words, and ``ocr_pages`` must show both engines'
readings of the page, the one kept (RapidOCR's) and why each was or was not kept.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ocr_fixtures import (
    COVER_WORDS,
    NOTE_WORDS,
    block_letters_image,
    cover_image,
    png_bytes,
    write_image_pdf,
    write_png,
)

ASSAY = Path(sys.executable).with_name("assay")

#: Words a reading may miss and still count as holding the page: none on the cover; on the note, the
#: two-letter "AT", which a detector can merge into the next word.
_MAY_MISS = {"cover.pdf": set(), "note.png": {"at"}}


def _rapidocr_missing() -> str | None:
    """Why the run cannot use RapidOCR here, or None when it can."""
    try:
        rapid = importlib.import_module("readers.images.rapidocr")
    except ImportError as error:
        return f"readers.images.rapidocr is not importable ({error})"
    if not rapid.installed_version():
        return "RapidOCR is not installed (pip install rapidocr)"
    return None


def test_the_cover_is_the_same_each_time_and_changes_with_its_seed() -> None:
    first, again = cover_image(), cover_image()
    assert first.size == again.size and first.size[0] * first.size[1] <= 1700 * 2200
    assert png_bytes(first) == png_bytes(again)
    assert png_bytes(cover_image(seed=1)) != png_bytes(first)


def test_the_note_is_the_same_each_time_and_changes_with_its_seed() -> None:
    first, again = block_letters_image(), block_letters_image()
    assert first.size[0] * first.size[1] <= 1700 * 2200
    assert png_bytes(first) == png_bytes(again)
    assert png_bytes(block_letters_image(seed=1)) != png_bytes(first)


def test_the_scanned_pdf_is_the_same_each_time_and_has_no_text_layer(tmp_path: Path) -> None:
    import pymupdf

    a = write_image_pdf(tmp_path / "a.pdf", cover_image())
    b = write_image_pdf(tmp_path / "b.pdf", cover_image())
    assert a.read_bytes() == b.read_bytes()
    with pymupdf.open(a) as doc:
        assert len(doc) == 1 and not doc[0].get_text().strip() and len(doc[0].get_images()) == 1


def _sql(home: Path, query: str) -> list[dict]:
    out = subprocess.run(
        [str(ASSAY), "sql", "--home", str(home), "--json", query],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def both_engines_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home after one run over a folder holding the cover (a scanned PDF) and the note (a PNG)."""
    missing = _rapidocr_missing()
    if missing:
        pytest.skip(f"needs the RapidOCR engine: {missing}")
    root = tmp_path_factory.mktemp("engines")
    corpus = root / "corpus"
    corpus.mkdir()
    write_image_pdf(corpus / "cover.pdf", cover_image())
    write_png(corpus / "note.png", block_letters_image())
    home = root / "home"
    run = subprocess.run(
        [str(ASSAY), "run", "--home", str(home), str(corpus)], capture_output=True, text=True, timeout=900
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return home


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cover.pdf", "note.png"])
def test_the_kept_reading_holds_the_words(both_engines_run: Path, name: str) -> None:
    rows = _sql(
        both_engines_run,
        "select p.text from page_texts p join documents d using (sha256) "
        f"where d.path like '%/{name}' and p.page = 1",
    )
    assert len(rows) == 1 and rows[0]["text"], rows
    read = set(re.findall(r"[a-z]+", rows[0]["text"].casefold()))
    expected = COVER_WORDS if name == "cover.pdf" else NOTE_WORDS
    missed = [w for w in expected if w not in read and w not in _MAY_MISS[name]]
    assert not missed, f"{name}: missing {missed} in {rows[0]['text']!r}"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cover.pdf", "note.png"])
def test_ocr_pages_shows_both_engines_and_keeps_rapidocr(both_engines_run: Path, name: str) -> None:
    rows = _sql(
        both_engines_run,
        "select o.engine, o.kept, o.choice, o.asked from ocr_pages o join documents d using (sha256) "
        f"where d.path like '%/{name}' and o.page = 1 and o.scope = 'page' order by o.engine",
    )
    assert sorted(r["engine"] for r in rows) == ["rapidocr", "tesseract"], rows
    assert [r["engine"] for r in rows if r["kept"]] == ["rapidocr"], rows
    assert all(r["kept"] is not None and r["choice"] for r in rows), rows
