"""assay's Python API, installed as ``assay``: check one file, run a corpus, read a document's text and
verdicts, in a notebook or a script.

    import assay

    checked = assay.check("report.pdf")              # what assay makes of one file; stores nothing
    print(checked.outcome, checked.text[:200])
    corpus = assay.run(["papers/"], home="work")      # walk, read, judge, OCR, sanitize, chunk, catalog
    for doc in corpus.documents():
        print(doc.path, doc.outcome)
    text = corpus.text("papers/a.pdf")                # the clean text (personal data as placeholders)
    why = corpus.document("papers/a.pdf").reason      # why a document has none (text() is None)
    pages = corpus.pages("papers/a.pdf")              # each page's verdict, reasons, source and trust
    rows = corpus.sql("select kind, count(*) as n from documents group by kind")

Every result is a typed, frozen dataclass; a document is named by a path assay walked or by its sha256
(or a unique prefix of it). The command line (``assay run``, ``assay check``, ``assay sql``) does the
same work with the same definitions.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quality.outcomes import OutcomeRecord, has_text
from readers.core.errors import AssayError

__all__ = [
    "AssayError",
    "Checked",
    "CheckedPage",
    "Corpus",
    "Document",
    "Page",
    "RunResult",
    "check",
    "open_home",
    "run",
]


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
        self.last_run: RunResult | None = None  # set by run()

    @property
    def path(self) -> Path:
        return self.home.path

    def sql(
        self, query: str, params: Sequence[Any] | None = None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """The rows of a read-only query against the catalog, as dictionaries: a statement that would
        write (COPY, EXPORT, EXPLAIN ANALYZE ...) raises before it runs; one still running after
        ``timeout`` seconds is stopped (warehouse.errors.QueryTimeout)."""
        from warehouse.catalog import query as run_query

        values = list(params) if params else None
        return run_query(self.home.warehouse, query, values, timeout=timeout).records()

    def documents(self) -> list[Document]:
        """Every document of the current extractor version, in path order."""
        return [Document(**row) for row in self.sql("select * from outcomes order by path")]

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

    def pages(self, document: str | os.PathLike[str]) -> list[Page]:
        """Each page's verdict (mode, reasons, the tier that judged it) and its text's source and trust."""
        rows = self.sql(
            "select v.page, t.label, v.mode, v.reasons, v.judged_by, v.language, t.source, t.trust "
            "from page_verdicts v left join page_texts t using (sha256, page) "
            "where v.sha256 = ? order by v.page",
            [self.sha256(document)],
        )
        return [Page(**{**row, "reasons": tuple(row["reasons"] or ())}) for row in rows]


def open_home(home: str | os.PathLike[str] | None = None) -> Corpus:
    """The corpus of an existing home (default: ``$ASSAY_HOME``, else ``./.assay``)."""
    return Corpus(home)


def run(paths: Sequence[str | os.PathLike[str]], *, home: str | os.PathLike[str] | None = None) -> Corpus:
    """Walk ``paths`` into ``home`` and take what changed through every stage, as ``assay run`` does;
    returns the home's :class:`Corpus` (its ``last_run`` says whether every stage succeeded)."""
    from assets.progress import Progress
    from orchestration.home import Home
    from orchestration.runner import run as run_pipeline

    roots = [Path(p).absolute() for p in paths]
    for root in roots:
        if not root.exists():
            raise AssayError(f"{root} does not exist: pass files or folders to read")
    where = Home.resolve(home)
    report = run_pipeline(where, roots, Progress())
    corpus = Corpus(where.path)
    corpus.last_run = RunResult(
        report.ok, tuple(f"{f.stage}: {f.message}" for f in report.failures), report.seconds
    )
    return corpus
