"""The page-structure decision (readers/pdf/certainty.py) and PyMuPDF's layout model on the pages it
is unsure of (readers/pdf/layout_model.py), on pages generated here, read by the real reader."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pymupdf

from readers.core.model import ReadingOrder
from readers.pdf.certainty import BandLine, StructureSignals, decide
from readers.pdf.structure_decisions import _model_cells

BODY = (
    "The reservoir held water through the summer, and the survey found the level steady from June to "
    "September. The wells of the valley were measured every week by the same two wardens."
)


def make_page(path: Path, *, head: str | None = None, foot: str | None = None) -> Path:
    """A one-page PDF of body paragraphs, with a running head at the top and a footer line at the bottom
    where given."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    if head:
        page.insert_text((72, 36), head, fontsize=8)
    y = 120
    for _ in range(5):
        page.insert_textbox(pymupdf.Rect(72, y, 540, y + 90), BODY, fontsize=11)
        y += 100
    if foot:
        page.insert_text((72, 770), foot, fontsize=8)
    doc.save(str(path))
    return path


_READ = """
import sys
from pathlib import Path
from readers.core.model import ReadLimits
from readers.pdf.mupdf import PyMuPDFReader
page = PyMuPDFReader().read(Path(sys.argv[1]), ReadLimits()).pages[0]
print(page.structure.source, '|', page.structure.why, '|', list(page.artifacts), '|',
      'pymupdf.layout' in sys.modules and sys.modules['pymupdf.layout'] is not None)
"""


def _read(path: Path) -> list[str]:
    """Read ``path`` in a fresh process (the model is loaded once per process): the page's structure
    source, its why, its artifacts and whether the layout package was imported."""
    run = subprocess.run(
        [sys.executable, "-c", _READ, str(path)], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    return [part.strip() for part in run.stdout.strip().splitlines()[-1].split("|")]


def test_a_certain_page_never_loads_the_model(tmp_path: Path) -> None:
    source, why, _, imported = _read(make_page(tmp_path / "plain.pdf"))
    assert source == "rule" and why == ""
    assert imported == "False"


def test_an_uncertain_page_is_read_by_the_model(tmp_path: Path) -> None:
    path = make_page(
        tmp_path / "journal.pdf",
        head="Journal of Applied Hydrology, Vol. 12, No. 3 (2026)",
        foot="Downloaded from archive.example.org on 3 May 2026",
    )
    source, why, artifacts, imported = _read(path)
    assert "bands:unmatched=2" in why
    assert source == "layout_model", why
    assert "model_ms=" in why
    assert imported == "True"
    assert "Journal of Applied Hydrology" in artifacts or "Downloaded from" in artifacts, artifacts


def test_decision_signals() -> None:
    sure = ReadingOrder("native", 1.0, 0, 1)
    assert decide(StructureSignals(sure), Counter()).certain
    assert decide(StructureSignals(sure), Counter(), tagged=True).source == "tagged"
    assert not decide(StructureSignals(ReadingOrder("native", 0.3, 4, 1)), Counter()).certain
    assert decide(StructureSignals(ReadingOrder("native", 0.8, 1, 1)), Counter()).certain
    assert not decide(StructureSignals(ReadingOrder("columns", 0.7, 3, 2)), Counter()).certain
    assert not decide(StructureSignals(sure, aligned_confidences=(0.45,)), Counter()).certain
    assert not decide(StructureSignals(sure, gapped_rows=12), Counter()).certain
    assert decide(StructureSignals(sure, gapped_rows=4), Counter()).certain
    # a page number and a running head repeated on other pages are matched by rule
    band = (BandLine("12", False), BandLine("Annual Report 2025", True))
    assert decide(StructureSignals(sure, band_lines=band), Counter({"annual report #": 5})).certain
    assert not decide(StructureSignals(sure, band_lines=band), Counter()).certain


def test_a_page_without_a_text_layer_of_its_own_is_not_sent() -> None:
    empty = StructureSignals(ReadingOrder("none", 0.0, 0, 1), text_layer=False)
    assert decide(empty, Counter()).certain


def test_a_model_region_whose_grid_is_mostly_empty_is_left_as_text(tmp_path: Path) -> None:
    """A grid PyMuPDF builds in a model's table region that fills under TABLE_MIN_FILL of its cells
    (words cut into columns of their own) is no table: the region's text stays in the flow."""
    doc = pymupdf.open()
    page = doc.new_page()
    for x in range(72, 73 + 8 * 50, 50):
        page.draw_line((x, 100), (x, 220))
    for y in range(100, 221, 30):
        page.draw_line((72, y), (472, y))
    page.insert_text((80, 120), "Total", fontsize=9)
    page.insert_text((130, 150), "47,824", fontsize=9)
    page.insert_text((180, 180), "9,967", fontsize=9)
    doc.save(tmp_path / "sparse.pdf")
    with pymupdf.open(tmp_path / "sparse.pdf") as reopened:
        found = reopened[0].find_tables(use_layout=False).tables
        assert found and len(found[0].extract()) == 4
        assert _model_cells(found[0]) is None
