"""One document's text cut into retrieval-sized chunks that carry their evidence (docs/design.md §1, §5
`chunks`).

The input is one document's sanitized text (markdown) and where each of its pages starts; the output is
chunks that know their heading path, their first and last page, the sources of those pages and the
lowest trust among them. One call is one document, so no chunk ever spans two documents.

How the text is cut, coarsest first:

1. **Sections.** A markdown heading line (``#`` to ``######``, outside code fences) starts a section; its
   heading path is the stack of enclosing headings (``# A`` / ``## B`` / ``### C`` gives ``(A, B, C)``;
   a heading pops every heading of its level or deeper). Text before the first heading has the empty path.
2. **Gluing and merging.** A heading with no body of its own (``# Annual report`` directly followed by
   ``## Water quality``) is glued to the section that follows when that section is under it, and takes
   that section's path. Consecutive sections whose text fits in ``target`` together are merged into one
   chunk only when they share a parent heading: one heading's intro and its direct subsections, or
   siblings under one parent. The merged chunk's path is that heading's path (the longest common
   prefix). Top-level siblings (no shared heading) and sections two levels apart are never merged, so a
   path always names every section its chunk covers.
3. **Within a section**, a chunk ends at the best break near its goal: a paragraph (or block: table,
   code fence) boundary, else a line boundary, else a sentence boundary, else a word boundary. The goal
   spreads the section evenly over the chunks it needs, so no chunk is a small leftover. A chunk's whole
   text, overlap included, stays within ``target`` characters, and within ``HARD_MAX_FACTOR * target``
   when the only break beyond is farther; only a table row or a run without breaks longer than that
   makes a longer chunk, and a run without any whitespace past the hard maximum (Chinese or Japanese
   without punctuation, a base64 blob) is cut inside, never before a combining mark.
4. **Never inside a table row**: a markdown table line (``| ... |``) is never cut, and a chunk never ends
   between a table's header row, its ``|---|`` line and its first body row.

Overlap and the join invariant. Every chunk after the first of its section repeats the end of the
previous one: it starts ``overlap`` characters before the previous chunk's end, snapped forward to a
sentence start (in the first half of that window) or else a word start, never more than half of the
previous chunk's new text, and never inside a table (an overlap that would start there starts after the
table, or is dropped). ``Chunk.overlap`` counts the characters at the start of ``Chunk.text`` that are not
new, so ``"".join(c.text[c.overlap:] for c in chunks) == text`` exactly (:func:`reassemble`).

A table split across chunks: a later chunk that starts inside the table's body repeats the table's header
row and its ``|---|`` line, so it reads as a table on its own. That repetition is not document text at
that place, so it is not part of ``[start, end)``: such a chunk has ``text == header + text[start:end]``
and ``overlap == len(header)`` (it has no other overlap). Every other chunk has
``text == document_text[start:end]``. In both cases ``text[overlap:]`` is the chunk's new text.

Pages: ``page_start``/``page_end`` are the pages of the chunk's first and last non-whitespace character of
``[start, end)``, and ``page_offsets`` says where in ``text`` each page from ``page_start`` to
``page_end`` begins, so a search can tell the page of a match inside a chunk that spans pages. Its
``language`` is the language covering most of its characters (pages without one ignored), ``sources``
the sorted distinct sources of the pages it touches, ``trust`` the minimum trust of those pages (pages
without a trust ignored; None when none has one).
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import math
import re
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from quality.records import StoppedRecord, StopReason
from readers.core.model import ContentKind

# Retrieval-sized without a tokenizer model: at about 4 characters per token in English, 1,500
# characters is about 375 tokens, within the 256-512-token chunks that embedding models and BM25 passage
# retrieval are usually tuned on, and about a page-third of a dense PDF page: enough context for a reader
# to judge a hit, small enough that one hit points at one place. Languages with longer words (German,
# Finnish) get fewer words per chunk, CJK text more meaning per character; the size is a retrieval
# granularity, not a model limit, so characters serve every script alike.
TARGET_CHARS = 1500
# About two sentences (200 characters, ~50 English tokens, 13% of the target): a sentence cut between
# two chunks is still whole in one of them, at a cost of one chunk in eight in storage.
OVERLAP_CHARS = 200
# A chunk goes past the target only when the only break is beyond it (a long table row, a long word);
# twice the target is the ceiling, so a chunk still fits a 1k-token window.
HARD_MAX_FACTOR = 2
# A chunk ends at the best break no earlier than this share of its goal: a paragraph boundary at 55% of
# the goal beats a sentence boundary at 100%, one at 30% does not (the chunk would be half empty).
MIN_FILL = 0.5

_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_TABLE_ROW = re.compile(r"[ \t]*\|.*\|[ \t]*")
_DELIMITER_ROW = re.compile(r"[ \t]*\|(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*")
# Emphasis around a heading's words (PyMuPDF writes ``## **Title**``): not part of the title.
_EMPHASIS = re.compile(r"^[*_`]+|[*_`]+$")
# Word breaks: runs of breaking whitespace; no-break spaces join what they join.
_SPACES = re.compile(r"[^\S\n\u00a0\u2007\u202f]+(?=[^\s\u00a0\u2007\u202f])")
# Sentence ends: Latin-style punctuation, closing quotes or brackets, then space (the next word must not
# start in lower case: "e.g. the" is no sentence end); CJK full stops need no space.
_SENTENCE_END = re.compile(r"[.!?…][\"'”’»)\]]*[^\S\n]+(?=\S)|[。！？]+[\"'”’」』)）]*(?=\S)")


class _Level(IntEnum):
    """Break strength, best first."""

    PARAGRAPH = 1
    LINE = 2
    SENTENCE = 3
    WORD = 4


class _Kind(IntEnum):
    BLANK = 0
    TEXT = 1
    HEADING = 2
    TABLE = 3
    CODE = 4


_BLOCKS = (_Kind.TABLE, _Kind.CODE)


@dataclass(frozen=True, slots=True)
class PageSpan:
    """One page of the document: where its text starts in the document text, and what it is worth."""

    page: int
    start: int
    language: str | None
    source: str
    trust: float | None
    label: str | None = None  # the page's printed label (texts.page_labels)


@dataclass(frozen=True, slots=True)
class Chunk:
    chunk_id: str
    ordinal: int
    # [start, end) into the document text, overlap included (a repeated table header is not: see module doc)
    start: int
    end: int
    # characters at the start of ``text`` repeated from the previous chunk (or a repeated table header)
    overlap: int
    heading_path: tuple[str, ...]
    page_start: int
    page_end: int
    # where in ``text`` each page of page_start..page_end begins: (0, ...), one offset per page number; a
    # page with no text here has the next page's offset (the page of offset x: the last page whose offset
    # is <= x)
    page_offsets: tuple[int, ...]
    language: str | None
    sources: tuple[str, ...]
    trust: float | None
    text: str
    # the printed label of each page of page_start..page_end, parallel to page_offsets; None for a page
    # without one, or without text in the document (it is not among ``pages``)
    page_labels: tuple[str | None, ...] = ()

    @property
    def new_text(self) -> str:
        """The chunk's text without what it repeats: these pieces joined are the document text."""
        return self.text[self.overlap :]

    def page_at(self, offset: int) -> int:
        """The page of the character at ``offset`` in ``text``."""
        return self.page_start + bisect.bisect_right(self.page_offsets, offset) - 1


