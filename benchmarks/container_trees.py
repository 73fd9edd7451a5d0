"""The container trees of a corpus, against the default tree bounds and the e-mail depth bound.

    .venv/bin/python benchmarks/container_trees.py [FOLDER]      (default: ../shared/corpus/dev)

Every file under FOLDER is walked as the walk does and every container among them (e-mails, zips, PDFs)
expanded as the walk expands them (readers/walk/expansion.py, in this process, with the default bounds of
``assets/settings.py``). Prints each container that has members, its tree's members and inflated
bytes, the largest tree, and the deepest MIME tree of the e-mails: the figures ``max_tree_bytes``,
``max_tree_members`` and ``readers.mail.eml.MAX_MIME_DEPTH`` are calibrated on.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from assets.resources import AssaySettings  # noqa: E402
from readers.core.errors import ReaderError  # noqa: E402
from readers.core.model import ContentKind  # noqa: E402
from readers.mail.eml import _depths, parse_eml  # noqa: E402
from readers.walk.expansion import expand_containers  # noqa: E402
from readers.walk.inventory import documents_from, walk_roots  # noqa: E402
from warehouse import Warehouse  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(REPO.parent / "shared" / "corpus" / "dev"))
    folder = Path(parser.parse_args().folder)
    limits = AssaySettings().limits()
    walked = walk_roots([folder], cache={}, max_file_bytes=1 << 40, version="bench", now=datetime.now(UTC))
    files = documents_from(walked.observations, "bench")
    with tempfile.TemporaryDirectory() as tmp:
        expansion = expand_containers(files, known={}, blobs=Warehouse(Path(tmp)), limits=limits, version="b")
    parent = {c.sha256: c.parent_sha256 for c in expansion.children}

    def root_of(sha: str) -> str:
        while sha in parent and parent[sha] is not None:
            sha = parent[sha] or sha
        return sha

    trees: dict[str, tuple[int, int]] = {}
    for child in expansion.children:
        members, size = trees.get(root_of(child.sha256), (0, 0))
        trees[root_of(child.sha256)] = (members + 1, size + child.size)
    names = {d.sha256: Path(d.path).name for d in files}
    print(f"{len(expansion.records)} containers, {len(trees)} with members")
    for sha, (members, size) in sorted(trees.items(), key=lambda t: -t[1][1]):
        print(f"  {names.get(sha, sha[:12])}: {members} members, {size} bytes")
    errors = [(names.get(r.sha256, r.sha256[:12]), r.reason) for r in expansion.records if r.reason]
    print(f"not expanded: {errors}")
    largest = max(trees.values(), default=(0, 0))
    print(
        f"largest tree: {largest[0]} members, {largest[1]} bytes; bounds: {limits.max_tree_members} members, "
        f"{limits.max_tree_bytes} bytes"
    )
    deepest = (0, "")
    for d in files:
        if ContentKind(d.kind) is ContentKind.EML:
            try:
                parsed = parse_eml(Path(d.path), limits)
            except ReaderError:
                continue
            depth = max(depth for depth, _ in _depths(parsed.message))
            deepest = max(deepest, (depth, names[d.sha256]))
    print(f"deepest e-mail: {deepest[0]} levels of parts ({deepest[1]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
