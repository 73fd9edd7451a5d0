"""A table's columns declared once, on its row record's fields: the Arrow schema and the contract derived
from them, and the declarations that are refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality.expectations import Validation, contract_suite
from quality.verdicts import Mode
from readers.core.columns import KEY, UNIQUE, Annotated, Doc, OneOf, PageNumber, Ratio
from readers.core.reading_records import Sha256, Shard, Version
from warehouse.schema import TABLES, Table


@dataclass(frozen=True, slots=True)
class Row:
    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Annotated[Version, KEY]
    page: Annotated[PageNumber, KEY, Doc("page, 1-based")]  # the alias's Doc overridden
    label: Annotated[str, UNIQUE, Doc("a label")]
    mode: Annotated[str, Doc("the verdict"), OneOf.of(Mode)]
    score: Annotated[Ratio | None, Doc("a ratio")]  # the alias's bounds kept under `| None`
    names: Annotated[list[str], Doc("some names")]
    seen_at: Annotated[datetime, Doc("when")]
    added_later: Annotated[list[int], Doc("a column a later version added")] = field(default_factory=list)


ROWS = Table("rows", Row, "row of the test", sharded=True)


@pytest.fixture(scope="module")
def gx(tmp_path_factory) -> Validation:
    return Validation(tmp_path_factory.mktemp("gx") / "docs")


def validate(gx: Validation, contract, rows):
    """The rows validated by GX against the suite the contract derives."""
    frame = pa.table({c: [getattr(r, c) for r in rows] for c in contract.columns}).to_pandas()
    return gx.validate(contract_suite(contract), frame)


def _row(i: int, **changes: object) -> Row:
    values: dict[str, object] = dict(
        sha256=f"{i:064x}",
        shard=f"{i:064x}"[:2],
        extractor_version="v1",
        page=1,
        label=f"label {i}",
        mode="TEXT",
        score=0.5,
        names=["a"],
        seen_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    values.update(changes)
    return Row(**values)  # type: ignore[arg-type]


def test_the_schema_is_the_fields_types_and_docs() -> None:
    assert ROWS.column_names == (
        "sha256",
        "shard",
        "extractor_version",
        "page",
        "label",
        "mode",
        "score",
        "names",
        "seen_at",
        "added_later",
    )
    types = {f.name: f.type for f in ROWS.schema}
    assert types["page"] == pa.int64() and types["score"] == pa.float64()
    assert types["names"] == pa.list_(pa.string()) and types["added_later"] == pa.list_(pa.int64())
    assert types["seen_at"] == pa.timestamp("us", tz="UTC")
    docs = {f.name: f.metadata[b"doc"].decode() for f in ROWS.schema}
    assert docs["page"] == "page, 1-based"
    # The shared columns keep the one meaning they are declared with.
    assert docs["sha256"] == dict((c.name, c.doc) for c in TABLES["documents"].columns)["sha256"]


def test_the_contract_is_the_fields_keys_nullability_and_domains() -> None:
    contract = ROWS.contract
    assert contract is not None
    assert contract.key == ("sha256", "extractor_version", "page")
    # Declared without None and without a default: never null. A defaulted field may be null in rows
    # written before it existed; an optional one may be null.
    assert contract.required == ("shard", "label", "mode", "names", "seen_at")
    assert contract.unique == ("label",)
    assert {(b.column, b.low, b.high) for b in contract.bounded} == {("page", 1, None), ("score", 0, 1)}
    ((column, values),) = [(e.column, e.values) for e in contract.enumerated]
    assert column == "mode" and set(values) == {m.value for m in Mode}


def test_rows_that_break_a_declaration_fail_its_expectation(gx: Validation) -> None:
    contract = ROWS.contract
    assert contract is not None
    good = [_row(i) for i in range(3)]
    assert validate(gx, contract, good).success
    bad = [*good, _row(7, mode="SCRIBBLE"), _row(8, score=1.5), _row(9, names=None), _row(2, label="x")]
    failed = {(o.expectation, o.columns): o.unexpected_count for o in validate(gx, contract, bad).failed}
    assert failed == {
        ("expect_column_values_to_be_in_set", ("mode",)): 1,
        ("expect_column_values_to_be_between", ("score",)): 1,
        ("expect_column_values_to_not_be_null", ("names",)): 1,
        ("expect_compound_columns_to_be_unique", ("sha256", "extractor_version", "page")): 2,
    }


def test_a_field_without_a_meaning_or_with_no_arrow_type_is_refused() -> None:
    @dataclass(frozen=True, slots=True)
    class Undocumented:
        sha256: Annotated[Sha256, KEY]
        words: int

    with pytest.raises(TypeError, match=r"Undocumented\.words has no Doc"):
        Table("undocumented", Undocumented, "row", sharded=True)

    @dataclass(frozen=True, slots=True)
    class Untyped:
        tags: Annotated[set[str], Doc("a set")]

    with pytest.raises(TypeError, match=r"Untyped\.tags: no Arrow type for set\[str\]"):
        Table("untyped", Untyped, "row", sharded=False)


def test_a_record_without_a_key_has_no_contract() -> None:
    @dataclass(frozen=True, slots=True)
    class Unkeyed:
        word: Annotated[str, Doc("a word")]

    assert Table("unkeyed", Unkeyed, "word", sharded=False).contract is None


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_tables_rows_round_trip_their_declared_types(name: str) -> None:
    """Each project table's schema takes the Python values its record's types declare (a null where the
    field is optional)."""
    table = TABLES[name]
    samples = {
        str: "x",
        int: 3,
        float: 0.5,
        bool: True,
        list[str]: ["x"],
        list[str | None]: ["x", None],
        list[int]: [1],
        list[list[str]]: [["x"]],
    }
    row = {}
    for f in table.fields:
        value = datetime(2026, 1, 1, tzinfo=UTC) if f.type is datetime else samples[f.type]
        row[f.name] = None if f.nullable else value
    stored = pa.Table.from_pylist([row], schema=table.schema)
    assert stored.to_pylist() == [row]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.one_of(st.none(), st.floats(-1, 2, allow_nan=False)))))
def test_the_derived_contract_counts_what_a_recount_finds(
    gx: Validation, values: list[tuple[int, float | None]]
) -> None:
    contract = ROWS.contract
    assert contract is not None
    rows = [_row(i, label=f"{n}", score=score) for n, (i, score) in enumerate(values)]
    counts = {(o.expectation, o.columns): o.unexpected_count for o in validate(gx, contract, rows).results}
    by_key: dict[int, int] = {}
    for i, _ in values:
        by_key[i] = by_key.get(i, 0) + 1
    assert counts[("expect_compound_columns_to_be_unique", contract.key)] == sum(
        n for n in by_key.values() if n > 1
    )
    outside = sum(1 for _, s in values if s is not None and not 0 <= s <= 1)
    assert counts[("expect_column_values_to_be_between", ("score",))] == outside
