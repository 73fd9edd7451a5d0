"""The readers parse the bytes the walk hashed, or nothing: a file rewritten, swapped for a link, a pipe or
a socket, or removed between the walk and its read ends ``skipped`` with a reason, stores nothing under
the walked sha256, blocks nothing, and is hashed again by the next walk."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assets.progress import Progress
from orchestration.home import Home
from orchestration.runner import run
from readers.core.base import read_bounded
from readers.core.errors import ChangedSinceWalk, FileUnreadable, FileVanished
from readers.core.model import ContentKind, DocumentStatus, ReadLimits
from readers.core.snapshot import STEP, walked_snapshot
from readers.engine.dispatch import extract_document
from readers.engine.isolation import SCRATCH_PREFIX, IsolatedReads, ReadBudget, ReadBudgets, ReadRequest
from readers.text.plain import PlainTextReader
from tests.hostile import pdf_bytes, write_recursive_forms_pdf
from warehouse.duckdb_catalog import query

# A read that could block (a pipe without a writer) must end well within this.
QUICK_SECONDS = 5.0
MARKER = "PLANTED-FOREIGN-MARKER"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write(path: Path, data: bytes) -> tuple[str, int]:
    path.write_bytes(data)
    return _sha(data), len(data)


def _refused(path: Path, sha256: str, size: int, tmp_path: Path) -> FileUnreadable:
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    started = time.perf_counter()
    with (
        pytest.raises(FileUnreadable) as caught,
        walked_snapshot(path, sha256=sha256, size=size, scratch=scratch),
    ):
        pass
    assert time.perf_counter() - started < QUICK_SECONDS
    assert list(scratch.iterdir()) == []  # nothing of the attempt is left behind
    return caught.value


# --- the snapshot itself -------------------------------------------------------------------------------


def test_a_regular_file_is_copied_privately_and_verified(tmp_path: Path) -> None:
    path = tmp_path / "note.txt"
    sha, size = _write(path, b"the walked bytes\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with walked_snapshot(path, sha256=sha, size=size, scratch=scratch) as copy:
        assert copy.name == path.name and copy != path
        assert copy.read_bytes() == path.read_bytes()
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600
        assert stat.S_IMODE(copy.parent.stat().st_mode) == 0o700
        # The copy does not follow the original: what the readers parse stays the verified bytes.
        path.write_bytes(b"THE WALKED BYTES\n")
        assert copy.read_bytes() == b"the walked bytes\n"
    assert list(scratch.iterdir()) == []


def test_changed_bytes_of_the_same_size_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "note.txt"
    sha, size = _write(path, b"the walked bytes\n")
    path.write_bytes(b"other bytes, same\n"[:size])
    error = _refused(path, sha, size, tmp_path)
    assert isinstance(error, ChangedSinceWalk) and error.reason == "changed_since_walk"
    assert sha in str(error)


@pytest.mark.parametrize("now", [b"short", b"the walked bytes and then some more\n"])
def test_a_size_other_than_the_walked_one_is_refused(tmp_path: Path, now: bytes) -> None:
    path = tmp_path / "note.txt"
    sha, size = _write(path, b"the walked bytes\n")
    path.write_bytes(now)
    assert _refused(path, sha, size, tmp_path).reason == "changed_since_walk"


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "note.txt"
    sha, size = _write(path, b"the walked bytes\n")
    path.unlink()
    os.mkfifo(path)
    assert _refused(path, sha, size, tmp_path).reason == "unreadable"


def test_a_socket_and_a_directory_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "s"
    sha, size = _write(path, b"the walked bytes\n")
    path.unlink()
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        assert _refused(path, sha, size, tmp_path).reason == "unreadable"
    finally:
        server.close()
    path.unlink()
    path.mkdir()
    assert _refused(path, sha, size, tmp_path).reason == "unreadable"


def test_a_removed_file_has_vanished(tmp_path: Path) -> None:
    path = tmp_path / "note.txt"
    sha, size = _write(path, b"the walked bytes\n")
    path.unlink()
    error = _refused(path, sha, size, tmp_path)
    assert isinstance(error, FileVanished) and error.reason == "vanished"


def test_a_link_is_resolved_and_its_target_verified(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    sha, size = _write(target, b"the walked bytes\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with walked_snapshot(link, sha256=sha, size=size, scratch=scratch) as copy:
        assert copy.read_bytes() == b"the walked bytes\n" and not copy.is_symlink()
    # The same link, now to a file holding other bytes of the same size: refused, never read as walked.
    foreign = tmp_path / "foreign.txt"
    foreign.write_bytes(b"x" * size)
    link.unlink()
    link.symlink_to(foreign)
    assert _refused(link, sha, size, tmp_path).reason == "changed_since_walk"
    # A link to a pipe: refused at once.
    link.unlink()
    os.mkfifo(tmp_path / "pipe")
    link.symlink_to(tmp_path / "pipe")
    assert _refused(link, sha, size, tmp_path).reason == "unreadable"


@settings(max_examples=40, deadline=None)
@given(walked=st.binary(max_size=3000), now=st.binary(max_size=3000))
def test_only_the_walked_bytes_are_ever_handed_on(tmp_path_factory, walked: bytes, now: bytes) -> None:
    directory = tmp_path_factory.mktemp("prop")
    path = directory / "doc.bin"
    path.write_bytes(now)
    try:
        with walked_snapshot(path, sha256=_sha(walked), size=len(walked), scratch=directory) as copy:
            assert copy.read_bytes() == walked == now
    except ChangedSinceWalk:
        assert walked != now


# --- the dispatch and the readers ------------------------------------------------------------------------


def _extract(path: Path, kind: ContentKind, sha256: str | None, size: int, scratch: Path | None = None):
    return extract_document(
        path, kind, size=size, limits=ReadLimits(), max_bytes=1 << 30, sha256=sha256, scratch=scratch
    )


def test_a_changed_document_is_skipped_with_one_attempt_saying_why(tmp_path: Path) -> None:
    path = tmp_path / "note.txt"
    sha, size = _write(path, b"the walked bytes\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    assert _extract(path, ContentKind.TEXT, sha, size, scratch).result.pages[0].text == "the walked bytes\n"
    path.write_bytes(f"{MARKER}\n".encode()[:size].ljust(size, b"."))
    ex = _extract(path, ContentKind.TEXT, sha, size, scratch)
    assert (ex.status, ex.reason, ex.result, ex.empty_result) == (
        DocumentStatus.SKIPPED,
        "changed_since_walk",
        None,
        None,
    )
    [attempt] = ex.attempts
    assert attempt.reader == STEP and attempt.failed and MARKER not in attempt.detail
    assert list(scratch.iterdir()) == []


def test_a_worker_stopped_over_its_budget_leaves_no_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "forms.pdf"
    write_recursive_forms_pdf(path)
    data = path.read_bytes()
    request = ReadRequest("forms", path, ContentKind.PDF, len(data), sha256=_sha(data))
    with IsolatedReads(ReadLimits(), 1 << 30, ReadBudgets(ReadBudget(1.0, 1 << 32)), workers=1) as pool:
        [done] = list(pool.read([request]))
        assert done.extraction.reason == "timeout"
        scratch = pool._scratch
        assert scratch is not None and [p for p in scratch.rglob("*") if p.is_file()] == []
    assert not scratch.exists()


def test_a_pool_removes_the_snapshot_directories_of_pools_whose_process_is_gone(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    left = Path(tempfile.gettempdir()) / f"{SCRATCH_PREFIX}{dead.pid}-left"
    (left / "worker-1").mkdir(parents=True)
    (left / "worker-1" / "snapshot.pdf").write_bytes(b"%PDF")
    live = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-"))
    path = tmp_path / "note.txt"
    sha, size = _write(path, b"a note\n")
    try:
        with IsolatedReads(ReadLimits(), 1 << 30, ReadBudgets(ReadBudget(60, 1 << 32)), workers=1) as pool:
            [done] = list(pool.read([ReadRequest("n", path, ContentKind.TEXT, size, sha256=sha)]))
            assert done.extraction.status is DocumentStatus.DERIVED
        assert not left.exists() and live.exists()
    finally:
        shutil.rmtree(left, ignore_errors=True)
        shutil.rmtree(live, ignore_errors=True)


def test_the_attempts_name_the_walked_path_not_the_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "junk.pdf"
    sha, size = _write(path, b"%PDF-1.7\nnot a pdf at all\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    ex = _extract(path, ContentKind.PDF, sha, size, scratch)
    assert ex.status is DocumentStatus.ERROR
    assert all(str(scratch) not in a.detail for a in ex.attempts)


def test_the_text_reader_refuses_a_pipe_without_blocking(tmp_path: Path) -> None:
    pipe = tmp_path / "notes.txt"
    os.mkfifo(pipe)
    started = time.perf_counter()
    with pytest.raises(FileUnreadable):
        PlainTextReader().read(pipe, ReadLimits())
    with pytest.raises(FileUnreadable):
        read_bounded(pipe, 100)  # the opened descriptor is checked too, not only the path
    ex = _extract(pipe, ContentKind.TEXT, None, 0)
    assert (ex.status, ex.reason) == (DocumentStatus.SKIPPED, "unreadable")
    assert time.perf_counter() - started < QUICK_SECONDS


def _page_tree_loop_pdf(path: Path) -> None:
    """A PDF whose trailer's /Prev points at its own cross-reference section and whose page tree is a
    cycle (two /Pages nodes each other's parent and kid): PyMuPDF opens it and counts a page it cannot
    load, pdfminer recurses without end. Written by hand, with exact offsets, so no reader repairs it."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 3 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R 4 0 R] /Count 1 /Parent 2 0 R >>",
        b"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 200 200] /Contents 5 0 R >>",
        b"<< /Length 38 >>\nstream\nBT /F1 12 Tf 20 100 Td (water) Tj ET\nendstream",
    ]
    path.write_bytes(pdf_bytes(objects, prev_is_self=True))


