"""The reader interface and the single produced-nothing predicate."""

from __future__ import annotations

import functools
import gc
import os
import re
import stat
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from readers.core.errors import CorruptDocument, FileUnreadable, LimitExceeded
from readers.core.model import ContentKind, ReadLimits, ReadResult
from readers.core.snapshot import open_regular


class Reader(ABC):
    """One way of turning a document of some kinds into pages of text.

    ``version`` is the reader's own version: bump ``revision`` whenever the reader's code would write
    something different, and include the library's version, so that a document whose readers did not
    change is carried over to a new extractor version instead of being read again (docs/design.md §2).
    """

    name: ClassVar[str]
    revision: ClassVar[int]
    kinds: ClassVar[frozenset[ContentKind]]

    @property
    def tool_version(self) -> str:
        """Version of the third-party tool underneath (the library), for Underivables and lineage."""
        return ""

    @property
    def version(self) -> str:
        tool = self.tool_version
        return f"{self.revision}+{tool}" if tool else str(self.revision)

    @abstractmethod
    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        """Read ``path``. Raise :class:`readers.core.errors.ReaderError` for a document that cannot be read,
        :class:`readers.core.errors.NothingProduced` when the reader ran and has nothing to give."""


def produced_nothing(result: ReadResult | None) -> bool:
    """The one predicate for "this attempt produced nothing": text empty after stripping whitespace.

    Every reader pair uses it; a reader that produced nothing falls through to the next.
    """
    return result is None or not any(page.text.strip() for page in result.pages)


_SURROGATE = re.compile("[\ud800-\udfff]")


def writable(result: ReadResult) -> ReadResult:
    """``result`` with every lone surrogate in its pages' text, tables and artifacts made U+FFFD.

    A library may hand over half of a surrogate pair for a character it could not map (MuPDF's trace
    does, for the Gothic letters of a PDF of various scripts); UTF-8, which every table is
    written in, cannot hold one, and one such character would fail the shard's write. The dispatch
    passes every reader's result through this; a page without one (one regular-expression search) is
    kept as it is.
    """
    pages = list(result.pages)
    changed = False
    for index, page in enumerate(pages):
        if _SURROGATE.search(page.text) is None:
            continue
        changed = True
        tables = tuple(
            replace(
                table,
                cells=tuple(tuple(without_surrogates(cell) for cell in row) for row in table.cells),
                markdown=without_surrogates(table.markdown),
            )
            for table in page.tables
        )
        artifacts = tuple(without_surrogates(line) for line in page.artifacts)
        pages[index] = replace(page, text=without_surrogates(page.text), tables=tables, artifacts=artifacts)
    return replace(result, pages=tuple(pages)) if changed else result


def without_surrogates(text: str) -> str:
    """``text`` with every lone surrogate made U+FFFD: what UTF-8, and so every table, can hold."""
    return _SURROGATE.sub("\ufffd", text)


def require_readable_file(path: Path, *, allow_empty: bool = False) -> os.stat_result:
    """Check ``path`` before a library opens it, so every reader reports the same reasons: a file that is
    gone or not regular is ``unreadable``; a 0-byte file of a binary format is ``empty_file``."""
    try:
        info = path.stat()
    except OSError as exc:
        raise FileUnreadable(f"{path}: cannot be read: {exc}") from exc
    if not stat.S_ISREG(info.st_mode):
        raise FileUnreadable(f"{path}: not a regular file")
    if info.st_size == 0 and not allow_empty:
        raise CorruptDocument(f"{path.name}: the file is empty (0 bytes)", reason="empty_file")
    return info


#: The note a paged reader records for a page it could not read (the page is kept, empty).
PAGE_FAILED = "page_failed:"


def refuse_unreadable_pages(path: Path, page_count: int, notes: Sequence[str], first_failure: str) -> None:
    """A document none of whose pages could be read (a cycle in the page tree, pages that are not
    dictionaries) is corrupt: raise, so that it ends ``error`` rather than an empty read (``underivable``).
    A document with some pages read keeps them, and its failed pages stay noted."""
    failed = sum(1 for n in notes if n.startswith(PAGE_FAILED))
    if page_count and failed == page_count:
        raise CorruptDocument(f"{path.name}: none of its {page_count} pages could be read: {first_failure}")


def read_bounded(path: Path, limit: int, *, what: str = "bytes") -> bytes:
    """The whole file, read one byte past ``limit`` instead of trusting ``stat``: a file over the limit is
    never read whole, and one that grows while it is read is still caught (``LimitExceeded``). The file is
    opened without blocking and checked to be a regular file on the opened descriptor, so a pipe swapped
    in after a check of the path cannot block the read (``FileUnreadable``)."""
    fd = open_regular(path)
    try:
        with open(fd, "rb", closefd=True) as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise FileUnreadable(f"cannot read {path}: {exc}") from exc
    if len(data) > limit:
        raise LimitExceeded(f"{path.name} is over the limit of {limit} {what}")
    return data


@functools.cache  # once per process
def freeze_long_lived() -> None:
    """Take what this process holds now out of the cyclic collector's walks (``gc.freeze``), once.

    What a process holds before its first document, the modules it imported (with Dagster, DuckDB and
    NumPy loaded, ~200,000 functions, classes and dicts), lives as long as the process, and every full
    collection walked all of it again: 73-87 ms, about once per 250 born-digital pages read and judged
    (docs/decisions.md). A full collection first frees what is garbage already, so nothing dead is kept;
    what is frozen is still freed by its reference count if it is ever dropped. The stages call it
    before their first document; the read workers' fork server before it forks one
    (``readers/engine/frozen.py``), so a worker finds it done and shares those pages untouched.
    """
    gc.collect()
    gc.freeze()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while one document is read or measured.

    Reading a page allocates hundreds of small objects (spans, lines, dicts) that the collector's young
    generation keeps scanning although they hold no cycles; pausing it per document made the PDF reader
    1.4x faster on the corpus's born-digital pages (benchmarks/bench_extract.py). The collector runs again
    as soon as the document is done, so any cycles a document made are freed with it.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
