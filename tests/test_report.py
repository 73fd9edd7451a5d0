"""The quality report: its three plots as PNG bytes, and the asset over a real pipeline run."""

from __future__ import annotations

import base64
import random
import re
import struct
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc
import pymupdf
import pytest
from docx import Document

from assets.progress import Progress
from assets.resources import AssaySettings
from orchestration.definitions import make_definitions
from orchestration.home import Home
from orchestration.runner import run
from quality.plots import FIGURE_DPI
from quality.rates import rates_by_kind
from quality.report_plots import (
    BARS_INCHES,
    HISTOGRAM_INCHES,
    MIN_HISTOGRAM_PAGES,
    NO_TEXT_LAYER,
    OUTCOMES,
    JudgedPages,
    KindModes,
    ScoredPage,
    VersionRates,
    histogram_left_out,
    judged_pages,
    modes_by_kind_figure,
    modes_by_kind_png,
    modes_left_out,
    rates_by_version_png,
    rates_left_out,
    score_histogram_figure,
    score_histogram_png,
    thresholds,
    valley,
    write_png,
)
from quality.verdicts import LEXICON_MIN, SANDWICH_LEXICON_MIN, Mode, Tier
from readers.core.versions import EXTRACTOR_VERSION

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What quality.rates counts of a document's outcome (quality.rates.OutcomeLike)."""

    kind: str
    outcome: str


def size_of(png: bytes) -> tuple[int, int]:
    assert png[:8] == PNG_MAGIC
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
    return width, height


def pixels(inches: tuple[float, float]) -> tuple[int, int]:
    return round(inches[0] * FIGURE_DPI), round(inches[1] * FIGURE_DPI)


def corpus_scores(seed: int = 7) -> list[ScoredPage]:
    """A clean mode near 0.35, a garbled mode near 0.02 and a few OCR-layer pages held to their own
    threshold."""
    rnd = random.Random(seed)

    def page(mu: float, sigma: float, mode: Mode, threshold: float = LEXICON_MIN, prov: str = "born_digital"):
        return ScoredPage(min(1.0, max(0.0, rnd.gauss(mu, sigma))), threshold, mode, prov)

    return (
        [page(0.35, 0.08, Mode.TEXT) for _ in range(300)]
        + [page(0.02, 0.01, Mode.REPLACE) for _ in range(40)]
        + [page(0.03, 0.01, Mode.REPAIRED) for _ in range(8)]
        + [page(0.3, 0.05, Mode.FIGURES, SANDWICH_LEXICON_MIN, "ocr_sandwich") for _ in range(20)]
    )


def as_judged(pages: list[ScoredPage], unscored: dict[Mode, int] | None = None) -> JudgedPages:
    """The scored ``pages`` as PDF pages, with ``unscored`` more pages by mode (judged by the font tier)."""
    unscored = unscored or {}
    counts = Counter(p.mode for p in pages) + Counter(unscored)
    return JudgedPages([KindModes("pdf", dict(counts))], pages, {"font": sum(unscored.values())})


# -- the valley and the thresholds --------------------------------------------------------------------


def judged(scores: list[float], mode: Mode) -> list[ScoredPage]:
    return [ScoredPage(s, LEXICON_MIN, mode, "born_digital") for s in scores]


def centres(counts: dict[int, int], mode: Mode = Mode.TEXT) -> list[ScoredPage]:
    """Pages scored at the centres of bins of 0.025, ``counts[i]`` of them in bin ``i``."""
    return judged([(i + 0.5) / 40 for i, n in counts.items() for _ in range(n)], mode)


def test_the_valley_is_the_emptiest_stretch_between_the_two_modes() -> None:
    pages = judged([0.01] * 10 + [0.04] * 3, Mode.REPLACE) + judged(
        [0.09] + [0.3] * 20 + [0.33] * 12, Mode.TEXT
    )
    v = valley(pages, 0.12)
    assert v is not None
    # Bins of 0.025: the garbled mode is [0, 0.025), the clean one [0.3, 0.325); between them the widest
    # run of empty bins is [0.1, 0.3), wider than the empty [0.05, 0.075) left of the lone page at 0.09.
    assert (v.low, v.high, v.pages) == pytest.approx((0.1, 0.3, 0))
    assert v.garbled_mode == pytest.approx(0.0125) and v.clean_mode == pytest.approx(0.3125)


