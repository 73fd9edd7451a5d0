"""The commands that read a home's catalog and print what they find: ``assay sql``, ``assay search``,
``assay lineage`` and ``assay redactions``."""

from __future__ import annotations

import argparse
import csv
import sys
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from orchestration.commands.shared import existing_home, json_default
from orchestration.printing import highlighted, json_text, shown, visible
from readers.core.errors import AssayError


def sql_command(args: argparse.Namespace, console: Console) -> int:
    from warehouse.duckdb_catalog import query

    result = query(
        existing_home(args.home).warehouse,
        args.query,
        external=args.allow_external,
        limit=args.limit or None,
        timeout=args.timeout or None,
    )
    if args.json:
        print(json_text(result.records(), default=json_default))
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


def _cell(value: Any) -> Text:
    if value is None:
        return Text("null", style="dim")
    text = str(value)
    return Text(visible(text if len(text) <= 200 else text[:199] + "…"))


def search_command(args: argparse.Namespace, console: Console) -> int:
    from dataclasses import asdict

    from assets.settings import settings_from_env
    from warehouse.search import search, tokenize

    if args.limit < 1:
        raise AssayError(f"--limit must be at least 1, got {args.limit}")
    if not tokenize(args.query):
        raise AssayError(f"nothing to search for in {args.query!r}: it has no words")
    home = existing_home(args.home)
    # the paths as the sanitized tables would show them: their personal data as placeholders
    redact_path = settings_from_env().path_redactor()
    hits = search(home.warehouse, args.query, limit=args.limit, redact_path=redact_path)
    if args.json:
        print(json_text([asdict(h) for h in hits], default=json_default))
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


def lineage_command(args: argparse.Namespace, console: Console) -> int:
    from orchestration.lineage import lineage_for, mermaid, print_lineage, to_json

    found = lineage_for(existing_home(args.home).warehouse, args.target, all_versions=args.all_versions)
    if args.format == "json":
        print(to_json(found))
    elif args.format == "mermaid":
        print(mermaid(found))
    else:
        print_lineage(console, found)
    return 0


def redactions_command(args: argparse.Namespace, console: Console) -> int:
    from assets.settings import settings_from_env
    from orchestration.redactions import print_listing, print_precision, review, to_json

    home = existing_home(args.home)
    # the documents' names as the sanitized tables would show them: their personal data as placeholders
    reviewed = review(home.warehouse, settings_from_env().path_redactor())
    if args.json:
        print(to_json(reviewed))
        return 0
    if not args.precision:
        print_listing(console, reviewed)
    print_precision(console, reviewed)
    return 0
