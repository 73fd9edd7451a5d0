"""chunk: each clean text split along its headings into retrieval-sized chunks that carry their heading
path, pages, language, sources and trust; a text that could not be chunked within the per-document budget,
or at all, recorded in ``unchunked`` (assets/budgeted.py)."""

from collections import Counter

from assets.shard_step import ShardStep, StageOutcome
from warehouse.store import to_pylist


def chunk_shards(step: ShardStep) -> StageOutcome:
    """The stage's loop over the shards of its run's range that the planner finds stale."""
    from assets.budgeted import BudgetedWork
    from quality.chunking import ChunkJob, PageSpan
    from quality.records import ChunkRecord
    from readers.core.model import ContentKind

    wh, version, assay = step.wh, step.version, step.settings
    target, overlap = assay.chunk_target_chars, assay.chunk_overlap_chars
    totals: Counter[str] = Counter()
    # Only the shards whose clean texts are newer than their chunks (assets/planner.py).
    plan = step.plan()
    stale = plan.shards
    if stale:
        step.progress.stage(step.stage.name, plan.total)
    with BudgetedWork(step.settings) as work:
        for shard in stale:
            verdicts = wh.read("page_verdicts", version, shard, ["sha256", "page", "language"])
            languages = {(r["sha256"], r["page"]): r["language"] for r in to_pylist(verdicts)}
            # Only pages with a text are in texts.pages: their trust is all that is looked up, no text read.
            finals = wh.read("page_texts", version, shard, ["sha256", "page", "trust"])
            trust = {(r["sha256"], r["page"]): r["trust"] for r in to_pylist(finals)}
            kinds = {
                r["sha256"]: r["kind"]
                for r in to_pylist(wh.read("documents", version, shard, ["sha256", "kind"]))
            }
            jobs: list[ChunkJob] = []
            for text in wh.rows("texts", version, shard):
                sha = text["sha256"]
                # rows written before texts.page_labels read back as null: no labels
                labels = text.get("page_labels") or [None] * len(text["pages"])
                pages = [
                    PageSpan(page, start, languages.get((sha, page)), source, trust.get((sha, page)), label)
                    for page, start, source, label in zip(
                        text["pages"], text["page_starts"], text["page_sources"], labels, strict=True
                    )
                ]
                kind = ContentKind(kinds.get(sha, "unknown"))
                jobs.append(ChunkJob(sha, shard, version, text["text"], pages, target, overlap, kind))
            out: list[ChunkRecord] = []
            stopped = []
            # A long text is chunked in a worker, under the per-document budget; a bad document does not fail
            # the shard: no chunks, and an unchunked row saying why.
            for job, result in zip(jobs, work.run(jobs), strict=True):
                if result.stopped is not None:
                    stopped.append(result.stopped)
                    step.log.warning(f"{job.sha256}: not chunked: {result.stopped.detail}")
                    totals["not_chunked"] += 1
                    continue
                out += [
                    ChunkRecord(
                        c.chunk_id,
                        job.sha256,
                        shard,
                        version,
                        c.ordinal,
                        c.start,
                        c.end,
                        c.overlap,
                        list(c.heading_path),
                        c.page_start,
                        c.page_end,
                        list(c.page_offsets),
                        c.language,
                        list(c.sources),
                        c.trust,
                        c.text,
                        list(c.page_labels),
                    )
                    for c in result.chunks
                ]
                totals["documents"] += 1
            wh.write("unchunked", version, stopped, shard=shard)
            wh.write("chunks", version, out, shard=shard)
            totals["chunks"] += len(out)
            step.progress.shard_done(step.stage.name)
    step.log.info(f"chunk: {dict(totals)}")
    return StageOutcome(ran=stale)
