"""Real servers for the scale-out tests: a PostgreSQL server and a Dask cluster, both on loopback.

The production configuration (deploy/) runs Dagster against a PostgreSQL server and can send the OCR
stage's steps to a Dask cluster; these context managers start the same programs in a temporary directory,
on free ports, and stop them however the test ends. Every wait is bounded, and a server that does not come
up fails the test with the tail of its own log.

PostgreSQL refuses to run as root: when the tests run as root (CI), its programs run as the ``postgres``
system user that Debian's package creates (``runuser -u postgres --``), in a directory that user owns.
Where PostgreSQL is not installed the calling test is skipped with the package to install.

The Dask executor itself is a setting of the Definitions (``ASSAY_EXECUTOR=dask``,
orchestration/definitions.py); the cluster here is what its runs send their steps to.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
DEPLOY = REPO / "deploy"
POSTGRES_INSTANCE_YAML = DEPLOY / "dagster.postgres.yaml"

# A server gets this long to accept connections: PostgreSQL's initdb and start take about 1 s here, a Dask
# scheduler and two workers about 2.5 s together; far more is room for a loaded CI machine without
# hanging a broken run for long.
STARTUP_TIMEOUT_S = 60
# A stopped server gets this long to exit before its processes are killed.
STOP_TIMEOUT_S = 20
# A Dask cluster whose test was killed before it could stop it shuts itself down: the scheduler after this
# long without a task (the tests' runs follow each other within seconds), then its workers after
# STARTUP_TIMEOUT_S without a scheduler (--death-timeout).
DASK_IDLE_TIMEOUT_S = 120
# Lines of a server's log quoted when it fails to start.
LOG_TAIL_LINES = 40
POLL_S = 0.2

POSTGRES_PACKAGE = "postgresql"
POSTGRES_SYSTEM_USER = "postgres"  # created by Debian's postgresql package
POSTGRES_USER = "assay"
POSTGRES_PASSWORD = "assay-test-password"  # a throwaway server on loopback, deleted after the test

# The environment variables deploy/dagster.postgres.yaml reads its connection from.
PG_ENV = ("DAGSTER_PG_HOST", "DAGSTER_PG_PORT", "DAGSTER_PG_USER", "DAGSTER_PG_PASSWORD", "DAGSTER_PG_DB")


class ServerError(RuntimeError):
    """A test server did not start or stop; the message carries its log's tail."""


def free_port() -> int:
    """A TCP port free on loopback now (the server binds it a moment later; a clash fails loudly)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return f"(no log at {path}: {exc})"
    return "\n".join(text.splitlines()[-lines:]) or "(empty log)"


def wait_for_port(
    port: int, *, timeout: float, process: subprocess.Popen | None, log: Path, what: str
) -> None:
    """Until something accepts connections on 127.0.0.1:``port``; a process that exits first fails."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise ServerError(f"{what} exited with {process.returncode} before listening:\n{log_tail(log)}")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.settimeout(1)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(POLL_S)
    raise ServerError(f"{what} did not listen on 127.0.0.1:{port} within {timeout:.0f} s:\n{log_tail(log)}")


def stop_process_group(process: subprocess.Popen, timeout: float = STOP_TIMEOUT_S) -> None:
    """SIGTERM the process group ``process`` leads (started with ``start_new_session``), then SIGKILL."""
    if process.poll() is not None:
        return
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=timeout)


def start_logged(argv: list[str], *, log: Path, env: Mapping[str, str], cwd: Path) -> subprocess.Popen:
    """Start ``argv`` in its own process group with stdout and stderr into ``log``."""
    with log.open("ab") as out:
        return subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, env=dict(env), cwd=cwd, start_new_session=True
        )


# ----------------------------------------------------------------------------------------------- PostgreSQL


