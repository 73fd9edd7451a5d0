"""Trust with no holes, on generated PDFs read by the real readers, verdicts and Tesseract: a garbled font
on a page of lists never passes, every page says which tier judged it, OCR confirms a text layer the
verdicts condemned wrongly, and a poor OCR layer is read again."""

from __future__ import annotations

import random
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pymupdf
import pytest

from orchestration.checkfile import check_file
from orchestration.document_builders import (
    _garble_font,
    _pdf_bytes,
    _scan_pixmap,
    _write_atomic,
    make_text_pdf,
)
from quality.cross_check import false_positives
from quality.records import CrossCheck, PageTextRecord
from quality.sources import CONFIRM_AGREEMENT, word_agreement
from quality.verdicts import Tier

needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed")

# Lines of a parts list and a price table: no block passes the prose gate, so the page lexicon abstains.
CLEAN_LINES = [
    "Inventory of the workshop",
    "Item  Quantity  Location",
    "Hammer  12  Shelf",
    "Screwdriver  40  Drawer",
    "Measuring tape  8  Cabinet",
    "Soldering station  3  Bench",
]
SHIFTED_LINES = [
    "Enhance the performance",
    "Replace worn bearings",
    "Inspect electrical connections",
    "Calibrate pressure sensors",
    "Lubricate moving components",
    "Document maintenance results",
]
PERMUTED_LINES = [
    "Quarterly inspection schedule",
    "Verify emergency lighting",
    "Examine ventilation filters",
    "Confirm machine guarding",
    "Update training records",
    "Review hazardous materials",
]


def _shift(text: str) -> str:
    return "".join(
        chr((ord(c) - 97 + 1) % 26 + 97)
        if "a" <= c <= "z"
        else chr((ord(c) - 65 + 1) % 26 + 65)
        if "A" <= c <= "Z"
        else c
        for c in text
    )


_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_PERMUTED = "".join(random.Random(7).sample(_LETTERS, 26))


def _permute(text: str) -> str:
    table = str.maketrans(_LETTERS + _LETTERS.upper(), _PERMUTED + _PERMUTED.upper())
    return text.translate(table)


