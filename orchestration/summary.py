"""The summary at the end of ``assay run``: what happened, and what to do next."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from orchestration.home import Home
from orchestration.progress import Progress
from orchestration.runner import RunReport
from warehouse.catalog import query
from warehouse.errors import WarehouseError

RATES_SQL = """
select kind,
       count(*) as documents,
       count(*) filter (where status = 'derived') as derived,
       count(*) filter (where status = 'underivable') as underivable,
       count(*) filter (where status = 'error') as error,
       count(*) filter (where status = 'unsupported') as unsupported,
       count(*) filter (where status = 'skipped') as skipped,
       coalesce(sum(pages) filter (where status = 'derived'), 0) as pages,
       count(*) filter (where recovered_by_fallback) as fallback
from derivations group by kind order by documents desc, kind
"""


def print_summary(console: Console, home: Home, report: RunReport, progress: Progress) -> None:
    console.print()
    for failure in report.failures:
        console.print(
            f"[bold red]{failure.stage} failed[/]: {failure.message}\n"
            f"  see the run's logs with `assay ui --home {home.path}` (run {failure.run_id})"
        )
    read = progress.outcomes.get("read", 0)
    kept = progress.outcomes.get("kept", 0)
    carried = progress.outcomes.get("carried", 0)
    console.print(
        f"Walked {progress.walked} paths, hashed {progress.hashed} "
        f"({progress.walked - progress.hashed} unchanged since the last walk)."
    )
    if read == 0 and carried == 0:
        console.print("Read [bold]0[/] files: nothing changed since the last run.")
    else:
        console.print(
            f"Read [bold]{read}[/] files in {len(report.touched_shards)} shards"
            + (f", carried {carried} over from an earlier extractor version" if carried else "")
            + (f", kept {kept} already extracted" if kept else "")
            + "."
        )
    try:
        rows = query(home.warehouse, RATES_SQL).rows
    except WarehouseError as exc:
        console.print(f"[red]The catalog could not be read[/]: {exc}")
        return

    table = Table(title="Documents by kind and status", title_justify="left")
    for col in ("kind", "documents", "derived", "underivable", "error", "unsupported", "skipped", "pages",
                "fallback rate", "underivable rate"):
        table.add_column(col, justify="left" if col == "kind" else "right")
    totals = [0] * 8
    for kind, docs, derived, und, err, unsup, skipped, pages, fallback in rows:
        attempted = derived + und + err
        table.add_row(
            kind, str(docs), str(derived), str(und), str(err), str(unsup), str(skipped), str(pages),
            _pct(fallback, derived), _pct(und, attempted),
        )
        totals = [a + b for a, b in zip(totals, (docs, derived, und, err, unsup, skipped, pages, fallback), strict=True)]
    docs, derived, und, err, unsup, skipped, pages, fallback = totals
    table.add_section()
    table.add_row("all", str(docs), str(derived), str(und), str(err), str(unsup), str(skipped), str(pages),
                  _pct(fallback, derived), _pct(und, derived + und + err), style="bold")
    console.print(table)
    console.print(f"Catalog: [bold]{home.warehouse.catalog_path}[/] ({report.runs} Dagster runs, "
                  f"{report.seconds:.1f} s)")
    console.print("Next:")
    home_flag = "" if home.path == Home.resolve(None).path else f" --home {home.path}"
    console.print(f"  assay sql{home_flag} \"{_one_line('select status, count(*) from derivations group by 1')}\"")
    if und or err:
        console.print(f"  assay sql{home_flag} \"select d.path, v.status, v.reason from derivations v join "
                      "documents d using (sha256) where v.status <> 'derived'\"   # what was not derived, and why")
    if unsup:
        console.print("  unsupported kinds have no reader yet: they are recorded and will be read when one exists")
    console.print(f"  assay ui{home_flag}   # the asset graph, runs and checks in Dagster")


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}%" if d else "-"


def _one_line(sql: str) -> str:
    return " ".join(sql.split())
