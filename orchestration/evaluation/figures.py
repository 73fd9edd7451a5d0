"""The figures of ``assay eval``: each measure, per kind of document (or of fact, or of table), computed
from the homes the sets were run into and the truths the corpus holds.

A figure is a measure, a group and a value over a count of items. The measures, what each counts and
which way is better, are :data:`MEASURES`; the gate (``baseline.py``) compares figures of the same key.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import regex

from orchestration.evaluation.sets import SetRun
from quality.cer import cer
from quality.fact_checks import Fact, FactOutcome, FactSuiteResult, evaluate, fold, load_facts
from quality.lexicon import load_lexicon
from quality.outcomes import WITH_TEXT
from quality.reference_text import READABLE_KINDS, reference_text
from quality.truth_scores import NO_TABLE, TableScore, best_table, text_score
from readers.core.model import StructureSource
from warehouse.duckdb_catalog import query
from warehouse.store import Warehouse
from warehouse.warehouse_errors import WarehouseError

HIGHER, LOWER, SHOWN = "higher", "lower", "shown"
#: The kinds of document whose text is read from pixels: their character error rate is measured too.
SCANS = frozenset({"pdf-scanned", "image-scan"})


@dataclass(frozen=True)
class Measure:
    """What a measure counts, over what, and which way is better (``shown``: reported, never gated)."""

    title: str
    over: str
    better: str
    #: When given, only these groups are gated; the measure's other groups are shown.
    gated_groups: frozenset[str] = frozenset()

    def better_of(self, group: str) -> str:
        """Which way is better for ``group``'s figure (``shown`` for a group left out of the gate)."""
        return self.better if not self.gated_groups or group in self.gated_groups else SHOWN


MEASURES: dict[str, Measure] = {
    "text_f1": Measure("word F1 against the full truth text", "documents", HIGHER),
    "text_order": Measure("share of shared words in the truth's order", "documents", HIGHER),
    "cer": Measure("character error rate of scans against their transcription", "documents", LOWER),
    "substrings": Measure("expected passages present (dev_truth .expected.json)", "passages", HIGHER),
    "html_kept": Measure("main-content segments present", "segments", HIGHER),
    "html_leaked": Measure("boilerplate segments leaked into the text", "segments", LOWER),
    "office_text_f1": Measure(
        "word F1 against an independent reading (quality/reference_text.py)", "documents", SHOWN
    ),
    "office_text_recall": Measure("share of the independent reading's words in the text", "documents", SHOWN),
    "facts": Measure("facts that hold, per kind of document", "facts", HIGHER),
    "fact_checks": Measure("facts that hold, per kind of check", "facts", HIGHER),
    "table_found": Measure("expected tables with a table found on their page", "tables", HIGHER),
    "table_recall": Measure("expected cells found in the table found", "cells", HIGHER),
    "table_precision": Measure("cells of the table found that are expected", "cells", HIGHER),
    "table_header_kept": Measure("body cells kept under their column's header", "cells", HIGHER),
    "with_outcome": Measure("files that end with an outcome and a reason", "files", HIGHER),
    "with_text": Measure("documents that end with clean text", "documents", SHOWN),
    "run_failed": Measure("runs that failed", "runs", LOWER),
    "stray_lines": Measure("lines printed besides the summary", "runs", LOWER),
    "tracebacks": Measure("tracebacks printed", "runs", LOWER),
    "readable_dropped": Measure(
        "pages whose text layer holds readable words, ending without text", "pages", LOWER
    ),
    "seconds_per_page": Measure("wall seconds per page of the set's run", "pages", LOWER),
    "peak_memory_mb": Measure("peak memory of the run's processes together, MB", "runs", LOWER),
    "eval_seconds": Measure("wall seconds of the whole evaluation", "evaluations", SHOWN),
    "layout_model_share": Measure(
        "PDF pages the layout model read (readers/pdf/certainty.py)", "pages", SHOWN
    ),
    "layout_model_ms": Measure("milliseconds per page the layout model read", "pages", SHOWN),
    "ocr_pages_read": Measure("pages (or figure regions of a page) an OCR engine read", "pages", SHOWN),
    "ocr_seconds_per_page": Measure("seconds an OCR engine took per page it read", "pages", SHOWN),
    "ocr_cer": Measure(
        "character error rate of an engine's reading of the scans it read whole (kept: the readings kept)",
        "documents",
        LOWER,
        gated_groups=frozenset({"kept"}),
    ),
    "ocr_present_facts": Measure(
        "present facts that hold, of the documents whose OCR pages kept the engine's reading", "facts", SHOWN
    ),
    "ocr_kept_share": Measure(
        "OCR'd pages (and figure regions) whose kept reading is the engine's", "pages", SHOWN
    ),
}


