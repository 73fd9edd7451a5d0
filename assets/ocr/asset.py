"""ocr: read with Tesseract exactly what the verdicts sent to OCR (REPLACE pages whole, image documents'
frames, the figure regions of FIGURES pages), in the document's language, upright first, one Tesseract
per core; then record every judged page's final text and where it came from."""

from collections import Counter

import dagster as dg

from assets.factory import shard_stage
from assets.ocr.declaration import STAGE
from assets.shard_step import ShardStep, StageOutcome
from readers.core.reading_records import DocumentRecord
from readers.core.versions import EXTRACTOR_VERSION
from warehouse import Warehouse

OCR_CONFIDENCE = "ocr_confidence"


@shard_stage(
    STAGE,
    check_specs=[
        dg.AssetCheckSpec(
            OCR_CONFIDENCE,
            asset=STAGE.name,
            description="Mean word confidence of the pages OCR read whole in this run; warns under the "
            "configured floor (a wrong language or a bad scan).",
        ),
    ],
)
def ocr(step: ShardStep) -> StageOutcome:
    from assets.ocr.page_reading import OcrOptions
    from assets.ocr.work import ocr_shards
    from readers.images.tesseract import installed_languages

    wh, assay, progress = step.wh, step.settings, step.progress
    # Only the shards with pages to read or final texts to record (assets/planner.py).
    plan = step.plan()
    if plan.shards:
        progress.stage(step.stage.name, plan.total)
    results = ocr_shards(
        [_shard_input(wh, shard) for shard in plan.shards],
        EXTRACTOR_VERSION,
        default_language=assay.ocr_language,
        installed=installed_languages(),
        options=OcrOptions.of(assay),
        on_page=lambda r: progress.page_read(r.status),
    )
    statuses: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    figures: dict[str, dict[str, int]] = {}
    for result in results:
        figures[result.shard] = {"pages_read": len(result.read), "pages_kept": result.kept}
        wh.write("ocr_pages", EXTRACTOR_VERSION, result.ocr, shard=result.shard)
        wh.write("page_texts", EXTRACTOR_VERSION, result.texts, shard=result.shard)
        statuses.update(f"{r.scope}:{r.status}" for r in result.ocr)
        sources.update(t.source for t in result.texts)

    read = [r for result in results for r in result.read]
    kept = sum(result.kept for result in results)
    # Tesseract's scale: the floor is calibrated on its confidences (RapidOCR's run near 99 on all it reads).
    whole = [r for r in read if r.scope == "page" and r.engine == "tesseract" and r.confidence is not None]
    mean = round(sum(r.confidence for r in whole) / len(whole), 2) if whole else None
    engines = Counter(r.engine for r in read)
    step.log.info(
        f"OCR: {len(read)} read ({dict(engines)}; {sum(r.read_again for r in results)} again in their "
        f"language), {kept} "
        f"kept, {sum(r.refused for r in results)} over the page budget, "
        f"{round(sum(r.seconds for r in read), 1)} s; {dict(statuses)}; final texts from {dict(sources)}"
    )
    # The Underivable rate over the shards OCR wrote is validated with the other data-quality checks, once
    # per run (assets/data_quality.py).
    checks = [
        dg.AssetCheckResult(
            check_name=OCR_CONFIDENCE,
            passed=mean is None or mean >= assay.ocr_confidence_min,
            severity=dg.AssetCheckSeverity.WARN,
            metadata={
                "mean_confidence": mean,
                "floor": assay.ocr_confidence_min,
                "pages": len(whole),
                "lowest": sorted(r.confidence for r in whole)[:5],
            },
        ),
    ]
    return StageOutcome(ran=plan.shards, figures=figures, checks=checks)


def _shard_input(wh: Warehouse, shard: str):
    from assets.ocr.work import ShardInput
    from quality.records import OcrPageRecord, PageVerdictRecord, RepairRecord
    from quality.sources import ExtractedPage

    pages = wh.rows("pages", EXTRACTOR_VERSION, shard)
    return ShardInput(
        shard=shard,
        documents=[DocumentRecord(**r) for r in wh.rows("documents", EXTRACTOR_VERSION, shard)],
        verdicts=[PageVerdictRecord(**r) for r in wh.rows("page_verdicts", EXTRACTOR_VERSION, shard)],
        pages=[
            ExtractedPage(r["page"], r["text"], r["reader"], r["reader_version"], r.get("label"))
            for r in pages
        ],
        page_documents=[r["sha256"] for r in pages],
        repairs=[RepairRecord(**r) for r in wh.rows("repairs", EXTRACTOR_VERSION, shard)],
        existing=[OcrPageRecord(**r) for r in wh.rows("ocr_pages", EXTRACTOR_VERSION, shard)],
    )
