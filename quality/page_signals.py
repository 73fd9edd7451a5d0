"""Per-page signals on the RAW text a reader produced: facts for the verdict stage, no decisions.

Every signal is computed on the text exactly as the reader wrote it, before any normalisation. Order
matters: a sanitiser's NFKC plus control stripping deletes precisely the characters the bad-rune signal
counts (U+FFFD, controls, private use), so a signal computed after it would read 0 on a broken page.

Cheapest first (docs/design.md §4): one pass over the characters gives the counts, bad runes and ``(cid:N)``;
an empty page stops there. Then the language guess (trigram profiles), then, only with a language a
lexicon can judge, glued words and the lexicon hit rate over the prose-gated blocks.

The lexicon hit rate, the signal that catches a broken ToUnicode map ("Vojw dpotvnqujpo Sbuft"):

- tokens are split on whitespace FIRST (so "word,word" stays one token, as a reader emitted it), a
  hyphen at a line end joins the next line's lower-case word ("consump-\\ntion");
- surrounding punctuation is stripped; tokens with digits, path or markup characters
  (``/ \\ _ @ = < > | # ~ ^ & *``), URLs and dotted names ("report.pdf", "example.com") are not
  judged: no lexicon holds them, clean or not;
- TeX and code tokens (a backslash or a brace anywhere: "\\ESKDtitleFont", "\\section{Scope}") are not
  judged either, nor tokens in another script than the lexicon's (English terms and names on a Russian
  page, Kurdish in Latin letters beside Kurdish in Arabic script): the lexicon cannot judge them, and
  counted as misses they made clean technical Russian score 0.28 (0.48 without them) and condemned a
  Kurdish document's monospaced font (docs/decisions.md, "Text judging: calibration notes");
- dashes inside a token split it ("state-of-the-art" is four words);
- tokens of fewer than :data:`MIN_TOKEN_LETTERS` letters are not judged (short words hit by chance:
  "ab", "oz", "ion" are in the lists), and each token weighs (letters - 3): long words are the
  strongest evidence either way;
- a token hits when its normalised form is in the lexicon, when it is an elision or possessive
  whose parts of >= 2 letters are ("l'homme", "dell'anno", "company's"), or, in a language that writes
  compounds closed, when two or three listed words spell it (quality/lexicon.py, ``is_compound``);
- fewer than :data:`MIN_EVIDENCE_WEIGHT` of weight: ``judged=False``, no verdict (fail open).
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import regex

from quality.language import best_language
from quality.lexicon import JUDGING_LANGUAGES, MAX_SEGMENT_LETTERS, Lexicon, letter_script, load_lexicon
from quality.prose import block_text, count_letters, is_prose, non_blank
from readers.core.model import BBox, Block, PageText

# --- thresholds -------------------------------------------------------------------------------------

#: A letter run this long is a glued-word candidate. Real words reach 20 letters only in compounding
#: languages (German/Dutch/Finnish compounds, ~1% of letters in German prose); a text layer that lost its
#: spaces puts most letters in such runs (a five-word run of English is ~25 letters).
GLUED_MIN_LETTERS = 20
#: At least this many single letters separated by single spaces make a letter-spaced run ("H e r e i s":
#: a text layer where every glyph was positioned apart, or s p a c e d headings). Three ("a b c") occurs
#: in enumerations and formulas.
SPACED_MIN_LETTERS = 4
#: A token needs this many letters to be judged; it weighs letters - 3 (see the module docstring).
MIN_TOKEN_LETTERS = 4
#: Below this total token weight the lexicon gives no verdict (``judged=False``). Calibrated on the
#: paragraphs of tests/test_lexicon_language.py cut into windows of consecutive judged tokens: at a
#: weight of 40 (10-15 judged words, 2-3 lines of prose) every clean window hits >= 0.64 in the seven
#: western languages and >= 0.39 in all 18 (Turkish), every garbled one <= 0.025; at 20 one rare word
#: swings a window (German windows down to 0.27, a Tamil one to 0.0) and garbled ones reach 0.05.
MIN_EVIDENCE_WEIGHT = 40.0
#: Glued and letter-spaced runs are looked for in the first this many characters: a whole text document
#: read as one "page" must not cost seconds of segmentation.
MAX_RUN_SCAN_CHARS = 100_000
#: A longer glued run is judged by its first this many letters: glued when lexicon words spell them up
#: to the last word (:data:`MAX_SEGMENT_LETTERS`); keeps the segmentation linear and bounded.
MAX_SEGMENT_RUN = 1_000
#: How many blocks' judged words are kept (:func:`_judged_block`): more than any page holds, so the
#: per-font evidence of a page finds every prose block the page's lexicon evidence judged.
JUDGED_CACHE_BLOCKS = 1_024
#: Lexicons whose verdicts on words are kept (:func:`_verdicts`): a run judges with one or a few.
VERDICT_CACHE_LEXICONS = 16
#: A lexicon's kept verdicts are dropped when they reach this many words (a corpus's vocabulary).
VERDICT_CACHE_WORDS = 200_000

# --- character classes ------------------------------------------------------------------------------

_ALLOWED_CONTROLS = frozenset("\t\n\r\f")  # form feed: a page break in plain text (RFCs, pdftotext)
_CID = regex.compile(r"\(cid:\d+\)")
_LETTER = regex.compile(r"[\p{L}\p{M}]")
_MARK = regex.compile(r"\p{M}")
_LETTER_RUN = regex.compile(rf"[\p{{L}}\p{{M}}]{{{GLUED_MIN_LETTERS},}}")
_SPACED_RUN = regex.compile(
    r"(?<![\p{L}\p{M}\p{N}])"  # not inside a word
    rf"(?:\p{{L}}\p{{M}}* ){{{SPACED_MIN_LETTERS - 1},}}\p{{L}}\p{{M}}*"  # single letters, single spaces
    r"(?![\p{L}\p{M}\p{N}])"
)
# What every letter-spaced run holds: a blank, then three single letters apart (the second to fourth
# letters of a run of four or more). Looking for it costs a sixth of :data:`_SPACED_RUN`'s scan, whose
# lookbehind is tried at every character, and on the corpus's born-digital pages 6 of 241 hold it.
_SPACED_HINT = regex.compile(r" \p{L}\p{M}* \p{L}\p{M}* \p{L}")
#: A whitespace token: a run of characters that are not Unicode White_Space (what ``regex``'s ``\s``
#: matches). Written out for the standard ``re``, which tokenises a block in two thirds of ``regex``'s
#: time; ``re``'s own ``\s`` would also split at the controls U+001C-U+001F, which are not White_Space.
_WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_TOKEN = re.compile(f"[^{_WHITE_SPACE}]+")
#: The only characters ``str.split()`` takes for blanks that are not White_Space: a text without them
#: splits into exactly :data:`_TOKEN`'s tokens (the tokens test goes over every code point).
_SPLIT_NOT_WHITE_SPACE = re.compile("[\x1c-\x1f]")
_STRIP = regex.compile(r"^[^\p{L}\p{M}\p{N}]+|[^\p{L}\p{M}\p{N}]+$")
_DIGIT = regex.compile(r"\p{N}")
_ASCII_DIGIT = re.compile(r"[0-9]")
_CODE = regex.compile(r"[\\{}]")
_CODE_CHARS = frozenset("\\{}")
# What _STRIP takes from the ends of an ASCII token.
_ASCII_NOT_ALNUM = "".join(chr(code) for code in range(128) if not chr(code).isalnum())
_PATH = regex.compile(r"[/\\_@=<>|#~^&*]|://|^www\.|\.\p{L}")
_DASHES = regex.compile(r"[-\u2010\u2011\u2012\u2013\u2014\u2212]+")
_LINE_HYPHENS = ("-", "\u00ad", "\u2010")
# A line-end hyphen: the only place where _raw_tokens joins two tokens.
_HYPHEN_BREAK = regex.compile(r"[-\u00ad\u2010]\s*\n")
_APOSTROPHE = "'"


# --- results ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LexiconEvidence:
    """Length-weighted lexicon hits over judgeable tokens; ``judged`` is False below the evidence floor.

    ``hit_rate`` is hits' weight over ``weight`` (0.0 when nothing was judgeable): read it only when
    ``judged`` is True.
    """

    language: str | None
    hit_rate: float
    weight: float
    tokens: int
    hits: int
    judged: bool


NO_EVIDENCE = LexiconEvidence(None, 0.0, 0.0, 0, 0, False)


@dataclass(frozen=True, slots=True)
class FontEvidence:
    """What one font contributed to a page: characters drawn, judgeable token weight, hits' weight."""

    font: str
    chars: int
    tokens: int
    weight: float
    hit_weight: float

    @property
    def hit_rate(self) -> float:
        return self.hit_weight / self.weight if self.weight else 0.0


