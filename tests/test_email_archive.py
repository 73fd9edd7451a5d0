"""E-mail (.eml, .msg) and zip readers, and the members the walk turns into child documents.

Every fixture is built in code (``email.message.EmailMessage``, ``zipfile``, PyMuPDF, and for .msg files
readers/mail/ole.py's compound file writer with compressed-rtf's compressor); the tests of the corpus's .msg
files skip where the shared corpus is absent.
"""

from __future__ import annotations

import codecs
import io
import struct
import warnings
import zipfile
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import compressed_rtf
import olefile
import pymupdf
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from readers.archives.zip import ZipReader
from readers.core.base import produced_nothing
from readers.core.errors import CorruptDocument, EncryptedDocument, LimitExceeded
from readers.core.model import ContentKind, KindSource, ReadLimits
from readers.mail import mapi as msg_ole
from readers.mail import rtf_body as msg_rtf
from readers.mail.compound_file import OleStorage, OleStream, write_compound_file
from readers.mail.eml import EmlReader, unflow
from readers.mail.mapi import PT_BINARY, PT_LONG, PT_STRING8, PT_SYSTIME, PT_UNICODE, substg_name
from readers.mail.message_parts import (
    HeaderLine,
    MemberNames,
    decode_body,
    header_line,
    mail_text,
)
from readers.mail.msg import MsgReader
from readers.walk.containers import ContainerMember, members_of
from readers.walk.sniff import HEAD_BYTES, Sniffed, sniff
from tests.conftest import CORPUS

LIMITS = ReadLimits()
EML = EmlReader()
MSG = MsgReader()
ZIP = ZipReader()

BODY = "Dear team,\n\nplease find the quarterly figures attached.\n\nRegards, Ana\n"
ATTACHED = "The attached report measures reservoir levels across the northern district"
FORWARDED = "A forwarded note about meter readings in the western valley"
DEV = CORPUS / "dev"


# --- builders ---------------------------------------------------------------------------------------------


def _message(subject: str = "Quarterly figures", body: str | None = BODY) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "Ana Lima <ana@example.org>"
    msg["To"] = "team@example.org, Bob <bob@example.org>"
    msg["Cc"] = "carla@example.org"
    msg["Date"] = "Fri, 16 Dec 2022 17:04:16 -0500"
    msg["Subject"] = subject
    if body is not None:
        msg.set_content(body)
    return msg


