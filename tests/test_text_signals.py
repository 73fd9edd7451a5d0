"""Page text signals on raw text, the lexicon hit rate, the prose gate and per-font evidence.

Prose and garblings come from tests/test_lexicon_language.py; blocks are built by hand with the
geometry a PDF reader reports (points, origin top-left).
"""

from __future__ import annotations

import math
import unicodedata

import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quality.lexicon import load_lexicon
from quality.page_signals import (
    MIN_EVIDENCE_WEIGHT,
    _judge,
    _raw_tokens,
    bad_rune_count,
    bad_rune_ratio,
    cid_count,
    cid_ratio,
    font_evidence,
    glued_ratio,
    judged_tokens,
    letter_count,
    lexicon_evidence,
    page_signals,
    spaced_ratio,
    visible_chars,
)
from quality.prose import CONDITIONS, ProseVerdict, is_prose, non_blank, prose_verdict
from readers.core.model import Block, Line, PageText, Span
from tests.test_lexicon_language import SAMPLES, WESTERN, garblings, shift_letters, shuffle_letters

PAGE_HEIGHT = 792.0
BODY = 10.0


# --- hand-built layout ------------------------------------------------------------------------------


def span(
    text: str, x0: float, y0: float, *, size: float = BODY, font: str = "Times-Roman", mono: bool = False
) -> Span:
    width = len(text) * size * (0.6 if mono else 0.45)
    return Span(text, font, size, (x0, y0, x0 + width, y0 + size * 1.2), monospaced=mono)


def block(
    rows: list[str],
    *,
    x0: float = 72.0,
    y0: float = 200.0,
    size: float = BODY,
    font: str = "Times-Roman",
    mono: bool = False,
    indent: float = 0.0,
) -> Block:
    """One span per line, lines 1.2 sizes apart, the first indented by ``indent`` points."""
    lines = []
    for number, row in enumerate(rows):
        left = x0 + (indent if number == 0 else 0.0)
        s = span(row, left, y0 + number * size * 1.2, size=size, font=font, mono=mono)
        lines.append(Line((s,), s.bbox))
    return _wrap(lines)


def _wrap(lines: list[Line]) -> Block:
    box = (
        min(line.bbox[0] for line in lines),
        min(line.bbox[1] for line in lines),
        max(line.bbox[2] for line in lines),
        max(line.bbox[3] for line in lines),
    )
    return Block(tuple(lines), box)


def prose_rows(text: str, words_per_line: int = 11) -> list[str]:
    words = text.split()
    return [" ".join(words[i : i + words_per_line]) for i in range(0, len(words), words_per_line)]


def verdict(b: Block, **kwargs) -> ProseVerdict:
    options = {"body_size": BODY, "page_height": PAGE_HEIGHT, "figure_boxes": ()}
    options.update(kwargs)
    return prose_verdict(b, **options)


# --- the prose gate ---------------------------------------------------------------------------------


def test_a_paragraph_passes_the_gate() -> None:
    paragraph = block(prose_rows(SAMPLES["en"]), indent=15.0)
    assert verdict(paragraph) == ProseVerdict(True, ())
    assert is_prose(paragraph, body_size=BODY, page_height=PAGE_HEIGHT)
    assert not is_prose(paragraph, body_size=BODY * 2, page_height=PAGE_HEIGHT)


def test_a_table_with_short_lines_fails_on_tokens_per_line() -> None:
    table = block(["Region 2019 2020", "North 1,204 1,377", "South 988 1,012", "East 2,310 2,455"])
    result = verdict(table)
    assert not result.passed
    assert "tokens_per_line" in result.failed
    assert "letter_ratio" in result.failed


def test_a_monospaced_block_fails_on_monospaced() -> None:
    code = block(prose_rows(SAMPLES["en"]), font="Courier", mono=False)  # detected by the font name
    assert verdict(code).failed == ("monospaced",)
    flagged = block(prose_rows(SAMPLES["en"]), font="SomeFont", mono=True)
    assert verdict(flagged).failed == ("monospaced",)


