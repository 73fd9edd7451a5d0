"""The demo corpus ``assay run`` reads when given no path: nine files, generated in code, that show every
outcome assay records.

``write_demo_corpus(folder)`` writes nine files whose right answers are known: a born-digital report
with a ruled table, a scan with no text layer, a PDF whose font maps every glyph to the wrong letter, a
French report, a page with a chart that exists only as pixels, a scanned memo saved as a PNG and fed
sideways, a UTF-8 note, an empty file and a corrupt PDF. They are written by the builders of
orchestration/document_builders.py, so the same PyMuPDF version writes the same bytes on every call and a
second run over the demo is a pure cache hit. This module imports no Dagster.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from orchestration.document_builders import (
    _write_atomic,
    make_figure_pdf,
    make_garbled_pdf,
    make_image_only_pdf,
    make_scan_image,
    make_text_pdf,
)

__all__ = ["DEMO_FILES", "DemoFile", "write_demo_corpus"]


@dataclass(frozen=True)
class DemoFile:
    """One file of the demo corpus and what assay should conclude about it.

    ``expect`` is a one-line description for people; ``expected_status`` is the document status the
    extract stage records today (before OCR exists): one of ``derived``, ``underivable``,
    ``unsupported``, ``error``, ``skipped``.
    """

    name: str
    path: Path
    expect: str
    expected_status: str


# --- the demo texts --------------------------------------------------------------------------------

_REPORT_TITLE = "Riverside Water: Annual Report 2023"

_REPORT_PAGES = [
    """# Summary of the year

The Riverside Municipal Water Utility supplied drinking water to 48,200 households and 1,350 businesses
during the 2023 financial year. Total production reached 6.9 million cubic metres, a decrease of 2.4
percent compared with the previous year, largely because of the wet summer and the continued replacement
of leaking service pipes in the older districts north of the river.

Average household consumption fell to 121 litres per person per day. This is the lowest figure recorded
since metering became universal in 2011, and it reflects both the voluntary savings campaign launched in
spring and the steady adoption of efficient appliances. Commercial consumption remained stable, with the
brewery and the hospital together accounting for almost one fifth of all non-domestic demand.

The board approved a moderate tariff adjustment for the coming year. The fixed standing charge rises by
three percent, while the volumetric rate for the first block of consumption is held at its current level,
so that households using only what they need are protected from the increase.""",
    """# Tariffs and consumption rates

Tariffs are set in three blocks so that essential use stays affordable and heavy use pays a fair share of
the cost of peak capacity. The first block covers the first ten cubic metres each month per connection.
The second block applies up to thirty cubic metres, and the third block applies to all consumption above
that threshold. Sewerage charges are billed separately by the regional authority and are not included in
the figures below. The average household bill, including the standing charge, was 312 euros for the year.

Table 1 compares the rates charged in 2022 and 2023 with the rates approved for 2024. All amounts are in
euros per cubic metre and exclude value added tax. Customers on the social tariff receive a further
reduction of forty percent on the first block, and pensioners living alone may apply for the same relief.

Table 1: Volumetric rates by consumption block (euros per cubic metre)""",
    """# Maintenance and investment

The maintenance crews replaced 14.6 kilometres of cast iron mains and renewed 2,180 service connections,
most of them in the Old Town and Mill Lane districts where burst frequency had been highest. Leakage,
estimated from night flow measurements in each of the forty district metering areas, fell from 17 to 14
percent of the water put into supply.

At the Hillcrest treatment works the second sand filter was rebuilt, and the chlorine dosing equipment was
replaced with a modern system that adjusts the dose to the measured flow. The reservoir at Oak Ridge was
drained, inspected and cleaned in October without any interruption to customers, because the new
interconnecting main allowed supply to be maintained from the eastern zone.

For the coming year the utility plans to invest 9.4 million euros, with priority given to the remaining
lead service pipes, a new pumping station at Brook Farm and the first stage of a smart metering trial
covering two thousand homes.""",
]

_REPORT_TABLE = [
    ["Block", "2022", "2023", "2024"],
    ["First block", "1.42", "1.48", "1.48"],
    ["Second block", "1.95", "2.04", "2.10"],
    ["Third block", "2.60", "2.71", "2.85"],
]

_SCAN_PAGES = [
    """# Notice of planned works

