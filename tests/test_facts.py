"""The facts suites: each kind's check on small texts, the fact-file loader, an invariant of ``order``
and ``present``, ``assay facts --generated`` end to end, and the corpus facts against the manifest."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestration.cli import main
from quality.fact_checks import (
    Absent,
    Fact,
    FactError,
    Order,
    Present,
    TableCell,
    check,
    evaluate,
    load_facts,
    tables,
)
from tests.conftest import CORPUS, REPO, corpus_manifest

SHA = "a" * 64
CORPUS_FACTS = REPO / "benchmarks" / "facts" / "corpus.jsonl"

TABLE = """Intro line.

| Country | Capital | Note |
|---|:---:|---|
| Austria | Vienna | a \\| b |
| Belgium | Brussels | |

After the table.
"""


# -- present -------------------------------------------------------------------------------------------


def test_present_finds_a_passage_across_line_breaks_emphasis_and_ligatures() -> None:
    text = "# Title\n\nThe quick **brown** fox\njumps over the ﬁne lazy dog.\n"
    assert check(Present("The quick brown fox jumps over the fine lazy dog."), text)
    assert check(Present("Title"), text)
    assert not check(Present("The quick red fox"), text)
    assert not check(Present("   "), text)


def test_present_tolerates_an_edit_in_a_long_passage_but_not_a_different_sentence() -> None:
    text = "Open-domain question answering relies on efficient passage retrieval to select contexts."
    assert check(Present("Open-domain question answering relies on eficient passage retrieval"), text)
    assert not check(Present("Closed-book question answering needs no passage retrieval at all"), text)


def test_present_joins_a_hyphenated_line_break() -> None:
    assert check(Present("a good representation"), "a good repre-\nsentation of it")


def test_a_number_range_broken_at_its_hyphen_is_one_token() -> None:
    assert check(Present("as indicated in Table 3-5."), "as indicated in Table 3-\n5.\nTable A4-13.")
    assert not check(Present("Table 3 5."), "as indicated in Table 3-\n5.")


# -- absent --------------------------------------------------------------------------------------------


def test_absent_fails_on_the_line_and_on_a_short_line_holding_it() -> None:
    text = "Body text here.\nFederal Register / Vol. 85\n12\nMore body text that mentions 12 things."
    assert not check(Absent("Federal Register / Vol. 85"), text)
    assert not check(Absent("12"), text)
    assert check(Absent("13"), text)
    # inside a long line of prose the words are not the running header
    assert check(Absent("mentions"), text)


# -- order ---------------------------------------------------------------------------------------------


def test_order_holds_only_in_reading_order_and_needs_both() -> None:
    text = "End of column one.\n\nStart of column two."
    assert check(Order("End of column one.", "Start of column two."), text)
    assert not check(Order("Start of column two.", "End of column one."), text)
    assert not check(Order("End of column one.", "Missing passage"), text)
    assert not check(Order("Missing passage", "Start of column two."), text)


# -- table_cell ----------------------------------------------------------------------------------------


def test_tables_are_parsed_with_escaped_pipes() -> None:
    [table] = tables(TABLE)
    assert table[0] == ["Country", "Capital", "Note"]
    assert table[1] == ["Austria", "Vienna", "a | b"]
    assert table[2] == ["Belgium", "Brussels", ""]


def test_table_cell_by_header_and_row() -> None:
    assert check(TableCell("Vienna", "Capital"), TABLE)
    assert check(TableCell("Vienna", "Capital", "Austria"), TABLE)
    assert check(TableCell("a | b", "Note", "Austria"), TABLE)
    assert not check(TableCell("Vienna", "Capital", "Belgium"), TABLE)
    assert not check(TableCell("Vienna", "Country"), TABLE)
    assert not check(TableCell("Vienna", "Population"), TABLE)  # no such header


def test_table_cell_needs_a_table_not_words_in_a_row() -> None:
    plain = "Country Capital\nAustria Vienna\n"
    assert not check(TableCell("Vienna", "Capital"), plain)
    # rows without a delimiter row are not a GFM table
    assert not check(TableCell("Vienna", "Capital"), "| Country | Capital |\n| Austria | Vienna |\n")


# -- evaluation ----------------------------------------------------------------------------------------


def test_evaluate_counts_per_kind_and_fails_facts_without_text() -> None:
    facts = [
        Fact("a.pdf", SHA, Present("Intro line."), "w"),
        Fact("a.pdf", SHA, Absent("Intro line."), "w"),
        Fact("a.pdf", SHA, TableCell("Brussels", "Capital", "Belgium"), "w"),
        Fact("b.pdf", "b" * 64, Absent("anything"), "w"),
    ]
    result = evaluate("s", facts, {SHA: TABLE})
    rates = result.by_kind()
    assert (rates["present"].passed, rates["present"].total) == (1, 1)
    assert (rates["absent"].passed, rates["absent"].total) == (0, 2)
    assert (rates["table_cell"].passed, rates["table_cell"].total) == (1, 1)
    assert (result.overall.passed, result.overall.total) == (2, 4)
    assert [o.text_found for o in result.failures] == [True, False]


# -- loader --------------------------------------------------------------------------------------------


def _write(tmp_path: Path, *rows: object) -> Path:
    path = tmp_path / "facts.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def _row(**over: object) -> dict[str, object]:
    row: dict[str, object] = {"document": "a.pdf", "sha256": SHA, "kind": "present", "passage": "x y"}
    row["why"] = "because"
    row.update(over)
    return {k: v for k, v in row.items() if v is not None}


def test_loader_reads_each_kind(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        _row(),
        "",
        _row(kind="absent", passage=None, line="12"),
        _row(kind="order", passage=None, before="a", after="b"),
        _row(kind="table_cell", passage=None, value="1", header="H"),
        _row(kind="table_cell", passage=None, value="1", header="H", row="R"),
    )
    facts = load_facts(path)
    assert [f.kind for f in facts] == ["present", "absent", "order", "table_cell", "table_cell"]
    assert facts[4].check == TableCell("1", "H", "R")


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        (_row(kind="maybe"), "unknown kind 'maybe'"),
        (_row(sha256="abc"), "64 lower-case hex"),
        (_row(why=""), "'why'"),
        (_row(document=None), "'document'"),
        (_row(passage=None), "present needs 'passage'"),
        (_row(kind="order", passage=None, before="a"), "order needs 'after'"),
        (_row(kind="table_cell", passage=None, value="1", header=" "), "table_cell needs 'header'"),
        (_row(extra="1"), "present takes no extra"),
        (_row(passage=3), "present needs 'passage'"),
    ],
)
def test_loader_rejects_malformed_facts_with_file_and_line(tmp_path: Path, row: object, message: str) -> None:
    path = _write(tmp_path, _row(), row)
    with pytest.raises(FactError, match=message) as caught:
        load_facts(path)
    assert f"{path}:2:" in str(caught.value)


# -- invariants ----------------------------------------------------------------------------------------

_WORD = st.text(alphabet="abcdefghij", min_size=3, max_size=8)


@given(a=_WORD, b=_WORD, filler=st.lists(_WORD, max_size=5))
def test_order_never_holds_both_ways_for_passages_occurring_once(a: str, b: str, filler: list[str]) -> None:
    a, b = f"A{a}Q", f"B{b}Q"  # each occurs once: capitals appear nowhere else
    text = " ".join([*filler, a, *filler, b])
    assert check(Order(a, b), text)
    assert not check(Order(b, a), text)


@given(
    words=st.lists(st.text(alphabet="abcdefXYZ.,", min_size=1, max_size=6), min_size=1, max_size=8),
    seps=st.lists(st.sampled_from([" ", "\n", "  ", "\t", " \n "]), min_size=8, max_size=8),
    before=st.text(alphabet="klmn \n", max_size=10),
    after=st.text(alphabet="klmn \n", max_size=10),
)
def test_present_holds_after_whitespace_changes(
    words: list[str], seps: list[str], before: str, after: str
) -> None:
    passage = " ".join(words)
    respaced = "".join(w + s for w, s in zip(words, seps, strict=False)).strip()
    assert check(Present(passage), f"{before} {respaced} {after}")


# -- the command ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_assay_facts_generated_runs_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    assert main(["facts", "--home", str(home), "--generated"]) == 0
    out = capsys.readouterr().out
    assert "pass rate per kind" in out
    for kind in ("present", "absent", "order", "table_cell", "overall"):
        assert kind in out
    # evaluated again without a run: the same home, the same figures, as JSON
    assert main(["facts", "--home", str(home), "--generated", "--no-run", "--json"]) == 0
    [suite] = json.loads(capsys.readouterr().out)
    assert suite["suite"] == "generated"
    assert suite["overall"]["total"] >= 30
    # the born-digital prose and the Office tables are read: most facts hold
    assert suite["overall"]["passed"] >= suite["overall"]["total"] // 2


def test_assay_facts_without_a_run_on_an_empty_home_fails_every_fact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    facts = _write(tmp_path, _row())
    args = ["facts", "--home", str(tmp_path / "h"), "--corpus", str(corpus), "--facts", str(facts)]
    assert main([*args, "--no-run", "--json"]) == 0
    [suite] = json.loads(capsys.readouterr().out)
    assert suite["overall"] == {"passed": 0, "total": 1}
    assert suite["failures"][0]["text_found"] is False


def test_assay_facts_names_a_missing_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["facts", "--home", str(tmp_path / "h"), "--corpus", str(tmp_path / "nope")]) == 1
    assert "is not a folder" in capsys.readouterr().err


# -- the corpus facts ----------------------------------------------------------------------------------


def test_corpus_facts_load_and_cover_every_kind() -> None:
    facts = load_facts(CORPUS_FACTS)
    assert len(facts) >= 60
    assert len({f.sha256 for f in facts}) >= 20
    assert {f.kind for f in facts} == {"present", "absent", "order", "table_cell"}


@pytest.mark.corpus
def test_every_corpus_fact_names_a_manifest_document_by_its_sha256() -> None:
    by_name = {Path(row["path"]).name: row["sha256"] for row in corpus_manifest()}
    for fact in load_facts(CORPUS_FACTS):
        assert by_name.get(fact.document) == fact.sha256, fact


#: Each fact file of the page-level suites and the list of the set its documents come from.
SET_FACTS = {
    "dev_pages.jsonl": "manifest.csv",
    "tables.jsonl": "tables/pdfs.csv",
    "robust.jsonl": "robust/manifest.csv",
}


def test_the_page_fact_files_load_and_hold_at_least_150_facts() -> None:
    facts = [f for name in SET_FACTS for f in load_facts(REPO / "benchmarks" / "facts" / name)]
    assert len(facts) >= 150
    assert {f.kind for f in facts} == {"present", "absent", "order", "table_cell"}


@pytest.mark.corpus
@pytest.mark.parametrize(("name", "listing"), SET_FACTS.items())
def test_every_page_fact_names_a_document_of_its_set_by_its_sha256(name: str, listing: str) -> None:
    corpus_manifest()  # skips without the corpus

    with (CORPUS / listing).open(newline="", encoding="utf-8") as fh:
        by_name = {Path(row.get("path") or row["file"]).name: row["sha256"] for row in csv.DictReader(fh)}
    for fact in load_facts(REPO / "benchmarks" / "facts" / name):
        assert by_name.get(fact.document) == fact.sha256, fact
