"""The tables of the SQL surface (DESIGN §5): every column with its Arrow type and its meaning.

This module is the public contract. ``docs/tables.md`` is generated from it (``python -m warehouse.schema``)
and a test keeps the two, and the row dataclasses the stages write, in step.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pyarrow as pa


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: pa.DataType
    doc: str


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    one_row_per: str
    sharded: bool
    columns: tuple[Column, ...]

    @property
    def schema(self) -> pa.Schema:
        return pa.schema(
            [pa.field(c.name, c.type, metadata={"doc": c.doc}) for c in self.columns],
            metadata={"table": self.name},
        )

    def empty(self) -> pa.Table:
        """No rows, this schema. (pyarrow's ``Schema.empty_table`` imports pandas: half a second.)"""
        schema = self.schema
        return pa.Table.from_arrays([pa.nulls(0, f.type) for f in schema], schema=schema)

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


S, I64, F64, B, TS = pa.string(), pa.int64(), pa.float64(), pa.bool_(), pa.timestamp("us", tz="UTC")

# The columns every sharded table of a stage carries (a stage's own tables use them too).
VERSION_COLUMN = Column("extractor_version", S, "extractor version that wrote the row (also a path level)")
SHARD_COLUMN = Column("shard", S, "first two hex digits of sha256: the partition the row belongs to")
SHA256_COLUMN = Column("sha256", S, "sha256 of the document's bytes: the document's identity")

OBSERVATIONS = Table(
    "observations",
    "path seen by a walk (the latest walk of its root)",
    sharded=False,
    columns=(
        Column("root", S, "configured root the path was found under (absolute)"),
        Column("path", S, "absolute path of the file as seen (symlinks not resolved)"),
        Column("rel_path", S, "path relative to its root"),
        Column(
            "status",
            S,
            "ok, unreadable, vanished, too_large, changed_while_hashed, symlink_outside_root, not_a_file",
        ),
        Column("reason", S, "why the status is not ok (the OS error, the size limit...); null when ok"),
        Column("sha256", S, "content hash; null when the file could not be hashed"),
        Column("shard", S, "first two hex digits of sha256; null when not hashed"),
        Column("size", I64, "size in bytes from stat"),
        Column("mtime_ns", I64, "modification time in nanoseconds from stat"),
        Column("kind", S, "content kind sniffed from the leading bytes, else the extension"),
        Column("kind_source", S, "which evidence decided the kind: bytes, extension or none"),
        Column("hashed", B, "true when this walk hashed the file, false when the size+mtime cache answered"),
        Column("seen_at", TS, "when the walk saw the path"),
        VERSION_COLUMN,
    ),
)

DOCUMENTS = Table(
    "documents",
    "distinct content: identical bytes are one document",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        Column("kind", S, "content kind (see observations.kind)"),
        Column("kind_source", S, "bytes, extension or none"),
        Column("size", I64, "size in bytes"),
        Column(
            "parent_sha256",
            S,
            "the container (e-mail, zip) this document was taken from; null for files on disk (bytes that "
            "are a file and also attached somewhere are one document: the file)",
        ),
        Column(
            "member",
            S,
            "name inside its parent: the attachment's file name (made unique) or the archive member's path; "
            "null for files on disk",
        ),
        Column(
            "path",
            S,
            "one path where the bytes were seen (the first in sort order; all are in observations); for a "
            "member, where the walk stored its bytes (warehouse/blobs/<ss>/<sha256>)",
        ),
        VERSION_COLUMN,
    ),
)

