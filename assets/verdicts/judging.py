"""Wiring for the verdicts stage: the document judge (quality/judge.py) with the real text check, the
fallback reader as second opinion and the font repair."""

from __future__ import annotations

import functools
import inspect
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from assets.verdicts.file_work import DocumentFileWork, FileWork
from quality.judge import DocumentVerdicts, RepairOutcome, TextQuality, judge_one
from quality.language import best_language
from quality.lexicon import JUDGING_LANGUAGES, load_lexicon
from quality.page_signals import lexicon_evidence, page_signals
from quality.records import PageVerdictRecord
from quality.repair import apply_mapping, repair
from quality.repair_gate import after_repair, before_repair
from quality.verdicts import BAD_RUNE_MAX, LEXICON_MIN, MIN_LANGUAGE_SIMILARITY, VERDICTS_VERSION, Tier
from readers.core.base import collector_paused
from readers.core.errors import LimitExceeded
from readers.core.model import OCR_KINDS, ContentKind, PageText, ReadLimits
from readers.core.reading_records import PageFontRecord, PageRecord
from readers.core.snapshot import WalkedFile
from readers.engine.isolation import InProcessJobs, JobRunner

# A repaired text must read at least this well (length-weighted lexicon hit rate) to be accepted: above
# the garbage threshold by a clear band, since a repair that only half reads is worse than OCR.
REPAIR_ACCEPT = 0.6
# The mapping is fitted on at most this many characters of the page (it is then applied to all of it).
REPAIR_SAMPLE_CHARS = 1500
# Without a known document language, candidates are scored by trigram-profile similarity: clean text
# scores 0.40 and more (tests/test_lexicon_language.py windows), shift-garbled text under 0.12.
REPAIR_SIMILARITY_ACCEPT = 0.35
# Score evaluations allowed to that (slower, ~1.5 ms) scorer: the shifts and a short hill-climb.
REPAIR_SIMILARITY_BUDGET = 1500

JUDGING = frozenset(JUDGING_LANGUAGES)


def check_text(text: str) -> TextQuality:
    """Would this text pass as a trustworthy page? Used on the fallback reader's text."""
    s = page_signals(PageText(1, text), body_size=None, page_height=0.0)
    if s.bad_rune_ratio > BAD_RUNE_MAX or s.cid_ratio > 0.05:
        return TextQuality(False, s.lexicon_hit_rate, s.language)
    if s.language is None or s.language_similarity < MIN_LANGUAGE_SIMILARITY:
        return TextQuality(False, s.lexicon_hit_rate, None)
    if s.lexicon_judged:
        return TextQuality(s.lexicon_hit_rate >= LEXICON_MIN, s.lexicon_hit_rate, s.language)
    return TextQuality(True, 0.0, s.language)


def _repairer(document_language: str | None, fonts_of: Callable[[int], Mapping[str, str]] | None = None):
    """A repair scored by the document's lexicon when its language is known from its clean pages; else
    by the best trigram-profile similarity (language-agnostic), verified afterwards by the lexicon of the
    language the repaired text turns out to be in. Used only where the repair gate lets it
    (quality/repair_gate.py): strong evidence, enough text, a result that reads like a clean page, font
    by font (``fonts_of``: a page's text per font)."""
    if document_language in JUDGING:
        lexicon = load_lexicon(document_language)

        def score(text: str) -> float:
            evidence = lexicon_evidence(text, lexicon)
            return evidence.hit_rate if evidence.judged else 0.0

        accept, budget = REPAIR_ACCEPT, None
    else:

        def score(text: str) -> float:
            guess = best_language(text)
            return guess.similarity if guess.language in JUDGING else 0.0

        accept, budget = REPAIR_SIMILARITY_ACCEPT, REPAIR_SIMILARITY_BUDGET

    def attempt(page: int, text: str, reasons: Sequence[str]) -> RepairOutcome | None:
        if not before_repair(reasons, text, check_text).allowed:
            return None
        sample = text[:REPAIR_SAMPLE_CHARS]
        kwargs = {"max_scores": budget} if budget else {}
        result = repair(sample, score, accept=accept, **kwargs)
        if result.repaired is None:
            return None
        repaired = apply_mapping(text, result.mapping)
        fonts = _safe(fonts_of, page) if fonts_of is not None else {}
        gate = after_repair(repaired, fonts, lambda t: apply_mapping(t, result.mapping), check_text)
        if not gate.allowed:
            return None
        quality = check_text(repaired)
        return RepairOutcome(
            repaired,
            result.method or "",
            result.mapping,
            round(quality.score or result.score, 4),
            f"repair:{result.method}",
            "2",
        )

    return attempt


def _safe(fonts_of: Callable[[int], Mapping[str, str]], page: int) -> Mapping[str, str]:
    """A page's text per font, or none when reading them fails (the page-wide checks still apply); a read
    stopped over its budget raises (no repair stands on it: quality/judge.py records why)."""
    try:
        return fonts_of(page)
    except LimitExceeded:
        raise
    except Exception:
        return {}


