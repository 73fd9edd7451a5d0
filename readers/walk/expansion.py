"""Containers opened in isolation and within bounds: their members become child documents.

The walk hands every container document (an e-mail, a zip, a PDF with embedded files: readers/
containers.py) to :func:`expand_containers`. Each container is the root of a **tree**: its members, the
members of the containers among them, and so on to ``max_nesting``.

- **Isolated.** Opening a container and inflating its members is an :class:`ExpandJob`, run in a reader
  worker (readers/engine/isolation.py) under the wall-time and memory budgets of the container's kind, like a
  read. Whatever happens there (a library error, RecursionError, MemoryError, the budget running out, the
  worker dying) ends as an outcome of that container alone: it gets no children, the reason is recorded,
  and the walk of everything else goes on.
- **Bounded as a whole.** Besides the bounds of one container (``max_member_bytes``,
  ``max_container_bytes``, ``max_members``, the compression ratio), a tree's members together inflate to
  at most ``max_tree_bytes`` and number at most ``max_tree_members``; and past :data:`TREE_RATIO_FLOOR`
  they inflate to at most ``max_compression_ratio`` times the root's own size, the zip-bomb rule applied
  to the tree (stored zips of small members each just under the member rule's floor). A job is given the
  room its tree has left and stops before a member would pass it, so no byte past the bound is written.
- **All or nothing per tree.** A tree that reaches its bound is dropped whole: the root gets no children
  and the status ``error``/``over_limit`` with the bound in ``detail``, whatever its members already held.
  A container's members are the members of all of it or none (as for a container over its own bound):
  a partial tree would depend on the order the members come in and pass for the whole. A nested
  container that fails on its own (damaged, over its own bound, over its budget) loses only its own
  children; the rest of its tree stays.
- **Blobs.** A job writes each member's bytes under a staging folder of its tree (inside the blob store,
  so the rename is atomic); when the tree is complete its members are moved into the store under their
  sha256, and a dropped tree's staging folder is deleted. A walk that is killed leaves its staging folder,
  which the next walk removes.
- **Recorded.** Every container document gets an :class:`readers.core.reading_records.ExpansionRecord`:
  ``expanded`` with the number and bytes of its members, ``error`` with the reason, or ``not_opened``
  (``max_nesting``
  deep). The walk writes them to the ``expansions`` table.
- **Reused.** A container whose bytes an earlier walk of this extractor version already opened under the
  same bounds is not opened again: its row (and its children in ``documents``) answer, except for
  ``timeout``, ``memory`` and ``worker_died``, which depend on the machine and are tried again.
- **Deterministic.** Each tree is expanded on its own (trees run side by side, one job per tree at a
  time), so its outcome depends on its bytes and the bounds only; the children are then assigned in one
  breadth-first pass over the surviving trees in sha256 order: bytes that are already a document (a file,
  or a member seen first elsewhere) stay that one document, and a container is opened at the shallowest
  depth it is found at.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Protocol

from readers.core.atomic import written_whole
from readers.core.errors import LimitExceeded, ReaderError
from readers.core.model import ContentKind, ExpansionStatus, ReadLimits
from readers.core.reading_records import DocumentRecord, ExpansionRecord
from readers.engine.isolation import (
    MEMORY,
    TIMEOUT,
    WORKER_DIED,
    InProcessJobs,
    IsolatedJob,
    JobRunner,
    remove_orphans,
)
from readers.walk.containers import CONTAINER_KINDS, iter_members
from readers.walk.inventory import fs_path
from readers.walk.sniff import HEAD_BYTES, sniff

#: A tree may inflate to this many bytes whatever its root's size; past it, to ``max_compression_ratio``
#: times the root's size. 16 MiB is 16 times the member rule's floor (readers/archives/safezip.py
#: COMPRESSION_CHECK_FLOOR): an e-mail or a PDF of a few KB with a few MB of attachments is common, and
#: e-mail attachments are base64 (smaller than the file), so only nested archives ever come near the ratio.
TREE_RATIO_FLOOR = 16 * 1024 * 1024
#: Outcomes that depend on the machine and the budgets rather than the bytes: tried again by the next walk.
RETRIED = frozenset({TIMEOUT, MEMORY, WORKER_DIED})
#: How the detail of a tree's bound begins: such an outcome is the root's alone (the same bytes nested in
#: another tree have less room there, so they are opened again).
TREE_DETAIL = "the container's tree"
#: How the detail of a dropped tree ends.
DROPPED = "; the members found in it are dropped"
#: The folder of the blob store that holds the walks' staging folders (``<pid>-<token>``).
STAGING = ".staging"
#: Characters of an exception's message kept in ``detail``.
DETAIL_CHARS = 500


class BlobStore(Protocol):
    """Where members' bytes are kept: ``warehouse.store.Warehouse`` is one."""

    @property
    def blobs_dir(self) -> Path: ...

    def blob_path(self, sha256: str) -> Path: ...


