"""The verdicts' work on a file (the second opinion, the ink measure, a repair's font check) runs in a reader
worker under the read budgets: a page that blows pdfplumber up costs a worker, not the run.

The hostile page: one page of hundreds of thousands of one-character spans, prose with its words glued in
pairs (``thereport ofthe``), so that the verdicts condemn it (``lexicon_low``) and ask pdfplumber, which
holds an object per character: 1.5 million such spans took the run's own process to 4.3 GB.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from assets.verdicts.file_work import DocumentFileWork, FileWork, FileWorkJob
from orchestration.document_builders import make_text_pdf
from quality.judge import SECOND_OPINION_OVER_LIMIT
from readers.core.errors import LimitExceeded, ReaderError
from readers.core.model import ContentKind, ReadLimits
from readers.core.reading_records import PageRecord
from readers.engine.isolation import MEMORY, InProcessJobs, IsolatedJob, JobDone
from tests.test_second_opinion import _judge
from warehouse import Warehouse
from warehouse.duckdb_catalog import query

ASSAY = Path(sys.executable).with_name("assay")
REPO = Path(__file__).resolve().parents[1]
MB = 1 << 20
#: The hostile page's spans: pdfplumber passes the budget below within a few hundred thousand characters,
#: the primary reader (PyMuPDF) reads them within it.
SPANS = 500_000
#: The PDF read budget of the run: a fresh worker rests at about 130 MB and PyMuPDF's read of the page
#: peaks at about 160 MB; pdfplumber passes 400 MB at about 100,000 characters.
BUDGET_MB = 400
#: The run's own process stays under this: it peaks at about 400 MB here, and pdfplumber's layout of the
#: page held in it would add about 1.4 GB.
MAIN_PROCESS_MAX_MB = 1024
PROSE = (
    "the report of the committee was read in the morning and the members agreed that the results of the "
    "survey should be published before the end of the year with a summary of the main findings"
)
GLUED = " ".join(a + b for a, b in zip(PROSE.split()[::2], PROSE.split()[1::2], strict=True)) + " "


def spans_pdf(path: Path, spans: int, per_line: int = 200, lines: int = 830) -> Path:
    """A one-page PDF of ``spans`` one-character ``Tj`` shows in Helvetica at 0.5 pt, ``per_line`` a line,
    columns of ``lines`` lines; its content stream written directly (PyMuPDF takes minutes for as many
    ``insert_text`` calls)."""
    text = GLUED * (spans // len(GLUED) + 1)
    parts = [b"BT /F1 0.5 Tf 1 TL 5 835 Td\n"]
    for i in range(spans):
        if i and i % per_line == 0:
            parts.append(b"\n57 829 Td\n" if (i // per_line) % lines == 0 else b"\nT*\n")
        parts.append(b"(" + text[i].encode() + b")Tj")
    parts.append(b"\nET\n")
    content = b"".join(parts)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> "
        b"/Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path


class _Stopping:
    """Runs no job: each is stopped as a worker over its memory budget would be."""

    def __init__(self) -> None:
        self.ran = 0

    def run(self, jobs: deque[IsolatedJob]) -> Iterator[JobDone]:
        while jobs:
            job = jobs.popleft()
            self.ran += 1
            yield JobDone(job, job.stopped(MEMORY, "the memory reached 401 MB"))


def test_a_stopped_call_raises_over_limit_and_the_file_is_not_worked_on_again(tmp_path: Path) -> None:
    pdf = make_text_pdf(tmp_path / "a.pdf", ["One page of ordinary words."])
    stopping = _Stopping()
    work = DocumentFileWork(stopping, ContentKind.PDF, ReadLimits())
    with pytest.raises(LimitExceeded) as stopped:
        work(FileWork.SECOND_OPINION, pdf, [1])
    assert stopped.value.reason == MEMORY and "401 MB" in str(stopped.value)
    with pytest.raises(LimitExceeded):
        work(FileWork.INK, pdf, [1])
    assert stopping.ran == 1


def test_the_jobs_give_what_the_calls_in_process_gave(tmp_path: Path) -> None:
    pdf = make_text_pdf(tmp_path / "a.pdf", ["One page of ordinary words.", "And a second one."])
    work = DocumentFileWork(InProcessJobs(), ContentKind.PDF, ReadLimits())
    assert work(FileWork.SECOND_OPINION, pdf, [2]) == {2: "And a second one."}
    assert set(work(FileWork.INK, pdf, [1, 2])) == {1, 2}
    assert "One page of ordinary words." in "".join(work(FileWork.FONT_TEXTS, pdf, [1]).values())
    with pytest.raises(ReaderError):
        work(FileWork.SECOND_OPINION, tmp_path / "missing.pdf", [1])


def test_a_job_is_picklable_for_the_workers(tmp_path: Path) -> None:
    import pickle

    job = FileWorkJob(FileWork.SECOND_OPINION, tmp_path / "a.pdf", (1, 2), ReadLimits())
    assert pickle.loads(pickle.dumps(job)) == job and job.activity == "second opinion"


def _peak_rss(command: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run ``command``; its result and the largest resident memory of its own process (not its workers')."""
    with subprocess.Popen(
        command, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        watched = psutil.Process(process.pid)
        peak = 0
        deadline = time.monotonic() + 1200
        while process.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(psutil.Error):
                peak = max(peak, watched.memory_info().rss)
            time.sleep(0.05)
        stdout, stderr = process.communicate(timeout=60)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr), peak