EXPANSIONS = Table(
    "expansions",
    "container document (e-mail, zip, PDF) and what the latest walk made of its members",
    sharded=False,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        Column("kind", S, "content kind of the container: eml, msg, zip or pdf"),
        Column(
            "status",
            S,
            "expanded (its members are listed; those not already documents are its children in documents), "
            "error (no children: see reason) or not_opened (max_nesting deep: its members are not looked at)",
        ),
        Column(
            "reason",
            S,
            "why there are no children: over_limit (the container or its whole tree is over a bound), "
            "corrupt, encrypted, unreadable, timeout, memory, worker_died, expansion_crashed:<exception>, "
            "max_nesting; null when expanded",
        ),
        Column("detail", S, "the bound, the error or the budget, for people; null when expanded"),
        Column("members", I64, "members listed (0 unless expanded)"),
        Column("member_bytes", I64, "bytes of the members listed, inflated (0 unless expanded)"),
        Column("member_names", pa.list_(S), "each member's name, in the order listed; empty unless expanded"),
        Column(
            "member_sha256s",
            pa.list_(S),
            "each member's sha256, in the same order: its children, and members whose bytes are a file on "
            "disk or another container's member (one document each); empty unless expanded. A later walk "
            "reuses the listing, without opening the container, while each of them is still there",
        ),
        Column(
            "bounds", S, "the bounds the outcome was reached under; a later walk under others opens it again"
        ),
        VERSION_COLUMN,
    ),
)

DERIVATIONS = Table(
    "derivations",
    "document and extractor version",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("kind", S, "content kind the readers were chosen for"),
        Column("status", S, "derived, underivable, unsupported, error or skipped"),
        Column(
            "reason",
            S,
            "why the status is not derived (encrypted, corrupt, empty_text, "
            "no_reader:<kind>, too_large...); null when derived",
        ),
        Column("reader", S, "reader that produced the text; null when none did"),
        Column("reader_version", S, "that reader's version: its own revision + the library's version"),
        Column("reader_chain", S, "the ordered readers for the kind with their versions, as tried"),
        Column("recovered_by_fallback", B, "true when a reader other than the first produced the text"),
        Column("attempts", I64, "how many readers were tried"),
        Column("pages", I64, "pages in the derived text (1 for documents without pages)"),
        Column("chars", I64, "characters of the derived text, raw"),
        Column("encoding", S, "text encoding decided for text kinds"),
        Column(
            "encoding_source",
            S,
            "how the encoding was decided: bom, nul_share, utf8, detected, fallback; for HTML and e-mail "
            "also transport (the MIME part's charset), declared (the document's own declaration) and "
            "declared_lie (a declaration the bytes contradict, overruled by detection)",
        ),
        Column(
            "carried_from",
            S,
            "extractor version this row was carried over from, unchanged, because "
            "the kind's readers did not change; null when read under this version",
        ),
        Column("duration_ms", F64, "wall time of the read, all attempts"),
        Column("derived_at", TS, "when the document was read"),
    ),
)

UNDERIVABLES = Table(
    "underivables",
    "attempt that produced nothing",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("attempt", I64, "position of the reader in the kind's chain, 1-based"),
        Column("tool", S, "reader that was tried"),
        Column("tool_version", S, "version of the library underneath"),
        Column("reader_version", S, "the reader's own version"),
        Column(
            "reason",
            S,
            "stable code: empty_text, encrypted, corrupt, empty_file, over_limit, "
            "reader_crashed:<exception>...",
        ),
        Column("detail", S, "the message, for people"),
    ),
)

