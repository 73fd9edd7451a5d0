"""chunk: each clean text split along its headings into retrieval-sized chunks that carry their heading
path, pages, language, sources and trust."""

from collections import Counter

import dagster as dg

from assets.contract_checks import contract_check_results, contract_check_specs
from assets.materializations import shard_materializations
from assets.partitions import backfill_policy, shards
from assets.progress import Progress
from assets.resources import AssaySettings
from assets.stages import BY_NAME
from readers.core.versions import EXTRACTOR_VERSION
from warehouse.store import to_pylist


@dg.asset(
    group_name="sanitize",
    partitions_def=shards,
    backfill_policy=backfill_policy,
    code_version=EXTRACTOR_VERSION,
    deps=BY_NAME["chunk"].after,  # assets/stages.py
    kinds={"python", "parquet"},
    check_specs=contract_check_specs("chunk", ("chunks",)),
    description="Chunks of each text (chunks): split along the headings to a target size with an overlap, "
    "never inside a table row, each with its heading path, pages, language, sources and trust (the "
    "minimum over its pages).",
)
def chunk(context: dg.AssetExecutionContext, assay: AssaySettings, progress: dg.ResourceParam[Progress]):
    from quality.chunking import PageSpan, chunk_document
    from quality.records import ChunkRecord

    wh = assay.warehouse()
    totals: Counter[str] = Counter()
    # Only the shards whose clean texts are newer than their chunks (assets/plans.py).
    stale = BY_NAME["chunk"].stale_shards(wh, EXTRACTOR_VERSION, set(context.partition_keys))
    if stale:
        progress.stage("chunk")
    for shard in stale:
        verdicts = wh.read("page_verdicts", EXTRACTOR_VERSION, shard, ["sha256", "page", "language"])
        languages = {(r["sha256"], r["page"]): r["language"] for r in to_pylist(verdicts)}
        # Only pages with a text are in texts.pages, so their trust is all that is looked up: no text read.
        finals = wh.read("page_texts", EXTRACTOR_VERSION, shard, ["sha256", "page", "trust"])
        trust = {(r["sha256"], r["page"]): r["trust"] for r in to_pylist(finals)}
        out: list[ChunkRecord] = []
        for text in wh.rows("texts", EXTRACTOR_VERSION, shard):
            sha = text["sha256"]
            pages = [
                PageSpan(page, start, languages.get((sha, page)), source, trust.get((sha, page)))
                for page, start, source in zip(
                    text["pages"], text["page_starts"], text["page_sources"], strict=True
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
                context.log.warning(f"{sha}: not chunked: {exc}")
                totals["not_chunked"] += 1
                continue
            out += [
                ChunkRecord(
                    c.chunk_id,
                    sha,
                    shard,
                    EXTRACTOR_VERSION,
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
                )
                for c in chunks
            ]
            totals["documents"] += 1
        wh.write("chunks", EXTRACTOR_VERSION, out, shard=shard)
        totals["chunks"] += len(out)
    context.log.info(f"chunk: {dict(totals)}")
    yield from shard_materializations(context, "chunk", wh, EXTRACTOR_VERSION, ran=stale)
    yield from contract_check_results("chunk", ("chunks",), wh, EXTRACTOR_VERSION, stale)
