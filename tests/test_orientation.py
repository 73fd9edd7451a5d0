"""The cheap evidence that a page image is upright (readers/images/orientation.py): lines that run across
with ascenders above them. It only ever spares an upright page orientation detection, so what matters is
that a page turned any other way never shows it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from orchestration.document_builders import make_text_pdf
from readers.images.orientation import UPRIGHT_MIN_ASCENDER_SHARE, line_evidence, looks_upright
from readers.images.tesseract import render_page

TEXT = (
    "The water utility measured unit consumption rates across every district of the city this year. "
    "Tariffs rose slightly in the northern zone while maintenance costs fell in the south. "
)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Image.Image:
    pdf = make_text_pdf(tmp_path_factory.mktemp("orientation") / "page.pdf", [TEXT * 6], fontsize=12)
    return render_page(pdf, 1)


def test_an_upright_page_of_writing_looks_upright(page: Image.Image) -> None:
    evidence = line_evidence(page)
    assert evidence.across_gaps > evidence.down_gaps
    assert evidence.ascender_share > UPRIGHT_MIN_ASCENDER_SHARE and evidence.upright


@pytest.mark.parametrize("turned", [90, 180, 270])
def test_a_page_turned_any_other_way_does_not(page: Image.Image, turned: int) -> None:
    evidence = line_evidence(page.rotate(turned, expand=True))
    assert not evidence.upright, evidence
    if turned == 180:  # lines still run across, but their ascenders hang below
        assert evidence.across_gaps > evidence.down_gaps
        assert evidence.ascender_share < 1 - UPRIGHT_MIN_ASCENDER_SHARE


@pytest.mark.parametrize(
    "image",
    [Image.new("L", (1200, 1600), 255), Image.new("L", (1200, 1600), 0), Image.new("L", (1, 1), 255)],
    ids=["white", "black", "one pixel"],
)
def test_a_page_with_no_lines_does_not_look_upright(image: Image.Image) -> None:
    assert not looks_upright(image)


def test_an_rgb_or_bilevel_page_is_looked_at_in_grey(page: Image.Image) -> None:
    assert looks_upright(page.convert("RGB")) and looks_upright(page.convert("1"))
    assert not looks_upright(page.convert("RGB").rotate(180))


# Prose: words of many lengths that do not line up from line to line. (Words that do, such as one word
# repeated or a table's columns, can make a sideways page show lines across; the reading as it is then
# says its lines ran down the page, and orientation detection reads it: tests/test_ocr.py.)
VOCABULARY = [*sorted(set(TEXT.split())), "Quay", "pygmy", "jolly", "Kettle", "hedge", "bulb", "42", "9.5%"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.permutations(VOCABULARY * 4), fontsize=st.sampled_from([9, 11, 14]))
def test_at_most_one_way_round_of_a_page_of_prose_looks_upright(
    tmp_path: Path, words: list[str], fontsize: int
) -> None:
    image = render_page(make_text_pdf(tmp_path / "page.pdf", [" ".join(words)], fontsize=fontsize), 1)
    upright = [turned for turned in (0, 90, 180, 270) if looks_upright(image.rotate(turned, expand=True))]
    assert upright in ([], [0]), upright
