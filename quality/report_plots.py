"""The quality report's pictures: what a person would rather look at than read.

- the corpus's page scores (the lexicon hit rate each verdict used) as a histogram, stacked by what the
  verdict did with the page, with the thresholds the pages were held against and the valley between the
  garbled and the clean mode;
- the modes by content kind, one bar per kind;
- the fallback rate and the Underivable rate by content kind across extractor versions, so that what a
  version change did shows at a glance.

The histogram and the modes chart are drawn from one :class:`JudgedPages`, so that their counts agree: a
legend counts every judged page of its mode or outcome (the histogram's bars are only the scored ones, and
its legend says how many of each those are). A plot with too little to draw is left out, not drawn empty:
the ``*_left_out`` functions say why (the histogram below :data:`MIN_HISTOGRAM_PAGES` scored pages, the
bar charts with nothing at all to draw).

Each function takes typed figures and returns a ``Figure`` or PNG bytes; :func:`write_png` puts them on
disk atomically. The conventions are quality/plots.py's: matplotlib's ``Figure`` and the Agg canvas (never
pyplot), a fixed size so reports lay out the same way every run, no software stamp so the same figures
give the same bytes.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from quality.plots import BINS, CLEAN_COLOUR, GARBLED_COLOUR, HEADROOM, new_figure
from quality.rates import KindRates
from quality.verdicts import Mode, Tier
from readers.core.atomic import written_whole

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# The histogram is quality/plots.py's 800 x 450 widened by a column for the legend beside the axes, where
# it can never cover a bar whatever the scores.
HISTOGRAM_INCHES = (10.0, 4.5)
# The bar charts: one row per kind. 600 pixels high hold MAX_KINDS rows with readable labels.
BARS_INCHES = (10.0, 6.0)
# At most this many kinds are drawn (the ones with the most pages or documents); the title then says how
# many there were. The sniffer tells 31 kinds apart, 23 of which have readers; the shared dev corpus holds 15.
MAX_KINDS = 24
# A segment narrower than this share of its bar is not labelled with its count: the digits would spill
# over its neighbours (about three digits at the small font in a 10-inch figure).
MIN_LABELLED_SHARE = 0.05
# The rate axes reach this multiple of the highest rate (or of 10% when all are lower): room for the labels.
RATE_HEADROOM = 1.3
LABEL_SIZE = 7
# A histogram of fewer scored pages than this is left out: over BINS bins they are lone bars with no shape
# and no valley to read (an 11-document sample of the dev corpus, a scan and garbled PDFs among them,
# scores 4 of its 13 judged pages; the whole dev corpus scores hundreds).
MIN_HISTOGRAM_PAGES = BINS // 2

MODE_COLOURS = {
    Mode.TEXT: CLEAN_COLOUR,
    Mode.FIGURES: "tab:cyan",
    Mode.REPLACE: GARBLED_COLOUR,
    Mode.REPAIRED: "tab:orange",
    Mode.LANG: "tab:purple",
    Mode.BLANK: "tab:gray",
}
# What the verdict did with a scored page, the histogram's stacks in drawing order.
KEPT_MODES = frozenset({Mode.TEXT, Mode.FIGURES, Mode.LANG})
CONDEMNED_MODES = frozenset({Mode.REPLACE, Mode.REPAIRED})
OUTCOMES = (
    ("text layer kept", KEPT_MODES, CLEAN_COLOUR),
    ("repaired", frozenset({Mode.REPAIRED}), MODE_COLOURS[Mode.REPAIRED]),
    ("sent to OCR", frozenset({Mode.REPLACE}), GARBLED_COLOUR),
)
VALLEY_COLOUR = "tab:green"
# How the legend names the pages no tier judged because they have no text layer (Tier.NO_TEXT).
NO_TEXT_LAYER = "no text layer"


@dataclass(frozen=True, slots=True)
class ScoredPage:
    """A judged page whose verdict used a score: the score, the threshold it was held against (the born-
    digital or the OCR-sandwich one), the mode decided and the page's provenance."""

    score: float
    threshold: float
    mode: Mode
    provenance: str


