"""Which marked content each character of a tagged page stands in, read through MuPDF.

A tagged page ties its content to the structure tree by marked content: ``/P <</MCID 3>> BDC ... EMC``
holds what element 3 of the page says, ``/Artifact <</Type /Pagination>> BDC ... EMC`` a running head
or a page number. MuPDF 1.28 reports the elements to a device but neither the MCIDs nor the artifacts,
so the page is read in three steps, all but the first in MuPDF:

1. :func:`marked_states` scans the content stream for its marked-content operators with one regular
   expression that steps over strings, comments and inline images (the only places where ``BDC`` could
   stand as data), and numbers the states between them: the innermost MCID, inside an artifact, inside
   furniture (a pagination artifact, or a header, footer or watermark one).
2. The page is run with each marked-content operator replaced by the end of the current layer and the
   start of one named by the next state's number: MuPDF flushes the text at each, so every span of
   ``Page.get_texttrace()`` carries the name of the layer it was drawn in. A layer begun inside
   ``q`` ... ``Q`` around a clip is ended at the ``Q`` (MuPDF's devices nest layers and clips), so the
   current state's layer is ended and begun again after a ``Q`` when a marked-content operator stands
   between it and its ``q``. Layers never nest, so no page reaches MuPDF's nesting limit.
3. The page's ``/Contents`` is put back. The rewritten stream is a new object of the document in memory;
   the file is never written.

On the corpus's densest tagged pages (a 16-page tagged report, ~5,000 characters and ~300 MCIDs a
page) this costs ~13 ms a page (the trace 7, the scan 2, the characters 2), where reading the marked
content with pdfminer cost ~115, and it gives every character of the corpus's 22 tagged pages the same
state. A page whose content cannot be scanned (a string nested deeper than three parentheses, an
unbalanced one, an operand that is not where it belongs) or that uses optional content (its layers would
take the place of the states') is not read: the reader keeps its untagged reading. Text drawn by a form
XObject takes the state of the ``Do`` that draws it.

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

import pymupdf

from readers.core.errors import AssayError
from readers.core.model import BBox

#: Artifact subtypes that are page furniture even without ``/Type /Pagination`` (ISO 32000-1, 14.8.2.2).
FURNITURE_SUBTYPES = frozenset({b"Header", b"Footer", b"Watermark"})

# A delimiter or white space ends a regular token (ISO 32000-1, 7.2.2): after one, the byte just taken
# (``_DELIMITED + b + ")"``) stands where a token begins.
_AFTER = rb"(?![^\s()<>\[\]{}/%])"
_DELIMITED = rb"(?<![^\s()<>\[\]{}/%]"
_NAME_TAIL = rb"[^\s()<>\[\]{}/%]*"
_NAME = rb"/" + _NAME_TAIL
# A run of plain bytes in a string, an array or a dictionary is taken whole (``++``: never given back,
# as no way to match goes through part of one, since the byte after it would be plain too): the engine
# steps through it at once, not byte by byte (the densest tagged pages scan a tenth faster).
_PLAIN = rb"(?:[^()\\]++|\\.)"
_STRING_TAIL = rb"(?:" + _PLAIN + rb"|\((?:" + _PLAIN + rb"|\((?:" + _PLAIN + rb")*\))*\))*\)"
_STRING = rb"\(" + _STRING_TAIL
_HEX = rb"<[^<>]*>"
_INNER = rb"<<(?:[^<>()]++|" + _STRING + rb"|" + _HEX + rb")*>>"
_DICT = rb"<<(?:[^<>()]++|" + _STRING + rb"|" + _HEX + rb"|" + _INNER + rb")*>>"
_BDC = rb"(?P<tag>" + _NAME_TAIL + rb")\s*(?P<props>" + _NAME + rb"|" + _DICT + rb")\s*BDC"
#: One pass over a content stream finds what it needs and steps over the rest: a TJ array or a string
#: (which may hold any bytes), a comment, an inline image's data, a marked-content operator with its
#: operands, a ``Q``. Whatever else is skipped cannot hide one of these. A BDC or BMC whose operands are
#: not where they belong or an inline image without its ``ID`` ... ``EI`` (``bad``), or a parenthesis
#: no string pattern takes (``open``, ``close``: a string nested over three deep or unbalanced) is
#: unscannable: the page is not scanned (and an unclosed image cannot send the scan to the end of the
#: stream once per ``BI``).
#: Every alternative begins with its own literal byte, so that the engine passes over the bytes no token
#: begins with by their set, without trying the pattern there (a fifth faster than a lookahead for
#: those bytes on the densest tagged pages).
_TOKEN = re.compile(
    rb"\[(?P<array>(?:[^\[\]()]++|" + _STRING + rb")*\])"
    rb"|\((?:(?P<string>" + _STRING_TAIL + rb")|(?P<open>))"
    rb"|%(?P<comment>[^\r\n]*)"
    rb"|/(?P<bdc>" + _BDC + _AFTER + rb")"
    rb"|/(?P<bmc>(?P<bare>" + _NAME_TAIL + rb")\s*BMC" + _AFTER + rb")"
    rb"|B" + _DELIMITED + rb"B)(?:(?P<image>I" + _AFTER + rb"(?:[^I]|I(?!D\s))*\sID\s.*?\sEI" + _AFTER + rb")"
    rb"|(?P<bad>(?:DC|MC|I)" + _AFTER + rb"))"
    rb"|E" + _DELIMITED + rb"E)(?P<emc>MC" + _AFTER + rb")"
    rb"|q" + _DELIMITED + rb"q)(?P<save>" + _AFTER + rb")"
    rb"|Q" + _DELIMITED + rb"Q)(?P<restore>" + _AFTER + rb")"
    rb"|\)(?P<close>)",
    re.S,
)
_MCID = re.compile(rb"/MCID\s+(\d+)")
_TYPE = re.compile(rb"/Type\s*/([^\s()<>\[\]{}/%]+)")
_SUBTYPE = re.compile(rb"/Subtype\s*/([^\s()<>\[\]{}/%]+)")
_LAYER = "assay:"


@dataclass(frozen=True, slots=True)
class MarkedState:
    """What is open between two marked-content operators: the innermost MCID (-1 for none), inside any
    artifact, inside furniture."""

    mcid: int = -1
    artifact: bool = False
    furniture: bool = False


class MarkedChar(NamedTuple):
    """One character as the content stream draws it, with the marked content it stands in.

    ``bbox`` is in top-down page space (as MuPDF's); ``mcid`` is the innermost MCID around it (-1 for
    none); ``furniture`` is True inside a pagination artifact (or a header, footer, watermark one),
    ``artifact`` inside any artifact; ``run`` numbers the marked-content states in content order.
    A tuple: a tagged page of the corpus holds ~5,000 of them, made at ~0.2 us each.
    """

    text: str
    bbox: BBox
    size: float
    mcid: int
    artifact: bool
    furniture: bool
    run: int


class _Mark(NamedTuple):
    """What one marked-content operator adds: its MCID (-1 for none), an artifact, furniture. A tuple
    made in C (~90 ns, a frozen dataclass ~350): a dense tagged page opens ~300 of them."""

    mcid: int
    artifact: bool
    furniture: bool


class Unscannable(AssayError):
    """The content stream cannot be scanned for its marked content with certainty (raised and caught
    here: the page keeps its untagged reading)."""


#: Tokens the scan only steps over, and those it cannot scan with certainty.
_STEPPED_OVER = frozenset({"array", "string", "comment", "image"})
_UNSCANNABLE = frozenset({"bad", "open", "close"})
_BEGIN = b"\n/Layer <</Title (" + _LAYER.encode() + b"%d)>> BDC\n"
_SWITCH = b"\nEMC" + _BEGIN


def marked_states(content: bytes, properties: dict[bytes, bytes]) -> tuple[bytes, list[MarkedState]]:
    """The content with every marked-content operator (and its operands) replaced by the start of the
    next state's layer (and that layer begun again after a ``Q`` that closes one), and the states in
    content order (state 0 is the one before the first operator).

    ``properties`` gives the page's named property lists (``/Properties``) by name, for ``/P /MC0 BDC``.
    Raises :class:`Unscannable` where the content uses optional content or cannot be scanned.

    The loop runs once per token the scan finds (~24,000 on the corpus's densest 16 tagged pages), so
    it keeps to locals, tests the kinds by frequency and writes each layer switch with one formatting.
    """
    # The state inside each open operator: what its mark adds to the state around it, so that an
    # operator's state is one look-up, not a walk of every open mark.
    stack: list[MarkedState] = []
    outside = MarkedState()
    interned: dict[tuple[int, bool, bool], MarkedState] = {(-1, False, False): outside}
    states = [outside]
    pieces = [_BEGIN % 0]
    append = pieces.append
    current = 0
    last = 0
    saved: list[int] = []  # the number of states at each open ``q``
    for match in _TOKEN.finditer(content):
        kind = match.lastgroup
        if kind in _STEPPED_OVER:
            continue  # only stepped over
        if kind == "save":
            saved.append(len(states))
            continue
        if kind == "restore":
            if saved and saved.pop() == len(states):
                continue  # the current layer was begun before the q: the Q leaves it open
            end = match.end()
            append(content[last:end])
        elif kind in _UNSCANNABLE:
            raise Unscannable(f"cannot scan {match.group()!r} at {match.start()}")
        else:
            start, end = match.span()
            append(content[last:start])
            if kind == "emc":
                if stack:
                    stack.pop()
            else:
                tag = match.group("tag") if kind == "bdc" else match.group("bare")
                if tag == b"OC":
                    raise Unscannable("optional content")
                props = match.group("props") or b""
                if props.startswith(b"/"):
                    props = properties.get(props[1:], b"")
                stack.append(_inside(stack[-1] if stack else outside, _mark(tag, props), interned))
            current = len(states)
            states.append(stack[-1] if stack else outside)
        append(_SWITCH % current)
        last = end
    append(content[last:])
    return b"".join(pieces), states


def _mark(tag: bytes, props: bytes) -> _Mark:
    mcid = _MCID.search(props)
    artifact = tag == b"Artifact"
    furniture = False
    if artifact:
        kind = _TYPE.search(props)
        subtype = _SUBTYPE.search(props)
        furniture = (kind is not None and kind.group(1) == b"Pagination") or (
            subtype is not None and subtype.group(1) in FURNITURE_SUBTYPES
        )
    return tuple.__new__(_Mark, (int(mcid.group(1)) if mcid else -1, artifact, furniture))


def _inside(
    around: MarkedState, mark: _Mark, interned: dict[tuple[int, bool, bool], MarkedState]
) -> MarkedState:
    """The state inside ``mark`` opened in ``around``: its MCID if it has one (the innermost counts),
    an artifact or furniture if either is; one object per distinct state."""
    mcid, artifact, furniture = mark
    key = (
        mcid if mcid >= 0 else around.mcid,
        around.artifact or artifact,
        around.furniture or furniture,
    )
    state = interned.get(key)
    if state is None:
        state = interned[key] = MarkedState(*key)
    return state


def _properties(doc: pymupdf.Document, page_xref: int) -> dict[bytes, bytes]:
    """The page's named property lists (``/Resources/Properties``), each as its dictionary's source."""
    kind, value = doc.xref_get_key(page_xref, "Resources/Properties")
    if kind == "xref":
        value = doc.xref_object(int(value.split()[0]), compressed=True)
    elif kind != "dict":
        return {}
    out: dict[bytes, bytes] = {}
    for name, ref, inline in re.findall(r"/([^\s/<>\[\]()]+)\s*(?:(\d+)\s+\d+\s+R|(<<.*?>>))", value, re.S):
        body = doc.xref_object(int(ref), compressed=True) if ref else inline
        out[name.encode("latin-1")] = body.encode("latin-1", "replace")
    return out


def page_marked_chars(doc: pymupdf.Document, index: int) -> list[MarkedChar] | None:
    """The characters of page ``index`` in content order with the marked content each stands in; None
    where the content cannot be scanned (see the module's doc)."""
    page = doc.load_page(index)
    content = page.read_contents()
    try:
        rewritten, states = marked_states(content, _properties(doc, page.xref))
    except Unscannable:
        return None
    original = doc.xref_get_key(page.xref, "Contents")
    stream = doc.get_new_xref()
    doc.update_object(stream, "<<>>")
    doc.update_stream(stream, rewritten, compress=False)
    try:
        doc.xref_set_key(page.xref, "Contents", f"{stream} 0 R")
        spans = doc.load_page(index).get_texttrace()
    finally:
        doc.xref_set_key(page.xref, "Contents", original[1] if original[0] != "null" else "null")
    return _chars(spans, states)


def _chars(spans: list[dict], states: list[MarkedState]) -> list[MarkedChar]:
    """The trace's characters with their states. A character MuPDF has no Unicode for (0, or half of a
    surrogate pair: Gothic letters drawn so) is U+FFFD, as in
    MuPDF's ``dict`` text, which the page's untagged reading holds."""
    out: list[MarkedChar] = []
    unmarked = MarkedState()
    previous: tuple = ()
    new = tuple.__new__  # MarkedChar(...) without its Python-level __new__
    for span in spans:
        chars = span["chars"]
        if span["type"] != 0 and [c[0] for c in chars] == [c[0] for c in previous]:
            continue  # the stroke or clip of text just filled: the same characters again
        previous = chars
        layer = span.get("layer") or ""
        number = (
            int(layer[len(_LAYER) :]) if layer.startswith(_LAYER) and layer[len(_LAYER) :].isdigit() else -1
        )
        state = states[number] if 0 <= number < len(states) else unmarked
        size, mcid, artifact, furniture = span["size"], state.mcid, state.artifact, state.furniture
        out.extend(
            new(
                MarkedChar,
                (
                    chr(code) if code > 0 and not 0xD800 <= code <= 0xDFFF else "\ufffd",
                    bbox,
                    size,
                    mcid,
                    artifact,
                    furniture,
                    number,
                ),
            )
            for code, _, _, bbox in chars
        )
    return out
