"""Two ways of doing one thing, measured in turn, each in a fresh process of the calling script.

A script that compares a change with its baseline runs itself once per way and round with ``--child WAY``
and the same arguments; the child prints its result as the last line of JSON. The order of the ways
turns round every other round, so neither way always runs first on this shared machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
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


def pdfs(folder: Path, count: int, pages: int) -> list[Path]:
    """The first ``count`` born-digital PDFs of the corpus (every one with ``count`` 0), or, without the
    corpus, ``count`` (at least 3) generated PDFs of ``pages`` dense pages written under ``folder``."""
    if (CORPUS / "manifest.csv").is_file():
        from benchmarks.bench_extract import born_digital_pdfs

        found = born_digital_pdfs(CORPUS)
        return found[:count] if count else found
    from orchestration.demo import make_text_pdf

    text = "Unit consumption rose in the northern district while maintenance costs fell. " * 20
    return [make_text_pdf(folder / f"doc-{n}.pdf", [text] * pages) for n in range(max(count, 3))]
