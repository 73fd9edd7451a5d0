"""A generated corpus, ``assay run`` over it, and the query results of a home as rows two homes can be
compared by (tests/test_determinism.py, tests/test_crash_safety.py).

Every public view of the catalog (each table of ``warehouse/schema.py``, which ``docs/tables.md`` lists, and
the derived views) is read whole through the read-only DuckDB catalog ``assay sql`` uses. Columns that
record the moment rather than the corpus are left out (``MOMENT_COLUMNS``); paths under the home or the
corpus root are written relative to them, so two homes over the same corpus give equal rows exactly when
assay made the same decisions and wrote the same texts.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import signal
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docx
import pymupdf

from orchestration.document_builders import make_image_only_pdf, make_text_pdf
from warehouse import Warehouse
from warehouse.duckdb_catalog import query
from warehouse.schema import TABLES, VIEWS

ASSAY = Path(sys.executable).with_name("assay")

# Columns whose values say when or how fast something ran, or what the home had seen before, not what
# assay concluded about the corpus. Named as the schema names them; tests/test_determinism.py checks that
# each still exists and that no timestamp or wall-time column of the schema escapes this list.
MOMENT_COLUMNS = frozenset(
    {
        "seen_at",  # observations: the wall clock when the walk saw the path
        # observations: whether this walk hashed the file or the size+mtime cache answered, which depends
        # on what the home's earlier walks saw (a rerun after a kill finds the cache warm), not on the file
        "hashed",
        "derived_at",  # derivations: the wall clock when the document was read
        "duration_ms",  # derivations: how long the read took
        "seconds",  # ocr_pages: how long rendering and recognition took
    }
)

PUBLIC_VIEWS: tuple[str, ...] = (*TABLES, *VIEWS)

# Stand-ins for the two absolute directories a home's rows may name: its own and the corpus root.
HOME_MARK = "<home>"
ROOT_MARK = "<root>"

# Every document of the corpus is placed in the first block of 32 shards (sha256 00.. to 1f..), by a
# number in its bytes varied until they hash there: one Dagster run per stage covers them all, so a run
# spends its time in assay rather than in Dagster's bookkeeping of runs and partitions. Spread over all 256
# shards, a run of the crash test's corpus took 145 s in 44 Dagster runs on a loaded 2-core machine,
# against 33 s in 9 placed in one block.
SHARD_BLOCK_END = "1f"
# Tries before giving up on placing a document: each lands in the block with probability 1/8.
MAX_PLACEMENT_TRIES = 400

REPORT = """# Reservoir operations

The reservoir at Hollow Creek held {volume} megalitres at the end of {month}, eleven per cent above the
seasonal average. Inflows from the upper catchment were steady and the spillway stayed closed.

# Treatment works

Both filtration trains ran through the month. Turbidity after filtration stayed below the regulatory
limit on every day, and the chlorine residual at the clear water tank was within its band.

