"""The OCR stage over shards: which pages to read, what to keep from an earlier run, and the final text
of every judged page once OCR is done.

The asset gathers the tasks of all its shards first and reads them in one pool, so that a run of many
small shards still keeps every core busy; then it writes each shard's ``ocr_pages`` and ``page_texts``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from assets.ocr.engines import asked_because, engine_version, keep_readings
from assets.ocr.page_reading import (
    BUDGET_REASONS,
    DEFAULT_MAX_PAGES_PER_DOCUMENT,
    DEFAULT_OPTIONS,
    OVER_PAGE_BUDGET,
    SCRIPT_LANGUAGES,
    TESSERACT_LANGUAGES,
    DocumentClock,
    LanguageChoice,
    OcrOptions,
    OcrTask,
    ocr_language,
    ocr_tasks,
    unread_record,
)
from assets.ocr.scope import RENDERABLE, RETRIED_REASONS, SENT_TO_OCR
from quality.records import (
    OcrEngine,
    OcrPageRecord,
    OcrScope,
    PageTextRecord,
    PageVerdictRecord,
    RepairRecord,
)
from quality.sources import ExtractedPage, choose_page_texts
from readers.core.model import ContentKind
from readers.core.reading_records import DocumentRecord
from readers.walk.inventory import fs_path

# Planned again whenever the stage runs on their shard: pages past their document's OCR budget, which may
# have been raised since (what the document spent in earlier runs still counts against it, so an unchanged
# budget reads nothing more). They do not make the run plan the stage by themselves: an unchanged corpus
# is not read again.
REPLANNED_REASONS = RETRIED_REASONS | BUDGET_REASONS
# The language_source of a page read again in the language its first reading was found to be in, or in
# the one for the script orientation detection found on it.
OCR_TEXT_LANGUAGE = "ocr_text"
SCRIPT_LANGUAGE = "script"
# A first OCR reading decides its document's language only when the best language profile matches it at
# least this well and beats the runner-up by this margin. On the dev corpus's first readings in English:
# the French, German and Dutch scans match their language at 0.62-0.70, 0.11-0.23 ahead of the next;
# multilingual pages, lorem ipsum and misread scripts stay under 0.45 or within 0.02 of the runner-up.
RELANGUAGE_MIN_SIMILARITY = 0.5
RELANGUAGE_MIN_MARGIN = 0.08


@dataclass
class ShardInput:
    """One shard's rows the OCR stage needs, as the earlier stages wrote them."""

    shard: str
    documents: Sequence[DocumentRecord]
    verdicts: Sequence[PageVerdictRecord]
    pages: Sequence[ExtractedPage]
    page_documents: Sequence[str]  # sha256 of each of ``pages``
    repairs: Sequence[RepairRecord]
    existing: Sequence[OcrPageRecord]


@dataclass
class OcrShardTasks:
    shard: str
    tasks: list[OcrTask] = field(default_factory=list)
    kept: list[OcrPageRecord] = field(default_factory=list)
    refused: list[OcrPageRecord] = field(default_factory=list)  # past their document's page budget
    # The pages whose earlier rows are kept with their tasks: a page only the first engine read before
    # may be read by the second now (installed since, or its reasons widened).
    kept_tasks: dict[tuple[str, int, str], OcrTask] = field(default_factory=dict)


def plan_shard(
    inp: ShardInput,
    *,
    default_language: str,
    installed: Iterable[str],
    version: str = "",
    max_pages_per_document: int = DEFAULT_MAX_PAGES_PER_DOCUMENT,
) -> OcrShardTasks:
    """The pages of the shard to read, the earlier rows still valid (same page, scope and language), and
    the pages past their document's OCR page budget, refused (``over_budget:pages``) in page order: the
    first ``max_pages_per_document`` pages a document sends to OCR are read (or kept), the rest are not."""
    installed = frozenset(installed)
    documents = {d.sha256: d for d in inp.documents}
    languages: dict[str, Counter[str]] = {}
    for v in inp.verdicts:
        if v.language:
            languages.setdefault(v.sha256, Counter())[v.language] += 1
    earlier: dict[tuple[str, int, str], list[OcrPageRecord]] = {}
    for r in inp.existing:
        earlier.setdefault((r.sha256, r.page, r.scope), []).append(r)
    plan = OcrShardTasks(inp.shard)
    budgeted: Counter[str] = Counter()  # pages of each document read or kept so far
    for v in sorted(inp.verdicts, key=lambda v: (v.sha256, v.page)):
        scope = SENT_TO_OCR.get(v.mode)
        doc = documents.get(v.sha256)
        if scope is None or doc is None or ContentKind(doc.kind) not in RENDERABLE:
            continue
        common = languages.get(v.sha256, Counter()).most_common(1)
        choice = ocr_language(common[0][0] if common else None, installed, default_language)
        key = (v.sha256, v.page, scope.value)
        rows = earlier.get(key, [])
        before = next((r for r in rows if r.engine == OcrEngine.TESSERACT), None)
        task = OcrTask(
            v.sha256, inp.shard, fs_path(doc.path), doc.size, ContentKind(doc.kind), v.page, scope, choice
        )
        # Still valid: read in the language chosen now, or in the one its own first reading revealed.
        same_language = before is not None and (
            before.language == choice.language
            or before.language_source in (OCR_TEXT_LANGUAGE, SCRIPT_LANGUAGE)
        )
        if before is not None and same_language and before.reason not in REPLANNED_REASONS:
            plan.kept.extend(rows)
            plan.kept_tasks[key] = task
            budgeted[v.sha256] += 1
            continue
        if budgeted[v.sha256] >= max_pages_per_document:
            plan.refused.append(unread_record(task, version, OVER_PAGE_BUDGET))
            continue
        budgeted[v.sha256] += 1
        plan.tasks.append(task)
    return plan


