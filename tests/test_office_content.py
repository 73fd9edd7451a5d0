"""Content the office and HTML readers once lost: a presentation's comments (legacy and threaded, with
replies), Word equations (OMML) as linear text with their operators, and HTML table cells holding lists,
line breaks and inline formatting. Every fixture is built in code."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

import docx
import lxml.html
import pytest
from docx.oxml import parse_xml
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from pptx import Presentation
from pptx.util import Inches

from readers.core.model import ReadLimits
from readers.html.chain import read_html_bytes
from readers.html.main import HtmlMainReader
from readers.html.markdown import CELL_SEPARATOR, cell_text, fold
from readers.html.page import HtmlPageReader
from readers.html.region import HtmlRegionReader
from readers.office import omml
from readers.office.docx import DocxReader
from readers.office.pptx import PptxReader

LIMITS = ReadLimits()

# --------------------------------------------------------------------------------------------------------
# PPTX comments

P_NS = "http://schemas.openxmlformats.org/presentationml/2006/main"
P188_NS = "http://schemas.microsoft.com/office/powerpoint/2018/8/main"
A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"
RELS_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
LEGACY_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments"
LEGACY_AUTHORS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/commentAuthors"
MODERN_REL = "http://schemas.microsoft.com/office/2018/10/relationships/comments"
MODERN_AUTHORS_REL = "http://schemas.microsoft.com/office/2018/10/relationships/authors"
LEGACY_CT = "application/vnd.openxmlformats-officedocument.presentationml.comments+xml"
LEGACY_AUTHORS_CT = "application/vnd.openxmlformats-officedocument.presentationml.commentAuthors+xml"
MODERN_CT = "application/vnd.ms-powerpoint.comments+xml"
MODERN_AUTHORS_CT = "application/vnd.ms-powerpoint.authors+xml"


def _slides(count: int) -> bytes:
    prs = Presentation()
    for n in range(1, count + 1):
        slide = prs.slides.add_slide(prs.slide_layouts[5])
        slide.shapes.title.text = f"Title {n}"
        box = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1))
        box.text_frame.text = f"Body of slide {n}"
    out = io.BytesIO()
    prs.save(out)
    return out.getvalue()


def _legacy_authors(authors: dict[str, str]) -> bytes:
    items = "".join(
        f'<p:cmAuthor id="{i}" name="{escape(name)}" initials="X" lastIdx="1" clrIdx="0"/>'
        for i, name in authors.items()
    )
    return f'<?xml version="1.0"?><p:cmAuthorLst xmlns:p="{P_NS}">{items}</p:cmAuthorLst>'.encode()


P15_NS = "http://schemas.microsoft.com/office/powerpoint/2012/main"


def _legacy_comments(
    comments: list[tuple[str, str]], parents: dict[int, tuple[str, int]] | None = None
) -> bytes:
    """A ``p:cmLst``: comment n (from 1) by its author id, a reply naming its parent (author id, index)
    in PowerPoint 2013's threading extension."""
    items = ""
    for n, (a, text) in enumerate(comments, start=1):
        thread = ""
        if parents and n in parents:
            parent_author, parent_idx = parents[n]
            thread = (
                '<p:extLst><p:ext uri="{C676402C-5697-4E1C-873F-D02D1690AC5C}"><p15:threadingInfo>'
                f'<p15:parentCm authorId="{parent_author}" idx="{parent_idx}"/></p15:threadingInfo>'
                "</p:ext></p:extLst>"
            )
        items += (
            f'<p:cm authorId="{a}" dt="2020-01-01T00:00:00" idx="{n}"><p:pos x="10" y="10"/>'
            f"<p:text>{escape(text)}</p:text>{thread}</p:cm>"
        )
    return f'<?xml version="1.0"?><p:cmLst xmlns:p="{P_NS}" xmlns:p15="{P15_NS}">{items}</p:cmLst>'.encode()