def _pdf(text: str) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), text, fontsize=11)
    data = doc.tobytes()
    doc.close()
    return data


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _zip(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile warns about the duplicate names we want
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in members:
                if name.endswith("/"):
                    z.writestr(zipfile.ZipInfo(name), b"")
                else:
                    z.writestr(name, data)
    return buffer.getvalue()


def _with_attachments() -> EmailMessage:
    """Plain and HTML alternatives, a PDF, a forwarded message with its own PDF, a name-less image."""
    msg = _message()
    msg.add_alternative("<html><body><p>HTML twin of the body</p></body></html>", subtype="html")
    msg.add_attachment(_pdf(ATTACHED), maintype="application", subtype="pdf", filename="report.pdf")
    forwarded = _message("Fwd: readings", FORWARDED)
    forwarded.add_attachment(
        _pdf("inner attachment text"), maintype="application", subtype="pdf", filename="x.pdf"
    )
    msg.add_attachment(forwarded)
    msg.add_attachment(b"\x89PNG\r\n\x1a\n" + b"\0" * 32, maintype="image", subtype="png")
    return msg


# --- the text of an e-mail ----------------------------------------------------------------------------------


def test_header_lines_then_the_plain_body(tmp_path: Path) -> None:
    result = EML.read(_write(tmp_path, "m.eml", _message().as_bytes()), LIMITS)
    assert result.text == (
        "From: Ana Lima <ana@example.org>\n"
        "To: team@example.org, Bob <bob@example.org>\n"
        "Cc: carla@example.org\n"
        "Date: Fri, 16 Dec 2022 17:04:16 -0500\n"
        "Subject: Quarterly figures\n"
        "\n" + BODY
    )
    assert (result.encoding, result.encoding_source) == ("utf-8", "declared")


def test_the_plain_alternative_wins_and_the_html_one_is_neither_text_nor_member(tmp_path: Path) -> None:
    msg = _message()
    msg.add_alternative("<p>The HTML alternative says something else</p>", subtype="html")
    path = _write(tmp_path, "alt.eml", msg.as_bytes())
    assert "something else" not in EML.read(path, LIMITS).text
    assert members_of(path, ContentKind.EML, LIMITS) == []


def test_an_html_only_message_is_read_through_the_html_chain(tmp_path: Path) -> None:
    msg = _message(body=None)
    html = "<html><head><title>Report</title></head><body><p>Grüße aus Köln, the figures.</p></body></html>"
    msg.set_content(html, subtype="html", charset="iso-8859-1")
    result = EML.read(_write(tmp_path, "h.eml", msg.as_bytes()), LIMITS)
    assert result.text.endswith("Subject: Quarterly figures\n\n# Report\n\nGrüße aus Köln, the figures.")
    assert "html_body" in result.notes and "<p>" not in result.text


def test_rfc2047_headers_are_decoded(tmp_path: Path) -> None:
    msg = EmailMessage()
    msg["From"] = "=?utf-8?q?Jos=C3=A9_Mu=C3=B1oz?= <jose@example.org>"
    msg["Subject"] = "=?iso-8859-1?q?R=E9union_du_comit=E9?= =?utf-8?b?5Lya6K2w?="
    msg.set_content("body")
    text = EML.read(_write(tmp_path, "q.eml", msg.as_bytes()), LIMITS).text
    assert "From: José Muñoz <jose@example.org>" in text
    assert "Subject: Réunion du comité会議" in text


def test_a_utf16le_message_without_a_byte_order_mark_reads_as_text(tmp_path: Path) -> None:
    raw = _message().as_string().encode("utf-16-le")
    assert raw[:2] == b"F\x00"  # no mark
    result = EML.read(_write(tmp_path, "u.eml", raw), LIMITS)
    assert "Subject: Quarterly figures" in result.text and "quarterly figures attached" in result.text
    assert (result.encoding, result.encoding_source) == ("utf-16-le", "nul_share")


def test_a_utf16_message_with_a_byte_order_mark_reads_as_text(tmp_path: Path) -> None:
    raw = codecs.BOM_UTF16_BE + _message().as_string().encode("utf-16-be")
    result = EML.read(_write(tmp_path, "be.eml", raw), LIMITS)
    assert "Subject: Quarterly figures" in result.text and (result.encoding, result.encoding_source) == (
        "utf-16-be",
        "bom",
    )


def test_an_mbox_from_line_before_the_headers_is_tolerated(tmp_path: Path) -> None:
    raw = b"From 1462821104707864209@xxx Mon Mar 17 11:15:17 +0000 2014\n" + _message().as_bytes()
    text = EML.read(_write(tmp_path, "mbox.eml", raw), LIMITS).text
    assert text.startswith("From: Ana Lima <ana@example.org>\n") and "1462821104707864209" not in text


def test_a_charset_the_bytes_do_not_fit_decodes_with_replacement_and_a_note(tmp_path: Path) -> None:
    raw = (
        b"From: a@example.org\nSubject: bad\nContent-Type: text/plain; charset=shift_jis\n\n"
        b"caf\xe9 \x82\xa0 \x81\n"
    )
    result = EML.read(_write(tmp_path, "bad.eml", raw), LIMITS)
    assert "charset_replaced:shift_jis" in result.notes and "\ufffd" in result.text and "あ" in result.text


def test_a_body_declared_ascii_but_written_in_utf8_is_read_as_utf8() -> None:
    body = decode_body("Grüße".encode(), "us-ascii")
    assert (body.text, body.encoding, body.notes) == ("Grüße", "utf-8", ("charset_mismatch:us-ascii",))


def test_an_unknown_charset_is_decided_by_evidence() -> None:
    body = decode_body("naïve".encode(), "x-no-such-charset")
    assert body.text == "naïve" and body.notes == ("charset_unknown:x-no-such-charset",)


def test_format_flowed_bodies_have_their_soft_breaks_joined(tmp_path: Path) -> None:
    raw = (
        b"From: a@example.org\nSubject: flowed\n"
        b"Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\n\n"
        b"The password for your account was  \nrecently changed.\n> quoted and  \n> joined\n-- \nsig\n"
    )
    text = EML.read(_write(tmp_path, "f.eml", raw), LIMITS).text
    assert "was recently changed.\n> quoted and joined\n-- \nsig" in text
    assert unflow(" From the start\n", delsp=False) == "From the start\n"  # space-stuffing removed


def test_an_encrypted_message_says_so(tmp_path: Path) -> None:
    raw = (
        b"From: a@example.org\nSubject: secret\nMIME-Version: 1.0\n"
        b'Content-Type: application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"\n'
        b'Content-Disposition: attachment; filename="smime.p7m"\nContent-Transfer-Encoding: base64\n\n'
        b"MIAGCSqGSIb3DQEHA6CAMIACAQAxggFY\n"
    )
    path = _write(tmp_path, "enc.eml", raw)
    with pytest.raises(EncryptedDocument):
        EML.read(path, LIMITS)
    with pytest.raises(EncryptedDocument):
        members_of(path, ContentKind.EML, LIMITS)


def test_a_message_without_a_body_is_its_header_lines(tmp_path: Path) -> None:
    result = EML.read(_write(tmp_path, "h.eml", _message(body=None).as_bytes()), LIMITS)
    assert result.text.startswith("From: Ana Lima") and result.text.endswith("Subject: Quarterly figures")
    assert not produced_nothing(result)


def test_whitespace_that_is_no_message_produces_nothing(tmp_path: Path) -> None:
    for name, raw in (("ws.eml", b"      \n\n    \n"), ("zero.eml", b"")):
        assert produced_nothing(EML.read(_write(tmp_path, name, raw), LIMITS))


def test_mail_text_layout() -> None:
    headers = [HeaderLine("From", "a@b"), HeaderLine("Subject", "Hi")]
    assert mail_text(headers, "one\r\ntwo\r\n") == "From: a@b\nSubject: Hi\n\none\ntwo\n"
    assert mail_text(headers, " \r\n ") == "From: a@b\nSubject: Hi"
    assert mail_text([], "just a body") == "just a body"
    assert header_line("Subject", "folded\r\n  subject ") == HeaderLine("Subject", "folded subject")
    assert header_line("Cc", "  ") is None and header_line("Cc", None) is None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.text(
        alphabet=st.characters(
            blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\x1c\x1d\x1e\x85"
        ),
        max_size=300,
    ).map(lambda s: s + "\n")
)
def test_any_body_text_round_trips_through_an_eml(tmp_path: Path, body: str) -> None:
    msg = EmailMessage()
    msg["Subject"] = "round trip"
    msg.set_content(body)
    path = _write(tmp_path, "rt.eml", msg.as_bytes())
    text = EML.read(path, LIMITS).text
    expected = "Subject: round trip" + (f"\n\n{body}" if body.strip() else "")
    assert text == expected


# --- attachments become members, never text ---------------------------------------------------------------


def test_attachments_are_members_and_their_text_never_leaks(tmp_path: Path) -> None:
    path = _write(tmp_path, "att.eml", _with_attachments().as_bytes())
    text = EML.read(path, LIMITS).text
    members = members_of(path, ContentKind.EML, LIMITS)
    names = [m.member for m in members]
    assert names == ["report.pdf", "attachment-2.eml", "attachment-3.png"]
    assert "quarterly figures attached" in text
    for leaked in ("reservoir", "meter readings", "inner attachment", "HTML twin", "%PDF"):
        assert leaked not in text
    pdf = pymupdf.open(stream=members[0].data, filetype="pdf")
    assert ATTACHED in pdf[0].get_text()
    # The forwarded message is a container of its own: its body is its text, its PDF its member.
    inner = _write(tmp_path, "inner.eml", members[1].data)
    assert FORWARDED in EML.read(inner, LIMITS).text
    assert [m.member for m in members_of(inner, ContentKind.EML, LIMITS)] == ["x.pdf"]
    assert members[2].data.startswith(b"\x89PNG")


