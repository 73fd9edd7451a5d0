"""What each page's text is worth: one mode per page, with reason codes and a provenance (docs/design.md §4).

The rules read stored signals only (the ``pages`` columns), so a threshold change is re-decided without
reading a single PDF again. They run in tiers, cheapest and surest first:

0. **Provenance** before any threshold: invisible text over a page image is an OCR sandwich (judged by
   its own, lower, lexicon threshold: OCR text has errors a born-digital layer does not); no text over a
   page image is a raw scan; everything else is born digital.
1. **Asymmetric tier 0**: no text and nothing drawn is ``BLANK``; no text with a large image, or text
   drawn as outlines, is ``REPLACE`` (it must be OCRed).
2. **Garbage**: bad runes, ``(cid:N)`` passthrough, a lexicon hit rate under the threshold, or no
   language profile matched at all: the page is garbage. A garbled font that was repaired makes it
   ``REPAIRED``; otherwise ``REPLACE``.
3. **Fonts across the document** (the font is the unit of corruption): a font whose tokens miss the
   lexicon across the document with enough evidence, and whose whole text matches no language profile,
   is garbled and condemns every page it draws on.
4. **Document prior**: when most judged pages of a document are ``REPLACE``, its borderline pages follow.
5. Correct text in a language no lexicon judges is ``LANG`` (terminal, never OCRed); a page no tier could
   judge whose letters match no language profile is ``REPLACE`` for OCR's second opinion (its reading
   agreeing keeps the layer); trustworthy text with large images or vector figures is ``FIGURES``; the
   rest is ``TEXT``.

Every page with text says which tier judged it (:class:`Tier`): the characters (bad runes, ``(cid:N)``),
the lexicon over its prose, a font (the lexicon over all the page's text in each font: lists, tables and
headings included), the character trigrams (a language profile matched, or none at all), the verdicts of
its fonts borrowed from the document's other pages, or none, ``unjudgeable`` with why. A page the OCR
stage read back to the same words is ``ocr_cross_check`` in ``page_texts`` (quality/sources.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from quality.corpus_vocabulary import fingerprint
from quality.prose import is_mono_font

# What each version changed: docs/decisions.md, "Text judging: calibration notes".
VERDICTS_VERSION = "9"


def verdicts_version_for(vocabulary: Mapping[str, frozenset[str]]) -> str:
    """The verdict rules' version and the vocabulary they were applied with (the ``verdicts_version`` of
    every row the verdicts stage writes, and what its planner compares against)."""
    return f"{VERDICTS_VERSION}+vocab.{fingerprint(vocabulary)}"


GARBAGE = frozenset({"bad_runes", "cid_passthrough", "no_language", "lexicon_low", "junk_text"})


class Mode(StrEnum):
    TEXT = "TEXT"
    FIGURES = "FIGURES"
    REPLACE = "REPLACE"
    REPAIRED = "REPAIRED"
    LANG = "LANG"
    BLANK = "BLANK"


class Tier(StrEnum):
    """Which evidence decided a page's verdict (``page_verdicts.judged_by``)."""

    NO_TEXT = "no_text"  # tier 0: no text layer to judge (blank, scan, outlines)
    CHARACTERS = "characters"  # bad runes, (cid:N) passthrough, junk
    LEXICON = "lexicon"  # the lexicon over the page's prose blocks
    FONT = "font"  # the lexicon over all the page's text, font by font
    TRIGRAM = "trigram"  # the character-trigram profiles: a language matched, or none at all
    BORROWED = "borrowed"  # the verdicts of its fonts on the document's other pages
    OCR_CROSS_CHECK = "ocr_cross_check"  # OCR read the same words back (page_texts only)
    UNJUDGEABLE = "unjudgeable"  # nothing could judge it: the reason says why


class Provenance(StrEnum):
    BORN_DIGITAL = "born_digital"
    RAW_SCAN = "raw_scan"
    OCR_SANDWICH = "ocr_sandwich"


# -- thresholds (calibration notes beside each; `assay calibrate` and tests/test_verdicts.py re-measure) --

