"""The ``assay`` command line.

    assay run [PATH ...]        walk, extract and catalog (no PATH: a demo corpus assay writes itself)
    assay check FILE [--json]   what assay makes of one file; stores nothing (--to md|txt|json: its text)
    assay sql "QUERY"           read the catalog (--csv, --json, --limit N, --timeout SECONDS)
    assay search "QUERY"        full-text search (BM25) over the chunks (--limit N, --json)
    assay export [PATH ...]     each document's clean text into a folder, or stdout (--output -)
    assay lineage PATH|SHA256   what happened to one document (--format text|json|mermaid)
    assay redactions            each redaction judged from its context (--precision: figures per kind)
    assay ui [--daemon]         the Dagster web UI over the same definitions and data (and the daemon)
    assay facts [--generated]   pass rates of the facts about the dev corpus (and generated documents)
    assay eval [--gate]         every measure on the shared corpus, per kind; --gate: against the baseline

All state lives under one home directory: --home, else ASSAY_HOME, else ./.assay. The exit codes are in
orchestration/exits.py; a fault of the machine or the home (a full disk, a home that is a file or
read-only) is one line saying what to do and exit code 3, with the traceback only under --verbose.

This module holds the parser and the exit on an error; each command is a module of
orchestration/commands/ (``assay eval``'s: orchestration/evaluation/command.py).
"""

from __future__ import annotations

import argparse
import difflib
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from assets.lock import HomeBusy
from orchestration.commands.calibrate_command import calibrate_command
from orchestration.commands.catalog_commands import (
    lineage_command,
    redactions_command,
    search_command,
    sql_command,
)
from orchestration.commands.check_command import check_command
from orchestration.commands.doctor_command import doctor_command
from orchestration.commands.export_command import export_command
from orchestration.commands.facts_command import facts_command
from orchestration.commands.run_command import run_command
from orchestration.commands.ui_command import ui_command
from orchestration.exits import Exit
from orchestration.faults import fault_of
from orchestration.printing import shown
from readers.core.errors import AssayError
from readers.core.versions import EXTRACTOR_VERSION
from warehouse.warehouse_errors import WarehouseError

# `assay sql`'s default rows and seconds, measured (docs/decisions.md, "The command line and the machine")
SQL_ROWS = 10_000
SQL_TIMEOUT_S = 300

EXAMPLE_QUERY = "select kind, status, count(*) as documents from derivations group by all order by all"

RUN_DESCRIPTION = """\
Walk the files and folders given, read every document, judge each page, OCR what needs it, sanitize and
chunk the text, and catalog it all; a second run takes only what changed.

Where the results go: the home (--home, else $ASSAY_HOME, else ./.assay) holds them.
  HOME/warehouse/tables/          the tables, as Parquet (docs/tables.md says what each holds)
  HOME/warehouse/catalog.duckdb   DuckDB views over them, read by
      assay sql "select path, outcome, reason from outcomes"     any read-only query
      assay export --output DIR   (or --output - for stdout)     each document's clean text
      assay search "words", assay lineage PATH
      assay.open_home("HOME").documents().df()                   in Python
  HOME/reports/                   the quality report's plots
  HOME/dagster/                   the Dagster runs and asset checks, shown by `assay ui`
The run ends with a summary of what it did and the commands to look further."""


class _Parser(argparse.ArgumentParser):
    """The top parser: a mistyped command gets "did you mean" (argparse's own suggest_on_error is
    Python 3.14's), and exit code 2 as any usage error."""

    commands: tuple[str, ...] = ()

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        given = list(sys.argv[1:] if args is None else args)
        word = _command_word(given)
        if word is not None and word not in self.commands:
            close = difflib.get_close_matches(word, self.commands, n=3, cutoff=0.6)
            if close:
                self.error(f"unknown command {word!r}: did you mean {' or '.join(map(repr, close))}?")
        return super().parse_known_args(args, namespace)


def _command_word(args: Sequence[str]) -> str | None:
    """The command among the arguments: the first that is neither an option nor ``--home``'s value."""
    value_next = False
    for token in args:
        if value_next:
            value_next = False
        elif token == "--":
            return None
        elif token.startswith("-"):
            # --home takes a value (--hom, --ho: argparse's abbreviations), unless given as --home=H.
            value_next = len(token) > 3 and "--home".startswith(token)
        else:
            return token
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return Exit.USAGE
    console = Console() if sys.stdout.isatty() else Console(width=120)
    try:
        return args.func(args, console)
    except Exception as exc:
        return _failed(exc, verbose=args.verbose)
    except KeyboardInterrupt as exc:  # orchestration.stopping.Interrupted says which signal
        Console(stderr=True).print(
            "[yellow]interrupted[/]: rerun the same command to finish; nothing is lost."
        )
        return getattr(exc, "exit_code", Exit.INTERRUPTED)