@dataclass(frozen=True, slots=True)
class FoundMember:
    """A member as a job found it: its name in the parent, its bytes' sha256, size and sniffed kind."""

    member: str
    sha256: str
    size: int
    kind: str
    kind_source: str
    path: str | None = None  # where its bytes are, when a document of an earlier walk holds them already


@dataclass(frozen=True, slots=True)
class NodeOutcome:
    """What opening one container gave."""

    status: ExpansionStatus
    reason: str | None
    detail: str | None
    members: tuple[FoundMember, ...] = ()
    inflated: int = 0  # bytes of the members
    tree_bound: bool = False  # the tree's room ran out, not a bound of this container


class TreeLimit(LimitExceeded):
    """The tree a container belongs to has no room left for the next member."""


@dataclass(frozen=True, slots=True)
class ExpandJob:
    """Open one container and stage its members, within the room its tree has left (runs in a worker)."""

    tree: int
    sha256: str
    path: Path
    kind: ContentKind
    limits: ReadLimits
    staging: Path
    room_bytes: int
    room_members: int
    bytes_bound: str  # how the tree's byte bound reads in the detail
    activity: ClassVar[str] = "expansion"

    def run(self) -> NodeOutcome:
        found: list[FoundMember] = []
        inflated = 0
        try:
            for m in iter_members(self.path, self.kind, self.limits):
                if len(found) >= self.room_members:
                    raise TreeLimit(_too_many(self.limits.max_tree_members))
                if inflated + len(m.data) > self.room_bytes:
                    raise TreeLimit(_too_large(self.bytes_bound))
                inflated += len(m.data)
                sha = hashlib.sha256(m.data).hexdigest()
                _stage(self.staging, sha, m.data)
                sniffed = sniff(m.data[:HEAD_BYTES], m.member.rsplit("/", 1)[-1])
                found.append(
                    FoundMember(m.member, sha, len(m.data), sniffed.kind.value, sniffed.decided_by.value)
                )
        except TreeLimit as exc:
            return _error(exc.reason, str(exc), tree_bound=True)
        except ReaderError as exc:
            return _error(exc.reason, str(exc))
        except MemoryError:
            return _error(MEMORY, "out of memory while the members were inflated")
        except Exception as exc:  # RecursionError and any library's own: the container's, not the walk's
            return _error(f"expansion_crashed:{type(exc).__name__}", str(exc)[:DETAIL_CHARS] or None)
        return NodeOutcome(ExpansionStatus.EXPANDED, None, None, tuple(found), inflated)

    def stopped(self, reason: str, detail: str) -> NodeOutcome:
        return _error(reason, detail)


@dataclass(frozen=True, slots=True)
class Expansion:
    """The child documents of the walked containers, what became of each container, and the containers
    that have no members for a reason (sha256 -> reason)."""

    children: list[DocumentRecord]
    records: list[ExpansionRecord]
    failed: dict[str, str]


def bounds_of(limits: ReadLimits) -> str:
    """The bounds an expansion's outcome depends on, as recorded with it."""
    return (
        f"member_bytes={limits.max_member_bytes},container_bytes={limits.max_container_bytes},"
        f"ratio={limits.max_compression_ratio:g},members={limits.max_members},nesting={limits.max_nesting},"
        f"tree_bytes={limits.max_tree_bytes},tree_members={limits.max_tree_members}"
    )


