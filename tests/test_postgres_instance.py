"""The production instance (deploy/dagster.postgres.yaml) against a real PostgreSQL server: after a release
that changes one reader, the daemon's automation sensor emits a backfill of exactly the stale shards, which
the daemon drains in runs of at most 32 shards within the run queue's limits, each run in its own process,
and everything it records lands in PostgreSQL."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import docx
import pytest
import yaml

from assets.progress import Progress
from assets.shard_keys import RANGE_END_TAG, RANGE_START_TAG, SHARD_KEYS, SHARDS_PER_RUN, covering_shards
from orchestration.home import Home
from orchestration.runner import run
from readers.core.versions import EXTRACTOR_VERSION
from tests.servers import (
    BACKFILL_ID_TAG,
    DEPLOY,
    POSTGRES_INSTANCE_YAML,
    REPO,
    VENV_BIN,
    daemon_until_backfilled,
    log_tail,
    postgres_server,
    start_logged,
    stop_process_group,
    worker_environment,
)
from warehouse import Warehouse

NOTES = 120  # distinct texts: about 95 of the 256 shards hold one, so the backfill takes several runs
WORD_DOCUMENTS = 12  # their reader does not change: carried over, never read again
BUMP = ".text-reader"  # the released extractor version is the current one plus this
# Runs not yet over: queued, starting, started, cancelling.
ACTIVE = (
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
)
# The tag Dagster puts on a run of one partition.
PARTITION_NAME_TAG = "dagster/partition"
# Seconds between the automation sensor's evaluations in the test (Dagster's default is 30).
SENSOR_INTERVAL_S = 5
# The daemon's backfill loop looks every 30 s (Dagster's fixed interval). On this 2-core machine, busy with
# other tests, a backfill of eight runs completed 120 s after the daemon started, and more than 300 s beside
# a whole second test suite; 900 s leaves room for a loaded machine without letting a stuck backfill hang
# the suite.
BACKFILL_TIMEOUT_S = 900
POLL_S = 1.0


def test_the_deploy_instance_and_the_helm_values_set_the_same_run_limits() -> None:
    instance = yaml.safe_load(POSTGRES_INSTANCE_YAML.read_text(encoding="utf-8"))
    helm = yaml.safe_load((DEPLOY / "helm" / "values.yaml").read_text(encoding="utf-8"))
    local = instance["run_coordinator"]["config"]
    chart = helm["dagsterDaemon"]["runCoordinator"]
    assert instance["run_coordinator"]["class"] == chart["type"] == "QueuedRunCoordinator"
    queued = chart["config"]["queuedRunCoordinator"]
    assert queued["maxConcurrentRuns"] == local["max_concurrent_runs"]
    assert queued["tagConcurrencyLimits"] == local["tag_concurrency_limits"]
    assert queued["dequeueIntervalSeconds"] == local["dequeue_interval_seconds"]
    assert helm["postgresql"]["postgresqlScheme"] == instance["storage"]["postgres"]["postgres_db"]["scheme"]
    assert helm["runLauncher"]["type"] == "K8sRunLauncher"
    deployment = helm["dagster-user-deployments"]["deployments"][0]
    assert deployment["dagsterApiGrpcArgs"] == ["--module-name", "orchestration.definitions"]


@dataclass(frozen=True, slots=True)
class BatchRun:
    run_id: str
    status: dg.DagsterRunStatus
    first: str
    last: str
    started: float
    ended: float
    read: int  # documents the run read (extract's materialization metadata)
    kept: int  # documents it found up to date


@dataclass(frozen=True, slots=True)
class RunLimits:
    max_runs: int
    per_backfill: int


def _run_limits() -> RunLimits:
    """The queue limits deploy/dagster.postgres.yaml sets, read from the file the daemon runs with."""
    config = yaml.safe_load(POSTGRES_INSTANCE_YAML.read_text(encoding="utf-8"))["run_coordinator"]["config"]
    tags = {t["key"]: t["limit"] for t in config["tag_concurrency_limits"]}
    return RunLimits(config["max_concurrent_runs"], tags[BACKFILL_ID_TAG])


@pytest.mark.slow
def test_the_daemon_backfills_a_new_extractor_version_in_batched_runs_on_postgres(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text_shards: set[str] = set()
    for i in range(NOTES):
        text = f"Report {i}: the meter readings of district {i * 7919 % 1000} were checked on day {i}.\n"
        (corpus / f"report-{i:03d}.txt").write_text(text, encoding="utf-8")
        text_shards.add(hashlib.sha256(text.encode()).hexdigest()[:2])
    for i in range(WORD_DOCUMENTS):
        document = docx.Document()
        document.add_paragraph(f"Minutes {i}: the board approved budget line {i * 31} without changes.")
        document.save(corpus / f"minutes-{i:02d}.docx")
    assert len(text_shards) > 2 * SHARDS_PER_RUN

    with postgres_server() as pg:
        # `assay run` and the daemon share one instance: the production file, under the assay home.
        env = worker_environment(
            home,
            {
                **pg.dagster_env(),
                "ASSAY_DAGSTER_YAML": str(POSTGRES_INSTANCE_YAML),
                "ASSAY_ROOTS": str(corpus),
                "ASSAY_AUTOMATION_INTERVAL_SECONDS": str(SENSOR_INTERVAL_S),
                "ASSAY_VERSION_BACKFILL_CRON": "",  # no window: the backfill starts at the next tick
            },
        )
        for name in ("ASSAY_DAGSTER_YAML", "ASSAY_ROOTS", *pg.dagster_env()):
            monkeypatch.setenv(name, env[name])
        report = run(Home(home), [corpus], Progress())
        assert report.ok, report.failures
        instance = dg.DagsterInstance.get()
        try:
            wh = Warehouse(home / "warehouse")
            docx_shards = {
                s for s, sha in wh.columns("documents", EXTRACTOR_VERSION, ("shard", "sha256"))
            } - text_shards
            # The release: the daemon first learns the running code's versions, then loads the new code.
            _daemon_until_quiet(pg, instance, DEPLOY / "workspace.yaml", env, tmp_path / "before.log")
            bumped = _bumped_workspace(tmp_path)
            backfill = daemon_until_backfilled(
                instance,
                "extract",
                workspace=bumped,
                env=env,
                log=tmp_path / "after.log",
                timeout_s=BACKFILL_TIMEOUT_S,
            )
            assert backfill.status.value == "COMPLETED_SUCCESS"
            # The backfill asked for the blocks of shards holding notes, whose reader changed.
            target = backfill.asset_backfill_data.target_subset
            requested = set(target.get_partitions_subset(dg.AssetKey("extract")).get_partition_keys())
            assert requested == covering_shards(text_shards)
            runs = _batch_runs(instance, backfill.backfill_id)
            # The backfill also holds the stages after extract that the same evaluation asked for.
            every_run = {
                r.dagster_run.run_id
                for r in instance.get_run_records(
                    filters=dg.RunsFilter(tags={BACKFILL_ID_TAG: backfill.backfill_id})
                )
            }
        finally:
            instance.dispose()

        assert len(text_shards) // SHARDS_PER_RUN <= len(runs) <= len(SHARD_KEYS) // SHARDS_PER_RUN
        for batch in runs:
            assert batch.status == dg.DagsterRunStatus.SUCCESS, batch
            keys = SHARD_KEYS[SHARD_KEYS.index(batch.first) : SHARD_KEYS.index(batch.last) + 1]
            assert 0 < len(keys) <= SHARDS_PER_RUN
        # Every note read again under the new version, no Word document: those were carried over.
        assert sum(r.read for r in runs) == NOTES
        limits = _run_limits()
        assert 1 <= _most_at_once(runs) <= min(limits.per_backfill, limits.max_runs)

        # Everything the runs recorded is in PostgreSQL: their rows, tags and events; no SQLite file.
        _assert_recorded_in_postgres(pg, backfill.backfill_id, every_run)
        assert {r.run_id for r in runs} < every_run
        assert not list((home / "dagster").rglob("*.db"))

        # The older version's rows stay; the new version has every document, the Word ones carried over.
        new = f"{EXTRACTOR_VERSION}{BUMP}"
        assert len(wh.keys_by_shard("derivations", EXTRACTOR_VERSION)) == len(text_shards | docx_shards)
        carried = wh.columns("derivations", new, ("kind", "carried_from"))
        assert sorted(k for k, _ in carried) == ["docx"] * WORD_DOCUMENTS + ["text"] * NOTES
        assert {c for k, c in carried if k == "docx"} == {EXTRACTOR_VERSION}
    print(f"\n{len(runs)} runs over {len(text_shards)} shards, at most {_most_at_once(runs)} at once")


def _bumped_workspace(tmp: Path) -> Path:
    """The code after a release that changed the plain-text reader: its revision and the extractor version
    move. The module is loaded by the daemon's code server and by every run it launches, under the same
    location name as deploy/workspace.yaml, so the automation sees one location whose code changed."""
    module = tmp / "released.py"
    module.write_text(
        "import readers.core.versions\n"
        f"readers.core.versions.EXTRACTOR_VERSION = {EXTRACTOR_VERSION + BUMP!r}\n"
        "from readers.text.plain import PlainTextReader\n"
        "PlainTextReader.revision += 1\n"
        "from orchestration.definitions import defs  # noqa: E402,F401\n",
        encoding="utf-8",
    )
    workspace = tmp / "workspace.yaml"
    workspace.write_text(
        yaml.safe_dump(
            {
                "load_from": [
                    {
                        "python_file": {
                            "relative_path": str(module),
                            "working_directory": str(REPO),
                            "location_name": "assay",
                        }
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    return workspace


def _automation_ticks(pg) -> int:
    """The automation sensor's ticks the daemon recorded (its rows in PostgreSQL's ``job_ticks``)."""
    conn = pg.connect()
    try:
        with conn.cursor() as cur:
            cur.execute("select count(*) from job_ticks where tick_body like %s", ("%assay_automation%",))
            return cur.fetchone()[0]
    finally:
        conn.close()


def _busy(instance: dg.DagsterInstance) -> bool:
    active = instance.get_runs(filters=dg.RunsFilter(statuses=list(ACTIVE)), limit=1)
    pending = [b for b in instance.get_backfills() if b.status.value == "REQUESTED"]
    return bool(active or pending)


def _daemon_until_quiet(
    pg, instance: dg.DagsterInstance, workspace: Path, env: dict[str, str], log: Path
) -> None:
    """Run the daemon until the automation sensor has ticked twice and nothing is queued or running: it
    has recorded the code versions it evaluated, and whatever its first ticks asked for is done."""
    daemon = start_logged(
        [str(VENV_BIN / "dagster-daemon"), "run", "-w", str(workspace)], log=log, env=env, cwd=REPO
    )
    try:
        _wait(
            lambda: _automation_ticks(pg) >= 2 and not _busy(instance),
            daemon,
            log,
            "the automation sensor to tick twice with nothing left running",
        )
    finally:
        stop_process_group(daemon)


def _wait(done, daemon, log: Path, what: str) -> None:
    deadline = time.monotonic() + BACKFILL_TIMEOUT_S
    while time.monotonic() < deadline:
        if done():
            return
        if daemon.poll() is not None:
            pytest.fail(f"dagster-daemon exited with {daemon.returncode}:\n{log_tail(log)}")
        time.sleep(POLL_S)
    pytest.fail(f"waited {BACKFILL_TIMEOUT_S} s for {what}:\n{log_tail(log)}")


def _batch_runs(instance: dg.DagsterInstance, backfill_id: str) -> list[BatchRun]:
    runs: list[BatchRun] = []
    for record in instance.get_run_records(filters=dg.RunsFilter(tags={BACKFILL_ID_TAG: backfill_id})):
        run = record.dagster_run
        if dg.AssetKey("extract") not in (run.asset_selection or set()):
            continue  # a run of a later stage in the same backfill
        # Each shard of the run has its own materialization of extract with its own figures
        # (assets/materializations.py): the run read and kept their sum.
        events = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)
        shards = [
            m.metadata
            for e in events
            if (m := e.asset_materialization) is not None and m.asset_key == dg.AssetKey("extract")
        ]
        runs.append(
            BatchRun(
                run_id=run.run_id,
                status=run.status,
                # A run of one shard is tagged with its partition rather than a range.
                first=run.tags.get(RANGE_START_TAG) or run.tags[PARTITION_NAME_TAG],
                last=run.tags.get(RANGE_END_TAG) or run.tags[PARTITION_NAME_TAG],
                started=record.start_time or 0.0,
                ended=record.end_time or 0.0,
                read=sum(m["read"].value for m in shards if "read" in m),
                kept=sum(m["kept"].value for m in shards if "kept" in m),
            )
        )
    return sorted(runs, key=lambda r: r.first)


def _most_at_once(runs: list[BatchRun]) -> int:
    """The most runs in progress at one moment, from their recorded start and end times."""
    edges = sorted([(r.started, 1) for r in runs] + [(r.ended, -1) for r in runs], key=lambda e: (e[0], e[1]))
    now = most = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


def _assert_recorded_in_postgres(pg, backfill_id: str, run_ids: set[str]) -> None:
    conn = pg.connect()
    try:
        with conn.cursor() as cur:
            cur.execute(
                "select run_id from run_tags where key = %s and value = %s", (BACKFILL_ID_TAG, backfill_id)
            )
            assert {row[0] for row in cur.fetchall()} == run_ids
            cur.execute(
                "select count(*) from runs where run_id = any(%s) and status = 'SUCCESS'", (list(run_ids),)
            )
            assert cur.fetchone()[0] == len(run_ids)
            cur.execute(
                "select count(distinct partition) from event_logs"
                " where run_id = any(%s) and dagster_event_type = 'ASSET_MATERIALIZATION'",
                (list(run_ids),),
            )
            assert cur.fetchone()[0] == len(SHARD_KEYS)
    finally:
        conn.close()
