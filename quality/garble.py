"""How a broken font garbles text: the generators behind the calibration set and the repair tests.

A PDF font maps glyph codes to Unicode through its ToUnicode CMap. When that map is wrong, extractors
return valid Unicode that reads as nonsense, always with the same substitution for the whole font:
"Unit consumption Rates" becomes "Vojw dpotvnqujpo Sbuft". The three failure shapes seen in practice are
modelled here:

- ``shuffle_garble``: an arbitrary bijection of the letters (a subset font whose codes were assigned in
  order of first use, with a ToUnicode written for another subset);
- ``shift_garble``: a constant shift within the alphabet (the classic off-by-one ToUnicode);
- ``codepoint_shift_garble``: a constant offset in code-point space (a CMap ``bfrange`` with a wrong
  base), which can land letters on punctuation or on other scripts.

``partial_garble`` garbles only some words, as one broken font among sound ones does (a bold run, an
italic term), so the calibration also sees pages that are only partly garbage.

Every garbler keeps digits, punctuation and whitespace untouched (a font's broken map is about its
letters; the signals must not be able to cheat on anything else) and keeps case consistent: a→q implies
A→Q, since a font's upper and lower case glyphs are garbled by the same error.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Iterable

# The base alphabet of a script, added to the letters the text uses before shuffling: a broken font's
# output uses codes from its whole alphabet, not only the letters the page happens to contain, so the
# garbled page's letter inventory differs from the original's as it does in real documents. Only the
# lower case is listed; upper case follows. (Greek final sigma is left out: it has no upper case of its
# own and is shuffled among the caseless letters.)
BASE_ALPHABETS: dict[str, str] = {
    "LATIN": "abcdefghijklmnopqrstuvwxyz",
    "GREEK": "αβγδεζηθικλμνξοπρστυφχψω",
    "CYRILLIC": "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
}

# Longest run of consecutive words a partial garble gives to the broken font at once: a bold phrase or
# an italic term rarely runs longer than a line, about eight words of prose.
PARTIAL_MAX_RUN_WORDS = 8

_WORD = re.compile(r"\S+")


def letter_key(char: str) -> tuple[str, bool]:
    """The case-folded key of a letter and whether it belongs to a case pair.

    A letter is in a case pair when its lower and upper case are single characters that map to each
    other and back (a/A, é/É, σ/Σ). Letters outside such pairs (ß, ı, ς, ǅ, the Kelvin sign, caseless
    scripts) are their own key and are only ever exchanged with each other, which keeps every garbling a
    bijection that respects case.
    """
    lower, upper = char.lower(), char.upper()
    if char == lower and len(upper) == 1 and upper != char and upper.lower() == char:
        return char, True
    if char == upper and len(lower) == 1 and lower != char and lower.upper() == char:
        return lower, True
    return char, False


def script_of(char: str) -> str:
    """The script of a character, as the first word of its Unicode name (LATIN, GREEK, CJK, ...).

    An approximation of the Unicode Script property that the standard library does not expose; it is
    good enough to keep a garbling within one script, as a font's broken map does.
    """
    try:
        return unicodedata.name(char).split(" ", 1)[0]
    except ValueError:
        return "UNKNOWN"


def letter_groups(text: str, *, with_base: bool = True) -> dict[tuple[str, bool], list[str]]:
    """The keys of the letters of ``text`` grouped by (script, cased), each group sorted by code point.

    With ``with_base``, the base alphabet of each script the text uses is added to its cased group.
    """
    groups: dict[tuple[str, bool], set[str]] = {}
    for char in set(text):
        if not char.isalpha():
            continue
        key, cased = letter_key(char)
        groups.setdefault((script_of(key), cased), set()).add(key)
    if with_base:
        for (script, cased), keys in groups.items():
            if cased and script in BASE_ALPHABETS:
                keys.update(BASE_ALPHABETS[script])
    return {group: sorted(keys) for group, keys in sorted(groups.items())}


def expand_cases(key_mapping: dict[str, str]) -> dict[str, str]:
    """A mapping of letter keys extended to upper case: {a: q} becomes {a: q, A: Q}."""
    full: dict[str, str] = {}
    for source, target in key_mapping.items():
        full[source] = target
        if letter_key(source)[1]:
            full[source.upper()] = target.upper()
    return full


def translate(text: str, mapping: dict[str, str]) -> str:
    """``text`` with every character that is a key of ``mapping`` replaced by its value."""
    return text.translate({ord(k): v for k, v in mapping.items()})


def _derangement(items: list[str], rng: random.Random) -> list[str]:
    """A seeded permutation of ``items`` with no fixed point (when there are two or more).

    A broken font garbles all its letters; a letter that maps to itself by chance would make garbled
    text look cleaner than real garbage and blur the calibration. Rejection sampling needs about e tries.
    """
    if len(items) < 2:
        return list(items)
    while True:
        shuffled = list(items)
        rng.shuffle(shuffled)
        if all(a != b for a, b in zip(items, shuffled, strict=True)):
            return shuffled


def shuffle_mapping(text: str, seed: int) -> dict[str, str]:
    """The letter bijection ``shuffle_garble`` applies to ``text``: every letter, both cases."""
    rng = random.Random(seed)
    keys: dict[str, str] = {}
    for group in letter_groups(text).values():
        keys.update(zip(group, _derangement(group, rng), strict=True))
    return expand_cases(keys)


def shuffle_garble(text: str, seed: int) -> str:
    """``text`` with its letters replaced through a seeded random bijection.

    The alphabet is, per script, the letters the text uses (diacritics included: é is shuffled with the
    rest of the Latin letters) plus the script's base alphabet; letters only trade places with letters of
    the same script and case class. Everything that is not a letter is untouched.
    """
    return translate(text, shuffle_mapping(text, seed))


def _shift_table(shift: int) -> dict[int, str]:
    table: dict[int, str] = {}
    for first in ("a", "A"):
        base = ord(first)
        for i in range(26):
            table[base + i] = chr(base + (i + shift) % 26)
    return table


def shift_garble(text: str, shift: int = 1) -> str:
    """``text`` with each ASCII letter moved ``shift`` places along the alphabet (z wraps to a).

    The off-by-one ToUnicode ("Unit" → "Vojw" is shift 1). Letters outside a–z/A–Z (é, ß, Greek) are
    left alone: an alphabet shift is a property of the 26-letter code table a font was built against.
    """
    return text.translate(_shift_table(shift))


def codepoint_shift_garble(text: str, offset: int) -> str:
    """``text`` with every letter moved by ``offset`` code points; non-letters untouched.

    What a CMap with a wrong ``bfrange`` base does. The result may be a non-letter ('z' + 1 is '{') or a
    letter of another block; when it coincides with a non-letter the text already has, the garbling
    cannot be undone from the text alone. Raises ValueError when a letter would leave the code space or
    land on a surrogate.
    """
    out = []
    for char in text:
        if char.isalpha():
            point = ord(char) + offset
            if not 0 <= point <= 0x10FFFF or 0xD800 <= point <= 0xDFFF:
                raise ValueError(f"offset {offset} moves {char!r} outside the encodable code space")
            out.append(chr(point))
        else:
            out.append(char)
    return "".join(out)


def _letters(chars: Iterable[str]) -> int:
    return sum(1 for c in chars if c.isalpha())


def partial_garble(text: str, share: float, seed: int) -> str:
    """``text`` with whole words garbled, as one broken font among sound ones would do.

    Runs of consecutive words (up to ``PARTIAL_MAX_RUN_WORDS``, a bold phrase or an italic term) are
    given to the broken font, one word at a time, until at least ``share`` of the text's letters are
    covered: the covered share overshoots by less than one word. The chosen words are garbled through
    the same mapping ``shuffle_garble(text, seed)`` uses, so ``share=1`` garbles every word exactly as
    it does. A word is a whitespace-delimited token with at least one letter.
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must lie in [0, 1], not {share}")
    mapping = shuffle_mapping(text, seed)
    rng = random.Random(f"{seed}:words")  # its own stream: the mapping stays that of shuffle_garble
    words = [m for m in _WORD.finditer(text) if _letters(m.group())]
    weights = [_letters(m.group()) for m in words]
    target = share * sum(weights)
    chosen = [False] * len(words)
    covered = 0
    while covered < target:
        free = [i for i, taken in enumerate(chosen) if not taken]
        start = rng.choice(free)
        run = rng.randint(1, PARTIAL_MAX_RUN_WORDS)
        i = start
        while i < len(words) and not chosen[i] and run > 0 and covered < target:
            chosen[i] = True
            covered += weights[i]
            i += 1
            run -= 1
    out, last = [], 0
    for word, taken in zip(words, chosen, strict=True):
        if taken:
            out += [text[last : word.start()], translate(word.group(), mapping)]
            last = word.end()
    out.append(text[last:])
    return "".join(out)
