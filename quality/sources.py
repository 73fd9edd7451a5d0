"""Where each page's final text comes from: the text layer, the fallback reader, a repair, or OCR.

The verdicts decide what a page's text layer is worth; the OCR stage reads what they sent it. This module
makes the one choice sanitize and lineage rely on, per page, and records it with the evidence behind it,
so that "why does page 7 of this document say that?" has a one-row answer.

The choice, by mode (docs/design.md §4):

- ``TEXT``/``LANG``: the extracted text, or the fallback reader's when the verdicts preferred it;
- ``REPAIRED``: the repaired text;
- ``FIGURES``: the extracted text, plus what OCR read in its figure regions under a
  ``## Page N (transcribed figures)`` heading (the text alone when OCR read nothing there);
- ``REPLACE``: the OCR text; when OCR produced nothing or failed, no text at all, with the reason (the garbage
  that was replaced never comes back), except a layer only statistical evidence condemned that OCR could not
  read for want of the language's data (``no_data:...``): it stays, unconfirmed. OCR is also a second opinion
  on the verdict: where the page had a text layer that only statistical evidence condemned (``lexicon_low``,
  ``no_language``, ``doc_prior``) and OCR read back the same words (:func:`word_agreement` at least
  :data:`CONFIRM_AGREEMENT`), the layer was right: its exact text is kept, ``cross_check`` says
  ``text_layer_confirmed`` and the page counts as a verdict false positive. Where they disagree the verdict
  stands and ``cross_check`` says ``ocr_disagrees``; both keep the agreement measured. An OCR layer read again
  because it read poorly (``ocr_layer_poor``) keeps whichever reading scores better (:func:`reading_score`):
  ``cross_check`` says ``ocr_layer_kept`` or ``ocr_layer_replaced``, and the layer's text stays in ``pages``
  either way. A page sent only for a second opinion (``no_profile_second_opinion``) is compared by letter
  bigrams (:func:`second_opinion`): ``second_opinion_agrees`` keeps the layer, ``second_opinion_disagrees``
  takes OCR's reading unless OCR read it doubtfully; where OCR gave no reading or a doubtful one, the layer
  stays, ``unconfirmed:...``;
- ``BLANK``: no text.

A page with no text has ``source = none`` and a reason, never an empty string.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import regex

from quality.judge import known_short_words
from quality.records import (
    CrossCheck,
    OcrPageRecord,
    OcrScope,
    PageTextRecord,
    PageVerdictRecord,
    RepairRecord,
    Source,
)
from quality.verdicts import SECOND_OPINION_NO_PROFILE, Mode, Tier

# Trust of a page's text, 0-1, on one scale with OCR's mean word confidence (0-100, divided by 100) so
# that a chunk's trust can be the minimum over its pages. A text layer judged clean is the best text there
# is. A repair or another decoder's text passed the same lexicon check as a clean text layer, but the
# mapping was inferred, not read (the repairs' round-trip checks on the calibration set leave a few
# per cent of characters wrong), hence a tenth less. An OCR sandwich is someone else's OCR that our
# checks found clean; its word confidences are unknown, so it gets the repaired text's trust.
TEXT_LAYER_TRUST = 1.0
INFERRED_TEXT_TRUST = 0.9
OCR_LAYER_TRUST = 0.9
# A page in no language sent to OCR for a second opinion that OCR could not give keeps its layer, unconfirmed:
# no better than inferred text.
UNCONFIRMED_LAYER_TRUST = INFERRED_TEXT_TRUST

# OCR's reading agrees with the text layer it was to replace when this share of their words match (Dice
# over the bags of case-folded words of letters and digits; reading order does not count, so two columns
# read in another order still agree). Tesseract on a clean 300 dpi render misreads a few per cent of words
# (0.85-0.97 against the layer on the corpus's lorem ipsum and Latin pages); a garbled layer shares
# nothing with what is printed (0.0-0.05).
CONFIRM_AGREEMENT = 0.75
# Only a layer condemned on these statistical grounds can be confirmed: bad runes, (cid:N), junk and a
# garbled font are evidence about the characters themselves, which OCR's words cannot overturn.
# A page that nothing could judge and that matches no language profile is sent for the same comparison.
CONFIRMABLE_REASONS = frozenset({"lexicon_low", "no_language", "doc_prior", SECOND_OPINION_NO_PROFILE})
# Fewer words than this on either side say too little to confirm anything.
CONFIRM_MIN_WORDS = 10
# A page in no language sent for OCR's second opinion agrees with it at this Dice coefficient of their bags
# of letter bigrams (each word padded; order does not count): on the robustness set, layers that are right
# agree with Tesseract's misreadings at 0.64-0.99 (a letter misread in an alphabet, a line OCR missed),
# ciphers with what is printed at 0.15-0.22 (shifts and shuffles of the test prose, a shifted list page).
# Bigrams, not words: such pages are alphabets, codes and labels of a few words, which one misread
# letter takes a whole word from.
SECOND_OPINION_AGREEMENT = 0.6
# OCR's reading under this mean word confidence is no witness against a layer: Tesseract reads legible
# Latin pages at 88 or more, and a script it has no data for at 30-66 (Korean letters read as English:
# 65.7); readers/images/tesseract.py's DOUBTFUL_BELOW_CONFIDENCE, measured on the dev corpus.
SECOND_OPINION_MIN_CONFIDENCE = 85.0
TEXT_LAYER_CONFIRMED = CrossCheck.TEXT_LAYER_CONFIRMED.value
OCR_DISAGREES = CrossCheck.OCR_DISAGREES.value
OCR_LAYER_KEPT = CrossCheck.OCR_LAYER_KEPT.value
OCR_LAYER_REPLACED = CrossCheck.OCR_LAYER_REPLACED.value
SECOND_OPINION_AGREES = CrossCheck.SECOND_OPINION_AGREES.value
SECOND_OPINION_DISAGREES = CrossCheck.SECOND_OPINION_DISAGREES.value

_LAYER_KEPT = frozenset({TEXT_LAYER_CONFIRMED, OCR_LAYER_KEPT})

_WORD = regex.compile(r"[\p{L}\p{M}\p{N}]+")


def word_agreement(a: str, b: str) -> tuple[float, int]:
    """(Dice coefficient of the two texts' bags of words, the smaller word count), after NFKC and case
    folding."""
    first = Counter(_WORD.findall(unicodedata.normalize("NFKC", a).casefold()))
    second = Counter(_WORD.findall(unicodedata.normalize("NFKC", b).casefold()))
    n, m = sum(first.values()), sum(second.values())
    if not n or not m:
        return 0.0, 0
    return 2 * sum((first & second).values()) / (n + m), min(n, m)


def bigram_agreement(a: str, b: str) -> float:
    """Dice coefficient of the two texts' bags of letter bigrams (words padded with a space each side),
    after NFKC and case folding."""
    first, second = _bigrams(a), _bigrams(b)
    n, m = sum(first.values()), sum(second.values())
    return 2 * sum((first & second).values()) / (n + m) if n and m else 0.0


def _bigrams(text: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    for word in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        padded = f" {word} "
        counts.update(padded[i : i + 2] for i in range(len(padded) - 1))
    return counts


def second_opinion(layer: str, read: str, confidence: float | None) -> tuple[str, float, bool]:
    """OCR's word on a page in no language: (cross_check, agreement, whether the layer stands). The layer
    stands where OCR reads the same letters, or where OCR's reading is too doubtful to overrule it."""
    measured = round(bigram_agreement(layer, read), 4)
    if measured >= SECOND_OPINION_AGREEMENT:
        return SECOND_OPINION_AGREES, measured, True
    doubtful = confidence is None or confidence < SECOND_OPINION_MIN_CONFIDENCE
    return SECOND_OPINION_DISAGREES, measured, doubtful


def reading_score(text: str, language: str | None) -> float:
    """How well a reading reads: its lexicon hit rate in ``language`` where a lexicon judges it, else its
    best language-profile similarity. Both readings of a page are scored alike."""
    from quality.language import best_language
    from quality.page_signals import lexicon_evidence, lexicon_for

    lexicon = lexicon_for(language)
    if lexicon is not None:
        evidence = lexicon_evidence(text, lexicon)
        if evidence.judged:
            return evidence.hit_rate
    return best_language(text).similarity


def cross_check(v: PageVerdictRecord, layer: str | None, read: str | None) -> tuple[str | None, float | None]:
    """What OCR's reading ``read`` says of the text layer of a REPLACE page, and their word agreement:
    (None, None) when the page is not cross-checked."""
    if not read or not layer or not layer.strip():
        return None, None
    if "ocr_layer_poor" in v.reasons:
        agreement = round(word_agreement(layer, read)[0], 4)
        better = reading_score(layer, v.language) > reading_score(read, v.language)
        return (OCR_LAYER_KEPT if better else OCR_LAYER_REPLACED), agreement
    if not confirmable(v, layer):
        return None, None
    measured, words = word_agreement(layer, read)
    if words < CONFIRM_MIN_WORDS:
        return None, None
    return (TEXT_LAYER_CONFIRMED if measured >= CONFIRM_AGREEMENT else OCR_DISAGREES), round(measured, 4)


def confirmable(v: PageVerdictRecord, layer: str | None) -> bool:
    """A REPLACE page whose text layer only statistical evidence condemned."""
    if not layer or not layer.strip():
        return False
    condemning = {r for r in v.reasons if r in CONFIRMABLE_REASONS or _is_character_evidence(r)}
    return bool(condemning) and condemning <= CONFIRMABLE_REASONS


def _is_character_evidence(reason: str) -> bool:
    return reason in ("bad_runes", "cid_passthrough", "junk_text") or reason.startswith("font_garbled:")


@dataclass(frozen=True, slots=True)
class ExtractedPage:
    """What the extract stage read on one page: only what the choice needs."""

    page: int
    text: str
    reader: str
    reader_version: str
    label: str | None = None  # the page's printed label (pages.label), carried to page_texts


def _second_opinion_row(
    v: PageVerdictRecord,
    row: Callable[..., PageTextRecord],
    layer: str,
    o: OcrPageRecord | None,
    tool: tuple[str, str],
) -> PageTextRecord:
    """A page in no language sent to OCR for a second opinion: the layer where OCR agrees or cannot say
    (no reading, or a doubtful one: ``unconfirmed:<why>``), OCR's reading where it confidently disagrees."""
    if o is None or o.status != "derived":
        why = "ocr_not_run" if o is None else f"ocr_{o.status}:{o.reason}"
        return row(
            v,
            Source.EXTRACTED,
            layer,
            reason=f"unconfirmed:{why}",
            tool=tool[0],
            tool_version=tool[1],
            trust=UNCONFIRMED_LAYER_TRUST,
        )
    check, agreement, stands = second_opinion(layer, o.text or "", o.confidence)
    # A short page was sent for knowing no word: OCR's reading replaces it only where it knows one (a
    # cipher's "Boofy C" against "Annex B"), not where it too is letters of no word ("θθθ" read "660").
    not_better = not stands and "short_text" in v.reasons and not known_short_words(o.text or "")
    if stands or not_better:
        agrees = check == SECOND_OPINION_AGREES
        why = "unconfirmed:ocr_not_better" if not_better else "unconfirmed:ocr_doubtful"
        return row(
            v,
            Source.EXTRACTED,
            layer,
            reason=check if agrees else why,
            tool=tool[0],
            tool_version=tool[1],
            trust=TEXT_LAYER_TRUST if agrees else UNCONFIRMED_LAYER_TRUST,
            ocr_confidence=o.confidence,
            cross_check=check,
            agreement=agreement,
        )
    trust = round(o.confidence / 100, 4) if o.confidence is not None else None
    return row(
        v,
        Source.OCR,
        o.text,
        tool=o.engine,
        tool_version=o.engine_version,
        trust=trust,
        ocr_confidence=o.confidence,
        cross_check=check,
        agreement=agreement,
    )


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
    # The reading of each page its text comes from (quality/ocr_choice.py).
    kept = [o for o in ocr if o.kept is not False]
    ocr_page = {o.page: o for o in kept if o.scope == OcrScope.PAGE}
    ocr_figures = {o.page: o for o in kept if o.scope == OcrScope.FIGURES}

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
        cross_check: str | None = None,
        agreement: float | None = None,
    ) -> PageTextRecord:
        has_text = bool(text and text.strip())
        extracted_page = by_page.get(v.page)
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
            judged_by=Tier.OCR_CROSS_CHECK.value if cross_check else v.judged_by,
            cross_check=cross_check,
            agreement=agreement,
            label=extracted_page.label if extracted_page else None,
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
            layer = page.text if page else None
            if SECOND_OPINION_NO_PROFILE in v.reasons and layer and layer.strip():
                out.append(_second_opinion_row(v, row, layer, o, (tool, tool_version)))
            elif o is None:
                out.append(row(v, Source.NONE, None, reason="ocr_not_run"))
            elif o.status != "derived" and o.language_source.startswith("no_data:") and confirmable(v, layer):
                # Condemned on statistics alone, and OCR, lacking the language's data, could not read the
                # page: it cannot overturn the layer, which stays, unconfirmed.
                out.append(
                    row(
                        v,
                        Source.EXTRACTED,
                        layer,
                        reason=f"unconfirmed:ocr_{o.status}:{o.language_source}",
                        tool=tool,
                        tool_version=tool_version,
                        trust=UNCONFIRMED_LAYER_TRUST,
                    )
                )
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
                check, agreement = cross_check(v, layer, o.text)
                kept = check in _LAYER_KEPT  # the layer's exact text stands
                if kept:
                    source, text, tool_used, trust = (
                        Source.EXTRACTED,
                        layer,
                        (tool, tool_version),
                        layer_trust,
                    )
                else:
                    source, text, tool_used = Source.OCR, o.text, (o.engine, o.engine_version)
                    trust = round(conf / 100, 4) if conf is not None else None
                out.append(
                    row(
                        v,
                        source,
                        text,
                        reason=check if kept else None,
                        tool=tool_used[0],
                        tool_version=tool_used[1],
                        trust=trust,
                        ocr_confidence=conf,
                        cross_check=check,
                        agreement=agreement,
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