def test_the_modes_are_the_verdicts_populations_not_the_sides_of_the_threshold() -> None:
    # A kept page scored low (too little evidence to condemn) is no garbled mode of its own.
    pages = judged([0.01] * 2, Mode.REPAIRED) + judged([0.09] * 2 + [0.5] * 9, Mode.FIGURES)
    v = valley(pages, 0.12)
    assert v is not None and v.garbled_mode == pytest.approx(0.0125) and v.clean_mode == pytest.approx(0.5125)
    assert (v.low, v.high) == pytest.approx((0.1, 0.5))


def test_no_valley_without_both_populations_apart() -> None:
    assert valley(judged([0.3, 0.4, 0.5], Mode.TEXT), 0.12) is None
    assert valley(judged([0.01, 0.02], Mode.REPLACE), 0.12) is None
    assert valley([], 0.12) is None
    assert valley(judged([0.11], Mode.REPLACE) + judged([0.13], Mode.TEXT), 0.125) is None  # bins touch
    assert valley(judged([0.5], Mode.REPLACE) + judged([0.2], Mode.TEXT), 0.12) is None  # inverted
    assert valley(judged([0.01], Mode.BLANK) + judged([0.5], Mode.TEXT), 0.12) is None


def test_a_crowded_valley_is_the_widest_run_of_the_fewest_pages() -> None:
    kept = {2: 3, 3: 3, **{i: 2 for i in range(4, 16)}, 16: 9} | {7: 1, 8: 1, 12: 1}
    v = valley(centres({0: 9, 1: 3}, Mode.REPLACE) + centres(kept), 0.12)
    assert v is not None
    assert (v.low, v.high, v.pages) == pytest.approx((0.175, 0.225, 2))  # bins 7-8, wider than bin 12


def test_of_two_equal_valleys_the_one_nearest_the_threshold() -> None:
    kept = {1: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 1, 11: 1, 12: 9}
    pages = centres({0: 9}, Mode.REPLACE) + centres(kept)
    v = valley(pages, 0.2)
    assert v is not None and (v.low, v.high) == pytest.approx((0.25, 0.275))
    v = valley(pages, 0.1)
    assert v is not None and (v.low, v.high) == pytest.approx((0.05, 0.075))


def test_thresholds_are_ordered_by_the_pages_they_judged() -> None:
    found = thresholds(corpus_scores())
    assert [(t.value, t.provenances, t.pages) for t in found] == [
        (LEXICON_MIN, ("born_digital",), 348),
        (SANDWICH_LEXICON_MIN, ("ocr_sandwich",), 20),
    ]


# -- the plots ----------------------------------------------------------------------------------------


def test_score_histogram_is_a_png_of_its_size_and_the_same_scores_give_the_same_bytes() -> None:
    judged = as_judged(corpus_scores(), {Mode.TEXT: 5})
    png = score_histogram_png(judged, title="Page scores")
    assert size_of(png) == pixels(HISTOGRAM_INCHES)
    assert len(png) > 20_000
    assert score_histogram_png(as_judged(corpus_scores(), {Mode.TEXT: 5}), title="Page scores") == png
    other = score_histogram_png(as_judged(corpus_scores(seed=8), {Mode.TEXT: 5}), title="Page scores")
    assert other != png, "different scores draw a different picture"


def test_modes_by_kind_is_a_png_of_its_size_and_deterministic() -> None:
    kinds = [
        KindModes("pdf", {Mode.TEXT: 812, Mode.FIGURES: 93, Mode.REPLACE: 41, Mode.REPAIRED: 5}),
        KindModes("html", {Mode.TEXT: 12}),
        KindModes("png", {Mode.REPLACE: 11}),
        KindModes("docx", {Mode.TEXT: 4, Mode.LANG: 1, Mode.BLANK: 1}),
    ]
    png = modes_by_kind_png(kinds)
    assert size_of(png) == pixels(BARS_INCHES)
    assert len(png) > 20_000
    assert modes_by_kind_png(list(kinds)) == png
    assert modes_by_kind_png(kinds[:2]) != png