@dataclass(frozen=True, slots=True)
class PostgresServer:
    host: str
    port: int
    user: str
    password: str
    database: str
    log: Path

    def dagster_env(self) -> dict[str, str]:
        """The variables deploy/dagster.postgres.yaml reads, pointing at this server."""
        values = (self.host, str(self.port), self.user, self.password, self.database)
        return dict(zip(PG_ENV, values, strict=True))

    def connect(self, database: str | None = None):
        import psycopg2

        return psycopg2.connect(
            host=self.host,
            port=self.port,
            user=self.user,
            password=self.password,
            dbname=database or self.database,
            connect_timeout=10,
        )


def postgres_bindir() -> Path:
    """The directory of PostgreSQL's server programs; skips the test when PostgreSQL is not installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=_version_key)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).parent
    pytest.skip(f"PostgreSQL is not installed: apt-get install {POSTGRES_PACKAGE}")


def _version_key(path: str) -> tuple[int, ...]:
    version = Path(path).parents[1].name
    return tuple(int(p) for p in version.split(".") if p.isdigit())


@dataclass
class _AsUser:
    """Runs PostgreSQL's programs as the owner of its data directory: ``postgres`` when we are root."""

    prefix: list[str] = field(default_factory=list)
    uid: int | None = None
    gid: int | None = None

    @classmethod
    def for_current_process(cls) -> _AsUser:
        if os.geteuid() != 0:
            return cls()
        try:
            entry = pwd.getpwnam(POSTGRES_SYSTEM_USER)
        except KeyError:
            pytest.skip(
                f"running as root needs the '{POSTGRES_SYSTEM_USER}' user: apt-get install {POSTGRES_PACKAGE}"
            )
        runuser = shutil.which("runuser")
        if runuser is None:
            pytest.skip("running PostgreSQL as root needs runuser (util-linux)")
        return cls([runuser, "-u", POSTGRES_SYSTEM_USER, "--"], entry.pw_uid, entry.pw_gid)

    def own(self, path: Path) -> None:
        if self.uid is not None:
            os.chown(path, self.uid, self.gid)

    def run(self, argv: list[str], *, cwd: Path, log: Path, what: str) -> None:
        try:
            done = subprocess.run(
                [*self.prefix, *argv], cwd=cwd, capture_output=True, text=True, timeout=STARTUP_TIMEOUT_S
            )
        except subprocess.TimeoutExpired as exc:
            raise ServerError(f"{what} took over {STARTUP_TIMEOUT_S} s:\n{log_tail(log)}") from exc
        if done.returncode != 0:
            raise ServerError(
                f"{what} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}\n{log_tail(log)}"
            )


