"""``assay eval``'s measures and its gate: the scores of a text and a table against their truth, and the
comparison with a committed baseline that fails a worse figure and passes equal ones."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestration.evaluation import baseline as committed
from orchestration.evaluation.figures import Figure, readable
from quality.truth_scores import best_table, header_row, table_score, text_score, words

# -- text against truth --------------------------------------------------------------------------------


def test_words_cut_spaced_scripts_at_spaces_and_han_and_kana_per_character() -> None:
    assert words("Hello, World! abc123") == ["hello", "world", "abc123"]
    assert words("日本語テキスト") == ["日", "本", "語", "テ", "キ", "ス", "ト"]
    assert words("حَبيبي habibi") == ["حَبيبي", "habibi"]


def test_a_reversed_text_keeps_its_words_and_loses_its_order() -> None:
    score = text_score("the cat sat on the mat", "mat the on sat cat the")
    assert score.f1 == 1.0
    assert score.order == pytest.approx(0.5)


def test_missing_and_extra_words_lower_recall_and_precision() -> None:
    score = text_score("one two three four", "one two five")
    assert score.recall == pytest.approx(0.5)
    assert score.precision == pytest.approx(2 / 3)


def test_nothing_against_a_truth_scores_zero() -> None:
    assert text_score("some words here", "").f1 == 0.0


@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "ω", "日"]), min_size=1, max_size=40))
def test_a_text_equal_to_its_truth_scores_one(tokens: list[str]) -> None:
    text = " ".join(tokens)
    score = text_score(text, text)
    assert (score.f1, score.order) == (1.0, 1.0)


# -- tables against truth ------------------------------------------------------------------------------

EXPECTED = [["Country", "Capital"], ["Austria", "Vienna"], ["Finland", "Helsinki"]]


def test_a_table_found_as_expected_scores_one_whatever_its_whitespace() -> None:
    found = [["Coun try", "Capital"], ["Austria", " Vienna\n"], ["Finland", "Helsinki"]]
    score = table_score(EXPECTED, found)
    assert (score.recall, score.precision, score.header_kept) == (1.0, 1.0, 1.0)


def test_cells_moved_out_of_their_column_are_found_but_not_kept_under_their_header() -> None:
    found = [["Country", "Capital"], ["Vienna", "Austria"], ["Helsinki", "Finland"]]
    score = table_score(EXPECTED, found)
    assert score.recall == 1.0
    assert score.header_kept == 0.0


def test_a_title_row_of_the_truth_is_not_its_header_and_a_header_over_two_rows_is_one_cell() -> None:
    """The reference grids keep a table's title as a row of one cell and split a header set over two
    lines into two rows; a table found with its title out and its header in one cell keeps every body
    cell under its header, and one with a column's cells moved does not."""
    expected = [
        ["Table 6.1: Halts", "", ""],
        ["State", "Halt", "Persons"],
        ["", "days", "trained"],
        ["Gujarat", "13", "3,810"],
        ["Kerala", "17", "3,559"],
    ]
    found = [["State", "Halt days", "Persons trained"], ["Gujarat", "13", "3,810"], ["Kerala", "17", "3,559"]]
    assert table_score(expected, found).header_kept == 1.0
    moved = [["State", "Halt days", "Persons trained"], ["Gujarat", "3,810", "13"], ["Kerala", "3,559", "17"]]
    # only the State column's two cells and the two headers' second lines stay under their headers
    assert table_score(expected, moved).kept_under_header == 4
    assert header_row(expected) == 1 and header_row(EXPECTED) == 0


def test_a_right_to_left_cell_in_drawn_order_or_presentation_forms_matches_its_reading() -> None:
    reading = [["اسمي سلطان", "مرحبا"], ["(عندي) 47", "1234"]]
    drawn = [["\ufee5\ufe8e\ufec4\ufee0\ufeb3 \ufef2\ufee4\ufeb3\ufe8d", "ابحرم"], ["74 )يدنع(", "1234"]]
    assert table_score(drawn, reading).recall == 1.0
    assert table_score([["Total", "1234"]], [["latoT", "1234"]]).matched == 1  # left to right: in order


