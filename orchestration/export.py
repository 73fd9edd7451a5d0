"""``assay export``: each document's clean text into a folder, as Markdown, plain text or JSON.

The text written is ``texts.text`` as the catalog holds it, byte for byte: sanitized, its personal data
as placeholders (⟨EMAIL_1⟩). Where each page starts, its printed label, its verdict (mode, reasons, the
tier that judged it), the source of its text, its language and its trust come from ``page_texts`` and
``page_verdicts``:

- ``md``: one ``.md`` file per document, a YAML front matter (the document and its pages, each with its
  offset in the text: the page anchors) and then the text;
- ``txt``: one ``.txt`` file per document, the text alone;
- ``json``: one ``.json`` file per document, one object of the schema in ``docs/export.schema.json``;
- ``jsonl``: one file, ``documents.jsonl``, one such object per line; documents without a text are in
  it too, with their status and reason (the other forms leave them out and count them).

To standard output (``--output -``, :func:`write_stream`) the forms are one stream: ``md`` and ``txt``
each document as its file would hold it, preceded by a line ``==> path <==`` when there are several (as
``head`` and ``tail`` name their files) and ending with a newline, ``jsonl`` as its file, ``json`` one
array of the objects.
``assay check FILE --to md|txt|json`` prints a checked file's clean text in the same forms
(:func:`render`).

A file's name is its document's path under the root it was walked from, with the form's extension
(``reports/q3.pdf`` becomes ``reports/q3.pdf.md``); a member of an e-mail or an archive is written under
its container's name (``mail.eml/invoice.pdf.md``). Names are made safe: every component that could
climb out (``..``, an absolute path, a drive) is dropped, control characters are replaced, and a name
whose resolved path would leave the output folder (through a link already in it) is refused. Two
documents with one name (the same relative path under two roots) are told apart by their sha256.

Paths and names are shown as the sanitized tables show them: the personal data of each component as
placeholders (quality/pii.py ``redact_path``: ``jane@corp.com.pdf`` is written ``⟨EMAIL_1⟩.pdf.md``), in
the file names, the front matter's ``path``, the JSON ``path`` and ``member`` and the summary.

Raw page texts (before sanitize: personal data in the clear) and the chunks are added to the JSON forms
only when asked for (``--raw``, ``--chunks``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TextIO

from orchestration.printing import json_text
from readers.core.atomic import TEMPORARY_NAME, written_whole
from readers.core.errors import AssayError
from warehouse import Warehouse
from warehouse.duckdb_catalog import catalog_version, query
from warehouse.search import document_paths
from warehouse.store import stale_temporary

#: The version of the JSON form: bump when a field changes meaning or goes; adding one keeps it.
EXPORT_SCHEMA = "assay-export/1"
FORMS = ("md", "txt", "json", "jsonl")
JSONL_NAME = "documents.jsonl"
#: ``--output`` naming standard output.
STDOUT = "-"
#: The longest file-name component written (bytes): most file systems stop at 255, and the extension
#: and a sha256 suffix must still fit.
MAX_COMPONENT_BYTES = 200
#: Containers are followed this many levels up to name a member (the walk's own depth bound is lower).
MAX_CONTAINER_DEPTH = 16

_UNSAFE = re.compile(r"[\x00-\x1f\x7f]")
_SUFFIX = {"md": ".md", "txt": ".txt", "json": ".json"}


class ExportError(AssayError):
    """The export cannot be done as asked (the message says what to change)."""


@dataclass(frozen=True, slots=True)
class ExportedPage:
    page: int
    label: str | None
    start: int | None  # offset in the text; None: the page has no text
    end: int | None
    mode: str | None
    reasons: list[str]
    judged_by: str | None
    source: str | None
    language: str | None
    trust: float | None
    raw_text: str | None = None


@dataclass
class ExportedDocument:
    sha256: str
    path: str
    rel_path: str
    kind: str
    extractor_version: str
    parent_sha256: str | None
    member: str | None
    status: str | None
    reason: str | None
    text: str | None
    sanitize_version: str | None
    pages: list[ExportedPage] = field(default_factory=list)
    chunks: list[dict[str, Any]] | None = None
    #: The name's components: for a member, its container's name and its own (see :func:`member_names`).
    name: list[str] = field(default_factory=list)
    #: How a summary names it: its path, or "<container> › <member>" (warehouse.search.document_paths).
    shown: str = ""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema": EXPORT_SCHEMA,
            "sha256": self.sha256,
            "path": self.path,
            "kind": self.kind,
            "extractor_version": self.extractor_version,
            "sanitize_version": self.sanitize_version,
            "parent_sha256": self.parent_sha256,
            "member": self.member,
            "status": self.status,
            "reason": self.reason,
            "text": self.text,
            "pages": [_page_json(p) for p in self.pages],
        }
        if self.chunks is not None:
            out["chunks"] = self.chunks
        return out


def _page_json(page: ExportedPage) -> dict[str, Any]:
    out = {
        "page": page.page,
        "label": page.label,
        "start": page.start,
        "end": page.end,
        "mode": page.mode,
        "reasons": page.reasons,
        "judged_by": page.judged_by,
        "source": page.source,
        "language": page.language,
        "trust": page.trust,
    }
    if page.raw_text is not None:
        out["raw_text"] = page.raw_text
    return out


@dataclass
class ExportReport:
    form: str
    output: Path
    written: list[Path] = field(default_factory=list)
    without_text: list[str] = field(default_factory=list)  # paths of selected documents with no text
    why: dict[str, str] = field(default_factory=dict)  # of those paths: "outcome (reason)"


# --- selection ------------------------------------------------------------------------------------------


def select(
    wh: Warehouse, *, paths: Sequence[Path] = (), pattern: str | None = None, where: str | None = None
) -> list[str]:
    """The sha256 of the documents asked for, in path order: under ``paths`` (files or folders), whose
    path matches the glob ``pattern``, and for which the SQL condition ``where`` over ``documents``
    holds; every document when nothing is given."""
    conditions: list[str] = []
    params: list[Any] = []
    if paths:
        alternatives = []
        for given in paths:
            absolute = os.path.abspath(given)
            alternatives.append("(o.path = ? or starts_with(o.path, ?))")
            params += [absolute, absolute.rstrip(os.sep) + os.sep]
        conditions.append("(" + " or ".join(alternatives) + ")")
    if pattern:
        conditions.append("o.path glob ?")
        params.append(
            pattern if os.path.isabs(pattern) or pattern.startswith("*") else "*" + os.sep + pattern
        )
    sql = "select distinct d.sha256, d.path from documents d join observations o on o.sha256 = d.sha256"
    if conditions:
        sql += " where " + " and ".join(conditions)
    found = query(wh, sql, params).rows
    chosen = {sha for sha, _ in found}
    # Members of containers are not observed: they come with the containers selected.
    members = query(
        wh, "select sha256, parent_sha256, path from documents where parent_sha256 is not null"
    ).rows
    added = True
    while added:
        added = False
        for sha, parent, _ in members:
            if parent in chosen and sha not in chosen:
                chosen.add(sha)
                added = True
    if where:
        kept = {row[0] for row in query(wh, f"select sha256 from documents where {where}").rows}
        chosen &= kept
    by_path = {sha: path for sha, path in found}
    by_path.update({sha: path for sha, _, path in members})
    return sorted(chosen, key=lambda sha: (by_path.get(sha, ""), sha))


# --- reading --------------------------------------------------------------------------------------------


#: How a path or a name is shown: as it is, or with its personal data as placeholders.
PathShown = Callable[[str], str]


def _as_is(path: str) -> str:
    return path


def documents(
    wh: Warehouse,
    shas: Sequence[str],
    *,
    raw: bool = False,
    chunks: bool = False,
    redact_path: PathShown = _as_is,
) -> list[ExportedDocument]:
    """The selected documents with their text and pages, in the order of ``shas``; every path and name
    as ``redact_path`` shows it."""
    if not shas:
        return []
    wanted = list(shas)
    rows = query(
        wh,
        "select d.sha256, d.path, d.kind, d.extractor_version, d.parent_sha256, d.member, "
        "v.outcome as status, v.reason, t.text, t.pages, t.page_starts, t.sanitize_version, "
        "(select o.rel_path from observations o where o.path = d.path limit 1) as rel_path "
        "from documents d left join outcomes v using (sha256) left join texts t using (sha256) "
        "where list_contains(?, d.sha256)",
        [wanted],
    ).records()
    found = {row["sha256"]: row for row in rows}
    page_rows = query(
        wh,
        "select p.sha256, p.page, p.mode, p.reasons, p.judged_by, p.language, t.source, t.trust, "
        "t.label, t.text as raw_text "
        "from page_verdicts p left join page_texts t using (sha256, page) "
        "where list_contains(?, p.sha256) order by p.sha256, p.page",
        [wanted],
    ).records()
    pages_of: dict[str, list[dict[str, Any]]] = {}
    for row in page_rows:
        pages_of.setdefault(row["sha256"], []).append(row)
    chunks_of: dict[str, list[dict[str, Any]]] = {}
    if chunks:
        for row in query(
            wh,
            'select sha256, ordinal, start, "end", overlap, heading_path, page_start, page_end, '
            "page_labels, language, sources, trust, text from chunks "
            "where list_contains(?, sha256) order by sha256, ordinal",
            [wanted],
        ).records():
            sha = row.pop("sha256")
            chunks_of.setdefault(sha, []).append(row)
    out: list[ExportedDocument] = []
    for sha in wanted:
        row = found.get(sha)
        if row is None:
            continue
        listed = chunks_of.get(sha, []) if chunks else None
        out.append(document_of(row, pages_of.get(sha, []), raw=raw, chunks=listed))
    member_names(wh, out, redact_path)
    version = catalog_version(wh)
    shown = document_paths(wh, version) if version else {}
    for doc in out:
        doc.shown = redact_path(shown.get(doc.sha256, doc.path))
        doc.path = redact_path(doc.path)
        doc.rel_path = redact_path(doc.rel_path)
        doc.member = redact_path(doc.member) if doc.member is not None else None
    return out


def document_of(
    row: dict[str, Any],
    pages: list[dict[str, Any]],
    *,
    raw: bool = False,
    chunks: list[dict[str, Any]] | None = None,
) -> ExportedDocument:
    """One document from its row (``documents`` joined with its outcome and ``texts``: sha256, path,
    rel_path, kind, extractor_version, parent_sha256, member, status, reason, text, pages, page_starts,
    sanitize_version) and its pages' rows (``page_verdicts`` joined with ``page_texts``)."""
    text = row["text"]
    starts: dict[int, tuple[int, int]] = {}
    if text is not None:
        numbers = list(row["pages"] or [])
        offsets = list(row["page_starts"] or [])
        for i, (number, start) in enumerate(zip(numbers, offsets, strict=True)):
            end = offsets[i + 1] if i + 1 < len(offsets) else len(text)
            starts[number] = (start, end)
    exported = [
        ExportedPage(
            page=p["page"],
            label=p["label"],
            start=starts.get(p["page"], (None, None))[0],
            end=starts.get(p["page"], (None, None))[1],
            mode=p["mode"],
            reasons=list(p["reasons"] or []),
            judged_by=p["judged_by"],
            source=p["source"],
            language=p["language"],
            trust=p["trust"],
            raw_text=p["raw_text"] if raw else None,
        )
        for p in pages
    ]
    return ExportedDocument(
        sha256=row["sha256"],
        path=row["path"],
        rel_path=row["rel_path"] or PurePosixPath(row["path"]).name,
        kind=row["kind"],
        extractor_version=row["extractor_version"],
        parent_sha256=row["parent_sha256"],
        member=row["member"],
        status=row["status"],
        reason=row["reason"],
        text=text,
        sanitize_version=row["sanitize_version"],
        pages=exported,
        chunks=chunks,
    )


