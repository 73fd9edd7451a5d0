"""Personal data scrubbing on generated text: every valid identifier redacted, none that fails its check.

All fixtures are generated here: card numbers completed with their Luhn digit, IBANs with their mod-97
check digits, phone numbers from phonenumbers' own example numbers, national identifiers with python-
stdnum's check characters; the invalid ones are the valid ones with one digit changed (confirmed invalid
by the reference validator before use), numbers of the wrong length, and look-alikes.
"""

from __future__ import annotations

import ipaddress
import pickle
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

import phonenumbers
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from phonenumbers import PhoneNumberFormat, PhoneNumberType
from stdnum import iban as stdnum_iban
from stdnum.be import nn as be_nn
from stdnum.de import idnr as de_idnr
from stdnum.de import vat as de_vat
from stdnum.es import dni as es_dni
from stdnum.es import nie as es_nie
from stdnum.fr import nir as fr_nir
from stdnum.iso7064 import mod_11_10
from stdnum.it import codicefiscale as it_codicefiscale
from stdnum.nl import bsn as nl_bsn

from quality.pii import (
    PLACEHOLDER_RE,
    PlaceholderBook,
    Scrubbed,
    Scrubber,
    parse_id_schemes,
    parse_kinds,
)
from quality.pii_email import EMAIL_LOCAL_MAX, FILE_NAME_ENDINGS, EmailDetector
from quality.pii_findings import DEFAULT_KINDS, IdScheme, PiiKind
from quality.pii_payment import known_card_range, luhn_valid
from readers.core.errors import ConfigError

SEED = 20240611


@dataclass(frozen=True)
class Sample:
    """One generated value as written in text (after its label, if it needs one), and what it is."""

    value: str
    kind: PiiKind
    valid: bool
    label: str = ""

    @property
    def text(self) -> str:
        return f"{self.label} {self.value}" if self.label else self.value


# -- generators --


def luhn_complete(body: str) -> str:
    """``body`` with the check digit that makes it pass Luhn."""
    return next(body + d for d in "0123456789" if luhn_valid(body + d))


def change_one_digit(value: str, rng: random.Random, *, skip: int = 0) -> str:
    """The value with one digit (after the first ``skip`` characters) replaced by another digit."""
    positions = [i for i, c in enumerate(value) if c.isdigit() and i >= skip]
    i = rng.choice(positions)
    digit = rng.choice([d for d in "0123456789" if d != value[i]])
    return value[:i] + digit + value[i + 1 :]


def group(digits: str, sizes: tuple[int, ...], sep: str = " ") -> str:
    out, at = [], 0
    for size in sizes:
        out.append(digits[at : at + size])
        at += size
    return sep.join(out)


CARD_SHAPES: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    ("4", 16, (4, 4, 4, 4)),  # Visa
    ("4", 13, (4, 4, 5)),
    ("4", 19, (4, 4, 4, 4, 3)),
    ("51", 16, (4, 4, 4, 4)),  # Mastercard
    ("55", 16, (4, 4, 4, 4)),
    ("2221", 16, (4, 4, 4, 4)),
    ("2720", 16, (4, 4, 4, 4)),
    ("34", 15, (4, 6, 5)),  # Amex
    ("37", 15, (4, 6, 5)),
    ("6011", 16, (4, 4, 4, 4)),  # Discover
)


def cards(rng: random.Random) -> list[Sample]:
    out: list[Sample] = []
    for prefix, length, sizes in CARD_SHAPES:
        for sep in (" ", "-", ""):
            body = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
            number = luhn_complete(body)
            written = group(number, sizes, sep) if sep else number
            out.append(Sample(written, PiiKind.CARD, True))
            broken = change_one_digit(number, rng, skip=len(prefix))
            assert not luhn_valid(broken)
            out.append(Sample(group(broken, sizes, sep) if sep else broken, PiiKind.CARD, False))
    # 16-digit order numbers: failing Luhn, or passing it outside every card range.
    for _ in range(6):
        order = "".join(rng.choice("0123456789") for _ in range(16))
        if luhn_valid(order):
            order = change_one_digit(order, rng)
        out.append(Sample(group(order, (4, 4, 4, 4)), PiiKind.CARD, False))
        unknown = luhn_complete("9" + "".join(rng.choice("0123456789") for _ in range(14)))
        assert not known_card_range(unknown)
        out.append(Sample(unknown, PiiKind.CARD, False))
    return out


# BBAN layouts of countries without a national check inside the BBAN: n digits, a capitals, c either.
IBAN_LAYOUTS = {"DE": "18n", "GB": "4a14n", "NL": "4a10n", "CH": "5n12c", "AT": "16n", "IE": "4a14n"}
# Published examples of countries whose BBANs carry a national check of their own, which random BBANs fail.
IBAN_EXAMPLES = (
    "FR1420041010050500013M02606",
    "ES9121000418450200051332",
    "BE71096123456769",
    "BE68539007547034",  # a bank code missing from stdnum's Belgian registry: still an IBAN
)


