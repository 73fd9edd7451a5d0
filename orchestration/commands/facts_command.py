"""``assay facts``: the facts suites checked on a home's clean texts, and their pass rates.

``assay facts`` checks the corpus suite; ``--generated`` the generated suite instead, and both with
``--corpus DIR --generated``. The corpus suite is ``benchmarks/facts/corpus.jsonl`` (facts about the
dev corpus, each naming its document by sha256); the generated suite is written by
``benchmarks/facts/generated.py`` into the home
(``facts-generated/``). Documents the home has no text for are run first with ``assay run``'s own path
(its progress and summary), unless ``--no-run``: then the home is evaluated as it is, a document without
text failing its facts. The command measures; it exits 0 whatever the rates.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from orchestration.commands.run_command import run_command
from orchestration.exits import Exit
from orchestration.printing import shown
from quality.fact_checks import KINDS, Fact, FactSuiteResult, evaluate, load_facts
from readers.core.errors import AssayError
from warehouse.warehouse_errors import WarehouseError

REPO = Path(__file__).resolve().parents[2]
FACTS_DIR = REPO / "benchmarks" / "facts"
#: Failing facts shown without --verbose.
SHOWN_FAILURES = 10


def _generator() -> Callable[[Path], list[Fact]]:
    """``write_generated`` of benchmarks/facts/generated.py, loaded from its file: the benchmarks are
    data beside the code, not a package assay installs."""
    path = FACTS_DIR / "generated.py"
    spec = importlib.util.spec_from_file_location("assay_facts_generated", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise AssayError(f"{path} is missing: the generated facts are written by it")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.write_generated


def _default_corpus() -> Path | None:
    # the corpus beside the project's folder, from the folder or from the project's root
    for candidate in (Path("../shared/corpus/dev"), REPO.parent / "shared" / "corpus" / "dev"):
        if candidate.is_dir():
            return candidate
    return None


def _texts(home_warehouse: object, wanted: set[str]) -> dict[str, str]:
    """The clean text of each wanted document the catalog holds (its latest extractor version)."""
    from warehouse.duckdb_catalog import query

    if not wanted:
        return {}
    try:
        result = query(
            home_warehouse,  # type: ignore[arg-type]
            "select sha256, arg_max(text, extractor_version) from texts "
            "where sha256 in (select unnest(?::varchar[])) group by sha256",
            [sorted(wanted)],
        )
    except WarehouseError:  # no catalog yet: nothing was read
        return {}
    return {sha: text for sha, text in result.rows if text is not None}


def run_facts(
    args: argparse.Namespace, console: Console, *, run_command: Callable[[argparse.Namespace, Console], int]
) -> int:
    from orchestration.home import Home

    home = Home.resolve(args.home)
    suites: dict[str, list[Fact]] = {}
    roots: list[Path] = []
    # --generated alone checks the generated suite only; --corpus names the corpus to check beside it.
    corpus = args.corpus or (None if args.generated else _default_corpus())
    if corpus is not None:
        if not corpus.is_dir():
            raise AssayError(f"{corpus} is not a folder: pass the corpus the fact files name with --corpus")
        suites["corpus"] = load_facts(args.facts or FACTS_DIR / "corpus.jsonl")
        roots.append(corpus.absolute())
    if args.generated:
        folder = home.path / "facts-generated"
        suites["generated"] = _generator()(folder)
        roots.append(folder.absolute())
    if not suites:
        raise AssayError("no suite to check: no corpus found (pass --corpus DIR) and no --generated")
    wanted = {f.sha256 for facts in suites.values() for f in facts}
    texts = _texts(home.warehouse, wanted) if home.path.is_dir() else {}
    if wanted - set(texts) and not args.no_run:
        run_args = argparse.Namespace(
            home=args.home,
            paths=roots,
            shards_per_run=None,
            verbose=getattr(args, "verbose", False),
            force=False,
            json=False,
            quiet=False,
        )
        run_command(run_args, Console(stderr=True) if args.json else console)
        texts = _texts(home.warehouse, wanted)
    results = [evaluate(name, facts, texts) for name, facts in suites.items()]
    if args.json:
        print(json.dumps([_as_dict(r) for r in results], indent=2, ensure_ascii=False))
    else:
        _print(console, results, verbose=getattr(args, "verbose", False))
    return Exit.OK


def facts_command(args: argparse.Namespace, console: Console) -> int:
    return run_facts(args, console, run_command=run_command)


def _as_dict(result: FactSuiteResult) -> dict[str, object]:
    return {
        "suite": result.suite,
        "overall": {"passed": result.overall.passed, "total": result.overall.total},
        "kinds": {k: {"passed": r.passed, "total": r.total} for k, r in result.by_kind().items()},
        "failures": [
            {"document": o.fact.document, "kind": o.fact.kind, "why": o.fact.why, "text_found": o.text_found}
            for o in result.failures
        ],
    }


def _print(console: Console, results: list[FactSuiteResult], *, verbose: bool) -> None:
    table = Table(title="facts: pass rate per kind")
    table.add_column("suite")
    for kind in (*KINDS, "overall"):
        table.add_column(kind, justify="right")
    for result in results:
        rates = result.by_kind()
        cells = [
            f"{rates[k].passed}/{rates[k].total} {rates[k].rate:.0%}" if k in rates else "-" for k in KINDS
        ]
        overall = result.overall
        table.add_row(result.suite, *cells, f"{overall.passed}/{overall.total} {overall.rate:.0%}")
    console.print(table)
    for result in results:
        failures = result.failures
        if not failures:
            continue
        shown_now = failures if verbose else failures[:SHOWN_FAILURES]
        console.print(f"[bold]{result.suite}[/]: {len(failures)} failing facts")
        for outcome in shown_now:
            fact = outcome.fact
            note = "" if outcome.text_found else " [dim](no text in the home)[/]"
            console.print(f"  {shown(fact.document)}  [cyan]{fact.kind}[/]  {shown(fact.why)}{note}")
        if len(shown_now) < len(failures):
            console.print(f"  [dim]... {len(failures) - len(shown_now)} more (--verbose shows all)[/]")
