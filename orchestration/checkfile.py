"""``assay check FILE``: the same sniffing and reader dispatch as a run, on one file, storing nothing."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from readers.dispatch import Extraction, extract_document
from readers.model import ReadLimits
from readers.sniff import HEAD_BYTES, Sniffed, sniff
from readers.table import readers_for
from readers.versions import EXTRACTOR_VERSION

CHECK_MAX_BYTES = 1 << 40  # a file named on the command line is read whatever its size


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    path: Path
    size: int
    sha256: str
    sniffed: Sniffed
    extraction: Extraction

    def as_dict(self) -> dict[str, Any]:
        ex = self.extraction
        return {
            "path": str(self.path),
            "size": self.size,
            "sha256": self.sha256,
            "extractor_version": EXTRACTOR_VERSION,
            "kind": self.sniffed.kind.value,
            "kind_decided_by": self.sniffed.decided_by.value,
            "readers": [r.name for r in readers_for(self.sniffed.kind)],
            "status": ex.status.value,
            "reason": ex.reason,
            "reader": ex.reader,
            "reader_version": ex.reader_version,
            "recovered_by_fallback": ex.recovered_by_fallback,
            "encoding": ex.result.encoding if ex.result else None,
            "encoding_source": ex.result.encoding_source if ex.result else None,
            "attempts": [asdict(a) for a in ex.attempts],
            "pages": [
                {"page": p.page, "chars": len(p.text), "text": p.text, "facts": asdict(p.facts)}
                for p in (ex.result.pages if ex.result else ())
            ],
        }

    def print(self, console: Console, *, chars: int) -> None:
        ex = self.extraction
        chain = " → ".join(r.name for r in readers_for(self.sniffed.kind)) or "none"
        console.print(f"[bold]{self.path}[/]  {self.size} bytes  sha256 {self.sha256[:16]}…")
        console.print(
            f"kind: [bold]{self.sniffed.kind.value}[/] (decided by {self.sniffed.decided_by.value})"
            f"   readers: {chain}"
        )
        for a in ex.attempts:
            verdict = "[green]produced text[/]" if a.produced else f"[yellow]{a.reason}[/] {a.detail}"
            console.print(
                f"  {a.ordinal}. {a.reader} {a.reader_version}: {verdict}  ({a.duration_ms:.0f} ms)"
            )
        status = f"[bold]{ex.status.value}[/]" + (f" ({ex.reason})" if ex.reason else "")
        if ex.reader:
            status += f" by {ex.reader}" + (", recovered by fallback" if ex.recovered_by_fallback else "")
        console.print(f"status: {status}")
        if ex.result is None:
            return
        if ex.result.encoding:
            console.print(f"encoding: {ex.result.encoding} (by {ex.result.encoding_source})")
        table = Table("page", "chars", "fonts", "images", "drawings", "tables", "text", show_lines=True)
        for p in ex.result.pages:
            text = p.text if len(p.text) <= chars else p.text[:chars] + " …"
            table.add_row(
                str(p.page),
                str(len(p.text)),
                str(p.facts.fonts),
                str(p.facts.images),
                str(p.facts.drawings),
                str(p.facts.tables),
                text,
            )
        console.print(table)
        console.print("[dim]nothing was stored: `assay run PATH` records the results[/]")


def check_file(path: Path) -> CheckOutcome:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES)
        digest.update(head)
        while block := fh.read(1 << 20):
            digest.update(block)
    size = path.stat().st_size
    sniffed = sniff(head, path.name)
    extraction = extract_document(
        path, sniffed.kind, size=size, limits=ReadLimits(), max_bytes=CHECK_MAX_BYTES
    )
    return CheckOutcome(path, size, digest.hexdigest(), sniffed, extraction)
