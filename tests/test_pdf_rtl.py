"""Right-to-left lines of untagged PDFs as the PyMuPDF reader writes them, on pages built in code."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from quality.normalise import normalise
from readers.core.model import ReadLimits
from readers.pdf.bidi import logical_line
from readers.pdf.mupdf import PyMuPDFReader

#: Hebrew letters drawn with Helvetica's codes a-z and Arabic-Indic digits with its codes A-J, a ToUnicode
#: CMap mapping them to U+05D0-U+05E9 and U+0660-U+0669 (and the digits to themselves).
_HEBREW_CMAP = (
    b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Hebrew def\n"
    b"1 begincodespacerange <00> <FF> endcodespacerange\n"
    b"3 beginbfrange <30> <39> <0030> <41> <4A> <0660> <61> <7A> <05D0> endbfrange\n"
    b"endcmap CMapName currentdict /CMap defineresource pop end end"
)
#: A line in reading order: Hebrew words around a year in Arabic-Indic digits.
LINE = "שלום עולם ١٩١٩ פעמים"
#: The same line as it stands on the page, left to right.
VISUAL = "םימעפ ١٩١٩ םלוע םולש"


def _code(ch: str) -> int:
    if "\u05d0" <= ch <= "\u05ea":
        return ord(ch) - 0x05D0 + 0x61
    return ord(ch) - 0x0660 + 0x41 if "\u0660" <= ch <= "\u0669" else ord(ch)


def _glyphs(visual: str) -> list[tuple[float, int]]:
    """Each glyph of ``visual`` (the line as it stands) with its left edge, left to right, spaces too."""
    helvetica = pymupdf.Font("helv")
    codes = bytes(_code(ch) for ch in visual)
    glyphs, x = [], 400.0 - helvetica.text_length(codes.decode("latin-1"), 11)
    for code in codes:
        glyphs.append((x, code))
        x += helvetica.text_length(chr(code), 11)
    return glyphs


def _pdf(path: Path, glyphs: list[tuple[float, int]]) -> Path:
    """A one-page untagged PDF drawing ``glyphs`` (left edge, code) in that order, in one text object."""
    shows = [b"1 0 0 1 %.2f 700 Tm (%s) Tj\n" % (left, bytes([code])) for left, code in glyphs]
    content = b"BT /F1 11 Tf\n" + b"".join(shows) + b"ET\n"
    cmap = b"<< /Length %d >>\nstream\n" % len(_HEBREW_CMAP) + _HEBREW_CMAP + b"\nendstream"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
        b"/ToUnicode 5 0 R >> >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        cmap,
    ]
    out = b"%PDF-1.7\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(out)
    return path


def drawn_right_to_left_pdf(path: Path) -> Path:
    """LINE with each glyph drawn on its own from right to left, the year's digits too (as TeX's Arabic
    packages draw them), and no space glyph between words."""
    glyphs = [glyph for glyph in _glyphs(VISUAL) if glyph[1] != 0x20]
    return _pdf(path, glyphs[::-1])


#: A form's line in reading order: two Hebrew labels, each with its value after a colon.
FORM = "אגף:00   עובד:11"
#: As it stands on the page, left to right.
FORM_VISUAL = "11:דבוע   00:ףגא"


def words_left_to_right_pdf(path: Path) -> Path:
    """FORM drawn word by word from left to right, each Hebrew word's letters from right to left."""
    glyphs = _glyphs(FORM_VISUAL)
    drawn: list[tuple[float, int]] = []
    i = 0
    while i < len(glyphs):
        hebrew = 0x61 <= glyphs[i][1] <= 0x7A
        end = i
        while end < len(glyphs) and (0x61 <= glyphs[end][1] <= 0x7A) == hebrew:
            end += 1
        drawn.extend(glyphs[i:end][::-1] if hebrew else glyphs[i:end])
        i = end
    return _pdf(path, drawn)


def test_a_line_drawn_word_by_word_left_to_right_reads_right_to_left(tmp_path: Path) -> None:
    pdf = words_left_to_right_pdf(tmp_path / "form.pdf")
    text = PyMuPDFReader().read(pdf, ReadLimits()).pages[0].text
    assert text.strip() == FORM


def test_a_line_drawn_right_to_left_keeps_its_number_and_its_word_gaps(tmp_path: Path) -> None:
    pdf = drawn_right_to_left_pdf(tmp_path / "rtl.pdf")
    text = PyMuPDFReader().read(pdf, ReadLimits()).pages[0].text
    assert text.strip() == LINE


def test_logical_line_keeps_arabic_indic_digits_in_order() -> None:
    # pdfminer's visual order: the words reversed, the year as it stands (left to right)
    visual = "ﺪﺿ ١٩١٩ ةرﻮﺛ"
    assert logical_line(visual) == "ﺛﻮرة ١٩١٩ ﺿﺪ"


def test_presentation_forms_become_base_letters() -> None:
    assert normalise("اﻟﺒﺎب ٢ ﻻ") == "الباب ٢ لا"
    assert normalise("ﷲ") == "الله"
    assert normalise("ﹰ") == "\u064b"  # a spacing vowel mark: the mark, no space
    assert normalise("x² ½ ﬁ") == "x² ½ fi"  # other compatibility forms are kept
