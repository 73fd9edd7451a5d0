"""Full-text search over the chunks: BM25 in DuckDB, in an index file of its own beside the catalog.

Why not DuckDB's ``fts`` extension: extensions are binaries built for one DuckDB release, and offline the
only way to get ``fts`` is the PyPI package ``duckdb-extension-fts``, whose newest release (1.5.5)
requires ``duckdb==1.5.5`` (its wheel holds ``extensions/v1.5.5/fts.duckdb_extension``); this project
runs DuckDB 2.x, which refuses to load it, and ``INSTALL fts`` needs the network. So the index is the
same thing built in plain SQL: a ``terms`` table of (term, chunk, term frequency), the chunk lengths and
the document frequencies, and the Okapi BM25 formula in one query. It is Lucene's, with
``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``, ``k1 = 1.2`` and ``b = 0.75``: the ``fts`` extension's
formula and defaults (which take the logarithm in base 10, for the same ranking), so the scores are
real BM25 scores.

Tokens (one definition, :data:`TOKEN_PATTERN`, used in SQL at index and at query time alike): runs of
letters, marks and digits; each Chinese or Japanese ideograph or kana on its own (as Lucene's standard
analyzer does: those scripts put no spaces between words). Lower-cased, soft hyphens dropped, and the
accents of Latin, Greek, Cyrillic, Hebrew and Arabic tokens stripped ("resume" finds "résumé"); tokens of
other scripts keep their marks, which are letters' vowels there (Devanagari's would be mangled). No
stemmer and no stop words: the corpus mixes languages, and a stemmer is one language's (``fts``'s
default is Porter's English one, its Snowball stemmers one language per index), conflating other
languages' words at random. Exact word forms cost some recall on inflections and buy a phrase search
that finds exactly the phrase.

The catalog file holds views only and is opened read-only, so the index is a file of its own,
``<warehouse>/search.duckdb``: built into a temporary file and renamed over the old one, like the
catalog, whenever the fingerprint of what it was built from changes (the paths, sizes and modification
times of the ``chunks`` and ``documents`` partitions of the version, the tokenizer's version, and what
the path redaction redacts).

The index is a sanitized output: it holds the chunks (sanitized text) and the path each document is
shown at, and a path is raw data (a file or an archive member can be named after a person, or
"jane@example.org IBAN DE89....txt"). So the paths are stored as a :class:`PathRedaction` gives them
(quality/pii.py ``PathRedactor``: the personal data in each component replaced by placeholders); an
index built without one stores no path at all (a hit shows its document's sha256). The raw paths stay
in ``documents`` and ``observations``.

Ranking: the chunks that contain the query's words as one phrase (same tokens, in order) come first,
each group by BM25 score; a user who types a phrase means that phrase. A hit names the page of its
match (the phrase, else the snippet's first matched word) from the chunk's ``page_offsets``, so a chunk
that spans pages 3-4 still sends the reader to the right one.
"""

from __future__ import annotations

import bisect
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import duckdb
import pyarrow as pa
import regex

from readers.core.atomic import written_whole
from warehouse.duckdb_catalog import catalog_version
from warehouse.store import Warehouse, files_fingerprint
from warehouse.warehouse_errors import CatalogMissing, WarehouseError

INDEX_FILE = "search.duckdb"
CHUNKS_TABLE = "chunks"
# Bumped whenever the tokens or the index layout change: an index built by another version is rebuilt.
# 2: paths stored redacted. 3: the chunks' page labels stored, for a hit's printed page.
TOKENIZER_VERSION = "3"
# Okapi BM25 parameters, the values of Lucene and of DuckDB's fts extension: k1 saturates term frequency
# (a word's tenth occurrence adds little), b normalises by chunk length (1: fully, 0: not at all). Our
# chunks are of nearly one size (quality/chunking.py), so b matters little; no corpus of labelled queries
# exists to tune either, and the textbook values are the ones every BM25 result is compared against.
BM25_K1 = 1.2
BM25_B = 0.75
# BM25 candidates re-ranked by the phrase test: a chunk with the whole phrase has every query word and
# is near the top of BM25 anyway; 200 leaves room for many near-duplicates (overlaps, repeated tables).
PHRASE_CANDIDATES = 200
# Characters of context shown around the matches: two terminal lines.
SNIPPET_CHARS = 220

