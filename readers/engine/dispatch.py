"""Extract one document: try the kind's readers in order and record every attempt.

Semantics (docs/design.md §3): a reader that produced nothing, for whatever reason (an exception, empty
text, a "needs OCR" claim), falls through to the next, except a reader that found the document over a
limit: the bound is the document's, so the chain ends there. The document is ``derived`` when some reader
produced text, ``recovered_by_fallback`` when that reader was not the first; ``underivable`` when a reader
read the document and found nothing; ``error`` when every reader failed on the document itself (corrupt,
encrypted, over a limit); ``unsupported`` when no reader exists for its kind; ``skipped`` when it is too
large to read, or its file is gone, unreadable or no longer the bytes the walk hashed
(readers/core/snapshot.py).
Nothing here raises for a bad document: one document can never fail a shard.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from readers.core.base import Reader, produced_nothing, writable
from readers.core.diagnostics import heard, summary
from readers.core.errors import FileUnreadable, LimitExceeded, NothingProduced, ReaderError
from readers.core.model import FILE_PROBLEMS, ContentKind, DocumentStatus, ReadLimits, ReadResult
from readers.core.reader_chain import chain_signature, readers_for, unsupported_reason
from readers.core.snapshot import REVISION as SNAPSHOT_REVISION
from readers.core.snapshot import STEP, walked_snapshot

EMPTY_TEXT = "empty_text"
# The reader read the document and says its text can only come from OCR (``ReadResult.needs_ocr``: an
# image): not a document that turned out empty, so the reason tells the two apart.
NEEDS_OCR = "needs_ocr"
#: How a part the reader could not read (``ReadResult.unread``) begins among the attempt's diagnostics.
UNREAD = "unread: "


@dataclass(frozen=True, slots=True)
class Attempt:
    """One reader tried on one document."""

    ordinal: int
    reader: str
    reader_version: str
    tool_version: str
    produced: bool
    failed: bool
    reason: str | None
    detail: str
    duration_ms: float
    # What the libraries said while the reader read (readers/core/diagnostics.py): one line a distinct
    # message, with its count.
    diagnostics: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Extraction:
    """Everything the extract stage learned about one document."""

    kind: ContentKind
    status: DocumentStatus
    reason: str | None
    reader: str | None
    reader_version: str | None
    chain: str
    result: ReadResult | None
    attempts: tuple[Attempt, ...]
    duration_ms: float
    # When nothing was produced: the first reader that read the document anyway (its pages are empty
    # but their facts, such as a page-covering image, tell the verdicts which pages need OCR).
    empty_result: ReadResult | None = None
    empty_reader: str | None = None
    empty_reader_version: str | None = None
    # What was written on the reading process's stdout or stderr while it read (the reader workers take
    # it: readers/engine/isolation.py), one line each: a C library that writes there itself.
    printed: tuple[str, ...] = ()

    @property
    def recovered_by_fallback(self) -> bool:
        return self.status is DocumentStatus.DERIVED and self.attempts[-1].ordinal > 1

    @property
    def diagnostics(self) -> str | None:
        """What the libraries said while the document was read, each attempt's lines under its reader's
        name (``derivations.diagnostics``); None when they said nothing."""
        return summary(
            [f"{a.reader}: {line}" for a in self.attempts for line in a.diagnostics]
            + [f"printed: {line}" for line in self.printed]
        )


@dataclass(frozen=True, slots=True)
class AttemptStarted:
    """A reader is about to read the document: what a worker reports before each attempt, so that a read
    killed over its budget (readers/engine/isolation.py) can name the reader that was running."""

    ordinal: int
    reader: str
    reader_version: str
    tool_version: str


def extract_document(
    path: Path,
    kind: ContentKind,
    *,
    size: int,
    limits: ReadLimits,
    max_bytes: int,
    sha256: str | None = None,
    scratch: Path | None = None,
    on_attempt: Callable[[AttemptStarted | Attempt], None] | None = None,
) -> Extraction:
    """Run the kind's reader chain on ``path``; never raises for a bad document. ``on_attempt`` hears of
    each attempt as it starts and as it ends.

    With ``sha256`` (the walk's hash of the document) the readers read a private snapshot of the file
    verified to hold exactly those ``size`` bytes (readers/core/snapshot.py, made under ``scratch``); a file
    that
    changed, went or is no longer a regular file since the walk is ``skipped`` with the reason, and nothing
    of it is read. Without it (a file named on the command line) the readers read ``path`` itself.
    """
    chain = readers_for(kind)
    signature = chain_signature(kind)
    started = time.perf_counter()
    if not chain:
        return _outcome(kind, DocumentStatus.UNSUPPORTED, unsupported_reason(kind), signature, started)
    if size > max_bytes:
        return _outcome(kind, DocumentStatus.SKIPPED, "too_large", signature, started)
    if sha256 is None:
        return _read_chain(path, path, kind, chain, signature, limits, started, on_attempt)
    try:
        with walked_snapshot(path, sha256=sha256, size=size, scratch=scratch) as copy:
            # The chain itself never raises (each reader's exceptions are its attempt's outcome).
            return _read_chain(copy, path, kind, chain, signature, limits, started, on_attempt)
    except FileUnreadable as exc:
        # No reader ran: the failed verification is the one attempt, so `underivables` says what differed.
        spent = _ms(started)
        attempt = Attempt(1, STEP, str(SNAPSHOT_REVISION), "", False, True, exc.reason, str(exc), spent)
        return Extraction(
            kind, DocumentStatus.SKIPPED, exc.reason, None, None, signature, None, (attempt,), _ms(started)
        )


def _read_chain(
    path: Path,
    shown: Path,
    kind: ContentKind,
    chain: Sequence[Reader],
    signature: str,
    limits: ReadLimits,
    started: float,
    on_attempt: Callable[[AttemptStarted | Attempt], None] | None,
) -> Extraction:
    """The readers of ``chain`` on ``path`` in turn (a snapshot of ``shown``, the walked path, whose name
    the attempts' details give instead)."""
    attempts: list[Attempt] = []
    empty: tuple[Reader, ReadResult] | None = None
    for ordinal, reader in enumerate(chain, start=1):
        if on_attempt is not None:
            on_attempt(AttemptStarted(ordinal, reader.name, reader.version, reader.tool_version))
        attempt, result = _try(reader, ordinal, path, limits)
        if path != shown and str(path) in attempt.detail:
            attempt = dataclasses.replace(attempt, detail=attempt.detail.replace(str(path), str(shown)))
        attempts.append(attempt)
        if on_attempt is not None:
            on_attempt(attempt)
        if attempt.reason == LimitExceeded.reason:
            # The bound is the document's (pages, bytes, members), not one reader's: the next reader would
            # only count again to refuse it (pdfplumber spends a second on 10,000 pages doing so).
            break
        if not attempt.produced and result is not None and empty is None:
            empty = (reader, result)
        if attempt.produced:
            return Extraction(
                kind=kind,
                status=DocumentStatus.DERIVED,
                reason=None,
                reader=reader.name,
                reader_version=reader.version,
                chain=signature,
                result=result,
                attempts=tuple(attempts),
                duration_ms=_ms(started),
            )

    # Nothing produced. If any reader got through the document, it is readable and empty: underivable.
    # Otherwise every reader failed on it: error, with the first reader's reason (the most specific).
    if all(a.failed for a in attempts):
        reason = attempts[0].reason
        # The file itself could not be opened (gone or unreadable since the walk): skipped, not an error of
        # the document.
        status = DocumentStatus.SKIPPED if reason in FILE_PROBLEMS else DocumentStatus.ERROR
    else:
        status = DocumentStatus.UNDERIVABLE
        reason = next(a.reason for a in attempts if not a.failed)
    return Extraction(
        kind,
        status,
        reason,
        None,
        None,
        signature,
        None,
        tuple(attempts),
        _ms(started),
        empty_result=empty[1] if empty else None,
        empty_reader=empty[0].name if empty else None,
        empty_reader_version=empty[0].version if empty else None,
    )


def _try(reader: Reader, ordinal: int, path: Path, limits: ReadLimits) -> tuple[Attempt, ReadResult | None]:
    started = time.perf_counter()
    result: ReadResult | None = None
    failed, reason, detail = False, None, ""
    with heard() as said:
        try:
            result = writable(reader.read(path, limits))
        except ReaderError as exc:
            failed, reason, detail = True, exc.reason, str(exc)
        except NothingProduced as exc:
            reason, detail = exc.reason, str(exc)
        except Exception as exc:  # a reader bug or an untranslated library error must not fail the shard
            failed, reason, detail = True, f"reader_crashed:{type(exc).__name__}", str(exc)[:500]
    if result is not None:
        said.extend(f"{UNREAD}{line}" for line in result.unread)
    produced = reason is None and not produced_nothing(result)
    if reason is None and not produced and result is not None and result.needs_ocr:
        reason, detail = NEEDS_OCR, "the reader read the document: it has no text layer, its pages need OCR"
    elif reason is None and not produced:
        reason, detail = EMPTY_TEXT, "the reader ran and its text is empty after stripping whitespace"
    attempt = Attempt(
        ordinal=ordinal,
        reader=reader.name,
        reader_version=reader.version,
        tool_version=reader.tool_version,
        produced=produced,
        failed=failed,
        reason=None if produced else reason,
        detail=detail,
        duration_ms=_ms(started),
        diagnostics=tuple((summary(said) or "").splitlines()),
    )
    return attempt, result


def _outcome(
    kind: ContentKind, status: DocumentStatus, reason: str, signature: str, started: float
) -> Extraction:
    return Extraction(kind, status, reason, None, None, signature, None, (), _ms(started))


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000.0, 3)