def ibans(rng: random.Random) -> list[Sample]:
    pool = {"n": "0123456789", "a": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "c": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"}
    compact: list[str] = list(IBAN_EXAMPLES)
    for country, layout in IBAN_LAYOUTS.items():
        for _ in range(3):
            bban, count = "", ""
            for ch in layout:
                if ch.isdigit():
                    count += ch
                else:
                    bban += "".join(rng.choice(pool[ch]) for _ in range(int(count)))
                    count = ""
            compact.append(country + stdnum_iban.calc_check_digits(country + "00" + bban) + bban)
    out: list[Sample] = []
    for number in compact:
        assert stdnum_iban.is_valid(number, check_country=False), number
        broken = change_one_digit(number, rng, skip=2)
        assert not stdnum_iban.is_valid(broken, check_country=False)
        for written, ok in ((number, True), (broken, False)):
            out.append(Sample(stdnum_iban.format(written), PiiKind.IBAN, ok))
            out.append(Sample(written, PiiKind.IBAN, ok))
    return out


PHONE_REGIONS = ("US", "GB", "FR", "DE", "NL", "ES", "IT", "BE", "CH", "AU", "JP", "BR", "IN", "SE", "PL")


def example_phones() -> list[tuple[str, phonenumbers.PhoneNumber]]:
    out = []
    for region in PHONE_REGIONS:
        for kind in (PhoneNumberType.FIXED_LINE, PhoneNumberType.MOBILE):
            number = phonenumbers.example_number_for_type(region, kind)
            if number is not None:
                out.append((region, number))
    return out


def phones() -> list[Sample]:
    """International forms, valid anywhere, and the same with a digit too few or too many."""
    out: list[Sample] = []
    for _region, number in example_phones():
        written = phonenumbers.format_number(number, PhoneNumberFormat.INTERNATIONAL)
        out.append(Sample(written, PiiKind.PHONE, True))
        for wrong in (written[:-1], written + "7"):
            if not phonenumbers.is_valid_number(phonenumbers.parse(wrong, None)):
                out.append(Sample(wrong, PiiKind.PHONE, False))
    return out


def emails() -> list[Sample]:
    valid = (
        "jane.roe@example.org",
        "J.Doe+invoices@Mail.Example.co.uk",
        "first_last-99@sub.domain.example.com",
        "x@example.museum",
        "müller@example.de",
    )
    invalid = ("user@localhost", "a@b.c", "admin@intranet", "icon@2x.png", "john..doe@example.com")
    return [Sample(e, PiiKind.EMAIL, True) for e in valid] + [
        Sample(e, PiiKind.EMAIL, False) for e in invalid
    ]


def ips(rng: random.Random) -> list[Sample]:
    out: list[Sample] = []
    while len(out) < 6:
        address = ipaddress.IPv4Address(rng.getrandbits(32))
        if address.is_global and not address.is_multicast:
            out.append(Sample(str(address), PiiKind.IP, True))
    for v6 in ("2a00:1450:4001:82b::200e", "2606:4700:4700::1111", "2001:4860:4860::8888"):
        out.append(Sample(v6, PiiKind.IP, True))
    # Private, loopback and documentation addresses: redacted by default (redact_private_ips).
    for text in ("192.168.1.1", "10.0.0.1", "127.0.0.1", "2001:db8::1"):
        out.append(Sample(text, PiiKind.IP, True))
    # Version numbers, impossible octets, leading zeros.
    for text in ("1.2.3.4.5", "10.0.19041.1", "999.1.1.1", "8.8.08.8", "12:30:45"):
        out.append(Sample(text, PiiKind.IP, False))
    return out


def digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def national_ids(rng: random.Random) -> list[Sample]:
    """Valid identifiers in their printed forms (with their labels where they need one), and the same
    with one digit changed."""
    made: list[tuple[str, Callable[[str], bool], str]] = []  # (written, validator, label)
    for _ in range(3):
        body = digits(rng, 8)
        made.append((body + es_dni.calc_check_digit(body), es_dni.is_valid, "DNI"))
        body = rng.choice("XYZ") + digits(rng, 7)
        made.append((body + es_nie.calc_check_digit(body), es_nie.is_valid, "NIE"))
        cf = (
            "".join(rng.choice("BCDFGLMNPRSTVZ") for _ in range(6))
            + digits(rng, 2)
            + rng.choice("ABCDEHLMPRST")
            + f"{rng.randint(1, 28) + rng.choice((0, 40)):02d}"
            + rng.choice("ADFHLMZ")
            + digits(rng, 3)
        )
        made.append((cf + it_codicefiscale.calc_check_digit(cf), it_codicefiscale.is_valid, "Codice fiscale"))
        nir = rng.choice("12") + digits(rng, 2) + f"{rng.randint(1, 12):02d}" + f"{rng.randint(1, 95):02d}"
        nir += digits(rng, 6)
        nir += fr_nir.calc_check_digits(nir + "00")
        made.append((fr_nir.format(nir), fr_nir.is_valid, "NIR"))
        made.append((nir, fr_nir.is_valid, "N° de sécurité sociale :"))
        nn = f"{rng.randint(30, 99):02d}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}{digits(rng, 3)}"
        nn += f"{97 - int(nn) % 97:02d}"
        made.append((f"{nn[:2]}.{nn[2:4]}.{nn[4:6]}-{nn[6:9]}.{nn[9:]}", be_nn.is_valid, "NN"))
        made.append((nn, be_nn.is_valid, "Rijksregisternummer:"))
        while True:
            bsn = digits(rng, 8)
            check = sum((9 - i) * int(c) for i, c in enumerate(bsn)) % 11
            if check < 10 and bsn[0] != "0":
                bsn += str(check)
                break
        made.append((f"{bsn[:4]}.{bsn[4:6]}.{bsn[6:]}", nl_bsn.is_valid, "Nummer"))
        made.append((bsn, nl_bsn.is_valid, "BSN:"))
        first = rng.sample("123456789", 1)
        rest = rng.sample([d for d in "0123456789" if d != first[0]], 8)
        ten = first + rest
        ten.insert(rng.randint(1, 9), rng.choice(ten))
        idnr = "".join(ten[:10])
        idnr += mod_11_10.calc_check_digit(idnr)
        made.append((f"{idnr[:2]} {idnr[2:5]} {idnr[5:8]} {idnr[8:]}", de_idnr.is_valid, "Steuer-ID"))
    out: list[Sample] = []
    for written, is_valid, label in made:
        assert is_valid(written), written
        out.append(Sample(written, PiiKind.NATIONAL_ID, True, label))
        broken = change_one_digit(written, rng)
        if not is_valid(broken):
            out.append(Sample(broken, PiiKind.NATIONAL_ID, False, label))
    return out


def all_samples(seed: int = SEED) -> list[Sample]:
    rng = random.Random(seed)
    return cards(rng) + ibans(rng) + phones() + emails() + ips(rng) + national_ids(rng)


SAMPLES = all_samples()
PROSE = (
    "The invoice was sent on 12 March",
    "see section 4.2",
    "total 1,234.50 EUR",
    "order no. 4711",
    "call us",
    "version 1.2.3.4",
    "at 10:30",
    "ISBN 978-3-16-148410-0",
)
SEPARATORS = (", ", "; ", ".\n", " and then ", " (", ") ")


def occurs(value: str, text: str) -> bool:
    """Whether ``value`` stands in ``text`` as a whole token, not as the start of a longer number."""
    return re.search(rf"(?<![\w.+@-]){re.escape(value)}(?![\w@]|[.-]\w)", text) is not None


def check_offsets(out: Scrubbed) -> None:
    for r in out.redactions:
        assert out.text[r.start : r.end] == r.placeholder
        assert r.placeholder.startswith(f"⟨{r.kind.name}_")
    starts = [r.start for r in out.redactions]
    assert starts == sorted(starts)


# -- acceptance --


def test_generated_fixtures_cover_every_kind_both_ways() -> None:
    for kind in (PiiKind.EMAIL, PiiKind.PHONE, PiiKind.CARD, PiiKind.IBAN, PiiKind.IP, PiiKind.NATIONAL_ID):
        assert any(s.kind is kind and s.valid for s in SAMPLES), kind
        assert any(s.kind is kind and not s.valid for s in SAMPLES), kind
    assert len(SAMPLES) > 200


def test_every_valid_value_redacted_and_no_invalid_one() -> None:
    rng = random.Random(SEED)
    samples = SAMPLES[:]
    rng.shuffle(samples)
    pieces = []
    for s in samples:
        pieces.append(f"{rng.choice(PROSE)}{rng.choice(SEPARATORS)}{s.text}{rng.choice(SEPARATORS)}")
    text = "".join(pieces)
    out = Scrubber().scrub(text, PlaceholderBook())
    check_offsets(out)
    missed = [s.text for s in samples if s.valid and occurs(s.value, out.text)]
    wrongly = [s.text for s in samples if not s.valid and not occurs(s.text, out.text)]
    assert not missed, missed
    assert not wrongly, wrongly
    assert len(out.redactions) == sum(1 for s in samples if s.valid)
    # The prose around them is untouched, version numbers included.
    for p in PROSE:
        assert p in out.text


@pytest.mark.parametrize("kind", sorted(DEFAULT_KINDS))
def test_each_kind_alone(kind: PiiKind) -> None:
    """One kind switched on: its valid values go, everything else stays."""
    scrubber = Scrubber(kinds=frozenset({kind}))
    for s in SAMPLES:
        out = scrubber.scrub(f"Note: {s.text}.", PlaceholderBook())
        if s.kind is kind and s.valid:
            assert not occurs(s.value, out.text), s
            assert [r.kind for r in out.redactions] == [kind], s
        elif s.kind is kind:
            assert out.text == f"Note: {s.text}.", s


@pytest.mark.parametrize(("region", "number"), example_phones(), ids=lambda v: str(v)[:24])
def test_national_phone_forms_need_their_region(region: str, number: phonenumbers.PhoneNumber) -> None:
    national = phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL)
    text = f"Ring {national} today."
    assert Scrubber().scrub(text, PlaceholderBook()).text == text
    out = Scrubber(phone_region=region).scrub(text, PlaceholderBook())
    assert out.text == "Ring ⟨PHONE_1⟩ today."