def test_a_pdf_every_reader_failed_on_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "loop.pdf"
    _page_tree_loop_pdf(path)
    data = path.read_bytes()
    ex = _extract(path, ContentKind.PDF, _sha(data), len(data))
    assert [(a.reader, a.failed) for a in ex.attempts] == [("pymupdf", True), ("pdfplumber", True)]
    assert (ex.status, ex.reason) == (DocumentStatus.ERROR, "corrupt")
    assert "page" in ex.attempts[0].detail


# --- the pipeline: swapped between the walk and the read -------------------------------------------------

ORIGINAL = {
    "keep.txt": b"A note about reservoir levels that nobody touches.\n",
    "same-size.txt": b"The walked note on water meters, first version.\n",
    "to-link.txt": b"The walked note on pumping stations and valves.\n",
    "to-fifo.txt": b"The walked note on sewer mains and inspections.\n",
    "removed.txt": b"The walked note on treatment plants and filters.\n",
    "z-target.txt": b"A note that a link inside the root leads to, read through it.\n",
}


def _foreign(like: bytes) -> bytes:
    """Other bytes of the same size, holding the marker."""
    return f"{MARKER} ".encode().ljust(len(like) - 1, b"x") + b"\n"


def _statuses(home: Path) -> dict[str, tuple[str, str | None, str]]:
    rows = query(
        Home(home).warehouse,
        "select d.path, v.status, v.reason, v.sha256 from derivations v join documents d using (sha256)",
    ).rows
    return {Path(p).name: (s, r, sha) for p, s, r, sha in rows}


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return []