def test_inline_images_and_extra_inline_text_are_members(tmp_path: Path) -> None:
    msg = _message()
    msg.add_attachment(b"GIF89a....", maintype="image", subtype="gif", disposition="inline")
    msg.add_attachment("A second inline text part: a footer", disposition="inline")
    path = _write(tmp_path, "inline.eml", msg.as_bytes())
    members = members_of(path, ContentKind.EML, LIMITS)
    assert [m.member for m in members] == ["attachment-1.gif", "attachment-2.txt"]
    assert "footer" not in EML.read(path, LIMITS).text


def test_attachments_sharing_a_name_get_numeric_suffixes(tmp_path: Path) -> None:
    msg = _message()
    for data in (b"one", b"two", b"three"):
        msg.add_attachment(data, maintype="application", subtype="octet-stream", filename="data.bin")
    path = _write(tmp_path, "dup.eml", msg.as_bytes())
    members = members_of(path, ContentKind.EML, LIMITS)
    assert members == [
        ContainerMember("data.bin", b"one"),
        ContainerMember("data-2.bin", b"two"),
        ContainerMember("data-3.bin", b"three"),
    ]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(st.none(), st.sampled_from(["a.txt", "a-2.txt", "attachment-1", ""]), st.text()),
        max_size=30,
    )
)
@example(["0.\\", "0.\\"])  # a dot before a path separator is no extension
@example(["dir.d/report.pdf", "dir.d/report.pdf", ".profile", ".profile"])
def test_member_names_are_always_unique(names: list[str | None]) -> None:
    claimer = MemberNames()
    claimed = [claimer.claim(n, "text/plain") for n in names]
    assert len(set(claimed)) == len(claimed) and all(c.strip() for c in claimed)
    for ordinal, (original, got) in enumerate(zip(names, claimed, strict=True), start=1):
        if original and original.strip():
            name = original.strip()
            # The extension is the tail from the last dot of the last path part, unless that part starts
            # with it (".profile"): "0.\\" has none, its "." stands before the separator.
            base = name[max(name.rfind("/"), name.rfind("\\")) + 1 :]
            stem = name[: len(name) - len(base) + base.rfind(".")] if base.rfind(".") > 0 else name
            assert got == name or got.startswith(f"{stem}-")
        else:
            assert got.startswith(f"attachment-{ordinal}")


def test_attachment_bounds_apply_to_e_mail(tmp_path: Path) -> None:
    msg = _message()
    line = "0123456789" * 7 + "\n"  # short lines: sent as 7bit, as large encoded as decoded
    msg.add_attachment(line * 70, filename="big.txt")
    msg.add_attachment(line * 40, filename="mid.txt")
    path = _write(tmp_path, "b.eml", msg.as_bytes())
    assert [len(m.data) for m in members_of(path, ContentKind.EML, LIMITS)] == [71 * 70, 71 * 40]
    with pytest.raises(LimitExceeded, match=r"big\.txt"):
        members_of(path, ContentKind.EML, ReadLimits(max_member_bytes=4000))
    with pytest.raises(LimitExceeded, match="in all"):
        members_of(path, ContentKind.EML, ReadLimits(max_container_bytes=7000))
    with pytest.raises(LimitExceeded, match="more than 1"):
        members_of(path, ContentKind.EML, ReadLimits(max_members=1))
    with pytest.raises(LimitExceeded, match="for an e-mail"):
        EML.read(path, ReadLimits(max_container_bytes=1000))


