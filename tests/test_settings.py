"""Settings come from ASSAY_* variables; a bad value names the variable."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assets.planner import one_range_costs_less
from assets.resources import AssaySettings, resource_from_env
from assets.shard_keys import DOCUMENTS_PER_RUN, RUN_COST_S, SHARD_KEYS, runs_cost, shard_ranges
from readers.core.errors import ConfigError


def test_settings_from_environment(tmp_path: Path) -> None:
    s = resource_from_env(
        {
            "ASSAY_HOME": str(tmp_path),
            "ASSAY_ROOTS": "/a:/b",
            "ASSAY_UNDERIVABLE_RATE_MAX": "0.5",
            "ASSAY_MAX_PAGES": "10",
        }
    )
    assert (s.home, s.roots, s.underivable_rate_max, s.max_pages) == (str(tmp_path), ["/a", "/b"], 0.5, 10)
    assert resource_from_env({}).fallback_rate_max == AssaySettings().fallback_rate_max


def test_a_bad_value_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="ASSAY_MAX_PAGES"):
        resource_from_env({"ASSAY_MAX_PAGES": "many"})


@pytest.mark.parametrize(
    ("touched", "per_run", "expected"),
    [
        ([], 32, []),
        (["00"], 32, [("00", "00")]),
        (["00", "1f", "20"], 32, [("00", "1f"), ("20", "20")]),
        (["ff", "00", "80", "81"], 32, [("00", "00"), ("80", "81"), ("ff", "ff")]),
        (SHARD_KEYS, 64, [("00", "3f"), ("40", "7f"), ("80", "bf"), ("c0", "ff")]),
    ],
)
def test_shard_ranges_cover_the_touched_shards(touched, per_run, expected) -> None:
    ranges = shard_ranges(touched, per_run)
    assert ranges == expected
    covered = {k for a, b in ranges for k in SHARD_KEYS[SHARD_KEYS.index(a) : SHARD_KEYS.index(b) + 1]}
    assert set(touched) <= covered
    assert all(SHARD_KEYS.index(b) - SHARD_KEYS.index(a) < per_run for a, b in ranges)


@settings(max_examples=100, deadline=None)
@given(st.sets(st.sampled_from(SHARD_KEYS)), st.integers(min_value=1, max_value=256))
def test_shard_ranges_property(touched: set[str], per_run: int) -> None:
    ranges = shard_ranges(sorted(touched), per_run)
    covered = {k for a, b in ranges for k in SHARD_KEYS[SHARD_KEYS.index(a) : SHARD_KEYS.index(b) + 1]}
    assert touched <= covered
    assert all(a in touched and b in touched for a, b in ranges)  # ranges start and end on real work
    assert all(SHARD_KEYS.index(b) - SHARD_KEYS.index(a) < per_run for a, b in ranges)


def test_personal_data_kinds_are_switchable_and_checked() -> None:
    from quality.pii_findings import PiiKind

    assert resource_from_env({"ASSAY_REDACT_KINDS": ""}).scrubber() is None
    only_mail = resource_from_env({"ASSAY_REDACT_KINDS": "email"}).scrubber()
    assert only_mail is not None and only_mail.kinds == frozenset({PiiKind.EMAIL})
    with pytest.raises(ConfigError):
        resource_from_env({"ASSAY_REDACT_KINDS": "email,shoe_size"}).scrubber()


def test_private_ip_redaction_is_a_setting_on_by_default() -> None:
    from quality.pii import PlaceholderBook

    text = "router 192.168.0.1, docs 192.0.2.7"
    default = resource_from_env({}).scrubber()
    assert default is not None and default.include_private_ips
    assert default.scrub(text, PlaceholderBook()).text == "router ⟨IP_1⟩, docs ⟨IP_2⟩"
    off = resource_from_env({"ASSAY_REDACT_PRIVATE_IPS": "false"}).scrubber()
    assert off is not None and off.scrub(text, PlaceholderBook()).text == text
    assert resource_from_env({"ASSAY_REDACT_PRIVATE_IPS": "1"}).redact_private_ips
    with pytest.raises(ConfigError, match="ASSAY_REDACT_PRIVATE_IPS"):
        resource_from_env({"ASSAY_REDACT_PRIVATE_IPS": "perhaps"})
    # the path redaction follows the same settings
    assert resource_from_env({}).path_redactor()("/in/192.168.0.1/a.txt") == "/in/⟨IP_1⟩/a.txt"
    assert (
        resource_from_env({"ASSAY_REDACT_KINDS": ""}).path_redactor()("/in/a@example.org")
        == "/in/a@example.org"
    )


def test_the_executor_is_a_setting_of_the_definitions() -> None:
    import dagster as dg

    from orchestration.definitions import DASK_JOB_TAG, executor_for, make_definitions

    assert executor_for(resource_from_env({})) is dg.in_process_executor
    assert executor_for(resource_from_env({"ASSAY_EXECUTOR": "multiprocess"})) is dg.multiprocess_executor
    dask = resource_from_env({"ASSAY_EXECUTOR": "dask", "ASSAY_DASK_SCHEDULER": "tcp://127.0.0.1:8786"})
    defs = make_definitions(dask)
    job = defs.resolve_job_def("assay_ocr")
    assert job.executor_def.name == "dask_executor" and job.tags[DASK_JOB_TAG] == "assay_ocr"
    assert DASK_JOB_TAG not in make_definitions(resource_from_env({})).resolve_job_def("assay_ocr").tags
    with pytest.raises(ConfigError, match="ASSAY_EXECUTOR='threads'"):
        resource_from_env({"ASSAY_EXECUTOR": "threads"})
    with pytest.raises(ConfigError, match="needs ASSAY_DASK_SCHEDULER"):
        resource_from_env({"ASSAY_EXECUTOR": "dask"})


def test_one_range_costs_less_where_the_shards_with_work_fill_the_key_space() -> None:
    # Work in most shards: one run over every key beats eight ranges run twice (extract, then the rest).
    dense = SHARD_KEYS[::2]
    assert one_range_costs_less(dense, dict.fromkeys(dense, 1))
    # Two shards far apart: one range would pay every stage's events on the 254 keys between.
    assert not one_range_costs_less(["00", "ff"], {"00": 1, "ff": 1})
    # Within one range of `per_run` keys there is nothing to weigh.
    assert one_range_costs_less(["00", "1f"], {"00": 1, "1f": 1})
    # Too many documents for one run: memory stays bounded by the ranges.
    assert not one_range_costs_less(dense, dict.fromkeys(dense, DOCUMENTS_PER_RUN))
    assert not one_range_costs_less([], {})


@settings(max_examples=100, deadline=None)
@given(st.sets(st.sampled_from(SHARD_KEYS), min_size=1))
def test_one_range_costs_less_when_its_cost_is_no_more_than_the_ranges(touched: set[str]) -> None:
    ordered = sorted(touched)
    apart = shard_ranges(ordered)
    separate = runs_cost(apart, 1) + RUN_COST_S + runs_cost(apart, 4)
    whole = runs_cost([(ordered[0], ordered[-1])], 5)
    assert one_range_costs_less(ordered, dict.fromkeys(ordered, 1)) == (len(apart) == 1 or whole <= separate)
