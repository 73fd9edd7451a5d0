"""The tables of the SQL surface (docs/design.md §5): every column with its Arrow type and its meaning.

This module is the public contract. Each table's columns are declared once, on the fields of the row
record its stage writes (readers/core/reading_records.py, quality/records.py, with the vocabulary of
readers/core/columns.py); a :class:`Table` derives its Arrow schema and its contract from the record.
``docs/tables.md`` is generated from it (``python -m warehouse.schema``) and a test keeps the two in step.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

import pyarrow as pa

from quality.contracts import ContractError, TableContract
from quality.outcomes import OutcomeRecord
from quality.records import (
    ChunkRecord,
    CleanTableRecord,
    FontVerdictRecord,
    FurnitureRecord,
    HiddenTextRecord,
    OcrPageRecord,
    PageTextRecord,
    PageVerdictRecord,
    RedactionRecord,
    RepairRecord,
    StoppedRecord,
    TextRecord,
    VocabularyRecord,
)
from readers.core.columns import Field, fields_of
from readers.core.reading_records import (
    DerivationRecord,
    DocumentRecord,
    ExpansionRecord,
    ObservationRecord,
    PageFontRecord,
    PageRecord,
    TableRecord,
    UnderivableRecord,
)


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: pa.DataType
    doc: str


S, I64, F64, B, TS = pa.string(), pa.int64(), pa.float64(), pa.bool_(), pa.timestamp("us", tz="UTC")

#: The Arrow type of each Python type a row record's field may have.
ARROW_TYPES: dict[object, pa.DataType] = {
    str: S,
    int: I64,
    float: F64,
    bool: B,
    datetime: TS,
    list[str]: pa.list_(S),
    list[str | None]: pa.list_(S),  # a list parallel to another, null where an item has no value
    list[int]: pa.list_(I64),
    list[list[str]]: pa.list_(pa.list_(S)),
}


def arrow_type(field: Field, record: type) -> pa.DataType:
    try:
        return ARROW_TYPES[field.type]
    except KeyError:
        known = ", ".join(str(t) for t in ARROW_TYPES)
        where = f"{record.__name__}.{field.name}"
        raise TypeError(f"{where}: no Arrow type for {field.type} (known: {known})") from None


@dataclass(frozen=True)
class Table:
    """One table: its name, the row record whose fields are its columns (a frozen dataclass, every field
    annotated with its ``Doc``: readers/core/columns.py), what one row is, and whether it is stored by
    shard. Its fields and Arrow columns are derived from the record when it is declared."""

    name: str
    record: type
    one_row_per: str
    sharded: bool
    fields: tuple[Field, ...] = dataclasses.field(init=False, compare=False)
    columns: tuple[Column, ...] = dataclasses.field(init=False, compare=False)

    def __post_init__(self) -> None:
        fields = fields_of(self.record)
        object.__setattr__(self, "fields", fields)
        object.__setattr__(
            self, "columns", tuple(Column(f.name, arrow_type(f, self.record), f.doc) for f in fields)
        )

    @cached_property
    def contract(self) -> TableContract | None:
        """What the table's rows promise (quality/contracts.py), from its record's fields; None when the
        record declares no key."""
        return TableContract.of(self.name, self.fields)

    @property
    def schema(self) -> pa.Schema:
        return pa.schema(
            [pa.field(c.name, c.type, metadata={"doc": c.doc}) for c in self.columns],
            metadata={"table": self.name},
        )

    def empty(self) -> pa.Table:
        """No rows, this schema. (pyarrow's ``Schema.empty_table`` imports pandas: half a second.)"""
        schema = self.schema
        return pa.Table.from_arrays([pa.nulls(0, f.type) for f in schema], schema=schema)

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


OBSERVATIONS = Table(
    "observations",
    ObservationRecord,
    "path seen by a walk (the latest walk of its root)",
    sharded=False,
)

DOCUMENTS = Table(
    "documents",
    DocumentRecord,
    "distinct content: identical bytes are one document",
    sharded=True,
)

EXPANSIONS = Table(
    "expansions",
    ExpansionRecord,
    "container document (e-mail, zip, PDF) and what the latest walk made of its members",
    sharded=False,
)

DERIVATIONS = Table(
    "derivations",
    DerivationRecord,
    "document and extractor version",
    sharded=True,
)

UNDERIVABLES = Table(
    "underivables",
    UnderivableRecord,
    "attempt that produced nothing",
    sharded=True,
)

PAGES = Table(
    "pages",
    PageRecord,
    "page of a PDF, or the whole of any other derived document",
    sharded=True,
)

PAGE_FONTS = Table(
    "page_fonts",
    PageFontRecord,
    "font used on a page, with the lexicon evidence of the text drawn in it",
    sharded=True,
)

TABLES_FOUND = Table(
    "tables",
    TableRecord,
    "table found in a PDF (tagged, ruled or aligned) or declared by an Office, OpenDocument or HTML "
    "document's markup, as data",
    sharded=True,
)

PAGE_VERDICTS = Table(
    "page_verdicts",
    PageVerdictRecord,
    "page and extractor version: what the page's text is worth, and why",
    sharded=True,
)

FONT_VERDICTS = Table(
    "font_verdicts",
    FontVerdictRecord,
    "font of a document: the per-font evidence across its pages",
    sharded=True,
)

REPAIRS = Table(
    "repairs",
    RepairRecord,
    "page whose garbage text was replaced without OCR: by the fallback reader or a font repair",
    sharded=True,
)

VOCABULARY = Table(
    "vocabulary",
    VocabularyRecord,
    "word the shipped lexicon misses that several documents of the corpus use",
    sharded=False,
)

OCR_PAGES = Table(
    "ocr_pages",
    OcrPageRecord,
    "reading of a page sent to OCR, by one engine (Tesseract reads each page; RapidOCR some again)",
    sharded=True,
)

PAGE_TEXTS = Table(
    "page_texts",
    PageTextRecord,
    "judged page: the text it ends with and where that text came from (quality/sources.py)",
    sharded=True,
)

TEXTS = Table(
    "texts",
    TextRecord,
    "derived document: its clean text (quality/sanitizer.py), with where each page starts",
    sharded=True,
)

REDACTIONS = Table(
    "redactions",
    RedactionRecord,
    "personal datum removed from a text (never its value)",
    sharded=True,
)

HIDDEN_TEXT = Table(
    "hidden_text",
    HiddenTextRecord,
    "run of invisible text taken out of a page (not an OCR layer)",
    sharded=True,
)

FURNITURE = Table(
    "furniture",
    FurnitureRecord,
    "running header or footer line taken out of a page",
    sharded=True,
)

CLEAN_TABLES = Table(
    "clean_tables",
    CleanTableRecord,
    "table of `tables` whose document was sanitized: its cells and markdown with the text's placeholders",
    sharded=True,
)

UNSANITIZED = Table(
    "unsanitized",
    StoppedRecord,
    "document whose pages' text sanitize could not make a clean text of (over its budget, or failed)",
    sharded=True,
)

CHUNKS = Table(
    "chunks",
    ChunkRecord,
    "retrieval-sized piece of a text, with its evidence (quality/chunking.py)",
    sharded=True,
)

UNCHUNKED = Table(
    "unchunked",
    StoppedRecord,
    "clean text that could not be chunked (over its budget, or failed)",
    sharded=True,
)


TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        OBSERVATIONS,
        DOCUMENTS,
        EXPANSIONS,
        DERIVATIONS,
        UNDERIVABLES,
        PAGES,
        PAGE_FONTS,
        TABLES_FOUND,
        PAGE_VERDICTS,
        FONT_VERDICTS,
        REPAIRS,
        VOCABULARY,
        OCR_PAGES,
        PAGE_TEXTS,
        TEXTS,
        REDACTIONS,
        HIDDEN_TEXT,
        FURNITURE,
        CLEAN_TABLES,
        UNSANITIZED,
        CHUNKS,
        UNCHUNKED,
    )
}