@dataclass(frozen=True, slots=True)
class _Table:
    start: int  # first character of the header row's line
    end: int  # first character after the last row's line (its newline included)
    body_start: int | None  # first body row, when the second line is a |---| delimiter; else None


@dataclass(frozen=True, slots=True)
class _Section:
    start: int
    end: int
    path: tuple[str, ...]
    has_body: bool


@dataclass(frozen=True, slots=True)
class _Run:
    """Text cut as one unit: one section (perhaps with glued headings) or several merged small ones."""

    start: int
    end: int
    path: tuple[str, ...]
    paths: tuple[tuple[str, ...], ...]


class _Layout:
    """The lines of one document, what each is, and where a chunk may end."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts: list[int] = []
        self.line_kinds: list[_Kind] = []
        self.headings: list[tuple[int, int, str]] = []  # (line start, level, title)
        self.tables: list[_Table] = []
        self._table_starts: list[int] = []
        # break positions of each level or better, sorted: breaks[level] holds every break of level <= it
        self.breaks: dict[_Level, list[int]] = {}
        self._scan()

    def _scan(self) -> None:
        text = self.text
        levels: dict[int, _Level] = {}

        def add(pos: int, level: _Level) -> None:
            if 0 < pos < len(text) and (pos not in levels or levels[pos] > level):
                levels[pos] = level

        in_fence: str | None = None
        prev_kind = _Kind.BLANK  # the previous line's kind
        last_content: _Kind | None = None  # the last non-blank line's kind
        table_start = -1
        table_rows = 0
        table_body: int | None = None
        pos = 0
        n = len(text)
        while pos < n:
            nl = text.find("\n", pos)
            end = n if nl < 0 else nl
            nxt = n if nl < 0 else nl + 1
            line = text[pos:end].rstrip("\r")
            kind = _Kind.TEXT
            heading: tuple[int, str] | None = None
            fence = _FENCE.match(line)
            if in_fence is not None:
                kind = _Kind.CODE
                if fence and fence.group(1)[0] == in_fence[0] and len(fence.group(1)) >= len(in_fence):
                    in_fence = None
            elif fence:
                kind = _Kind.CODE
                in_fence = fence.group(1)
            elif not line.strip():
                kind = _Kind.BLANK
            elif (h := _HEADING.fullmatch(line)) and (title := _clean_title(h.group(2))):
                kind = _Kind.HEADING
                heading = (len(h.group(1)), title)
            elif _TABLE_ROW.fullmatch(line):
                kind = _Kind.TABLE

            # tables: consecutive table lines; the header is repeated only when line 2 is a |---| line
            if kind == _Kind.TABLE:
                if prev_kind != _Kind.TABLE:
                    table_start, table_rows, table_body = pos, 0, None
                elif table_rows == 1 and _DELIMITER_ROW.fullmatch(line):
                    table_body = nxt  # provisional: the first body row starts after the delimiter
                table_rows += 1
            elif prev_kind == _Kind.TABLE:
                self._close_table(table_start, pos, table_rows, table_body)

            if kind != _Kind.BLANK:
                after_heading = last_content == _Kind.HEADING
                if last_content is not None and not after_heading:
                    if prev_kind == _Kind.BLANK:
                        add(pos, _Level.PARAGRAPH)
                    elif (kind in _BLOCKS or prev_kind in _BLOCKS) and kind != prev_kind:
                        add(pos, _Level.PARAGRAPH)  # a table or a code block starts or ends a block
                    elif kind == _Kind.TABLE:
                        # between body rows only: never between header, delimiter and first body row
                        if table_body is None or pos > table_body:
                            add(pos, _Level.LINE)
                    else:
                        add(pos, _Level.LINE)
                if kind in (_Kind.TEXT, _Kind.CODE):
                    if kind == _Kind.TEXT:
                        for m in _SENTENCE_END.finditer(text, pos, pos + len(line)):
                            q = m.end()
                            if q < pos + len(line) and not text[q].islower():
                                add(q, _Level.SENTENCE)
                    for m in _SPACES.finditer(text, pos, pos + len(line)):
                        add(m.end(), _Level.WORD)
                last_content = kind
            if heading is not None:
                self.headings.append((pos, heading[0], heading[1]))
            self.line_starts.append(pos)
            self.line_kinds.append(kind)
            prev_kind = kind
            pos = nxt
        if prev_kind == _Kind.TABLE:
            self._close_table(table_start, n, table_rows, table_body)

        ordered = sorted(levels.items())
        for level in _Level:
            self.breaks[level] = [p for p, lv in ordered if lv <= level]
        self._table_starts = [t.start for t in self.tables]

    def _close_table(self, start: int, end: int, rows: int, body: int | None) -> None:
        # a header and delimiter with no body row is no table to split
        self.tables.append(_Table(start, end, body if body is not None and body < end and rows > 2 else None))

    def kind_at(self, pos: int) -> _Kind:
        return self.line_kinds[bisect.bisect_right(self.line_starts, pos) - 1]

    def table_at(self, pos: int) -> _Table | None:
        """The table whose lines hold ``pos`` (its trailing newline included)."""
        i = bisect.bisect_right(self._table_starts, pos) - 1
        if i >= 0 and self.tables[i].start <= pos < self.tables[i].end:
            return self.tables[i]
        return None

    def sections(self) -> list[_Section]:
        text = self.text
        starts = [(0, 0, "")] if not self.headings or self.headings[0][0] > 0 else []
        starts += self.headings
        out: list[_Section] = []
        stack: list[tuple[int, str]] = []
        for i, (start, level, title) in enumerate(starts):
            end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
            if level:
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, title))
                body_from = text.find("\n", start)
                has_body = body_from >= 0 and body_from < end and bool(text[body_from:end].strip())
            else:
                has_body = bool(text[start:end].strip())
            out.append(_Section(start, end, tuple(t for _, t in stack), has_body))
        return out


def _clean_title(raw: str) -> str:
    return " ".join(_EMPHASIS.sub("", raw.strip()).split())


def _is_prefix(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    return len(short) < len(long) and long[: len(short)] == short


def _common_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _runs(sections: list[_Section], target: int) -> list[_Run]:
    """Glue body-less headings to the section under them, then merge small sections under one heading."""
    glued: list[_Section] = []
    pending: _Section | None = None
    for s in sections:
        if pending is not None:
            if not pending.path or _is_prefix(pending.path, s.path):
                s = _Section(pending.start, s.end, s.path, s.has_body)
            else:
                glued.append(pending)
            pending = None
        if not s.has_body:
            pending = s
        else:
            glued.append(s)
    if pending is not None:
        glued.append(pending)

    runs: list[_Run] = []
    for s in glued:
        if runs:
            last = runs[-1]
            prefix = _common_prefix(last.path, s.path)
            paths = (*last.paths, s.path)
            if s.end - last.start <= target and prefix and all(len(p) <= len(prefix) + 1 for p in paths):
                runs[-1] = _Run(last.start, s.end, prefix, paths)
                continue
        runs.append(_Run(s.start, s.end, s.path, (s.path,)))
    return runs


def chunk_document(
    sha256: str,
    text: str,
    pages: Sequence[PageSpan],
    *,
    target: int = TARGET_CHARS,
    overlap: int = OVERLAP_CHARS,
) -> list[Chunk]:
    """The chunks of one document, in order; none for a text with nothing but whitespace.

    ``pages`` are the document's pages in order, each with the offset where its text starts (the first
    usually at 0; text before it counts as the first page's). Raises ValueError for impossible input:
    offsets out of order or out of the text, page numbers not increasing, no page for a non-empty text,
    an overlap over half the target."""
    if target < 2:
        raise ValueError(f"target must be at least 2 characters, got {target}")
    if not 0 <= overlap <= target // 2:
        raise ValueError(f"overlap must be between 0 and half the target ({target // 2}), got {overlap}")
    if not text.strip():
        return []
    if not pages:
        raise ValueError("a document with text needs at least one page")
    starts = [p.start for p in pages]
    if any(b < a for a, b in itertools.pairwise(starts)) or starts[0] < 0 or starts[-1] > len(text):
        raise ValueError(f"page starts must be non-decreasing offsets within the text: {starts}")
    if any(b.page <= a.page for a, b in itertools.pairwise(pages)):
        raise ValueError(f"page numbers must increase: {[p.page for p in pages]}")

    layout = _Layout(text)
    hard = HARD_MAX_FACTOR * target
    step = max(1, target - overlap)
    pieces: list[tuple[int, int, int, str, tuple[str, ...]]] = []  # (start, new_start, end, header, path)
    for run in _runs(layout.sections(), target):
        p = run.start
        prev_p = p
        while p < run.end:
            header = ""
            start = p
            if p > run.start:
                table = layout.table_at(p)
                if table is not None and table.body_start is not None and p > table.body_start:
                    header = text[table.start : table.body_start]
                elif overlap:
                    start = _overlap_start(layout, p, max(p - overlap, prev_p + (p - prev_p + 1) // 2))
            repeated = len(header) + (p - start)
            budget = max(1, target - repeated)
            remaining = run.end - p
            if remaining <= budget:
                end = run.end
            else:
                goal = min(budget, math.ceil(remaining / math.ceil(remaining / step)))
                end = _choose_end(layout, p, run.end, goal, budget, max(budget, hard - repeated))
            pieces.append((start, p, end, header, run.path))
            prev_p, p = p, end

    return [
        _make_chunk(sha256, i, text, pages, starts, start, new_start, end, header, path)
        for i, (start, new_start, end, header, path) in enumerate(pieces)
    ]


@dataclass(frozen=True, slots=True)
class Chunked:
    """One document's chunks, or why it has none (``unchunked``)."""

    chunks: list[Chunk]
    stopped: StoppedRecord | None = None


