"""The reader dispatch and the per-shard extract logic, on files the tests write."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assets.extract.work import (
    CUT_BACKOFF_CHARS,
    TEXT_CAPPED,
    ExtractOutcome,
    ShardRows,
    cap_pages,
    extract_shard,
)
from orchestration.document_builders import make_image_only_pdf, make_text_pdf
from readers.core import reader_chain
from readers.core.base import Reader, produced_nothing, writable
from readers.core.errors import NothingProduced
from readers.core.model import ContentKind, DocumentStatus, FoundTable, PageText, ReadLimits, ReadResult
from readers.core.reader_chain import READER_CLASSES, READERS, chain_signature, readers_for
from readers.core.reading_records import DocumentRecord
from readers.engine.dispatch import extract_document
from tests.fixture_documents import make_encrypted_pdf

LIMITS = ReadLimits()
BIG = 1 << 30


def _extract(path: Path, kind: ContentKind):
    return extract_document(path, kind, size=path.stat().st_size, limits=LIMITS, max_bytes=BIG)


def test_every_kind_has_a_row_in_the_table() -> None:
    assert set(READERS) == set(ContentKind)
    # Every reader named is where the table says, under the name it records.
    assert {n for chain in READERS.values() for n in chain} == set(READER_CLASSES)
    assert all(reader_chain.reader(name).name == name for name in READER_CLASSES)
    assert [r.name for r in readers_for(ContentKind.PDF)] == ["pymupdf", "pdfplumber"]


def test_produced_nothing_is_whitespace_only() -> None:
    assert produced_nothing(None)
    assert produced_nothing(ReadResult(pages=(PageText(1, " \n\t\u3000"),), page_count=1))
    assert not produced_nothing(ReadResult(pages=(PageText(1, ""), PageText(2, "x")), page_count=2))


def test_born_digital_pdf_is_derived_by_the_first_reader(tmp_path: Path) -> None:
    pdf = make_text_pdf(tmp_path / "a.pdf", ["First page about water tariffs.", "Second page."])
    ex = _extract(pdf, ContentKind.PDF)
    assert ex.status is DocumentStatus.DERIVED and ex.reader == "pymupdf"
    assert not ex.recovered_by_fallback
    assert [p.page for p in ex.result.pages] == [1, 2]
    assert "tariffs" in ex.result.pages[0].text


def test_image_only_pdf_is_underivable_with_one_row_per_attempt(tmp_path: Path) -> None:
    pdf = make_image_only_pdf(tmp_path / "scan.pdf", ["Scanned words"])
    ex = _extract(pdf, ContentKind.PDF)
    assert ex.status is DocumentStatus.UNDERIVABLE and ex.reason == "empty_text"
    assert [(a.reader, a.produced) for a in ex.attempts] == [("pymupdf", False), ("pdfplumber", False)]
    assert ex.result is None


def test_encrypted_pdf_is_an_error_unless_the_user_password_is_empty(tmp_path: Path) -> None:
    locked = make_encrypted_pdf(tmp_path / "locked.pdf", "s3cret", "Confidential tariffs")
    ex = _extract(locked, ContentKind.PDF)
    assert (ex.status, ex.reason) == (DocumentStatus.ERROR, "encrypted")
    open_ = make_encrypted_pdf(tmp_path / "open.pdf", "", "Public tariffs")
    assert _extract(open_, ContentKind.PDF).status is DocumentStatus.DERIVED


@pytest.mark.parametrize(
    ("content", "status", "reason"),
    [
        (b"", DocumentStatus.ERROR, "empty_file"),
        (b"%PDF-1.7\n" + bytes(range(256)) * 8, DocumentStatus.ERROR, "corrupt"),
        (b"\x00\xffjunk" * 100, DocumentStatus.ERROR, "corrupt"),
    ],
)
def test_bad_pdfs_get_a_status_and_a_reason(tmp_path: Path, content: bytes, status, reason) -> None:
    path = tmp_path / "bad.pdf"
    path.write_bytes(content)
    ex = _extract(path, ContentKind.PDF)
    assert (ex.status, ex.reason) == (status, reason)
    assert all(a.failed for a in ex.attempts)


def test_truncated_pdf_never_raises(tmp_path: Path) -> None:
    pdf = make_text_pdf(tmp_path / "whole.pdf", ["Some text " * 50, "More text " * 50])
    data = pdf.read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(data[: len(data) // 2])
    ex = _extract(cut, ContentKind.PDF)  # repaired, or refused: either way a status with a reason
    assert ex.status is DocumentStatus.DERIVED or ex.reason


def test_text_kinds_and_unsupported_kinds(tmp_path: Path) -> None:
    txt = tmp_path / "a.txt"
    txt.write_text("plain words", encoding="utf-8")
    ex = _extract(txt, ContentKind.TEXT)
    assert ex.status is DocumentStatus.DERIVED and ex.result.encoding_source
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert (_extract(empty, ContentKind.TEXT).status, _extract(empty, ContentKind.TEXT).reason) == (
        DocumentStatus.UNDERIVABLE,
        "empty_text",
    )
    legacy = tmp_path / "a.doc"
    legacy.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    ex = _extract(legacy, ContentKind.DOC)
    assert (ex.status, ex.reason, ex.attempts) == (
        DocumentStatus.UNSUPPORTED,
        "no_reader:doc(libreoffice|antiword)",
        (),
    )


def test_too_large_documents_are_skipped(tmp_path: Path) -> None:
    txt = tmp_path / "a.txt"
    txt.write_text("words " * 100)
    ex = extract_document(txt, ContentKind.TEXT, size=txt.stat().st_size, limits=LIMITS, max_bytes=10)
    assert (ex.status, ex.reason) == (DocumentStatus.SKIPPED, "too_large")


class _Silent(Reader):
    name, revision, kinds = "silent", 1, frozenset({ContentKind.TEXT})

    def read(self, path, limits):
        raise NothingProduced("needs OCR", reason="needs_ocr")


class _Crashing(Reader):
    name, revision, kinds = "crashing", 1, frozenset({ContentKind.TEXT})

    def read(self, path, limits):
        raise KeyError("a bug in a reader")


def test_fallback_is_recorded_and_crashes_fall_through(tmp_path: Path, monkeypatch) -> None:
    txt = tmp_path / "a.txt"
    txt.write_text("rescued words")
    classes = {**READER_CLASSES, "silent": f"{__name__}:_Silent", "crashing": f"{__name__}:_Crashing"}
    monkeypatch.setattr(reader_chain, "READER_CLASSES", classes)
    monkeypatch.setattr(
        reader_chain, "READERS", {**READERS, ContentKind.TEXT: ("silent", "crashing", "text")}
    )
    ex = _extract(txt, ContentKind.TEXT)
    assert ex.status is DocumentStatus.DERIVED and ex.reader == "text" and ex.recovered_by_fallback
    assert [(a.reader, a.reason) for a in ex.attempts] == [
        ("silent", "needs_ocr"),
        ("crashing", "reader_crashed:KeyError"),
        ("text", None),
    ]


class _HalfPair(Reader):
    """A library's output with half of a surrogate pair in the text, a table cell and an artifact line."""

    name, revision, kinds = "half_pair", 1, frozenset({ContentKind.TEXT})

    def read(self, path, limits):
        table = FoundTable(
            1, 0, (0.0, 0.0, 1.0, 1.0), (("a", "\ud800"), ("b", "c")), 1, "| a | \ud800 |", "ruled", 1.0
        )
        page = PageText(
            1, "Gothic \ud800 text\n\n| a | \ud800 |", tables=(table,), artifacts=("Page \udfff",)
        )
        return ReadResult(pages=(page,), page_count=1)