def _failed(exc: Exception, *, verbose: bool) -> int:
    """One line on stderr for what stopped the command, and its exit code (the traceback if verbose)."""
    err = Console(stderr=True, soft_wrap=True)
    if verbose:
        traceback.print_exception(exc, file=sys.stderr)
    fault = fault_of(exc)
    if fault is not None:
        err.print(f"[bold red]assay:[/] {shown(fault)}")
        return fault.exit_code
    if isinstance(exc, AssayError | WarehouseError):
        err.print(f"[bold red]assay:[/] {shown(exc)}")
        return Exit.BUSY if isinstance(exc, HomeBusy) else Exit.FAILED
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    err.print(
        f"[bold red]assay: unexpected {shown(type(exc).__name__)}[/]: {shown(first)}"
        + ("" if verbose else " (rerun with --verbose for the traceback)")
    )
    return Exit.FAILED


_VERBOSE_HELP = "print the traceback of an error, and each failed run's own message"
_HOME_HELP = "state directory (default: $ASSAY_HOME or ./.assay); before or after the command"


def _parser() -> argparse.ArgumentParser:
    from orchestration.exits import HELP

    parser = _Parser(
        prog="assay",
        description="Text you can trust, page by page.",
        epilog=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"assay (extractor {EXTRACTOR_VERSION})")
    parser.add_argument("--verbose", action="store_true", help=_VERBOSE_HELP)
    # Also accepted after the command (`assay sql --home H`); there SUPPRESS keeps the global one.
    parser.add_argument("--home", default=None, help=_HOME_HELP)
    # Also accepted after the command (`assay run --verbose`); SUPPRESS keeps the global one otherwise.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS, help=_VERBOSE_HELP)
    sub = parser.add_subparsers(dest="command", parser_class=argparse.ArgumentParser)

    def command(name: str, **kwargs: Any) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], **kwargs)

    def with_home(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument("--home", default=argparse.SUPPRESS, help=_HOME_HELP)
        return p

    p = with_home(
        command(
            "run",
            help="walk, extract and catalog a folder (default: a demo corpus)",
            description=RUN_DESCRIPTION,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    )
    p.add_argument("paths", nargs="*", type=Path, help="files or folders to read")
    shown_as = p.add_mutually_exclusive_group()
    shown_as.add_argument(
        "--json", action="store_true", help="no progress bars; print one JSON object: what the run did"
    )
    shown_as.add_argument(
        "--quiet", action="store_true", help="no progress bars; one line at the end (errors still shown)"
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="derive the documents at or under PATH again, through every stage, though their bytes did "
        "not change (after installing a tool, say)",
    )
    p.add_argument(
        "--shards-per-run",
        type=int,
        default=None,
        help="shards per Dagster run where one run over all does not pay (default 32)",
    )
    p.set_defaults(func=run_command)

    p = command(
        "check",
        help="what assay makes of files; stores nothing; exits 5 (no text), 6 (encrypted) or 7 "
        "(unsupported) for the first file that yields no text",
        epilog=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "files", type=Path, nargs="+", metavar="FILE", help="files to check (a folder: `assay run`)"
    )
    printed = p.add_mutually_exclusive_group()
    printed.add_argument(
        "--json", action="store_true", help="print one JSON object (several files: an array)"
    )
    printed.add_argument(
        "--to",
        choices=("md", "txt", "json", "jsonl"),
        default=None,
        help="print only the file's clean text, personal data as placeholders, as `assay export --to` "
        "writes it (md: with a front matter of its pages; txt: the text alone; json, jsonl: the export's "
        "objects); no text: nothing printed, the reason on stderr, exit code 5",
    )
    p.add_argument("--chars", type=int, default=400, help="characters of text to show per page")
    p.add_argument("--no-ocr", action="store_true", help="leave Tesseract out (faster on scans)")
    p.set_defaults(func=check_command)

    p = with_home(command("sql", help="run a read-only query against the catalog"))
    p.add_argument("query")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="print CSV")
    fmt.add_argument("--json", action="store_true", help="print one JSON array of row objects")
    p.add_argument(
        "--limit",
        type=_count,
        default=SQL_ROWS,
        metavar="N",
        help=f"rows to print (default {SQL_ROWS:,}; 0: every row); a line says when there were more",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=SQL_TIMEOUT_S,
        metavar="SECONDS",
        help=f"stop the query after this long (default {SQL_TIMEOUT_S}; 0: no limit)",
    )
    p.add_argument(
        "--allow-external",
        action="store_true",
        help="let the query reach files outside the warehouse and run any statement: it can then WRITE "
        "files, the warehouse's own included (COPY ... TO, EXPORT, ATTACH, INSTALL, read_csv)",
    )
    p.set_defaults(func=sql_command)

    p = with_home(command("search", help="full-text search (BM25) over the chunks"))
    p.add_argument("query", help="words to find; the chunks holding them as a phrase come first")
    p.add_argument("--limit", type=int, default=10, help="chunks to show (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON array of hits")
    p.set_defaults(func=search_command)

    p = with_home(
        command("export", help="write each document's clean text into a folder (Markdown, text or JSON)")
    )
    p.add_argument(
        "paths", nargs="*", type=Path, help="only the documents walked under these files or folders"
    )
    p.add_argument(
        "--to",
        choices=("md", "txt", "json", "jsonl"),
        default="md",
        help="md: text with a front matter of its pages (default); txt: the text alone; json: one object "
        "per document; jsonl: one file, one object per line (the schema: docs/export.schema.json)",
    )
    p.add_argument(
        "--output",
        default="assay-export",
        help="folder to write into; - writes to standard output (md, txt: one after the other, each "
        "under a line ==> path <== when there are several; jsonl: its lines; json: one array)",
    )
    p.add_argument("--glob", help="only documents whose path matches this pattern ('*.pdf', 'reports/*')")
    p.add_argument("--where", help="only documents for which this SQL condition holds (\"kind = 'pdf'\")")
    p.add_argument(
        "--raw",
        action="store_true",
        help="also each page's raw text, before sanitize (personal data in the clear); JSON forms only",
    )
    p.add_argument("--chunks", action="store_true", help="also each document's chunks; JSON forms only")
    p.set_defaults(func=export_command)

    p = with_home(command("lineage", help="what happened to one document, from its bytes to its chunks"))
    p.add_argument("target", help="a path assay walked, or a sha256 (or its first hex digits)")
    p.add_argument("--format", choices=("text", "json", "mermaid"), default="text")
    p.add_argument("--all-versions", action="store_true", help="also the older extractor versions")
    p.set_defaults(func=lineage_command)

    p = with_home(
        command("redactions", help="each redaction judged from its context; the precision per kind")
    )
    p.add_argument("--precision", action="store_true", help="print the figures per kind only")
    p.add_argument(
        "--json", action="store_true", help="print one JSON object: the figures and each redaction"
    )
    p.set_defaults(func=redactions_command)

    p = command("doctor", help="the external tools and libraries assay uses, and what is missing")
    p.add_argument("--json", action="store_true", help="print one JSON array")
    p.set_defaults(func=doctor_command)

    p = with_home(command("calibrate", help="score clean pages against garbled variants of them"))
    p.set_defaults(func=calibrate_command)

    p = with_home(command("facts", help="check the facts suites on the clean texts; print pass rates"))
    p.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="the corpus the fact files name (default: ../shared/corpus/dev when it exists)",
    )
    p.add_argument(
        "--generated", action="store_true", help="the documents written in code (with --corpus: both suites)"
    )
    p.add_argument("--no-run", action="store_true", help="evaluate the home as it is; run nothing")
    p.add_argument("--json", action="store_true", help="print one JSON object of the results")
    p.add_argument(
        "--facts",
        type=Path,
        default=None,
        help="the corpus fact file (default: benchmarks/facts/corpus.jsonl)",
    )
    p.set_defaults(func=facts_command)

    from orchestration.evaluation.command import add_arguments as eval_arguments
    from orchestration.evaluation.command import run_eval

    p = command(
        "eval",
        help="measure assay on the shared corpus's real documents, per kind; --gate: hold to the baseline",
    )
    eval_arguments(p)
    p.set_defaults(func=run_eval)

    p = with_home(command("ui", help="start the Dagster web UI on localhost"))
    p.add_argument("--port", type=int, default=3000)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument(
        "--daemon",
        action="store_true",
        help="also run the Dagster daemon (`dg dev`): schedules, the automation sensor and backfills",
    )
    p.set_defaults(func=ui_command)
    parser.commands = tuple(sub.choices)
    return parser


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is below 0")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not value >= 0:  # also NaN
        raise argparse.ArgumentTypeError(f"{text} is not a number of seconds, 0 or more")
    return value


if __name__ == "__main__":
    raise SystemExit(main())
