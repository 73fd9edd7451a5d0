"""The verdicts stage for one document, as a plain function over stored rows.

For each document with pages: gather each page's evidence from its stored signals, score every font across
the document, judge (quality/verdicts.py), then, for the pages judged garbage, ask for a second opinion
(the fallback reader on just those pages, and on a few of the pages that pass but read poorly, more of them
when those read better) and try a repair of the page's text; judge again with what they
gave. Nothing here reads a file except through the ``second_opinion`` callable it is handed.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from quality.language import candidate_languages
from quality.lexicon import JUDGING_LANGUAGES, load_lexicon
from quality.records import FontVerdictRecord, PageVerdictRecord, RepairRecord, Source
from quality.verdicts import (
    DOC_PRIOR_SHARE,
    GARBAGE_SIMILARITY,
    LEXICON_MIN,
    MIN_TEXT_CHARS,
    SANDWICH_LEXICON_MIN,
    TRIGRAM_MIN_LETTERS,
    VERDICTS_VERSION,
    FontJudgement,
    Mode,
    PageEvidence,
    PageVerdict,
    Provenance,
    judge_document,
)
from readers.core.errors import LimitExceeded
from readers.core.reading_records import PageFontRecord, PageRecord

# A page that passes with a lexicon hit rate under this is read again by the fallback reader; its text is
# used when it scores at least SECOND_OPINION_GAIN higher and SECOND_OPINION_RATIO times as high, both
# measured on the whole page. Calibrated on a book whose words PyMuPDF glues and on technical German
# (docs/decisions.md, "Text judging: calibration notes").
SECOND_OPINION_BELOW = 0.35
SECOND_OPINION_GAIN = 0.1
SECOND_OPINION_RATIO = 1.5
# A document's suspects are probed first: the SECOND_OPINION_PROBE that read worst (lowest score) are read
# by the fallback, and only when one of them reads better are the rest (they share the document's fonts
# and producer). On the corpus the fallback reads better either on every suspect of a document or on
# none, so the worst page alone tells (docs/decisions.md, "Text judging: calibration notes").
SECOND_OPINION_PROBE = 1
#: A readable word of a short page: a run of two letters or more, or one ideograph, kana or hangul
#: syllable (scripts that write a word in one character and may space every character: "全 世 界").
_WORD = re.compile(r"[^\W\d_]{2,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def short_words(text: str) -> tuple[int, int]:
    """(readable words, their letters) of a page's text: the words (:data:`_WORD`) of its whitespace
    tokens that hold no symbol or control character. Mojibake of a font without a mapping mixes symbols
    into its tokens ("«À¢Ã¡Á¢ Àð¼÷"); a word keeps its punctuation ("l’impayé", "“Bug", "pdf.js")."""
    words = _readable_words(text)
    return len(words), sum(map(len, words))


def known_short_words(text: str) -> int:
    """How many of a short page's readable words some lexicon of the languages written in their script
    knows: none, and the page may be a cipher ("Boofy C" for "Annex B") that only OCR can tell."""
    return _known(_readable_words(text))


def _readable_words(text: str) -> list[str]:
    return [
        word
        for token in text.split()
        if not any(unicodedata.category(c)[0] in "SC" for c in token)
        for word in _WORD.findall(token)
    ]


def _known(words: Sequence[str]) -> int:
    return sum(
        any(
            language in JUDGING_LANGUAGES and word in load_lexicon(language)
            for language in candidate_languages(word)
        )
        for word in words
        if len(word) >= 2
    )


#: The reason a page carries when work on its file was stopped over its budget (a worker's time or memory:
#: assets/verdicts/file_work.py): ``second_opinion_over_limit:memory``; what that work would have given is
#: missing, the verdict stands on the text layer's evidence alone.
OVER_LIMIT = "_over_limit:"
SECOND_OPINION_OVER_LIMIT = "second_opinion_over_limit"
INK_OVER_LIMIT = "ink_over_limit"
REPAIR_OVER_LIMIT = "repair_over_limit"

GARBAGE_REASONS = frozenset({"bad_runes", "cid_passthrough", "no_language", "lexicon_low", "junk_text"})

# Judges a replacement text (from the fallback reader or a repair): (lexicon hit rate, language, trusted).
TextCheck = Callable[[str], "TextQuality"]
SecondOpinion = Callable[[list[int]], dict[int, str]]
# (page number, its text, the reasons it was condemned for) -> the repair, or None where none may stand.
Repairer = Callable[[int, str, Sequence[str]], "RepairOutcome | None"]


@dataclass(frozen=True, slots=True)
class TextQuality:
    trusted: bool
    score: float
    language: str | None


@dataclass(frozen=True, slots=True)
class RepairOutcome:
    text: str
    method: str
    mapping: dict[str, str]
    score: float
    tool: str
    tool_version: str


@dataclass(slots=True)
class DocumentVerdicts:
    pages: list[PageVerdictRecord] = field(default_factory=list)
    fonts: list[FontVerdictRecord] = field(default_factory=list)
    repairs: list[RepairRecord] = field(default_factory=list)


def junk_share(text: str) -> float:
    """Share of non-whitespace characters that are neither letters nor digits."""
    visible = [c for c in text if not c.isspace()]
    if not visible:
        return 0.0
    return sum(1 for c in visible if not c.isalnum()) / len(visible)


def evidence_of(
    page: PageRecord,
    judging_languages: frozenset[str],
    replaceable: bool = True,
    fonts: Sequence[PageFontRecord] = (),
) -> PageEvidence:
    readable = _readable_words(page.text) if page.chars < MIN_TEXT_CHARS else []
    return PageEvidence(
        page=page.page,
        chars=page.chars if page.text.strip() else 0,
        bad_rune_ratio=page.bad_rune_ratio or 0.0,
        cid_ratio=page.cid_ratio or 0.0,
        language=page.language,
        language_similarity=page.language_similarity or 0.0,
        lexicon_judged=bool(page.lexicon_judged),
        lexicon_hit_rate=page.lexicon_hit_rate or 0.0,
        lexicon_weight=page.lexicon_weight or 0.0,
        judging_language=page.language in judging_languages if page.language else True,
        prose_blocks=page.prose_blocks if page.blocks else 1,
        junk_share=junk_share(page.text) if page.chars < 200 else 0.0,
        replaceable=replaceable,
        image_coverage=page.image_coverage or 0.0,
        vector_figure_area=page.vector_figure_area or 0.0,
        outline_text_paths=page.outline_text_paths or 0,
        invisible_share=page.invisible_share or 0.0,
        ocr_font_hint=bool(page.ocr_font_hint),
        fonts=tuple(page.font_names or ()),
        letters=(letters := sum(map(str.isalpha, page.text))),
        words=len(readable),
        word_letters=sum(map(len, readable)),
        known_words=_known(readable),
        # Looked up only where it can matter (quality/verdicts.py's _matches_no_profile).
        profiled=letters < TRIGRAM_MIN_LETTERS
        or (page.language_similarity or 0.0) >= GARBAGE_SIMILARITY
        or bool(candidate_languages(page.text)),
        font_evidence={f.font: (f.chars, f.weight, f.hits) for f in fonts},
    )


def font_judgements(
    fonts: Sequence[PageFontRecord], judged_pages: set[int]
) -> tuple[list[FontJudgement], dict[str, tuple[int, float]]]:
    """Per font over the document: the lexicon evidence, and (pages used on, abstained share of chars)."""
    weight: dict[str, float] = defaultdict(float)
    hits: dict[str, float] = defaultdict(float)
    chars: dict[str, int] = defaultdict(int)
    abstained: dict[str, int] = defaultdict(int)
    pages: dict[str, set[int]] = defaultdict(set)
    similarity: dict[str, float] = {}
    for f in fonts:
        weight[f.font] += f.weight
        hits[f.font] += f.hits
        chars[f.font] += f.chars
        pages[f.font].add(f.page)
        if f.similarity is not None:
            similarity[f.font] = f.similarity
        if f.page not in judged_pages:
            abstained[f.font] += f.chars
    judgements = [
        FontJudgement(name, weight[name], hits[name], chars[name], similarity.get(name))
        for name in sorted(chars)
    ]
    extra = {
        name: (len(pages[name]), abstained[name] / chars[name] if chars[name] else 0.0)
        for name in sorted(chars)
    }
    return judgements, extra


def judge_one(
    sha256: str,
    shard: str,
    version: str,
    pages: Sequence[PageRecord],
    fonts: Sequence[PageFontRecord],
    *,
    judging_languages: frozenset[str],
    check_text: TextCheck,
    second_opinion: SecondOpinion | None = None,
    repairer: Repairer | None = None,
    fallback_tool: tuple[str, str] = ("pdfplumber", ""),
    replaceable: bool = True,
    ink: Callable[[list[int]], dict[int, float]] | None = None,
    rescore: Callable[[PageRecord], float | None] | None = None,
    verdicts_version: str = VERDICTS_VERSION,
) -> DocumentVerdicts:
    pages = sorted(pages, key=lambda p: p.page)
    by_page = {p.page: p for p in pages}
    on_page: dict[int, list[PageFontRecord]] = defaultdict(list)
    for f in fonts:
        on_page[f.page].append(f)
    evidence = [evidence_of(p, judging_languages, replaceable, on_page.get(p.page, ())) for p in pages]
    if rescore is not None:
        # Pages the shipped lexicon would condemn are scored again with the corpus vocabulary.
        evidence = [_rescored(e, p, rescore) for e, p in zip(evidence, pages, strict=True)]
    judged = {e.page for e in evidence if e.lexicon_judged}
    judgements, font_extra = font_judgements(fonts, judged)
    verdicts = judge_document(evidence, judgements)
    blank = [v.page for v in verdicts if v.mode is Mode.BLANK]
    # Pages whose file work was stopped over its budget -> the reasons saying so.
    withheld: dict[int, list[str]] = defaultdict(list)

    def over_limit(what: str, numbers: Sequence[int], exc: LimitExceeded) -> None:
        for number in numbers:
            withheld[number].append(f"{what}:{exc.reason}")

    if blank and ink is not None:
        # The expensive signal, only where the cheap ones found nothing: ink that no text, image or path
        # accounts for (text drawn as outlines, glyphs of an unmapped font).
        try:
            measured = ink(blank)
        except LimitExceeded as exc:
            over_limit(INK_OVER_LIMIT, blank, exc)
            measured = {}
        except Exception:
            measured = {}
        if any(measured.values()):
            evidence = [replace(e, unreported_ink=measured.get(e.page, 0.0)) for e in evidence]
            verdicts = judge_document(evidence, judgements)
    out = DocumentVerdicts()
    sources = {v.page: ("extracted" if v.mode is not Mode.BLANK else "none") for v in verdicts}

    garbage = [v for v in verdicts if v.mode is Mode.REPLACE and GARBAGE_REASONS & set(v.reasons)]
    # Pages that pass but read poorly: the independent decoder may read them much better (a text layer
    # that lost its word boundaries, right-to-left text in a broken order).
    suspects = [
        v
        for v in verdicts
        if v.mode in (Mode.TEXT, Mode.FIGURES)
        and v.judged
        and v.score is not None
        and v.score < SECOND_OPINION_BELOW
    ]
    better: set[int] = set()
    prior_pages: set[int] = set()
    if garbage or suspects:
        fixed: dict[int, str] = {}

        def ask(numbers: list[int]) -> dict[int, str]:
            if second_opinion is None or not numbers:
                return {}
            try:
                return second_opinion(numbers)
            except LimitExceeded as exc:  # stopped over its budget: missing, and the pages say so
                over_limit(SECOND_OPINION_OVER_LIMIT, numbers, exc)
                return {}
            except Exception:  # the second opinion is a bonus: its failure changes nothing
                return {}

        def fallback_row(page: int, text: str, score: float) -> RepairRecord:
            return RepairRecord(
                sha256,
                shard,
                version,
                page,
                "fallback_reader",
                fallback_tool[0],
                fallback_tool[1],
                None,
                score,
                text,
            )

        def read_better(v: PageVerdict, text: str) -> bool:
            mine = by_page[v.page].text
            # Both texts measured alike (the whole page, no prose gate), and the fallback may not bring in
            # unmapped glyphs the primary reader did not have.
            if not text.strip() or text.count("(cid:") > mine.count("(cid:"):
                return False
            quality = check_text(text)
            own = check_text(mine).score
            if (
                quality.trusted
                and quality.score >= own + SECOND_OPINION_GAIN
                and quality.score >= own * SECOND_OPINION_RATIO
            ):
                sources[v.page] = "fallback"
                better.add(v.page)
                out.repairs.append(fallback_row(v.page, text, quality.score))
                return True
            return False

        by_score = sorted(suspects, key=lambda v: (v.score, v.page))
        probe = by_score[:SECOND_OPINION_PROBE]
        rest = sorted(by_score[SECOND_OPINION_PROBE:], key=lambda v: v.page)
        second = ask(sorted(v.page for v in (*garbage, *probe)))
        won = [v.page for v in probe if read_better(v, second.get(v.page, ""))]
        if won and rest:
            later = ask([v.page for v in rest])
            for v in rest:
                read_better(v, later.get(v.page, ""))
        for v in garbage:
            text = second.get(v.page, "")
            quality = check_text(text) if text.strip() else None
            if quality is not None and quality.trusted:
                fixed[v.page] = "fallback"
                out.repairs.append(fallback_row(v.page, text, quality.score))
                continue
            if repairer is not None and by_page[v.page].text.strip():
                try:
                    outcome = repairer(v.page, by_page[v.page].text, v.reasons)
                except LimitExceeded as exc:  # its font check stopped over its budget: no repair stands
                    over_limit(REPAIR_OVER_LIMIT, [v.page], exc)
                    outcome = None
                if outcome is not None:
                    fixed[v.page] = "repaired"
                    out.repairs.append(
                        RepairRecord(
                            sha256,
                            shard,
                            version,
                            v.page,
                            outcome.method,
                            outcome.tool,
                            outcome.tool_version,
                            json.dumps(outcome.mapping, ensure_ascii=False, sort_keys=True),
                            outcome.score,
                            outcome.text,
                        )
                    )
        # Document prior for the second opinion: when the fallback reader read most of the judged pages
        # better, the pages that could not judge themselves (short, tables, verse) take its text too.
        judged_pages = [v for v in verdicts if v.judged and v.mode in (Mode.TEXT, Mode.FIGURES)]
        if better and len(better) > DOC_PRIOR_SHARE * len(judged_pages):
            unjudged = [
                v.page
                for v in verdicts
                if v.mode in (Mode.TEXT, Mode.FIGURES) and not v.judged and v.page not in better
            ]
            more = ask(unjudged)
            for page, text in sorted(more.items()):
                if text.strip() and check_text(text).trusted:
                    sources[page] = "fallback"
                    better.add(page)
                    prior_pages.add(page)
                    out.repairs.append(fallback_row(page, text, check_text(text).score))
        if fixed:
            evidence = [_with_fix(e, fixed.get(e.page)) for e in evidence]
            verdicts = judge_document(evidence, judgements)
            for page, how in fixed.items():
                sources[page] = how

    for v in verdicts:
        source = (
            sources[v.page]
            if v.mode not in (Mode.REPLACE, Mode.BLANK)
            else (Source.OCR.value if v.mode is Mode.REPLACE else Source.NONE.value)
        )
        out.pages.append(
            PageVerdictRecord(
                sha256=sha256,
                shard=shard,
                extractor_version=version,
                page=v.page,
                mode=v.mode.value,
                reasons=[
                    *v.reasons,
                    *(
                        ["fallback_reader_better", *(["doc_prior"] if v.page in prior_pages else [])]
                        if v.page in better
                        else []
                    ),
                    *withheld.get(v.page, ()),
                ],
                provenance=v.provenance.value,
                language=by_page[v.page].language,
                score=v.score,
                threshold=_threshold(v),
                text_source=source,
                verdicts_version=verdicts_version,
                judged_by=v.judged_by.value,
            )
        )
    for j in judgements:
        n_pages, abstained = font_extra[j.font]
        out.fonts.append(
            FontVerdictRecord(
                sha256,
                shard,
                version,
                j.font,
                n_pages,
                j.chars,
                round(j.weight, 3),
                round(j.hit_rate, 4),
                round(abstained, 4),
                j.garbled,
            )
        )
    return out


def _rescored(
    e: PageEvidence, page: PageRecord, rescore: Callable[[PageRecord], float | None]
) -> PageEvidence:
    if not e.lexicon_judged or e.lexicon_hit_rate >= LEXICON_MIN:
        return e
    better = rescore(page)
    if better is None or better <= e.lexicon_hit_rate:
        return e
    return replace(e, lexicon_hit_rate=better)


def _with_fix(e: PageEvidence, how: str | None) -> PageEvidence:
    if how == "fallback":
        return replace(e, fallback_clean=True)
    if how == "repaired":
        return replace(e, repaired=True)
    return e


def _threshold(v: PageVerdict) -> float | None:
    if v.score is None:
        return None
    return SANDWICH_LEXICON_MIN if v.provenance is Provenance.OCR_SANDWICH else LEXICON_MIN
