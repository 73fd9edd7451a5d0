"""The Dagster runs of one `assay run` (or `assay calibrate`) carry one tag naming that command, and the
summary prints the UI's runs page filtered by it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import dagster as dg
import pytest

from orchestration.cli import _parser, main
from orchestration.document_builders import make_text_pdf
from orchestration.run_tags import COMMAND_TAG, RUN_TAG, UI_HOST, UI_PORT, run_command, runs_url

WORDS = "The reservoir levels of the northern district were measured every month by the water board."


def test_the_runs_url_is_the_uis_own_tag_filter() -> None:
    url = runs_url("3f9c2a1b")
    # As the UI writes its address when a tag is added to the runs filter (qs, brackets array format).
    assert url == "http://127.0.0.1:3000/runs?q%5B%5D=tag%3Aassay%2Frun%3D3f9c2a1b"
    parts = urlsplit(url)
    assert parts.path == "/runs" and parse_qs(parts.query) == {"q[]": ["tag:assay/run=3f9c2a1b"]}
    ui = _parser().parse_args(["ui"])
    assert (ui.host, ui.port) == (UI_HOST, UI_PORT), "the address `assay ui` serves by default"


def test_the_command_tag_names_a_few_roots() -> None:
    assert run_command(["/data/a"]) == "run /data/a"
    assert run_command([f"/data/{i}" for i in range(5)]) == "run /data/0 /data/1 /data/2 and 2 more"


def _tagged(home: Path) -> dict[str, list[dg.DagsterRun]]:
    instance = dg.DagsterInstance.from_config(str(home / "dagster"), config_filename="assay-run.yaml")
    try:
        runs: dict[str, list[dg.DagsterRun]] = {}
        for run in instance.get_runs():
            runs.setdefault(run.tags.get(RUN_TAG, ""), []).append(run)
        return runs
    finally:
        instance.dispose()


@pytest.mark.slow
def test_every_dagster_run_of_one_command_carries_its_tag(tmp_path: Path, capsys) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    make_text_pdf(corpus / "a.pdf", [WORDS])
    home = tmp_path / "home"

    assert main(["run", "--home", str(home), str(corpus)]) == 0
    summary = capsys.readouterr().out
    (first,) = _tagged(home).values()
    run_id = first[0].tags[RUN_TAG]
    assert re.fullmatch(r"[0-9a-f]{8}", run_id)
    assert len(first) >= 3, "the walk, the shard stages and the catalog"
    assert {r.tags.get(COMMAND_TAG) for r in first} == {f"run {corpus}"}
    assert f"Catalog: {home / 'warehouse' / 'catalog.duckdb'} ({len(first)} Dagster runs" in summary
    # One line: the UI's runs page filtered by the tag, with the tag itself.
    (line,) = [line for line in summary.splitlines() if runs_url(run_id) in line]
    assert f"{len(first)} Dagster runs" in line and f"{RUN_TAG}={run_id}" in line

    make_text_pdf(corpus / "b.pdf", [WORDS.replace("month", "week")])
    assert main(["run", "--home", str(home), "--json", str(corpus)]) == 0
    report = json.loads(capsys.readouterr().out)
    tagged = _tagged(home)
    (second,) = set(tagged) - {run_id}
    assert report["dagster_tag"] == f"{RUN_TAG}={second}"
    assert len(tagged[second]) == report["dagster_runs"] and len(tagged[run_id]) == len(first)

    main(["calibrate", "--home", str(home)])
    capsys.readouterr()
    tagged = _tagged(home)
    (third,) = set(tagged) - {run_id, second}
    assert [r.tags.get(COMMAND_TAG) for r in tagged[third]] == ["calibrate"]
    assert "" not in tagged, "every run carries the tag"
