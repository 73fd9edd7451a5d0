"""Containers in the walk: e-mail attachments and archive members become documents of their own that
point at their parent, to the configured depth, and are read by their own readers."""

from __future__ import annotations

import io
import zipfile
from email.message import EmailMessage
from pathlib import Path

import pytest

from assets.progress import Progress
from orchestration.document_builders import make_text_pdf
from orchestration.home import Home
from orchestration.runner import run
from readers.core.model import ReadLimits
from readers.walk.expansion import expand_containers
from readers.walk.inventory import documents_from, walk_roots
from warehouse import Warehouse
from warehouse.duckdb_catalog import query

ATTACHED = "The attached report measures reservoir levels across the northern district every month."
BODY = "Dear team, please find the quarterly figures attached. Regards, Ana"
DEEP = "A note three containers deep about meter readings."


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buffer.getvalue()


def _corpus(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    pdf = make_text_pdf(folder.parent / "report.pdf", [ATTACHED])
    inner = _zip({"deep.txt": DEEP.encode()})
    bundle = _zip({"notes/readme.txt": b"Notes on the figures.", "inner.zip": inner})
    msg = EmailMessage()
    msg["From"] = "Ana <ana@example.org>"
    msg["To"] = "team@example.org"
    msg["Subject"] = "Quarterly figures"
    msg.set_content(BODY)
    msg.add_attachment(pdf.read_bytes(), maintype="application", subtype="pdf", filename="report.pdf")
    msg.add_attachment(bundle, maintype="application", subtype="zip", filename="bundle.zip")
    (folder / "mail.eml").write_bytes(msg.as_bytes())
    return folder


def _documents(folder: Path, tmp_path: Path, limits: ReadLimits):
    walked = walk_roots([folder], cache={}, max_file_bytes=1 << 30, version="v", now=_now())
    files = documents_from(walked.observations, "v")
    wh = Warehouse(tmp_path / "wh")
    return files, expand_containers(files, known={}, blobs=wh, limits=limits, version="v")


def _now():
    from datetime import UTC, datetime

    return datetime(2026, 1, 1, tzinfo=UTC)


def test_members_become_children_to_the_configured_depth(tmp_path: Path) -> None:
    folder = _corpus(tmp_path / "corpus")
    files, expansion = _documents(folder, tmp_path, ReadLimits())
    (mail,) = files
    by_member = {d.member: d for d in expansion.children}
    assert set(by_member) == {"report.pdf", "bundle.zip", "notes/readme.txt", "inner.zip", "deep.txt"}
    assert by_member["report.pdf"].parent_sha256 == mail.sha256 and by_member["report.pdf"].kind == "pdf"
    assert by_member["notes/readme.txt"].parent_sha256 == by_member["bundle.zip"].sha256
    assert by_member["deep.txt"].parent_sha256 == by_member["inner.zip"].sha256
    assert Path(by_member["deep.txt"].path).read_bytes() == DEEP.encode()
    assert not expansion.failed

    _, shallow = _documents(folder, tmp_path, ReadLimits(max_nesting=1))
    assert {d.member for d in shallow.children} == {"report.pdf", "bundle.zip"}  # not opened further


def test_a_container_that_cannot_be_opened_has_no_children_and_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "broken.zip").write_bytes(_zip({"a.txt": b"x" * 5000})[:100])
    _, expansion = _documents(folder, tmp_path, ReadLimits())
    assert expansion.children == [] and list(expansion.failed.values()) == ["corrupt"]


@pytest.mark.slow
def test_children_are_read_by_their_own_readers_and_never_leak_into_the_parent(
    home: Path, tmp_path: Path
) -> None:
    folder = _corpus(tmp_path / "corpus")
    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    wh = Home(home).warehouse
    rows = query(
        wh,
        "select d.member, d.kind, d.parent_sha256 is not null as child, v.status, v.reason "
        "from documents d join derivations v using (sha256) order by d.member nulls first",
    ).records()
    assert (rows[0]["member"], rows[0]["status"]) == (None, "derived")  # the e-mail
    statuses = {r["member"]: r["status"] for r in rows if r["child"]}
    assert statuses["report.pdf"] == "derived" and statuses["deep.txt"] == "derived"
    mail_text = query(
        wh, "select text from pages p join documents d using (sha256) where d.member is null"
    ).rows
    assert BODY.split(",")[0] in mail_text[0][0]
    assert "reservoir" not in mail_text[0][0] and "meter readings" not in mail_text[0][0]
    pdf_text = query(
        wh, "select p.text from pages p join documents d using (sha256) where d.member = 'report.pdf'"
    )
    assert "reservoir levels" in pdf_text.rows[0][0]

    again = Progress()
    report2 = run(Home(home), [folder], again)
    assert again.hashed == 0 and again.outcomes.get("read", 0) == 0 and report2.touched_shards == []


@pytest.mark.slow
def test_lineage_shows_a_members_parent_and_a_scans_ocr(home: Path, tmp_path: Path) -> None:
    from orchestration.document_builders import make_image_only_pdf
    from orchestration.lineage import lineage_for, mermaid, to_json

    folder = _corpus(tmp_path / "corpus")
    make_image_only_pdf(folder / "scan.pdf", [ATTACHED + " " + BODY])
    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    wh = Home(home).warehouse
    mail = lineage_for(wh, str(folder / "mail.eml"))
    assert {c["member"] for c in mail.children} == {"report.pdf", "bundle.zip"}
    (pdf_sha,) = [c["sha256"] for c in mail.children if c["member"] == "report.pdf"]
    pdf = lineage_for(wh, pdf_sha[:12])
    assert pdf.parent_sha256 == mail.sha256 and pdf.member == "report.pdf"
    assert pdf.parent_paths == [str(folder / "mail.eml")] and pdf.status == "derived"
    assert any(e.stage == "walk" and e.tool == "member:report.pdf" for e in pdf.edges)

    scan = lineage_for(wh, str(folder / "scan.pdf"))
    assert scan.status == "underivable" and [p.mode for p in scan.pages] == ["REPLACE"]
    (page,) = scan.pages
    assert page.source == "ocr" and page.ocr_confidence > 80 and page.tool == "tesseract"
    assert scan.chunks and scan.text_chars
    assert "-->|ocr: tesseract" in mermaid(scan) and '"source": "ocr"' in to_json(scan)