def _modern_authors(authors: dict[str, str]) -> bytes:
    items = "".join(
        f'<p188:author id="{i}" name="{escape(name)}" initials="X" userId="{i}" providerId="None"/>'
        for i, name in authors.items()
    )
    return (f'<?xml version="1.0"?><p188:authorLst xmlns:p188="{P188_NS}">{items}</p188:authorLst>').encode()


def _txbody(text: str) -> str:
    return (
        f"<p188:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:t>{escape(text)}</a:t></a:r></a:p></p188:txBody>"
    )


def _modern_comments(threads: list[tuple[str, str, list[tuple[str, str]]]]) -> bytes:
    items = ""
    for n, (author, text, replies) in enumerate(threads):
        reply_xml = "".join(
            f'<p188:reply id="{{R{n}-{k}}}" authorId="{a}">{_txbody(t)}</p188:reply>'
            for k, (a, t) in enumerate(replies)
        )
        items += (
            f'<p188:cm id="{{C{n}}}" authorId="{author}" created="2024-01-01T00:00:00">'
            f"<p188:replyLst>{reply_xml}</p188:replyLst>{_txbody(text)}</p188:cm>"
        )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><p188:cmLst xmlns:p188="{P188_NS}" xmlns:a="{A_NS}">'
        f"{items}</p188:cmLst>"
    ).encode()


def _add_rel(rels: bytes, rid: str, reltype: str, target: str) -> bytes:
    root = etree.fromstring(rels)
    etree.SubElement(root, f"{{{RELS_NS}}}Relationship", Id=rid, Type=reltype, Target=target)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def _add_override(types: bytes, part: str, content_type: str) -> bytes:
    root = etree.fromstring(types)
    ns = "http://schemas.openxmlformats.org/package/2006/content-types"
    etree.SubElement(root, f"{{{ns}}}Override", PartName=part, ContentType=content_type)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def _with_comments(
    data: bytes,
    *,
    legacy: dict[int, bytes] | None = None,
    legacy_authors: bytes | None = None,
    modern: dict[int, bytes] | None = None,
    modern_authors: bytes | None = None,
) -> bytes:
    """The presentation with comment parts added: each part, its relationship from its slide (from the
    presentation for the authors' parts) and its content-type override."""
    parts: dict[str, bytes] = {}
    rels: dict[str, list[tuple[str, str]]] = {}
    types: list[tuple[str, str]] = []
    for slide, xml in (legacy or {}).items():
        name = f"ppt/comments/comment{slide}.xml"
        parts[name] = xml
        rels.setdefault(f"ppt/slides/_rels/slide{slide}.xml.rels", []).append(
            (LEGACY_REL, f"../comments/comment{slide}.xml")
        )
        types.append((f"/{name}", LEGACY_CT))
    for slide, xml in (modern or {}).items():
        name = f"ppt/comments/modernComment_{255 + slide}_ABCD{slide:04d}.xml"
        parts[name] = xml
        rels.setdefault(f"ppt/slides/_rels/slide{slide}.xml.rels", []).append(
            (MODERN_REL, "../" + name.removeprefix("ppt/"))
        )
        types.append((f"/{name}", MODERN_CT))
    if legacy_authors is not None:
        parts["ppt/commentAuthors.xml"] = legacy_authors
        rels.setdefault("ppt/_rels/presentation.xml.rels", []).append(
            (LEGACY_AUTHORS_REL, "commentAuthors.xml")
        )
        types.append(("/ppt/commentAuthors.xml", LEGACY_AUTHORS_CT))
    if modern_authors is not None:
        parts["ppt/authors.xml"] = modern_authors
        rels.setdefault("ppt/_rels/presentation.xml.rels", []).append((MODERN_AUTHORS_REL, "authors.xml"))
        types.append(("/ppt/authors.xml", MODERN_AUTHORS_CT))
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            content = src.read(info.filename)
            for n, (reltype, target) in enumerate(rels.get(info.filename, []), start=1):
                content = _add_rel(content, f"rIdCm{n}", reltype, target)
            if info.filename == "[Content_Types].xml":
                for part, ct in types:
                    content = _add_override(content, part, ct)
            dst.writestr(info.filename, content)
        for name, content in parts.items():
            dst.writestr(name, content)
    return out.getvalue()


