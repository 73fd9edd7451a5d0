"""Which marked content each character of a page stands in (readers/pdf/marked_content.py): the content
stream's scan, the page's run through MuPDF with the states as layers, and the page left as it was.

The pages are written by PyMuPDF (a page with its Helvetica resource), their content streams replaced
by the marked content each test needs."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readers.pdf.marked_content import MarkedState, Unscannable, _chars, marked_states, page_marked_chars


def _page(path: Path, content: bytes, properties: str = "") -> Path:
    """A one-page PDF whose content is ``content`` (font ``/helv`` is Helvetica), with the page's
    ``/Resources/Properties`` set to ``properties`` when given."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "x", fontname="helv")
    doc.update_stream(page.get_contents()[0], content)
    if properties:
        kind, value = doc.xref_get_key(page.xref, "Resources")
        assert kind == "xref"
        doc.xref_set_key(int(value.split()[0]), "Properties", properties)
    doc.save(path)
    return path


def _show(y: int, text: str) -> bytes:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return b"BT /helv 11 Tf 72 %d Td (%s) Tj ET\n" % (y, escaped.encode("latin-1"))


def _by_mcid(path: Path) -> dict[int, str]:
    with pymupdf.open(path) as doc:
        chars = page_marked_chars(doc, 0)
    assert chars is not None
    out: dict[int, str] = defaultdict(str)
    for c in chars:
        if not c.text.isspace():
            out[c.mcid] += c.text
    return dict(out)


def test_the_states_follow_the_marked_content_and_strings_comments_and_images_hide_nothing() -> None:
    content = (
        b"% a comment that says /P <</MCID 9>> BDC\n"
        b"/P <</MCID 1 /ActualText (a >> and a BDC)>> BDC\n"
        b"BT /helv 11 Tf 72 700 Td (EMC \\) and (nested (twice)) BDC) Tj ET\n"
        b"[(Q) 120 (BMC)] TJ\n"
        b"BI /W 2 /H 1 /BPC 8 /CS /G ID \x00EMC\x01 EI\n"
        b"/Artifact <</Type /Pagination>> BDC /Span BMC EMC EMC\n"
        b"/Figure /MC0 BDC EMC EMC\n"
    )
    rewritten, states = marked_states(content, {b"MC0": b"<< /MCID 4 >>"})
    assert states == [
        MarkedState(),
        MarkedState(1),
        MarkedState(1, artifact=True, furniture=True),
        MarkedState(1, artifact=True, furniture=True),
        MarkedState(1, artifact=True, furniture=True),
        MarkedState(1),
        MarkedState(4),
        MarkedState(1),
        MarkedState(),
    ]
    assert b"/MCID 1" not in rewritten  # the operators and their operands are gone ...
    assert (
        b"(EMC \\) and (nested (twice)) BDC)" in rewritten and b"\x00EMC\x01" in rewritten
    )  # ... the data stays
    assert rewritten.count(b"/Layer <</Title") == len(states)  # one layer a state (no Q operator here)