@dataclass(frozen=True, slots=True)
class PageSignals:
    """The signal columns of one page (docs/design.md §4). Ratios are in [0, 1]."""

    chars: int  # non-whitespace characters
    letters: int
    bad_runes: int
    bad_rune_ratio: float
    cid_count: int
    cid_ratio: float
    glued_ratio: float
    spaced_ratio: float
    language: str | None
    language_similarity: float
    language_runner_up: str | None
    language_runner_up_similarity: float
    lexicon_language: str | None
    lexicon_hit_rate: float
    lexicon_weight: float
    lexicon_tokens: int
    lexicon_hits: int
    lexicon_judged: bool
    prose_blocks: int
    blocks: int


# --- cheap character signals ------------------------------------------------------------------------


@functools.lru_cache(maxsize=65_536)
def is_bad_rune(char: str) -> bool:
    """U+FFFD, a control other than tab/newline/CR/form feed, private use, unassigned or a lone surrogate.

    Private use covers the BMP area (U+E000-F8FF) and planes 15-16; unassigned is category Cn as
    Python's Unicode database knows it (noncharacters such as U+FFFE included).
    """
    if char == "\ufffd":
        return True
    category = unicodedata.category(char)
    if category == "Cc":
        return char not in _ALLOWED_CONTROLS
    return category in ("Co", "Cn", "Cs")


