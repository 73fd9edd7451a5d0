"""assay's Python API, installed as ``assay``: check one file, run a corpus, read a document's text and
verdicts, in a notebook or a script.

    import assay

    checked = assay.check("report.pdf")              # what assay makes of one file; stores nothing
    print(checked.outcome, checked.text[:200])
    corpus = assay.run(["papers/"], home="work")      # walk, read, judge, OCR, sanitize, chunk, catalog
    for doc in corpus.documents():
        print(doc.path, doc.outcome)
    corpus.documents().df()                           # the same rows as a pandas DataFrame
    text = corpus.text("papers/a.pdf")                # the clean text (personal data as placeholders)
    why = corpus.document("papers/a.pdf").reason      # why a document has none (text() is None)
    pages = corpus.pages("papers/a.pdf")              # each page's verdict, reasons, source and trust
    kinds = corpus.sql("select kind, count(*) as n from documents group by kind")
    kinds.df(), kinds.arrow(), kinds[0]["n"]          # pandas, Arrow, or the rows as dictionaries
    corpus = assay.open_home("work")                  # a home made earlier, read only

Every result is a typed, frozen dataclass; a document is named by a path assay walked or by its sha256
(or a unique prefix of it). The command line (``assay run``, ``assay check``, ``assay sql``) does the
same work with the same definitions.

Rows: :meth:`Corpus.sql`, :meth:`Corpus.documents` and :meth:`Corpus.pages` return :class:`Rows`, a
sequence (``len``, indexing, iteration, ``==`` a list) of dictionaries (``sql``) or typed records
(:data:`Document`, :class:`Page`), with the same rows as a pandas DataFrame (``.df()``) and as an Arrow
table (``.arrow()``). The query runs once, in DuckDB, into Arrow; the Python rows are made from that table
when first asked for (pyarrow's values: for the catalog's tables the same as DuckDB's own, and a UUID,
MAP or INTERVAL an expression makes comes as Arrow gives it: a string, a list of pairs, MonthDayNano).

Scripts: the readers run in worker processes that are started without the program's ``__main__``, so a
plain script calling ``assay.check()`` or ``assay.run()`` at its top level works without an
``if __name__ == "__main__":`` guard, and its top level runs once.

Errors: every error raised on purpose is an :class:`AssayError` with a message that says what to change:
a home with nothing run in it (:func:`open_home` on a missing folder) is ``CatalogMissing``, a query that
fails, writes or runs too long a ``WarehouseError`` (``QueryTimeout``), a fault of the machine or the home
(a full disk, no permission) an ``EnvironmentFault``; all three are AssayErrors.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from orchestration.faults import fault_of
from quality.outcomes import OutcomeRecord, has_text
from readers.core.errors import AssayError
from warehouse.warehouse_errors import CatalogMissing

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "AssayError",
    "Checked",
    "CheckedPage",
    "Corpus",
    "Document",
    "Page",
    "Rows",
    "RunResult",
    "check",
    "open_home",
    "run",
]

T = TypeVar("T")


class Rows(Sequence[T], Generic[T]):
    """Rows read from the catalog: a sequence of dictionaries or typed records, and the same rows as a
    pandas DataFrame (:meth:`df`) or an Arrow table (:meth:`arrow`). The records are made from the Arrow
    table when asked for: a loop makes them batch by batch, indexing all at once (then kept)."""

    __slots__ = ("_items", "_make", "_table")

    def __init__(self, table: pa.Table, make: Callable[[dict[str, Any]], T]) -> None:
        self._table = table
        self._make = make
        self._items: list[T] | None = None

    @property
    def columns(self) -> list[str]:
        return list(self._table.column_names)

    def arrow(self) -> pa.Table:
        """The rows as a pyarrow Table, with DuckDB's column types."""
        return self._table

    def df(self) -> pd.DataFrame:
        """The rows as a pandas DataFrame (one column per column of the query)."""
        return self._table.to_pandas()

    def _records(self) -> list[T]:
        if self._items is None:
            self._items = [self._make(row) for row in self._table.to_pylist()]
        return self._items

    def __len__(self) -> int:
        return self._table.num_rows

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        return self._records()[index]

    def __iter__(self) -> Iterator[T]:
        if self._items is not None:
            yield from self._items
            return
        # Batch by batch: a loop over many rows holds one batch of Python objects at a time.
        for batch in self._table.to_batches():
            for row in batch.to_pylist():
                yield self._make(row)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Rows):
            return self._records() == other._records()
        if isinstance(other, list):
            return self._records() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Rows: {len(self)} rows of {', '.join(self.columns) or 'no columns'}>"