@contextmanager
def postgres_server(database: str = "dagster") -> Iterator[PostgresServer]:
    """A PostgreSQL server on 127.0.0.1 on a free port, with ``database`` created and a password user.

    The data directory is a fresh temporary directory (not pytest's, which the ``postgres`` user could
    not enter), deleted on exit. Durability is switched off (``fsync=off``): a crash loses a test's data.
    """
    bindir = postgres_bindir()
    as_user = _AsUser.for_current_process()
    root = Path(tempfile.mkdtemp(prefix="assay-pg-"))
    data, sockets, log, pwfile = root / "data", root / "sockets", root / "postgres.log", root / "pwfile"
    sockets.mkdir()
    pwfile.write_text(POSTGRES_PASSWORD + "\n", encoding="utf-8")
    log.touch()
    for path in (root, sockets, pwfile, log):
        as_user.own(path)
    port = free_port()
    server = PostgresServer("127.0.0.1", port, POSTGRES_USER, POSTGRES_PASSWORD, database, log)
    pg_ctl = [str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w"]
    started = False
    try:
        initdb = [str(bindir / "initdb"), "-D", str(data), "-U", POSTGRES_USER, "-E", "UTF8", "--no-sync"]
        auth = [f"--pwfile={pwfile}", "--auth-local=trust", "--auth-host=scram-sha-256"]
        as_user.run([*initdb, *auth], cwd=root, log=log, what="initdb")
        options = f"-h 127.0.0.1 -p {port} -k {sockets} -c fsync=off -c synchronous_commit=off"
        start = [*pg_ctl, "-t", str(STARTUP_TIMEOUT_S), "-o", options, "start"]
        as_user.run(start, cwd=root, log=log, what="pg_ctl start")
        started = True
        wait_for_port(port, timeout=STARTUP_TIMEOUT_S, process=None, log=log, what="PostgreSQL")
        conn = server.connect("postgres")
        try:
            conn.autocommit = True  # CREATE DATABASE runs outside a transaction
            with conn.cursor() as cur:
                cur.execute(f'CREATE DATABASE "{database}"')
        finally:
            conn.close()
        yield server
    finally:
        if started:
            stop = [*pg_ctl, "-t", str(STOP_TIMEOUT_S), "-m", "immediate", "stop"]
            try:
                as_user.run(stop, cwd=root, log=log, what="pg_ctl stop")
            except ServerError:
                _kill_postmaster(data)
        shutil.rmtree(root, ignore_errors=True)


def _kill_postmaster(data: Path) -> None:
    """The last resort when ``pg_ctl stop`` fails: the postmaster's pid is the first line of its pid file."""
    with suppress(OSError, ValueError, IndexError, ProcessLookupError):
        pid = int((data / "postmaster.pid").read_text().splitlines()[0])
        os.kill(pid, signal.SIGKILL)


# --------------------------------------------------------------------------------------------------- Dask


@dataclass(frozen=True, slots=True)
class DaskCluster:
    address: str
    worker_pids: dict[str, int]  # worker address -> the pid of the process that runs its tasks
    logs: list[Path]


def worker_environment(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a Dask worker (or the daemon) needs to run assay's steps: the assay home, its
    Dagster instance, and the repository on the import path (the workers import tests.servers)."""
    env = dict(os.environ)
    env.update(
        {
            "ASSAY_HOME": str(home),
            "DAGSTER_HOME": str(home / "dagster"),
            "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p),
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra or {})
    return env


@contextmanager
def dask_cluster(
    env: Mapping[str, str], log_dir: Path, *, workers: int = 2, port: int | None = None
) -> Iterator[DaskCluster]:
    """A Dask scheduler on 127.0.0.1 and ``workers`` workers of one thread each, every process in its own
    process group with ``env``; yields once all workers have joined, kills every group on exit.

    One thread per worker: a step of the OCR stage runs its own pool of Tesseracts, one per core.
    """
    from distributed import Client

    port = port or free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = str(VENV_BIN / "dask")
    log_dir.mkdir(parents=True, exist_ok=True)
    processes: list[subprocess.Popen] = []
    logs = [log_dir / "scheduler.log", *(log_dir / f"worker-{i}.log" for i in range(workers))]
    try:
        argv = [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
        argv += ["--idle-timeout", f"{DASK_IDLE_TIMEOUT_S}s"]
        scheduler = start_logged(argv, log=logs[0], env=env, cwd=log_dir)
        processes.append(scheduler)
        wait_for_port(port, timeout=STARTUP_TIMEOUT_S, process=scheduler, log=logs[0], what="dask scheduler")
        for i in range(workers):
            name, bounded = f"worker-{i}", ["--death-timeout", str(STARTUP_TIMEOUT_S)]
            own = ["--name", name, "--local-directory", str(log_dir / name), "--host", "127.0.0.1"]
            argv = [dask, "worker", address, "--nthreads", "1", "--no-dashboard", *own, *bounded]
            processes.append(start_logged(argv, log=logs[1 + i], env=env, cwd=log_dir))
        with Client(address, timeout=STARTUP_TIMEOUT_S) as client:
            try:
                client.wait_for_workers(workers, timeout=STARTUP_TIMEOUT_S)
            except TimeoutError as exc:
                tails = "\n".join(f"--- {p.name}\n{log_tail(p)}" for p in logs)
                raise ServerError(
                    f"{workers} Dask workers did not join within {STARTUP_TIMEOUT_S} s:\n{tails}"
                ) from exc
            pids = client.run(os.getpid)  # asked of each worker's own process
        yield DaskCluster(address, pids, logs)
    finally:
        for process in reversed(processes):
            stop_process_group(process)


# ------------------------------------------------------------------------------------------ the daemon

# The tag Dagster puts on the runs of a backfill.
BACKFILL_ID_TAG = "dagster/backfill"
# What the daemon logs each time the automation sensor evaluates.
SENSOR_TICKED = "Checking for new runs for sensor: assay_automation"
DAEMON_POLL_S = 1.0


def daemon_until_backfilled(
    instance: dg.DagsterInstance,
    asset: str,
    *,
    workspace: Path,
    env: Mapping[str, str],
    log: Path,
    timeout_s: float,
    after_first_tick: Callable[[], None] | None = None,
    covering: Collection[str] = (),
) -> Any:
    """Run `dagster-daemon` on ``workspace`` until a backfill of ``asset`` emitted meanwhile has finished;
    returns it. ``after_first_tick`` is called once the automation sensor has evaluated once (what the
    sensor then sees is new to it). The daemon is stopped however this ends; a daemon that exits, or no
    finished backfill within ``timeout_s``, fails the test with the tail of its log. With ``covering``,
    see :func:`daemon_until_covered` (this returns the first of its backfills)."""
    return daemon_until_covered(
        instance,
        asset,
        workspace=workspace,
        env=env,
        log=log,
        timeout_s=timeout_s,
        after_first_tick=after_first_tick,
        covering=covering,
    )[0]


def daemon_until_covered(
    instance: dg.DagsterInstance,
    asset: str,
    *,
    workspace: Path,
    env: Mapping[str, str],
    log: Path,
    timeout_s: float,
    after_first_tick: Callable[[], None] | None = None,
    covering: Collection[str] = (),
) -> list[Any]:
    """Run `dagster-daemon` on ``workspace`` until the backfills of ``asset`` emitted meanwhile hold the
    partitions ``covering`` between them and have all finished; returns them, oldest first. A tick during
    ``after_first_tick`` may see part of what it writes and emit a backfill of part of it, the next tick a
    backfill of the rest: the test needs both. Without ``covering``, the first such backfill is enough."""
    before = {b.backfill_id for b in instance.get_backfills()}
    key = dg.AssetKey(asset)
    found: list[Any] = []

    def finished() -> bool:
        mine = [
            b
            for b in instance.get_backfills()
            if b.backfill_id not in before
            and b.asset_backfill_data is not None
            and key in b.asset_backfill_data.target_subset.asset_keys
        ]
        mine.sort(key=lambda b: b.backfill_timestamp)
        held: set[str] = set()
        chosen: list[Any] = []
        for backfill in mine:
            chosen.append(backfill)
            held |= set(
                backfill.asset_backfill_data.target_subset.get_partitions_subset(key).get_partition_keys()
            )
            if set(covering) <= held:
                break
        else:
            return False
        found[:] = chosen
        return all(b.status.value not in ("REQUESTED", "CANCELING") for b in chosen)

    pending = after_first_tick
    daemon = start_logged(
        [str(VENV_BIN / "dagster-daemon"), "run", "-w", str(workspace)], log=log, env=env, cwd=REPO
    )
    try:
        deadline = time.monotonic() + timeout_s
        while pending is not None or not finished():
            if pending is not None and SENSOR_TICKED in log.read_text(errors="replace"):
                pending()
                pending = None
            if daemon.poll() is not None:
                pytest.fail(f"dagster-daemon exited with {daemon.returncode}:\n{log_tail(log)}")
            if time.monotonic() > deadline:
                pytest.fail(f"no finished backfill of {asset} within {timeout_s:g} s:\n{log_tail(log)}")
            time.sleep(DAEMON_POLL_S)
    finally:
        stop_process_group(daemon)
    return found