def expand_containers(
    documents: Sequence[DocumentRecord],
    *,
    known: Mapping[str, Sequence[DocumentRecord]],
    blobs: BlobStore,
    limits: ReadLimits,
    version: str,
    previous: Mapping[str, ExpansionRecord] | None = None,
    jobs: JobRunner | None = None,
) -> Expansion:
    """Turn the members of containers among ``documents`` (the files on disk: e-mail attachments, archive
    members, a PDF's embedded files) into documents that point at their parent, to the configured depth
    of nesting, each container opened in isolation and every container's whole tree within bounds (the
    module docstring says how).

    A member's bytes are stored in ``blobs`` under their sha256 and the child's ``path`` is where they
    were stored, so that every reader reads a child like any file. ``known`` holds the children an
    earlier walk found for a container (by its sha256) and ``previous`` that walk's expansion rows:
    identical bytes have identical members, so a container is opened only once. Bytes already known as a
    document (a file that is also attached somewhere) stay one document: the first one. A container that
    cannot be opened gets no children and an ``error`` row saying why. ``jobs`` runs the jobs
    (readers.engine.isolation.IsolatedReads in the pipeline; in this process without one).
    """
    runner: JobRunner = jobs if jobs is not None else InProcessJobs()
    files = {d.sha256: d for d in documents}
    bounds = bounds_of(limits)
    staging_root = Path(blobs.blobs_dir) / STAGING
    remove_orphans(staging_root)  # the staging folders of walks no longer running
    walk_staging = staging_root / f"{os.getpid()}-{uuid.uuid4().hex}"
    roots = sorted((d for d in documents if ContentKind(d.kind) in CONTAINER_KINDS), key=lambda d: d.sha256)
    trees = [
        _Tree(i, root, walk_staging / str(i), *_tree_bytes(root, limits), limits.max_tree_members)
        for i, root in enumerate(roots)
    ]
    stored = {c.sha256: c for children in known.values() for c in children}
    context = _Context(files, known, stored, previous or {}, bounds, limits, blobs, version)
    waiting = deque(trees)
    pending: deque[IsolatedJob] = deque()
    width = max(1, getattr(runner, "size", 1))
    active = 0

    def start() -> None:
        nonlocal active
        while waiting and active < width:
            tree = waiting.popleft()
            if _advance(tree, context, pending):
                active += 1

    try:
        start()
        for done in runner.run(pending):
            job = done.job
            if not isinstance(job, ExpandJob):
                continue
            tree = trees[job.tree]
            tree.settle(job.sha256, tree.depth_of.pop(job.sha256), done.outcome, context)
            if not _advance(tree, context, pending):
                active -= 1
                start()
    finally:
        shutil.rmtree(walk_staging, ignore_errors=True)
    return _assign(roots, trees, context)


# --------------------------------------------------------------------------------------------------------
# Trees


@dataclass(frozen=True, slots=True)
class _Context:
    files: Mapping[str, DocumentRecord]  # the files on disk, by sha256
    known: Mapping[str, Sequence[DocumentRecord]]
    stored: Mapping[str, DocumentRecord]  # the known children, by sha256
    previous: Mapping[str, ExpansionRecord]
    bounds: str
    limits: ReadLimits
    blobs: BlobStore
    version: str


@dataclass(slots=True)
class _Node:
    outcome: NodeOutcome
    children: tuple[DocumentRecord, ...]


@dataclass(slots=True)
class _Tree:
    """One root container and what is known of its tree so far."""

    index: int
    root: DocumentRecord
    staging: Path
    cap_bytes: int
    bytes_bound: str
    cap_members: int
    queue: deque[tuple[DocumentRecord, int]] = field(default_factory=deque)
    seen: set[str] = field(default_factory=set)
    depth_of: dict[str, int] = field(default_factory=dict)
    nodes: dict[str, _Node] = field(default_factory=dict)
    used_bytes: int = 0
    used_members: int = 0
    dropped: NodeOutcome | None = None
    started: bool = False

    def settle(self, sha: str, depth: int, outcome: NodeOutcome, context: _Context) -> None:
        """Take one container's outcome: its children, and the containers among them to open next."""
        if outcome.status is ExpansionStatus.EXPANDED:
            self.used_bytes += outcome.inflated
            self.used_members += len(outcome.members)
            if self.used_members > self.cap_members:
                outcome = _error("over_limit", _too_many(self.cap_members), tree_bound=True)
            elif self.used_bytes > self.cap_bytes:
                outcome = _error("over_limit", _too_large(self.bytes_bound), tree_bound=True)
        if outcome.tree_bound:
            detail = outcome.detail or TREE_DETAIL
            detail += "" if detail.endswith(DROPPED) else DROPPED
            self.dropped = _error(outcome.reason or "over_limit", detail, tree_bound=True)
            self.queue.clear()
            return
        children = tuple(_child(m, sha, context) for m in outcome.members)
        self.nodes[sha] = _Node(outcome, children)
        for child in children:
            if (
                ContentKind(child.kind) in CONTAINER_KINDS
                and child.sha256 not in self.seen
                and child.sha256 not in context.files
            ):
                self.seen.add(child.sha256)
                if depth < context.limits.max_nesting:
                    self.queue.append((child, depth + 1))

    def finish(self) -> None:
        """Move the members' staged bytes into the store, or drop them with the tree."""
        try:
            if self.dropped is None and self.staging.is_dir():
                wanted = {c.sha256: c.path for n in self.nodes.values() for c in n.children}
                for staged in self.staging.iterdir():
                    target = wanted.get(staged.name)
                    if target is not None and not Path(target).is_file():
                        Path(target).parent.mkdir(parents=True, exist_ok=True)
                        os.replace(staged, target)
        finally:
            shutil.rmtree(self.staging, ignore_errors=True)