def test_half_a_surrogate_pair_from_a_library_is_written_as_the_replacement_character(
    tmp_path: Path, monkeypatch
) -> None:
    txt = tmp_path / "a.txt"
    txt.write_text("words")
    monkeypatch.setattr(
        reader_chain, "READER_CLASSES", {**READER_CLASSES, "half_pair": f"{__name__}:_HalfPair"}
    )
    monkeypatch.setattr(reader_chain, "READERS", {**READERS, ContentKind.TEXT: ("half_pair",)})
    ex = _extract(txt, ContentKind.TEXT)
    assert ex.status is DocumentStatus.DERIVED
    (page,) = ex.result.pages
    assert page.text == "Gothic \ufffd text\n\n| a | \ufffd |"
    assert page.tables[0].cells[0][1] == "\ufffd" and page.artifacts == ("Page \ufffd",)
    page.text.encode("utf-8")
    page = PageText(1, "plain")
    assert writable(ReadResult(pages=(page,), page_count=1)).pages[0] is page


def _doc(path: Path, kind: ContentKind, version: str = "v1") -> DocumentRecord:
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    return DocumentRecord(
        sha, sha[:2], kind.value, "bytes", path.stat().st_size, None, None, str(path), version
    )


def _shard(docs, version, existing=None, prior=None):
    shard = docs[0].shard
    return extract_shard(
        shard,
        docs,
        version=version,
        existing=existing or ShardRows(),
        prior=prior,
        limits=LIMITS,
        max_document_bytes=BIG,
    )


