"""The Python API by its documented name: ``import assay``, check a file, run a small corpus, read it."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from orchestration.document_builders import make_text_pdf

PROSE = (
    "The reservoir levels across the northern district were measured every month of the year and "
    "reported to the board, with the rainfall of each season beside them."
)


def test_check_reads_a_generated_pdf_and_stores_nothing(tmp_path: Path) -> None:
    assay = importlib.import_module("assay")
    pdf = make_text_pdf(tmp_path / "levels.pdf", [PROSE, PROSE.replace("northern", "southern")])
    checked = assay.check(pdf, ocr=False)
    assert isinstance(checked, assay.Checked) and checked.yields_text
    assert (checked.kind, checked.outcome, checked.reason) == ("pdf", "derived", None)
    assert [p.page for p in checked.pages] == [1, 2] and all(p.mode == "TEXT" for p in checked.pages)
    assert "northern district" in checked.text and "southern district" in checked.text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["levels.pdf"]
    with pytest.raises(assay.AssayError, match="folder"):
        assay.check(tmp_path)
    with pytest.raises(assay.AssayError, match="does not exist"):
        assay.check(tmp_path / "missing.pdf")


@pytest.mark.slow
def test_run_a_small_corpus_then_read_its_documents_text_and_verdicts(home: Path, tmp_path: Path) -> None:
    assay = importlib.import_module("assay")
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    first = make_text_pdf(corpus_dir / "levels.pdf", [PROSE + " Write to ana.silva@example.org.", PROSE])
    (corpus_dir / "notes.txt").write_text(PROSE.replace("reservoir", "river"), encoding="utf-8")
    (corpus_dir / "noise.bin").write_bytes(bytes(range(256)) * 4)

    corpus = assay.run([corpus_dir], home=home)
    assert isinstance(corpus, assay.Corpus) and corpus.last_run is not None and corpus.last_run.ok
    documents = {Path(d.path).name: d for d in corpus.documents()}
    assert set(documents) == {"levels.pdf", "notes.txt", "noise.bin"}
    assert documents["levels.pdf"].outcome == "derived" and documents["levels.pdf"].pages == 2
    assert documents["noise.bin"].outcome == "unsupported"

    text = corpus.text(first)
    assert text is not None and "northern district" in text and "⟨EMAIL_1⟩" in text
    assert corpus.text(documents["noise.bin"].sha256[:12]) is None  # by a sha256 prefix too
    pages = corpus.pages(str(first))
    assert [(p.page, p.mode, p.source) for p in pages] == [(1, "TEXT", "extracted"), (2, "TEXT", "extracted")]
    assert pages[0].language == "en" and pages[0].trust == 1.0 and isinstance(pages[0].reasons, tuple)
    assert corpus.sql("select count(*) as n from documents") == [{"n": 3}]
    assert assay.open_home(home).documents() == corpus.documents()
    # The same rows as pandas and Arrow.
    frame = corpus.documents().df()
    assert sorted(frame["outcome"]) == ["derived", "derived", "unsupported"]
    assert frame.set_index("sha256")["pages"][documents["levels.pdf"].sha256] == 2
    assert pages.df()[["page", "mode", "source"]].values.tolist() == [
        [1, "TEXT", "extracted"],
        [2, "TEXT", "extracted"],
    ]
    assert pages.arrow().column("reasons").to_pylist() == [[], []]
