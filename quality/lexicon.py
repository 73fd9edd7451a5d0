"""Shipped lexicons: the 20,000 commonest words of a language, from wordfreq, offline.

A lexicon answers one question cheaply: "is this token a word of the language?". A text layer decoded
through a broken ToUnicode map still looks like valid Unicode ("Vojw dpotvnqujpo Sbuft"), but almost
none of its tokens are words; clean prose hits a 20k lexicon on most of its length-weighted tokens.

Why the choices:

- **20,000 words** (:data:`LEXICON_SIZE`, the design's size): wordfreq's top-20k covers, length-weighted
  over tokens of at least 4 letters, 67% (ru) to 98% (ms) of each judging language's running text as
  wordfreq counts it, while a letter-shuffled or letter-shifted garbling of the same text hits it at
  0.0-0.5% (measured over wordfreq's full frequency lists, bijective shuffle and a→b shift of each
  language's alphabet). Technical prose hits less: the prose-gated blocks of the corpus's German
  topology thesis hit 0.50, its Russian LaTeX manual 0.62, the Federal Register 0.89. A 50k list lifts
  those to 0.55 / 0.75 / 0.91 while garbled samples stay <= 0.007: worth considering, together with
  the corpus's harvested vocabulary (``extra``), which is the designed remedy for domain words.
- Words are looked up in wordfreq's own normal form (:func:`wordfreq.preprocess.preprocess_text`:
  NFC/NFKC by script, case folding so ``ß`` is ``ss`` and ``ς`` is ``σ``, Turkish dotted i, abjad vowel
  marks removed, Serbian Cyrillic transliterated), so a token and the list agree on spelling. Zero-width
  (non-)joiners are dropped from both sides: Persian writes ``می‌خواهم`` with one, PDFs often lose it.
- ``wordlist="small"``: its top 20k are identical to the default ("best"/"large") list's for all 42
  languages (checked), and it loads 4-8x faster (20-30 ms instead of 60-300 ms per language).

:data:`JUDGING_LANGUAGES` says which languages a lexicon may judge at all; see its comment.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

import wordfreq
from wordfreq.preprocess import preprocess_text

#: Words per lexicon (see the module docstring for the calibration).
LEXICON_SIZE = 20_000

#: Segments of a glued letter run must have at least this many letters: single letters ("a", "i") would
#: let almost any run segment.
MIN_SEGMENT_LETTERS = 2

#: Words shorter than 4 letters take part in a segmentation only when they rank in the list's top this
#: many: wordfreq's 20k English list holds 411 two-letter entries, many of them abbreviations and
#: fragments ("th", "fs", "rt", "ff") that let garbage segment ("Donaudampfschifffahrt" became
#: "don au damp fs ch if ff ah rt"). Measured on 2,000 runs of five glued English words: with every
#: short word 0.15% of their letter shuffles and 0.2% of their a→b shifts segment; with the top 1,000
#: only, none do, and every clean run still segments.
SHORT_SEGMENT_RANK = 1_000

#: Languages that write compounds closed ("Abbildungsvorschrift", "verkeersveiligheid"): a word missing
#: from the lexicon may still be two or three listed words of :data:`COMPOUND_MIN_PART_LETTERS` or more
#: (:meth:`Lexicon.is_compound`). On the corpus's clean German pages this lifted the lowest lexicon
#: score of the calibration from 0.256 to 0.340 (a page of a topology thesis), while the highest score of
#: their letter shuffles stayed 0.0 and of 30% partial garbles rose only to 0.002.
COMPOUNDING_LANGUAGES = frozenset({"de", "nl", "sv", "da", "nb", "fi", "is", "hu"})
#: A compound is at least this long, in at most this many parts of at least this many letters each:
#: short parts ("ab", "ion") and many parts would let letter shuffles spell themselves.
COMPOUND_MIN_LETTERS = 8
COMPOUND_MAX_PARTS = 3
COMPOUND_MIN_PART_LETTERS = 4

#: Longest lexicon word :meth:`Lexicon.segment` tries. Words longer than this are rare in the lists and
#: the dynamic programme's cost grows with it.
MAX_SEGMENT_LETTERS = 24

#: The languages whose 20k lexicon may judge a page. Kept: every wordfreq language written with spaces
#: between words, in an alphabetic script (Latin, Cyrillic, Greek), an abjad (Arabic, Persian, Hebrew)
#: or an Indic abugida (Hindi, Bengali, Tamil), where wordfreq's tokens are the text's whitespace
#: tokens. Checked two ways: (1) over wordfreq's full frequency lists (tokens >= 4 letters, weighted
#: by letters - 3) the top 20k cover 0.67 (ru) to 1.0 (vi) of each kept language's running text,
#: against <= 0.003 for a bijective letter shuffle or an a→b shift of the same words; (2) the
#: hand-written paragraphs of tests/test_lexicon_language.py (en fr de es it nl pt ru el ar fa he hi
#: bn ta pl tr sv) hit 0.69 (Turkish, agglutinative) to 0.98 clean, against <= 0.003 for every
#: garbling. Left out:
#:
#: - ``zh``, ``ja``: no spaces between words; wordfreq segments them with jieba/MeCab, so a whitespace
#:   token is a whole clause, never a list entry (clean zh coverage is 0.34 even on wordfreq's tokens).
#: - ``ko``: spaces separate eojeol (stem + particles) but wordfreq's list holds MeCab morphemes, so
#:   whitespace tokens rarely match.
#: - ``ur``: Urdu in Nastaliq omits the space after a non-joining letter and inserts it inside words, so
#:   whitespace tokens are not words; a PDF text layer makes this worse.
#:
#: Vietnamese stays: its list is syllables and so are its whitespace tokens, but few syllables reach 4
#: letters, so a Vietnamese page often lacks the evidence weight to be judged (which fails open).
JUDGING_LANGUAGES: frozenset[str] = frozenset(wordfreq.available_languages()) - {"zh", "ja", "ko", "ur"}

_ZERO_WIDTH = str.maketrans("", "", "\u200c\u200d")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\uff07": "'"})


def normalise_word(word: str, language: str) -> str:
    """The form wordfreq stores ``word`` in for ``language``: what a lexicon is looked up with.

    ASCII words take a fast path (lower-casing is all wordfreq would do, except Turkish/Azeri ``I``).
    """
    if word.isascii() and language not in ("tr", "az"):
        return word.lower()
    return preprocess_text(word.translate(_APOSTROPHES), language).translate(_ZERO_WIDTH)


@dataclass(frozen=True, slots=True)
class Lexicon:
    """A language's word set, in wordfreq's normal form (lower-cased, see :func:`normalise_word`)."""

    language: str
    words: frozenset[str]
    #: The words a glued run may be broken into (see :data:`SHORT_SEGMENT_RANK`); ``words`` when empty.
    segment_words: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    _max_letters: int = field(default=MAX_SEGMENT_LETTERS, repr=False, compare=False)
    #: The script its words are written in (the first word of a letter's Unicode name: LATIN, CYRILLIC,
    #: ARABIC...): a token in another script is a foreign word its lexicon cannot judge.
    script: str = field(default="LATIN", compare=False)
    #: The language writes compounds closed (:data:`COMPOUNDING_LANGUAGES`).
    compounding: bool = field(default=False, compare=False)

    def __contains__(self, word: object) -> bool:
        """``word`` (any case or spelling wordfreq folds) is a lexicon word."""
        if word in self.words:
            return True
        return isinstance(word, str) and self.normalise(word) in self.words

    def __len__(self) -> int:
        return len(self.words)

    def normalise(self, word: str) -> str:
        """``word`` in this lexicon's spelling (see :func:`normalise_word`)."""
        return normalise_word(word, self.language)

    def segment(self, letters: str) -> list[str] | None:
        """Break a run of letters into lexicon words of >= 2 letters, fewest words first; None if impossible.

        Used on long letter runs to tell glued words ("thisisaverylongrunofwords": a text layer that lost
        its spaces) from a long token that is not language at all. Dynamic programme over prefixes:
        ``best[i]`` is the fewest words that spell ``letters[:i]``; O(len × MAX_SEGMENT_LETTERS) lookups.
        """
        text = self.normalise(letters)
        best, back = self._spell(text)
        n = len(text)
        if n < MIN_SEGMENT_LETTERS or best[n] < 0:
            return None
        pieces: list[str] = []
        end = n
        while end > 0:
            start = back[end]
            pieces.append(text[start:end])
            end = start
        pieces.reverse()
        return pieces

    @property
    def non_latin(self) -> bool:
        """The language is not written in Latin letters: a token of ASCII letters on its pages is a
        foreign word, a name or code, which its lexicon cannot judge."""
        return self.script != "LATIN"

    def is_compound(self, normal: str) -> bool:
        """``normal`` (already normalised) is a closed compound of listed words: two or three parts of
        :data:`COMPOUND_MIN_PART_LETTERS` letters or more, in a compounding language."""
        if not self.compounding or len(normal) < COMPOUND_MIN_LETTERS:
            return False
        best, back = self._spell(normal)
        n = len(normal)
        if not 0 < best[n] <= COMPOUND_MAX_PARTS:
            return False
        end = n
        while end > 0:
            start = back[end]
            if end - start < COMPOUND_MIN_PART_LETTERS:
                return False
            end = start
        return True

    def spelled_prefix(self, letters: str) -> int:
        """Length of the longest prefix of ``letters`` (normalised) that lexicon words spell exactly.

        Lets a caller judge a very long run by its beginning: a run whose first 1,000 letters are
        spelled up to the last word or so is glued words, without the cost of the whole run.
        """
        best, _ = self._spell(self.normalise(letters))
        return max(i for i, count in enumerate(best) if count >= 0)

    def _spell(self, text: str) -> tuple[list[int], list[int]]:
        n = len(text)
        words = self.segment_words or self.words
        longest = self._max_letters
        best: list[int] = [0] + [-1] * n  # fewest words for each prefix, -1: not spellable
        back: list[int] = [0] * (n + 1)
        for end in range(MIN_SEGMENT_LETTERS, n + 1):
            count = -1
            for start in range(max(0, end - longest), end - MIN_SEGMENT_LETTERS + 1):
                previous = best[start]
                if previous < 0 or (count >= 0 and previous + 1 >= count):
                    continue
                if text[start:end] in words:
                    count, back[end] = previous + 1, start
            best[end] = count
        return best, back