# Fewer non-whitespace characters than this is "no text": a page number or a stray mark is not a layer.
MIN_TEXT_CHARS = 20
# ... unless they hold readable words, drawn visibly: a cover's "Annex B", a title page's "Hello world"
# are the page's text. Readable words (quality/judge.py short_words): SHORT_TEXT_MIN_WORDS runs of letters
# in tokens free of symbols, holding at least SHORT_TEXT_LETTER_SHARE of the page's letters. Calibrated on
# the robust set's pages of 1-19 visible characters (docs/decisions.md, "Text judging: calibration notes").
SHORT_TEXT_MIN_WORDS = 1
SHORT_TEXT_LETTER_SHARE = 0.5
# A page image covering this share of the page makes a text-less page a scan; calibrated on the corpus's
# scans and a small scan pasted on a page (docs/decisions.md, "Text judging: calibration notes").
SCAN_IMAGE_COVERAGE = 0.2
# Invisible text covering this share of a page's characters over a page image is an OCR layer.
SANDWICH_INVISIBLE_SHARE = 0.5
# Glyph-like filled paths: a page with this many and no text is text drawn as outlines; calibrated on a
# page of outlined text and the corpus's outlined logos (docs/decisions.md, "Text judging: calibration
# notes").
OUTLINE_TEXT_MIN_PATHS = 50
# Unreported ink (largest region of ink nothing reported, share of the page, readers/pdf/facts.py) above
# which a text-less page is not blank; calibrated on the corpus's clean, scanned, sandwich and outlined
# pages (docs/decisions.md, "Text judging: calibration notes").
UNREPORTED_INK_MIN = 0.001
# A short text that is mostly neither letters nor digits is junk from a font without a mapping, not a
# blank page with a page number; calibrated on a font without a mapping (docs/decisions.md, "Text
# judging: calibration notes").
JUNK_SHARE_MIN = 0.5
# Bad runes (U+FFFD, controls, private use) over this share of characters make a page garbage; calibrated
# on the corpus's clean, formula and unmapped pages (docs/decisions.md, "Text judging: calibration notes").
BAD_RUNE_MAX = 0.1
# (cid:N) passthrough over this share of characters.
CID_MAX = 0.05
# Length-weighted lexicon hit rate under which a judged born-digital page is garbage: garbled text scores
# at most 0.03, clean pages of the corpus 0.09 and more; pseudo-Latin lorem ipsum is condemned (no lexicon
# knows it). Calibrated on 21 languages' garbles and the corpus's clean pages (docs/decisions.md, "Text
# judging: calibration notes").
LEXICON_MIN = 0.12
# A low hit rate condemns a page only with at least this much evidence weight behind it.
LEXICON_CONDEMN_WEIGHT = 80.0
# OCR layers carry recognition errors: their own, lower threshold.
SANDWICH_LEXICON_MIN = 0.08
# An OCR layer that passes its threshold but reads under this is poor (an earlier engine's misreadings,
# handwriting): the page is read again by Tesseract and the better reading by score is used
# (quality/sources.py), the layer kept in ``pages``. Calibrated on the corpus's English sandwiches
# (docs/decisions.md, "Text judging: calibration notes").
SANDWICH_REREAD_BELOW = 0.5
# A page within this distance above its threshold is borderline: the document prior may condemn it.
BORDERLINE_BAND = 0.15
# Share of a document's judged pages that must be REPLACE for the prior to apply.
DOC_PRIOR_SHARE = 0.5
# A font is garbled when its document-wide hit rate is under FONT_GARBLED_MAX with at least FONT_MIN_WEIGHT
# of evidence (the page lexicon's own floor, MIN_EVIDENCE_WEIGHT) and its whole text's best language
# similarity is under FONT_GARBLED_SIMILARITY. Calibrated on the corpus's body, math and lorem ipsum fonts
# and letter shuffles of 21 languages (docs/decisions.md, "Text judging: calibration notes").
FONT_MIN_WEIGHT = 40.0
FONT_GARBLED_MAX = 0.05
FONT_GARBLED_SIMILARITY = 0.18
# ... and when words make up its text: its evidence weight is at least this share of its characters (a
# math italic font draws variables, short tokens). Calibrated on prose, lists and a math italic font
# (docs/decisions.md, "Text judging: calibration notes").
FONT_MIN_WORD_SHARE = 0.1
# A monospaced font is not judged by its words: it sets code and markup, whose identifiers miss every
# lexicon and match no profile.
# A garbled font condemns a page where it draws at least this many non-whitespace characters.
FONT_CONDEMN_CHARS = 20
# A page's own text in its fonts judges it (tier "font") with at least this much lexicon evidence over all
# its blocks, lists and tables included: the page lexicon's floor.
PAGE_FONT_MIN_WEIGHT = 40.0
# A font vouches for the pages that cannot judge themselves when it is sound across the document: at
# least FONT_MIN_WEIGHT of evidence hitting at LEXICON_MIN or more, or most of the characters of a page
# judged clean on its own evidence (lexicon, font or trigram).
VOUCHING_PAGE_SHARE = 0.5
# A page borrows its fonts' verdicts when vouched fonts draw at least this share of its characters.
BORROW_COVERAGE = 0.8
# A page matching a language profile is judged by the trigram tier with at least this many letters:
# 15-word windows of clean text match at 0.19 and more, letter shuffles at 0.12 and less; under about 40
# letters a similarity says little.
TRIGRAM_MIN_LETTERS = 40
# Images or vector figures over these shares of a trustworthy page make it FIGURES (their content is
# transcribed by OCR in addition to the text).
FIGURE_IMAGE_COVERAGE = 0.2
FIGURE_VECTOR_AREA = 0.15
# Minimum trigram similarity for a language guess to count; below it the page matches no language.
MIN_LANGUAGE_SIMILARITY = 0.25
# Matching no language condemns a page only under this similarity and with prose to judge; calibrated on
# letter-shuffled garbage of 21 languages, lorem ipsum, clean 40-word windows and formula-heavy German
# prose (docs/decisions.md, "Text judging: calibration notes"); number tables and forms have no prose.
GARBAGE_SIMILARITY = 0.14
# A page no tier could judge whose letters (TRIGRAM_MIN_LETTERS or more, in a script the profiles cover)
# match no language profile (under GARBAGE_SIMILARITY, as prose that matches none) is read by OCR as a
# second opinion: a cipher in list lines ("Foibodf uif qfsgpsnbodf", 0.05) looks like that, Kurdish in
# Arabic letters (0.23, no profile of its own) does not. OCR's reading agreeing with the layer keeps the
# layer (quality/sources.py); disagreeing, it replaces it; no reading at all leaves the layer, unconfirmed.
SECOND_OPINION_NO_PROFILE = "no_profile_second_opinion"