def test_kinds_that_are_not_containers_have_no_members(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.pdf", _pdf("hello"))
    assert members_of(path, ContentKind.PDF, LIMITS) == []
    assert members_of(path, ContentKind.DOCX, LIMITS) == []


# --- zip ----------------------------------------------------------------------------------------------------


def test_a_zip_lists_its_files_and_its_members_are_its_files(tmp_path: Path) -> None:
    inner = _zip([("deep.txt", b"deep text")])
    data = _zip(
        [
            ("docs/", b""),
            ("docs/report.pdf", _pdf(ATTACHED)),
            ("inner.zip", inner),
            ("../evil.txt", b"evil"),
            ("/abs/path.txt", b"absolute"),
            ("empty-dir/", b""),
        ]
    )
    path = _write(tmp_path, "a.zip", data)
    result = ZIP.read(path, LIMITS)
    lines = result.text.split("\n")
    assert [line.split("\t")[0] for line in lines] == [
        "docs/report.pdf",
        "inner.zip",
        "../evil.txt",
        "/abs/path.txt",
    ]
    assert lines[1] == f"inner.zip\t{len(inner)}"
    assert ATTACHED not in result.text and "deep text" not in result.text
    members = members_of(path, ContentKind.ZIP, LIMITS)
    # Unsafe names are kept as they are: they are data, nothing is written to disk by them.
    assert [m.member for m in members] == ["docs/report.pdf", "inner.zip", "../evil.txt", "/abs/path.txt"]
    assert members[1].data == inner and members[2].data == b"evil"
    nested = _write(tmp_path, "inner.zip", members[1].data)
    assert members_of(nested, ContentKind.ZIP, LIMITS) == [ContainerMember("deep.txt", b"deep text")]


def test_zip_entries_named_alike_are_each_a_member_with_their_count_in_the_name(tmp_path: Path) -> None:
    path = _write(tmp_path, "dup.zip", _zip([("a.txt", b"first"), ("a.txt", b"second")]))
    assert members_of(path, ContentKind.ZIP, LIMITS) == [
        ContainerMember("a.txt", b"first"),
        ContainerMember("a-2.txt", b"second"),
    ]
    assert ZIP.read(path, LIMITS).text == "a.txt\t5\na.txt\t6"
    # A name given to a later entry is never one another entry holds: "a-2.txt" is the archive's own.
    path = _write(
        tmp_path,
        "taken.zip",
        _zip(
            [
                ("d/a.txt", b"1"),
                ("d/a.txt", b"2"),
                ("d/a-2.txt", b"3"),
                ("d/a.txt", b"4"),
                ("n", b"5"),
                ("n", b"6"),
            ]
        ),
    )
    assert [m.member for m in members_of(path, ContentKind.ZIP, LIMITS)] == [
        "d/a.txt",
        "d/a-3.txt",
        "d/a-2.txt",
        "d/a-4.txt",
        "n",
        "n-2",
    ]


def test_a_zip_bomb_member_is_refused(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "bomb.zip", _zip([("fine.txt", b"hello"), ("bomb.bin", b"\0" * (8 * 1024 * 1024))])
    )
    assert "bomb.bin\t8388608" in ZIP.read(path, LIMITS).text  # listing inflates nothing
    with pytest.raises(LimitExceeded, match="zip bomb"):
        members_of(path, ContentKind.ZIP, LIMITS)


def test_zip_bounds(tmp_path: Path) -> None:
    path = _write(tmp_path, "b.zip", _zip([("a.bin", b"a" * 3000), ("b.bin", b"b" * 3000)]))
    with pytest.raises(LimitExceeded):
        members_of(path, ContentKind.ZIP, ReadLimits(max_member_bytes=2000))
    with pytest.raises(LimitExceeded):
        members_of(path, ContentKind.ZIP, ReadLimits(max_container_bytes=5000))
    with pytest.raises(LimitExceeded):
        ZIP.read(path, ReadLimits(max_members=1))


def test_a_truncated_zip_is_corrupt(tmp_path: Path) -> None:
    path = _write(tmp_path, "t.zip", _zip([("a.txt", b"x" * 5000)])[:100])
    with pytest.raises(CorruptDocument):
        ZIP.read(path, LIMITS)
    with pytest.raises(CorruptDocument):
        members_of(path, ContentKind.ZIP, LIMITS)


def test_an_encrypted_member_is_listed_but_not_read(tmp_path: Path) -> None:
    data = bytearray(_zip([("secret.txt", b"secret")]))
    central = data.find(b"PK\x01\x02")
    flags = struct.unpack_from("<H", data, central + 8)[0]
    struct.pack_into("<H", data, central + 8, flags | 0x1)  # the directory's "encrypted" flag
    path = _write(tmp_path, "enc.zip", bytes(data))
    result = ZIP.read(path, LIMITS)
    assert result.text == "secret.txt\t6" and "encrypted_members:1" in result.notes
    with pytest.raises(EncryptedDocument):
        members_of(path, ContentKind.ZIP, LIMITS)


def test_a_member_name_cannot_forge_a_listing_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "n.zip", _zip([("a\nfake.txt\t99", b"x")]))
    assert ZIP.read(path, LIMITS).text == "a\\nfake.txt\\t99\t1"


def test_an_archive_of_directories_only_produces_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path, "d.zip", _zip([("a/", b""), ("a/b/", b"")]))
    assert produced_nothing(ZIP.read(path, LIMITS)) and members_of(path, ContentKind.ZIP, LIMITS) == []


# --- .msg and the corpus ------------------------------------------------------------------------------------


def _corpus_file(name: str) -> Path:
    path = DEV / name
    if not path.is_file():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    return path


@pytest.mark.corpus
def test_the_chinese_msg_decodes_by_its_internet_code_page() -> None:
    result = MSG.read(_corpus_file("tika__testMSG_chinese.msg"), LIMITS)
    assert "Subject: Alfresco MSG format testing ( MSG 格式測試 )" in result.text
    assert "From: Tests Chang@FT (張毓倫)" in result.text and "中文測試" in result.text
    assert (result.encoding, result.encoding_source) == ("cp950", "declared")


@pytest.mark.corpus
def test_the_msg_attachment_is_a_member_and_not_text() -> None:
    path = _corpus_file("unst__fake-email-attachment.msg")
    text = MSG.read(path, LIMITS).text
    assert text.startswith('From: "Mallori Harrell" <mallori@unstructured.io>\n')
    # The transport headers' Date (the .eml twin's), not the submit time of the conversion to .msg.
    assert "\nDate: Fri, 23 Dec 2022 12:08:48 -0600\n" in text
    assert "Here's the attachments!" in text
    members = members_of(path, ContentKind.MSG, LIMITS)
    assert members == [ContainerMember("fake-attachment.txt", b"Hey this is a fake attachment!")]
    assert "fake attachment!" not in text


@pytest.mark.corpus
def test_the_eml_attachment_is_a_member_and_not_text() -> None:
    path = _corpus_file("unst__fake-email-attachment.eml")
    members = members_of(path, ContentKind.EML, LIMITS)
    assert [m.member for m in members] == ["fake-attachment.txt"]
    assert "fake attachment" not in EML.read(path, LIMITS).text


@pytest.mark.corpus
def test_corpus_mail_is_derived_except_what_has_no_text() -> None:
    for path in sorted(DEV.glob("*.eml")) or [_corpus_file("unst__fake-email.eml")]:
        result = EML.read(path, LIMITS)
        assert produced_nothing(result) == (path.name == "unst__empty.eml"), path.name
    assert (
        "This is the text/plain part." in EML.read(DEV / "unst__mime-different-plain-html.eml", LIMITS).text
    )
    utf16 = EML.read(DEV / "unst__fake-email-utf-16-le.eml", LIMITS)
    assert "Roses are red" in utf16.text and utf16.encoding_source == "nul_share"


def test_a_file_that_is_not_a_msg_is_corrupt(tmp_path: Path) -> None:
    with pytest.raises(CorruptDocument):
        MSG.read(_write(tmp_path, "x.msg", b"not an OLE2 file at all" * 40), LIMITS)
    with pytest.raises(CorruptDocument):
        members_of(_write(tmp_path, "y.msg", b"\0" * 600), ContentKind.MSG, LIMITS)