PAGES = Table(
    "pages",
    "page of a PDF, or the whole of any other derived document",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("page", I64, "page number, 1-based"),
        Column("reader", S, "reader that produced this text"),
        Column("reader_version", S, "that reader's version"),
        Column(
            "text",
            S,
            "the page's text as the reader produced it (markdown for PDFs), raw; empty on the pages of an "
            "underivable document, which are kept for their facts (the verdicts send them to OCR)",
        ),
        Column("chars", I64, "characters of text"),
        Column("width", F64, "page width in points (0 for documents without pages)"),
        Column("height", F64, "page height in points (0 for documents without pages)"),
        Column("fonts", I64, "distinct fonts used by the page's text"),
        Column("font_names", pa.list_(S), "those fonts' names"),
        Column("images", I64, "image placements on the page"),
        Column("drawings", I64, "vector drawing paths on the page"),
        Column("tables", I64, "tables found and written as GFM"),
        Column("headings", I64, "heading lines written as markdown headings"),
        # Signals (quality/text_signals.py, readers/pdf/facts.py): facts about the raw text, not decisions.
        Column(
            "bad_rune_ratio",
            F64,
            "U+FFFD, control, private-use and unassigned characters over "
            "non-whitespace characters, on the raw text",
        ),
        Column("cid_count", I64, "(cid:N) passthroughs: glyphs a decoder could not map"),
        Column("cid_ratio", F64, "characters inside (cid:N) passthroughs over non-whitespace characters"),
        Column("glued_ratio", F64, "share of letters in very long letter runs the lexicon splits into words"),
        Column("spaced_ratio", F64, "share of letters in letter-spaced runs (H e r e i s)"),
        Column("language", S, "best language by character-trigram profile; null when none matches"),
        Column("language_similarity", F64, "cosine similarity to that language's trigram profile"),
        Column("lexicon_language", S, "lexicon the page was judged with; null when no judging lexicon"),
        Column("lexicon_hit_rate", F64, "length-weighted share of prose-gated tokens found in the lexicon"),
        Column("lexicon_weight", F64, "evidence weight behind the hit rate (sum of letters minus three)"),
        Column("lexicon_judged", B, "enough evidence to judge; false means the lexicon abstained"),
        Column("prose_blocks", I64, "blocks that passed the prose gate"),
        Column("blocks", I64, "text blocks on the page"),
        Column("image_coverage", F64, "union of image placements over the page area"),
        Column("largest_image_share", F64, "largest single image placement over the page area"),
        Column("vector_figure_area", F64, "share of the page covered by vector figures (not furniture)"),
        Column("outline_text_paths", I64, "glyph-like filled paths: text drawn as outlines"),
        Column(
            "invisible_chars",
            I64,
            "characters drawn invisibly (render mode 3/7, zero alpha, tiny, "
            "outside the crop box, or in the background colour)",
        ),
        Column("invisible_share", F64, "invisible characters over non-whitespace characters"),
        Column("ocr_font_hint", B, "a font typical of OCR text layers (GlyphLessFont...) is used"),
        Column(
            "hidden_text",
            pa.list_(S),
            "the page's invisible runs of text, in reading order (adjacent spans of a line with the same "
            "reason are one run); still in `text`, which is raw; empty for readers that cannot tell "
            "(everything but PDFs); null in rows of extractor versions before the column",
        ),
        Column(
            "hidden_why",
            pa.list_(S),
            "why each run of hidden_text is invisible, pairwise: render_mode (render mode 3, how OCR layers "
            "are drawn), alpha (zero opacity, render mode 7), tiny (under 4 pt), pale (white on its own "
            "background), outside_crop (outside the crop box: not in `text` at all)",
        ),
    ),
)

PAGE_FONTS = Table(
    "page_fonts",
    "font used on a page, with the lexicon evidence of the text drawn in it",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("page", I64, "page number, 1-based"),
        Column("font", S, "font name as the PDF names it"),
        Column("chars", I64, "non-whitespace characters drawn in the font"),
        Column("weight", F64, "judgeable lexicon evidence weight of its tokens"),
        Column("hits", F64, "weight of its tokens found in the lexicon"),
    ),
)

PAGE_VERDICTS = Table(
    "page_verdicts",
    "page and extractor version: what the page's text is worth, and why",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("page", I64, "page number, 1-based"),
        Column("mode", S, "TEXT, FIGURES, REPLACE, REPAIRED, LANG or BLANK"),
        Column(
            "reasons",
            pa.list_(S),
            "reason codes: no_text_layer, lexicon_low, bad_runes, "
            "cid_passthrough, font_garbled:<font>, image_cover, ocr_sandwich, doc_prior...",
        ),
        Column("provenance", S, "born_digital, raw_scan or ocr_sandwich"),
        Column("language", S, "language of the page's text, when one matched"),
        Column("score", F64, "the lexicon hit rate the decision used; null when the lexicon abstained"),
        Column("threshold", F64, "the threshold that score was held against"),
        Column(
            "text_source",
            S,
            "where the page's final text comes from: extracted, fallback, repaired, ocr or none",
        ),
        Column("verdicts_version", S, "version of the verdict rules"),
    ),
)