def _advance(tree: _Tree, context: _Context, pending: deque[IsolatedJob]) -> bool:
    """Queue the tree's next job and say so, or settle what earlier walks answer; ``False`` once the tree
    is complete (then finished)."""
    if not tree.started:
        tree.started = True
        tree.seen.add(tree.root.sha256)
        tree.queue.append((tree.root, 1))
    while tree.queue:
        node, depth = tree.queue.popleft()
        reused = _reused(node, node is tree.root, context)
        if reused is not None:
            tree.settle(node.sha256, depth, reused, context)
            continue
        tree.depth_of[node.sha256] = depth
        pending.append(
            ExpandJob(
                tree=tree.index,
                sha256=node.sha256,
                path=_source(tree, node),
                kind=ContentKind(node.kind),
                limits=context.limits,
                staging=tree.staging,
                room_bytes=max(0, tree.cap_bytes - tree.used_bytes),
                room_members=max(0, tree.cap_members - tree.used_members),
                bytes_bound=tree.bytes_bound,
            )
        )
        return True
    tree.finish()
    return False


def _source(tree: _Tree, node: DocumentRecord) -> Path:
    """Where a container's bytes are now: the file for the root, else the store, else (a member of this
    tree not yet moved there) the tree's staging folder."""
    if node is tree.root:
        return fs_path(node.path)
    stored = Path(node.path)
    return stored if stored.is_file() else tree.staging / node.sha256


def _tree_bytes(root: DocumentRecord, limits: ReadLimits) -> tuple[int, str]:
    """The bytes the tree of ``root`` may inflate to, and how that bound reads."""
    by_ratio = max(TREE_RATIO_FLOOR, int(limits.max_compression_ratio * root.size))
    if by_ratio < limits.max_tree_bytes:
        return by_ratio, (
            f"{by_ratio} bytes, {limits.max_compression_ratio:g} times the container's own {root.size} "
            "(a container bomb)"
        )
    return limits.max_tree_bytes, f"{limits.max_tree_bytes} bytes (max_tree_bytes)"


def _reused(node: DocumentRecord, is_root: bool, context: _Context) -> NodeOutcome | None:
    """The outcome an earlier walk recorded for these bytes under the same bounds, when it still holds."""
    row = context.previous.get(node.sha256)
    if row is None or row.bounds != context.bounds or row.reason in RETRIED:
        return None
    if row.status == ExpansionStatus.ERROR:
        tree_bound = (row.detail or "").startswith(TREE_DETAIL)
        if tree_bound and not is_root:
            return None
        return _error(row.reason or "error", row.detail, tree_bound=tree_bound)
    if row.status != ExpansionStatus.EXPANDED:
        return None
    if row.member_sha256s is None or row.member_names is None:
        # A row of a walk that did not list its members: its children answer when they are all of them.
        children = [c for c in context.known.get(node.sha256, ()) if Path(c.path).is_file()]
        listed = [(c.member or "", c.sha256) for c in children] if len(children) == row.members else []
    else:
        listed = list(zip(row.member_names, row.member_sha256s, strict=True))
    if len(listed) != row.members:
        return None
    members = []
    for name, sha in listed:
        # The member's bytes are a document of this walk: its child, a file on disk or another
        # container's member (whichever the walk's order reaches first keeps them, as when it was opened).
        found = context.files.get(sha) or context.stored.get(sha)
        if found is None or not Path(found.path).is_file():
            return None
        members.append(FoundMember(name, sha, found.size, found.kind, found.kind_source, found.path))
    return NodeOutcome(ExpansionStatus.EXPANDED, None, None, tuple(members), row.member_bytes)


