"""``assay run --force PATH``: the documents there are derived again by every stage; a path named again
inside a root walked before is walked as part of that root, never observed twice."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from orchestration.cli import main
from orchestration.document_builders import make_text_pdf
from orchestration.home import Home
from readers.core.versions import EXTRACTOR_VERSION
from readers.walk.inventory import enclosing_roots, merge_observations, walk_roots
from warehouse import Warehouse
from warehouse.duckdb_catalog import query
from warehouse.store import FORGETTABLE

NORTH = "The reservoir levels across the northern district were measured every month of the year."
SOUTH = "The river levels across the southern district were measured every week of the summer."


def test_a_path_inside_a_root_walked_before_is_walked_as_part_of_it(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text(NORTH)
    (root / "sub" / "b.txt").write_text(SOUTH)
    now = datetime.now(UTC)
    first = walk_roots([root], cache={}, max_file_bytes=1 << 20, version="v", now=now).observations
    known = {o.root for o in first}
    assert enclosing_roots([root], known) == {}  # a root named again is that root
    within = enclosing_roots([root / "sub" / "b.txt", tmp_path / "elsewhere"], known)
    assert within == {root / "sub" / "b.txt": root}
    again = walk_roots(
        [root / "sub" / "b.txt"], cache={}, max_file_bytes=1 << 20, version="v", now=now, within=within
    )
    (b,) = again.observations
    assert (b.root, b.rel_path) == (str(root), "sub/b.txt")
    merged = merge_observations(first, again.observations, [root / "sub" / "b.txt"], within)
    assert sorted(o.path for o in merged) == sorted(o.path for o in first)  # once each


def test_forget_takes_a_document_out_of_every_stage_and_marks_it_forced(tmp_path: Path) -> None:
    from quality.records import PageTextRecord

    wh = Warehouse(tmp_path / "wh")
    keep, drop = "ab" + "1" * 62, "ab" + "2" * 62
    rows = [
        PageTextRecord(
            sha256=sha, shard="ab", extractor_version=EXTRACTOR_VERSION, page=1, mode="TEXT",
            source="extracted", reason=None, tool="pymupdf", tool_version="1", trust=1.0,
            ocr_confidence=None, chars=4, text="text", judged_by="lexicon",
        )
        for sha in (keep, drop)
    ]  # fmt: skip
    wh.write("page_texts", EXTRACTOR_VERSION, rows, shard="ab")
    assert wh.forget(EXTRACTOR_VERSION, {drop}) == 1
    assert [r["sha256"] for r in wh.rows("page_texts", EXTRACTOR_VERSION, "ab")] == [keep]
    assert wh.forced() == {drop}
    wh.settle_forced({drop})
    assert wh.forced() == set() and not (wh.root / "forced.json").exists()
    assert FORGETTABLE[0] == "derivations" and "documents" not in FORGETTABLE


@pytest.mark.slow
def test_run_force_reads_exactly_that_document_again(home: Path, tmp_path: Path, capsys) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    make_text_pdf(corpus / "a.pdf", [NORTH])
    target = make_text_pdf(corpus / "sub" / "b.pdf", [SOUTH])
    assert main(["run", "--home", str(home), str(corpus)]) == 0
    capsys.readouterr()
    wh = Home(home).warehouse
    tables = ("derivations", "pages", "page_verdicts", "page_texts", "texts", "chunks")
    before = {
        t: query(wh, f"select * exclude (extractor_version) from {t} order by all").rows
        for t in ("texts", "chunks")
    }
    counts = {t: query(wh, f"select count(*) from {t}").rows[0][0] for t in tables}

    assert main(["run", "--home", str(home), "--force", str(target)]) == 0
    out = capsys.readouterr().out
    assert "Read again on request (--force): 1 document" in out and str(target) in out
    assert "Read 1 files in 1 shards" in out
    observed = query(wh, "select root, rel_path from observations order by rel_path").rows
    assert observed == [(str(corpus), "a.pdf"), (str(corpus), "sub/b.pdf")]  # not observed twice
    assert {t: query(wh, f"select count(*) from {t}").rows[0][0] for t in tables} == counts
    assert {
        t: query(wh, f"select * exclude (extractor_version) from {t} order by all").rows
        for t in ("texts", "chunks")
    } == before
    assert wh.forced() == set()

    assert main(["run", "--home", str(home), str(target)]) == 0  # named again without --force: nothing to do
    out = capsys.readouterr().out
    assert "Read again" not in out and "Read 1 files" not in out
    assert query(wh, "select count(*) from observations").rows == [(2,)]
    assert main(["run", "--home", str(home), "--force"]) == 1
    assert "--force needs" in capsys.readouterr().err
