"""walk: inventory the roots, hash what changed, record one observation per path and one document per
distinct content."""

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg

from assets.carry import carry_forward
from assets.factory import corpus_stage
from assets.progress import Progress
from assets.resources import AssaySettings
from readers.core.model import FILE_PROBLEMS
from readers.core.reading_records import DocumentRecord, ExpansionRecord, ObservationRecord
from readers.core.versions import EXTRACTOR_VERSION
from readers.engine.isolation import IsolatedReads
from readers.walk.expansion import expand_containers
from readers.walk.inventory import (
    CachedFile,
    documents_from,
    enclosing_roots,
    merge_observations,
    walk_roots,
)
from warehouse import Warehouse
from warehouse.store import to_pylist


class WalkConfig(dg.Config):
    """Roots to walk in this run; empty means the roots in the settings (ASSAY_ROOTS)."""

    roots: list[str] = []  # noqa: RUF012 (pydantic copies field defaults)


@corpus_stage(
    "walk",
    kinds={"python", "parquet"},
)
def walk(
    context: dg.AssetExecutionContext,
    config: WalkConfig,
    assay: AssaySettings,
    progress: dg.ResourceParam[Progress],
) -> dg.MaterializeResult:
    wh = assay.warehouse()
    roots = [Path(r).absolute() for r in config.roots] or assay.root_paths()
    if not roots:
        raise dg.Failure("No roots to walk: pass paths to `assay run PATH` or set ASSAY_ROOTS.")

    previous = _previous_observations(wh)
    # A file or folder named again inside a root walked before is walked as part of that root.
    within = enclosing_roots(roots, {o.root for o in previous})
    result = walk_roots(
        roots,
        cache=_cache(previous, _file_problems(wh)),
        max_file_bytes=assay.max_file_bytes,
        version=EXTRACTOR_VERSION,
        now=datetime.now(UTC),
        on_file=lambda o: progress.file_seen(o.hashed),
        within=within,
    )

    observations = merge_observations(previous, result.observations, roots, within)
    files = documents_from(observations, EXTRACTOR_VERSION)
    # The documents on disk, to rewrite only the shards that changed and to reuse the members an earlier
    # walk found in the same containers (identical bytes, identical members).
    before = [DocumentRecord(**row) for row in to_pylist(wh.read_all_shards("documents", EXTRACTOR_VERSION))]
    known: dict[str, list[DocumentRecord]] = {}
    for d in before:
        if d.parent_sha256 is not None and Path(d.path).is_file():
            known.setdefault(d.parent_sha256, []).append(d)
    # Each container is opened in a reader worker under the read budgets of its kind (readers/
    # expansion.py): whatever one does, it ends as a row of expansions, and the walk goes on.
    with IsolatedReads(assay.limits(), assay.max_document_bytes, assay.budgets(), assay.read_workers) as pool:
        expansion = expand_containers(
            files,
            known=known,
            blobs=wh,
            limits=assay.limits(),
            version=EXTRACTOR_VERSION,
            previous=_previous_expansions(wh),
            jobs=pool,
        )
    documents = sorted([*files, *expansion.children], key=lambda d: d.sha256)
    # Documents first, observations last: a walk that dies between the two writes is redone whole.
    wh.write("expansions", EXTRACTOR_VERSION, expansion.records)
    wh.write_sharded("documents", EXTRACTOR_VERSION, documents, previous=before)
    # A new extractor version: the shards it would read exactly as the last one did are carried over
    # whole, so only the others are left stale for extract (and everything after it) to run on.
    carried = carry_forward(wh, EXTRACTOR_VERSION)
    wh.write("observations", EXTRACTOR_VERSION, observations)

    statuses = Counter(o.status for o in result.observations)
    kinds = Counter(d.kind for d in documents)
    context.log.info(
        f"walked {len(result.observations)} paths, hashed {result.hashed}, {len(documents)} documents"
        + (f"; {len(carried)} shards carried over unchanged to {EXTRACTOR_VERSION}" if len(carried) else "")
    )
    return dg.MaterializeResult(
        metadata={
            "paths": len(result.observations),
            "hashed": result.hashed,
            "documents": len(documents),
            "members": len(expansion.children),
            "containers_not_opened": expansion.failed,  # the reasons: the expansions table
            "statuses": dict(statuses),
            "kinds": dict(kinds),
            "roots": [str(r) for r in roots],
            "shards_carried_over": len(carried),
            "carried_from": sorted(set(carried.carried.values())),
        },
    )


def _previous_expansions(wh: Warehouse) -> dict[str, ExpansionRecord]:
    """What the last walk of this extractor version made of each container (none under another one: a
    new version may open containers differently)."""
    if not wh.has_partition("expansions", EXTRACTOR_VERSION):
        return {}
    return {r["sha256"]: ExpansionRecord(**r) for r in wh.rows("expansions", EXTRACTOR_VERSION)}


def _previous_observations(wh: Warehouse) -> list[ObservationRecord]:
    """The latest observations on disk, whichever extractor version wrote them."""
    versions = wh.versions("observations")
    if EXTRACTOR_VERSION in versions:
        source = EXTRACTOR_VERSION
    elif versions:
        source = versions[-1]
    else:
        return []
    return [ObservationRecord(**row) for row in wh.rows("observations", source)]


def _cache(previous: list[ObservationRecord], distrusted: set[str]) -> dict[str, CachedFile]:
    """What the previous walk learned, by path, except the paths whose document's file was gone,
    unreadable or changed when it was read: their size and mtime say nothing (a rewrite can keep both),
    so they are hashed again."""
    return {
        o.path: CachedFile(o.size, o.mtime_ns, o.sha256, o.kind, o.kind_source, o.extractor_version)
        for o in previous
        if o.status == "ok"
        and o.sha256
        and o.sha256 not in distrusted
        and o.size is not None
        and o.mtime_ns is not None
        and o.kind
    }


def _file_problems(wh: Warehouse) -> set[str]:
    """The documents the latest extract skipped for a problem of their file, or whose pages OCR could not
    render for one (under the current extractor version, else the most recent one on disk, as for the
    observations)."""
    found: set[str] = set()
    for table, failed in (("derivations", "skipped"), ("ocr_pages", "error")):
        versions = wh.versions(table)
        if not versions:
            continue
        version = EXTRACTOR_VERSION if EXTRACTOR_VERSION in versions else versions[-1]
        found |= {
            sha
            for sha, status, reason in wh.columns(table, version, ("sha256", "status", "reason"))
            if status == failed and reason in FILE_PROBLEMS
        }
    return found
