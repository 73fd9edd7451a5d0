"""PyMuPDF, the primary PDF reader: raw markdown per page (headings, GFM tables) and the page facts.

What it writes, page by page: the text layer as markdown, with ``#``..``####`` headings recognised from
font size and weight, ruled tables as GFM tables placed where they sit in the reading order;
:class:`~readers.core.model.PageFacts` (size, fonts, image placements, vector paths, tables, headings, and
from :mod:`readers.pdf.page_facts` image cover, vector figures, text drawn as outlines, invisible text and
OCR-layer fonts) for the signals; and the page's layout as model blocks of lines of spans (font, size,
box, bold, monospaced, invisible), built from the same ``dict`` as the text; and the page's invisible
runs of text with the reason for each (:class:`~readers.core.model.HiddenSpan`: render mode 3, zero alpha,
tiny, white on its own background, outside the crop box), which the text keeps and sanitize removes
where the page is not an OCR layer. A tagged PDF's pages that its structure tree covers are read in the
tree's order, with its pagination artifacts and its tables as data (:mod:`readers.pdf.tagged_pages`).
The text is RAW: no Unicode normalisation, no ligature expansion, U+FFFD, controls and private-use
characters are kept as MuPDF reports them, and whitespace inside a line is kept; only the ends of each
reconstructed line are trimmed (leading blanks would turn a line into a markdown code block, trailing
ones into a hard break).

Why it is built this way (the costs of each MuPDF call measured on the dev corpus's born-digital PDFs):
docs/decisions.md, "PDF readers: calibration notes". The page's spans are scanned in
:mod:`readers.pdf.page_spans`, its flow text laid out in :mod:`readers.pdf.flow_text`, its headings and
markdown written in :mod:`readers.pdf.headings` and its structure decided in
:mod:`readers.pdf.structure_decisions`.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pymupdf

from readers.core.base import (
    PAGE_FAILED,
    Reader,
    collector_paused,
    refuse_unreadable_pages,
    require_readable_file,
)
from readers.core.errors import CorruptDocument, EncryptedDocument, FileUnreadable, LimitExceeded, ReaderError
from readers.core.model import (
    Block,
    ContentKind,
    OrderSource,
    PageFacts,
    PageText,
    ReadLimits,
    ReadResult,
    StructureSource,
)
from readers.pdf.cid_fonts import FONT_DESCRIPTORS_SUPPLIED, supply_font_descriptors
from readers.pdf.flow_text import _FlowBlock, _layout, _PageDraft
from readers.pdf.headings import _render
from readers.pdf.order import (
    MAX_ROW_SHARE,
    OrderBlock,
    Ordered,
    column_pieces,
    piece_gutters,
    reading_order,
    row_pairs,
)
from readers.pdf.page_facts import (
    chars_outside_crop,
    image_cover,
    ocr_font_hint,
)
from readers.pdf.page_spans import (
    TEXT_FLAGS,
    _drawn_dict,
    _hidden_runs,
    _hide_pale_spans,
    _outside_crop_runs,
    _PageScan,
    _scan_dict,
)
from readers.pdf.placed_tables import renumber_tables
from readers.pdf.ruled_grids import vertical_rules
from readers.pdf.ruled_tables import find_ruled_tables
from readers.pdf.salvage import PAGE_TREE_LOST, open_salvaged
from readers.pdf.structure_decisions import _decide_structure, _signals
from readers.pdf.tagged_pages import read_tagged
from readers.pdf.unruled_tables import find_aligned_tables, find_turned_aligned_tables, unframed
from readers.pdf.vector_paths import drawing_facts

_INLINE_IMAGE = re.compile(rb"(?:^|\s)BI\s")


# --- the reader -------------------------------------------------------------------------------------


class PyMuPDFReader(Reader):
    """The primary PDF reader (docs/design.md §3): fast, markdown, facts for the signals."""

    name = "pymupdf"
    # Each revision's change: docs/decisions.md, "PDF readers: calibration notes".
    revision = 10
    kinds = frozenset({ContentKind.PDF})

    @property
    def tool_version(self) -> str:
        return f"{pymupdf.VersionBind}/mupdf-{pymupdf.VersionFitz}"

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        with collector_paused():
            return self._read(Path(path), limits)

    def _read(self, path: Path, limits: ReadLimits) -> ReadResult:
        try:
            doc, notes = _open(path, limits)
        except ReaderError:
            raise
        except MemoryError as exc:
            raise LimitExceeded(f"{path.name}: out of memory while opening") from exc
        except Exception as exc:  # a library error we did not foresee: still a document error
            raise CorruptDocument(f"{path.name}: PyMuPDF failed to open it: {exc}") from exc
        try:
            return _read_document(doc, path, limits, notes)
        except ReaderError:
            raise
        except MemoryError as exc:
            raise LimitExceeded(f"{path.name}: out of memory while reading") from exc
        except Exception as exc:
            raise CorruptDocument(f"{path.name}: PyMuPDF failed while reading: {exc}") from exc
        finally:
            doc.close()


def _open(path: Path, limits: ReadLimits) -> tuple[pymupdf.Document, list[str]]:
    """Open ``path`` as a PDF, translating every way that can fail into the project's errors."""
    require_readable_file(path)
    try:
        doc, salvaged = open_salvaged(path)
    except pymupdf.EmptyFileError as exc:
        raise CorruptDocument(f"{path.name}: the file is empty", reason="empty_file") from exc
    except pymupdf.FileDataError as exc:
        raise CorruptDocument(f"{path.name}: not a readable PDF: {exc}") from exc
    except OSError as exc:
        raise FileUnreadable(f"{path}: cannot be read: {exc}") from exc
    notes: list[str] = [f"{PAGE_TREE_LOST}{salvaged}"] if salvaged else []
    try:
        if doc.needs_pass:
            if not doc.authenticate(""):
                raise EncryptedDocument(
                    f"{path.name}: encrypted, and the empty user password does not open it"
                )
            notes.append("opened_with_empty_password")
        elif (doc.metadata or {}).get("encryption"):
            # MuPDF already tried the empty user password while opening, and it worked.
            notes.append("opened_with_empty_password")
        if doc.page_count > limits.max_pages:
            raise LimitExceeded(f"{path.name}: {doc.page_count} pages, over the limit of {limits.max_pages}")
        described = supply_font_descriptors(doc)
        if described:
            notes.append(f"{FONT_DESCRIPTORS_SUPPLIED}{described}")
    except BaseException:
        doc.close()
        raise
    return doc, notes


