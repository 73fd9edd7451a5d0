"""A file's text in one command, as users of other tools expect: ``assay check FILE --to md|txt|json``
and ``assay export --output -`` print the clean text (personal data as placeholders) on stdout; ``run
--help`` says where the results go; a mistyped command gets "did you mean"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assets.progress import Progress
from orchestration.cli import main
from orchestration.document_builders import make_text_pdf
from orchestration.exits import Exit
from orchestration.export import ExportedDocument, ExportedPage, split_front_matter, write_stream
from orchestration.home import Home
from orchestration.printing import visible
from orchestration.runner import run

PROSE = (
    "The reservoir levels across the northern district were measured every month of the year and "
    "reported to the board, with the rainfall of each season beside them for comparison."
)
EMAIL = "ana.silva@example.org"
PHONE = "+44 20 7946 0958"
CONTACT = f"Questions about the figures go to {EMAIL} or {PHONE} before the end of the month."


def _files(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    pdf = make_text_pdf(folder / "levels.pdf", [PROSE, CONTACT])
    note = folder / "note.txt"
    note.write_text(f"Dear board,\n\n{PROSE}\n\n{CONTACT}\n", encoding="utf-8")
    return pdf, note


def _no_personal_data(text: str) -> None:
    assert EMAIL not in text and PHONE not in text and "7946" not in text
    assert "⟨EMAIL_1⟩" in text and "⟨PHONE_1⟩" in text


def test_check_to_prints_the_clean_text_and_nothing_else(tmp_path: Path, capsys) -> None:
    pdf, note = _files(tmp_path / "files")
    assert main(["check", "--no-ocr", str(pdf), "--to", "md"]) == Exit.OK
    out = capsys.readouterr()
    head, text = split_front_matter(out.out)
    _no_personal_data(out.out)
    assert f'path: "{pdf}"' in head and 'kind: "pdf"' in head and "page: 2" in head
    assert "northern district" in text and "status:" not in out.out and "nothing was stored" not in out.out
    assert out.err == ""

    assert main(["check", "--no-ocr", str(note), "--to", "txt"]) == Exit.OK
    out = capsys.readouterr().out
    _no_personal_data(out)
    assert out.startswith("Dear board,\n\nThe reservoir levels") and "---" not in out

    assert main(["check", "--no-ocr", str(note), "--to", "json"]) == Exit.OK
    found = json.loads(capsys.readouterr().out)
    assert found["status"] == "derived" and found["kind"] == "text" and found["pages"][0]["start"] == 0
    _no_personal_data(found["text"])

    # Several files: one after the other, each under a line naming it.
    assert main(["check", "--no-ocr", str(pdf), str(note), "--to", "txt"]) == Exit.OK
    out = capsys.readouterr().out
    assert out.startswith(f"==> {pdf} <==\n") and f"\n==> {note} <==\nDear board," in out
    assert out.count("⟨EMAIL_1⟩") == 2 and EMAIL not in out


def test_check_to_of_a_file_without_text_prints_nothing_and_says_why(tmp_path: Path, capsys) -> None:
    noise = tmp_path / "noise.bin"
    noise.write_bytes(bytes(range(256)) * 8)
    assert main(["check", "--no-ocr", str(noise), "--to", "md"]) == Exit.UNSUPPORTED
    out = capsys.readouterr()
    assert out.out == "" and f"{noise} yields no text: unsupported" in out.err
    scan = make_text_pdf(tmp_path / "blank.pdf", [""])
    assert main(["check", "--no-ocr", str(scan), "--to", "txt"]) == Exit.NO_TEXT
    out = capsys.readouterr()
    assert out.out == "" and "yields no text" in out.err


def test_the_stream_shows_a_terminal_its_control_characters_as_escapes() -> None:
    import io

    page = ExportedPage(1, None, 0, 10, "TEXT", [], "lexicon", "extracted", "en", 1.0)
    text = "Bells\x07 and \x1b[2Jclear."
    docs = [
        ExportedDocument(
            "ab" * 32,
            f"/c/{n}.txt",
            f"{n}.txt",
            "text",
            "v",
            None,
            None,
            "derived",
            None,
            text,
            "4",
            [page],
            shown=f"/c/{n}.txt",
        )
        for n in ("a", "b")
    ]
    exact, shown = io.StringIO(), io.StringIO()
    write_stream(docs, exact, "txt")
    write_stream(docs, shown, "txt", shown=visible)
    assert exact.getvalue() == f"==> /c/a.txt <==\n{text}\n\n==> /c/b.txt <==\n{text}\n"
    assert "\x1b" not in shown.getvalue() and "\\x1b[2J" in shown.getvalue()


@pytest.mark.slow
def test_export_to_stdout_and_check_print_the_text_the_run_stored(
    home: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf, note = _files(tmp_path / "corpus")
    report = run(Home(home), [tmp_path / "corpus"], Progress())
    assert report.ok, report.failures
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()

    assert main(["export", "--home", str(home), "--output", "-", "--to", "md", str(pdf)]) == Exit.OK
    exported = capsys.readouterr()
    assert "Exported 1 documents to standard output" in exported.err
    _no_personal_data(exported.out)
    # check FILE --to md is what export writes of the file after a run: the same clean text, the same pages.
    assert main(["check", str(pdf), "--to", "md"]) == Exit.OK
    assert capsys.readouterr().out == exported.out

    assert main(["export", "--home", str(home), "--output", "-", "--to", "txt"]) == Exit.OK
    out = capsys.readouterr().out
    assert out.startswith(f"==> {pdf} <==\n") and f"\n==> {note} <==\n" in out
    assert out.count("⟨EMAIL_1⟩") == 2 and EMAIL not in out and PHONE not in out

    assert main(["export", "--home", str(home), "--output", "-", "--to", "jsonl"]) == Exit.OK
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(Path(d["path"]).name for d in lines) == ["levels.pdf", "note.txt"]
    for d in lines:
        _no_personal_data(d["text"])

    assert main(["export", "--home", str(home), "--output", "-", "--to", "json"]) == Exit.OK
    assert len(json.loads(capsys.readouterr().out)) == 2
    assert not (tmp_path / "-").exists(), "no folder named -"
    # A folder named - is still one away: ./-
    assert main(["export", "--home", str(home), "--output", "./-", "--to", "txt"]) == Exit.OK
    assert sorted(p.name for p in (tmp_path / "-").rglob("*.txt")) == ["levels.pdf.txt", "note.txt.txt"]


def test_run_help_says_where_the_results_go(capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["run", "--help"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    for said in ("HOME/warehouse/catalog.duckdb", "assay sql", "assay export", "--output -", "open_home"):
        assert said in out, said


@pytest.mark.parametrize(
    ("argv", "meant"),
    [(["rnu"], "'run'"), (["chek", "x.pdf"], "'check'"), (["--home", "h", "exprot"], "'export'")],
)
def test_a_mistyped_command_gets_did_you_mean(argv: list[str], meant: str, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == Exit.USAGE
    assert f"did you mean {meant}?" in capsys.readouterr().err


def test_a_word_like_no_command_gets_the_list(capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["zzz"])
    assert stopped.value.code == Exit.USAGE
    err = capsys.readouterr().err
    assert "did you mean" not in err and "invalid choice: 'zzz'" in err
