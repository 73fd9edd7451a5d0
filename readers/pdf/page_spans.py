"""One pass over a PDF page's ``dict`` spans, for the PyMuPDF reader (:mod:`readers.pdf.mupdf`): the
reader's lines of spans, the model's blocks, the character counts, and each invisible span with its
reason; right-to-left lines read again from their characters' places; the page's invisible runs of
text (:class:`~readers.core.model.HiddenSpan`).

The corpus measurements behind its constants: docs/decisions.md, "PDF readers: calibration notes".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pymupdf

from readers.core.model import (
    Block,
    HiddenSpan,
    HiddenWhy,
    Line,
    Span,
)
from readers.pdf.bidi import (
    RTL_LINE_SHARE,
    drawn_rightwards,
    drawn_text,
    holds_rtl_letter,
    logical_line,
    rtl_share,
    visual_text,
)
from readers.pdf.page_facts import (
    INVISIBLE_MAX_ALPHA,
    INVISIBLE_MAX_SIZE,
    PAINTED,
    PALE_MIN_LUMINANCE,
    is_on_own_background,
    span_luminance,
)

# --- extraction flags -------------------------------------------------------------------------------

#: Ligatures stay ligatures (raw), whitespace stays as written, characters outside the media box are
#: dropped (MuPDF's default). Deliberately NOT ``TEXT_PRESERVE_IMAGES`` (it decodes every image: the
#: default ``dict`` flags cost 1.7x these) and NOT ``TEXT_CID_FOR_UNKNOWN_UNICODE``: without it a glyph
#: MuPDF cannot map to Unicode comes out as U+FFFD, which the bad-rune signal measures, instead of its
#: CID passed off as a character (on the corpus, "plausible but wrong" CJK and shifted Latin become
#: U+FFFD); a font repair needs the PDF's font anyway, not these characters.
TEXT_FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP

_FONT_BOLD = pymupdf.TEXT_FONT_BOLD  # span["flags"]: the font says it is bold
_FONT_MONOSPACED = pymupdf.TEXT_FONT_MONOSPACED  # span["flags"]: the font says it is fixed-pitch
_CHAR_BOLD = 8  # span["char_flags"]: MuPDF saw bold glyphs (FZ_STEXT_BOLD), including fake bold
# Why a span is invisible, as plain strings: the scan loop compares and stores them for every span.
_RENDER_MODE, _ALPHA, _TINY = HiddenWhy.RENDER_MODE.value, HiddenWhy.ALPHA.value, HiddenWhy.TINY.value
_PALE, _OUTSIDE_CROP = HiddenWhy.PALE.value, HiddenWhy.OUTSIDE_CROP.value

# --- page model -------------------------------------------------------------------------------------


@dataclass(slots=True)
class _SpanLine:
    """A MuPDF line as the layout and the tables see it; its spans are the model's (one object each)."""

    spans: Sequence[Span]
    horizontal: bool
    top: float
    bottom: float
    key: tuple[int, int] = (-1, -1)  # (block, line) in MuPDF's TextPage, to find the line's words
    direction: tuple[float, float] = (1.0, 0.0)  # MuPDF's writing direction of the line

    @property
    def downward(self) -> bool:
        """Written top to bottom (vertical CJK: MuPDF's direction (0, 1))."""
        return abs(self.direction[0]) < 1e-3 and self.direction[1] > 0

    @classmethod
    def of(
        cls, spans: Sequence[Span], horizontal: bool, key: tuple[int, int], direction: tuple[float, float]
    ) -> _SpanLine:
        top, bottom = min(s.bbox[1] for s in spans), max(s.bbox[3] for s in spans)
        return cls(spans, horizontal, top, bottom, key, direction)


@dataclass(slots=True)
class _PageScan:
    """One pass over the ``dict`` spans: the reader's lines, the model's blocks and the text facts.

    ``lines`` (for the layout and the tables) and ``blocks`` (for the signals) hold the same non-empty
    span objects at the same indexes. ``pale`` lists the visible spans drawn in a near-white colour, as
    (block, line, span, luminance): whether they stand on their own background is decided once the
    page's images and drawings are known. ``why`` gives the reason (a HiddenWhy value) of every invisible
    span by the same (block, line, span) indexes.
    """

    lines: list[list[_SpanLine]] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    chars: int = 0  # non-whitespace characters
    invisible: int = 0  # of which invisible
    pale: list[tuple[int, int, int, float]] = field(default_factory=list)
    why: dict[tuple[int, int, int], str] = field(default_factory=dict)
    right_to_left: bool = False  # some span holds a right-to-left letter


