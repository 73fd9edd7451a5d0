"""Reading stays on the machine: ``assay run`` opens no socket to another host (readers/core/offline.py).

The run is traced with ``strace`` (connect, sendto and sendmsg of every process it starts), which sees an
attempt even where it fails: a DNS query for a telemetry host is a ``sendto`` to the resolver, whether or
not the resolver answers. Unix sockets and loopback are local and allowed.
"""

from __future__ import annotations

import email.message
import ipaddress
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from orchestration.document_builders import make_scan_image, make_text_pdf
from tests.test_layout_gate import make_page

ASSAY = Path(sys.executable).with_name("assay")

# An address in a traced call: IPv4 as strace prints it, and IPv6.
_IPV4 = re.compile(r'sin_addr=inet_addr\("([^"]+)"\)')
_IPV6 = re.compile(r'inet_pton\(AF_INET6, "([^"]+)"')
_CALL = re.compile(r"\b(connect|sendto|sendmsg)\(")


def remote_calls(trace: str) -> list[str]:
    """The traced socket calls that address another host: an AF_INET or AF_INET6 address that is not
    loopback (an address strace did not print counts as remote)."""
    found = []
    for line in trace.splitlines():
        if not _CALL.search(line) or not re.search(r"AF_INET6?\b", line):
            continue
        addresses = _IPV4.findall(line) + _IPV6.findall(line)
        if not addresses or not all(_loopback(a) for a in addresses):
            found.append(line)
    return found


def _loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or bool(mapped and mapped.is_loopback)


def _strace() -> list[str]:
    """The tracer's command line, or a skip saying why there is none."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (apt-get install strace; scripts/setup does it as root)")
    command = [strace, "-f", "-qq", "--seccomp-bpf", "-e", "trace=connect,sendto,sendmsg"]
    probe = subprocess.run([*command, "-o", os.devnull, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"strace cannot trace here (ptrace not permitted?): {probe.stderr.strip()[:200]}")
    return command


def _traced(command: list[str], trace: Path, *, env: dict[str, str], timeout: float):
    return subprocess.run(
        [*_strace(), "-o", str(trace), *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def test_remote_calls_tells_local_from_remote() -> None:
    trace = "\n".join(
        [
            '17 connect(8, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT',
            '17 connect(9, {sa_family=AF_INET, sin_port=htons(5432), sin_addr=inet_addr("127.0.0.1")}, 16)',
            '17 connect(9, {sa_family=AF_INET6, sin6_port=htons(80), inet_pton(AF_INET6, "::1", &sin6_addr)}',
            '18 connect(8, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16)',
            '18 sendto(9, "\\36\\302\\1\\0"..., 50, MSG_NOSIGNAL, {sa_family=AF_INET6, sin6_port=htons(53), '
            'inet_pton(AF_INET6, "2001:db8::1", &sin6_addr)}, 28) = 50',
            '19 sendto(9, "x", 1, 0, NULL, 0) = 1',
        ]
    )
    remote = remote_calls(trace)
    assert len(remote) == 2
    assert "10.255.255.53" in remote[0] and "2001:db8::1" in remote[1]


def test_the_tracer_sees_a_query_that_nobody_answers(tmp_path: Path) -> None:
    """The check can fail: a UDP datagram to a documentation address (never routed) is caught."""
    trace = tmp_path / "trace"
    send = "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ntry:\n"
    send += "    s.sendto(b'x', ('192.0.2.1', 53))\nexcept OSError:\n    pass"
    _traced([sys.executable, "-c", send], trace, env=dict(os.environ), timeout=60)
    assert [line for line in remote_calls(trace.read_text()) if "192.0.2.1" in line]


def _write_documents(folder: Path) -> list[str]:
    """A small corpus of the kinds assay reads, generated here; returns the kinds written."""
    from docx import Document

    folder.mkdir()
    make_text_pdf(folder / "report.pdf", ["# Results\n\nThe reservoir held water through the summer."])
    # A page whose structure the rules are unsure of (a running head and a footer line no rule explains):
    # the reader loads PyMuPDF's layout model, and ONNX Runtime with it, in its worker.
    make_page(
        folder / "journal.pdf",
        head="Journal of Applied Hydrology, Vol. 12, No. 3 (2026)",
        foot="Downloaded from archive.example.org on 3 May 2026",
    )
    doc = Document()
    doc.add_heading("Minutes", level=1)
    doc.add_paragraph("The committee approved the budget for the coming year.")
    doc.save(str(folder / "minutes.docx"))
    (folder / "page.html").write_text(
        "<html><head><title>Notice</title></head><body><main><p>The library opens at nine.</p></main>"
        "</body></html>",
        encoding="utf-8",
    )
    mail = email.message.EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "a@example.org", "b@example.org", "Schedule"
    mail.set_content("The meeting moves to Thursday afternoon.")
    (folder / "note.eml").write_bytes(bytes(mail))
    (folder / "notes.txt").write_text("Plain notes about the quarterly review.\n", encoding="utf-8")
    kinds = ["pdf", "docx", "html", "eml", "text"]
    if shutil.which("tesseract"):
        make_scan_image(folder / "scan.png", "Scanned letter about the harvest festival.")
        make_picture_page(folder / "poster.png")
        kinds.append("png")
    return kinds


def make_picture_page(path: Path) -> Path:
    """A scanned poster: large words set over a picture (bands of colour and discs), the kind of page the
    OCR stage gives RapidOCR to read."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=400)
    for band in range(8):
        shade = (0.2 + 0.1 * band, 0.5, 0.9 - 0.1 * band)
        page.draw_rect(pymupdf.Rect(0, 50 * band, 612, 50 * band + 50), color=None, fill=shade)
    for x in range(60, 612, 120):
        page.draw_circle((x, 200), 45, color=None, fill=(0.95, 0.8, 0.3))
    page.insert_textbox(pymupdf.Rect(30, 130, 582, 300), "HARVEST FESTIVAL", fontsize=52, align=1)
    pix = page.get_pixmap(dpi=200)
    path.write_bytes(pix.tobytes("png"))
    return path


