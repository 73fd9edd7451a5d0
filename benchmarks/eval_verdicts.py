"""Page verdicts against the labels of the shared corpus.

    .venv/bin/python benchmarks/eval_verdicts.py [--home DIR]

Runs assay over ../shared/corpus/dev into a fresh home (or reads an existing --home that has run it),
then checks, label by label, what docs/design.md §4 and the corpus labels expect: scanned pages REPLACE
(a blank page BLANK), OCR layers judged as ocr_sandwich and kept where they read, garbled fonts REPLACE,
REPAIRED or recovered by the fallback reader, and no born-digital page REPLACE. Prints every exception with
its page, reasons and key signals.
"""

from __future__ import annotations

import argparse
import csv
import sys
import warnings
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.corpus_home import CORPUS, corpus_home  # noqa: E402
from warehouse.duckdb_catalog import query  # noqa: E402

SQL = """
select v.sha256, v.page, v.mode, v.provenance, v.reasons, v.text_source, p.language,
       round(p.language_similarity, 2) as sim, p.lexicon_judged, round(p.lexicon_hit_rate, 2) as hit,
       p.lexicon_weight, p.chars, round(p.image_coverage, 2) as img, round(p.invisible_share, 2) as inv
from page_verdicts v join pages p on p.sha256 = v.sha256 and p.page = v.page
order by v.sha256, v.page
"""


def main() -> int:
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="a home that already ran the corpus")
    args = parser.parse_args()
    with corpus_home(args.home) as home:
        with open(CORPUS / "manifest.csv", newline="", encoding="utf-8") as fh:
            manifest = list(csv.DictReader(fh))
        rows = query(home.warehouse, SQL).records()
    pages = defaultdict(list)
    for r in rows:
        pages[r["sha256"]].append(r)

    problems = 0
    totals: Counter[str] = Counter()
    for entry in manifest:
        label, name = entry["kind"], Path(entry["path"]).name
        doc = pages.get(entry["sha256"], [])
        if not label.startswith("pdf-") or label in ("pdf-encrypted", "pdf-malformed"):
            continue
        for r in doc:
            totals[f"{label} {r['mode']}"] += 1
            bad = None
            if label == "pdf-scanned":
                want = "BLANK" if name == "ocrmypdf__blank.pdf" else "REPLACE"
                bad = r["mode"] != want and f"want {want}"
            elif label == "pdf-ocr-text-layer":
                bad = (r["provenance"] != "ocr_sandwich" and "not ocr_sandwich") or (
                    r["mode"] == "REPLACE" and "sandwich REPLACEd"
                )
            elif label == "pdf-garbled-font":
                bad = (
                    r["mode"] not in ("REPLACE", "REPAIRED")
                    and r["text_source"] != "fallback"
                    and ("garbled page kept")
                )
            elif label == "pdf-born-digital":
                bad = r["mode"] == "REPLACE" and "born-digital REPLACE"
            if bad:
                problems += 1
                signals = {
                    k: r[k]
                    for k in (
                        "language",
                        "sim",
                        "lexicon_judged",
                        "hit",
                        "lexicon_weight",
                        "chars",
                        "img",
                        "inv",
                    )
                }
                print(
                    f"{bad:<22} {name} p{r['page']}: {r['mode']} {r['provenance']} {list(r['reasons'])} "
                    f"{signals}"
                )
    print()
    for key, n in sorted(totals.items()):
        print(f"{key:<36} {n:5d} pages")
    print(
        f"\n{problems} pages differ from their label's expectation (garbled-font documents may also hold "
        "clean pages: read those lines)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