def test_modes_by_kind_folds_a_long_tail_of_kinds_without_failing() -> None:
    kinds = [KindModes(f"kind{i:02d}", {Mode.TEXT: i + 1, Mode.BLANK: 1}) for i in range(40)]
    assert size_of(modes_by_kind_png(kinds)) == pixels(BARS_INCHES)


def test_rates_by_version_is_a_png_of_its_size_and_deterministic() -> None:
    def outcomes(underivable_pdfs: int, images: str) -> list[Outcome]:
        rows = [Outcome("pdf", "fallback" if i == 0 else "derived") for i in range(20)]
        rows += [Outcome("pdf", "underivable") for _ in range(underivable_pdfs)]
        rows += [Outcome("html", "fallback" if i < 7 else "derived") for i in range(12)]
        rows += [Outcome("png", images) for _ in range(5)]
        rows += [Outcome("audio", "unsupported")]  # no reader tried: not drawn
        return rows

    versions = [
        VersionRates("2026.10.1", rates_by_kind(outcomes(4, "underivable"))),
        VersionRates("2026.11.2", rates_by_kind(outcomes(1, "ocr"))),
    ]
    png = rates_by_version_png(versions)
    assert size_of(png) == pixels(BARS_INCHES)
    assert len(png) > 20_000
    assert rates_by_version_png(list(versions)) == png
    assert rates_by_version_png(versions[1:]) != png


def test_too_little_to_draw_leaves_a_plot_out() -> None:
    few = as_judged(corpus_scores()[: MIN_HISTOGRAM_PAGES - 1], {Mode.REPLACE: 30})
    assert (
        histogram_left_out(few) == f"{MIN_HISTOGRAM_PAGES - 1} of 49 pages judged had a score, fewer than 20"
    )
    assert histogram_left_out(as_judged(corpus_scores()[:MIN_HISTOGRAM_PAGES])) is None
    with pytest.raises(ValueError, match="left out"):
        score_histogram_png(few, title="Page scores")
    assert modes_left_out([]) == modes_left_out([KindModes("pdf", {})]) == "no judged page yet"
    assert modes_left_out([KindModes("pdf", {Mode.BLANK: 1})]) is None
    with pytest.raises(ValueError, match="left out"):
        modes_by_kind_png([KindModes("pdf", {})])
    assert rates_left_out([]) == rates_left_out([VersionRates("v", {})]) == "no document read yet"
    unread = VersionRates("v", rates_by_kind([Outcome("audio", "unsupported")]))
    assert rates_left_out([unread]) == "no document read yet"
    with pytest.raises(ValueError, match="left out"):
        rates_by_version_png([unread])
    read = VersionRates("v", rates_by_kind([Outcome("pdf", "derived")]))
    assert rates_left_out([unread, read]) is None


def _legend(texts) -> dict[str, tuple[int, ...]]:
    """A legend's entries: name -> the numbers in it."""
    found = {}
    for text in texts:
        label = text.get_text()
        name = re.split(r"[:(]", label, maxsplit=1)[0].strip()
        found[name] = tuple(int(n) for n in re.findall(r"(?<![\d.])\d+(?![\d.])", label))
    return found