@pytest.mark.slow
def test_a_run_opens_no_socket_off_the_machine(tmp_path: Path) -> None:
    """``assay run`` on PDF, DOCX, HTML, e-mail, text (and an image when Tesseract is there) under
    strace: every process it starts (the Dagster runs, the reader workers of the fork server, Tesseract)
    is traced for the whole run, which lasts well past the few seconds after import at which ONNX
    Runtime's telemetry used to start. A fresh HOME shows that nothing is written to the user's cache."""
    user = tmp_path / "user"
    user.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "ASSAY_", "XDG_"))}
    env["HOME"] = str(user)
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg-cache")
    corpus = tmp_path / "corpus"
    kinds = _write_documents(corpus)
    trace = tmp_path / "trace"
    run = _traced(
        [str(ASSAY), "run", "--home", str(tmp_path / "home"), str(corpus)], trace, env=env, timeout=900
    )
    assert run.returncode == 0, run.stdout + run.stderr
    for kind in kinds:  # one document of each kind, read (the summary's table: kind, docs, ...)
        count = 2 if kind in ("pdf", "png") else 1  # a report and a journal; a letter and a poster
        assert re.search(rf"^\s+{kind}\s+{count}\s", run.stdout, re.M), (kind, run.stdout)
    assert trace.stat().st_size > 0, "the trace is empty: the tracer saw no socket call at all"
    remote = remote_calls(trace.read_text(errors="replace"))
    assert not remote, "sockets to other hosts:\n" + "\n".join(remote[:20])
    assert not (user / ".cache" / "Microsoft").exists(), "ONNX Runtime wrote its device id"
    assert not (user / ".cache").exists() or not any((user / ".cache").rglob("*onnx*")), "ONNX wrote a cache"
    for cache in (user / ".cache", tmp_path / "xdg-cache"):  # no model fetched, no engine's files kept
        kept = [p for p in cache.rglob("*") if p.is_file()]
        assert not kept, sorted(map(str, kept))[:20]
    # RapidOCR read the poster page again, Tesseract's reading of it being poor.
    engines = subprocess.run(
        [
            str(ASSAY),
            "sql",
            "--home",
            str(tmp_path / "home"),
            "--csv",
            "select distinct engine from ocr_pages",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert "rapidocr" in engines.stdout, engines.stdout + engines.stderr
    # The journal page was put to the layout model (its why says what the model did or why not).
    asked = subprocess.run(
        [
            str(ASSAY),
            "sql",
            "--home",
            str(tmp_path / "home"),
            "--csv",
            "select structure_why from pages where structure_why like '%model%'",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert "model" in asked.stdout, asked.stdout + asked.stderr
    assert not (user / ".dagster").exists(), "Dagster wrote its telemetry id"


@pytest.mark.slow
def test_rapidocr_reads_a_picture_page_offline(tmp_path: Path) -> None:
    """RapidOCR in its worker, under strace with a fresh HOME and cache folder: it reads the poster's words
    with the models of its wheel, opens no socket off the machine, and writes nothing under the user's
    home or cache (nor beside its models)."""
    from readers.images.rapidocr import installed_version
    from readers.images.rapidocr_worker import models_folder

    if not installed_version():
        pytest.skip("RapidOCR is not installed")
    user = tmp_path / "user"
    user.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "ASSAY_", "XDG_"))}
    env["HOME"] = str(user)
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg-cache")
    page = make_picture_page(tmp_path / "poster.png")
    models = models_folder()
    assert models is not None
    before = sorted(p.name for p in models.parent.rglob("*") if "__pycache__" not in p.parts)
    script = (
        "from PIL import Image\n"
        "from readers.images.rapidocr import recognise_rapid\n"
        f"print(recognise_rapid(Image.open({str(page)!r}), dpi=200, timeout=120).text)\n"
    )
    trace = tmp_path / "trace"
    run = _traced([sys.executable, "-c", script], trace, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "HARVEST" in run.stdout and "FESTIVAL" in run.stdout, run.stdout
    assert run.stderr == "", run.stderr  # RapidOCR's logging stays off the terminal
    remote = remote_calls(trace.read_text(errors="replace"))
    assert not remote, "sockets to other hosts:\n" + "\n".join(remote[:20])
    assert not any(user.rglob("*")), sorted(map(str, user.rglob("*")))[:20]
    assert not (tmp_path / "xdg-cache").exists()
    assert sorted(p.name for p in models.parent.rglob("*") if "__pycache__" not in p.parts) == before
