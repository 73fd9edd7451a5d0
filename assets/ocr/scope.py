"""What the OCR stage reads: the modes it is sent, the kinds it can render, the reasons it tries again.

Apart from the stage's work so that the run planner (assets/ocr/declaration.py) reads them without importing
Tesseract's wrapper and the language profiles.
"""

from __future__ import annotations

from quality.records import OcrScope
from quality.verdicts import Mode
from readers.core.model import FILE_PROBLEMS, OCR_KINDS

# What a mode sends to OCR; every other mode is never sent (BLANK: nothing to read; LANG: correct text
# in a language the lexicons cannot judge; TEXT and REPAIRED: their text is trusted, an OCR sandwich's
# included).
SENT_TO_OCR = {Mode.REPLACE.value: OcrScope.PAGE, Mode.FIGURES.value: OcrScope.FIGURES}
# Reasons of an earlier attempt worth another one without a version change: the engine or a language's
# data was missing and may have been installed since (the run plans the OCR stage again for them).
# A page whose document's file was gone, unreadable or not the walked bytes when it was to be rendered is
# read again once the walk has hashed its path again (assets/walk/asset.py) and still finds those bytes.
RETRIED_REASONS = frozenset({"unavailable"}) | FILE_PROBLEMS
# The kinds whose pages can be rendered for OCR.
RENDERABLE = OCR_KINDS
