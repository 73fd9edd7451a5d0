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
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import difflib
import io
import json
import os
import sys
import traceback
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from assets.lock import HomeBusy
from orchestration.exits import Exit
from orchestration.faults import as_seen_on, fault_in_message, fault_of
from orchestration.printing import highlighted, json_text, shown, visible
from readers.core.errors import AssayError
from readers.core.versions import EXTRACTOR_VERSION
from warehouse.errors import WarehouseError

if TYPE_CHECKING:
    from orchestration.home import Home

# `assay sql` prints at most this many rows and stops a query after this many seconds unless told
# otherwise: 10 M rows as a table held 15.8 GB for 600 s; 10,000 of them print in 2 s and 230 MB.
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
    p.set_defaults(func=_cmd_run)

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
    p.set_defaults(func=_cmd_check)

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
    p.set_defaults(func=_cmd_sql)

    p = with_home(command("search", help="full-text search (BM25) over the chunks"))
    p.add_argument("query", help="words to find; the chunks holding them as a phrase come first")
    p.add_argument("--limit", type=int, default=10, help="chunks to show (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON array of hits")
    p.set_defaults(func=_cmd_search)

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
    p.set_defaults(func=_cmd_export)

    p = with_home(command("lineage", help="what happened to one document, from its bytes to its chunks"))
    p.add_argument("target", help="a path assay walked, or a sha256 (or its first hex digits)")
    p.add_argument("--format", choices=("text", "json", "mermaid"), default="text")
    p.add_argument("--all-versions", action="store_true", help="also the older extractor versions")
    p.set_defaults(func=_cmd_lineage)

    p = with_home(
        command("redactions", help="each redaction judged from its context; the precision per kind")
    )
    p.add_argument("--precision", action="store_true", help="print the figures per kind only")
    p.add_argument(
        "--json", action="store_true", help="print one JSON object: the figures and each redaction"
    )
    p.set_defaults(func=_cmd_redactions)

    p = command("doctor", help="the external tools and libraries assay uses, and what is missing")
    p.add_argument("--json", action="store_true", help="print one JSON array")
    p.set_defaults(func=_cmd_doctor)

    p = with_home(command("calibrate", help="score clean pages against garbled variants of them"))
    p.set_defaults(func=_cmd_calibrate)

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
    p.set_defaults(func=_cmd_facts)

    from orchestration.evaluation.command import add_arguments as eval_arguments

    p = command(
        "eval",
        help="measure assay on the shared corpus's real documents, per kind; --gate: hold to the baseline",
    )
    eval_arguments(p)
    p.set_defaults(func=_cmd_eval)

    p = with_home(command("ui", help="start the Dagster web UI on localhost"))
    p.add_argument("--port", type=int, default=3000)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument(
        "--daemon",
        action="store_true",
        help="also run the Dagster daemon (`dg dev`): schedules, the automation sensor and backfills",
    )
    p.set_defaults(func=_cmd_ui)
    parser.commands = tuple(sub.choices)
    return parser


# -- run -----------------------------------------------------------------------------------------------


def _cmd_run(args: argparse.Namespace, console: Console) -> int:
    from assets.partitions import SHARDS_PER_RUN
    from assets.progress import Progress
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
        print(json_text(run_report(home, report, progress), indent=2, default=_json_default))
    elif args.quiet:
        console.print(one_line(home, report, progress), soft_wrap=True)
    else:
        print_summary(console, home, report, progress)
    return Exit.OK if report.ok else Exit.FAILED


# -- check ---------------------------------------------------------------------------------------------


def _cmd_check(args: argparse.Namespace, console: Console) -> int:
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
        print(json_text(found[0] if len(found) == 1 else found, indent=2, default=_json_default))
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
        write_stream(docs, sys.stdout, form, shown=visible if sys.stdout.isatty() else _as_is)
    err = Console(stderr=True, soft_wrap=True)
    for outcome, doc in zip(outcomes, docs, strict=True):
        if doc.text is None:
            final = outcome.final
            why = describe(final.outcome) + (f" ({final.reason})" if final.reason else "")
            err.print(f"[bold red]assay:[/] {shown(doc.path)} yields no text: {shown(why)}")


def _as_is(text: str) -> str:
    return text


