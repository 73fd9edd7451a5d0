"""A font repair replaces a text layer only where it can be told from chance and reads like a clean page;
a page in no language that nothing could judge is read by OCR. Every document here is built in code."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assets.verdicts.judging import _repairer, check_text
from orchestration.checkfile import check_file
from orchestration.document_builders import (
    _garble_font,
    _pdf_bytes,
    _write_atomic,
    garble_text,
    make_text_pdf,
)
from quality.garble import shift_garble
from quality.lexicon import load_lexicon
from quality.repair_gate import (
    REPAIR_MAX_MISCASED,
    after_repair,
    before_repair,
    enough_text,
    miscased,
    strongly_condemned,
)
from quality.sources import UNCONFIRMED_LAYER_TRUST, second_opinion
from tests.conftest import CORPUS
from tests.test_lexicon_language import SAMPLES

# --- a correct layer is never replaced by a repair ------------------------------------------------------

LANGUAGES = ("en", "fr", "de", "es", "it", "nl", "ru")
_WORDS = {
    lang: sorted(w for w in load_lexicon(lang).words if w.isalpha() and len(w) >= 2) for lang in LANGUAGES
}


@st.composite
def clean_pages(draw: st.DrawFn) -> tuple[str, str]:
    """A page of the lexicon's words of one language, in sentences and lines: text nothing garbled."""
    lang = draw(st.sampled_from(LANGUAGES))
    words = _WORDS[lang]
    count = draw(st.integers(min_value=40, max_value=160))
    picked = [words[draw(st.integers(0, len(words) - 1))] for _ in range(count)]
    lines, line = [], []
    for n, word in enumerate(picked):
        line.append(word.capitalize() if n % 9 == 0 else word)
        if len(line) >= draw(st.integers(6, 12)):
            lines.append(" ".join(line) + ".")
            line = []
    lines.append(" ".join(line))
    return lang, "\n".join(lines)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clean_pages(), st.sampled_from(["no_language", "lexicon_low", "font_garbled:F1", "bad_runes"]))
def test_a_clean_page_is_never_repaired_whatever_condemned_it(page: tuple[str, str], reason: str) -> None:
    lang, text = page
    for document_language in (lang, None):
        assert _repairer(document_language)(1, text, (reason,)) is None, (lang, text[:80])


# --- case by case ------------------------------------------------------------------------------------------


def test_a_short_or_repetitive_page_is_not_repaired() -> None:
    repetitive = "Our some text some text some text. We some text some text some text"
    assert not strongly_condemned(["no_language"], repetitive)
    for word in ("Ok", "Show", "uno", "Annex B"):
        garbled = shift_garble(word, 1)
        for reasons in (("junk_text",), ("no_language",), ("font_garbled:F1",)):
            assert _repairer(None)(1, garbled, reasons) is None
            assert _repairer("en")(1, garbled, reasons) is None
    assert (
        before_repair(["font_garbled:F1"], shift_garble(repetitive, 3), check_text).why == "too_little_text"
    )


def test_a_repetitive_page_keeps_its_layer_where_ocr_agrees(tmp_path: Path) -> None:
    text = "Our some text some text some text. We some text some text some text some text"
    outcome = check_file(make_text_pdf(tmp_path / "some-text.pdf", [text]))
    assert not outcome.verdicts.repairs
    (page,) = outcome.texts
    assert page.source == "extracted" and " ".join(page.text.split()) == text


@pytest.mark.corpus
def test_pdfjs_issue6782_keeps_its_layer() -> None:
    path = CORPUS / "robust" / "pdf" / "pdfjs__issue6782.pdf"
    if not path.exists():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    outcome = check_file(path)
    assert not outcome.verdicts.repairs
    (page,) = outcome.texts
    assert page.source == "extracted" and page.text.startswith("Our some text some text")


def test_a_long_garbled_page_is_still_repaired() -> None:
    garbled = shift_garble(SAMPLES["en"], 1)
    outcome = _repairer(None)(1, garbled, ("no_language",))
    assert outcome is not None and outcome.text == SAMPLES["en"]


# A two-font page: one font's letters one code down along A..Z a..z (a reads as Z, A as z: capitals and
# small letters cross at the seam), the other's one letter up (the classic off-by-one).
_SEAM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
TITLE = "Accelerating the Science of Language Models"
SECTIONS = [
    (
        "Abstract and Summary of Our Contributions",
        "Language models have become ubiquitous in commercial products and in research, yet the most "
        "capable of them are closed: their training data, their code and the details of their training "
        "are not released. We believe that the scientific community needs access to truly open models "
        "to study their strengths and weaknesses, their biases and their risks.",
    ),
    (
        "Introduction: Why Open Models Matter Today",
        "To this end we release a state of the art model together with its training data, the code that "
        "trained it, the code that evaluates it and the intermediate checkpoints that were saved along "
        "the way. We hope that this release will empower the research community and inspire a new wave "
        "of innovation.",
    ),
    (
        "Related Work on Releasing Weights, Data and Evaluation Code",
        "Earlier efforts released the weights of their models but not the data they were trained on, "
        "which makes it hard to study how the data shapes what a model learns and where its mistakes "
        "come from.",
    ),
]