@dataclass(frozen=True, slots=True)
class Threshold:
    """One threshold the corpus's pages were held against, with the provenances and pages it judged."""

    value: float
    provenances: tuple[str, ...]
    pages: int


@dataclass(frozen=True, slots=True)
class Valley:
    """The emptiest stretch of the histogram between the garbled mode (the tallest bin of the pages the
    verdicts condemned: sent to OCR or repaired) and the clean mode (the tallest bin of the pages whose
    text layer was kept): the widest run of bins holding the fewest pages of either kind, the run nearest
    the threshold when two are as wide. A threshold inside it cuts where a small change of score moves
    the fewest pages."""

    low: float
    high: float
    pages: int
    garbled_mode: float  # the centre of the garbled mode's bin
    clean_mode: float

    @property
    def width(self) -> float:
        return self.high - self.low


@dataclass(frozen=True, slots=True)
class KindModes:
    """Judged pages of one content kind, counted by mode."""

    kind: str
    counts: Mapping[Mode, int]

    @property
    def pages(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True, slots=True)
class JudgedPages:
    """Every judged page of the corpus as the report draws it: counted by content kind and mode (the modes
    chart, and the histogram's legend), the scored ones (the histogram's bars), and the unscored ones by
    the tier that judged them instead (no text layer included)."""

    kinds: Sequence[KindModes]
    scored: Sequence[ScoredPage]
    unscored_by: Mapping[str, int]

    @property
    def modes(self) -> Counter[Mode]:
        """Judged pages by mode, over all kinds."""
        return Counter({m: sum(k.counts.get(m, 0) for k in self.kinds) for m in Mode})

    @property
    def pages(self) -> int:
        return sum(k.pages for k in self.kinds)


def judged_pages(
    verdicts: Iterable[tuple[str, str, str, float | None, float | None, str]], kinds: Mapping[str, str]
) -> JudgedPages:
    """:class:`JudgedPages` of page verdicts given as ``(sha256, mode, provenance, score, threshold,
    judged_by)``, each document's kind looked up in ``kinds`` (sha256 -> kind; ``unknown`` when absent)."""
    by_kind: dict[str, Counter[Mode]] = {}
    scored: list[ScoredPage] = []
    unscored_by: Counter[str] = Counter()
    for sha, mode, provenance, score, threshold, tier in verdicts:
        by_kind.setdefault(kinds.get(sha, "unknown"), Counter())[Mode(mode)] += 1
        if score is not None and threshold is not None:
            scored.append(ScoredPage(score, threshold, Mode(mode), provenance))
        else:
            unscored_by[NO_TEXT_LAYER if tier == Tier.NO_TEXT else tier] += 1
    return JudgedPages(
        kinds=[KindModes(kind, dict(counts)) for kind, counts in sorted(by_kind.items())],
        scored=scored,
        unscored_by=dict(unscored_by),
    )


@dataclass(frozen=True, slots=True)
class VersionRates:
    """The rates of one extractor version by kind (quality.rates.rates_by_kind over its outcomes)."""

    version: str
    rates: Mapping[str, KindRates]


def bin_edges() -> list[float]:
    """BINS equal bins over [0, 1], the range of the lexicon hit rate."""
    return [i / BINS for i in range(BINS + 1)]


def bin_counts(scores: Sequence[float]) -> list[int]:
    """Pages per bin of :func:`bin_edges`; a score of 1.0 (or above) falls in the last bin, below 0 in the
    first."""
    counts = [0] * BINS
    for s in scores:
        counts[min(BINS - 1, max(0, int(s * BINS)))] += 1
    return counts


def thresholds(pages: Sequence[ScoredPage]) -> list[Threshold]:
    """The distinct thresholds of ``pages``, the one most pages were held against first."""
    by_value: dict[float, tuple[set[str], int]] = {}
    for p in pages:
        provenances, n = by_value.get(p.threshold, (set(), 0))
        provenances.add(p.provenance)
        by_value[p.threshold] = (provenances, n + 1)
    found = [Threshold(v, tuple(sorted(prov)), n) for v, (prov, n) in by_value.items()]
    return sorted(found, key=lambda t: (-t.pages, t.value))


