"""The data-quality checks as Great Expectations suites: derived here, committed as JSON in
``quality/suites/`` (one file a suite, so that a change to one is a diff a reviewer reads), and validated
by GX on pandas frames, with GX's Data Docs built into the home.

- A table's suite is its contract (quality/contracts.py :class:`TableContract`, from the fields of its row
  record): the key not null and unique (``expect_compound_columns_to_be_unique`` for a composite key), the
  required columns not null, the unique ones unique, the bounded ones between their bounds and the
  enumerated ones in their enumeration's values. Nulls (and NaN) count only against not-null.
- The rate suites are over a frame of one row per content kind (:func:`kinds_frame`), one expectation
  each: ``fallback_rate`` (each kind's rate at most its own bound, a column of the frame computed from the
  settings), ``underivable_rate`` and ``fallback_rate_movement`` (the move of the fallback rate between two
  extractor versions; both bounds GX suite parameters, ``{"$PARAMETER": ...}``, given at validation). Each
  judges only the kinds with enough documents (a ``*_judged`` column, by a row condition), and names the
  kinds past their bound (the ``kind`` column as GX's unexpected index). No setting is in the JSON.

Nothing here imports GX at module level: GX takes seconds to import, paid once per run in one step
(assets/data_quality.py), never by a stage or by ``assay check``.
"""

from __future__ import annotations

import json
import logging
import math
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quality.contracts import TableContract

if TYPE_CHECKING:
    import pandas as pd

#: The committed suites, one JSON file per suite (``<name>.json``).
SUITES_DIR = Path(__file__).parent / "suites"
#: Under the home: GX's Data Docs site, GX's stores (the validation results of every run and the suites
#: validated, as files, so that the Data Docs list every run's validations), and what was validated last.
DATA_DOCS = Path("quality", "data_docs")
GX_STORES = Path("quality", "gx")
VALIDATED = Path("quality", "validated.json")
#: What regenerates them after a change to a row record or to the rate suites.
WRITE_COMMAND = "python -m assets.suites --write"

FALLBACK = "fallback_rate"
UNDERIVABLE = "underivable_rate"
FALLBACK_MOVEMENT = "fallback_rate_movement"
RATE_SUITES = (FALLBACK, UNDERIVABLE, FALLBACK_MOVEMENT)

#: The rate frames' column of each kind's fallback-rate bound (from the settings).
FALLBACK_BOUND = "fallback_rate_max"

# Offending values kept per failed expectation (GX's partial unexpected list): enough to recognise the
# fault in a check's metadata, few enough that a shard of bad rows does not bloat the event log.
EXAMPLES_KEPT = 5
# Validation results kept in the home and listed in the Data Docs, latest first (about 15 runs of every
# suite, 15-25 KB a result): GX reads each listed result to build the index, so the list is bounded, and
# older results and their pages are removed.
VALIDATIONS_KEPT = 200


def table_suite_name(table: str) -> str:
    return f"{table}_contract"


# -- the suites, derived ----------------------------------------------------------------------------------


def contract_suite(contract: TableContract) -> dict[str, Any]:
    """The GX suite of a table's contract, as GX serialises it (``to_json_dict``, without an id)."""
    import great_expectations as gx
    import great_expectations.expectations as gxe

    expectations: list[Any] = [
        gxe.ExpectColumnValuesToNotBeNull(column=column) for column in (*contract.key, *contract.required)
    ]
    if len(contract.key) == 1:
        expectations.append(gxe.ExpectColumnValuesToBeUnique(column=contract.key[0]))
    else:
        expectations.append(gxe.ExpectCompoundColumnsToBeUnique(column_list=list(contract.key)))
    expectations += [gxe.ExpectColumnValuesToBeUnique(column=column) for column in contract.unique]
    expectations += [
        gxe.ExpectColumnValuesToBeBetween(column=b.column, min_value=b.low, max_value=b.high)
        for b in contract.bounded
    ]
    expectations += [
        gxe.ExpectColumnValuesToBeInSet(column=e.column, value_set=list(e.values))
        for e in contract.enumerated
    ]
    return _plain_suite(gx.ExpectationSuite(name=table_suite_name(contract.table), expectations=expectations))


