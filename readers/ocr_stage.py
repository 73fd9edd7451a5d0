"""The OCR stage for one document: render and read exactly the pages the verdicts sent to OCR.

Never an empty text: a page Tesseract read nothing on is ``underivable`` (reason ``no_text``) with its
tool, version and the figures; a page over its time budget is ``error``/``timeout`` and the shard goes on.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from quality.records import OcrPageRecord
from readers.ocr import DEFAULT_DPI, DEFAULT_TIMEOUT_S, OcrFailed, OcrUnavailable, recognise, render_page

# wordfreq language codes to Tesseract's, for the languages the set-up installs.
TESSERACT_LANGUAGES = {
    "en": "eng",
    "fr": "fra",
    "de": "deu",
    "es": "spa",
    "it": "ita",
    "pt": "por",
    "nl": "nld",
}
DEFAULT_OCR_LANGUAGE = "eng"


def ocr_language(document_language: str | None, default: str = DEFAULT_OCR_LANGUAGE) -> str:
    """The document's detected language where Tesseract has it, else the configured default; never guessed
    per word."""
    return TESSERACT_LANGUAGES.get(document_language or "", default)


def ocr_document(
    path: Path,
    sha256: str,
    shard: str,
    version: str,
    pages: Sequence[int],
    *,
    language: str,
    dpi: int = DEFAULT_DPI,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> list[OcrPageRecord]:
    out: list[OcrPageRecord] = []
    unavailable: str | None = None
    for page in sorted(set(pages)):
        started = time.perf_counter()

        if unavailable is not None:
            out.append(_failed(sha256, shard, version, page, language, dpi, started, "unavailable"))
            continue
        try:
            result = recognise(render_page(path, page, dpi), language, dpi=dpi, timeout=timeout)
        except OcrUnavailable as exc:
            unavailable = str(exc)
            out.append(_failed(sha256, shard, version, page, language, dpi, started, "unavailable"))
            continue
        except OcrFailed as exc:
            out.append(_failed(sha256, shard, version, page, language, dpi, started, exc.reason))
            continue
        except Exception as exc:  # a page that cannot be rendered: recorded, the document goes on
            out.append(
                _failed(
                    sha256,
                    shard,
                    version,
                    page,
                    language,
                    dpi,
                    started,
                    f"render_failed:{type(exc).__name__}",
                )
            )
            continue
        confidences = sorted(result.confidences)
        p10 = confidences[len(confidences) // 10] if confidences else None
        has_text = result.chars > 0
        out.append(
            OcrPageRecord(
                sha256,
                shard,
                version,
                page,
                "derived" if has_text else "underivable",
                None if has_text else "no_text",
                "tesseract",
                result.engine_version,
                language,
                dpi,
                result.rotation,
                result.mean_confidence,
                p10,
                len(confidences),
                result.chars,
                round(time.perf_counter() - started, 3),
                result.text if has_text else None,
            )
        )
    return out


def _failed(
    sha256: str, shard: str, version: str, page: int, language: str, dpi: int, started: float, reason: str
) -> OcrPageRecord:
    seconds = round(time.perf_counter() - started, 3)
    return OcrPageRecord(
        sha256,
        shard,
        version,
        page,
        "error",
        reason,
        "tesseract",
        "",
        language,
        dpi,
        0,
        None,
        None,
        0,
        0,
        seconds,
        None,
    )