# -- placeholders --


def test_placeholders_are_stable_across_a_documents_pages() -> None:
    scrubber = Scrubber(phone_region="GB")
    book = PlaceholderBook()
    page1 = scrubber.scrub("Write to jane.roe@example.org or bob@example.org, or ring 020 7946 0958.", book)
    page2 = scrubber.scrub("Again: JANE.ROE@EXAMPLE.ORG, +44 20 7946 0958, card 4111-1111-1111-1111.", book)
    page3 = scrubber.scrub("Card 4111111111111111 and bob@example.org.", book)
    assert page1.text == "Write to ⟨EMAIL_1⟩ or ⟨EMAIL_2⟩, or ring ⟨PHONE_1⟩."
    assert page2.text == "Again: ⟨EMAIL_1⟩, ⟨PHONE_1⟩, card ⟨CARD_1⟩."
    assert page3.text == "Card ⟨CARD_1⟩ and ⟨EMAIL_2⟩."
    assert book.counts() == {PiiKind.EMAIL: 2, PiiKind.PHONE: 1, PiiKind.CARD: 1}
    # Another document starts from 1 again.
    other = scrubber.scrub("bob@example.org", PlaceholderBook())
    assert other.text == "⟨EMAIL_1⟩"


def test_the_book_never_shows_a_value() -> None:
    book = PlaceholderBook()
    secret = "jane.roe@example.org"
    out = Scrubber().scrub(f"mail {secret} or +44 20 7946 0958", book)
    assert secret not in out.text
    for shown in (repr(book), str(book), repr(out), repr(out.redactions)):
        assert "jane" not in shown.lower() and "7946" not in shown
    assert repr(book) == "PlaceholderBook(EMAIL=1, PHONE=1)"
    with pytest.raises(TypeError):
        pickle.dumps(book)
    # Nor do the detectors' findings, which hold the normalised value while a page is scrubbed.
    findings = list(EmailDetector().find(f"mail {secret}"))
    assert len(findings) == 1 and "jane" not in repr(findings)


