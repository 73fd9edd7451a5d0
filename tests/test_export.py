"""``assay export``: every document's clean text into a folder, equal to ``texts.text``, never outside it."""

from __future__ import annotations

import json
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path

import jsonschema
import pytest

from assets.progress import Progress
from orchestration.cli import main
from orchestration.document_builders import make_text_pdf
from orchestration.export import (
    EXPORT_SCHEMA,
    ExportedDocument,
    ExportedPage,
    ExportError,
    names,
    safe_parts,
    split_front_matter,
    write,
)
from orchestration.home import Home
from orchestration.runner import run
from tests.conftest import DevCorpusRun
from warehouse.duckdb_catalog import query

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "docs" / "export.schema.json").read_text())

PROSE = (
    "The reservoir levels across the northern district were measured every month of the year and "
    "reported to the board, with the rainfall of each season beside them for comparison."
)
CONTACT = "Questions about the figures go to ana.silva@example.org before the end of the month."


def _doc(rel_path: str, *, sha: str = "ab" * 32, text: str | None = "Some text.") -> ExportedDocument:
    page = ExportedPage(1, "i", 0, len(text or ""), "TEXT", [], "lexicon", "extracted", "en", 1.0)
    return ExportedDocument(
        sha, "/corpus/" + rel_path, rel_path, "pdf", "v", None, None, "derived", None, text, "3", [page]
    )


# --- names: nothing leaves the output folder --------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("reports/q3.pdf", ["reports", "q3.pdf"]),
        ("../../etc/passwd", ["etc", "passwd"]),
        ("/etc/passwd", ["etc", "passwd"]),
        ("a/./b/../c", ["a", "b", "c"]),
        ("C:\\Windows\\win.ini", ["Windows", "win.ini"]),
        ("..", []),
        ("bad\x00name\n.pdf", ["bad_name_.pdf"]),
    ],
)
def test_a_name_keeps_no_part_that_could_climb_out(given: str, expected: list[str]) -> None:
    assert safe_parts(given) == expected


@pytest.mark.parametrize("rel_path", ["../../outside.pdf", "/tmp/outside.pdf", "../..", "a/../../../b.pdf"])
@pytest.mark.parametrize("form", ["md", "txt", "json"])
def test_a_document_path_with_dots_or_an_absolute_path_is_written_inside(
    tmp_path: Path, rel_path: str, form: str
) -> None:
    output = tmp_path / "out" / "export"
    report = write([_doc(rel_path)], output, form)
    (written,) = report.written
    assert written.resolve().is_relative_to(output.resolve())
    assert sorted(p for p in tmp_path.rglob("*") if p.is_file()) == [written]


def test_a_link_in_the_output_folder_cannot_lead_a_file_out(tmp_path: Path) -> None:
    output, outside = tmp_path / "export", tmp_path / "outside"
    output.mkdir()
    outside.mkdir()
    (output / "reports").symlink_to(outside)
    with pytest.raises(ExportError, match="outside"):
        write([_doc("reports/q3.pdf")], output, "txt")
    assert list(outside.iterdir()) == []


def test_two_documents_with_one_name_are_told_apart(tmp_path: Path) -> None:
    docs = [_doc("a.pdf", sha="aa" * 32), _doc("a.pdf", sha="bb" * 32), _doc("A.PDF", sha="cc" * 32)]
    named = names(docs)
    assert len({tuple(p.casefold() for p in parts) for parts in named.values()}) == 3
    report = write(docs, tmp_path / "export", "txt")
    assert len(report.written) == 3


def test_an_output_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "export").write_text("x")
    with pytest.raises(ExportError, match="is a file"):
        write([_doc("a.pdf")], tmp_path / "export", "md")


def test_raw_text_and_chunks_go_only_into_the_json_forms(tmp_path: Path, capsys) -> None:
    assert main(["export", "--home", str(tmp_path), "--to", "md", "--raw"]) == 1
    assert "--to json" in capsys.readouterr().err


