"""The exit codes of the ``assay`` command, one table for every command (the README lists them).

A script that drives assay can tell "the corpus has a problem" (1) from "assay could not run here" (3)
from "another run has this home" (4) from "stopped on request" (130, 143): each calls for a different
next step, which the message printed beside it names.
"""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    OK = 0
    # A stage failed or a blocking quality check failed; or the command was given something it cannot use
    # (a query that does not parse, a file that does not exist).
    FAILED = 1
    # The command line itself is wrong (argparse's own code).
    USAGE = 2
    # The machine or the home is in the way: a full disk, a home that is a file or read-only, a missing
    # tool. Nothing was half-written; fix what the message names and rerun.
    ENVIRONMENT = 3
    # Another assay run holds the home's lock (ASSAY_LOCK_WAIT_S says how long to wait for it).
    BUSY = 4
    # Stopped by SIGINT (Ctrl-C) or SIGTERM between two steps: rerun the same command to finish.
    INTERRUPTED = 130
    TERMINATED = 143
