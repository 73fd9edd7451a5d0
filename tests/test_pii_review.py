"""The judge of redactions (quality/pii_review.py): a placeholder's context alone says structure,
personal data or undecided, with rules of its own; and the precision figures per kind."""

from __future__ import annotations

import pytest

from quality.pii import PlaceholderBook, Scrubber
from quality.pii_review import Verdict, judge, precision

STRUCTURE = (
    ("ip", "1.2.3.1 Scope\n⟨IP_1⟩ Definitions\nText."),
    ("ip", "#### ⟨IP_1⟩ SCOPE"),
    ("ip", "**⟨IP_1⟩** Overview"),
    ("ip", "⟨IP_1⟩ Terms and definitions .......... 12"),
    ("ip", "as Paragraph ⟨IP_1⟩ says"),
    ("ip", "Sections 1.2.3.1 and ⟨IP_1⟩ apply"),
    ("ip", "see Figure ⟨IP_1⟩."),
    ("ip", "Tab. ⟨IP_1⟩ lists"),
    ("ip", "Рис. ⟨IP_1⟩ показывает"),
    ("ip", "Abbildung ⟨IP_1⟩ zeigt"),
    ("ip", "OID ⟨IP_1⟩"),
    ("ip", "version 4 build ⟨IP_1⟩ is out"),
    ("ip", "upgrade to ⟨IP_1⟩-beta now"),
    ("ip", "the object 1.3.6.⟨IP_1⟩ of the tree"),
    ("ip", "| 12 | ⟨IP_1⟩ | 3.5 | 17 |"),
    ("phone", "| 2019 | ⟨PHONE_1⟩ | 1,234 | 12 % |"),
    ("card", "totals 4411 2290 ⟨CARD_1⟩ 1200 88"),
)
PERSONAL = (
    ("ip", "Server: ⟨IP_1⟩"),
    ("ip", "the IP address ⟨IP_1⟩ of the router"),
    ("ip", "Table 3: host ⟨IP_1⟩"),
    ("ip", "INFO sshd: connection from ⟨IP_1⟩ port 22"),
    ("phone", "telephone: ⟨PHONE_1⟩; fax"),
    ("email", "From: Jane Roe <⟨EMAIL_1⟩>"),
    ("email", "email:\n⟨EMAIL_1⟩."),
    ("email", "Ann Lee <⟨EMAIL_1⟩>, Bo Wu"),
    ("iban", "IBAN ⟨IBAN_1⟩"),
)
UNDECIDED = (
    ("ip", "| 10.0.0.1 | Gateway |\n| ⟨IP_1⟩ | Printer |"),
    ("ip", "⟨IP_1⟩ GET /index.html"),
    ("ip", "Python ⟨IP_1⟩ is installed"),
    ("ip", "Note that ⟨IP_1⟩ is not shown"),
    ("email", "⟨EMAIL_1⟩\n⟨EMAIL_2⟩"),
    # an e-mail address is never a number of a document, whatever stands before it
    ("email", "see Figure ⟨EMAIL_1⟩"),
)


def judged(kind: str, text: str) -> Verdict:
    placeholder = f"⟨{kind.upper()}_{2 if '⟨EMAIL_2⟩' in text else 1}⟩"
    start = text.index(placeholder)
    return judge(kind, placeholder, text, start, start + len(placeholder)).verdict


@pytest.mark.parametrize(("kind", "text"), STRUCTURE)
def test_structure(kind: str, text: str) -> None:
    assert judged(kind, text) is Verdict.STRUCTURE


@pytest.mark.parametrize(("kind", "text"), PERSONAL)
def test_personal(kind: str, text: str) -> None:
    assert judged(kind, text) is Verdict.PERSONAL


@pytest.mark.parametrize(("kind", "text"), UNDECIDED)
def test_undecided(kind: str, text: str) -> None:
    assert judged(kind, text) is Verdict.UNDECIDED


def test_the_judge_finds_what_a_detector_takes_from_the_structure() -> None:
    # Detectors without the structure rule (only addresses in a plain context) would redact every number
    # here; the judge, which never sees the value, says so from the placeholders' context.
    text = "1.2.3.1 Scope\nParagraph 1.2.3.1\nFigure 2.1.3.4\nServer: 8.8.8.8\nv2 build 1.2.3.4"
    redacted = "⟨IP_1⟩ Scope\nParagraph ⟨IP_1⟩\nFigure ⟨IP_2⟩\nServer: ⟨IP_3⟩\nv2 build ⟨IP_4⟩"
    found = []
    for placeholder in ("⟨IP_1⟩", "⟨IP_2⟩", "⟨IP_3⟩", "⟨IP_4⟩"):
        start = -1
        while (start := redacted.find(placeholder, start + 1)) >= 0:
            found.append(judge("ip", placeholder, redacted, start, start + len(placeholder)))
    [figures] = precision(found)
    assert (figures.made, figures.structure, figures.personal, figures.undecided) == (5, 4, 1, 0)
    assert figures.precision == pytest.approx(0.2)
    # and the detectors as they are redact the address only
    assert Scrubber().scrub(text, PlaceholderBook()).text == (
        "1.2.3.1 Scope\nParagraph 1.2.3.1\nFigure 2.1.3.4\nServer: ⟨IP_1⟩\nv2 build 1.2.3.4"
    )


def test_precision_per_kind_and_none_without_redactions() -> None:
    assert precision([]) == []
    text = "Server: ⟨IP_1⟩ and Figure ⟨IP_2⟩, mail ⟨EMAIL_1⟩"
    found = [
        judge(kind, p, text, text.index(p), text.index(p) + len(p))
        for kind, p in (("ip", "⟨IP_1⟩"), ("ip", "⟨IP_2⟩"), ("email", "⟨EMAIL_1⟩"))
    ]
    email, ip = precision(found)
    assert (email.kind, email.made, email.structure, email.precision) == ("email", 1, 0, 1.0)
    assert (ip.kind, ip.made, ip.structure, ip.personal, ip.precision) == ("ip", 2, 1, 1, 0.5)