# Letters, marks and digits (not punctuation, symbols, separators or controls), CJK ideographs and kana
# one by one. Written once for both RE2 (DuckDB) and the `regex` module (the snippets).
TOKEN_PATTERN = r"[^\p{P}\p{S}\p{Z}\p{C}\p{Han}\p{Hiragana}\p{Katakana}]+|[\p{Han}\p{Hiragana}\p{Katakana}]"
# Tokens whose accents are dropped: scripts where marks are accents (or vowel points), not vowels.
FOLD_PATTERN = r"[\p{Latin}\p{Greek}\p{Cyrillic}\p{Hebrew}\p{Arabic}\p{M}\p{N}]+"
_TOKEN_RE = regex.compile(TOKEN_PATTERN)
_FOLD_RE = regex.compile(FOLD_PATTERN)


def tokens_sql(expr: str) -> str:
    """The SQL list of the tokens of ``expr`` (a VARCHAR expression)."""
    normalized = f"lower(nfc_normalize(replace({expr}, chr(173), '')))"
    return (
        f"[CASE WHEN regexp_full_match(t, '{FOLD_PATTERN}') THEN strip_accents(t) ELSE t END "
        f"FOR t IN regexp_extract_all({normalized}, '{TOKEN_PATTERN}')]"
    )


def normalize_token(token: str) -> str:
    """A token as the index holds it (Python's mirror of :func:`tokens_sql`, for the snippets)."""
    token = unicodedata.normalize("NFC", token).lower().replace("ς", "σ")
    if _FOLD_RE.fullmatch(token):
        token = "".join(c for c in unicodedata.normalize("NFD", token) if not unicodedata.combining(c))
    return token


def tokenize(text: str) -> list[str]:
    return [normalize_token(m.group()) for m in _TOKEN_RE.finditer(text.replace("\xad", ""))]


class PathRedaction(Protocol):
    """How a document's path is shown in the index: the path with its personal data replaced, and a
    ``signature`` that changes whenever what it replaces does."""

    @property
    def signature(self) -> str: ...

    def __call__(self, path: str) -> str: ...


class NoChunks(WarehouseError):
    """There is nothing to search: no chunks were written for this home yet."""


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """What the index needs of one row of the ``chunks`` table (any object with these attributes will do)."""

    chunk_id: str
    sha256: str
    ordinal: int
    heading_path: tuple[str, ...] | list[str]
    page_start: int
    page_end: int
    text: str
    trust: float | None
    # where in ``text`` each page of page_start..page_end begins (quality/chunking.py); None: not known
    page_offsets: tuple[int, ...] | list[int] | None = None
    # the printed label of each page of page_start..page_end, parallel to page_offsets; None: not known
    page_labels: tuple[str | None, ...] | list[str | None] | None = None


@dataclass(frozen=True, slots=True)
class SearchHit:
    chunk_id: str
    sha256: str
    path: str  # where the document was seen, redacted; a member shows as "<container> › <member>"
    page_start: int
    page_end: int
    page: int | None  # the page of the match (the phrase, else the snippet's first word); None: unknown
    heading_path: tuple[str, ...]
    score: float  # BM25
    snippet: str  # whitespace collapsed, "…" where cut
    highlights: tuple[tuple[int, int], ...]  # [start, end) of the query's words in the snippet
    ordinal: int
    trust: float | None
    phrase: bool  # the chunk holds the query's words as one phrase
    label: str | None = None  # the printed label of ``page`` ("xii", "A-3"); None: it has none, or unknown


_CHUNK_SCHEMA = pa.schema(
    [
        ("chunk_id", pa.string()),
        ("sha256", pa.string()),
        ("ordinal", pa.int64()),
        ("heading_path", pa.list_(pa.string())),
        ("page_start", pa.int64()),
        ("page_end", pa.int64()),
        ("text", pa.string()),
        ("trust", pa.float64()),
        ("page_offsets", pa.list_(pa.int64())),
        ("page_labels", pa.list_(pa.string())),
    ]
)