def test_a_message_parsed_with_compat32_round_trips_too(tmp_path: Path) -> None:
    """Messages written by older tools (compat32 generator) read the same."""
    raw = _message().as_bytes(policy=policy.compat32)
    assert "quarterly figures attached" in EML.read(_write(tmp_path, "c.eml", raw), LIMITS).text


# --- .msg files built in code -------------------------------------------------------------------------------

SUBMITTED = datetime(2023, 4, 20, 21, 39, 10, tzinfo=UTC)
FILETIME_EPOCH = datetime(1601, 1, 1, tzinfo=UTC)


def _filetime(when: datetime) -> int:
    return (when - FILETIME_EPOCH) // timedelta(microseconds=1) * 10


def _mapi(
    *,
    strings: dict[int, str] | None = None,
    binaries: dict[int, bytes] | None = None,
    fixed: dict[tuple[int, int], int] | None = None,
    header: int = msg_ole.HEADER_TOP_MESSAGE,
    codec: str | None = None,
    extra: dict[str, OleStream | OleStorage] | None = None,
) -> dict[str, OleStream | OleStorage]:
    """The streams of one MAPI object: strings as ``001F`` (or ``001E`` in ``codec``), binaries, and the
    fixed-size properties as records after a property-stream header of ``header`` bytes."""
    children: dict[str, OleStream | OleStorage] = {}
    for prop_id, text in (strings or {}).items():
        if codec is None:
            children[substg_name(prop_id, PT_UNICODE)] = OleStream(text.encode("utf-16-le"))
        else:
            children[substg_name(prop_id, PT_STRING8)] = OleStream(text.encode(codec))
    for prop_id, data in (binaries or {}).items():
        children[substg_name(prop_id, PT_BINARY)] = OleStream(data)
    records = b"".join(
        struct.pack("<IIQ", prop_id << 16 | prop_type, 6, value & 0xFFFFFFFFFFFFFFFF)
        for (prop_id, prop_type), value in (fixed or {}).items()
    )
    children[msg_ole.PROPERTIES] = OleStream(b"\0" * header + records)
    children.update(extra or {})
    return children


def _recipient(name: str, address: str, kind: int = 1) -> OleStorage:
    return OleStorage(
        _mapi(
            strings={0x3001: name, 0x3002: "SMTP", 0x3003: address},
            fixed={(0x0C15, PT_LONG): kind},
            header=msg_ole.HEADER_ATTACHMENT_OR_RECIPIENT,
        )
    )


def _data_attachment(
    filename: str | None, data: bytes, mime: str | None = None, method: int = 1
) -> OleStorage:
    strings = {0x3707: filename} if filename else {}
    if mime:
        strings[0x370E] = mime
    return OleStorage(
        _mapi(
            strings=strings,
            binaries={0x3701: data},
            fixed={(0x3705, PT_LONG): method},
            header=msg_ole.HEADER_ATTACHMENT_OR_RECIPIENT,
        )
    )


def _numbered(prefix: str, objects: list[OleStorage]) -> dict[str, OleStream | OleStorage]:
    return {f"{prefix}{n:08X}": obj for n, obj in enumerate(objects)}


def _outlook(
    *,
    body: str | None = "Hello!\r\n\r\nThe figures.\r\n",
    html: bytes | None = None,
    rtf: bytes | None = None,
    subject: str = "Quarterly figures",
    message_class: str = "IPM.Note",
    codec: str | None = None,
    codepages: dict[int, int] | None = None,
    headers: str | None = None,
    recipients: list[OleStorage] | None = None,
    attachments: list[OleStorage] | None = None,
    flags: int = 0x1,
    embedded_header: bool = False,
) -> dict[str, OleStream | OleStorage]:
    """A message's streams as Outlook writes them: sender, recipients, submit time, the bodies asked for."""
    strings = {0x001A: message_class, 0x0037: subject, 0x0C1A: "Ana Lima", 0x5D01: "ana@example.org"}
    if body is not None:
        strings[0x1000] = body
    if headers is not None:
        strings[0x007D] = headers
    binaries: dict[int, bytes] = {}
    if html is not None:
        binaries[0x1013] = html
    if rtf is not None:
        binaries[0x1009] = compressed_rtf.compress(rtf)
    fixed = {(0x0039, PT_SYSTIME): _filetime(SUBMITTED), (0x0E07, PT_LONG): flags}
    fixed.update({(tag, PT_LONG): value for tag, value in (codepages or {}).items()})
    extra = _numbered(msg_ole.RECIPIENT_PREFIX, recipients or [_recipient("Bob", "bob@example.org")])
    extra |= _numbered(msg_ole.ATTACHMENT_PREFIX, attachments or [])
    header = msg_ole.HEADER_EMBEDDED_MESSAGE if embedded_header else msg_ole.HEADER_TOP_MESSAGE
    return _mapi(strings=strings, binaries=binaries, fixed=fixed, codec=codec, extra=extra, header=header)


def _msg(tmp_path: Path, name: str = "m.msg", **kwargs: Any) -> Path:
    children = _outlook(**kwargs)
    # The named-property mapping (GUID, entry and string streams), empty: a message without named properties.
    children[msg_ole.NAMEID] = OleStorage({substg_name(n, PT_BINARY): OleStream(b"") for n in (2, 3, 4)})
    return _write(tmp_path, name, write_compound_file(OleStorage(children, msg_ole.MSG_CLSID)))


def test_msg_headers_from_the_properties_and_the_plain_body(tmp_path: Path) -> None:
    path = _msg(tmp_path, html=b"<p>The HTML body is not read when the plain one has text</p>")
    result = MSG.read(path, LIMITS)
    assert result.text == (
        "From: Ana Lima <ana@example.org>\nTo: Bob <bob@example.org>\n"
        "Date: Thu, 20 Apr 2023 21:39:10 +0000\nSubject: Quarterly figures\n\nHello!\n\nThe figures.\n"
    )
    assert (result.encoding, result.encoding_source, result.notes) == ("utf-16-le", "declared", ())
    assert members_of(path, ContentKind.MSG, LIMITS) == []


