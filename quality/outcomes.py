"""What each document finally yielded, after every stage: its one **outcome**.

``derivations`` says what the readers did (a scan is ``underivable`` there: no text layer); the verdicts,
the repairs and OCR may still give its pages text. The outcome says what the document ends with, and it is
the one answer the run summary, ``assay check``, the rate checks, the quality report and
``version_diff_rates`` give. It is computed in one place, the SQL of the ``outcomes`` view
(``warehouse/outcome_query.py``), from ``derivations`` and ``page_texts``; this module holds its
vocabulary and its row.

The rules, in order (the first that applies):

1. **what the readers could not try is final**: a derivation ``error``, ``unsupported`` or ``skipped`` is
   the outcome, with the derivation's reason (no page of such a document reaches the verdicts or OCR);
2. **a text sanitize could not make is an error**: a document whose pages end with text that sanitize
   could not make a clean text of (an ``unsanitized`` row: over the per-document budget, or failed) is
   ``error``, its reason ``sanitize_error:<why>`` (``:timeout``, ``:memory``, ``:worker_died``, ``:error``);
3. **no final text is underivable**: a document whose judged pages all end without text
   (``page_texts.source = 'none'``), or that has no judged page and a derivation ``underivable``, is
   ``underivable``; the reason is the first page's that says why (``ocr_underivable:no_text``,
   ``ocr_error:timeout``, ``ocr_not_run``...), else the derivation's (``empty_text``), else ``blank``;
   so is a document whose pages end with text of which sanitize left nothing (no ``texts`` row, and
   ``hidden_text`` or ``furniture`` rows saying what it took): its reason ``all_text_removed:<tables>``
   (``all_text_removed:hidden_text``: every line was invisible text, which is never used);
4. **the furthest stage any page's final text came from**, of reader, fallback reader, repair and OCR:
   ``ocr`` when some page's final text is OCR's (figure transcriptions beside a text layer do not count:
   that page's text is the layer's), else ``repaired`` when some page's is a font repair, else
   ``fallback`` when some page's is the fallback reader's or the derivation was recovered by fallback,
   else ``derived``. A document whose pages have not been judged yet (the verdicts or OCR have not run on
   its shard) is ``derived`` or ``fallback`` as its derivation says.

The two rates of a content kind are of these outcomes (``quality/rates.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from readers.core.columns import KEY, Annotated, Count, Doc, OneOf
from readers.core.model import ContentKind, DocumentStatus
from readers.core.reading_records import Sha256, Shard, Version


class DocumentOutcome(StrEnum):
    """What a document finally yielded (the module's rules say which applies)."""

    DERIVED = "derived"  # its text is the first reader's text layer
    FALLBACK = "fallback"  # some of it is a fallback reader's
    REPAIRED = "repaired"  # some of it is a font repair's
    OCR = "ocr"  # some of it is OCR's
    UNDERIVABLE = "underivable"  # read, or sent to OCR, and nothing gave it text
    ERROR = "error"
    UNSUPPORTED = "unsupported"
    SKIPPED = "skipped"


#: The derivation statuses that are the outcome as they are: no stage after extract reads such a document.
FINAL_STATUSES = frozenset({DocumentStatus.ERROR, DocumentStatus.UNSUPPORTED, DocumentStatus.SKIPPED})
#: The outcomes of a document that ends with text.
WITH_TEXT = frozenset(
    {DocumentOutcome.DERIVED, DocumentOutcome.FALLBACK, DocumentOutcome.REPAIRED, DocumentOutcome.OCR}
)
#: The outcomes of a document something was tried on: the Underivable rate's denominator.
ATTEMPTED = WITH_TEXT | {DocumentOutcome.UNDERIVABLE, DocumentOutcome.ERROR}
#: The reason of a document whose pages end with text that sanitize took all of, before what took it.
ALL_TEXT_REMOVED = "all_text_removed:"
#: The reason of a document whose pages' text sanitize could not make a clean text of, before why.
SANITIZE_ERROR = "sanitize_error:"


@dataclass(frozen=True, slots=True)
class OutcomeRecord:
    """One row of the ``outcomes`` view."""

    sha256: Annotated[Sha256, KEY]
    shard: Shard
    extractor_version: Annotated[Version, KEY]
    kind: Annotated[str, Doc("content kind"), OneOf.of(ContentKind)]
    path: Annotated[str | None, Doc("one path the bytes were seen at (documents.path)")]
    outcome: Annotated[
        str,
        Doc(
            "what the document finally yielded: derived, fallback, repaired, ocr (text, by the furthest "
            "stage any page's final text came from), underivable (no final text), error, unsupported or "
            "skipped (as the derivation says); quality/outcomes.py has the rules"
        ),
        OneOf.of(DocumentOutcome),
    ]
    reason: Annotated[
        str | None,
        Doc(
            "why there is no text: the derivation's reason (error, unsupported, skipped; empty_text), or "
            "the first page's (ocr_underivable:no_text, ocr_error:<reason>, ocr_not_run), or what sanitize "
            "took out when it left no clean text (all_text_removed:hidden_text, :furniture), or why it could "
            "not make one (sanitize_error:timeout, :memory, :worker_died, :error); text_capped:<N> "
            "when the derivation kept only part of the text; null otherwise"
        ),
    ]
    derivation_status: Annotated[
        str, Doc("what the readers did: derivations.status"), OneOf.of(DocumentStatus)
    ]
    pages: Annotated[Count, Doc("judged pages (page_texts rows); 0 before the verdicts and OCR have run")]
    pages_with_text: Annotated[Count, Doc("judged pages that end with text")]
    pages_ocr: Annotated[Count, Doc("judged pages whose final text is OCR's")]


def has_text(outcome: str) -> bool:
    return outcome in WITH_TEXT


def describe(outcome: str) -> str:
    """The outcome as a person reads it: "derived by OCR", "underivable"..."""
    return {
        DocumentOutcome.DERIVED: "derived",
        DocumentOutcome.FALLBACK: "derived by a fallback reader",
        DocumentOutcome.REPAIRED: "derived by a font repair",
        DocumentOutcome.OCR: "derived by OCR",
    }.get(DocumentOutcome(outcome), outcome)