def test_redaction_offsets_point_at_placeholders_in_the_output() -> None:
    text = "a@example.com+44 20 7946 0958 then 4111 1111 1111 1111 and a@example.com"
    out = Scrubber().scrub(text, PlaceholderBook())
    # The phone glued to the address is found by the second scan, with the offsets of the first moved.
    assert out.text == "⟨EMAIL_1⟩⟨PHONE_1⟩ then ⟨CARD_1⟩ and ⟨EMAIL_1⟩"
    check_offsets(out)
    assert [r.kind for r in out.redactions] == [PiiKind.EMAIL, PiiKind.PHONE, PiiKind.CARD, PiiKind.EMAIL]


# -- decisions --


def test_overlaps_prefer_the_longest_then_the_stronger_kind() -> None:
    # Digits of an IBAN are not read as a card, nor are those of an invalid one.
    out = Scrubber().scrub("IBAN DE89 3704 0044 0532 0130 00 BIC COBADEFFXXX", PlaceholderBook())
    assert out.text == "IBAN ⟨IBAN_1⟩ BIC COBADEFFXXX"
    invalid = "DE89 4111 1111 1111 1111 00"
    assert Scrubber().scrub(invalid, PlaceholderBook()).text == invalid
    # Numbers in a table are not a card, whatever their digits pass: cards are printed in fours, 4-6-5 or
    # 4-6-4.
    assert luhn_valid("4111111111111111")
    assert Scrubber().scrub("4111 111 1111 11111", PlaceholderBook()).text == "4111 111 1111 11111"
    # A card followed by its security code is still a card; a card number is not a phone number.
    out = Scrubber(phone_region="US").scrub("card 4111 1111 1111 1111 123", PlaceholderBook())
    assert out.text == "card ⟨CARD_1⟩ 123"


