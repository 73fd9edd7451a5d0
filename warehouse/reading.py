"""What a query of the catalog may be, unless external access is asked for: reading, decided on the
statements as DuckDB itself parses and tokenizes them.

A SELECT (with DESCRIBE, SHOW, SUMMARIZE, FROM ..., VALUES) or a CALL of a table function is reading; a
PRAGMA is when it is one of the pragmas that only show something; an EXPLAIN is when its explained
statement is, and it is not EXPLAIN ANALYZE, which runs that statement. COPY, EXPORT, ATTACH, INSTALL,
LOAD, SET, CREATE ... are refused before anything runs, as are the table functions that act rather than
read (a checkpoint, the logs, external resources). This is the barrier against writing: DuckDB's file
sandbox has no read-only directory, and the views need the warehouse's tables folder allowed to read it
(docs/decisions.md, "assay sql reads only").
"""

from __future__ import annotations

import duckdb

from warehouse.warehouse_errors import WarehouseError

_READING = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.CALL})

#: The pragmas that only show something (the others set an option, or run the SQL of a file).
READING_PRAGMAS = frozenset(
    {
        "collations",
        "database_list",
        "database_size",
        "extension_versions",
        "functions",
        "metadata_info",
        "platform",
        "show",
        "show_databases",
        "show_tables",
        "show_tables_expanded",
        "storage_info",
        "table_info",
        "user_agent",
        "version",
    }
)

#: Table functions a SELECT or CALL can name that act instead of reading (most are also held back by the
#: locked configuration; these are refused by name so none depends on it).
ACTING_FUNCTIONS = frozenset(
    {
        "add_grammar_extension",
        "checkpoint",
        "create_external_resource",
        "deregister_external_resource",
        "destroy_external_resource",
        "disable_logging",
        "disable_profiling",
        "enable_logging",
        "enable_profiling",
        "force_checkpoint",
        "register_external_resource",
        "register_external_resource_type",
        "remove_grammar_extension",
        "truncate_duckdb_logs",
    }
)

_ANALYZE = frozenset({"analyze", "analyse"})
_HINT = "pass --allow-external to run it, which lets the query write files"


def require_reading(sql: str) -> None:
    """Raise :class:`WarehouseError` unless every statement of ``sql`` only reads."""
    for statement in _statements(sql):
        refused = _refusal(statement)
        if refused is not None:
            raise WarehouseError(f"queries only read the catalog: {refused} is refused ({_HINT})")


def _statements(sql: str) -> list[duckdb.Statement]:
    try:
        return duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise WarehouseError(f"query failed: {exc}") from exc


def _words(sql: str) -> list[tuple[int, str]]:
    """The tokens of ``sql`` as DuckDB's tokenizer cuts it, comments left out: (offset, text), where the
    text of an operator is its parentheses alone (so a string holding one is not mistaken for it)."""
    tokens = duckdb.tokenize(sql)
    words = []
    for i, (offset, kind) in enumerate(tokens):
        end = tokens[i + 1][0] if i + 1 < len(tokens) else len(sql)
        text = sql[offset:end].strip()
        if kind == duckdb.token_type.operator:
            words.append((offset, "".join(c for c in text if c in "()") or text))
        elif kind != duckdb.token_type.comment:
            words.append((offset, text))
    return words


def _refusal(statement: duckdb.Statement) -> str | None:
    """What in ``statement`` is refused, or None when it only reads."""
    words = _words(statement.query)
    if statement.type == duckdb.StatementType.EXPLAIN:
        return _explain_refusal(statement.query, words)
    if statement.type == duckdb.StatementType.PRAGMA:
        name = words[1][1].lower() if len(words) > 1 else ""
        if name not in READING_PRAGMAS:
            return f"PRAGMA {name} (only those that show something, such as show_tables and table_info, run)"
        return None
    if statement.type not in _READING:
        return words[0][1].upper() if words else statement.type.name
    for _, word in words:
        name = word.strip('"').lower()
        if name in ACTING_FUNCTIONS:
            return f"{name}(), which acts rather than reads,"
    return None


def _explain_refusal(sql: str, words: list[tuple[int, str]]) -> str | None:
    """EXPLAIN [(options)] STATEMENT: refused with ANALYZE (it runs STATEMENT), or unless STATEMENT reads."""
    analyze = "EXPLAIN ANALYZE, which runs the statement it explains,"
    rest = words[1:]
    if rest and rest[0][1].lower() in _ANALYZE:
        return analyze
    start = rest[0][0] if rest else len(sql)
    if rest and rest[0][1] == "(" and not _parses(sql[start:]):
        # An option list, "(FORMAT json, ...)": the statement follows its closing parenthesis.
        depth = 0
        for i, (_, word) in enumerate(rest):
            if word.lower() in _ANALYZE:
                return analyze
            if word and set(word) <= {"(", ")"}:
                depth += word.count("(") - word.count(")")
            if depth == 0:
                start = rest[i + 1][0] if i + 1 < len(rest) else len(sql)
                break
    explained = _statements(sql[start:])
    if len(explained) != 1 or explained[0].type == duckdb.StatementType.EXPLAIN:
        return "an EXPLAIN that does not explain one statement"
    refused = _refusal(explained[0])
    return None if refused is None else f"an EXPLAIN of {refused.removesuffix(',')}"


def _parses(sql: str) -> bool:
    try:
        return len(duckdb.extract_statements(sql)) == 1
    except duckdb.Error:
        return False
