"""The OCR stage with its second engine against the stage with Tesseract alone, per core, on every page the
dev corpus sends to OCR.

    .venv/bin/python benchmarks/bench_ocr_engines.py [--home HOME] [--rounds 2] [--corpus DIR]

The stage's inputs are built as the stage builds them (``assets/ocr/asset.py``'s ``_shard_input``) from a
home that ``assay run`` filled over ``DIR/dev`` (made once, untimed, when ``--home`` is not given or
holds nothing), with no earlier OCR rows, so that every page sent to OCR is read again: REPLACE pages
whole, image documents' frames and the figure regions of FIGURES pages. Each round times
``assets.ocr.work.ocr_shards`` twice in this process, once with ``OcrOptions(second_engine=False)``
(Tesseract alone) and once with it on (RapidOCR reads again the pages ``asked_because`` names), the order
reversed every other round. The resident memory of every OCR worker process is polled meanwhile.

Prints, for each way, the wall seconds, the seconds of OCR work per page sent to OCR per core (wall
seconds x usable cores / pages) and the sum of the rows' own seconds per page; their ratio; and the share
of pages RapidOCR read, by why it was asked. The machine is shared and noisy, so only ratios measured in
one run mean anything.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
CORPUS = REPO.parent / "shared" / "corpus"

from readers.core.offline import keep_offline  # noqa: E402

keep_offline()  # before PyMuPDF is imported: no layout model, no telemetry (readers/core/offline.py)
import psutil  # noqa: E402

from assets.ocr.page_reading import OcrOptions  # noqa: E402
from assets.ocr.work import ShardInput, ocr_shards  # noqa: E402
from assets.settings import Settings  # noqa: E402
from quality.records import OcrEngine, OcrPageRecord  # noqa: E402
from readers.core.cores import usable_cores  # noqa: E402
from readers.core.versions import EXTRACTOR_VERSION  # noqa: E402

# The OCR workers' modules (readers/images/*_worker.py), as their command lines name them.
WORKER_MODULES = {
    OcrEngine.TESSERACT: "readers.images.tesseract_worker",
    OcrEngine.RAPIDOCR: "readers.images.rapidocr_worker",
}
# The workers' resident memory is polled this often.
POLL_S = 0.05
# `assay run` filling the home is stopped after this long: the measurement must end.
HOME_TIMEOUT_S = 3600.0
MiB = 1 << 20


@dataclass(frozen=True, slots=True)
class EnginePass:
    """One timed ``ocr_shards`` over every page sent to OCR."""

    second_engine: bool
    seconds: float  # wall time
    # Tesseract's first reading of each page sent to OCR, as the stage reports them one by one (its progress)
    firsts: list[OcrPageRecord]
    read: list[OcrPageRecord]  # the rows the stage returned as read in the pass (a row per engine reading)
    peak_worker_mb: dict[str, float]  # engine: the largest resident memory of one of its workers
    peak_workers_mb: dict[str, float]  # engine: the largest sum over its workers at one time

    def pages(self) -> int:
        """Pages sent to OCR: each (document, page, scope) Tesseract read first."""
        return len({(r.sha256, r.page, r.scope) for r in self.firsts})

    def rapid(self) -> list[OcrPageRecord]:
        return [r for r in self.read if r.engine == OcrEngine.RAPIDOCR]

    def row_seconds(self) -> float:
        """The rows' own seconds (rendering and recognition of each page) summed: Tesseract's first
        readings, and RapidOCR's (a reading again in another language is left out of both ways alike)."""
        return sum(r.seconds for r in self.firsts) + sum(r.seconds for r in self.rapid())


@dataclass(slots=True)
class EngineCosts:
    """Both ways over the rounds, with the machine's load before and after."""

    cores: int
    passes: list[EnginePass] = field(default_factory=list)
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def of(self, second_engine: bool) -> list[EnginePass]:
        return [p for p in self.passes if p.second_engine == second_engine]

    def per_page_core(self, second_engine: bool) -> float:
        """Seconds of the stage per page sent to OCR per core: wall seconds x cores / pages, summed over
        the rounds."""
        passes = self.of(second_engine)
        return sum(p.seconds for p in passes) * self.cores / sum(p.pages() for p in passes)

    def row_seconds_per_page(self, second_engine: bool) -> float:
        passes = self.of(second_engine)
        return sum(p.row_seconds() for p in passes) / sum(p.pages() for p in passes)

    def ratio(self) -> float:
        return self.per_page_core(True) / self.per_page_core(False)

    def row_ratio(self) -> float:
        return self.row_seconds_per_page(True) / self.row_seconds_per_page(False)


