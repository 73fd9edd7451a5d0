"""The RTF reader: a Rich Text Format document as one page of markdown, from a tokenizer of its own.

Why not a library: ``striprtf`` (the small one) returns text only, with table cells run together and the
code page of each font ignored, and the fuller converters need LibreOffice or a JVM. What a faithful text
needs from RTF is small and is all here:

- bytes: ``\\'hh`` escapes and literal 8-bit bytes decoded in the code page of the current font
  (``\\fcharset`` or ``\\cpg`` in the font table), else the document's (``\\ansicpg``, ``\\mac``, ``\\pc``);
  consecutive bytes are decoded together, so double-byte code pages (Shift-JIS, GBK, Big5, UHC) whose
  trail byte is written as a literal character come out whole; ``\\uN`` (negative values and surrogate
  pairs included) with its ``\\ucN`` fallback bytes skipped; ``\\binN`` data skipped;
- structure: ``\\par``, ``\\line``, ``\\tab``; ``\\cell``/``\\row`` tables as GFM (nested cells flattened
  into their cell); headings by paragraph style name (Title, heading 1-9) or ``\\outlinelevel``; list
  items by the marker Word writes in ``\\listtext``/``\\pntext`` (``- `` for bullets, the number kept);
  footnotes as ``[^N]`` with their text after the body; headers and footers at the end, each distinct one
  once; field results (hyperlink text), not field instructions; shape text boxes (``\\shptxt``);
- skipped: every ``{\\*\\destination}`` the reader does not know, the font, colour, style, list and
  revision tables (after reading what they declare), pictures, object data, document properties and
  annotations.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

from readers.core.base import Reader, read_bounded, require_readable_file
from readers.core.errors import CorruptDocument, LimitExceeded
from readers.core.markup import gfm_table, markup_tables, one_line
from readers.core.model import ContentKind, PageFacts, PageText, ReadLimits, ReadResult
from readers.office.office_files import TextBudget, join_blocks

#: ``encoding_source`` of a document decoded with the code page it declares (as the e-mail readers say).
DECLARED = "declared"
MAX_HEADING = 6
LIST_INDENT = "   "
#: Groups nested deeper than this are refused: real documents nest some 10-20 deep, and the state stack
#: would otherwise grow with a hostile file's braces.
MAX_DEPTH = 1000

#: ``\fcharsetN`` to Python codec (Windows character sets, as MS-RTF lists them). 0 (ANSI) and 1 (default)
#: mean the document's own code page, from ``\ansicpg``.
_CHARSETS = {
    2: "cp1252",  # Symbol: no Unicode meaning per byte; cp1252 keeps bullets and quotes readable
    77: "mac_roman",
    128: "cp932",
    129: "cp949",
    130: "johab",
    134: "gbk",
    136: "cp950",
    161: "cp1253",
    162: "cp1254",
    163: "cp1258",
    177: "cp1255",
    178: "cp1256",
    186: "cp1257",
    204: "cp1251",
    222: "cp874",
    238: "cp1250",
    254: "cp437",
    255: "cp850",
}
_DEFAULT_CODEPAGE = "cp1252"

# Destinations whose content is not text: skipped whole (besides every \* destination not listed below).
_SKIP_DESTINATIONS = frozenset(
    {
        "colortbl",
        "info",
        "pict",
        "objdata",
        "fldinst",
        "xe",
        "tc",
        "txe",
        "rxe",
        "annotation",
        "atnid",
        "atnauthor",
        "atndate",
        "listtable",
        "listoverridetable",
        "revtbl",
        "rsidtbl",
        "filetbl",
        "themedata",
        "colorschememapping",
        "datastore",
        "latentstyles",
        "xmlnstbl",
        "generator",
        "mmathPr",
        "pgdsctbl",
        "userprops",
        "docvar",
        "sp",
        "shprslt",
        "nonshppict",
        "private",
        "bkmkstart",
        "bkmkend",
    }
)
# Starred destinations whose content is read: a shape's instructions (which hold its text box; their
# property groups, \sp, are skipped) and its text.
_READ_STARRED = frozenset({"shpinst", "shptxt", "fldrslt"})
_HEADERS = {
    "header": "Header",
    "headerl": "Header (left pages)",
    "headerr": "Header (right pages)",
    "headerf": "Header (first page)",
    "footer": "Footer",
    "footerl": "Footer (left pages)",
    "footerr": "Footer (right pages)",
    "footerf": "Footer (first page)",
}
_SYMBOLS = {
    "emdash": "\u2014",
    "endash": "\u2013",
    "bullet": "\u2022",
    "lquote": "\u2018",
    "rquote": "\u2019",
    "ldblquote": "\u201c",
    "rdblquote": "\u201d",
    "emspace": " ",
    "enspace": " ",
    "qmspace": " ",
    "zwj": "\u200d",
    "zwnj": "\u200c",
    "ltrmark": "",
    "rtlmark": "",
    "tab": "\t",
    "line": "\n",
}
_CONTROL = re.compile(rb"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])", re.DOTALL)
_HEADING_NAME = re.compile(r"heading\s*([1-9])")


@dataclass
class _Story:
    """One flow of text: the body, a footnote, a header. Collects paragraphs, cells and rows."""

    blocks: list[tuple[str, bool]] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)
    marker: str | None = None  # the list marker of the current paragraph (\listtext)
    cell: list[str] = field(default_factory=list)
    row: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    tables: int = 0
    headings: int = 0

    def text(self) -> str:
        raw = "".join(self.pieces)
        self.pieces = []
        return raw.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").strip()

    def end_paragraph(self, state: _GroupState, reader: _RtfParser) -> None:
        text = self.text()
        marker, self.marker = self.marker, None
        if state.intbl:
            if text:
                self.cell.append(one_line(text))
            return
        self.end_table()
        if not text:
            return
        level = reader.heading_level(state)
        if level is not None:
            self.headings += 1
            self.blocks.append(("#" * min(level, MAX_HEADING) + " " + one_line(text), False))
        elif marker is not None:
            indent = LIST_INDENT * state.ilvl
            self.blocks.append(
                (indent + marker + text.replace("\n", "\n" + indent + " " * len(marker)), True)
            )
        else:
            self.blocks.append((text, False))

    def end_cell(self) -> None:
        text = self.text()
        if text:
            self.cell.append(one_line(text))
        self.row.append(" ".join(self.cell))
        self.cell = []

    def end_row(self) -> None:
        if self.cell or self.pieces:
            self.end_cell()
        self.rows.append(self.row)
        self.row = []

    def end_table(self) -> None:
        if self.row or self.cell:
            self.end_row()
        if self.rows:
            table = gfm_table(self.rows)
            if table:
                self.tables += 1
                self.blocks.append((table, False))
            self.rows = []

    def finish(self, state: _GroupState, reader: _RtfParser) -> list[tuple[str, bool]]:
        if self.pieces or self.marker:
            self.end_paragraph(replace(state, intbl=False), reader)
        self.end_table()
        return self.blocks


@dataclass(frozen=True, slots=True)
class _GroupState:
    """What a group carries: where its text goes and the formatting that decides how it is read."""

    dest: str = "body"  # body, skip, fonttbl, stylesheet, listtext, or a story's name
    codepage: str = _DEFAULT_CODEPAGE
    uc: int = 1
    style: int = 0
    outline: int | None = None
    intbl: bool = False
    ilvl: int = 0


class _RtfParser:
    """One pass over the document's bytes."""

    def __init__(self, data: bytes, budget: TextBudget) -> None:
        self.data = data
        self.budget = budget
        self.ansi = _DEFAULT_CODEPAGE
        self.default_font: int | None = None
        self.fonts: dict[int, str] = {}
        self.styles: dict[int, tuple[str, int | None]] = {}
        self.stories: dict[str, _Story] = {"body": _Story()}
        self.order: list[str] = []  # footnotes and headers in the order they appear
        self.footnotes = 0
        self.pending = bytearray()
        self.pending_codepage = _DEFAULT_CODEPAGE
        self.skip = 0  # fallback characters still to skip after a \u
        # Font and style table entries being read.
        self.entry_number: int | None = None
        self.entry_charset: int | None = None
        self.entry_cpg: int | None = None
        self.entry_outline: int | None = None
        self.entry_name: list[str] = []
        self.listtext: list[str] = []

    # Output ------------------------------------------------------------------------------------------

    def story(self, state: _GroupState) -> _Story | None:
        if state.dest in ("skip", "fonttbl", "stylesheet", "listtext"):
            return None
        return self.stories[state.dest]

    def flush(self, state: _GroupState) -> None:
        if not self.pending:
            return
        text = bytes(self.pending).decode(self.pending_codepage, errors="replace")
        self.pending.clear()
        self.emit(state, text, decoded=True)

    def emit(self, state: _GroupState, text: str, *, decoded: bool = False) -> None:
        if not decoded:
            self.flush(state)
        if state.dest == "listtext":
            self.listtext.append(text)
        elif state.dest in ("fonttbl", "stylesheet"):
            self.entry_name.append(text)
        elif state.dest != "skip":
            self.budget.add(text)
            self.stories[state.dest].pieces.append(text)

    def byte(self, state: _GroupState, value: int) -> None:
        if self.skip:
            self.skip -= 1
            return
        if state.dest == "skip":
            return
        if self.pending and self.pending_codepage != state.codepage:
            self.flush(state)
        self.pending_codepage = state.codepage
        self.pending.append(value)

    # Parsing -----------------------------------------------------------------------------------------

    def run(self) -> None:
        state = _GroupState()
        stack: list[_GroupState] = []
        data = self.data
        position = 0
        first_in_group = starred = False
        while position < len(data):
            match = _CONTROL.search(data, position)
            end = match.start() if match else len(data)
            if end > position:
                first_in_group = False
                self.text_run(state, data[position:end])
            if match is None:
                break
            position = match.end()
            word, param, hexbyte, symbol, brace = match.groups()
            if brace == b"{":
                self.flush(state)
                if len(stack) >= MAX_DEPTH:
                    raise CorruptDocument(f"groups nested deeper than {MAX_DEPTH}")
                stack.append(state)
                self.skip = 0
                first_in_group = True
                starred = False
                continue
            if brace == b"}":
                self.flush(state)
                if not stack:
                    break  # the document's closing brace; anything after it is not RTF
                outer = stack.pop()
                self.end_group(state, outer)
                state = outer
                self.skip = 0
                first_in_group = False
                continue
            if hexbyte is not None:
                first_in_group = False
                self.byte(state, int(hexbyte, 16))
                continue
            if symbol is not None:
                if symbol == b"*" and first_in_group:
                    starred = True  # {\* ...: the next word names a destination to skip if unknown
                    continue
                first_in_group = False
                state = self.symbol(state, symbol)
                continue
            name = word.decode("ascii")
            number = int(param) if param is not None else None
            if name == "bin" and number:
                position += max(0, number)  # binary data follows: skipped unread
                continue
            if self.skip and name != "u":
                self.skip -= 1  # a control word standing in as the fallback of a \u
                first_in_group = False
                continue
            if first_in_group:
                first_in_group = False
                state = self.destination(state, name, starred)
                if state.dest == "skip":
                    continue
            state = self.control(state, name, number)
        self.flush(state)

    def text_run(self, state: _GroupState, run: bytes) -> None:
        """Plain bytes between control words: text in the current code page (line breaks in the source are
        not text)."""
        if state.dest == "skip":
            return
        run = run.replace(b"\r", b"").replace(b"\n", b"")
        if self.skip:
            dropped = min(self.skip, len(run))
            run = run[dropped:]
            self.skip -= dropped
        if not run:
            return
        if self.pending and self.pending_codepage != state.codepage:
            self.flush(state)
        self.pending_codepage = state.codepage
        self.pending.extend(run)

    def destination(self, state: _GroupState, name: str, starred: bool) -> _GroupState:
        """The first control word of a group may open a destination."""
        if state.dest == "skip":
            return state
        if name in _SKIP_DESTINATIONS or (starred and name not in _READ_STARRED):
            return replace(state, dest="skip")
        if name == "fonttbl":
            return replace(state, dest="fonttbl")
        if name == "stylesheet":
            return replace(state, dest="stylesheet")
        if name in ("listtext", "pntext"):
            self.listtext = []
            return replace(state, dest="listtext")
        if name == "footnote":
            self.footnotes += 1
            story = f"footnote:{self.footnotes}"
            self.emit(state, f"[^{self.footnotes}]")
            self.stories[story] = _Story()
            self.order.append(story)
            return replace(state, dest=story, intbl=False)
        if name in _HEADERS:
            story = f"header:{name}:{len(self.order)}"
            self.stories[story] = _Story()
            self.order.append(story)
            return replace(state, dest=story, intbl=False)
        if state.dest in ("fonttbl", "stylesheet"):
            self.entry_charset = self.entry_cpg = self.entry_outline = None
            # A style sheet entry without \sN is style 0, the Normal style.
            self.entry_number = 0 if state.dest == "stylesheet" else None
            self.entry_name = []
        return state

    def end_group(self, state: _GroupState, outer: _GroupState) -> None:
        """What closing a group completes: a font or style entry, a list marker, a story."""
        if state.dest in ("fonttbl", "stylesheet") and self.entry_number is not None:
            self.end_entry(state)
        elif state.dest == "listtext" and outer.dest != "listtext":
            marker = one_line("".join(self.listtext))
            story = self.story(outer)
            if story is not None:
                story.marker = (marker + " ") if any(c.isalnum() for c in marker) else "- "
        elif state.dest.startswith(("footnote:", "header:")) and state.dest != outer.dest:
            story = self.stories[state.dest]
            story.finish(state, self)

    def end_entry(self, state: _GroupState) -> None:
        name = "".join(self.entry_name).split(";")[0].strip()
        number = self.entry_number
        if number is None:
            return
        if state.dest == "fonttbl":
            codepage = None
            if self.entry_cpg is not None:
                codepage = _codec(f"cp{self.entry_cpg}")
            elif self.entry_charset is not None and self.entry_charset in _CHARSETS:
                codepage = _CHARSETS[self.entry_charset]
            if codepage is not None:
                self.fonts[number] = codepage
        else:
            self.styles[number] = (name.lower(), self.entry_outline)
        self.entry_number = None
        self.entry_name = []

    def symbol(self, state: _GroupState, symbol: bytes) -> _GroupState:
        if self.skip:
            self.skip -= 1
            return state
        if symbol in (b"\\", b"{", b"}"):
            self.byte(state, symbol[0])
        elif symbol == b"~":
            self.emit(state, "\u00a0")
        elif symbol == b"_":
            self.emit(state, "\u2011")
        elif symbol == b"\n" or symbol == b"\r":
            story = self.story(state)
            if story is not None:
                self.flush(state)
                story.end_paragraph(state, self)
        return state

    def control(self, state: _GroupState, name: str, number: int | None) -> _GroupState:
        """A control word that is not a destination."""
        dest = state.dest
        if dest in ("fonttbl", "stylesheet"):
            return self.table_control(state, name, number)
        if name == "u" and number is not None:
            if dest != "skip":
                self.emit(state, chr(number + 65536 if number < 0 else number))
            self.skip = state.uc
            return state
        if name == "uc" and number is not None:
            return replace(state, uc=max(0, number))
        if name in ("ansicpg",) and number:
            self.ansi = _codec(f"cp{number}") or self.ansi
            return replace(state, codepage=self.font_codepage(None))
        if name in ("ansi", "mac", "pc", "pca"):
            self.ansi = {"ansi": "cp1252", "mac": "mac_roman", "pc": "cp437", "pca": "cp850"}[name]
            return replace(state, codepage=self.ansi)
        if name == "deff" and number is not None:
            self.default_font = number
            return state
        if name == "f" and number is not None:
            return replace(state, codepage=self.font_codepage(number))
        if name == "plain":
            return replace(state, codepage=self.font_codepage(self.default_font))
        if name == "pard":
            return replace(state, style=0, outline=None, intbl=False, ilvl=0)
        if name == "s" and number is not None:
            return replace(state, style=number)
        if name == "outlinelevel" and number is not None:
            return replace(state, outline=number)
        if name == "intbl":
            return replace(state, intbl=True)
        if name == "ilvl" and number is not None:
            return replace(state, ilvl=max(0, number))
        story = self.story(state)
        if story is None:
            return state
        if name in ("par", "sect", "page"):
            self.flush(state)
            story.end_paragraph(state, self)
        elif name == "cell":
            self.flush(state)
            story.end_cell()
        elif name == "row":
            self.flush(state)
            story.end_row()
        elif name in ("nestcell", "nestrow"):
            self.emit(state, " ")
        elif name in _SYMBOLS:
            self.emit(state, _SYMBOLS[name])
        return state

    def table_control(self, state: _GroupState, name: str, number: int | None) -> _GroupState:
        """Control words inside the font table and the style sheet: what each entry declares."""
        if state.dest == "fonttbl":
            if name == "f" and number is not None:
                if self.entry_number is not None and self.entry_number != number:
                    self.end_entry(state)  # entries written without their own group
                self.entry_number = number
            elif name == "fcharset" and number is not None:
                self.entry_charset = number
            elif name == "cpg" and number is not None:
                self.entry_cpg = number
        else:
            if name == "s" and number is not None:
                self.entry_number = number
            elif name in ("cs", "ds", "ts"):
                self.entry_number = None  # character, section and table styles: not paragraph styles
            elif name == "outlinelevel" and number is not None:
                self.entry_outline = number
        if name == "u" and number is not None:
            self.emit(state, chr(number + 65536 if number < 0 else number))
            self.skip = state.uc
        return state

    def font_codepage(self, font: int | None) -> str:
        if font is not None and font in self.fonts:
            return self.fonts[font]
        if font is None and self.default_font in self.fonts:
            return self.fonts[self.default_font]  # type: ignore[index]
        return self.ansi

    def heading_level(self, state: _GroupState) -> int | None:
        name, style_outline = self.styles.get(state.style, ("", None))
        if name == "title":
            return 1
        match = _HEADING_NAME.fullmatch(name)
        if match:
            return int(match.group(1))
        outline = state.outline if state.outline is not None else style_outline
        if outline is not None and 0 <= outline < 9:
            return outline + 1
        return None


