"""The final text of each page: one choice per mode, recorded with its source, never an empty text."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from assets.ocr.page_reading import LanguageChoice, ocr_language
from quality.records import OcrPageRecord, PageVerdictRecord, RepairRecord
from quality.sources import (
    INFERRED_TEXT_TRUST,
    OCR_LAYER_TRUST,
    TEXT_LAYER_TRUST,
    ExtractedPage,
    choose_page_texts,
    figures_heading,
)

SHA = "ab" * 32


def verdict(page: int, mode: str, source: str = "extracted", provenance: str = "born_digital"):
    return PageVerdictRecord(
        SHA, "ab", "v", page, mode, [], provenance, "en", None, None, source, "5", "lexicon"
    )


def ocr_row(
    page: int,
    scope: str = "page",
    status: str = "derived",
    text: str | None = "read by ocr",
    conf=91.0,
    language_source: str = "configured",
):
    return OcrPageRecord(
        SHA,
        "ab",
        "v",
        page,
        scope,
        1,
        status,
        None if status == "derived" else "no_text",
        "tesseract",
        "5.3.0",
        "eng",
        language_source,
        300,
        0,
        None,
        conf,
        conf,
        conf,
        0,
        3,
        len(text or ""),
        1.0,
        text,
    )


def extracted(page: int, text: str) -> ExtractedPage:
    return ExtractedPage(page, text, "pymupdf", "1+2.0")


def choose(verdicts, pages=(), repairs=(), ocr=()):
    return {r.page: r for r in choose_page_texts(SHA, "ab", "v", verdicts, pages, repairs, ocr)}


def test_each_mode_takes_its_text_from_the_right_place() -> None:
    repair = RepairRecord(SHA, "ab", "v", 3, "shift", "shift-repair", "1", "{}", 0.5, "repaired words")
    rows = choose(
        [
            verdict(1, "TEXT"),
            verdict(2, "REPLACE", "ocr"),
            verdict(3, "REPAIRED", "repaired"),
            verdict(4, "BLANK", "none"),
            verdict(5, "LANG"),
            verdict(6, "TEXT", provenance="ocr_sandwich"),
        ],
        [extracted(p, f"layer text {p}") for p in (1, 2, 3, 5, 6)] + [extracted(4, "")],
        [repair],
        [ocr_row(2)],
    )
    assert [(p, r.source) for p, r in rows.items()] == [
        (1, "extracted"),
        (2, "ocr"),
        (3, "repaired"),
        (4, "none"),
        (5, "extracted"),
        (6, "extracted"),
    ]
    assert rows[1].text == "layer text 1" and rows[1].trust == TEXT_LAYER_TRUST and rows[1].tool == "pymupdf"
    assert rows[2].text == "read by ocr" and rows[2].trust == 0.91 and rows[2].tool == "tesseract"
    assert rows[3].text == "repaired words" and rows[3].trust == INFERRED_TEXT_TRUST
    assert rows[4].text is None and rows[4].reason == "blank" and rows[4].trust is None
    assert rows[6].trust == OCR_LAYER_TRUST


def test_a_replaced_page_never_falls_back_to_its_garbage() -> None:
    garbage = [extracted(1, "Vojw dpotvnqujpo"), extracted(2, "Vojw dpotvnqujpo"), extracted(3, "x")]
    rows = choose(
        [verdict(1, "REPLACE", "ocr"), verdict(2, "REPLACE", "ocr"), verdict(3, "REPLACE", "ocr")],
        garbage,
        ocr=[ocr_row(1, status="underivable", text=None, conf=None), ocr_row(2, status="error", text=None)],
    )
    assert all(r.source == "none" and r.text is None and r.chars == 0 for r in rows.values())
    assert rows[1].reason == "ocr_underivable:no_text"
    assert rows[2].reason == "ocr_error:no_text"
    assert rows[3].reason == "ocr_not_run"


def test_a_layer_condemned_on_statistics_stays_where_ocr_had_no_data_for_its_language() -> None:
    # Kurdish in Arabic script: its words look Persian to the profiles, no Persian lexicon knows them,
    # and Tesseract has no Persian data to read the page with: English reads it as nothing legible.
    layer = "ﺋەم ﺑەﺳﺘەﯾە ﺑﻪ ﻛﺎرده ﻫێﻨﺮێﻦ"
    condemned = replace(verdict(1, "REPLACE", "ocr"), reasons=["lexicon_low"])
    garbage = replace(verdict(2, "REPLACE", "ocr"), reasons=["bad_runes"])
    unread = [ocr_row(p, "page", "underivable", None, None, "no_data:fa") for p in (1, 2)]
    rows = choose([condemned, garbage], [extracted(1, layer), extracted(2, layer)], ocr=unread)
    assert (rows[1].source, rows[1].text) == ("extracted", layer)
    assert rows[1].reason == "unconfirmed:ocr_underivable:no_data:fa"
    assert rows[2].source == "none"  # evidence about the characters: the layer never comes back


def test_a_figures_page_gains_its_transcription_under_a_heading() -> None:
    rows = choose(
        [verdict(4, "FIGURES"), verdict(5, "FIGURES")],
        [extracted(4, "Body text of the page."), extracted(5, "Another body.")],
        ocr=[ocr_row(4, "figures", text="Upper Middle Lower", conf=60.0)],
    )
    assert rows[4].source == "extracted+figures"
    assert rows[4].text == f"Body text of the page.\n\n{figures_heading(4)}\n\nUpper Middle Lower"
    assert figures_heading(4) == "## Page 4 (transcribed figures)"
    assert 0.6 < rows[4].trust < 1.0  # weighted by characters between the layer and the OCR
    assert rows[5].source == "extracted" and rows[5].text == "Another body."  # OCR read nothing there


def test_the_fallback_readers_text_is_used_where_the_verdicts_chose_it() -> None:
    fallback = RepairRecord(SHA, "ab", "v", 1, "fallback_reader", "pdfplumber", "2", None, 0.6, "clean text")
    rows = choose([verdict(1, "TEXT", "fallback")], [extracted(1, "garbled")], [fallback])
    assert (rows[1].source, rows[1].text, rows[1].tool) == ("fallback", "clean text", "pdfplumber")


def test_whitespace_is_no_text() -> None:
    rows = choose(
        [verdict(1, "TEXT"), verdict(2, "REPLACE", "ocr")],
        [extracted(1, " \n\t ")],
        ocr=[ocr_row(2, text="  ")],
    )
    assert rows[1].source == rows[2].source == "none"
    assert rows[1].text is None and rows[1].reason == "empty_text"


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["TEXT", "FIGURES", "REPLACE", "REPAIRED", "LANG", "BLANK"]), st.text(max_size=20)
        ),
        min_size=1,
        max_size=12,
    ),
    st.booleans(),
)
def test_one_row_per_page_and_never_an_empty_text(pages, ocr_ok) -> None:
    verdicts = [verdict(i, mode) for i, (mode, _) in enumerate(pages, 1)]
    layer = [extracted(i, text) for i, (_, text) in enumerate(pages, 1)]
    ocr = [ocr_row(i, "page" if m == "REPLACE" else "figures") for i, (m, _) in enumerate(pages, 1) if ocr_ok]
    rows = choose_page_texts(SHA, "ab", "v", verdicts, layer, [], ocr)
    assert [r.page for r in rows] == list(range(1, len(pages) + 1))
    for r in rows:
        assert (r.text is None) == (r.source == "none")
        assert r.text is None or r.text.strip()
        assert (r.reason is not None) or r.source != "none"
        assert r.trust is None or 0.0 <= r.trust <= 1.0


def test_the_ocr_language_follows_the_document_where_tesseract_has_it() -> None:
    installed = {"eng", "fra", "deu", "osd"}
    assert ocr_language("fr", installed) == LanguageChoice("fra", "document")
    assert ocr_language(None, installed, "deu") == LanguageChoice("deu", "configured")
    assert ocr_language("zh", installed) == LanguageChoice("eng", "no_data:zh")
    assert ocr_language("xx", installed) == LanguageChoice("eng", "no_data:xx")


def test_a_short_page_of_no_known_word_takes_ocr_only_where_ocr_reads_a_known_word() -> None:
    import dataclasses

    reasons = ["short_text", "unjudgeable:few_letters", "no_profile_second_opinion"]
    short = [dataclasses.replace(verdict(p, "REPLACE"), reasons=reasons) for p in (1, 2)]
    rows = choose(
        short,
        pages=[extracted(1, "Boofy C"), extracted(2, "θθθ")],
        ocr=[ocr_row(1, text="Annex B", conf=95.0), ocr_row(2, text="660", conf=95.0)],
    )
    assert (rows[1].source, rows[1].text) == ("ocr", "Annex B")  # the cipher gives way to known words
    assert (rows[2].source, rows[2].text) == ("extracted", "θθθ")  # letters of no word against digits
    assert rows[2].reason == "unconfirmed:ocr_not_better"
