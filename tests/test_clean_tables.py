"""A document's tables as data, sanitized beside its text (``clean_tables``): each personal datum of a cell
is the placeholder the document's text gives it, as far as ``redact_kinds`` asks, and a document whose
sanitize is stopped gets no clean table."""

from __future__ import annotations

from pathlib import Path

from assets.budgeted import BudgetedWork
from assets.settings import Settings
from quality.pii import PlaceholderBook, Scrubber
from quality.pii_findings import PiiKind
from quality.records import PageTextRecord
from quality.sanitizer import SanitizeJob, clean_cells, sanitize_document
from readers.core.model import ContentKind
from readers.core.reading_records import TableRecord
from readers.pdf.placed_tables import gfm
from tests.test_stage_budgets import _prose

SHA = "d" * 64
# A valid BSN (the 11-test), found only with its label: here the label is the cell before it.
BSN = "111222333"
CELLS = [
    ["Holder", "Contact", "Telephone"],
    ["North field", "jane@corp.com", "+44 20 7946 0958"],
    ["South field", "ops@water.org", "none"],
    ["BSN", BSN, ""],
]
PROSE = "Questions about the levy go to ops@water.org, the district's office.\n\n"


def _page(text: str, page: int = 1) -> PageTextRecord:
    return PageTextRecord(
        SHA, "dd", "v", page, "TEXT", "extracted", None, "pymupdf", "1", 1.0, None, len(text), text, None
    )


def _table(cells: list[list[str]], table: int = 0, page: int = 1) -> TableRecord:
    return TableRecord(
        SHA, "dd", "v", table, page, 72.0, 90.0, 400.0, 200.0, len(cells), len(cells[0]), 1,
        cells, gfm(cells), "ruled", 0.9, "rules=4",
    )  # fmt: skip


def test_a_cell_holds_the_placeholder_the_text_gives_its_datum() -> None:
    text = PROSE + gfm(CELLS) + "\n\nAll holders were told in writing.\n"
    out = sanitize_document(SHA, "dd", "v", [_page(text)], {}, Scrubber(), paged=True, tables=[_table(CELLS)])
    assert out.text is not None
    (clean,) = out.tables
    # ops@water.org is met first in the prose: ⟨EMAIL_1⟩ in the text, in the cell and in the markdown
    assert clean.cells == [
        ["Holder", "Contact", "Telephone"],
        ["North field", "⟨EMAIL_2⟩", "⟨PHONE_1⟩"],
        ["South field", "⟨EMAIL_1⟩", "none"],
        ["BSN", "⟨NATIONAL_ID_1⟩", ""],
    ]
    assert clean.redactions == 4
    assert "Questions about the levy go to ⟨EMAIL_1⟩," in out.text.text
    assert clean.markdown in out.text.text and clean.markdown == gfm(clean.cells)
    assert (clean.sha256, clean.extractor_version, clean.table, clean.page) == (SHA, "v", 0, 1)
    assert clean.header_rows == 1
    # alone, the number has no label: the cells are read as the text's rows, not one by one
    assert Scrubber().scrub(BSN, PlaceholderBook()).redactions == []


def test_tables_of_a_document_share_its_placeholders_across_pages_and_tables() -> None:
    first = [["Name", "Address"], ["Jane", "jane@corp.com"]]
    second = [["Address", "Role"], ["ops@water.org", "office"], ["jane@corp.com", "holder"]]
    pages = [_page(gfm(first), 1), _page(PROSE + gfm(second), 2)]
    tables = [_table(second, 1, 2), _table(first, 0, 1)]
    out = sanitize_document(SHA, "dd", "v", pages, {}, Scrubber(), paged=True, tables=tables)
    assert out.text is not None and out.text.text.count("⟨EMAIL_1⟩") == 2
    assert [t.table for t in out.tables] == [0, 1]
    assert out.tables[0].cells[1] == ["Jane", "⟨EMAIL_1⟩"]
    assert out.tables[1].cells[1:] == [["⟨EMAIL_2⟩", "office"], ["⟨EMAIL_1⟩", "holder"]]


def test_the_redact_kinds_asked_for_are_the_only_ones_taken_out_of_the_cells() -> None:
    text = gfm(CELLS)
    phones = Scrubber(frozenset({PiiKind.PHONE}))
    out = sanitize_document(SHA, "dd", "v", [_page(text)], {}, phones, paged=False, tables=[_table(CELLS)])
    (clean,) = out.tables
    assert clean.cells[1] == ["North field", "jane@corp.com", "⟨PHONE_1⟩"] and clean.redactions == 1
    assert out.text is not None and "jane@corp.com" in out.text.text
    # no kind switched on: the cells as they are, normalised (a ligature expanded), as the text is
    ligature = [["Oﬃce", "Contact"], ["North", "jane@corp.com"]]
    out = sanitize_document(
        SHA, "dd", "v", [_page(gfm(ligature))], {}, None, paged=False, tables=[_table(ligature)]
    )
    assert out.tables[0].cells == [["Office", "Contact"], ["North", "jane@corp.com"]]
    assert out.tables[0].redactions == 0


def test_cells_whose_rows_cannot_be_split_again_are_scrubbed_one_by_one() -> None:
    book = PlaceholderBook()
    scrubber = Scrubber()
    cells, count = clean_cells([["a | b", "jane@corp.com"], ["x", "ops@water.org"]], scrubber, book)
    assert cells == [["a | b", "⟨EMAIL_1⟩"], ["x", "⟨EMAIL_2⟩"]] and count == 2
    assert clean_cells([["", "ops@water.org", ""]], scrubber, book) == ([["", "⟨EMAIL_2⟩", ""]], 1)


def test_a_document_whose_sanitize_is_stopped_gets_no_clean_table(tmp_path: Path) -> None:
    settings = Settings(home=str(tmp_path / "home"), read_timeout_s=0.02)
    text = _prose(200_000) + "\n\n" + gfm(CELLS)
    job = SanitizeJob(
        SHA, "dd", "v", [_page(text)], {}, Scrubber(), False, {}, ContentKind.TEXT, [_table(CELLS)]
    )
    with BudgetedWork(settings, in_worker_chars=100_000) as work:
        (stopped,) = work.run([job])
    assert stopped.stopped is not None and stopped.stopped.reason == "timeout"
    assert stopped.text is None and stopped.tables == []
