"""data_quality: the one step that validates every data-quality check with Great Expectations, once per
``assay run``, after the catalog (in the ``assay_corpus`` job).

Its checks are every ``<table>_contract`` check on the stage asset that writes the table, and the rate
checks: ``fallback_rate`` on extract and ``underivable_rate`` on ocr (over the shards written since the
last validation; the latter warns only), and on the catalog ``fallback_rate``, ``underivable_rate``
(blocking: past its bound the run fails) and ``fallback_rate_movement`` over the corpus. The suites are the
committed ones (quality/suites/*.json, quality/expectations.py); the bounds come from the settings, the
fallback rate's per kind as a column of the rates frame, the others as suite parameters. Under the
automation the checks are requested together once the catalog is rebuilt, not with a stage's runs.

Which rows: the partitions of the checked tables written since they were last validated, by a small state
file in the home (partition path -> mtime and size), so that a run validates what it wrote and a failed or
interrupted run's partitions are validated by the next; only the columns a contract names are read. A
table with no partition written since is not validated (its check passes, saying so), and a corpus check
whose frame and bounds are those of its last validation is not validated again: its last result (kept in
the state file) is reported. GX is imported here only, and only when something is to be validated; its
validation results are kept in the home (``<home>/quality/gx/``) and its Data Docs, built into
``<home>/quality/data_docs/``, list every run's validations; a run that validated nothing leaves them as
they were.
"""

import dataclasses
import hashlib
import json
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from datetime import UTC, datetime
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
from assets.stages import StageGraph, graph
from quality.expectations import (
    DATA_DOCS,
    FALLBACK,
    FALLBACK_MOVEMENT,
    GX_STORES,
    SUITES_DIR,
    UNDERIVABLE,
    VALIDATED,
    ExpectationResult,
    SuiteResult,
    Validation,
    committed_suite,
    contract_suite,
    kinds_frame,
    moves_frame,
)
from quality.rates import rates_by_kind
from readers.core.atomic import written_whole
from readers.core.versions import EXTRACTOR_VERSION
from warehouse import Warehouse
from warehouse.duckdb_catalog import previous_version
from warehouse.outcome_query import outcomes
from warehouse.schema import TABLES, contract_for

NAME = "data_quality"


def corpus_asset(stages: StageGraph | None = None) -> str:
    """The asset the corpus-wide checks are on: the stage that closes every run (the catalog)."""
    return (stages or graph()).closing[0].name


def checked(stages: StageGraph) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """The contracts (stage, table) and the run's rate checks (stage, check, table) of the stages in
    effect: every check the step makes besides the catalog's."""
    contracts = [(stage.name, table) for stage in stages.order for table in stage.checked]
    rates = [(stage.name, name, table) for stage in stages.order for name, table in stage.rates]
    return contracts, rates


def data_quality_checks(stages: StageGraph) -> dg.AssetChecksDefinition:
    """The step's asset checks over the stages in effect."""
    contracts, rates = checked(stages)
    specs = [contract_check_spec(asset, table) for asset, table in contracts]
    for asset, name, _ in rates:
        scope = "the shards written since the last validation"
        specs += rate_check_specs(asset, scope=scope, checks=(name,))
    closing = corpus_asset(stages)
    specs += rate_check_specs(
        closing, scope="the whole corpus (current extractor version)", blocking={UNDERIVABLE}
    )
    specs.append(movement_check_spec(closing))
    # Under the automation, the checks run together once the catalog is rebuilt, as in `assay run`: a
    # check without a condition of its own would ride along with every run Dagster requests for its
    # asset (each range of shards of a stage), and GX would be imported in each.
    after_catalog = dg.AutomationCondition.asset_matches(
        closing, dg.AutomationCondition.newly_updated()
    ).with_label(f"{closing} rebuilt")
    specs = [
        dg.AssetCheckSpec(
            s.name,
            asset=s.asset_key,
            description=s.description,
            blocking=s.blocking,
            automation_condition=after_catalog,
        )
        for s in specs
    ]

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
            [n for n in (FALLBACK, UNDERIVABLE, FALLBACK_MOVEMENT) if chosen(closing, n)],
            run_name=context.op_execution_context.run_id,
        )

    return data_quality


