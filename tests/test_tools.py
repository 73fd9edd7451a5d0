"""The tool probes and `assay doctor`: what is installed, and what to do when something is missing."""

from __future__ import annotations

import json
import re
import shutil

from orchestration.cli import main
from readers.core.tools import LIBRARIES, OCR_LANGUAGES, probe_all, probe_library, probe_tesseract


def test_tesseract_is_probed_without_running_ocr() -> None:
    probe = probe_tesseract()
    if shutil.which("tesseract") is None:
        assert not probe.found and "apt-get install tesseract-ocr" in probe.detail
        return
    # ./scripts/setup installs Tesseract with these languages wherever it can (root or password-less sudo).
    assert probe.found and re.fullmatch(r"\d+\.\d+(\.\d+)?", probe.version), probe
    languages = probe.detail.removeprefix("languages: ").split("; ")[0].split(", ")
    assert set(OCR_LANGUAGES) <= set(languages), probe.detail


def test_libraries_report_their_versions_and_missing_ones_say_what_to_do() -> None:
    probes = {p.name: p for p in probe_all()}
    assert set(LIBRARIES) | {"tesseract"} == set(probes)
    assert all(probes[name].found and probes[name].version for name in LIBRARIES)
    missing = probe_library("no-such-distribution-for-assay")
    assert not missing.found and "pip install no-such-distribution-for-assay" in missing.detail


def test_doctor_prints_a_table_or_json(capsys) -> None:
    assert main(["doctor", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows} >= {"tesseract", "pymupdf", "dagster"}
    assert main(["doctor"]) == 0
    assert "pymupdf" in capsys.readouterr().out
