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
    # `assay check`: the file yields no text. It was read, but neither its readers, a repair nor OCR gave
    # it text (underivable), or reading it failed (a broken file).
    NO_TEXT = 5
    # `assay check`: the file is encrypted and the empty password does not open it.
    ENCRYPTED = 6
    # `assay check`: no reader takes the file's kind.
    UNSUPPORTED = 7
    # Stopped by SIGINT (Ctrl-C) or SIGTERM between two steps: rerun the same command to finish.
    INTERRUPTED = 130
    TERMINATED = 143


#: The exit codes as ``assay --help`` lists them (the README's table says the same).
HELP = """exit codes:
  0    done; for check: every file yields text
  1    a stage or a blocking quality check failed, or the command was given something it cannot use
  2    the command line is wrong
  3    the machine or the home is in the way (a full disk, a read-only home, a missing tool)
  4    another run holds the home
  5    check: a file yields no text (underivable, or reading it failed)
  6    check: a file is encrypted
  7    check: no reader takes a file's kind
  130  stopped by Ctrl-C; 143 stopped by SIGTERM: rerun the same command to finish"""
