"""Where each page's final text comes from: the text layer, the fallback reader, a repair, or OCR.

The verdicts decide what a page's text layer is worth; the OCR stage reads what they sent it. This module
makes the one choice sanitize and lineage rely on, per page, and records it with the evidence behind it,
so that "why does page 7 of this document say that?" has a one-row answer.

The choice, by mode (DESIGN §4):

- ``TEXT``/``LANG``: the extracted text, or the fallback reader's when the verdicts preferred it;
- ``REPAIRED``: the repaired text;
- ``FIGURES``: the extracted text, plus what OCR read in its figure regions under a
  ``## Page N (transcribed figures)`` heading (the text alone when OCR read nothing there);
- ``REPLACE``: the OCR text; when OCR produced nothing or failed, no text at all, with the reason
  (the garbage that was replaced never comes back);
- ``BLANK``: no text.

A page with no text has ``source = none`` and a reason, never an empty string.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from quality.records import OcrPageRecord, OcrScope, PageTextRecord, PageVerdictRecord, RepairRecord, Source
from quality.verdicts import Mode

# Trust of a page's text, 0-1, on one scale with OCR's mean word confidence (0-100, divided by 100) so
# that a chunk's trust can be the minimum over its pages. A text layer judged clean is the best text there
# is. A repair or another decoder's text passed the same lexicon check as a clean text layer, but the
# mapping was inferred, not read (the repairs' round-trip checks on the calibration set leave a few
# per cent of characters wrong), hence a tenth less. An OCR sandwich is someone else's OCR that our
# checks found clean; its word confidences are unknown, so it gets the repaired text's trust.
TEXT_LAYER_TRUST = 1.0
INFERRED_TEXT_TRUST = 0.9
OCR_LAYER_TRUST = 0.9


@dataclass(frozen=True, slots=True)
class ExtractedPage:
    """What the extract stage read on one page: only what the choice needs."""

    page: int
    text: str
    reader: str
    reader_version: str


def figures_heading(page: int) -> str:
    return f"## Page {page} (transcribed figures)"


def choose_page_texts(
    sha256: str,
    shard: str,
    version: str,
    verdicts: Sequence[PageVerdictRecord],
    extracted: Iterable[ExtractedPage],
    repairs: Iterable[RepairRecord],
    ocr: Iterable[OcrPageRecord],
) -> list[PageTextRecord]:
    """One row per judged page of one document, in page order."""
    by_page = {p.page: p for p in extracted}
    repaired = {r.page: r for r in repairs}
    ocr_page = {o.page: o for o in ocr if o.scope == OcrScope.PAGE}
    ocr_figures = {o.page: o for o in ocr if o.scope == OcrScope.FIGURES}

    def row(
        v: PageVerdictRecord,
        source: Source,
        text: str | None,
        *,
        reason: str | None = None,
        tool: str = "",
        tool_version: str = "",
        trust: float | None = None,
        ocr_confidence: float | None = None,
    ) -> PageTextRecord:
        has_text = bool(text and text.strip())
        return PageTextRecord(
            sha256=sha256,
            shard=shard,
            extractor_version=version,
            page=v.page,
            mode=v.mode,
            source=source.value if has_text else Source.NONE.value,
            reason=reason if has_text else (reason or "empty_text"),
            tool=tool,
            tool_version=tool_version,
            trust=trust if has_text else None,
            ocr_confidence=ocr_confidence,
            chars=sum(1 for c in text if not c.isspace()) if text and has_text else 0,
            text=text if has_text else None,
        )

    out: list[PageTextRecord] = []
    for v in sorted(verdicts, key=lambda v: v.page):
        page = by_page.get(v.page)
        tool, tool_version = (page.reader, page.reader_version) if page else ("", "")
        layer_trust = OCR_LAYER_TRUST if v.provenance == "ocr_sandwich" else TEXT_LAYER_TRUST
        if v.mode == Mode.BLANK:
            out.append(row(v, Source.NONE, None, reason="blank"))
        elif v.mode == Mode.REPLACE:
            o = ocr_page.get(v.page)
            if o is None:
                out.append(row(v, Source.NONE, None, reason="ocr_not_run"))
            elif o.status != "derived":
                out.append(
                    row(
                        v,
                        Source.NONE,
                        None,
                        reason=f"ocr_{o.status}:{o.reason}",
                        tool=o.engine,
                        tool_version=o.engine_version,
                    )
                )
            else:
                conf = o.confidence
                out.append(
                    row(
                        v,
                        Source.OCR,
                        o.text,
                        tool=o.engine,
                        tool_version=o.engine_version,
                        trust=round(conf / 100, 4) if conf is not None else None,
                        ocr_confidence=conf,
                    )
                )
        elif v.text_source in (Source.FALLBACK, Source.REPAIRED) and v.page in repaired:
            r = repaired[v.page]
            out.append(
                row(
                    v,
                    Source(v.text_source),
                    r.text,
                    tool=r.tool,
                    tool_version=r.tool_version,
                    trust=INFERRED_TEXT_TRUST,
                )
            )
        elif v.mode == Mode.FIGURES and v.page in ocr_figures and ocr_figures[v.page].status == "derived":
            o = ocr_figures[v.page]
            body = page.text if page else ""
            text = f"{body.rstrip()}\n\n{figures_heading(v.page)}\n\n{o.text}"
            # Trust weighted by characters: the transcription is a small part of a trusted page.
            body_chars = sum(1 for c in body if not c.isspace())
            conf = (o.confidence or 0.0) / 100
            trust = (layer_trust * body_chars + conf * o.chars) / max(1, body_chars + o.chars)
            out.append(
                row(
                    v,
                    Source.EXTRACTED_AND_FIGURES,
                    text,
                    tool=f"{tool}+{o.engine}",
                    tool_version=f"{tool_version}+{o.engine_version}",
                    trust=round(trust, 4),
                    ocr_confidence=o.confidence,
                )
            )
        else:
            text = page.text if page else None
            out.append(
                row(v, Source.EXTRACTED, text, tool=tool, tool_version=tool_version, trust=layer_trust)
            )
    return out
