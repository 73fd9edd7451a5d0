"""data_quality: the one step that validates every data-quality check with Great Expectations, once per
``assay run``, after the catalog (in the ``assay_corpus`` job).

Its checks are every ``<table>_contract`` check on the stage asset that writes the table, and the rate
checks: ``fallback_rate`` on extract and ``underivable_rate`` on ocr (over the shards written since the
last validation; the latter warns only), and on the catalog ``fallback_rate``, ``underivable_rate``
(blocking: past its bound the run fails) and ``fallback_rate_movement`` over the corpus. The suites are the
committed ones (quality/suites/*.json, quality/expectations.py); the bounds are given as suite parameters
from the settings.

Which rows: the partitions of the checked tables written since they were last validated, by a small state
file in the home (partition path -> mtime and size), so that a run validates what it wrote and a failed or
interrupted run's partitions are validated by the next; only the columns a contract names are read. GX is
imported here only, when the step runs; its Data Docs are built into ``<home>/quality/data_docs/``.
"""

import json
import os
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import dagster as dg
import pyarrow as pa

from assets.contract_checks import contract_check_name, contract_check_spec
from assets.rate_checks import (
    fallback_moves,
    kind_figures,
    movement_check_spec,
    movement_metadata,
    rate_check_specs,
    rate_metadata,
)
from assets.resources import AssaySettings
from assets.stages import StageGraph
from quality.expectations import (
    DATA_DOCS,
    FALLBACK,
    FALLBACK_MOVEMENT,
    SUITES_DIR,
    UNDERIVABLE,
    VALIDATED,
    SuiteResult,
    Validation,
    committed_suite,
    contract_suite,
    fallback_parameter,
    kinds_frame,
    moves_frame,
)
from quality.rates import rates_by_kind
from readers.core.model import ContentKind
from readers.core.versions import EXTRACTOR_VERSION
from warehouse import Warehouse
from warehouse.catalog import previous_version
from warehouse.outcomes import outcomes
from warehouse.schema import TABLES, contract_for

NAME = "data_quality"
#: The rate checks and the stage whose tables' new partitions each is over (None: the whole corpus).
RATE_CHECKS = (("extract", FALLBACK, "derivations"), ("ocr", UNDERIVABLE, "page_texts"))


def data_quality_checks(stages: StageGraph) -> dg.AssetChecksDefinition:
    """The step's asset checks over the stages in effect."""
    contracts = [(stage.name, table) for stage in stages.order for table in stage.checked]
    specs = [contract_check_spec(asset, table) for asset, table in contracts]
    rates = [(asset, name, table) for asset, name, table in RATE_CHECKS if asset in stages.by_name]
    for asset, name, _ in rates:
        scope = "the shards written since the last validation"
        specs += rate_check_specs(asset, scope=scope, checks=(name,))
    specs += rate_check_specs(
        "catalog", scope="the whole corpus (current extractor version)", blocking={UNDERIVABLE}
    )
    specs.append(movement_check_spec("catalog"))

    # Subsettable, so that a run Dagster launches for one asset (the web UI, the automation) may select
    # its checks here; `assay run` selects them all, in assay_corpus only.
    @dg.multi_asset_check(
        specs=specs,
        name=NAME,
        can_subset=True,
        description="Validate the table contracts and the rate checks with Great Expectations, once per "
        "run, over the partitions written since the last validation; build the Data Docs.",
    )
    def data_quality(context: dg.AssetCheckExecutionContext, assay: AssaySettings):
        selected = context.selected_asset_check_keys

        def chosen(asset: str, name: str) -> bool:
            return dg.AssetCheckKey(dg.AssetKey(asset), name) in selected

        yield from evaluate(
            assay,
            [(a, t) for a, t in contracts if chosen(a, contract_check_name(t))],
            [(a, n, t) for a, n, t in rates if chosen(a, n)],
            context.log,
            [n for n in (FALLBACK, UNDERIVABLE, FALLBACK_MOVEMENT) if chosen("catalog", n)],
        )

    return data_quality


