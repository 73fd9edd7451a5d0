"""ocr: read with Tesseract exactly the pages the verdicts sent to OCR (mode REPLACE), in the document's
language, upright first; write ocr_pages."""

from collections import Counter
from pathlib import Path

import dagster as dg

from orchestration.partitions import backfill_policy, shards
from orchestration.settings import AssaySettings
from readers.versions import EXTRACTOR_VERSION
from warehouse.store import to_pylist


@dg.asset(
    group_name="ocr",
    partitions_def=shards,
    backfill_policy=backfill_policy,
    code_version=EXTRACTOR_VERSION,
    deps=["verdicts"],
    kinds={"python", "parquet"},
    description="Tesseract on the pages whose verdict is REPLACE: text, language, rotation applied, word "
    "confidences; a page read as nothing is underivable, never an empty text.",
)
def ocr(context: dg.AssetExecutionContext, assay: AssaySettings) -> dg.MaterializeResult:
    from quality.records import OcrPageRecord
    from readers.ocr_stage import ocr_document, ocr_language

    wh = assay.warehouse()
    statuses: Counter[str] = Counter()
    read = kept = 0
    for shard in context.partition_keys:
        paths = {r["sha256"]: r["path"] for r in wh.rows("documents", EXTRACTOR_VERSION, shard)}
        wanted: dict[str, set[int]] = {}
        languages: dict[str, Counter[str]] = {}
        for v in wh.rows("page_verdicts", EXTRACTOR_VERSION, shard):
            if v["mode"] == "REPLACE":
                wanted.setdefault(v["sha256"], set()).add(v["page"])
            if v["language"]:
                languages.setdefault(v["sha256"], Counter())[v["language"]] += 1
        existing: dict[str, list[OcrPageRecord]] = {}
        for row in to_pylist(wh.read("ocr_pages", EXTRACTOR_VERSION, shard)):
            existing.setdefault(row["sha256"], []).append(OcrPageRecord(**row))
        out: list[OcrPageRecord] = []
        for sha in sorted(wanted):
            done = existing.get(sha, [])
            if {r.page for r in done} == wanted[sha]:
                out += done
                kept += 1
                continue
            common = languages.get(sha, Counter()).most_common(1)
            language = ocr_language(common[0][0] if common else None, assay.ocr_language)
            out += ocr_document(
                Path(paths[sha]),
                sha,
                shard,
                EXTRACTOR_VERSION,
                sorted(wanted[sha]),
                language=language,
                dpi=assay.ocr_dpi,
            )
            read += 1
        wh.write("ocr_pages", EXTRACTOR_VERSION, sorted(out, key=lambda r: (r.sha256, r.page)), shard=shard)
        statuses.update(r.status for r in out)
    context.log.info(f"OCR: {read} documents read, {kept} kept; pages {dict(statuses)}")
    return dg.MaterializeResult(metadata={"documents_read": read, "kept": kept, "pages": dict(statuses)})