def test_msg_recipients_by_kind_and_a_draft_has_no_date(tmp_path: Path) -> None:
    recipients = [
        _recipient("Bob", "bob@example.org"),
        _recipient("Carla", "carla@example.org", kind=2),
        _recipient("Dan", "dan@example.org"),
        _recipient("Eve", "eve@example.org", kind=3),  # Bcc: not a header line
    ]
    text = MSG.read(_msg(tmp_path, recipients=recipients, flags=0x8), LIMITS).text
    assert "To: Bob <bob@example.org>; Dan <dan@example.org>\nCc: Carla <carla@example.org>\n" in text
    assert "Date:" not in text and "Eve" not in text


def test_msg_transport_headers_give_from_to_cc_and_date(tmp_path: Path) -> None:
    headers = (
        "Microsoft Mail Internet Headers Version 2.0\r\n"
        "Received: from mx.example.org\r\nDate: Fri, 23 Dec 2022 12:08:48 -0600\r\n"
        'From: "Lima, Ana" <ana@example.org>\r\nTo: =?utf-8?q?Jos=C3=A9?= <jose@example.org>,\r\n'
        " bob@example.org\r\nCc: carla@example.org\r\nSubject: =?utf-8?q?ignored?=\r\n\r\n"
    )
    text = MSG.read(_msg(tmp_path, headers=headers), LIMITS).text
    assert text.startswith(
        'From: "Lima, Ana" <ana@example.org>\nTo: José <jose@example.org>, bob@example.org\n'
        "Cc: carla@example.org\nDate: Fri, 23 Dec 2022 12:08:48 -0600\nSubject: Quarterly figures\n\n"
    )


def test_msg_a_property_that_cannot_be_decoded_is_left_out_and_noted(tmp_path: Path) -> None:
    children = _outlook()
    children[substg_name(0x0037, PT_UNICODE)] = OleStream(b"odd")  # UTF-16 of an odd length
    path = _write(tmp_path, "bad.msg", write_compound_file(OleStorage(children)))
    result = MSG.read(path, LIMITS)
    assert "Subject:" not in result.text and result.notes == ("header_unparsed:subject",)
    assert result.text.endswith("\n\nHello!\n\nThe figures.\n")


def test_msg_html_body_when_the_plain_one_is_blank(tmp_path: Path) -> None:
    html = b"<html><body><article><p>Only the HTML body says this.</p></article></body></html>"
    result = MSG.read(_msg(tmp_path, body=" \r\n", html=html), LIMITS)
    assert result.text.endswith("\n\nOnly the HTML body says this.") and "html_body" in result.notes


def test_msg_rtf_body_only_when_it_encapsulates_text_and_nothing_else_is_there(tmp_path: Path) -> None:
    encapsulated = (
        b"{\\rtf1\\ansi\\ansicpg1252\\fromtext \\deff0{\\fonttbl{\\f0 Arial;}}"
        b"Text taken out\\par of the RTF.}"
    )
    result = MSG.read(_msg(tmp_path, "t.msg", body=None, rtf=encapsulated), LIMITS)
    assert result.text.endswith("\n\nText taken out\nof the RTF.") and "rtf_body" in result.notes
    native = b"{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Arial;}}Composed in rich text.\\par}"
    result = MSG.read(_msg(tmp_path, "n.msg", body=None, rtf=native), LIMITS)
    assert result.text.endswith("Subject: Quarterly figures") and "rtf_body_not_read" in result.notes
    result = MSG.read(_msg(tmp_path, "b.msg", body=None, rtf=None), LIMITS)
    assert result.text.endswith("Subject: Quarterly figures") and result.notes == ()


def test_msg_rtf_encapsulating_html_is_read_as_html(tmp_path: Path) -> None:
    rtf = (
        b"{\\rtf1\\ansi\\ansicpg1252\\fromhtml1 \\deff0{\\fonttbl{\\f0\\fswiss Arial;}}\r\n"
        b"{\\*\\htmltag64 <html><body><article><p>}\\htmlrtf {\\htmlrtf0 Caf\\'e9 r\\u233 ?sum\\u233 ?"
        b"{\\*\\htmltag84 &amp;}\\htmlrtf &\\htmlrtf0  more{\\*\\htmltag72 </p>}\\htmlrtf\\par}\\htmlrtf0\r\n"
        b"{\\*\\htmltag0 </article></body></html>}}"
    )
    result = MSG.read(_msg(tmp_path, body=None, rtf=rtf), LIMITS)
    assert result.text.endswith("\n\nCafé résumé& more") and "rtf_body" in result.notes


def test_msg_8bit_strings_decode_by_the_declared_code_page(tmp_path: Path) -> None:
    big5 = {"subject": "格式測試", "body": "中文測試，繁體中文的郵件。\r\n"}
    path = _msg(tmp_path, subject=big5["subject"], body=big5["body"], codec="cp950", codepages={0x3FDE: 950})
    result = MSG.read(path, LIMITS)
    assert "Subject: 格式測試\n" in result.text and result.text.endswith("中文測試，繁體中文的郵件。\n")
    assert (result.encoding, result.encoding_source) == ("cp950", "declared")
    # PR_MESSAGE_CODEPAGE comes before PR_INTERNET_CPID.
    path = _msg(tmp_path, "m2.msg", body="Grüße\r\n", codec="cp1252", codepages={0x3FFD: 1252, 0x3FDE: 65001})
    assert MSG.read(path, LIMITS).encoding == "cp1252"


def test_msg_an_undeclared_code_page_is_detected_and_noted(tmp_path: Path) -> None:
    body = "Привет, коллеги! Отчёт за квартал во вложении, посмотрите его до пятницы.\r\n" * 3
    result = MSG.read(_msg(tmp_path, body=body, subject="Отчёт", codec="cp1251"), LIMITS)
    assert "Привет, коллеги!" in result.text and "Subject: Отчёт" in result.text
    assert "codepage_detected" in result.notes and result.encoding == "cp1251"