@functools.lru_cache(maxsize=64)
def _base_words(language: str) -> tuple[frozenset[str], frozenset[str]]:
    """The language's top-:data:`LEXICON_SIZE` words and its segmentation words, normalised.

    Raises ``LookupError`` for a language wordfreq does not know.
    """
    if language not in wordfreq.available_languages():
        raise LookupError(f"wordfreq has no word list for language {language!r}")
    listed = [
        word.translate(_ZERO_WIDTH).lower()
        for word in wordfreq.top_n_list(language, LEXICON_SIZE, wordlist="small")
        if word.strip()
    ]
    segmenting = frozenset(
        word for rank, word in enumerate(listed) if len(word) >= 4 or rank < SHORT_SEGMENT_RANK
    )
    return frozenset(listed), segmenting


@functools.lru_cache(maxsize=256)
def _load(language: str, extra: frozenset[str]) -> Lexicon:
    words, segmenting = _base_words(language)
    if extra:
        added = {normalise_word(word, language) for word in extra if word.strip()}
        words = words | added
        segmenting = segmenting | {word for word in added if len(word) >= 4}
    longest = min(MAX_SEGMENT_LETTERS, max((len(w) for w in segmenting), default=0))
    return Lexicon(
        language,
        words,
        segmenting,
        longest,
        script=_script(language),
        compounding=language in COMPOUNDING_LANGUAGES,
    )


