"""Rows of the tables the verdicts stage writes (contracts in :mod:`warehouse.schema`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PageVerdictRecord:
    sha256: str
    shard: str
    extractor_version: str
    page: int
    mode: str
    reasons: list[str]
    provenance: str
    language: str | None
    score: float | None
    threshold: float | None
    text_source: str
    verdicts_version: str


@dataclass(frozen=True, slots=True)
class FontVerdictRecord:
    sha256: str
    shard: str
    extractor_version: str
    font: str
    pages: int
    chars: int
    weight: float
    hit_rate: float
    abstained_share: float
    garbled: bool


@dataclass(frozen=True, slots=True)
class RepairRecord:
    sha256: str
    shard: str
    extractor_version: str
    page: int
    method: str
    tool: str
    tool_version: str
    mapping: str | None
    score: float
    text: str


@dataclass(frozen=True, slots=True)
class VocabularyRecord:
    language: str
    word: str
    documents: int
    extractor_version: str


@dataclass(frozen=True, slots=True)
class OcrPageRecord:
    sha256: str
    shard: str
    extractor_version: str
    page: int
    scope: str
    regions: int
    status: str
    reason: str | None
    engine: str
    engine_version: str
    language: str
    language_source: str
    dpi: int
    rotation: int
    script: str | None
    confidence: float | None
    confidence_p10: float | None
    confidence_p50: float | None
    low_confidence_words: int
    words: int
    chars: int
    seconds: float
    text: str | None


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    chunk_id: str
    sha256: str
    shard: str
    extractor_version: str
    ordinal: int
    start: int
    end: int
    overlap: int
    heading_path: list[str]
    page_start: int
    page_end: int
    page_offsets: list[int]
    language: str | None
    sources: list[str]
    trust: float | None
    text: str
