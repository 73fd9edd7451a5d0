"""``assay eval``: assay measured against every labelled real document of the shared corpus.

The story: find the corpus; run each set (dev, tables, robust) with ``assay run --json`` into a fresh home
of its own, timing it and keeping what it printed; measure (text against truth, facts, table cells, the
runs' own figures); print the figures per kind; with ``--gate``, compare them with the committed baseline
and fail on any figure worse than its noise allows; with ``--write-baseline``, write them as the new
baseline. The homes live in a temporary folder unless ``--keep DIR`` names one.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from orchestration.evaluation import baseline as committed
from orchestration.evaluation.figures import (
    MEASURES,
    TABLES,
    Dropped,
    FactFailure,
    Figure,
    Measured,
    SetRows,
    by_group,
    dev_figures,
    fact_figures,
    ocr_figures,
    set_figures,
    table_figures,
)
from orchestration.evaluation.sets import SET_NAMES, SetRun, corpus_sets, find_corpus, run_set
from orchestration.exits import Exit
from orchestration.printing import shown
from readers.core.errors import AssayError

REPO = Path(__file__).resolve().parents[2]
FACTS_DIR = REPO / "benchmarks" / "facts"
BASELINE = REPO / "benchmarks" / "eval" / "baseline.json"
QUALITY_PAGE = REPO / "docs" / "quality.md"
#: Failing facts, dropped pages and stray lines shown without --verbose.
SHOWN_ITEMS = 12


def run_eval(args: argparse.Namespace, console: Console) -> int:
    corpus = find_corpus(args.corpus, REPO)
    names = tuple(args.sets.split(",")) if args.sets else SET_NAMES
    unknown = set(names) - set(SET_NAMES)
    if unknown:
        raise AssayError(f"unknown set {', '.join(sorted(unknown))}: --sets takes {','.join(SET_NAMES)}")
    if (args.gate or args.write_baseline) and (set(names) != set(SET_NAMES) or args.measure_only):
        raise AssayError("--gate and --write-baseline run every set: leave out --sets and --measure-only")
    sets = corpus_sets(corpus, names)
    if not sets:
        raise AssayError(f"{corpus} holds none of the sets {', '.join(names)}")
    shown_on = Console(stderr=True) if args.json else console
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="assay-eval-") as tmp:
        homes = Path(args.keep).absolute() if args.keep else Path(tmp)
        if args.measure_only:
            if not args.keep:
                raise AssayError(
                    "--measure-only measures the homes of an earlier `--keep DIR`: pass --keep DIR"
                )
            runs = {s.name: SetRun(s, homes / s.name, report={"ok": True}, ran=False) for s in sets}
        else:
            used = [homes / s.name for s in sets if (homes / s.name).exists()]
            if used:
                raise AssayError(
                    f"{used[0]} exists: a set is measured in a fresh home; pass an empty folder to --keep, "
                    "or add --measure-only to measure the homes there as they are"
                )
            runs = _run_sets(sets, homes, shown_on)
        measured = measure(runs, corpus)
    seconds = time.perf_counter() - started
    measured.figures.append(Figure("eval_seconds", "all", seconds, 1))
    comparisons = None
    if args.gate:
        comparisons = committed.compare(committed.load(args.baseline or BASELINE), measured.figures)
    if args.write_baseline:
        earlier = [_figures_of(Path(p)) for p in args.noise_from or ()]
        noise = committed.noise_between(measured.figures, earlier)
        committed.write(args.baseline or BASELINE, measured.figures, noise)
        if args.baseline is None:
            committed.write_page(QUALITY_PAGE, measured.figures, noise)
    if args.json:
        print(json.dumps(_as_json(measured, comparisons), indent=1, ensure_ascii=False))
    else:
        _print(console, measured, runs, comparisons, verbose=getattr(args, "verbose", False), seconds=seconds)
        if args.write_baseline:
            written = (
                shown(args.baseline) if args.baseline else f"{shown(BASELINE)} and {shown(QUALITY_PAGE)}"
            )
            console.print(f"baseline written: {written}")
    if comparisons is not None and any(c.fails for c in comparisons):
        return Exit.FAILED
    return Exit.OK


def _figures_of(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise AssayError(f"--noise-from {path}: not the JSON of `assay eval --json` ({exc})") from exc
    return {k: v["value"] for k, v in data.get("figures", {}).items()}


def _run_sets(sets: list, homes: Path, console: Console) -> dict[str, SetRun]:
    runs: dict[str, SetRun] = {}
    columns = (
        TextColumn("[bold]{task.description:<8}"),
        BarColumn(),
        TextColumn("{task.fields[state]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        tasks = {
            s.name: progress.add_task(s.name, total=1, state=f"{len(s.files)} files, waiting") for s in sets
        }
        for corpus_set in sets:
            task = tasks[corpus_set.name]
            progress.update(task, state=f"{len(corpus_set.files)} files, running")
            progress.start_task(task)
            run = run_set(corpus_set, homes / corpus_set.name, tick=progress.refresh)
            runs[corpus_set.name] = run
            state = "failed" if run.failed else "done"
            progress.update(task, completed=1, state=f"{len(corpus_set.files)} files, {state}")
    return runs


def measure(runs: dict[str, SetRun], corpus: Path) -> Measured:
    """Every figure of the runs, with the items behind the failing ones."""
    figures: list[Figure] = []
    dropped: list[Dropped] = []
    outcomes: dict[str, Counter[str]] = {}
    homes = {name: SetRows(run) for name, run in runs.items()}
    scored = dev_figures(homes["dev"], corpus / "dev_truth", figures) if "dev" in homes else []
    table_figures(homes, corpus, figures)
    facts = fact_figures(FACTS_DIR.glob("*.jsonl"), homes, figures)
    failures = [FactFailure(o.fact, o.text_found) for o in facts.failures]
    ocr_figures(homes, corpus / "dev_truth", facts.outcomes, figures)
    for name, rows in homes.items():
        outcomes[name] = set_figures(rows, figures, dropped)
    stray = {name: run.stray_lines for name, run in runs.items() if run.stray_lines}
    return Measured(figures, scored, dropped, failures, stray, outcomes)


# -- printing --------------------------------------------------------------------------------------------


def _value(measure: str, value: float) -> str:
    if measure in ("stray_lines", "tracebacks", "readable_dropped", "run_failed", "ocr_pages_read"):
        return f"{value:.0f}"
    if measure == "seconds_per_page":
        return f"{value:.3f}"
    if measure in ("peak_memory_mb", "eval_seconds"):
        return f"{value:.0f}"
    return f"{value:.3f}"


def _grid(console: Console, title: str, measures: Sequence[str], figures: list[Figure]) -> None:
    rows = by_group(figures, measures)
    if not rows:
        return
    table = Table(title=title, title_justify="left")
    table.add_column("kind")
    for m in measures:
        table.add_column(m.replace("_", " "), justify="right")
    for group, row in rows:
        table.add_row(group, *(f"{_value(f.measure, f.value)} [dim]({f.count})[/]" if f else "" for f in row))
    console.print(table)


def _print(
    console: Console,
    measured: Measured,
    runs: dict[str, SetRun],
    comparisons: list[committed.Comparison] | None,
    *,
    verbose: bool,
    seconds: float,
) -> None:
    console.print(
        "[dim]each figure, and in brackets what it counts (documents, facts, tables, cells, pages)[/]"
    )
    for title, measures in TABLES:
        _grid(console, title, measures, measured.figures)
    if verbose:
        for s in measured.scored:
            error = "" if s.cer is None else f", CER {s.cer:.3f}"
            error += "" if s.engine is None else f", OCR kept: {s.engine}"
            console.print(f"  {shown(s.document)} ({s.kind}): F1 {s.f1:.3f}, order {s.order:.3f}{error}")
    for name, run in runs.items():
        if run.checks_failed:
            console.print(f"[bold]{name}[/]: checks failed: {', '.join(run.checks_failed)}")
    for name, counts in measured.outcomes.items():
        top = ", ".join(f"{k} {n}" for k, n in counts.most_common(8 if not verbose else None))
        console.print(f"[bold]{name}[/] outcomes: {shown(top)}")
    limit = None if verbose else SHOWN_ITEMS
    if measured.dropped:
        console.print(f"[bold]{len(measured.dropped)} pages with readable words end without text[/]")
        for d in measured.dropped[:limit]:
            console.print(f"  {shown(d.document)} p{d.page}: {shown(d.why)}  [dim]{shown(d.words)}[/]")
    for name, lines in measured.stray_lines.items():
        console.print(f"[bold]{name}[/]: {len(lines)} lines printed besides the summary, e.g.")
        for line in lines[: 3 if not verbose else None]:
            console.print(f"  [dim]{shown(line[:160])}[/]")
    if measured.fact_failures:
        console.print(
            f"[bold]{len(measured.fact_failures)} facts fail[/]" + ("" if verbose else " (--verbose: all)")
        )
        for failure in measured.fact_failures[:limit]:
            fact = failure.fact
            note = "" if failure.text_found else " [dim](no text)[/]"
            console.print(f"  {shown(fact.document)}  [cyan]{fact.kind}[/]  {shown(fact.why)}{note}")
    console.print(f"measured in {seconds / 60:.1f} min")
    if comparisons is None:
        return
    failing = [c for c in comparisons if c.fails]
    better = [c for c in comparisons if c.status == "better"]
    new = [c for c in comparisons if c.status == "new"]
    if failing:
        table = Table(title="Gate: figures worse than the baseline allows", title_justify="left")
        for column in ("figure", "baseline", "now", "allowed", "status"):
            table.add_column(column)
        for c in failing:
            table.add_row(
                c.key, _shown_number(c.baseline), _shown_number(c.current), f"{c.allowance:g}", c.status
            )
        console.print(table)
        console.print(
            "gate: [red]failed[/]. If the change is meant (say why in the commit), write the baseline again: "
            "`assay eval --write-baseline`"
        )
    else:
        console.print(
            f"gate: [green]passed[/] ({len(comparisons)} figures; {len(better)} better, {len(new)} new). "
            + ("Record the better figures: `assay eval --write-baseline`" if better or new else "")
        )


def _shown_number(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _as_json(measured: Measured, comparisons: list[committed.Comparison] | None) -> dict[str, object]:
    return {
        "schema": "assay-eval/1",
        "figures": {
            f.key: {
                "value": f.value,
                "count": f.count,
                "measure": MEASURES.get(f.measure, None) and MEASURES[f.measure].title,
            }
            for f in measured.figures
        },
        "documents": [s.__dict__ for s in measured.scored],
        "dropped": [d.__dict__ for d in measured.dropped],
        "fact_failures": [
            {"document": x.fact.document, "kind": x.fact.kind, "why": x.fact.why, "text_found": x.text_found}
            for x in measured.fact_failures
        ],
        "stray_lines": measured.stray_lines,
        "outcomes": {k: dict(v) for k, v in measured.outcomes.items()},
        "gate": None
        if comparisons is None
        else [c.__dict__ | {"fails": c.fails} for c in comparisons if c.status != "same"],
    }


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", type=Path, help="the shared corpus (default: ../shared/corpus)")
    p.add_argument("--sets", help=f"the sets to run, comma-separated (default: {','.join(SET_NAMES)})")
    p.add_argument("--gate", action="store_true", help="compare with the committed baseline; exit 1 if worse")
    p.add_argument("--baseline", type=Path, help=f"the baseline file (default: {BASELINE.relative_to(REPO)})")
    p.add_argument("--write-baseline", action="store_true", help="write this run's figures as the baseline")
    p.add_argument(
        "--noise-from",
        action="append",
        metavar="FILE",
        help="with --write-baseline: an earlier `assay eval --json` output; the noise per measure is the "
        "largest difference between it and this run",
    )
    p.add_argument("--keep", metavar="DIR", help="run the sets into homes under DIR and keep them")
    p.add_argument(
        "--measure-only",
        action="store_true",
        help="with --keep DIR: measure the homes an earlier run left there, without running (no time, memory "
        "or output figures)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object (progress on stderr)")
