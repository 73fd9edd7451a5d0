"""``assay run`` killed with SIGKILL in the middle of extracting, run again and killed in the middle of
judging, then run again on the same home, ends exactly where an uninterrupted run ends, with no partial or
temporary file left in the warehouse."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from assets.extract.asset import EXTRACT_TABLES
from assets.stages import graph
from readers.core.versions import EXTRACTOR_VERSION
from tests.corpus_rows import differences, home_rows, start_run, write_corpus
from warehouse import Warehouse
from warehouse.store import PART_FILE

# The uninterrupted run goes beside the killed ones; the whole took 80 to 120 s on a 2-core machine busy
# with other work.
RUN_TIMEOUT_S = 400
# How long a run may take to reach the stage it is to be killed in.
STAGE_START_TIMEOUT_S = 180
# How often the warehouse is looked at meanwhile: writing extract's four partitions of a shard (each
# fsynced) took 17 to 40 ms here for a shard of two four-page reports, so the kill lands among them.
POLL_S = 0.002
# How long the killed run's processes may take to disappear once SIGKILL is sent.
REAP_TIMEOUT_S = 10
# How long a builder may take to start its first build (an interpreter importing DuckDB and pyarrow).
BUILDER_START_TIMEOUT_S = 60
# Kills of a builder before one lands between its temporary file appearing and its rename: each build
# keeps its temporary for about 0.25 s of the few milliseconds between two builds, so one kill is enough
# nearly always.
BUILDER_KILLS = 5

# The DuckDB files of a warehouse, each rebuilt for ever by a process of its own until it is killed.
BUILDER_SETUP = "from pathlib import Path\nfrom warehouse import Warehouse\nwh = Warehouse(Path({root!r}))\n"
BUILDERS = {
    "catalog": "from warehouse.duckdb_catalog import build_catalog\nwhile True: build_catalog(wh, 'v1')",
    "search index": (
        "from warehouse.search import build_index, index_path\n"
        "while True: build_index([], {}, index_path(wh))"
    ),
}

VERDICT_TABLES = graph().by_name["verdicts"].writes


def leftovers(warehouse: Path) -> list[Path]:
    """Files a writer left half done: temporaries (``.name...tmp``), DuckDB write-ahead logs, hidden files."""
    return sorted(
        p
        for p in warehouse.rglob("*")
        if p.is_file() and (p.name.startswith(".") or p.name.endswith((".tmp", ".wal")))
    )


def unreadable_parts(warehouse: Path) -> list[Path]:
    """Partition files that are not whole Parquet files."""
    bad = []
    for path in sorted(warehouse.rglob(PART_FILE)):
        try:
            pq.ParquetFile(path).read()
        except Exception:  # any failure to read the file whole is what this looks for
            bad.append(path)
    return bad


@dataclass(frozen=True, slots=True)
class StageProgress:
    """What a stage has written so far: the shards with all of its tables' partitions in place, and the
    torn ones, with some of them in place and not the others."""

    whole: frozenset[str]
    torn: frozenset[str]

    @classmethod
    def of(cls, warehouse: Warehouse, tables: Sequence[str]) -> StageProgress:
        written = [set(warehouse.shards(table, EXTRACTOR_VERSION)) for table in tables]
        whole = set.intersection(*written)
        return cls(frozenset(whole), frozenset(set.union(*written) - whole))


def kill_with_a_torn_shard(home: Path, root: Path, tables: Sequence[str], hash_seed: str) -> StageProgress:
    """Start ``assay run`` and SIGKILL it once one shard of the stage writing ``tables`` is whole and
    another torn: in the middle of the stage, and of a shard's writes, whatever their order (the state an
    ill-ordered write leaves wrong). Returns what the stage had written."""
    warehouse = Warehouse(home / "warehouse")
    deadline = time.monotonic() + STAGE_START_TIMEOUT_S
    with start_run(home, root, hash_seed=hash_seed) as run:
        while True:
            progress = StageProgress.of(warehouse, tables)
            if progress.whole and progress.torn:
                break
            assert run.process.poll() is None, "the run ended before the kill"
            assert time.monotonic() < deadline, "the stage did not start in time"
            time.sleep(POLL_S)
        run.kill()
    wait_for_group_gone(run.process.pid)
    return StageProgress.of(warehouse, tables)


def wait_for_group_gone(pgid: int) -> None:
    """Until no process of the killed run's group is left (its reader workers included), so that nothing
    of it can still write while the rerun works."""
    deadline = time.monotonic() + REAP_TIMEOUT_S
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        assert time.monotonic() < deadline, "processes of the killed run are still alive"
        time.sleep(0.05)


@pytest.mark.slow
def test_sigkill_mid_stage_then_rerun_ends_like_an_uninterrupted_run(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", reports=30, notes=10, pages=4)
    with start_run(tmp_path / "uninterrupted", corpus.root, hash_seed="1") as reference:
        home = tmp_path / "killed"
        warehouse = Warehouse(home / "warehouse")

        # Killed in the middle of extract: some shards extracted, not all, and nothing after extract ran.
        extracted = kill_with_a_torn_shard(home, corpus.root, EXTRACT_TABLES, hash_seed="2").whole
        holding = set(warehouse.shards("documents", EXTRACTOR_VERSION))
        assert len(holding) >= 15  # the documents are spread over many shards
        assert extracted and extracted < holding, (sorted(extracted), sorted(holding))
        assert not any(warehouse.shards(t, EXTRACTOR_VERSION) for t in VERDICT_TABLES)
        assert not warehouse.catalog_path.exists()
        assert unreadable_parts(warehouse.root) == []  # whatever was renamed into place is whole

        # The rerun killed in its turn, in the middle of verdicts (extract finished first).
        judged = kill_with_a_torn_shard(home, corpus.root, VERDICT_TABLES, hash_seed="3").whole
        paged = set(warehouse.shards("pages", EXTRACTOR_VERSION))
        assert paged == holding and judged and judged < paged, (sorted(judged), sorted(paged))
        assert unreadable_parts(warehouse.root) == []
        left = leftovers(warehouse.root)

        with start_run(home, corpus.root, hash_seed="4") as last:
            output = last.wait(RUN_TIMEOUT_S)
        reference.wait(RUN_TIMEOUT_S)
        if left:  # a kill caught a write in the middle: the last rerun says it cleaned up after it
            assert f"removed {len(left)} temporary files" in output, (left, output)
        assert leftovers(warehouse.root) == []
        assert unreadable_parts(warehouse.root) == []
        rerun, uninterrupted = home_rows(home, corpus.root), home_rows(reference.home, corpus.root)
        assert len(uninterrupted.view("derivations").rows) == corpus.documents
        assert len(uninterrupted.view("pages").rows) >= corpus.reports * 4
        assert differences(rerun, uninterrupted) == []
        assert rerun == uninterrupted


@pytest.mark.parametrize("builder", list(BUILDERS))
def test_a_duckdb_file_killed_while_built_leaves_a_temporary_the_next_run_removes(
    tmp_path: Path, builder: str
) -> None:
    warehouse = Warehouse(tmp_path / "warehouse")
    code = BUILDER_SETUP.format(root=str(warehouse.root)) + BUILDERS[builder]
    for _ in range(BUILDER_KILLS):
        process = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
        try:
            deadline = time.monotonic() + BUILDER_START_TIMEOUT_S
            while not leftovers(warehouse.root):
                assert process.poll() is None, f"the {builder} builder stopped"
                assert time.monotonic() < deadline, f"the {builder} builder did not start"
                time.sleep(POLL_S)
        finally:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        left = leftovers(warehouse.root)
        if left:
            break
    assert left, f"no kill of the {builder} builder caught it building"
    assert warehouse.remove_stale_temporaries() == len(left)
    assert leftovers(warehouse.root) == []