Filed under reference {reference}."""

MONTHS = ("January", "February", "March", "April", "May", "June")
SCAN_TEXT = (
    "Meter readings for the eastern district were collected on Tuesday and entered the same afternoon."
)
EMAIL = "jane.roe@example.org"
PHONE = "+44 20 7946 0958"  # the numbering plan's range for fiction: valid, and nobody's


@dataclass(frozen=True, slots=True)
class Corpus:
    """A generated corpus: its root and what a run over it must find."""

    root: Path
    files: int
    documents: int  # the files and the zip's member
    reports: int  # born-digital PDFs, besides the small set of one of each kind


def write_corpus(root: Path, *, reports: int = 3, notes: int = 0, pages: int = 2) -> Corpus:
    """One of each kind the stages treat differently (born-digital PDFs, a one-page scan for OCR, a Word
    document, a note with an e-mail address and a phone number to redact, an HTML page, a zip holding a
    note), plus ``reports`` born-digital PDFs of ``pages`` pages and ``notes`` plain notes."""
    scratch = root.parent / f".{root.name}-scratch"
    scratch.mkdir(parents=True)
    root.mkdir(parents=True)
    try:
        for i in range(reports):
            report = _report_pdf(scratch, i, pages)
            _place(root / f"report-{i:02d}.pdf", lambda n, pdf=report: _with_keywords(pdf, n))
        scan = make_image_only_pdf(scratch / "scan.pdf", [SCAN_TEXT]).read_bytes()
        _place(root / "scan.pdf", lambda n: _with_keywords(scan, n))
        _place(root / "inspection.docx", _docx)
        _place(
            root / "contact.txt",
            lambda n: (
                f"For questions about the billing change write to {EMAIL} or call {PHONE}.\n"
                f"The office answers on weekdays between nine and five. Ref. {n}.\n"
            ).encode(),
        )
        _place(root / "notice.html", _html)
        member = _placed_bytes(
            lambda n: (
                f"Minutes of the board meeting: the capital plan for the new service reservoir was "
                f"approved. Item {n}.\n".encode()
            )
        )
        _place(root / "minutes.zip", lambda n: _zip(member, n))
        for i in range(notes):
            _place(
                root / f"note-{i:02d}.txt",
                lambda n, i=i: (
                    f"Note {i}: station {i * 7} logged {i * 13 + 5} megalitres. Ref. {n}.\n".encode()
                ),
            )
    finally:
        shutil.rmtree(scratch)
    files = reports + notes + 5  # the scan, the Word document, the contact note, the page, the zip
    return Corpus(root, files=files, documents=files + 1, reports=reports)


@dataclass(frozen=True, slots=True)
class AssayRun:
    """``assay run`` going on in a process group of its own (its readers run in worker processes)."""

    home: Path
    process: subprocess.Popen[bytes]
    log: Path

    def __enter__(self) -> AssayRun:
        return self

    def __exit__(self, *exc: object) -> None:
        """A test that fails or times out leaves no run behind."""
        if self.process.poll() is None:
            self.kill()

    def wait(self, timeout: float) -> str:
        """Its output once it has finished, after asserting that it succeeded."""
        self.process.wait(timeout=timeout)
        output = self.log.read_text(encoding="utf-8", errors="replace")
        assert self.process.returncode == 0, output[-4000:]
        return output

    def kill(self) -> None:
        """SIGKILL to the whole group, the readers' workers included, as the OOM killer or a machine
        going away would; returns once the run's own process is reaped."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


def start_run(
    home: Path,
    root: Path,
    *,
    hash_seed: str = "0",
    settings: dict[str, str] | None = None,
    log: Path | None = None,
) -> AssayRun:
    """``assay run --home HOME ROOT``, the console script, with its own hash seed and ``settings`` (ASSAY_*
    variables); its output goes to ``log``, by default a log beside the home."""
    env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_HOME", "DAGSTER_HOME")}
    env["PYTHONHASHSEED"] = hash_seed
    env.update(settings or {})
    home.parent.mkdir(parents=True, exist_ok=True)
    log = log if log is not None else home.with_name(f"{home.name}.log")
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(ASSAY), "run", "--home", str(home), str(root)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return AssayRun(home, process, log)


@dataclass(frozen=True, slots=True)
class ViewRows:
    """One view's rows, restricted to the compared columns, with paths made relative, sorted."""

    view: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]

    def column(self, name: str) -> list[Any]:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]


@dataclass(frozen=True, slots=True)
class HomeRows:
    """The compared rows of every public view of one home."""

    views: tuple[ViewRows, ...]

    def view(self, name: str) -> ViewRows:
        for v in self.views:
            if v.view == name:
                return v
        raise KeyError(name)


def compared_columns(warehouse: Warehouse, view: str) -> tuple[str, ...]:
    """The view's columns as the catalog shows them, less the moment columns, in the catalog's order (the
    keys come first in every view: sha256 or chunk_id, then page, attempt, ordinal...)."""
    described = query(warehouse, f'describe select * from "{view}"').rows
    return tuple(name for name, *_ in described if name not in MOMENT_COLUMNS)


def home_rows(home: Path, root: Path) -> HomeRows:
    """Every public view of ``home``'s catalog, for a corpus walked from ``root``, rows sorted by their
    keys."""
    warehouse = Warehouse(home / "warehouse")
    # The longer directory first, so that one inside the other is never half replaced.
    marks = sorted(((str(home.absolute()), HOME_MARK), (str(root.absolute()), ROOT_MARK)), key=_longest)
    views = []
    for view in PUBLIC_VIEWS:
        columns = compared_columns(warehouse, view)
        select = ", ".join(f'"{c}"' for c in columns)
        found = query(warehouse, f'select {select} from "{view}"').rows
        rows = sorted((tuple(_relative(v, marks) for v in row) for row in found), key=_sort_key)
        views.append(ViewRows(view, columns, tuple(rows)))
    return HomeRows(tuple(views))