def better_of(key: str) -> str:
    """Which way is better for the figure ``key`` (``measure/group``): its measure's, or ``shown``."""
    measure, _, group = key.partition("/")
    return MEASURES[measure].better_of(group) if measure in MEASURES else SHOWN


#: How the figures are shown, on the terminal and in docs/quality.md: a table's title and its measures,
#: one column each, a row per group.
TABLES = (
    (
        "Text against truth (dev set)",
        ("text_f1", "text_order", "cer", "substrings", "html_kept", "html_leaked"),
    ),
    (
        "Office and HTML text against an independent reading (dev set)",
        ("office_text_f1", "office_text_recall"),
    ),
    ("Facts that hold, per kind of document", ("facts",)),
    ("Facts that hold, per kind of check", ("fact_checks",)),
    ("Tables: cells against truth", ("table_found", "table_recall", "table_precision", "table_header_kept")),
    ("Layout model, per set and kind of document", ("layout_model_share", "layout_model_ms")),
    ("OCR, per engine and kind of page", ("ocr_pages_read", "ocr_seconds_per_page")),
    ("OCR, per engine", ("ocr_cer", "ocr_present_facts", "ocr_kept_share")),
    (
        "Runs, per set",
        (
            "with_outcome",
            "with_text",
            "run_failed",
            "stray_lines",
            "tracebacks",
            "readable_dropped",
            "seconds_per_page",
            "peak_memory_mb",
        ),
    ),
)

#: A text layer is readable when it holds at least this many lexicon words of three letters or more...
READABLE_WORDS = 2
#: ...making up at least this share of its words of three letters or more (a garbled layer hits by chance).
READABLE_SHARE = 0.5
_LONG_WORD = regex.compile(r"\p{L}{3,}")


@dataclass(frozen=True)
class Figure:
    measure: str
    group: str
    value: float
    count: int

    @property
    def key(self) -> str:
        return f"{self.measure}/{self.group}"


@dataclass(frozen=True)
class Dropped:
    """A page whose text layer holds readable words and that ends without text, and why."""

    document: str
    page: int
    words: str
    why: str


@dataclass(frozen=True)
class Scored:
    """A document of the dev set against its full truth text."""

    document: str
    kind: str
    f1: float
    order: float
    cer: float | None
    #: The OCR engine whose reading its OCR pages kept (engines joined by ``+``, most pages first, when they
    #: differ from page to page); None for a document no engine read.
    engine: str | None = None


@dataclass(frozen=True)
class FactFailure:
    fact: Fact
    text_found: bool


@dataclass
class Measured:
    """Everything ``assay eval`` found: the figures, and the items behind the failing ones."""

    figures: list[Figure]
    scored: list[Scored]
    dropped: list[Dropped]
    fact_failures: list[FactFailure]
    stray_lines: dict[str, list[str]]
    outcomes: dict[str, Counter[str]]


def by_group(figures: Iterable[Figure], measures: Sequence[str]) -> list[tuple[str, list[Figure | None]]]:
    """The figures of ``measures`` as rows: each group (``all`` last) with its figure of each measure."""
    cells: dict[str, dict[str, Figure]] = {}
    for f in figures:
        if f.measure in measures:
            cells.setdefault(f.group, {})[f.measure] = f
    return [
        (group, [cells[group].get(m) for m in measures])
        for group in sorted(cells, key=lambda g: (g == "all", g))
    ]


def _ratio(figures: list[Figure], measure: str, group: str, hits: float, total: int) -> None:
    if total:
        figures.append(Figure(measure, group, hits / total, total))


