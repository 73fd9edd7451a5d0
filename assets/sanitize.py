"""sanitize: one clean text per document from its pages' final texts; what was taken out (invisible text,
running headers and footers, personal data) recorded beside it."""

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

SANITIZE_TABLES = BY_NAME["sanitize"].writes


@dg.asset(
    group_name="sanitize",
    partitions_def=shards,
    backfill_policy=backfill_policy,
    code_version=EXTRACTOR_VERSION,
    deps=BY_NAME["sanitize"].after,  # assets/stages.py
    kinds={"python", "parquet"},
    check_specs=contract_check_specs("sanitize", ("texts",)),
    description="One markdown text per document (texts), normalised, without invisible text (hidden_text), "
    "running headers and footers (furniture) or personal data (redactions: kind, page and offsets, never "
    "the value).",
)
def sanitize(context: dg.AssetExecutionContext, assay: AssaySettings, progress: dg.ResourceParam[Progress]):
    from quality.records import PageVerdictRecord
    from quality.sanitize import PageHidden, sanitize_document
    from quality.sources import PageTextRecord
    from readers.core.model import OCR_KINDS, ContentKind

    wh = assay.warehouse()
    scrubber = assay.scrubber()
    totals: Counter[str] = Counter()
    # Only the shards whose final page texts are newer than their clean texts (assets/plans.py).
    stale = BY_NAME["sanitize"].stale_shards(wh, EXTRACTOR_VERSION, set(context.partition_keys))
    if stale:
        progress.stage("sanitize")
    for shard in stale:
        kinds = {r["sha256"]: r["kind"] for r in wh.rows("documents", EXTRACTOR_VERSION, shard)}
        pages: dict[str, list[PageTextRecord]] = {}
        for row in wh.rows("page_texts", EXTRACTOR_VERSION, shard):
            pages.setdefault(row["sha256"], []).append(PageTextRecord(**row))
        sandwich = {
            (v.sha256, v.page)
            for v in (PageVerdictRecord(**r) for r in wh.rows("page_verdicts", EXTRACTOR_VERSION, shard))
            if v.provenance == "ocr_sandwich"
        }
        hidden: dict[str, dict[int, PageHidden]] = {}
        columns = ["sha256", "page", "hidden_text", "hidden_why"]
        for row in to_pylist(wh.read("pages", EXTRACTOR_VERSION, shard, columns)):
            if row["hidden_text"]:
                key = (row["sha256"], row["page"])
                hidden.setdefault(row["sha256"], {})[row["page"]] = PageHidden(
                    row["hidden_text"], row["hidden_why"] or [], key in sandwich
                )
        out = {table: [] for table in SANITIZE_TABLES}
        for sha in sorted(pages):
            result = sanitize_document(
                sha,
                shard,
                EXTRACTOR_VERSION,
                pages[sha],
                hidden.get(sha, {}),
                scrubber,
                paged=ContentKind(kinds.get(sha, "unknown")) in OCR_KINDS,
            )
            if result.text is not None:
                out["texts"].append(result.text)
            out["redactions"] += result.redactions
            out["hidden_text"] += result.hidden
            out["furniture"] += result.furniture
        for table, rows in out.items():
            wh.write(table, EXTRACTOR_VERSION, rows, shard=shard)
            totals[table] += len(rows)
    context.log.info(f"sanitize: {dict(totals)}")
    yield from shard_materializations(context, "sanitize", wh, EXTRACTOR_VERSION, ran=stale)
    yield from contract_check_results("sanitize", ("texts",), wh, EXTRACTOR_VERSION, stale)