def test_no_table_found_scores_zero_and_the_best_candidate_is_chosen() -> None:
    assert table_score(EXPECTED, None).recall == 0.0
    wrong = [["Price", "Item"], ["3", "tea"]]
    assert best_table(EXPECTED, [wrong, EXPECTED]).recall == 1.0
    assert best_table(EXPECTED, []).found_cells == 0


# -- readable text layers --------------------------------------------------------------------------------


def test_a_short_page_of_words_is_readable_and_a_cipher_is_not() -> None:
    assert readable("Hello world", "en") is not None
    assert readable("Annex B", "en") is None  # one word of three letters or more: too little to say
    assert readable("Uif rvjdl cspxo gpy kvnqt pwfs", "en") is None
    assert readable(None, None) is None


# -- the gate ------------------------------------------------------------------------------------------


def _figures(**values: float) -> list[Figure]:
    return [Figure(*key.split("__"), value=v, count=10) for key, v in values.items()]


def _baseline(tmp_path, figures: list[Figure], noise: dict[str, float] | None = None) -> committed.Baseline:
    path = tmp_path / "baseline.json"
    committed.write(path, figures, noise or {})
    return committed.load(path)


def test_the_gate_passes_equal_figures(tmp_path) -> None:
    figures = _figures(text_f1__pdf=0.9, cer__scan=0.05, stray_lines__robust=0.0)
    comparisons = committed.compare(_baseline(tmp_path, figures), figures)
    assert [c.status for c in comparisons] == ["same", "same", "same"]
    assert not any(c.fails for c in comparisons)


@pytest.mark.parametrize(
    ("measure", "before", "after"),
    [("text_f1", 0.9, 0.89), ("cer", 0.05, 0.06), ("stray_lines", 0.0, 1.0), ("readable_dropped", 3, 4)],
)
def test_the_gate_fails_a_deliberately_worse_figure(
    tmp_path, measure: str, before: float, after: float
) -> None:
    base = _baseline(tmp_path, [Figure(measure, "k", before, 10)])
    (worse,) = committed.compare(base, [Figure(measure, "k", after, 10)])
    assert worse.status == "worse"
    assert worse.fails


def test_the_gate_allows_a_drop_within_the_measured_noise_and_passes_a_better_figure(tmp_path) -> None:
    base = _baseline(tmp_path, _figures(text_f1__pdf=0.9, cer__scan=0.05), noise={"text_f1": 0.02})
    comparisons = committed.compare(base, _figures(text_f1__pdf=0.885, cer__scan=0.04))
    assert [(c.key, c.status) for c in comparisons] == [("cer/scan", "better"), ("text_f1/pdf", "same")]
    assert not any(c.fails for c in comparisons)


def test_time_is_allowed_the_machine_floor_beyond_its_noise(tmp_path) -> None:
    base = _baseline(
        tmp_path, [Figure("seconds_per_page", "robust", 0.2, 100)], noise={"seconds_per_page": 0.01}
    )
    (slower,) = committed.compare(base, [Figure("seconds_per_page", "robust", 0.28, 100)])
    (much_slower,) = committed.compare(base, [Figure("seconds_per_page", "robust", 0.35, 100)])
    assert (slower.status, much_slower.status) == ("same", "worse")


def test_a_figure_over_other_items_or_gone_fails_until_the_baseline_is_written_again(tmp_path) -> None:
    base = _baseline(tmp_path, _figures(facts__pdf=0.8, text_f1__pdf=0.9))
    comparisons = committed.compare(base, [Figure("facts", "pdf", 0.8, 11), Figure("cer", "scan", 0.1, 1)])
    assert {c.key: c.status for c in comparisons} == {
        "facts/pdf": "recounted",
        "text_f1/pdf": "missing",
        "cer/scan": "new",
    }
    assert [c.key for c in comparisons if c.fails] == ["facts/pdf", "text_f1/pdf"]


def test_the_noise_is_the_largest_difference_between_two_runs(tmp_path) -> None:
    now = _figures(text_f1__a=0.9, text_f1__b=0.8, cer__scan=0.05)
    noise = committed.noise_between(now, [{"text_f1/a": 0.91, "text_f1/b": 0.77, "cer/scan": 0.05}])
    assert noise == pytest.approx({"text_f1": 0.03, "cer": 0.0})