FONT_VERDICTS = Table(
    "font_verdicts",
    "font of a document: the per-font evidence across its pages",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("font", S, "font name"),
        Column("pages", I64, "pages the font is used on"),
        Column("chars", I64, "non-whitespace characters drawn in it"),
        Column("weight", F64, "judgeable lexicon evidence weight"),
        Column("hit_rate", F64, "length-weighted lexicon hit rate of its tokens"),
        Column("abstained_share", F64, "share of its characters on pages where the lexicon abstained"),
        Column("garbled", B, "the font scores as garbled: its text is condemned where pages cannot judge"),
    ),
)

REPAIRS = Table(
    "repairs",
    "page whose garbage text was replaced without OCR: by the fallback reader or a font repair",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("page", I64, "page number, 1-based"),
        Column("method", S, "fallback_reader, shift, codepoint_shift or permutation"),
        Column("tool", S, "the reader or repair that produced the text"),
        Column("tool_version", S, "its version"),
        Column("mapping", S, "for font repairs: the character mapping applied, as JSON; null otherwise"),
        Column("score", F64, "lexicon hit rate of the new text"),
        Column("text", S, "the new text of the page"),
    ),
)

OCR_PAGES = Table(
    "ocr_pages",
    "page sent to OCR",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("page", I64, "page number, 1-based (the frame of a multi-page image)"),
        Column(
            "scope",
            S,
            "page (the whole page, mode REPLACE, or an image document's frame) or figures (the figure "
            "regions of a FIGURES page, rendered without the text layer)",
        ),
        Column("regions", I64, "figure regions read (scope figures); 1 for a whole page"),
        Column(
            "status",
            S,
            "derived, underivable (OCR read nothing, or only what it could not read: illegible, "
            "no_data:<script>), or error (timeout, engine_error, unavailable, render_failed, or "
            "over_budget:pages / over_budget:seconds: never sent to Tesseract, its document had spent its "
            "OCR budget of ocr_max_pages_per_document pages or ocr_document_timeout_s seconds)",
        ),
        Column("reason", S, "why the status is not derived; null when derived"),
        Column("engine", S, "tesseract"),
        Column("engine_version", S, "its version"),
        Column("language", S, "Tesseract language(s) used, from the document's language or the default"),
        Column(
            "language_source",
            S,
            "document (the language detected in its text), configured (no language detected), or "
            "no_data:<code> (the detected language has no Tesseract data installed; the default was used)",
        ),
        Column("dpi", I64, "resolution the page was rendered at"),
        Column("rotation", I64, "clockwise degrees applied to make the page upright (orientation detection)"),
        Column("script", S, "the writing system orientation detection found (Latin, Hebrew...), when sure"),
        Column("confidence", F64, "mean word confidence, 0-100; null when no word was read"),
        Column("confidence_p10", F64, "10th percentile of the word confidences: the worst-read words"),
        Column("confidence_p50", F64, "median word confidence"),
        Column(
            "low_confidence_words",
            I64,
            "words read with a confidence under 85 (on the evaluation corpus, a third of them misread)",
        ),
        Column("words", I64, "words read"),
        Column("chars", I64, "non-whitespace characters read"),
        Column(
            "seconds",
            F64,
            "wall time of the page's rendering and recognition (not its wait for a free Tesseract thread)",
        ),
        Column(
            "text",
            S,
            "the text read; null when nothing was read (never an empty text); kept for inspection when the "
            "page was judged illegible, but never used as the page's text",
        ),
    ),
)