def contract_for(name: str) -> TableContract:
    """The contract of the table ``name``; ContractError when there is no such table or it has none."""
    table = TABLES.get(name)
    if table is None or table.contract is None:
        known = ", ".join(n for n, t in TABLES.items() if t.contract is not None)
        raise ContractError(f"no contract for table {name!r}; known: {known}")
    return table.contract


@dataclass(frozen=True, slots=True)
class View:
    """A view the catalog derives from the tables (warehouse/duckdb_catalog.py), documented beside them."""

    name: str
    one_row_per: str
    columns: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, name: str, one_row_per: str, record: type) -> View:
        """A view whose rows are ``record``'s: its columns and their meanings are the record's fields."""
        return cls(name, one_row_per, tuple((f.name, f.doc) for f in fields_of(record)))


VIEWS: dict[str, View] = {
    v.name: v
    for v in (
        View.of(
            "outcomes",
            "document and extractor version: what the document finally yielded after every stage, the one "
            "outcome the run summary, `assay check`, the rate checks and `version_diff_rates` count "
            "(`all_outcomes`: every version). The rules, in order: a derivation `error`, `unsupported` or "
            "`skipped` is the outcome; a document sanitize could not make a clean text of (`unsanitized`) "
            "is `error`; a document none of whose judged pages ends with text is "
            "`underivable`; otherwise the furthest stage any page's final text came from: `ocr`, then "
            "`repaired`, then `fallback` (or a derivation recovered by fallback), else `derived`",
            OutcomeRecord,
        ),
        View(
            "lineage",
            "edge of a document's derivation graph (`all_lineage`: every version)",
            (
                ("sha256", "the document"),
                ("extractor_version", "extractor version of the edge's rows"),
                (
                    "from",
                    "node the edge leaves: `path:`, `doc:`, `page:<n>:<mode>`, `page_text:<n>:<source>`...",
                ),
                (
                    "to",
                    "node the edge reaches: `doc:`, `members:<status>:<reason>` (a container without "
                    "children), `derivation:<status>`, `ocr:`, `text:`, `chunk:<id>`...",
                ),
                ("stage", "walk, extract, verdicts, ocr, sanitize or chunk"),
                ("tool", "the reader, engine or stage that made the edge"),
                ("tool_version", "its version"),
            ),
        ),
        View(
            "version_diff",
            "page under the current or the previous extractor version (the most recent other one on disk)",
            (
                ("sha256", "the document"),
                ("page", "1-based page"),
                ("kind", "content kind"),
                ("old_version", "the previous extractor version"),
                ("new_version", "the current extractor version"),
                ("old_mode", "the page's mode under the previous version (null: no such page)"),
                ("new_mode", "the page's mode under the current version (null: no such page)"),
                ("old_reasons", "reason codes under the previous version"),
                ("new_reasons", "reason codes under the current version"),
                ("old_reader", "reader of the document's derivation under the previous version"),
                ("new_reader", "reader under the current version"),
                ("old_reader_version", "that reader's version under the previous version"),
                ("new_reader_version", "that reader's version under the current version"),
                ("text_changed", "the page's extracted text differs"),
                (
                    "change",
                    "the first of added, removed, mode, text, reasons, reader that applies, else same",
                ),
            ),
        ),
        View(
            "version_diff_rates",
            "content kind, current against previous extractor version",
            (
                ("kind", "content kind"),
                ("old_version", "the previous extractor version"),
                ("new_version", "the current extractor version"),
                ("old_documents", "documents of the kind under the previous version"),
                ("new_documents", "documents of the kind under the current version"),
                ("old_fallback", "documents whose outcome is `fallback` (`outcomes`), previous version"),
                ("new_fallback", "the same, current version"),
                ("old_underivable", "documents whose outcome is `underivable`, previous version"),
                ("new_underivable", "the same, current version"),
                (
                    "old_fallback_rate",
                    "`fallback` documents over the documents with text (outcome derived, fallback, "
                    "repaired or ocr), previous version: the fallback-rate check's figure",
                ),
                ("new_fallback_rate", "the same, current version"),
                (
                    "old_underivable_rate",
                    "`underivable` documents over those a reader was tried on (with text, underivable or "
                    "error), previous version: the Underivable-rate check's figure",
                ),
                ("new_underivable_rate", "the same, current version"),
                (
                    "pages_mode_changed",
                    "pages of the kind whose mode changed (`version_diff.change = 'mode'`)",
                ),
                ("pages_changed", "pages of the kind with any change"),
            ),
        ),
    )
}


