"""Containers opened in isolation and within bounds (readers/walk/expansion.py): a hostile container ends with
a recorded status and reason of its own, its tree is bounded as a whole, and the walk of everything else
goes on; a PDF's embedded files are members like an e-mail's attachments."""

from __future__ import annotations

import io
import os
import signal
import threading
import time
import warnings
import zipfile
from datetime import UTC, datetime
from email.message import EmailMessage, MIMEPart
from pathlib import Path

import docx
import psutil
import pymupdf
import pytest

from assets.progress import Progress
from orchestration.document_builders import make_text_pdf
from orchestration.home import Home
from orchestration.runner import run
from readers.archives.safezip import COMPRESSION_CHECK_FLOOR
from readers.core.errors import LimitExceeded
from readers.core.model import ContentKind, ReadLimits
from readers.core.reading_records import DocumentRecord
from readers.engine.isolation import IsolatedReads, ReadBudget, ReadBudgets
from readers.mail.eml import EmlReader
from readers.walk.containers import members_of
from readers.walk.expansion import Expansion, expand_containers
from readers.walk.inventory import documents_from, walk_roots
from warehouse import Warehouse
from warehouse.duckdb_catalog import query

MB = 1 << 20
GENEROUS = ReadBudget(120.0, 4096 * MB)
NOTE = "An embedded note about the pumping station's night shift."
WORDS = "The attached minutes record the vote on the reservoir budget."
#: A tree bound small enough for a test: the bomb below totals more than ten times it.
TREE_BYTES = 8 * MB


# --------------------------------------------------------------------------------------------------------
# Fixtures written here


def nested_email(levels: int) -> bytes:
    """A message holding a message holding a message... ``levels`` deep (message/rfc822 parts), written
    level by level with the ``email`` package (each inner message is the payload text of its part)."""
    inner = EmailMessage()
    inner["Subject"] = "the innermost message"
    inner.set_content("the leaf")
    text = inner.as_string()
    for level in range(levels):
        outer = EmailMessage()
        outer["From"] = "relay@example.org"
        outer["Subject"] = f"level {level}"
        outer.set_content(f"wrapper {level}")
        outer.make_mixed()
        part = MIMEPart()
        part["Content-Type"] = "message/rfc822"
        part["Content-Disposition"] = "attachment"
        part.set_payload(text)
        outer.attach(part)
        text = outer.as_string()
    return text.encode("utf-8")


