"""``assay check FILE``: the same sniffing, reader dispatch, signals, verdicts and OCR as a run, on one
file, storing nothing; and the file's final outcome, by the same definition as the ``outcomes`` view
(warehouse/outcome_query.py), over the rows the check made. With a scrubber, the clean text is what ``texts``
would hold (personal data as placeholders); ``assay check FILE --to md|txt|json`` prints it in the
export's forms (:meth:`FileCheckOutcome.exported`, orchestration/export.py)."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from assets.extract.work import ShardResult, ShardRows, extract_shard
from assets.ocr.work import ShardInput, ocr_shards
from assets.verdicts.judging import judge_document_rows
from orchestration.export import ExportedDocument, PathShown, document_of
from orchestration.printing import shown, visible
from quality.judge import DocumentVerdicts
from quality.outcomes import OutcomeRecord, describe, has_text
from quality.pii import Scrubber
from quality.records import OcrPageRecord, PageTextRecord
from quality.sanitizer import PageHidden, Sanitized, sanitize_document
from quality.sources import ExtractedPage
from readers.core.model import OCR_KINDS, ContentKind, ReadLimits
from readers.core.reader_chain import readers_for
from readers.core.reading_records import DocumentRecord
from readers.core.versions import EXTRACTOR_VERSION
from readers.engine.isolation import IsolatedReads, ReadBudgets
from readers.images.tesseract import installed_languages
from readers.walk.sniff import HEAD_BYTES, Sniffed, sniff
from warehouse.outcome_query import outcomes_of

CHECK_MAX_BYTES = 1 << 40  # a file named on the command line is read whatever its size
SIGNAL_COLUMNS = (
    "language",
    "language_similarity",
    "lexicon_hit_rate",
    "lexicon_weight",
    "bad_rune_ratio",
    "image_coverage",
    "invisible_share",
)


@dataclass(frozen=True, slots=True)
class FileCheckOutcome:
    path: Path
    size: int
    sha256: str
    sniffed: Sniffed
    document: DocumentRecord
    extracted: ShardResult
    verdicts: DocumentVerdicts
    ocr: list[OcrPageRecord]
    texts: list[PageTextRecord]
    final: OutcomeRecord  # what the file finally yields, as the outcomes view would say
    clean: Sanitized  # what sanitize makes of the final texts: the clean text and what it took out

    @property
    def derivation(self):
        return self.extracted.rows.derivations[self.sha256]

    @property
    def yields_text(self) -> bool:
        """The file ends with text (derived, by a fallback reader, a repair or OCR): check's exit code."""
        return has_text(self.final.outcome)

    def as_dict(self) -> dict[str, Any]:
        d = self.derivation
        verdict = {v.page: v for v in self.verdicts.pages}
        return {
            "path": str(self.path),
            "size": self.size,
            "sha256": self.sha256,
            "extractor_version": EXTRACTOR_VERSION,
            "kind": self.sniffed.kind.value,
            "kind_decided_by": self.sniffed.decided_by.value,
            "readers": [r.name for r in readers_for(self.sniffed.kind)],
            "outcome": self.final.outcome,
            "outcome_reason": self.final.reason,
            "status": d.status,
            "reason": d.reason,
            "reader": d.reader,
            "reader_version": d.reader_version,
            "recovered_by_fallback": d.recovered_by_fallback,
            "encoding": d.encoding,
            "encoding_source": d.encoding_source,
            "attempts": [asdict(u) for u in self.extracted.rows.underivables.get(self.sha256, [])],
            "pages": [
                {
                    **asdict(p),
                    "mode": verdict[p.page].mode if p.page in verdict else None,
                    "reasons": verdict[p.page].reasons if p.page in verdict else [],
                    "provenance": verdict[p.page].provenance if p.page in verdict else None,
                    "text_source": verdict[p.page].text_source if p.page in verdict else None,
                }
                for p in self.extracted.rows.pages.get(self.sha256, [])
            ],
            "fonts": [asdict(f) for f in self.verdicts.fonts],
            "repairs": [asdict(r) for r in self.verdicts.repairs],
            "ocr": [asdict(o) for o in self.ocr],
            "final_texts": [asdict(t) for t in self.texts],
            "furniture": [asdict(f) for f in self.clean.furniture],
            "hidden_text": [asdict(h) for h in self.clean.hidden],
        }

    def exported(self, redact_path: PathShown) -> ExportedDocument:
        """The file as ``assay export`` would write it after a run: its clean text (None when it has
        none), its pages' anchors and verdicts; its path as ``redact_path`` shows it."""
        text = self.clean.text
        row = {
            "sha256": self.sha256,
            "path": self.document.path,
            "rel_path": self.path.name,
            "kind": self.sniffed.kind.value,
            "extractor_version": EXTRACTOR_VERSION,
            "parent_sha256": None,
            "member": None,
            "status": self.final.outcome,
            "reason": self.final.reason,
            "text": text.text if text is not None else None,
            "pages": text.pages if text is not None else [],
            "page_starts": text.page_starts if text is not None else [],
            "sanitize_version": text.sanitize_version if text is not None else None,
        }
        final = {t.page: t for t in self.texts}
        pages = []
        for v in sorted(self.verdicts.pages, key=lambda v: v.page):
            t = final.get(v.page)
            pages.append(
                {
                    "page": v.page,
                    "mode": v.mode,
                    "reasons": v.reasons,
                    "judged_by": v.judged_by,
                    "language": v.language,
                    "source": t.source if t else None,
                    "trust": t.trust if t else None,
                    "label": t.label if t else None,
                    "raw_text": None,
                }
            )
        doc = document_of(row, pages)
        doc.shown = doc.path = redact_path(doc.path)
        doc.rel_path = redact_path(doc.rel_path)
        return doc

    def print(self, console: Console, *, chars: int) -> None:
        d = self.derivation
        chain = " → ".join(r.name for r in readers_for(self.sniffed.kind)) or "none"
        # Every value shown goes through shown()/visible(): names, fonts, reasons and texts are the file's.
        console.print(f"[bold]{shown(self.path)}[/]  {self.size} bytes  sha256 {self.sha256[:16]}…")
        console.print(
            f"kind: [bold]{self.sniffed.kind.value}[/] (decided by {self.sniffed.decided_by.value})"
            f"   readers: {chain}"
        )
        for u in self.extracted.rows.underivables.get(self.sha256, []):
            console.print(
                f"  {u.attempt}. {shown(u.tool)} {shown(u.reader_version)}: [yellow]{shown(u.reason)}[/] "
                f"{shown(u.detail)}"
            )
        f = self.final
        colour = "green" if self.yields_text else "red"
        status = f"[bold {colour}]{shown(describe(f.outcome))}[/]"
        status += f" ({shown(f.reason)})" if f.reason else ""
        if f.pages:
            status += f": {f.pages_with_text} of {f.pages} pages with text" + (
                f", {f.pages_ocr} read by OCR" if f.pages_ocr else ""
            )
        console.print(f"status: {status}")
        readers = f"{shown(d.status)}" + (f" ({shown(d.reason)})" if d.reason else "")
        if d.reader:
            readers += f" by {shown(d.reader)} {shown(d.reader_version)}" + (
                ", recovered by fallback" if d.recovered_by_fallback else ""
            )
        console.print(f"text layer: {readers}")
        if d.encoding:
            console.print(f"encoding: {shown(d.encoding)} (by {shown(d.encoding_source)})")
        verdict = {v.page: v for v in self.verdicts.pages}
        final = {t.page: t for t in self.texts}
        read = {(o.page, o.scope): o for o in self.ocr if o.kept is not False}
        table = Table("page", "mode", "reasons", "provenance", "signals", "final text", show_lines=True)
        for p in self.extracted.rows.pages.get(self.sha256, []):
            v, t = verdict.get(p.page), final.get(p.page)
            signals = "\n".join(f"{c} {_fmt(getattr(p, c))}" for c in SIGNAL_COLUMNS)
            for o in (read.get((p.page, "page")), read.get((p.page, "figures"))):
                if o is not None:
                    signals += (
                        f"\nOCR {o.scope}: {o.status}{f' ({o.reason})' if o.reason else ''}, {o.language} "
                        f"({o.language_source}), rotated {o.rotation}°, confidence {_fmt(o.confidence)}"
                    )
            body = (t.text or "") if t else p.text
            text = body if len(body) <= chars else body[:chars] + " …"
            source = f"{t.source}" + (f" ({t.reason})" if t.reason else "") if t else "-"
            cells = (
                str(p.page),
                v.mode if v else "-",
                "\n".join(v.reasons) if v else "",
                f"{v.provenance}\n→ {source}" if v else "",
                signals,
                text,
            )
            table.add_row(*(Text(visible(c)) for c in cells))
        console.print(table)
        for r in self.verdicts.repairs:
            console.print(
                f"page {r.page}: text replaced by {shown(r.method)} ({shown(r.tool)}), "
                f"lexicon score {r.score:.2f}"
            )
        garbled = [f.font for f in self.verdicts.fonts if f.garbled]
        if garbled:
            console.print(f"fonts scoring as garbled: {shown(', '.join(garbled))}")
        furniture, hidden = len(self.clean.furniture), sum(1 for h in self.clean.hidden if h.found)
        if furniture or hidden or (self.clean.text is None and f.pages_with_text):
            kept = (
                f"{self.clean.text.chars} characters of clean text"
                if self.clean.text is not None
                else "[red]no clean text[/]"
            )
            console.print(
                f"sanitize: {kept}; taken out: {hidden} invisible runs, {furniture} header/footer lines"
            )
        console.print("[dim]nothing was stored: `assay run PATH` records the results[/]")