@dataclass(frozen=True, slots=True)
class ChunkJob:
    """One document's chunking (:func:`chunk_document`'s arguments), runnable in a worker process
    (readers/engine/isolation.py ``IsolatedJob``, assets/budgeted.py). Impossible input (ValueError), or
    any failure, is its ``unchunked`` row, not the shard's failure."""

    sha256: str
    shard: str
    version: str
    text: str
    pages: Sequence[PageSpan]
    target: int
    overlap: int
    kind: ContentKind
    activity = "chunking"

    @property
    def chars(self) -> int:
        return len(self.text)

    def run(self) -> Chunked:
        start = time.monotonic()
        try:
            return Chunked(
                chunk_document(self.sha256, self.text, self.pages, target=self.target, overlap=self.overlap)
            )
        except Exception as exc:  # one document's failure is its row, not the shard's
            detail = f"chunking failed after {time.monotonic() - start:.1f} s: {type(exc).__name__}: {exc}"
            return self.stopped(StopReason.ERROR, detail)

    def stopped(self, reason: str, detail: str) -> Chunked:
        return Chunked([], StoppedRecord(self.sha256, self.shard, self.version, reason, detail, self.chars))


def _between(breaks: list[int], lo: int, hi: int) -> tuple[int, int]:
    """Index range of the breaks in [lo, hi]."""
    return bisect.bisect_left(breaks, lo), bisect.bisect_right(breaks, hi)


