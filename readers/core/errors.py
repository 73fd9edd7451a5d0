"""The project's small error hierarchy.

Third-party exceptions are translated into these where they enter (``raise ... from``), so that the
dispatch can record a stable reason code instead of a library's message.
"""

from __future__ import annotations


class AssayError(Exception):
    """Root of every error assay raises on purpose."""


class ConfigError(AssayError):
    """A setting is missing or wrong; the message says what to change."""


class ReaderError(AssayError):
    """A reader could not read the document: the document's status becomes ``error``.

    ``reason`` is a short stable code (``encrypted``, ``corrupt``, ``empty_file`` ...) stored in the
    tables; the message is for people.
    """

    reason: str = "reader_error"

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason


class EncryptedDocument(ReaderError):
    """The document needs a password that assay does not have."""

    reason = "encrypted"


class CorruptDocument(ReaderError):
    """The bytes are not a valid document of the kind they claim to be."""

    reason = "corrupt"


class FileUnreadable(ReaderError):
    """The file could not be opened or read at all (gone, no permission, not a regular file): the document
    is ``skipped``, since nothing about its content is known."""

    reason = "unreadable"


class FileVanished(FileUnreadable):
    """The file is gone since the walk: the document is ``skipped``."""

    reason = "vanished"


class ChangedSinceWalk(FileUnreadable):
    """The file no longer holds the bytes the walk hashed (another size, another sha256): the document is
    ``skipped`` and nothing read from it is kept under the walked hash."""

    reason = "changed_since_walk"


class LimitExceeded(ReaderError):
    """The document is over a configured bound (pages, bytes, members)."""

    reason = "over_limit"


class NothingProduced(AssayError):
    """A reader ran and says it has nothing to give (for example: no text layer, needs OCR).

    Not an error of the document: the dispatch records an Underivable with ``reason`` and falls through
    to the next reader.
    """

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason
