"""The fixed cost of small runs, as work done rather than seconds: what `assay check` imports, and how many
Dagster runs `assay run` makes for one file, for a file added later and for a rerun with nothing changed."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from assets.progress import Progress
from assets.shard_keys import SHARD_KEYS
from orchestration.document_builders import make_text_pdf
from orchestration.home import Home
from orchestration.runner import run
from tests.servers import REPO

WORDS = "The treatment plant reported its unit consumption to the board every quarter of the year."

# What `assay check` on a PDF must not import: the orchestrator, and the readers (and their libraries) of
# the kinds the file is not.
NOT_IMPORTED_BY_CHECK = (
    "dagster",
    "openpyxl",
    "pptx",
    "docx",
    "trafilatura",
    "readers.office.xlsx",
    "readers.html.main",
)


def test_check_imports_no_dagster_and_no_reader_of_another_kind(tmp_path: Path) -> None:
    pdf = make_text_pdf(tmp_path / "one.pdf", [WORDS])
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from orchestration.checkfile import check_file\n"
        f"outcome = check_file(Path({str(pdf)!r}), ocr=False)\n"
        f"print(json.dumps([outcome.derivation.status, [m for m in {list(NOT_IMPORTED_BY_CHECK)!r} "
        "if m in sys.modules]]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300, check=True
    )
    status, imported = json.loads(done.stdout.strip().splitlines()[-1])
    assert status == "derived"
    assert imported == []


def _jobs(home: Path, since: int) -> list[str]:
    instance = dg.DagsterInstance.from_config(str(home / "dagster"))
    try:
        records = instance.get_run_records(order_by="create_timestamp", ascending=True)
        return [r.dagster_run.job_name for r in records[since:]]
    finally:
        instance.dispose()


def test_one_file_is_three_dagster_runs_and_a_rerun_with_nothing_changed_is_one(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    make_text_pdf(corpus / "one.pdf", [WORDS])
    home = Home(tmp_path / "home")

    first = run(home, [corpus], Progress())
    assert first.ok, first.failures
    assert first.runs == 3
    assert _jobs(home.path, 0) == ["assay_walk", "assay_shards", "assay_corpus"]

    # A new file: its shard through every stage in one run, then the catalog again.
    make_text_pdf(corpus / "two.pdf", [WORDS.replace("quarter", "month")])
    added = run(home, [corpus], Progress())
    assert added.ok, added.failures
    assert _jobs(home.path, 3) == ["assay_walk", "assay_shards", "assay_corpus"]

    # Nothing changed: the walk, and nothing after it.
    again = run(home, [corpus], Progress())
    assert again.ok and again.runs == 1 and _jobs(home.path, 6) == ["assay_walk"]


def _text_in_shard(shard: str, n: int) -> str:
    """A line of text whose bytes' sha256 begins with ``shard``: its document is in that shard."""
    for i in range(100_000):
        text = f"{WORDS} Entry {n}-{i}.\n"
        if hashlib.sha256(text.encode()).hexdigest().startswith(shard):
            return text
    raise AssertionError(f"no text found for shard {shard}")


@pytest.mark.slow
def test_shards_far_apart_take_ranges_and_shards_filling_the_keys_take_one_run(tmp_path: Path) -> None:
    far = tmp_path / "far"
    far.mkdir()
    (far / "a.txt").write_text(_text_in_shard("01", 0))
    (far / "b.txt").write_text(_text_in_shard("fe", 1))
    home = Home(tmp_path / "home")
    apart = run(home, [far], Progress())
    assert apart.ok, apart.failures
    # Extract over each range, the vocabulary, the later stages over each range: not one run over the
    # 200-odd empty shards between.
    assert _jobs(home.path, 0) == ["assay_walk", *["assay_shards"] * 2, "assay_vocabulary"] + [
        "assay_shards"
    ] * 2 + ["assay_corpus"]

    dense = tmp_path / "dense"
    dense.mkdir()
    # Every fourth shard: eight ranges of 32 keys, run twice, would cost more than one run over them all.
    for n, shard in enumerate(SHARD_KEYS[::4]):
        (dense / f"{n:02}.txt").write_text(_text_in_shard(shard, n))
    other = Home(tmp_path / "other")
    together = run(other, [dense], Progress())
    assert together.ok, together.failures
    assert _jobs(other.path, 0) == ["assay_walk", "assay_shards", "assay_corpus"]