def _choose_end(layout: _Layout, p: int, limit: int, goal: int, budget: int, hard_new: int) -> int:
    """Where the chunk whose new text starts at ``p`` ends: the best break near ``p + goal``."""
    lo = p + max(1, int(goal * MIN_FILL))
    hi = min(limit - 1, p + budget)
    aim = p + goal
    for level in _Level:
        breaks = layout.breaks[level]
        i, j = _between(breaks, lo, hi)
        if i < j:
            k = bisect.bisect_left(breaks, aim, i, j)
            near = [breaks[x] for x in (k - 1, k) if i <= x < j]
            return min(near, key=lambda q: (abs(q - aim), q))
    every = layout.breaks[_Level.WORD]
    # nothing in the window: the first break past it while the chunk stays under the hard maximum
    i, j = _between(every, hi + 1, min(limit - 1, p + hard_new))
    if i < j:
        return every[i]
    # a run without breaks longer than that (CJK without punctuation, a blob): cut inside the run
    cut = _cut_inside(layout, aim, limit)
    if cut is not None:
        return cut
    # else the last break before the window (a short chunk), or past the run that cannot be cut
    i = bisect.bisect_left(every, lo)
    if i > 0 and every[i - 1] > p:
        return every[i - 1]
    i = bisect.bisect_right(every, p)
    return every[i] if i < len(every) and every[i] < limit else limit