# -- the documents of a home ---------------------------------------------------------------------------


class SetRows:
    """What a set's home holds that the measures read, each read from its catalog once."""

    def __init__(self, run: SetRun) -> None:
        self.run = run
        self.warehouse = Warehouse(run.home / "warehouse")

    @functools.cached_property
    def documents(self) -> dict[str, str]:
        """File name to sha256 of every document the home walked."""
        rows = query(self.warehouse, "select distinct regexp_extract(path, '[^/]+$'), sha256 from documents")
        return {name: sha for name, sha in rows.rows}

    @functools.cached_property
    def texts(self) -> dict[str, str]:
        """Each document's clean text, by sha256 (its latest extractor version)."""
        rows = query(self.warehouse, "select sha256, arg_max(text, extractor_version) from texts group by 1")
        return {sha: text for sha, text in rows.rows if text}

    @functools.cached_property
    def tables(self) -> dict[tuple[str, int | None], list[list[list[str]]]]:
        """The cells of every table found, by (sha256, page) and by (sha256, None) for the whole document."""
        found: dict[tuple[str, int | None], list[list[list[str]]]] = defaultdict(list)
        for sha, page, cells in query(
            self.warehouse, 'select sha256, page, cells from tables order by sha256, page, "table"'
        ).rows:
            found[(sha, page)].append(cells)
            found[(sha, None)].append(cells)
        return found

    @functools.cached_property
    def ocr(self) -> list[OcrReading]:
        """Every OCR reading of the home, pages in order per document."""
        with contextlib.suppress(WarehouseError):  # a home whose run stopped before OCR's table
            columns = query(self.warehouse, "select * from ocr_pages limit 0").columns
            kept = "coalesce(o.kept, true)" if "kept" in columns else "true"
            return [
                OcrReading(sha, page, scope, engine, kind, read, kept, seconds, text)
                for sha, page, scope, engine, read, kept, seconds, text, kind in query(
                    self.warehouse, _OCR.format(kept=kept)
                ).rows
            ]
        return []

    @functools.cached_property
    def pages(self) -> dict[str, list[int]]:
        """The pages each document's text was judged on (``page_texts``), in order, by sha256."""
        found: dict[str, list[int]] = defaultdict(list)
        with contextlib.suppress(WarehouseError):
            for sha, page in query(self.warehouse, "select sha256, page from page_texts order by 1, 2").rows:
                found[sha].append(page)
        return found

    @functools.cached_property
    def kept_engines(self) -> dict[str, Counter[str]]:
        """Per document (sha256), the engines whose readings its OCR pages kept, each with how many."""
        kept: dict[str, Counter[str]] = defaultdict(Counter)
        for r in self.ocr:
            if r.kept and r.read:
                kept[r.sha256][r.engine] += 1
        return kept


@dataclass(frozen=True)
class OcrReading:
    """One engine's reading of a page (scope ``page``) or of its figure regions (scope ``figures``), with
    the kind of page it read (:data:`OCR_KINDS`) and whether it is the reading the page's text came from."""

    sha256: str
    page: int
    scope: str
    engine: str
    kind: str
    read: bool
    kept: bool
    seconds: float
    text: str


#: The engines whose figures are always reported (zero pages when an engine read none).
OCR_ENGINES = ("tesseract", "rapidocr")
#: The kinds of page OCR reads: a page with no usable text layer or an image document's frame (scan), a
#: PDF page whose OCR text layer read poorly and was read again (sandwich), a FIGURES page's regions.
OCR_KINDS = ("scan", "sandwich", "figure")

# Every OCR reading of the current version with the kind of page it read; {kept} is the column `kept`
# where the home has it (null in rows written before it: kept), else true (one engine, every row kept).
_OCR = """
select o.sha256, o.page, o.scope, o.engine, o.status <> 'error' as read, {kept} as kept,
       coalesce(o.seconds, 0), coalesce(o.text, ''),
       case when o.scope = 'figures' then 'figure'
            when v.provenance = 'ocr_sandwich' then 'sandwich' else 'scan' end as kind
  from ocr_pages o
  left join page_verdicts v using (sha256, extractor_version, page)
 order by o.sha256, o.page, o.scope, o.engine
"""


