"""The plain-text reader: text, CSV, TSV, JSON and XML files as one page of decoded text.

The text is handed on exactly as decoded (line endings, trailing whitespace and markup included): the
signals are computed on raw text, and normalising is the sanitize stage's job. The encoding and the
evidence that decided it are recorded with the result, so that mojibake can be traced to its cause.
Markdown is deliberately not among the kinds (docs/design.md §3: it stays ``unsupported`` until a reader
keeps its structure).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import charset_normalizer

from readers.core.base import Reader, read_bounded, require_readable_file
from readers.core.model import ContentKind, PageText, ReadLimits, ReadResult
from readers.text.encoding import decode_text

#: A note on the result when no evidence decided the encoding and latin-1 was assumed.
ENCODING_FALLBACK_NOTE = "encoding_fallback_latin1"


class PlainTextReader(Reader):
    """Reads a whole text file, decodes it with :func:`readers.text.encoding.decode_text`, returns page 1."""

    name: ClassVar[str] = "text"
    revision: ClassVar[int] = 1
    kinds: ClassVar[frozenset[ContentKind]] = frozenset(
        {ContentKind.TEXT, ContentKind.CSV, ContentKind.TSV, ContentKind.JSON, ContentKind.XML}
    )

    @property
    def tool_version(self) -> str:
        """charset-normalizer decides the encoding whenever a mark, NULs and UTF-8 do not."""
        return charset_normalizer.__version__

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        """One page with the decoded text; an empty file gives an empty page (the dispatch's
        ``produced_nothing`` judges it, not the reader).

        Reads one byte past the limit instead of trusting ``stat``: a file that grows while it is read
        is still caught, and a file over the limit is never read whole. A path that is not a regular file
        (a pipe would block the read) is ``unreadable``, checked on the path and again on the opened file.
        """
        require_readable_file(path, allow_empty=True)
        data = read_bounded(path, limits.max_text_bytes, what="bytes of text")
        decoded = decode_text(data)
        notes = (ENCODING_FALLBACK_NOTE,) if decoded.source == "fallback" else ()
        return ReadResult(
            pages=(PageText(page=1, text=decoded.text),),
            page_count=1,
            encoding=decoded.encoding,
            encoding_source=decoded.source,
            notes=notes,
        )
