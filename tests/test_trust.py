"""The whole trust chain on generated PDFs: clean pages of several languages, a table page and a
two-column page are trusted; their garbled-font variants are caught (and shift garbling repaired exactly);
30% of a page garbled in one font is caught by the per-font score."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from orchestration.checkfile import check_file
from orchestration.document_builders import make_garbled_pdf, make_text_pdf
from quality.garble import partial_garble
from quality.lexicon import load_lexicon
from quality.page_signals import font_evidence
from quality.verdicts import FONT_GARBLED_MAX, LEXICON_MIN
from readers.core.model import Block, Line, Span
from tests.test_lexicon_language import SAMPLES

LANGUAGES = ("en", "fr", "de", "es", "it", "nl", "pt")
TABLE = [
    ["Zone", "Tariff", "Volume", "Customers"],
    ["North", "1.42", "3120", "18402"],
    ["South", "1.38", "2877", "16220"],
    ["East", "1.51", "1954", "11039"],
]


def _two_column_pdf(path: Path, text: str) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    words = text.split()
    half = len(words) // 2
    for rect, part in (
        (pymupdf.Rect(50, 60, 290, 800), words[:half]),
        (pymupdf.Rect(310, 60, 550, 800), words[half:]),
    ):
        page.insert_textbox(rect, " ".join(part), fontsize=10, fontname="helv")
    doc.save(path)
    return path


def _pages(path: Path):
    outcome = check_file(path)
    verdicts = {v.page: v for v in outcome.verdicts.pages}
    return outcome, [(p, verdicts[p.page]) for p in outcome.extracted.rows.pages[outcome.sha256]]


def test_clean_pages_score_above_and_garbled_fonts_below(tmp_path: Path) -> None:
    clean_scores: list[float] = []
    garbled_scores: list[float] = []
    cases = [(lang, make_text_pdf(tmp_path / f"{lang}.pdf", [SAMPLES[lang]])) for lang in LANGUAGES]
    cases.append(("table", make_text_pdf(tmp_path / "table.pdf", [SAMPLES["en"]], tables={0: TABLE})))
    cases.append(("columns", _two_column_pdf(tmp_path / "columns.pdf", SAMPLES["en"] + " " + SAMPLES["en"])))
    for name, pdf in cases:
        _, pages = _pages(pdf)
        for page, verdict in pages:
            assert verdict.mode in ("TEXT", "FIGURES"), (name, verdict)
            assert page.lexicon_judged and page.lexicon_hit_rate >= LEXICON_MIN, (name, page.lexicon_hit_rate)
            clean_scores.append(page.lexicon_hit_rate)
    for lang in LANGUAGES:
        _, pages = _pages(make_garbled_pdf(tmp_path / f"garbled-{lang}.pdf", SAMPLES[lang]))
        for page, verdict in pages:
            assert verdict.mode in ("REPLACE", "REPAIRED"), (lang, verdict)
            # The garbled page matches no language: its lexicon abstains, or scores nearly nothing.
            garbled_scores.append(page.lexicon_hit_rate if page.lexicon_judged else 0.0)
    margin = min(clean_scores) - max(garbled_scores)
    print(
        f"\nclean {min(clean_scores):.3f}..{max(clean_scores):.3f}, garbled <= {max(garbled_scores):.3f}, "
        f"margin {margin:.3f} around the threshold {LEXICON_MIN}"
    )
    assert margin > 0 and min(clean_scores) > LEXICON_MIN > max(garbled_scores)


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_a_shift_garbled_font_is_repaired_to_the_exact_text(tmp_path: Path, lang: str) -> None:
    original = check_file(make_text_pdf(tmp_path / "clean.pdf", [SAMPLES[lang]]))
    garbled = check_file(make_garbled_pdf(tmp_path / "garbled.pdf", SAMPLES[lang]))
    clean_text = original.extracted.rows.pages[original.sha256][0].text
    assert [v.mode for v in garbled.verdicts.pages] == ["REPAIRED"]
    (repair,) = garbled.verdicts.repairs
    assert repair.method == "shift"
    assert " ".join(repair.text.split()) == " ".join(clean_text.split())


def test_thirty_percent_garbled_in_one_font_is_caught_by_the_font_score() -> None:
    text = " ".join([SAMPLES["en"]] * 3)
    garbled = partial_garble(text, 0.3, seed=3)
    spans = []
    for original, shown in zip(text.split(), garbled.split(), strict=True):
        font = "Broken" if original != shown else "Body"
        spans.append(Span(shown + " ", font, 10.0, (0, 0, 10, 10)))
    lines = [Line(tuple(spans[i : i + 12]), (50, 100 + i, 500, 110 + i)) for i in range(0, len(spans), 12)]
    blocks = [Block(tuple(lines), (50, 100, 500, 100 + len(lines) * 12))]
    evidence = font_evidence(blocks, load_lexicon("en"))
    broken, body = evidence["Broken"], evidence["Body"]
    share = broken.chars / (broken.chars + body.chars)
    print(
        f"\nbroken font: {share:.0%} of the characters, hit {broken.hit_rate:.3f}; body {body.hit_rate:.3f}"
    )
    assert 0.25 <= share <= 0.4
    assert broken.hit_rate < FONT_GARBLED_MAX < body.hit_rate


def test_right_to_left_lines_come_back_in_reading_order() -> None:
    from readers.pdf.bidi import logical_line, logical_text

    # pdfminer writes an Arabic line as it stands on the page: left to right, so each word backwards.
    visual = "٢ بﺎﺒﻟا"
    assert logical_line(visual) == "اﻟﺒﺎب ٢"
    # Numbers and Latin words keep their own order; brackets are mirrored; left-to-right lines are untouched.
    assert logical_line("ﺲﻤﺷ : (ﻪﺑ ﺔﻘﻓﺮﺘﻣ) 2020 ABC") == "ABC 2020 (ﻣﺘﺮﻓﻘﺔ ﺑﻪ) : ﺷﻤﺲ"
    assert logical_text("Hello world\nplain line") == "Hello world\nplain line"