def differences(a: HomeRows, b: HomeRows, *, shown: int = 3) -> list[str]:
    """What differs between two homes' rows, view by view, for an assertion message."""
    out = []
    for left in a.views:
        right = b.view(left.view)
        if left.columns != right.columns:
            out.append(f"{left.view}: columns {left.columns} != {right.columns}")
        elif left.rows != right.rows:
            only_a = [r for r in left.rows if r not in right.rows][:shown]
            only_b = [r for r in right.rows if r not in left.rows][:shown]
            out.append(
                f"{left.view}: {len(left.rows)} rows against {len(right.rows)}; "
                f"only in the first: {only_a}; only in the second: {only_b}"
            )
    return out


# -- corpus builders ---------------------------------------------------------------------------------


def _placed_bytes(build: Callable[[int], bytes]) -> bytes:
    """The first of ``build(0)``, ``build(1)``... whose sha256 falls in the shard block."""
    for n in range(MAX_PLACEMENT_TRIES):
        data = build(n)
        if hashlib.sha256(data).hexdigest()[:2] <= SHARD_BLOCK_END:
            return data
    raise AssertionError(
        f"no variant hashed into shards 00..{SHARD_BLOCK_END} in {MAX_PLACEMENT_TRIES} tries"
    )


def _place(path: Path, build: Callable[[int], bytes]) -> None:
    path.write_bytes(_placed_bytes(build))


def _report_pdf(scratch: Path, i: int, pages: int) -> bytes:
    texts = [
        REPORT.format(volume=f"{4000 + 37 * i + p:,}", month=MONTHS[p % len(MONTHS)], reference=f"{i}-{p}")
        for p in range(pages)
    ]
    return make_text_pdf(scratch / "report.pdf", texts, title=f"District {i} operations report").read_bytes()


def _with_keywords(pdf: bytes, n: int) -> bytes:
    """The PDF with ``n`` in its keywords: other bytes, the same pages (a tenth of the cost of laying the
    pages out again for each try)."""
    document = pymupdf.open(stream=pdf)
    metadata = document.metadata
    metadata["keywords"] = f"filing {n}"
    document.set_metadata(metadata)
    return document.tobytes(no_new_id=True)


def _docx(n: int) -> bytes:
    document = docx.Document()
    document.add_heading("Pump inspection", level=1)
    document.add_paragraph("The pumps at the river intake were inspected and found in working order.")
    document.add_heading("Findings", level=2)
    document.add_paragraph(f"One seal on pump three weeps slightly and is to be replaced by work order {n}.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _html(n: int) -> bytes:
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Boil water notice lifted</title></head>"
        "<body><nav>Home | News | Contact</nav><main><h1>Boil water notice lifted</h1>"
        "<p>Tests over three consecutive days found the supply in the northern zone safe to drink again. "
        f"Customers no longer need to boil tap water before drinking it. Notice {n}.</p></main></body></html>"
    ).encode()


def _zip(member: bytes, n: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("minutes.txt", date_time=(2024, 3, 1, 12, 0, 0)), member)
        z.comment = f"archive {n}".encode()
    return buffer.getvalue()


# -- rows --------------------------------------------------------------------------------------------


def _longest(mark: tuple[str, str]) -> int:
    return -len(mark[0])


def _relative(value: Any, marks: list[tuple[str, str]]) -> Any:
    """A path (or a lineage node naming one) under the home or the root, written from there."""
    if isinstance(value, str):
        for prefix, mark in marks:
            value = value.replace(prefix, mark)
        return value
    if isinstance(value, list):
        return tuple(_relative(v, marks) for v in value)
    return value


def _sort_key(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """Column by column, nulls last; each view's key columns come first, so rows sort by their keys."""
    return tuple(_sortable(v) for v in row)


def _sortable(value: Any) -> tuple[bool, Any]:
    if value is None:
        return (True, "")
    if isinstance(value, tuple):
        return (False, tuple(_sortable(v) for v in value))
    return (False, value)
