"""The verdict rules on hand-built evidence: each tier, provenance first, fonts and the document prior."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from quality.judge import short_words
from quality.verdicts import (
    BORDERLINE_BAND,
    FONT_CONDEMN_CHARS,
    LEXICON_MIN,
    MIN_TEXT_CHARS,
    SANDWICH_LEXICON_MIN,
    SANDWICH_REREAD_BELOW,
    FontJudgement,
    Mode,
    PageEvidence,
    Provenance,
    Tier,
    judge_document,
    judge_page,
    provenance_of,
)


def clean(page: int = 1, **kw) -> PageEvidence:
    base = dict(
        page=page,
        chars=1500,
        language="en",
        language_similarity=0.8,
        lexicon_judged=True,
        lexicon_hit_rate=0.9,
        lexicon_weight=400.0,
        fonts=("Body",),
    )
    base.update(kw)
    return PageEvidence(**base)


def test_blank_and_scanned_pages_in_tier_zero() -> None:
    assert judge_page(PageEvidence(page=1, chars=0)).mode is Mode.BLANK
    scan = judge_page(PageEvidence(page=1, chars=0, image_coverage=0.98))
    assert (scan.mode, scan.provenance) == (Mode.REPLACE, Provenance.RAW_SCAN)
    assert "no_text_layer" in scan.reasons and "image_cover" in scan.reasons
    outlines = judge_page(PageEvidence(page=1, chars=0, outline_text_paths=900))
    assert outlines.mode is Mode.REPLACE and "text_as_outlines" in outlines.reasons


def test_provenance_is_classified_before_thresholds() -> None:
    between = (SANDWICH_LEXICON_MIN + LEXICON_MIN) / 2
    sandwich = clean(image_coverage=0.99, invisible_share=1.0, lexicon_hit_rate=between)
    assert provenance_of(sandwich) is Provenance.OCR_SANDWICH
    verdict = judge_page(sandwich)
    # Under the born-digital threshold, above its own: not garbage, but a poor reading, read again.
    assert sandwich.lexicon_hit_rate < LEXICON_MIN and verdict.mode is Mode.REPLACE
    assert verdict.reasons == ("ocr_sandwich", "ocr_layer_poor")
    # An OCR layer that reads is kept.
    kept = judge_page(clean(image_coverage=0.99, invisible_share=1.0, lexicon_hit_rate=SANDWICH_REREAD_BELOW))
    assert kept.mode is Mode.TEXT and kept.reasons[0] == "ocr_sandwich"
    unreadable = judge_page(clean(image_coverage=0.99, invisible_share=1.0, lexicon_hit_rate=0.01))
    assert unreadable.mode is Mode.REPLACE and unreadable.provenance is Provenance.OCR_SANDWICH


def test_garbage_signals_each_condemn_a_page() -> None:
    assert judge_page(clean()).mode is Mode.TEXT
    for kw, reason in [
        ({"bad_rune_ratio": 0.4}, "bad_runes"),
        ({"cid_ratio": 0.5}, "cid_passthrough"),
        ({"lexicon_hit_rate": 0.01}, "lexicon_low"),
        ({"language": None, "language_similarity": 0.05}, "no_language"),
    ]:
        v = judge_page(clean(**kw))
        assert (v.mode, reason in v.reasons) == (Mode.REPLACE, True), kw


def test_fallback_and_repair_rescue_garbage() -> None:
    assert judge_page(clean(lexicon_hit_rate=0.01, fallback_clean=True)).mode is Mode.TEXT
    assert judge_page(clean(lexicon_hit_rate=0.01, repaired=True)).mode is Mode.REPAIRED


def test_lang_figures_and_text() -> None:
    zh = judge_page(clean(language="zh", judging_language=False, lexicon_judged=False))
    assert zh.mode is Mode.LANG and "lang:zh" in zh.reasons
    assert judge_page(clean(image_coverage=0.4)).mode is Mode.FIGURES
    assert judge_page(clean(vector_figure_area=0.3)).mode is Mode.FIGURES


def test_a_garbled_font_condemns_every_page_it_draws_on() -> None:
    bad = FontJudgement("Garbled", weight=200.0, hits=2.0, chars=2000, similarity=0.08)
    good = FontJudgement("Body", weight=500.0, hits=480.0, chars=4000)
    table_page = clean(page=2, lexicon_judged=False, fonts=("Garbled",))
    prose_page = clean(page=1, fonts=("Body",))
    mixed_page = clean(
        page=3,
        fonts=("Body", "Garbled"),
        font_evidence={"Body": (1400, 300.0, 290.0), "Garbled": (100, 60.0, 0.0)},
    )
    verdicts = judge_document([prose_page, table_page, mixed_page], [bad, good])
    assert verdicts[0].mode is Mode.TEXT and verdicts[0].judged_by is Tier.LEXICON
    assert verdicts[1].mode is Mode.REPLACE and "font_garbled:Garbled" in verdicts[1].reasons
    # Its verdict came from the document's other pages: the page has no evidence of its own in the font.
    assert verdicts[1].judged_by is Tier.BORROWED
    # On a page the lexicon passes, the garbled font's runs are condemned too, by its own evidence there.
    assert verdicts[2].mode is Mode.REPLACE and verdicts[2].judged_by is Tier.FONT
    # A font of labels or pseudo-Latin misses the lexicon too, but matches a language profile: not garbled.
    labels = FontJudgement("Labels", weight=200.0, hits=2.0, chars=2000, similarity=0.3)
    assert not labels.garbled and not FontJudgement("Math", 30.0, 0.0, 900, similarity=0.0).garbled
    assert (
        judge_document([prose_page, clean(page=2, lexicon_judged=False, fonts=("Labels",))], [labels, good])[
            1
        ].mode
        is Mode.TEXT
    )


def test_every_page_with_text_says_which_tier_judged_it() -> None:
    assert judge_page(PageEvidence(page=1, chars=0)).judged_by is Tier.NO_TEXT
    assert judge_page(clean(bad_rune_ratio=0.4)).judged_by is Tier.CHARACTERS
    assert judge_page(clean()).judged_by is Tier.LEXICON
    table = dict(lexicon_judged=False, prose_blocks=0, letters=600)
    own = judge_page(clean(**table, font_evidence={"Body": (900, 120.0, 60.0)}))
    assert (own.mode, own.judged_by) == (Mode.TEXT, Tier.FONT)
    short = judge_page(clean(**table, language_similarity=0.4))
    assert short.judged_by is Tier.TRIGRAM
    gibberish = judge_page(clean(lexicon_judged=False, language=None, language_similarity=0.05, letters=600))
    assert (gibberish.mode, gibberish.judged_by) == (Mode.REPLACE, Tier.TRIGRAM)
    # No profile matched, no prose: the fonts' verdicts from the document's other pages decide...
    numbers = clean(
        page=2,
        language=None,
        language_similarity=0.15,
        lexicon_judged=False,
        prose_blocks=0,
        letters=300,
        font_evidence={"Body": (800, 0.0, 0.0)},
    )
    prose = clean(page=1, letters=1200, font_evidence={"Body": (1400, 300.0, 290.0)})
    borrowed = judge_document([prose, numbers], [FontJudgement("Body", 300.0, 290.0, 2200)])[1]
    assert (borrowed.mode, borrowed.judged_by) == (Mode.TEXT, Tier.BORROWED)
    # ...and without them nothing can: unjudgeable, with why.
    alone = judge_document([numbers])[0]
    assert alone.judged_by is Tier.UNJUDGEABLE and "unjudgeable:no_profile_fonts_unvouched" in alone.reasons
    few = judge_page(
        clean(language=None, language_similarity=0.1, lexicon_judged=False, prose_blocks=0, letters=12)
    )
    assert "unjudgeable:few_letters" in few.reasons


def test_document_prior_takes_borderline_pages_along() -> None:
    borderline = clean(page=3, lexicon_hit_rate=LEXICON_MIN + BORDERLINE_BAND / 2)
    pages = [clean(page=1, lexicon_hit_rate=0.01), clean(page=2, lexicon_hit_rate=0.02), borderline]
    verdicts = judge_document(pages)
    assert verdicts[2].mode is Mode.REPLACE and "doc_prior" in verdicts[2].reasons
    # Without a majority of condemned pages the borderline page stands.
    assert judge_document([clean(page=1), borderline])[1].mode is Mode.TEXT


def test_junk_short_text_unreported_ink_and_unreplaceable_kinds() -> None:
    junk = judge_page(PageEvidence(page=1, chars=5, junk_share=0.8))
    assert junk.mode is Mode.REPLACE and junk.reasons == ("junk_text",)
    assert judge_page(PageEvidence(page=1, chars=1, junk_share=0.0)).mode is Mode.BLANK  # a page number
    inked = judge_page(PageEvidence(page=1, chars=0, unreported_ink=0.004))
    assert inked.mode is Mode.REPLACE and "unreported_ink" in inked.reasons
    assert judge_page(PageEvidence(page=1, chars=0, replaceable=False)).mode is Mode.BLANK
    text_file = judge_page(clean(lexicon_hit_rate=0.01, replaceable=False))
    assert text_file.mode is Mode.TEXT and "not_replaceable" in text_file.reasons
    # Little evidence does not condemn: the lexicon's verdict needs weight behind it.
    assert judge_page(clean(lexicon_hit_rate=0.01, lexicon_weight=50.0)).mode is Mode.TEXT


def test_a_short_page_with_readable_words_is_text_not_blank() -> None:
    # "Hello world": 10 letters in 2 words, under MIN_TEXT_CHARS.
    hello = judge_page(
        PageEvidence(page=1, chars=11, letters=10, words=2, word_letters=10, language_similarity=0.08)
    )
    assert hello.mode is Mode.TEXT and hello.reasons == ("short_text", "unjudgeable:few_letters")
    assert hello.judged_by is Tier.UNJUDGEABLE
    # its font sound on the document's other pages vouches for it
    cover = PageEvidence(
        page=1,
        chars=6,
        letters=6,
        words=1,
        word_letters=6,
        fonts=("Body",),
        font_evidence={"Body": (6, 0.0, 0.0)},
    )
    (_, judged) = judge_document([clean(page=2, font_evidence={"Body": (1500, 400.0, 360.0)}), cover])
    assert judged.mode is Mode.TEXT and judged.judged_by is Tier.BORROWED
    # nothing, a page number, invisible words, mojibake and words over a scan are not a short text
    assert judge_page(PageEvidence(page=1, chars=0)).mode is Mode.BLANK
    assert judge_page(PageEvidence(page=1, chars=2, letters=0, words=0)).mode is Mode.BLANK
    hidden = PageEvidence(page=1, chars=11, letters=10, words=2, word_letters=10, invisible_share=1.0)
    assert judge_page(hidden).mode is Mode.BLANK
    # a chance word among mojibake: most of the letters are in no word
    assert judge_page(PageEvidence(page=1, chars=9, letters=5, words=1, word_letters=2)).mode is Mode.BLANK
    scan = judge_page(
        PageEvidence(page=1, chars=11, letters=10, words=2, word_letters=10, image_coverage=0.98)
    )
    assert scan.mode is Mode.REPLACE and "image_cover" in scan.reasons


def test_readable_words_of_a_short_page() -> None:
    assert short_words("Hello world") == (2, 10)
    assert short_words("“Bug 1050040”") == (1, 3) and short_words("Hello, 864847") == (1, 5)
    assert short_words("Załącznik") == (1, 9) and short_words("l’impayé") == (1, 6)
    assert short_words("集油器") == (1, 3) and short_words("全 世 界") == (3, 3)
    assert short_words("«À¢Ã¡Á¢ Àð¼÷ «ÕÇ¢Â") == (0, 0)  # mojibake: symbols inside the tokens
    assert short_words("- 12 -") == (0, 0) and short_words("A B") == (0, 0)
    assert short_words("\u200bo\u200bo") == (0, 0)  # format characters hide what is drawn


def test_a_document_whose_judging_fails_keeps_its_text_and_says_why(tmp_path) -> None:
    from assets.verdicts.judging import judge_document_rows
    from readers.core.model import ReadLimits
    from readers.core.reading_records import PageRecord

    page = PageRecord(
        "ab" * 32,
        "ab",
        "v",
        1,
        "pymupdf",
        "1",
        "Xqvbrtz wqpzlkm zzyxwvq " * 20,
        480,
        0.0,
        0.0,
        0,
        ["F"],
        0,
        0,
        0,
        0,
        lexicon_judged=True,
        lexicon_hit_rate=0.0,
        lexicon_weight=500.0,
        language="en",
        language_similarity=0.9,
    )
    # A PDF path that does not exist: the second opinion and the ink measure fail; the judge goes on.
    out = judge_document_rows(
        "pdf",
        tmp_path / "gone.pdf",
        page.sha256,
        "ab",
        "v",
        [page],
        [],
        ReadLimits(),
        vocabulary={"en": frozenset({"x"})},
        size=0,
    )
    assert [v.page for v in out.pages] == [1] and out.pages[0].mode == "REPLACE"
    broken = judge_document_rows(
        "pdf", tmp_path / "gone.pdf", page.sha256, "ab", "v", [page], [None], ReadLimits(), size=0
    )
    assert broken.pages[0].reasons[0].startswith("verdict_failed:") and broken.pages[0].mode == "TEXT"


_ratios = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
_evidence = st.builds(
    PageEvidence,
    page=st.just(1),
    chars=st.integers(min_value=0, max_value=5000),
    bad_rune_ratio=_ratios,
    cid_ratio=_ratios,
    language=st.sampled_from([None, "en", "de", "zh"]),
    language_similarity=_ratios,
    lexicon_judged=st.booleans(),
    lexicon_hit_rate=_ratios,
    lexicon_weight=st.floats(min_value=0.0, max_value=2000.0),
    judging_language=st.booleans(),
    prose_blocks=st.integers(min_value=0, max_value=20),
    junk_share=_ratios,
    replaceable=st.booleans(),
    image_coverage=_ratios,
    invisible_share=_ratios,
    fonts=st.just(("Body", "Garbled")),
    letters=st.integers(min_value=0, max_value=5000),
    font_evidence=st.dictionaries(
        st.sampled_from(["Body", "Garbled"]),
        st.tuples(
            st.integers(min_value=0, max_value=3000),
            st.floats(min_value=0.0, max_value=500.0),
            st.floats(min_value=0.0, max_value=500.0),
        ),
    ),
)


@given(_evidence, st.booleans())
@settings(max_examples=300, deadline=None)
def test_every_page_with_text_has_a_tier_and_an_unjudgeable_one_says_why(e: PageEvidence, bad: bool) -> None:
    fonts = [FontJudgement("Garbled", 300.0, 0.0, 900, similarity=0.05)] if bad else []
    (v,) = judge_document([e], fonts)
    assert isinstance(v.judged_by, Tier)
    if e.chars >= MIN_TEXT_CHARS:
        assert v.judged_by is not Tier.NO_TEXT
    unjudgeable = [r for r in v.reasons if r.startswith("unjudgeable:")]
    assert (v.judged_by is Tier.UNJUDGEABLE) == bool(unjudgeable)
    # A garbled font drawing enough characters is never trusted as it is.
    drawn = e.font_evidence.get("Garbled", (MIN_TEXT_CHARS, 0.0, 0.0))[0]
    if bad and e.chars >= MIN_TEXT_CHARS and drawn >= FONT_CONDEMN_CHARS and e.replaceable:
        assert v.mode in (Mode.REPLACE, Mode.REPAIRED) or "fallback_reader" in v.reasons
        assert "font_garbled:Garbled" in v.reasons