def fill_home(home: Path, dev: Path) -> None:
    """``assay run --home HOME DEV`` with the second engine off (its OCR rows are not used: every page is
    read again), untimed. A run that exits 1 for a blocking check over the corpus (its underivable rate)
    has still written the verdicts the OCR stage reads; a home without them is an error."""
    from benchmarks import bench_rerun

    env = {**bench_rerun.user_environment(), "ASSAY_OCR_SECOND_ENGINE": "false"}
    command = [str(bench_rerun.ASSAY), "run", "--home", str(home), str(dev)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=HOME_TIMEOUT_S)
    if done.returncode not in (0, 1) or not stage_inputs(home):
        tail = (done.stderr.strip() or done.stdout.strip())[-500:]
        raise RuntimeError(f"assay run into {home} exited {done.returncode}, no pages sent to OCR: {tail}")


def stage_inputs(home: Path) -> list[ShardInput]:
    """Every shard of ``home`` with pages sent to OCR, as the OCR stage reads it, without its earlier OCR
    rows (so that every page is read again)."""
    from assets.ocr.asset import _shard_input
    from assets.ocr.scope import RENDERABLE, SENT_TO_OCR
    from orchestration.home import Home
    from readers.core.model import ContentKind

    wh = Home(home).warehouse
    version = EXTRACTOR_VERSION
    renderable = {
        sha
        for sha, kind in wh.columns("documents", version, ("sha256", "kind"))
        if ContentKind(kind) in RENDERABLE
    }
    shards = sorted(
        {
            shard
            for shard, sha, mode in wh.columns("page_verdicts", version, ("shard", "sha256", "mode"))
            if mode in SENT_TO_OCR and sha in renderable
        }
    )
    return [replace(_shard_input(wh, shard), existing=[]) for shard in shards]


@contextlib.contextmanager
def worker_memory() -> Iterator[tuple[dict[str, float], dict[str, float]]]:
    """The largest resident memory of one OCR worker of each engine, and of all its workers at once, in
    MiB, polled over the block's child processes."""
    single: dict[str, float] = {}
    total: dict[str, float] = {}
    done = threading.Event()
    me = psutil.Process()

    def poll() -> None:
        while not done.is_set():
            now: Counter[str] = Counter()
            with contextlib.suppress(psutil.Error):
                for child in me.children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        line = " ".join(child.cmdline())
                        engine = next((e.value for e, m in WORKER_MODULES.items() if m in line), None)
                        if engine is not None:
                            mb = child.memory_info().rss / MiB
                            now[engine] += mb
                            single[engine] = max(single.get(engine, 0.0), mb)
            for engine, mb in now.items():
                total[engine] = max(total.get(engine, 0.0), mb)
            done.wait(POLL_S)

    poller = threading.Thread(target=poll, name="worker-memory", daemon=True)
    poller.start()
    try:
        yield single, total
    finally:
        done.set()
        poller.join()


def one_pass(inputs: Sequence[ShardInput], second_engine: bool, settings: Settings) -> EnginePass:
    from readers.images.tesseract import installed_languages

    options = replace(OcrOptions.of(settings), second_engine=second_engine)
    installed = installed_languages()
    firsts: list[OcrPageRecord] = []
    with worker_memory() as (single, total):
        started = time.perf_counter()
        results = ocr_shards(
            inputs,
            EXTRACTOR_VERSION,
            default_language=settings.ocr_language,
            installed=installed,
            options=options,
            on_page=firsts.append,
        )
        seconds = time.perf_counter() - started
    read = [r for result in results for r in result.read]
    return EnginePass(second_engine, seconds, firsts, read, dict(single), dict(total))