def _views_holding(home: Path, needle: str) -> dict[str, int]:
    """Every view of the catalog, every string column (lists too): rows holding ``needle``."""
    wh = Home(home).warehouse
    views = [v for (v,) in query(wh, "select view_name from duckdb_views() where not internal").rows]
    assert {"pages", "page_texts", "texts", "chunks", "underivables"} <= set(views)
    found: dict[str, int] = {}
    for view in views:
        hits = sum(
            1 for row in query(wh, f'select * from "{view}"').rows if any(needle in s for s in _strings(row))
        )
        if hits:
            found[view] = hits
    return found


@pytest.mark.slow
def test_files_swapped_between_walk_and_read_store_nothing_and_are_walked_again(
    home: Path, tmp_path: Path
) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    for name, data in ORIGINAL.items():
        (root / name).write_bytes(data)
    (root / "a-link.txt").symlink_to(root / "z-target.txt")  # sorts first: the document's path is the link
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "planted.txt").write_bytes(_foreign(ORIGINAL["to-link.txt"]))

    def swap(stage: str, _value: object) -> None:
        if stage != "extract":
            return
        same = root / "same-size.txt"
        before = same.stat()
        same.write_bytes(_foreign(ORIGINAL["same-size.txt"]))
        os.utime(same, ns=(before.st_atime_ns, before.st_mtime_ns))
        (root / "to-link.txt").unlink()
        (root / "to-link.txt").symlink_to(outside / "planted.txt")
        (root / "to-fifo.txt").unlink()
        os.mkfifo(root / "to-fifo.txt")
        (root / "removed.txt").unlink()

    report = run(Home(home), [root], Progress(), on_stage=swap)
    assert report.ok, report.failures
    first = _statuses(home)
    walked = {name: _sha(data) for name, data in ORIGINAL.items()}
    assert first["same-size.txt"] == ("skipped", "changed_since_walk", walked["same-size.txt"])
    assert first["to-link.txt"] == ("skipped", "changed_since_walk", walked["to-link.txt"])
    assert first["to-fifo.txt"] == ("skipped", "unreadable", walked["to-fifo.txt"])
    assert first["removed.txt"] == ("skipped", "vanished", walked["removed.txt"])
    # The others are unaffected; the link inside the root is read through to its target.
    assert first["keep.txt"] == ("derived", None, walked["keep.txt"])
    assert first["a-link.txt"] == ("derived", None, walked["z-target.txt"])
    assert _views_holding(home, MARKER) == {}
    wh = Home(home).warehouse
    skipped = [walked[n] for n in ("same-size.txt", "to-link.txt", "to-fifo.txt", "removed.txt")]
    for table in ("pages", "page_texts", "texts", "chunks"):
        assert query(wh, f"select count(*) from {table} where sha256 in ?", [skipped]).rows == [(0,)], table
    attempts = query(wh, "select tool, reason from underivables where sha256 in ? order by 2", [skipped]).rows
    assert attempts == [
        (STEP, "changed_since_walk"),
        (STEP, "changed_since_walk"),
        (STEP, "unreadable"),
        (STEP, "vanished"),
    ]
    kept = query(wh, "select text from texts where sha256 = ?", [walked["keep.txt"]]).rows
    assert "reservoir levels" in kept[0][0]
    # The pipe blocked nothing: its read ended at once (the read budget is 600 s).
    fifo = [walked["to-fifo.txt"]]
    [(spent,)] = query(wh, "select duration_ms from derivations where sha256 = ?", fifo).rows
    assert spent < QUICK_SECONDS * 1000

    # Before the next run: new bytes at every path (the same-size rewrite stays, its mtime restored).
    (root / "to-link.txt").unlink()
    (root / "to-fifo.txt").unlink()
    fresh = {
        "to-link.txt": b"A new note on pumping stations.\n",
        "to-fifo.txt": b"A new note on sewer mains.\n",
        "removed.txt": b"A new note on treatment plants.\n",
    }
    for name, data in fresh.items():
        (root / name).write_bytes(data)
    fresh["same-size.txt"] = (root / "same-size.txt").read_bytes()

    progress = Progress()
    report = run(Home(home), [root], progress)
    assert report.ok, report.failures
    second = _statuses(home)
    # Each changed path was hashed again (the size + mtime cache did not answer for it) and read under
    # its new sha256; nothing else was hashed or read.
    assert progress.hashed == len(fresh) and progress.outcomes.get("read", 0) == len(fresh)
    for name, data in fresh.items():
        assert second[name] == ("derived", None, _sha(data)), name
    assert second["keep.txt"] == first["keep.txt"]
    for table in ("derivations", "underivables", "pages", "page_texts", "texts", "chunks"):
        assert query(wh, f"select count(*) from {table} where sha256 in ?", [skipped]).rows == [(0,)], table
    # The marker is now the text of the rewritten file, under its own hash only.
    holders = query(wh, "select distinct sha256 from texts where text like ?", [f"%{MARKER}%"]).rows
    assert holders == [(_sha(fresh["same-size.txt"]),)]