def test_a_block_in_the_running_head_band_fails() -> None:
    head = block(prose_rows(SAMPLES["en"])[:2], y0=20.0)
    assert verdict(head).failed == ("running_band",)
    foot = block(prose_rows(SAMPLES["en"])[:2], y0=PAGE_HEIGHT - 40.0)
    assert verdict(foot).failed == ("running_band",)


def test_two_columns_read_as_one_line_fail_on_the_gutter() -> None:
    rows = prose_rows(SAMPLES["en"], 6)
    lines = []
    for number in range(0, 12, 2):
        y = 200.0 + number * 6.0
        left, right = span(rows[number], 72.0, y), span(rows[number + 1], 320.0, y)
        lines.append(Line((left, right), (72.0, y, right.bbox[2], y + 12.0)))
    result = verdict(_wrap(lines))
    assert result.failed == ("gutter",)


def test_reader_lines_on_one_baseline_are_one_visual_line() -> None:
    """MuPDF cuts a justified line at a wide sentence gap; the halves do not break the margin."""
    rows = prose_rows(SAMPLES["en"])
    lines = [Line((s,), s.bbox) for s in (span(row, 72.0, 200.0 + i * 12.0) for i, row in enumerate(rows))]
    first = lines[2].spans[0]
    words = first.text.split()
    a = span(" ".join(words[:3]), 72.0, first.bbox[1])
    b = span(" ".join(words[3:]), a.bbox[2] + 6.0, first.bbox[1])
    lines[2:3] = [Line((a,), a.bbox), Line((b,), b.bbox)]
    assert verdict(_wrap(lines)).passed


def test_headings_footnotes_figures_and_lone_lines_fail_with_their_names() -> None:
    rows = prose_rows(SAMPLES["en"])
    assert verdict(block(rows, size=14.0)).failed == ("body_size",)
    assert verdict(block(rows, size=7.0)).failed == ("body_size",)
    assert verdict(block(rows), body_size=None).passed  # unknown body size: not judged
    paragraph = block(rows)
    figure = (60.0, 150.0, 560.0, 500.0)
    assert verdict(paragraph, figure_boxes=(figure,)).failed == ("figure",)
    assert verdict(paragraph, figure_boxes=((0.0, 0.0, 50.0, 50.0),)).passed
    assert verdict(block(["Results and discussion"])).failed == ("lines", "tokens_per_line")
    hanging = block(rows, indent=-30.0)
    assert verdict(hanging).failed == ("margin",)


def test_failures_use_only_named_conditions() -> None:
    assert set(verdict(block(["1 2", "3 4"], y0=10.0, size=30.0, mono=True)).failed) <= set(CONDITIONS)


# --- raw-text character signals ---------------------------------------------------------------------

BAD = "\ufffd\x01\x85\ue000\U000f0000\u0378"  # FFFD, C0, C1, BMP private use, plane 15, unassigned


def test_bad_runes_count_each_kind_and_spare_tab_newline_cr() -> None:
    text = "ok\tok\nok\r" + BAD
    assert bad_rune_count(text) == 6
    assert visible_chars(text) == 6 + 6
    assert bad_rune_ratio(text) == 0.5
    assert bad_rune_ratio("plain text\n") == 0.0
    assert bad_rune_ratio("") == 0.0


