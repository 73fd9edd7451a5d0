"""The reader interface and the single produced-nothing predicate."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import ClassVar

from readers.model import ContentKind, ReadLimits, ReadResult


class Reader(ABC):
    """One way of turning a document of some kinds into pages of text.

    ``version`` is the reader's own version: bump ``revision`` whenever the reader's code would write
    something different, and include the library's version, so that a document whose readers did not
    change is carried over to a new extractor version instead of being read again (DESIGN §2).
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
        """Read ``path``. Raise :class:`readers.errors.ReaderError` for a document that cannot be read,
        :class:`readers.errors.NothingProduced` when the reader ran and has nothing to give."""


def produced_nothing(result: ReadResult | None) -> bool:
    """The one predicate for "this attempt produced nothing": text empty after stripping whitespace.

    Every reader pair uses it; a reader that produced nothing falls through to the next.
    """
    return result is None or not any(page.text.strip() for page in result.pages)
