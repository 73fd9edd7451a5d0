"""Writing a file whole or not at all: through a temporary beside it, renamed over it.

A reader of the target sees the old file or the new one, never half of either. A writer killed half way
leaves its temporary, named by :func:`temporary_beside` so that the clean-ups that remove what a killed
writer left (the warehouse's, the export's) know it by its name (:data:`TEMPORARY_NAME`) and its writer by
the pid in it.
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

#: The name :func:`temporary_beside` gives: ``.<name>.<pid>.<8 hex>.tmp``.
TEMPORARY_NAME = re.compile(r"\..+\.[0-9]+\.[0-9a-f]{8}\.tmp")


def temporary_beside(target: Path, name: str | None = None) -> Path:
    """Where ``target`` is written before it is renamed into place: ``.<name>.<pid>.<hex>.tmp`` beside it
    (``name`` defaults to the target's). The writer's pid tells a clean-up a live writer's temporary from
    one a killed writer left."""
    return target.with_name(f".{name or target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")


@contextlib.contextmanager
def written_whole(
    target: Path, *, name: str | None = None, fsync: bool = False, companions: Sequence[str] = ()
) -> Iterator[Path]:
    """The temporary ``target`` is written to (:func:`temporary_beside`, ``name`` as there): when the block
    ends without an exception the temporary is renamed over ``target``, after it is flushed to the disk
    when ``fsync``. Whatever happens, no temporary is left: neither it nor the files named by it plus each
    suffix of ``companions`` (DuckDB's ``.wal`` beside a database it wrote)."""
    tmp = temporary_beside(target, name)
    try:
        yield tmp
        if fsync:
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
        for suffix in companions:
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)
