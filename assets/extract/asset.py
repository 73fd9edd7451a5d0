"""extract: for each shard, run every document through the readers for its kind, keep what the current
extractor version already has, carry over what unchanged readers produced under an earlier one, and write
derivations, underivables, pages, their fonts and the tables found on them."""

from typing import TYPE_CHECKING

from assets.extract.declaration import STAGE
from assets.factory import shard_stage
from assets.shard_step import ShardStep, StageOutcome
from readers.core.reading_records import DocumentRecord
from readers.core.versions import EXTRACTOR_VERSION
from warehouse import Warehouse

if TYPE_CHECKING:
    from assets.extract.work import ShardRows

EXTRACT_TABLES = ("derivations", "underivables", "pages", "page_fonts", "tables")


# Its fallback-rate check (the readers' share of fallback text, over the shards written) is validated with
# the other data-quality checks, once per run (assets/data_quality.py).
@shard_stage(STAGE)
def extract(step: ShardStep) -> StageOutcome:
    # The readers (PyMuPDF, pdfminer) are imported when a shard is extracted, not when the definitions
    # load: a run with nothing to read, and the web UI, start half a second sooner.
    from assets.extract.work import ExtractOutcome, ShardRows, ShardWork, extract_shards
    from readers.engine.isolation import IsolatedReads

    wh, assay, progress = step.wh, step.settings, step.progress
    totals = {o: 0 for o in ExtractOutcome}
    figures: dict[str, dict[str, int]] = {}
    work: list[ShardWork] = []
    forced = wh.forced()  # documents `assay run --force` asked to read again
    # The shards of the range whose documents differ from what this version has read for good, or that
    # lack a partition (assets/extract/declaration.py): the others' rows are kept.
    plan = step.plan()
    for shard in step.shards:
        documents = [DocumentRecord(**row) for row in wh.rows("documents", EXTRACTOR_VERSION, shard)]
        existing = _rows(wh, EXTRACTOR_VERSION, shard)
        if existing.derivations and not _whole(wh, shard):
            # A partition of the shard is lost (deleted, or set aside unreadable): its documents' rows
            # are read again, not kept without it.
            existing = ShardRows()
        if not documents and not existing.derivations:
            continue  # a shard inside the run's range that holds nothing: no partition to write
        if shard not in plan.shards:
            kept = existing.sorted_derivations()
            for d in kept:
                progress.document_done(ExtractOutcome.KEPT.value, d.status)
            totals[ExtractOutcome.KEPT] += len(kept)
            figures[shard] = {o.value: len(kept) if o is ExtractOutcome.KEPT else 0 for o in ExtractOutcome}
            continue
        work.append(ShardWork(shard, documents, existing, _prior(wh, shard)))

    # Every document is read in a worker process under its kind's budget (the documents of all the run's
    # shards side by side); the workers start when the first document needs reading and stop with the run.
    # A shard's rows are written as soon as its last document is done.
    if work:
        progress.stage(step.stage.name, plan.total)
    reads = IsolatedReads(assay.limits(), assay.max_document_bytes, assay.budgets(), assay.read_workers)
    with reads:
        for result in extract_shards(
            work,
            version=EXTRACTOR_VERSION,
            reads=reads,
            on_document=lambda doc, outcome, status: progress.document_done(outcome.value, status),
            max_text_chars=assay.max_text_chars,
            forced=forced,
        ):
            shard, written = result.shard, result.rows.sorted_derivations()
            # Derivations last: they say which documents a shard holds, so a run killed between two
            # writes leaves those documents to be read again, never kept without their pages.
            wh.write("underivables", EXTRACTOR_VERSION, result.rows.sorted_underivables(), shard=shard)
            wh.write("pages", EXTRACTOR_VERSION, result.rows.sorted_pages(), shard=shard)
            wh.write("page_fonts", EXTRACTOR_VERSION, result.rows.sorted_fonts(), shard=shard)
            wh.write("tables", EXTRACTOR_VERSION, result.rows.sorted_tables(), shard=shard)
            wh.write("derivations", EXTRACTOR_VERSION, written, shard=shard)
            if read_again := {sha for sha in forced if sha[:2] == shard}:
                wh.settle_forced(read_again)  # read again, or no longer walked: forced no more
            figures[shard] = {o.value: result.count(o) for o in ExtractOutcome}
            for outcome in ExtractOutcome:
                totals[outcome] += result.count(outcome)

    step.log.info(
        f"{len(step.shards)} shards: read {totals[ExtractOutcome.READ]}, kept {totals[ExtractOutcome.KEPT]}, "
        f"carried over {totals[ExtractOutcome.CARRIED]}, readers replaced {reads.replaced}"
    )
    return StageOutcome(ran={w.shard for w in work}, figures=figures)


def _rows(wh: Warehouse, version: str, shard: str) -> "ShardRows":
    from assets.extract.work import ShardRows

    return ShardRows.from_rows(*(wh.rows(t, version, shard) for t in EXTRACT_TABLES))


def _whole(wh: Warehouse, shard: str) -> bool:
    """Every table extract writes has the shard's partition."""
    return all(wh.has_partition(t, EXTRACTOR_VERSION, shard) for t in STAGE.writes)


def _prior(wh: Warehouse, shard: str) -> "ShardRows | None":
    """The shard's rows under the most recent earlier extractor version, for carrying over."""
    for version in reversed(wh.versions("derivations")):
        if version != EXTRACTOR_VERSION and wh.has_partition("derivations", version, shard):
            return _rows(wh, version, shard)
    return None
