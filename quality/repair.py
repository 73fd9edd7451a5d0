"""Repairing the text of a garbled font: its broken ToUnicode map is a bijection on its alphabet.

A font with a wrong ToUnicode map substitutes the same way wherever it is used, so its garbage is a
substitution cipher and can often be undone without OCR. ``repair`` tries hypotheses from the cheapest
and most constrained to the most general, and keeps the one a caller-supplied ``score`` (higher is more
text-like: assay passes its trigram-profile or lexicon score) likes best:

1. the 25 constant shifts within the Latin alphabet, case-consistent (the off-by-one ToUnicode);
2. constant offsets in code-point space (a CMap range with a wrong base), only those that map every
   letter of the garbled text to a letter; a garbled non-letter that the offset would turn into a letter
   ('{' back to 'z') is decoded only where that raises the score, since it may be real punctuation;
3. a seeded hill-climb over the permutations of the letters present: start from the best shift and from
   a frequency-rank guess, swap pairs, keep improvements, restart from perturbations of the best, all
   within a fixed budget of score evaluations (a budget, not a clock, so that a repair is deterministic).

Only a candidate whose score reaches ``accept`` is returned: a repair that does not read as text is not
a repair, and the page goes to OCR instead.
"""

from __future__ import annotations

import random
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from quality.garble import BASE_ALPHABETS, expand_cases, letter_groups, letter_key, script_of, translate

Method = Literal["shift", "codepoint_shift", "permutation"]
Score = Callable[[str], float]

# Code-point offsets tried in step 2: ±64 covers a CMap base off by up to two 32-code rows of the
# ASCII and Latin-1 tables (a case swap is ±32). An offset costs a check of the distinct letters; only
# the plausible ones (a handful on real text) cost score evaluations.
CODEPOINT_SHIFT_RANGE = 64

# Offsets whose ambiguous characters are decided one by one (step 2). A first pass scores each offset
# with none and with all of its ambiguous characters decoded; it can rank a wrong offset first (one that
# swaps case, when a scorer folds case). Over the 181 invertible offsets in ±64 of the English and
# French prose of tests/test_garble_repair.py the true offset ranked first 168 times and second 13
# times, never lower: three leaves a margin.
CODEPOINT_REFINE_OFFSETS = 3

# Score evaluations the hill-climb may spend on one page, over all its restarts: the bound on its time,
# a count rather than a clock so that a repair is deterministic. Measured with the trigram scorer of
# tests/test_garble_repair.py (about 0.1 ms per excerpt), twelve seeds each: shuffle-garbled English
# pages of 1,500 characters are solved exactly with 1,800-3,000 scores (0.2-0.3 s), French ones with
# 4,300-6,000 (0.7-1.0 s: accents widen the search), and letter soup, which declines, spends the whole
# budget in 0.6 s. At 9,000 French stayed exact but one page took 2.0 s. A score that costs more per
# call needs a smaller ``max_scores`` to stay within 2 s a page.
HILL_CLIMB_MAX_SCORES = 6_000
# Climbs after the first two starts (frequency rank, best shift): each from the best permutation so far
# with a few random swaps applied (iterated local search). The search stops once its best reaches
# ``accept`` and one more climb fails to improve on it: stopping at the first accepted optimum left one
# French page of twelve at 73% correct characters, which the confirming climbs bring to 100%.
HILL_CLIMB_RESTARTS = 6
# The climb permutes letters of the scripts of BASE_ALPHABETS, and only on a page where they are at least
# this share of the letters: a page's own letters of another script are no alphabet to climb in, and a
# Latin minority permuted cannot make a page of another script read clean. Each climb spends its 6,000
# lexicon scores: 1.7 s a page of Kurdish the profiles read as Persian (docs/decisions.md).
CLIMB_MIN_ALPHABET_SHARE = 0.5
# Random swaps applied to the best permutation before each restart: enough to leave its basin, few
# enough to keep most of what it got right.
PERTURB_SWAPS = 3
# The climb scores an excerpt of the page (whole words, plus one word for each letter the excerpt
# lacks) and only the final candidates on the whole page: 600 characters is enough trigram evidence to
# separate English letter permutations, and keeps a 3000-character page as fast as a short one.
HILL_CLIMB_EXCERPT_CHARS = 600
# Accented letters the climb may map to when the garbled text shows any accented Latin letter (a
# text with accents garbles into one with accents). Without them an accent the garbled text happens not
# to show cannot be recovered: twelve shuffle-garbled French pages came back 96.0-100% correct (é read
# as v), and 100% with them.
# The lower case of the accents of French, German, Spanish, Portuguese, Italian and the Nordic languages;
# each adds one swap per garbled letter, tried only when the other swaps are exhausted.
LATIN_ACCENTED_TARGETS = "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿœ"
# Letters in decreasing order of frequency in English text (Lewand); the order is close to that of
# French, German and Spanish for the frequent letters, which is all a starting point needs.
LATIN_FREQUENCY_ORDER = "etaoinshrdlcumwfgypbvkjxqz"


