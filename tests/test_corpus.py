"""The whole pipeline over the shared evaluation corpus (skipped where ../shared/corpus is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestration.home import Home
from orchestration.progress import Progress
from orchestration.runner import run
from tests.conftest import CORPUS, corpus_manifest
from warehouse.catalog import query

NEEDS_PASSWORD = {"pyp__libreoffice-writer-password.pdf", "pdfminer__aes-256.pdf", "unst__password.pdf"}


@pytest.mark.corpus
@pytest.mark.slow
def test_dev_corpus_every_file_has_one_derivation(home: Path) -> None:
    manifest = corpus_manifest()
    progress = Progress()
    report = run(Home(home), [CORPUS / "dev"], progress)
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
    report2 = run(Home(home), [CORPUS / "dev"], again)
    assert again.hashed == 0 and again.outcomes.get("read", 0) == 0 and report2.touched_shards == []