def _check_exit(outcome: Any) -> int:
    final = outcome.final
    if final.outcome == "unsupported":
        return Exit.UNSUPPORTED
    if final.outcome == "error" and final.reason == "encrypted":
        return Exit.ENCRYPTED
    return Exit.NO_TEXT


# -- export --------------------------------------------------------------------------------------------


def _cmd_export(args: argparse.Namespace, console: Console) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from assets.settings import settings_from_env
    from orchestration.export import STDOUT, check_form, documents, export, select, write_stream
    from orchestration.summary import program

    check_form(args.to, raw=args.raw, chunks=args.chunks)
    to_stdout = args.output == STDOUT
    if to_stdout:  # the texts are the output: what is said of them goes to stderr
        console = Console(stderr=True, soft_wrap=True)
    home = _existing_home(args.home)
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
                shown=visible if sys.stdout.isatty() else _as_is,
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


# -- lineage -------------------------------------------------------------------------------------------


def _cmd_lineage(args: argparse.Namespace, console: Console) -> int:
    from orchestration.lineage import lineage_for, mermaid, print_lineage, to_json

    found = lineage_for(_existing_home(args.home).warehouse, args.target, all_versions=args.all_versions)
    if args.format == "json":
        print(to_json(found))
    elif args.format == "mermaid":
        print(mermaid(found))
    else:
        print_lineage(console, found)
    return 0


# -- facts -------------------------------------------------------------------------------------------


def _cmd_facts(args: argparse.Namespace, console: Console) -> int:
    from orchestration.facts import run_facts

    return run_facts(args, console, run_command=_cmd_run)


def _cmd_eval(args: argparse.Namespace, console: Console) -> int:
    from orchestration.evaluation.command import run_eval

    return run_eval(args, console)


# -- sql -----------------------------------------------------------------------------------------------


def _cmd_sql(args: argparse.Namespace, console: Console) -> int:
    from warehouse.catalog import query

    result = query(
        _existing_home(args.home).warehouse,
        args.query,
        external=args.allow_external,
        limit=args.limit or None,
        timeout=args.timeout or None,
    )
    if args.json:
        print(json_text(result.records(), default=_json_default))
    elif args.csv:
        # To a terminal, the cells' control characters are shown as escapes; to a file or a pipe, exact.
        shown_cell = visible if sys.stdout.isatty() else (lambda v: v)
        writer = csv.writer(sys.stdout)
        writer.writerow([shown_cell(c) for c in result.columns])
        writer.writerows([[shown_cell(v) if isinstance(v, str) else v for v in row] for row in result.rows])
    else:
        table = Table(show_lines=False)
        for column in result.columns:
            table.add_column(Text(visible(column)))
        for row in result.rows:
            table.add_row(*(_cell(v) for v in row))
        console.print(table)
        console.print(f"[dim]{len(result.rows)} rows[/]")
    if result.truncated:
        Console(stderr=True, soft_wrap=True).print(
            f"[yellow]cut[/]: the query returns more than {args.limit:,} rows and only the first "
            f"{args.limit:,} are shown: pass --limit N to see more (0: every row), or narrow the query"
        )
    return 0


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


def _existing_home(given: str | None) -> Home:
    """The home a reading command looks at; one that is a file says so."""
    from orchestration.home import Home

    home = Home.resolve(given)
    home.require_directory()
    return home


def _cell(value: Any) -> Text:
    if value is None:
        return Text("null", style="dim")
    text = str(value)
    return Text(visible(text if len(text) <= 200 else text[:199] + "…"))


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    return str(value)


# -- search --------------------------------------------------------------------------------------------