def test_msg_encrypted_classes_say_so(tmp_path: Path) -> None:
    for n, message_class in enumerate(("IPM.Note.SMIME", "IPM.Note.rpmsg.Microsoft.Voicemail")):
        path = _msg(tmp_path, f"e{n}.msg", message_class=message_class)
        with pytest.raises(EncryptedDocument):
            MSG.read(path, LIMITS)
        with pytest.raises(EncryptedDocument):
            members_of(path, ContentKind.MSG, LIMITS)


def test_msg_clear_signed_content_is_its_mime_attachment(tmp_path: Path) -> None:
    inner = _message("Signed", "The signed body says this.\n")
    inner.add_attachment(
        b"%PDF-1.4 signed attachment", maintype="application", subtype="pdf", filename="s.pdf"
    )
    mime = (
        b'Content-Type: multipart/signed; protocol="application/pkcs7-signature"; boundary="b"\r\n\r\n'
        b"--b\r\n"
        + inner.as_bytes()
        + b"\r\n--b\r\nContent-Type: application/pkcs7-signature\r\n\r\nMIIB\r\n--b--\r\n"
    )
    attachment = _data_attachment("smime.p7m", mime, "multipart/signed")
    path = _msg(tmp_path, body=None, message_class="IPM.Note.SMIME.MultipartSigned", attachments=[attachment])
    text = MSG.read(path, LIMITS).text
    assert text.endswith("\n\nThe signed body says this.\n") and "%PDF" not in text
    assert members_of(path, ContentKind.MSG, LIMITS) == [
        ContainerMember("s.pdf", b"%PDF-1.4 signed attachment")
    ]


def test_msg_attachments_are_members_with_unique_names(tmp_path: Path) -> None:
    attachments = [
        _data_attachment("data.bin", b"one"),
        _data_attachment("data.bin", b"two", "application/octet-stream"),
        _data_attachment(None, b"\x89PNG\r\n\x1a\n", "image/png"),
        _data_attachment("link.url", b"", method=7),
    ]
    del attachments[3].children[substg_name(0x3701, PT_BINARY)]  # a web link (method 7): no bytes, skipped
    path = _msg(tmp_path, attachments=attachments)
    assert members_of(path, ContentKind.MSG, LIMITS) == [
        ContainerMember("data.bin", b"one"),
        ContainerMember("data-2.bin", b"two"),
        ContainerMember("attachment-3.png", b"\x89PNG\r\n\x1a\n"),
    ]
    assert MSG.read(path, LIMITS).text.endswith("Subject: Quarterly figures\n\nHello!\n\nThe figures.\n")
    with pytest.raises(LimitExceeded, match="more than 2"):
        members_of(path, ContentKind.MSG, ReadLimits(max_members=2))
    with pytest.raises(LimitExceeded, match=r"data\.bin"):
        members_of(path, ContentKind.MSG, ReadLimits(max_member_bytes=2))


def test_msg_an_embedded_message_is_a_standalone_msg_member(tmp_path: Path) -> None:
    inner = _outlook(
        subject="Fwd: readings",
        body=FORWARDED + "\r\n",
        attachments=[_data_attachment("inner.txt", b"inner attachment text")],
        embedded_header=True,
    )
    carrier = _mapi(
        strings={0x3001: "Fwd: readings"},
        fixed={(0x3705, PT_LONG): 5},
        header=msg_ole.HEADER_ATTACHMENT_OR_RECIPIENT,
        extra={substg_name(0x3701, msg_ole.PT_OBJECT): OleStorage(inner)},
    )
    path = _msg(tmp_path, attachments=[OleStorage(carrier), _data_attachment("after.txt", b"after")])
    assert FORWARDED not in MSG.read(path, LIMITS).text
    members = members_of(path, ContentKind.MSG, LIMITS)
    assert [m.member for m in members] == ["Fwd: readings.msg", "after.txt"]
    exported = _write(tmp_path, "inner.msg", members[0].data)
    result = MSG.read(exported, LIMITS)
    assert "Subject: Fwd: readings" in result.text and FORWARDED in result.text
    assert members_of(exported, ContentKind.MSG, LIMITS) == [
        ContainerMember("inner.txt", b"inner attachment text")
    ]
    with msg_ole.MsgFile(
        exported
    ) as standalone:  # a top-level message: 32-byte header, the mapping copied in
        props = standalone.read((msg_ole.PROPERTIES,)) or b""
        assert props[:32] == b"\0" * 32 and standalone.is_storage((msg_ole.NAMEID,))
        assert standalone.root.time(0x0039) == SUBMITTED
    assert sniff(members[0].data[:HEAD_BYTES], "attachment-1") == Sniffed(ContentKind.MSG, KindSource.BYTES)


def test_a_compound_file_without_mapi_properties_is_no_msg(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "doc.msg", write_compound_file(OleStorage({"WordDocument": OleStream(b"x" * 600)}))
    )
    with pytest.raises(CorruptDocument, match="not a message"):
        MSG.read(path, LIMITS)


def test_a_stream_claiming_more_bytes_than_the_file_is_corrupt(tmp_path: Path) -> None:
    data = bytearray(write_compound_file(OleStorage(_outlook())))
    name = substg_name(0x1000, PT_UNICODE).encode("utf-16-le")
    entry = data.find(name)
    struct.pack_into("<I", data, entry + 0x78, 50_000_000)
    path = _write(tmp_path, "big.msg", bytes(data))
    with msg_ole.MsgFile(path) as msg, pytest.raises(CorruptDocument, match="more than the file"):
        msg.root.string(0x1000, "cp1252")
    assert "plain_body_unreadable:CorruptDocument" in MSG.read(path, LIMITS).notes


# --- the MAPI and RTF parsing underneath -------------------------------------------------------------------