def evaluate(
    assay: AssaySettings,
    contracts: Sequence[tuple[str, str]],
    rates: Sequence[tuple[str, str, str]],
    log: Any,
    corpus: Collection[str] = (FALLBACK, UNDERIVABLE, FALLBACK_MOVEMENT),
    *,
    run_name: str | None = None,
) -> Iterator[dg.AssetCheckResult]:
    """The results of the checks of ``contracts`` (stage, table), ``rates`` (stage, check, table) and
    ``corpus`` (the catalog's checks): validate what is new, build the Data Docs of what was validated,
    record what was validated (the partitions of the tables validated, the corpus checks' last results),
    then yield. ``run_name`` names the validations in the Data Docs (the Dagster run's id)."""
    started = time.perf_counter()
    wh = assay.warehouse()
    home = assay.home_path
    state_path = home / VALIDATED
    state = _load_state(state_path)
    validations = _Validations(home, run_name, state.get("results", {}))
    partitions = state.get("partitions", {})
    seen = dict(partitions)
    changed: dict[str, list[str | None]] = {}
    for table in {t for _, t in contracts} | {t for *_, t in rates}:
        changed[table] = []
        for shard, rel, stamp in _partitions(wh, table):
            seen[rel] = stamp
            if partitions.get(rel) != stamp:
                changed[table].append(shard)

    pending: list[tuple[str, str, SuiteResult | None, dict[str, Any], dg.AssetCheckSeverity]] = []
    for asset, table in contracts:
        result, meta = _contract(validations, wh, table, changed[table], asset)
        pending.append((asset, contract_check_name(table), result, meta, dg.AssetCheckSeverity.ERROR))
    for asset, name, table in rates:
        shards = [s for s in changed[table] if s is not None]
        documents = outcomes(wh, EXTRACTOR_VERSION, shards) if shards else []
        if documents:
            result, meta = _rate(validations, name, documents, assay, per_shard=True, asset=asset)
        else:
            result, meta = None, {"note": "no document in a shard written since the last validation"}
        meta["shards"] = len(shards)
        pending.append((asset, name, result, meta, dg.AssetCheckSeverity.WARN))
    documents = outcomes(wh, EXTRACTOR_VERSION) if corpus else []
    validations.reuse = True  # the corpus checks: validated again only when their frame or bounds moved
    for name, severity in (
        (FALLBACK, dg.AssetCheckSeverity.WARN),
        (UNDERIVABLE, dg.AssetCheckSeverity.ERROR),
    ):
        if name in corpus:
            result, meta = _rate(validations, name, documents, assay, asset=corpus_asset())
            pending.append((corpus_asset(), name, result, meta, severity))
    if FALLBACK_MOVEMENT in corpus:
        result, meta = _movement(validations, wh, assay, documents)
        pending.append((corpus_asset(), FALLBACK_MOVEMENT, result, meta, dg.AssetCheckSeverity.WARN))
    validated = time.perf_counter()
    index = validations.build_docs()
    _save_state(state_path, {"partitions": seen, "results": validations.kept()})
    log.info(
        "Great Expectations: "
        + (
            f"{validations.count} suites validated (import and context {validations.setup_seconds:.2f} s, "
            f"validations {validated - started - validations.setup_seconds:.2f} s, Data Docs "
            f"{time.perf_counter() - validated:.2f} s at {index})"
            if validations.count
            else "nothing new to validate (GX not imported, the Data Docs left as they were)"
        )
        + (
            f"; {validations.reused} corpus checks unchanged since their last validation"
            if validations.reused
            else ""
        )
    )
    for asset, name, result, meta, severity in pending:
        page = validations.page(result) if result is not None else None
        passed = result.success if result is not None else "error" not in meta
        if result is not None and id(result) in validations.reused_at:
            reused = (
                f"the same rates and bounds as at its last validation ({validations.reused_at[id(result)]}): "
                "GX's result of then, not validated again"
            )
            meta["note"] = f"{meta['note']}; {reused}" if meta.get("note") else reused
        yield dg.AssetCheckResult(
            asset_key=asset,
            check_name=name,
            passed=passed,
            severity=severity,
            metadata={
                **meta,
                **(_gx_metadata(result) if result is not None else {}),
                **({"data_docs": dg.MetadataValue.path(str(page))} if page else {}),
                **({"data_docs_index": dg.MetadataValue.path(str(index))} if index.is_file() else {}),
            },
        )


class _Validations:
    """The GX validations of one step: GX is imported and its context made (:class:`Validation`, its
    stores in the home) at the first validation only. With ``reuse`` set, a suite whose asset, frame and
    parameters are those of its last validation (``kept``: from the state file) is not validated again:
    its last result is returned, its Data Docs page the one built then."""

    def __init__(self, home: Path, run_name: str | None, kept: Mapping[str, Any]) -> None:
        self.home, self.run_name = home, run_name
        self.reuse = False
        self.count = self.reused = 0
        self.setup_seconds = 0.0
        self._gx: Validation | None = None
        self._kept = {k: v for k, v in kept.items() if isinstance(v, dict)}
        self._fresh: dict[str, tuple[str, SuiteResult]] = {}
        self._pages: dict[int, Path] = {}
        self.reused_at: dict[int, str | None] = {}

    def validate(
        self,
        suite: Mapping[str, Any],
        frame: Any,
        parameters: Mapping[str, Any] | None = None,
        *,
        asset: str | None = None,
    ) -> SuiteResult:
        asset = asset or suite["name"]
        name = f"{asset}.{suite['name']}"
        digest = _digest(suite, frame, parameters)
        if self.reuse:
            last = self._kept.get(name)
            if last is not None and last.get("digest") == digest:
                result = _suite_result(last["result"])
                self.reused += 1
                self.reused_at[id(result)] = last.get("validated_at")
                page = Path(last["page"]) if last.get("page") else None
                if page is not None and page.is_file():
                    self._pages[id(result)] = page
                return result
        if self._gx is None:
            started = time.perf_counter()
            self._gx = Validation(self.home / DATA_DOCS, self.home / GX_STORES, self.run_name)
            self.setup_seconds = time.perf_counter() - started
        result = self._gx.validate(suite, frame, parameters, asset=asset)
        self.count += 1
        if self.reuse:
            self._fresh[name] = (digest, result)
        return result

    def build_docs(self) -> Path:
        return self._gx.build_docs() if self._gx is not None else self.home / DATA_DOCS / "index.html"

    def page(self, result: SuiteResult) -> Path | None:
        if id(result) in self._pages:
            return self._pages[id(result)]
        return self._gx.page(result) if self._gx is not None and result.key is not None else None

    def kept(self) -> dict[str, Any]:
        """The corpus checks' last results, as the state file keeps them."""
        kept = dict(self._kept)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        for name, (digest, result) in self._fresh.items():
            page = self.page(result)
            kept[name] = {
                "digest": digest,
                "validated_at": now,
                "page": str(page) if page else None,
                "result": dataclasses.asdict(dataclasses.replace(result, key=None)),
            }
        return kept