def open_pdf(path: Path, limits: ReadLimits) -> pymupdf.Document:
    """``path`` opened as the PDF reader opens it (the same errors, the same page bound); the caller
    closes it."""
    return _open(path, limits)[0]


def _read_document(doc: pymupdf.Document, path: Path, limits: ReadLimits, notes: list[str]) -> ReadResult:
    page_count = doc.page_count
    first_failure = ""
    drafts: list[_PageDraft] = []
    chars = 0
    for index in range(page_count):
        try:
            draft = _first_pass(doc.load_page(index), index + 1)
        except MemoryError as exc:
            raise LimitExceeded(f"{path.name}: out of memory on page {index + 1}") from exc
        except Exception as exc:
            notes.append(f"{PAGE_FAILED}{index + 1}")
            first_failure = first_failure or f"{type(exc).__name__}: {exc}"
            draft = _PageDraft(index + 1, [], PageFacts())
        chars += sum(
            len(line.text) for item in draft.items if isinstance(item, _FlowBlock) for line in item.lines
        )
        if chars > limits.max_text_bytes:  # a character is at least one byte: a cheap lower bound
            raise LimitExceeded(f"{path.name}: more than {limits.max_text_bytes} bytes of text")
        drafts.append(draft)
    refuse_unreadable_pages(path, page_count, notes, first_failure)
    labels = page_labels(doc)
    pages = read_tagged(doc, _labelled(_render(drafts), labels))  # a tagged PDF in its tree's order
    # Each page's structure decided, the pages the tree covers left to it; the model's pages laid out again.
    covered = {page.page for page in pages if page.structure.source == StructureSource.TAGGED}
    if _decide_structure(doc, drafts, covered):
        fresh = _labelled(_render(drafts), labels)
        pages = [old if old.page in covered else new for old, new in zip(pages, fresh, strict=True)]
    else:
        pages = [
            page if page.page in covered else replace(page, structure=draft.structure)
            for page, draft in zip(pages, drafts, strict=True)
        ]
    pages = renumber_tables(pages)
    total = sum(len(page.text.encode("utf-8", "surrogatepass")) for page in pages)
    if total > limits.max_text_bytes:
        raise LimitExceeded(f"{path.name}: {total} bytes of text, over the limit of {limits.max_text_bytes}")
    # What could not be read is kept with the document (its diagnostics): a lost page tree, failed pages.
    unread = tuple(n for n in notes if n.startswith((PAGE_TREE_LOST, PAGE_FAILED)))
    return ReadResult(pages=tuple(pages), page_count=page_count, notes=tuple(notes), unread=unread)


