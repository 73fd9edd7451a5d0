"""Two ``assay run`` over the same corpus into two homes give the same rows in every public view.

Each run is the console script in a process of its own, with its own hash seed, into a home at another
depth: anything decided by the iteration order of a set or a dict of strings, by a cache an earlier run
warmed, or by where the home is, shows up as a difference.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from tests.corpus_rows import (
    EMAIL,
    HOME_MARK,
    MOMENT_COLUMNS,
    PUBLIC_VIEWS,
    Corpus,
    HomeRows,
    differences,
    home_rows,
    start_run,
    write_corpus,
)
from warehouse.schema import TABLES

# The two runs go side by side; they took 38 s together on a 2-core machine busy with other work.
RUN_TIMEOUT_S = 400

# What the compared columns must include for equal rows to mean equal conclusions: the documents' ids,
# what each reader concluded and why, each page's verdict and its reasons, OCR's reading, the final and
# the clean texts, the redactions, the chunks and the lineage.
MUST_COMPARE = {
    "documents": ("sha256", "kind", "parent_sha256", "member", "path"),
    "derivations": ("sha256", "status", "reason", "reader", "reader_version", "chars"),
    "underivables": ("sha256", "tool", "reason"),
    "pages": ("sha256", "page", "text", "mode", "reasons", "provenance"),
    "page_verdicts": ("sha256", "page", "mode", "reasons", "provenance", "score"),
    "ocr_pages": ("sha256", "page", "text", "confidence", "rotation"),
    "page_texts": ("sha256", "page", "source", "text", "trust"),
    "texts": ("sha256", "text", "page_starts"),
    "redactions": ("sha256", "kind", "start", "end", "placeholder"),
    "chunks": ("chunk_id", "sha256", "ordinal", "heading_path", "text", "trust"),
    "lineage": ("sha256", "from", "to", "stage", "tool"),
}


def test_moment_columns_are_columns_and_cover_every_clock() -> None:
    """The excluded columns exist, and every timestamp or wall time of the schema is among them: a new
    clock column must be excluded by name, on purpose, or it shows up here first."""
    columns = {c.name: c for table in TABLES.values() for c in table.columns}
    assert set(columns) >= MOMENT_COLUMNS
    clocks = {
        name
        for name, c in columns.items()
        if pa.types.is_timestamp(c.type) or c.doc.startswith(("wall time", "when "))
    }
    assert clocks and clocks <= MOMENT_COLUMNS


@pytest.mark.slow
def test_two_runs_into_two_homes_give_the_same_rows(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", reports=6, notes=4)
    with (
        start_run(tmp_path / "first-home", corpus.root, hash_seed="1") as first,
        start_run(tmp_path / "elsewhere" / "second-home", corpus.root, hash_seed="2") as second,
    ):
        first.wait(RUN_TIMEOUT_S)
        second.wait(RUN_TIMEOUT_S)
    a, b = home_rows(first.home, corpus.root), home_rows(second.home, corpus.root)

    assert [v.view for v in a.views] == list(PUBLIC_VIEWS)
    assert_meaningful(a, corpus)
    assert differences(a, b) == []
    assert a == b


def assert_meaningful(rows: HomeRows, corpus: Corpus) -> None:
    """Equal rows mean something only if the compared columns and rows hold what the corpus produces."""
    for view, needed in MUST_COMPARE.items():
        assert set(needed) <= set(rows.view(view).columns), view
    documents = rows.view("documents")
    assert len(documents.rows) == corpus.documents
    parents = documents.column("parent_sha256")
    member = [p for p, parent in zip(documents.column("path"), parents, strict=True) if parent]
    assert len(member) == 1 and member[0].startswith(f"{HOME_MARK}/warehouse/blobs/")
    statuses = set(rows.view("derivations").column("status"))
    assert statuses == {"derived", "underivable"}  # the scan has no text layer
    assert {"TEXT", "REPLACE"} <= set(rows.view("page_verdicts").column("mode"))
    ocr = rows.view("ocr_pages")  # the scan's readings (Tesseract's, RapidOCR's where it read it too)
    kept = [text for text, k in zip(ocr.column("text"), ocr.column("kept"), strict=True) if k]
    assert set(ocr.column("status")) == {"derived"} and len(kept) == 1 and "Meter readings" in kept[0]
    assert sorted(rows.view("redactions").column("kind")) == ["email", "phone"]
    texts = "\n".join(rows.view("texts").column("text"))
    assert "⟨EMAIL_1⟩" in texts and EMAIL not in texts
    assert len(rows.view("texts").rows) == corpus.documents  # the zip's is the listing of its members
    assert len(rows.view("chunks").rows) >= len(rows.view("texts").rows)
    for view in ("observations", "pages", "lineage", "version_diff"):
        assert rows.view(view).rows, view