def _three_font_page(path: Path) -> Path:
    """One page of short list and table lines in three embedded fonts: Nimbus Roman (clean), Nimbus Sans
    (its ToUnicode shifted a→b) and Nimbus Sans Bold (its ToUnicode a random letter permutation)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for name, font in (("F1", "tiro"), ("F2", "helv"), ("F3", "hebo")):
        page.insert_font(fontname=name, fontbuffer=pymupdf.Font(font).buffer)
    y = 72.0
    for lines, name in ((CLEAN_LINES, "F1"), (SHIFTED_LINES, "F2"), (PERMUTED_LINES, "F3")):
        for line in lines:
            page.insert_text((72, y), line, fontname=name, fontsize=11)
            y += 16
        y += 24
    doc.subset_fonts()
    for xref, _ext, _type, _basefont, resource, *_ in page.get_fonts():
        if resource == "F2":
            _garble_font(doc, xref, _shift)
        elif resource == "F3":
            _garble_font(doc, xref, _permute)
    return _write_atomic(path, _pdf_bytes(doc, None))


def test_garbled_fonts_on_a_page_of_lists_never_end_as_trusted_text(tmp_path: Path) -> None:
    out = check_file(_three_font_page(tmp_path / "lists.pdf"), ocr=False)
    (page,) = out.extracted.rows.pages[out.sha256]
    assert _shift("Enhance") in page.text and _permute("Quarterly") in page.text  # the layer is garbled
    assert page.prose_blocks == 0  # the page lexicon cannot judge it
    (verdict,) = out.verdicts.pages
    assert verdict.mode in ("REPLACE", "REPAIRED"), verdict
    fonts = {f.font: f for f in out.verdicts.fonts}
    sans = sorted(name for name in fonts if "Sans" in name)
    (roman,) = [name for name in fonts if "Roman" in name]
    assert len(sans) == 2 and all(fonts[name].garbled for name in sans)
    assert not fonts[roman].garbled  # the clean font is not condemned
    # The garbled runs are flagged with the fonts named.
    assert {f"font_garbled:{name}" for name in sans} <= set(verdict.reasons)
    assert f"font_garbled:{roman}" not in verdict.reasons
    assert verdict.judged_by == Tier.FONT
    (text,) = out.texts
    assert text.source != "extracted" or text.mode != "TEXT"


LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et "
    "dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip "
    "ex ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate "
    "velit esse cillum dolore eu "
    "fugiat nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia "
    "deserunt mollit anim id est laborum. Sed ut perspiciatis unde omnis iste natus error sit voluptatem "
    "accusantium doloremque laudantium, totam rem aperiam, eaque ipsa quae ab illo inventore veritatis et "
    "quasi architecto beatae vitae dicta sunt explicabo. Nemo enim ipsam voluptatem quia voluptas sit "
    "aspernatur aut odit aut fugit, sed quia consequuntur magni dolores eos qui ratione voluptatem sequi "
    "nesciunt."
)
LATIN = (
    "Gallia est omnis divisa in partes tres, quarum unam incolunt Belgae, aliam Aquitani, tertiam qui "
    "ipsorum lingua Celtae, nostra Galli appellantur. Hi omnes lingua, institutis, "
    "legibus inter se differunt. "
    "Gallos ab Aquitanis Garumna flumen, a Belgis Matrona et Sequana dividit. Horum omnium fortissimi sunt "
    "Belgae, propterea quod a cultu atque humanitate provinciae longissime absunt, minimeque ad eos "
    "mercatores saepe commeant atque ea quae ad effeminandos animos pertinent important, proximique sunt "
    "Germanis, qui trans Rhenum incolunt, quibuscum continenter bellum gerunt. Qua de causa Helvetii quoque "
    "reliquos Gallos virtute praecedunt, quod fere cotidianis proeliis cum Germanis contendunt, cum aut suis "
    "finibus eos prohibent aut ipsi in eorum finibus bellum gerunt."
)


ESPERANTO = (
    "La internacia lingvo Esperanto estis kreita por faciligi la komunikadon inter homoj de diversaj landoj. "
    "Multaj homoj lernas la lingvon ĉar ĝia gramatiko estas simpla kaj regula, kaj ĝiaj vortoj venas el "
    "pluraj eŭropaj lingvoj. Oni povas legi librojn, aŭskulti muzikon kaj vojaĝi al kongresoj kie ĉiuj "
    "parolas la saman lingvon. La unua libro pri la lingvo aperis en la jaro mil okcent okdek sep, kaj "
    "depost tiam la movado kreskis en multaj landoj de la mondo."
)


@pytest.mark.parametrize("text", [LOREM, LATIN], ids=["lorem-ipsum", "latin"])
def test_latin_and_lorem_ipsum_are_a_language_no_lexicon_judges(tmp_path: Path, text: str) -> None:
    out = check_file(make_text_pdf(tmp_path / "latin.pdf", [text], fontsize=12), ocr=False)
    (verdict,) = out.verdicts.pages
    assert (verdict.mode, verdict.language, verdict.judged_by) == ("LANG", "la", Tier.TRIGRAM)
    (page_text,) = out.texts
    assert page_text.source == "extracted" and page_text.trust == 1.0
    assert out.ocr == []  # terminal: never sent to OCR


@needs_tesseract
@pytest.mark.slow
def test_ocr_confirms_a_correct_layer_the_verdicts_condemned(tmp_path: Path) -> None:
    # Esperanto has no profile of its own: it matches Spanish's and misses its lexicon, so the page is
    # condemned on statistics alone, and its layer is right.
    out = check_file(make_text_pdf(tmp_path / "page.pdf", [ESPERANTO], fontsize=12))
    (verdict,) = out.verdicts.pages
    assert verdict.mode == "REPLACE" and "lexicon_low" in verdict.reasons, verdict
    (page_text,) = out.texts
    (page,) = out.extracted.rows.pages[out.sha256]
    assert page_text.cross_check == CrossCheck.TEXT_LAYER_CONFIRMED, page_text
    assert page_text.judged_by == Tier.OCR_CROSS_CHECK
    assert page_text.source == "extracted" and page_text.text == page.text and page_text.trust == 1.0
    assert page_text.agreement is not None and page_text.agreement >= CONFIRM_AGREEMENT
    assert false_positives([page_text.cross_check]).rate == 1.0


def _misread(text: str, seed: int = 3) -> str:
    """An earlier engine's reading: two words in three of four letters or more misread."""
    rng = random.Random(seed)
    confusions = {"m": "rn", "e": "c", "o": "0", "l": "1", "a": "o", "s": "5", "i": "l", "n": "h"}
    words = []
    for i, word in enumerate(text.split()):
        if len(word) >= 4 and i % 3 != 0:
            chars = list(word)
            for _ in range(2):
                at = rng.randrange(len(chars))
                chars[at] = confusions.get(chars[at].lower(), chars[at] + "i")
            word = "".join(chars)
        words.append(word)
    return " ".join(words)


PRINTED = (
    "The committee reviewed the annual budget and approved the proposal to expand the community library. "
    "Members discussed the schedule for construction, which should begin in the spring and finish before "
    "winter. The treasurer reported that donations exceeded expectations, and several volunteers offered "
    "to help with the move. Everyone agreed that the reading room should remain open during the works."
)


