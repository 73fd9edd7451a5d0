"""What reading the walked bytes costs: a document read from its verified private snapshot against the
same document read from its path (readers/core/snapshot.py).

For every file of the corpus folder (default: the shared corpus's ``dev`` folder) that has readers, in one
run: the kind's reader chain on the path itself (``extract_document`` without a sha256), the same chain on
a snapshot verified against the file's sha256, and the snapshot alone (open, copy while hashing, compare,
remove). Per document the two reads run back to back, alternating which goes first, so a noisy shared
machine slows both alike. Prints the totals, the time per document with and without, the overhead as a
share of the read, and the snapshot's own cost per document and per MiB.

Run from the repository root::

    .venv/bin/python benchmarks/bench_snapshot.py [--corpus DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from readers.core.model import ReadLimits  # noqa: E402
from readers.core.reader_chain import readers_for  # noqa: E402
from readers.core.snapshot import walked_snapshot  # noqa: E402
from readers.engine.dispatch import extract_document  # noqa: E402
from readers.walk.sniff import HEAD_BYTES, sniff  # noqa: E402

DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "dev"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    files = sorted(p for p in args.corpus.rglob("*") if p.is_file() and not p.is_symlink())
    limits = ReadLimits()
    plain = verified = alone = 0.0
    documents = 0
    total_bytes = 0
    with tempfile.TemporaryDirectory(prefix="assay-bench-") as scratch_dir:
        scratch = Path(scratch_dir)
        for path in files:
            data = path.read_bytes()
            kind = sniff(data[:HEAD_BYTES], path.name).kind
            if not readers_for(kind):
                continue
            sha, size = hashlib.sha256(data).hexdigest(), len(data)
            documents += 1
            total_bytes += size * args.repeat
            for rep in range(args.repeat):
                order = (None, sha) if (documents + rep) % 2 else (sha, None)
                for walked in order:
                    started = time.perf_counter()
                    extract_document(
                        path,
                        kind,
                        size=size,
                        limits=limits,
                        max_bytes=1 << 31,
                        sha256=walked,
                        scratch=scratch,
                    )
                    spent = time.perf_counter() - started
                    if walked is None:
                        plain += spent
                    else:
                        verified += spent
                started = time.perf_counter()
                with walked_snapshot(path, sha256=sha, size=size, scratch=scratch):
                    pass
                alone += time.perf_counter() - started
    reads = documents * args.repeat
    if not reads:
        sys.exit(f"no readable documents under {args.corpus}")
    print(
        f"{documents} documents ({total_bytes / args.repeat / 2**20:.1f} MiB) x {args.repeat}"
        f" from {args.corpus}"
    )
    print(f"read from the path:           {plain:8.2f} s  {plain / reads * 1000:8.2f} ms per document")
    print(f"read from a verified snapshot: {verified:7.2f} s  {verified / reads * 1000:8.2f} ms per document")
    print(
        f"overhead: {(verified - plain) / reads * 1000:+.2f} ms per document,"
        f" {verified / plain - 1:+.1%} of the read"
    )
    print(
        f"the snapshot alone: {alone / reads * 1000:.2f} ms per document, "
        f"{alone / (total_bytes / 2**20) * 1000:.2f} ms per MiB ({alone / plain:.1%} of the read)"
    )


if __name__ == "__main__":
    main()