def _scan_dict(content: dict[str, Any]) -> _PageScan:
    """MuPDF's text blocks as lists of lines of spans, in MuPDF's reading order, empty spans dropped;
    the same as model blocks, and the page's character and invisible-character counts.

    A span is invisible when MuPDF saw it drawn with (near) zero alpha (render modes 3 and 7, a zero
    fill opacity), painted neither filled nor stroked, or set and drawn under INVISIBLE_MAX_SIZE points; pale
    spans are judged later (see _PageScan). The reason is the first that holds of: painted neither filled
    nor stroked (render mode 3: ``render_mode``), (near) zero alpha (mode 7, a zero fill opacity:
    ``alpha``), too small (``tiny``). Characters are counted without whitespace. The loop runs for every
    span of every page, so it keeps to local names and counts the page's characters once.
    """
    scan = _PageScan()
    texts: list[str] = []
    pale = scan.pale
    why_of = scan.why
    invisible_chars = 0
    max_alpha, min_size, painted, min_luminance = (
        INVISIBLE_MAX_ALPHA,
        INVISIBLE_MAX_SIZE,
        PAINTED,
        PALE_MIN_LUMINANCE,
    )
    font_bold, char_bold, monospaced = _FONT_BOLD, _CHAR_BOLD, _FONT_MONOSPACED
    new = tuple.__new__  # Span(...) without its Python-level __new__
    block_no = -1  # counted over text blocks only, as extractWORDS numbers them
    for block in content["blocks"]:
        if block.get("type", 0) != 0:
            continue
        block_no += 1
        lines: list[_SpanLine] = []
        model_lines: list[Line] = []
        for line_no, line in enumerate(block["lines"]):
            spans: list[Span] = []
            for span in line["spans"]:
                text = span["text"]
                if not text:
                    continue
                flags, char_flags, size = span["flags"], span.get("char_flags", painted), span["size"]
                # tiny: set under the size, and drawn under it (a text matrix may scale a 0.24 pt font
                # up to legible 11 pt glyphs)
                tiny = size < min_size and span["bbox"][3] - span["bbox"][1] < min_size
                invisible = span.get("alpha", 255) <= max_alpha or not char_flags & painted or tiny
                if invisible:
                    invisible_chars += len("".join(text.split()))
                    why_of[(len(scan.blocks), len(model_lines), len(spans))] = (
                        _RENDER_MODE
                        if not char_flags & painted
                        else _ALPHA
                        if span.get("alpha", 255) <= max_alpha
                        else _TINY
                    )
                elif span["color"] and (luminance := span_luminance(span["color"])) >= min_luminance:
                    pale.append((len(scan.blocks), len(model_lines), len(spans), luminance))
                texts.append(text)
                bold = (flags & font_bold or char_flags & char_bold) != 0  # bool() without the call
                mono = flags & monospaced != 0
                spans.append(new(Span, (text, span["font"], size, span["bbox"], bold, mono, invisible)))
            if spans:
                direction = line["dir"]
                horizontal = abs(direction[1]) < 1e-3 and direction[0] > 0
                line_box = line["bbox"]
                model_spans = tuple(spans)
                lines.append(
                    _SpanLine(
                        model_spans, horizontal, line_box[1], line_box[3], (block_no, line_no), direction
                    )
                )
                model_lines.append(Line(model_spans, line_box))
        if lines:
            scan.lines.append(lines)
            scan.blocks.append(Block(tuple(model_lines), block["bbox"]))
    joined = "".join(texts)
    scan.chars = len("".join(joined.split()))
    scan.invisible = invisible_chars
    scan.right_to_left = holds_rtl_letter(joined)
    return scan


def _drawn_dict(content: dict[str, Any]) -> dict[str, Any]:
    """MuPDF's ``rawdict`` with each span's ``text`` as ``dict`` has it, but taken from the characters'
    positions on the lines that hold right-to-left letters (readers/pdf/bidi.py).

    A horizontal line whose letters are mostly right-to-left and whose characters were drawn mostly left
    to right (as the line stands, or its words left to right: bidi.drawn_rightwards) is read from its
    characters' places: its spans from right to left, each span's text as it stands (bidi.visual_text)
    turned into reading order (bidi.logical_line). Another line with right-to-left letters keeps its
    drawing order, with its numbers and gaps put right (bidi.drawn_text).
    """
    for block in content["blocks"]:
        for line in block.get("lines", ()):
            spans = line["spans"]
            texts = ["".join([c["c"] for c in span["chars"]]) for span in spans]
            joined = "".join(texts)
            if not holds_rtl_letter(joined):
                for span, text in zip(spans, texts, strict=True):
                    span["text"] = text
                continue
            direction = line["dir"]
            if (
                abs(direction[1]) < 1e-3
                and direction[0] > 0
                and rtl_share(joined) >= RTL_LINE_SHARE
                and drawn_rightwards([c for span in spans for c in span["chars"]])
            ):
                spans.sort(key=lambda span: -(span["bbox"][0] + span["bbox"][2]))
                for span in spans:
                    visual = visual_text(span["chars"], span["size"])
                    span["text"] = logical_line(visual, right_to_left=True, graphemes=True)
                continue
            for span in spans:
                span["text"] = drawn_text(span["chars"], span["size"])
    return content