@dataclass(frozen=True, slots=True)
class PageEvidence:
    """The stored signals of one page that the rules read."""

    page: int
    chars: int
    bad_rune_ratio: float = 0.0
    cid_ratio: float = 0.0
    language: str | None = None
    language_similarity: float = 0.0
    lexicon_judged: bool = False
    lexicon_hit_rate: float = 0.0
    lexicon_weight: float = 0.0
    judging_language: bool = True
    prose_blocks: int = 1
    junk_share: float = 0.0
    unreported_ink: float = 0.0
    replaceable: bool = True
    image_coverage: float = 0.0
    vector_figure_area: float = 0.0
    outline_text_paths: int = 0
    invisible_share: float = 0.0
    ocr_font_hint: bool = False
    fonts: Sequence[str] = ()
    repaired: bool = False
    fallback_clean: bool = False
    letters: int = 0
    words: int = 0  # a short page's readable words (quality/judge.py short_words)
    word_letters: int = 0  # ... and their letters
    known_words: int | None = None  # ... of them, those a lexicon knows (None: not counted)
    profiled: bool = True  # its letters are in a script some language profile covers
    # The page's own per-font lexicon evidence over all its blocks: font -> (chars, weight, hits' weight).
    font_evidence: Mapping[str, tuple[int, float, float]] = field(default_factory=dict)

    @property
    def font_weight(self) -> float:
        return sum(w for _, w, _ in self.font_evidence.values())


def suspect(font: str, weight: float, hits: float, chars: int) -> bool:
    """A font with enough words to judge (:data:`FONT_MIN_WEIGHT`, :data:`FONT_MIN_WORD_SHARE`) that miss
    the lexicon (:data:`FONT_GARBLED_MAX`), and not monospaced (:func:`~quality.prose.is_mono_font`)."""
    return (
        weight >= FONT_MIN_WEIGHT
        and weight >= FONT_MIN_WORD_SHARE * chars
        and hits < FONT_GARBLED_MAX * weight
        and not is_mono_font(font)
    )


@dataclass(frozen=True, slots=True)
class FontJudgement:
    font: str
    weight: float
    hits: float
    chars: int
    similarity: float | None = None  # its whole text's best profile similarity, measured for suspects

    @property
    def hit_rate(self) -> float:
        return self.hits / self.weight if self.weight else 0.0

    @property
    def garbled(self) -> bool:
        return self.suspect and self.similarity is not None and self.similarity < FONT_GARBLED_SIMILARITY

    @property
    def suspect(self) -> bool:
        """Its words miss the lexicon: its whole text is matched against the language profiles."""
        return suspect(self.font, self.weight, self.hits, self.chars)

    @property
    def sound(self) -> bool:
        return self.weight >= FONT_MIN_WEIGHT and self.hit_rate >= LEXICON_MIN


