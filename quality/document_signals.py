"""The signals of every page of one document, computed at extract time on the raw text.

The body font size is a document fact (the most common size, weighted by characters, across all pages), so
the pages are measured together; each page then gets its text signals and, where the reader knows the
layout, the per-font lexicon evidence the verdicts sum across the document. A font whose tokens miss the
lexicon across the document is a suspect: its whole text in the document is also matched against the
language profiles (:func:`suspect_similarity`), so that the verdicts can tell a broken map (matches no
language) from labels, names or pseudo-Latin (match one).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from quality import language
from quality.language import best_language
from quality.lexicon import JUDGING_LANGUAGES, load_lexicon
from quality.page_signals import (
    FontEvidence,
    PageSignals,
    font_evidence,
    forget_lexicon_verdicts,
    page_signals,
)
from quality.verdicts import MIN_LANGUAGE_SIMILARITY, TRIGRAM_MIN_LETTERS, suspect
from readers.core.base import collector_paused
from readers.core.model import Block, PageText


@dataclass(frozen=True, slots=True)
class PageMeasures:
    signals: PageSignals
    fonts: dict[str, FontEvidence]
    #: Trigram similarity of each suspect font's text across the document (the same on every page).
    font_similarity: dict[str, float]


def forget_words() -> None:
    """Forget what the signals keep of the words met so far: their trigrams (the language guess), each
    lexicon's verdicts on them and the last blocks judged.

    A process keeps these across documents, bounded, because a corpus repeats its vocabulary from page
    to page and from document to document. A benchmark that reads the same documents again calls this
    before each repetition, so that each one pays what the first reading of those documents pays.
    """
    language.forget_word_trigrams()
    forget_lexicon_verdicts()


def body_size(pages: Sequence[PageText]) -> float | None:
    """The document's body size: the span size that carries the most non-whitespace characters."""
    exact: dict[float, int] = {}  # characters per size as set, rounded once per size below
    get = exact.get
    for page in pages:
        for block in page.blocks:
            for line in block.lines:
                for span in line.spans:
                    text = span.text
                    n = len(text) - text.count(" ")
                    if n > 0:
                        size = span.size
                        exact[size] = get(size, 0) + n
    sizes: Counter[float] = Counter()
    for size, n in exact.items():  # first seen first, so that ties go as they would span by span
        sizes[round(size * 2) / 2] += n
    return sizes.most_common(1)[0][0] if sizes else None


def measure_document(pages: Sequence[PageText]) -> list[PageMeasures]:
    with collector_paused():
        return _measure(pages)


def _measure(pages: Sequence[PageText]) -> list[PageMeasures]:
    size = body_size(pages)
    signals: list[PageSignals] = []
    # A page's fonts are judged in its own language right after its signals, while the words its prose
    # blocks were judged by are still cached (quality.page_signals._judged_block); a page in no judging
    # language waits for the document's language.
    evidence: dict[int, dict[str, FontEvidence]] = {}
    for number, page in enumerate(pages):
        s = page_signals(page, body_size=size, page_height=page.facts.height)
        signals.append(s)
        if page.blocks and s.lexicon_language:
            evidence[number] = _font_evidence(page.blocks, s.lexicon_language, size, page.facts.height)
    languages: Counter[str] = Counter()
    for s in signals:
        if s.lexicon_language:
            languages[s.lexicon_language] += s.letters
    document_language = languages.most_common(1)[0][0] if languages else None
    measured: list[tuple[PageSignals, dict[str, FontEvidence]]] = []
    for number, (page, s) in enumerate(zip(pages, signals, strict=True)):
        fonts: dict[str, FontEvidence] = evidence.get(number, {})
        if page.blocks and number not in evidence:
            # A page that matched no judging language (most of it garbled, or a table) still has its
            # fonts judged: in the document's language, else in the language of its best-reading font.
            language = document_language or font_language(page.blocks)
            fonts = _font_evidence(page.blocks, language, size, page.facts.height)
        measured.append((s, fonts))
    similarity = suspect_similarity(pages, [fonts for _, fonts in measured])
    return [PageMeasures(s, fonts, similarity) for s, fonts in measured]


def font_language(blocks: Sequence[Block]) -> str | None:
    """The judging language of the page's font whose text matches a language profile best (at least
    :data:`~quality.verdicts.MIN_LANGUAGE_SIMILARITY`, over :data:`~quality.verdicts.TRIGRAM_MIN_LETTERS`
    letters or more): on a page where garbled fonts outweigh a sound one, the sound one says what the page
    is written in."""
    texts: dict[str, list[str]] = {}
    for block in blocks:
        for line in block.lines:
            for span in line.spans:
                texts.setdefault(span.font, []).append(span.text)
    best: tuple[float, str] | None = None
    for parts in texts.values():
        text = " ".join(parts)
        if sum(map(str.isalpha, text)) < TRIGRAM_MIN_LETTERS:
            continue
        guess = best_language(text)
        judging = guess.language in JUDGING_LANGUAGES and guess.similarity >= MIN_LANGUAGE_SIMILARITY
        if judging and (best is None or guess.similarity > best[0]):
            best = (guess.similarity, guess.language)
    return best[1] if best else None


def suspect_similarity(
    pages: Sequence[PageText], fonts: Sequence[dict[str, FontEvidence]]
) -> dict[str, float]:
    """Best language-profile similarity of the whole text of each suspect font of the document
    (:func:`~quality.verdicts.suspect`: enough words, missing the lexicon). Most documents have none,
    so this costs nothing."""
    weight: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    chars: Counter[str] = Counter()
    for page in fonts:
        for f in page.values():
            weight[f.font] += f.weight
            hits[f.font] += f.hit_weight
            chars[f.font] += f.chars
    suspects = {font for font in weight if suspect(font, weight[font], hits[font], chars[font])}
    if not suspects:
        return {}
    texts: dict[str, list[str]] = {font: [] for font in suspects}
    for page in pages:
        for block in page.blocks:
            for line in block.lines:
                for span in line.spans:
                    if span.font in texts:
                        texts[span.font].append(span.text)
    return {font: round(best_language(" ".join(parts)).similarity, 4) for font, parts in texts.items()}


def _font_evidence(
    blocks: Sequence[Block], language: str | None, size: float | None, height: float
) -> dict[str, FontEvidence]:
    if language is None:
        # No judging lexicon for this page: still count each font's characters (the abstained share).
        counts: Counter[str] = Counter()
        for block in blocks:
            for line in block.lines:
                for span in line.spans:
                    counts[span.font] += len(span.text) - span.text.count(" ")
        return {f: FontEvidence(f, n, 0, 0.0, 0.0) for f, n in counts.items() if n > 0}
    lexicon = load_lexicon(language)
    return font_evidence(blocks, lexicon, body_size=size, page_height=height)
