"""The whole pipeline over the shared evaluation corpus (skipped where ../shared/corpus is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assets.progress import Progress
from orchestration.home import Home
from orchestration.runner import run
from quality.cer import cer
from readers.images.tesseract import installed_languages
from tests.conftest import CORPUS, DevCorpusRun
from warehouse.duckdb_catalog import query

NEEDS_PASSWORD = {"pyp__libreoffice-writer-password.pdf", "pdfminer__aes-256.pdf", "unst__password.pdf"}


@pytest.mark.corpus
@pytest.mark.slow
def test_dev_corpus_every_file_has_one_derivation(dev_corpus: DevCorpusRun, monkeypatch) -> None:
    manifest, report, home = dev_corpus.manifest, dev_corpus.report, dev_corpus.home
    assert report.ok, report.failures
    wh = Home(home).warehouse
    rows = query(wh, "select sha256, status, reason, reader from derivations").records()
    by_sha = {r["sha256"]: r for r in rows}
    assert len(by_sha) == len(rows), "one derivation per document"
    for entry in manifest:
        name = Path(entry["path"]).name
        row = by_sha.get(entry["sha256"])
        assert row is not None, f"{name} has no derivation"
        assert row["status"], name
        if row["status"] != "derived":
            assert row["reason"], name
        if entry["kind"] == "pdf-born-digital":
            assert row["status"] == "derived", (name, row)
        if name in NEEDS_PASSWORD:
            assert (row["status"], row["reason"]) == ("error", "encrypted"), name
    for name in ("plumb__empty.pdf", "ocrmypdf__invalid.pdf"):
        sha = next(e["sha256"] for e in manifest if e["path"].endswith(name))
        assert by_sha[sha]["status"] in ("error", "underivable") and by_sha[sha]["reason"], name

    again = Progress()
    monkeypatch.setenv("ASSAY_HOME", str(home))  # recorded: the run points the environment at its home
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    report2 = run(Home(home), [CORPUS / "dev"], again)
    assert again.hashed == 0 and again.outcomes.get("read", 0) == 0 and report2.touched_shards == []
    assert not again.ocr_pages, "a rerun with nothing changed reads nothing again with OCR"
    _ocr_promises_hold(wh)
    _reader_promises_hold(wh, manifest)
    _search_promises_hold(wh)


FRANCAIS = (
    "Portez ce vieux whisky au juge blond qui fume sur son île intérieure, à côté de l'alcôve ovoïde, où "
    "les bûches se consument dans l'âtre, ce qui lui permet de penser à la cænogénèse de l'être dont il "
    "est question dans la cause ambiguë entendue à Moÿ, dans un capharnaüm qui, pense-t-il, diminue çà et "
    "là la qualité de son œuvre."
)


def _ocr_promises_hold(wh) -> None:
    """The OCR stage's acceptance on the corpus (benchmarks/eval_ocr.py prints the same figures)."""
    docs = dict(query(wh, "select regexp_extract(path, '[^/]+$'), sha256 from documents").rows)

    def final(name: str) -> str:
        rows = query(
            wh,
            f"select text from page_texts where sha256 = '{docs[name]}' and text is not null order by page",
        )
        return "\n\n".join(t for (t,) in rows.rows)

    def ocr(name: str) -> list[dict]:
        """The document's kept OCR readings (a page RapidOCR read again has Tesseract's row too)."""
        return query(
            wh,
            f"select * from ocr_pages where sha256 = '{docs[name]}' and kept is distinct from false "
            "order by page, scope",
        ).records()

    for name in ("tess__phototest.tif", "ocrmypdf__linn.pdf"):
        truth = (CORPUS / "dev_truth" / f"{name}.expected.txt").read_text(encoding="utf-8")
        assert cer(truth, final(name)) <= 0.05, name
    cardinal = ocr("ocrmypdf__cardinal.pdf")
    assert sorted(r["rotation"] for r in cardinal) == [0, 90, 180, 270]
    assert all(r["status"] == "derived" and r["confidence"] > 80 for r in cardinal)
    assert ocr("ocrmypdf__blank.pdf") == [] and final("ocrmypdf__blank.pdf") == ""
    assert [r["status"] for r in ocr("ocrmypdf__vector.pdf")] == ["derived"]
    assert cer(FRANCAIS, final("ocrmypdf__francais.pdf").replace("-\n", "")) <= 0.05
    for name in (
        "plumb__pr-136-example.pdf",
        "unst__a1977-backus-p21.pdf",
        "unst__pdf-with-ocr-text.pdf",
        "ocrmypdf__graph_ocred.pdf",
    ):
        assert ocr(name) == [], f"{name}: an OCR layer is not read again"
    images = [n for n in docs if n.endswith((".tif", ".png", ".jpg", ".jpeg"))]
    assert len(images) == 11
    for name in images:
        (row,) = ocr(name)
        assert final(name) or (row["status"] == "underivable" and row["reason"]), f"{name}: read by OCR"
    assert all(final(name) for name in images)  # vertical Japanese too: RapidOCR reads it
    installed = installed_languages()
    for name, language in (("tess__hebrew.png", "heb"), ("tess__devatest.png", "hin")):
        if language in installed:  # read again in the language of the script orientation detection found
            (row,) = ocr(name)
            assert (row["status"], row["language"], row["language_source"]) == ("derived", language, "script")
    sent = query(wh, "select v.mode, o.scope from ocr_pages o join page_verdicts v using (sha256, page)").rows
    assert set(sent) <= {("REPLACE", "page"), ("FIGURES", "figures")}


