"""Rows of the tables the verdicts, OCR, sanitize and chunk stages write, and the vocabularies of their
columns: each field is one column, its type, meaning and domain declared once (readers/core/columns.py),
from which the warehouse's schema and the table's contract are derived.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from quality.furniture import FurnitureWhy
from quality.verdicts import Mode, Provenance, Tier
from readers.core.columns import KEY, UNIQUE, Annotated, Count, Doc, OneOf, PageNumber, Percent, Ratio
from readers.core.model import DocumentStatus
from readers.core.reading_records import Sha256, Shard, Version


class Source(StrEnum):
    EXTRACTED = "extracted"
    FALLBACK = "fallback"
    REPAIRED = "repaired"
    OCR = "ocr"
    EXTRACTED_AND_FIGURES = "extracted+figures"
    NONE = "none"


class CrossCheck(StrEnum):
    """What OCR's reading said of the text layer it was to replace (``page_texts.cross_check``)."""

    TEXT_LAYER_CONFIRMED = "text_layer_confirmed"
    OCR_DISAGREES = "ocr_disagrees"
    OCR_LAYER_KEPT = "ocr_layer_kept"
    OCR_LAYER_REPLACED = "ocr_layer_replaced"
    # A page in no language that no tier judged, read by OCR for a second opinion (not a verdict's).
    SECOND_OPINION_AGREES = "second_opinion_agrees"
    SECOND_OPINION_DISAGREES = "second_opinion_disagrees"


class OcrScope(StrEnum):
    """What one ``ocr_pages`` row read: the whole page, or the figure regions of a FIGURES page."""

    PAGE = "page"
    FIGURES = "figures"


class OcrEngine(StrEnum):
    """The readers of pixels: Tesseract reads every page sent to OCR first; RapidOCR (PP-OCR's models on
    ONNX Runtime) reads the pages Tesseract is weak on (quality/ocr_choice.py)."""

    TESSERACT = "tesseract"
    RAPIDOCR = "rapidocr"


class OcrChoice(StrEnum):
    """Why a reading of a page was kept (the page's text comes from it) or not (``ocr_pages.choice``)."""

    ONLY = "only_reading"  # one engine read the page: the other was not asked, or cannot read it
    HIGHER_SCORE = "higher_score"  # both read; this one's evidence scored higher
    FIRST_ON_TIE = "first_on_tie"  # both read; the other did not score enough higher to replace it
    LOWER_SCORE = "lower_score"  # both read; the other's evidence scored higher
    NOT_ENOUGH_HIGHER = "not_enough_higher"  # scored higher, but by less than the margin that replaces
    OTHER_UNREAD = "other_unread"  # both were asked; only this one read anything legible
    UNREAD = "unread"  # both were asked; this one read nothing legible (its status says why)


@dataclass(frozen=True, slots=True)
class PageVerdictRecord:
    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Annotated[Version, KEY]
    page: Annotated[PageNumber, KEY]
    mode: Annotated[str, Doc("TEXT, FIGURES, REPLACE, REPAIRED, LANG or BLANK"), OneOf.of(Mode)]
    reasons: Annotated[
        list[str],
        Doc(
            "reason codes: no_text_layer, short_text, lexicon_low, bad_runes, cid_passthrough, "
            "font_garbled:<font>, image_cover, ocr_sandwich, doc_prior, second_opinion_over_limit:<memory "
            "or timeout> (work on the file stopped at the read budget; ink_ and repair_ alike)..."
        ),
    ]
    provenance: Annotated[str, Doc("born_digital, raw_scan or ocr_sandwich"), OneOf.of(Provenance)]
    language: Annotated[str | None, Doc("language of the page's text, when one matched")]
    score: Annotated[
        Ratio | None, Doc("the lexicon hit rate the decision used; null when the lexicon abstained")
    ]
    threshold: Annotated[Ratio | None, Doc("the threshold that score was held against")]
    text_source: Annotated[
        str,
        Doc("where the page's final text comes from: extracted, fallback, repaired, ocr or none"),
        OneOf.of(Source),
    ]
    verdicts_version: Annotated[str, Doc("version of the verdict rules")]
    judged_by: Annotated[
        str,
        Doc(
            "the tier whose evidence decided the verdict: no_text, characters (bad runes, (cid:N), junk), "
            "lexicon (its prose), font (all its text, font by font), trigram (a language profile matched, "
            "or none did), borrowed (its fonts' verdicts on the document's other pages) or unjudgeable "
            "(the reasons say why: unjudgeable:few_letters, unjudgeable:no_profile...)"
        ),
        OneOf.of(Tier),
    ]