def test_phone_numbers_in_running_text() -> None:
    scrub = Scrubber().scrub
    # The matcher reads "+44 20 7946 0958 2" whole and rejects it; the number in it is still found.
    assert scrub("Call +44 20 7946 0958 2 times", PlaceholderBook()).text == "Call ⟨PHONE_1⟩ 2 times"
    # Brackets: the prose's stay, a number does not close one it never opened.
    assert scrub("(+31 6 12345678, mobile)", PlaceholderBook()).text == "(⟨PHONE_1⟩, mobile)"
    assert scrub("(+44) 20 7946 0958", PlaceholderBook()).text == "⟨PHONE_1⟩"
    assert scrub("+55 11 96123-456) 1.2", PlaceholderBook()).text == "+55 11 96123-456) 1.2"
    # Glued to letters, or a dotted run after a plus sign, is not a number.
    for text in ("+44 20 7946 0958abc", "+2090000.15900.159.159", "growth of +12.5 % and +3.1 %"):
        assert scrub(text, PlaceholderBook()).text == text
    # A national form needs its region.
    assert scrub("ring 020 7946 0958", PlaceholderBook()).text == "ring 020 7946 0958"
    # A number wrapped at the end of a line is one number; across a paragraph break it is not.
    assert scrub("tel: +41 (0)41\n619 67 74; fax", PlaceholderBook()).text == "tel: ⟨PHONE_1⟩; fax"
    assert scrub("+44 20\n\n7946 0958", PlaceholderBook()).text == "+44 20\n\n7946 0958"


def test_ip_addresses_private_ones_too_by_default_and_public_only_when_asked() -> None:
    text = "server 81.2.69.160, router 192.168.0.1, loopback 127.0.0.1, docs 192.0.2.7, v6 2001:db8::1"
    assert Scrubber().scrub(text, PlaceholderBook()).text.count("⟨IP_") == 5
    public = Scrubber(include_private_ips=False).scrub(text, PlaceholderBook())
    assert public.text == (
        "server ⟨IP_1⟩, router 192.168.0.1, loopback 127.0.0.1, docs 192.0.2.7, v6 2001:db8::1"
    )
    for version in ("version 8.8.8.8", "v8.8.8.8", "build 8.8.8.8", "8.8.8.8.1", "1.8.8.8.8"):
        assert Scrubber().scrub(version, PlaceholderBook()).text == version


def test_kinds_and_schemes_are_switchable() -> None:
    text = "mail a@example.com, card 4111 1111 1111 1111, BSN: 111222333, VAT DE136695976"
    assert de_vat.is_valid("DE136695976")
    only_mail = Scrubber(kinds=frozenset({PiiKind.EMAIL})).scrub(text, PlaceholderBook())
    assert only_mail.text == "mail ⟨EMAIL_1⟩, card 4111 1111 1111 1111, BSN: 111222333, VAT DE136695976"
    default = Scrubber().scrub(text, PlaceholderBook())
    assert default.text == "mail ⟨EMAIL_1⟩, card ⟨CARD_1⟩, BSN: ⟨NATIONAL_ID_1⟩, VAT DE136695976"
    assert default.redactions[-1].scheme is IdScheme.NL_BSN
    with_vat = Scrubber(kinds=DEFAULT_KINDS | {PiiKind.VAT}, id_schemes=frozenset()).scrub(
        text, PlaceholderBook()
    )
    assert with_vat.text == "mail ⟨EMAIL_1⟩, card ⟨CARD_1⟩, BSN: 111222333, VAT ⟨VAT_1⟩"


def test_labels_decide_bare_identifiers() -> None:
    # 111222333 passes the 11-test, as one 9-digit number in 11 does: without its label it is a number.
    assert nl_bsn.is_valid("111222333")
    assert Scrubber().scrub("Ref 111222333", PlaceholderBook()).text == "Ref 111222333"
    assert Scrubber().scrub("BSN 111222333", PlaceholderBook()).text == "BSN ⟨NATIONAL_ID_1⟩"
    # The label must stand before the number, within CONTEXT_CHARS.
    far = "BSN" + " word" * 10 + " 111222333"
    assert Scrubber().scrub(far, PlaceholderBook()).text == far
    # In their printed groupings, identifiers need no label.
    nir = fr_nir.format("185057800608491")
    assert fr_nir.is_valid(nir)
    assert Scrubber().scrub(f"le {nir}", PlaceholderBook()).text == "le ⟨NATIONAL_ID_1⟩"
    assert Scrubber().scrub("le 185057800608491", PlaceholderBook()).text == "le 185057800608491"


def test_configuration_names() -> None:
    assert parse_kinds(["email", " CARD "]) == {PiiKind.EMAIL, PiiKind.CARD}
    assert parse_id_schemes(["nl.bsn"]) == {IdScheme.NL_BSN}
    with pytest.raises(ConfigError, match="unknown PII kind 'ssn'"):
        parse_kinds(["ssn"])
    with pytest.raises(ConfigError, match="phone region"):
        Scrubber(phone_region="XX")
    assert Scrubber(phone_region="gb").phone_region == "GB"


