"""The PDF table finders side by side on the tables of the shared corpus with a text layer.

For every primary table of ``tables/truth.jsonl`` on a page with a text layer, each finder is run on the
page and its best table is scored against the expected cells (``quality.truth_scores.best_table``: cell
recall, cell precision, and the share of cells kept under their header). The finders:

- ``own ruled``: :func:`readers.pdf.ruled_tables.find_ruled_tables`, as the reader runs it (a frame around
  an unruled table read by :func:`readers.pdf.unruled_tables.unframed`);
- ``own aligned``: :func:`readers.pdf.unruled_tables.find_aligned_tables` and ``find_turned_aligned_tables``
  given the page's ruled tables;
- ``own both``: the two together, which is what the reader stores;
- ``ft lines``: ``page.find_tables(use_layout=False)`` (PyMuPDF's "lines" strategy);
- ``ft text``: ``page.find_tables(use_layout=False, strategy="text")``;
- ``layout grid``: ``page.find_tables(use_layout=True)``, the grid of PyMuPDF's layout model, run in a
  child process (``--layout-child``) so that the model never loads into this one; skipped when the
  ``pymupdf.layout`` package is not installed.

Tables are grouped by kind: ``ruled`` (truth methods lattice, spreadsheet), ``unruled`` (stream, basic,
network) and ``hybrid``. Also prints, per band of the own finders' scores (the ``score=`` of their
evidence) and the confidence it is given, the share of the found
cells that are right (each table found on a truth page against the expected table of that page it
matches best, primary or not) (the calibration of their confidence, docs/decisions.md). Prints Markdown.

Run from the repository root::

    .venv/bin/python benchmarks/table_finders.py [--corpus DIR] [--no-layout] [-v]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

BANDS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.01)


def _rows(corpus: Path) -> list[dict]:
    rows = []
    for line in (corpus / "tables" / "truth.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["primary"] and row["text_layer"] and (corpus / "tables" / row["file"]).exists():
            rows.append(row)
    return rows


def _grid(extracted: list[list[str | None]]) -> list[list[str]]:
    return [[cell or "" for cell in row] for row in extracted]


def _layout_child(corpus: Path) -> None:
    """Print, per truth row, the layout model's grids and its seconds (run in a child process)."""
    from readers.core.offline import allow_layout_model

    allow_layout_model()
    import pymupdf

    for row in _rows(corpus):
        page = pymupdf.open(corpus / "tables" / row["file"])[row["page"] - 1]
        start = time.perf_counter()
        try:
            grids = [_grid(t.extract()) for t in page.find_tables(use_layout=True).tables]
        except Exception:  # a page the model cannot read scores as nothing found
            grids = []
        print(json.dumps({"grids": grids, "seconds": time.perf_counter() - start}), flush=True)