# Which tables hold personal data as the documents hold it (raw) and which are sanitized: every text
# column of a sanitized table has its personal data replaced by placeholders (quality/pii.py), as far as
# the redact_kinds setting asks. (table or output, columns, raw or sanitized, why)
PERSONAL_DATA: tuple[tuple[str, str, str, str], ...] = (
    ("observations", "`root`, `path`, `rel_path`", "raw", "file names are what they are"),
    ("observations", "`reason`", "raw", "the OS error quotes the path"),
    ("documents", "`path`, `member`", "raw", "a file or a zip member can be named after a person"),
    ("expansions", "`member_names`", "raw", "each member's name (documents.member)"),
    ("expansions", "`detail`", "raw", "a library's message may quote a member's name"),
    ("derivations, underivables", "`reason`", "raw", "an exception's message may quote a name"),
    ("underivables", "`detail`", "raw", "the message, for people"),
    ("derivations", "`diagnostics`", "raw", "a library's message may quote a name or the document's text"),
    (
        "pages",
        "`text`, `hidden_text`, `artifacts`, `font_names`",
        "raw",
        "the readers' text, before sanitize",
    ),
    (
        "pages, page_texts, texts, chunks",
        "`label`, `page_labels`",
        "raw",
        "a page's label as the document prints it (xii, A-3): not scanned for personal data",
    ),
    (
        "tables",
        "`cells`, `markdown`",
        "raw",
        "a PDF table's cells as the reader read them (the same text as in pages.text), before sanitize; "
        "clean_tables holds them sanitized",
    ),
    ("page_fonts, font_verdicts", "`font`", "raw", "font names as the PDF names them"),
    (
        "page_verdicts, version_diff",
        "`reasons`, `old_reasons`, `new_reasons`",
        "raw",
        "a reason code can name a font (font_garbled:<font>)",
    ),
    ("repairs", "`text`", "raw", "a page's text after a fallback or a font repair, before sanitize"),
    ("vocabulary", "`word`", "raw", "words of three or more documents (a surname can be one)"),
    ("ocr_pages", "`text`", "raw", "what the OCR engine read"),
    ("page_texts", "`text`", "raw", "each page's final text, before sanitize"),
    ("outcomes", "`path`, `reason`", "raw", "documents.path, and the derivation's reason"),
    ("lineage", "`from`, `tool`", "raw", "its `path:` nodes are documents.path; a member's edge names it"),
    ("texts", "`text`", "sanitized", "placeholders; offsets in redactions"),
    ("redactions", "all", "sanitized", "kind, page, offsets and placeholder; never the value"),
    (
        "hidden_text",
        "`text`",
        "sanitized",
        "the run with the text's placeholders (the raw run is pages.hidden_text)",
    ),
    ("furniture", "`text`", "sanitized", "the line with the text's placeholders"),
    (
        "clean_tables",
        "`cells`, `markdown`",
        "sanitized",
        "tables.cells and tables.markdown with the text's placeholders (⟨EMAIL_1⟩ is the same datum in both)",
    ),
    ("chunks", "`text`, `heading_path`", "sanitized", "pieces of texts.text"),
    (
        "search index (`search.duckdb`), `assay search`",
        "every table; path, snippet, headings",
        "sanitized",
        "chunks' text, and each path with the personal data of its components as placeholders "
        "(quality/pii.py redact_path)",
    ),
    (
        "`assay export`",
        "file names; text; front matter `path`; JSON `path`, `member`, chunks",
        "sanitized",
        "texts.text and chunks, and each path and name as search shows it (redact_path)",
    ),
    ("`assay export --raw`", "JSON `raw_text` of each page", "raw", "page_texts.text, asked for"),
)