# -- properties --

VALID = [s for s in SAMPLES if s.valid]
INVALID = [s for s in SAMPLES if not s.valid]
pieces = st.one_of(st.sampled_from(SAMPLES), st.sampled_from(PROSE))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(pieces, st.sampled_from(SEPARATORS)), min_size=1, max_size=12))
def test_property_valid_values_go_invalid_ones_stay(parts: list[tuple[Sample | str, str]]) -> None:
    text = "".join((p.text if isinstance(p, Sample) else p) + sep for p, sep in parts)
    out = Scrubber().scrub(text, PlaceholderBook())
    check_offsets(out)
    samples = [p for p, _ in parts if isinstance(p, Sample)]
    for s in samples:
        if s.valid:
            assert not occurs(s.value, out.text)
        else:
            assert occurs(s.text, out.text)
    assert len(out.redactions) == sum(1 for s in samples if s.valid)


GLUE = st.text(alphabet="0123456789 .@+-:/aeZX_\n⟨⟩", max_size=6)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(SAMPLES).map(lambda s: s.text), GLUE), max_size=8))
def test_property_idempotent_and_exact_on_glued_text(parts: list[tuple[str, str]]) -> None:
    """Values glued to each other and to random characters: placeholders are never re-detected, the
    offsets are exact, and numbering follows first appearance."""
    text = "".join(a + b for a, b in parts)
    out = Scrubber(include_private_ips=True).scrub(text, PlaceholderBook())
    check_offsets(out)
    again = Scrubber(include_private_ips=True).scrub(out.text, PlaceholderBook())
    assert again.text == out.text and again.redactions == []
    # Each placeholder's number is one more than the highest of its kind before it, or a repeat.
    highest: dict[str, int] = {}
    for r in out.redactions:
        kind, _, number = r.placeholder.strip("⟨⟩").rpartition("_")
        assert int(number) <= highest.get(kind, 0) + 1
        highest[kind] = max(highest.get(kind, 0), int(number))


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="0123456789.@+- :xa⟨⟩E_", max_size=400))
def test_property_arbitrary_text(text: str) -> None:
    out = Scrubber(phone_region="US").scrub(text, PlaceholderBook())
    check_offsets(out)
    again = Scrubber(phone_region="US").scrub(out.text, PlaceholderBook())
    assert again.text == out.text
    # Outside the placeholders, the text is the input's, in order.
    rest = PLACEHOLDER_RE.sub("", out.text)
    it = iter(text)
    assert all(c in it for c in rest)


# An adversarial page of 50,000 characters, and how its scrubbing may grow with its length. A page and its
# first quarter are scrubbed, in CPU seconds of this process (the best of two): linear patterns take four
# times as long on the page (at most 5.6 times, over 40 generated pages), a quadratic one sixteen times, a
# backtracking one more (minutes, on such a page). Below LINEAR_FLOOR_S for the whole page the growth is
# noise, and nothing slow happened anyway: the linear patterns scan such a page in 0.01-1 s.
ADVERSARIAL_CHARS = 50_000
LINEAR_GROWTH_MAX = 10.0
LINEAR_FLOOR_S = 0.5


def _cpu(scrubber: Scrubber, text: str) -> float:
    costs = []
    for _ in range(2):
        start = time.process_time()
        scrubber.scrub(text, PlaceholderBook())
        costs.append(time.process_time() - start)
    return min(costs)


def assert_scrubs_in_linear_time(scrubber: Scrubber, text: str) -> None:
    whole = _cpu(scrubber, text)
    if whole < LINEAR_FLOOR_S:
        return
    quarter = _cpu(scrubber, text[: len(text) // 4])
    assert whole < LINEAR_GROWTH_MAX * quarter, f"{whole:.2f} s for the page, {quarter:.2f} s for a quarter"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.text(alphabet="0123456789.@ +-:aA", min_size=1, max_size=12), min_size=1, max_size=6),
    st.integers(min_value=0, max_value=2**32),
)
def test_property_no_catastrophic_backtracking(motifs: list[str], seed: int) -> None:
    rng = random.Random(seed)
    chunks, size = [], 0
    while size < ADVERSARIAL_CHARS:
        chunk = rng.choice(motifs)
        chunks.append(chunk)
        size += len(chunk)
    text = "".join(chunks)[:ADVERSARIAL_CHARS]
    for scrubber in (Scrubber(), Scrubber(phone_region="US")):
        assert_scrubs_in_linear_time(scrubber, text)


