"""Bounded zip reading: bombs, lies, truncation, passwords and entity expansion, all with fixtures built in
code."""

from __future__ import annotations

import io
import struct
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readers.archives.safezip import SafeZip, parse_xml
from readers.core.errors import CorruptDocument, EncryptedDocument, LimitExceeded
from readers.core.model import ReadLimits


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buffer.getvalue()


def test_a_zip_bomb_is_refused_while_it_inflates() -> None:
    data = _zip({"bomb.xml": b"\0" * (200 * 1024 * 1024), "fine.txt": b"hello"})
    assert len(data) < 1024 * 1024
    with SafeZip(io.BytesIO(data), ReadLimits()) as z:
        assert z.read("fine.txt") == b"hello"
        with pytest.raises(LimitExceeded, match="zip bomb"):
            z.read("bomb.xml")
        (bomb,) = [m for m in z.members() if m.name == "bomb.xml"]
        # Stopped once past the ratio over the member's compressed size, long before its 200 MB.
        assert z.inflated <= 100 * bomb.compressed_size + 2 * 1024 * 1024 < 200 * 1024 * 1024


def test_a_member_that_lies_about_its_size_is_cut_at_the_bound() -> None:
    limits = ReadLimits(max_member_bytes=1000, max_compression_ratio=1e9)
    data = _zip({"big.txt": bytes(range(256)) * 100})
    with SafeZip(io.BytesIO(data), limits) as z, pytest.raises(LimitExceeded):
        z.read("big.txt")


def test_the_whole_container_has_a_budget() -> None:
    limits = ReadLimits(max_container_bytes=50_000, max_compression_ratio=1e9)
    data = _zip({f"m{i}.bin": bytes(range(256)) * 100 for i in range(5)})
    with SafeZip(io.BytesIO(data), limits) as z:
        z.read("m0.bin")
        with pytest.raises(LimitExceeded, match="container"):
            for name in z.names():
                z.read(name)


def test_too_many_members() -> None:
    data = _zip({f"{i}.txt": b"x" for i in range(30)})
    with pytest.raises(LimitExceeded):
        SafeZip(io.BytesIO(data), ReadLimits(max_members=20))


def test_truncated_and_junk_are_corrupt() -> None:
    data = _zip({"a.txt": b"some text " * 1000})
    for bad in (data[: len(data) // 2], b"PK\x03\x04" + b"\x00" * 100, b"not a zip at all"):
        with pytest.raises(CorruptDocument):
            SafeZip(io.BytesIO(bad), ReadLimits())


def test_a_damaged_member_is_corrupt() -> None:
    data = bytearray(_zip({"a.txt": b"some text that compresses " * 400}))
    data[60:90] = b"\xff" * 30  # inside the deflate stream
    with SafeZip(io.BytesIO(bytes(data)), ReadLimits()) as z, pytest.raises(CorruptDocument):
        z.read("a.txt")


def test_a_password_protected_member_is_encrypted() -> None:
    data = bytearray(_zip({"secret.txt": b"hidden"}))
    # Set the "encrypted" flag in the local header and the central directory, as a protected zip has.
    for offset in (6, data.rfind(b"PK\x01\x02") + 8):
        (flags,) = struct.unpack_from("<H", data, offset)
        struct.pack_into("<H", data, offset, flags | 0x1)
    with SafeZip(io.BytesIO(bytes(data)), ReadLimits()) as z:
        assert [m.encrypted for m in z.members()] == [True]
        with pytest.raises(EncryptedDocument):
            z.read("secret.txt")


def test_xml_entity_expansion_and_external_entities_are_refused() -> None:
    laughs = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + b"".join(
            b'<!ENTITY lol%d "%s">'
            % (i, b"".join(b"&lol%s;" % (str(i - 1).encode() if i > 1 else b"") for _ in range(10)))
            for i in range(1, 10)
        )
        + b"]><lolz>&lol9;</lolz>"
    )
    external = b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>'
    for doc in (laughs, external):
        with pytest.raises(CorruptDocument) as info:
            parse_xml(doc)
        assert info.value.reason == "xml_entities"
    with pytest.raises(CorruptDocument):
        parse_xml(b"<r><unclosed></r>")
    assert parse_xml(b"<r><a>x</a></r>").find("a").text == "x"


@settings(max_examples=30, deadline=None)
@given(
    st.dictionaries(
        st.text("abcdefgh/._", min_size=1, max_size=12).filter(lambda n: not n.endswith("/")),
        st.binary(max_size=2000),
        max_size=6,
    )
)
def test_every_member_reads_back_as_written(members: dict[str, bytes]) -> None:
    with SafeZip(io.BytesIO(_zip(members)), ReadLimits()) as z:
        assert {name: z.read(name) for name in z.names()} == members