@dataclass(frozen=True, slots=True)
class RepairResult:
    """The outcome of ``repair``.

    ``repaired`` is None when no candidate reached ``accept`` (or the best one changed nothing); then
    ``mapping`` is empty and ``method`` None, while ``score`` still records the best score seen. The
    mapping goes from garbled character to original character, for the letters that change: for a shift
    it covers the whole alphabet (the hypothesis is about the font's full table, so it can be applied to
    the font's text on other pages); for a code-point shift, the characters it decoded; for a
    permutation, the letters present in the garbled text, in both cases. ``tried`` counts the calls of
    ``score``.
    """

    repaired: str | None
    mapping: dict[str, str]
    method: Method | None
    score: float
    tried: int

    @property
    def accepted(self) -> bool:
        return self.repaired is not None


def apply_mapping(text: str, mapping: dict[str, str]) -> str:
    """``text`` with each character that is a key of ``mapping`` replaced by its value."""
    for source, target in mapping.items():
        if len(source) != 1 or len(target) != 1:
            raise ValueError(f"mapping entries must be single characters: {source!r} -> {target!r}")
    return translate(text, mapping)


@dataclass(slots=True)
class _Scorer:
    """Counts and caches the calls of the caller's score (hypotheses often repeat a text)."""

    score: Score
    tried: int = 0
    cache: dict[str, float] = field(default_factory=dict)

    def __call__(self, text: str) -> float:
        if text not in self.cache:
            self.tried += 1
            self.cache[text] = float(self.score(text))
        return self.cache[text]


@dataclass(frozen=True, slots=True)
class _Candidate:
    mapping: dict[str, str]
    method: Method
    score: float


def _alphabet_shift_mapping(shift: int) -> dict[str, str]:
    """The decoding of ``shift_garble(·, shift)``: garbled letter → original letter, both cases."""
    mapping: dict[str, str] = {}
    for first in ("a", "A"):
        base = ord(first)
        for i in range(26):
            mapping[chr(base + i)] = chr(base + (i - shift) % 26)
    return mapping


_ASCII_WHITESPACE = frozenset(" \t\n\r\f\v")
# Categories no real text is made of (controls, private use, unassigned, surrogates): a garbled
# character of these that an offset decodes to a letter is decoded without asking the score.
_NEVER_TEXT = frozenset({"Cc", "Co", "Cn", "Cs"})


def _decoded(char: str, offset: int) -> str | None:
    point = ord(char) - offset
    if not 0 <= point <= 0x10FFFF or 0xD800 <= point <= 0xDFFF:
        return None
    return chr(point)