def _seam_down(text: str) -> str:
    return text.translate({ord(c): _SEAM[(i - 1) % 52] for i, c in enumerate(_SEAM)})


def two_fonts_pdf(path: Path) -> Path:
    """A born-digital page whose body font and heading font are shifted by different amounts."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="F1", fontbuffer=pymupdf.Font("helv").buffer)
    page.insert_font(fontname="F2", fontbuffer=pymupdf.Font("hebo").buffer)
    page.insert_textbox(pymupdf.Rect(50, 60, 560, 100), TITLE, fontname="F2", fontsize=16)
    y = 100.0
    for heading, body in SECTIONS:
        page.insert_textbox(pymupdf.Rect(50, y, 560, y + 20), heading, fontname="F2", fontsize=12)
        y += 22
        y = 780 - page.insert_textbox(pymupdf.Rect(50, y, 560, 780), body, fontname="F1", fontsize=10) + 12
    doc.subset_fonts()
    for xref, _ext, _type, basefont, *_ in page.get_fonts():
        _garble_font(doc, xref, garble_text if "Bold" in basefont else _seam_down)
    return _write_atomic(path, _pdf_bytes(doc, None))


def test_a_page_of_two_fonts_shifted_differently_is_read_by_ocr(tmp_path: Path) -> None:
    path = two_fonts_pdf(tmp_path / "two-fonts.pdf")
    with pymupdf.open(path) as doc:
        layer = doc[0].get_text()
    assert "Bddfmfsbujoh" in layer and "KZmftZfd" in layer  # the two garblings, as extracted
    outcome = check_file(path)
    assert not outcome.verdicts.repairs
    (page,) = outcome.texts
    assert page.source == "ocr"
    words = " ".join(page.text.split())
    assert "Language models have become ubiquitous" in words
    assert "the Science of Language Models" in words


def test_one_mapping_for_two_fonts_fails_the_font_by_font_check() -> None:
    body = " ".join(b for _, b in SECTIONS)
    fonts = {"Body": _seam_down(body), "Bold": garble_text(SAMPLES["en"])}  # a bold font with words enough
    unshift = {c: _SEAM[(i + 1) % 52] for i, c in enumerate(_SEAM)}

    def apply(text: str) -> str:
        return text.translate({ord(k): v for k, v in unshift.items()})

    assert enough_text(fonts["Bold"]) and enough_text(fonts["Body"])
    decision = after_repair(apply(fonts["Body"]), fonts, apply, check_text)
    assert decision.why.startswith("font:Bold:"), decision
    # A 26-letter shift fitted to the body across the seam writes "LAnguAge": the capitals give it away.
    across = shift_garble(_seam_down(body), 1)
    assert miscased(across, "en") > REPAIR_MAX_MISCASED
    assert after_repair(across, {}, apply, check_text).why == "miscased"


# --- a page in no language that no tier could judge is read by OCR -------------------------------------

LIST_LINES = [
    "Enhance the performance of your queries",
    "Index the columns you filter on",
    "Avoid selecting every column",
    "Batch small writes together",
    "Cache results that rarely change",
    "Measure before tuning anything",
]


def list_page_pdf(path: Path) -> Path:
    """A page of numbered list lines, each a block of its own, in a font shifted by one letter."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="F1", fontbuffer=pymupdf.Font("helv").buffer)
    for i, line in enumerate(LIST_LINES):
        page.insert_text((72, 100 + 60 * i), f"{i + 1}. {line}", fontname="F1", fontsize=12)
    doc.subset_fonts()
    for xref, *_ in page.get_fonts():
        _garble_font(doc, xref)
    return _write_atomic(path, _pdf_bytes(doc, None))


def test_a_list_page_in_a_shifted_font_is_read_by_ocr(tmp_path: Path) -> None:
    outcome = check_file(list_page_pdf(tmp_path / "list.pdf"))
    (verdict,) = outcome.verdicts.pages
    assert verdict.mode == "REPLACE" and "no_profile_second_opinion" in verdict.reasons
    (page,) = outcome.texts
    assert page.source == "ocr" and page.cross_check == "second_opinion_disagrees"
    assert "Foibodf" not in page.text and "Enhance the performance of your queries" in page.text