@dataclass(frozen=True, slots=True)
class PageVerdict:
    page: int
    mode: Mode
    provenance: Provenance
    reasons: tuple[str, ...] = ()
    score: float | None = None
    borderline: bool = False
    judged: bool = False
    extra: Mapping[str, float] = field(default_factory=dict)
    judged_by: Tier = Tier.UNJUDGEABLE


def provenance_of(e: PageEvidence) -> Provenance:
    if e.image_coverage >= SCAN_IMAGE_COVERAGE and (
        e.invisible_share >= SANDWICH_INVISIBLE_SHARE or (e.ocr_font_hint and e.chars >= MIN_TEXT_CHARS)
    ):
        return Provenance.OCR_SANDWICH
    if e.chars < MIN_TEXT_CHARS and e.image_coverage >= SCAN_IMAGE_COVERAGE and e.junk_share < JUNK_SHARE_MIN:
        return Provenance.RAW_SCAN
    return Provenance.BORN_DIGITAL


def judge_page(
    e: PageEvidence,
    garbled_fonts: frozenset[str] = frozenset(),
    vouched_fonts: frozenset[str] = frozenset(),
) -> PageVerdict:
    """Tiers 0-3 and 5 for one page; the document prior (tier 4) is :func:`judge_document`'s, which also
    says which fonts are garbled and which vouch for the pages that cannot judge themselves."""
    prov = provenance_of(e)

    # Tier 0: asymmetric.
    if e.chars < MIN_TEXT_CHARS and not e.replaceable and not e.chars:
        return PageVerdict(e.page, Mode.BLANK, prov, ("no_text",), judged_by=Tier.NO_TEXT)
    if e.chars < MIN_TEXT_CHARS and e.replaceable:
        junk = e.chars > 0 and (e.junk_share >= JUNK_SHARE_MIN or e.bad_rune_ratio > BAD_RUNE_MAX)
        if junk and not e.fallback_clean:
            return PageVerdict(e.page, Mode.REPLACE, prov, ("junk_text",), judged_by=Tier.CHARACTERS)
        if e.outline_text_paths >= OUTLINE_TEXT_MIN_PATHS:
            return PageVerdict(
                e.page, Mode.REPLACE, prov, ("no_text_layer", "text_as_outlines"), judged_by=Tier.NO_TEXT
            )
        if e.image_coverage >= SCAN_IMAGE_COVERAGE:
            return PageVerdict(
                e.page, Mode.REPLACE, prov, ("no_text_layer", "image_cover"), judged_by=Tier.NO_TEXT
            )
        if e.unreported_ink >= UNREPORTED_INK_MIN:
            return PageVerdict(
                e.page, Mode.REPLACE, prov, ("no_text_layer", "unreported_ink"), judged_by=Tier.NO_TEXT
            )
        if junk:  # junk that the fallback reader read cleanly
            return PageVerdict(
                e.page, Mode.TEXT, prov, ("junk_text", "fallback_reader"), judged_by=Tier.CHARACTERS
            )
        if _short_text(e):
            # Too short for any tier to judge: used as it stands, vouched for by its fonts when they are
            # sound elsewhere in the document.
            drawn = sum(c for c, _, _ in e.font_evidence.values())
            vouched = sum(c for f, (c, _, _) in e.font_evidence.items() if f in vouched_fonts)
            if drawn and vouched >= BORROW_COVERAGE * drawn:
                return PageVerdict(e.page, Mode.TEXT, prov, ("short_text",), judged_by=Tier.BORROWED)
            if e.known_words == 0 and e.replaceable:
                # Words no lexicon knows, in fonts nothing vouches for: a cipher or a code; OCR's reading
                # decides, as for a longer page in no language (agreement keeps the layer).
                reasons = ("short_text", "unjudgeable:few_letters", SECOND_OPINION_NO_PROFILE)
                return PageVerdict(e.page, Mode.REPLACE, prov, reasons, judged_by=Tier.UNJUDGEABLE)
            return PageVerdict(
                e.page, Mode.TEXT, prov, ("short_text", "unjudgeable:few_letters"), judged_by=Tier.UNJUDGEABLE
            )
        return PageVerdict(e.page, Mode.BLANK, prov, ("no_text_layer",), judged_by=Tier.NO_TEXT)

    reasons: list[str] = []
    if e.bad_rune_ratio > BAD_RUNE_MAX:
        reasons.append("bad_runes")
    if e.cid_ratio > CID_MAX:
        reasons.append("cid_passthrough")
    threshold = SANDWICH_LEXICON_MIN if prov is Provenance.OCR_SANDWICH else LEXICON_MIN
    score = e.lexicon_hit_rate if e.lexicon_judged else None
    if e.language is None or e.language_similarity < MIN_LANGUAGE_SIMILARITY:
        if not reasons and e.language_similarity < GARBAGE_SIMILARITY and e.prose_blocks > 0:
            reasons.append("no_language")
    elif e.lexicon_judged and e.lexicon_hit_rate < threshold and e.lexicon_weight >= LEXICON_CONDEMN_WEIGHT:
        reasons.append("lexicon_low")
    # The font is the unit of corruption: a garbled font condemns every page it draws on.
    condemned = sorted(
        f
        for f in e.fonts
        if f in garbled_fonts
        and e.font_evidence.get(f, (FONT_CONDEMN_CHARS, 0.0, 0.0))[0] >= FONT_CONDEMN_CHARS
    )
    reasons += [f"font_garbled:{f}" for f in condemned]
    tier = _tier(e, reasons, condemned, vouched_fonts)
    if tier is Tier.UNJUDGEABLE:
        reasons.append(f"unjudgeable:{_unjudgeable_why(e)}")
    if prov is Provenance.OCR_SANDWICH:
        reasons.insert(0, "ocr_sandwich")

    garbage = any(
        r in reasons for r in ("bad_runes", "cid_passthrough", "no_language", "lexicon_low")
    ) or bool(condemned)
    borderline = score is not None and not garbage and score < threshold + BORDERLINE_BAND

    def verdict(mode: Mode, extra: tuple[str, ...] = (), *, judged: bool = e.lexicon_judged) -> PageVerdict:
        return PageVerdict(
            e.page, mode, prov, (*reasons, *extra), score, borderline and not garbage, judged, judged_by=tier
        )

    if garbage and not e.replaceable:
        # Nothing to OCR (a text file, a spreadsheet): the evidence is kept, the text stays.
        return verdict(Mode.TEXT, ("not_replaceable",), judged=True)
    if garbage:
        if e.fallback_clean:
            return verdict(Mode.TEXT, ("fallback_reader",), judged=True)
        if e.repaired:
            return verdict(Mode.REPAIRED, ("repaired",), judged=True)
        return verdict(Mode.REPLACE)

    if tier is Tier.UNJUDGEABLE and e.replaceable and _matches_no_profile(e):
        # Nothing vouches for text in no language: OCR's reading decides (no cipher is trusted).
        return verdict(Mode.REPLACE, (SECOND_OPINION_NO_PROFILE,))
    if prov is Provenance.OCR_SANDWICH and e.replaceable and _poor_layer(e):
        # Provenance first: someone else's OCR is judged by its own rule, and a poor one read again.
        return verdict(Mode.REPLACE, ("ocr_layer_poor",))
    if not e.judging_language and e.language is not None:
        return verdict(Mode.LANG, (f"lang:{e.language}",), judged=False)
    if e.image_coverage >= FIGURE_IMAGE_COVERAGE and prov is Provenance.BORN_DIGITAL:
        return verdict(Mode.FIGURES, ("image_cover",))
    if e.vector_figure_area >= FIGURE_VECTOR_AREA:
        return verdict(Mode.FIGURES, ("vector_figure",))
    return verdict(Mode.TEXT)


