"""Tables a document's own markup declares (Office, OpenDocument, HTML), as GFM text and as data.

The readers of those documents write each table into their text as a GFM table where it stands: the
first row the header, then the ``|---|`` line, then one line per row, each cell on one line with its
pipes escaped (:func:`escape_cell`, undone exactly by :func:`split_gfm_row`). :func:`markup_tables` then
finds those tables in a read document's pages and returns it with each page's tables as
:class:`FoundTable` (source ``markup``), numbered through the document, so they land in the ``tables``
table as a PDF's found tables do. Reading the tables back from the text keeps one truth: the row in
``tables`` is exactly the table the text shows.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from readers.core.model import FoundTable, PageText, ReadResult, TableSource

_WS = re.compile(r"\s+")
_DELIMITER = re.compile(r"\|(?:\s*:?-+:?\s*\|)+")
_FENCE = re.compile(r"^\s*(```|~~~)")


def one_line(text: str) -> str:
    """Whitespace runs (line breaks in a cell, tabs) folded to one space, ends stripped."""
    return _WS.sub(" ", text).strip()


def escape_cell(text: str) -> str:
    """A cell's text for a GFM row: one line, and each ``|`` escaped so it cannot end the cell.

    A run of backslashes right before a pipe is doubled as well, so that the escaping can be undone
    exactly (:func:`split_gfm_row`); a backslash anywhere else is left alone (paths, TeX stay readable).
    """
    return re.sub(r"(\\*)\|", lambda m: m.group(1) * 2 + "\\|", one_line(text))


def gfm_table(rows: Sequence[Sequence[str]]) -> str:
    """Rows of cell texts as a GFM table: the first row is the header, short rows are padded, rows and
    columns that are empty throughout are dropped. "" for a table with no text."""
    cells = [[escape_cell(c) for c in row] for row in rows]
    cells = [row for row in cells if any(row)]
    if not cells:
        return ""
    width = max(len(row) for row in cells)
    cells = [row + [""] * (width - len(row)) for row in cells]
    keep = [c for c in range(width) if any(row[c] for row in cells)]
    lines = ["| " + " | ".join(row[c] for c in keep) + " |" for row in cells]
    lines.insert(1, "|" + "|".join(" --- " for _ in keep) + "|")
    return "\n".join(lines)


def split_gfm_row(line: str) -> list[str]:
    """The cells of one GFM row written by :func:`gfm_table`, unescaped (the inverse of escape_cell)."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    cells: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(body):
        if body[i] == "\\":
            j = i
            while j < len(body) and body[j] == "\\":
                j += 1
            run = j - i
            if j < len(body) and body[j] == "|":
                current.append("\\" * (run // 2))
                if run % 2:  # an escaped pipe
                    current.append("|")
                    i = j + 1
                    continue
                i = j  # an even run: literal backslashes, then the pipe ends the cell
                continue
            current.append(body[i:j])
            i = j
            continue
        if body[i] == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(body[i])
        i += 1
    if "".join(current).strip():
        cells.append("".join(current).strip())
    return cells


def text_tables(text: str) -> list[tuple[str, tuple[tuple[str, ...], ...]]]:
    """The GFM tables of ``text`` (outside code fences), each as its lines and its rows of cells (the
    header row first, the ``|---|`` line left out): a table is a ``|`` line followed by a ``|---|`` line
    and the ``|`` lines after it."""
    lines = text.split("\n")
    found: list[tuple[str, tuple[tuple[str, ...], ...]]] = []
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if _FENCE.match(line):
            fenced = not fenced
        elif (
            not fenced
            and line.startswith("|")
            and i + 1 < len(lines)
            and _DELIMITER.fullmatch(lines[i + 1].strip().replace(" ", ""))
        ):
            rows = [line]
            j = i + 2
            while j < len(lines) and lines[j].strip().startswith("|"):
                rows.append(lines[j].strip())
                j += 1
            width = max(len(split_gfm_row(r)) for r in rows)
            cells = tuple(tuple(c + [""] * (width - len(c))) for c in map(split_gfm_row, rows))
            found.append(("\n".join([rows[0], lines[i + 1].strip(), *rows[1:]]), cells))
            i = j
            continue
        i += 1
    return found


def delimit_tables(text: str) -> str:
    """``text`` with each run of table lines (``| a | b |``, outside code fences) that lacks its ``|---|``
    line given one after its first line, so the run is a GFM table under its first row; the runs' lines
    are stripped of trailing whitespace. Markdown writers that add the line only under header cells
    (trafilatura, for ``<th>``) leave a table without header cells as lines no renderer shows as one."""
    lines = text.split("\n")
    out: list[str] = []
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            fenced = not fenced
        if fenced or not _is_row(line):
            out.append(line)
            i += 1
            continue
        j = i
        while j < len(lines) and _is_row(lines[j]):
            j += 1
        run = [r.rstrip() for r in lines[i:j]]
        if len(run) < 2 or not _DELIMITER.fullmatch(run[1].replace(" ", "")):
            run.insert(1, "|" + "|".join(" --- " for _ in split_gfm_row(run[0])) + "|")
        out.extend(run)
        i = j
    return "\n".join(out)


def _is_row(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) > 1 and stripped.startswith("|") and stripped.endswith("|")


def markup_tables(result: ReadResult, evidence: str) -> ReadResult:
    """``result`` with each page's GFM tables as :class:`FoundTable` rows (source ``markup``, one header
    row, no position on a page: ``bbox`` zero), numbered through the document in reading order.
    ``evidence`` names the markup (``markup=xlsx``)."""
    index = 0
    pages: list[PageText] = []
    for page in result.pages:
        found: list[FoundTable] = []
        for markdown, cells in text_tables(page.text):
            found.append(
                FoundTable(
                    page=page.page,
                    index=index,
                    bbox=(0.0, 0.0, 0.0, 0.0),
                    cells=cells,
                    header_rows=1,
                    markdown=markdown,
                    source=TableSource.MARKUP.value,
                    confidence=1.0,
                    evidence=evidence,
                )
            )
            index += 1
        pages.append(dataclasses.replace(page, tables=page.tables + tuple(found)) if found else page)
    return dataclasses.replace(result, pages=tuple(pages)) if index else result
