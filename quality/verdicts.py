"""What each page's text is worth: one mode per page, with reason codes and a provenance (DESIGN §4).

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
3. **Fonts across the document**: a font that is garbled on pages that can judge it condemns its text on
   pages that cannot judge themselves (tables, short pages).
4. **Document prior**: when most judged pages of a document are ``REPLACE``, its borderline pages follow.
5. Correct text in a language no lexicon judges is ``LANG`` (terminal, never OCRed); trustworthy text
   with large images or vector figures is ``FIGURES``; the rest is ``TEXT``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from quality.vocabulary import fingerprint

# 2: pages that read poorly get a second opinion; 3: with a document prior; 4-5: both texts measured alike,
# and a fallback that brings unmapped glyphs is not taken
VERDICTS_VERSION = "5"


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


class Provenance(StrEnum):
    BORN_DIGITAL = "born_digital"
    RAW_SCAN = "raw_scan"
    OCR_SANDWICH = "ocr_sandwich"


# -- thresholds (calibration notes beside each; `assay calibrate` and tests/test_verdicts.py re-measure) --

# Fewer non-whitespace characters than this is "no text": a page number or a stray mark is not a layer.
MIN_TEXT_CHARS = 20
# A page image covering this share of the page makes a text-less page a scan. Scans cover 0.99-1.0 in the
# shared corpus, except tika__testOCR.pdf, a small scan pasted on a page (0.299); a text-less page with
# an image that large has content to read whatever made it.
SCAN_IMAGE_COVERAGE = 0.2
# Invisible text covering this share of a page's characters over a page image is an OCR layer.
SANDWICH_INVISIBLE_SHARE = 0.5
# Glyph-like filled paths: a page with this many and no text is text drawn as outlines
# (ocrmypdf__vector.pdf: 112; outlined logos on born-digital pages of the corpus: 29 at most).
OUTLINE_TEXT_MIN_PATHS = 50
# Unreported ink (largest region of ink nothing reported, share of the page, readers/pdf/facts.py) above
# which a text-less page is not blank: clean, scanned and sandwich pages of the corpus 0-0.0006, text
# drawn as outlines 0.0016-0.0049.
UNREPORTED_INK_MIN = 0.001
# A short text that is mostly neither letters nor digits is junk from a font without a mapping
# (ocrmypdf__truetype_font_nomapping.pdf extracts '"7+%-'), not a blank page with a page number.
JUNK_SHARE_MIN = 0.5
# Bad runes (U+FFFD, controls, private use) over this share of characters make a page garbage. Clean
# born-digital pages of the corpus stay under 0.035, except formula pages whose math symbols map to the
# private-use area (pyp__GeoTopo p92: 0.052); unmapped glyphs score 0.25 (pyp__habibi) to 1.0 (a Type 3
# font without a mapping).
BAD_RUNE_MAX = 0.1
# (cid:N) passthrough over this share of characters.
CID_MAX = 0.05
# Length-weighted lexicon hit rate under which a judged born-digital page is garbage. Garbled text scores
# at most 0.03 (tests/test_lexicon_language.py, 21 languages, shuffles and shifts); clean pages of the
# corpus reach down to 0.09 (technical German with compounds, pyp__GeoTopo p9, weight 43) and 0.2-0.45
# on most of that thesis. Pseudo-Latin lorem ipsum scores 0.01-0.02 and is condemned: no lexicon knows it.
LEXICON_MIN = 0.12
# A low hit rate condemns a page only with at least this much evidence weight behind it.
LEXICON_CONDEMN_WEIGHT = 80.0
# OCR layers carry recognition errors: their own, lower threshold.
SANDWICH_LEXICON_MIN = 0.08
# A page within this distance above its threshold is borderline: the document prior may condemn it.
BORDERLINE_BAND = 0.15
# Share of a document's judged pages that must be REPLACE for the prior to apply.
DOC_PRIOR_SHARE = 0.5
# A font is garbled when its document-wide hit rate is under FONT_GARBLED_MAX with at least FONT_MIN_WEIGHT
# of evidence. Math and symbol fonts of the corpus (CMMI10, LMMathItalic) have under 100 weight; body
# fonts of clean documents hit 0.09 or more.
FONT_MIN_WEIGHT = 100.0
FONT_GARBLED_MAX = 0.05
# Images or vector figures over these shares of a trustworthy page make it FIGURES (their content is
# transcribed by OCR in addition to the text).
FIGURE_IMAGE_COVERAGE = 0.2
FIGURE_VECTOR_AREA = 0.15
# Minimum trigram similarity for a language guess to count; below it the page matches no language.
MIN_LANGUAGE_SIMILARITY = 0.25
# Matching no language condemns a page only under this similarity and with prose to judge: letter-shuffled
# garbage of 21 languages scores at most 0.117 (tests/test_lexicon_language.py), lorem ipsum 0.23, clean
# 40-word windows at least 0.40; number tables and forms have no prose blocks.
GARBAGE_SIMILARITY = 0.14  # formula-heavy German prose scores 0.16 (pyp__GeoTopo p46)


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


@dataclass(frozen=True, slots=True)
class FontJudgement:
    font: str
    weight: float
    hits: float
    chars: int

    @property
    def hit_rate(self) -> float:
        return self.hits / self.weight if self.weight else 0.0

    @property
    def garbled(self) -> bool:
        return self.weight >= FONT_MIN_WEIGHT and self.hit_rate < FONT_GARBLED_MAX


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


def provenance_of(e: PageEvidence) -> Provenance:
    if e.image_coverage >= SCAN_IMAGE_COVERAGE and (
        e.invisible_share >= SANDWICH_INVISIBLE_SHARE or (e.ocr_font_hint and e.chars >= MIN_TEXT_CHARS)
    ):
        return Provenance.OCR_SANDWICH
    if e.chars < MIN_TEXT_CHARS and e.image_coverage >= SCAN_IMAGE_COVERAGE and e.junk_share < JUNK_SHARE_MIN:
        return Provenance.RAW_SCAN
    return Provenance.BORN_DIGITAL


def judge_page(e: PageEvidence, garbled_fonts: frozenset[str] = frozenset()) -> PageVerdict:
    """Tiers 0-3 and 5 for one page; the document prior (tier 4) is :func:`judge_document`'s."""
    prov = provenance_of(e)

    # Tier 0: asymmetric.
    if e.chars < MIN_TEXT_CHARS and not e.replaceable and not e.chars:
        return PageVerdict(e.page, Mode.BLANK, prov, ("no_text",))
    if e.chars < MIN_TEXT_CHARS and e.replaceable:
        junk = e.chars > 0 and (e.junk_share >= JUNK_SHARE_MIN or e.bad_rune_ratio > BAD_RUNE_MAX)
        if junk and not e.fallback_clean:
            return PageVerdict(e.page, Mode.REPLACE, prov, ("junk_text",))
        if e.outline_text_paths >= OUTLINE_TEXT_MIN_PATHS:
            return PageVerdict(e.page, Mode.REPLACE, prov, ("no_text_layer", "text_as_outlines"))
        if e.image_coverage >= SCAN_IMAGE_COVERAGE:
            return PageVerdict(e.page, Mode.REPLACE, prov, ("no_text_layer", "image_cover"))
        if e.unreported_ink >= UNREPORTED_INK_MIN:
            return PageVerdict(e.page, Mode.REPLACE, prov, ("no_text_layer", "unreported_ink"))
        if junk:  # junk that the fallback reader read cleanly
            return PageVerdict(e.page, Mode.TEXT, prov, ("junk_text", "fallback_reader"))
        return PageVerdict(e.page, Mode.BLANK, prov, ("no_text_layer",))

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
    condemned = sorted(f for f in e.fonts if f in garbled_fonts)
    if not e.lexicon_judged and condemned:
        reasons += [f"font_garbled:{f}" for f in condemned]
    if prov is Provenance.OCR_SANDWICH:
        reasons.insert(0, "ocr_sandwich")

    garbage = any(r in reasons for r in ("bad_runes", "cid_passthrough", "no_language", "lexicon_low")) or (
        bool(condemned) and not e.lexicon_judged
    )
    borderline = score is not None and not garbage and score < threshold + BORDERLINE_BAND
    if garbage and not e.replaceable:
        # Nothing to OCR (a text file, a spreadsheet): the evidence is kept, the text stays.
        return PageVerdict(e.page, Mode.TEXT, prov, (*reasons, "not_replaceable"), score, judged=True)
    if garbage:
        if e.fallback_clean:
            return PageVerdict(e.page, Mode.TEXT, prov, (*reasons, "fallback_reader"), score, judged=True)
        if e.repaired:
            return PageVerdict(e.page, Mode.REPAIRED, prov, (*reasons, "repaired"), score, judged=True)
        return PageVerdict(e.page, Mode.REPLACE, prov, tuple(reasons), score, judged=e.lexicon_judged)

    if not e.judging_language and e.language is not None:
        return PageVerdict(e.page, Mode.LANG, prov, (*reasons, f"lang:{e.language}"), score)
    if e.image_coverage >= FIGURE_IMAGE_COVERAGE and prov is Provenance.BORN_DIGITAL:
        return PageVerdict(
            e.page, Mode.FIGURES, prov, (*reasons, "image_cover"), score, borderline, e.lexicon_judged
        )
    if e.vector_figure_area >= FIGURE_VECTOR_AREA:
        return PageVerdict(
            e.page, Mode.FIGURES, prov, (*reasons, "vector_figure"), score, borderline, e.lexicon_judged
        )
    return PageVerdict(e.page, Mode.TEXT, prov, tuple(reasons), score, borderline, e.lexicon_judged)


