"""The walk: list the files under the roots, hash them, sniff their kind.

- sha256 is streamed in 1 MiB blocks; the leading bytes feed the sniffer on the way.
- A size + mtime cache (the previous walk's observations) answers for files that did not change, so an
  unchanged file is never hashed again.
- Symlinks are never followed out of a root: a link whose target lies outside its root is recorded with
  status ``symlink_outside_root``; a link to a directory is not descended (its target, if inside the
  root, is walked anyway), which also makes link loops harmless.
- Unreadable, vanished, over-size and changing files are recorded with a status and a reason, never
  raised.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from readers.core.model import ContentKind, KindSource, ObservationStatus
from readers.core.reading_records import DocumentRecord, ObservationRecord
from readers.walk.sniff import HEAD_BYTES, sniff

BLOCK = 1 << 20


@dataclass(frozen=True, slots=True)
class CachedFile:
    """What an earlier walk learned about a path, valid while size and mtime are unchanged."""

    size: int
    mtime_ns: int
    sha256: str
    kind: str
    kind_source: str
    version: str


@dataclass(frozen=True, slots=True)
class WalkResult:
    observations: list[ObservationRecord]
    documents: list[DocumentRecord]

    @property
    def hashed(self) -> int:
        return sum(1 for o in self.observations if o.hashed)


@dataclass(frozen=True, slots=True)
class _Hashed:
    sha256: str
    head: bytes


def display_path(path: str | os.PathLike[str]) -> str:
    """A path as text that Parquet can store: undecodable bytes become ``\\xNN`` escapes."""
    raw = os.fsencode(path)
    return raw.decode("utf-8", errors="backslashreplace")


_BYTE_ESCAPE = re.compile(rb"\\x([0-9a-f]{2})")


def fs_path(shown: str) -> Path:
    """The file a stored path names: the path itself or, when no file has that name and it holds
    ``\\xNN`` escapes (a name that is not UTF-8, shown by :func:`display_path`), the name with the
    escapes turned back into the bytes they stand for."""
    if "\\x" not in shown or os.path.lexists(shown):
        return Path(shown)
    raw = _BYTE_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), shown.encode("utf-8"))
    return Path(os.fsdecode(raw))


def walk_roots(
    roots: Sequence[Path],
    *,
    cache: Mapping[str, CachedFile],
    max_file_bytes: int,
    version: str,
    now: datetime,
    on_file: Callable[[ObservationRecord], None] | None = None,
    within: Mapping[Path, Path] | None = None,
) -> WalkResult:
    """Walk every root and return one observation per path and one document per distinct content.

    ``within`` maps a given path that lies inside a root walked before (see :func:`enclosing_roots`) to
    that root: its files are observed as that root's (their ``root`` and ``rel_path`` are the root's),
    so one file named again is not a second root beside the first."""
    observations: list[ObservationRecord] = []
    for root in roots:
        root_abs = Path(os.path.abspath(root))
        base = (within or {}).get(root_abs, root_abs)
        for path in _iter_paths(root_abs, observations, version, now):
            obs = observe(path, base, cache=cache, max_file_bytes=max_file_bytes, version=version, now=now)
            observations.append(obs)
            if on_file is not None:
                on_file(obs)
    observations.sort(key=lambda o: (o.root, o.path))
    return WalkResult(observations, documents_from(observations, version))


def merge_observations(
    previous: Sequence[ObservationRecord],
    fresh: Sequence[ObservationRecord],
    roots: Sequence[Path],
    within: Mapping[Path, Path] | None = None,
) -> list[ObservationRecord]:
    """The roots walked now replace their earlier observations; other roots' observations are kept. A
    path walked ``within`` an earlier root replaces only that root's observations at or under it."""
    within = within or {}
    enclosing = {display_path(b) for b in within.values()}
    walked = {display_path(os.path.abspath(r)) for r in roots if Path(os.path.abspath(r)) not in within}
    walked |= {o.root for o in fresh if o.root not in enclosing}
    subtrees = [display_path(p) for p in within]
    kept = [o for o in previous if o.root not in walked and not at_or_under(o.path, subtrees)]
    return sorted([*kept, *fresh], key=lambda o: (o.root, o.path))