@dataclass(frozen=True, slots=True)
class FontVerdictRecord:
    sha256: Sha256
    shard: Shard
    extractor_version: Version
    font: Annotated[str, Doc("font name")]
    pages: Annotated[int, Doc("pages the font is used on")]
    chars: Annotated[int, Doc("non-whitespace characters drawn in it")]
    weight: Annotated[float, Doc("judgeable lexicon evidence weight")]
    hit_rate: Annotated[float, Doc("length-weighted lexicon hit rate of its tokens")]
    abstained_share: Annotated[float, Doc("share of its characters on pages where the lexicon abstained")]
    garbled: Annotated[
        bool, Doc("the font scores as garbled: its text is condemned where pages cannot judge")
    ]


@dataclass(frozen=True, slots=True)
class RepairRecord:
    sha256: Sha256
    shard: Shard
    extractor_version: Version
    page: PageNumber
    method: Annotated[str, Doc("fallback_reader, shift, codepoint_shift or permutation")]
    tool: Annotated[str, Doc("the reader or repair that produced the text")]
    tool_version: Annotated[str, Doc("its version")]
    mapping: Annotated[
        str | None, Doc("for font repairs: the character mapping applied, as JSON; null otherwise")
    ]
    score: Annotated[float, Doc("lexicon hit rate of the new text")]
    text: Annotated[str, Doc("the new text of the page")]


@dataclass(frozen=True, slots=True)
class VocabularyRecord:
    language: Annotated[str, Doc("the lexicon language the word was missing from")]
    word: Annotated[str, Doc("the word, in the lexicon's normal form")]
    documents: Annotated[int, Doc("distinct documents it occurs in (at least 3)")]
    extractor_version: Version


