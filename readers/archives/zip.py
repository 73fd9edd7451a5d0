"""The zip reader: an archive's own text is the listing of what it holds.

One line per file member, its path and its size (as the archive's directory declares it), so that an
archive is found by searching for what is in it. The members themselves are never the archive's text:
they become documents of their own (readers/walk/containers.py), each read by its own reader, so a PDF in a
zip is judged and OCRed as a PDF. Listing inflates nothing, so a zip bomb lists like any archive; it is
refused where its members are read (readers/archives/safezip.py).

Directories are not listed: they hold no content, and the files under them name them in their paths.
Entries that share a path are each listed, as the directory holds them (their members are named apart:
readers/walk/containers.py).
"""

from __future__ import annotations

import platform
from pathlib import Path
from typing import ClassVar

from readers.archives.safezip import Member, SafeZip
from readers.core.base import Reader, require_readable_file
from readers.core.model import ContentKind, PageText, ReadLimits, ReadResult

#: A note naming how many members are password-protected: listed like the others, but their content
#: cannot be read (the walk's members_of reports the archive ``encrypted``).
ENCRYPTED_MEMBERS_NOTE = "encrypted_members"


#: Characters a member's path may hold that would break the listing's one-line-per-member shape: written
#: as escapes (a hostile name "a\nb" must not pass for two members).
_LINE_ESCAPES = str.maketrans({"\n": "\\n", "\r": "\\r", "\t": "\\t"})


def listing_line(member: Member) -> str:
    """``path<TAB>size``: a tab, because paths may hold spaces but practically never tabs."""
    return f"{member.name.translate(_LINE_ESCAPES)}\t{member.declared_size}"


class ZipReader(Reader):
    """Reads a zip archive's directory into one page: the listing of its file members."""

    name: ClassVar[str] = "zip"
    # What each revision changed: docs/decisions.md, "Text judging: calibration notes".
    revision: ClassVar[int] = 2
    kinds: ClassVar[frozenset[ContentKind]] = frozenset({ContentKind.ZIP})

    @property
    def tool_version(self) -> str:
        """The standard library's ``zipfile`` reads the directory."""
        return f"python-{platform.python_version()}"

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        """One page listing the files; an archive of directories only lists nothing (the dispatch records
        it as underivable). A damaged archive or one over ``max_members`` raises
        (readers/archives/safezip.py)."""
        require_readable_file(path)
        with SafeZip(path, limits) as archive:
            files = list(archive.files())
        encrypted = sum(1 for m in files if m.encrypted)
        notes = (f"{ENCRYPTED_MEMBERS_NOTE}:{encrypted}",) if encrypted else ()
        text = "\n".join(listing_line(m) for m in files)
        return ReadResult(pages=(PageText(page=1, text=text),), page_count=1, notes=notes)