def language_retries(
    tasks: Sequence[OcrTask], records: Sequence[OcrPageRecord], installed: Iterable[str]
) -> list[OcrTask]:
    """The tasks to read again in the language their own reading turned out to be in.

    A scan has no text to tell its language before OCR, so it is read in the configured language first.
    A page whose script (orientation detection's) has Tesseract data of its own and is not the one read
    in is read again in it; a document whose reading is clearly in another language Tesseract has data
    for (French read as English loses its accents) is read again in that language. The second reading is
    kept only where it is at least as confident (:func:`keep_better`).
    """
    from quality.language import best_language

    installed = frozenset(installed)
    texts: dict[str, list[str]] = {}
    scripts: dict[tuple[str, int], str] = {}
    for r in records:
        if r.scope == OcrScope.PAGE and r.text and r.status == "derived":
            texts.setdefault(r.sha256, []).append(r.text)
        if r.scope == OcrScope.PAGE and r.script:
            scripts[(r.sha256, r.page)] = r.script
    retries: list[OcrTask] = []
    for task in tasks:
        # The page's own script first: a Hebrew page read as English is nonsense whatever its profile.
        by_script = SCRIPT_LANGUAGES.get(scripts.get((task.sha256, task.page), ""))
        if task.scope == OcrScope.PAGE and by_script in installed and by_script != task.language.language:
            retries.append(replace(task, language=LanguageChoice(by_script, SCRIPT_LANGUAGE)))
            continue
        if task.language.source == "document" or task.sha256 not in texts:
            continue
        guess = best_language(" ".join(texts[task.sha256]))
        code = TESSERACT_LANGUAGES.get(guess.language or "")
        if (
            code in installed
            and code != task.language.language
            and guess.similarity >= RELANGUAGE_MIN_SIMILARITY
            and guess.similarity - guess.runner_up_similarity >= RELANGUAGE_MIN_MARGIN
        ):
            retries.append(replace(task, language=LanguageChoice(code, OCR_TEXT_LANGUAGE)))
    return retries


def keep_better(first: Sequence[OcrPageRecord], second: Sequence[OcrPageRecord]) -> list[OcrPageRecord]:
    """``first`` with each page replaced by its second reading where that reading is at least as confident."""
    again = {(r.sha256, r.page, r.scope): r for r in second}
    out: list[OcrPageRecord] = []
    for r in first:
        other = again.get((r.sha256, r.page, r.scope))
        better = (
            other is not None
            and other.status == "derived"
            and (r.confidence is None or (other.confidence or 0.0) >= r.confidence)
        )
        out.append(other if better and other is not None else r)
    return out


@dataclass(frozen=True, slots=True)
class ShardOcr:
    """What the OCR stage writes for one shard, and what it did."""

    shard: str
    ocr: list[OcrPageRecord]  # every row the shard's partition holds: kept and newly read
    texts: list[PageTextRecord]
    read: list[OcrPageRecord]  # the rows read in this run
    kept: int
    refused: int  # pages past their document's OCR page budget, recorded unread
    read_again: int  # pages read again in the language their first reading revealed


