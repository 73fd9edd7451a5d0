"""BM25 search over the chunks (warehouse/search.py) and `assay search`."""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from orchestration.cli import main
from quality.chunking import PageSpan, chunk_document
from quality.pii import PathRedactor, Scrubber
from quality.pii_findings import PiiKind
from readers.core.reading_records import DocumentRecord
from warehouse import Warehouse
from warehouse.duckdb_catalog import build_catalog
from warehouse.search import (
    BM25_B,
    BM25_K1,
    INDEX_FILE,
    ChunkRow,
    NoChunks,
    build_index,
    ensure_index,
    make_snippet,
    query_index,
    search,
    tokenize,
    tokens_sql,
)

VERSION = "test-1"
PDF, SCAN, HTML = "a1" * 32, "b2" * 32, "c3" * 32

PDF_PAGES = [
    "# Annual water report\n\nThis report covers the drinking water of the town in 2023. "
    "Samples were taken every week at six sites.",
    "## Turbidity\n\nIn July the reservoir's turbidity exceeded four NTU for three days after the storm. "
    "The filters were cleaned and the readings fell again.\n\n"
    "| site | NTU |\n|---|---|\n| north | 4.2 |\n| south | 1.1 |",
    "## Lead\n\nLead stayed below five parts per billion at every site. No action was needed.",
]
SCAN_PAGES = [
    "# Minutes of the council\n\nThe council met on the first Monday of March.",
    "The treasurer read the accounts. The bridge repair cost more than planned.",
    "Councillor Byrne proposed a new bicycle lane along the canal path. The motion carried.",
]
HTML_PAGES = ["# Café opening hours\n\nThe riverside café opens at eight and closes at six, except in May."]


def chunk_rows(sha: str, pages: list[str], source: str, trust: float, *, target: int = 160) -> list[ChunkRow]:
    text = ""
    spans = []
    for i, page in enumerate(pages, 1):
        if text:
            text += "\n\n"
        spans.append(PageSpan(i, len(text), "en", source, trust))
        text += page
    chunks = chunk_document(sha, text, spans, target=target, overlap=40)
    return [
        ChunkRow(
            c.chunk_id,
            sha,
            c.ordinal,
            c.heading_path,
            c.page_start,
            c.page_end,
            c.text,
            c.trust,
            c.page_offsets,
        )
        for c in chunks
    ]


def corpus_rows() -> list[ChunkRow]:
    return [
        *chunk_rows(PDF, PDF_PAGES, "extracted", 1.0),
        *chunk_rows(SCAN, SCAN_PAGES, "ocr", 0.87),
        *chunk_rows(HTML, HTML_PAGES, "extracted", 1.0),
    ]


PATHS = {PDF: "/corpus/report.pdf", SCAN: "/corpus/minutes-scan.pdf", HTML: "/corpus/cafe.html"}
REDACT = PathRedactor(Scrubber())


@pytest.fixture
def index(tmp_path: Path) -> Path:
    target = tmp_path / INDEX_FILE
    assert build_index(corpus_rows(), PATHS, target, redact_path=REDACT) == len(corpus_rows())
    return target


# -- ranking ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "path", "page"),
    [
        ("reservoir's turbidity exceeded four NTU", "/corpus/report.pdf", 2),  # born digital
        ("proposed a new bicycle lane", "/corpus/minutes-scan.pdf", 3),  # OCRed scan
        ("riverside cafe opens at eight", "/corpus/cafe.html", 1),  # HTML, accents folded
    ],
)
def test_a_phrase_is_found_on_its_page(index: Path, phrase: str, path: str, page: int) -> None:
    top = query_index(index, phrase)[0]
    assert top.path == path and top.phrase and top.score > 0
    assert top.page == page and top.page_start <= page <= top.page_end


def test_hits_carry_heading_path_pages_trust_and_a_highlighted_snippet(index: Path) -> None:
    [top, *_] = query_index(index, "bicycle lane")
    assert top.heading_path == ("Minutes of the council",)
    assert top.trust == 0.87
    marked = [top.snippet[s:e].lower() for s, e in top.highlights]
    assert "bicycle" in marked and "lane" in marked
    [cafe, *_] = query_index(index, "CAFE")
    assert "Café" in [cafe.snippet[s:e] for s, e in cafe.highlights]