def _layout_grids(corpus: Path) -> list[dict] | None:
    done = subprocess.run(
        [sys.executable, __file__, "--corpus", str(corpus), "--layout-child"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"(layout grid skipped: {done.stderr.strip().splitlines()[-1:]})", file=sys.stderr)
        return None
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    parser.add_argument("--no-layout", action="store_true", help="skip the layout model's grid")
    parser.add_argument("--layout-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("-v", action="store_true", help="print each table's scores")
    args = parser.parse_args()
    if args.layout_child:
        _layout_child(args.corpus)
        return
    layout = None if args.no_layout else _layout_grids(args.corpus)

    from readers.core.offline import keep_offline

    keep_offline()
    import pymupdf

    from orchestration.evaluation.figures import CLASS_OF_METHOD
    from quality.truth_scores import NO_TABLE, best_table, table_score
    from readers.pdf.page_spans import TEXT_FLAGS, _scan_dict
    from readers.pdf.placed_tables import calibrated
    from readers.pdf.ruled_tables import find_ruled_tables
    from readers.pdf.unruled_tables import find_aligned_tables, find_turned_aligned_tables, unframed

    scores: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    seconds: dict[str, float] = defaultdict(float)
    bands: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    rows = _rows(args.corpus)
    truth = [json.loads(line) for line in (args.corpus / "tables" / "truth.jsonl").read_text().splitlines()]
    scored_pages: set[tuple[str, int]] = set()
    for number, row in enumerate(rows):
        kind = CLASS_OF_METHOD[row["method"]]
        found: dict[str, list[list[list[str]]]] = {}
        own: dict[str, list] = {}
        page = pymupdf.open(args.corpus / "tables" / row["file"])[row["page"] - 1]
        start = time.perf_counter()
        textpage = page.get_textpage(flags=TEXT_FLAGS)
        scan = _scan_dict(textpage.extractDICT())
        ruled = unframed(
            scan.lines, find_ruled_tables(page.get_cdrawings(), scan.lines, textpage), page.rect.width
        )
        seconds["own ruled"] += time.perf_counter() - start
        start = time.perf_counter()
        crop = page.cropbox
        aligned = [
            *find_aligned_tables(scan.lines, ruled, page.rect.width),
            *find_turned_aligned_tables(scan.lines, ruled, crop.width, crop.height),
        ]
        seconds["own aligned"] += time.perf_counter() - start
        seconds["own both"] = seconds["own ruled"] + seconds["own aligned"]
        own = {"own ruled": ruled, "own aligned": aligned, "own both": [*ruled, *aligned]}
        for name, tables in own.items():
            found[name] = [t.cells for t in tables]
        for name, options in (("ft lines", {}), ("ft text", {"strategy": "text"})):
            start = time.perf_counter()
            tables = page.find_tables(use_layout=False, **options).tables
            found[name] = [_grid(t.extract()) for t in tables]
            seconds[name] += time.perf_counter() - start
        if layout is not None:
            found["layout grid"] = layout[number]["grids"]
            seconds["layout grid"] += layout[number]["seconds"]
        for name, grids in found.items():
            score = best_table(row["cells"], grids)
            scores[name][kind].append(score)
            if args.v:
                print(
                    f"{name:12s} {kind:8s} {row['file']} p{row['page']} "
                    f"r={score.recall:.2f} p={score.precision:.2f} h={score.header_kept:.2f}"
                )
        if (row["file"], row["page"]) in scored_pages:
            continue
        scored_pages.add((row["file"], row["page"]))
        expected = [r["cells"] for r in truth if (r["file"], r["page"]) == (row["file"], row["page"])]
        for table in own["own both"]:  # calibration: each table found against the table it matches best
            score = max((table_score(cells, table.cells) for cells in expected), key=lambda s: s.matched)
            raw = float(table.evidence.split("score=")[1].split()[0])
            band = max(i for i, low in enumerate(BANDS) if raw >= low)
            cell = bands[table.source][band]
            cell[0] += score.matched
            cell[1] += score.found_cells
    pages = len(rows)
    print(f"Tables with a text layer: {pages} (one page each).\n")
    print("| finder | kind | tables | found | cell recall | precision | header kept | ms/page |")
    print("|---|---|---|---|---|---|---|---|")
    for name, by_kind in scores.items():
        everything = [s for kind in ("ruled", "unruled", "hybrid") for s in by_kind[kind]]
        for kind, ss in [*((k, by_kind[k]) for k in ("ruled", "unruled", "hybrid")), ("all", everything)]:
            total = sum(ss, NO_TABLE)
            found_n = sum(s.found_cells > 0 for s in ss)
            ms = f"{1000 * seconds[name] / pages:.1f}" if kind == "all" else ""
            print(
                f"| {name} | {kind} | {len(ss)} | {found_n} | {total.recall:.3f} | {total.precision:.3f} "
                f"| {total.header_kept:.3f} | {ms} |"
            )
    print("\n| source | score | confidence given | cells found | share right |")
    print("|---|---|---|---|---|")
    for source, by_band in sorted(bands.items()):
        for band, (matched, cells) in sorted(by_band.items()):
            low, high = BANDS[band], min(BANDS[band + 1], 1.0)
            share = f"{matched / cells:.3f}" if cells else "-"
            given = calibrated(source, low)
            print(f"| {source} | {low:.2f}-{high:.2f} | {given:.2f} | {cells} | {share} |")


if __name__ == "__main__":
    main()
