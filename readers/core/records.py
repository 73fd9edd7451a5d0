"""Rows of the tables the walk and extract stages write: the stage contracts of DESIGN §5.

Each dataclass is one table's row; :mod:`warehouse.schema` declares the same columns with their Arrow
types, and a test keeps the two in step. ``shard`` is the first two hex digits of ``sha256``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True, slots=True)
class ObservationRecord:
    """One path as the walk saw it."""

    root: str
    path: str
    rel_path: str
    status: str
    reason: str | None
    sha256: str | None
    shard: str | None
    size: int | None
    mtime_ns: int | None
    kind: str | None
    kind_source: str | None
    hashed: bool
    seen_at: datetime
    extractor_version: str


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    """One distinct content (identical bytes are one document)."""

    sha256: str
    shard: str
    kind: str
    kind_source: str
    size: int
    parent_sha256: str | None
    member: str | None
    path: str
    extractor_version: str


@dataclass(frozen=True, slots=True)
class ExpansionRecord:
    """What the walk made of one container document's members (readers/walk/expansion.py)."""

    sha256: str
    shard: str
    kind: str
    status: str  # readers.core.model.ExpansionStatus
    reason: str | None
    detail: str | None
    members: int
    member_bytes: int
    member_names: list[str] | None  # null in rows of walks that did not record them
    member_sha256s: list[str] | None
    bounds: str
    extractor_version: str


@dataclass(frozen=True, slots=True)
class DerivationRecord:
    """The outcome of extracting one document under one extractor version."""

    sha256: str
    shard: str
    extractor_version: str
    kind: str
    status: str
    reason: str | None
    reader: str | None
    reader_version: str | None
    reader_chain: str
    recovered_by_fallback: bool
    attempts: int
    pages: int
    chars: int
    encoding: str | None
    encoding_source: str | None
    carried_from: str | None
    duration_ms: float
    derived_at: datetime


@dataclass(frozen=True, slots=True)
class UnderivableRecord:
    """One attempt that produced nothing: the tool, its version and the reason."""

    sha256: str
    shard: str
    extractor_version: str
    attempt: int
    tool: str
    tool_version: str
    reader_version: str
    reason: str
    detail: str


@dataclass(frozen=True, slots=True)
class PageRecord:
    """The raw text one reader produced for one page, with the facts later signals need."""

    sha256: str
    shard: str
    extractor_version: str
    page: int
    reader: str
    reader_version: str
    text: str
    chars: int
    width: float
    height: float
    fonts: int
    font_names: list[str]
    images: int
    drawings: int
    tables: int
    headings: int
    bad_rune_ratio: float = 0.0
    cid_count: int = 0
    cid_ratio: float = 0.0
    glued_ratio: float = 0.0
    spaced_ratio: float = 0.0
    language: str | None = None
    language_similarity: float = 0.0
    lexicon_language: str | None = None
    lexicon_hit_rate: float = 0.0
    lexicon_weight: float = 0.0
    lexicon_judged: bool = False
    prose_blocks: int = 0
    blocks: int = 0
    image_coverage: float = 0.0
    largest_image_share: float = 0.0
    vector_figure_area: float = 0.0
    outline_text_paths: int = 0
    invisible_chars: int = 0
    invisible_share: float = 0.0
    ocr_font_hint: bool = False
    # The page's invisible runs of text (readers.core.model.HiddenSpan) in reading order, as two parallel
    # lists
    # (Parquet has no list of pairs short of a struct, and SQL reads these directly: unnest() of both in
    # one select pairs them up, list_contains(hidden_why, 'pale') filters). Rows written before the columns
    # existed read back as null; they are taken as empty.
    hidden_text: list[str] = field(default_factory=list)
    hidden_why: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.hidden_text is None:
            object.__setattr__(self, "hidden_text", [])
        if self.hidden_why is None:
            object.__setattr__(self, "hidden_why", [])


@dataclass(frozen=True, slots=True)
class PageFontRecord:
    """One font on one page with the lexicon evidence of the text drawn in it."""

    sha256: str
    shard: str
    extractor_version: str
    page: int
    font: str
    chars: int
    weight: float
    hits: float