def rate_suites() -> dict[str, dict[str, Any]]:
    """The three rate suites (see the module's docstring), by name."""
    import great_expectations as gx
    import great_expectations.expectations as gxe
    from great_expectations.expectations.row_conditions import Column

    def suite_of(name: str, expectation: Any) -> Any:
        return gx.ExpectationSuite(name=name, expectations=[expectation])

    fallback = suite_of(
        FALLBACK,
        gxe.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A=FALLBACK_BOUND,
            column_B="fallback_rate",
            or_equal=True,
            row_condition=Column("fallback_judged") == True,  # noqa: E712 (a GX condition, not a comparison)
        ),
    )
    underivable = suite_of(
        UNDERIVABLE,
        gxe.ExpectColumnValuesToBeBetween(
            column="underivable_rate",
            max_value={"$PARAMETER": "underivable_rate_max"},
            row_condition=Column("underivable_judged") == True,  # noqa: E712 (a GX condition, not a comparison)
        ),
    )
    movement = suite_of(
        FALLBACK_MOVEMENT,
        gxe.ExpectColumnValuesToBeBetween(
            column="move",
            min_value={"$PARAMETER": "fallback_rate_move_min"},
            max_value={"$PARAMETER": "fallback_rate_move_max"},
            row_condition=Column("judged") == True,  # noqa: E712 (a GX condition, not a comparison)
        ),
    )
    return {s.name: _plain_suite(s) for s in (fallback, underivable, movement)}


def _plain_suite(suite: Any) -> dict[str, Any]:
    """The suite as committed: GX's JSON form without its id (given when a context stores it) and
    without the GX version that wrote it (so that a GX upgrade alone is no diff)."""
    out = suite.to_json_dict()
    out.pop("id", None)
    out["meta"] = {k: v for k, v in (out.get("meta") or {}).items() if k != "great_expectations_version"}
    return json.loads(json.dumps(out, sort_keys=True))


def suite_text(suite: Mapping[str, Any]) -> str:
    """A suite's committed text: sorted keys, indented, one trailing newline."""
    return json.dumps(suite, sort_keys=True, indent=2) + "\n"


def committed_suite(name: str) -> dict[str, Any] | None:
    """The committed suite ``name``; None when there is no file for it."""
    path = SUITES_DIR / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


# -- the frames the rate suites are over ------------------------------------------------------------------


def kinds_frame(
    rows: Sequence[Mapping[str, Any]], min_documents: int, fallback_bounds: Mapping[str, float] | None = None
) -> pd.DataFrame:
    """One row per kind: ``rows`` are each kind's figures (``kind``, ``with_text``, ``attempted``,
    ``fallback_rate``, ``underivable_rate`` and the counts), the two judged flags (a rate over fewer than
    ``min_documents`` documents is reported, not judged), and each kind's fallback-rate bound
    (``fallback_bounds``: kind -> bound, from the settings) in :data:`FALLBACK_BOUND`."""
    import pandas as pd

    frame = pd.DataFrame(list(rows), columns=_columns(rows, ("kind", "with_text", "attempted")))
    frame["fallback_judged"] = frame["with_text"] >= min_documents
    frame["underivable_judged"] = frame["attempted"] >= min_documents
    for rate in ("fallback_rate", "underivable_rate"):
        if rate not in frame:
            frame[rate] = pd.Series(dtype="float64")
    bounds = fallback_bounds or {}
    frame[FALLBACK_BOUND] = pd.Series([bounds.get(k) for k in frame["kind"]], dtype="float64")
    return frame