def test_shard_keeps_existing_rows_and_reads_only_new_documents(tmp_path: Path) -> None:
    a = make_text_pdf(tmp_path / "a.pdf", ["Alpha page"])
    first = _shard([_doc(a, ContentKind.PDF)], "v1")
    assert first.count(ExtractOutcome.READ) == 1
    again = _shard([_doc(a, ContentKind.PDF)], "v1", existing=first.rows)
    assert again.count(ExtractOutcome.KEPT) == 1 and again.count(ExtractOutcome.READ) == 0
    assert again.rows.sorted_pages() == first.rows.sorted_pages()


def test_carry_over_when_the_readers_did_not_change(tmp_path: Path, monkeypatch) -> None:
    a = make_text_pdf(tmp_path / "a.pdf", ["Alpha page"])
    scan = make_image_only_pdf(tmp_path / "scan.pdf", ["Scan"])
    docs = [_doc(a, ContentKind.PDF), _doc(scan, ContentKind.PDF)]
    by_shard: dict[str, list[DocumentRecord]] = {}
    for d in docs:
        by_shard.setdefault(d.shard, []).append(d)
    for shard_docs in by_shard.values():
        v1 = _shard(shard_docs, "v1")
        v2 = _shard([dataclasses.replace(d, extractor_version="v2") for d in shard_docs], "v2", prior=v1.rows)
        for d in shard_docs:
            row = v2.rows.derivations[d.sha256]
            assert row.extractor_version == "v2"
            if row.status == "derived":  # carried, unchanged, with its pages
                assert v2.outcomes[d.sha256] is ExtractOutcome.CARRIED and row.carried_from == "v1"
                assert [p.text for p in v2.rows.pages[d.sha256]] == [p.text for p in v1.rows.pages[d.sha256]]
                assert all(p.extractor_version == "v2" for p in v2.rows.pages[d.sha256])
                # its per-font evidence too: the verdicts of the new version judge its fonts by it
                fonts = v2.rows.fonts[d.sha256]
                assert fonts and [dataclasses.replace(f, extractor_version="v1") for f in fonts] == list(
                    v1.rows.fonts[d.sha256]
                )
            else:  # underivable documents are retried under a new version
                assert v2.outcomes[d.sha256] is ExtractOutcome.READ

    # A reader whose version changed is not trusted to have carried its output: the document is read.
    doc = _doc(a, ContentKind.PDF)
    v1 = _shard([doc], "v1")
    pymupdf = reader_chain.reader("pymupdf")
    monkeypatch.setattr(type(pymupdf), "revision", pymupdf.revision + 1)
    assert chain_signature(ContentKind.PDF) != v1.rows.derivations[doc.sha256].reader_chain
    v2 = _shard([dataclasses.replace(doc, extractor_version="v2")], "v2", prior=v1.rows)
    assert v2.outcomes[doc.sha256] is ExtractOutcome.READ


# --- the bound on a document's text ---------------------------------------------------------------------


