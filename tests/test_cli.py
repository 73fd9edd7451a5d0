"""The ``assay`` command line, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from orchestration.cli import main
from orchestration.demo import DEMO_FILES, write_demo_corpus

ASSAY = Path(sys.executable).with_name("assay")


# What each demo file finally yields (its outcome), where that is not what its readers did.
DEMO_OUTCOMES = {"scanned.pdf": "ocr", "memo-scan.png": "ocr", "garbled-font.pdf": "repaired"}


def test_check_prints_what_it_inferred_for_every_demo_file(tmp_path: Path, capsys) -> None:
    files = write_demo_corpus(tmp_path / "demo")
    for f in files:
        code = main(["check", str(f.path), "--json"])
        out = json.loads(capsys.readouterr().out)
        assert out["status"] == f.expected_status, f.name
        assert out["outcome"] == DEMO_OUTCOMES.get(f.name, f.expected_status), f.name
        # The exit code follows the outcome: 1 when nothing gave the file text.
        assert code == (0 if out["outcome"] in ("derived", "fallback", "repaired", "ocr") else 1), f.name
        assert out["kind"] and out["kind_decided_by"] in ("bytes", "extension")
        if out["status"] != "derived":
            assert out["reason"], f.name
        if f.name == "born-digital.pdf":
            assert out["reader"] == "pymupdf" and not out["recovered_by_fallback"]
            assert [p["page"] for p in out["pages"]] == [1, 2, 3]
    assert not any(tmp_path.glob("**/*.parquet")), "check stores nothing"


def test_check_human_output(tmp_path: Path, capsys) -> None:
    files = {f.name: f for f in write_demo_corpus(tmp_path / "demo")}
    assert main(["check", str(files["scanned.pdf"].path)]) == 0
    out = capsys.readouterr().out
    assert "kind: pdf (decided by bytes)" in out and "pdfplumber" in out
    # The status is the final outcome; the text layer's reading is beside it.
    assert "status: derived by OCR: 2 of 2 pages with text, 2 read by OCR" in out
    assert "text layer: underivable (empty_text)" in out
    assert main(["check", "--no-ocr", str(files["scanned.pdf"].path)]) == 1
    assert "status: underivable (ocr_not_run)" in capsys.readouterr().out


def test_errors_say_what_to_fix(tmp_path: Path, capsys) -> None:
    assert main(["check", str(tmp_path / "missing.pdf")]) == 1
    assert "is not a file" in capsys.readouterr().err
    assert main(["sql", "--home", str(tmp_path / "nohome"), "select 1"]) == 1
    assert "assay run" in capsys.readouterr().err


@pytest.mark.slow
def test_run_then_sql_from_the_shell(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "ASSAY_"))}
    home = tmp_path / "home"
    corpus = tmp_path / "corpus"
    write_demo_corpus(corpus)
    (corpus / "bad").mkdir()
    (corpus / "bad" / "junk.pdf").write_bytes(os.urandom(2048))
    run = subprocess.run(
        [str(ASSAY), "run", "--home", str(home), str(corpus)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert "Documents by kind and final outcome" in run.stdout and "assay sql" in run.stdout

    sql = subprocess.run(
        [
            str(ASSAY),
            "sql",
            "--home",
            str(home),
            "--json",
            "select status, count(*) as n from derivations group by 1 order by 1",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert sql.returncode == 0, sql.stderr
    rows = json.loads(sql.stdout)
    assert {r["status"] for r in rows} == {"derived", "underivable", "error"}
    assert sum(r["n"] for r in rows) == len(DEMO_FILES) + 1  # the demo corpus and the junk PDF

    csv_out = subprocess.run(
        [str(ASSAY), "sql", "--home", str(home), "--csv", "select 1 as one"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert csv_out.stdout.splitlines() == ["one", "1"]

    again = subprocess.run(
        [str(ASSAY), "run", "--home", str(home), str(corpus)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert again.returncode == 0 and "nothing changed since the last run" in again.stdout


def test_check_shows_each_page_mode_reasons_and_provenance(tmp_path: Path, capsys) -> None:
    files = {f.name: f for f in write_demo_corpus(tmp_path / "demo")}
    expected = {
        "born-digital.pdf": {"TEXT", "FIGURES"},
        "french.pdf": {"TEXT"},
        "scanned.pdf": {"REPLACE"},
        "garbled-font.pdf": {"REPAIRED"},
    }
    for name, modes in expected.items():
        assert main(["check", str(files[name].path), "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert {p["mode"] for p in out["pages"]} <= modes, (name, [p["mode"] for p in out["pages"]])
        assert all(p["provenance"] for p in out["pages"])
    assert main(["check", str(files["garbled-font.pdf"].path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["repairs"] and "Unit consumption rates" in out["repairs"][0]["text"]
    assert main(["check", str(files["scanned.pdf"].path)]) == 0
    human = capsys.readouterr().out
    assert "REPLACE" in human and "no_text_layer" in human and "raw_scan" in human


@pytest.mark.slow
def test_an_empty_folder_and_one_of_unreadable_files_are_said_to_be_so(
    home: Path, tmp_path: Path, capsys
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["run", str(empty)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"{empty} holds no files" in out and "assay run PATH" in out
    assert "nothing changed" not in out

    # Paths the walk sees but cannot read: a symlink loop, and a link that leads out of its root.
    stuck = tmp_path / "stuck"
    stuck.mkdir()
    (stuck / "loop.pdf").symlink_to(stuck / "loop.pdf")
    outside = tmp_path / "outside.txt"
    outside.write_text("a note outside the root")
    (stuck / "away.txt").symlink_to(outside)
    assert main(["run", str(stuck)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(0 unchanged since the last walk, 2 that could not be read)" in out
    assert f"none of the 2 paths under {stuck} could be read" in out, out
    assert "status <> 'ok'" in out and "nothing changed" not in out


@pytest.mark.slow
def test_a_run_without_tesseract_says_what_to_install(tmp_path: Path) -> None:
    """With no Tesseract on PATH the scan is recorded as not read (``unavailable``, read again by the next
    run), the run finishes, and its summary names the tool and `assay doctor`."""
    from orchestration.demo import make_scan_image

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    make_scan_image(corpus / "scan.png", "A scanned letter about the harvest festival.")
    (corpus / "note.txt").write_text("A plain note.\n", encoding="utf-8")
    bare = tmp_path / "bin"  # a PATH with nothing on it: the venv's scripts are called by their path
    bare.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "ASSAY_"))}
    env["PATH"] = str(bare)
    run = subprocess.run(
        [str(ASSAY), "run", "--home", str(tmp_path / "home"), str(corpus)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = " ".join(run.stdout.split())
    assert "Tesseract is not installed" in out and "assay doctor" in out, out
    assert "Traceback" not in run.stdout + run.stderr
    doctor = subprocess.run([str(ASSAY), "doctor"], capture_output=True, text=True, env=env, timeout=120)
    assert doctor.returncode == 0 and "missing" in doctor.stdout and "apt-get install" in doctor.stdout