def moves_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per kind: ``kind``, ``previous_rate``, ``current_rate``, ``move`` and ``judged``."""
    import pandas as pd

    columns = ("kind", "previous_rate", "current_rate", "move", "judged")
    frame = pd.DataFrame(list(rows), columns=_columns(rows, columns))
    frame["move"] = frame["move"].astype("float64")
    frame["judged"] = frame["judged"].astype(bool)
    return frame


def _columns(rows: Sequence[Mapping[str, Any]], first: Iterable[str]) -> list[str]:
    return list(dict.fromkeys([*first, *(k for r in rows for k in r)]))


# -- validating ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExpectationResult:
    """One expectation's result, as GX gave it: its type and columns, its keyword arguments (the
    parameters resolved), whether it held, the rows it was evaluated on, the unexpected count and a few
    unexpected values, the unexpected rows' ``kind`` where the frame has one, the observed value of an
    aggregate expectation, and why GX could not evaluate it."""

    expectation: str
    columns: tuple[str, ...]
    kwargs: dict[str, Any]
    success: bool
    element_count: int | None = None
    unexpected_count: int | None = None
    examples: tuple[Any, ...] = ()
    unexpected_kinds: tuple[str, ...] = ()
    observed_value: Any = None
    error: str | None = None

    def as_metadata(self) -> dict[str, Any]:
        out: dict[str, Any] = {"expectation": self.expectation, "columns": list(self.columns)}
        bounds = {
            k: self.kwargs[k] for k in ("min_value", "max_value", "value_set", "or_equal") if k in self.kwargs
        }
        if "row_condition" in self.kwargs:
            bounds["row_condition"] = _condition_text(self.kwargs["row_condition"])
        out |= bounds
        out |= {"success": self.success, "element_count": self.element_count}
        out["unexpected_count"] = self.unexpected_count
        if self.observed_value is not None:
            out["observed_value"] = self.observed_value
        if self.examples:
            out["partial_unexpected_list"] = list(self.examples)
        if self.error:
            out["error"] = self.error
        return out


@dataclass(frozen=True, slots=True)
class SuiteResult:
    suite: str
    rows: int
    success: bool
    results: tuple[ExpectationResult, ...]
    seconds: float
    key: Any = None  # GX's identifier of the validation result (its store key; its Data Docs page)

    @property
    def failed(self) -> tuple[ExpectationResult, ...]:
        return tuple(r for r in self.results if not r.success)


@dataclass
class Validation:
    """A GX context whose Data Docs site is ``docs_dir``: validate suites on frames, then build the docs.

    With ``stores_dir`` the suites validated and the validation results are kept there as files (GX's
    filesystem stores), so that the Data Docs' index lists the validations of every run (the latest
    :data:`VALIDATIONS_KEPT`), each run's under its ``run_name``; without it they are kept in memory
    (the docs then show this context's validations). A build renders the pages of this context's
    validations and suites, and the index; nothing when it validated nothing. One data source, and one
    data asset, suite and validation definition per name, are made once and reused.

    GX's logging, warnings and progress bars are kept off the terminal, and its analytics off."""

    docs_dir: Path
    stores_dir: Path | None = None
    run_name: str | None = None
    _context: Any = None
    _datasource: Any = None
    _run_id: Any = None
    _suites: dict[str, tuple[dict[str, Any], Any]] = field(default_factory=dict)
    _definitions: dict[tuple[str, str], Any] = field(default_factory=dict)
    _made: int = 0
    _validated: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
        logging.getLogger("great_expectations").setLevel(logging.ERROR)
        with _quiet():
            import great_expectations as gx
            from great_expectations.core.run_identifier import RunIdentifier
            from great_expectations.data_context.types.base import (
                DataContextConfig,
                InMemoryStoreBackendDefaults,
                ProgressBarsConfig,
            )

            site = {
                "class_name": "SiteBuilder",
                "site_index_builder": {
                    "class_name": "DefaultSiteIndexBuilder",
                    "validation_results_limit": VALIDATIONS_KEPT,
                },
                "store_backend": {
                    "class_name": "TupleFilesystemStoreBackend",
                    "base_directory": str(self.docs_dir),
                },
            }
            defaults = InMemoryStoreBackendDefaults(init_temp_docs_sites=False)
            if self.stores_dir is not None:
                for store, folder in (
                    (defaults.expectations_store_name, "expectations"),
                    (defaults.validation_results_store_name, "validations"),
                ):
                    defaults.stores[store]["store_backend"] = {
                        "class_name": "TupleFilesystemStoreBackend",
                        "base_directory": str(self.stores_dir / folder),
                    }
            config = DataContextConfig(
                store_backend_defaults=defaults,
                data_docs_sites={"assay": site},
                analytics_enabled=False,
                progress_bars=ProgressBarsConfig(globally=False, metric_calculations=False),
            )
            self._context = gx.get_context(mode="ephemeral", project_config=config)
            self._datasource = self._context.data_sources.add_pandas("assay")
            self._run_id = RunIdentifier(run_name=self.run_name)

    def validate(
        self,
        suite: Mapping[str, Any],
        frame: pd.DataFrame,
        parameters: Mapping[str, Any] | None = None,
        *,
        asset: str | None = None,
    ) -> SuiteResult:
        """Validate ``frame`` against ``suite`` (a suite's JSON form), the suite parameters given; ``asset``
        names the data validated (by default the suite's name), as the Data Docs show it."""
        import time

        started = time.perf_counter()
        with _quiet():
            definition = self._definition(suite, asset or suite["name"])
            result = definition.run(
                batch_parameters={"dataframe": frame},
                expectation_parameters=dict(parameters or {}),
                result_format={
                    "result_format": "SUMMARY",
                    "partial_unexpected_count": EXAMPLES_KEPT,
                    **({"unexpected_index_column_names": ["kind"]} if "kind" in frame.columns else {}),
                },
                run_id=self._run_id,
            )
        key = _result_key(result)
        self._validated.append(key)
        results = tuple(_expectation_result(r) for r in result.results)
        seconds = round(time.perf_counter() - started, 3)
        return SuiteResult(suite["name"], len(frame), bool(result.success), results, seconds, key)

    def _definition(self, suite: Mapping[str, Any], asset: str) -> Any:
        """The validation definition of ``suite`` on the data asset ``asset``, made once."""
        import great_expectations as gx

        name = suite["name"]
        body = {k: v for k, v in suite.items() if k not in ("id", "meta")}
        known = self._suites.get(name)
        if known is None or known[0] != body:  # a suite of that name not added yet, or another one
            stored = self._context.suites.add_or_update(gx.ExpectationSuite(**body))
            self._suites[name] = (body, stored)
            self._definitions = {k: v for k, v in self._definitions.items() if k[0] != name}
        stored = self._suites[name][1]
        definition = self._definitions.get((name, asset))
        if definition is None:
            try:
                data = self._datasource.get_asset(asset)
            except LookupError:
                data = self._datasource.add_dataframe_asset(asset)
            self._made += 1  # names unique within the context, a suite replaced included
            batch = data.add_batch_definition_whole_dataframe(f"{name} {self._made}")
            definition = self._context.validation_definitions.add(
                gx.ValidationDefinition(name=f"{name} on {asset} {self._made}", data=batch, suite=stored)
            )
            self._definitions[(name, asset)] = definition
        return definition

    @property
    def validated(self) -> int:
        """The validations made (and stored) by this context."""
        return len(self._validated)

    def build_docs(self) -> Path:
        """Render this context's validations and their suites into the Data Docs, and the index (every
        stored validation, latest first); returns the index page. Nothing is rendered when nothing was
        validated."""
        if self._validated:
            from great_expectations.data_context.types.resource_identifiers import (
                ExpectationSuiteIdentifier,
            )

            suites = {k.expectation_suite_identifier.name for k in self._validated}
            keys = [*self._validated, *(ExpectationSuiteIdentifier(name=n) for n in sorted(suites))]
            with _quiet():
                if self.stores_dir is not None:  # the oldest results beyond those kept (their pages go too)
                    store = self._context.validation_results_store
                    stored = sorted(store.list_keys(), key=lambda k: k.run_id.run_time, reverse=True)
                    for key in stored[VALIDATIONS_KEPT:]:
                        store.remove_key(key)
                self._context.build_data_docs(site_names=["assay"], resource_identifiers=keys)
        return self.docs_dir / "index.html"

    def page(self, result: SuiteResult) -> Path | None:
        """The validation page of ``result`` in the built docs."""
        if result.key is None:
            return None
        with _quiet():
            urls = self._context.get_docs_sites_urls(resource_identifier=result.key, site_name="assay")
        url = urls[0].get("site_url") if urls else None
        if not url or not url.startswith("file://"):
            return None
        path = Path(url.removeprefix("file://"))
        return path if path.is_file() else None


def _result_key(result: Any) -> Any:
    """GX's identifier of a stored validation result (as the Data Docs name its page)."""
    from great_expectations.data_context.types.resource_identifiers import (
        ExpectationSuiteIdentifier,
        ValidationResultIdentifier,
    )

    return ValidationResultIdentifier(
        expectation_suite_identifier=ExpectationSuiteIdentifier(name=result.suite_name),
        run_id=result.meta["run_id"],
        batch_identifier=result.batch_id,
    )


class _quiet(warnings.catch_warnings):
    """GX's warnings not shown (its deprecations and pandas' own, raised while it computes metrics)."""

    def __enter__(self) -> None:
        super().__enter__()
        warnings.simplefilter("ignore")


def _expectation_result(r: Any) -> ExpectationResult:
    config = r.expectation_config
    kwargs = {k: _plain(v) for k, v in config.kwargs.items() if k != "batch_id"}
    columns = tuple(
        kwargs.get("column_list") or [kwargs[k] for k in ("column", "column_A", "column_B") if k in kwargs]
    )
    result = r.result or {}
    indices = result.get("unexpected_index_list") or result.get("partial_unexpected_index_list") or []
    kinds = tuple(dict.fromkeys(i["kind"] for i in indices if isinstance(i, dict) and "kind" in i))
    return ExpectationResult(
        expectation=config.type,
        columns=columns,
        kwargs=kwargs,
        success=bool(r.success),
        element_count=result.get("element_count"),
        unexpected_count=result.get("unexpected_count"),
        examples=_examples(result.get("partial_unexpected_list") or []),
        unexpected_kinds=kinds,
        observed_value=_plain(result.get("observed_value")),
        error=_error(r.exception_info),
    )


def _examples(values: Sequence[Any]) -> tuple[Any, ...]:
    """The distinct unexpected values among GX's partial list, in order, as plain JSON-able values."""
    distinct: dict[str, Any] = {}
    for value in values:
        plain = _plain(value)
        distinct.setdefault(json.dumps(plain, sort_keys=True, default=str), plain)
    return tuple(distinct.values())[:EXAMPLES_KEPT]


def _error(info: Any) -> str | None:
    """The message of the exception GX met evaluating an expectation (its info is either one record or
    one per metric)."""
    if not info:
        return None
    records = [info] if "raised_exception" in info else list(info.values())
    messages = [
        i.get("exception_message") for i in records if isinstance(i, Mapping) and i.get("raised_exception")
    ]
    return "; ".join(dict.fromkeys(m for m in messages if m)) or None


def _condition_text(condition: Any) -> str:
    """A row condition as one line ("judged == True"), whether GX gives it as a dict or an object."""
    if hasattr(condition, "model_dump"):
        condition = condition.model_dump()
    if isinstance(condition, Mapping) and {"column", "operator", "parameter"} <= condition.keys():
        column = condition["column"]
        name = column.get("name") if isinstance(column, Mapping) else getattr(column, "name", column)
        return f"{name} {condition['operator']} {condition['parameter']}"
    if isinstance(condition, Mapping):
        return str(condition.get("pass_through_filter") or condition)
    return str(condition)


def _plain(value: Any) -> Any:
    """A value as plain JSON-able Python: NaN (a missing float) as None, numpy scalars as Python's."""
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        try:
            value = value.item()
        except (ValueError, TypeError):
            value = str(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