def _codec(name: str) -> str | None:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


class RtfReader(Reader):
    """Reads an RTF document into one page: text, headings, lists, tables, footnotes, headers."""

    name: ClassVar[str] = "rtf"
    # What each revision changed: docs/decisions.md, "Text judging: calibration notes".
    revision: ClassVar[int] = 2
    kinds: ClassVar[frozenset[ContentKind]] = frozenset({ContentKind.RTF})

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        require_readable_file(path)
        return read_rtf_bytes(read_bounded(path, limits.max_text_bytes), limits, name=path.name)


def read_rtf_bytes(data: bytes, limits: ReadLimits, *, name: str) -> ReadResult:
    """An RTF document held in memory (a Word document's embedded RTF part), read as a file is;
    ``name`` says which in messages."""
    if len(data) > limits.max_text_bytes:
        raise LimitExceeded(f"{name} is over the limit of {limits.max_text_bytes} bytes")
    if not data.lstrip().startswith(b"{\\rtf"):
        raise CorruptDocument(f"{name}: not an RTF document (no {{\\rtf header)")
    budget = TextBudget(limits)
    parser = _RtfParser(data, budget)
    parser.run()
    state = _GroupState()
    body = parser.stories["body"]
    blocks = body.finish(state, parser)
    tables, headings = body.tables, body.headings
    footnotes = [story_name for story_name in parser.order if story_name.startswith("footnote:")]
    for note in footnotes:
        story = parser.stories[note]
        text = " ".join(one_line(t) for t, _ in story.finish(state, parser) if t.strip())
        if text:
            blocks.append((f"[^{note.split(':')[1]}]: {text}", False))
    seen: set[str] = set()
    for story_name in parser.order:
        if not story_name.startswith("header:"):
            continue
        story_blocks = parser.stories[story_name].finish(state, parser)
        text = join_blocks(story_blocks)
        if text and text not in seen:
            seen.add(text)
            blocks.append((f"## {_HEADERS[story_name.split(':')[1]]}", False))
            blocks += story_blocks
    text = budget.check(join_blocks(blocks))
    page = PageText(page=1, text=text, facts=PageFacts(tables=tables, headings=headings))
    result = ReadResult(pages=(page,), page_count=1, encoding=parser.ansi, encoding_source=DECLARED)
    return markup_tables(result, "markup=rtf")