def valley(pages: Sequence[ScoredPage], threshold: float) -> Valley | None:
    """The valley of the histogram of ``pages`` (see :class:`Valley`); None when the verdicts condemned no
    page or kept none, or when the garbled mode's bin does not lie below the clean mode's with a bin
    between them. Ties between equally tall bins go to the bin nearest ``threshold``, and so do ties
    between equally wide runs: the valley stays the stretch the threshold has to cross."""
    garbled = bin_counts([p.score for p in pages if p.mode in CONDEMNED_MODES])
    clean = bin_counts([p.score for p in pages if p.mode in KEPT_MODES])
    if not any(garbled) or not any(clean):
        return None
    width = 1.0 / BINS

    def nearness(i: int) -> float:
        return -abs((i + 0.5) * width - threshold)

    low_mode = max(range(BINS), key=lambda i: (garbled[i], nearness(i)))
    high_mode = max(range(BINS), key=lambda i: (clean[i], nearness(i)))
    between = range(low_mode + 1, high_mode)
    if not between:
        return None
    counts = bin_counts([p.score for p in pages])
    fewest = min(counts[i] for i in between)
    runs: list[tuple[int, int]] = []
    for i in between:
        if counts[i] != fewest:
            continue
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    start, end = max(runs, key=lambda r: (r[1] - r[0], -abs((r[0] + r[1]) * width / 2 - threshold)))
    return Valley(
        low=start * width,
        high=end * width,
        pages=sum(counts[start:end]),
        garbled_mode=(low_mode + 0.5) * width,
        clean_mode=(high_mode + 0.5) * width,
    )


def histogram_left_out(judged: JudgedPages) -> str | None:
    """Why the score histogram is left out (too few scored pages: :data:`MIN_HISTOGRAM_PAGES`), or None."""
    n = len(judged.scored)
    if n >= MIN_HISTOGRAM_PAGES:
        return None
    return f"{n} of {_pages(judged.pages)} judged had a score, fewer than {MIN_HISTOGRAM_PAGES}"


def modes_left_out(kinds: Sequence[KindModes]) -> str | None:
    """Why the modes chart is left out (no judged page), or None."""
    return None if any(k.pages for k in kinds) else "no judged page yet"


def rates_left_out(versions: Sequence[VersionRates]) -> str | None:
    """Why the rates chart is left out (no document a reader was tried on, in any version), or None."""
    return None if any(r.attempted for v in versions for r in v.rates.values()) else "no document read yet"


def outcome_label(name: str, pages: int, scored: int) -> str:
    """A histogram legend entry: every judged page of the outcome, and how many of them the bars hold."""
    return f"{name}: {_pages(pages)}, {scored} scored"


def _tiers(counts: Mapping[str, int]) -> str:
    """Legend lines: the tiers that judged the pages the lexicon did not, two a line."""
    items = [f"{tier} {n}" for tier, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n]
    if not items:
        return ""
    return ":\n" + ",\n".join(", ".join(items[i : i + 2]) for i in range(0, len(items), 2))


def score_histogram_png(judged: JudgedPages, *, title: str) -> bytes:
    return _png(score_histogram_figure(judged, title=title))