def at_or_under(path: str, folders: Iterable[str]) -> bool:
    """``path`` (as observations store paths) is one of ``folders`` or lies under one."""
    return any(path == f or path.startswith(f.rstrip(os.sep) + os.sep) for f in folders)


def enclosing_roots(roots: Sequence[Path], known: Iterable[str]) -> dict[Path, Path]:
    """The given ``roots`` that lie inside a root walked before (``known``, as observations store roots)
    and are not themselves one, each with that root (the innermost, where roots nest)."""
    known_paths = sorted({Path(r) for r in known}, key=lambda p: len(p.parts), reverse=True)
    out: dict[Path, Path] = {}
    for root in roots:
        given = Path(os.path.abspath(root))
        if given in known_paths:
            continue
        for candidate in known_paths:
            if given.is_relative_to(candidate):
                out[given] = candidate
                break
    return out


def documents_from(observations: Sequence[ObservationRecord], version: str) -> list[DocumentRecord]:
    """One document per distinct sha256, described by its first path in sort order."""
    first: dict[str, ObservationRecord] = {}
    for o in sorted(observations, key=lambda o: o.path):
        if o.status == ObservationStatus.OK and o.sha256 is not None and o.sha256 not in first:
            first[o.sha256] = o
    return [
        DocumentRecord(
            sha256=sha,
            shard=sha[:2],
            kind=o.kind or ContentKind.UNKNOWN.value,
            kind_source=o.kind_source or KindSource.NONE.value,
            size=o.size or 0,
            parent_sha256=None,
            member=None,
            path=o.path,
            extractor_version=version,
        )
        for sha, o in sorted(first.items())
    ]


def _iter_paths(root: Path, problems: list[ObservationRecord], version: str, now: datetime) -> Iterator[Path]:
    """Every non-directory entry under ``root`` in a stable order; a missing root is an observation."""
    if not root.exists():
        problems.append(_problem(root, root, ObservationStatus.VANISHED, "root does not exist", version, now))
        return
    if root.is_file():
        yield root
        return

    def onerror(err: OSError) -> None:
        where = Path(err.filename) if err.filename else root
        problems.append(_problem(where, root, ObservationStatus.UNREADABLE, _oserror(err), version, now))

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=False):
        dirnames.sort()
        here = Path(dirpath)
        # Symlinks to directories are listed in dirnames but not descended: report the ones that point
        # out of the root, skip the rest (their targets inside the root are walked anyway).
        for name in dirnames:
            if (here / name).is_symlink():
                yield here / name
        for name in sorted(filenames):
            yield here / name