# --- names ----------------------------------------------------------------------------------------------


def safe_parts(name: str) -> list[str]:
    """``name``'s components with nothing that could climb out of a folder: no ``..``, ``.``, empty or
    absolute part, no drive, no control character; each cut to :data:`MAX_COMPONENT_BYTES`."""
    parts: list[str] = []
    for part in re.split(r"[\\/]+", name):
        part = _UNSAFE.sub("_", part).strip()
        if part in ("", ".", ".."):
            continue
        if re.fullmatch(r"[A-Za-z]:", part):  # a Windows drive
            continue
        encoded = part.encode("utf-8", "surrogatepass")
        if len(encoded) > MAX_COMPONENT_BYTES:
            part = encoded[:MAX_COMPONENT_BYTES].decode("utf-8", "ignore")
        parts.append(part)
    return parts


def names(docs: Sequence[ExportedDocument]) -> dict[str, list[str]]:
    """Each document's name as path components (without the form's extension), unique among them."""
    out: dict[str, list[str]] = {}
    seen: set[tuple[str, ...]] = set()
    for doc in docs:
        parts = doc.name or safe_parts(doc.rel_path) or [doc.sha256]
        key = tuple(p.casefold() for p in parts)
        if key in seen:  # the same name twice (two roots, or a case-insensitive file system)
            parts = [*parts[:-1], f"{parts[-1]}~{doc.sha256[:12]}"]
            key = tuple(p.casefold() for p in parts)
        seen.add(key)
        out[doc.sha256] = parts
    return out


