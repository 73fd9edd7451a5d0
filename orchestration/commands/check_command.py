"""``assay check``: what assay makes of files, stored nowhere; their clean text with ``--to``, and the
exit code of the first file that yields no text."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from orchestration.commands.shared import as_is, json_default
from orchestration.exits import Exit
from orchestration.printing import json_text, shown, visible
from readers.core.errors import AssayError


def check_command(args: argparse.Namespace, console: Console) -> int:
    from assets.settings import settings_from_env
    from orchestration.checkfile import check_file
    from orchestration.summary import program

    paths: list[Path] = args.files
    for path in paths:
        if path.is_dir():
            raise AssayError(
                f"{path} is a folder: `{program()} run {path}` reads a folder and stores the results"
            )
        if not path.is_file():
            raise AssayError(f"{path} is not a file" if path.exists() else f"{path} does not exist")
    settings = settings_from_env()
    outcomes = []
    for number, path in enumerate(paths):
        outcome = check_file(
            path,
            ocr=not args.no_ocr,
            ocr_language=settings.ocr_language,
            budgets=settings.budgets(),
            # The text printed is the one a run stores: its personal data as placeholders.
            scrubber=settings.scrubber() if args.to else None,
        )
        outcomes.append(outcome)
        if not args.json and not args.to:
            if number:
                console.print()
            outcome.print(console, chars=args.chars)
    if args.json:
        found = [o.as_dict() for o in outcomes]
        print(json_text(found[0] if len(found) == 1 else found, indent=2, default=json_default))
    if args.to:
        _print_text(outcomes, args.to, settings.path_redactor())
    # The first file that yields no text says the exit code: why it has none.
    return next((_check_exit(o) for o in outcomes if not o.yields_text), Exit.OK)


def _print_text(outcomes: list[Any], form: str, redact_path: Any) -> None:
    """``check --to``: the files' clean texts on stdout in the export's form, and on stderr why a file
    has none."""
    from orchestration.export import write_stream
    from quality.outcomes import describe

    docs = [o.exported(redact_path) for o in outcomes]
    if form == "json" and len(docs) == 1:  # one file: one object, as `check --json` prints it
        print(json_text(docs[0].as_json(), indent=2))
    else:
        write_stream(docs, sys.stdout, form, shown=visible if sys.stdout.isatty() else as_is)
    err = Console(stderr=True, soft_wrap=True)
    for outcome, doc in zip(outcomes, docs, strict=True):
        if doc.text is None:
            final = outcome.final
            why = describe(final.outcome) + (f" ({final.reason})" if final.reason else "")
            err.print(f"[bold red]assay:[/] {shown(doc.path)} yields no text: {shown(why)}")


def _check_exit(outcome: Any) -> int:
    final = outcome.final
    if final.outcome == "unsupported":
        return Exit.UNSUPPORTED
    if final.outcome == "error" and final.reason == "encrypted":
        return Exit.ENCRYPTED
    return Exit.NO_TEXT
