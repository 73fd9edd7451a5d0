"""A tagged PDF's structure tree, walked: whether the document is tagged, the marked-content references
(``/MCID``) in the tree's order with their table cells, and the marked characters of the pages the tree
reaches (read by :mod:`readers.pdf.tagged_pages`).

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

import re
from typing import NamedTuple

import pymupdf

from readers.pdf.marked_content import MarkedChar, page_marked_chars

#: At most this many structure elements are visited per document (~6 us each): the corpus's largest tree
#: holds 4,574 MCIDs on 16 pages; a larger (or hostile) one is not read, and the document reads untagged.
MAX_ELEMENTS = 200_000
_ARRAY_ITEM = re.compile(rb"<<(.*?)>>|(\d+)\s+\d+\s+R|(-?\d+)", re.S)
_DICT_MCID = re.compile(rb"/MCID\s+(\d+)")
_DICT_PG = re.compile(rb"/Pg\s+(\d+)\s+\d+\s+R")
_FLAT_S = re.compile(r"/S\s*/([^\s/\[\]]+)")
_FLAT_PG = re.compile(r"/Pg\s*(\d+)\s+\d+\s+R")
_FLAT_K = re.compile(r"/K\s*(\[[^\]]*\]|\d+\s+\d+\s+R|-?\d+(?![\d.]))")


def is_tagged(doc: pymupdf.Document) -> bool:
    """The catalog says the document is tagged: ``/MarkInfo <</Marked true>>`` and a structure tree."""
    try:
        catalog = doc.pdf_catalog()
        if catalog <= 0:
            return False
        marked = doc.xref_get_key(catalog, "MarkInfo/Marked")
        root = doc.xref_get_key(catalog, "StructTreeRoot")
        return marked == ("bool", "true") and root[0] in ("xref", "dict")
    except Exception:
        return False


class Leaf(NamedTuple):
    """One marked-content reference of the tree, in the tree's order.

    ``element`` is the xref of the element holding it, ``kind`` that element's structure type after the
    role map; ``table``/``row``/``cell`` place it in a table (the Table element's xref, -1 outside one).
    A tuple: the corpus's tagged PDFs hold ~8,000 of them, made in a third of a frozen dataclass's time.
    """

    page: int  # the page's xref
    mcid: int
    element: int
    kind: str
    table: int = -1
    row: int = -1
    cell: int = -1
    header: bool = False


def structure_leaves(doc: pymupdf.Document) -> list[Leaf]:
    """The tree's marked-content references in document order; [] when it cannot be read."""
    try:
        catalog = doc.pdf_catalog()
        kind, value = doc.xref_get_key(catalog, "StructTreeRoot")
        if kind != "xref":
            return []
        root = int(value.split()[0])
        roles = _role_map(doc, root)
        return _walk(doc, root, roles)
    except Exception:
        return []


def _role_map(doc: pymupdf.Document, root: int) -> dict[str, str]:
    kind, value = doc.xref_get_key(root, "RoleMap")
    if kind == "xref":
        value = doc.xref_object(int(value.split()[0]), compressed=True)
    elif kind != "dict":
        return {}
    return dict(re.findall(r"/([^\s/<>\[\]()]+)\s*/([^\s/<>\[\]()]+)", value))


class _Frame(NamedTuple):
    """An element being walked: what its marked content inherits, and its tables' counters.

    ``rows`` is a Table's next row index (one list shared by its THead, TBody and TFoot), ``cells`` a
    TR's next cell index: one-item lists, counted on in place. A tuple made in C: a frozen dataclass
    with default factories cost a third of the walk on the corpus's largest tagged report.
    """

    xref: int
    kind: str
    page: int
    table: int
    row: int
    cell: int
    header: bool
    rows: list[int]
    cells: list[int]


_ROW_GROUPS = frozenset({"THead", "TBody", "TFoot"})


def _walk(doc: pymupdf.Document, root: int, roles: dict[str, str]) -> list[Leaf]:
    """Every element visited once, depth first in ``/K`` order, each MCID a leaf of its element.

    The loop runs once per element of the tree (~13,700 times on the corpus's tagged PDFs), so frames
    and leaves are tuples made in C.
    """
    leaves: list[Leaf] = []
    append = leaves.append
    seen = {root}
    xref_count = doc.xref_length()
    new = tuple.__new__
    top = new(_Frame, (root, "StructTreeRoot", -1, -1, -1, -1, False, [0], [0]))
    # An explicit stack of (frame, kids left to visit, reversed), so a deep tree cannot exhaust Python's.
    stack: list[tuple[_Frame, list[int | tuple[int, int]]]] = [(top, _kids(_keys(doc, root)[2], -1))]
    visited = 0
    while stack:
        frame, kids = stack[-1]
        if not kids:
            stack.pop()
            continue
        kid = kids.pop()
        if type(kid) is tuple:  # an MCID with its page: (mcid, page xref)
            mcid, page = kid
            if page > 0:
                append(new(Leaf, (page, mcid, frame[0], frame[1], frame[3], frame[4], frame[5], frame[6])))
            continue
        if kid in seen or not 0 < kid < xref_count:
            continue  # a cycle, or a reference to nothing
        seen.add(kid)
        visited += 1
        if visited > MAX_ELEMENTS:
            return []
        tag, page, k = _keys(doc, kid)
        if tag is None:
            continue  # an object reference, or not an element
        child = _element(tag, kid, page, frame, roles)
        stack.append((child, _kids(k, child[2])))
    return leaves


def _keys(doc: pymupdf.Document, xref: int) -> tuple[str | None, int, tuple[str, str]]:
    """An element's structure type (None where ``/S`` is not a name), its ``/Pg`` (-1 for none) and its
    ``/K`` as ``xref_get_key`` gives it.

    Read from the object's source in one call (~3 us) where it is a flat dictionary (no nested
    dictionary, string or hex string that could hold look-alike keys); otherwise, key by key (~8 us
    each): on a tagged transcript of the corpus (3,753 elements) 115 ms become ~40 ms.
    """
    source = doc.xref_object(xref, compressed=True)
    inner = source.strip()[2:-2] if source.startswith("<<") else "<"
    if "<" in inner or "(" in inner or ">" in inner:
        s_kind, s = doc.xref_get_key(xref, "S")
        pg_kind, pg = doc.xref_get_key(xref, "Pg")
        return (
            s.lstrip("/") if s_kind == "name" else None,
            int(pg.split()[0]) if pg_kind == "xref" else -1,
            doc.xref_get_key(xref, "K"),
        )
    match = _FLAT_S.search(inner)
    tag = match.group(1) if match is not None else None
    match = _FLAT_PG.search(inner)
    page = int(match.group(1)) if match is not None else -1
    match = _FLAT_K.search(inner)
    if match is None:
        return tag, page, ("null", "null")
    value = match.group(1)
    return tag, page, ("array" if value[0] == "[" else "xref" if value.endswith("R") else "int", value)


def _element(tag: str, xref: int, page: int, parent: _Frame, roles: dict[str, str]) -> _Frame:
    """The frame of element ``xref`` of structure type ``tag`` (before the role map) under ``parent``."""
    for _ in range(8):  # a role map may chain; a cycle in it stops here
        if tag not in roles or roles[tag] == tag:
            break
        tag = roles[tag]
    if page < 0:
        page = parent[2]
    _, _, _, table, row, cell, header, parent_rows, parent_cells = parent
    rows = cells = None
    if tag == "Table":
        table, row, cell = xref, -1, -1
    elif tag == "TR" and table >= 0:
        row = parent_rows[0]  # rows count on across THead/TBody/TFoot, which share the list
        parent_rows[0] += 1
        rows = parent_rows
        cell = -1
    elif tag in ("TH", "TD") and row >= 0:
        cell = parent_cells[0]
        parent_cells[0] += 1
        header = tag == "TH"
    elif tag in _ROW_GROUPS:
        rows = parent_rows
    return tuple.__new__(
        _Frame,
        (
            xref,
            tag,
            page,
            table,
            row,
            cell,
            header,
            [0] if rows is None else rows,
            [0] if cells is None else cells,
        ),
    )


def _kids(k: tuple[str, str], page: int) -> list[int | tuple[int, int]]:
    """An element's ``/K`` as a reversed list (to pop in order): element xrefs and (mcid, page)."""
    kind, value = k
    if kind == "array":
        number = value[1:-1]
        if number.isascii() and number.isdigit():
            # ``[260]``, one MCID: nearly every element of a tagged report's tree. Taken as it stands
            # rather than through the array's pattern.
            return [(int(number), page)]
    out: list[int | tuple[int, int]] = []
    if kind == "int":
        out.append((int(value), page))
    elif kind == "xref":
        out.append(int(value.split()[0]))
    elif kind in ("array", "dict"):
        text = value.encode("latin-1", "replace")
        if kind == "dict":
            text = b"<<" + text.strip()[2:-2] + b">>"
        for inline, ref, number in _ARRAY_ITEM.findall(text):
            if inline:
                _inline_kid(inline, page, out)
            elif ref:
                out.append(int(ref))
            elif number:
                out.append((int(number), page))
    out.reverse()
    return out


def _inline_kid(body: bytes, page: int, out: list[int | tuple[int, int]]) -> None:
    """A marked-content reference dictionary (``/Type /MCR``); an object reference (OBJR) is skipped."""
    mcid = _DICT_MCID.search(body)
    if mcid is None:
        return
    pg = _DICT_PG.search(body)
    out.append((int(mcid.group(1)), int(pg.group(1)) if pg else page))


# --- marked content of a page ----------------------------------------------------------------------


def marked_chars(doc: pymupdf.Document, pages: set[int]) -> dict[int, list[MarkedChar]]:
    """The characters of the pages numbered ``pages`` (0-based) with their marked content
    (readers.pdf.marked_content); a page whose content cannot be scanned is left out."""
    found: dict[int, list[MarkedChar]] = {}
    for index in sorted(pages):
        chars = page_marked_chars(doc, index)
        if chars is not None:
            found[index] = chars
    return found
