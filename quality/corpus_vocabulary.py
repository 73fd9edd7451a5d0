"""The corpus's own vocabulary: words the shipped lexicon misses but several documents use.

A domain word ("Teilmengen", "Simplizialkomplex", a product name) recurs across the documents of a corpus;
a garbled token does not (a broken font garbles one document's text its own way). So a word that misses
the lexicon but occurs in ``MIN_DOCUMENTS`` or more distinct documents joins the lexicon of its language
for the verdicts: a page condemned for a low hit rate is scored again with it.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# Distinct documents a missing word must occur in (docs/design.md: a garbled token appears in one document
# only; two would still admit a document and its near-duplicate).
MIN_DOCUMENTS = 3


@dataclass(frozen=True, slots=True)
class PageWords:
    sha256: str
    language: str
    text: str


@dataclass(frozen=True, slots=True)
class VocabularyWord:
    language: str
    word: str
    documents: int


def harvest(pages: Iterable[PageWords], min_documents: int = MIN_DOCUMENTS) -> list[VocabularyWord]:
    """Words missing from each language's lexicon that occur in at least ``min_documents`` documents."""
    # Imported here: the lexicons cost about 0.4 s to import, and the run planner reads this module's
    # fingerprint of the vocabulary without judging a word.
    from quality.lexicon import load_lexicon, normalise_word
    from quality.page_signals import judged_tokens

    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for page in pages:
        lexicon = load_lexicon(page.language)
        for start, end, _, hit in judged_tokens(page.text, lexicon):
            if not hit:
                word = normalise_word(page.text[start:end], page.language)
                seen[(page.language, word)].add(page.sha256)
    return sorted(
        (
            VocabularyWord(lang, word, len(docs))
            for (lang, word), docs in seen.items()
            if len(docs) >= min_documents
        ),
        key=lambda w: (w.language, w.word),
    )


def by_language(words: Iterable[VocabularyWord]) -> Mapping[str, frozenset[str]]:
    grouped: dict[str, set[str]] = defaultdict(set)
    for w in words:
        grouped[w.language].add(w.word)
    return {lang: frozenset(ws) for lang, ws in grouped.items()}


def fingerprint(words: Mapping[str, frozenset[str]]) -> str:
    """A short stable name for a vocabulary: verdicts made with another vocabulary are made again."""
    if not any(words.values()):
        return "none"
    lines = sorted(f"{lang}:{word}" for lang, ws in words.items() for word in ws)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:12]