def test_the_histograms_legend_counts_the_pages_the_modes_chart_counts() -> None:
    """Pages sent to OCR or repaired without a score (judged by the font or character tier, or with no
    text layer) are in the histogram's legend as the modes chart counts them, not left at 0."""
    rnd = random.Random(3)
    rows = [
        (f"t{i}", "TEXT", "born_digital", rnd.uniform(0.2, 0.9), LEXICON_MIN, "lexicon") for i in range(30)
    ]
    rows += [
        (f"l{i}", "LANG", "born_digital", rnd.uniform(0.2, 0.9), LEXICON_MIN, "lexicon") for i in range(2)
    ]
    rows += [("g", "REPLACE", "born_digital", 0.01, LEXICON_MIN, "lexicon")]
    rows += [
        ("f", "REPLACE", "born_digital", None, None, "font"),
        ("c", "REPLACE", "born_digital", None, None, "characters"),
        ("s", "REPLACE", "raw_scan", None, None, Tier.NO_TEXT.value),
    ]
    rows += [
        ("r", "REPAIRED", "born_digital", None, None, "font"),
        ("b", "BLANK", "raw_scan", None, None, "no_text"),
    ]
    rows += [("h", "TEXT", "born_digital", None, None, "trigram")]
    kinds = {sha: ("html" if sha == "h" else "pdf") for sha, *_ in rows}
    judged = judged_pages(rows, kinds)
    assert judged.unscored_by == {"font": 2, "characters": 1, NO_TEXT_LAYER: 2, "trigram": 1}

    histogram = _legend(score_histogram_figure(judged, title="t").axes[0].get_legend().get_texts())
    modes = _legend(modes_by_kind_figure(judged.kinds).legends[0].get_texts())
    assert modes == {
        "TEXT": (31,),
        "FIGURES": (0,),
        "REPLACE": (4,),
        "REPAIRED": (1,),
        "LANG": (2,),
        "BLANK": (1,),
    }
    for name, kept, _ in OUTCOMES:
        pages, scored = histogram[name]
        assert pages == sum(modes[m.value][0] for m in kept), name
        assert scored == sum(1 for p in judged.scored if p.mode in kept), name
    assert histogram["sent to OCR"] == (4, 1) and histogram["repaired"] == (1, 0)
    assert histogram["text layer kept"] == (33, 32)
    assert histogram["other modes"] == (1, 1, 0)  # BLANK 1: 1 page, 0 scored
    # The unscored pages, by what judged them instead, make up the rest of the judged pages.
    (unscored,) = [v for k, v in histogram.items() if k.endswith("unscored")]
    assert unscored[0] == judged.pages - len(judged.scored) == sum(unscored[1:]) == 6


def test_write_png_replaces_the_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "p.png"
    first = modes_by_kind_png([KindModes("pdf", {Mode.TEXT: 3})])
    assert write_png(first, target) == target and target.read_bytes() == first
    second = modes_by_kind_png([KindModes("pdf", {Mode.TEXT: 3, Mode.REPLACE: 2})])
    write_png(second, target)
    assert target.read_bytes() == second
    assert sorted(p.name for p in target.parent.iterdir()) == ["p.png"], "no temporary left behind"


# -- the asset over a real run --------------------------------------------------------------------------

PROSE = (
    "The committee reviewed the annual report on water quality and found that the levels of nitrate in "
    "the northern reservoirs had fallen for the third year in a row. Members asked the board to publish "
    "the monthly measurements together with the methods used to take them, so that the public can follow "
    "the trend and compare the figures with those of neighbouring districts. "
)


def shifted(text: str) -> str:
    """Every letter one place on, as a font with a broken character map draws it ("Voju" for "Unit")."""
    out = []
    for ch in text:
        if "a" <= ch <= "y" or "A" <= ch <= "Y":
            out.append(chr(ord(ch) + 1))
        else:
            out.append(ch)
    return "".join(out)


def write_corpus(folder: Path) -> None:
    folder.mkdir(parents=True)
    doc = pymupdf.open()
    for i in range(3):
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), f"Section {i + 1}\n\n" + PROSE * 3, fontsize=11)
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), shifted(PROSE * 3), fontsize=11)
    doc.save(folder / "report.pdf")
    doc.close()
    (folder / "notes.txt").write_text(PROSE * 2, encoding="utf-8")
    docx = Document()
    docx.add_heading("Minutes", level=1)
    docx.add_paragraph(PROSE)
    docx.save(folder / "minutes.docx")