def _settings_budgets() -> ReadBudgets:
    from assets.settings import settings_from_env

    return settings_from_env().budgets()


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "-" if value is None else str(value)


def check_file(
    path: Path,
    *,
    ocr: bool = True,
    ocr_language: str = "eng",
    budgets: ReadBudgets | None = None,
    scrubber: Scrubber | None = None,
) -> FileCheckOutcome:
    """What a run would record for ``path``; ``ocr=False`` leaves Tesseract out (pages sent to OCR then
    have no final text, reason ``ocr_not_run``). The file is read in a worker under ``budgets`` (the
    settings' by default), as a run reads it: a file that hangs a reader gets its verdict here too.
    ``scrubber``: the personal data sanitize takes out of the clean text (the settings' ``scrubber()``
    for the text a run stores; None leaves it in)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES)
        digest.update(head)
        while block := fh.read(1 << 20):
            digest.update(block)
    sha = digest.hexdigest()
    size = path.stat().st_size
    sniffed = sniff(head, path.name)
    doc = DocumentRecord(
        sha,
        sha[:2],
        sniffed.kind.value,
        sniffed.decided_by.value,
        size,
        None,
        None,
        str(path.absolute()),
        EXTRACTOR_VERSION,
    )
    limits = ReadLimits()
    budgets = budgets or _settings_budgets()
    # The verdicts' work on the file (the second opinion...) runs in the same worker, under the same budget.
    with IsolatedReads(limits, CHECK_MAX_BYTES, budgets, workers=1, kinds=[sniffed.kind]) as reads:
        extracted = extract_shard(
            doc.shard,
            [doc],
            version=EXTRACTOR_VERSION,
            existing=ShardRows(),
            prior=None,
            limits=limits,
            max_document_bytes=CHECK_MAX_BYTES,
            reads=reads,
        )
        pages = extracted.rows.pages.get(sha, [])
        verdicts = (
            judge_document_rows(
                doc.kind,
                Path(doc.path),
                sha,
                doc.shard,
                EXTRACTOR_VERSION,
                pages,
                extracted.rows.fonts.get(sha, []),
                limits,
                size=doc.size,
                jobs=reads,
            )
            if pages
            else DocumentVerdicts()
        )
    (read,) = ocr_shards(
        [
            ShardInput(
                shard=doc.shard,
                documents=[doc],
                verdicts=verdicts.pages,
                pages=[ExtractedPage(p.page, p.text, p.reader, p.reader_version, p.label) for p in pages],
                page_documents=[sha] * len(pages),
                repairs=verdicts.repairs,
                existing=[],
            )
        ],
        EXTRACTOR_VERSION,
        default_language=ocr_language,
        installed=installed_languages() if ocr else (),
        read=ocr,
    )
    clean = _sanitized(doc, pages, verdicts, read.texts, scrubber)
    (final,) = outcomes_of(
        [extracted.rows.derivations[sha]],
        read.texts,
        [doc],
        [clean.text] if clean.text is not None else [],
        clean.hidden,
        clean.furniture,
    )
    return FileCheckOutcome(
        path, size, sha, sniffed, doc, extracted, verdicts, read.ocr, read.texts, final, clean
    )


def _sanitized(
    doc: DocumentRecord,
    pages: list,
    verdicts: DocumentVerdicts,
    texts: list[PageTextRecord],
    scrubber: Scrubber | None,
) -> Sanitized:
    """What sanitize makes of the final page texts, as a run does, so the outcome says when nothing would
    be left; personal data taken out by ``scrubber`` (None: left in place)."""
    sandwich = {v.page for v in verdicts.pages if v.provenance == "ocr_sandwich"}
    hidden = {
        p.page: PageHidden(p.hidden_text, p.hidden_why or [], p.page in sandwich)
        for p in pages
        if p.hidden_text
    }
    return sanitize_document(
        doc.sha256,
        doc.shard,
        EXTRACTOR_VERSION,
        texts,
        hidden,
        scrubber,
        paged=ContentKind(doc.kind) in OCR_KINDS,
        artifacts={p.page: p.artifacts for p in pages if p.artifacts},
        artifact_sources={p.page: p.artifacts_source for p in pages if p.artifacts and p.artifacts_source},
    )