def _short_text(e: PageEvidence) -> bool:
    """A text layer under MIN_TEXT_CHARS that still holds readable words, drawn visibly, not junk."""
    return (
        e.words >= SHORT_TEXT_MIN_WORDS
        and e.word_letters >= SHORT_TEXT_LETTER_SHARE * e.letters
        and e.invisible_share < SANDWICH_INVISIBLE_SHARE
        and e.bad_rune_ratio <= BAD_RUNE_MAX
        and e.junk_share < JUNK_SHARE_MIN
    )


def _matches_no_profile(e: PageEvidence) -> bool:
    """Letters enough to be matched, in a script the profiles cover, that match no language."""
    return e.profiled and e.letters >= TRIGRAM_MIN_LETTERS and e.language_similarity < GARBAGE_SIMILARITY


def _poor_layer(e: PageEvidence) -> bool:
    """An OCR layer that reads poorly: a low lexicon score, or prose matching no language. Labels of a
    graph or a form that match no profile say nothing of the engine (an OCR'd graph's layer is kept)."""
    if e.lexicon_judged:
        return e.lexicon_hit_rate < SANDWICH_REREAD_BELOW
    return (
        e.language is None
        and e.prose_blocks > 0
        and e.letters >= TRIGRAM_MIN_LETTERS
        and e.language_similarity < MIN_LANGUAGE_SIMILARITY
    )


