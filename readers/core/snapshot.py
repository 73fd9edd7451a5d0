"""The bytes the readers parse are the bytes the walk hashed.

Between the walk and the read a file can be rewritten, replaced by a link to a file elsewhere, by a pipe,
or removed. Opening the walked path again and trusting it would store whatever it holds then under the
walked sha256. So before any reader runs, the worker:

1. opens the path read-only without following a final link (``O_NOFOLLOW``) and without blocking
   (``O_NONBLOCK``: a pipe swapped in opens at once instead of waiting for a writer). The walk admits a
   link whose target lies inside its root and the document's path may be that link, so a path that is a
   link is resolved first and its target opened the same way: no link is followed by the open itself;
2. checks on the opened descriptor (``fstat``) that it is a regular file of the walked size;
3. copies it into a private snapshot (a new file, mode 0600, in a directory only this user can enter)
   while hashing what it copies, one byte past the walked size at most;
4. compares the sha256 and the size of what it copied with the walk's.

The readers then read the snapshot, a file nobody else can change, so the bytes they parse are the bytes
whose hash was verified, whatever happens to the original meanwhile. A difference is
:class:`ChangedSinceWalk` (``changed_since_walk``); a file gone is :class:`FileVanished`, one that is not
a regular file any more :class:`FileUnreadable`. Nothing here blocks or raises anything else.

The snapshot keeps the file's name, so readers that judge a name (openpyxl refuses a workbook without an
``.xlsx``-like extension) and their messages see the same name as before.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from io import FileIO
from pathlib import Path

from readers.core.errors import ChangedSinceWalk, FileUnreadable, FileVanished

#: The name the verification is recorded under in ``underivables.tool`` when it fails (no reader ran).
STEP = "snapshot"
#: Bump when the verification's outcome for the same file would differ.
REVISION = 1
# Copy block: 1 MiB, as the walk hashes; the copy runs at the disk's speed either way.
BLOCK = 1 << 20
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@contextmanager
def walked_snapshot(path: Path, *, sha256: str, size: int, scratch: Path | None = None) -> Iterator[Path]:
    """A private copy of ``path`` holding exactly the walked bytes (``sha256``, ``size``), removed on exit.

    ``scratch`` is the directory the private directory is made in (the system's temporary directory by
    default; the reader pool gives its own, which it removes when it stops, so a worker killed over its
    budget leaves nothing behind for long). Raises :class:`FileUnreadable` or one of its subclasses.
    """
    try:
        directory = Path(tempfile.mkdtemp(prefix="assay-read-", dir=scratch))
    except OSError as exc:
        raise FileUnreadable(f"no private directory for a copy of {path.name}: {exc}") from exc
    try:
        copy = directory / (path.name or "document")
        copy_verified(path, copy, sha256=sha256, size=size)
        yield copy
    finally:
        shutil.rmtree(directory, ignore_errors=True)


class WalkedFile:
    """The walked bytes of one document for a stage after extract, verified once and kept until closed.

    The verdicts stage (the second opinion, the ink measure) and OCR (every page it renders) open a
    document's file again, perhaps many times. They ask :meth:`path` each time: the first call makes the
    :func:`walked_snapshot` and later ones return the same copy, so the document is verified and copied
    once per stage, whatever number of pages is read from it. A refusal is kept too: every later call
    raises the same error without touching the file again, so all pages of the document end alike.
    Closing (or leaving the ``with`` block) removes the copy.
    """

    def __init__(self, path: Path, *, sha256: str, size: int, scratch: Path | None = None) -> None:
        self.original = path
        self.sha256 = sha256
        self.size = size
        self._scratch = scratch
        self._stack = ExitStack()
        self._copy: Path | None = None
        self._refused: FileUnreadable | None = None

    def path(self) -> Path:
        """The private copy of the walked bytes; raises :class:`FileUnreadable` (or a subclass)."""
        if self._refused is not None:
            raise self._refused
        if self._copy is None:
            try:
                self._copy = self._stack.enter_context(
                    walked_snapshot(self.original, sha256=self.sha256, size=self.size, scratch=self._scratch)
                )
            except FileUnreadable as exc:
                self._refused = exc
                raise
        return self._copy

    @property
    def refused(self) -> FileUnreadable | None:
        """Why the file is not the walked bytes, once :meth:`path` found it so."""
        return self._refused

    def close(self) -> None:
        self._copy = None
        self._stack.close()

    def __enter__(self) -> WalkedFile:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def copy_verified(path: Path, copy: Path, *, sha256: str, size: int) -> None:
    """Copy ``path`` to the new file ``copy`` while hashing it; raise unless it is the walked bytes."""
    fd = open_regular(path)
    try:
        found = os.fstat(fd).st_size
        if found != size:
            raise ChangedSinceWalk(f"{path.name}: {found} bytes now, {size} bytes when walked")
        try:
            out = os.open(copy, _CREATE_FLAGS, 0o600)
        except OSError as exc:
            raise FileUnreadable(f"{path.name}: the private copy could not be made: {exc}") from exc
        digest, copied = _copy(fd, out, size + 1, path)
    finally:
        os.close(fd)
    if copied != size:
        raise ChangedSinceWalk(f"{path.name}: {copied} bytes read, {size} bytes when walked")
    if digest != sha256:
        raise ChangedSinceWalk(f"{path.name}: its bytes hash to {digest}, not to the walked {sha256}")


def open_regular(path: Path) -> int:
    """A read-only descriptor of the regular file at ``path``, opened without following a final link and
    without blocking; a link is resolved first (see the module docstring)."""
    try:
        fd = _open(path)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise _translated(path, exc) from exc
        # The path is a link: open its target, itself without following a link.
        try:
            fd = _open(Path(os.path.realpath(path, strict=True)))
        except OSError as inner:
            raise _translated(path, inner) from inner
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise FileUnreadable(f"{path.name}: cannot be read: {exc}") from exc
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise FileUnreadable(f"{path.name}: not a regular file any more (a directory, pipe or device)")
    return fd


def _open(path: Path) -> int:
    return os.open(path, _OPEN_FLAGS)


def _translated(path: Path, exc: OSError) -> FileUnreadable:
    if exc.errno == errno.ENOENT:
        return FileVanished(f"{path.name}: gone since the walk")
    if exc.errno == errno.ENXIO:
        return FileUnreadable(f"{path.name}: not a regular file any more (a socket)")
    if exc.errno == errno.ELOOP:
        return FileUnreadable(f"{path.name}: a link that leads to a link")
    return FileUnreadable(f"{path.name}: cannot be read: {exc.strerror or exc}")


def _copy(source: int, target: int, limit: int, path: Path) -> tuple[str, int]:
    """Copy at most ``limit`` bytes from ``source`` to ``target`` (closed here); their sha256 and count."""
    digest = hashlib.sha256()
    view = memoryview(bytearray(BLOCK))
    copied = 0
    with FileIO(source, "rb", closefd=False) as src, open(target, "wb", closefd=True) as out:
        while copied < limit:
            try:
                n = src.readinto(view[: min(BLOCK, limit - copied)])
            except OSError as exc:
                raise FileUnreadable(f"{path.name}: cannot be read: {exc.strerror or exc}") from exc
            if not n:
                break
            digest.update(view[:n])
            try:
                out.write(view[:n])  # a buffered file writes all of it
            except OSError as exc:
                raise _uncopied(path, exc) from exc
            copied += n
        try:
            out.flush()
        except OSError as exc:
            raise _uncopied(path, exc) from exc
    return digest.hexdigest(), copied


def _uncopied(path: Path, exc: OSError) -> FileUnreadable:
    return FileUnreadable(f"{path.name}: the private copy could not be written: {exc}")
