"""The tags that tie together the Dagster runs of one ``assay run`` (or ``assay calibrate``), and the runs
page of ``assay ui`` filtered by them.

One command makes several Dagster runs (the walk, the shard stages over their ranges, the vocabulary, the
catalog and the report). Each carries ``assay/run``, one short id per command, and ``assay/command``,
what was run as a person reads it. The UI shows tags outside Dagster's own ``dagster/`` namespace on
every row of its runs list, and its runs page takes a tag filter in its address, written as the UI writes
it when one picks "Add tag to filter" on a tag: ``/runs?q[]=tag:KEY=VALUE``, percent-encoded.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from urllib.parse import urlencode

RUN_TAG = "assay/run"
COMMAND_TAG = "assay/command"
#: Where ``assay ui`` serves the UI when given no --host or --port (orchestration/cli.py).
UI_HOST, UI_PORT = "127.0.0.1", 3000
# The command tag names this many roots at most (the others are counted): a tag is shown whole in the
# runs list, and a long list of paths would fill the row.
COMMAND_ROOTS = 3
# Bytes of randomness of the id: 8 hex digits, enough that two commands on one home never share one.
ID_BYTES = 4


def new_run_id() -> str:
    """A short id for one command's Dagster runs (8 hex digits)."""
    return secrets.token_hex(ID_BYTES)


def run_command(roots: Sequence[str]) -> str:
    """The command tag of ``assay run`` over ``roots``: ``run /data/a /data/b``."""
    shown = " ".join(roots[:COMMAND_ROOTS])
    more = len(roots) - COMMAND_ROOTS
    return f"run {shown}" + (f" and {more} more" if more > 0 else "")


def run_tags(run_id: str, command: str | None = None) -> dict[str, str]:
    """The tags every Dagster run of one command carries."""
    return {RUN_TAG: run_id, **({COMMAND_TAG: command} if command else {})}


def tag_filter(run_id: str) -> str:
    """The tag as the runs list filters by it: ``assay/run=<id>``."""
    return f"{RUN_TAG}={run_id}"


def runs_url(run_id: str, base: str = f"http://{UI_HOST}:{UI_PORT}") -> str:
    """The UI's runs page showing the Dagster runs of one command, and only them."""
    return f"{base}/runs?{urlencode({'q[]': f'tag:{tag_filter(run_id)}'})}"
