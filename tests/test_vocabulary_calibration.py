"""The corpus vocabulary and the calibration report, on texts the tests write."""

from __future__ import annotations

from pathlib import Path

from quality.corpus_vocabulary import PageWords, by_language, harvest
from quality.lexicon_calibration import CleanPage, calibrate
from quality.plots import score_histogram
from quality.verdicts import LEXICON_MIN
from tests.test_lexicon_language import SAMPLES


def test_domain_words_in_three_documents_join_and_garbled_tokens_do_not() -> None:
    pages = [
        PageWords(f"doc{i}", "de", f"Die Simplizialkomplexe und Homotopieklassen {noise}")
        for i, noise in enumerate(["Xqvbrtz", "Wqpzlkm", "Zzyxwvq"])
    ]
    pages.append(PageWords("doc0", "de", "Simplizialkomplexe wieder"))  # the same document again
    words = by_language(harvest(pages))
    assert {"simplizialkomplexe", "homotopieklassen"} <= words["de"]
    assert not {"xqvbrtz", "wqpzlkm", "zzyxwvq"} & words["de"]
    two_docs = by_language(harvest(pages[:2]))
    assert "simplizialkomplexe" not in two_docs.get("de", frozenset())


def test_calibration_separates_clean_pages_from_garbled_variants(tmp_path: Path) -> None:
    pages = [CleanPage(SAMPLES[lang], lang, lang) for lang in ("en", "fr", "de", "es", "it", "nl", "pt")]
    result = calibrate(pages, seed=1)
    assert result is not None
    s = result.summary
    print(
        f"\nmargin {s.margin:.3f}, widest gap {s.widest_gap:.3f}, inversions {s.inversions}, "
        f"partial caught {result.partial_caught}/{len(result.partial)}"
    )
    assert result.passed and s.inversions == 0
    assert min(result.clean) > LEXICON_MIN > max(result.garbled)
    assert result.partial_caught == len(result.partial)
    png = score_histogram(
        result.clean, result.garbled, threshold=LEXICON_MIN, path=tmp_path / "h.png", title="t"
    )
    assert png.read_bytes().startswith(b"\x89PNG")


def test_the_vocabulary_fingerprint_names_the_verdicts_it_shaped() -> None:
    from quality.corpus_vocabulary import fingerprint
    from quality.verdicts import verdicts_version_for

    assert fingerprint({}) == fingerprint({"de": frozenset()}) == "none"
    a = fingerprint({"de": frozenset({"teilmengen", "simplizialkomplex"})})
    assert a == fingerprint({"de": frozenset({"simplizialkomplex", "teilmengen"})})  # order does not matter
    assert a != fingerprint({"de": frozenset({"teilmengen"})})
    assert verdicts_version_for({}).endswith("+vocab.none")
