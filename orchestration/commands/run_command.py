"""``assay run``: walk the paths given (none: the demo corpus), run every stage, and print what the run
did (a summary, one line, or one JSON object)."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from pathlib import Path

from rich.console import Console

from orchestration.commands.shared import json_default
from orchestration.exits import Exit
from orchestration.faults import as_seen_on, fault_in_message, fault_of
from orchestration.printing import json_text, shown
from readers.core.errors import AssayError


def run_command(args: argparse.Namespace, console: Console) -> int:
    from assets.progress import Progress
    from assets.shard_keys import SHARDS_PER_RUN
    from orchestration.home import Home
    from orchestration.live import LiveProgress
    from orchestration.runner import run
    from orchestration.summary import one_line, print_summary, run_report

    home = Home.resolve(args.home)
    home.prepare()  # a home that is a file, read-only or on a full disk says so before anything runs
    paths: list[Path] = list(args.paths)
    for p in paths:
        if not p.exists():
            raise AssayError(f"{p} does not exist: pass a file or a folder to read")
    if args.force and not paths:
        raise AssayError("--force needs the files or folders to read again: `assay run --force PATH`")
    if not paths:
        from orchestration.demo_corpus import write_demo_corpus

        files = write_demo_corpus(home.demo_corpus)
        (Console(stderr=True) if args.json else console).print(
            f"No path given: running on a demo corpus of {len(files)} files assay wrote to "
            f"[bold]{shown(home.demo_corpus)}[/] (run `assay run PATH` for your own files)."
        )
        paths = [home.demo_corpus]
    paths = [p.absolute() for p in paths]
    # What Dagster writes to stderr during the runs (on a full disk: a line per log call it could not
    # store) is held back; it is shown after the run unless the run ended in a fault, then with --verbose.
    held = io.StringIO()
    quiet = args.json or args.quiet
    try:
        with (
            contextlib.nullcontext(Progress()) if quiet else LiveProgress(console) as progress,
            contextlib.redirect_stderr(held),
        ):
            report = run(
                home,
                paths,
                progress,
                shards_per_run=args.shards_per_run or SHARDS_PER_RUN,
                force=args.force,
            )
    except BaseException as exc:
        found = fault_of(exc) if isinstance(exc, Exception) else None
        if args.verbose or found is None:
            sys.stderr.write(held.getvalue())
        if found is not None:
            raise as_seen_on(found, home.path) from exc
        raise
    # A stage that failed because the disk filled up (or the home became unwritable) is a fault of the
    # machine, not of the corpus: its one line and exit code 3, not the summary of a half-written run.
    faults = [
        as_seen_on(f, home.path)
        for f in (fault_in_message(failure.message) for failure in report.failures)
        if f
    ]
    if faults and not args.verbose:
        raise faults[0]
    sys.stderr.write(held.getvalue())
    if faults:
        for failure in report.failures:
            console.print(f"{failure.stage} failed (run {failure.run_id}): {shown(failure.message)}")
        raise faults[0]
    if args.json:
        print(json_text(run_report(home, report, progress), indent=2, default=json_default))
    elif args.quiet:
        console.print(one_line(home, report, progress), soft_wrap=True)
    else:
        print_summary(console, home, report, progress)
    return Exit.OK if report.ok else Exit.FAILED