PAGE_TEXTS = Table(
    "page_texts",
    "judged page: the text it ends with and where that text came from (quality/sources.py)",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("page", I64, "page number, 1-based"),
        Column("mode", S, "the page's verdict"),
        Column(
            "source",
            S,
            "extracted, fallback (the fallback reader's text), repaired, ocr, extracted+figures (the text "
            "plus the OCR of its figure regions under a `## Page N (transcribed figures)` heading) or none",
        ),
        Column(
            "reason",
            S,
            "why there is no text (source none): blank, ocr_underivable:no_text, ocr_error:<reason> "
            "(ocr_error:over_budget:pages past its document's OCR budget), ocr_not_run; null otherwise",
        ),
        Column("tool", S, "the reader, repair or OCR engine the text came from"),
        Column("tool_version", S, "its version"),
        Column(
            "trust",
            F64,
            "0-1: 1 for a clean text layer, 0.9 for repaired, fallback or OCR-layer text, the mean word "
            "confidence / 100 for OCR; null when there is no text",
        ),
        Column("ocr_confidence", F64, "mean OCR word confidence, 0-100, when OCR contributed"),
        Column("chars", I64, "non-whitespace characters of the text"),
        Column("text", S, "the page's final text, raw (sanitize normalises it); null when there is none"),
    ),
)

TEXTS = Table(
    "texts",
    "derived document: its clean text (quality/sanitize.py), with where each page starts",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column(
            "text",
            S,
            "markdown: the pages' final texts normalised, hidden text, running headers and "
            "footers and personal data taken out, pages joined by a blank line",
        ),
        Column("chars", I64, "non-whitespace characters"),
        Column("pages", pa.list_(I64), "the pages that have text, in order"),
        Column("page_starts", pa.list_(I64), "offset in text where each of pages starts"),
        Column("page_sources", pa.list_(S), "where each page's text came from (page_texts.source)"),
        Column("redactions", I64, "personal data replaced by placeholders (rows in redactions)"),
        Column("hidden_removed", I64, "invisible runs removed (rows in hidden_text)"),
        Column("furniture_removed", I64, "running header and footer lines removed (rows in furniture)"),
        Column("sanitize_version", S, "version of the sanitize rules"),
    ),
)

REDACTIONS = Table(
    "redactions",
    "personal datum removed from a text (never its value)",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("page", I64, "page it stood on"),
        Column("kind", S, "email, phone, card, iban, ip, national_id, vat"),
        Column("scheme", S, "for national_id: which identifier (quality/pii.py IdScheme)"),
        Column("start", I64, "offset of the placeholder in texts.text"),
        Column("end", I64, "end offset (exclusive) of the placeholder"),
        Column("placeholder", S, "the placeholder, stable within the document (⟨EMAIL_1⟩)"),
    ),
)

HIDDEN_TEXT = Table(
    "hidden_text",
    "run of invisible text taken out of a page (not an OCR layer)",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("page", I64, "page number, 1-based"),
        Column("why", S, "render_mode, alpha, tiny, pale (white on its own background) or outside_crop"),
        Column("text", S, "the invisible text, its personal data as the text's placeholders (⟨EMAIL_1⟩)"),
        Column("found", B, "the run was found in the page's text and removed"),
    ),
)

FURNITURE = Table(
    "furniture",
    "running header or footer line taken out of a page",
    sharded=True,
    columns=(
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("page", I64, "page number, 1-based"),
        Column("band", S, "top or bottom"),
        Column("text", S, "the line as it stood, its personal data as the text's placeholders (⟨EMAIL_1⟩)"),
    ),
)

CHUNKS = Table(
    "chunks",
    "retrieval-sized piece of a text, with its evidence (quality/chunking.py)",
    sharded=True,
    columns=(
        Column("chunk_id", S, "deterministic id: a hash of the document, the offsets and the text"),
        SHA256_COLUMN,
        SHARD_COLUMN,
        VERSION_COLUMN,
        Column("ordinal", I64, "position in the document, from 0"),
        Column("start", I64, "offset of the chunk in texts.text, overlap included"),
        Column("end", I64, "end offset (exclusive) in texts.text"),
        Column("overlap", I64, "leading characters repeated from the previous chunk"),
        Column("heading_path", pa.list_(S), "the headings the chunk stands under, outermost first"),
        Column("page_start", I64, "first page"),
        Column("page_end", I64, "last page"),
        Column(
            "page_offsets",
            pa.list_(I64),
            "where in text each page from page_start to page_end begins (a page without text here has the "
            "next page's offset)",
        ),
        Column("language", S, "the most common language of its pages"),
        Column("sources", pa.list_(S), "where its pages' texts came from"),
        Column("trust", F64, "the minimum trust over its pages (page_texts.trust)"),
        Column("text", S, "the chunk's text (a split table's header row repeated at its start)"),
    ),
)