def member_names(wh: Warehouse, docs: Sequence[ExportedDocument], redact_path: PathShown = _as_is) -> None:
    """Name each member under its container's name (``mail.eml/invoice.pdf``), whether or not the
    container is exported: the same document gets the same name whatever is selected; its components
    as ``redact_path`` shows them."""
    if not any(d.parent_sha256 for d in docs):
        return
    known = {  # sha256: (parent, member, path under its root)
        sha: (parent, member, rel or PurePosixPath(path).name)
        for sha, parent, member, path, rel in query(
            wh,
            "select d.sha256, d.parent_sha256, d.member, d.path, "
            "(select o.rel_path from observations o where o.path = d.path limit 1) from documents d",
        ).rows
    }

    def name_of(sha: str, depth: int = 0) -> list[str]:
        parent, member, rel = known.get(sha, (None, None, sha))
        if parent and member and depth < MAX_CONTAINER_DEPTH:
            return [*name_of(parent, depth + 1), *(safe_parts(redact_path(member)) or [sha])]
        return safe_parts(redact_path(rel)) or [sha]

    for doc in docs:
        if doc.parent_sha256 and doc.member:
            doc.name = name_of(doc.sha256)


def inside(output: Path, parts: Sequence[str], suffix: str) -> Path:
    """The file ``parts`` + ``suffix`` under ``output``; ExportError when it would resolve outside."""
    target = output.joinpath(*parts[:-1], parts[-1] + suffix)
    root = output.resolve()
    if os.path.commonpath([root, target.resolve()]) != str(root):
        raise ExportError(
            f"{target} would be written outside {output}: a link in the way? Nothing was written there."
        )
    return target