# --- a generated corpus, end to end -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def exported_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("export-corpus")
    corpus = root / "corpus"
    (corpus / "reports").mkdir(parents=True)
    make_text_pdf(corpus / "reports" / "levels.pdf", [PROSE + "\n\n" + CONTACT, PROSE])
    make_text_pdf(corpus / "summary.pdf", [PROSE.replace("reservoir", "river")])
    msg = EmailMessage()
    msg["From"] = "Ana <ana@example.org>"
    msg["To"] = "team@example.org"
    msg["Subject"] = "Levels"
    msg.set_content("Dear team, the levels are attached.")
    attached = make_text_pdf(root / "attached.pdf", [PROSE.replace("northern", "southern")])
    msg.add_attachment(attached.read_bytes(), maintype="application", subtype="pdf", filename="levels.pdf")
    (corpus / "mail.eml").write_bytes(msg.as_bytes())
    (corpus / "empty.txt").write_text("")
    home = root / "home"
    with pytest.MonkeyPatch.context() as mp:
        for var in ("DAGSTER_HOME", "ASSAY_HOME"):
            mp.delenv(var, raising=False)
        mp.setenv("ASSAY_HOME", str(home))
        report = run(Home(home), [corpus], Progress())
    assert report.ok, report.failures
    return home, corpus


def _texts(home: Path) -> dict[str, str]:
    rows = query(Home(home).warehouse, "select d.path, t.text from texts t join documents d using (sha256)")
    return dict(rows.rows)


@pytest.mark.slow
def test_markdown_text_and_json_files_hold_the_catalogs_text(exported_home, tmp_path: Path, capsys) -> None:
    home, corpus = exported_home
    texts = _texts(home)
    for form in ("md", "txt", "json"):
        output = tmp_path / form
        assert main(["export", "--home", str(home), "--to", form, "--output", str(output)]) == 0
        report = capsys.readouterr().out
        assert f"{len(texts)} {form} files" in report and "1 has no text" in report and "empty.txt" in report
        level = (output / "reports" / f"levels.pdf.{form}").read_bytes().decode("utf-8")
        expected = texts[str(corpus / "reports" / "levels.pdf")]
        if form == "md":
            head, body = split_front_matter(level)
            assert body == expected and '"assay-export/1"' in head and "start: 0" in head
        elif form == "txt":
            assert level == expected
        else:
            assert json.loads(level)["text"] == expected
        assert "ana.silva@example.org" not in level and "⟨EMAIL_1⟩" in level  # the clean text, redacted
        member = output / "mail.eml" / f"levels.pdf.{form}"  # a member, under its container's name
        assert member.is_file()
        assert len([p for p in output.rglob(f"*.{form}")]) == len(texts)


@pytest.mark.slow
def test_json_lines_hold_every_document_with_pages_and_on_request_raw_text_and_chunks(
    exported_home, tmp_path: Path
) -> None:
    home, corpus = exported_home
    texts = _texts(home)
    output = tmp_path / "jsonl"
    args = ["export", "--home", str(home), "--to", "jsonl", "--output", str(output)]
    assert main([*args, "--raw", "--chunks"]) == 0
    lines = (output / "documents.jsonl").read_bytes().decode("utf-8").splitlines()
    objects = {o["path"]: o for o in map(json.loads, lines)}
    assert len(objects) == len(texts) + 1 and all(o["schema"] == EXPORT_SCHEMA for o in objects.values())
    empty = objects[str(corpus / "empty.txt")]
    assert empty["text"] is None and empty["status"] == "underivable"
    level = objects[str(corpus / "reports" / "levels.pdf")]
    assert level["text"] == texts[str(corpus / "reports" / "levels.pdf")]
    first, second = level["pages"]
    assert (first["page"], first["start"], first["mode"], first["source"]) == (1, 0, "TEXT", "extracted")
    assert second["start"] == first["end"] and "reservoir" in level["text"][second["start"] : second["end"]]
    assert "ana.silva@example.org" in first["raw_text"]  # asked for: the raw text, in the clear
    assert level["chunks"] and level["chunks"][0]["start"] == 0
    for obj in objects.values():
        jsonschema.validate(obj, SCHEMA)  # the published schema holds, raw text and chunks included
    assert main(args) == 0  # not asked for: neither
    plain = [
        json.loads(line) for line in (output / "documents.jsonl").read_bytes().decode("utf-8").splitlines()
    ]
    assert all("chunks" not in o and all("raw_text" not in p for p in o["pages"]) for o in plain)
    for obj in plain:
        jsonschema.validate(obj, SCHEMA)
    assert not any("ana.silva@example.org" in line for line in map(json.dumps, plain))