def test_a_baseline_that_is_not_one_says_how_to_write_it(tmp_path) -> None:
    from readers.core.errors import AssayError

    with pytest.raises(AssayError, match="--write-baseline"):
        committed.load(tmp_path / "absent.json")
    (tmp_path / "other.json").write_text(json.dumps({"schema": "x"}))
    with pytest.raises(AssayError, match="not an assay eval baseline"):
        committed.load(tmp_path / "other.json")


# -- a run's report among what it printed ------------------------------------------------------------------


def test_the_run_report_is_found_among_library_messages_and_they_are_counted_as_stray() -> None:
    from orchestration.evaluation.sets import _report

    printed = (
        'MuPDF error: format error: cycle in page tree\n{\n "schema": "assay-run/1", "ok": true}\nnote {x}\n'
    )
    report, rest = _report(printed)
    assert report == {"schema": "assay-run/1", "ok": True}
    assert [line for line in rest.splitlines() if line.strip()] == [
        "MuPDF error: format error: cycle in page tree",
        "note {x}",
    ]
    assert _report("nothing here") == ({}, "nothing here")


def test_the_page_of_figures_is_rewritten_between_its_markers_and_its_prose_kept(tmp_path) -> None:
    page = tmp_path / "quality.md"
    page.write_text(
        f"# Quality\n\nprose\n\n{committed.FIGURES_START}\nOLD FIGURES\n{committed.FIGURES_END}\nafter\n"
    )
    committed.write_page(page, [Figure("text_f1", "docx", 0.95, 3), Figure("facts", "pdf", 0.5, 8)], {})
    text = page.read_text()
    assert text.startswith("# Quality\n\nprose\n") and text.endswith("after\n")
    assert "OLD FIGURES" not in text
    assert "| docx | 0.95 (3) |" in text
    assert "| pdf | 0.5 (8) |" in text


def test_a_run_fails_on_a_stage_failure_or_no_report_not_on_a_blocking_check(tmp_path) -> None:
    from orchestration.evaluation.sets import CorpusSet, SetRun

    corpus_set = CorpusSet("robust", tmp_path, {})
    check = {"stage": "catalog", "message": "blocking check failed: catalog:underivable_rate (...)"}
    stage = {"stage": "extract 00..ff", "message": "UnicodeEncodeError: surrogates not allowed"}
    checks = [{"asset": "catalog", "check": "underivable_rate", "passed": False, "severity": "ERROR"}]
    by_check = SetRun(
        corpus_set, tmp_path, report={"schema": "assay-run/1", "failures": [check], "checks": checks}
    )
    assert not by_check.failed
    assert by_check.checks_failed == ["catalog:underivable_rate"]
    assert SetRun(corpus_set, tmp_path, report={"failures": [check, stage]}).failed
    assert SetRun(corpus_set, tmp_path).failed


# -- the command's errors say what to fix ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--corpus", "{tmp}/nowhere"], "pass it with --corpus DIR"),
        (["--corpus", "{tmp}/corpus", "--sets", "dev,nope"], "--sets takes dev,tables,robust"),
        (["--corpus", "{tmp}/corpus", "--sets", "dev", "--gate"], "leave out --sets"),
        (["--corpus", "{tmp}/corpus", "--measure-only"], "pass --keep DIR"),
        (["--corpus", "{tmp}/corpus", "--keep", "{tmp}/kept"], "a set is measured in a fresh home"),
    ],
)
def test_assay_eval_says_what_to_fix(tmp_path, capsys, arguments: list[str], said: str) -> None:
    from orchestration.cli import main

    (tmp_path / "corpus" / "dev").mkdir(parents=True)
    (tmp_path / "corpus" / "manifest.csv").write_text("path,kind\n")
    (tmp_path / "kept" / "dev").mkdir(parents=True)
    assert main(["eval", *(a.format(tmp=tmp_path) for a in arguments)]) == 1
    assert said in capsys.readouterr().err
