"""chunk: each clean text split along its headings into retrieval-sized chunks that carry their heading
path, pages, language, sources and trust."""

from collections import Counter

from assets.factory import ShardStep, StageOutcome, shard_stage
from warehouse.store import to_pylist


@shard_stage("chunk")
def chunk(step: ShardStep) -> StageOutcome:
    from quality.chunking import PageSpan, chunk_document
    from quality.records import ChunkRecord

    wh, version, assay = step.wh, step.version, step.settings
    totals: Counter[str] = Counter()
    # Only the shards whose clean texts are newer than their chunks (assets/plans.py).
    stale = step.stale()
    if stale:
        step.progress.stage("chunk", len(stale))
    for shard in stale:
        verdicts = wh.read("page_verdicts", version, shard, ["sha256", "page", "language"])
        languages = {(r["sha256"], r["page"]): r["language"] for r in to_pylist(verdicts)}
        # Only pages with a text are in texts.pages, so their trust is all that is looked up: no text read.
        finals = wh.read("page_texts", version, shard, ["sha256", "page", "trust"])
        trust = {(r["sha256"], r["page"]): r["trust"] for r in to_pylist(finals)}
        out: list[ChunkRecord] = []
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
            try:
                chunks = chunk_document(
                    sha,
                    text["text"],
                    pages,
                    target=assay.chunk_target_chars,
                    overlap=assay.chunk_overlap_chars,
                )
            except ValueError as exc:  # a bad document must not fail the shard: no chunks, logged
                step.log.warning(f"{sha}: not chunked: {exc}")
                totals["not_chunked"] += 1
                continue
            out += [
                ChunkRecord(
                    c.chunk_id,
                    sha,
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
                for c in chunks
            ]
            totals["documents"] += 1
        wh.write("chunks", version, out, shard=shard)
        totals["chunks"] += len(out)
        step.progress.shard_done("chunk")
    step.log.info(f"chunk: {dict(totals)}")
    return StageOutcome(ran=stale)
