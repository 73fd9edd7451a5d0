"""verdicts: decide, per page, what its text is worth and why, from the stored signals; ask the fallback
reader for a second opinion on the pages judged garbage and try to repair their fonts; write page_verdicts,
font_verdicts and repairs."""

from assets.shard_step import ShardStep, StageOutcome
from readers.core.base import freeze_long_lived
from readers.core.diagnostics import heard, summary
from readers.core.reading_records import DocumentRecord, PageFontRecord, PageRecord
from readers.core.versions import EXTRACTOR_VERSION
from readers.walk.inventory import fs_path
from warehouse import Warehouse
from warehouse.store import to_pylist


def judge_shards(step: ShardStep) -> StageOutcome:
    """The stage's loop over the shards of its run's range that the planner finds stale."""
    # Imported here, not at definition time: the PDF libraries load only when a shard is judged.
    from assets.verdicts.judging import judge_document_rows
    from quality.corpus_vocabulary import VocabularyWord, by_language
    from quality.judge import OVER_LIMIT
    from quality.verdicts import verdicts_version_for
    from readers.core.model import ContentKind
    from readers.engine.isolation import IsolatedReads

    wh, assay, progress = step.wh, step.settings, step.progress
    words = by_language(
        VocabularyWord(r["language"], r["word"], r["documents"])
        for r in wh.rows("vocabulary", EXTRACTOR_VERSION)
    )
    # Verdicts made under other rules or another vocabulary are made again, so the verdicts of a corpus do
    # not depend on the order its documents arrived in.
    current = verdicts_version_for(words)
    modes: dict[str, int] = {}
    judged = kept = 0
    figures: dict[str, dict[str, int]] = {}
    # Only the shards whose verdicts are stale (assets/planner.py): the others are not read at all.
    stale = step.stale()
    if stale:
        progress.stage(step.stage.name)
        freeze_long_lived()  # the modules loaded so far live as long as the process (readers.core.base)
    # What reads a document's file (the second opinion, the ink measure, a repair's font check) runs in a
    # reader worker under the read budgets (assets/verdicts/file_work.py): one at a time, as the documents
    # are judged; the worker starts at the first such need, and most shards have none.
    pool = IsolatedReads(assay.limits(), assay.max_document_bytes, assay.budgets(), 1, [ContentKind.PDF])
    with pool:
        for shard in stale:
            judged_before, kept_before = judged, kept
            documents = {
                r["sha256"]: DocumentRecord(**r) for r in wh.rows("documents", EXTRACTOR_VERSION, shard)
            }
            pages = _grouped(wh, "pages", shard, PageRecord)
            fonts = _grouped(wh, "page_fonts", shard, PageFontRecord)
            existing = {t: _group_rows(wh, t, shard) for t in step.stage.writes}
            out: dict[str, list] = {t: [] for t in step.stage.writes}
            changed = set(existing["page_verdicts"]) - set(pages)  # documents gone from the shard
            for sha in sorted(pages):
                doc = documents.get(sha)
                if doc is None:
                    continue
                if sha in existing["page_verdicts"] and all(
                    v.verdicts_version == current for v in existing["page_verdicts"][sha]
                ):
                    for t in step.stage.writes:
                        out[t] += existing[t].get(sha, [])
                    kept += 1
                    continue
                # The second opinion and the ink open the file again: what the libraries say then goes to
                # the run's log, not the terminal (what they said while it was read is
                # derivations.diagnostics).
                with heard() as said:
                    result = judge_document_rows(
                        doc.kind,
                        fs_path(doc.path),
                        sha,
                        shard,
                        EXTRACTOR_VERSION,
                        pages[sha],
                        fonts.get(sha, []),
                        assay.limits(),
                        vocabulary=words,
                        verdicts_version=current,
                        size=doc.size,
                        jobs=pool,
                    )
                if said:
                    step.log.info(f"the libraries said while {sha[:12]} was judged:\n{summary(said)}")
                stopped = sorted({r for v in result.pages for r in v.reasons if OVER_LIMIT in r})
                if stopped:
                    step.log.warning(f"{sha[:12]}: work on its file stopped over its budget: {stopped}")
                out["page_verdicts"] += result.pages
                out["font_verdicts"] += result.fonts
                out["repairs"] += result.repairs
                changed.add(sha)
                judged += 1
                progress.document_judged()
            if changed or not all(wh.has_partition(t, EXTRACTOR_VERSION, shard) for t in step.stage.writes):
                # page_verdicts last: the planner reads it as "this shard is judged", so a run killed
                # between two writes judges the shard again.
                for t in step.stage.writes:
                    wh.write(t, EXTRACTOR_VERSION, out[t], shard=shard)
            for v in out["page_verdicts"]:
                modes[v.mode] = modes.get(v.mode, 0) + 1
            figures[shard] = {"judged": judged - judged_before, "kept": kept - kept_before}
    step.log.info(f"judged {judged} documents, kept {kept}; modes {modes}")
    return StageOutcome(ran=stale, figures=figures)


def _grouped(wh: Warehouse, table: str, shard: str, record: type) -> dict[str, list]:
    grouped: dict[str, list] = {}
    for row in wh.rows(table, EXTRACTOR_VERSION, shard):
        grouped.setdefault(row["sha256"], []).append(record(**row))
    return grouped


def _group_rows(wh: Warehouse, table: str, shard: str) -> dict[str, list]:
    from quality.records import FontVerdictRecord, PageVerdictRecord, RepairRecord

    record = {"page_verdicts": PageVerdictRecord, "font_verdicts": FontVerdictRecord, "repairs": RepairRecord}
    grouped: dict[str, list] = {}
    for row in to_pylist(wh.read(table, EXTRACTOR_VERSION, shard)):
        grouped.setdefault(row["sha256"], []).append(record[table](**row))
    return grouped