# Kinds the readers issue covers, and the files of those kinds that must not be derived, with why.
READ_KINDS = ("html", "docx", "xlsx", "pptx", "eml", "msg", "rtf", "odt", "csv", "json", "txt")
NOT_DERIVED = {
    "tika__testWORD_protected_passtika.docx": ("error", "encrypted"),
    "unst__password_protected.xlsx": ("error", "encrypted"),
    "tika__testODTEncrypted.odt": ("error", "encrypted"),
    "tika__testWORD_truncated.docx": ("error", "corrupt"),
    "tika__testODTnotaZipFile.odt": ("error", "corrupt"),
    "unst__empty.eml": ("underivable", "empty_text"),  # 13 bytes of whitespace: not a message at all
}


def _reader_promises_hold(wh, manifest: list[dict[str, str]]) -> None:
    rows = {
        r["name"]: r
        for r in query(
            wh,
            "select regexp_extract(d.path, '[^/]+$') as name, d.sha256, v.status, v.reason "
            "from documents d join derivations v using (sha256) where d.parent_sha256 is null",
        ).records()
    }
    for entry in manifest:
        name = Path(entry["path"]).name
        if entry["kind"].split("-")[0] not in READ_KINDS:
            continue
        row = rows[name]
        assert (row["status"], row["reason"]) == NOT_DERIVED.get(name, ("derived", None)), (name, row)
    # The e-mails' attachment is a document of its own (one: both e-mails attach the same bytes), and its
    # text is in neither e-mail's.
    mails = {
        rows[n]["sha256"] for n in ("unst__fake-email-attachment.eml", "unst__fake-email-attachment.msg")
    }
    (child,) = query(
        wh,
        "select d.parent_sha256, v.status from documents d join derivations v using (sha256) "
        "where d.member = 'fake-attachment.txt'",
    ).rows
    assert child[0] in mails and child[1] == "derived"
    for sha in mails:
        (text,) = query(wh, f"select text from pages where sha256 = '{sha}'").rows[0]
        assert "this is a fake attachment" not in text.lower() and "Subject:" in text
    utf16 = rows["unst__fake-text-utf-16-le.txt"]["sha256"]
    (text,) = query(wh, f"select text from pages where sha256 = '{utf16}'").rows[0]
    assert text.startswith("This is a test document") and "\x00" not in text


def _phrase(text: str, start: int, end: int) -> str:
    """Seven words from the middle of text[start:end], on one line, none a placeholder."""
    lines = [ln for ln in text[start:end].splitlines() if len(ln.split()) >= 9 and "⟨" not in ln]
    words = lines[len(lines) // 2].split()
    return " ".join(words[1:8])


def _search_promises_hold(wh) -> None:
    """Documents with headings have chunks with heading paths, and `assay search` finds a phrase of a
    born-digital PDF, an OCRed scan and an HTML page on the right page."""
    from warehouse.search import search

    with_headings = query(
        wh,
        "select count(distinct c.sha256) from chunks c join texts t using (sha256) "
        "where regexp_matches(t.text, '(?m)^#{1,6} ') and len(c.heading_path) > 0",
    ).rows[0][0]
    headed = query(wh, "select count(*) from texts where regexp_matches(text, '(?m)^#{1,6} ')").rows[0][0]
    assert headed >= 20 and with_headings == headed
    # Every document's chunks, joined without their overlaps, are its text.
    joined = query(
        wh,
        "select t.sha256 from texts t join (select sha256, "
        "string_agg(text[overlap + 1:], '' order by ordinal) as joined from chunks group by sha256) c "
        "using (sha256) where c.joined <> t.text",
    ).rows
    assert joined == []
    assert query(wh, "select count(*) from texts where sha256 not in (select sha256 from chunks)").rows == [
        (0,)
    ]
    for name, page in (
        ("plumb__federal-register-2020-17221.pdf", 5),  # born-digital
        ("ocrmypdf__c02-22.pdf", 1),  # a scan read by OCR (the linn, skew and cardinal scans share a text)
        ("traf__schneems.com.rubocop.html", 1),  # HTML
    ):
        (sha, text, pages, starts) = query(
            wh,
            "select t.sha256, t.text, t.pages, t.page_starts from texts t join documents d using (sha256) "
            f"where d.path like '%{name}'",
        ).rows[0]
        i = pages.index(page)
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        phrase = _phrase(text, starts[i], end)
        # Among the best hits (the OCRmyPDF test scans share one page of text): this document, this page.
        hits = [h for h in search(wh, phrase, limit=20) if h.sha256 == sha]
        assert hits and (hits[0].page, hits[0].phrase) == (page, True), (name, phrase, hits)