def ocr_shards(
    inputs: Sequence[ShardInput],
    version: str,
    *,
    default_language: str,
    installed: Iterable[str],
    options: OcrOptions = DEFAULT_OPTIONS,
    on_page: Callable[[OcrPageRecord], None] | None = None,
    read: bool = True,
) -> list[ShardOcr]:
    """The whole stage over some shards: plan, read every task in one pool (so many small shards still
    keep every core busy), read again in their own language the scans that need it, then choose every
    judged page's final text. ``read=False`` plans and chooses without running Tesseract."""
    installed = frozenset(installed)
    plans = [
        plan_shard(
            inp,
            default_language=default_language,
            installed=installed,
            version=version,
            max_pages_per_document=options.max_pages_per_document,
        )
        for inp in inputs
    ]
    tasks = [t for p in plans for t in p.tasks] if read else []
    # What each document spent in earlier runs counts against its time budget: a rerun does not read
    # another budget's worth of a document that ran out.
    spent: Counter[str] = Counter()
    for plan in plans:
        for r in plan.kept:
            spent[r.sha256] += r.seconds
    clock = DocumentClock(options.document_timeout, dict(spent))
    records = ocr_tasks(tasks, version, options, on_page=on_page, clock=clock)
    # A second reading in another language is a reading too: only within what the document has left.
    retries = [t for t in language_retries(tasks, records, installed) if clock.left(t.sha256) > 0]
    if retries:
        records = keep_better(records, ocr_tasks(retries, version, options, clock=clock))
    # The second engine reads the pages the first read poorly (assets/ocr/engines.py), new or kept.
    firsts = _second_reading_candidates(plans, tasks, records) if read and options.second_engine else []
    seconds = [t for t in second_readings(firsts) if clock.left(t.sha256) > 0]
    second_rows = ocr_tasks(seconds, version, options, clock=clock) if seconds else []
    read_again = {(r.sha256, r.page, r.scope) for r in second_rows}  # each a first reading's page
    chosen = keep_readings([r for _, r in firsts if (r.sha256, r.page, r.scope) in read_again], second_rows)
    settled = [r for r in records if (r.sha256, r.page, r.scope) not in read_again]  # read once, now
    by_shard: dict[str, list[OcrPageRecord]] = {}
    for record in [*keep_readings(settled, []), *chosen]:
        by_shard.setdefault(record.shard, []).append(record)
    again = Counter(t.shard for t in retries)
    out: list[ShardOcr] = []
    for inp, plan in zip(inputs, plans, strict=True):
        new = by_shard.get(inp.shard, [])
        refused = keep_readings(plan.refused, []) if read else []
        replaced = {(r.sha256, r.page, r.scope) for r in new}
        earlier = [r for r in plan.kept if (r.sha256, r.page, r.scope) not in replaced]
        rows = sorted(earlier + new + refused, key=lambda r: (r.sha256, r.page, r.scope, r.engine))
        texts = shard_page_texts(inp, version, rows)
        out.append(
            ShardOcr(
                inp.shard,
                rows,
                texts,
                new,
                kept=len({(r.sha256, r.page, r.scope) for r in plan.kept}),
                refused=len(refused),
                read_again=again[inp.shard],
            )
        )
    return out


def _second_reading_candidates(
    plans: Sequence[OcrShardTasks], tasks: Sequence[OcrTask], records: Sequence[OcrPageRecord]
) -> list[tuple[OcrTask, OcrPageRecord]]:
    """Every first reading with its task: the pages read now, and the kept pages only the first engine
    read before (their rows are replaced only where the second engine reads them now)."""
    pairs = list(zip(tasks, records, strict=True))
    for plan in plans:
        engines: dict[tuple[str, int, str], set[str]] = {}
        for r in plan.kept:
            engines.setdefault((r.sha256, r.page, r.scope), set()).add(r.engine)
        for r in plan.kept:
            key = (r.sha256, r.page, r.scope)
            if r.engine == OcrEngine.TESSERACT and engines[key] == {OcrEngine.TESSERACT.value}:
                pairs.append((plan.kept_tasks[key], r))
    return pairs


def second_readings(pairs: Sequence[tuple[OcrTask, OcrPageRecord]]) -> list[OcrTask]:
    """The tasks the second engine reads: each first reading's task that engine is asked to read
    (:func:`~assets.ocr.engines.asked_because`), turned the way the first engine turned the page, with
    why; none where the second engine is not installed."""
    if not engine_version(OcrEngine.RAPIDOCR):
        return []
    out: list[OcrTask] = []
    for task, record in pairs:
        why = asked_because(record)
        if why is not None:
            # The way round Tesseract read the page on, where it read it: a way round found on a page it
            # could not read is a guess (a picture's shapes), and RapidOCR turns upside-down lines itself.
            rotation = record.rotation if record.status == "derived" else 0
            out.append(replace(task, engine=OcrEngine.RAPIDOCR, rotation=rotation, asked=why))
    return out


def shard_page_texts(inp: ShardInput, version: str, ocr: Sequence[OcrPageRecord]) -> list[PageTextRecord]:
    """The final text of every judged page of the shard (quality/sources.py decides)."""
    verdicts: dict[str, list[PageVerdictRecord]] = {}
    for v in inp.verdicts:
        verdicts.setdefault(v.sha256, []).append(v)
    pages: dict[str, list[ExtractedPage]] = {}
    for sha, page in zip(inp.page_documents, inp.pages, strict=True):
        pages.setdefault(sha, []).append(page)
    repairs: dict[str, list[RepairRecord]] = {}
    for r in inp.repairs:
        repairs.setdefault(r.sha256, []).append(r)
    read: dict[str, list[OcrPageRecord]] = {}
    for o in ocr:
        read.setdefault(o.sha256, []).append(o)
    out: list[PageTextRecord] = []
    for sha in sorted(verdicts):
        out += choose_page_texts(
            sha,
            inp.shard,
            version,
            verdicts[sha],
            pages.get(sha, []),
            repairs.get(sha, []),
            read.get(sha, []),
        )
    return out