def score_histogram_figure(judged: JudgedPages, *, title: str) -> Figure:
    """The histogram of the scored pages, stacked by what the verdict did with each page, the thresholds
    as vertical lines (dashed: the one most pages were held against) and the valley shaded. The legend
    counts every judged page of each outcome, as the modes chart does, with the scored ones among them,
    and the unscored pages by the tier that judged them instead (no text layer, trigram, font ...).
    Raises ValueError when :func:`histogram_left_out` leaves it out."""
    from matplotlib.ticker import MaxNLocator

    why = histogram_left_out(judged)
    if why is not None:
        raise ValueError(f"the score histogram is left out: {why}")
    pages, modes = judged.scored, judged.modes
    fig, ax = _figure(HISTOGRAM_INCHES)
    edges = bin_edges()
    stacks = [[p.score for p in pages if p.mode in kept] for _, kept, _ in OUTCOMES]
    labels = [
        outcome_label(name, sum(modes[m] for m in kept), len(stack))
        for (name, kept, _), stack in zip(OUTCOMES, stacks, strict=True)
    ]
    colours = [colour for _, _, colour in OUTCOMES]
    ax.hist(stacks, bins=edges, stacked=True, color=colours, label=labels, alpha=0.8)
    found = thresholds(pages)
    for i, t in enumerate(found):
        ax.axvline(
            t.value,
            color="black",
            linestyle="--" if i == 0 else ":",
            linewidth=1.5,
            label=f"threshold {t.value:.3f}\n({', '.join(t.provenances)}: {t.pages})",
        )
    v = valley(pages, found[0].value)
    if v is not None:
        ax.axvspan(
            v.low,
            v.high,
            color=VALLEY_COLOUR,
            alpha=0.2,
            label=f"valley {v.low:.3f}-{v.high:.3f}\n({_pages(v.pages)})",
        )
    else:
        ax.plot([], [], " ", label="no valley between\ntwo modes")
    drawn = {m for _, kept, _ in OUTCOMES for m in kept}
    other = [m for m in Mode if m not in drawn and modes[m]]
    if other:
        name = f"other modes ({', '.join(f'{m.value} {modes[m]}' for m in other)})"
        scored = sum(1 for p in pages if p.mode in other)
        ax.plot([], [], " ", label=outcome_label(name, sum(modes[m] for m in other), scored))
    unscored = judged.pages - len(pages)
    if unscored:
        ax.plot([], [], " ", label=f"{_pages(unscored)} unscored" + _tiers(judged.unscored_by))
    tallest = max(bin_counts([p.score for p in pages]))
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(0, HEADROOM * max(1, tallest))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("score (length-weighted lexicon hit rate)")
    ax.set_ylabel("pages")
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", framealpha=0.9)
    return fig


def modes_by_kind_png(kinds: Sequence[KindModes], *, title: str = "Page modes by content kind") -> bytes:
    return _png(modes_by_kind_figure(kinds, title=title))


def modes_by_kind_figure(kinds: Sequence[KindModes], *, title: str = "Page modes by content kind") -> Figure:
    """One horizontal bar per kind (the most pages on top), its segments the modes as shares of the kind's
    pages, each wide enough segment labelled with its count; the total is in the kind's label, and the
    legend counts each mode's pages over every kind (drawn or not: :data:`MAX_KINDS`). Raises ValueError
    when :func:`modes_left_out` leaves it out."""
    from matplotlib.ticker import PercentFormatter

    why = modes_left_out(kinds)
    if why is not None:
        raise ValueError(f"the modes chart is left out: {why}")
    fig, ax = _figure(BARS_INCHES)
    totals = JudgedPages(kinds, (), {}).modes
    title, shown = _capped(title, sorted((k for k in kinds if k.pages), key=lambda k: (-k.pages, k.kind)))
    rows = list(range(len(shown)))
    left = [0.0] * len(shown)
    for mode in Mode:
        counts = [k.counts.get(mode, 0) for k in shown]
        shares = [c / k.pages for c, k in zip(counts, shown, strict=True)]
        bars = ax.barh(
            rows, shares, left=left, color=MODE_COLOURS[mode], label=f"{mode.value} ({totals[mode]})"
        )
        ax.bar_label(
            bars,
            labels=[str(c) if s >= MIN_LABELLED_SHARE else "" for c, s in zip(counts, shares, strict=True)],
            label_type="center",
            fontsize=LABEL_SIZE,
            color="white",
        )
        left = [a + b for a, b in zip(left, shares, strict=True)]
    ax.set_yticks(rows, [f"{k.kind} ({k.pages})" for k in shown])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("share of the kind's judged pages (segments labelled with page counts)")
    ax.set_title(title)
    fig.legend(loc="outside lower center", ncols=len(Mode), fontsize="small", title="mode (pages)")
    return fig