def _sandwich(path: Path, printed: str, layer: str) -> Path:
    """A page image of ``printed`` under an invisible text layer that says ``layer``."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    pix = _scan_pixmap(printed, fontsize=13, dpi=200, seed="assay-sandwich", noise=0.0002)
    page.insert_image(page.rect, stream=pix.tobytes("png"))
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 720), layer, fontname="helv", fontsize=13, render_mode=3)
    return _write_atomic(path, _pdf_bytes(doc, None))


@needs_tesseract
@pytest.mark.slow
def test_a_poor_ocr_layer_is_read_again_and_the_better_reading_used(tmp_path: Path) -> None:
    poor = _misread(PRINTED)
    out = check_file(_sandwich(tmp_path / "sandwich.pdf", PRINTED, poor))
    (verdict,) = out.verdicts.pages
    assert verdict.provenance == "ocr_sandwich"
    assert verdict.mode == "REPLACE" and "ocr_layer_poor" in verdict.reasons, verdict
    (page_text,) = out.texts
    assert page_text.source == "ocr" and page_text.cross_check == CrossCheck.OCR_LAYER_REPLACED
    assert "community library" in (page_text.text or "")
    # The layer stays for inspection, as it was read.
    (page,) = out.extracted.rows.pages[out.sha256]
    assert word_agreement(page.text, poor)[0] > 0.95


@needs_tesseract
@pytest.mark.slow
def test_a_good_ocr_layer_is_kept_without_reading_the_page_again(tmp_path: Path) -> None:
    out = check_file(_sandwich(tmp_path / "sandwich.pdf", PRINTED, PRINTED))
    (verdict,) = out.verdicts.pages
    assert verdict.provenance == "ocr_sandwich" and verdict.mode == "TEXT"
    assert out.ocr == [] and out.texts[0].source == "extracted"


def test_word_agreement_ignores_case_order_and_punctuation() -> None:
    assert word_agreement("The quick, brown fox.", "fox BROWN the quick") == (1.0, 4)
    assert word_agreement("Vojw dpotvnqujpo", "Unit consumption")[0] == 0.0
    assert word_agreement("", "anything") == (0.0, 0)
    half, n = word_agreement("one two three four", "one two five six")
    assert half == 0.5 and n == 4


def test_the_false_positive_rate_counts_only_the_verdicts_cross_checks() -> None:
    checks = [
        "text_layer_confirmed",
        "ocr_disagrees",
        "ocr_disagrees",
        None,
        "ocr_layer_kept",
        "ocr_layer_replaced",
    ]
    fp = false_positives(checks)
    assert (fp.confirmed, fp.cross_checked) == (1, 3) and abs(fp.rate - 1 / 3) < 1e-9
    assert false_positives([None]).rate == 0.0


def _version(wh, version: str, checks: list[str | None]) -> None:
    """One version of a warehouse: a derivation and a REPLACE page per cross-check value."""
    from readers.core.reading_records import DerivationRecord

    for i, check in enumerate(checks):
        sha = f"{i:02x}" * 32
        wh.write(
            "derivations",
            version,
            [
                DerivationRecord(
                    sha,
                    sha[:2],
                    version,
                    "pdf",
                    "derived",
                    None,
                    "pymupdf",
                    "1",
                    "pymupdf",
                    False,
                    1,
                    1,
                    100,
                    None,
                    None,
                    None,
                    1.0,
                    datetime.now(UTC),
                )
            ],
            shard=sha[:2],
        )
        text = PageTextRecord(
            sha,
            sha[:2],
            version,
            1,
            "REPLACE",
            "extracted" if check == "text_layer_confirmed" else "ocr",
            None,
            "pymupdf",
            "1",
            1.0,
            90.0,
            100,
            "a page of words",
            "ocr_cross_check",
            check,
            0.9,
        )
        wh.write("page_texts", version, [text], shard=sha[:2])


def test_the_false_positive_check_warns_when_the_rate_moves(tmp_path: Path) -> None:
    import os

    import dagster as dg

    from assets.report import false_positive_check
    from assets.resources import AssaySettings
    from warehouse import Warehouse

    wh = Warehouse(tmp_path / "warehouse")
    assay = AssaySettings(home=str(tmp_path))
    _version(wh, "v1", ["text_layer_confirmed"] + ["ocr_disagrees"] * 9)
    alone = false_positive_check(wh, "v1", assay)
    assert alone.passed and "no previous" in alone.metadata["note"].value
    for part in (wh.table_dir("derivations") / "extractor_version=v1").rglob("*.parquet"):
        os.utime(part, (part.stat().st_mtime - 3600,) * 2)
    _version(wh, "v2", ["text_layer_confirmed"] * 5 + ["ocr_disagrees"] * 5)
    moved = false_positive_check(wh, "v2", assay)
    meta = {k: v.value for k, v in moved.metadata.items()}
    assert not moved.passed and moved.severity == dg.AssetCheckSeverity.WARN
    assert (meta["previous_rate"], meta["rate"], meta["move"]) == (0.1, 0.5, 0.4)
    assert false_positive_check(
        wh, "v2", AssaySettings(home=str(tmp_path), verdict_false_positive_move_max=0.5)
    ).passed