def _codepoint_shifts(garbled: str, scorer: _Scorer) -> list[_Candidate]:
    """Step 2: one candidate per plausible code-point offset, the best of them refined.

    An offset is plausible when it decodes every letter of the garbled text to a letter. A garbled
    non-letter the offset would decode to a letter ('{' to 'z' for offset 1) may be a displaced letter
    or real punctuation: each offset is scored with none and with all of them decoded; for the best
    offsets (CODEPOINT_REFINE_OFFSETS) each such character is then decided alone, kept decoded where
    that raises the score, except controls and unassigned code points, which no text contains and are
    always decoded. ASCII whitespace is never decoded; other whitespace (a letter shifted onto NBSP or
    NEL) may be. A garbling that put a letter on punctuation the text also has is not invertible: the
    score picks one reading for both.
    """
    chars = set(garbled)
    letters = sorted(c for c in chars if c.isalpha())
    others = sorted(c for c in chars if not c.isalpha() and c not in _ASCII_WHITESPACE)
    scored: list[tuple[float, int, dict[str, str], list[str]]] = []
    for offset in (o for o in range(-CODEPOINT_SHIFT_RANGE, CODEPOINT_SHIFT_RANGE + 1) if o):
        decoded = {c: _decoded(c, offset) for c in letters}
        if not all(d is not None and d.isalpha() for d in decoded.values()):
            continue
        base: dict[str, str] = {c: d for c, d in decoded.items() if d is not None}
        ambiguous = {c: d for c in others if (d := _decoded(c, offset)) is not None and d.isalpha()}
        for mapping in (base, {**base, **ambiguous}) if ambiguous else (base,):
            if mapping:
                scored.append((scorer(translate(garbled, mapping)), offset, mapping, sorted(ambiguous)))
    if not scored:
        return []
    refined = [_refine(garbled, scorer, *entry) for entry in _top_offsets(scored)]
    return [max(refined, key=lambda c: c.score)]  # max keeps the first of equals


def _top_offsets(
    scored: list[tuple[float, int, dict[str, str], list[str]]],
) -> list[tuple[float, int, dict[str, str], list[str]]]:
    """The best scoring entry of each of the CODEPOINT_REFINE_OFFSETS best offsets, best first."""
    best: dict[int, tuple[float, int, dict[str, str], list[str]]] = {}
    for entry in scored:
        if entry[1] not in best or entry[0] > best[entry[1]][0]:
            best[entry[1]] = entry
    return sorted(best.values(), key=lambda e: -e[0])[:CODEPOINT_REFINE_OFFSETS]


def _refine(
    garbled: str, scorer: _Scorer, best: float, offset: int, mapping: dict[str, str], ambiguous: list[str]
) -> _Candidate:
    """Decide each ambiguous character of one offset alone: decoded where that raises the score."""
    if forced := [c for c in ambiguous if unicodedata.category(c) in _NEVER_TEXT and c not in mapping]:
        mapping = {**mapping, **{c: _decoded(c, offset) or c for c in forced}}
        best = scorer(translate(garbled, mapping))
    for char in (c for c in ambiguous if unicodedata.category(c) not in _NEVER_TEXT):
        trial = dict(mapping)
        if char in trial:
            del trial[char]
        else:
            trial[char] = _decoded(char, offset) or char
        if not trial:
            continue
        value = scorer(translate(garbled, trial))
        if value > best:
            mapping, best = trial, value
    return _Candidate(mapping, "codepoint_shift", best)


def _alphabet_shifts(garbled: str, scorer: _Scorer) -> list[_Candidate]:
    """Step 1: the 25 constant shifts within the Latin alphabet, when the text has Latin letters."""
    if not any("a" <= c <= "z" for c in garbled.lower()):
        return []
    candidates = []
    for shift in range(1, 26):
        mapping = _alphabet_shift_mapping(shift)
        candidates.append(_Candidate(mapping, "shift", scorer(translate(garbled, mapping))))
    return candidates


def _excerpt(garbled: str) -> str:
    """Whole words of ``garbled`` up to HILL_CLIMB_EXCERPT_CHARS, plus a word for each missing letter."""
    if len(garbled) <= HILL_CLIMB_EXCERPT_CHARS:
        return garbled
    cut = garbled.rfind(" ", 0, HILL_CLIMB_EXCERPT_CHARS)
    head = garbled[: cut if cut > 0 else HILL_CLIMB_EXCERPT_CHARS]
    seen = {c.lower() for c in head if c.isalpha()}
    extra = []
    for word in garbled[len(head) :].split():
        new = {c.lower() for c in word if c.isalpha()} - seen
        if new:
            extra.append(word)
            seen |= new
    return " ".join([head, *extra])