@pytest.mark.parametrize(
    "text",
    [
        "1." * 25_000,
        "1@" * 25_000,
        "a" * 49_000 + "@example.com",
        "4000 " * 10_000,
        "a:" * 25_000,
        "AB12 " * 10_000,
        "+1 " * 16_000,
        "0" * 50_000,
        "1.2.3.4 " * 6_000,
        "Section 1.2.3.4 " * 3_000,
    ],
    ids=[
        "dots",
        "ats",
        "long-local",
        "groups",
        "colons",
        "iban-heads",
        "pluses",
        "zeros",
        "quads",
        "sections",
    ],
)
def test_long_runs_stay_linear(text: str) -> None:
    assert_scrubs_in_linear_time(Scrubber(), text)


# A spelled-out local part is looked back over word by word: a text of 960,000 characters of "a dot "
# before an address took 15 s (a quarter of it 1.6 s) when the whole run was taken for the local part.
SPELLED_CHARS = 960_000
SPELLED_GROWTH_MAX = 6.0


@pytest.mark.parametrize(
    ("motif", "address"),
    [
        ("a dot ", "b at example dot com"),
        ("a [dot] ", "b [at] example [dot] org"),
        ("a (dot) ", "b@example (dot) org"),
    ],
    ids=["bare", "bracketed", "at-sign"],
)
def test_a_spelled_out_local_part_is_scanned_in_linear_time(motif: str, address: str) -> None:
    text = motif * (SPELLED_CHARS // len(motif)) + address
    quarter_text = motif * (SPELLED_CHARS // len(motif) // 4) + address
    whole, quarter = _cpu(Scrubber(), text), _cpu(Scrubber(), quarter_text)
    assert whole < SPELLED_GROWTH_MAX * max(quarter, 0.05), f"{whole:.2f} s for the text, {quarter:.2f} s"
    out = Scrubber().scrub(text, PlaceholderBook())
    # the address is redacted, and the words before its local part's EMAIL_LOCAL_MAX characters are not
    assert out.text.endswith("⟨EMAIL_1⟩") and len(out.redactions) == 1
    assert len(text) - len(out.text) < EMAIL_LOCAL_MAX * 8


labels = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=10).filter(
    lambda label: label[0].isalnum()
)


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789._", min_size=1, max_size=12).filter(
        lambda local: local[0].isalnum() and local[-1].isalnum() and ".." not in local
    ),
    st.lists(labels, min_size=1, max_size=3),
    st.sampled_from(("com", "org", "de", "info", "co.uk")),
    st.lists(st.sampled_from(sorted(FILE_NAME_ENDINGS)), min_size=1, max_size=3),
    st.sampled_from(("{}", "file {} attached", "({})", "{}, ", "see {}.")),
)
def test_property_an_address_before_file_endings_is_redacted_and_they_stay(
    local: str, names: list[str], tld: str, endings: list[str], sentence: str
) -> None:
    extensions = "".join(f".{e}" for e in endings)
    text = sentence.format(f"{local}@{'.'.join(names)}.{tld}{extensions}")
    out = Scrubber(frozenset({PiiKind.EMAIL})).scrub(text, PlaceholderBook())
    assert out.text == sentence.format(f"⟨EMAIL_1⟩{extensions}")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("see jane@corp.com.pdf.", "see ⟨EMAIL_1⟩.pdf."),
        ("name@d.org.txt.txt", "⟨EMAIL_1⟩.txt.txt"),
        ("Jane.Roe@Mail.Example.co.uk.DOCX attached", "⟨EMAIL_1⟩.DOCX attached"),
        ("bundle/jane@corp.com.odt", "bundle/⟨EMAIL_1⟩.odt"),
        # a delegated TLD is part of the address
        ("jane@corp.zip", "⟨EMAIL_1⟩"),
        # no domain of two labels before the extension: an image or a package's file, no address
        ("icon@2x.png", "icon@2x.png"),
        ("logo@home.png", "logo@home.png"),
        ("jquery@3.6.0.min.js", "jquery@3.6.0.min.js"),
        ("sprite@2x.v2.png", "sprite@2x.v2.png"),
    ],
)
def test_an_address_before_a_file_extension_is_redacted_and_the_extension_kept(text: str, shown: str) -> None:
    out = Scrubber().scrub(text, PlaceholderBook())
    assert out.text == shown
    check_offsets(out)


# -- dotted numbers of a document's structure --