def garbled_fonts(fonts: Sequence[FontJudgement]) -> frozenset[str]:
    return frozenset(f.font for f in fonts if f.garbled)


def judge_document(pages: Sequence[PageEvidence], fonts: Sequence[FontJudgement] = ()) -> list[PageVerdict]:
    """Every page of one document, with the per-font evidence and the document prior.

    A font condemns pages only when it is garbled across the document (its tokens miss the lexicon) *and*
    some page it is drawn on was judged garbage on its own evidence: a font of labels and abbreviations
    misses the lexicon too, but never on a page that reads as garbage.
    """
    first = [judge_page(p) for p in pages]
    garbage_pages = {v.page for v in first if v.mode is Mode.REPLACE and GARBAGE & set(v.reasons)}
    suspects = garbled_fonts(fonts)
    bad_fonts = frozenset(f for f in suspects if any(f in p.fonts for p in pages if p.page in garbage_pages))
    verdicts = [judge_page(p, bad_fonts) for p in pages] if bad_fonts else first
    judged = [v for v in verdicts if v.judged or v.mode is Mode.REPLACE]
    replaced = [v for v in judged if v.mode is Mode.REPLACE]
    if judged and len(replaced) / len(judged) > DOC_PRIOR_SHARE:
        verdicts = [
            replace(v, mode=Mode.REPLACE, reasons=(*v.reasons, "doc_prior")) if v.borderline else v
            for v in verdicts
        ]
    return verdicts