def _labelled(pages: list[PageText], labels: list[str | None]) -> list[PageText]:
    return [replace(page, label=label) for page, label in zip(pages, labels, strict=True)]


def page_labels(doc: pymupdf.Document) -> list[str | None]:
    """Each page's label as the document prints it (its /PageLabels: "i", "ii", "1", "A-1"), None where
    it has none (no /PageLabels, or a range with neither style nor prefix).

    The label rules are read once for the document: ``Page.get_label`` reads them again for every page
    (on a 117-page thesis of the dev corpus: 0.2 ms once, 17.5 ms page by page).
    A broken /PageLabels leaves the document unlabelled rather than unread.
    """
    try:
        rules = sorted(doc.get_page_labels(), key=lambda rule: rule["startpage"])
        starts = [rule["startpage"] for rule in rules]
        out: list[str | None] = []
        for index in range(doc.page_count):
            at = bisect.bisect_right(starts, index) - 1
            if at < 0:  # before the first range: the PDF gives it no label
                out.append(None)
                continue
            rule = rules[at]
            style = rule.get("style", "")
            # letters count from A = 1 in the PDF, from A = 0 in PyMuPDF's construct_label
            number = index - rule["startpage"] + rule.get("firstpagenum", 1) - (style in ("a", "A"))
            out.append(pymupdf.utils.construct_label(style, rule.get("prefix", ""), number) or None)
        return out
    except Exception:
        return [None] * doc.page_count


# --- first pass: one page -----------------------------------------------------------------------------


def _first_pass(page: pymupdf.Page, number: int) -> _PageDraft:
    """Extract a page's spans and drawings, find its ruled tables, and lay out its flow blocks."""
    textpage = page.get_textpage(flags=TEXT_FLAGS)
    scan = _scan_dict(textpage.extractDICT())
    if scan.right_to_left:
        # Right-to-left letters: their lines are read again from the characters' positions (readers/pdf/
        # bidi.py drawn_text), which only MuPDF's rawdict has.
        scan = _scan_dict(_drawn_dict(textpage.extractRAWDICT()))
    paths = page.get_cdrawings()
    # The page's boxes are asked of PyMuPDF once each: every property call reads them from the PDF again.
    rect = page.rect
    # Spans, images and paths are in unrotated page space, so shares are taken of the crop box's sides.
    crop = page.cropbox
    tables = unframed(scan.lines, find_ruled_tables(paths, scan.lines, textpage), rect.width)
    tables = sorted(
        [
            *tables,
            *find_aligned_tables(scan.lines, tables, rect.width, lambda: vertical_rules(paths)),
            *find_turned_aligned_tables(scan.lines, tables, crop.width, crop.height),
        ],
        key=lambda t: (t.bbox[1], t.bbox[0]),
    )
    shown = page.rotation_matrix if page.rotation else None
    scan, ordered = _reading_order(scan, rect, shown)
    items, sizes = _layout([scan.lines[i] for i in ordered.permutation], tables)
    fonts = sorted({span.font for block in scan.lines for line in block for span in line.spans})
    infos = _image_infos(page)
    cover = image_cover(infos, crop.width, crop.height)
    drawn = drawing_facts(paths, crop.width, crop.height)
    blocks = tuple(scan.blocks)
    invisible = scan.invisible
    if scan.pale:
        blocks, pale = _hide_pale_spans(blocks, scan.pale, [info["bbox"] for info in infos], paths, scan.why)
        invisible += pale
    hidden = _hidden_runs(blocks, scan.why) if scan.why else []
    outside = chars_outside_crop(page, crop)
    if outside:
        hidden += _outside_crop_runs(page)
    chars = scan.chars + outside
    invisible += outside
    facts = PageFacts(
        width=round(rect.width, 2),
        height=round(rect.height, 2),
        fonts=len(fonts),
        font_names=tuple(fonts),
        images=sum(1 for info in infos if info.get("size", 0) > 0),
        drawings=len(paths),
        tables=len(tables),
        image_coverage=round(cover.coverage, 4),
        largest_image_share=round(cover.largest_share, 4),
        vector_figure_area=round(drawn.vector_figure_area, 4),
        outline_text_paths=drawn.outline_text_paths,
        invisible_chars=invisible,
        invisible_share=round(invisible / chars, 4) if chars else 0.0,
        ocr_font_hint=ocr_font_hint(fonts),
    )
    visible = scan.chars - scan.invisible
    text_layer = visible > 0 and invisible < visible and not facts.ocr_font_hint
    signals = replace(_signals(scan, tables, ordered.order, rect.height), text_layer=text_layer)
    return _PageDraft(
        number,
        items,
        facts,
        sizes,
        blocks,
        tuple(hidden),
        tables,
        ordered.order,
        signals,
        scan.lines,
        ordered.permutation,
    )


