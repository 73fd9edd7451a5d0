"""The Python API as a data engineer and a plain script use it: rows as pandas and Arrow, no ``__main__``
guard needed, and every error it raises an ``AssayError`` that says what to do."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from orchestration.document_builders import make_text_pdf
from orchestration.home import Home
from readers.core.errors import AssayError
from readers.core.versions import EXTRACTOR_VERSION
from warehouse.duckdb_catalog import build_catalog

PROSE = (
    "The reservoir levels across the northern district were measured every month of the year and "
    "reported to the board, with the rainfall of each season beside them."
)

# The README's Python example as a user saves it in a file, without an `if __name__ == "__main__":`
# guard; each time its top level runs it adds a line to runs.log.
README_SCRIPT = """\
import json

import assay

with open("runs.log", "a") as log:
    log.write("top level\\n")
print("started", flush=True)
checked = assay.check("report.pdf")
corpus = assay.run(["papers/"], home="work")
frame = corpus.documents().df()
print(json.dumps({
    "check": [checked.outcome, checked.reason, len(checked.pages)],
    "ok": corpus.last_run.ok,
    "frame": type(frame).__module__.split(".")[0],
    "outcomes": sorted(zip(frame["kind"], frame["outcome"])),
    "text": corpus.text("papers/levels.pdf"),
}))
"""


@pytest.mark.slow
def test_the_readme_example_runs_once_as_a_plain_script(tmp_path: Path) -> None:
    make_text_pdf(tmp_path / "report.pdf", [PROSE])
    (tmp_path / "papers").mkdir()
    make_text_pdf(tmp_path / "papers" / "levels.pdf", [PROSE + " Write to ana.silva@example.org."])
    (tmp_path / "papers" / "notes.txt").write_text(PROSE.replace("reservoir", "river"), encoding="utf-8")
    script = tmp_path / "example.py"
    script.write_text(README_SCRIPT, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "ASSAY_"))}
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # The reader workers did not import the script: its top level ran once.
    assert (tmp_path / "runs.log").read_text().splitlines() == ["top level"]
    lines = done.stdout.splitlines()
    assert lines[0] == "started" and lines.count("started") == 1, done.stdout
    result = json.loads(lines[-1])
    assert result["check"] == ["derived", None, 1]
    assert result["ok"] is True and result["frame"] == "pandas"
    assert result["outcomes"] == [["pdf", "derived"], ["text", "derived"]]
    assert "northern district" in result["text"] and "⟨EMAIL_1⟩" in result["text"]


def test_sql_gives_rows_and_the_same_rows_as_pandas_and_arrow(tmp_path: Path) -> None:
    assay = importlib.import_module("assay")
    home = tmp_path / "home"
    build_catalog(Home(home).warehouse, EXTRACTOR_VERSION)  # an empty catalog: enough for a query
    corpus = assay.open_home(home)
    rows = corpus.sql("select * from (values (2, 'b', [3]), (1, 'a', [1, 2])) t(n, s, l) order by n")
    # Rows as they always were: a sequence of dictionaries.
    assert len(rows) == 2 and rows[0] == {"n": 1, "s": "a", "l": [1, 2]}
    assert rows == [{"n": 1, "s": "a", "l": [1, 2]}, {"n": 2, "s": "b", "l": [3]}]
    assert [r["s"] for r in rows] == ["a", "b"] and rows[-1]["l"] == [3] and rows.columns == ["n", "s", "l"]
    frame = rows.df()
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == ["n", "s", "l"]
    assert frame["n"].tolist() == [1, 2] and frame["s"].tolist() == ["a", "b"]
    table = rows.arrow()
    assert isinstance(table, pa.Table) and table.num_rows == 2
    assert table.schema.field("n").type == pa.int32() and table.schema.field("l").type == pa.list_(pa.int32())
    assert corpus.sql("select ? as x", [5]) == [{"x": 5}]
    # No document yet: empty, with the outcomes view's columns all the same.
    documents = corpus.documents()
    assert len(documents) == 0 and list(documents) == [] and documents == []
    assert {"sha256", "path", "kind", "outcome", "reason"} <= set(documents.df().columns)
    assert documents.arrow().num_rows == 0


def test_every_error_the_api_raises_is_an_assay_error(tmp_path: Path) -> None:
    from assets.lock import HomeBusy
    from orchestration.export import ExportError
    from orchestration.faults import EnvironmentFault
    from orchestration.lineage import DocumentNotFound
    from warehouse.search import NoChunks
    from warehouse.warehouse_errors import CatalogMissing, QueryTimeout, SchemaMismatch, WarehouseError

    assay = importlib.import_module("assay")
    for error in (
        WarehouseError,
        CatalogMissing,
        QueryTimeout,
        SchemaMismatch,
        DocumentNotFound,
        NoChunks,
        ExportError,
        EnvironmentFault,
        HomeBusy,
    ):
        assert issubclass(error, assay.AssayError), error
    assert assay.AssayError is AssayError

    # A home that is not there fails at once, saying what to run.
    for missing in ("/nonexistent", tmp_path / "nowhere"):
        started = time.perf_counter()
        with pytest.raises(assay.AssayError, match=r"no assay home at .*: run `assay run --home ") as caught:
            assay.open_home(missing)
        assert isinstance(caught.value, CatalogMissing)
        assert time.perf_counter() - started < 1.0
    (tmp_path / "empty").mkdir()
    with pytest.raises(CatalogMissing, match=r"no catalog in .* yet: run `assay run --home "):
        assay.open_home(tmp_path / "empty")

    home = tmp_path / "home"
    build_catalog(Home(home).warehouse, EXTRACTOR_VERSION)
    corpus = assay.open_home(home)
    with pytest.raises(assay.AssayError, match="documentz"):
        corpus.sql("select * from documentz")
    with pytest.raises(assay.AssayError, match="refused"):
        corpus.sql(f"copy (select 1) to '{tmp_path / 'out.csv'}'")
    with pytest.raises(assay.AssayError):
        corpus.text(str(tmp_path / "never-walked.pdf"))
    with pytest.raises(assay.AssayError, match="does not exist"):
        assay.run([tmp_path / "missing"], home=home)