def zip_bytes(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buffer.getvalue()


def stored_zip_bomb(inner: int, members: int) -> bytes:
    """Stored zips of ``members`` members each just under the compression-ratio floor (zeros, so each
    deflates to about a kilobyte): no member is a bomb by the member rule, the tree is one."""
    under_floor = bytes(COMPRESSION_CHECK_FLOOR - 1)
    one = zip_bytes({f"part-{i:03}.bin": under_floor for i in range(members)})
    # Different comments make the inner zips distinct documents.
    zips = {}
    for n in range(inner):
        buffer = io.BytesIO(one)
        with zipfile.ZipFile(buffer, "a") as z:
            z.comment = f"inner {n}".encode()
        zips[f"inner-{n}.zip"] = buffer.getvalue()
    return zip_bytes(zips, zipfile.ZIP_STORED)


def docx_bytes(text: str) -> bytes:
    document = docx.Document()
    document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def pdf_with_files(path: Path, files: dict[str, bytes], clip: tuple[str, bytes] | None = None) -> Path:
    """A one-page PDF with ``files`` embedded (the /EmbeddedFiles name tree) and, with ``clip``, a file
    attachment annotation on its page."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "The report proper, with its appendices attached.")
    for name, data in files.items():
        doc.embfile_add(name, data, filename=name, ufilename=name, desc=name)
    if clip is not None:
        page.add_file_annot((100, 100), clip[1], clip[0])
    doc.save(path)
    doc.close()
    return path


def mail_with_attachment(name: str, data: bytes) -> bytes:
    msg = EmailMessage()
    msg["From"] = "Ana <ana@example.org>"
    msg["Subject"] = "Minutes"
    msg.set_content("Minutes attached.")
    msg.add_attachment(data, maintype="text", subtype="plain", filename=name)
    return msg.as_bytes()


def expand(folder: Path, wh: Warehouse, limits: ReadLimits, **kw) -> tuple[list[DocumentRecord], Expansion]:
    walked = walk_roots([folder], cache={}, max_file_bytes=1 << 30, version="v", now=datetime.now(UTC))
    files = documents_from(walked.observations, "v")
    kw.setdefault("known", {})
    return files, expand_containers(files, blobs=wh, limits=limits, version="v", **kw)


def outcome(expansion: Expansion, sha: str) -> tuple[str, str | None]:
    (row,) = [r for r in expansion.records if r.sha256 == sha]
    return row.status, row.reason


def by_name(files: list[DocumentRecord], name: str) -> DocumentRecord:
    (doc,) = [d for d in files if d.path.endswith("/" + name)]
    return doc


def reader_processes() -> list[psutil.Process]:
    """The pool's workers: the children of this process's fork server."""
    servers = [p for p in psutil.Process().children() if "forkserver" in " ".join(p.cmdline())]
    return [worker for server in servers for worker in server.children()]


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


# --------------------------------------------------------------------------------------------------------
# E-mail nesting


def test_attached_messages_deeper_than_max_nesting_are_refused_and_the_message_still_reads(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deep.eml"
    path.write_bytes(nested_email(200))
    assert path.stat().st_size < 100_000
    with pytest.raises(LimitExceeded, match="nest 200 deep"):
        members_of(path, ContentKind.EML, ReadLimits())
    text = EmlReader().read(path, ReadLimits()).pages[0].text
    assert "Subject: level 199" in text and "wrapper 199" in text and "wrapper 198" not in text
    # Within max_nesting the attached messages are members as before.
    shallow = tmp_path / "shallow.eml"
    shallow.write_bytes(nested_email(3))
    (member,) = members_of(shallow, ContentKind.EML, ReadLimits())
    assert b"level 1" in member.data


def test_parts_nested_past_the_mime_depth_bound_are_over_limit(tmp_path: Path) -> None:
    body = "the bottom"
    for level in range(60):  # multiparts in multiparts, without any attached message
        body = f'Content-Type: multipart/mixed; boundary="b{level}"\n\n--b{level}\n{body}\n--b{level}--\n'
    path = tmp_path / "multiparts.eml"
    path.write_text(f"From: a@example.org\nSubject: deep\nMIME-Version: 1.0\n{body}")
    with pytest.raises(LimitExceeded, match="nest 61 deep"):
        EmlReader().read(path, ReadLimits())


# --------------------------------------------------------------------------------------------------------
# PDF members


def test_a_pdfs_embedded_files_and_attached_file_are_its_members(tmp_path: Path) -> None:
    report = docx_bytes(WORDS)
    pdf = pdf_with_files(
        tmp_path / "report.pdf",
        {"note.txt": NOTE.encode(), "minutes.docx": report},
        clip=("clip.txt", b"a note clipped to the page"),
    )
    members = members_of(pdf, ContentKind.PDF, ReadLimits())
    assert [(m.member, m.data) for m in members] == [
        ("note.txt", NOTE.encode()),
        ("minutes.docx", report),
        ("clip.txt", b"a note clipped to the page"),
    ]
    plain = make_text_pdf(tmp_path / "plain.pdf", ["No attachments here."])
    assert members_of(plain, ContentKind.PDF, ReadLimits()) == []


def test_an_embedded_file_inflating_past_the_ratio_is_refused(tmp_path: Path) -> None:
    pdf = pdf_with_files(tmp_path / "bomb.pdf", {"zeros.bin": bytes(4 * MB)})
    with pytest.raises(LimitExceeded, match="a bomb"):
        members_of(pdf, ContentKind.PDF, ReadLimits())
    with pytest.raises(LimitExceeded, match="over 1048576"):
        members_of(pdf, ContentKind.PDF, ReadLimits(max_member_bytes=MB, max_compression_ratio=1e9))


def zip_entries(entries: list[tuple[str, bytes]]) -> bytes:
    """A zip of ``entries`` in order, names repeated as given (zipfile warns of a repeated name, and writes
    it)."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in entries:
                z.writestr(name, data)
    return buffer.getvalue()


def test_zip_members_named_alike_are_each_a_document(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    two = [
        ("report.txt", b"The first report on the pumps."),
        ("report.txt", b"The second report, on valves."),
    ]
    (folder / "two.zip").write_bytes(zip_entries(two))
    many = [("notes/report.txt", f"Report number {i} on the reservoir.".encode()) for i in range(300)]
    (folder / "many.zip").write_bytes(zip_entries(many))
    wh = Warehouse(tmp_path / "wh")
    files, expansion = expand(folder, wh, ReadLimits())
    pair, crowd = by_name(files, "two.zip"), by_name(files, "many.zip")
    rows = {r.sha256: r for r in expansion.records}
    assert (rows[pair.sha256].status, rows[pair.sha256].members) == ("expanded", 2)
    assert rows[pair.sha256].member_names == ["report.txt", "report-2.txt"]
    assert (rows[crowd.sha256].status, rows[crowd.sha256].members) == ("expanded", 300)
    assert len(set(rows[crowd.sha256].member_names)) == 300
    # Every member is a document of its own, its bytes in the store.
    of_pair = {
        c.member: Path(c.path).read_bytes() for c in expansion.children if c.parent_sha256 == pair.sha256
    }
    assert of_pair == {"report.txt": two[0][1], "report-2.txt": two[1][1]}
    of_crowd = [c for c in expansion.children if c.parent_sha256 == crowd.sha256]
    assert len(of_crowd) == 300 and {c.kind for c in of_crowd} == {"text"}
    assert sorted(Path(c.path).read_bytes() for c in of_crowd) == sorted(data for _, data in many)
    assert {c.member for c in of_crowd} == {"notes/report.txt"} | {
        f"notes/report-{n}.txt" for n in range(2, 301)
    }


# --------------------------------------------------------------------------------------------------------
# The tree bound


def test_a_tree_over_its_bound_is_dropped_whole_and_writes_no_blob_past_it(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "bomb.zip").write_bytes(stored_zip_bomb(inner=5, members=20))  # 100 MB in all
    (folder / "mail.eml").write_bytes(mail_with_attachment("minutes.txt", WORDS.encode()))
    wh = Warehouse(tmp_path / "wh")
    files, expansion = expand(folder, wh, ReadLimits(max_tree_bytes=TREE_BYTES))
    bomb, mail = by_name(files, "bomb.zip"), by_name(files, "mail.eml")
    assert outcome(expansion, bomb.sha256) == ("error", "over_limit")
    (row,) = [r for r in expansion.records if r.sha256 == bomb.sha256]
    assert f"inflates past {TREE_BYTES} bytes (max_tree_bytes)" in (row.detail or "")
    assert "dropped" in (row.detail or "") and row.members == 0
    # Nothing of the bomb's tree is a document or a blob; the e-mail beside it is expanded as ever.
    assert [c.member for c in expansion.children] == ["minutes.txt"]
    assert outcome(expansion, mail.sha256) == ("expanded", None)
    assert folder_bytes(wh.blobs_dir) == len(WORDS.encode())
    assert expansion.failed == {bomb.sha256: "over_limit"}


def test_with_the_default_bounds_a_tree_inflating_a_hundred_times_its_root_is_a_bomb(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "bomb.zip").write_bytes(stored_zip_bomb(inner=5, members=20))
    wh = Warehouse(tmp_path / "wh")
    _, expansion = expand(folder, wh, ReadLimits())
    (row,) = expansion.records
    assert (row.status, row.reason) == ("error", "over_limit") and "a container bomb" in (row.detail or "")
    assert expansion.children == [] and folder_bytes(wh.blobs_dir) == 0


def test_the_tree_bounds_count_members_over_every_level(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    inner = [zip_bytes({f"{n}-{i}.txt": f"note {n} {i}".encode() for i in range(2)}) for n in range(2)]
    (folder / "outer.zip").write_bytes(zip_bytes({"a.zip": inner[0], "b.zip": inner[1]}))
    wh = Warehouse(tmp_path / "wh")
    _, whole = expand(folder, wh, ReadLimits(max_tree_members=6))
    assert len(whole.children) == 6 and {r.status for r in whole.records} == {"expanded"}
    _, over = expand(folder, wh, ReadLimits(max_tree_members=5))
    (row,) = over.records
    assert (row.status, row.reason) == ("error", "over_limit") and "more than 5 members" in (row.detail or "")
    assert over.children == []


# --------------------------------------------------------------------------------------------------------
# Whatever a container does, it is that container's outcome


def test_an_exception_a_library_raises_is_the_containers_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "archive.zip").write_bytes(zip_bytes({"a.txt": b"some text"}))
    (folder / "mail.eml").write_bytes(mail_with_attachment("minutes.txt", WORDS.encode()))

    def recurse(*args: object, **kwargs: object) -> None:  # what a library recursing without end does
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(zipfile.ZipFile, "open", recurse)
    files, expansion = expand(folder, Warehouse(tmp_path / "wh"), ReadLimits())
    archive, mail = by_name(files, "archive.zip"), by_name(files, "mail.eml")
    assert outcome(expansion, archive.sha256) == ("error", "expansion_crashed:RecursionError")
    assert outcome(expansion, mail.sha256) == ("expanded", None)
    assert [c.member for c in expansion.children] == ["minutes.txt"]


def slow_mail(folder: Path) -> list[DocumentRecord]:
    """An e-mail of 3,000 empty parts (100 KB): the standard library takes seconds to parse it, so a
    budget of one second stops it; and an ordinary e-mail beside it."""
    parts = "".join(f"--b\nContent-Type: text/plain\n\n{i}\n" for i in range(3000))
    (folder / "parts.eml").write_text(
        f"From: a@example.org\nSubject: many parts\nMIME-Version: 1.0\nContent-Type: multipart/mixed; "
        f'boundary="b"\n\n{parts}--b--\n'
    )
    (folder / "mail.eml").write_bytes(mail_with_attachment("minutes.txt", WORDS.encode()))
    walked = walk_roots([folder], cache={}, max_file_bytes=1 << 30, version="v", now=datetime.now(UTC))
    return documents_from(walked.observations, "v")


def expand_isolated(
    files: list[DocumentRecord], tmp_path: Path, budgets: ReadBudgets, replaced: int = 1, **kw
) -> Expansion:
    with IsolatedReads(ReadLimits(), 1 << 30, budgets, workers=1) as pool:
        expansion = expand_containers(
            files,
            known={},
            blobs=Warehouse(tmp_path / "wh"),
            limits=ReadLimits(),
            version="v",
            jobs=pool,
            **kw,
        )
        assert pool.replaced == replaced
    return expansion


def test_a_container_over_its_time_budget_is_stopped_and_the_others_go_on(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    files = slow_mail(folder)
    budgets = ReadBudgets(GENEROUS, {ContentKind.EML: ReadBudget(1.0, 4096 * MB)})
    started = time.monotonic()
    expansion = expand_isolated(files, tmp_path, budgets)
    assert time.monotonic() - started < 60
    slow, mail = by_name(files, "parts.eml"), by_name(files, "mail.eml")
    (row,) = [r for r in expansion.records if r.sha256 == slow.sha256]
    assert (row.status, row.reason) == ("error", "timeout")
    assert "the expansion ran over its budget of 1 s for eml" in (row.detail or "")
    assert outcome(expansion, mail.sha256) == ("expanded", None)
    assert [c.member for c in expansion.children] == ["minutes.txt"]
    # A timeout depends on the machine: the next walk opens the container again (and stops it again).
    again = expand_isolated(files, tmp_path, budgets, previous={r.sha256: r for r in expansion.records})
    assert outcome(again, slow.sha256) == ("error", "timeout")


def test_a_container_over_its_memory_budget_is_stopped(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    files = slow_mail(folder)
    # Below what a worker rests at: the first look at the worker stops the slow expansion.
    budgets = ReadBudgets(GENEROUS, {ContentKind.EML: ReadBudget(120.0, 20 * MB)})
    expansion = expand_isolated(files, tmp_path, budgets, replaced=2)  # both e-mails: the budget is eml's
    slow = by_name(files, "parts.eml")
    (row,) = [r for r in expansion.records if r.sha256 == slow.sha256]
    assert (row.status, row.reason) == ("error", "memory") and "budget of 20 MB for eml" in (row.detail or "")


def test_a_worker_that_dies_in_an_expansion_is_that_containers_outcome(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    files = slow_mail(folder)

    def crash() -> None:  # a segmentation fault in a C library, while the worker parses the slow e-mail
        deadline = time.monotonic() + 60
        while not (workers := reader_processes()) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # the ordinary e-mail takes milliseconds, the slow one seconds
        [worker] = workers
        os.kill(worker.pid, signal.SIGSEGV)

    threading.Thread(target=crash, daemon=True).start()
    expansion = expand_isolated(files, tmp_path, ReadBudgets(GENEROUS))
    slow, mail = by_name(files, "parts.eml"), by_name(files, "mail.eml")
    (row,) = [r for r in expansion.records if r.sha256 == slow.sha256]
    assert (row.status, row.reason) == ("error", "worker_died") and "SIGSEGV" in (row.detail or "")
    assert outcome(expansion, mail.sha256) == ("expanded", None)


def test_an_earlier_walks_outcome_answers_for_the_same_bytes(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    broken = folder / "broken.zip"
    broken.write_bytes(zip_bytes({"a.txt": b"x" * 5000})[:100])
    (folder / "mail.eml").write_bytes(mail_with_attachment("minutes.txt", WORDS.encode()))
    wh = Warehouse(tmp_path / "wh")
    files, first = expand(folder, wh, ReadLimits())
    assert outcome(first, by_name(files, "broken.zip").sha256) == ("error", "corrupt")
    known: dict[str, list[DocumentRecord]] = {}
    for child in first.children:
        known.setdefault(child.parent_sha256 or "", []).append(child)
    broken.unlink()
    (folder / "mail.eml").unlink()  # neither could be opened again: the rows and the children answer
    again = expand_containers(
        files,
        known=known,
        blobs=wh,
        limits=ReadLimits(),
        version="v",
        previous={r.sha256: r for r in first.records},
    )
    assert again.records == first.records and again.children == first.children
    # Other bounds, another outcome: the container is opened again.
    other = expand_containers(
        files,
        known=known,
        blobs=wh,
        limits=ReadLimits(max_tree_members=5),
        version="v",
        previous={r.sha256: r for r in first.records},
    )
    assert {r.reason for r in other.records} == {"unreadable"}


def test_containers_whose_members_are_other_documents_are_not_opened_again(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "minutes.txt").write_bytes(WORDS.encode())  # the attachment, also saved as a file
    (folder / "mail.eml").write_bytes(mail_with_attachment("minutes.txt", WORDS.encode()))
    # Two messages with one attachment: its bytes are one document, the child of one of them.
    (folder / "a.eml").write_bytes(mail_with_attachment("notes.txt", NOTE.encode()))
    (folder / "b.eml").write_bytes(mail_with_attachment("notes-copy.txt", NOTE.encode()))
    wh = Warehouse(tmp_path / "wh")
    files, first = expand(folder, wh, ReadLimits())
    mail, saved = by_name(files, "mail.eml"), by_name(files, "minutes.txt")
    rows = {r.sha256: r for r in first.records}
    listed = rows[mail.sha256]
    assert (listed.member_names, listed.member_sha256s) == (["minutes.txt"], [saved.sha256])
    (note,) = first.children
    assert {rows[by_name(files, n).sha256].member_sha256s[0] for n in ("a.eml", "b.eml")} == {note.sha256}

    class Refusing:
        """A job runner that fails the test if any container is opened."""

        def run(self, jobs):
            assert not jobs, f"opened again: {list(jobs)}"
            yield from ()

    known = {note.parent_sha256 or "": [note]}
    again = expand_containers(
        files, known=known, blobs=wh, limits=ReadLimits(), version="v", previous=rows, jobs=Refusing()
    )
    assert again.records == first.records and again.children == first.children
    # Without the file, the attachment is the mail's child: the mail is opened again to store its bytes.
    (folder / "minutes.txt").unlink()
    files, third = expand(folder, wh, ReadLimits(), known=known, previous=rows)
    assert {(c.sha256, c.parent_sha256, c.member) for c in third.children} == {
        (saved.sha256, mail.sha256, "minutes.txt"),
        (note.sha256, note.parent_sha256, note.member),
    }


# --------------------------------------------------------------------------------------------------------
# The whole pipeline


@pytest.mark.slow
def test_hostile_containers_end_with_a_reason_and_every_other_document_is_read(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestration.lineage import lineage_for

    monkeypatch.setenv("ASSAY_MAX_TREE_BYTES", str(TREE_BYTES))
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "deep.eml").write_bytes(nested_email(200))
    (folder / "bomb.zip").write_bytes(stored_zip_bomb(inner=5, members=20))
    (folder / "meters.txt").write_text("A plain note about the water meters.\n")
    (folder / "minutes.docx").write_bytes(docx_bytes(WORDS))
    (folder / "mail.eml").write_bytes(mail_with_attachment("agenda.txt", b"Agenda: the reservoir budget."))
    make_text_pdf(folder / "plain.pdf", ["An ordinary report on reservoir levels."])
    appendix = docx_bytes("The appendix lists the pumps.")
    pdf_with_files(folder / "report.pdf", {"note.txt": NOTE.encode(), "appendix.docx": appendix})

    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    wh = Home(home).warehouse
    rows = {
        r["name"]: r
        for r in query(
            wh,
            "select coalesce(d.member, regexp_extract(d.path, '[^/]+$')) as name, d.parent_sha256, v.status, "
            "v.reader, e.status as expansion, e.reason as why, e.detail from documents d "
            "join derivations v using (sha256) left join expansions e using (sha256)",
        ).records()
    }
    # Every ordinary document is read by its reader, members too.
    for name in (
        "meters.txt",
        "note.txt",
        "minutes.docx",
        "mail.eml",
        "agenda.txt",
        "plain.pdf",
        "report.pdf",
        "appendix.docx",
    ):
        assert rows[name]["status"] == "derived", rows[name]
    # The hostile containers: read themselves, no children, and why.
    assert (rows["deep.eml"]["expansion"], rows["deep.eml"]["why"]) == ("error", "over_limit")
    assert "nest 200 deep" in rows["deep.eml"]["detail"] and rows["deep.eml"]["status"] == "derived"
    assert (rows["bomb.zip"]["expansion"], rows["bomb.zip"]["why"]) == ("error", "over_limit")
    assert "max_tree_bytes" in rows["bomb.zip"]["detail"] and rows["bomb.zip"]["status"] == "derived"
    assert not any(name.startswith(("inner-", "part-")) for name in rows)
    # The blobs are the members kept, far under the bound the bomb ran into.
    assert folder_bytes(wh.blobs_dir) < TREE_BYTES // 4
    # The PDF's embedded files are its children, read by their own readers, and lineage shows them.
    pdf = lineage_for(wh, str(folder / "report.pdf"))
    assert {c["member"]: c["status"] for c in pdf.children} == {
        "note.txt": "derived",
        "appendix.docx": "derived",
    }
    assert rows["appendix.docx"]["reader"] == "python-docx" and rows["note.txt"]["reader"] == "text"
    (note_sha,) = [c["sha256"] for c in pdf.children if c["member"] == "note.txt"]
    note = lineage_for(wh, note_sha)
    assert note.parent_sha256 == pdf.sha256 and note.member == "note.txt"
    assert any(e.stage == "walk" and e.tool == "member:note.txt" for e in note.edges)
    bomb = lineage_for(wh, str(folder / "bomb.zip"))
    assert bomb.children == [] and bomb.expansion is not None and bomb.expansion["reason"] == "over_limit"
    assert any(e.target == "members:error:over_limit" for e in bomb.edges)

    # A rerun: nothing hashed, nothing read, the outcomes reused.
    again = Progress()
    rerun = run(Home(home), [folder], again)
    assert rerun.ok and again.hashed == 0 and again.outcomes.get("read", 0) == 0