Dear customer, the Riverside Municipal Water Utility will replace the water main in Station Road between
the library and the railway bridge. Work begins on Monday 4 March and is expected to last six weeks.
During this period the road will be closed to through traffic, but access to homes and shops will be kept
open at all times.

On two days your water supply may be interrupted for up to four hours. We will deliver a card to your
door at least two days before each interruption. Please keep a small amount of drinking water ready and
do not use the washing machine while the supply is off.""",
    """# After the work

When the supply returns, the water may look cloudy for a short time. This is caused by tiny air bubbles
and is harmless. Run the cold kitchen tap until the water is clear. If the water remains discoloured after
twenty minutes, please call our customer service line.

We apologise for any inconvenience and thank you for your patience. The new main will reduce bursts and
improve the water pressure in the whole street for many years to come.

Yours sincerely, the Network Maintenance Team""",
]

_GARBLED_TEXT = """Unit consumption rates for the year were calculated from quarterly meter readings at every
domestic connection. The average household used one hundred and twenty one litres per person per day,
which is slightly lower than the year before.

The water tariff has three blocks. The first block covers the basic needs of every household and is
charged at the lowest rate. The second and third blocks apply to larger users such as gardens, swimming
pools and small businesses.

Maintenance work continued throughout the summer. The crews replaced old cast iron pipes, repaired
valves and cleaned the storage reservoir, so that the quality of the drinking water remained excellent
in every district of the town.

Customers who notice a leak in the street are asked to report it by telephone. Quick reports help the
utility save water and keep the cost of supply low for everyone who lives and works in the area."""

_FRENCH_TITLE = "Service des eaux : rapport annuel 2023"

_FRENCH_PAGES = [
    """# Consommation d’eau en 2023

Le service municipal des eaux de Rivière-sur-Lac a distribué cette année près de sept millions de mètres
cubes d’eau potable à quarante-huit mille foyers. La consommation moyenne a légèrement baissé : chaque
habitant a utilisé cent vingt et un litres par jour, contre cent vingt-cinq l’année précédente.

Cette baisse s’explique d’abord par un été pluvieux, mais aussi par les efforts des ménages. La campagne
« Chaque goutte compte », lancée au printemps, a encouragé les familles à réparer les fuites et à choisir
des appareils plus économes. Le service a reçu plus de quatre cents appels de conseil, et le cœur du
réseau, long de trois cents kilomètres, a été surveillé jour et nuit.

Le conseil d’administration a voté une hausse modérée du tarif : la part fixe augmente de trois pour
cent, tandis que le prix du premier mètre cube reste inchangé afin de protéger les foyers modestes.""",
    """# Travaux et entretien

Les équipes ont remplacé quatorze kilomètres de conduites en fonte et renouvelé plus de deux mille
branchements. À l’usine de traitement de la Côte, le second filtre à sable a été reconstruit et le
système de chloration a été modernisé. Le réservoir du Chêne a été vidé, inspecté et nettoyé en octobre
sans aucune coupure pour les abonnés.

L’année prochaine, le service prévoit d’investir neuf millions d’euros. La priorité sera donnée au
remplacement des derniers branchements en plomb, à la construction d’une station de pompage et à un essai
de compteurs communicants dans deux mille logements. Nous remercions nos agents pour leur travail et nos
abonnés pour leur confiance : ce réseau rénové est l’œuvre de toute une équipe, et ça se voit.""",
]

_CHART_TEXT = """# Reservoir levels this spring

The three reservoirs that supply the city held more water this spring than in any of the last five years.
Heavy rain in February filled the upper reservoir to its spillway, and careful release of water from the
lower reservoirs kept the river within its banks. The chart below shows how full each reservoir was at the
end of April, as a share of its capacity. Engineers expect the levels to fall slowly through the summer,
and no restrictions on the use of water are planned for the year."""

_CHART_LABELS = ("Storage at the end of April", "Upper", "Middle", "Lower")

_MEMO = """# Memo: meter readings

To all field staff. From Monday the meter readings for the eastern district will be taken on the first
working day of each month instead of the last. Please bring the new handheld readers to the depot on
Friday afternoon so that they can be loaded with the updated routes. Questions go to the metering office."""

_NOTES = """Notes from the tariff review meeting, 12 March 2024
====================================================

