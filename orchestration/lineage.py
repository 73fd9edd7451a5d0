"""``assay lineage PATH|SHA256``: what happened to one document, from the bytes to the chunks.

Everything comes from the catalog (the ``lineage`` view and the tables it joins), so the answer is what
the warehouse holds: the paths the bytes were seen at, the container they came from, the derivation with
its reader and fallback, each page's mode, reasons and final-text source (OCR with its confidence), what
sanitize took out, the chunks, and the versions at every step; ``--all-versions`` adds the older
extractor versions' derivations.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field

from rich.console import Console
from rich.table import Table
from rich.text import Text

from assets.stages import graph
from orchestration.printing import json_text, shown, visible
from quality.records import Source
from warehouse import Warehouse
from warehouse.duckdb_catalog import catalog_version, query
from warehouse.warehouse_errors import WarehouseError

_SHA_PREFIX = re.compile(r"[0-9a-f]{6,64}")


@dataclass(frozen=True, slots=True)
class PageLineage:
    page: int
    mode: str
    reasons: list[str]
    provenance: str
    source: str | None
    tool: str | None
    trust: float | None
    ocr_confidence: float | None
    ocr_language: str | None
    rotation: int | None
    no_text_reason: str | None


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    stage: str
    tool: str
    tool_version: str


@dataclass
class Lineage:
    sha256: str
    extractor_version: str
    kind: str
    size: int
    paths: list[str]
    parent_sha256: str | None
    member: str | None
    parent_paths: list[str]
    children: list[dict[str, str]]
    # What the walk made of a container's members (the expansions row): status, reason, detail, members.
    expansion: dict[str, str] | None
    status: str | None
    reason: str | None
    reader: str | None
    reader_version: str | None
    recovered_by_fallback: bool
    attempts: list[dict[str, str]]
    pages: list[PageLineage]
    text_chars: int | None
    redactions: dict[str, int]
    hidden_runs: int
    furniture_lines: int
    chunks: list[dict[str, object]]
    edges: list[Edge]
    older: list[dict[str, object]] = field(default_factory=list)
    # What the document finally yielded and why (the outcomes view: quality/outcomes.py).
    outcome: str | None = None
    outcome_reason: str | None = None

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


class DocumentNotFound(WarehouseError):
    pass


def resolve(wh: Warehouse, target: str) -> str:
    """The sha256 of a path that was walked, or of a unique sha256 prefix."""
    path = os.path.abspath(target)
    rows = query(
        wh, "select distinct sha256 from observations where path = ? and sha256 is not null", [path]
    ).rows
    if rows:
        return rows[0][0]
    if re.fullmatch(r"[0-9a-f]{1,5}", target.lower()):
        raise DocumentNotFound(
            f"{target!r} is too short to name a document: give at least 6 hex digits of its sha256 "
            "(or a path assay walked)"
        )
    if _SHA_PREFIX.fullmatch(target.lower()):
        rows = query(wh, "select sha256 from documents where sha256 like ?", [target.lower() + "%"]).rows
        if len(rows) == 1:
            return rows[0][0]
        if len(rows) > 1:
            raise DocumentNotFound(
                f"{target!r} is the start of {len(rows)} documents' sha256: give more of it"
            )
    raise DocumentNotFound(
        f'no document at {target!r}: give a path assay walked (`assay sql "select path from observations"`) '
        "or a sha256 (or its first hex digits)"
    )


def lineage_of(wh: Warehouse, sha: str, *, all_versions: bool = False) -> Lineage:
    one = [sha]
    doc = query(wh, "select kind, size, parent_sha256, member from documents where sha256 = ?", one).records()
    if not doc:
        raise DocumentNotFound(f"{sha} is not a document of the current extractor version")
    d = doc[0]
    paths = [
        r[0] for r in query(wh, "select path from observations where sha256 = ? order by path", one).rows
    ]
    parent_paths = (
        [r[0] for r in query(wh, "select path from documents where sha256 = ?", [d["parent_sha256"]]).rows]
        if d["parent_sha256"]
        else []
    )
    children = query(
        wh,
        "select d.member, d.sha256, d.kind, v.status from documents d left join derivations v using (sha256) "
        "where d.parent_sha256 = ? order by d.member",
        one,
    ).records()
    expansion = query(
        wh, "select status, reason, detail, members from expansions where sha256 = ?", one
    ).records()
    derivation = query(
        wh,
        "select status, reason, reader, reader_version, recovered_by_fallback from derivations "
        "where sha256 = ?",
        one,
    ).records()
    v = derivation[0] if derivation else {}
    attempts = query(
        wh,
        "select attempt, tool, tool_version, reason from underivables where sha256 = ? order by attempt",
        one,
    ).records()
    pages = [
        PageLineage(
            r["page"],
            r["mode"],
            list(r["reasons"] or []),
            r["provenance"],
            r["source"],
            r["tool"],
            r["trust"],
            r["ocr_confidence"],
            r["language"],
            r["rotation"],
            r["reason"],
        )
        for r in query(
            wh,
            "select v.page, v.mode, v.reasons, v.provenance, t.source, t.tool, t.trust, t.ocr_confidence, "
            "t.reason, o.language, o.rotation from page_verdicts v "
            "left join page_texts t using (sha256, page) "
            "left join ocr_pages o on o.sha256 = v.sha256 and o.page = v.page and o.scope = 'page' "
            "and o.kept is distinct from false "
            "where v.sha256 = ? order by v.page",
            one,
        ).records()
    ]
    text = query(wh, "select chars from texts where sha256 = ?", one).rows
    final = query(wh, "select outcome, reason from outcomes where sha256 = ?", one).rows
    redactions = dict(
        query(wh, "select kind, count(*) from redactions where sha256 = ? group by 1", one).rows
    )
    hidden = query(wh, "select count(*) from hidden_text where sha256 = ?", one).rows[0][0]
    furniture = query(wh, "select count(*) from furniture where sha256 = ?", one).rows[0][0]
    chunks = query(
        wh,
        "select ordinal, page_start, page_end, heading_path, trust from chunks "
        "where sha256 = ? order by ordinal",
        one,
    ).records()
    edges = [
        Edge(*row)
        for row in query(
            wh,
            'select "from", "to", stage, tool, tool_version from lineage where sha256 = ? '
            f"order by {_stage_order()}",
            one,
        ).rows
    ]
    older = (
        query(
            wh,
            "select extractor_version, status, reason, reader, reader_version, carried_from "
            "from all_derivations where sha256 = ? and extractor_version <> ? order by derived_at",
            [sha, catalog_version(wh) or ""],
        ).records()
        if all_versions
        else []
    )
    return Lineage(
        sha256=sha,
        extractor_version=catalog_version(wh) or "",
        kind=d["kind"],
        size=d["size"],
        paths=paths,
        parent_sha256=d["parent_sha256"],
        member=d["member"],
        parent_paths=parent_paths,
        children=[{k: str(val) for k, val in c.items()} for c in children],
        expansion={k: str(val) for k, val in expansion[0].items() if val is not None} if expansion else None,
        status=v.get("status"),
        reason=v.get("reason"),
        reader=v.get("reader"),
        reader_version=v.get("reader_version"),
        recovered_by_fallback=bool(v.get("recovered_by_fallback")),
        attempts=[{k: str(val) for k, val in a.items()} for a in attempts],
        pages=pages,
        text_chars=text[0][0] if text else None,
        redactions=redactions,
        hidden_runs=hidden,
        furniture_lines=furniture,
        chunks=[{**c, "heading_path": list(c["heading_path"] or [])} for c in chunks],
        edges=edges,
        older=older,
        outcome=final[0][0] if final else None,
        outcome_reason=final[0][1] if final else None,
    )


def mermaid(lineage: Lineage) -> str:
    """The lineage edges as a Mermaid flowchart (paste into any Markdown viewer that renders Mermaid)."""
    ids: dict[str, str] = {}

    def node(name: str) -> str:
        if name in ids:
            return ids[name]
        ids[name] = f"n{len(ids)}"
        label = visible(name if len(name) < 60 else name[:28] + "…" + name[-28:])
        return f'{ids[name]}["{label.replace(chr(34), chr(39))}"]'

    lines = ["flowchart LR"]
    for e in lineage.edges:
        version = f" {e.tool_version}" if e.tool_version else ""
        label = visible(f"{e.stage}: {e.tool}{version}").replace("|", "/")
        lines.append(f"  {node(e.source)} -->|{label}| {node(e.target)}")
    return "\n".join(lines)


def to_json(lineage: Lineage) -> str:
    return json_text(lineage.as_dict(), indent=2, default=str)


def print_lineage(console: Console, lineage: Lineage) -> None:
    # Every value shown goes through shown(): names, members, reasons and headings come from documents.
    console.print(
        f"[bold]{lineage.sha256}[/]  {shown(lineage.kind)}, {lineage.size} bytes, "
        f"extractor {shown(lineage.extractor_version)}"
    )
    for p in lineage.paths:
        console.print(f"  seen at {shown(p)}")
    if lineage.parent_sha256:
        where = shown(", ".join(lineage.parent_paths) or lineage.parent_sha256)
        console.print(
            f"  member [bold]{shown(lineage.member)}[/] of {shown(lineage.parent_sha256[:16])}… ({where})"
        )
    for c in lineage.children:
        console.print(
            f"  contains {shown(c['member'])}: {shown(c['kind'])}, {shown(c['status'])} "
            f"({shown(c['sha256'][:16])}…)"
        )
    if lineage.expansion is not None and lineage.expansion.get("status") != "expanded":
        e = lineage.expansion
        console.print(
            f"  members: [bold]{shown(e['status'])}[/] ({shown(e.get('reason') or '')}): "
            f"{shown(e.get('detail') or '')}"
        )
    status = f"[bold]{shown(lineage.status)}[/]" + (f" ({shown(lineage.reason)})" if lineage.reason else "")
    if lineage.reader:
        status += f" by {shown(lineage.reader)} {shown(lineage.reader_version)}"
        status += ", recovered by fallback" if lineage.recovered_by_fallback else ""
    console.print(f"extract: {status}")
    for a in lineage.attempts:
        console.print(
            f"  attempt {a['attempt']}: {shown(a['tool'])} {shown(a['tool_version'])}: {shown(a['reason'])}"
        )
    if lineage.pages:
        table = Table("page", "mode", "reasons", "provenance", "final text from", "trust")
        for p in lineage.pages:
            source = p.source or "-"
            if p.source == Source.OCR or (p.source or "").endswith("figures"):
                source += f" (confidence {p.ocr_confidence:.0f}, {p.ocr_language}" + (
                    f", turned {p.rotation}°)" if p.rotation else ")"
                )
            if p.no_text_reason:
                source += f" ({p.no_text_reason})"
            trust = f"{p.trust:.2f}" if p.trust is not None else "-"
            cells = (str(p.page), p.mode, ", ".join(p.reasons), p.provenance, source, trust)
            table.add_row(*(Text(visible(c or "")) for c in cells))
        console.print(table)
    taken = ", ".join(f"{n} {k}" for k, n in sorted(lineage.redactions.items())) or "no personal data"
    taken += f", {lineage.hidden_runs} invisible runs, {lineage.furniture_lines} header/footer lines"
    if lineage.text_chars is not None:
        console.print(f"sanitize: {lineage.text_chars} characters; taken out: {taken}")
    elif lineage.hidden_runs or lineage.furniture_lines:
        console.print(f"sanitize: [yellow]no clean text[/]; taken out: {taken}")
    if lineage.outcome is not None:
        console.print(
            f"outcome: [bold]{shown(lineage.outcome)}[/]"
            + (f" ({shown(lineage.outcome_reason)})" if lineage.outcome_reason else "")
        )
    if lineage.chunks:
        console.print(f"chunk: {len(lineage.chunks)} chunks")
        for c in lineage.chunks[:10]:
            pages = (
                f"p. {c['page_start']}"
                if c["page_start"] == c["page_end"]
                else f"pp. {c['page_start']}–{c['page_end']}"
            )
            console.print(f"  {c['ordinal']}: {pages}  {shown(' › '.join(c['heading_path']))}")
        if len(lineage.chunks) > 10:
            console.print(f"  … {len(lineage.chunks) - 10} more")
    for o in lineage.older:
        console.print(
            f"extractor {shown(o['extractor_version'])}: {shown(o['status'])}"
            + (f" ({shown(o['reason'])})" if o["reason"] else "")
            + (f" by {shown(o['reader'])} {shown(o['reader_version'])}" if o["reader"] else "")
        )


def lineage_for(wh: Warehouse, target: str, *, all_versions: bool = False) -> Lineage:
    return lineage_of(wh, resolve(wh, target), all_versions=all_versions)


def _stage_order() -> str:
    """A SQL ordering of the lineage's edges by their stage, in the stage graph's order."""
    cases = " ".join(f"when '{stage.name}' then {i}" for i, stage in enumerate(graph().order))
    return f"case stage {cases} else {len(graph().order)} end"
