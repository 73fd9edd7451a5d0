"""The performance record's page: sections measured again replace theirs, the others stay as they were.

Nothing here times anything; the measurements are benchmarks/record.py's job."""

from __future__ import annotations

from benchmarks.record import (
    README_QUERIES,
    Earlier,
    Figure,
    Plan,
    Record,
    Section,
    earlier_record,
    main,
    render,
    shown_ratio,
)

PAGE = """# Benchmarks

Measured on 2026-01-02 10:00 UTC by `benchmarks/record.py`, in 3.0 minutes.

## Targets

| figure | ratio | target |  |
|---|---|---|---|
| speed a / b | 2.0 | >= 1 | holds |
| memory c / d | 1.5 | <= 1.25 | DOES NOT HOLD |

## Machine

## 1. Speed

| figure | this | against | ratio | target |  |
|---|---|---|---|---|---|
| speed a / b | 2 | 1 | 2.0 | >= 1 | holds |

- measured in 5 s

## 4. Memory

| figure | this | against | ratio | target |  |
|---|---|---|---|---|---|
| memory c / d | 3 | 2 | 1.5 | <= 1.25 | DOES NOT HOLD |

- measured in 9 s
"""


def test_sections_not_measured_again_are_kept_with_their_targets() -> None:
    earlier = earlier_record(PAGE, [4])
    assert earlier.date == "2026-01-02 10:00 UTC"
    assert list(earlier.sections) == [1] and earlier.sections[1].startswith("## 1. Speed")
    assert earlier.targets == ["| speed a / b | 2.0 | >= 1 | holds |"]


def test_a_partial_record_puts_kept_and_new_sections_in_their_order() -> None:
    section = Section("4. Memory", about="measured again")
    record = Record("2026-02-03 11:00 UTC", "record.py --only 4", Plan.full(), [], [], [section], 60.0)
    page = render(record, earlier_record(PAGE, [4]))
    assert page.index("## 1. Speed") < page.index("## 4. Memory") < page.index("measured again")
    assert "| speed a / b | 2.0 | >= 1 | holds |" in page.split("## Machine")[0]
    assert "memory c / d" not in page  # the old section 4 and its target row are gone
    assert (
        "sections 1 (and their rows of the targets) are kept from the page as it was (last written 2026-01-02"
        in page
    )
    assert "- measured in 60 s, on 2026-02-03 11:00 UTC" not in page  # the section's own seconds
    assert page.rstrip().endswith("- measured in 0 s, on 2026-02-03 11:00 UTC")
    whole = render(record, Earlier("x", {}, []))
    assert "kept from the record" not in whole and "## 1. Speed" not in whole


def test_the_readme_queries_are_found_and_only_read() -> None:
    assert len(README_QUERIES) >= 6
    assert all(q.lower().startswith("select") and not q.endswith(";") for q in README_QUERIES)
    assert any("from outcomes" in q for q in README_QUERIES)


def test_a_ratio_is_never_printed_on_the_other_side_of_its_target() -> None:
    """Three significant digits, and more where three would round a miss onto its target or a pass off
    it."""
    assert shown_ratio(Figure("a / b", "", "", 24.96, ">= 25", False)) == "24.96"
    assert shown_ratio(Figure("a / b", "", "", 25.04, ">= 25", True)) == "25"
    assert shown_ratio(Figure("a / b", "", "", 64.04, "<= 64", False)) == "64.04"
    assert shown_ratio(Figure("a / b", "", "", 0.89996, ">= 0.9", False)) == "0.89996"
    assert shown_ratio(Figure("a / b", "", "", 1.23456, "", None)) == "1.23"


def test_a_section_the_script_does_not_measure_is_refused_and_the_page_kept(tmp_path, capsys) -> None:
    # The page's later sections are written by hand: naming one in --only would drop it from the page.
    page = tmp_path / "benchmarks.md"
    page.write_text(PAGE, encoding="utf-8")
    assert main(["--only", "1", "9", "--output", str(page)]) == 2
    assert page.read_text(encoding="utf-8") == PAGE
    assert "--only 9: this script measures sections 1, 2, 3, 4, 5, 6, 7, 10 only" in capsys.readouterr().err
