"""A partition that is lost or unreadable is noticed and derived again by the next run, with a line naming
it: a deleted shard file, one cut short, the search index cut short."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from orchestration.cli import main
from orchestration.document_builders import make_text_pdf
from orchestration.home import Home
from readers.core.reading_records import DerivationRecord
from readers.core.versions import EXTRACTOR_VERSION
from warehouse import Warehouse
from warehouse.duckdb_catalog import query
from warehouse.search import index_path
from warehouse.store import parquet_damage

NORTH = "The reservoir levels across the northern district were measured every month of the year."
SOUTH = "The river levels across the southern district were measured every week of the summer."
HARBOUR = "Plain notes about the harbour and its ships, written down over the long winter months."
#: What each table holds after a run, compared before the damage and after the repair.
COUNTED = ("documents", "derivations", "pages", "page_verdicts", "page_texts", "texts", "chunks")


def _derivation(sha: str) -> DerivationRecord:
    return DerivationRecord(
        sha256=sha, shard=sha[:2], extractor_version="v1", kind="pdf", status="derived", reason=None,
        reader="pymupdf", reader_version="1", reader_chain="pymupdf@1", recovered_by_fallback=False,
        attempts=1, pages=1, chars=10, encoding=None, encoding_source=None, carried_from=None,
        duration_ms=1.0, derived_at=datetime(2026, 1, 1, tzinfo=UTC),
    )  # fmt: skip


def _cut_short(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def test_a_file_cut_short_is_as_good_as_missing_and_is_set_aside(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    kept = wh.write("derivations", "v1", [_derivation("ab" + "0" * 62)], shard="ab")
    cut = wh.write("derivations", "v1", [_derivation("cd" + "0" * 62)], shard="cd")
    _cut_short(cut)
    assert parquet_damage(kept) is None and "cut short" in (parquet_damage(cut) or "")
    assert wh.shards("derivations", "v1") == ["ab"]
    assert not wh.has_partition("derivations", "v1", "cd")
    assert wh.read("derivations", "v1", "cd").num_rows == 0
    assert [sha for (sha,) in wh.columns("derivations", "v1", ("sha256",))] == ["ab" + "0" * 62]
    assert wh.damaged() == [(cut, parquet_damage(cut))]
    aside = wh.set_aside(cut)
    assert aside is not None and aside.is_file() and aside.is_relative_to(wh.root / "damaged")
    assert not cut.exists() and wh.damaged() == []
    overwritten = wh.write("derivations", "v1", [_derivation("ef" + "0" * 62)], shard="ef")
    overwritten.write_text("sha256,shard\nef00,ef\n")  # another format under the partition's name
    assert "overwritten" in (parquet_damage(overwritten) or "") and wh.shards("derivations", "v1") == ["ab"]


def _counts(wh: Warehouse) -> dict[str, int]:
    return {t: query(wh, f"select count(*) from {t}").rows[0][0] for t in COUNTED}


def _partition(wh: Warehouse, table: str, shard: str | None) -> Path:
    return wh.partition_path(table, EXTRACTOR_VERSION, shard)


@pytest.fixture
def run_home(home: Path, tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A fresh home that ``assay run`` took three documents through: (home, corpus, shard by name)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    make_text_pdf(corpus / "north.pdf", [NORTH])
    make_text_pdf(corpus / "south.pdf", [SOUTH])
    (corpus / "harbour.txt").write_text(HARBOUR)
    assert main(["run", "--home", str(home), str(corpus)]) == 0
    wh = Home(home).warehouse
    shards = dict(query(wh, "select o.rel_path, o.shard from observations o").rows)
    assert len(set(shards.values())) == 3  # one document a shard: a shard's loss is one document's
    return home, corpus, shards


def _repaired(out: str) -> list[str]:
    return re.findall(r"Repaired: (\S+) was", out)


@pytest.mark.slow
def test_a_deleted_pages_shard_is_read_again_and_said(run_home, capsys) -> None:
    home, corpus, shards = run_home
    wh = Home(home).warehouse
    before = _counts(wh)
    pages = _partition(wh, "pages", shards["north.pdf"])
    pages.unlink()
    capsys.readouterr()

    assert main(["run", "--home", str(home), str(corpus)]) == 0
    out = capsys.readouterr().out
    assert _repaired(out) == [str(pages.relative_to(wh.data_dir))]
    assert "was missing" in out and "nothing changed" not in out and "Read 1 files" in out
    assert _counts(wh) == before
    north = query(wh, "select o.sha256 from observations o where rel_path = 'north.pdf'").rows[0][0]
    assert query(wh, "select text from pages where sha256 = ?", [north]).rows == [(NORTH,)]
    assert query(wh, "select outcome from outcomes where sha256 = ?", [north]).rows == [("derived",)]

    assert main(["run", "--home", str(home), str(corpus)]) == 0
    out = capsys.readouterr().out
    assert "nothing changed" in out and "Repaired" not in out


@pytest.mark.slow
def test_shards_cut_short_in_every_stage_are_derived_again_and_said(run_home, capsys) -> None:
    home, corpus, shards = run_home
    wh = Home(home).warehouse
    before = _counts(wh)
    rows_before = query(wh, "select sha256, text from texts order by sha256").rows
    north, south, harbour = shards["north.pdf"], shards["south.pdf"], shards["harbour.txt"]
    cut = [
        _partition(wh, "observations", None),
        _partition(wh, "documents", north),
        _partition(wh, "derivations", south),
        _partition(wh, "page_verdicts", harbour),
        _partition(wh, "texts", north),
        _partition(wh, "chunks", south),
        _partition(wh, "vocabulary", None),
    ]
    for path in cut:
        _cut_short(path)
    # The search index and the catalog, cut short too: each is built again (no partition of its own).
    assert main(["search", "--home", str(home), "district"]) == 0
    _cut_short(index_path(wh))
    _cut_short(wh.catalog_path)
    capsys.readouterr()

    assert main(["run", "--home", str(home), str(corpus)]) == 0
    out = capsys.readouterr().out
    assert sorted(_repaired(out)) == sorted(str(p.relative_to(wh.data_dir)) for p in cut)
    assert out.count("was unreadable") == len(cut) and "nothing changed" not in out
    assert wh.damaged() == [] and all(parquet_damage(p) is None and p.is_file() for p in cut)
    assert len(list((wh.root / "damaged").rglob("part.parquet.*"))) == len(cut)  # kept, out of the way
    assert _counts(wh) == before
    assert query(wh, "select sha256, text from texts order by sha256").rows == rows_before
    assert {r[0] for r in query(wh, "select outcome from outcomes").rows} == {"derived"}
    assert main(["search", "--home", str(home), "district"]) == 0
    assert "north.pdf" in capsys.readouterr().out

    assert main(["run", "--home", str(home), str(corpus)]) == 0
    out = capsys.readouterr().out
    assert "nothing changed" in out and "Repaired" not in out


@pytest.mark.slow
def test_a_deleted_shard_of_the_last_stage_is_said_too(run_home, capsys) -> None:
    home, corpus, shards = run_home
    wh = Home(home).warehouse
    before = _counts(wh)
    chunks = _partition(wh, "chunks", shards["south.pdf"])
    chunks.unlink()
    capsys.readouterr()
    assert main(["run", "--home", str(home), str(corpus)]) == 0
    out = capsys.readouterr().out
    assert _repaired(out) == [str(chunks.relative_to(wh.data_dir))] and "nothing changed" not in out
    assert _counts(wh) == before


@pytest.mark.slow
def test_a_table_missing_in_full_is_one_line_and_derived_again(run_home, capsys) -> None:
    """Every partition of a table gone (a table removed whole, or one a newer assay adds to an older
    home): one line for the table, not one per shard, and its rows back."""
    home, corpus, _ = run_home
    wh = Home(home).warehouse
    before = _counts(wh)
    table = wh.data_dir / "page_texts" / f"extractor_version={EXTRACTOR_VERSION}"
    shutil.rmtree(table)
    capsys.readouterr()
    assert main(["run", "--home", str(home), str(corpus)]) == 0
    out = capsys.readouterr().out
    assert _repaired(out) == [str(table.relative_to(wh.data_dir))]
    assert "missing in full" in out and "derived again from its inputs" in out
    assert "nothing changed" not in out
    assert _counts(wh) == before