@contextlib.contextmanager
def _as_assay_errors(what: object) -> Iterator[None]:
    """An OSError on the way (no permission, a full disk, a file gone) as the AssayError saying so."""
    try:
        yield
    except OSError as exc:
        raise (fault_of(exc) or AssayError(f"{what}: {exc.strerror or exc}")) from exc


@dataclass(frozen=True, slots=True)
class CheckedPage:
    """One page of a checked file: its verdict and its final text (raw, before sanitize)."""

    page: int
    mode: str
    reasons: tuple[str, ...]
    source: str
    trust: float | None
    text: str | None


@dataclass(frozen=True, slots=True)
class Checked:
    """What assay makes of one file (:func:`check`)."""

    path: Path
    sha256: str
    kind: str
    outcome: str  # derived, fallback, repaired, ocr, underivable, error, unsupported, skipped
    reason: str | None
    pages: tuple[CheckedPage, ...]

    @property
    def yields_text(self) -> bool:
        return has_text(self.outcome)

    @property
    def text(self) -> str:
        """The pages' final texts joined by a blank line (raw: sanitize runs in a corpus run)."""
        return "\n\n".join(p.text for p in self.pages if p.text)


#: A document of a corpus: its identity, where it was seen, and what it finally yielded (the outcomes
#: view's row: ``sha256``, ``path``, ``kind``, ``outcome``, ``reason``, ``pages``, ``pages_with_text``...).
Document = OutcomeRecord


@dataclass(frozen=True, slots=True)
class Page:
    """One page's verdict in a corpus: what its text is worth, and why."""

    page: int
    label: str | None
    mode: str
    reasons: tuple[str, ...]
    judged_by: str | None
    language: str | None
    source: str | None
    trust: float | None


@dataclass(frozen=True, slots=True)
class RunResult:
    """What :func:`run` did: whether every stage succeeded, and the runs' failures if not."""

    ok: bool
    failures: tuple[str, ...]
    seconds: float


def check(path: str | os.PathLike[str], *, ocr: bool = True) -> Checked:
    """What assay makes of one file: the same readers, signals, verdicts and OCR as a run; stores
    nothing. ``ocr=False`` leaves Tesseract out (faster on scans)."""
    from assets.settings import settings_from_env
    from orchestration.checkfile import check_file

    file = Path(path)
    if file.is_dir():
        raise AssayError(f"{file} is a folder: assay.run([{str(file)!r}]) reads a folder")
    if not file.is_file():
        raise AssayError(f"{file} does not exist" if not file.exists() else f"{file} is not a file")
    settings = settings_from_env()
    with _as_assay_errors(file):
        outcome = check_file(file, ocr=ocr, ocr_language=settings.ocr_language, budgets=settings.budgets())
    verdicts = {v.page: v for v in outcome.verdicts.pages}
    pages = tuple(
        CheckedPage(
            page=t.page,
            mode=t.mode,
            reasons=tuple(verdicts[t.page].reasons) if t.page in verdicts else (),
            source=t.source,
            trust=t.trust,
            text=t.text,
        )
        for t in sorted(outcome.texts, key=lambda t: t.page)
    )
    return Checked(
        file, outcome.sha256, outcome.sniffed.kind.value, outcome.final.outcome, outcome.final.reason, pages
    )


