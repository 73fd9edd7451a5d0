"""The settings every stage shares, as a plain pydantic model; the defaults are the embedded set-up.

Plain Python (no Dagster): ``assay check`` reads them without importing Dagster. The Dagster resource
the stages are given (``assets/resources.py`` AssaySettings) is this model with the run's lock added.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

import pydantic

from readers.core.errors import ConfigError
from readers.core.model import ReadLimits
from warehouse import Warehouse

DEFAULT_HOME = ".assay"
#: Where the steps of the runs Dagster launches execute (``Settings.executor``).
EXECUTORS = ("in_process", "multiprocess", "dask")
GiB = 1 << 30


def home_from_env() -> str:
    return os.environ.get("ASSAY_HOME", DEFAULT_HOME)


class Settings(pydantic.BaseModel):
    """Where state lives and the bounds the stages respect."""

    home: str = DEFAULT_HOME
    roots: list[str] = []
    max_file_bytes: int = 4 * GiB
    max_document_bytes: int = 1 * GiB
    max_pages: int = 5000
    # The characters of text kept per document: past them the text is dropped and the derivation says so
    # (derived, reason text_capped:<N>); the bound on what later stages hold. Why this number:
    # assets/extract/work.py DEFAULT_MAX_TEXT_CHARS.
    max_text_chars: int = 10_000_000
    # Bounds for the rate checks (quality/rates.py). The Underivable rate is of the final outcome, after OCR:
    # on the shared dev corpus only the blank scanned page stays underivable (1 of 52 PDFs read, 0 of 11
    # images). It is an ERROR past the bound over the corpus: 0.25 leaves room for corpora full of blank
    # or illegible scans while a broken reader or a missing Tesseract (every scan and image underivable)
    # trips it.
    underivable_rate_max: float = 0.25
    # The fallback rate warns: pdfplumber rescued no born-digital PDF of the dev corpus, so any sizeable
    # share means the primary reader broke.
    fallback_rate_max: float = 0.10
    # Kinds whose chain falls back by design: an HTML page without a marked main region (<main>,
    # <article>...) is read by trafilatura, the second reader: 7 of the 12 dev corpus pages. A rate past
    # 0.75 means the region reader stopped finding regions it used to.
    fallback_rate_max_by_kind: dict[str, float] = {"html": 0.75}
    # The fallback-rate movement check warns when a kind's fallback rate over the corpus moves by more than
    # this (absolute, either way) from the previous extractor version's. Unchanged readers are carried over
    # and keep their rate exactly, so any move comes from a reader or verdict rule that changed. Half the
    # absolute fallback bound: a new version that uses up half the room the bound allows in one step (one
    # document in twenty switching reader) is worth a look before it is trusted, while it stays quiet for
    # the odd document on corpora of a few hundred per kind.
    fallback_rate_move_max: float = 0.05
    # The quality report's check warns when the verdicts' false-positive rate (REPLACE pages whose text
    # layer OCR read back, over the pages so cross-checked: quality/cross_check.py) moves by more than this
    # from the previous extractor version's, with min_documents_for_rate pages cross-checked in both: a
    # rule or lexicon change that condemns clean layers wholesale (or stops condemning garbage) shows as a
    # jump, while one page in ten either way over a few dozen is noise.
    verdict_false_positive_move_max: float = 0.1
    min_documents_for_rate: int = 5
    # OCR: the Tesseract language when a document's own language is unknown (a scan), and the resolution
    # pages are rendered at.
    ocr_language: str = "eng"
    ocr_dpi: int = 300
    # A page over this many seconds of recognition is recorded as error/timeout and the shard goes on.
    ocr_page_timeout_s: float = 120.0
    # OCR's budget per document: the pages it reads of one document and the seconds (rendering and
    # recognition summed over its pages); past either, a page is error/over_budget:pages or
    # over_budget:seconds in ocr_pages, unread. Why these numbers: assets/ocr/page_reading.py.
    ocr_max_pages_per_document: int = 200
    ocr_document_timeout_s: float = 1800.0
    # Tesseract processes at once; 0 means one per core this process may use.
    ocr_workers: int = 0
    # Whether RapidOCR reads again the pages Tesseract reads poorly or sparsely (assets/ocr/engines.py), the
    # better reading kept (quality/ocr_choice.py); off, Tesseract's reading is every page's.
    ocr_second_engine: bool = True
    # The OCR confidence check warns when the mean word confidence of the pages read whole falls under
    # this: the dev corpus's scans read at 88 on average, its worst legible page (a skewed scan) at 80; a
    # wrong language or an unreadable scan falls to the 50s.
    ocr_confidence_min: float = 70.0
    # Pixels an image document may declare before it is refused unread (a decompression bomb); why this
    # number: readers/core/model.py ReadLimits.
    max_image_pixels: int = 150_000_000
    # Containers (zip archives, Office files, e-mail attachments): the bounds of readers/archives/safezip.py,
    # why
    # these numbers: readers/core/model.py ReadLimits.
    max_member_bytes: int = 64 * 1024 * 1024
    max_container_bytes: int = 1 * GiB
    max_compression_ratio: float = 100.0
    max_nesting: int = 3
    # A container's whole tree (nested containers included): readers/core/model.py ReadLimits says why.
    max_tree_bytes: int = 1 * GiB
    max_tree_members: int = 10_000
    # Each document is read in a worker process under a wall-time and a memory budget (readers/
    # isolation.py); over one, the worker is killed and replaced and the document is error/timeout or
    # error/memory. The defaults leave room for the largest documents assay accepts: a 5,000-page
    # born-digital PDF (max_pages) reads in about 40 s at the PDF reader's ~130 pages/s, and pdfplumber's
    # second opinion on it in about 400 s at its ~13 pages/s (docs/design.md §9); the slowest document of
    # the dev corpus reads in about 1 s. A fresh worker rests at about 210 MB and the dev corpus's largest
    # read peaks at 282 MB (both measured by benchmarks/read_budgets.py); 4 GiB is over 14 times that, and two
    # workers at their budget fit the smallest machine assay runs on (2 cores, 24 GB) beside the OCR stage.
    read_timeout_s: float = 600.0
    read_memory_mb: int = 4096
    # Kinds with budgets of their own, e.g. {"pdf": 120} (env: ASSAY_READ_TIMEOUT_S_BY_KIND="pdf=120").
    read_timeout_s_by_kind: dict[str, float] = {}
    read_memory_mb_by_kind: dict[str, int] = {}
    # Reader processes at once; 0 means one per core this process may use.
    read_workers: int = 0

    # Scheduled backfills by extractor version (orchestration/automation.py): after the code's extractor
    # version changed, the stale shards are re-run from the next tick of this cron schedule (UTC), so that
    # a release deployed by day is backfilled at night; "" runs them at the next evaluation.
    version_backfill_cron: str = "0 2 * * *"
    # The walk of the roots (ASSAY_ROOTS) that picks up new files; on by default when roots are set.
    walk_cron: str = "0 1 * * *"
    # Seconds between two evaluations of the automation sensor (Dagster's default for such sensors).
    automation_interval_seconds: int = 30

    # Where the steps of the runs Dagster launches (the daemon's backfills, the web UI's runs) execute
    # (orchestration/definitions.py): "in_process", in the run's own process; "multiprocess", one process
    # per step on the run's machine; "dask", on the workers of the Dask scheduler at ``dask_scheduler``
    # (tcp://host:8786), started as `dask scheduler` and `dask worker` (deploy/README.md). `assay run`
    # always runs its steps in its own process.
    executor: str = "in_process"
    dask_scheduler: str = ""

    # Seconds a writer waits for another run's lock on the home (assets/lock.py) before it gives up
    # with exit code 4 naming the holder. 0, refuse at once: a person learns at once that the home is in
    # use, and a script decides itself whether to queue (it sets the seconds it may wait). Runs the Dagster
    # daemon launches wait as long, and fail with the same message.
    lock_wait_s: float = 0.0

    # Personal data: the kinds replaced by placeholders (quality/pii.py PiiKind: email, phone, card, iban,
    # ip, national_id, vat), empty for none; the region national phone numbers are read in ("GB"), empty
    # to accept only numbers written in international form (+44 ...), which never mistakes a reference
    # number for a phone number.
    redact_kinds: list[str] = ["email", "phone", "card", "iban", "ip", "national_id"]
    phone_region: str = ""
    # IP addresses in private, loopback, link-local, shared and documentation ranges redacted too (with
    # "ip" in redact_kinds). On: the text cannot tell a leaked internal address from a manual's example;
    # off for a corpus of technical manuals whose example addresses are content.
    redact_private_ips: bool = True
    # Chunks: a target size and an overlap in characters (about 4 characters a token in English).
    chunk_target_chars: int = 1500
    chunk_overlap_chars: int = 200

    @pydantic.model_validator(mode="after")
    def _known_executor(self) -> Settings:
        if self.executor not in EXECUTORS:
            raise ConfigError(f"ASSAY_EXECUTOR={self.executor!r}: write one of {', '.join(EXECUTORS)}")
        if self.executor == "dask" and not self.dask_scheduler:
            raise ConfigError(
                "ASSAY_EXECUTOR=dask needs ASSAY_DASK_SCHEDULER, the address of a running `dask scheduler` "
                "(e.g. tcp://scheduler.internal:8786)"
            )
        return self

    @property
    def home_path(self) -> Path:
        return Path(self.home).absolute()

    def warehouse(self) -> Warehouse:
        return Warehouse(self.home_path / "warehouse")

    def limits(self) -> ReadLimits:
        return ReadLimits(
            max_pages=self.max_pages,
            max_image_pixels=self.max_image_pixels,
            max_member_bytes=self.max_member_bytes,
            max_container_bytes=self.max_container_bytes,
            max_compression_ratio=self.max_compression_ratio,
            max_nesting=self.max_nesting,
            max_tree_bytes=self.max_tree_bytes,
            max_tree_members=self.max_tree_members,
        )

    def budgets(self):
        """The per-document read budgets these settings ask for (readers/engine/isolation.py)."""
        from readers.core.model import ContentKind
        from readers.engine.isolation import ReadBudget, ReadBudgets

        kinds = set(self.read_timeout_s_by_kind) | set(self.read_memory_mb_by_kind)
        unknown = sorted(k for k in kinds if k not in ContentKind.__members__.values())
        if unknown:
            known = ", ".join(k.value for k in ContentKind)
            raise ConfigError(f"read budgets name unknown kinds {unknown}; the kinds are: {known}")
        return ReadBudgets(
            default=ReadBudget(self.read_timeout_s, self.read_memory_mb << 20),
            by_kind={
                ContentKind(k): ReadBudget(
                    self.read_timeout_s_by_kind.get(k, self.read_timeout_s),
                    self.read_memory_mb_by_kind.get(k, self.read_memory_mb) << 20,
                )
                for k in sorted(kinds)
            },
        )

    def scrubber(self):
        """The personal-data scrubber these settings ask for; None when no kind is switched on."""
        from quality.pii import Scrubber, parse_kinds

        kinds = parse_kinds([k for k in self.redact_kinds if k.strip()])
        if not kinds:
            return None
        return Scrubber(kinds, self.phone_region or None, include_private_ips=self.redact_private_ips)

    def path_redactor(self):
        """How a document's path is shown in a sanitized output: its personal data as placeholders."""
        from quality.pii import PathRedactor

        return PathRedactor(self.scrubber())

    def root_paths(self) -> list[Path]:
        return [Path(r).absolute() for r in self.roots]


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