# -- the dev set's truths ------------------------------------------------------------------------------


def _truth_texts(truth: Path, name: str) -> tuple[str | None, list[str]]:
    """The full expected text of ``name`` if its truth has one, and the passages it must hold."""
    full: str | None = None
    passages: list[str] = []
    for suffix in (".expected.txt", ".expected_layout.txt"):
        path = truth / f"{name}{suffix}"
        if path.is_file():
            full = path.read_text(encoding="utf-8")
    html = truth / f"{name}.source.html"
    if html.is_file():
        import lxml.html

        body = lxml.html.fromstring(html.read_bytes()).body
        full = body.text_content() if body is not None else None
    expected = truth / f"{name}.expected.json"
    if expected.is_file():
        data = json.loads(expected.read_text(encoding="utf-8"))
        if {"password", "user_password"} & set(data):
            return None, []  # the text behind a password assay is not given: its outcome is `encrypted`
        if isinstance(data.get("expected_text"), str):
            full = data["expected_text"]
        passages += data.get("expected_substrings", [])
        if isinstance(data.get("expected_text_prefix"), str):
            passages += [line for line in data["expected_text_prefix"].splitlines() if line.strip()]
    return full, passages


def dev_figures(rows: SetRows, truth: Path, figures: list[Figure]) -> list[Scored]:
    """Text F1 and order, character error rates, passages and HTML segments, per kind of document."""
    names, texts, kinds = rows.documents, rows.texts, rows.run.corpus_set.kinds
    f1: dict[str, list[float]] = defaultdict(list)
    order: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, list[float]] = defaultdict(list)
    passages: dict[str, list[bool]] = defaultdict(list)
    kept: list[bool] = []
    leaked: list[bool] = []
    scored: list[Scored] = []
    for name in sorted(kinds):
        kind = kinds[name]
        text = texts.get(names.get(name, ""), "")
        full, wanted = _truth_texts(truth, name)
        if full is not None:
            score = text_score(full, text)
            f1[kind].append(score.f1)
            order[kind].append(score.order)
            error = min(1.0, cer(full, text)) if kind in SCANS else None
            if error is not None:
                errors[kind].append(error)
            engines = _by_pages(rows.kept_engines.get(names.get(name, ""), Counter()))
            engine = "+".join(engines) if engines else None
            scored.append(Scored(name, kind, score.f1, score.order, error, engine))
        for passage in wanted:
            passages[kind].append(fold(passage) in fold(text))
        segments = truth / f"{name}.expected_segments.json"
        if segments.is_file():
            data = json.loads(segments.read_text(encoding="utf-8"))
            folded = fold(text)
            kept += [fold(s) in folded for s in data.get("with", [])]
            leaked += [fold(s) in folded for s in data.get("without", [])]
    for measure, values in (("text_f1", f1), ("text_order", order), ("cer", errors)):
        for kind, found in sorted(values.items()):
            _ratio(figures, measure, kind, sum(found), len(found))
        every = [v for found in values.values() for v in found]
        _ratio(figures, measure, "all", sum(every), len(every))
    for kind, found in sorted(passages.items()):
        _ratio(figures, "substrings", kind, sum(found), len(found))
    _ratio(figures, "html_kept", "html", sum(kept), len(kept))
    _ratio(figures, "html_leaked", "html", sum(leaked), len(leaked))
    office_figures(rows, figures)
    return scored


def office_figures(rows: SetRows, figures: list[Figure]) -> None:
    """Word F1 and recall of each spreadsheet, Word document and HTML page the home read, against an
    independent reading of its file (most of them have no transcription), per kind."""
    names, texts, corpus_set = rows.documents, rows.texts, rows.run.corpus_set
    f1: dict[str, list[float]] = defaultdict(list)
    recall: dict[str, list[float]] = defaultdict(list)
    for name, sha in sorted(names.items()):
        kind = corpus_set.kinds.get(name, "")
        path = corpus_set.folder / name
        if kind not in READABLE_KINDS or not path.is_file():
            continue
        score = text_score(reference_text(path, kind) or "", texts.get(sha, ""))
        f1[kind].append(score.f1)
        recall[kind].append(score.recall)
    for measure, values in (("office_text_f1", f1), ("office_text_recall", recall)):
        for kind, found in sorted(values.items()):
            _ratio(figures, measure, kind, sum(found), len(found))