def never_fails_a_shard(judge: Callable[..., DocumentVerdicts]) -> Callable[..., DocumentVerdicts]:
    """A failure judging one document never fails its shard: its pages keep their text layer, unjudged,
    with the reason ``verdict_failed:<error>``."""
    signature = inspect.signature(judge)

    @functools.wraps(judge)
    def safe(*args: object, **kwargs: object) -> DocumentVerdicts:
        try:
            return judge(*args, **kwargs)
        except Exception as exc:  # a bug or a library error on one document: recorded, not raised
            call = signature.bind(*args, **kwargs)
            call.apply_defaults()
            a = call.arguments
            return _unjudged(a["sha256"], a["shard"], a["version"], a["pages"], a["verdicts_version"], exc)

    return safe


def _unjudged(
    sha256: str, shard: str, version: str, pages: Sequence[PageRecord], verdicts_version: str, exc: Exception
) -> DocumentVerdicts:
    reason = f"verdict_failed:{type(exc).__name__}"
    out = DocumentVerdicts()
    for p in sorted(pages, key=lambda p: p.page):
        has_text = bool(p.text.strip())
        out.pages.append(
            PageVerdictRecord(
                sha256,
                shard,
                version,
                p.page,
                "TEXT" if has_text else "BLANK",
                [reason],
                "born_digital",
                p.language,
                None,
                None,
                "extracted" if has_text else "none",
                verdicts_version,
                Tier.UNJUDGEABLE.value if has_text else Tier.NO_TEXT.value,
            )
        )
    return out


@never_fails_a_shard
def judge_document_rows(
    kind: str,
    path: Path,
    sha256: str,
    shard: str,
    version: str,
    pages: Sequence[PageRecord],
    fonts: Sequence[PageFontRecord],
    limits: ReadLimits,
    vocabulary: Mapping[str, frozenset[str]] | None = None,
    verdicts_version: str = VERDICTS_VERSION,
    *,
    size: int,
    jobs: JobRunner | None = None,
) -> DocumentVerdicts:
    """Judge one document's pages (quality/judge.py with its real parts).

    The second opinion and the ink measure read the file at ``path`` only as the bytes the walk hashed
    (``sha256``, ``size``): a private snapshot made on their first need (readers/core/snapshot.py) and removed
    when the document is judged. A file changed, gone or unreadable since the walk gives no second opinion
    and no ink measure, as any failure of theirs: the text layer's reading stands.

    What reads the file runs as jobs of ``jobs`` (assets/verdicts/file_work.py): in the pipeline a reader
    worker under the read budgets of the document's kind, so a page that blows pdfplumber up costs a
    worker, not the run; without it, in this process and without budgets.
    """
    # The collector paused as while reading: the second opinion (pdfminer) and the records allocate
    # many small objects that hold no cycles (readers.core.base.collector_paused).
    with collector_paused(), WalkedFile(path, sha256=sha256, size=size) as walked:
        return _judge(
            kind,
            walked,
            sha256,
            shard,
            version,
            pages,
            fonts,
            limits,
            vocabulary,
            verdicts_version,
            jobs if jobs is not None else InProcessJobs(),
        )


def _judge(
    kind: str,
    walked: WalkedFile,
    sha256: str,
    shard: str,
    version: str,
    pages: Sequence[PageRecord],
    fonts: Sequence[PageFontRecord],
    limits: ReadLimits,
    vocabulary: Mapping[str, frozenset[str]] | None,
    verdicts_version: str,
    jobs: JobRunner,
) -> DocumentVerdicts:
    languages = Counter(p.language for p in pages if p.language and p.lexicon_judged)
    document_language = languages.most_common(1)[0][0] if languages else None
    second = ink = fonts_of = None
    fallback_tool = ("", "")
    pdf = kind == ContentKind.PDF.value
    if pdf:
        from readers.core.reader_chain import reader

        plumber = reader("pdfplumber")
        work = DocumentFileWork(jobs, ContentKind.PDF, limits)

        def second(numbers: list[int]) -> dict[int, str]:
            return work(FileWork.SECOND_OPINION, walked.path(), numbers)

        def ink(numbers: list[int]) -> dict[int, float]:
            return work(FileWork.INK, walked.path(), numbers)

        def fonts_of(number: int) -> dict[str, str]:
            return work(FileWork.FONT_TEXTS, walked.path(), [number])

        fallback_tool = (plumber.name, plumber.version)
    return judge_one(
        sha256,
        shard,
        version,
        pages,
        fonts,
        judging_languages=JUDGING,
        check_text=check_text,
        second_opinion=second,
        repairer=_repairer(document_language, fonts_of) if pdf else None,
        fallback_tool=fallback_tool,
        replaceable=ContentKind(kind) in OCR_KINDS,
        ink=ink,
        rescore=_rescorer(vocabulary) if vocabulary else None,
        verdicts_version=verdicts_version,
    )


def _rescorer(vocabulary: Mapping[str, frozenset[str]]):
    """A page's lexicon hit rate again, with the corpus vocabulary of its language added."""

    def rescore(page: PageRecord) -> float | None:
        extra = vocabulary.get(page.lexicon_language or "")
        if not extra:
            return None
        evidence = lexicon_evidence(page.text, load_lexicon(page.lexicon_language, extra))
        return evidence.hit_rate if evidence.judged else None

    return rescore