def test_scores_are_bm25(index: Path) -> None:
    rows = corpus_rows()
    docs = [tokenize(r.text) for r in rows]
    avg = sum(map(len, docs)) / len(docs)
    query = ["water", "site"]
    expected: dict[str, float] = {}
    for row, tokens in zip(rows, docs, strict=True):
        tf = Counter(tokens)
        score = 0.0
        for term in query:
            if tf[term]:
                df = sum(1 for d in docs if term in d)
                idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
                norm = BM25_K1 * (1 - BM25_B + BM25_B * len(tokens) / avg)
                score += idf * tf[term] * (BM25_K1 + 1) / (tf[term] + norm)
        if score:
            expected[row.chunk_id] = score
    hits = query_index(index, "water site", limit=100)
    assert {h.chunk_id for h in hits} == set(expected)
    for h in hits:
        assert h.score == pytest.approx(expected[h.chunk_id], abs=1e-3)
    plain = [h for h in hits if not h.phrase]
    assert [h.score for h in plain] == sorted((h.score for h in plain), reverse=True)


def test_chunks_holding_the_phrase_come_first(tmp_path: Path) -> None:
    rows = [
        ChunkRow("1" * 32, PDF, 0, (), 1, 1, "water " * 6 + "quality " * 6 + "reports", 1.0),
        ChunkRow("2" * 32, PDF, 1, (), 2, 2, "We measure the water quality of the lake.", 1.0),
    ]
    target = tmp_path / INDEX_FILE
    build_index(rows, {}, target)
    hits = query_index(target, "the water quality")
    assert [h.chunk_id for h in hits] == ["2" * 32, "1" * 32]
    assert hits[0].phrase and not hits[1].phrase
    assert hits[0].path == PDF, "a document without a known path shows its sha256"


def test_the_same_page_and_matched_words_are_shown_once(tmp_path: Path) -> None:
    """A split table repeats its header in each of its chunks: one hit for it, and the list still full."""
    header = "| sampling site | turbidity in NTU | lead in ppb | inspector's notes |\n|---|---|---|---|\n"
    rows = [
        ChunkRow(
            f"{i}" * 32, PDF, i, (), 2, 2, header + f"| site {i} | {i}.1 | {i}.2 | nothing to report |", 1.0
        )
        for i in range(1, 4)
    ]
    rows.append(ChunkRow("9" * 32, SCAN, 0, (), 1, 1, "The turbidity of the canal was not measured.", 1.0))
    rows.append(
        ChunkRow("8" * 32, PDF, 9, (), 2, 2, "On the same page, turbidity rose after the storm.", 1.0)
    )
    target = tmp_path / INDEX_FILE
    build_index(rows, {}, target)
    hits = query_index(target, "turbidity", limit=5)
    # the header once; the other passage of the same page, in other words around the match, kept
    assert sorted(h.chunk_id[0] for h in hits) == ["1", "8", "9"]
    assert all(h.highlights for h in hits)  # the snippet shows the matched word
    assert len(query_index(target, "turbidity", limit=2)) == 2


def test_no_match_and_no_words_give_no_hits(index: Path) -> None:
    assert query_index(index, "zeppelin") == []
    assert query_index(index, "?!") == []
    assert query_index(index, "water", limit=0) == []


def test_an_empty_index_says_so(tmp_path: Path) -> None:
    target = tmp_path / INDEX_FILE
    assert build_index([], {}, target) == 0
    with pytest.raises(NoChunks, match="assay run"):
        query_index(target, "water")


# -- tokens ----------------------------------------------------------------------------------------------


def test_tokens_fold_accents_of_latin_scripts_only_and_split_cjk() -> None:
    assert tokenize("Résumé, NAÏVE straße—3.5 don't") == ["resume", "naive", "straße", "3", "5", "don", "t"]
    assert tokenize("水质报告abc") == ["水", "质", "报", "告", "abc"]
    assert tokenize("हिन्दी भाषा") == ["हिन्दी", "भाषा"], "Devanagari vowel signs are letters, kept"
    assert tokenize("soft\u00adhyphen") == ["softhyphen"]


def test_python_tokens_mirror_the_sql_tokens() -> None:
    samples = [
        "Résumé, NAÏVE straße—3.5 don't",
        "水质报告abc 東京タワー",
        "हिन्दी भाषा",
        "עִבְרִית ΟΔΟΣ Ελληνικά Русский",
        "İstanbul soft\u00adhyphen e\u0301te\u0301",
        "| site | NTU |\n|---|---|\n",
    ]
    con = duckdb.connect()
    try:
        for text in samples:
            (sql,) = con.execute(f"SELECT {tokens_sql('?')}", [text]).fetchone()
            assert tokenize(text) == sql, text
    finally:
        con.close()