@pytest.mark.parametrize(
    ("content", "mcid", "expected"),
    [
        (
            b"q /P <</MCID 1>> BDC Q (x) Tj EMC",
            1,
            b"\n/Layer <</Title (assay:0)>> BDC\nq "
            b"\nEMC\n/Layer <</Title (assay:1)>> BDC\n Q"
            b"\nEMC\n/Layer <</Title (assay:1)>> BDC\n (x) Tj "
            b"\nEMC\n/Layer <</Title (assay:2)>> BDC\n",
        ),
        (
            b"xq /P <</MCID 2>> BDC xQ xEMC xBDC EMC",
            2,
            b"\n/Layer <</Title (assay:0)>> BDC\nxq "
            b"\nEMC\n/Layer <</Title (assay:1)>> BDC\n xQ xEMC xBDC "
            b"\nEMC\n/Layer <</Title (assay:2)>> BDC\n",
        ),
    ],
    ids=["a layer begun again after a Q", "operators glued to a regular byte"],
)
def test_the_rewritten_content_switches_layers_where_the_operators_are(
    content: bytes, mcid: int, expected: bytes
) -> None:
    rewritten, states = marked_states(content, {})
    assert states == [MarkedState(), MarkedState(mcid), MarkedState()]
    assert rewritten == expected


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"/OC /oc1 BDC (x) Tj EMC", "optional content"),
        (b"/P <</MCID 1>> 12 BDC", "an operand out of place"),
        (b"BDC", "no operands"),
        (b"((((deep)))) Tj", "a string nested four deep"),
        (b"(unbalanced Tj", "an unbalanced string"),
        (b"(x) Tj ) Tj", "a closing parenthesis alone"),
        (b"BI /W 1 /H 1 ID \x00 " * 3, "inline images without their end"),
    ],
)
def test_content_that_cannot_be_scanned_with_certainty_is_refused(content: bytes, why: str) -> None:
    with pytest.raises(Unscannable):
        marked_states(content, {})


def test_each_character_carries_its_mcid_and_the_artifacts_are_furniture(tmp_path: Path) -> None:
    content = (
        b"/Artifact <</Type /Pagination /Subtype /Header>> BDC " + _show(760, "Running head") + b"EMC\n"
        b"/P <</MCID 0>> BDC " + _show(700, "First (paragraph)") + b"EMC\n"
        b"/Artifact <</Type /Layout>> BDC " + _show(650, "Decoration") + b"EMC\n"
        b"/P /MC1 BDC " + _show(600, "Named properties") + b"EMC\n" + _show(500, "Unmarked")
    )
    path = _page(tmp_path / "p.pdf", content, "<< /MC1 << /MCID 5 >> >>")
    with pymupdf.open(path) as doc:
        chars = page_marked_chars(doc, 0)
    assert chars is not None
    words: dict[tuple[int, bool, bool], str] = defaultdict(str)
    for c in chars:
        words[(c.mcid, c.artifact, c.furniture)] += c.text
    assert words == {
        (-1, True, True): "Running head",
        (0, False, False): "First (paragraph)",
        (-1, True, False): "Decoration",
        (5, False, False): "Named properties",
        (-1, False, False): "Unmarked",
    }


def test_text_after_a_restored_clip_keeps_its_marked_content(tmp_path: Path) -> None:
    """A sequence begun inside ``q`` ... ``Q`` around a clip and ended after it (the corpus's
    tika__testPDFVarious.pdf draws its footnote so): MuPDF ends a layer at such a ``Q``."""
    content = (
        b"q 0 0 612 792 re W* n /P <</MCID 3>> BDC "
        + _show(700, "1")
        + b"Q "
        + _show(690, "footnote")
        + b"EMC "
        b"/P <</MCID 4>> BDC q 0 0 612 792 re W n "
        + _show(600, "inside")
        + b"Q "
        + _show(590, "after")
        + b"EMC"
    )
    assert _by_mcid(_page(tmp_path / "q.pdf", content)) == {3: "1footnote", 4: "insideafter"}


def test_the_document_is_left_as_it_was(tmp_path: Path) -> None:
    path = _page(tmp_path / "p.pdf", b"/P <</MCID 0>> BDC " + _show(700, "Body") + b"EMC")
    with pymupdf.open(path) as doc:
        contents = doc.xref_get_key(doc[0].xref, "Contents")
        before = doc[0].get_text("rawdict")
        assert page_marked_chars(doc, 0) is not None
        assert doc.xref_get_key(doc[0].xref, "Contents") == contents
        assert doc.load_page(0).get_text("rawdict") == before
    assert pymupdf.open(path)[0].get_text().strip() == "Body"


def test_a_page_that_cannot_be_scanned_is_not_read(tmp_path: Path) -> None:
    path = _page(tmp_path / "oc.pdf", b"/OC /oc1 BDC " + _show(700, "Layered") + b"EMC")
    with pymupdf.open(path) as doc:
        assert page_marked_chars(doc, 0) is None


