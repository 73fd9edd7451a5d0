"""What an OCR engine's reading of a page image is, whichever engine read it, and the errors it raises.

Both engines (Tesseract, ``readers/images/tesseract.py``; RapidOCR, ``readers/images/rapidocr.py``) answer
with an :class:`OcrResult`: the text in reading order, each word's confidence on a 0-100 scale, the engine
and its version. ``OcrUnavailable``: the engine (or a language's data) is not installed, the message says
what to install; ``OcrFailed`` (with a reason): it ran and failed or ran out of time.
"""

from __future__ import annotations

from dataclasses import dataclass

from readers.core.errors import AssayError


class OcrUnavailable(AssayError):
    """An OCR engine (or a language's data) is not installed; the message says what to install."""


class OcrFailed(AssayError):
    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class OcrResult:
    """One engine's reading of a page image: ``confidences`` a word, 0-100 (RapidOCR scores lines: each
    word of a line has its line's score), ``rotation`` the clockwise degrees the page was turned by to be
    read, ``engine`` ``"tesseract"`` or ``"rapidocr"`` and ``engine_version`` its version (and models)."""

    text: str
    language: str
    engine_version: str
    dpi: int
    rotation: int
    script: str | None
    mean_confidence: float | None
    confidences: tuple[float, ...]
    seconds: float
    engine: str = "tesseract"

    @property
    def chars(self) -> int:
        return sum(1 for c in self.text if not c.isspace())