@dataclass(frozen=True, slots=True)
class OcrPageRecord:
    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Annotated[Version, KEY]
    page: Annotated[PageNumber, KEY, Doc("page number, 1-based (the frame of a multi-page image)")]
    scope: Annotated[
        str,
        KEY,
        Doc(
            "page (the whole page, mode REPLACE, or an image document's frame) or figures (the figure "
            "regions of a FIGURES page, rendered without the text layer)"
        ),
        OneOf.of(OcrScope),
    ]
    regions: Annotated[int, Doc("figure regions read (scope figures); 1 for a whole page")]
    status: Annotated[
        str,
        Doc(
            "derived, underivable (OCR read nothing, or only what it could not read: illegible, "
            "no_data:<script>), or error (timeout, memory, engine_error, unavailable, render_failed, or "
            "over_budget:pages / over_budget:seconds: never sent to Tesseract, its document had spent its "
            "OCR budget of ocr_max_pages_per_document pages or ocr_document_timeout_s seconds)"
        ),
        OneOf.members(DocumentStatus.DERIVED, DocumentStatus.UNDERIVABLE, DocumentStatus.ERROR),
    ]
    reason: Annotated[str | None, Doc("why the status is not derived; null when derived")]
    engine: Annotated[
        str,
        KEY,
        Doc(
            "the engine that read: tesseract (every page sent to OCR) or rapidocr (a page Tesseract is weak "
            "on: a second reading, see `asked`); a page read by both has a row for each, one of them kept"
        ),
        OneOf.of(OcrEngine),
    ]
    engine_version: Annotated[str, Doc("its version (RapidOCR's names its models)")]
    language: Annotated[str, Doc("Tesseract language(s) used, from the document's language or the default")]
    language_source: Annotated[
        str,
        Doc(
            "document (the language detected in its text), configured (no language detected), or "
            "no_data:<code> (the detected language has no Tesseract data installed; the default was used)"
        ),
    ]
    dpi: Annotated[int, Doc("resolution the page was rendered at")]
    rotation: Annotated[
        int,
        Doc(
            "clockwise degrees Tesseract turned the page by to read it (its orientation detection, in the "
            "same recognition: the orientation most of its lines carry); 0 for a page whose ink showed it "
            "upright and that read confidently as it is (readers/images/orientation.py)"
        ),
    ]
    script: Annotated[
        str | None,
        Doc(
            "the writing system orientation detection found (Hebrew, Devanagari...), when sure; asked only "
            "of a doubtful reading (mean confidence under 85, `DOUBTFUL_BELOW_CONFIDENCE`), so null on a "
            "page read confidently"
        ),
    ]
    confidence: Annotated[Percent | None, Doc("mean word confidence, 0-100; null when no word was read")]
    confidence_p10: Annotated[
        Percent | None, Doc("10th percentile of the word confidences: the worst-read words")
    ]
    confidence_p50: Annotated[Percent | None, Doc("median word confidence")]
    low_confidence_words: Annotated[
        int, Doc("words read with a confidence under 85 (on the evaluation corpus, a third of them misread)")
    ]
    words: Annotated[int, Doc("words read")]
    chars: Annotated[int, Doc("non-whitespace characters read")]
    seconds: Annotated[
        float,
        Doc("wall time of the page's rendering and recognition (not its wait for a free Tesseract thread)"),
    ]
    text: Annotated[
        str | None,
        Doc(
            "the text read; null when nothing was read (never an empty text); kept for inspection when the "
            "page was judged illegible, but never used as the page's text"
        ),
    ]
    kept: Annotated[
        bool | None,
        Doc(
            "whether the page's text comes from this reading: exactly one reading of a page is kept; null "
            "in rows written before a second engine read pages (each was its page's only reading)"
        ),
    ] = None
    choice: Annotated[
        str | None,
        Doc("why this reading was kept or not (quality/ocr_choice.py)"),
        OneOf.of(OcrChoice),
    ] = None
    asked: Annotated[
        str | None,
        Doc(
            "why a second engine was asked to read the page (doubtful, illegible, no_text, sparse, "
            "figures, han: assets/ocr/engines.py); null on the first reading"
        ),
    ] = None
    score: Annotated[
        float | None,
        Doc(
            "the reading's evidence score the choice compared: letters of words a lexicon of the page's "
            "languages knows, or, where no lexicon judges, letters weighted by the language-profile match"
        ),
    ] = None
    agreement: Annotated[
        Ratio | None,
        Doc("word agreement (Dice) of the two engines' readings of the page; null when one engine read it"),
    ] = None


class StopReason(StrEnum):
    """Why a stage left a document without its output (``unsanitized.reason``, ``unchunked.reason``)."""

    TIMEOUT = "timeout"  # over the per-document time budget: its worker was stopped
    MEMORY = "memory"  # over the per-document memory budget: its worker was stopped
    WORKER_DIED = "worker_died"  # its worker process died (a crash in a C library)
    ERROR = "error"  # the work failed on it (detail says how)


@dataclass(frozen=True, slots=True)
class StoppedRecord:
    """A document a stage made nothing of: stopped over its budget, or failed (assets/budgeted.py)."""

    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Annotated[Version, KEY]
    reason: Annotated[
        str, Doc("timeout or memory (over its budget), worker_died or error"), OneOf.of(StopReason)
    ]
    detail: Annotated[str, Doc("what stopped it, as a person reads it (the budget, the memory, the error)")]
    chars: Annotated[Count, Doc("characters of the text the stage was working on")]


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    chunk_id: Annotated[
        str, UNIQUE, Doc("deterministic id: a hash of the document, the offsets and the text")
    ]
    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Annotated[Version, KEY]
    ordinal: Annotated[Count, KEY, Doc("position in the document, from 0")]
    start: Annotated[Count, Doc("offset of the chunk in texts.text, overlap included")]
    end: Annotated[Count, Doc("end offset (exclusive) in texts.text")]
    overlap: Annotated[int, Doc("leading characters repeated from the previous chunk")]
    heading_path: Annotated[list[str], Doc("the headings the chunk stands under, outermost first")]
    page_start: Annotated[int, Doc("first page")]
    page_end: Annotated[int, Doc("last page")]
    page_offsets: Annotated[
        list[int],
        Doc(
            "where in text each page from page_start to page_end begins (a page without text here has the "
            "next page's offset)"
        ),
    ]
    language: Annotated[str | None, Doc("the most common language of its pages")]
    sources: Annotated[list[str], Doc("where its pages' texts came from")]
    trust: Annotated[Ratio | None, Doc("the minimum trust over its pages (page_texts.trust)")]
    text: Annotated[str, Doc("the chunk's text (a split table's header row repeated at its start)")]
    page_labels: Annotated[
        list[str | None],
        Doc(
            "the printed label of each page from page_start to page_end (page_texts.label: xii, A-3), "
            "parallel to page_offsets: cite a page by it; null for a page without one (or without text "
            "here)"
        ),
    ] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.page_labels is None:  # rows written before the column
            object.__setattr__(self, "page_labels", [])