VOCABULARY = Table(
    "vocabulary",
    "word the shipped lexicon misses that several documents of the corpus use",
    sharded=False,
    columns=(
        Column("language", S, "the lexicon language the word was missing from"),
        Column("word", S, "the word, in the lexicon's normal form"),
        Column("documents", I64, "distinct documents it occurs in (at least 3)"),
        VERSION_COLUMN,
    ),
)

TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        OBSERVATIONS,
        DOCUMENTS,
        EXPANSIONS,
        DERIVATIONS,
        UNDERIVABLES,
        PAGES,
        PAGE_FONTS,
        PAGE_VERDICTS,
        FONT_VERDICTS,
        REPAIRS,
        VOCABULARY,
        OCR_PAGES,
        PAGE_TEXTS,
        TEXTS,
        REDACTIONS,
        HIDDEN_TEXT,
        FURNITURE,
        CHUNKS,
    )
}


@dataclass(frozen=True, slots=True)
class View:
    """A view the catalog derives from the tables (warehouse/catalog.py), documented beside them."""

    name: str
    one_row_per: str
    columns: tuple[tuple[str, str], ...]


VIEWS: dict[str, View] = {
    v.name: v
    for v in (
        View(
            "lineage",
            "edge of a document's derivation graph (`all_lineage`: every version)",
            (
                ("sha256", "the document"),
                ("extractor_version", "extractor version of the edge's rows"),
                (
                    "from",
                    "node the edge leaves: `path:`, `doc:`, `page:<n>:<mode>`, `page_text:<n>:<source>`...",
                ),
                (
                    "to",
                    "node the edge reaches: `doc:`, `members:<status>:<reason>` (a container without "
                    "children), `derivation:<status>`, `ocr:`, `text:`, `chunk:<id>`...",
                ),
                ("stage", "walk, extract, verdicts, ocr, sanitize or chunk"),
                ("tool", "the reader, engine or stage that made the edge"),
                ("tool_version", "its version"),
            ),
        ),
        View(
            "version_diff",
            "page under the current or the previous extractor version (the most recent other one on disk)",
            (
                ("sha256", "the document"),
                ("page", "1-based page"),
                ("kind", "content kind"),
                ("old_version", "the previous extractor version"),
                ("new_version", "the current extractor version"),
                ("old_mode", "the page's mode under the previous version (null: no such page)"),
                ("new_mode", "the page's mode under the current version (null: no such page)"),
                ("old_reasons", "reason codes under the previous version"),
                ("new_reasons", "reason codes under the current version"),
                ("old_reader", "reader of the document's derivation under the previous version"),
                ("new_reader", "reader under the current version"),
                ("old_reader_version", "that reader's version under the previous version"),
                ("new_reader_version", "that reader's version under the current version"),
                ("text_changed", "the page's extracted text differs"),
                (
                    "change",
                    "the first of added, removed, mode, text, reasons, reader that applies, else same",
                ),
            ),
        ),
        View(
            "version_diff_rates",
            "content kind, current against previous extractor version",
            (
                ("kind", "content kind"),
                ("old_version", "the previous extractor version"),
                ("new_version", "the current extractor version"),
                ("old_documents", "documents of the kind under the previous version"),
                ("new_documents", "documents of the kind under the current version"),
                (
                    "old_fallback_rate",
                    "share of derived documents read by a fallback reader, previous version",
                ),
                ("new_fallback_rate", "the same, current version"),
                ("old_underivable_rate", "share of documents `underivable` at extract, previous version"),
                ("new_underivable_rate", "the same, current version"),
                (
                    "pages_mode_changed",
                    "pages of the kind whose mode changed (`version_diff.change = 'mode'`)",
                ),
                ("pages_changed", "pages of the kind with any change"),
            ),
        ),
    )
}