@pytest.mark.slow
def test_a_page_that_blows_the_second_opinion_up_is_stopped_at_the_read_budget(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    hostile = spans_pdf(corpus / "spans.pdf", SPANS)
    make_text_pdf(corpus / "minutes.pdf", ["The committee met in the morning and agreed on the budget."])
    (corpus / "note.txt").write_text("The survey results will be published before the end of the year.\n")
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "ASSAY_"))}
    env["ASSAY_READ_MEMORY_MB_BY_KIND"] = f"pdf={BUDGET_MB}"

    run, peak = _peak_rss([str(ASSAY), "run", "--home", str(home), "--json", str(corpus)], env)

    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads(run.stdout)
    assert report["ok"] and not report["failures"], report
    assert peak < MAIN_PROCESS_MAX_MB * MB, f"the run's process peaked at {peak / MB:.0f} MB"
    wh = Warehouse(home / "warehouse")
    paths = {Path(p).name: s for p, s in query(wh, "select path, sha256 from documents").rows}
    (reasons,) = query(wh, "select reasons from page_verdicts where sha256 = ?", [paths["spans.pdf"]]).rows
    assert f"{SECOND_OPINION_OVER_LIMIT}:{MEMORY}" in reasons[0]
    assert "lexicon_low" in reasons[0]
    outcomes = dict(query(wh, "select path, outcome from outcomes").rows)
    assert {Path(p).name: o for p, o in outcomes.items() if not p.endswith("spans.pdf")} == {
        "minutes.pdf": "derived",
        "note.txt": "derived",
    }
    derived = dict(query(wh, "select sha256, status from derivations").rows)
    assert derived[paths["spans.pdf"]] == "derived"  # its read was within the budget
    assert hostile.stat().st_size > 2 * MB


def test_pages_whose_second_opinion_was_stopped_say_so_and_keep_their_verdict() -> None:
    glued = GLUED * 20
    pages = [
        PageRecord(
            "ab" * 32,
            "ab",
            "v",
            n,
            "pymupdf",
            "1",
            glued,
            len(glued),
            612.0,
            792.0,
            1,
            ["Body"],
            0,
            0,
            0,
            0,
            lexicon_judged=True,
            lexicon_hit_rate=0.06,
            lexicon_weight=400.0,
            language="en",
            language_similarity=0.8,
            lexicon_language="en",
        )
        for n in (1, 2)
    ]

    def judged(second_opinion):
        return [(v.page, v.mode, v.reasons) for v in _judge(pages, second_opinion).pages]

    def stopped(numbers: list[int]) -> dict[int, str]:
        raise LimitExceeded("the second opinion's memory reached 401 MB", reason=MEMORY)

    def failed(numbers: list[int]) -> dict[int, str]:
        raise ReaderError("pdfplumber failed")

    unasked = judged(None)
    assert [mode for _, mode, _ in unasked] == ["REPLACE", "REPLACE"]
    assert judged(failed) == unasked  # a failure of the second opinion changes nothing
    assert judged(stopped) == [
        (page, mode, [*reasons, f"{SECOND_OPINION_OVER_LIMIT}:{MEMORY}"]) for page, mode, reasons in unasked
    ]