# --- writing --------------------------------------------------------------------------------------------


def front_matter(doc: ExportedDocument) -> str:
    """The Markdown form's YAML front matter: the document and its pages (JSON scalars are YAML)."""
    q = json.dumps
    lines = [
        "---",
        f"schema: {q(EXPORT_SCHEMA)}",
        f"path: {q(doc.path)}",
        f"sha256: {q(doc.sha256)}",
        f"kind: {q(doc.kind)}",
        f"extractor_version: {q(doc.extractor_version)}",
        f"sanitize_version: {q(doc.sanitize_version)}",
        "pages:",
    ]
    for page in doc.pages:
        values = _page_json(page)
        values.pop("raw_text", None)
        lines.append(
            "  - " + ", ".join(f"{k}: {q(v, ensure_ascii=False)}" for k, v in values.items()).join("{}")
        )
    if not doc.pages:
        lines[-1] = "pages: []"
    lines.append("---")
    return "\n".join(lines) + "\n"


def split_front_matter(written: str) -> tuple[str, str]:
    """(front matter, text) of a Markdown file this module wrote."""
    head, sep, text = written.partition("\n---\n")
    if not written.startswith("---\n") or not sep:
        raise ValueError("no front matter")
    return head + sep, text


def export(
    wh: Warehouse,
    output: Path,
    form: str,
    shas: Sequence[str],
    *,
    raw: bool = False,
    chunks: bool = False,
    progress: Callable[[], object] | None = None,
    redact_path: PathShown = _as_is,
) -> ExportReport:
    """Write the documents ``shas`` into ``output`` in ``form`` (see the module's doc), every path and
    name as ``redact_path`` shows it."""
    check_form(form, raw=raw, chunks=chunks)
    shown = documents(wh, shas, raw=raw, chunks=chunks, redact_path=redact_path)
    return write(shown, output, form, progress=progress)


