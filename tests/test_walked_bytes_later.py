"""The stages after extract read only the walked bytes too: the verdicts' second opinion and ink measure,
and OCR's rendering, open a document's file through a verified snapshot made once per document, so a file
swapped after the walk never puts foreign text or evidence under the walked sha256."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import pytest

from assets.ocr.page_reading import LanguageChoice, OcrTask, ocr_tasks
from assets.ocr.work import ShardInput, ocr_shards
from assets.progress import Progress
from assets.verdicts.judging import judge_document_rows
from orchestration.document_builders import make_image_only_pdf, make_text_pdf
from orchestration.home import Home
from orchestration.runner import run
from quality.cer import cer
from quality.records import OcrScope, PageVerdictRecord
from readers.core.errors import ChangedSinceWalk, FileVanished
from readers.core.model import ContentKind, ReadLimits
from readers.core.reading_records import DocumentRecord, PageRecord
from readers.core.snapshot import WalkedFile
from tests.test_walked_bytes import _views_holding
from warehouse.duckdb_catalog import query

WALKED_TEXT = "The walked scan reports the reservoir levels of the northern district for the spring."
# A word Tesseract reads reliably in a generated scan, found nowhere in the walked documents.
MARKER = "QUIXOTIC"
FOREIGN_TEXT = f"The planted scan says {MARKER} zebras crossed the {MARKER} bridge at dawn today."
PROSE = (
    "The committee reviewed the annual budget and agreed that the water treatment plant needs new "
    "filters before the summer. Residents of the eastern district asked for better street lighting and "
    "for more frequent collection of household waste. The council will publish its decision next month "
    "after the public consultation has ended and every comment has been read."
)
# A text layer of letters that form no words, which no repair of its font turns into prose.
NONSENSE = "Xqvbrtz wqpzlkm zzyxwvq " * 20


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _same_size(a: bytes, b: bytes) -> tuple[bytes, bytes]:
    """Both PDFs padded with trailing whitespace (after ``%%EOF``, which readers ignore) to one size."""
    size = max(len(a), len(b))
    return a.ljust(size, b"\n"), b.ljust(size, b"\n")


def _swap_keeping_stat(path: Path, data: bytes) -> None:
    """Rewrite ``path`` with ``data`` (of its size) and restore its mtime: the walk's size + mtime cache
    cannot tell."""
    before = path.stat()
    assert len(data) == before.st_size
    path.write_bytes(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


# --- one verified snapshot per document ------------------------------------------------------------------


def test_a_walked_file_is_verified_and_copied_once_and_removed_on_close(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(b"%PDF-1.7 the walked bytes\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with WalkedFile(
        path, sha256=_sha(path.read_bytes()), size=path.stat().st_size, scratch=scratch
    ) as walked:
        first = walked.path()
        path.write_bytes(b"%PDF-1.7 THE WALKED BYTES\n")  # changed after the copy: the copy stands
        assert walked.path() == first and first.read_bytes() == b"%PDF-1.7 the walked bytes\n"
        assert len(list(scratch.iterdir())) == 1 and walked.refused is None
    assert list(scratch.iterdir()) == []


def test_a_refusal_is_kept_for_every_later_page(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    walked_bytes = b"%PDF-1.7 the walked bytes\n"
    path.write_bytes(b"%PDF-1.7 THE WALKED BYTES\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with WalkedFile(path, sha256=_sha(walked_bytes), size=len(walked_bytes), scratch=scratch) as walked:
        with pytest.raises(ChangedSinceWalk) as caught:
            walked.path()
        path.write_bytes(walked_bytes)  # put back: the document's verdict for this stage is already made
        with pytest.raises(ChangedSinceWalk):
            walked.path()
        assert walked.refused is caught.value and caught.value.reason == "changed_since_walk"
    assert list(scratch.iterdir()) == []
    with (
        WalkedFile(tmp_path / "gone.pdf", sha256=_sha(b""), size=0, scratch=scratch) as gone,
        pytest.raises(FileVanished),
    ):
        gone.path()
    assert list(scratch.iterdir()) == []


# --- OCR ---------------------------------------------------------------------------------------------------


def _task(path: Path, data: bytes, page: int) -> OcrTask:
    sha = _sha(data)
    return OcrTask(
        sha,
        sha[:2],
        path,
        len(data),
        ContentKind.PDF,
        page,
        OcrScope.PAGE,
        LanguageChoice("eng", "configured"),
    )


@pytest.mark.slow
def test_ocr_renders_every_page_from_one_snapshot_and_refuses_a_swapped_file(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    walked = make_image_only_pdf(tmp_path / "walked.pdf", [WALKED_TEXT, WALKED_TEXT.upper()]).read_bytes()
    foreign = make_image_only_pdf(tmp_path / "foreign.pdf", [FOREIGN_TEXT, FOREIGN_TEXT]).read_bytes()
    walked, foreign = _same_size(walked, foreign)
    swapped = tmp_path / "swapped.pdf"
    swapped.write_bytes(foreign)  # walked as ``walked``, holding ``foreign`` now
    kept = tmp_path / "kept.pdf"
    kept.write_bytes(walked)
    tasks = [
        _task(swapped, walked, 1),
        _task(swapped, walked, 2),
        _task(kept, walked, 2),
        _task(kept, walked, 1),
        _task(kept, walked, 9),  # no such page: a render failure of its own, the snapshot is still removed
    ]
    rows = ocr_tasks(tasks, "v", scratch=scratch)
    assert [(r.page, r.status, r.reason, r.text) for r in rows[:2]] == [
        (1, "error", "changed_since_walk", None),
        (2, "error", "changed_since_walk", None),
    ]
    assert [(r.page, r.status) for r in rows[2:4]] == [(2, "derived"), (1, "derived")]
    assert cer(WALKED_TEXT.upper(), rows[2].text) < 0.05 and cer(WALKED_TEXT, rows[3].text) < 0.05
    assert rows[4].status == "error" and rows[4].reason.startswith("render_failed:")
    assert not any(MARKER in (r.text or "") for r in rows)
    # The kept document's snapshot is gone once the stage ends, though its last page failed.
    assert list(scratch.iterdir()) == []


def test_ocr_of_a_shard_whose_file_changed_falls_back_as_for_any_ocr_error(tmp_path: Path) -> None:
    walked = make_image_only_pdf(tmp_path / "walked.pdf", [WALKED_TEXT]).read_bytes()
    path = tmp_path / "scan.pdf"
    path.write_bytes(b"%PDF-1.7 something else entirely\n")
    sha = _sha(walked)
    doc = DocumentRecord(sha, sha[:2], "pdf", "bytes", len(walked), None, None, str(path), "v")
    verdict = PageVerdictRecord(
        sha,
        sha[:2],
        "v",
        1,
        "REPLACE",
        ["no_text_layer"],
        "raw_scan",
        None,
        None,
        None,
        "ocr",
        "5",
        "no_text",
    )
    inp = ShardInput(sha[:2], [doc], [verdict], [], [], [], [])
    (out,) = ocr_shards([inp], "v", default_language="eng", installed=["eng"])
    assert [(r.status, r.reason) for r in out.ocr] == [("error", "changed_since_walk")]
    assert [(t.page, t.source, t.text) for t in out.texts] == [(1, "none", None)]


# --- verdicts ----------------------------------------------------------------------------------------------


def _garbled_page(sha: str) -> PageRecord:
    """The stored reading of a page whose text layer is garbage: judged REPLACE, so the second opinion is
    asked for."""
    return PageRecord(
        sha,
        sha[:2],
        "v",
        1,
        "pymupdf",
        "1",
        NONSENSE,
        len(NONSENSE),
        0.0,
        0.0,
        0,
        ["F"],
        0,
        0,
        0,
        0,
        lexicon_judged=True,
        lexicon_hit_rate=0.0,
        lexicon_weight=500.0,
        language="en",
        language_similarity=0.9,
    )


def test_the_second_opinion_reads_only_the_walked_bytes(tmp_path: Path) -> None:
    walked = make_text_pdf(tmp_path / "walked.pdf", [NONSENSE]).read_bytes()
    foreign_text = f"{PROSE} {MARKER}"
    path = make_text_pdf(tmp_path / "swapped.pdf", [foreign_text])
    foreign = path.read_bytes()

    def judged(data: bytes):
        page = _garbled_page(_sha(data))
        return judge_document_rows(
            "pdf", path, page.sha256, page.shard, "v", [page], [], ReadLimits(), size=len(data)
        )

    # The file as walked: the fallback reader reads it well, its text is taken (so the test can fail).
    taken = judged(foreign)
    assert any(MARKER in r.text for r in taken.repairs) and taken.pages[0].mode != "REPLACE"
    # Walked as other bytes: no second opinion, the first reading stands, nothing of the file is kept.
    refused = judged(walked)
    assert refused.repairs == [] and refused.pages[0].mode == "REPLACE"
    assert not any(MARKER in s for v in refused.pages for s in v.reasons)


# --- the whole run -----------------------------------------------------------------------------------------


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system's temporary directory, for this test alone: what the stages leave there is seen."""
    path = tmp_path / "tmp"
    path.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(path))
    return path