def _read_pptx(tmp_path: Path, data: bytes) -> list[str]:
    path = tmp_path / "deck.pptx"
    path.write_bytes(data)
    return [p.text for p in PptxReader().read(path, LIMITS).pages]


def test_legacy_comments_close_their_slide_with_authors(tmp_path: Path) -> None:
    data = _with_comments(
        _slides(2),
        legacy={2: _legacy_comments([("0", "Check the revenue figure"), ("1", "Agreed & fixed")])},
        legacy_authors=_legacy_authors({"0": "Ada Lovelace", "1": "Alan Turing"}),
    )
    first, second = _read_pptx(tmp_path, data)
    assert "Comments:" not in first
    assert second.endswith(
        "Comments:\n\n- Ada Lovelace: Check the revenue figure\n- Alan Turing: Agreed & fixed"
    )
    assert second.index("Body of slide 2") < second.index("Comments:")


def test_legacy_replies_are_threaded_under_their_parent(tmp_path: Path) -> None:
    comments = [("0", "First point"), ("1", "Second point"), ("1", "Reply to first"), ("0", "Lost reply")]
    data = _with_comments(
        _slides(1),
        legacy={1: _legacy_comments(comments, parents={3: ("0", 1), 4: ("9", 9)})},
        legacy_authors=_legacy_authors({"0": "Ada", "1": "Alan"}),
    )
    (page,) = _read_pptx(tmp_path, data)
    assert page.endswith(
        "Comments:\n\n- Ada: First point\n   - Alan: Reply to first\n- Alan: Second point\n- Ada: Lost reply"
    )


def test_threaded_comments_carry_their_replies(tmp_path: Path) -> None:
    data = _with_comments(
        _slides(1),
        modern={
            1: _modern_comments(
                [("{A1}", "Is this chart current?", [("{A2}", "Yes, Q3 data"), ("{A1}", "Thanks")])]
            )
        },
        modern_authors=_modern_authors({"{A1}": "Grace Hopper", "{A2}": "Edsger Dijkstra"}),
    )
    (page,) = _read_pptx(tmp_path, data)
    assert page.endswith(
        "Comments:\n\n- Grace Hopper: Is this chart current?\n"
        "   - Edsger Dijkstra: Yes, Q3 data\n   - Grace Hopper: Thanks"
    )


def test_comments_without_authors_part_keep_their_text(tmp_path: Path) -> None:
    data = _with_comments(_slides(1), legacy={1: _legacy_comments([("7", "Orphan remark")])})
    (page,) = _read_pptx(tmp_path, data)
    assert page.endswith("Comments:\n\n- Orphan remark")


def test_no_comment_parts_add_nothing(tmp_path: Path) -> None:
    (page,) = _read_pptx(tmp_path, _slides(1))
    assert page == "## Slide 1: Title 1\n\nBody of slide 1"


@pytest.mark.parametrize(
    "broken",
    [
        b"<p:cmLst xmlns:p='" + P_NS.encode() + b"'><p:cm authorId='0'><p:text>cut",
        b"\x00\xff not xml at all",
        b"<?xml version='1.0'?><!DOCTYPE x [<!ENTITY e 'boom'>]><x>&e;</x>",
    ],
    ids=["truncated", "binary", "entity"],
)
def test_a_malformed_comments_part_leaves_the_slide_without_comments(tmp_path: Path, broken: bytes) -> None:
    data = _with_comments(
        _slides(2),
        legacy={1: broken, 2: _legacy_comments([("0", "Still read")])},
        legacy_authors=_legacy_authors({"0": "Ada"}),
    )
    if b"DOCTYPE" in broken:
        # The container check refuses a DTD in any part before python-pptx opens the package.
        with pytest.raises(Exception) as info:
            _read_pptx(tmp_path, data)
        assert getattr(info.value, "reason", "") == "xml_entities"
        return
    first, second = _read_pptx(tmp_path, data)
    assert first == "## Slide 1: Title 1\n\nBody of slide 1"
    assert second.endswith("Comments:\n\n- Ada: Still read")