def _cut_inside(layout: _Layout, pos: int, limit: int) -> int | None:
    """A position inside a text line at or after ``pos`` that splits no character sequence; None when
    there is none (a table row or a heading is never cut)."""
    text = layout.text
    while pos < limit and (
        unicodedata.category(text[pos]) in ("Mn", "Mc", "Me")
        or text[pos] in "\u200d\ufe0e\ufe0f"
        or text[pos - 1] == "\u200d"
        or (text[pos] == "\n" and text[pos - 1] == "\r")
    ):
        pos += 1
    if pos >= limit or layout.kind_at(pos) not in (_Kind.TEXT, _Kind.CODE) or text[pos].isspace():
        return None
    return pos if text[pos:limit].strip() else None


def _overlap_start(layout: _Layout, p: int, window: int) -> int:
    """Where a chunk whose new text starts at ``p`` begins: ``window`` snapped forward to a sentence start
    in the window's first half, else to a word start; never inside a table; ``p`` for no overlap."""
    if window >= p:
        return p
    start = p
    sentences = layout.breaks[_Level.SENTENCE]
    i, j = _between(sentences, window, window + (p - window) // 2)
    if i < j:
        start = sentences[i]
    else:
        words = layout.breaks[_Level.WORD]
        i, j = _between(words, window, p - 1)
        if i < j:
            start = words[i]
        else:
            cut = _cut_inside(layout, window, p)
            start = cut if cut is not None else p
    table = layout.table_at(start)
    if table is not None:
        start = min(p, table.end)
    if not layout.text[start:p].strip():
        return p
    return start


def _make_chunk(
    sha256: str,
    ordinal: int,
    text: str,
    pages: Sequence[PageSpan],
    starts: list[int],
    start: int,
    new_start: int,
    end: int,
    header: str,
    path: tuple[str, ...],
) -> Chunk:
    body = text[start:end]
    lead = len(body) - len(body.lstrip())
    trail = len(body) - len(body.rstrip())
    s, e = (start + lead, end - trail) if body.strip() else (start, end)
    first = max(0, bisect.bisect_right(starts, s) - 1)
    last = max(0, bisect.bisect_right(starts, e - 1) - 1)
    chars: dict[int, int] = {}
    for i in range(first, last + 1):
        page_end = starts[i + 1] if i + 1 < len(starts) else len(text)
        page_start = 0 if i == 0 else starts[i]
        covered = min(e, page_end) - max(s, page_start)
        if covered > 0:
            chars[i] = covered
    touched = [pages[i] for i in sorted(chars)]
    votes: dict[str, int] = {}
    for i in sorted(chars):
        language = pages[i].language
        if language:
            votes[language] = votes.get(language, 0) + chars[i]
    language = max(votes, key=lambda lang: votes[lang]) if votes else None  # ties: the earlier page's
    trusts = [pg.trust for pg in touched if pg.trust is not None]
    chunk_text = header + body
    offsets = []
    labels: list[str | None] = []
    i = first
    for number in range(pages[first].page, pages[last].page + 1):
        while i < last and pages[i].page < number:
            i += 1
        offsets.append(0 if i == first else len(header) + min(max(starts[i] - start, 0), end - start))
        labels.append(pages[i].label if pages[i].page == number else None)
    digest = hashlib.sha256(f"{sha256}\x00{start}\x00{end}\x00{chunk_text}".encode()).hexdigest()
    return Chunk(
        chunk_id=digest[:32],
        ordinal=ordinal,
        start=start,
        end=end,
        overlap=len(header) + (new_start - start),
        heading_path=path,
        page_start=pages[first].page,
        page_end=pages[last].page,
        page_offsets=tuple(offsets),
        language=language,
        sources=tuple(sorted({pg.source for pg in touched})),
        trust=min(trusts) if trusts else None,
        text=chunk_text,
        page_labels=tuple(labels),
    )


def reassemble(chunks: Sequence[Chunk]) -> str:
    """The document text again: the chunks' new text, in order (the acceptance's join invariant)."""
    return "".join(c.new_text for c in chunks)
