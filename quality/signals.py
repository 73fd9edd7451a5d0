"""The signals of every page of one document, computed at extract time on the raw text.

The body font size is a document fact (the most common size, weighted by characters, across all pages), so
the pages are measured together; each page then gets its text signals and, where the reader knows the
layout, the per-font lexicon evidence the verdicts sum across the document.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from quality.lexicon import load_lexicon
from quality.text_signals import FontEvidence, PageSignals, font_evidence, page_signals
from readers.core.base import collector_paused
from readers.core.model import Block, PageText


@dataclass(frozen=True, slots=True)
class PageMeasures:
    signals: PageSignals
    fonts: dict[str, FontEvidence]


def body_size(pages: Sequence[PageText]) -> float | None:
    """The document's body size: the span size that carries the most non-whitespace characters."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for block in page.blocks:
            for line in block.lines:
                for span in line.spans:
                    n = len(span.text) - span.text.count(" ")
                    if n > 0:
                        sizes[round(span.size * 2) / 2] += n
    return sizes.most_common(1)[0][0] if sizes else None


def measure_document(pages: Sequence[PageText]) -> list[PageMeasures]:
    with collector_paused():
        return _measure(pages)


def _measure(pages: Sequence[PageText]) -> list[PageMeasures]:
    size = body_size(pages)
    out = []
    for page in pages:
        signals = page_signals(page, body_size=size, page_height=page.facts.height)
        fonts: dict[str, FontEvidence] = {}
        if page.blocks:
            fonts = _font_evidence(page.blocks, signals, size, page.facts.height)
        out.append(PageMeasures(signals, fonts))
    return out


def _font_evidence(
    blocks: Sequence[Block], signals: PageSignals, size: float | None, height: float
) -> dict[str, FontEvidence]:
    if signals.lexicon_language is None:
        # No judging lexicon for this page: still count each font's characters (the abstained share).
        counts: Counter[str] = Counter()
        for block in blocks:
            for line in block.lines:
                for span in line.spans:
                    counts[span.font] += len(span.text) - span.text.count(" ")
        return {f: FontEvidence(f, n, 0, 0.0, 0.0) for f, n in counts.items() if n > 0}
    lexicon = load_lexicon(signals.lexicon_language)
    return font_evidence(blocks, lexicon, body_size=size, page_height=height)