# Which tables hold personal data as the documents hold it (raw) and which are sanitized: every text
# column of a sanitized table has its personal data replaced by placeholders (quality/pii.py), as far as
# the redact_kinds setting asks. (table or output, columns, raw or sanitized, why)
PERSONAL_DATA: tuple[tuple[str, str, str, str], ...] = (
    ("observations", "`root`, `path`, `rel_path`", "raw", "file names are what they are"),
    ("documents", "`path`, `member`", "raw", "a file or a zip member can be named after a person"),
    ("derivations, underivables", "`reason`", "raw", "an exception's message may quote a name"),
    ("pages", "`text`, `hidden_text`, `font_names`", "raw", "the readers' text, before sanitize"),
    ("page_fonts", "`font`", "raw", "font names as the PDF names them"),
    ("repairs", "`text`", "raw", "a page's text after a fallback or a font repair, before sanitize"),
    ("vocabulary", "`word`", "raw", "words of three or more documents (a surname can be one)"),
    ("ocr_pages", "`text`", "raw", "what Tesseract read"),
    ("page_texts", "`text`", "raw", "each page's final text, before sanitize"),
    ("lineage", "`from`", "raw", "its `path:` nodes are documents.path"),
    ("texts", "`text`", "sanitized", "placeholders; offsets in redactions"),
    ("redactions", "all", "sanitized", "kind, page, offsets and placeholder; never the value"),
    (
        "hidden_text",
        "`text`",
        "sanitized",
        "the run with the text's placeholders (the raw run is pages.hidden_text)",
    ),
    ("furniture", "`text`", "sanitized", "the line with the text's placeholders"),
    ("chunks", "`text`, `heading_path`", "sanitized", "pieces of texts.text"),
    (
        "search index (`search.duckdb`), `assay search`",
        "every table; path, snippet, headings",
        "sanitized",
        "chunks' text, and each path with the personal data of its components as placeholders "
        "(quality/pii.py redact_path)",
    ),
)


def markdown() -> str:
    """The tables as markdown, for ``docs/tables.md``."""
    out = [
        "# Tables and views",
        "",
        "Generated from `warehouse/schema.py` by `python -m warehouse.schema > docs/tables.md`; do not edit.",
        "",
        "Each table is a view in the catalog (`assay sql`). The unqualified view shows the current extractor",
        "version; `all_<view>` shows every version kept on disk. The `pages` view also carries each page's",
        "`mode`, `reasons`, `provenance` and `text_source` from `page_verdicts`.",
        "",
    ]
    for table in TABLES.values():
        out += [f"## `{table.name}`", "", f"One row per {table.one_row_per}.", ""]
        out += ["| column | type | meaning |", "|---|---|---|"]
        out += [f"| `{c.name}` | {c.type} | {c.doc} |" for c in table.columns]
        out.append("")
    out += ["# Derived views", "", "Views the catalog computes from the tables above.", ""]
    for view in VIEWS.values():
        out += [f"## `{view.name}`", "", f"One row per {view.one_row_per}.", ""]
        out += ["| column | meaning |", "|---|---|"]
        out += [f"| `{name}` | {doc} |" for name, doc in view.columns]
        out.append("")
    out += [
        "# Personal data",
        "",
        "Which tables hold personal data as the documents hold it (raw) and which are sanitized: in a",
        "sanitized table every personal datum of the kinds `redact_kinds` names is a placeholder",
        "(`⟨EMAIL_1⟩`, stable within a document). Tables not listed hold no text of the documents (ids,",
        "counts, modes, reason codes, offsets). Give the sanitized ones to readers of the corpus; the raw",
        "ones are evidence for the people who run it.",
        "",
        "| table or output | columns | data | why |",
        "|---|---|---|---|",
    ]
    out += [f"| {table} | {columns} | {kind} | {why} |" for table, columns, kind, why in PERSONAL_DATA]
    out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(markdown())