def markdown() -> str:
    """The tables as markdown, for ``docs/tables.md``."""
    out = [
        "# Tables and views",
        "",
        "Generated from `warehouse/schema.py` by `python -m warehouse.schema > docs/tables.md`; do not edit.",
        "",
        "Each table is a view in the catalog (`assay sql`). The unqualified view shows the current extractor",
        "version; `all_<view>` shows every version kept on disk. The `pages` view also carries each page's",
        "`mode`, `reasons`, `provenance` and `text_source` from `page_verdicts`.",
        "",
    ]
    for table in TABLES.values():
        out += [f"## `{table.name}`", "", f"One row per {table.one_row_per}.", ""]
        out += ["| column | type | meaning |", "|---|---|---|"]
        out += [f"| `{c.name}` | {c.type} | {c.doc} |" for c in table.columns]
        out.append("")
    out += ["# Derived views", "", "Views the catalog computes from the tables above.", ""]
    for view in VIEWS.values():
        out += [f"## `{view.name}`", "", f"One row per {view.one_row_per}.", ""]
        out += ["| column | meaning |", "|---|---|"]
        out += [f"| `{name}` | {doc} |" for name, doc in view.columns]
        out.append("")
    out += [
        "# Personal data",
        "",
        "Which tables hold personal data as the documents hold it (raw) and which are sanitized: in a",
        "sanitized table every personal datum of the kinds `redact_kinds` names is a placeholder",
        "(`⟨EMAIL_1⟩`, stable within a document). Tables not listed hold no text of the documents (ids,",
        "counts, modes, reason codes, offsets). Give the sanitized ones to readers of the corpus; the raw",
        "ones are evidence for the people who run it.",
        "",
        "| table or output | columns | data | why |",
        "|---|---|---|---|",
    ]
    out += [f"| {table} | {columns} | {kind} | {why} |" for table, columns, kind, why in PERSONAL_DATA]
    out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(markdown())
