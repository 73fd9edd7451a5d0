"""What the libraries say while they read is kept with the document, never printed
(readers/core/diagnostics.py, derivations.diagnostics).

The PDFs are written here as bytes: one draws an image zero pixels wide, which MuPDF reports as an error
each time it interprets the page; one has a marked-content tag that is not a name and a stroke colour with
too few components, which pdfminer logs as warnings."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import warnings
from pathlib import Path

import pymupdf

from readers.core.diagnostics import MAX_LINE_CHARS, MAX_LINES, heard, summary
from readers.core.model import ContentKind, ReadLimits
from readers.engine.dispatch import extract_document
from tests.test_tagged_pdf import _pdf

REPO = Path(__file__).resolve().parents[1]
ASSAY = REPO / ".venv" / "bin" / "assay"
SENTENCE = "The reservoir levels of the northern district were measured every month of the year."
MUPDF_SAYS = "image width is zero"
PDFMINER_SAYS = "is not a PSLiteral"


def _page(content: bytes, xobjects: bytes = b"", extra: list[bytes] | None = None) -> bytes:
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 "
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> " + xobjects + b">> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        *(extra or []),
    ]
    return _pdf(objects)


def zero_width_image_pdf(path: Path) -> Path:
    """A page of text that also draws an image whose /Width is 0: MuPDF says "syntax error: image width
    is zero (or less)" (and PyMuPDF used to print it) every time the page is run, and reads the text."""
    content = b"BT /F1 11 Tf 72 700 Td (%s) Tj ET\nq 10 0 0 10 72 600 cm /Im1 Do Q\n" % SENTENCE.encode()
    image = (
        b"<< /Type /XObject /Subtype /Image /Width 0 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 "
        b"/Length 1 >>\nstream\n\x00\nendstream"
    )
    path.write_bytes(_page(content, b"/XObject << /Im1 5 0 R >> ", [image]))
    return path


def pdfminer_warning_pdf(path: Path) -> Path:
    """A page whose marked-content tag is a number and whose stroke colour has one component of three:
    pdfminer logs a warning for each (its logger's last resort prints them on stderr)."""
    content = (
        b"123 <</MCID 0>> BDC BT /F1 11 Tf 72 700 Td (%s) Tj ET EMC\n/DeviceRGB CS 0.5 SC 0 0 m 9 9 l S\n"
        % SENTENCE.encode()
    )
    path.write_bytes(_page(content))
    return path


def test_what_mupdf_pdfminer_and_python_say_is_heard_not_printed(tmp_path: Path, capfd) -> None:
    import pdfplumber

    broken = zero_width_image_pdf(tmp_path / "image.pdf")
    logged = pdfminer_warning_pdf(tmp_path / "logged.pdf")
    pymupdf.TOOLS.mupdf_display_errors(True)  # PyMuPDF's default: heard() turns it off
    handlers = logging.getLogger().handlers[:]
    with heard() as said:
        with pymupdf.open(broken) as doc:
            assert SENTENCE in doc[0].get_text()
            doc[0].get_pixmap(dpi=20)
        with pdfplumber.open(logged) as pdf:
            assert SENTENCE in (pdf.pages[0].extract_text() or "")
        warnings.warn("a library's own warning", DeprecationWarning, stacklevel=1)
        logging.getLogger("somelibrary").info("chatter below the level is not a diagnostic")
    out, err = capfd.readouterr()
    assert out == "" and err == "", (out, err)
    assert any(line.startswith("mupdf: ") and MUPDF_SAYS in line for line in said), said
    assert any(line.startswith("pdfminer.") and PDFMINER_SAYS in line for line in said), said
    assert "DeprecationWarning: a library's own warning" in said
    assert not any("chatter" in line for line in said)
    # Heard once: the next block starts empty, and logging's handlers are as they were.
    with heard() as again:
        pass
    assert again == [] and logging.getLogger().handlers == handlers


def test_the_summary_counts_repeats_and_is_bounded() -> None:
    assert summary([]) is None and summary(["  ", ""]) is None
    assert summary(["mupdf: a", "mupdf:  a", "pdfminer: b", "mupdf: a"]) == "mupdf: a (x3)\npdfminer: b"
    # A count said with the line adds up (MuPDF's "... repeated 4 times...", or an attempt's summary).
    assert summary(["mupdf: a (x4)", "mupdf: a", "b (x1)"]) == "mupdf: a (x5)\nb"
    many = summary([f"mupdf: object {i} is broken " + "x" * 1000 for i in range(MAX_LINES + 7)])
    assert many is not None
    lines = many.splitlines()
    assert len(lines) == MAX_LINES + 1 and lines[-1] == "... and 7 more distinct messages"
    assert all(len(line) <= MAX_LINE_CHARS for line in lines)


def test_a_message_quoting_undecodable_bytes_is_kept_as_utf_8_can_hold_it() -> None:
    # pdfminer logs a name it could not decode as lone surrogates; one such line must not fail a shard's write
    kept = summary(
        ["Could not get font /b'R\udcb1\udc92' from the resources", "Could not get font /b'R\udcb1'"]
    )
    assert kept is not None
    kept.encode("utf-8")
    assert "\ufffd" in kept


def test_each_attempt_keeps_what_its_library_said(tmp_path: Path, capfd) -> None:
    extraction = extract_document(
        zero_width_image_pdf(tmp_path / "image.pdf"),
        ContentKind.PDF,
        size=1,
        limits=ReadLimits(),
        max_bytes=1 << 30,
    )
    out, err = capfd.readouterr()
    assert out == "" and err == "", (out, err)
    assert extraction.status.value == "derived"
    assert extraction.diagnostics is not None
    assert extraction.diagnostics.startswith(f"pymupdf: mupdf: syntax error: {MUPDF_SAYS}")


def test_a_run_prints_bars_and_summary_only_and_keeps_the_messages_in_derivations(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "ASSAY_"))}
    home = tmp_path / "home"
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    zero_width_image_pdf(corpus / "image.pdf")
    run = subprocess.run(
        [str(ASSAY), "run", "--home", str(home), "--quiet", str(corpus)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        cwd=REPO,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stderr == ""
    (line,) = run.stdout.strip().splitlines()
    assert line.startswith("assay: done:"), run.stdout
    sql = subprocess.run(
        [str(ASSAY), "sql", "--home", str(home), "--json", "select status, diagnostics from derivations"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert sql.returncode == 0, sql.stderr
    [row] = json.loads(sql.stdout)
    assert row["status"] == "derived"
    assert row["diagnostics"].startswith(f"pymupdf: mupdf: syntax error: {MUPDF_SAYS}"), row


def _write_on_fds_and_take() -> tuple[tuple[str, ...], tuple[str, ...]]:
    from readers.engine.isolation import _hold_output, _printed

    held = _hold_output()
    os.write(2, b"a C library's complaint\n")
    os.write(1, b"\n  and its chatter on stdout\n")
    first = _printed(held)
    os.write(2, b"the next document's\n")
    return first, _printed(held)


def test_a_reader_worker_keeps_what_is_written_on_its_descriptors_per_document(capfd) -> None:
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(1) as pool:
        first, second = pool.apply(_write_on_fds_and_take)
    assert first == ("a C library's complaint", "  and its chatter on stdout")
    assert second == ("the next document's",)
    out, err = capfd.readouterr()
    assert "complaint" not in out + err and "chatter" not in out + err
