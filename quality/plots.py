"""The calibration's picture: clean and garbled score histograms with the threshold between them.

Drawn with matplotlib's object-oriented ``Figure`` and the Agg canvas, never pyplot: no global backend
state, no display needed, safe inside a Dagster worker. The image size is fixed (no tight bounding
box), so reports lay out the same way every run, and the PNG carries no software version stamp, so the
same scores give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from quality.separation import separation

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# 800 x 450 pixels: wide enough for 40 bins to be told apart, small enough for a report page.
FIGURE_INCHES = (8.0, 4.5)
FIGURE_DPI = 100
# Bins over [0, 1] (scores are in [0, 1]): 0.025 wide, finer than any threshold the calibration moves.
BINS = 40
# The y axis reaches this multiple of the tallest bar: room for the legend above the bars.
HEADROOM = 1.35
CLEAN_COLOUR = "tab:blue"
GARBLED_COLOUR = "tab:red"


def new_figure(inches: tuple[float, float]) -> Figure:
    """A figure on its own Agg canvas. matplotlib is imported here, on the first drawing, not with the
    module: it takes about half a second, and every process that loads the Definitions imports this one."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=inches, dpi=FIGURE_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _edges(values: Sequence[float]) -> list[float]:
    low, high = min(0.0, *values), max(1.0, *values)
    return [low + (high - low) * i / BINS for i in range(BINS + 1)]


def score_histogram(
    clean: Sequence[float], garbled: Sequence[float], *, threshold: float, path: Path, title: str
) -> Path:
    """Write a PNG of the two score histograms to ``path`` (parents created) and return ``path``.

    The threshold is a dashed vertical line; the margin (lowest clean minus highest garbled) is shaded
    when positive, and the legend states it with the widest gap and the inversions (quality.separation).
    """
    summary = separation(clean, garbled)
    from matplotlib.ticker import MaxNLocator

    fig = new_figure(FIGURE_INCHES)
    ax = fig.add_subplot()
    edges = _edges([*clean, *garbled, threshold])
    g_counts, _, _ = ax.hist(
        list(garbled), bins=edges, alpha=0.6, color=GARBLED_COLOUR, label=f"garbled (n={len(garbled)})"
    )
    c_counts, _, _ = ax.hist(
        list(clean), bins=edges, alpha=0.6, color=CLEAN_COLOUR, label=f"clean (n={len(clean)})"
    )
    ax.axvline(threshold, color="black", linestyle="--", linewidth=1.5, label=f"threshold {threshold:.3f}")
    if summary.margin > 0:
        ax.axvspan(
            max(garbled), min(clean), color="tab:green", alpha=0.15, label=f"margin {summary.margin:.3f}"
        )
    else:
        ax.plot([], [], " ", label=f"margin {summary.margin:.3f} ({summary.inversions} inversions)")
    ax.plot([], [], " ", label=f"widest gap {summary.widest_gap:.3f}")
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(0, HEADROOM * max(1.0, float(max(g_counts.max(), c_counts.max()))))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("score")
    ax.set_ylabel("pages")
    ax.set_title(title)
    ax.legend(loc="upper center", ncols=3, framealpha=0.9, fontsize="small")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", metadata={"Software": None})
    return path
