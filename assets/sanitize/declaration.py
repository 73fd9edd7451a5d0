"""The sanitize stage's declaration: one clean text per document, and what was taken out of it."""

from __future__ import annotations

from assets.planner import newer_input
from assets.stages import Stage
from warehouse import Warehouse

WRITES = ("unsanitized", "texts", "redactions", "hidden_text", "clean_tables", "furniture")


def same_rules(wh: Warehouse, source: str, shard: str) -> bool:
    """The earlier version ``source`` sanitized the shard with the rules of today
    (``texts.sanitize_version``): otherwise its clean texts, and the chunks cut from them, are made again
    from the carried page texts, so that a change of the rules (what personal data they redact, in hidden
    text and furniture too) reaches every shard without reading or OCRing it again."""
    from quality.sanitizer import SANITIZE_VERSION

    rules = wh.read("texts", source, shard, columns=("sanitize_version",)).column(0).to_pylist()
    return all(r == SANITIZE_VERSION for r in rules)


STAGE = Stage(
    "sanitize",
    after=("ocr",),
    reads=("documents", "page_texts", "page_verdicts", "pages", "tables"),
    writes=WRITES,
    partitioned=True,
    stale=newer_input("page_texts", WRITES),
    counted="texts",
    asset="assets.sanitize.asset:sanitize",
    group="publish",
    description="One markdown text per document (texts), normalised, without invisible text "
    "(hidden_text), running headers and footers (furniture) or personal data (redactions: kind, page "
    "and offsets, never the value); its tables as data with the same placeholders (clean_tables); a "
    "long text in a worker under the per-document budget, a "
    "document it could not sanitize in unsanitized.",
    job="One clean text per document of a range of shards: hidden text, furniture and personal data out.",
    checked=("texts",),
    carried=same_rules,
    unit="shards",
)