Present: Zoë Martín (finance), Jürgen Weiß (network), Anaïs Lefèvre (customer service), and two
members of the residents’ panel.

The panel asked why the standing charge rises by 3 % while the first-block rate stays at €1.48 per m³.
Zoë explained that the fixed costs of the network (pumping, treatment, meter reading) no longer fall
with consumption, whereas the first block is kept low so that essential use stays affordable.

Jürgen reported that leakage is down to 14 % after the mains renewal in the Old Town — the best result
in a decade. The smart-metering trial (2,000 homes) starts in September; the café on Mill Lane has
volunteered to host the information evenings.

Actions: Anaïs to draft the customer letter in plain language (“what changes for me?”), Jürgen to
publish the leakage map, Zoë to circulate the final tariff table before the board meets.
"""


def _corrupt_pdf_bytes(size: int = 4096) -> bytes:
    """``%PDF-1.7`` followed by deterministic junk in which no PDF keyword can occur."""
    junk = bytearray()
    block = b"assay corrupt demo"
    while len(junk) < size:
        block = hashlib.sha256(block).digest()
        junk += block
    data = bytes(junk[:size])
    for keyword in (b"obj", b"trailer", b"xref", b"stream", b"%%EOF"):
        data = data.replace(keyword, b"\x00" * len(keyword))
    return b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + data


# (name, expect, expected_status) in the order the files are written.
DEMO_FILES: tuple[tuple[str, str, str], ...] = (
    (
        "born-digital.pdf",
        "derived: born-digital text layer, 3 pages of English prose, a title, headings and a ruled "
        "4×4 table on page 2",
        "derived",
    ),
    (
        "scanned.pdf",
        "underivable: 2 pages that are only page images, no text layer, so both PDF readers produce "
        "nothing; OCR will read it",
        "underivable",
    ),
    (
        "garbled-font.pdf",
        "derived: a text layer of valid Unicode that spells nothing (the font's ToUnicode maps each "
        "glyph to the next letter); verdicts should call it garbage and replace it",
        "derived",
    ),
    (
        "french.pdf",
        "derived: born-digital French with accents, œ and guillemets, 2 pages",
        "derived",
    ),
    (
        "chart.pdf",
        "derived: a born-digital page with a bar chart that is only an image; the page is FIGURES and OCR "
        "transcribes the chart's labels under the page's text",
        "derived",
    ),
    (
        "memo-scan.png",
        "underivable: a scanned memo saved as a PNG, fed sideways (rotated 90°); no text layer to read, so "
        "OCR reads it after turning it upright",
        "underivable",
    ),
    ("notes.txt", "derived: UTF-8 plain text with non-ASCII characters", "derived"),
    (
        "empty.txt",
        "underivable: an empty file (0 bytes); the text reader ran and produced nothing",
        "underivable",
    ),
    ("corrupt.pdf", "error: starts like a PDF, the rest is junk, so every PDF reader fails", "error"),
)


def write_demo_corpus(folder: Path) -> list[DemoFile]:
    """Write the nine demo files into ``folder`` (created if missing, files overwritten) and describe
    them. The same PyMuPDF version writes identical bytes on every call."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    make_text_pdf(folder / "born-digital.pdf", _REPORT_PAGES, title=_REPORT_TITLE, tables={1: _REPORT_TABLE})
    make_image_only_pdf(folder / "scanned.pdf", _SCAN_PAGES)
    make_garbled_pdf(folder / "garbled-font.pdf", _GARBLED_TEXT)
    make_text_pdf(folder / "french.pdf", _FRENCH_PAGES, title=_FRENCH_TITLE)
    make_figure_pdf(folder / "chart.pdf", _CHART_TEXT, _CHART_LABELS)
    make_scan_image(folder / "memo-scan.png", _MEMO, rotate=90)
    _write_atomic(folder / "notes.txt", _NOTES.encode("utf-8"))
    _write_atomic(folder / "empty.txt", b"")
    _write_atomic(folder / "corrupt.pdf", _corrupt_pdf_bytes())
    return [
        DemoFile(name=name, path=folder / name, expect=expect, expected_status=status)
        for name, expect, status in DEMO_FILES
    ]