def _cmd_search(args: argparse.Namespace, console: Console) -> int:
    from dataclasses import asdict

    from assets.settings import settings_from_env
    from warehouse.search import search, tokenize

    if args.limit < 1:
        raise AssayError(f"--limit must be at least 1, got {args.limit}")
    if not tokenize(args.query):
        raise AssayError(f"nothing to search for in {args.query!r}: it has no words")
    home = _existing_home(args.home)
    # the paths as the sanitized tables would show them: their personal data as placeholders
    redact_path = settings_from_env().path_redactor()
    hits = search(home.warehouse, args.query, limit=args.limit, redact_path=redact_path)
    if args.json:
        print(json_text([asdict(h) for h in hits], default=_json_default))
        return 0
    if not hits:
        console.print(f"No chunk matches {shown(repr(args.query))}.")
        return 0
    for rank, hit in enumerate(hits, 1):
        head = Text()
        head.append(f"{rank:>2}. ", style="bold")
        head.append(f"{hit.score:6.2f}  ", style="cyan")
        head.append(visible(hit.path), style="bold")
        if hit.page is not None:
            head.append(f"  p. {hit.page}", style="green")
            if hit.label and hit.label != str(hit.page):  # the page as the document prints it
                head.append(visible(f" [{hit.label}]"), style="green")
            if hit.page_start != hit.page_end:
                head.append(f" (chunk {_pages(hit.page_start, hit.page_end)})", style="dim")
        else:
            head.append(f"  {_pages(hit.page_start, hit.page_end)}", style="green")
        if hit.heading_path:
            head.append(visible("  " + " › ".join(hit.heading_path)), style="magenta")
        if hit.trust is not None and hit.trust < 1:
            head.append(f"  trust {hit.trust:.3g}", style="dim")
        console.print(head)
        console.print(highlighted("    ", hit.snippet, hit.highlights, style="bold yellow"))
    return 0


def _pages(first: int, last: int) -> str:
    return f"p. {first}" if first == last else f"pp. {first}–{last}"


# -- redactions ----------------------------------------------------------------------------------------


def _cmd_redactions(args: argparse.Namespace, console: Console) -> int:
    from assets.settings import settings_from_env
    from orchestration.redactions import print_listing, print_precision, review, to_json

    home = _existing_home(args.home)
    # the documents' names as the sanitized tables would show them: their personal data as placeholders
    reviewed = review(home.warehouse, settings_from_env().path_redactor())
    if args.json:
        print(to_json(reviewed))
        return 0
    if not args.precision:
        print_listing(console, reviewed)
    print_precision(console, reviewed)
    return 0


# -- doctor --------------------------------------------------------------------------------------------


def _cmd_doctor(args: argparse.Namespace, console: Console) -> int:
    from dataclasses import asdict

    from readers.core.tools import probe_all
    from readers.images.rapidocr import probe as probe_rapidocr

    probes = probe_all()
    probes.insert(1, probe_rapidocr())  # the second reader of pixels, after Tesseract
    if args.json:
        print(json.dumps([asdict(p) for p in probes], indent=2))
        return 0
    table = Table("tool", "version", "notes")
    for p in probes:
        table.add_row(p.name, p.version if p.found else "[red]missing[/]", p.detail)
    console.print(table)
    missing = [p.name for p in probes if not p.found]
    if missing:
        console.print(f"[yellow]missing: {', '.join(missing)}[/] (see the notes column)")
    else:
        console.print("[green]everything assay uses is installed[/]")
    return 0


# -- calibrate -----------------------------------------------------------------------------------------


def _cmd_calibrate(args: argparse.Namespace, console: Console) -> int:
    from assets.progress import Progress
    from orchestration.runner import Pipeline, RunReport

    home = _existing_home(args.home)
    if not home.warehouse.catalog_path.exists():
        raise AssayError(f"nothing to calibrate on in {home.path}: run `assay run PATH` first")
    report = RunReport(roots=[])
    pipeline = Pipeline(home, Progress())
    metadata = pipeline.calibrate(report)
    for failure in report.failures:
        raise AssayError(f"calibration failed: {failure.message}")
    if not metadata.get("pages"):
        console.print("No clean, lexicon-judged born-digital pages yet: run assay on a corpus with some.")
        return 0
    table = Table("figure", "value", title="Calibration: clean pages against their garbled variants")
    for key in (
        "pages",
        "margin",
        "widest_gap",
        "otsu_threshold",
        "threshold_in_use",
        "separability",
        "inversions",
        "partial_30pct_caught_by_font_score",
    ):
        table.add_row(key, str(metadata[key]))
    console.print(table)
    check = next((c for c in report.checks if c.name == "separation"), None)
    verdict = (
        "[green]passed[/]" if check and check.passed else "[red]failed[/] (margin <= 0 or widest gap < 0.2)"
    )
    console.print(f"separation check {verdict}; histogram: {metadata['histogram']}")
    return 0 if check is None or check.passed else 1


# -- ui ------------------------------------------------------------------------------------------------


def _cmd_ui(args: argparse.Namespace, console: Console) -> int:
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
    root = Path(__file__).resolve().parents[1]
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


if __name__ == "__main__":
    raise SystemExit(main())