# --------------------------------------------------------------------------------------------------------
# Word equations

M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _r(text: str) -> str:
    return f'<m:r><m:t xml:space="preserve">{escape(text)}</m:t></m:r>'


def _math(inner: str, *, para: bool = False) -> str:
    math = f'<m:oMath xmlns:m="{M_NS}">{inner}</m:oMath>'
    return f'<m:oMathPara xmlns:m="{M_NS}">{math}</m:oMathPara>' if para else math


SUM = (
    '<m:nary><m:naryPr><m:chr m:val="∑"/><m:ctrlPr/></m:naryPr>'
    f"<m:sub>{_r('0')}</m:sub><m:sup>{_r('2')}</m:sup><m:e>{_r('x')}</m:e></m:nary>"
)
FRACTION = f"<m:f><m:fPr><m:ctrlPr/></m:fPr><m:num>{_r('a+b')}</m:num><m:den>{_r('c')}</m:den></m:f>"
RADICAL = (
    '<m:rad><m:radPr><m:degHide m:val="1"/></m:radPr><m:deg/>'
    f"<m:e><m:sSup><m:e>{_r('x')}</m:e><m:sup>{_r('2')}</m:sup></m:sSup>{_r('+1')}</m:e></m:rad>"
)
CUBE_ROOT = f"<m:rad><m:deg>{_r('3')}</m:deg><m:e>{_r('y')}</m:e></m:rad>"
MATRIX = (
    '<m:d><m:dPr><m:begChr m:val="["/><m:endChr m:val="]"/></m:dPr><m:e><m:m>'
    f"<m:mr><m:e>{_r('1')}</m:e><m:e>{_r('0')}</m:e></m:mr>"
    f"<m:mr><m:e>{_r('0')}</m:e><m:e>{_r('1')}</m:e></m:mr>"
    "</m:m></m:e></m:d>"
)
FUNCTION = f"<m:func><m:fName>{_r('sin')}</m:fName><m:e>{_r('θ')}</m:e></m:func>"
INTEGRAL = f"<m:nary><m:sub>{_r('0')}</m:sub><m:sup>{_r('∞')}</m:sup><m:e>{_r('f(t) dt')}</m:e></m:nary>"


def _linear(inner: str) -> str:
    return omml.linear(etree.fromstring(_math(inner)))


@pytest.mark.parametrize(
    ("inner", "expected"),
    [
        (SUM, "∑_(0)^(2) x"),
        (INTEGRAL, "∫_(0)^(∞) f(t) dt"),
        (FRACTION, "(a+b)/(c)"),
        (RADICAL, "√(x^(2)+1)"),
        (CUBE_ROOT, "√(3&y)"),
        (MATRIX, "[■(1&0@0&1)]"),
        (FUNCTION, "sin θ"),
        (f"<m:sSub><m:e>{_r('x')}</m:e><m:sub>{_r('i')}</m:sub></m:sSub>", "x_(i)"),
        (
            f"<m:sSubSup><m:e>{_r('x')}</m:e><m:sub>{_r('i')}</m:sub><m:sup>{_r('2')}</m:sup></m:sSubSup>",
            "x_(i)^(2)",
        ),
        (f"<m:d><m:e>{_r('a')}</m:e><m:e>{_r('b')}</m:e></m:d>", "(a|b)"),
        (f'<m:acc><m:accPr><m:chr m:val="\u0303"/></m:accPr><m:e>{_r("x")}</m:e></m:acc>', "x\u0303"),
        (f"<m:bar><m:e>{_r('AB')}</m:e></m:bar>", "¯(AB)"),
        (f"<m:limLow><m:e>{_r('lim')}</m:e><m:lim>{_r('n→∞')}</m:lim></m:limLow>", "lim_(n→∞)"),
    ],
    ids=[
        "sum",
        "integral",
        "fraction",
        "radical",
        "cube-root",
        "matrix",
        "function",
        "sub",
        "subsup",
        "delimiter",
        "accent",
        "bar",
        "limit",
    ],
)
def test_equation_structures_keep_their_operators(inner: str, expected: str) -> None:
    assert _linear(inner) == expected