def _char_counts(text: str) -> tuple[int, int]:
    """(non-whitespace characters, bad runes) in one pass over the distinct characters."""
    chars, bad, _ = _page_counts(text)
    return chars, bad


def _page_counts(text: str) -> tuple[int, int, int]:
    """(non-whitespace characters, bad runes, letters and marks as :func:`count_letters` counts them),
    in one pass over the distinct characters."""
    chars = bad = letters = 0
    marks = not text.isascii()
    for char, count in Counter(text).items():
        if is_bad_rune(char):
            bad += count
            chars += count
        elif not char.isspace():
            chars += count
        if char.isalpha() or (marks and _MARK.match(char)):
            letters += count
    return chars, bad, letters


def visible_chars(text: str) -> int:
    """Characters that are not whitespace (bad runes that Python calls whitespace, such as U+0085,
    count: they are on the page)."""
    return _char_counts(text)[0]


def bad_rune_count(text: str) -> int:
    return _char_counts(text)[1]


def bad_rune_ratio(text: str) -> float:
    """Bad runes (:func:`is_bad_rune`) over non-whitespace characters, on the RAW text."""
    chars, bad = _char_counts(text)
    return bad / chars if chars else 0.0


def cid_count(text: str) -> int:
    """``(cid:N)`` sequences: pdfminer writes a glyph it could not map to Unicode that way."""
    return len(_CID.findall(text))


def cid_ratio(text: str) -> float:
    """Share of the page's glyphs that came out as ``(cid:N)`` (each sequence counts as one glyph)."""
    matches = _CID.findall(text)
    if not matches:
        return 0.0
    chars = visible_chars(text)
    glyphs = chars - sum(len(m) for m in matches) + len(matches)
    return min(1.0, len(matches) / glyphs) if glyphs > 0 else 0.0


def letter_count(text: str) -> int:
    """Letters and combining marks in ``text``."""
    return count_letters(text)


