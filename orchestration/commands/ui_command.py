"""``assay ui``: the Dagster web UI (and with ``--daemon`` the daemon) over the same definitions and
home, run as a child process until Ctrl-C or SIGTERM."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rich.console import Console

from orchestration.exits import Exit


def ui_command(args: argparse.Namespace, console: Console) -> int:
    from orchestration.home import Home

    home = Home.resolve(args.home)
    home.prepare()
    where = ["-h", args.host, "-p", str(args.port)]
    project = _dg_project()
    cwd = None
    if args.daemon and project is not None:
        # Dagster's supported route to the webserver and the daemon together: `dg dev` in the project.
        command, cwd = [str(Path(sys.executable).with_name("dg")), "dev", *where], project
    elif args.daemon:  # an installed copy without its project folder
        command = [str(Path(sys.executable).with_name("dagster")), "dev", "-m", DEFINITIONS, *where]
    else:
        command = [str(Path(sys.executable).with_name("dagster-webserver")), "-m", DEFINITIONS, *where]
    console.print(
        f"Dagster UI on http://{args.host}:{args.port} over {home.path}"
        + (", with the daemon (schedules, automation, backfills)" if args.daemon else "")
        + " (Ctrl-C to stop)"
    )
    return _serve(command, console, cwd=cwd)


DEFINITIONS = "orchestration.definitions"


def _dg_project() -> Path | None:
    """The project folder when assay runs from it (its pyproject.toml has a ``[tool.dg]`` section) and
    ``dg`` is installed beside this Python; else None."""
    root = Path(__file__).resolve().parents[2]
    pyproject = root / "pyproject.toml"
    if not Path(sys.executable).with_name("dg").is_file() or not pyproject.is_file():
        return None
    return root if "[tool.dg]" in pyproject.read_text(encoding="utf-8") else None


def _serve(command: list[str], console: Console, *, cwd: Path | None = None) -> int:
    """Run the server until it ends; Ctrl-C (SIGINT) or SIGTERM stops it cleanly, with exit code 0.

    The server runs as a child: a SIGTERM sent to this process (a service manager, ``kill``) is passed
    on to it, as Ctrl-C already reaches it through the terminal's process group, and the command waits
    for it to stop."""
    import signal
    import subprocess

    stopped: list[int] = []
    child: subprocess.Popen[bytes] | None = None
    env = dict(os.environ)
    if sys.prefix != sys.base_prefix:  # the project's environment, as `dg` looks for it
        env["VIRTUAL_ENV"] = sys.prefix

    def stop(signum: int, _frame: object) -> None:
        stopped.append(signum)
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    # Caught before the server starts: a signal this process ignores (started in the background by a
    # script, under nohup) would be ignored by the server as well, which then never stops; a caught
    # signal is the default again in the server.
    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        child = subprocess.Popen(command, cwd=cwd, env=env)
        if stopped:  # a signal came while it started
            child.send_signal(stopped[-1])
        code = child.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if stopped:
        console.print("Dagster UI stopped.")
        return Exit.OK
    return code
