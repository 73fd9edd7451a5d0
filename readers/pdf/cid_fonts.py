"""A composite font whose CID font lacks its font descriptor is given one, so MuPDF reads its text.

A Type0 (composite) font draws its glyphs from a descendant CID font, which must carry a
``/FontDescriptor``. Some writers leave it out when the font is not embedded (the reader is to supply a
system font for the CID font's character collection). MuPDF then refuses the CID font ("missing font
descriptor") and falls back to a simple one-byte font: each two-byte code is read as two Latin
characters ("$"$$" for Japanese), and the font's CMap is dropped with it, so a vertical one (``-V``
encodings, ``/WMode 1``) is read as a horizontal line. Every advance along the run is then wrong, and
the text drawn after it is placed where the page does not show it, off the page's right edge, where it
is lost.

:func:`supply_font_descriptors` gives each such CID font the descriptor the format requires (the keys it
names, with a CJK font's usual metrics), in memory: the file is never written. MuPDF then loads the CID
font with its CMap and a substitute font for its collection, reads its codes as the characters they
are, lays a vertical run out as a column, and places what follows where the page shows it. Only the
fonts of the pages' own resources (inherited ones included) are looked at: a few dictionary look-ups a
page, not a scan of every object of the file.
"""

from __future__ import annotations

import re

import pymupdf

#: The descriptor given to a CID font without one: the keys the PDF format requires, with the metrics
#: of a CJK font's full-em box (MuPDF draws with its substitute font's own glyphs and widths).
SUPPLIED_DESCRIPTOR = (
    "<< /Type /FontDescriptor /FontName /{name} /Flags 4 /FontBBox [0 -120 1000 880] /ItalicAngle 0 "
    "/Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>"
)
#: The reader's note (``ReadResult.notes``) for a document whose CID fonts were given descriptors,
#: followed by their number.
FONT_DESCRIPTORS_SUPPLIED = "font_descriptors_supplied="
#: A page's font resources are looked for up its page tree at most this many levels.
MAX_TREE_DEPTH = 32

_REFERENCE = re.compile(r"(\d+)\s+(\d+)\s+R\b")
_NAME = re.compile(r"^/([^\s/<>\[\]()]+)")


def supply_font_descriptors(doc: pymupdf.Document) -> int:
    """Give every CID font of the pages' composite fonts that lacks a font descriptor one; the number
    given. Fonts MuPDF cannot parse are left as they are."""
    if not doc.is_pdf or doc.needs_pass:
        return 0
    seen: set[int] = set()
    supplied = 0
    for number in range(doc.page_count):
        for font in _page_fonts(doc, doc.page_xref(number)):
            if font in seen:
                continue
            seen.add(font)
            try:
                supplied += _describe(doc, font)
            except Exception:
                continue
    return supplied


def _page_fonts(doc: pymupdf.Document, page: int) -> list[int]:
    """The object numbers of the fonts in a page's resources (its own, or the nearest ancestor's)."""
    node = page
    for _ in range(MAX_TREE_DEPTH):
        try:
            kind, value = doc.xref_get_key(node, "Resources/Font")
            if kind == "xref":
                value = doc.xref_object(int(value.split()[0]), compressed=True)
                kind = "dict"
            if kind == "dict":
                return [int(m.group(1)) for m in _REFERENCE.finditer(value)]
            if doc.xref_get_key(node, "Resources")[0] != "null":
                return []
            kind, parent = doc.xref_get_key(node, "Parent")
        except Exception:
            return []
        if kind != "xref":
            return []
        node = int(parent.split()[0])
    return []


def _describe(doc: pymupdf.Document, font: int) -> int:
    """Give the CID font of composite font ``font`` a descriptor if it lacks one; 1 if given, else 0."""
    if doc.xref_get_key(font, "Subtype") != ("name", "/Type0"):
        return 0
    kind, value = doc.xref_get_key(font, "DescendantFonts")
    if kind == "xref":
        value = doc.xref_object(int(value.split()[0]), compressed=True)
        kind = "array"
    if kind != "array":
        return 0
    inner = value.strip()[1:-1].strip()
    name = _font_name(doc, font)
    reference = _REFERENCE.fullmatch(inner)
    if reference:
        descendant = int(reference.group(1))
        if doc.xref_get_key(descendant, "FontDescriptor")[0] != "null":
            return 0
    elif inner.startswith("<<") and inner.endswith(">>"):
        if "/FontDescriptor" in inner:
            return 0
        # The CID font is written inside the array: it becomes an object of its own to take the key.
        descendant = doc.get_new_xref()
        doc.update_object(descendant, inner)
        doc.xref_set_key(font, "DescendantFonts", f"[{descendant} 0 R]")
    else:
        return 0
    own = _NAME.match(doc.xref_get_key(descendant, "BaseFont")[1])
    if own:
        name = own.group(1)
    else:  # named as the composite font, so that its text's spans say which font drew them
        doc.xref_set_key(descendant, "BaseFont", f"/{name}")
    descriptor = doc.get_new_xref()
    doc.update_object(descriptor, SUPPLIED_DESCRIPTOR.format(name=name))
    doc.xref_set_key(descendant, "FontDescriptor", f"{descriptor} 0 R")
    return 1


def _font_name(doc: pymupdf.Document, font: int) -> str:
    """The composite font's name (its CID font's name, then its CMap's), or a stand-in."""
    found = _NAME.match(doc.xref_get_key(font, "BaseFont")[1])
    return found.group(1) if found else "Unnamed"
