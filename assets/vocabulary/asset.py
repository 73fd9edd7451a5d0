"""vocabulary: harvest the words the shipped lexicons miss but several documents use, per language, so
that the verdicts do not condemn a corpus's domain language as garbage."""

import dagster as dg

from assets.factory import corpus_stage
from assets.resources import AssaySettings
from readers.core.versions import EXTRACTOR_VERSION
from warehouse.store import to_pylist


@corpus_stage(
    "vocabulary",
    kinds={"python", "parquet"},
)
def vocabulary(context: dg.AssetExecutionContext, assay: AssaySettings) -> dg.MaterializeResult:
    from quality.corpus_vocabulary import PageWords, harvest
    from quality.records import VocabularyRecord

    wh = assay.warehouse()
    pages = (
        PageWords(r["sha256"], r["lexicon_language"], r["text"])
        for r in to_pylist(wh.read_all_shards("pages", EXTRACTOR_VERSION))
        if r["lexicon_language"] and r["lexicon_judged"]
    )
    words = harvest(pages)
    wh.write(
        "vocabulary",
        EXTRACTOR_VERSION,
        [VocabularyRecord(w.language, w.word, w.documents, EXTRACTOR_VERSION) for w in words],
    )
    per_language: dict[str, int] = {}
    for w in words:
        per_language[w.language] = per_language.get(w.language, 0) + 1
    context.log.info(f"vocabulary: {len(words)} words {per_language}")
    return dg.MaterializeResult(
        metadata={"words": len(words), "per_language": per_language, "examples": [w.word for w in words[:20]]}
    )