def rates_by_version_png(
    versions: Sequence[VersionRates], *, title: str = "Fallback and Underivable rates by extractor version"
) -> bytes:
    """Two panels side by side, the fallback rate (over documents with text) and the Underivable rate (over
    documents a reader was tried on), one row per kind and one bar per version in each row (oldest
    first), each bar labelled with its rate and counts. Kinds no reader was tried on in any version
    (unsupported, skipped) are left out; a version with no such document of a kind draws no bar. Raises
    ValueError when :func:`rates_left_out` leaves it out."""
    from matplotlib.ticker import PercentFormatter

    why = rates_left_out(versions)
    if why is not None:
        raise ValueError(f"the rates chart is left out: {why}")
    fig = new_figure(BARS_INCHES)
    attempted: dict[str, int] = {}
    for v in versions:
        for kind, r in v.rates.items():
            attempted[kind] = attempted.get(kind, 0) + r.attempted
    kinds = sorted((k for k, n in attempted.items() if n), key=lambda k: (-attempted[k], k))
    if len(kinds) > MAX_KINDS:
        title = f"{title} (the {MAX_KINDS} kinds with most documents of {len(kinds)})"
        kinds = kinds[:MAX_KINDS]
    fallback_ax, underivable_ax = fig.subplots(1, 2, sharey=True)
    panels = (
        (fallback_ax, "Fallback rate (of documents with text)", lambda r: (r.fallback, r.with_text)),
        (
            underivable_ax,
            "Underivable rate after OCR (of documents read)",
            lambda r: (r.underivable, r.attempted),
        ),
    )
    height = 0.8 / max(1, len(versions))
    colours = _version_colours(len(versions))
    for ax, name, fraction in panels:
        highest = 0.0
        for j, v in enumerate(versions):
            rows, rates, labels = [], [], []
            for i, kind in enumerate(kinds):
                r = v.rates.get(kind)
                part, whole = fraction(r) if r is not None else (0, 0)
                if not whole:
                    continue
                rows.append(i - 0.4 + height * (j + 0.5))
                rates.append(part / whole)
                labels.append(f"{part / whole:.1%} ({part}/{whole})")
            highest = max([highest, *rates])
            bars = ax.barh(rows, rates, height=height, color=colours[j], label=v.version)
            ax.bar_label(bars, labels=labels, padding=2, fontsize=LABEL_SIZE)
        ax.set_xlim(0, RATE_HEADROOM * max(highest, 0.1))
        # No tick past 100%: the room beyond it is for the labels.
        ax.set_xticks([t for t in ax.get_xticks() if 0 <= t <= 1.0 + 1e-9])
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
        ax.set_title(name, fontsize="medium")
        ax.grid(axis="x", alpha=0.3)
    fallback_ax.set_yticks(range(len(kinds)), kinds)
    fallback_ax.invert_yaxis()
    fig.suptitle(title)
    fig.legend(
        *fallback_ax.get_legend_handles_labels(),
        loc="outside lower center",
        ncols=max(1, len(versions)),
        fontsize="small",
        title="extractor version",
        title_fontsize="small",
    )
    return _png(fig)


def write_png(data: bytes, path: Path) -> Path:
    """Write ``data`` to ``path`` (parents created) through a temporary file renamed over it, so a reader
    never sees half a picture; returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with written_whole(path, fsync=True) as tmp:
        tmp.write_bytes(data)
    return path


def _pages(n: int) -> str:
    return f"{n} page" if n == 1 else f"{n} pages"


def _figure(inches: tuple[float, float]):
    fig = new_figure(inches)
    return fig, fig.add_subplot()


def _capped(title: str, shown: list[KindModes]) -> tuple[str, list[KindModes]]:
    if len(shown) <= MAX_KINDS:
        return title, shown
    return f"{title} (the {MAX_KINDS} kinds with most pages of {len(shown)})", shown[:MAX_KINDS]


def _version_colours(n: int) -> list[str]:
    """Fixed colours by age, the newest always blue (the colour of the current version's bars)."""
    palette = ["tab:gray", "tab:olive", "tab:purple", "tab:orange", "tab:blue"]
    return palette[-n:] if n <= len(palette) else [palette[i % len(palette)] for i in range(n)]


def _png(fig: Figure) -> bytes:
    out = io.BytesIO()
    fig.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()
