"""The ``assay`` command line, as a user runs it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pymupdf
import pytest

from orchestration.cli import main
from orchestration.demo_corpus import DEMO_FILES, write_demo_corpus
from orchestration.document_builders import make_text_pdf
from orchestration.exits import Exit

ASSAY = Path(sys.executable).with_name("assay")
REPO = Path(__file__).resolve().parents[1]


def check_exit(outcome: str, reason: str | None) -> int:
    """The exit code ``assay check`` gives a file with this outcome (the README's table)."""
    if outcome in ("derived", "fallback", "repaired", "ocr"):
        return Exit.OK
    if outcome == "unsupported":
        return Exit.UNSUPPORTED
    return Exit.ENCRYPTED if (outcome, reason) == ("error", "encrypted") else Exit.NO_TEXT


# What each demo file finally yields (its outcome), where that is not what its readers did.
DEMO_OUTCOMES = {"scanned.pdf": "ocr", "memo-scan.png": "ocr", "garbled-font.pdf": "repaired"}


def test_check_prints_what_it_inferred_for_every_demo_file(tmp_path: Path, capsys) -> None:
    files = write_demo_corpus(tmp_path / "demo")
    for f in files:
        code = main(["check", str(f.path), "--json"])
        out = json.loads(capsys.readouterr().out)
        assert out["status"] == f.expected_status, f.name
        assert out["outcome"] == DEMO_OUTCOMES.get(f.name, f.expected_status), f.name
        # The exit code follows the outcome: 0 with text, else why there is none.
        assert code == check_exit(out["outcome"], out["outcome_reason"]), f.name
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
    assert main(["check", "--no-ocr", str(files["scanned.pdf"].path)]) == Exit.NO_TEXT
    assert "status: underivable (ocr_not_run)" in capsys.readouterr().out


def test_errors_say_what_to_fix(tmp_path: Path, capsys) -> None:
    assert main(["check", str(tmp_path / "missing.pdf")]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert main(["check", str(tmp_path)]) == 1
    assert f"assay run {tmp_path}" in capsys.readouterr().err
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
        cwd=REPO,  # the project folder, where a user runs it
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert "Documents by kind and final outcome" in run.stdout and "assay sql" in run.stdout
    _every_next_step_runs_as_printed(run.stdout, env)

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


def _every_next_step_runs_as_printed(summary: str, env: dict[str, str]) -> None:
    """Each step under the summary's "Next:" runs verbatim in a fresh shell from the project folder and
    exits 0 with output; the UI, a server, serves until SIGTERM and then stops with 0."""
    steps = summary.split("\nNext:\n", 1)[1].splitlines()
    steps = [line.strip() for line in steps if line.startswith("  ") and "assay " in line]
    assert len(steps) >= 5 and all(step.startswith((".venv/bin/assay ", "assay ")) for step in steps), steps
    assert not any(re.search(r"<[a-z][a-z ]*>", step) for step in steps), "a placeholder is not a command"
    for step in steps:
        if " ui" in step.split("#")[0]:
            server = subprocess.Popen(
                ["bash", "-c", f"exec {step}"], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True
            )
            assert server.stdout is not None
            assert "Dagster UI on http://" in server.stdout.readline()
            time.sleep(3)
            server.terminate()
            assert server.wait(timeout=120) == 0, step
            continue
        done = subprocess.run(
            ["bash", "-c", step], cwd=REPO, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0 and done.stdout.strip(), (step, done.stdout, done.stderr)
        assert "0 rows" not in done.stdout and "No chunk matches" not in done.stdout, (step, done.stdout)


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
    from orchestration.document_builders import make_scan_image

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


def test_check_exit_codes_are_the_readmes(tmp_path: Path, capsys) -> None:
    """A clean PDF exits 0, an encrypted one 6, a file no reader takes 7: the README's table, as observed."""
    clean = make_text_pdf(tmp_path / "clean.pdf", ["Reservoir levels of the northern district, every month."])
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Secret reservoir levels of the northern district.")
    encrypted = tmp_path / "encrypted.pdf"
    doc.save(encrypted, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="user", owner_pw="owner")
    unsupported = tmp_path / "noise.bin"
    unsupported.write_bytes(bytes(range(256)) * 8)
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    observed = {}
    for path in (clean, encrypted, unsupported):
        observed[path.name] = main(["check", "--no-ocr", str(path)])
        assert f"| {observed[path.name]} |" in readme, path.name
    assert observed == {"clean.pdf": 0, "encrypted.pdf": 6, "noise.bin": 7}
    capsys.readouterr()
    # Several files at once: one JSON array, and the first file without text gives the exit code.
    assert main(["check", "--no-ocr", "--json", str(clean), str(unsupported), str(encrypted)]) == 7
    assert [o["outcome"] for o in json.loads(capsys.readouterr().out)] == ["derived", "unsupported", "error"]


def test_the_home_option_goes_before_or_after_the_command(tmp_path: Path, capsys) -> None:
    from orchestration.home import Home
    from readers.core.versions import EXTRACTOR_VERSION
    from warehouse.duckdb_catalog import build_catalog

    home = tmp_path / "home"
    build_catalog(Home(home).warehouse, EXTRACTOR_VERSION)  # an empty catalog: enough for a query
    assert main(["--home", str(home), "sql", "select 1 as one", "--csv"]) == 0
    assert capsys.readouterr().out.split() == ["one", "1"]
    assert main(["sql", "--home", str(home), "select 2 as two", "--csv"]) == 0
    assert capsys.readouterr().out.split() == ["two", "2"]
    # Given twice, the one after the command wins.
    assert main(["--home", str(tmp_path / "elsewhere"), "sql", "--home", str(home), "select 3", "--csv"]) == 0
    assert main(["--home", str(tmp_path / "elsewhere"), "sql", "select 3"]) == 1
    assert str(tmp_path / "elsewhere") in capsys.readouterr().err


def test_an_unknown_table_or_a_short_prefix_says_what_would_work(tmp_path: Path, capsys) -> None:
    from orchestration.home import Home
    from readers.core.versions import EXTRACTOR_VERSION
    from warehouse.duckdb_catalog import build_catalog

    home = tmp_path / "home"
    build_catalog(Home(home).warehouse, EXTRACTOR_VERSION)
    assert main(["sql", "--home", str(home), "select * from documentz"]) == 1
    err = capsys.readouterr().err
    assert "documents, " in err and "outcomes" in err and "duckdb_tables" not in err
    assert main(["lineage", "--home", str(home), "d818"]) == 1
    assert "at least 6 hex digits" in capsys.readouterr().err


def test_each_bar_counts_its_stage_and_never_shows_a_documents_status() -> None:
    import io

    from rich.console import Console

    from orchestration.live import LiveProgress

    out = io.StringIO()
    with LiveProgress(Console(file=out, force_terminal=True, width=120)) as progress:
        progress.stage("extract", 2)
        progress.document_done("read", "derived")
        progress.document_done("read", "underivable")
        for stage in ("sanitize", "chunk"):
            progress.stage(stage, 3)
            for _ in range(3):
                progress.shard_done(stage)
        progress.stage("catalog", 1)
        progress.stage_done("catalog")
    drawn = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", out.getvalue())
    assert "underivable" not in drawn and "derived" not in drawn
    for line in ("2/2 documents", "3/3 shards", "1/1 step"):
        assert line in drawn, line


@pytest.mark.slow
def test_run_json_and_quiet(tmp_path: Path, capsys) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    make_text_pdf(corpus / "a.pdf", ["The reservoir levels of the northern district, measured every month."])
    home = tmp_path / "home"
    assert main(["run", "--home", str(home), "--json", str(corpus)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["schema"] == "assay-run/1" and report["ok"] and report["read"] == 1
    assert report["outcomes"] == [{"kind": "pdf", "outcome": "derived", "documents": 1}]
    assert main(["run", "--home", str(home), "--quiet", str(corpus)]) == 0
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert line.startswith("assay: done: walked 1 paths, read 0 documents")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stop", "ignored"), [("SIGTERM", False), ("SIGINT", False), ("SIGTERM", True), ("SIGINT", True)]
)
def test_the_ui_with_its_daemon_runs_through_dg_and_stops_cleanly(
    tmp_path: Path, stop: str, ignored: bool
) -> None:
    # ``ignored``: started with SIGINT and SIGTERM ignored, as a script's background job is (a child
    # inherits ignored signals), it still stops on either.
    import signal
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "ASSAY_", "VIRTUAL_ENV"))}
    command = [str(ASSAY), "ui", "--daemon", "--home", str(tmp_path / "home"), "--port", str(port)]
    kept = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    if ignored:
        for s in kept:
            signal.signal(s, signal.SIG_IGN)
    try:
        server = subprocess.Popen(
            command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
    finally:
        for s, handler in kept.items():
            signal.signal(s, handler)
    assert server.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        seen.append(line)
        if not line or "Serving dagster-webserver" in line:
            break
    assert any("Serving dagster-webserver" in line for line in seen), "".join(seen)
    assert any("daemon" in line.lower() for line in seen), "the daemon runs beside the webserver"
    # The output is read while the server stops: one that wrote more than a pipe holds would otherwise
    # wait for its reader as the test waits for it to end.
    rest: list[str] = []
    reader = threading.Thread(target=lambda: rest.extend(server.stdout), daemon=True)
    reader.start()
    server.send_signal(getattr(signal, stop))
    try:
        code = server.wait(timeout=120)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        reader.join(timeout=10)
        output = "".join(seen + rest)[-4000:]
        pytest.fail(f"assay ui did not stop within 120 s of {stop}; its output:\n{output}")
    reader.join(timeout=30)
    assert code == 0, "".join(seen + rest)[-4000:]
    assert "Dagster UI stopped." in "".join(rest)