@dataclass(slots=True)
class _Climb:
    """Permutation state: per letter group, the targets with the first len(keys) assigned to the keys.

    ``extra`` are the accented targets added beyond the letters present and the base alphabet: moves to
    them are tried only once the other moves are exhausted, since they rarely help and are many.
    """

    keys: list[list[str]]
    perms: list[list[str]]
    moves: list[tuple[int, int, int]]
    extra: frozenset[str]
    upper: dict[str, str]  # upper case of the cased keys, looked up in the inner loop

    @classmethod
    def for_text(cls, garbled: str) -> _Climb:
        keys, perms, moves, extra, upper = [], [], [], set(), {}
        for (script, cased), group in letter_groups(garbled, with_base=False).items():
            if script not in BASE_ALPHABETS:
                continue  # no alphabet to climb in (CLIMB_MIN_ALPHABET_SHARE)
            targets = set(group)
            if cased and script in BASE_ALPHABETS:
                targets.update(BASE_ALPHABETS[script])
            if cased and script == "LATIN" and any(k not in BASE_ALPHABETS[script] for k in group):
                extra |= set(LATIN_ACCENTED_TARGETS) - targets
                targets.update(LATIN_ACCENTED_TARGETS)
            if len(targets) < 2:
                continue
            if cased:
                upper.update((k, k.upper()) for k in group)
            g = len(keys)
            keys.append(group)
            perms.append(sorted(targets))
            moves += [(g, i, j) for i in range(len(group)) for j in range(i + 1, len(targets))]
        return cls(keys, perms, moves, frozenset(extra), upper)

    def neighbourhoods(self) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
        """The moves split into near (among letters present and the base alphabet) and far (to extras)."""
        near, far = [], []
        for move in self.moves:
            g, _, j = move
            far_move = j >= len(self.keys[g]) and self.perms[g][j] in self.extra
            (far if far_move else near).append(move)
        return near, far

    def mapping(self) -> dict[str, str]:
        keyed = {
            k: t
            for keys, perm in zip(self.keys, self.perms, strict=True)
            for k, t in zip(keys, perm, strict=False)  # perm is longer: its tail holds the unused targets
        }
        return expand_cases({k: t for k, t in keyed.items() if k != t})

    def apply(self, text: str) -> str:
        """``text`` through the current mapping (the climb's inner loop: no dict of strings built)."""
        table: dict[int, str] = {}
        for keys, perm in zip(self.keys, self.perms, strict=True):
            for k, t in zip(keys, perm, strict=False):
                if k != t:
                    table[ord(k)] = t
                    if (upper := self.upper.get(k)) is not None:
                        table[ord(upper)] = t.upper()
        return text.translate(table)

    def swap(self, move: tuple[int, int, int]) -> None:
        g, i, j = move
        perm = self.perms[g]
        perm[i], perm[j] = perm[j], perm[i]

    def assign(self, g: int, images: dict[str, str]) -> None:
        """Give group ``g``'s keys the given images (where they are targets), the rest what is left."""
        keys, perm = self.keys[g], self.perms[g]
        targets = set(perm)
        chosen = [images.get(k) if images.get(k) in targets else None for k in keys]
        used = {t for t in chosen if t is not None}
        spare = iter(t for t in sorted(targets) if t not in used)
        head = [t if t is not None and chosen.index(t) == n else next(spare) for n, t in enumerate(chosen)]
        self.perms[g] = head + list(spare)

    def snapshot(self) -> list[list[str]]:
        return [list(p) for p in self.perms]


def _frequency_start(climb: _Climb, garbled: str) -> None:
    counts = Counter(c.lower() for c in garbled if c.isalpha())
    for g, keys in enumerate(climb.keys):
        targets = set(climb.perms[g])
        order = [t for t in LATIN_FREQUENCY_ORDER if t in targets] if "a" in targets else []
        order += sorted(targets - set(order))
        ranked = sorted(keys, key=lambda k: (-counts[k], k))
        climb.assign(g, dict(zip(ranked, order, strict=False)))


def _shift_start(climb: _Climb, shift_mapping: dict[str, str]) -> None:
    for g, keys in enumerate(climb.keys):
        climb.assign(g, {k: shift_mapping.get(k, k) for k in keys})


