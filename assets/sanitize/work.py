"""sanitize: one clean text per document from its pages' final texts; what was taken out (invisible text,
running headers and footers, personal data) recorded beside it, and its tables as data with the same
placeholders (``clean_tables``); a document whose text could not be
sanitized within the per-document budget, or at all, recorded in ``unsanitized`` (assets/budgeted.py)."""

from collections import Counter

from assets.shard_step import ShardStep, StageOutcome
from warehouse.store import to_pylist


def sanitize_shards(step: ShardStep) -> StageOutcome:
    """The stage's loop over the shards of its run's range that the planner finds stale."""
    from assets.budgeted import BudgetedWork
    from quality.records import PageTextRecord, PageVerdictRecord
    from quality.sanitizer import PageHidden, SanitizeJob
    from readers.core.model import OCR_KINDS, ContentKind
    from readers.core.reading_records import TableRecord

    wh, version = step.wh, step.version
    scrubber = step.settings.scrubber()
    totals: Counter[str] = Counter()
    # Only the shards whose final page texts are newer than their clean texts (assets/planner.py).
    plan = step.plan()
    stale = plan.shards
    if stale:
        step.progress.stage(step.stage.name, plan.total)
    with BudgetedWork(step.settings) as work:
        for shard in stale:
            kinds = {r["sha256"]: r["kind"] for r in wh.rows("documents", version, shard)}
            pages: dict[str, list[PageTextRecord]] = {}
            for row in wh.rows("page_texts", version, shard):
                pages.setdefault(row["sha256"], []).append(PageTextRecord(**row))
            sandwich = {
                (v.sha256, v.page)
                for v in (PageVerdictRecord(**r) for r in wh.rows("page_verdicts", version, shard))
                if v.provenance == "ocr_sandwich"
            }
            hidden: dict[str, dict[int, PageHidden]] = {}
            artifacts: dict[str, dict[int, list[str]]] = {}
            sources: dict[str, dict[int, str]] = {}
            columns = ["sha256", "page", "hidden_text", "hidden_why", "artifacts", "artifacts_source"]
            for row in to_pylist(wh.read("pages", version, shard, columns)):
                if row.get("artifacts"):
                    artifacts.setdefault(row["sha256"], {})[row["page"]] = row["artifacts"]
                    if row.get("artifacts_source"):
                        sources.setdefault(row["sha256"], {})[row["page"]] = row["artifacts_source"]
                if row["hidden_text"]:
                    key = (row["sha256"], row["page"])
                    hidden.setdefault(row["sha256"], {})[row["page"]] = PageHidden(
                        row["hidden_text"], row["hidden_why"] or [], key in sandwich
                    )
            tables: dict[str, list[TableRecord]] = {}
            for row in wh.rows("tables", version, shard):
                tables.setdefault(row["sha256"], []).append(TableRecord(**row))
            jobs = []
            for sha in sorted(pages):
                kind = ContentKind(kinds.get(sha, "unknown"))
                paged = kind in OCR_KINDS
                found = artifacts.get(sha, {})
                jobs.append(
                    SanitizeJob(
                        sha,
                        shard,
                        version,
                        pages[sha],
                        hidden.get(sha, {}),
                        scrubber,
                        paged,
                        found,
                        kind,
                        tables.get(sha, ()),
                        sources.get(sha),
                    )
                )
            out: dict[str, list] = {table: [] for table in step.stage.writes}
            # A long text is sanitized in a worker, under the per-document budget.
            for result in work.run(jobs):
                if result.text is not None:
                    out["texts"].append(result.text)
                if result.stopped is not None:
                    out["unsanitized"].append(result.stopped)
                    step.log.warning(f"{result.stopped.sha256}: not sanitized: {result.stopped.detail}")
                out["redactions"] += result.redactions
                out["hidden_text"] += result.hidden
                out["furniture"] += result.furniture
                out["clean_tables"] += result.tables
            for table, rows in out.items():
                wh.write(table, version, rows, shard=shard)
                totals[table] += len(rows)
            step.progress.shard_done(step.stage.name)
    step.log.info(f"sanitize: {dict(totals)}")
    return StageOutcome(ran=stale)