def _child(m: FoundMember, parent: str, context: _Context) -> DocumentRecord:
    return DocumentRecord(
        sha256=m.sha256,
        shard=m.sha256[:2],
        kind=m.kind,
        kind_source=m.kind_source,
        size=m.size,
        parent_sha256=parent,
        member=m.member,
        path=m.path or str(context.blobs.blob_path(m.sha256)),
        extractor_version=context.version,
    )


def _assign(roots: Sequence[DocumentRecord], trees: Sequence[_Tree], context: _Context) -> Expansion:
    """The children of every container, breadth first over the surviving trees (module docstring), and
    one row per container document."""
    nodes: dict[str, _Node] = {}
    outcomes: dict[str, NodeOutcome] = {}
    for tree in trees:
        if tree.dropped is not None:
            outcomes[tree.root.sha256] = tree.dropped
            continue
        for sha, node in tree.nodes.items():
            nodes.setdefault(sha, node)
    seen = set(context.files)
    children: list[DocumentRecord] = []
    containers: list[DocumentRecord] = list(roots)
    queue = deque((root, 1) for root in roots)
    while queue:
        parent, depth = queue.popleft()
        node = nodes.get(parent.sha256)
        for child in node.children if node is not None else ():
            if child.sha256 in seen:
                continue
            seen.add(child.sha256)
            children.append(child)
            if ContentKind(child.kind) in CONTAINER_KINDS:
                containers.append(child)
                if depth < context.limits.max_nesting:
                    queue.append((child, depth + 1))
    records = [_record(d, nodes, outcomes, context) for d in containers]
    failed = {r.sha256: r.reason or "" for r in records if r.status == ExpansionStatus.ERROR}
    return Expansion(
        sorted(children, key=lambda d: d.sha256), sorted(records, key=lambda r: r.sha256), failed
    )


def _record(
    d: DocumentRecord, nodes: Mapping[str, _Node], outcomes: Mapping[str, NodeOutcome], context: _Context
) -> ExpansionRecord:
    node = nodes.get(d.sha256)
    outcome = node.outcome if node is not None else outcomes.get(d.sha256)
    if outcome is None:
        outcome = NodeOutcome(
            ExpansionStatus.NOT_OPENED,
            "max_nesting",
            f"{context.limits.max_nesting} containers deep: its members are not looked at (max_nesting)",
        )
    expanded = outcome.status is ExpansionStatus.EXPANDED
    return ExpansionRecord(
        sha256=d.sha256,
        shard=d.sha256[:2],
        kind=d.kind,
        status=outcome.status.value,
        reason=outcome.reason,
        detail=outcome.detail,
        members=len(outcome.members) if expanded else 0,
        member_bytes=outcome.inflated if expanded else 0,
        member_names=[m.member for m in outcome.members] if expanded else [],
        member_sha256s=[m.sha256 for m in outcome.members] if expanded else [],
        bounds=context.bounds,
        extractor_version=context.version,
    )


# --------------------------------------------------------------------------------------------------------
# Staging


def _too_many(members: int) -> str:
    return f"{TREE_DETAIL} has more than {members} members (max_tree_members)"


def _too_large(bound: str) -> str:
    return f"{TREE_DETAIL} inflates past {bound}"


def _error(reason: str, detail: str | None, *, tree_bound: bool = False) -> NodeOutcome:
    return NodeOutcome(ExpansionStatus.ERROR, reason, detail, tree_bound=tree_bound)


def _stage(folder: Path, sha: str, data: bytes) -> None:
    """Write a member's bytes as ``folder/<sha256>``, whole or not at all."""
    target = folder / sha
    if target.is_file():
        return
    folder.mkdir(parents=True, exist_ok=True)
    with written_whole(target, fsync=True) as tmp:
        tmp.write_bytes(data)