def _local_search(climb: _Climb, text: str, scorer: _Scorer, rng: random.Random, budget: int) -> float:
    """First-improvement swaps in seeded random order until no move improves.

    A variable-neighbourhood descent: sweeps of the near moves until one improves nothing, then one
    sweep of the far moves; any improvement there sends the search back to the near moves.
    """
    best = scorer(climb.apply(text))
    level = 0
    while level < 2 and scorer.tried < budget:
        order = climb.neighbourhoods()[level]
        rng.shuffle(order)
        improved = False
        for move in order:
            if scorer.tried >= budget:
                break
            climb.swap(move)
            value = scorer(climb.apply(text))
            if value > best:
                best, improved = value, True
            else:
                climb.swap(move)
        level = 0 if improved else level + 1
    return best


def _alphabet_share(text: str) -> float:
    """The share of the letters of ``text`` that are of a script of BASE_ALPHABETS."""
    letters = [c for c in text if c.isalpha()]
    inside = sum(1 for c in letters if script_of(letter_key(c)[0]) in BASE_ALPHABETS)
    return inside / len(letters) if letters else 0.0


def _hill_climb(
    garbled: str, scorer: _Scorer, shift: _Candidate | None, *, accept: float, seed: int, max_scores: int
) -> _Candidate | None:
    climb = _Climb.for_text(garbled)
    if not climb.moves or _alphabet_share(garbled) < CLIMB_MIN_ALPHABET_SHARE:
        return None
    rng = random.Random(seed)
    excerpt = _excerpt(garbled)
    budget = scorer.tried + max_scores
    _frequency_start(climb, garbled)
    starts = [(scorer(climb.apply(excerpt)), climb.snapshot())]
    if shift is not None:
        _shift_start(climb, shift.mapping)
        starts.append((scorer(climb.apply(excerpt)), climb.snapshot()))
    starts.sort(key=lambda s: -s[0])  # the better start first; a stable sort keeps frequency on ties
    best: _Candidate | None = None
    best_perms: list[list[str]] = []
    plan = [perms for _, perms in starts] + [None] * HILL_CLIMB_RESTARTS
    for perms in plan:
        if scorer.tried >= budget:
            break
        if perms is not None:
            climb.perms = [list(p) for p in perms]
        else:
            climb.perms = [list(p) for p in best_perms]
            for _ in range(PERTURB_SWAPS):
                climb.swap(rng.choice(climb.moves))
        _local_search(climb, excerpt, scorer, rng, budget)
        mapping = climb.mapping()
        candidate = _Candidate(mapping, "permutation", scorer(translate(garbled, mapping)))
        if best is None or candidate.score > best.score:
            best, best_perms = candidate, climb.snapshot()
        elif best.score >= accept:
            break  # an accepted optimum that a further climb could not improve on
    return best


def repair(
    garbled: str, score: Score, *, accept: float, seed: int = 0, max_scores: int = HILL_CLIMB_MAX_SCORES
) -> RepairResult:
    """The best reading of ``garbled`` under a letter bijection, if its ``score`` reaches ``accept``.

    Shifts are tried first and all of them are scored (they are few and cheap: a 2000-character page
    takes milliseconds plus the score's own cost); on a tie the earlier, simpler hypothesis wins. The
    hill-climb runs only when no shift reaches ``accept``, and spends at most ``max_scores`` score
    evaluations; it is seeded, so the same input always gives the same result.
    """
    scorer = _Scorer(score)
    candidates = _alphabet_shifts(garbled, scorer) + _codepoint_shifts(garbled, scorer)
    best = max(candidates, key=lambda c: c.score, default=None)  # max keeps the first of equals
    if best is None or best.score < accept:
        shift = max((c for c in candidates if c.method == "shift"), key=lambda c: c.score, default=None)
        climbed = _hill_climb(garbled, scorer, shift, accept=accept, seed=seed, max_scores=max_scores)
        if climbed is not None and (best is None or climbed.score > best.score):
            best = climbed
    if best is None:
        return RepairResult(None, {}, None, scorer(garbled), scorer.tried)
    if best.score < accept or not best.mapping:
        return RepairResult(None, {}, None, best.score, scorer.tried)
    return RepairResult(translate(garbled, best.mapping), best.mapping, best.method, best.score, scorer.tried)