def _digest(suite: Mapping[str, Any], frame: Any, parameters: Mapping[str, Any] | None) -> str:
    body = json.dumps(
        [
            suite,
            frame.to_json(orient="split", double_precision=10, date_format="iso"),
            dict(parameters or {}),
        ],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _suite_result(kept: Mapping[str, Any]) -> SuiteResult:
    """A suite result as the state file kept it."""
    results = tuple(
        ExpectationResult(
            **{
                **r,
                "columns": tuple(r["columns"]),
                "examples": tuple(r["examples"]),
                "unexpected_kinds": tuple(r["unexpected_kinds"]),
            }
        )
        for r in kept["results"]
    )
    return SuiteResult(kept["suite"], kept["rows"], kept["success"], results, kept["seconds"])


def _contract(
    validation: Any, wh: Warehouse, table: str, shards: Sequence[str | None], asset: str | None = None
) -> tuple[SuiteResult | None, dict[str, Any]]:
    """Validate the ``shards`` partitions of ``table`` (their contract's columns) against its suite: the
    committed one, or for a table of a stage declared outside the project, the one its record derives.
    No shards: nothing is validated (no result)."""
    contract = contract_for(table)
    name = contract_check_name(table)
    suite = committed_suite(name)
    source = str(SUITES_DIR.relative_to(SUITES_DIR.parents[1]) / f"{name}.json")
    if suite is None:
        suite, source = contract_suite(contract), "derived from the table's row record"
    meta: dict[str, Any] = {"rows_validated": 0, "partitions": len(shards), "suite": source}
    if not shards:
        return None, meta | {"note": "no partition written since the last validation: nothing to check"}
    columns = [c for c in contract.columns if c in TABLES[table].column_names]
    rows = pa.concat_tables([wh.read(table, EXTRACTOR_VERSION, shard, columns) for shard in shards])
    if not rows.num_rows:
        return None, meta | {"note": "the partitions written since the last validation hold no rows"}
    meta["rows_validated"] = rows.num_rows
    try:
        return validation.validate(suite, rows.to_pandas(), asset=asset or table), meta
    except Exception as exc:  # GX could not validate: the check fails with the reason, not the step
        return None, meta | {"error": f"{type(exc).__name__}: {exc}"}


def _rate(
    validation: Any,
    name: str,
    documents: Sequence[Any],
    assay: AssaySettings,
    *,
    per_shard: bool = False,
    asset: str | None = None,
) -> tuple[SuiteResult | None, dict[str, Any]]:
    """Validate the rate ``name`` per kind of ``documents`` (their outcomes); the fallback rate's bound per
    kind is a column of the frame, the Underivable rate's a suite parameter (both from the settings)."""
    rates = rates_by_kind(documents)
    rows = [{"kind": kind} | kind_figures(r) for kind, r in rates.items()]
    bounds = {k: assay.fallback_rate_max_by_kind.get(k, assay.fallback_rate_max) for k in rates}
    parameters = {} if name == FALLBACK else {"underivable_rate_max": assay.underivable_rate_max}
    suite = committed_suite(name)
    frame = kinds_frame(rows, assay.min_documents_for_rate, bounds)
    try:
        result = validation.validate(suite, frame, parameters, asset=asset or name)
    except Exception as exc:
        return None, rate_metadata(name, rates, assay, {}) | {"error": f"{type(exc).__name__}: {exc}"}
    judged = {k: r.fallback_rate if name == FALLBACK else r.underivable_rate for k, r in rates.items()}
    over = {k: round(judged[k], 4) for r in result.failed for k in r.unexpected_kinds if k in judged}
    return result, rate_metadata(name, rates, assay, over, documents if per_shard else ())


def _movement(
    validation: Any,
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
        result = validation.validate(
            committed_suite(FALLBACK_MOVEMENT), moves_frame(rows), parameters, asset=corpus_asset()
        )
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


def _load_state(path: Path) -> dict[str, Any]:
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def _save_state(path: Path, state: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with written_whole(path) as temporary:
        temporary.write_text(json.dumps(state, sort_keys=True, indent=0), encoding="utf-8")
