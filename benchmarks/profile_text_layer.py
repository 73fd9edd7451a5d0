"""Where the text-layer path's time goes, per page: a profile of read, signals and verdicts by part.

    .venv/bin/python benchmarks/profile_text_layer.py [--corpus DIR] [--markdown]

The path is benchmarks/record.py's section 1 (the reader chain, every signal, the verdicts with
pdfplumber's second opinion and font repair) over the ``pdf-born-digital`` PDFs of the shared corpus, run
once untimed (imports, caches), then once under ``cProfile``. Each part below is the cumulative time of the
function that does it, per page of the set and as a share of the whole path; the parts nest (the reader
holds MuPDF's calls, tables and reading order), so shares do not add up to 100%. The profiler slows
Python code more than C code, so compare parts with each other, not with the timings of record.py.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from readers.core.offline import keep_offline  # noqa: E402

keep_offline()
import pymupdf  # noqa: E402

pymupdf.TOOLS.mupdf_display_errors(False)  # a broken font's complaint is not a part of the profile

from benchmarks import bench_extract  # noqa: E402
from benchmarks.record import DEFAULT_CORPUS, assay_text_layer, pdf_documents  # noqa: E402

#: The parts of the path: a label, then the function whose cumulative time it is (file name ending, name).
PARTS: tuple[tuple[str, str, str], ...] = (
    ("read: the PDF reader chain", "readers/engine/dispatch.py", "extract_document"),
    ("read > MuPDF text page (get_textpage)", "pymupdf/__init__.py", "get_textpage"),
    ("read > MuPDF spans (extractDICT)", "pymupdf/__init__.py", "extractDICT"),
    ("read > MuPDF drawings (get_cdrawings)", "pymupdf/__init__.py", "get_cdrawings"),
    ("read > MuPDF image boxes (get_image_info)", "pymupdf/__init__.py", "get_image_info"),
    ("read > span scan", "readers/pdf/page_spans.py", "_scan_dict"),
    ("read > tagged reading (structure tree)", "readers/pdf/tagged_pages.py", "read_tagged"),
    ("read > ruled tables", "readers/pdf/ruled_tables.py", "find_ruled_tables"),
    ("read > aligned tables", "readers/pdf/unruled_tables.py", "find_aligned_tables"),
    ("read > reading order", "readers/pdf/mupdf.py", "_reading_order"),
    ("read > layout (blocks, furniture)", "readers/pdf/flow_text.py", "_layout"),
    ("signals: every page's rows", "quality/document_signals.py", "measure_document"),
    ("signals > language guess", "quality/language.py", "best_language"),
    ("signals > per-font evidence", "quality/document_signals.py", "_font_evidence"),
    ("signals > prose gate", "quality/prose.py", "is_prose"),
    ("signals > word judging (lexicon)", "quality/page_signals.py", "judged_tokens"),
    ("verdicts: judging the document", "assets/verdicts/judging.py", "judge_document_rows"),
    ("verdicts > evidence and tiers", "quality/judge.py", "judge_one"),
    ("verdicts > the second opinion (pdfplumber)", "readers/pdf/plumber.py", "read_pages"),
    ("verdicts > font repair", "quality/repair.py", "repair"),
)


def profile(corpus: Path) -> tuple[int, float, list[tuple[str, float]], list[tuple[str, float]]]:
    """Pages, the path's profiled seconds, each part's cumulative seconds, and the ten functions that
    spent most time in themselves."""
    documents = pdf_documents(bench_extract.born_digital_pdfs(corpus))
    done = assay_text_layer(documents)  # untimed: imports, profiles and lexicons loaded once per process
    profiler = cProfile.Profile()
    profiler.enable()
    assay_text_layer(documents)
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    cumulative: dict[tuple[str, str], float] = {}
    own: dict[str, float] = {}
    for (filename, line, name), (_calls, _primitive, tottime, cumtime, _callers) in stats.items():
        for _label, ending, function in PARTS:
            if name == function and filename.endswith(ending):
                cumulative[(ending, function)] = cumulative.get((ending, function), 0.0) + cumtime
        where = f"{Path(filename).parent.name}/{Path(filename).name}:{line} {name}" if line else name
        own[where] = own.get(where, 0.0) + tottime
    total = sum(cumulative.get((e, f), 0.0) for label, e, f in PARTS if " > " not in label)
    parts = [(label, cumulative.get((ending, function), 0.0)) for label, ending, function in PARTS]
    top = sorted(own.items(), key=lambda item: -item[1])[:10]
    return done.pages, total, parts, top


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder holding manifest.csv")
    parser.add_argument("--markdown", action="store_true", help="print the tables as markdown")
    args = parser.parse_args()
    if not (args.corpus / "manifest.csv").is_file():
        print(f"no corpus manifest at {args.corpus / 'manifest.csv'}: pass --corpus DIR", file=sys.stderr)
        return 2
    pages, total, parts, top = profile(args.corpus)
    print(f"{pages} pages, {total:.2f} s profiled ({total / pages * 1000:.2f} ms a page)\n")
    rows = [(label, f"{s / pages * 1000:.2f}", f"{s / total:.0%}") for label, s in parts]
    if args.markdown:
        print("| part | ms a page | share of the path |\n|---|---|---|")
        print("\n".join(f"| {a} | {b} | {c} |" for a, b, c in rows))
        print("\n| function (its own time) | ms a page |\n|---|---|")
        print("\n".join(f"| `{name}` | {s / pages * 1000:.2f} |" for name, s in top))
    else:
        print("\n".join(f"  {a:48} {b:>7} ms  {c:>4}" for a, b, c in rows))
        print("\nfunctions that spent most time in themselves:")
        print("\n".join(f"  {name:70} {s / pages * 1000:6.2f} ms" for name, s in top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
