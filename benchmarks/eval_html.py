"""The HTML chain against the main-content segments of the shared corpus.

    .venv/bin/python benchmarks/eval_html.py [--only READER] [--show NAME]

For each ``traf__*.html`` page of ../shared/corpus/dev with a ``dev_truth/<name>.expected_segments.json``,
reads the file with the HTML chain (readers/core/reader_chain.py's row) and checks that every ``with``
segment is in the text and no ``without`` segment is. Prints per page which reader produced the text, the
segments found and leaked, and pass or fail; then the other HTML pages of the corpus with the reader, the
encoding and its evidence. Exits 1 when fewer than :data:`TARGET` pages pass or an HTML page produced
nothing; 2 without the corpus.

Segments and text are compared after Unicode NFC (a letter may be one code point or two: Bengali's ড় is
U+09DC or U+09A1 U+09BC), with whitespace runs folded to one space and the markdown the readers write
(``#`` and list markers, ``**``, backticks, table pipes) taken out. Case and punctuation are compared as
they are: the segments are verbatim copies of the pages, several of their scripts have no case, and a
full stop or a quote is part of what the annotators marked.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
CORPUS = REPO.parent / "shared" / "corpus"

from readers.core.base import Reader, produced_nothing  # noqa: E402
from readers.core.errors import NothingProduced, ReaderError  # noqa: E402
from readers.core.model import ContentKind, ReadLimits  # noqa: E402
from readers.html.chain import read_html_bytes  # noqa: E402

HTML = ContentKind.HTML
from readers.core.reader_chain import readers_for  # noqa: E402
from readers.walk.sniff import sniff  # noqa: E402

#: The acceptance bound of the HTML issue: at least six of the seven annotated pages pass.
TARGET = 6

_MARKDOWN_LINE = re.compile(r"(?m)^\s*(?:#{1,6}\s+|[-*]\s+|\d+\.\s+|>\s?|\|)")
_MARKDOWN_INLINE = re.compile(r"\*\*|__|`+|\s\|\s?|\|$", re.MULTILINE)
_WHITESPACE = re.compile(r"\s+")


def comparable(text: str) -> str:
    """NFC, markdown taken out, whitespace folded (module docstring)."""
    text = unicodedata.normalize("NFC", text)
    text = _MARKDOWN_INLINE.sub(" ", _MARKDOWN_LINE.sub("", text))
    return _WHITESPACE.sub(" ", text).strip()


def chain(only: str | None) -> tuple[tuple[Reader, ...], str]:
    readers = readers_for(ContentKind.HTML)
    origin = "readers/core/reader_chain.py"
    if only:
        readers = tuple(r for r in readers if r.name == only)
        if not readers:
            raise SystemExit(f"no reader named {only!r} in the chain")
        origin = f"{only} alone"
    return readers, origin


def read(path: Path, readers: tuple[Reader, ...]) -> tuple[str, str, str, str]:
    """The text, the reader that produced it (or why none did), the encoding and its evidence."""
    try:
        result = read_html_bytes(path.read_bytes(), limits=ReadLimits(), readers=readers)
    except (ReaderError, NothingProduced) as exc:
        return "", f"error:{getattr(exc, 'reason', type(exc).__name__)}", "", ""
    if produced_nothing(result):
        return "", "nothing", result.encoding or "", result.encoding_source or ""
    name = next((n.split(":", 1)[1] for n in result.notes if n.startswith("html_reader:")), "?")
    return result.text, name, result.encoding or "", result.encoding_source or ""


def main() -> int:
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="evaluate one reader of the chain alone (html-region, trafilatura...)")
    parser.add_argument("--show", help="print the text read from the page whose name contains this")
    args = parser.parse_args()
    pages = sorted((CORPUS / "dev").glob("traf__*.html"))
    if not pages:
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    readers, origin = chain(args.only)
    print(f"chain: {' > '.join(r.name for r in readers)} ({origin})\n")
    print(f"{'page':<42} {'reader':<12} {'with':>6} {'leaked':>7}  result")
    passed = judged = 0
    for path in pages:
        truth = CORPUS / "dev_truth" / f"{path.name}.expected_segments.json"
        if not truth.is_file():
            continue
        segments = json.loads(truth.read_text(encoding="utf-8"))
        text, reader, _, _ = read(path, readers)
        if args.show and args.show in path.name:
            print(text, "\n")
        plain = comparable(text)
        found = [s for s in segments["with"] if comparable(s) in plain]
        leaked = [s for s in segments["without"] if comparable(s) in plain]
        ok = len(found) == len(segments["with"]) and not leaked
        judged += 1
        passed += ok
        print(
            f"{path.name:<42} {reader:<12} {len(found)}/{len(segments['with']):<4} "
            f"{len(leaked)}/{len(segments['without']):<5}  {'pass' if ok else 'FAIL'}"
        )
        for s in segments["with"]:
            if s not in found:
                print(f"    missing: {s!r}")
        for s in leaked:
            print(f"    leaked:  {s!r}")
    print(f"\n{passed} of {judged} pages pass (target {TARGET})\n")

    print(f"{'other HTML page':<42} {'reader':<12} {'encoding':<10} {'evidence':<13} chars")
    empty = 0
    for path in sorted((CORPUS / "dev").iterdir()):
        if path.name.startswith("traf__") or not path.is_file():
            continue
        if path.suffix.lower() not in (".html", ".htm"):
            continue
        if sniff(path.read_bytes(), path.name).kind is not HTML:
            continue
        text, reader, encoding, source = read(path, readers)
        empty += not text.strip()
        print(f"{path.name:<42} {reader:<12} {encoding:<10} {source:<13} {len(text)}")
        if args.show and args.show in path.name:
            print(text, "\n")
    return 0 if passed >= TARGET and not empty else 1


if __name__ == "__main__":
    raise SystemExit(main())