def _one_line(path: Path, chars: int) -> Path:
    words = "water meter reading district tariff budget library council "
    path.write_text((words * (chars // len(words) + 1))[:chars], encoding="ascii")
    return path


def test_a_huge_one_line_text_is_kept_to_the_bound_and_says_so(tmp_path: Path) -> None:
    path = _one_line(tmp_path / "huge.txt", 3_000_000)
    doc = _doc(path, ContentKind.TEXT)
    rows = extract_shard(
        doc.shard,
        [doc],
        version="v1",
        existing=ShardRows(),
        prior=None,
        limits=LIMITS,
        max_document_bytes=BIG,
        max_text_chars=100_000,
    ).rows
    derivation, (page,) = rows.derivations[doc.sha256], rows.pages[doc.sha256]
    assert (derivation.status, derivation.reason) == ("derived", f"{TEXT_CAPPED}:100000")
    assert 100_000 - CUT_BACKOFF_CHARS <= len(page.text) == derivation.chars <= 100_000
    original = path.read_text(encoding="ascii")
    assert original.startswith(page.text) and original[len(page.text)] == " "  # cut between two words
    # Under the bound nothing changes.
    small = _doc(_one_line(tmp_path / "small.txt", 50_000), ContentKind.TEXT)
    (row,) = _shard([small], "v1").rows.pages[small.sha256]
    assert len(row.text) == 50_000 and _shard([small], "v1").rows.derivations[small.sha256].reason is None


def test_pages_past_the_bound_are_not_kept_and_the_crossing_page_is_cut() -> None:
    pages = [PageText(1, "a" * 40), PageText(2, "b" * 40 + " tail"), PageText(3, "c" * 40)]
    kept, capped = cap_pages(pages, 60)
    assert capped and [p.page for p in kept] == [1, 2] and kept[1].text == "b" * 20
    assert cap_pages(pages, 200) == (tuple(pages), False)
    assert cap_pages(pages, 40) == ((pages[0],), True)


@given(
    texts=st.lists(st.text(alphabet="ab \n", max_size=60), max_size=6),
    bound=st.integers(min_value=1, max_value=200),
)
def test_capped_pages_fit_the_bound_and_are_prefixes_of_the_text(texts: list[str], bound: int) -> None:
    pages = [PageText(i + 1, t) for i, t in enumerate(texts)]
    kept, capped = cap_pages(pages, bound)
    total = sum(len(t) for t in texts)
    assert capped == (total > bound)
    assert sum(len(p.text) for p in kept) <= bound
    joined = "".join(p.text for p in kept)
    assert "".join(texts).startswith(joined) or any(p.text != texts[p.page - 1] for p in kept[-1:])
    assert all(p.text == texts[p.page - 1] for p in kept[:-1])
    assert all(texts[p.page - 1].startswith(p.text) for p in kept)


@pytest.mark.slow
def test_a_run_over_a_huge_one_line_text_keeps_every_stage_to_the_bound(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assets.progress import Progress
    from orchestration.home import Home
    from orchestration.runner import run
    from warehouse.duckdb_catalog import query

    folder = tmp_path / "corpus"
    folder.mkdir()
    _one_line(folder / "huge.txt", 4_000_000)
    (folder / "note.txt").write_text("The reservoir levels rose in March.", encoding="utf-8")
    monkeypatch.setenv("ASSAY_MAX_TEXT_CHARS", "200000")
    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    wh = Home(home).warehouse
    by_path = "join documents d using (sha256) where d.path like '%huge.txt'"
    assert query(wh, f"select status, reason, chars from derivations {by_path}").rows[0][:2] == (
        "derived",
        f"{TEXT_CAPPED}:200000",
    )
    (pages,) = query(wh, f"select max(length(text)) from pages {by_path}").rows[0]
    (clean,) = query(wh, f"select length(text) from texts {by_path}").rows[0]
    (chunked,) = query(wh, f"select sum(length(text) - overlap) from chunks {by_path}").rows[0]
    assert 199_000 <= pages <= 200_000 and clean <= 200_000 and chunked == clean
    assert query(
        wh, "select reason from derivations join documents d using (sha256) where d.path like '%note.txt'"
    ).rows == [(None,)]
