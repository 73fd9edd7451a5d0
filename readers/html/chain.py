"""The HTML readers' common step and the chain they form.

docs/design.md §3 reads a page with three readers, tried in order by ``readers/core/reader_chain.py``:
the marked region (:mod:`readers.html.region`), trafilatura's main-content extraction
(:mod:`readers.html.main`), the
whole page (:mod:`readers.html.page`). They differ only in which part of the page they keep; the encoding
(:mod:`readers.html.charset`), the tree and its title (:mod:`readers.html.tree`), what is dropped
(:mod:`readers.html.cleaning`) and the shape of the text (:mod:`readers.html.markdown`) are shared, so
that the three agree, and so that an HTML e-mail body goes through the same chain
(:func:`read_html_bytes`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import charset_normalizer
import lxml
import lxml.html
from lxml import etree

from readers.core.base import Reader, produced_nothing, read_bounded, require_readable_file
from readers.core.errors import NothingProduced, ReaderError
from readers.core.markup import markup_tables
from readers.core.model import ContentKind, PageText, ReadLimits, ReadResult
from readers.core.reader_chain import readers_for
from readers.html.charset import HtmlDecoded, decode_html
from readers.html.tree import HtmlDocument, check_size, parse_html, with_title


def _tool_version() -> str:
    """lxml and libxml2 parse; charset-normalizer decides undeclared encodings."""
    libxml2 = ".".join(str(n) for n in etree.LIBXML_VERSION)
    return f"lxml-{lxml.__version__}/libxml2-{libxml2}/charset-normalizer-{charset_normalizer.__version__}"


class HtmlReader(Reader):
    """One step of the HTML chain: reads a page file, or bytes (:meth:`read_bytes`), or an already parsed
    page (:meth:`extract`, so that :func:`read_html_bytes` parses once for the whole chain).

    A step that finds nothing to keep returns a result with empty text; the dispatch's one predicate
    (:func:`readers.core.base.produced_nothing`) then falls through to the next step.
    """

    kinds: ClassVar[frozenset[ContentKind]] = frozenset({ContentKind.HTML})

    @property
    def tool_version(self) -> str:
        return _tool_version()

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        require_readable_file(Path(path), allow_empty=True)
        data = read_bounded(Path(path), limits.max_text_bytes, what="bytes of text")
        return self.read_bytes(data, limits=limits)

    def read_bytes(
        self, data: bytes, *, declared_encoding: str | None = None, limits: ReadLimits
    ) -> ReadResult:
        check_size(data, limits)
        document = parse_html(data, declared_encoding=declared_encoding)
        if document is None:
            return empty_result(decode_html(data, declared_encoding=declared_encoding), ("html_empty",))
        return self.extract(document, limits)

    def extract(self, document: HtmlDocument, limits: ReadLimits) -> ReadResult:
        """The step's text for a parsed page, under its title; ``document.root`` is left as it was."""
        content = self.content(document, limits)
        body = with_title(content.text, document.title) if content.text.strip() else ""
        notes = list(document.decoded.notes) + list(content.notes)
        if body and document.title_source:
            notes.append(f"title:{document.title_source}")
        result = ReadResult(
            pages=(PageText(page=1, text=body),),
            page_count=1,
            encoding=document.decoded.encoding,
            encoding_source=document.decoded.source,
            notes=tuple(notes),
        )
        return markup_tables(result, "markup=html")

    @abstractmethod
    def content(self, document: HtmlDocument, limits: ReadLimits) -> Content:
        """The step's text for the page, without the title (empty when the step finds nothing); works on
        a copy of ``document.root``."""


@dataclass(frozen=True, slots=True)
class Content:
    """What one step kept of a page: its text (no title yet) and notes on how it chose it."""

    text: str
    notes: tuple[str, ...] = ()


def empty_result(decoded: HtmlDecoded, notes: tuple[str, ...] = ()) -> ReadResult:
    """One empty page: the reader read the document and it holds no text."""
    return ReadResult(
        pages=(PageText(page=1, text=""),),
        page_count=1,
        encoding=decoded.encoding,
        encoding_source=decoded.source,
        notes=decoded.notes + notes,
    )


def read_html_bytes(
    data: bytes,
    *,
    declared_encoding: str | None = None,
    limits: ReadLimits,
    readers: Sequence[Reader] | None = None,
) -> ReadResult:
    """Read an HTML page held in memory (an HTML e-mail body) with the HTML chain; the first step that
    produced text wins, and a note ``html_reader:<name>`` says which (``html_fallback`` too when it was
    not the first). ``declared_encoding`` is the transport's charset (the MIME part's).

    ``readers`` defaults to ``readers/core/reader_chain.py``'s HTML row, the one place the chain's order
    is written, so that a file and an e-mail body are read alike; every step must be an :class:`HtmlReader`.
    Raises
    :class:`NothingProduced` (``no_reader:html``) when the row is empty, the :class:`ReaderError` of the
    page itself (over a limit, unparseable); a step that fails on its own is noted and skipped, as the
    dispatch would. When no step produced text, the result's text is empty and its notes say why.
    """
    chain = tuple(readers) if readers is not None else _table_chain()
    if not chain:
        raise NothingProduced(
            "readers/core/reader_chain.py has no HTML reader", reason=f"no_reader:{ContentKind.HTML}"
        )
    steps = [r for r in chain if isinstance(r, HtmlReader)]
    if len(steps) != len(chain):
        raise TypeError("every step of the HTML chain must be an HtmlReader, to read bytes")
    check_size(data, limits)
    document = parse_html(data, declared_encoding=declared_encoding)
    if document is None:
        return empty_result(decode_html(data, declared_encoding=declared_encoding), ("html_empty",))
    skipped: list[str] = []
    for ordinal, step in enumerate(steps, start=1):
        try:
            result = step.extract(document, limits)
        except ReaderError as exc:
            skipped.append(f"html_skipped:{step.name}:{exc.reason}")
            continue
        except Exception as exc:  # as in readers/engine/dispatch.py: one step's bug must not lose the page
            skipped.append(f"html_skipped:{step.name}:reader_crashed:{type(exc).__name__}")
            continue
        if produced_nothing(result):
            skipped.append(f"html_skipped:{step.name}:empty_text")
            continue
        chosen = (f"html_reader:{step.name}",) + (("html_fallback",) if ordinal > 1 else ())
        return ReadResult(
            pages=result.pages,
            page_count=result.page_count,
            encoding=result.encoding,
            encoding_source=result.encoding_source,
            notes=result.notes + tuple(skipped) + chosen,
        )
    return empty_result(document.decoded, tuple(skipped))


def html_chain_version() -> str:
    """The HTML chain's readers and versions (``html=html-region@1+...>trafilatura@1+...``).

    Part of the version of a reader that reads HTML it holds by this chain (an e-mail's HTML body, a Word
    document's embedded HTML): when the chain changes, such a document would read differently, so it must
    not be carried over unread (docs/design.md §2).
    """
    return "html=" + ">".join(f"{r.name}@{r.version}" for r in readers_for(ContentKind.HTML))


def _table_chain() -> tuple[Reader, ...]:
    return readers_for(ContentKind.HTML)