@dataclass(frozen=True, slots=True)
class PageTextRecord:
    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Annotated[Version, KEY]
    page: Annotated[PageNumber, KEY]
    mode: Annotated[str, Doc("the page's verdict"), OneOf.of(Mode)]
    source: Annotated[
        str,
        Doc(
            "extracted, fallback (the fallback reader's text), repaired, ocr, extracted+figures (the text "
            "plus the OCR of its figure regions under a `## Page N (transcribed figures)` heading) or none"
        ),
        OneOf.of(Source),
    ]
    reason: Annotated[
        str | None,
        Doc(
            "why there is no text (source none): blank, ocr_underivable:no_text, ocr_error:<reason> "
            "(ocr_error:over_budget:pages past its document's OCR budget), ocr_not_run; why a layer OCR "
            "was asked about stands: its cross_check, or unconfirmed:<why> where OCR could not overrule it "
            "(ocr_not_run, ocr_<status>:<reason>, ocr_doubtful, ocr_not_better); null otherwise"
        ),
    ]
    tool: Annotated[str, Doc("the reader, repair or OCR engine the text came from")]
    tool_version: Annotated[str, Doc("its version")]
    trust: Annotated[
        Ratio | None,
        Doc(
            "0-1: 1 for a clean text layer, 0.9 for repaired, fallback or OCR-layer text, the mean word "
            "confidence / 100 for OCR; null when there is no text"
        ),
    ]
    ocr_confidence: Annotated[Percent | None, Doc("mean OCR word confidence, 0-100, when OCR contributed")]
    chars: Annotated[int, Doc("non-whitespace characters of the text")]
    text: Annotated[
        str | None, Doc("the page's final text, raw (sanitize normalises it); null when there is none")
    ]
    judged_by: Annotated[
        str,
        Doc(
            "the tier that judged the page in the end: page_verdicts.judged_by, or ocr_cross_check where "
            "OCR's reading was compared with the layer (cross_check not null)"
        ),
        OneOf.of(Tier),
    ]
    cross_check: Annotated[
        str | None,
        Doc(
            "OCR as a second opinion on a REPLACE page whose text layer only statistical evidence "
            "condemned: text_layer_confirmed (OCR read the same words: the layer's exact text is kept, a "
            "verdict false positive) or ocr_disagrees (the verdict stands); for an OCR layer read again "
            "because it read poorly (ocr_layer_poor), ocr_layer_kept (it scored better than Tesseract's "
            "reading) or ocr_layer_replaced; for a page in no language that no tier could judge "
            "(no_profile_second_opinion), second_opinion_agrees (the layer's text is kept) or "
            "second_opinion_disagrees (OCR's reading replaces it); null when not cross-checked"
        ),
        OneOf.of(CrossCheck),
    ] = None
    agreement: Annotated[
        Ratio | None,
        Doc(
            "word agreement (Dice over bags of words) of OCR's reading and the text layer; null unless "
            "cross-checked"
        ),
    ] = None
    label: Annotated[
        str | None,
        Doc("the page's label as the document prints it (pages.label: xii, A-3); null without one"),
    ] = None