def _hide_pale_spans(
    blocks: tuple[Block, ...],
    pale: list[tuple[int, int, int, float]],
    image_boxes: list[tuple[float, float, float, float]],
    paths: list[dict[str, Any]],
    why: dict[tuple[int, int, int], str],
) -> tuple[tuple[Block, ...], int]:
    """Mark the pale spans that stand on their own background invisible (and ``pale`` in ``why``);
    return the blocks and the characters hidden."""
    out = list(blocks)
    hidden = 0
    for b, li, si, luminance in pale:
        span = out[b].lines[li].spans[si]
        if not is_on_own_background(span.bbox, luminance, image_boxes, paths):
            continue
        hidden += len("".join(span.text.split()))
        why[(b, li, si)] = _PALE
        line = out[b].lines[li]
        spans = (*line.spans[:si], span._replace(invisible=True), *line.spans[si + 1 :])
        lines = (*out[b].lines[:li], replace(line, spans=spans), *out[b].lines[li + 1 :])
        out[b] = replace(out[b], lines=lines)
    return tuple(out), hidden


def _hidden_runs(blocks: tuple[Block, ...], why: dict[tuple[int, int, int], str]) -> list[HiddenSpan]:
    """The invisible spans as runs, in MuPDF's reading order: adjacent spans of one line with the same
    reason are one run (a sentence drawn white on white is one run, not one per font change), trimmed;
    runs of whitespace alone are dropped."""
    runs: list[HiddenSpan] = []
    for b, block in enumerate(blocks):
        for li, line in enumerate(block.lines):
            current: str | None = None
            parts: list[str] = []
            for si, span in enumerate(line.spans):
                reason = why.get((b, li, si))
                if reason != current:
                    _add_run(runs, parts, current)
                    current, parts = reason, []
                if reason is not None:
                    parts.append(span.text)
            _add_run(runs, parts, current)
    return runs


def _add_run(runs: list[HiddenSpan], parts: list[str], why: str | None) -> None:
    text = "".join(parts).strip()
    if why is not None and text:
        runs.append(HiddenSpan(text, why))


def _outside_crop_runs(page: pymupdf.Page) -> list[HiddenSpan]:
    """The text drawn wholly outside the crop box, as runs of one line each (``outside_crop``).

    The same test as :func:`readers.pdf.page_facts.chars_outside_crop`, which counts these characters; asked
    only of pages where it counted some, so the second ``get_texttrace()`` (~0.3 ms on a cropped page)
    is paid only where there is text to record. MuPDF's text extraction drops these characters, so the
    runs are not in the page's text; they come after the page's other runs. Trace spans on one line
    (their boxes overlap vertically by half the smaller height) are one run.
    """
    width, height = page.cropbox.width, page.cropbox.height
    lines: list[tuple[float, float, list[str]]] = []  # top, bottom, characters
    for span in page.get_texttrace():
        x0, y0, x1, y1 = span["bbox"]
        if x0 >= 0.0 and y0 >= 0.0 and x1 <= width and y1 <= height:
            continue
        chars = [
            chr(char[0])
            for char in span["chars"]
            if char[3][2] < 0.0 or char[3][0] > width or char[3][3] < 0.0 or char[3][1] > height
        ]
        if not chars:
            continue
        if lines:
            top, bottom, previous = lines[-1]
            overlap = min(bottom, y1) - max(top, y0)
            if overlap >= min(bottom - top, y1 - y0) / 2:
                previous.extend(chars)
                lines[-1] = (min(top, y0), max(bottom, y1), previous)
                continue
        lines.append((y0, y1, chars))
    runs: list[HiddenSpan] = []
    for _, _, chars in lines:
        _add_run(runs, chars, _OUTSIDE_CROP)
    return runs