def test_snippet_is_a_window_around_the_richest_match() -> None:
    text = "filler words here. " * 40 + "The Lead level was low.\n\n  Lead   again. " + "tail words. " * 40
    snippet = make_snippet(text, ["lead"], width=120)
    assert snippet.text.startswith("… ") and snippet.text.endswith(" …")
    assert "  " not in snippet.text and "\n" not in snippet.text
    assert [snippet.text[s:e] for s, e in snippet.highlights] == ["Lead", "Lead"]
    assert len(snippet.text) <= 120 + 2 * 20 + 4
    assert snippet.anchor == text.index("Lead")
    short = make_snippet("Nothing matches here.", ["zeppelin"])
    assert (short.text, short.highlights, short.anchor) == ("Nothing matches here.", (), None)


def test_the_snippet_is_anchored_on_the_phrase_before_any_richer_window() -> None:
    text = "lane bicycle lane bicycle lane. " * 5 + "Then a new bicycle lane was built."
    snippet = make_snippet(text, tokenize("new bicycle lane"), width=60)
    assert snippet.anchor == text.index("new bicycle lane")
    assert "a new bicycle lane was built" in snippet.text


def test_a_hit_on_a_chunk_spanning_pages_names_the_page_of_the_match(tmp_path: Path) -> None:
    text = "Page one talks about rain.\n\nPage two talks about a zeppelin."
    offsets = (0, text.index("Page two"))
    rows = [
        ChunkRow("1" * 32, PDF, 0, (), 1, 2, text, 1.0, offsets),
        ChunkRow("2" * 32, SCAN, 0, (), 4, 5, text, 1.0, None),  # pages unknown inside the chunk
    ]
    target = tmp_path / INDEX_FILE
    build_index(rows, {}, target)
    hits = {h.chunk_id: h for h in query_index(target, "zeppelin")}
    assert hits["1" * 32].page == 2 and (hits["1" * 32].page_start, hits["1" * 32].page_end) == (1, 2)
    assert hits["2" * 32].page is None
    assert {h.chunk_id: h.page for h in query_index(target, "rain")}["1" * 32] == 1


# -- the warehouse's chunks ------------------------------------------------------------------------------


def write_chunks(wh: Warehouse, rows: list[ChunkRow], *, offsets: bool = True) -> None:
    """Chunk partitions as the chunk stage will write them (only the columns search reads, and the
    partition's own two); ``offsets=False`` leaves the optional page_offsets column out."""
    by_shard: dict[str, list[ChunkRow]] = {}
    for r in rows:
        by_shard.setdefault(r.sha256[:2], []).append(r)
    for shard, part in by_shard.items():
        target = wh.data_dir / "chunks" / f"extractor_version={VERSION}" / f"shard={shard}" / "part.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        table = pa.table(
            {
                "chunk_id": [r.chunk_id for r in part],
                "sha256": [r.sha256 for r in part],
                "shard": [shard] * len(part),
                "extractor_version": [VERSION] * len(part),
                "ordinal": [r.ordinal for r in part],
                "heading_path": [list(r.heading_path) for r in part],
                "page_start": [r.page_start for r in part],
                "page_end": [r.page_end for r in part],
                "text": [r.text for r in part],
                "trust": [r.trust for r in part],
            }
        )
        if offsets:
            table = table.append_column(
                "page_offsets", pa.array([list(r.page_offsets or ()) for r in part], pa.list_(pa.int64()))
            )
        pq.write_table(table, target)


def write_documents(wh: Warehouse, version: str = VERSION) -> None:
    member = "d4" * 32
    docs = [
        DocumentRecord(PDF, PDF[:2], "pdf", "bytes", 10, None, None, PATHS[PDF], version),
        DocumentRecord(SCAN, SCAN[:2], "pdf", "bytes", 10, None, None, PATHS[SCAN], version),
        DocumentRecord(HTML, HTML[:2], "html", "bytes", 10, None, None, PATHS[HTML], version),
        DocumentRecord(member, member[:2], "html", "bytes", 10, HTML, "attached.html", "/blobs/d4", version),
    ]
    wh.write_sharded("documents", version, docs)