def check_form(form: str, *, raw: bool = False, chunks: bool = False) -> None:
    if form not in FORMS:
        raise ExportError(f"unknown form {form!r}: use one of {', '.join(FORMS)}")
    if (raw or chunks) and form in ("md", "txt"):
        raise ExportError("--raw and --chunks go into the JSON forms: add --to json or --to jsonl")


def _without_text(report: ExportReport, doc: ExportedDocument) -> None:
    path = doc.shown or doc.path
    report.without_text.append(path)
    report.why[path] = f"{doc.status or 'not judged yet'}" + (f" ({doc.reason})" if doc.reason else "")


def write(
    docs: Sequence[ExportedDocument],
    output: Path,
    form: str,
    *,
    progress: Callable[[], object] | None = None,
) -> ExportReport:
    """Write ``docs`` into the folder ``output`` in ``form``; no file lands outside it."""
    check_form(form)
    if output.exists() and not output.is_dir():
        raise ExportError(f"{output} is a file: give a folder to export into")
    named = names(docs)
    if form == "jsonl":
        planned = [output / JSONL_NAME]
    else:
        planned = [output.joinpath(*named[d.sha256]) for d in docs if d.text is not None]
        planned = [p.with_name(p.name + _SUFFIX[form]) for p in planned]
    _check_room(output, planned)
    output.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(output)
    report = ExportReport(form, output)
    if form == "jsonl":
        target = inside(output, [JSONL_NAME.removesuffix(".jsonl")], ".jsonl")
        with _atomic(target) as f:
            for doc in _advancing(docs, progress):
                f.write(json.dumps(doc.as_json(), ensure_ascii=False) + "\n")
                if doc.text is None:
                    _without_text(report, doc)
        report.written.append(target)
        return report
    for doc in _advancing(docs, progress):
        if doc.text is None:
            _without_text(report, doc)
            continue
        target = inside(output, named[doc.sha256], _SUFFIX[form])
        target.parent.mkdir(parents=True, exist_ok=True)
        inside(output, named[doc.sha256], _SUFFIX[form])  # again: a folder just made cannot be a link
        with _atomic(target) as f:
            f.write(render(doc, form))
        report.written.append(target)
    return report


