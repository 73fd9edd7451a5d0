"""Two ways of doing one thing, measured in turn, each in a fresh process of the calling script.

A script that compares a change with its baseline runs itself once per way and round with ``--child WAY``
and the same arguments; the child prints its result as the last line of JSON. The order of the ways
turns round every other round, so neither way always runs first on this shared machine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"


def in_children(
    script: str, ways: Sequence[str], rounds: int, arguments: Sequence[str]
) -> Iterator[tuple[int, str, Any]]:
    """(round, way, what the child printed) for every way of every round, rounds counted from 1."""
    for n in range(rounds):
        for way in ways if n % 2 == 0 else ways[::-1]:
            command = [sys.executable, script, "--child", way, *arguments]
            out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=REPO).stdout
            yield n + 1, way, json.loads(out.strip().splitlines()[-1])


def add_child_arguments(parser: argparse.ArgumentParser, ways: Sequence[str]) -> None:
    """The arguments :func:`in_children` runs the script with: ``--child WAY`` and the paths to read
    (hidden from ``--help``)."""
    parser.add_argument("--child", choices=list(ways), help=argparse.SUPPRESS)
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)


def answer(result: Any) -> int:
    """A child's result, printed as the line of JSON :func:`in_children` reads; the exit code."""
    print(json.dumps(result))
    return 0


def pdfs(folder: Path, count: int, pages: int) -> list[Path]:
    """The first ``count`` born-digital PDFs of the corpus (every one with ``count`` 0), or, without the
    corpus, ``count`` (at least 3) generated PDFs of ``pages`` dense pages written under ``folder``."""
    if (CORPUS / "manifest.csv").is_file():
        from benchmarks.bench_extract import born_digital_pdfs

        found = born_digital_pdfs(CORPUS)
        return found[:count] if count else found
    from orchestration.document_builders import make_text_pdf

    text = "Unit consumption rose in the northern district while maintenance costs fell. " * 20
    return [make_text_pdf(folder / f"doc-{n}.pdf", [text] * pages) for n in range(max(count, 3))]


@contextmanager
def read_pool(paths: Sequence[str]) -> Iterator[tuple[Any, list[Any]]]:
    """Two read workers as the extract stage starts them (``readers.engine.isolation.IsolatedReads`` with
    the default settings), and a PDF read request for each of ``paths``; ended with the block."""
    from assets.resources import AssaySettings
    from readers.core.model import ContentKind
    from readers.engine import isolation

    settings = AssaySettings()
    requests = [
        isolation.ReadRequest(Path(p).name, Path(p), ContentKind.PDF, Path(p).stat().st_size) for p in paths
    ]
    with isolation.IsolatedReads(
        settings.limits(), settings.max_document_bytes, settings.budgets(), workers=2
    ) as pool:
        yield pool, requests