def measure(home: Path, rounds: int, max_shards: int = 0) -> EngineCosts:
    """Both ways ``rounds`` times over the home's pages sent to OCR (the first ``max_shards`` shards with
    such pages; 0: all), the order reversed every other round."""
    import os

    inputs = stage_inputs(home)
    inputs = inputs[:max_shards] if max_shards else inputs
    settings = Settings()
    costs = EngineCosts(cores=settings.ocr_workers or usable_cores(), load_before=os.getloadavg())
    for i in range(rounds):
        for second in (False, True) if i % 2 == 0 else (True, False):
            print(f"  round {i + 1} of {rounds}, second engine {'on' if second else 'off'}", flush=True)
            costs.passes.append(one_pass(inputs, second, settings))
    costs.load_after = os.getloadavg()
    return costs


@dataclass(frozen=True, slots=True)
class Asked:
    """RapidOCR's readings of one reason, over the rounds."""

    reason: str
    pages: int  # per round
    seconds: float  # the rows' own seconds, per round
    kept: int  # per round: readings the choice kept over Tesseract's


def asked_reasons(costs: EngineCosts) -> list[Asked]:
    """RapidOCR's readings in the passes with the second engine, by why it was asked, most costly first."""
    passes = costs.of(True)
    rows = [r for p in passes for r in p.rapid()]
    n = len(passes)
    reasons = sorted({r.asked or "" for r in rows})
    out = [
        Asked(
            why,
            round(sum(1 for r in rows if (r.asked or "") == why) / n),
            sum(r.seconds for r in rows if (r.asked or "") == why) / n,
            round(sum(1 for r in rows if (r.asked or "") == why and r.kept) / n),
        )
        for why in reasons
    ]
    return sorted(out, key=lambda a: -a.seconds)


def slowest_rapid(costs: EngineCosts, names: dict[str, str], count: int = 5) -> list[tuple[str, float]]:
    """RapidOCR's slowest readings (mean over the rounds): "document p.N scope (asked)" and seconds."""
    spent: dict[str, list[float]] = {}
    for p in costs.of(True):
        for r in p.rapid():
            label = f"{names.get(r.sha256, r.sha256[:12])} p.{r.page} {r.scope} ({r.asked})"
            spent.setdefault(label, []).append(r.seconds)
    means = {label: sum(s) / len(s) for label, s in spent.items()}
    return sorted(means.items(), key=lambda kv: -kv[1])[:count]


def document_names(home: Path) -> dict[str, str]:
    from orchestration.home import Home

    wh = Home(home).warehouse
    return {
        sha: Path(path).name for sha, path in wh.columns("documents", EXTRACTOR_VERSION, ("sha256", "path"))
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="a home `assay run` filled over the dev corpus (reused)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder holding dev/")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="assay-bench-ocr-engines-") as tmp:
        home = args.home or Path(tmp) / "home"
        if not (home / "warehouse").is_dir():
            print(f"filling {home} from {args.corpus / 'dev'} (untimed)", flush=True)
            fill_home(home, args.corpus / "dev")
        costs = measure(home, args.rounds)
        names = document_names(home)
    print(f"  {costs.cores} cores, load {costs.load_before} before, {costs.load_after} after")
    for second in (False, True):
        passes = costs.of(second)
        label = "Tesseract, then RapidOCR where asked" if second else "Tesseract alone"
        print(
            f"  {label:38} {passes[0].pages()} pages, wall {' '.join(f'{p.seconds:.1f}' for p in passes)} s, "
            f"{costs.per_page_core(second):.2f} s a page per core, "
            f"rows {costs.row_seconds_per_page(second):.2f} s a page"
        )
    print(f"  ratio (wall x cores / pages): {costs.ratio():.3f}; rows' seconds: {costs.row_ratio():.3f}")
    pages = costs.of(True)[0].pages()
    for a in asked_reasons(costs):
        print(
            f"  RapidOCR asked {a.reason:10} {a.pages:3} of {pages} pages, {a.seconds:.1f} s, {a.kept} kept"
        )
    for label, seconds in slowest_rapid(costs, names):
        print(f"  slow: {seconds:5.1f} s  {label}")
    for second in (False, True):
        print(f"  rows returned as read, second engine {second}: {[len(p.read) for p in costs.of(second)]}")
    on = costs.of(True)
    print(f"  worker peak MiB (one / all): {on[0].peak_worker_mb} / {on[0].peak_workers_mb}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