_TEXT = st.text(alphabet=st.sampled_from("abcXYZ ()\\%/<>[]"), min_size=1, max_size=12).filter(
    lambda t: t.strip() != ""
)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["mcid", "artifact", "none", "clip"]), _TEXT),
        min_size=1,
        max_size=6,
    )
)
def test_any_sequence_of_marked_content_is_read_character_for_character(tmp_path_factory, parts) -> None:
    """Whatever the texts hold (delimiters, backslashes, a %), each character is read once, with the
    MCID of the sequence that draws it."""
    content = b""
    expected: dict[int, str] = defaultdict(str)
    for number, (kind, text) in enumerate(parts):
        shown = _show(700 - 20 * number, text)
        if kind == "mcid":
            content += b"/Span <</MCID %d>> BDC " % number + shown + b"EMC\n"
            expected[number] += text
        elif kind == "artifact":
            content += b"/Artifact BMC " + shown + b"EMC\n"
            expected[-1] += text
        elif kind == "clip":
            content += b"q 0 0 612 792 re W n /P <</MCID %d>> BDC Q " % number + shown + b"EMC\n"
            expected[number] += text
        else:
            content += shown
            expected[-1] += text
    path = _page(tmp_path_factory.mktemp("m") / "m.pdf", content)
    wanted = {k: v.replace(" ", "") for k, v in expected.items() if v.replace(" ", "")}
    assert _by_mcid(path) == wanted


_PIECES = [
    b"/P <</MCID 1>> BDC ",
    b"EMC ",
    b"/Artifact BMC ",
    b"(a(b)c) Tj ",
    b"(\\)) ",
    b"[(x) 3 (y)] TJ ",
    b"q ",
    b"Q ",
]
_PIECES += [
    b"BI /W 1 /H 1 ID \x00\xff EI ",
    b"BI ",
    b"% c BDC\n",
    b"<< /MCID 2 >> ",
    b"(",
    b")",
    b"<",
    b">",
    b"\x00",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30), st.binary(max_size=40))
def test_any_content_is_scanned_or_refused_and_nothing_else(pieces: list[bytes], noise: bytes) -> None:
    """Whatever a content stream holds, the scan returns states (one more than the marked-content
    operators it replaced) or refuses the page; it never fails otherwise."""
    content = b"".join(pieces) + noise
    try:
        rewritten, states = marked_states(content, {})
    except Unscannable:
        return
    assert len(states) >= 1 and states[0] == MarkedState()
    assert rewritten.count(b"/Layer <</Title (assay:") >= len(states)


def test_a_character_without_unicode_is_the_replacement_character_as_in_mupdfs_text() -> None:
    """MuPDF's trace gives the raw code: 0 for no Unicode, a lone surrogate for half a pair (UTF-8
    cannot hold it, and the extract stage writes UTF-8)."""
    box = (0.0, 0.0, 5.0, 10.0)
    spans = [
        {
            "type": 0,
            "layer": "assay:1",
            "size": 10.0,
            "chars": ((0xD800, 1, (0, 9), box), (0, 2, (5, 9), box), (65, 3, (9, 9), box)),
        }
    ]
    chars = _chars(spans, [MarkedState(), MarkedState(7)])
    assert "".join(c.text for c in chars) == "\ufffd\ufffdA"
    assert {c.mcid for c in chars} == {7}
    "".join(c.text for c in chars).encode("utf-8")


def test_the_state_is_begun_again_only_after_a_q_that_closes_a_layer_begun_inside_it() -> None:
    content = b"q /P <</MCID 1>> BDC Q (x) Tj EMC q 0 0 9 9 re W n (y) Tj Q"
    rewritten, states = marked_states(content, {})
    assert states == [MarkedState(), MarkedState(1), MarkedState()]
    # the first layer, one a state after it, and one after the Q that closes the BDC's layer
    assert rewritten.count(b"/Layer <</Title") == 4