def glued_ratio(text: str, lexicon: Lexicon | None, *, letters: int | None = None) -> float:
    """Share of letters in runs of >= :data:`GLUED_MIN_LETTERS` letters that lexicon words spell.

    0.0 without a lexicon: a long run cannot be told from a long word without one. ``letters`` is the
    text's :func:`letter_count` where the caller has it already.
    """
    if letters is None or len(text) > MAX_RUN_SCAN_CHARS:
        text = text[:MAX_RUN_SCAN_CHARS]
        letters = None
    if lexicon is None:
        return 0.0
    # A letter run lies inside one whitespace token, so the runs of the long tokens are all the long
    # runs, in order. Splitting in C and scanning those costs a quarter of scanning the whole text, where
    # :data:`_LETTER_RUN` tries its repeat at every letter (on the corpus's pages glued_ratio halves).
    long_tokens = [token for token in text.split() if len(token) >= GLUED_MIN_LETTERS]
    if not long_tokens:
        return 0.0
    if letters is None:
        letters = letter_count(text)
    if not letters:
        return 0.0
    glued = 0
    for match in _LETTER_RUN.finditer(" ".join(long_tokens)):
        run = match.group()
        if len(run) <= MAX_SEGMENT_RUN:
            if lexicon.segment(run) is not None:
                glued += len(run)
        elif lexicon.spelled_prefix(run[:MAX_SEGMENT_RUN]) >= MAX_SEGMENT_RUN - MAX_SEGMENT_LETTERS:
            glued += len(run)
    return min(1.0, glued / letters)


def spaced_ratio(text: str) -> float:
    """Share of letters in letter-spaced runs (>= :data:`SPACED_MIN_LETTERS` single spaced letters)."""
    text = text[:MAX_RUN_SCAN_CHARS]
    if not _SPACED_HINT.search(text):
        return 0.0
    matches = _SPACED_RUN.findall(text)
    if not matches:
        return 0.0
    letters = letter_count(text)
    spaced = sum(letter_count(m) for m in matches)
    return min(1.0, spaced / letters) if letters else 0.0


# --- lexicon evidence -------------------------------------------------------------------------------


def _raw_tokens(text: str) -> Iterator[tuple[int, int, str]]:
    """Whitespace tokens as (start, end, token); a line-end hyphen joins the next line's word."""
    if _HYPHEN_BREAK.search(text) is None:  # the common case: no word is broken at a line end
        if _SPLIT_NOT_WHITE_SPACE.search(text) is None:
            # The tokens cut in C by str.split(), each found where the previous one ended: only blanks
            # stand between them, so the first occurrence is the token itself.
            find = text.find
            end = 0
            for token in text.split():
                start = find(token, end)
                end = start + len(token)
                yield start, end, token
            return
        for match in _TOKEN.finditer(text):
            start, end = match.span()
            yield start, end, text[start:end]
        return
    matches = list(_TOKEN.finditer(text))
    i = 0
    while i < len(matches):
        start, end = matches[i].span()
        token = matches[i].group()
        while (
            len(token) > 1
            and token.endswith(_LINE_HYPHENS)
            and token[-2].isalpha()
            and i + 1 < len(matches)
            and "\n" in text[end : matches[i + 1].start()]
            and matches[i + 1].group()[0].islower()
        ):
            i += 1
            token = token[:-1] + matches[i].group()
            end = matches[i].end()
        yield start, end, token
        i += 1


def _judge(
    token: str, lexicon: Lexicon, verdicts: dict[str, bool] | None = None
) -> Iterator[tuple[int, bool]]:
    """(weight, hit) for each judgeable word of one whitespace token (see the module docstring);
    ``verdicts`` are the lexicon's (:func:`_verdicts`) where the caller has them already."""
    if verdicts is None:
        verdicts = _verdicts(lexicon)
    if token.isascii():
        if lexicon.non_latin:
            return
    elif not _in_script(token, lexicon.script):
        return
    if token.isalpha():  # the common case: nothing to strip or reject, no marks
        letters = len(token)
        if letters >= MIN_TOKEN_LETTERS:
            yield letters - 3, _known_hit(token, lexicon, verdicts)
        return
    if _CODE.search(token):
        return
    core = _STRIP.sub("", token.replace("\u00ad", ""))
    if not core or _DIGIT.search(core) or _PATH.search(core):
        return
    for piece in _DASHES.split(core):
        piece = _STRIP.sub("", piece)
        letters = count_letters(piece)
        if letters >= MIN_TOKEN_LETTERS:
            yield letters - 3, _known_hit(piece, lexicon, verdicts)