# -- building ------------------------------------------------------------------------------------------


def build_index(
    rows: Iterable[ChunkRow],
    path_of: Mapping[str, str],
    target: Path,
    *,
    redact_path: PathRedaction | None = None,
    fingerprint: str = "",
) -> int:
    """Build the index of ``rows`` at ``target`` (atomically); ``path_of`` maps a document's sha256 to the
    path to show, stored as ``redact_path`` gives it (``None``: no path is stored, a hit shows its
    document's sha256). Returns the number of chunks indexed."""
    columns: dict[str, list[object]] = {name: [] for name in _CHUNK_SCHEMA.names}
    for row in rows:
        for name in _CHUNK_SCHEMA.names:
            value = getattr(row, name, None)
            columns[name].append(list(value) if isinstance(value, tuple) else value)
    source = pa.table(columns, schema=_CHUNK_SCHEMA)

    def load(con: duckdb.DuckDBPyConnection) -> None:
        con.register("chunk_rows", source)
        con.execute("CREATE TEMP TABLE src AS SELECT * FROM chunk_rows")
        con.unregister("chunk_rows")

    return _build(target, fingerprint, load, _shown(path_of, redact_path))


def _shown(path_of: Mapping[str, str], redact_path: PathRedaction | None) -> dict[str, str]:
    """The paths the index stores: redacted, or none at all without a redaction."""
    if redact_path is None:
        return {}
    return {sha: redact_path(path) for sha, path in path_of.items()}


def _signature(redact_path: PathRedaction | None) -> str:
    return "withheld" if redact_path is None else redact_path.signature


