"""``assay export``: each document's clean text written into a folder, or to standard output."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from orchestration.commands.shared import as_is, existing_home
from orchestration.exits import Exit
from orchestration.printing import shown, visible


def export_command(args: argparse.Namespace, console: Console) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from assets.settings import settings_from_env
    from orchestration.export import STDOUT, check_form, documents, export, select, write_stream
    from orchestration.summary import program

    check_form(args.to, raw=args.raw, chunks=args.chunks)
    to_stdout = args.output == STDOUT
    if to_stdout:  # the texts are the output: what is said of them goes to stderr
        console = Console(stderr=True, soft_wrap=True)
    home = existing_home(args.home)
    shas = select(home.warehouse, paths=args.paths, pattern=args.glob, where=args.where)
    if not shas:
        console.print('No document matches: `assay sql "select path from documents"` lists them.')
        return Exit.FAILED
    # names and paths as the sanitized tables show them: their personal data as placeholders
    redact_path = settings_from_env().path_redactor()
    columns = (TextColumn("export"), BarColumn(), MofNCompleteColumn(), TextColumn("documents"))
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task("export", total=len(shas))
        if to_stdout:
            docs = documents(home.warehouse, shas, raw=args.raw, chunks=args.chunks, redact_path=redact_path)
            report = write_stream(
                docs,
                sys.stdout,
                args.to,
                shown=visible if sys.stdout.isatty() else as_is,
                progress=lambda: bar.advance(task),
            )
        else:
            report = export(
                home.warehouse,
                Path(args.output),
                args.to,
                shas,
                raw=args.raw,
                chunks=args.chunks,
                progress=lambda: bar.advance(task),
                redact_path=redact_path,
            )
    if to_stdout:
        console.print(f"Exported {len(shas)} documents to standard output ({args.to}).")
    else:
        what = "one JSON Lines file" if args.to == "jsonl" else f"{len(report.written)} {args.to} files"
        console.print(f"Exported {len(shas)} documents: {what} in [bold]{shown(args.output)}[/].")
    if report.without_text:
        left = "are in it with their status" if args.to == "jsonl" else "were left out"
        count = len(report.without_text)
        console.print(f"{count} {'has' if count == 1 else 'have'} no text and {left}:")
        for path in report.without_text[:5]:
            console.print(f"  {shown(path)}: {shown(report.why.get(path, ''))}", soft_wrap=True)
        if len(report.without_text) > 5:
            console.print(f"  … and {len(report.without_text) - 5} more")
        home_option = f" --home {shown(str(home.path))}" if args.home else ""
        console.print(
            f"  why: {program()} sql{home_option} "
            '"select path, outcome, reason from outcomes where sha256 not in (select sha256 from texts)"',
            soft_wrap=True,
        )
    return Exit.OK