def _reading_order(
    scan: _PageScan, rect: pymupdf.Rect, shown: pymupdf.Matrix | None
) -> tuple[_PageScan, Ordered]:
    """The order of the page's text blocks (readers/pdf/order.py), from their boxes and their ends; and
    the blocks it orders: MuPDF's, or, where a block holds lines of two columns and reading the page
    column by column with such blocks cut at their gutters breaks no more seams, the cut blocks."""
    width = rect.width
    ordered = _ordered(scan, rect, shown)
    cut = _cut_at_gutters(scan, width)
    if cut is not None:
        other = _ordered(cut, rect, shown)
        columns = (OrderSource.COLUMNS.value, OrderSource.COLUMNS_RTL.value)
        if other.order.source in columns and other.order.broken_seams <= ordered.order.broken_seams:
            return cut, other
    return scan, ordered


def _cut_at_gutters(scan: _PageScan, width: float) -> _PageScan | None:
    """The scan with each block that holds lines of two columns cut into one block a column (their lines,
    spans and the indexes of ``pale`` and ``why`` moved with them); None where no block is cut, or where
    most lines across the cuts start level with each other (a table's or a form's rows)."""
    boxes = [[line.bbox for line in block.lines] for block in scan.blocks]
    pieces = [column_pieces(lines, width) for lines in boxes]
    if all(len(p) == 1 for p in pieces):
        return None
    gutters = sorted({g for lines, cut in zip(boxes, pieces, strict=True) for g in piece_gutters(lines, cut)})
    pieces = [column_pieces(lines, width, gutters) for lines in boxes]
    pairs = [row_pairs(lines, cut) for lines, cut in zip(boxes, pieces, strict=True)]
    if sum(level for level, _ in pairs) > MAX_ROW_SHARE * sum(total for _, total in pairs):
        return None  # rows of a table or a form side by side, not columns
    cut = _PageScan(chars=scan.chars, invisible=scan.invisible)
    moved: dict[tuple[int, int], tuple[int, int]] = {}  # (block, line) -> where it is in the cut scan
    for b, (lines, block) in enumerate(zip(scan.lines, scan.blocks, strict=True)):
        for piece in pieces[b]:
            for at, li in enumerate(piece):
                moved[(b, li)] = (len(cut.blocks), at)
            model_lines = tuple(block.lines[li] for li in piece)
            box = (
                min(line.bbox[0] for line in model_lines),
                min(line.bbox[1] for line in model_lines),
                max(line.bbox[2] for line in model_lines),
                max(line.bbox[3] for line in model_lines),
            )
            cut.lines.append([lines[li] for li in piece])
            cut.blocks.append(Block(model_lines, box))
    cut.pale = [(*moved[(b, li)], si, luminance) for b, li, si, luminance in scan.pale]
    cut.why = {(*moved[(b, li)], si): why for (b, li, si), why in scan.why.items()}
    return cut


def _ordered(scan: _PageScan, rect: pymupdf.Rect, shown: pymupdf.Matrix | None) -> Ordered:
    """The order of the scan's blocks, their boxes as the page is shown (``shown``: a rotated page's matrix;
    MuPDF's boxes are in the unrotated page's space, where a page turned 180 degrees reads bottom up)."""
    blocks = [
        OrderBlock(
            model.bbox if shown is None else tuple(pymupdf.Rect(model.bbox) * shown),
            "".join([span.text for span in lines[0].spans]),
            "".join([span.text for span in lines[-1].spans]),
            len(lines),
        )
        for lines, model in zip(scan.lines, scan.blocks, strict=True)
    ]
    return reading_order(blocks, rect.width, rect.height)


def _image_infos(page: pymupdf.Page) -> list[dict[str, Any]]:
    """Where the page draws images, asked of MuPDF only when the page can hold one.

    A page holds images when its resources (or its forms') name one, or its content has an inline
    image (``BI``); only then is ``get_image_info()`` (~1 ms) called. It also reports shadings, as
    images of size 0 (a cairo drawing's shadings, a thesis's TikZ shadings): they are
    kept here (a span over a shading does not stand on the white page) and left out of the image count
    and cover. Inline images inside forms are missed when the page has no image resource.
    """
    if not page.get_images() and not _has_inline_image(page.read_contents()):
        return []
    return page.get_image_info()


def _has_inline_image(content: bytes) -> bool:
    # bytes.find is ~30x faster than the regex on a long content stream that has no "BI" at all
    return b"BI" in content and _INLINE_IMAGE.search(content) is not None