def render(doc: ExportedDocument, form: str) -> str:
    """What the file of ``doc`` holds in the form ``md``, ``txt`` or ``json`` (its text must not be None
    for ``md`` and ``txt``); ``jsonl``: its line."""
    if form == "md":
        return front_matter(doc) + (doc.text or "")
    if form == "txt":
        return doc.text or ""
    if form == "jsonl":
        return json.dumps(doc.as_json(), ensure_ascii=False) + "\n"
    return json.dumps(doc.as_json(), ensure_ascii=False, indent=2) + "\n"


def write_stream(
    docs: Sequence[ExportedDocument],
    out: TextIO,
    form: str,
    *,
    shown: PathShown = _as_is,
    progress: Callable[[], object] | None = None,
) -> ExportReport:
    """Write ``docs`` to the stream ``out`` in ``form`` (the module's doc says how the forms are one
    stream); documents without text are counted as :func:`write` counts them. ``md`` and ``txt`` are
    written as ``shown`` shows them (orchestration/printing.py ``visible`` for a terminal); JSON with its
    control characters as escapes (``json_text``), the values exact."""
    check_form(form)
    report = ExportReport(form, Path(STDOUT))
    if form == "json":
        objects = []
        for doc in _advancing(docs, progress):
            objects.append(doc.as_json())
            if doc.text is None:
                _without_text(report, doc)
        out.write(json_text(objects, indent=2) + "\n")
        return report
    several = form != "jsonl" and sum(1 for d in docs if d.text is not None) > 1
    first = True
    for doc in _advancing(docs, progress):
        if doc.text is None:
            _without_text(report, doc)
            if form != "jsonl":
                continue
        if form == "jsonl":
            out.write(json_text(doc.as_json()) + "\n")
            continue
        if several:
            name = _UNSAFE.sub("_", doc.shown or doc.path)  # one line, whatever the path holds
            out.write(("" if first else "\n") + shown(f"==> {name} <==\n"))
        content = shown(render(doc, form))
        out.write(content if content.endswith("\n") else content + "\n")
        first = False
    return report


def _check_room(output: Path, targets: Iterable[Path]) -> None:
    """Refuse, before anything is written, an export whose files would land where a folder is (or under
    a name that is a file, where a folder is needed): the message names the first few."""
    clashes: list[str] = []
    for target in targets:
        if target.is_dir():
            clashes.append(f"{target} is a folder where an exported file goes")
            continue
        for parent in target.relative_to(output).parents:
            folder = output / parent
            if folder != output and folder.exists() and not folder.is_dir():
                clashes.append(f"{folder} is a file where a folder of exported files goes")
                break
    if clashes:
        unique = sorted(set(clashes))
        more = f" (and {len(unique) - 3} more)" if len(unique) > 3 else ""
        raise ExportError(
            "; ".join(unique[:3]) + more + ": move it away or export into another folder "
            "(--output). Nothing was written."
        )


def remove_stale_temporaries(output: Path) -> int:
    """Delete the temporary files an export killed on the way left in ``output`` (named by
    :func:`readers.core.atomic.temporary_beside`, their writer gone); returns how many."""
    removed = 0
    for tmp in output.rglob(".*.tmp"):
        if TEMPORARY_NAME.fullmatch(tmp.name) and tmp.is_file() and stale_temporary(tmp):
            tmp.unlink(missing_ok=True)
            removed += 1
    return removed


def _advancing(
    items: Iterable[ExportedDocument], progress: Callable[[], object] | None
) -> Iterable[ExportedDocument]:
    for item in items:
        yield item
        if progress is not None:
            progress()


@contextlib.contextmanager
def _atomic(target: Path) -> Iterator[TextIO]:
    """Write a file whole or not at all (readers/core/atomic.py): the text file to write, in a temporary
    beside ``target`` renamed over it when the block ends without an exception."""
    with (
        written_whole(target) as temporary,
        open(temporary, "w", encoding="utf-8", errors="surrogatepass", newline="") as file,
    ):
        yield file
