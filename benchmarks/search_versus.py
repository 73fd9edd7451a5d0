"""assay's search (BM25 computed in SQL in a DuckDB file, warehouse/search.py) against tantivy's BM25 on
the same chunks and the same queries: how often each finds the right document, and how fast.

The queries are known items, so that no one has to judge relevance by hand:

- the corpus's ``present`` facts (benchmarks/facts/corpus.jsonl): a passage a person read in a document;
- a window of ``--words`` consecutive words from each document's clean text (``texts.text``), taken at a
  fixed place (a third of the way in), for every document with enough words.

For each query the right document is the one it came from; a hit counts when a chunk of that document
is among the first ``--depth`` chunks. It prints, per engine and per query set: hits at 1, mean
reciprocal rank (MRR@depth), the median and 95th-percentile time per query (warm, in this process), and
the time to build the index. tantivy runs with a tokenizer as close to assay's as its Python binding
allows (lower case, ASCII folding; no character split for Chinese and Japanese). Run on a home that has
run the dev corpus::

    .venv/bin/assay run --home /tmp/h ../shared/corpus/dev
    .venv/bin/pip install tantivy           # measured with 0.27; not a dependency of assay
    .venv/bin/python benchmarks/search_versus.py --home /tmp/h
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from readers.core.offline import keep_offline  # noqa: E402

keep_offline()

from orchestration.home import Home  # noqa: E402
from warehouse.duckdb_catalog import catalog_version, query  # noqa: E402
from warehouse.search import ensure_index, index_path, query_index  # noqa: E402

FACTS = REPO / "benchmarks" / "facts" / "corpus.jsonl"
_WORDS = re.compile(r"\w+", re.UNICODE)


def known_items(home: Home, words: int) -> dict[str, list[tuple[str, str]]]:
    """The query sets: name -> [(query, sha256 of the document it came from)]."""
    facts = []
    for line in FACTS.read_text(encoding="utf-8").splitlines():
        fact = json.loads(line)
        if fact["kind"] == "present" and len(_WORDS.findall(fact["passage"])) >= 2:
            facts.append((fact["passage"], fact["sha256"]))
    windows = []
    for sha, text in query(home.warehouse, "select sha256, text from texts order by sha256").rows:
        tokens = _WORDS.findall(text or "")
        if len(tokens) >= 3 * words:
            start = len(tokens) // 3
            windows.append((" ".join(tokens[start : start + words]), sha))
    return {"facts' passages": facts, f"{words}-word windows": windows}


def assay_engine(home: Home, depth: int) -> tuple[float, Callable[[str], list[str]]]:
    version = catalog_version(home.warehouse)
    index_path(home.warehouse).unlink(missing_ok=True)  # built afresh, as tantivy's is
    started = time.perf_counter()
    index = ensure_index(home.warehouse, version)
    built = time.perf_counter() - started
    return built, lambda q: [h.sha256 for h in query_index(index, q, limit=depth)]


def tantivy_engine(home: Home, depth: int, folder: Path) -> tuple[float, Callable[[str], list[str]]]:
    import tantivy

    analyzer = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .build()
    )
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("sha256", stored=True, tokenizer_name="raw")
    builder.add_text_field("text", stored=False, tokenizer_name="assay")
    schema = builder.build()
    rows = query(home.warehouse, "select sha256, text from chunks order by sha256, ordinal").rows
    started = time.perf_counter()
    index = tantivy.Index(schema, path=str(folder))
    index.register_tokenizer("assay", analyzer)
    writer = index.writer(num_threads=1)  # one segment, in insertion order: ties rank the same every run
    for sha, text in rows:
        writer.add_document(tantivy.Document(sha256=sha, text=text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    built = time.perf_counter() - started
    searcher = index.searcher()

    def search(q: str) -> list[str]:
        words = " ".join(_WORDS.findall(q.lower()))  # lower case: AND, OR, IN are operators
        if not words:
            return []
        parsed = index.parse_query(words, ["text"])
        return [searcher.doc(address)["sha256"][0] for _, address in searcher.search(parsed, depth).hits]

    return built, search


def score(search: Callable[[str], list[str]], items: Sequence[tuple[str, str]]) -> dict[str, float]:
    for q, _ in items[:5]:
        search(q)  # warm
    ranks: list[int | None] = []
    seconds: list[float] = []
    for q, sha in items:
        started = time.perf_counter()
        found = search(q)
        seconds.append(time.perf_counter() - started)
        ranks.append(found.index(sha) + 1 if sha in found else None)
    seconds.sort()
    return {
        "queries": len(items),
        "hit@1": sum(1 for r in ranks if r == 1) / len(items),
        "mrr": sum(1 / r for r in ranks if r) / len(items),
        "median_ms": 1000 * statistics.median(seconds),
        "p95_ms": 1000 * seconds[int(0.95 * (len(seconds) - 1))],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="a home that has run the dev corpus")
    parser.add_argument("--words", type=int, default=4, help="words per text window (default 4)")
    parser.add_argument("--depth", type=int, default=10, help="hits looked at per query (default 10)")
    args = parser.parse_args(argv)
    home = Home.resolve(args.home)
    sets = known_items(home, args.words)
    with tempfile.TemporaryDirectory(prefix="assay-tantivy-") as folder:
        engines = {
            "assay (BM25 in SQL, DuckDB)": assay_engine(home, args.depth),
            "tantivy": tantivy_engine(home, args.depth, Path(folder)),
        }
        chunks = query(home.warehouse, "select count(*) from chunks").rows[0][0]
        print(f"{chunks} chunks; depth {args.depth}")
        for name, (built, search) in engines.items():
            print(f"\n{name}: index built in {built * 1000:.0f} ms")
            for set_name, items in sets.items():
                s = score(search, items)
                print(
                    f"  {set_name:<18} {s['queries']:>4} queries  hit@1 {s['hit@1']:.3f}  "
                    f"MRR@{args.depth} {s['mrr']:.3f}  median {s['median_ms']:.2f} ms  "
                    f"p95 {s['p95_ms']:.2f} ms"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
