"""``assay calibrate``: a home's clean pages scored against garbled variants of them, and the separation
check on the scores."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from orchestration.commands.shared import existing_home
from readers.core.errors import AssayError


def calibrate_command(args: argparse.Namespace, console: Console) -> int:
    from assets.progress import Progress
    from orchestration.runner import Pipeline, RunReport

    home = existing_home(args.home)
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