# -- tables --------------------------------------------------------------------------------------------

#: The class of table each reference tool's method stands for, as the tables set describes its methods.
CLASS_OF_METHOD = {
    "lattice": "ruled",
    "spreadsheet": "ruled",
    "stream": "unruled",
    "basic": "unruled",
    "network": "unruled",
    "hybrid": "hybrid",
}


def table_figures(homes: dict[str, SetRows], corpus: Path, figures: list[Figure]) -> None:
    """Cell recall, precision and header keeping of the tables found, per class of table."""
    scores: dict[str, list[TableScore]] = defaultdict(list)
    if "tables" in homes:
        names, found = homes["tables"].documents, homes["tables"].tables
        with (corpus / "tables" / "truth.jsonl").open(encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                if not row.get("primary"):
                    continue
                sha = names.get(Path(row["file"]).name, "")
                group = CLASS_OF_METHOD.get(row["method"], "other")
                scores[group].append(best_table(row["cells"], found.get((sha, row["page"]), [])))
    if "dev" in homes:
        names, found = homes["dev"].documents, homes["dev"].tables
        for path in sorted((corpus / "dev_truth").glob("*.expected_table.csv")):
            name = path.name.removesuffix(".expected_table.csv")
            with path.open(newline="", encoding="utf-8") as f:
                grid = [row for row in csv.reader(f)]
            scores["dev"].append(best_table(grid, found.get((names.get(name, ""), None), [])))
    every = [s for group in scores.values() for s in group]
    for group, found_scores in [*sorted(scores.items()), ("all", every)]:
        if not found_scores:
            continue
        total = sum(found_scores, NO_TABLE)
        _ratio(figures, "table_found", group, sum(s.found_cells > 0 for s in found_scores), len(found_scores))
        _ratio(figures, "table_recall", group, total.matched, total.expected_cells)
        _ratio(figures, "table_precision", group, total.matched, total.found_cells)
        _ratio(figures, "table_header_kept", group, total.kept_under_header, total.headed_cells)


# -- facts ---------------------------------------------------------------------------------------------


def fact_figures(
    fact_files: Iterable[Path], homes: dict[str, SetRows], figures: list[Figure]
) -> FactSuiteResult:
    """Each fact checked on its document's clean text, whichever set holds it; pass rates per kind of
    document and per kind of check. Returns every fact's outcome."""
    facts = [fact for path in sorted(fact_files) for fact in load_facts(path)]
    texts: dict[str, str] = {}
    kind_of: dict[str, str] = {}
    for rows in homes.values():
        texts |= rows.texts
        corpus_set = rows.run.corpus_set
        for name, sha in rows.documents.items():
            kind_of[sha] = corpus_set.kinds.get(name, corpus_set.name)
    held = [f for f in facts if f.sha256 in kind_of]
    result = evaluate("all", held, texts)
    by_kind: dict[str, list[bool]] = defaultdict(list)
    by_check: dict[str, list[bool]] = defaultdict(list)
    for outcome in result.outcomes:
        by_kind[kind_of[outcome.fact.sha256]].append(outcome.passed)
        by_check[outcome.fact.kind].append(outcome.passed)
    for kind, passed in sorted(by_kind.items()):
        _ratio(figures, "facts", kind, sum(passed), len(passed))
    for check, passed in sorted(by_check.items()):
        _ratio(figures, "fact_checks", check, sum(passed), len(passed))
    _ratio(figures, "fact_checks", "all", result.overall.passed, result.overall.total)
    return result


# -- OCR, per engine and kind of page ----------------------------------------------------------------------


def _by_pages(engines: Counter[str]) -> list[str]:
    """The engines, the one kept on most pages first (ties by name)."""
    return sorted(engines, key=lambda e: (-engines[e], e))


def ocr_figures(
    homes: dict[str, SetRows], truth: Path, outcomes: Iterable[FactOutcome], figures: list[Figure]
) -> None:
    """Pages read and seconds per page of each engine per kind of page, over every set; the character
    error rate of each engine's own reading, and of the readings kept, of the dev scans with a
    transcription it read whole (every page); the present facts that hold of the documents whose OCR
    pages kept each engine's reading (``outcomes``: every fact's, from :func:`fact_figures`); and the share
    of OCR'd pages whose kept reading is each engine's."""
    readings = [r for rows in homes.values() for r in rows.ocr]
    engines = [*OCR_ENGINES, *sorted({r.engine for r in readings} - set(OCR_ENGINES))]
    for engine in engines:
        for kind in OCR_KINDS:
            read = [r for r in readings if r.engine == engine and r.kind == kind and r.read]
            figures.append(Figure("ocr_pages_read", f"{engine} {kind}", float(len(read)), len(read)))
            if read:
                seconds = sum(r.seconds for r in read) / len(read)
                figures.append(Figure("ocr_seconds_per_page", f"{engine} {kind}", seconds, len(read)))
    if "dev" in homes:
        _ocr_cer(homes["dev"], truth, engines, figures)
    engine_of: dict[str, str] = {}
    for rows in homes.values():
        for sha, kept in rows.kept_engines.items():
            engine_of[sha] = _by_pages(kept)[0]
    passed: dict[str, list[bool]] = defaultdict(list)
    for outcome in outcomes:
        engine = engine_of.get(outcome.fact.sha256)
        if engine is not None and outcome.fact.kind == "present":
            passed[engine].append(outcome.passed)
    for engine in engines:
        _ratio(figures, "ocr_present_facts", engine, sum(passed[engine]), len(passed[engine]))
    scopes = {(r.sha256, r.page, r.scope): r.engine for r in readings if r.kept and r.read}
    kept_by = Counter(scopes.values())
    for engine in engines:
        _ratio(figures, "ocr_kept_share", engine, kept_by[engine], len(scopes))


def _ocr_cer(rows: SetRows, truth: Path, engines: list[str], figures: list[Figure]) -> None:
    """``ocr_cer`` of each engine's whole readings and of the kept ones, on the dev set's transcribed scans
    (a born-digital PDF's page sent to OCR is one page of a document its transcription covers whole)."""
    kinds = rows.run.corpus_set.kinds
    names = {sha: name for name, sha in rows.documents.items() if kinds.get(name) in SCANS}
    pages: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
    for r in rows.ocr:
        if r.scope != "page" or not r.read:
            continue
        pages[(r.sha256, r.engine)][r.page] = r.text or ""
        if r.kept:
            pages[(r.sha256, "kept")][r.page] = r.text or ""
    errors: dict[str, list[float]] = defaultdict(list)
    for (sha, reader), read in sorted(pages.items()):
        if sha not in names or sorted(read) != rows.pages.get(sha):
            continue  # a document some of whose pages this engine did not read, or not judged
        full, _ = _truth_texts(truth, names[sha])
        if full is not None:
            errors[reader].append(min(1.0, cer(full, "\n\n".join(read[p] for p in sorted(read)))))
    for reader in [*engines, "kept"]:
        _ratio(figures, "ocr_cer", reader, sum(errors[reader]), len(errors[reader]))


# -- every set: outcomes, what was printed, time, memory, pages dropped ------------------------------------

# Each file the walk saw, with its document's outcome (or the walk's own status when it was not read).
_FILES = """
select coalesce(x.outcome, b.status), coalesce(x.reason, b.reason), count(*)
  from (select distinct on (path) path, sha256, status, reason from observations) b
  left join outcomes x using (sha256)
 group by all
"""

_PAGES = """
select regexp_extract(d.path, '[^/]+$') as name, p.page, p.text, p.lexicon_language,
       t.source, t.reason, v.mode, v.reasons, x.sha256 is not null as has_clean, o.outcome,
       o.reason as outcome_reason
  from pages p
  join (select sha256, max(extractor_version) as extractor_version from pages group by 1) l
    using (sha256, extractor_version)
  left join (select distinct sha256, first(path) as path from documents group by 1) d using (sha256)
  left join page_texts t using (sha256, extractor_version, page)
  left join page_verdicts v using (sha256, extractor_version, page)
  left join texts x using (sha256, extractor_version)
  left join outcomes o using (sha256, extractor_version)
 order by name, p.page
"""


def readable(text: str | None, language: str | None) -> str | None:
    """The lexicon words of a page's text layer when it is readable (see :data:`READABLE_WORDS`)."""
    if not text:
        return None
    tokens = _LONG_WORD.findall(text)
    if len(tokens) < READABLE_WORDS:
        return None
    lexicon = load_lexicon(language or "en")
    hits = [t for t in tokens if t in lexicon]
    if len(hits) < READABLE_WORDS or len(hits) < READABLE_SHARE * len(tokens):
        return None
    return " ".join(hits[:8])


def set_figures(rows: SetRows, figures: list[Figure], dropped: list[Dropped]) -> Counter[str]:
    """A set's robustness figures; returns its files counted by outcome and reason."""
    run, wh = rows.run, rows.warehouse
    name = run.corpus_set.name
    files = len(run.corpus_set.files)
    outcomes: Counter[str] = Counter()
    with_reason = with_text = pages = 0
    lost: list[Dropped] = []
    with contextlib.suppress(WarehouseError):  # a run that failed before its catalog: no rows
        for outcome, reason, n in query(wh, _FILES).rows:
            outcomes[f"{outcome or 'none'}: {reason or '-'}"] += n
            with_reason += n if outcome and (reason or outcome in WITH_TEXT) else 0
            with_text += n if outcome in WITH_TEXT else 0
        for row in query(wh, _PAGES).records():
            pages += 1
            words = readable(row["text"], row["lexicon_language"])
            if words is None or (row["source"] not in (None, "none") and row["has_clean"]):
                continue
            if row["source"] in (None, "none"):
                why = f"page {row['mode']} ({', '.join(row['reasons'] or [])}): {row['reason']}"
            else:
                why = f"no clean text: document {row['outcome']} ({row['outcome_reason']})"
            lost.append(Dropped(row["name"], row["page"], words, why))
    dropped += lost
    _ratio(figures, "with_outcome", name, with_reason, files)
    _ratio(figures, "with_text", name, with_text, files)
    figures.append(Figure("readable_dropped", name, float(len(lost)), pages))
    layout_model_figures(rows, figures)
    if not run.ran:
        return outcomes
    figures.append(Figure("run_failed", name, float(run.failed), 1))
    figures.append(Figure("stray_lines", name, float(len(run.stray_lines)), 1))
    figures.append(Figure("tracebacks", name, float(run.tracebacks), 1))
    if pages:
        figures.append(Figure("seconds_per_page", name, run.seconds / pages, pages))
    figures.append(Figure("peak_memory_mb", name, run.peak_memory_mb, 1))
    return outcomes


# The PDF pages whose structure was decided (by rule, the structure tree or the layout model), with what
# the model cost.
_STRUCTURE = f"""
select sha256, structure_source = 'layout_model',
       try_cast(regexp_extract(structure_why, 'model_ms=([0-9]+)', 1) as double)
from pages where structure_source not in ('{StructureSource.NONE.value}')
"""


def layout_model_figures(rows: SetRows, figures: list[Figure]) -> None:
    """The share of a set's PDF pages the layout model read and its cost per page, per kind of document
    (the manifest's kind)."""
    kinds = rows.run.corpus_set.kinds
    kind_of = {sha: kinds.get(name, "unknown") for name, sha in rows.documents.items()}
    read: Counter[str] = Counter()
    total: Counter[str] = Counter()
    ms: dict[str, list[float]] = defaultdict(list)
    with contextlib.suppress(WarehouseError):
        for sha, by_model, cost in query(rows.warehouse, _STRUCTURE).rows:
            group = f"{rows.run.corpus_set.name} {kind_of.get(sha, 'unknown')}"
            total[group] += 1
            if by_model:
                read[group] += 1
                if cost is not None:
                    ms[group].append(cost)
    for group in sorted(total):
        _ratio(figures, "layout_model_share", group, read[group], total[group])
        if ms[group]:
            figures.append(Figure("layout_model_ms", group, sum(ms[group]) / len(ms[group]), len(ms[group])))