S = TypeVar("S", bound=Settings)


def settings_from_env(environ: dict[str, str] | None = None, cls: type[S] = Settings) -> S:
    """Settings from ``ASSAY_<FIELD>`` variables (``ASSAY_HOME``, ``ASSAY_ROOTS`` separated by ``:``,
    ``ASSAY_UNDERIVABLE_RATE_MAX`` ...), defaults for the rest; a bad value says which variable. ``cls``:
    the model to build (the Dagster resource, ``assets.resources.resource_from_env``)."""
    env = os.environ if environ is None else environ
    values: dict[str, object] = {"home": str(Path(env.get("ASSAY_HOME", DEFAULT_HOME)).absolute())}
    for name, field in cls.model_fields.items():
        raw = env.get(f"ASSAY_{name.upper()}")
        if raw is None or name == "home":
            continue
        if name == "roots":
            values[name] = [r for r in raw.split(os.pathsep) if r]
            continue
        if name == "redact_kinds":  # "email,phone", or "" for none
            values[name] = [k.strip() for k in raw.split(",") if k.strip()]
            continue
        if name.endswith("_by_kind"):  # kind=value pairs: "html=0.75,zip=0.2"
            number = int if name == "read_memory_mb_by_kind" else float
            try:
                pairs = (item.split("=", 1) for item in raw.split(",") if item.strip())
                values[name] = {kind.strip(): number(bound) for kind, bound in pairs}
            except ValueError as exc:
                raise ConfigError(
                    f"ASSAY_{name.upper()}={raw!r}: write kind=bound pairs, e.g. html=0.75"
                ) from exc
            continue
        if field.annotation is bool:  # "1", "true", "yes", "on"; "0", "false", "no", "off"
            flag = raw.strip().lower()
            if flag not in _TRUE | _FALSE:
                raise ConfigError(f"ASSAY_{name.upper()}={raw!r}: write true or false")
            values[name] = flag in _TRUE
            continue
        try:
            values[name] = field.annotation(raw)  # int or float
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                f"ASSAY_{name.upper()}={raw!r} is not a valid {field.annotation.__name__}"
            ) from exc
    return cls(**values)