def _build(
    target: Path,
    fingerprint: str,
    load: Callable[[duckdb.DuckDBPyConnection], None],
    path_of: Mapping[str, str],
) -> int:
    """``path_of``: the paths to store, already redacted."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with written_whole(target, name=target.stem, companions=(".wal",)) as tmp:
            con = duckdb.connect(str(tmp))
            try:
                load(con)
                paths = pa.table(
                    {"sha256": list(path_of.keys()), "path": list(path_of.values())},
                    schema=pa.schema([("sha256", pa.string()), ("path", pa.string())]),
                )
                con.register("path_rows", paths)
                con.execute("CREATE TEMP TABLE paths AS SELECT * FROM path_rows")
                con.unregister("path_rows")
                count = _populate(con, fingerprint)
                con.execute("CHECKPOINT")
            finally:
                con.close()
    except duckdb.Error as exc:
        raise WarehouseError(f"could not build the search index at {target}: {exc}") from exc
    return count


def _populate(con: duckdb.DuckDBPyConnection, fingerprint: str) -> int:
    """The index tables from the temporary tables ``src`` (chunk rows) and ``paths`` (sha256, path)."""
    con.execute(
        "CREATE TABLE chunks AS SELECT "
        "CAST(row_number() OVER (ORDER BY s.sha256, s.ordinal, s.chunk_id) AS INTEGER) AS docid, "
        "s.chunk_id, s.sha256, s.ordinal, CAST(s.heading_path AS VARCHAR[]) AS heading_path, "
        "s.page_start, s.page_end, CAST(s.page_offsets AS BIGINT[]) AS page_offsets, "
        "CAST(s.page_labels AS VARCHAR[]) AS page_labels, s.trust, "
        "coalesce(p.path, s.sha256) AS path, s.text, 0 AS len "
        "FROM src s LEFT JOIN paths p ON p.sha256 = s.sha256 WHERE s.text IS NOT NULL"
    )
    con.execute(
        "CREATE TEMP TABLE postings AS SELECT docid, unnest(" + tokens_sql("text") + ") AS term FROM chunks"
    )
    # sorted by term, so a query's few terms touch few row groups (DuckDB's min/max zone maps)
    con.execute(
        "CREATE TABLE terms AS SELECT term, docid, CAST(count(*) AS INTEGER) AS tf "
        "FROM postings GROUP BY term, docid ORDER BY term, docid"
    )
    con.execute(
        "UPDATE chunks SET len = l.n FROM (SELECT docid, sum(tf) AS n FROM terms GROUP BY docid) l "
        "WHERE chunks.docid = l.docid"
    )
    (count,) = con.execute("SELECT count(*) FROM chunks").fetchone() or (0,)
    # idf as Lucene and fts have it: never negative, however common the term
    con.execute(
        "CREATE TABLE dictionary AS SELECT term, count(*) AS df, "
        "ln(1 + (? - count(*) + 0.5) / (count(*) + 0.5)) AS idf FROM terms GROUP BY term ORDER BY term",
        [count],
    )
    con.execute(
        "CREATE TABLE info AS SELECT ? AS fingerprint, ? AS tokenizer, CAST(? AS BIGINT) AS chunks, "
        "greatest(1.0, coalesce((SELECT avg(len) FROM chunks), 1.0)) AS avg_len, "
        "CAST(? AS TIMESTAMPTZ) AS built_at, ? AS k1, ? AS b",
        [
            fingerprint,
            TOKENIZER_VERSION,
            count,
            datetime.now(UTC).isoformat(timespec="seconds"),
            BM25_K1,
            BM25_B,
        ],
    )
    return int(count)


# -- the warehouse's chunks ------------------------------------------------------------------------------


def index_path(wh: Warehouse) -> Path:
    return wh.root / INDEX_FILE


def _fingerprint(wh: Warehouse, version: str, redaction: str) -> str:
    files = [path for table in (CHUNKS_TABLE, "documents") for path in wh.shard_files(table, version)]
    return files_fingerprint(files, wh.data_dir, f"{TOKENIZER_VERSION}\x00{version}\x00{redaction}")


def document_paths(wh: Warehouse, version: str) -> dict[str, str]:
    """The path to show for each document: where it was seen, or "<container> › <member>" for a member
    (an attachment, an archive's file), its container's path resolved the same way."""
    rows = wh.columns("documents", version, ("sha256", "parent_sha256", "member", "path"))
    known = {sha: (parent, member, path) for sha, parent, member, path in rows}
    out: dict[str, str] = {}

    def resolve(sha: str, depth: int = 0) -> str:
        if sha in out:
            return out[sha]
        parent, member, path = known.get(sha, (None, None, sha))
        if parent and member and parent in known and depth < 16:
            shown = f"{resolve(parent, depth + 1)} › {member}"
        else:
            shown = path or sha
        out[sha] = shown
        return shown

    for sha in known:
        resolve(sha)
    return out


def ensure_index(wh: Warehouse, version: str, *, redact_path: PathRedaction | None = None) -> Path:
    """The index of ``version``'s chunks, rebuilt first when they or the path redaction changed since it
    was built."""
    chunk_files = wh.shard_files(CHUNKS_TABLE, version)
    if not chunk_files:
        raise NoChunks(
            f"no chunks yet under {wh.root}: run `assay run PATH` first (or pass the --home you used)"
        )
    target = index_path(wh)
    fingerprint = _fingerprint(wh, version, _signature(redact_path))
    if _built_fingerprint(target) == fingerprint:
        return target
    # The readable files, not a glob: one cut short is left to the next run to write again.
    files = [str(p) for p in chunk_files]

    def load(con: duckdb.DuckDBPyConnection) -> None:
        parquet = "read_parquet(?, union_by_name = true, hive_partitioning = false)"
        present = {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {parquet}", [files]).fetchall()}
        # page_offsets and page_labels are optional: without the first a hit spanning pages has no
        # single page, without the second a page has no printed label
        optional = {"page_offsets": "BIGINT[]", "page_labels": "VARCHAR[]"}
        cols = ", ".join(
            n if n in present or n not in optional else f"CAST(NULL AS {optional[n]}) AS {n}"
            for n in _CHUNK_SCHEMA.names
        )
        con.execute(f"CREATE TEMP TABLE src AS SELECT {cols} FROM {parquet}", [files])

    _build(target, fingerprint, load, _shown(document_paths(wh, version), redact_path))
    return target


def _built_fingerprint(target: Path) -> str | None:
    if not target.exists():
        return None
    try:
        con = duckdb.connect(str(target), read_only=True)
        try:
            row = con.execute("SELECT fingerprint, tokenizer FROM info").fetchone()
        finally:
            con.close()
    except duckdb.Error:
        return None
    return row[0] if row and row[1] == TOKENIZER_VERSION else None


# -- searching -------------------------------------------------------------------------------------------


def search(
    wh: Warehouse,
    query: str,
    *,
    redact_path: PathRedaction | None = None,
    limit: int = 10,
    version: str | None = None,
) -> list[SearchHit]:
    """The best ``limit`` chunks for ``query`` among the chunks of ``version`` (default: the version the
    catalog was last built for, the one `assay sql` shows), building or refreshing the index first
    (its paths as ``redact_path`` shows them)."""
    if version is None:
        version = catalog_version(wh)
        if version is None:
            raise CatalogMissing(
                f"no catalog at {wh.catalog_path}: run `assay run PATH` first (or pass the --home you used)"
            )
    return query_index(ensure_index(wh, version, redact_path=redact_path), query, limit=limit)


#: Candidates fetched per hit asked for, so that hits dropped as duplicates (the same document, page and
#: matched words in the same context: a split table repeats its header in each of its chunks, overlaps
#: repeat a passage) leave the list full.
DUPLICATE_ROOM = 3
#: Two hits are one when each matched word stands in the same this many characters either side of it.
MATCH_CONTEXT_CHARS = 40


def _matched_context(snippet: Snippet) -> tuple[str, ...]:
    text, around = snippet.text, MATCH_CONTEXT_CHARS
    if not snippet.highlights:
        return (text,)
    return tuple(text[max(0, a - around) : b + around] for a, b in snippet.highlights)


def query_index(path: Path, query: str, *, limit: int = 10) -> list[SearchHit]:
    """Search one index file, read-only; a hit that shows the same document, page and snippet as a better
    one is left out."""
    if limit < 1:
        return []
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise WarehouseError(f"could not open the search index {path}: {exc}") from exc
    try:
        (count,) = con.execute("SELECT chunks FROM info").fetchone() or (0,)
        if not count:
            raise NoChunks(f"the search index {path} holds no chunks: run `assay run PATH` first")
        rows = con.execute(
            f"""
            WITH q AS (SELECT DISTINCT unnest({tokens_sql("?")}) AS term),
            scored AS (
                SELECT t.docid,
                       sum(d.idf * t.tf * (i.k1 + 1) / (t.tf + i.k1 * (1 - i.b + i.b * c.len / i.avg_len)))
                           AS score
                FROM q JOIN dictionary d ON d.term = q.term JOIN terms t ON t.term = q.term
                JOIN chunks c ON c.docid = t.docid CROSS JOIN info i
                GROUP BY t.docid
                ORDER BY score DESC, t.docid
                LIMIT {PHRASE_CANDIDATES + int(limit)}
            ),
            phrase AS (SELECT ' ' || array_to_string({tokens_sql("?")}, ' ') || ' ' AS words)
            SELECT c.chunk_id, c.sha256, c.path, c.page_start, c.page_end, c.page_offsets,
                   c.page_labels, c.heading_path, s.score, c.ordinal, c.trust, c.text,
                   contains(' ' || array_to_string({tokens_sql("c.text")}, ' ') || ' ', phrase.words)
                       AS phrase
            FROM scored s JOIN chunks c ON c.docid = s.docid CROSS JOIN phrase
            ORDER BY phrase DESC, s.score DESC, c.sha256, c.ordinal
            LIMIT ?
            """,
            [query, query, DUPLICATE_ROOM * int(limit)],
        ).fetchall()
    except duckdb.Error as exc:
        raise WarehouseError(f"search failed on {path}: {exc}") from exc
    finally:
        con.close()
    words = tokenize(query)
    hits: list[SearchHit] = []
    seen: set[tuple[str, int | None, tuple[str, ...]]] = set()
    for chunk_id, sha, shown, p0, p1, offsets, labels, heading, score, ordinal, trust, text, phrase in rows:
        if len(hits) == limit:
            break
        snippet = make_snippet(text, words)
        if p0 == p1:
            page: int | None = p0
        elif offsets and snippet.anchor is not None:
            page = p0 + bisect.bisect_right(offsets, snippet.anchor) - 1
        else:
            page = None
        key = (sha, page, _matched_context(snippet))
        if key in seen:  # a split table's repeated header, an overlap: shown once
            continue
        seen.add(key)
        label = labels[page - p0] if page is not None and labels and 0 <= page - p0 < len(labels) else None
        hits.append(
            SearchHit(
                chunk_id=chunk_id,
                sha256=sha,
                path=shown,
                page_start=p0,
                page_end=p1,
                page=page,
                heading_path=tuple(heading or ()),
                score=round(float(score), 4),
                snippet=snippet.text,
                highlights=snippet.highlights,
                ordinal=ordinal,
                trust=trust,
                phrase=bool(phrase),
                label=label,
            )
        )
    return hits


@dataclass(frozen=True, slots=True)
class Snippet:
    text: str  # whitespace collapsed, "…" where cut
    highlights: tuple[tuple[int, int], ...]  # the query's words in ``text``
    anchor: int | None  # offset in the chunk's text of the phrase, else of the best window's first match


def make_snippet(text: str, query: Sequence[str], width: int = SNIPPET_CHARS) -> Snippet:
    """The window of ``text`` around the query's phrase, else richest in the query's words, with those
    words marked; ``query`` is the query's tokens (:func:`tokenize`)."""
    query = list(query)
    terms = set(query)
    found = [(m.start(), m.end(), normalize_token(m.group())) for m in _TOKEN_RE.finditer(text)]
    matches = [(a, b, t) for a, b, t in found if t in terms]
    anchor: int | None = None
    if len(query) > 1:
        words = [t for _, _, t in found]
        anchor = next(
            (found[i][0] for i in range(len(words) - len(query) + 1) if words[i : i + len(query)] == query),
            None,
        )
    if anchor is None and matches:
        best, best_key = 0, (-1, 0)
        for i, (a, _, _) in enumerate(matches[:_SNIPPET_SCAN]):
            inside = {t for _, b, t in matches[i:] if b <= a + width}
            key = (len(inside), -i)  # most distinct terms, earliest first
            if key > best_key:
                best, best_key = i, key
        anchor = matches[best][0]
    lo = 0 if anchor is None else max(0, anchor - width // 4)
    hi = min(len(text), lo + width)
    lo, hi = _snap_back(text, lo), _snap_forward(text, hi)

    out: list[str] = ["… "] if text[:lo].strip() else []
    position = len(out[0]) if out else 0
    index: dict[int, int] = {}
    pending_space = False
    for k in range(lo, hi):
        ch = text[k]
        if ch.isspace():
            pending_space = bool(index)  # collapsed to one space, none before the first character
            continue
        if pending_space:
            out.append(" ")
            position += 1
            pending_space = False
        index[k] = position
        out.append(ch)
        position += 1
    if text[hi:].strip():
        out.append(" …")
    marks = tuple((index[a], index[b - 1] + 1) for a, b, _ in matches if lo <= a and b <= hi)
    return Snippet("".join(out), marks, anchor)


# Matches considered as a snippet's anchor: enough for any chunk (a chunk is ~1,500 characters).
_SNIPPET_SCAN = 500
# How far a snippet's edge moves to reach a word boundary before it cuts the word.
_SNAP = 20


def _snap_back(text: str, lo: int) -> int:
    k = lo
    while k > 0 and not text[k - 1].isspace() and lo - k < _SNAP:
        k -= 1
    return k if k == 0 or text[k - 1].isspace() else lo


def _snap_forward(text: str, hi: int) -> int:
    k = hi
    while k < len(text) and not text[k].isspace() and k - hi < _SNAP:
        k += 1
    return k if k == len(text) or text[k].isspace() else hi