def sanitise(text: str) -> str:
    """What a later stage does to text: NFKC, then drop controls, private use, unassigned, U+FFFD."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(
        c
        for c in text
        if c in "\t\n\r" or (unicodedata.category(c) not in ("Cc", "Co", "Cn") and c != "\ufffd")
    )


def test_signals_must_be_computed_on_raw_text() -> None:
    """Order matters: the same page scores > 0 raw and exactly 0 once normalised."""
    raw = "Vojw dpotvnqujpo \ufffd\ufffd Sbuft\x02 \ue0a5\ue0a6 \U00100001"
    normalised = sanitise(raw)
    assert bad_rune_ratio(raw) == 6 / 26
    assert bad_rune_ratio(normalised) == 0.0
    assert page_signals(PageText(1, raw), body_size=None, page_height=0).bad_rune_ratio == 6 / 26
    assert page_signals(PageText(1, normalised), body_size=None, page_height=0).bad_rune_ratio == 0.0


def test_cid_passthrough() -> None:
    text = "(cid:12)(cid:34) abc"
    assert cid_count(text) == 2
    assert cid_ratio(text) == 2 / 5  # two unmapped glyphs among five
    assert cid_count("(cid:x) (cid:)") == 0 and cid_ratio("no cids") == 0.0
    signals = page_signals(PageText(1, "(cid:3)" * 30), body_size=None, page_height=0)
    assert signals.cid_count == 30 and signals.cid_ratio == 1.0


def test_glued_words_are_found_with_a_lexicon() -> None:
    english = load_lexicon("en")
    glued = "Thisisaverylongrunofwordsthatlostitsspaces andsodidthisoneaswellmyfriend."
    assert glued_ratio(glued, english) > 0.9
    assert glued_ratio(SAMPLES["en"], english) == 0.0
    assert glued_ratio(glued, None) == 0.0
    assert glued_ratio(shift_letters(glued), english) == 0.0  # long, but not words
    german = load_lexicon("de")
    assert glued_ratio(SAMPLES["de"], german) < 0.05  # compounds are words, not glue


def test_letter_spaced_runs() -> None:
    assert spaced_ratio("H e r e i s a heading") == 7 / 14
    assert spaced_ratio(SAMPLES["en"]) == 0.0
    assert spaced_ratio("points a b c only") == 0.0  # three letters: an enumeration
    assert spaced_ratio("S U M M A R Y") == 1.0


# --- the lexicon hit rate ---------------------------------------------------------------------------


def test_lexicon_hit_rate_margins() -> None:
    """Clean paragraphs hit their lexicon far more than any garbling of them."""
    clean: list[tuple[float, str]] = []
    garbled: list[tuple[float, str]] = []
    for language in (*WESTERN, "ru", "el", "ar", "fa", "he", "hi", "bn", "ta", "pl", "tr", "sv"):
        lexicon = load_lexicon(language)
        evidence = lexicon_evidence(SAMPLES[language], lexicon)
        assert evidence.judged and evidence.language == language
        clean.append((evidence.hit_rate, language))
        if language in WESTERN:
            assert evidence.hit_rate > 0.9
        for kind, variant in garblings(SAMPLES[language]).items():
            garbled.append((lexicon_evidence(variant, lexicon).hit_rate, f"{language}/{kind}"))
    low, high = min(clean), max(garbled)
    western_low = min(rate for rate, language in clean if language in WESTERN)
    print(
        f"\nlexicon hit rate: lowest clean {low[0]:.3f} ({low[1]}; western {western_low:.3f}), "
        f"highest garbled {high[0]:.3f} ({high[1]}), margin {low[0] - high[0]:.3f}"
    )
    assert low[0] - high[0] > 0.5
    assert western_low - high[0] > 0.8


def test_clean_pages_get_a_language_and_a_judged_hit_rate() -> None:
    for language in WESTERN:
        signals = page_signals(PageText(1, SAMPLES[language]), body_size=None, page_height=0)
        assert signals.language == signals.lexicon_language == language
        assert signals.lexicon_judged and signals.lexicon_hit_rate > 0.9
        assert signals.chars > 600 and signals.bad_rune_ratio == 0.0


def test_garbled_pages_get_no_language_so_no_lexicon_verdict() -> None:
    for language in WESTERN:
        for kind, variant in garblings(SAMPLES[language]).items():
            signals = page_signals(PageText(1, variant), body_size=None, page_height=0)
            assert signals.language is None, (language, kind, signals.language_similarity)
            assert signals.lexicon_language is None and not signals.lexicon_judged


def test_chinese_is_recognised_and_not_lexicon_judged() -> None:
    signals = page_signals(PageText(1, SAMPLES["zh"]), body_size=None, page_height=0)
    assert signals.language == "zh"
    assert signals.lexicon_language is None and not signals.lexicon_judged
    assert signals.glued_ratio == 0.0  # clause-long Han runs are not glued words


def test_russian_and_greek_pages_are_judged_in_their_language() -> None:
    for language in ("ru", "el"):
        signals = page_signals(PageText(1, SAMPLES[language]), body_size=None, page_height=0)
        assert signals.lexicon_language == language and signals.lexicon_hit_rate > 0.85


def test_tokenisation_rules() -> None:
    english = load_lexicon("en")
    # split on whitespace first, then punctuation stripped; digits, paths, URLs, dotted names skipped
    text = "(consumption), 'regional' COVID-19 /usr/local/share a_b user@example.org https://x.org report.pdf"
    evidence = lexicon_evidence(text, english)
    assert (evidence.tokens, evidence.hits) == (2, 2)
    assert evidence.weight == (11 - 3) + (8 - 3)
    # a hyphen at a line end joins the next line's word; dashes inside a token split it
    assert lexicon_evidence("consump-\ntion", english).hits == 1
    assert lexicon_evidence("state-of-the-art", english).tokens == 1  # "state"; "art", "of", "the" < 4
    # elisions and possessives
    french = load_lexicon("fr")
    assert lexicon_evidence("l'homme d’entreprise qu'aujourd'hui", french).hits == 3
    assert lexicon_evidence("government's", english).hits == 1
    # short tokens are not judged; too little weight gives no verdict
    assert lexicon_evidence("the cat sat on a mat", english).tokens == 0
    few = lexicon_evidence("Unit consumption rates", english)
    assert few.weight < MIN_EVIDENCE_WEIGHT and not few.judged and few.hit_rate == 1.0


def test_tokens_split_at_unicode_white_space_and_nowhere_else() -> None:
    # Every code point (surrogates aside) between two letters: the tokens break exactly where Unicode
    # says White_Space (regex's \s), so U+001C-U+001F, which str.split() and re's \s take for blanks,
    # stay inside a token, and U+3000 or U+2028 do not.
    white = regex.compile(r"\s")
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        tokens = [token for _, _, token in _raw_tokens(f"ab{char}cd")]
        assert tokens == (["ab", "cd"] if white.match(char) else [f"ab{char}cd"]), hex(code)


def test_extra_words_lift_a_domain_page() -> None:
    domain = "Homöomorphismus Teilraumtopologie Quotiententopologie Produkttopologie " * 6
    without = page_signals(PageText(1, SAMPLES["de"] + " " + domain), body_size=None, page_height=0)
    extra = {"de": ["Homöomorphismus", "Teilraumtopologie", "Quotiententopologie", "Produkttopologie"]}
    lifted = page_signals(
        PageText(1, SAMPLES["de"] + " " + domain), body_size=None, page_height=0, extra_words=extra
    )
    assert lifted.lexicon_hit_rate > without.lexicon_hit_rate + 0.2


def test_only_prose_blocks_are_scored_when_blocks_are_given() -> None:
    prose = block(prose_rows(SAMPLES["en"]), y0=150.0)
    table = block(["Vojw 2019 Sbuft", "Opsui 1,204 xz", "Tpvui 988 qr", "Fbtu 2,310 ab"], y0=500.0)
    header = block(prose_rows(shuffle_letters(SAMPLES["en"]))[:2], y0=20.0)
    page = PageText(1, SAMPLES["en"], blocks=(header, prose, table))
    signals = page_signals(page, body_size=BODY, page_height=PAGE_HEIGHT)
    assert (signals.prose_blocks, signals.blocks) == (1, 3)
    assert signals.lexicon_judged and signals.lexicon_hit_rate > 0.9
    no_prose = page_signals(
        PageText(1, SAMPLES["en"], blocks=(table,)), body_size=BODY, page_height=PAGE_HEIGHT
    )
    assert no_prose.prose_blocks == 0 and not no_prose.lexicon_judged and no_prose.lexicon_weight == 0.0


def test_empty_page_stops_after_the_character_count() -> None:
    signals = page_signals(PageText(1, " \n\t "), body_size=BODY, page_height=PAGE_HEIGHT)
    assert signals.chars == 0 and signals.language is None and not signals.lexicon_judged


# --- per-font evidence ------------------------------------------------------------------------------


def test_font_evidence_points_at_the_broken_font() -> None:
    clean_rows = prose_rows(SAMPLES["en"], 8)
    lines = []
    for number, row in enumerate(clean_rows):
        words = row.split()
        y = 200.0 + number * 12.0
        good = span(" ".join(words[:5]) + " ", 72.0, y, font="Good")
        bad = span(shift_letters(" ".join(words[5:])), good.bbox[2], y, font="Broken")
        lines.append(Line((good, bad), (72.0, y, bad.bbox[2], y + 12.0)))
    evidence = font_evidence([_wrap(lines)], load_lexicon("en"))
    assert set(evidence) == {"Good", "Broken"}
    assert evidence["Good"].hit_rate > 0.9 and evidence["Broken"].hit_rate < 0.1
    assert evidence["Good"].weight > 40 and evidence["Broken"].weight > 40
    total = sum(len("".join(s.text.split())) for line in lines for s in line.spans)
    assert evidence["Good"].chars + evidence["Broken"].chars == total


def test_font_evidence_gives_a_split_token_to_the_span_with_most_letters() -> None:
    y = 200.0
    a = span("consump", 72.0, y, font="A")
    b = span("tion", a.bbox[2], y, font="B")
    evidence = font_evidence([_wrap([Line((a, b), (72.0, y, b.bbox[2], y + 12.0))])], load_lexicon("en"))
    assert evidence["A"].tokens == 1 and evidence["A"].hit_weight == 8
    assert evidence["B"].tokens == 0 and evidence["B"].chars == 4


def test_font_evidence_can_be_restricted_to_prose() -> None:
    heading = block(["Vojw dpotvnqujpo Sbuft"], font="Broken", size=16.0)
    paragraph = block(prose_rows(SAMPLES["en"]), font="Good", y0=300.0)
    english = load_lexicon("en")
    everything = font_evidence([heading, paragraph], english)
    prose_only = font_evidence(
        [heading, paragraph], english, body_size=BODY, page_height=PAGE_HEIGHT, prose_only=True
    )
    assert everything["Broken"].weight > 0 and "Broken" not in prose_only


# --- properties -------------------------------------------------------------------------------------

_RATIOS = (
    "bad_rune_ratio",
    "cid_ratio",
    "glued_ratio",
    "spaced_ratio",
    "language_similarity",
    "lexicon_hit_rate",
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_page_signals_never_raise_and_ratios_stay_in_range(text: str) -> None:
    signals = page_signals(PageText(1, text), body_size=None, page_height=0)
    for name in _RATIOS:
        assert 0.0 <= getattr(signals, name) <= 1.0 + 1e-9, name
    assert signals.chars >= signals.bad_runes >= 0
    assert signals.lexicon_hits <= signals.lexicon_tokens
    assert signals.letters == (letter_count(text) if signals.chars else 0)  # counted in one pass


_WORDY = st.text(alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzé -'\n.,(cid:1)\ufffd"), max_size=300)


@settings(max_examples=100, deadline=None)
@given(_WORDY, st.sampled_from(["en", "fr", "de"]))
def test_lexicon_signals_stay_in_range(text: str, language: str) -> None:
    lexicon = load_lexicon(language)
    evidence = lexicon_evidence(text, lexicon)
    assert 0.0 <= evidence.hit_rate <= 1.0 and evidence.hits <= evidence.tokens
    assert 0.0 <= glued_ratio(text, lexicon) <= 1.0
    assert 0.0 <= spaced_ratio(text) <= 1.0
    assert 0.0 <= cid_ratio(text) <= 1.0
    letters = "".join(c for c in text if c.isalpha())
    pieces = lexicon.segment(letters)
    assert pieces is None or "".join(pieces) == lexicon.normalise(letters)


_SPAN_TEXT = st.text(max_size=40)
_COORD = st.floats(min_value=-100, max_value=1000, allow_nan=False)


@st.composite
def blocks(draw: st.DrawFn) -> Block:
    lines = []
    for _ in range(draw(st.integers(min_value=0, max_value=5))):
        spans = []
        for _ in range(draw(st.integers(min_value=1, max_value=3))):
            x0, y0 = draw(_COORD), draw(_COORD)
            size = draw(st.floats(min_value=0, max_value=40, allow_nan=False))
            spans.append(
                Span(draw(_SPAN_TEXT), draw(st.sampled_from(["Times", "Courier", ""])), size,
                     (x0, y0, x0 + draw(_COORD), y0 + size), monospaced=draw(st.booleans()))
            )  # fmt: skip
        lines.append(Line(tuple(spans), spans[0].bbox))
    box = lines[0].bbox if lines else (0.0, 0.0, 0.0, 0.0)
    return Block(tuple(lines), box)


@settings(max_examples=100, deadline=None)
@given(st.lists(blocks(), max_size=4), st.none() | st.floats(min_value=0, max_value=30, allow_nan=False))
def test_prose_gate_and_font_evidence_never_raise(page_blocks: list[Block], body: float | None) -> None:
    for b in page_blocks:
        options = {"body_size": body, "page_height": PAGE_HEIGHT, "figure_boxes": ((0, 0, 100, 100),)}
        result = prose_verdict(b, **options)
        assert result.passed == (not result.failed) and set(result.failed) <= set(CONDITIONS)
        assert list(result.failed) == sorted(result.failed, key=CONDITIONS.index)
        assert is_prose(b, **options) == result.passed  # the short-circuit gate agrees with the full one
    for evidence in font_evidence(page_blocks, load_lexicon("en"), body_size=body, page_height=700).values():
        assert evidence.hit_weight <= evidence.weight and 0.0 <= evidence.hit_rate <= 1.0
    text = "\n\n".join("\n".join(line.text for line in b.lines) for b in page_blocks)
    signals = page_signals(
        PageText(1, text, blocks=tuple(page_blocks)), body_size=body, page_height=PAGE_HEIGHT
    )
    assert signals.blocks == len(page_blocks) and 0 <= signals.prose_blocks <= signals.blocks


_TOKENISH = st.text(alphabet=st.sampled_from("abcXYZéß -'\n.,;:()\\{}_/1\u2010\u00ad\u2019\"\t"), max_size=99)


@settings(max_examples=200, deadline=None)
@given(_TOKENISH, st.sampled_from(["en", "de", "ru"]))
def test_judged_words_take_the_rules_of_the_general_path(text: str, language: str) -> None:
    """ASCII tokens are judged inline (a speed path); every token judged by the general rules agrees."""
    lexicon = load_lexicon(language)
    general = [
        (start, end, weight, hit)
        for start, end, token in _raw_tokens(text)
        for weight, hit in _judge(token, lexicon)
    ]
    assert list(judged_tokens(text, lexicon)) == general


@settings(max_examples=100, deadline=None)
@given(st.lists(blocks(), min_size=1, max_size=3))
def test_font_evidence_of_one_font_blocks_is_their_lexicon_evidence(page_blocks: list[Block]) -> None:
    lexicon = load_lexicon("en")
    one_font = [
        Block(tuple(Line(tuple(s._replace(font="F") for s in ln.spans), ln.bbox) for ln in b.lines), b.bbox)
        for b in page_blocks
    ]
    evidence = font_evidence(one_font, lexicon)
    texts = ["\n".join(line.text for line in b.lines) for b in one_font if b.lines]
    whole = lexicon_evidence(texts, lexicon)
    if texts:
        assert (evidence["F"].tokens, evidence["F"].weight) == (whole.tokens, whole.weight)
        assert math.isclose(evidence["F"].hit_weight, whole.hit_rate * whole.weight)
    mixed = font_evidence(page_blocks, lexicon)
    assert sum(e.tokens for e in mixed.values()) == whole.tokens


@given(st.text())
def test_non_blank_counts_what_split_keeps(text: str) -> None:
    """The blank-counting shortcut agrees with splitting on every kind of whitespace."""
    assert non_blank(text) == len("".join(text.split()))