def evaluate(
    assay: AssaySettings,
    contracts: Sequence[tuple[str, str]],
    rates: Sequence[tuple[str, str, str]],
    log: Any,
    corpus: Collection[str] = (FALLBACK, UNDERIVABLE, FALLBACK_MOVEMENT),
) -> Iterator[dg.AssetCheckResult]:
    """The results of the checks of ``contracts`` (stage, table), ``rates`` (stage, check, table) and
    ``corpus`` (the catalog's checks): validate, build the Data Docs, record what was validated (the
    partitions of the tables validated), then yield."""
    started = time.perf_counter()
    import great_expectations  # noqa: F401  (the import's own time, as the log reports it)

    imported = time.perf_counter() - started
    wh = assay.warehouse()
    home = assay.home_path
    state_path = home / VALIDATED
    state = _load_state(state_path)
    seen = dict(state)
    changed: dict[str, list[str | None]] = {}
    for table in {t for _, t in contracts} | {t for *_, t in rates}:
        changed[table] = []
        for shard, rel, stamp in _partitions(wh, table):
            seen[rel] = stamp
            if state.get(rel) != stamp:
                changed[table].append(shard)

    validation = Validation(home / DATA_DOCS)
    pending: list[tuple[str, str, SuiteResult | None, dict[str, Any], dg.AssetCheckSeverity]] = []
    for asset, table in contracts:
        result, meta = _contract(validation, wh, table, changed[table])
        pending.append((asset, contract_check_name(table), result, meta, dg.AssetCheckSeverity.ERROR))
    for asset, name, table in rates:
        shards = [s for s in changed[table] if s is not None]
        documents = outcomes(wh, EXTRACTOR_VERSION, shards)
        result, meta = _rate(validation, name, documents, assay, per_shard=True)
        meta["shards"] = len(shards)
        pending.append((asset, name, result, meta, dg.AssetCheckSeverity.WARN))
    documents = outcomes(wh, EXTRACTOR_VERSION) if corpus else []
    for name, severity in (
        (FALLBACK, dg.AssetCheckSeverity.WARN),
        (UNDERIVABLE, dg.AssetCheckSeverity.ERROR),
    ):
        if name in corpus:
            result, meta = _rate(validation, name, documents, assay)
            pending.append(("catalog", name, result, meta, severity))
    if FALLBACK_MOVEMENT in corpus:
        result, meta = _movement(validation, wh, assay, documents)
        pending.append(("catalog", FALLBACK_MOVEMENT, result, meta, dg.AssetCheckSeverity.WARN))
    validated = time.perf_counter()
    index = validation.build_docs()
    _save_state(state_path, seen)
    log.info(
        f"Great Expectations: imported in {imported:.2f} s, {len(pending)} suites validated in "
        f"{validated - started - imported:.2f} s, Data Docs built in {time.perf_counter() - validated:.2f} s "
        f"at {index}"
    )
    for asset, name, result, meta, severity in pending:
        page = validation.page(result.suite) if result is not None else None
        yield dg.AssetCheckResult(
            asset_key=asset,
            check_name=name,
            passed=result is not None and result.success,
            severity=severity,
            metadata={
                **meta,
                **(_gx_metadata(result) if result is not None else {}),
                **({"data_docs": dg.MetadataValue.path(str(page))} if page else {}),
                "data_docs_index": dg.MetadataValue.path(str(index)),
            },
        )


def _contract(
    validation: Validation, wh: Warehouse, table: str, shards: Sequence[str | None]
) -> tuple[SuiteResult | None, dict[str, Any]]:
    """Validate the ``shards`` partitions of ``table`` (their contract's columns) against its suite: the
    committed one, or for a table of a stage declared outside the project, the one its record derives."""
    contract = contract_for(table)
    name = contract_check_name(table)
    suite = committed_suite(name)
    source = str(SUITES_DIR.relative_to(SUITES_DIR.parents[1]) / f"{name}.json")
    if suite is None:
        suite, source = contract_suite(contract), "derived from the table's row record"
    columns = [c for c in contract.columns if c in TABLES[table].column_names]
    parts = [wh.read(table, EXTRACTOR_VERSION, shard, columns) for shard in shards]
    rows = pa.concat_tables(parts) if parts else TABLES[table].empty().select(columns)
    meta: dict[str, Any] = {"rows_validated": rows.num_rows, "partitions": len(shards), "suite": source}
    if not shards:
        meta["note"] = "no partition written since the last validation: nothing to check"
    try:
        return validation.validate(suite, rows.to_pandas()), meta
    except Exception as exc:  # GX could not validate: the check fails with the reason, not the step
        return None, meta | {"error": f"{type(exc).__name__}: {exc}"}