def _in_script(token: str, script: str) -> bool:
    """The token's first letter is of ``script`` (a token without letters is not judged anyway)."""
    for char in token:
        if char.isalpha():
            return letter_script(char) == script
    return True


def _hit(word: str, lexicon: Lexicon) -> bool:
    normal = lexicon.normalise(word)
    words = lexicon.words
    if normal in words:
        return True
    if _APOSTROPHE in normal:
        parts = [part for part in normal.split(_APOSTROPHE) if len(part) >= 2]
        return bool(parts) and all(part in words for part in parts)
    return lexicon.is_compound(normal)


@functools.lru_cache(maxsize=VERDICT_CACHE_LEXICONS)
def _verdicts(lexicon: Lexicon) -> dict[str, bool]:
    """The words ``lexicon`` has judged, with their :func:`_hit`: pages repeat their words (on a first
    pass over the corpus's born-digital pages a quarter of the judged words are new), and a dictionary
    lookup costs a tenth of normalising a word and looking it up."""
    return {}


def forget_lexicon_verdicts() -> None:
    """Forget every lexicon's verdicts on the words judged so far, and the blocks judged."""
    _verdicts.cache_clear()
    _judged_block.cache_clear()


def _known_hit(word: str, lexicon: Lexicon, verdicts: dict[str, bool]) -> bool:
    """:func:`_hit`, looked up in the lexicon's ``verdicts`` first and kept there."""
    hit = verdicts.get(word)
    if hit is None:
        hit = verdicts[word] = _hit(word, lexicon)
    return hit


def judged_tokens(text: str, lexicon: Lexicon) -> Iterator[tuple[int, int, int, bool]]:
    """(start, end, weight, hit) of every judgeable word of ``text``."""
    latin = not lexicon.non_latin
    verdicts = _verdicts(lexicon)
    if len(verdicts) >= VERDICT_CACHE_WORDS:
        verdicts.clear()
    for start, end, token in _raw_tokens(text):
        if token.isascii():
            if not latin:
                continue  # another script than the lexicon's: _judge rejects it
            # Most tokens are ASCII letters, with punctuation at either end: what _judge does, inline.
            word = token if token.isalpha() else token.strip(_ASCII_NOT_ALNUM)
            if word.isalpha() and (word is token or _CODE_CHARS.isdisjoint(token)):
                if len(word) >= MIN_TOKEN_LETTERS:
                    hit = verdicts.get(word)  # _known_hit, inline: most judged words are these
                    if hit is None:
                        hit = verdicts[word] = _hit(word, lexicon)
                    yield start, end, len(word) - 3, hit
                continue
            if not word or _ASCII_DIGIT.search(word):
                continue  # no letters, or a number, a date, a version: _judge rejects it
        for weight, hit in _judge(token, lexicon, verdicts):
            yield start, end, weight, hit


def lexicon_evidence(texts: str | Iterable[str], lexicon: Lexicon | None) -> LexiconEvidence:
    """Length-weighted lexicon hit rate of ``texts`` (a text, or the texts of the prose blocks)."""
    if lexicon is None:
        return NO_EVIDENCE
    if isinstance(texts, str):
        texts = (texts,)
    return _tally((judged_tokens(text, lexicon) for text in texts), lexicon)


def _tally(judged: Iterable[Iterable[tuple[int, int, int, bool]]], lexicon: Lexicon) -> LexiconEvidence:
    """The evidence of the judged words of several texts (see :func:`lexicon_evidence`)."""
    weight = hit_weight = tokens = hits = 0
    for words in judged:
        for _, _, w, hit in words:
            weight += w
            tokens += 1
            if hit:
                hit_weight += w
                hits += 1
    rate = hit_weight / weight if weight else 0.0
    return LexiconEvidence(lexicon.language, rate, float(weight), tokens, hits, weight >= MIN_EVIDENCE_WEIGHT)


