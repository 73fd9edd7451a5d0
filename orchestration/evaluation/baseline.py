"""The committed figures of ``assay eval`` and the gate that holds every later run to them.

The baseline (``benchmarks/eval/baseline.json``) holds each figure's value and count, and each measure's
noise: the largest difference between two runs of the same code, measured when the baseline was written
(``assay eval --write-baseline --noise-from EARLIER.json``). The gate fails a figure that is worse than its
baseline by more than its measure's allowance: the measured noise, and for the figures that depend on the
machine (time and memory) at least :data:`MACHINE_FLOOR` of the baseline, since CI runs on another
machine of the same kind. A figure whose count changed (a fact added, a truth file changed) also fails
until the baseline is written again: the gate compares like with like, and a change that moves a figure
updates the baseline in the same commit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from orchestration.evaluation.figures import HIGHER, LOWER, MEASURES, TABLES, Figure, better_of, by_group
from readers.core.errors import AssayError

SCHEMA = "assay-eval-baseline/1"
#: Figures are stored and compared at this many decimals: finer differences are float noise.
DECIMALS = 4
#: The least allowance, relative to the baseline, of a figure that depends on the machine that runs it.
#: Two runs on one machine differ by less (the baseline's noise); two machines of the same kind were seen
#: to differ by up to a third in seconds per page, so a slowdown is gated at half again, not at the noise.
MACHINE_FLOOR = {"seconds_per_page": 0.5, "peak_memory_mb": 0.25}


@dataclass(frozen=True)
class Baseline:
    figures: dict[str, tuple[float, int]]
    noise: dict[str, float]
    measured_at: str

    def allowance(self, measure: str, value: float) -> float:
        floor = MACHINE_FLOOR.get(measure, 0.0) * abs(value)
        return max(self.noise.get(measure, 0.0), floor)


@dataclass(frozen=True)
class Comparison:
    """One figure against its baseline: ``status`` is same, better, worse, recounted, new or missing."""

    key: str
    baseline: float | None
    current: float | None
    allowance: float
    status: str

    @property
    def fails(self) -> bool:
        return self.status in ("worse", "recounted", "missing")


def load(path: Path) -> Baseline:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise AssayError(f"no baseline at {path}: write one with `assay eval --write-baseline`") from exc
    except json.JSONDecodeError as exc:
        raise AssayError(
            f"{path} is not JSON ({exc.msg}): write it again with `assay eval --write-baseline`"
        ) from exc
    if data.get("schema") != SCHEMA:
        raise AssayError(f"{path} is not an assay eval baseline (schema {SCHEMA!r})")
    figures = {k: (float(v["value"]), int(v["count"])) for k, v in data["figures"].items()}
    return Baseline(
        figures, {k: float(v) for k, v in data.get("noise", {}).items()}, data.get("measured_at", "")
    )


def as_json(figures: list[Figure], noise: dict[str, float]) -> dict[str, object]:
    return {
        "schema": SCHEMA,
        "measured_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "noise": {m: round(noise.get(m, 0.0), DECIMALS) for m in MEASURES if MEASURES[m].better != "shown"},
        "figures": {
            f.key: {"value": round(f.value, DECIMALS), "count": f.count}
            for f in sorted(figures, key=lambda f: f.key)
        },
    }


def write(path: Path, figures: list[Figure], noise: dict[str, float]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(as_json(figures, noise), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def noise_between(figures: list[Figure], earlier: list[dict[str, object]]) -> dict[str, float]:
    """Per measure, the largest difference of a figure between this run and each earlier run's figures
    (``assay eval --json``'s ``figures``)."""
    noise: dict[str, float] = {}
    now = {f.key: f.value for f in figures}
    for run in earlier:
        for key, value in run.items():
            if key in now:
                measure = key.split("/", 1)[0]
                noise[measure] = max(noise.get(measure, 0.0), abs(now[key] - float(value)))  # type: ignore[arg-type]
    return noise


def compare(baseline: Baseline, figures: list[Figure]) -> list[Comparison]:
    """Every figure against the baseline, and the figures the baseline does not hold yet (``new``)."""
    comparisons: list[Comparison] = []
    now = {f.key: f for f in figures}
    for key, (value, count) in sorted(baseline.figures.items()):
        measure = key.split("/", 1)[0]
        better = better_of(key)
        figure = now.get(key)
        allowance = baseline.allowance(measure, value)
        if figure is None:
            comparisons.append(Comparison(key, value, None, allowance, "missing"))
            continue
        current = round(figure.value, DECIMALS)
        if better not in (HIGHER, LOWER):
            status = "same"
        elif figure.count != count:
            status = "recounted"
        else:
            change = current - value if better == HIGHER else value - current
            status = "worse" if change < -allowance - 1e-9 else "better" if change > 1e-9 else "same"
        comparisons.append(Comparison(key, value, current, allowance, status))
    for key, figure in sorted(now.items()):
        if key not in baseline.figures:
            comparisons.append(Comparison(key, None, round(figure.value, DECIMALS), 0.0, "new"))
    return comparisons


#: The part of docs/quality.md that ``--write-baseline`` writes: the baseline's figures as tables.
FIGURES_START, FIGURES_END = "<!-- figures: written by assay eval --write-baseline -->", "<!-- /figures -->"


def markdown(figures: list[Figure], noise: dict[str, float]) -> str:
    """The baseline's figures as the Markdown tables of docs/quality.md (value, then the count it is over)."""
    parts: list[str] = []
    for title, measures in TABLES:
        rows = by_group(figures, measures)
        if not rows:
            continue
        parts.append(f"**{title}** (value, and in brackets what it counts)\n")
        parts.append("| kind | " + " | ".join(m.replace("_", " ") for m in measures) + " |")
        parts.append("|---|" + "---:|" * len(measures))
        for group, row in rows:
            parts.append(
                f"| {group} | "
                + " | ".join(f"{_number(round(f.value, DECIMALS))} ({f.count})" if f else "" for f in row)
                + " |"
            )
        parts.append("")
    gated = [m for m in MEASURES if MEASURES[m].better in (HIGHER, LOWER)]
    parts.append("**Noise** (the largest difference between two runs of the same code, per measure)\n")
    parts.append("| measure | noise | floor on another machine |")
    parts.append("|---|---:|---:|")
    for m in gated:
        floor = f"{MACHINE_FLOOR[m]:.0%} of the baseline" if m in MACHINE_FLOOR else ""
        parts.append(f"| {m} | {_number(noise.get(m, 0.0))} | {floor} |")
    return "\n".join(parts)


def _number(value: float) -> str:
    return f"{value:.4g}" if abs(value) < 10 else f"{value:.0f}"


def write_page(page: Path, figures: list[Figure], noise: dict[str, float]) -> None:
    """Writes the figures between the markers of ``page`` (the rest of the page is prose, kept)."""
    text = page.read_text(encoding="utf-8") if page.is_file() else f"{FIGURES_START}\n{FIGURES_END}\n"
    start, end = text.find(FIGURES_START), text.find(FIGURES_END)
    if start < 0 or end < start:
        text = f"{text.rstrip()}\n\n{FIGURES_START}\n{FIGURES_END}\n"
        start, end = text.find(FIGURES_START), text.find(FIGURES_END)
    body = f"{FIGURES_START}\n\n{markdown(figures, noise)}\n{FIGURES_END}"
    page.write_text(text[:start] + body + text[end + len(FIGURES_END) :], encoding="utf-8")
