"""Faults of the machine or the home, told in one line with what to do, and exit code 3.

A full disk, a home that is a file, a read-only or unwritable home reach assay as many different
exceptions: an ``OSError`` with its errno from Python's own file calls, pyarrow's ``OSError`` from a Parquet
writer, DuckDB's ``IOException``, SQLAlchemy's ``OperationalError`` ("database or disk is full",
"attempt to write a readonly database", "disk I/O error") from Dagster's SQLite instance, or only the text
of a failed Dagster run's error. :func:`fault_of` and :func:`fault_in_message` recognise each of them and
give one :class:`EnvironmentFault` whose message says what happened and what to do; the command line
prints it and exits with ``Exit.ENVIRONMENT`` (``--verbose`` adds the traceback).
"""

from __future__ import annotations

import errno
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

from orchestration.exits import Exit
from readers.core.errors import AssayError


class EnvironmentFault(AssayError):
    """The machine or the home is in the way; ``str()`` is the one line to print."""

    exit_code = Exit.ENVIRONMENT

    def __init__(self, message: str, *, code: int) -> None:
        super().__init__(message)
        self.code = code  # the errno it comes down to


_HOME = "give a --home (or ASSAY_HOME)"

#: errno → what happened, what to do. A rerun goes on where a stopped run left off (README, State).
_FAULTS: dict[int, tuple[str, str]] = {
    errno.ENOSPC: (
        "the disk is full{at}",
        "free some space, or " + _HOME + " on a disk with room, and rerun: it goes on where this run stopped",
    ),
    errno.EDQUOT: (
        "the disk quota is used up{at}",
        "free some space, or " + _HOME + " on a disk with room, and rerun: it goes on where this run stopped",
    ),
    errno.EROFS: ("the file system is read-only{at}", _HOME + " on a writable disk"),
    errno.EACCES: ("no permission to write{at}", _HOME + " you can write to, or change its permissions"),
    errno.ENOTDIR: ("a file stands where assay needs a directory{at}", _HOME + " that is a directory"),
    errno.EIO: ("the disk reported an I/O error{at}", "check the disk (it may be full or failing) and rerun"),
}
_FAULTS[errno.EPERM] = _FAULTS[errno.EACCES]
_FAULTS[errno.EEXIST] = _FAULTS[errno.ENOTDIR]

# The same faults as words, for exceptions that carry no errno (SQLite through SQLAlchemy, DuckDB, pyarrow,
# the text of a failed Dagster run). Lower case; the first match wins.
_TEXTS: tuple[tuple[str, int], ...] = (
    ("no space left on device", errno.ENOSPC),
    ("database or disk is full", errno.ENOSPC),
    ("[errno 28]", errno.ENOSPC),
    ("disk quota exceeded", errno.EDQUOT),
    ("read-only file system", errno.EROFS),
    ("readonly database", errno.EROFS),
    ("[errno 30]", errno.EROFS),
    ("permission denied", errno.EACCES),
    ("[errno 13]", errno.EACCES),
    ("not a directory", errno.ENOTDIR),
    ("[errno 20]", errno.ENOTDIR),
    ("disk i/o error", errno.EIO),
)
# Errors read by their text, by (top-level module, class name), so that none of the libraries is imported
# here: SQLite's through SQLAlchemy (Dagster's instance) and on its own, DuckDB's I/O error.
_DISK_ERRORS = frozenset(
    {
        ("sqlalchemy", "OperationalError"),
        ("sqlite3", "OperationalError"),
        ("duckdb", "IOException"),
        ("_duckdb", "IOException"),
    }
)
# A path in an error's text: 'quoted' or "quoted", absolute.
_QUOTED_PATH = re.compile(r"""['"](/[^'"\\\n]+)\\?['"]""")


def fault(code: int, path: str | os.PathLike[str] | None = None) -> EnvironmentFault:
    """The fault for ``code`` (an errno of :data:`_FAULTS`), at ``path`` when it is known."""
    what, todo = _FAULTS[code]
    at = f" at {Path(path)}" if path else ""
    if code in (errno.ENOTDIR, errno.EEXIST) and path:
        what = f"{_file_in_the_way(Path(path))} is a file, where assay needs a directory"
    return EnvironmentFault(f"{what.format(at=at)}: {todo}", code=code)


def _file_in_the_way(path: Path) -> Path:
    """The file among ``path`` and its parents that stops a directory being made there."""
    for candidate in (path, *path.parents):
        if candidate.exists() or candidate.is_symlink():
            return candidate if not candidate.is_dir() else path
    return path


#: Free bytes under which a disk that reported an I/O error is taken to be full: SQLite reports a write
#: that found no room in its journal as "disk I/O error". 1 MiB is far above the 4 KiB pages it writes,
#: and far below the room any run needs, so a disk with less is full for assay's purposes.
FULL_DISK_FREE_BYTES = 1 << 20


def as_seen_on(found: EnvironmentFault, where: Path) -> EnvironmentFault:
    """``found``, or a disk-full fault when it is an I/O error and the disk under ``where`` has
    (almost) no room left."""
    if found.code != errno.EIO:
        return found
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        return found
    return fault(errno.ENOSPC) if free < FULL_DISK_FREE_BYTES else found


def fault_of(exc: BaseException) -> EnvironmentFault | None:
    """The environment fault behind ``exc`` (or anything in its chain of causes), or None."""
    for link in _chain(exc):
        if isinstance(link, EnvironmentFault):
            return link
        if isinstance(link, OSError) and link.errno in _FAULTS:
            return fault(link.errno, link.filename)
        if _speaks_of_the_disk(link):
            # SQLAlchemy appends the statement and its parameters, which may quote anything: not read.
            found = fault_in_message(str(link).split("\n[SQL:", 1)[0])
            if found is not None:
                return found
    return None


def _speaks_of_the_disk(exc: BaseException) -> bool:
    """An error whose text names a fault of the disk when it has one: not a query's syntax or binding
    error, whose text quotes the query (and a query may well mention "permission denied")."""
    if isinstance(exc, OSError):  # pyarrow's I/O errors are OSErrors, often without an errno
        return True
    library = type(exc).__module__.split(".")[0]
    return (library, type(exc).__name__) in _DISK_ERRORS


def fault_in_message(text: str) -> EnvironmentFault | None:
    """The environment fault an error's text names (a failed Dagster run's message), or None."""
    lowered = text.lower()
    for words, code in _TEXTS:
        if words in lowered:
            quoted = _QUOTED_PATH.search(text)
            return fault(code, quoted.group(1) if quoted else None)
    return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        yield link
        link = link.__cause__ or link.__context__