@functools.lru_cache(maxsize=JUDGED_CACHE_BLOCKS)
def _judged_block(text: str, lexicon: Lexicon) -> tuple[tuple[int, int, int, bool], ...]:
    """:func:`judged_tokens` of one block's text, cached: the page's lexicon evidence and its per-font
    evidence (:func:`font_evidence`) judge the same blocks with the same lexicon, one after the other."""
    return tuple(judged_tokens(text, lexicon))


def lexicon_for(
    language: str | None, extra_words: Mapping[str, Iterable[str]] | None = None
) -> Lexicon | None:
    """The lexicon a page in ``language`` is judged with, or None when the language is not judged."""
    if language is None or language not in JUDGING_LANGUAGES:
        return None
    extra = extra_words.get(language, ()) if extra_words else ()
    return load_lexicon(language, extra)


# --- per-font evidence ------------------------------------------------------------------------------


def font_evidence(
    blocks: Sequence[Block],
    lexicon: Lexicon,
    *,
    body_size: float | None = None,
    page_height: float = 0.0,
    figure_boxes: Sequence[BBox] = (),
    prose_only: bool = False,
) -> dict[str, FontEvidence]:
    """Per font name: characters drawn, judgeable tokens, their weight and the hits' weight.

    The verdict stage sums these over a document to find the one font whose map is broken (its hit
    rate is low while the others' are high). A token belongs to the span holding most of its letters.
    ``prose_only`` restricts the evidence to prose-gated blocks; by default every block counts, because
    a broken font often sets headings and tables, which the gate rejects. Invisible spans count like the
    others: an OCR layer's font is judged by the same evidence.
    """
    chars: Counter[str] = Counter()
    tokens: Counter[str] = Counter()
    weight: Counter[str] = Counter()
    hit_weight: Counter[str] = Counter()
    bisect_right = bisect.bisect_right
    for block in blocks:
        if prose_only and not is_prose(
            block, body_size=body_size, page_height=page_height, figure_boxes=figure_boxes
        ):
            continue
        lines = block.lines
        fonts = [span.font for line in lines for span in line.spans]
        if not fonts:
            continue
        text = block_text(block)
        judged = _judged_block(text, lexicon)
        font = fonts[0]
        if fonts.count(font) == len(fonts):  # the common case: the block is set in one font
            chars[font] += non_blank(text)
            tokens[font] += len(judged)
            block_weight = block_hits = 0
            for _, _, w, hit in judged:
                block_weight += w
                if hit:
                    block_hits += w
            weight[font] += block_weight
            hit_weight[font] += block_hits
            continue
        starts: list[int] = []  # where each span's text starts in the block text
        ends: list[int] = []  # and where it ends
        offset = -1
        for line in lines:
            offset += 1  # the line break (none before the first line)
            for span in line.spans:
                span_text = span.text
                starts.append(offset)
                offset += len(span_text)
                ends.append(offset)
                chars[span.font] += non_blank(span_text)
        # Every judged word holds letters (at least MIN_TOKEN_LETTERS), so each has an owning span.
        owner: list[int] = []  # span index of each character (-1: a line break), built when first needed
        for start, end, w, hit in judged:
            index = bisect_right(starts, start) - 1
            if index < 0 or end > ends[index]:  # the token spans several spans: most of its letters
                if not owner:
                    owner = _char_owners(starts, ends, len(text))
                votes: Counter[int] = Counter(
                    owner[i] for i in range(start, end) if owner[i] >= 0 and _LETTER.match(text[i])
                )
                index = votes.most_common(1)[0][0]
            font = fonts[index]
            tokens[font] += 1
            weight[font] += w
            if hit:
                hit_weight[font] += w
    return {
        font: FontEvidence(font, chars[font], tokens[font], float(weight[font]), float(hit_weight[font]))
        for font in chars
    }