class Corpus:
    """A home's catalog: the documents of the runs made in it, their texts and verdicts (read only)."""

    def __init__(self, home: str | os.PathLike[str] | None = None) -> None:
        from orchestration.home import Home

        self.home = Home.resolve(home)
        self.home.require_directory()
        if not self.home.path.is_dir():
            raise CatalogMissing(f"no assay home at {self.home.path}: {_first_run(self.home.path)}")
        self.last_run: RunResult | None = None  # set by run()

    @property
    def path(self) -> Path:
        return self.home.path

    def sql(
        self, query: str, params: Sequence[Any] | None = None, *, timeout: float | None = None
    ) -> Rows[dict[str, Any]]:
        """The rows of a read-only query against the catalog: dictionaries, or ``.df()`` and ``.arrow()``
        (:class:`Rows`). A statement that would write (COPY, EXPORT, EXPLAIN ANALYZE ...) raises before
        it runs; one still running after ``timeout`` seconds is stopped
        (warehouse.warehouse_errors.QueryTimeout)."""
        return self._rows(query, params, dict, timeout=timeout)

    def _rows(
        self,
        query: str,
        params: Sequence[Any] | None,
        make: Callable[[dict[str, Any]], T],
        *,
        timeout: float | None = None,
    ) -> Rows[T]:
        from warehouse.duckdb_catalog import query as run_query

        values = list(params) if params else None
        with _as_assay_errors(self.home.warehouse.catalog_path):
            result = run_query(self.home.warehouse, query, values, timeout=timeout, arrow=True)
        assert result.table is not None
        return Rows(result.table, make)

    def documents(self) -> Rows[Document]:
        """Every document of the current extractor version, in path order (``.df()``: as a DataFrame)."""
        return self._rows("select * from outcomes order by path", None, _document)

    def sha256(self, document: str | os.PathLike[str]) -> str:
        """The sha256 of a document named by a walked path, its sha256 or a unique prefix of it."""
        from orchestration.lineage import resolve

        return resolve(self.home.warehouse, os.fspath(document))

    def document(self, document: str | os.PathLike[str]) -> Document:
        """One document's row of the outcomes view: what it finally yielded and, when it has no text,
        why (``outcome``, ``reason``: ``underivable``, ``all_text_removed:hidden_text``...)."""
        sha = self.sha256(document)
        rows = self.sql("select * from outcomes where sha256 = ?", [sha])
        if not rows:
            raise AssayError(f"{sha} has no outcome yet: run the corpus again to judge it")
        return Document(**rows[0])

    def text(self, document: str | os.PathLike[str]) -> str | None:
        """The document's clean text (``texts.text``: sanitized, personal data as placeholders); None
        when it has none, and then :meth:`document` says why (its ``outcome`` and ``reason``)."""
        rows = self.sql("select text from texts where sha256 = ?", [self.sha256(document)])
        return rows[0]["text"] if rows else None

    def pages(self, document: str | os.PathLike[str]) -> Rows[Page]:
        """Each page's verdict (mode, reasons, the tier that judged it) and its text's source and trust
        (``.df()``: as a DataFrame)."""
        return self._rows(
            "select v.page, t.label, v.mode, v.reasons, v.judged_by, v.language, t.source, t.trust "
            "from page_verdicts v left join page_texts t using (sha256, page) "
            "where v.sha256 = ? order by v.page",
            [self.sha256(document)],
            _page,
        )


def _document(row: dict[str, Any]) -> Document:
    return Document(**row)


def _page(row: dict[str, Any]) -> Page:
    return Page(**{**row, "reasons": tuple(row["reasons"] or ())})


def _first_run(path: Path) -> str:
    return (
        f"run `assay run --home {path} FOLDER` (or assay.run([FOLDER], home={str(path)!r})) first, "
        "or pass the home a run used"
    )


def open_home(home: str | os.PathLike[str] | None = None) -> Corpus:
    """The corpus of an existing home (default: ``$ASSAY_HOME``, else ``./.assay``); a folder nothing was
    run in raises :class:`~warehouse.warehouse_errors.CatalogMissing` (an AssayError) saying what to run."""
    corpus = Corpus(home)
    if not corpus.home.warehouse.catalog_path.is_file():
        raise CatalogMissing(f"no catalog in {corpus.path} yet: {_first_run(corpus.path)}")
    return corpus


def run(
    paths: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    home: str | os.PathLike[str] | None = None,
) -> Corpus:
    """Walk ``paths`` (files or folders; one may be given alone) into ``home`` and take what changed
    through every stage, as ``assay run`` does; returns the home's :class:`Corpus` (its ``last_run`` says
    whether every stage succeeded)."""
    from assets.progress import Progress
    from orchestration.home import Home
    from orchestration.runner import run as run_pipeline

    given = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    roots = [Path(p).absolute() for p in given]
    for root in roots:
        if not root.exists():
            raise AssayError(f"{root} does not exist: pass files or folders to read")
    where = Home.resolve(home)
    with _as_assay_errors(where.path):
        report = run_pipeline(where, roots, Progress())
    corpus = Corpus(where.path)
    corpus.last_run = RunResult(
        report.ok, tuple(f"{f.stage}: {f.message}" for f in report.failures), report.seconds
    )
    return corpus