HEADINGS = (
    "1.2.3.1 Scope",
    "#### 1.2.3.1 Scope",
    "**1.2.3.1** Scope",
    "1.2.3.1. Scope",
    "- 1.2.3.1 Überblick",
)
REFERENCES = (
    "Paragraph 1.2.3.1",
    "see Section 1.2.3.1 and § 1.2.3.2",
    "Figure 2.1.3.4",
    "Fig. 2.1.3.4",
    "Table 1.1.1.1",
    "Tab. 1.1.1.1",
    "Table No. 1.1.1.1",
    "Abb. 2.1.3.4",
    "Рис. 2.1.3.4",
    "Annexe 1.2.1.1",
    "OID 1.3.6.1",
    "OID 1.3.6.1.4.1",
    "dated 2023.10.05.1",
)
VERSIONS = (
    "v2.10.3.4",
    "Python 3.11.7.1",
    "version 4.2.0.1",
    "Release 10.0.19041.1",
    "Version 1.0.0.1",
    "build 8.8.8.8",
    "upgrade to 3.11.7.1-beta",
    "Acrobat Distiller 9.0.0.1",
)
REAL_ADDRESSES = (
    ("192.168.1.20", "⟨IP_1⟩"),
    ("The router answers at 10.0.0.1 in prose.", "The router answers at ⟨IP_1⟩ in prose."),
    (
        "2023-10-05 12:00:01 INFO sshd: connection from 192.168.1.20 port 22",
        "2023-10-05 12:00:01 INFO sshd: connection from ⟨IP_1⟩ port 22",
    ),
    (
        '192.168.1.20 - - [05/Oct/2023:12:00:01 +0000] "GET / HTTP/1.1" 200',
        '⟨IP_1⟩ - - [05/Oct/2023:12:00:01 +0000] "GET / HTTP/1.1" 200',
    ),
    ("192.168.1.20 GET /index.html", "⟨IP_1⟩ GET /index.html"),
    ("Server: 8.8.8.8", "Server: ⟨IP_1⟩"),
    ("Server 8.8.8.8", "Server ⟨IP_1⟩"),
    ("Note: 10.0.0.1 is the gateway", "Note: ⟨IP_1⟩ is the gateway"),
    ("| 10.0.0.1 | Gateway |", "| ⟨IP_1⟩ | Gateway |"),
)
# Every detector, national phone forms of a few regions too: none may take a section or a version.
ALL_KINDS = frozenset(PiiKind)
STRUCTURE_REGIONS = (None, "GB", "DE", "FR", "US")


@pytest.mark.parametrize("region", STRUCTURE_REGIONS)
def test_headings_references_and_versions_are_not_redacted(region: str | None) -> None:
    scrubber = Scrubber(ALL_KINDS, region)
    for text in (*HEADINGS, *REFERENCES, *VERSIONS):
        for framed in (text, f"Intro.\n{text}\nMore text.", f"{text}\n"):
            assert scrubber.scrub(framed, PlaceholderBook()).text == framed, (region, framed)


def test_only_the_real_addresses_are_redacted() -> None:
    for text, expected in REAL_ADDRESSES:
        assert Scrubber().scrub(text, PlaceholderBook()).text == expected
    page = "\n".join((*HEADINGS[:1], *REFERENCES[:1], *VERSIONS[:4], *(t for t, _ in REAL_ADDRESSES)))
    out = Scrubber(ALL_KINDS).scrub(page, PlaceholderBook())
    assert {r.kind for r in out.redactions} == {PiiKind.IP}
    assert len(out.redactions) == len(REAL_ADDRESSES)
    assert out.text.startswith("\n".join((*HEADINGS[:1], *REFERENCES[:1], *VERSIONS[:4])))


octets = st.lists(st.integers(0, 255), min_size=4, max_size=4).map(lambda o: ".".join(map(str, o)))
addresses = st.integers(0, 2**32 - 1).map(lambda n: str(ipaddress.IPv4Address(n)))
titles = st.from_regex(r"[A-Z][a-z]{2,12}", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(
    octets,
    st.sampled_from(("v", "v ", "version ", "Version ", "release ", "build ", "Python ", "Rev. ")),
    st.sampled_from(("Upgrade to {}.", "{}", "Tested with {} on Monday.", "({})")),
)
def test_property_versions_are_never_redacted(number: str, word: str, sentence: str) -> None:
    text = sentence.format(word + number)
    assert Scrubber(ALL_KINDS).scrub(text, PlaceholderBook()).text == text


@settings(max_examples=200, deadline=None)
@given(octets, titles, st.sampled_from(("", "# ", "#### ", "- ", "  ", "> ")), st.sampled_from(("", ".")))
def test_property_line_opening_numbers_before_a_title_are_never_redacted(
    number: str, title: str, opening: str, dot: str
) -> None:
    text = f"Some text.\n{opening}{number}{dot} {title} of the work\nMore text."
    assert Scrubber(ALL_KINDS).scrub(text, PlaceholderBook()).text == text


@settings(max_examples=200, deadline=None)
@given(
    addresses,
    st.sampled_from(
        (
            "IP {}",
            "IP: {}",
            "IP address {}",
            "host {}",
            "Host: {}",
            "server {}",
            "Server: {}",
            "The gateway answers at {} since Monday.",
            "connection from {} port 22",
            "{}",
            "Start.\n{} is the gateway.",
        )
    ),
)
def test_property_addresses_in_their_contexts_are_redacted(address: str, sentence: str) -> None:
    out = Scrubber().scrub(sentence.format(address), PlaceholderBook())
    assert out.text == sentence.format("⟨IP_1⟩")