def as_older_version(home: Path, older: str) -> None:
    """The current version's derivations, verdicts and page texts copied under an older version, with
    the text file made underivable there (and without pages): what a version that could not read text
    files left on disk."""
    wh = Home(home).warehouse
    texts = [
        sha
        for sha, kind in wh.columns("derivations", EXTRACTOR_VERSION, ("sha256", "kind"))
        if kind == "text"
    ]
    for table in ("derivations", "page_verdicts", "page_texts"):
        for shard in wh.shards(table, EXTRACTOR_VERSION):
            arrow = wh.read(table, EXTRACTOR_VERSION, shard)
            if table != "derivations":
                arrow = arrow.filter(
                    pc.invert(pc.is_in(arrow.column("sha256"), pa.array(texts, pa.string())))
                )
            names = arrow.schema.names
            version = pa.array([older] * arrow.num_rows, pa.string())
            arrow = arrow.set_column(
                names.index("extractor_version"),
                arrow.schema.field(names.index("extractor_version")),
                version,
            )
            if table == "derivations":
                status = [
                    "underivable" if kind == "text" else s
                    for kind, s in zip(
                        arrow.column("kind").to_pylist(), arrow.column("status").to_pylist(), strict=True
                    )
                ]
                i = names.index("status")
                arrow = arrow.set_column(i, arrow.schema.field(i), pa.array(status, pa.string()))
            wh.write_arrow(table, older, arrow, shard)


@pytest.mark.slow
def test_quality_report_materialises_its_plots_over_a_real_run(home: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    write_corpus(corpus)
    result = run(Home(home), [corpus], Progress())
    assert result.ok, result.failures
    as_older_version(home, "0.older")
    stale = home / "reports" / f"quality-{EXTRACTOR_VERSION}-scores.png"
    stale.write_bytes(PNG_MAGIC)  # as a run over more pages would have left it

    settings = AssaySettings(home=str(home))
    job = make_definitions(settings).resolve_job_def("assay_report")
    instance = dg.DagsterInstance.get()
    outcome = job.execute_in_process(instance=instance)
    assert outcome.success

    event = instance.get_latest_materialization_event(dg.AssetKey("quality_report"))
    assert event is not None and event.asset_materialization is not None
    meta = {k: v.value for k, v in event.asset_materialization.metadata.items()}

    for key, name in (("modes_chart", "modes"), ("rates_chart", "rates")):
        path = home / "reports" / f"quality-{EXTRACTOR_VERSION}-{name}.png"
        assert meta[f"{key}_file"] == str(path)
        png = path.read_bytes()
        assert png[:8] == PNG_MAGIC and len(png) > 15_000
        markdown = meta[key]
        assert markdown.startswith("![") and "](data:image/png;base64," in markdown
        assert base64.b64decode(markdown.split("base64,", 1)[1].rstrip(")")) == png
    assert not list((home / "reports").glob(".*.tmp"))
    # Six judged pages, fewer than MIN_HISTOGRAM_PAGES of them scored: the histogram is left out, and the
    # file an earlier run drew is gone.
    assert meta["score_histogram"].startswith("left out: ") and "fewer than" in meta["score_histogram"]
    assert "score_histogram_file" not in meta and not stale.exists()

    # 3 PDF pages of prose, 1 garbled, the text file and the DOCX: six judged pages, each one with a mode.
    assert meta["pages_judged"] == 6
    assert sum(meta[f"pages_{mode.value}"] for mode in Mode) == 6
    assert meta["pages_TEXT"] >= 5
    assert meta["pages_REPLACE"] + meta["pages_REPAIRED"] == 1
    assert 1 <= meta["pages_scored"] <= 6
    assert {t["value"] for t in meta["thresholds"]} == {LEXICON_MIN}
    by_kind = meta["modes_by_kind"]
    assert set(by_kind) == {"pdf", "text", "docx"}
    assert sum(by_kind["pdf"].values()) == 4

    rates = meta["rates_by_version"]
    assert set(meta["versions"]) == {EXTRACTOR_VERSION, "0.older"} and set(rates) == set(meta["versions"])
    assert rates[EXTRACTOR_VERSION]["text"]["underivable_rate"] == 0.0
    assert rates["0.older"]["text"]["underivable_rate"] == 1.0
    assert rates[EXTRACTOR_VERSION]["pdf"] == rates["0.older"]["pdf"]
    # The PDF ends with text, its garbled page repaired or read by OCR: its outcome says which.
    pdf = rates[EXTRACTOR_VERSION]["pdf"]
    assert pdf["with_text"] == 1 and pdf["repaired"] + pdf["ocr"] == 1
