"""``assay doctor``: the external tools and libraries assay uses, and what is missing."""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.table import Table


def doctor_command(args: argparse.Namespace, console: Console) -> int:
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
