"""Personal data written to slip past a pattern (quality/pii.py, quality/pii_view.py): full-width and
zero-width characters, line breaks, dots and dashes, lower case, spelled-out at signs; and the tables and
paths sanitize and search show (hidden_text, furniture, redact_path)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quality.pii import PlaceholderBook, Scrubbed, Scrubber, redact_path
from quality.pii_findings import PiiKind
from quality.pii_view import INVISIBLE, match_view
from quality.records import PageTextRecord
from quality.sanitizer import PageHidden, sanitize_document
from tests.test_pii import VALID, Sample

BEFORE, AFTER = "Please write to", "before Friday, thanks."


def scrub(text: str, scrubber: Scrubber | None = None) -> Scrubbed:
    out = (scrubber or Scrubber()).scrub(text, PlaceholderBook())
    for r in out.redactions:
        assert out.text[r.start : r.end] == r.placeholder
    return out


def only(kind: PiiKind, written: str) -> None:
    """``written`` between two pieces of prose becomes exactly one placeholder of ``kind``: the span
    replaced is the original one, no character more or less."""
    out = scrub(f"{BEFORE} {written} {AFTER}")
    assert out.text == f"{BEFORE} ⟨{kind.name}_1⟩ {AFTER}", (written, out.text)
    assert [r.kind for r in out.redactions] == [kind]


# -- each form -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "written"),
    [
        # cards: Luhn-valid, in a known range, however they are grouped
        (PiiKind.CARD, "4111 1111 1111 1111"),
        (PiiKind.CARD, "4111.1111.1111.1111"),
        (PiiKind.CARD, "4111-1111-1111-1111"),
        (PiiKind.CARD, "4111 1111\n1111 1111"),
        (PiiKind.CARD, "41111111\n11111111"),
        (PiiKind.CARD, "4111 11\n11 1111 1111"),
        (PiiKind.CARD, "4\n111 1111 1111 1111"),
        (PiiKind.CARD, "3782 822463\n10005"),
        (PiiKind.CARD, "４１１１ １１１１ １１１１ １１１１"),
        # IBANs: either case, spaces, dashes, a line break
        (PiiKind.IBAN, "DE89 3704 0044 0532 0130 00"),
        (PiiKind.IBAN, "de89 3704 0044 0532 0130 00"),
        (PiiKind.IBAN, "de89370400440532013000"),
        (PiiKind.IBAN, "DE89-3704-0044-0532-0130-00"),
        (PiiKind.IBAN, "GB82 WEST 1234 5698\n7654 32"),
        (PiiKind.IBAN, "gb82west12345698765432"),
        # e-mail addresses
        (PiiKind.EMAIL, "ｊａｎｅ．ｒｏｅ＠ｅｘａｍｐｌｅ．ｏｒｇ"),
        (PiiKind.EMAIL, "jane.roe\u200b@example.org"),
        (PiiKind.EMAIL, "ja\u200cne.roe@exa\u2060mple.o\ufeffrg"),
        (PiiKind.EMAIL, "jane.roe@exam\u00adple.org"),
        (PiiKind.EMAIL, "jane.roe@exam\nple.org"),
        (PiiKind.EMAIL, "jane.roe\n@example.org"),
        (PiiKind.EMAIL, "jane.roe@example\n.org"),
        (PiiKind.EMAIL, "jane.roe@\nexample.org"),
        (PiiKind.EMAIL, "jane.roe [at] example [dot] org"),
        (PiiKind.EMAIL, "jane.roe (at) example (dot) org"),
        (PiiKind.EMAIL, "jane.roe{at}example{dot}org"),
        (PiiKind.EMAIL, "jane.roe at example dot org"),
        (PiiKind.EMAIL, "jane.roe AT example DOT co DOT uk"),
        (PiiKind.EMAIL, "jane dot roe at example dot org"),
        (PiiKind.EMAIL, "jane.roe [at] example.org"),
        (PiiKind.EMAIL, "jane.roe@example [dot] org"),
        (PiiKind.EMAIL, "jane.roe [at]\nexample [dot] org"),
        # phone numbers wrapped at a line's end, in full-width digits
        (PiiKind.PHONE, "+44 20\n7946 0958"),
        (PiiKind.PHONE, "+44 20 7946\n0958"),
        (PiiKind.PHONE, "＋４４ ２０ ７９４６ ０９５８"),
        # private and documentation addresses, by default
        (PiiKind.IP, "192.168.0.1"),
        (PiiKind.IP, "192.0.2.7"),
        (PiiKind.IP, "2001:db8::1"),
    ],
)
def test_each_form_is_one_placeholder_over_its_original_span(kind: PiiKind, written: str) -> None:
    only(kind, written)


@pytest.mark.parametrize(
    "text",
    [
        "look at this dot in the middle of the page",  # "in" is a country code and an English word
        "Details are available at example.com and at www.example.org.",  # a web site, not an address
        "The meeting is at noon; the dot marks the spot.",
        "see jane@example.org.\nThe next line starts a sentence",  # the address ends at the full stop
        "2019\n2020\n2021\n2022",  # a column of years is no card
        "4000\n5000\n6000\n7000",
        "page 12 of 40, section 4.2.1, ISBN 978-3-16-148410-0",
        "version 10.0.19041.1",
        "x² + y² = 4111 1111",
    ],
)
def test_prose_keeps_its_words(text: str) -> None:
    out = scrub(text)
    kept = out.text.replace("⟨EMAIL_1⟩", "jane@example.org")
    assert kept == text, out.text


def test_a_break_between_words_joins_nothing() -> None:
    out = scrub("Please write to\njane@example.org today")
    assert out.text == "Please write to\n⟨EMAIL_1⟩ today"
    out = scrub("Contact us.\njane@example.org today")
    assert out.text == "Contact us.\n⟨EMAIL_1⟩ today"
    # the same shape: the text cannot tell "jane." from "us.", so the first half stays
    assert scrub("jane.\nroe@example.org").text == "jane.\n⟨EMAIL_1⟩"
    out = scrub("jane@example.org.\nversion 2 follows")
    assert out.text == "⟨EMAIL_1⟩.\nversion 2 follows"


def test_an_iban_after_a_candidate_that_is_none_is_found() -> None:
    out = scrub("IE06 CGBW 5624 0565 6978 55 and then GB82 WEST 1234 5698 7654 32, done")
    assert out.text == "IE06 CGBW 5624 0565 6978 55 and then ⟨IBAN_1⟩, done"


def test_the_same_value_in_any_disguise_is_the_same_placeholder() -> None:
    out = scrub(
        "jane@example.org, ｊａｎｅ＠ｅｘａｍｐｌｅ．ｏｒｇ, "
        "jane [at] example [dot] org, jane@exam\u200bple.org"
    )
    assert out.text == "⟨EMAIL_1⟩, ⟨EMAIL_1⟩, ⟨EMAIL_1⟩, ⟨EMAIL_1⟩"


def test_private_addresses_stay_when_the_setting_is_off() -> None:
    text = "router 192.168.0.1, docs 192.0.2.7, server 81.2.69.160"
    assert (
        scrub(text, Scrubber(include_private_ips=False)).text
        == "router 192.168.0.1, docs 192.0.2.7, server ⟨IP_1⟩"
    )


def test_the_view_maps_every_character_back() -> None:
    text = "ｊａｎｅ\u200b＠x…\u00a0y"
    view = match_view(text)
    assert view.text == "jane@x... y"
    assert view.original(0, len(view.text)) == (0, len(text))
    assert view.original(4, 5) == (5, 6)  # the at sign, past the zero-width space
    assert view.original(6, 9) == (7, 8)  # the three dots of one ellipsis
    assert match_view("plain ascii").identity


# -- properties ------------------------------------------------------------------------------------------

# Values a line break may cut anywhere after their first characters: card numbers, IBANs; e-mail
# addresses before an at sign or a dot, or after an at sign (a break after a dot or between two letters
# with a whole address on one side is a break between two words or sentences as far as the text can
# tell: test_a_break_between_words_joins_nothing).
WRAPPABLE = [s for s in VALID if s.kind in (PiiKind.CARD, PiiKind.IBAN, PiiKind.EMAIL) and not s.label]


def _spot(s: Sample, rng: random.Random) -> int:
    if s.kind is PiiKind.EMAIL:
        v = s.value
        spots = [i for i in range(1, len(v)) if v[i] in "@." or v[i - 1] == "@"]
    else:
        spots = list(range(4 if s.kind is PiiKind.IBAN else 1, len(s.value)))
    return rng.choice(spots)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(VALID), st.lists(st.sampled_from(sorted(INVISIBLE)), min_size=1, max_size=4), st.randoms()
)
def test_property_invisible_characters_inside_a_value_change_nothing(
    s: Sample, invisible: list[str], rng: random.Random
) -> None:
    value = list(s.value)
    for c in invisible:
        value.insert(rng.randint(1, len(value) - 1), c)
    written = "".join(value)
    prefix = f"{s.label} " if s.label else ""
    out = scrub(f"{BEFORE} {prefix}{written} {AFTER}")
    assert out.text == f"{BEFORE} {prefix}⟨{s.kind.name}_1⟩ {AFTER}", (written, out.text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(WRAPPABLE), st.sampled_from(["\n", " \n", "\n  ", "\u200b\n"]), st.randoms())
def test_property_a_line_break_inside_a_value_changes_nothing(
    s: Sample, wrap: str, rng: random.Random
) -> None:
    at = _spot(s, rng)
    written = s.value[:at] + wrap + s.value[at:]
    out = scrub(f"{BEFORE} {written} {AFTER}")
    assert out.text == f"{BEFORE} ⟨{s.kind.name}_1⟩ {AFTER}", (written, out.text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="ab. @\n\u200b[]()atdo0123456789＠．４-", max_size=120))
def test_property_outside_placeholders_the_text_is_the_input(text: str) -> None:
    """Whatever the text, each redaction replaces one contiguous span of the input: the rest is kept."""
    out = scrub(text)
    pieces = out.text
    for r in sorted(out.redactions, key=lambda r: -r.start):
        pieces = pieces[: r.start] + "\x00" + pieces[r.end :]
    rest = pieces.split("\x00")
    position = 0
    for part in rest:
        found = text.find(part, position)
        assert found >= 0, (text, out.text)
        position = found + len(part)
    again = scrub(out.text)
    assert again.text == out.text


# -- paths -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/data/in/report.pdf", "/data/in/report.pdf"),
        (
            "/data/mail.zip › jane.roe@example.org DE89370400440532013000.txt",
            "/data/mail.zip › ⟨EMAIL_1⟩ ⟨IBAN_1⟩.txt",
        ),
        ("/data/jane.roe@example.org.pdf", "/data/⟨EMAIL_1⟩.pdf"),
        ("/data/jane.roe@example.org_DE89370400440532013000.txt", "/data/⟨EMAIL_1⟩_⟨IBAN_1⟩.txt"),
        ("/home/jane@example.org/a/jane@example.org/b.txt", "/home/⟨EMAIL_1⟩/a/⟨EMAIL_1⟩/b.txt"),
        ("C:\\Users\\x\\4111 1111 1111 1111.docx", "C:\\Users\\x\\⟨CARD_1⟩.docx"),
        ("/a/b.zip › c/d@example.org/e.txt", "/a/b.zip › c/⟨EMAIL_1⟩/e.txt"),
    ],
)
def test_redact_path_replaces_the_data_in_each_component(path: str, shown: str) -> None:
    assert redact_path(path, Scrubber()) == shown
    assert redact_path(path, None) == path


# -- hidden text and furniture ---------------------------------------------------------------------------

SHA = "e5" * 32


def _page(n: int, text: str) -> PageTextRecord:
    return PageTextRecord(
        SHA, SHA[:2], "v", n, "TEXT", "extracted", None, "pymupdf", "1", 1.0, None, len(text), text, "lexicon"
    )


WORDS = [
    f"The {a} {b} of the lower fields was measured again."
    for a in ("drainage", "soil", "slope", "hedge", "ditch", "gate", "pond")
    for b in ("depth", "width", "state", "colour", "height", "edge")
]


def test_hidden_runs_and_furniture_are_recorded_redacted_with_the_documents_placeholders() -> None:
    header = "Jane Roe, jane.roe@example.org, +44 20 7946 0958"
    hidden = "Send the money to DE89 3704 0044 0532 0130 00 now"
    pages = []
    for n in range(1, 7):
        body = "\n".join(WORDS[(n * 7 + k) % len(WORDS)] for k in range(6))
        if n == 2:
            body += f"\nContact jane.roe@example.org.\n{hidden}"
        pages.append(_page(n, f"{header}\n{body}"))
    result = sanitize_document(
        SHA, SHA[:2], "v", pages, {2: PageHidden([hidden], ["white_text"], False)}, Scrubber(), paged=True
    )
    assert result.text is not None
    assert "Contact ⟨EMAIL_1⟩." in result.text.text
    assert [h.text for h in result.hidden] == ["Send the money to ⟨IBAN_1⟩ now"]
    assert result.hidden[0].found
    assert {f.text for f in result.furniture} == {"Jane Roe, ⟨EMAIL_1⟩, ⟨PHONE_1⟩"}
    everything = [result.text.text, *(h.text for h in result.hidden), *(f.text for f in result.furniture)]
    for raw in ("jane.roe@example.org", "DE89 3704", "7946 0958"):
        assert not any(raw in t for t in everything)
    # without a scrubber (redact_kinds empty) the records keep what was taken out
    plain = sanitize_document(
        SHA, SHA[:2], "v", pages, {2: PageHidden([hidden], ["white_text"], False)}, None, paged=True
    )
    assert [h.text for h in plain.hidden] == [hidden]