def observe(
    path: Path,
    root: Path,
    *,
    cache: Mapping[str, CachedFile],
    max_file_bytes: int,
    version: str,
    now: datetime,
) -> ObservationRecord:
    """Observe one path; never raises."""
    shown = display_path(path)

    def problem(
        status: ObservationStatus, reason: str, st: os.stat_result | None = None
    ) -> ObservationRecord:
        return _problem(path, root, status, reason, version, now, st)

    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        return problem(ObservationStatus.VANISHED, "the file disappeared during the walk")
    except OSError as exc:
        return problem(ObservationStatus.UNREADABLE, _oserror(exc))

    if stat.S_ISLNK(lst.st_mode):
        try:
            target = Path(os.path.realpath(path, strict=True))
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return problem(ObservationStatus.UNREADABLE, f"symlink loop: {_oserror(exc)}")
            return problem(ObservationStatus.VANISHED, f"broken symlink, its target is gone: {_oserror(exc)}")
        real_root = Path(os.path.realpath(root))
        if not target.is_relative_to(real_root):
            return problem(
                ObservationStatus.OUTSIDE_ROOT, f"points to {display_path(target)}, outside the root"
            )
        if target.is_dir():
            return problem(
                ObservationStatus.NOT_A_FILE, "symlink to a directory inside the root (walked there)"
            )
    try:
        st = os.stat(path)
    except OSError as exc:
        return problem(ObservationStatus.VANISHED, _oserror(exc))
    if not stat.S_ISREG(st.st_mode):
        return problem(ObservationStatus.NOT_A_FILE, "not a regular file (device, socket or pipe)", st)
    if st.st_size > max_file_bytes:
        return problem(
            ObservationStatus.TOO_LARGE, f"{st.st_size} bytes is over the limit of {max_file_bytes}", st
        )

    cached = cache.get(shown)
    if cached is not None and cached.size == st.st_size and cached.mtime_ns == st.st_mtime_ns:
        if cached.version == version:
            return _ok(path, root, st, cached.sha256, cached.kind, cached.kind_source, False, version, now)
        # Same bytes, newer extractor (maybe a newer sniffer): sniff the head again, keep the hash.
        try:
            with open(path, "rb") as fh:
                sniffed = sniff(fh.read(HEAD_BYTES), path.name)
        except OSError as exc:
            return problem(ObservationStatus.UNREADABLE, _oserror(exc), st)
        return _ok(
            path, root, st, cached.sha256, sniffed.kind.value, sniffed.decided_by.value, False, version, now
        )

    try:
        hashed = _hash(path)
        after = os.stat(path)
    except FileNotFoundError:
        return problem(ObservationStatus.VANISHED, "the file disappeared while it was hashed", st)
    except OSError as exc:
        return problem(ObservationStatus.UNREADABLE, _oserror(exc), st)
    if (after.st_size, after.st_mtime_ns) != (st.st_size, st.st_mtime_ns):
        return problem(ObservationStatus.CHANGED, "size or mtime changed while the file was hashed", after)
    sniffed = sniff(hashed.head, path.name)
    return _ok(
        path, root, st, hashed.sha256, sniffed.kind.value, sniffed.decided_by.value, True, version, now
    )


def _hash(path: Path) -> _Hashed:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES)
        digest.update(head)
        while block := fh.read(BLOCK):
            digest.update(block)
    return _Hashed(digest.hexdigest(), head)


def _ok(
    path: Path,
    root: Path,
    st: os.stat_result,
    sha256: str,
    kind: str,
    kind_source: str,
    hashed: bool,
    version: str,
    now: datetime,
) -> ObservationRecord:
    return ObservationRecord(
        root=display_path(root),
        path=display_path(path),
        rel_path=_rel(path, root),
        status=ObservationStatus.OK.value,
        reason=None,
        sha256=sha256,
        shard=sha256[:2],
        size=st.st_size,
        mtime_ns=st.st_mtime_ns,
        kind=kind,
        kind_source=kind_source,
        hashed=hashed,
        seen_at=now,
        extractor_version=version,
    )


def _problem(
    path: Path,
    root: Path,
    status: ObservationStatus,
    reason: str,
    version: str,
    now: datetime,
    st: os.stat_result | None = None,
) -> ObservationRecord:
    return ObservationRecord(
        root=display_path(root),
        path=display_path(path),
        rel_path=_rel(path, root),
        status=status.value,
        reason=reason,
        sha256=None,
        shard=None,
        size=st.st_size if st is not None else None,
        mtime_ns=st.st_mtime_ns if st is not None else None,
        kind=None,
        kind_source=None,
        hashed=False,
        seen_at=now,
        extractor_version=version,
    )


def _rel(path: Path, root: Path) -> str:
    try:
        return display_path(path.relative_to(root)) if path != root else display_path(path.name)
    except ValueError:
        return display_path(path)


def _oserror(exc: OSError) -> str:
    return f"{type(exc).__name__}: {exc.strerror or exc}"