def test_unknown_elements_fall_back_to_their_text_in_order() -> None:
    hidden = "<m:xPr><m:t>hidden</m:t></m:xPr>"
    inner = f"{_r('a')}<m:future><m:x>{_r('b')}</m:x>{hidden}{_r('c')}</m:future>{_r('d')}"
    assert _linear(inner) == "abcd"


#: Fractions nested in one another: each is two elements deep (m:f, m:den), so the equation reaches 240
#: levels, past omml.MAX_DEPTH and within libxml2's parsing limit of 256.
DEEP_FRACTIONS = 120


def _deep_fractions() -> str:
    inner = _r("z")
    for n in range(DEEP_FRACTIONS):
        inner = f"<m:f><m:num>{_r(str(n % 10))}</m:num><m:den>{inner}</m:den></m:f>"
    return inner


def test_deep_nesting_is_written_as_its_runs_text() -> None:
    text = _linear(_deep_fractions())
    assert text.startswith("(9)/((8)/((7)/(")  # the outer levels keep their structure
    assert text.endswith("z" + ")" * (omml.MAX_DEPTH // 2))  # the deepest are their runs' text
    digits = "".join(str(n % 10) for n in reversed(range(DEEP_FRACTIONS)))
    assert "".join(c for c in text if c.isdigit()) == digits


def test_docx_deep_equation_is_read(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Deep")._p.append(parse_xml(_math(_deep_fractions())))
    path = tmp_path / "deep.docx"
    document.save(path)
    (page,) = DocxReader().read(path, LIMITS).pages
    assert page.text.startswith("Deep(9)/((8)/(") and page.text.endswith("z" + ")" * (omml.MAX_DEPTH // 2))


def _docx_with_math(tmp_path: Path) -> Path:
    document = docx.Document()
    inline = document.add_paragraph("The sum ")
    inline._p.append(parse_xml(_math(SUM)))
    inline.add_run(" is small.")
    display = document.add_paragraph("Hence")
    display._p.append(parse_xml(_math(FRACTION + _r("=") + RADICAL, para=True)))
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Identity"
    table.cell(0, 1).paragraphs[0]._p.append(parse_xml(_math(MATRIX)))
    document.add_paragraph("End.")
    path = tmp_path / "math.docx"
    document.save(path)
    return path


def test_docx_equations_inline_and_display(tmp_path: Path) -> None:
    (page,) = DocxReader().read(_docx_with_math(tmp_path), LIMITS).pages
    assert "The sum ∑_(0)^(2) x is small." in page.text
    assert "Hence\n(a+b)/(c)=√(x^(2)+1)" in page.text
    assert "| Identity | [■(1&0@0&1)] |" in page.text
    assert "02x" not in page.text


def test_docx_equation_is_read_rather_than_its_fallback(tmp_path: Path) -> None:
    mc = "http://schemas.openxmlformats.org/markup-compatibility/2006"
    alternate = (
        f'<mc:AlternateContent xmlns:mc="{mc}" xmlns:w="{W_NS}" xmlns:m="{M_NS}">'
        f'<mc:Choice Requires="m">{_math(FRACTION)}</mc:Choice>'
        "<mc:Fallback><w:r><w:t>[picture of the equation]</w:t></w:r></mc:Fallback></mc:AlternateContent>"
    )
    document = docx.Document()
    document.add_paragraph("Ratio ")._p.append(parse_xml(alternate))
    path = tmp_path / "alternate.docx"
    document.save(path)
    (page,) = DocxReader().read(path, LIMITS).pages
    assert page.text == "Ratio (a+b)/(c)"


def test_docx_empty_equation_adds_nothing(tmp_path: Path) -> None:
    document = docx.Document()
    paragraph = document.add_paragraph("Before")
    paragraph._p.append(parse_xml(_math("", para=True)))
    paragraph._p.append(parse_xml(_math("<m:f><m:num/><m:den/></m:f>")))
    path = tmp_path / "empty.docx"
    document.save(path)
    (page,) = DocxReader().read(path, LIMITS).pages
    assert page.text.startswith("Before")


_RUN_TEXT = st.text(alphabet="abcxyz0123+-=", min_size=1, max_size=4)


def _trees(depth: int) -> st.SearchStrategy[tuple[str, list[str]]]:
    """A random equation fragment and the texts of its runs, in document order."""
    run = _RUN_TEXT.map(lambda t: (_r(t), [t]))
    if depth == 0:
        return run
    sub = _trees(depth - 1)

    def wrap(shape: str, names: tuple[str, ...]) -> st.SearchStrategy[tuple[str, list[str]]]:
        def build(parts: list[tuple[str, list[str]]]) -> tuple[str, list[str]]:
            xml = "".join(f"<m:{n}>{x}</m:{n}>" for n, (x, _) in zip(names, parts, strict=True))
            return f"<m:{shape}>{xml}</m:{shape}>", [t for _, ts in parts for t in ts]

        return st.lists(sub, min_size=len(names), max_size=len(names)).map(build)

    return st.one_of(
        run,
        wrap("f", ("num", "den")),
        wrap("nary", ("sub", "sup", "e")),
        wrap("sSubSup", ("e", "sub", "sup")),
        wrap("sPre", ("sub", "sup", "e")),
        wrap("rad", ("deg", "e")),
        wrap("func", ("fName", "e")),
        wrap("d", ("e", "e")),
        wrap("limUpp", ("e", "lim")),
        wrap("unknownThing", ("e", "e")),
        st.lists(sub, min_size=1, max_size=3).map(
            lambda rows: (
                "<m:m>" + "".join(f"<m:mr><m:e>{x}</m:e></m:mr>" for x, _ in rows) + "</m:m>",
                [t for _, ts in rows for t in ts],
            )
        ),
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(_trees(3), min_size=1, max_size=3))
def test_every_run_appears_in_the_linear_form_in_order(fragments: list[tuple[str, list[str]]]) -> None:
    text = _linear("".join(x for x, _ in fragments))
    at = 0
    for run in (t for _, ts in fragments for t in ts):
        found = text.find(run, at)
        assert found >= 0, (run, text)
        at = found + len(run)


# --------------------------------------------------------------------------------------------------------
# HTML table cells

PROSE = (
    "This page describes a handful of compounds that the laboratory works with every week, "
    "and the table below lists their formulas and their common uses in some detail."
)
CELL_PAGE = f"""<html><head><title>Compounds</title></head><body><main><h1>Compounds</h1><p>{PROSE}</p>
<table><tr><th>Name</th><th>Formula</th><th>Uses</th></tr>
<tr><td>Water</td><td>H<sub>2</sub>O <u>under</u></td><td><ul><li>drinking</li><li>washing</li></ul></td></tr>
<tr><td>Salt</td><td>Na<sup>+</sup>Cl<sup>-</sup><br>in brine</td><td></td></tr>
<tr><td></td><td></td><td></td></tr>
</table><p>{PROSE}</p></main></body></html>""".encode()


@pytest.mark.parametrize(
    "reader", [HtmlRegionReader(), HtmlMainReader(), HtmlPageReader()], ids=lambda r: r.name
)
def test_table_cells_keep_lists_breaks_and_formatted_text(reader: object) -> None:
    text = reader.read_bytes(CELL_PAGE, limits=LIMITS).pages[0].text  # type: ignore[attr-defined]
    assert "<" not in text and ">" not in text, text
    rows = [line for line in text.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    assert ["Name", "Formula", "Uses"] in cells, text
    assert ["Water", "H2O under", "drinking; washing"] in cells, text
    assert ["Salt", "Na+Cl-; in brine", ""] in cells, text


def test_inline_formatting_outside_tables_is_text_in_every_reader() -> None:
    page = (
        f"<html><body><article><p>{PROSE} Water is H<sub>2</sub>O, area is m<sup>2</sup>, <u>noted</u>.</p>"
    )
    page += f"<p>{PROSE}</p></article></body></html>"
    for reader in (HtmlRegionReader(), HtmlMainReader(), HtmlPageReader()):
        text = reader.read_bytes(page.encode(), limits=LIMITS).pages[0].text
        assert "Water is H2O, area is m2, noted." in text, (reader.name, text)


def test_a_nested_list_in_a_cell_is_flattened_in_order() -> None:
    page = (
        f"<html><body><p>{PROSE}</p><table><tr><th>Step</th><th>Parts</th></tr>"
        "<tr><td>1</td><td><ol><li>one<ul><li>one-a</li><li>one-b</li></ul></li><li>two</li></ol></td></tr>"
        "</table></body></html>"
    )
    text = read_html_bytes(page.encode(), limits=LIMITS).pages[0].text
    assert "| 1 | one; one-a; one-b; two |" in text, text


def test_empty_cells_lists_and_breaks_add_no_separators() -> None:
    page = (
        f"<html><body><main><p>{PROSE}</p><table><tr><th>A</th><th>B</th></tr>"
        "<tr><td><ul><li> </li><li></li></ul></td><td><br><br>x<br></td></tr>"
        "<tr><td><ol></ol></td><td>y<br> <br>z</td></tr></table></main></body></html>"
    )
    for reader in (HtmlRegionReader(), HtmlMainReader(), HtmlPageReader()):
        text = reader.read_bytes(page.encode(), limits=LIMITS).pages[0].text
        rows = [
            [c.strip() for c in r.strip().strip("|").split("|")]
            for r in text.splitlines()
            if r.startswith("|")
        ]
        assert ["", "x"] in rows and ["", "y; z"] in rows, (reader.name, text)


_ITEM = st.text(alphabet=st.sampled_from("ab <>&;é\t"), max_size=6)


@settings(max_examples=100, deadline=None)
@given(st.lists(_ITEM, max_size=6))
def test_a_cell_list_is_its_non_empty_items_joined(items: list[str]) -> None:
    lis = "".join(f"<li>{escape(item)}</li>" for item in items)
    root = lxml.html.fromstring(f"<table><tr><td><ul>{lis}</ul></td></tr></table>")
    (cell,) = root.iter("td")
    expected = CELL_SEPARATOR.join(f for f in (fold(i) for i in items) if f)
    assert cell_text(cell) == expected


def test_a_single_column_layout_table_keeps_its_lines_for_trafilatura() -> None:
    page = (
        f"<html><body><table><tr><td><p>{PROSE}<br>{PROSE}</p><p>{PROSE}</p></td></tr></table></body></html>"
    )
    text = HtmlMainReader().read_bytes(page.encode(), limits=LIMITS).pages[0].text
    assert CELL_SEPARATOR.strip() + " " + PROSE[:20] not in text, text
    assert text.count(PROSE) == 3


def test_a_deeply_nested_list_in_a_cell_keeps_every_item() -> None:
    deep = "<ul><li>x" * 120 + "</li></ul>" * 120
    page = f"<html><body><p>{PROSE}</p><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>{deep}</td></tr>"
    page += "</table></body></html>"
    for reader in (HtmlMainReader(), HtmlPageReader()):  # the page marks no region
        text = reader.read_bytes(page.encode(), limits=LIMITS).pages[0].text
        assert "| 1 | " + CELL_SEPARATOR.join(["x"] * 120) + " |" in text, reader.name
