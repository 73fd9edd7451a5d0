"""The table contracts as data, checked with Great Expectations 1.x suites.

Each stage's table promises the same few things whatever the corpus: its key columns are present and
unique together, its ratios lie in [0, 1] (confidences in [0, 100]), and its modes, statuses, sources and
kinds are values of the project's enumerations. The schema (``warehouse/schema.py``) fixes the columns and
their types; these contracts fix what the values may be. They are data (:data:`CONTRACTS`) so that a new
column is one line here, and a test keeps them in step with the schema.

The suites run through an ephemeral GX context (nothing written to disk, no project directory) on the
rows of the shards a run wrote. The first validation in a process costs about 3 s (2.8 s of CPU, measured
on the 2-core CI machine), nearly all of it importing Great Expectations; so GX is imported then, not when
the definitions load, and the context and suites are built once per process and reused. A validation of a
shard of ~100 rows then costs 50-70 ms of CPU.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quality.sources import OcrScope, Source
from quality.verdicts import Mode, Provenance
from readers.model import ContentKind, DocumentStatus, KindSource

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

# Offending values kept per failed expectation: enough to recognise the fault in the check's metadata,
# few enough that a shard full of bad rows does not bloat the event log. GX is asked for the first
# EXAMPLES_SCANNED offending values (its BASIC result format: the SUMMARY format, which counts distinct
# values itself, doubles the cost of a validation) and the distinct ones among them are kept.
EXAMPLES_KEPT = 5
EXAMPLES_SCANNED = 20


class ContractError(Exception):
    """A contract could not be evaluated: Great Expectations failed, or the table has no contract."""


@dataclass(frozen=True, slots=True)
class Bounded:
    """A numeric column whose values, when present, lie in [low, high] (no upper bound when None)."""

    column: str
    low: float
    high: float | None


@dataclass(frozen=True, slots=True)
class Enumerated:
    """A column whose values, when present, are among ``values`` (an enumeration's values)."""

    column: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TableContract:
    """What one table's rows promise.

    ``key``: the columns that identify a row, never null and unique together; ``required``: other columns
    never null; ``unique``: columns unique on their own besides the key; ``bounded`` and ``enumerated``:
    value domains (nulls are allowed there unless the column is also required)."""

    table: str
    key: tuple[str, ...]
    required: tuple[str, ...] = ()
    unique: tuple[str, ...] = ()
    bounded: tuple[Bounded, ...] = ()
    enumerated: tuple[Enumerated, ...] = ()

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column the contract reads, in first-mention order."""
        names = [
            *self.key,
            *self.required,
            *self.unique,
            *(b.column for b in self.bounded),
            *(e.column for e in self.enumerated),
        ]
        return tuple(dict.fromkeys(names))


@dataclass(frozen=True, slots=True)
class ExpectationOutcome:
    """One expectation's verdict on the rows.

    ``expectation`` is GX's type name (``expect_column_values_to_be_in_set``...); ``examples`` are a few
    distinct offending values (None for a null, a column-to-value mapping for a composite key);
    ``error`` is GX's message when the expectation could not be evaluated (a missing column)."""

    expectation: str
    columns: tuple[str, ...]
    success: bool
    unexpected_count: int
    examples: tuple[Any, ...] = ()
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ContractResult:
    table: str
    rows: int
    outcomes: tuple[ExpectationOutcome, ...]
    seconds: float

    @property
    def success(self) -> bool:
        return all(o.success for o in self.outcomes)

    @property
    def failed(self) -> tuple[ExpectationOutcome, ...]:
        return tuple(o for o in self.outcomes if not o.success)


def _values(enum: type) -> tuple[str, ...]:
    return tuple(sorted(str(member.value) for member in enum))


RATIO = (0.0, 1.0)
PERCENT = (0.0, 100.0)  # Tesseract's word confidences
_DOC = ("sha256", "extractor_version")
_PAGE = (*_DOC, "page")
# OCR reads a page to one of three outcomes: text, nothing it could use, or a failure.
_OCR_STATUSES = tuple(
    sorted(s.value for s in (DocumentStatus.DERIVED, DocumentStatus.UNDERIVABLE, DocumentStatus.ERROR))
)


def _ratios(*columns: str) -> tuple[Bounded, ...]:
    return tuple(Bounded(c, *RATIO) for c in columns)


def _counts(*columns: str, low: float = 0.0) -> tuple[Bounded, ...]:
    return tuple(Bounded(c, low, None) for c in columns)


CONTRACTS: dict[str, TableContract] = {
    c.table: c
    for c in (
        TableContract(
            "documents",
            key=("sha256",),
            required=("shard", "kind", "kind_source", "path", "extractor_version"),
            bounded=_counts("size"),
            enumerated=(
                Enumerated("kind", _values(ContentKind)),
                Enumerated("kind_source", _values(KindSource)),
            ),
        ),
        TableContract(
            "derivations",
            key=_DOC,
            required=("shard", "kind", "status"),
            bounded=_counts("attempts", "pages", "chars"),
            enumerated=(
                Enumerated("kind", _values(ContentKind)),
                Enumerated("status", _values(DocumentStatus)),
            ),
        ),
        TableContract(
            "pages",
            key=_PAGE,
            required=("shard", "reader"),
            bounded=(
                *_counts("page", low=1),
                *_ratios(
                    "bad_rune_ratio",
                    "cid_ratio",
                    "glued_ratio",
                    "spaced_ratio",
                    "language_similarity",
                    "lexicon_hit_rate",
                    "image_coverage",
                    "largest_image_share",
                    "vector_figure_area",
                    "invisible_share",
                ),
            ),
        ),
        TableContract(
            "page_verdicts",
            key=_PAGE,
            required=("shard", "mode", "provenance", "text_source"),
            bounded=(*_counts("page", low=1), *_ratios("score", "threshold")),
            enumerated=(
                Enumerated("mode", _values(Mode)),
                Enumerated("provenance", _values(Provenance)),
                Enumerated("text_source", _values(Source)),
            ),
        ),
        TableContract(
            "ocr_pages",
            key=(*_PAGE, "scope"),
            required=("shard", "status"),
            bounded=(
                *_counts("page", low=1),
                *(Bounded(c, *PERCENT) for c in ("confidence", "confidence_p10", "confidence_p50")),
            ),
            enumerated=(Enumerated("scope", _values(OcrScope)), Enumerated("status", _OCR_STATUSES)),
        ),
        TableContract(
            "page_texts",
            key=_PAGE,
            required=("shard", "mode", "source"),
            bounded=(*_counts("page", low=1), *_ratios("trust"), Bounded("ocr_confidence", *PERCENT)),
            enumerated=(Enumerated("mode", _values(Mode)), Enumerated("source", _values(Source))),
        ),
        TableContract("texts", key=_DOC, required=("shard", "text"), bounded=_counts("chars")),
        TableContract(
            "chunks",
            key=(*_DOC, "ordinal"),
            required=("shard", "chunk_id"),
            unique=("chunk_id",),
            bounded=(*_counts("ordinal", "start", "end"), *_ratios("trust")),
        ),
    )
}


def contract_for(table: str) -> TableContract:
    try:
        return CONTRACTS[table]
    except KeyError:
        raise ContractError(f"no contract for table {table!r}; known: {', '.join(CONTRACTS)}") from None


def validate(table: str, rows: pa.Table | Sequence[Any]) -> ContractResult:
    """Check ``rows`` (an Arrow table, or row dataclasses) against ``table``'s suite.

    Only the columns the contract reads are handed to GX. A column the rows lack fails the expectations
    on it (with GX's message in ``error``); an error of GX itself raises :class:`ContractError`."""
    contract = contract_for(table)
    frame = _frame(contract, rows)
    started = time.perf_counter()
    outcomes = _engine().run(contract, frame)
    return ContractResult(table, len(frame), outcomes, round(time.perf_counter() - started, 4))


def _frame(contract: TableContract, rows: pa.Table | Sequence[Any]) -> pd.DataFrame:
    import pandas as pd
    import pyarrow as pa

    if isinstance(rows, pa.Table):
        present = [c for c in contract.columns if c in rows.column_names]
        return rows.select(present).to_pandas()
    columns = [c for c in contract.columns if all(hasattr(r, c) for r in rows)]
    return pd.DataFrame({c: [getattr(r, c) for r in rows] for c in columns}, columns=columns)


# -- Great Expectations ---------------------------------------------------------------------------------

_ENGINE: _Engine | None = None
_ENGINE_LOCK = threading.Lock()


def _engine() -> _Engine:
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            _ENGINE = _Engine(CONTRACTS)
        return _ENGINE


class _Engine:
    """One ephemeral GX context with a pandas data source, a dataframe asset, a whole-dataframe batch
    definition and a suite per contract; built once, used under a lock (GX contexts are not made for
    concurrent use)."""

    def __init__(self, contracts: Mapping[str, TableContract]) -> None:
        # GX logs its configuration steps (some of its modules set their loggers to INFO themselves), warns
        # of its own deprecated imports and draws a progress bar per validation: noise in a stage's log.
        logging.getLogger("great_expectations").setLevel(logging.ERROR)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                import great_expectations as gx
                from great_expectations.data_context.types.base import ProgressBarsConfig
                from great_expectations.exceptions import GreatExpectationsError
        except ImportError as exc:
            raise ContractError(f"Great Expectations is not importable: {exc}") from exc
        for name in list(logging.Logger.manager.loggerDict):
            if name.startswith("great_expectations."):
                logging.getLogger(name).setLevel(logging.ERROR)
        self._lock = threading.Lock()
        try:
            context = gx.get_context(mode="ephemeral")
            context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
            source = context.data_sources.add_pandas("assay")
            self._batches = {}
            self._suites = {}
            for table, contract in contracts.items():
                asset = source.add_dataframe_asset(name=table)
                self._batches[table] = asset.add_batch_definition_whole_dataframe(f"{table}_rows")
                suite = context.suites.add(gx.ExpectationSuite(name=f"{table}_contract"))
                for expectation in _expectations(contract):
                    suite.add_expectation(expectation)
                self._suites[table] = suite
        except (GreatExpectationsError, ValueError, TypeError) as exc:  # pydantic errors are ValueErrors
            raise ContractError(f"could not build the contract suites: {exc}") from exc

    def run(self, contract: TableContract, frame: pd.DataFrame) -> tuple[ExpectationOutcome, ...]:
        from great_expectations.exceptions import GreatExpectationsError

        result_format = {"result_format": "BASIC", "partial_unexpected_count": EXAMPLES_SCANNED}
        with self._lock:
            try:
                batch = self._batches[contract.table].get_batch(batch_parameters={"dataframe": frame})
                validation = batch.validate(self._suites[contract.table], result_format=result_format)
            except (GreatExpectationsError, ValueError, TypeError, KeyError) as exc:
                raise ContractError(f"{contract.table}: the contract could not be checked: {exc}") from exc
        return tuple(_outcome(r) for r in validation.results)


def _expectations(contract: TableContract) -> list[Any]:
    import great_expectations.expectations as gxe

    out: list[Any] = [
        gxe.ExpectColumnValuesToNotBeNull(column=c) for c in (*contract.key, *contract.required)
    ]
    if len(contract.key) == 1:
        out.append(gxe.ExpectColumnValuesToBeUnique(column=contract.key[0]))
    else:
        out.append(gxe.ExpectCompoundColumnsToBeUnique(column_list=list(contract.key)))
    out += [gxe.ExpectColumnValuesToBeUnique(column=c) for c in contract.unique]
    out += [
        gxe.ExpectColumnValuesToBeBetween(column=b.column, min_value=b.low, max_value=b.high)
        for b in contract.bounded
    ]
    out += [
        gxe.ExpectColumnValuesToBeInSet(column=e.column, value_set=list(e.values))
        for e in contract.enumerated
    ]
    return out


def _outcome(result: Any) -> ExpectationOutcome:
    config = result.expectation_config
    kwargs = config.kwargs
    columns = tuple(kwargs.get("column_list") or [kwargs["column"]])
    detail = result.result or {}
    distinct: dict[str, Any] = {}
    for value in detail.get("partial_unexpected_list") or []:
        example = _example(columns, value)
        distinct.setdefault(repr(example), example)
    examples = tuple(distinct.values())[:EXAMPLES_KEPT]
    return ExpectationOutcome(
        expectation=config.type,
        columns=columns,
        success=bool(result.success),
        unexpected_count=int(detail.get("unexpected_count") or 0),
        examples=examples,
        error=_error(result.exception_info),
    )


def _example(columns: tuple[str, ...], value: Any) -> Any:
    if isinstance(value, Mapping):  # a composite key: GX reports the row's key columns
        return {str(c): _plain(v) for c, v in value.items()}
    if len(columns) > 1 and isinstance(value, (tuple, list)):
        return {c: _plain(v) for c, v in zip(columns, value, strict=False)}
    return _plain(value)


def _plain(value: Any) -> Any:
    """A value GX reports, as plain Python: numpy scalars unwrapped, NaN (a null in pandas) as None."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            value = value.item()
        except (TypeError, ValueError):
            return str(value)
    if (isinstance(value, float) and math.isnan(value)) or type(value).__name__ in ("NAType", "NaTType"):
        return None  # pandas' missing values
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _error(info: Any) -> str | None:
    """GX's exception info: either one record or one per metric that failed, each with a message."""
    if not isinstance(info, Mapping):
        return None
    records = [info] if "raised_exception" in info else [v for v in info.values() if isinstance(v, Mapping)]
    messages = dict.fromkeys(str(r.get("exception_message")) for r in records if r.get("raised_exception"))
    return "; ".join(messages) or None
