"""Character error rate: how far a text is from its ground truth, the measure OCR is judged by.

Edit distance (insertions, deletions, substitutions) over the truth's length, after folding whitespace
runs to one space and composing Unicode (NFC), so that line breaks and decomposed accents, which a
reader of the text would not notice, do not count as errors.
"""

from __future__ import annotations

import unicodedata

from rapidfuzz.distance import Levenshtein


def fold_for_cer(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def cer(truth: str, text: str) -> float:
    """0 for a perfect text; can exceed 1 when the text is much longer than the truth."""
    a, b = fold_for_cer(truth), fold_for_cer(text)
    return Levenshtein.distance(a, b) / max(1, len(a))