def _snapshots_left(tmp: Path) -> list[Path]:
    return list(tmp.glob("assay-read-*"))


@pytest.mark.slow
def test_a_scan_swapped_before_ocr_gives_no_foreign_text_and_is_read_again(
    home: Path, tmp_path: Path, private_tmp: Path
) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    walked = make_image_only_pdf(tmp_path / "walked.pdf", [WALKED_TEXT]).read_bytes()
    foreign = make_image_only_pdf(tmp_path / "foreign.pdf", [FOREIGN_TEXT]).read_bytes()
    walked, foreign = _same_size(walked, foreign)
    scan = root / "scan.pdf"
    scan.write_bytes(walked)

    def swap(stage: str, _value: object) -> None:
        if stage == "ocr":
            _swap_keeping_stat(scan, foreign)

    report = run(Home(home), [root], Progress(), on_stage=swap)
    assert report.ok, report.failures
    wh = Home(home).warehouse
    old = _sha(walked)
    assert query(wh, "select mode from page_verdicts where sha256 = ?", [old]).rows == [("REPLACE",)]
    assert query(wh, "select page, status, reason, text from ocr_pages where sha256 = ?", [old]).rows == [
        (1, "error", "changed_since_walk", None)
    ]
    assert query(wh, "select source from page_texts where sha256 = ?", [old]).rows == [("none",)]
    assert _views_holding(home, MARKER) == {}
    assert _snapshots_left(private_tmp) == []

    # The next walk hashes the path again (its size and mtime are unchanged) and reads the new bytes.
    progress = Progress()
    report = run(Home(home), [root], progress)
    assert report.ok, report.failures
    new = _sha(foreign)
    assert progress.hashed == 1
    assert query(wh, "select sha256 from documents").rows == [(new,)]
    for table in ("derivations", "pages", "page_verdicts", "ocr_pages", "page_texts"):
        assert query(wh, f"select count(*) from {table} where sha256 = ?", [old]).rows == [(0,)], table
    [(status, text)] = query(wh, "select status, text from ocr_pages where sha256 = ? and kept", [new]).rows
    assert status == "derived" and MARKER in text
    holders = query(wh, "select distinct sha256 from texts where text like ?", [f"%{MARKER}%"]).rows
    assert holders == [(new,)]
    assert _snapshots_left(private_tmp) == []