def test_a_list_page_in_no_language_that_ocr_reads_alike_keeps_its_layer(tmp_path: Path) -> None:
    codes = [f"{i + 1}. Xqvr Bzml Kvtp Jrqw Zlxv Wbnq" for i in range(6)]  # words of no language
    doc = pymupdf.open()
    page = doc.new_page()
    for i, line in enumerate(codes):  # large enough that OCR reads words without a dictionary's help
        page.insert_text((72, 100 + 60 * i), line, fontname="helv", fontsize=18)
    path = _write_atomic(tmp_path / "codes.pdf", _pdf_bytes(doc, None))
    outcome = check_file(path)
    (verdict,) = outcome.verdicts.pages
    assert verdict.mode == "REPLACE" and "no_profile_second_opinion" in verdict.reasons
    (text,) = outcome.texts
    assert text.source == "extracted" and text.cross_check == "second_opinion_agrees"


@pytest.mark.slow
def test_the_pipeline_chunks_the_ocr_reading_of_a_list_page_not_its_cipher(
    home: Path, tmp_path: Path
) -> None:
    from assets.progress import Progress
    from orchestration.home import Home
    from orchestration.runner import run
    from warehouse.duckdb_catalog import query

    folder = tmp_path / "corpus"
    folder.mkdir()
    list_page_pdf(folder / "list.pdf")
    report = run(Home(home), [folder], Progress())
    assert report.ok, report.failures
    wh = Home(home).warehouse
    chunks = " ".join(" ".join(str(r[0]).split()) for r in query(wh, "select text from chunks").rows)
    assert "Enhance the performance of your queries" in chunks
    assert "Foibodf" not in chunks and "qfsgpsnbodf" not in chunks


def test_a_page_in_no_language_that_ocr_could_not_read_keeps_its_layer_unconfirmed(tmp_path: Path) -> None:
    outcome = check_file(list_page_pdf(tmp_path / "list.pdf"), ocr=False)
    (page,) = outcome.texts
    assert page.source == "extracted" and page.reason == "unconfirmed:ocr_not_run"
    assert page.trust == UNCONFIRMED_LAYER_TRUST < 1.0 and page.cross_check is None


def test_the_second_opinion_compares_letters_and_yields_to_a_doubtful_reading() -> None:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789"
    misread = alphabet.replace("Q", "O")  # one misread letter takes a whole word of three
    assert second_opinion(alphabet, misread, 84.7)[::2] == ("second_opinion_agrees", True)
    cipher = shift_garble(" ".join(LIST_LINES), 1)
    assert second_opinion(cipher, " ".join(LIST_LINES), 95.9)[::2] == ("second_opinion_disagrees", False)
    # Korean letters read with English data: a confident-looking disagreement that is no witness.
    assert second_opinion("ㄱ ㄲ ㄳ ㄴ ㄵ ㄶ ㄷ ㄸ ㄹ ㄺ ㄻ ㄼ", "cH vA vE & TA on WH] HE", 65.7)[::2] == (
        "second_opinion_disagrees",
        True,
    )


# --- a short page in no known word is read by OCR too ---------------------------------------------------


def short_page_pdf(path: Path, line: str, *, garbled: bool) -> Path:
    """One short line in large type, its font shifted by one letter when ``garbled``."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="F1", fontbuffer=pymupdf.Font("helv").buffer)
    page.insert_text((72, 200), line, fontname="F1", fontsize=36)
    doc.subset_fonts()
    if garbled:
        for xref, *_ in page.get_fonts():
            _garble_font(doc, xref)
    return _write_atomic(path, _pdf_bytes(doc, None))


def test_known_short_words_counts_the_words_some_lexicon_knows() -> None:
    from quality.judge import known_short_words

    assert known_short_words("Hello world") == 2
    assert known_short_words("Annex B") == 1
    assert known_short_words("Boofy C") == 0  # "Annex B" shifted by one letter
    assert known_short_words("Jttvf 9199 - Qbhf 2") == 0


def test_a_short_page_in_a_shifted_font_is_read_by_ocr_not_trusted(tmp_path: Path) -> None:
    outcome = check_file(short_page_pdf(tmp_path / "annex.pdf", "Annex B", garbled=True))
    (verdict,) = outcome.verdicts.pages
    assert verdict.mode == "REPLACE" and "no_profile_second_opinion" in verdict.reasons
    (page,) = outcome.texts
    assert page.source == "ocr" and "Annex B" in page.text and "Boofy" not in page.text


def test_a_short_page_of_known_words_is_used_as_it_stands(tmp_path: Path) -> None:
    outcome = check_file(short_page_pdf(tmp_path / "annex.pdf", "Annex B", garbled=False))
    (verdict,) = outcome.verdicts.pages
    assert verdict.mode == "TEXT" and "short_text" in verdict.reasons
    (page,) = outcome.texts
    assert page.source == "extracted" and "Annex B" in page.text