def _tier(e: PageEvidence, reasons: list[str], condemned: list[str], vouched: frozenset[str]) -> Tier:
    """The evidence that decided the page, surest first."""
    if "bad_runes" in reasons or "cid_passthrough" in reasons:
        return Tier.CHARACTERS
    if condemned:
        own = sum(e.font_evidence.get(f, (0, 0.0, 0.0))[1] for f in condemned)
        return Tier.FONT if own >= FONT_MIN_WEIGHT else Tier.BORROWED
    if e.lexicon_judged:
        return Tier.LEXICON
    if "no_language" in reasons:
        return Tier.TRIGRAM
    weight = e.font_weight
    if weight >= PAGE_FONT_MIN_WEIGHT:
        hits = sum(h for _, _, h in e.font_evidence.values())
        if hits / weight >= FONT_GARBLED_MAX:
            return Tier.FONT
    if (
        e.language is not None
        and e.language_similarity >= MIN_LANGUAGE_SIMILARITY
        and e.letters >= TRIGRAM_MIN_LETTERS
    ):
        return Tier.TRIGRAM
    drawn = sum(c for c, _, _ in e.font_evidence.values())
    if (
        drawn
        and sum(c for f, (c, _, _) in e.font_evidence.items() if f in vouched) >= BORROW_COVERAGE * drawn
    ):
        return Tier.BORROWED
    return Tier.UNJUDGEABLE


def _unjudgeable_why(e: PageEvidence) -> str:
    if e.letters < TRIGRAM_MIN_LETTERS:
        return "few_letters"  # numbers, codes, a form's labels
    if not e.font_evidence:
        return "no_profile"  # text that matches no language profile, with no fonts to judge it by
    return "no_profile_fonts_unvouched"


def garbled_fonts(fonts: Sequence[FontJudgement]) -> frozenset[str]:
    return frozenset(f.font for f in fonts if f.garbled)


def judge_document(pages: Sequence[PageEvidence], fonts: Sequence[FontJudgement] = ()) -> list[PageVerdict]:
    """Every page of one document, with the per-font evidence and the document prior.

    A garbled font (:attr:`FontJudgement.garbled`: its tokens miss the lexicon with enough evidence and
    its text matches no language profile) condemns every page it draws on. A font vouches for the pages
    that cannot judge themselves when it is sound across the document or draws most of a page that was
    judged clean on its own evidence; such a page borrows that verdict.
    """
    garbled = garbled_fonts(fonts)
    first = [judge_page(p, garbled) for p in pages]
    vouched = {f.font for f in fonts if f.sound}
    for v, p in zip(first, pages, strict=True):
        if v.mode in (Mode.TEXT, Mode.FIGURES, Mode.LANG) and v.judged_by in _OWN_EVIDENCE:
            drawn = sum(c for c, _, _ in p.font_evidence.values())
            vouched |= {f for f, (c, _, _) in p.font_evidence.items() if c >= VOUCHING_PAGE_SHARE * drawn}
    vouched_fonts = frozenset(vouched - garbled)
    verdicts = [
        judge_page(p, garbled, vouched_fonts) if v.judged_by is Tier.UNJUDGEABLE else v
        for v, p in zip(first, pages, strict=True)
    ]
    # A page sent to OCR because nothing could judge it is no evidence against the document's others.
    judged = [
        v
        for v in verdicts
        if (v.judged or v.mode is Mode.REPLACE) and SECOND_OPINION_NO_PROFILE not in v.reasons
    ]
    replaced = [v for v in judged if v.mode is Mode.REPLACE]
    if judged and len(replaced) / len(judged) > DOC_PRIOR_SHARE:
        verdicts = [
            replace(v, mode=Mode.REPLACE, reasons=(*v.reasons, "doc_prior")) if v.borderline else v
            for v in verdicts
        ]
    return verdicts


_OWN_EVIDENCE = frozenset({Tier.LEXICON, Tier.FONT, Tier.TRIGRAM})
