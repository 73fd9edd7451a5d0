"""What the libraries say while they read a document: kept with the document, never printed.

A damaged PDF makes the libraries talk. MuPDF reports its errors and warnings through PyMuPDF, which
prints the errors on stdout ("MuPDF error: format error: too many kids in page tree") and keeps both in a
list of its own (``pymupdf.TOOLS.mupdf_warnings()``); pdfminer, under pdfplumber, logs through Python's
logging, whose last-resort handler prints a warning on stderr ("Cannot set stroke color because 2
components are specified ..."); other libraries raise Python warnings. On a terminal these land between
the progress bars, and they say something about one document: :func:`heard` takes all three while a
block runs, so that the caller keeps them with the document (``derivations.diagnostics``), and turns
MuPDF's printing off for the process. What a C library writes straight to file descriptor 2 is taken by
the reader workers (readers/engine/isolation.py), which read one document at a time.

:func:`summary` writes what was heard as the column holds it: one line per distinct message, in the order
first heard, with how many times it came when more than once, at most :data:`MAX_LINES` lines of at most
:data:`MAX_LINE_CHARS` characters.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator

from readers.core.base import without_surrogates

#: At most this many distinct messages are kept per document, and each to this many characters (before its
#: count): a fuzzed PDF can make MuPDF complain about each of thousands of objects, and the row must stay
#: small. On a sample of 97 files of the robustness set, 27 of the 104 documents read said something, the
#: most talkative 7 distinct things.
MAX_LINES = 50
MAX_LINE_CHARS = 300
#: The level from which a logged record is a diagnostic: pdfminer logs each operator at DEBUG.
LOG_LEVEL = logging.WARNING

# MuPDF says a message once and then how many times it came in all: "... repeated 4 times...".
_REPEATED = re.compile(r"\.\.\. repeated (\d+) times\s*\.\.\.")
# A line that says how many times it came, as summary() writes it.
_COUNTED = re.compile(r"(.*) \(x(\d+)\)")


class _Held(logging.Handler):
    """A logging handler that keeps each record as a line."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(LOG_LEVEL)
        self.lines = lines

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):  # a record whose arguments do not format is not worth a failure
            self.lines.append(f"{record.name}: {record.getMessage()}")


def quiet_mupdf() -> None:
    """Stop PyMuPDF from printing MuPDF's errors (it keeps them: :func:`heard` takes them from there),
    if PyMuPDF is loaded; the warnings are not printed by default."""
    pymupdf = sys.modules.get("pymupdf")
    if pymupdf is not None:
        pymupdf.TOOLS.mupdf_display_errors(False)
        pymupdf.TOOLS.mupdf_display_warnings(False)


def mupdf_said() -> list[str]:
    """What MuPDF said since the last time it was asked (its list emptied), and its printing turned off.
    Safe in any thread, where :func:`heard` is not: a stage whose threads render pages empties the list
    after each page with it."""
    pymupdf = sys.modules.get("pymupdf")
    if pymupdf is None:
        return []
    quiet_mupdf()
    lines: list[str] = []
    for line in pymupdf.TOOLS.mupdf_warnings(reset=True).splitlines():
        repeated = _REPEATED.fullmatch(line.strip())
        if repeated and lines:
            lines[-1] = f"{lines[-1]} (x{repeated.group(1)})"
        elif line.strip():
            lines.append(f"mupdf: {line}")
    return lines


@contextlib.contextmanager
def heard() -> Iterator[list[str]]:
    """Take what the libraries say while the block runs: the list it gives is filled with one line per
    message (``mupdf: ...``, ``<logger>: ...``, ``<Warning class>: ...``) when the block ends.

    MuPDF's list is emptied first (what was said before belongs to nobody), logging's root handlers
    stand aside for the block, and Python warnings are recorded, each every time it is raised. Logging's
    handlers and the warnings' filters belong to the process: one thread at a time may use it (the reads
    and the verdicts run a document at a time in their process).
    """
    mupdf_said()
    lines: list[str] = []
    logged: list[str] = []
    root = logging.getLogger()
    handlers = root.handlers[:]
    held = _Held(logged)
    root.handlers[:] = [held]
    try:
        with warnings.catch_warnings(record=True) as raised:
            warnings.simplefilter("always")
            yield lines
    finally:
        root.handlers[:] = handlers
        lines.extend(mupdf_said())
        lines.extend(logged)
        lines.extend(f"{w.category.__name__}: {w.message}" for w in raised)


def summary(lines: Iterable[str]) -> str | None:
    """The lines heard as the column holds them (see the module's doc); None when nothing was heard. A line
    that says its count (``... (x3)``) counts so many times."""
    counts: Counter[str] = Counter()
    for line in lines:
        # A library's message may quote the document's bytes as lone surrogates: made U+FFFD, as text is.
        text, times = " ".join(without_surrogates(line).split()), 1
        counted = _COUNTED.fullmatch(text)
        if counted:
            text, times = counted.group(1), int(counted.group(2))
        if text:
            counts[text[:MAX_LINE_CHARS]] += times
    if not counts:
        return None
    out = [line if n == 1 else f"{line} (x{n})" for line, n in list(counts.items())[:MAX_LINES]]
    if len(counts) > MAX_LINES:
        out.append(f"... and {len(counts) - MAX_LINES} more distinct messages")
    return "\n".join(out)