def _char_owners(starts: list[int], ends: list[int], length: int) -> list[int]:
    """The span index of each character of a block text whose spans are at ``starts``-``ends``."""
    owner = [-1] * length
    for index, (start, end) in enumerate(zip(starts, ends, strict=True)):
        owner[start:end] = [index] * (end - start)
    return owner


# --- the entry point --------------------------------------------------------------------------------


def _empty_signals(blocks: int) -> PageSignals:
    return PageSignals(
        chars=0,
        letters=0,
        bad_runes=0,
        bad_rune_ratio=0.0,
        cid_count=0,
        cid_ratio=0.0,
        glued_ratio=0.0,
        spaced_ratio=0.0,
        language=None,
        language_similarity=0.0,
        language_runner_up=None,
        language_runner_up_similarity=0.0,
        lexicon_language=None,
        lexicon_hit_rate=0.0,
        lexicon_weight=0.0,
        lexicon_tokens=0,
        lexicon_hits=0,
        lexicon_judged=False,
        prose_blocks=0,
        blocks=blocks,
    )


def page_signals(
    page: PageText,
    *,
    body_size: float | None,
    page_height: float,
    figure_boxes: Sequence[BBox] = (),
    extra_words: Mapping[str, Iterable[str]] | None = None,
) -> PageSignals:
    """Every text signal of one page, cheapest first, on the raw text (see the module docstring).

    ``body_size`` is the document's body font size (None: the gate skips the size test), ``page_height``
    the page's height in points (0: no running-head band), ``figure_boxes`` the boxes of figures (images
    and vector drawings that carry content; not a page-sized scan under an OCR layer, which is the page
    itself), and ``extra_words`` a corpus's harvested vocabulary per language, added to the lexicons.

    With blocks (PDF pages) only prose-gated blocks are scored by the lexicon; without (text documents)
    every token counts. The lexicon judges only when the trigram guess is a
    :data:`~quality.lexicon.JUDGING_LANGUAGES` language: a page that matches no profile
    (``language=None``) gets no lexicon verdict, and ``language_similarity`` is its evidence.
    """
    text = page.text
    chars, bad, letters = _page_counts(text)
    cids = _CID.findall(text)
    cid_share = 0.0
    if cids:
        glyphs = chars - sum(len(m) for m in cids) + len(cids)
        cid_share = min(1.0, len(cids) / glyphs) if glyphs > 0 else 0.0
    if not chars:  # nothing on the page: no language, no lexicon, no gate to run
        return _empty_signals(len(page.blocks))
    guess = best_language(text)
    lexicon = lexicon_for(guess.language, extra_words)
    glued = glued_ratio(text, lexicon, letters=letters) if letters >= GLUED_MIN_LETTERS else 0.0
    spaced = spaced_ratio(text) if letters >= SPACED_MIN_LETTERS else 0.0

    prose = 0
    if page.blocks:
        gated = [
            block
            for block in page.blocks
            if is_prose(block, body_size=body_size, page_height=page_height, figure_boxes=figure_boxes)
        ]
        prose = len(gated)
        evidence = (
            _tally((_judged_block(block_text(b), lexicon) for b in gated), lexicon)
            if lexicon
            else NO_EVIDENCE
        )
    else:
        evidence = lexicon_evidence(text, lexicon) if lexicon else NO_EVIDENCE
    return PageSignals(
        chars=chars,
        letters=letters,
        bad_runes=bad,
        bad_rune_ratio=bad / chars,
        cid_count=len(cids),
        cid_ratio=cid_share,
        glued_ratio=glued,
        spaced_ratio=spaced,
        language=guess.language,
        language_similarity=guess.similarity,
        language_runner_up=guess.runner_up,
        language_runner_up_similarity=guess.runner_up_similarity,
        lexicon_language=lexicon.language if lexicon else None,
        lexicon_hit_rate=evidence.hit_rate,
        lexicon_weight=evidence.weight,
        lexicon_tokens=evidence.tokens,
        lexicon_hits=evidence.hits,
        lexicon_judged=evidence.judged,
        prose_blocks=prose,
        blocks=len(page.blocks),
    )