@pytest.mark.slow
def test_documents_are_chosen_by_path_glob_and_sql(exported_home, tmp_path: Path, capsys) -> None:
    home, corpus = exported_home

    def exported(*options: str) -> set[str]:
        output = tmp_path / str(len(list(tmp_path.iterdir())))
        code = main(["export", "--home", str(home), "--to", "txt", "--output", str(output), *options])
        capsys.readouterr()
        return {str(p.relative_to(output)) for p in output.rglob("*.txt")} if code == 0 else set()

    assert exported(str(corpus / "reports")) == {"reports/levels.pdf.txt"}
    assert exported("--glob", "*summary*") == {"summary.pdf.txt"}
    assert exported("--where", "kind = 'eml'") == {"mail.eml.txt"}  # the condition holds of each
    assert exported(str(corpus / "mail.eml")) == {"mail.eml.txt", "mail.eml/levels.pdf.txt"}
    assert exported("--where", "member is not null") == {"mail.eml/levels.pdf.txt"}  # named as ever
    assert exported("--glob", "*nothing-like-this*") == set()


def _dead_pid() -> int:
    """The pid of a process that has exited."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.slow
def test_a_reexport_removes_the_temporaries_a_killed_export_left(
    exported_home, tmp_path: Path, capsys
) -> None:
    home, _ = exported_home
    output = tmp_path / "md"
    args = ["export", "--home", str(home), "--to", "md", "--output", str(output)]
    assert main(args) == 0
    written = sorted(output.rglob("*"))
    pid = _dead_pid()
    left = [
        output / "reports" / f".levels.pdf.md.{pid}.0a1b2c3d.tmp",  # what a killed export leaves
        output / f".documents.jsonl.{pid}.00ff00ff.tmp",
    ]
    for tmp in left:
        tmp.write_text("half a document")
    mine = output / ".notes.tmp"  # not named as the export names its temporaries: not its own
    mine.write_text("kept")
    assert main(args) == 0
    capsys.readouterr()
    assert not any(tmp.exists() for tmp in left) and mine.exists()
    assert sorted(output.rglob("*")) == sorted([*written, mine])


@pytest.mark.slow
@pytest.mark.parametrize("in_the_way", ["folder", "file"])
def test_an_export_whose_names_are_taken_is_refused_before_writing(
    exported_home, tmp_path: Path, capsys, in_the_way: str
) -> None:
    home, _ = exported_home
    output = tmp_path / "md"
    output.mkdir()
    if in_the_way == "folder":  # a folder where reports/levels.pdf.md goes
        blocker = output / "reports" / "levels.pdf.md"
        (blocker / "inside").mkdir(parents=True)
    else:  # a file where the folder reports/ goes
        blocker = output / "reports"
        blocker.write_text("notes")
    before = sorted(output.rglob("*"))
    assert main(["export", "--home", str(home), "--to", "md", "--output", str(output)]) == 1
    err = capsys.readouterr().err
    assert (
        f"{blocker} is a {in_the_way}" in err.replace("\n", "") and "--output" in err and "--home" not in err
    )
    assert "Nothing was written" in err
    assert sorted(output.rglob("*")) == before  # not half an export


@pytest.mark.corpus
@pytest.mark.slow
def test_the_dev_corpus_exports_its_texts(dev_corpus: DevCorpusRun, tmp_path: Path, capsys) -> None:
    texts = dict(query(Home(dev_corpus.home).warehouse, "select sha256, text from texts").rows)
    output = tmp_path / "jsonl"
    assert main(["export", "--home", str(dev_corpus.home), "--to", "jsonl", "--output", str(output)]) == 0
    capsys.readouterr()
    objects = [
        json.loads(line) for line in (output / "documents.jsonl").read_bytes().decode("utf-8").splitlines()
    ]
    assert {o["sha256"]: o["text"] for o in objects if o["text"] is not None} == texts
    for obj in objects:
        jsonschema.validate(obj, SCHEMA)
    md = tmp_path / "md"
    assert main(["export", "--home", str(dev_corpus.home), "--output", str(md)]) == 0
    bodies = [split_front_matter(p.read_bytes().decode("utf-8")) for p in md.rglob("*.md")]
    assert len(bodies) == len(texts)
    assert sorted(body for _, body in bodies) == sorted(texts.values())