@pytest.mark.slow
def test_a_pdf_swapped_before_the_verdicts_gives_no_second_opinion_from_the_new_bytes(
    home: Path, tmp_path: Path, private_tmp: Path
) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    walked = make_text_pdf(tmp_path / "walked.pdf", [NONSENSE]).read_bytes()
    foreign = make_text_pdf(tmp_path / "foreign.pdf", [f"{PROSE} {MARKER}"]).read_bytes()
    walked, foreign = _same_size(walked, foreign)
    path = root / "minutes.pdf"
    path.write_bytes(walked)

    def swap(stage: str, _value: object) -> None:
        if stage == "verdicts":
            _swap_keeping_stat(path, foreign)

    report = run(Home(home), [root], Progress(), on_stage=swap)
    assert report.ok, report.failures
    wh = Home(home).warehouse
    old = _sha(walked)
    # The garbled page stays condemned on its own reading; the fallback reader never saw the new bytes.
    assert query(wh, "select mode from page_verdicts where sha256 = ?", [old]).rows == [("REPLACE",)]
    assert query(wh, "select count(*) from repairs where sha256 = ?", [old]).rows == [(0,)]
    assert query(wh, "select status, reason from ocr_pages where sha256 = ?", [old]).rows == [
        ("error", "changed_since_walk")
    ]
    assert _views_holding(home, MARKER) == {}
    assert _snapshots_left(private_tmp) == []