def _rate(
    validation: Validation,
    name: str,
    documents: Sequence[Any],
    assay: AssaySettings,
    *,
    per_shard: bool = False,
) -> tuple[SuiteResult | None, dict[str, Any]]:
    rates = rates_by_kind(documents)
    rows = [{"kind": kind} | kind_figures(r) for kind, r in rates.items()]
    if name == FALLBACK:
        parameters: dict[str, Any] = {
            fallback_parameter(k.value): assay.fallback_rate_max_by_kind.get(k.value, assay.fallback_rate_max)
            for k in ContentKind
        }
    else:
        parameters = {"underivable_rate_max": assay.underivable_rate_max}
    suite = committed_suite(name)
    try:
        result = validation.validate(suite, kinds_frame(rows, assay.min_documents_for_rate), parameters)
    except Exception as exc:
        return None, rate_metadata(name, rates, assay, {}) | {"error": f"{type(exc).__name__}: {exc}"}
    judged = {k: r.fallback_rate if name == FALLBACK else r.underivable_rate for k, r in rates.items()}
    over = {k: round(judged[k], 4) for r in result.failed for k in r.unexpected_kinds if k in judged}
    return result, rate_metadata(name, rates, assay, over, documents if per_shard else ())


def _movement(
    validation: Validation,
    wh: Warehouse,
    assay: AssaySettings,
    current: Sequence[Any],
    version: str = EXTRACTOR_VERSION,
) -> tuple[SuiteResult | None, dict[str, Any]]:
    """The movement of the fallback rate per kind from the previous version to ``version`` (``current``
    its outcomes), validated."""
    previous = previous_version(wh, version)
    moves = (
        fallback_moves(
            rates_by_kind(outcomes(wh, previous)), rates_by_kind(current), assay.min_documents_for_rate
        )
        if previous is not None
        else []
    )
    bound = assay.fallback_rate_move_max
    parameters = {"fallback_rate_move_min": -bound, "fallback_rate_move_max": bound}
    rows = [
        {
            "kind": m.kind,
            "previous_rate": m.previous_rate,
            "current_rate": m.current_rate,
            "move": m.move,
            "judged": m.judged,
        }
        for m in moves
    ]
    try:
        result = validation.validate(committed_suite(FALLBACK_MOVEMENT), moves_frame(rows), parameters)
    except Exception as exc:
        return None, movement_metadata(moves, previous, version, assay, {}) | {
            "error": f"{type(exc).__name__}: {exc}"
        }
    by_kind = {m.kind: m.move for m in moves}
    over = {k: by_kind[k] for r in result.failed for k in r.unexpected_kinds if by_kind.get(k) is not None}
    return result, movement_metadata(moves, previous, version, assay, over)


def _gx_metadata(result: SuiteResult) -> dict[str, Any]:
    """GX's result: the suite, the expectations evaluated and failed, and each failed expectation's type,
    columns, bounds, counts, observed value and partial unexpected values."""
    return {
        "gx_suite": result.suite,
        "gx_success": result.success,
        "expectations_evaluated": len(result.results),
        "expectations_failed": len(result.failed),
        "failed": [r.as_metadata() for r in result.failed],
        "seconds": result.seconds,
    }


def _partitions(wh: Warehouse, table: str) -> Iterator[tuple[str | None, str, list[int]]]:
    """Each partition of ``table`` under the current version: its shard, its path under the warehouse's
    tables, and its mtime (ns) and size."""
    if TABLES[table].sharded:
        paths = [
            (s, wh.partition_path(table, EXTRACTOR_VERSION, s)) for s in wh.shards(table, EXTRACTOR_VERSION)
        ]
    elif wh.has_partition(table, EXTRACTOR_VERSION):
        paths = [(None, wh.partition_path(table, EXTRACTOR_VERSION))]
    else:
        paths = []
    for shard, path in paths:
        try:
            stat = path.stat()
        except OSError:
            continue
        yield shard, str(path.relative_to(wh.data_dir)), [stat.st_mtime_ns, stat.st_size]


def _load_state(path: Path) -> dict[str, list[int]]:
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def _save_state(path: Path, state: Mapping[str, list[int]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(dict(sorted(state.items())), indent=0), encoding="utf-8")
    os.replace(temporary, path)