def test_property_records_parse_after_their_header() -> None:
    records = struct.pack("<IIQ", 0x0E070003, 6, 0x11) + struct.pack(
        "<IIQ", 0x00390040, 6, _filetime(SUBMITTED)
    )
    records += (
        struct.pack("<II", 0x0037001F, 6) + struct.pack("<I", 18) + b"\0" * 4 + b"\0" * 5
    )  # a padded tail
    for header in (32, 24, 8):
        found = msg_ole.parse_properties(b"\xff" * header + records, header)
        assert sorted(found) == [0x0037, 0x0039, 0x0E07]
        assert found[0x0E07].long == 0x11 and found[0x0039].time == SUBMITTED
        assert found[0x0037].prop_type == PT_UNICODE and found[0x0037].long is None
    assert msg_ole.parse_properties(struct.pack("<IIq", 0x37050003, 0, -1) + b"", 0)[0x3705].long == -1
    with pytest.raises(CorruptDocument):
        msg_ole.parse_properties(b"\0" * 10, 32)


def test_filetimes_and_code_pages() -> None:
    assert msg_ole.filetime(_filetime(SUBMITTED)) == SUBMITTED
    assert msg_ole.filetime(0) is None and msg_ole.filetime(0x7FFFFFFFFFFFFFFF) is None
    assert [msg_ole.codepage_codec(cp) for cp in (950, 936, 1252, 65001, 28591, 20127)] == [
        "cp950",
        "gbk",
        "cp1252",
        "utf-8",
        "iso8859-1",
        "ascii",
    ]
    assert msg_ole.codepage_codec(99999) is None


def test_rtf_deencapsulation_keeps_the_original_and_drops_rtf_only_text() -> None:
    rtf = (
        b"{\\rtf1\\ansi\\ansicpg1252\\fromhtml1 \\deff0{\\fonttbl{\\f0 Arial;}{\\f1\\fcharset136 PMingLiU;}}"
        b"{\\colortbl;\\red0\\green0\\blue0;}{\\*\\generator Riched20;}"
        b'{\\*\\htmltag19 <html>}{\\*\\mhtmltag84 <img src="http://example.org/a.png">}'
        b'{\\*\\htmltag84 <img src="cid:a">}\\htmlrtf {\\pict 0102}\\htmlrtf0 '
        b"{\\f1 \\'a4\\'a4\\'a4\\'e5}\\u8364 ?{\\*\\htmltag84 &lt;}\\htmlrtf <\\htmlrtf0 \\{x\\}\\par"
        b"{\\*\\htmltag0 \\par </html>}}\x00\x00"
    )
    found = msg_rtf.deencapsulate_rtf(rtf)
    assert found == msg_rtf.Deencapsulated("html", '<html><img src="cid:a">中文€&lt;{x}\r\n\r\n</html>')
    text = msg_rtf.deencapsulate_rtf(b"{\\rtf1\\ansi\\fromtext {\\*\\htmltag0 x}line\\tab one\\line two}")
    assert text is not None and (text.kind, text.content) == ("text", "line\tone\r\ntwo")
    assert msg_rtf.deencapsulate_rtf(b"{\\rtf1\\ansi{\\fonttbl{\\f0 X;}}\\fromhtml1 native}") is None
    with pytest.raises(msg_rtf.RtfBodyError):
        msg_rtf.decompress_rtf(b"\x10\0\0\0\x10\0\0\0LZFu\0\0\0\0" + b"x" * 8)  # bad checksum


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.text(
            st.characters(min_codepoint=0x21, max_codepoint=0x7E, blacklist_characters="/\\:!"),
            min_size=1,
            max_size=31,
        ),
        st.binary(max_size=5000),
        max_size=40,
    )
)
def test_written_compound_files_read_back_with_valid_red_black_directories(files: dict[str, bytes]) -> None:
    files = {name: data for name, data in files.items() if name.upper() != "SUB"}
    if len({name.upper() for name in files}) != len(files):
        return  # names differing only in case are one name in a compound file
    children: dict[str, OleStream | OleStorage] = {name: OleStream(data) for name, data in files.items()}
    children["sub"] = OleStorage({"a": OleStream(b"x" * 4096), "nested": OleStorage({})})
    data = write_compound_file(OleStorage(children))
    ole = olefile.OleFileIO(data, raise_defects=olefile.DEFECT_INCORRECT)
    for name, payload in files.items():
        assert ole.openstream(name).read() == payload
    assert (
        ole.openstream("sub/a").read() == b"x" * 4096 and ole.get_type("sub/nested") == olefile.STGTY_STORAGE
    )
    _check_red_black(ole, ole.root.sid_child)


def _check_red_black(ole: olefile.OleFileIO, root: int) -> int:
    """The black height of the sibling tree at ``root``; asserts order, colours and equal black heights."""
    if root == olefile.NOSTREAM:
        return 1
    entry = ole.direntries[root]
    for side in (entry.sid_left, entry.sid_right):
        if side != olefile.NOSTREAM:
            child = ole.direntries[side]
            if entry.color == 0:
                assert child.color == 1, "a red node with a red child"
    key = (len(entry.name), entry.name.upper())
    if entry.sid_left != olefile.NOSTREAM:
        other = ole.direntries[entry.sid_left]
        assert (len(other.name), other.name.upper()) < key
    if entry.sid_right != olefile.NOSTREAM:
        other = ole.direntries[entry.sid_right]
        assert (len(other.name), other.name.upper()) > key
    left, right = _check_red_black(ole, entry.sid_left), _check_red_black(ole, entry.sid_right)
    assert left == right, "unequal black heights"
    if entry.sid_child != olefile.NOSTREAM:
        _check_red_black(ole, entry.sid_child)
    return left + (1 if entry.color == 1 else 0)


def test_a_compound_file_over_seven_megabytes_has_a_difat(tmp_path: Path) -> None:
    payload = bytes(range(256)) * (7_400_000 // 256)
    data = write_compound_file(OleStorage({"big": OleStream(payload), "small": OleStream(b"s")}))
    assert struct.unpack_from("<I", data, 0x48)[0] >= 1  # DIFAT sectors
    ole = olefile.OleFileIO(data, raise_defects=olefile.DEFECT_INCORRECT)
    assert ole.openstream("big").read() == payload and ole.openstream("small").read() == b"s"
