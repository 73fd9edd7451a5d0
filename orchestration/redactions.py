"""``assay redactions``: each redaction of a finished run judged from the text around it, and the
detectors' precision per kind.

Everything comes from the sanitized tables, ``redactions`` and ``texts`` (with the document's name shown
through the path redactor), so nothing printed can hold a value the detectors took out: the judge
(quality/pii_review.py) sees the placeholder and its context, as any reader of the stored text does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

from rich.console import Console
from rich.table import Table
from rich.text import Text

from orchestration.printing import json_text, visible
from quality.pii_review import Judged, Precision, Verdict, judge, precision
from warehouse import Warehouse
from warehouse.duckdb_catalog import query

# Characters of the judged context shown on each side of a placeholder in the listing.
SHOWN_CONTEXT_CHARS = 40


@dataclass(frozen=True, slots=True)
class Reviewed:
    """One redaction of one document, judged."""

    name: str
    sha256: str
    page: int
    judged: Judged


def review(wh: Warehouse, redact_path: Callable[[str], str]) -> list[Reviewed]:
    """Every redaction of the current extractor version, judged, in the order of documents and offsets."""
    rows = query(
        wh,
        "select r.sha256, r.page, r.kind, r.start, r.end, r.placeholder, "
        "coalesce(d.member, d.path) as name "
        "from redactions r left join documents d using (sha256) order by name, r.sha256, r.start",
    ).rows
    texts = dict(
        query(wh, "select sha256, text from texts where sha256 in (select sha256 from redactions)").rows
    )
    out: list[Reviewed] = []
    for sha256, page, kind, start, end, placeholder, name in rows:
        text = texts.get(sha256)
        if text is None or text[start:end] != placeholder:
            continue  # a text of another sanitize run; nothing to judge it against
        shown_name = redact_path(name).rsplit("/", 1)[-1] if name else sha256[:12]
        out.append(Reviewed(shown_name, sha256, page, judge(kind, placeholder, text, start, end)))
    return out


def print_precision(console: Console, reviewed: list[Reviewed]) -> None:
    table = Table(
        "kind",
        "made",
        "not personal data",
        "personal (labelled)",
        "undecided",
        "precision",
        title="Redactions judged from their context (quality/pii_review.py)",
    )
    figures = precision(r.judged for r in reviewed)
    total = Precision(
        "all",
        sum(f.made for f in figures),
        sum(f.structure for f in figures),
        sum(f.personal for f in figures),
        sum(f.undecided for f in figures),
    )
    for f in [*figures, total]:
        share = "-" if f.precision is None else f"{100 * f.precision:.1f} %"
        table.add_row(f.kind, str(f.made), str(f.structure), str(f.personal), str(f.undecided), share)
    console.print(table)
    console.print(
        "precision = (made - not personal data) / made; undecided redactions count as personal data, so "
        "it is an upper bound: `assay redactions` lists each one with its context."
    )


def print_listing(console: Console, reviewed: list[Reviewed]) -> None:
    styles = {Verdict.STRUCTURE: "red", Verdict.PERSONAL: "green", Verdict.UNDECIDED: "yellow"}
    for r in reviewed:
        j = r.judged
        head = Text()
        head.append(f"{j.verdict.value:9} ", style=styles[j.verdict])
        head.append(f"{j.kind:11} ", style="bold")
        head.append(visible(f"{r.name} p{r.page}"))
        if j.rule:
            head.append(f"  ({j.rule})", style="dim")
        console.print(head)
        context = j.before[-SHOWN_CONTEXT_CHARS:] + j.placeholder + j.after[:SHOWN_CONTEXT_CHARS]
        console.print(Text("    " + visible(context.replace("\n", "⏎"))))
    console.print(f"[dim]{len(reviewed)} redactions[/]")


def to_json(reviewed: list[Reviewed]) -> str:
    return json_text(
        {
            "precision": [
                {**asdict(f), "precision": f.precision} for f in precision(r.judged for r in reviewed)
            ],
            "redactions": [
                {"name": r.name, "sha256": r.sha256, "page": r.page, **asdict(r.judged)} for r in reviewed
            ],
        },
        indent=2,
    )