@dataclass(frozen=True, slots=True)
class TextRecord:
    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Annotated[Version, KEY]
    text: Annotated[
        str,
        Doc(
            "markdown: the pages' final texts normalised, hidden text, running headers and footers and "
            "personal data taken out, pages joined by a blank line"
        ),
    ]
    chars: Annotated[Count, Doc("non-whitespace characters")]
    pages: Annotated[list[int], Doc("the pages that have text, in order")]
    page_starts: Annotated[list[int], Doc("offset in text where each of pages starts")]
    page_sources: Annotated[list[str], Doc("where each page's text came from (page_texts.source)")]
    redactions: Annotated[int, Doc("personal data replaced by placeholders (rows in redactions)")]
    hidden_removed: Annotated[int, Doc("invisible runs removed (rows in hidden_text)")]
    furniture_removed: Annotated[int, Doc("running header and footer lines removed (rows in furniture)")]
    sanitize_version: Annotated[str, Doc("version of the sanitize rules")]
    page_labels: Annotated[
        list[str | None],
        Doc("the printed label of each of pages (page_texts.label: xii, A-3), pairwise; null without one"),
    ] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.page_labels is None:  # rows written before the column
            object.__setattr__(self, "page_labels", [])


@dataclass(frozen=True, slots=True)
class RedactionRecord:
    sha256: Sha256
    shard: Shard
    extractor_version: Version
    page: Annotated[int, Doc("page it stood on")]
    kind: Annotated[str, Doc("email, phone, card, iban, ip, national_id, vat")]
    scheme: Annotated[str | None, Doc("for national_id: which identifier (quality/pii.py IdScheme)")]
    start: Annotated[int, Doc("offset of the placeholder in texts.text")]
    end: Annotated[int, Doc("end offset (exclusive) of the placeholder")]
    placeholder: Annotated[str, Doc("the placeholder, stable within the document (⟨EMAIL_1⟩)")]


@dataclass(frozen=True, slots=True)
class CleanTableRecord:
    """A table of ``tables`` as sanitize leaves it: its cells and markdown with the text's placeholders."""

    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Annotated[Version, KEY]
    table: Annotated[int, KEY, Doc("the table's position in the document, from 0 (tables.table)")]
    page: Annotated[PageNumber, Doc("page the table is on")]
    header_rows: Annotated[Count, Doc("leading rows that are the header")]
    cells: Annotated[
        list[list[str]],
        Doc(
            "the cells' text, row by row, normalised, its personal data as the text's placeholders "
            "(⟨EMAIL_1⟩ in a cell is ⟨EMAIL_1⟩ in texts.text)"
        ),
    ]
    markdown: Annotated[str, Doc("the table as GFM, sanitized as the page's text is")]
    redactions: Annotated[Count, Doc("personal data replaced by placeholders in the cells")]


@dataclass(frozen=True, slots=True)
class HiddenTextRecord:
    sha256: Sha256
    shard: Shard
    extractor_version: Version
    page: PageNumber
    why: Annotated[str, Doc("render_mode, alpha, tiny, pale (white on its own background) or outside_crop")]
    text: Annotated[str, Doc("the invisible text, its personal data as the text's placeholders (⟨EMAIL_1⟩)")]
    found: Annotated[bool, Doc("the run was found in the page's text and removed")]


@dataclass(frozen=True, slots=True)
class FurnitureRecord:
    sha256: Sha256
    shard: Shard
    extractor_version: Version
    page: PageNumber
    band: Annotated[str, Doc("top or bottom")]
    text: Annotated[
        str, Doc("the line as it stood, its personal data as the text's placeholders (⟨EMAIL_1⟩)")
    ]
    why: Annotated[
        str,
        Doc(
            "the rule that took the line out (quality/furniture.py): repeated (the same line in the same "
            "band on many pages), page_number, download_stamp, doi, copyright, journal (a citation of "
            "the page: journal, volume, issue, pages; or a journal footer set in short lines), revision "
            "(revision, print or date stamps), running_title (one page's evidence), running_authors (an "
            'authors\' running head, "SMITH ET AL."), source_stamp (the address the page was taken '
            'from, "Source: <url>", or an address alone at the page\'s edge), tagged_artifact (the '
            "document marks it as pagination furniture); null in rows of sanitize versions before the "
            "column"
        ),
        OneOf.of(FurnitureWhy),
    ] = FurnitureWhy.REPEATED.value
    confidence: Annotated[
        Ratio | None, Doc("how sure that rule is, 0-1 (1.0 for a tagged artifact); null in older rows")
    ] = None