def language_script(language: str) -> str:
    """The script ``language`` is written in, as :func:`letter_script` names it ("LATIN", "ARABIC", "CJK"),
    from the first letters of its commonest words; "LATIN" for a language wordfreq does not know."""
    try:
        return _script(language)
    except LookupError:
        return "LATIN"


@functools.lru_cache(maxsize=64)
def _script(language: str) -> str:
    """The script most of the language's top words begin with."""
    top = wordfreq.top_n_list(language, 1_000, wordlist="small")
    counts: dict[str, int] = {}
    for word in top:
        if word[:1].isalpha():
            script = letter_script(word[0])
            counts[script] = counts.get(script, 0) + 1
    return max(counts, key=lambda s: counts[s]) if counts else "LATIN"


@functools.lru_cache(maxsize=8192)
def letter_script(char: str) -> str:
    """The script of a letter, as the first word of its Unicode name ("LATIN", "ARABIC", ...)."""
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else ""


def load_lexicon(language: str, extra: Iterable[str] = ()) -> Lexicon:
    """The lexicon of ``language`` plus ``extra`` words (a corpus's harvested vocabulary), cached.

    Cached per (language, set of extra words): the verdict stage asks once per document with the same
    vocabulary, so repeated calls cost a dictionary lookup.
    """
    return _load(language, frozenset(extra))