def test_search_builds_the_index_from_the_warehouse_and_rebuilds_it_only_when_chunks_change(
    tmp_path: Path,
) -> None:
    wh = Warehouse(tmp_path / "warehouse")
    with pytest.raises(NoChunks, match="assay run"):
        search(wh, "water", version=VERSION)
    write_documents(wh)
    member = "d4" * 32
    attached = chunk_rows(member, ["An attached note about the canal."], "extracted", 1)
    write_chunks(wh, [*corpus_rows(), *attached])
    top = search(wh, "bicycle lane", version=VERSION, redact_path=REDACT)[0]
    assert (top.path, top.page) == ("/corpus/minutes-scan.pdf", 3)
    note = search(wh, "attached note", version=VERSION, redact_path=REDACT)[0]
    assert note.path == "/corpus/cafe.html › attached.html", "a member shows inside its container"

    index = wh.root / INDEX_FILE
    built = index.stat().st_mtime_ns
    assert ensure_index(wh, VERSION, redact_path=REDACT) == index and index.stat().st_mtime_ns == built, (
        "unchanged: reused"
    )
    # the chunk stage rewrites one shard: the next search sees it
    write_chunks(wh, chunk_rows(SCAN, ["A zeppelin landed on the canal path."], "ocr", 0.7), offsets=False)
    part = next((wh.data_dir / "chunks").rglob(f"shard={SCAN[:2]}/part.parquet"))
    os.utime(part, ns=(built + 10**9, built + 10**9))
    assert [h.path for h in search(wh, "zeppelin", version=VERSION, redact_path=REDACT)] == [
        "/corpus/minutes-scan.pdf"
    ]
    assert search(wh, "bicycle lane", version=VERSION, redact_path=REDACT) == []
    assert not [p for p in wh.root.iterdir() if p.name.endswith(".tmp")], "no temporary file left"


def test_the_index_stores_paths_redacted_and_is_rebuilt_when_the_redaction_changes(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "warehouse")
    raw = "/corpus/jane.roe@example.org/DE89 3704 0044 0532 0130 00.pdf"
    docs = [DocumentRecord(PDF, PDF[:2], "pdf", "bytes", 10, None, None, raw, VERSION)]
    wh.write_sharded("documents", VERSION, docs)
    write_chunks(wh, chunk_rows(PDF, PDF_PAGES, "extracted", 1.0))
    (hit,) = search(wh, "lead stayed below", version=VERSION, redact_path=REDACT, limit=1)
    assert hit.path == "/corpus/⟨EMAIL_1⟩/⟨IBAN_1⟩.pdf"
    stored = duckdb.connect(str(wh.root / INDEX_FILE), read_only=True)
    try:
        paths = {p for (p,) in stored.execute("select path from chunks").fetchall()}
    finally:
        stored.close()
    assert paths == {"/corpus/⟨EMAIL_1⟩/⟨IBAN_1⟩.pdf"}
    # another redaction: the index is rebuilt with it
    only_iban = PathRedactor(Scrubber(frozenset({PiiKind.IBAN})))
    (hit,) = search(wh, "lead stayed below", version=VERSION, redact_path=only_iban, limit=1)
    assert hit.path == "/corpus/jane.roe@example.org/⟨IBAN_1⟩.pdf"
    # no redaction given: no path stored, the sha256 shown
    (hit,) = search(wh, "lead stayed below", version=VERSION, limit=1)
    assert hit.path == PDF


def test_search_without_a_catalog_says_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="assay run"):
        search(Warehouse(tmp_path / "warehouse"), "water")


# -- the command line ------------------------------------------------------------------------------------


@pytest.fixture
def searchable_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    wh = Warehouse(home / "warehouse")
    write_documents(wh)
    build_catalog(wh, VERSION)  # before the chunk files: the catalog only tells the version
    write_chunks(wh, corpus_rows())
    return home


def test_cli_search_prints_rank_path_pages_headings_and_snippet(searchable_home: Path, capsys) -> None:
    assert main(["search", "--home", str(searchable_home), "reservoir's turbidity exceeded"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.lstrip().startswith("1.") and "/corpus/report.pdf" in first and "p. 2" in first
    assert "Annual water report › Turbidity" in first
    assert "turbidity exceeded" in out.splitlines()[1]


def test_cli_search_json_and_limit(searchable_home: Path, capsys) -> None:
    assert main(["search", "--home", str(searchable_home), "--json", "--limit", "2", "site"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 2
    assert set(hits[0]) >= {"chunk_id", "path", "page", "page_start", "page_end", "heading_path", "score"}
    assert hits[0]["score"] >= hits[1]["score"]


def test_cli_search_messages(searchable_home: Path, tmp_path: Path, capsys) -> None:
    assert main(["search", "--home", str(searchable_home), "zeppelin"]) == 0
    assert "No chunk matches" in capsys.readouterr().out
    assert main(["search", "--home", str(tmp_path / "empty"), "water"]) == 1
    assert "assay run" in capsys.readouterr().err
    no_chunks = tmp_path / "no-chunks"
    build_catalog(Warehouse(no_chunks / "warehouse"), VERSION)
    assert main(["search", "--home", str(no_chunks), "water"]) == 1
    assert "no chunks yet" in capsys.readouterr().err
    assert main(["search", "--home", str(searchable_home), "?!"]) == 1
    assert "no words" in capsys.readouterr().err
