"""The walk: hashing, sniffing, the size+mtime cache, symlinks and every bad path recorded, never raised."""

from __future__ import annotations

import hashlib
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readers.core.model import ObservationStatus
from readers.walk.inventory import CachedFile, display_path, documents_from, merge_observations, walk_roots

NOW = datetime(2026, 11, 1, tzinfo=UTC)


def _walk(*roots: Path, cache=None, max_file_bytes: int = 1 << 30):
    return walk_roots(list(roots), cache=cache or {}, max_file_bytes=max_file_bytes, version="v1", now=NOW)


def _by_name(result):
    return {Path(o.path).name: o for o in result.observations}


def test_hashes_sniffs_and_dedupes(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello world\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "copy.txt").write_text("hello world\n")
    (tmp_path / "doc.bin").write_bytes(b"%PDF-1.7\n%junk")
    result = _walk(tmp_path)
    obs = _by_name(result)
    assert obs["a.txt"].sha256 == hashlib.sha256(b"hello world\n").hexdigest()
    assert obs["a.txt"].shard == obs["a.txt"].sha256[:2]
    assert obs["a.txt"].kind == "text"
    assert (obs["doc.bin"].kind, obs["doc.bin"].kind_source) == ("pdf", "bytes")
    assert obs["copy.txt"].rel_path == "sub/copy.txt"
    assert len(result.observations) == 3 and len(result.documents) == 2
    doc = next(d for d in result.documents if d.sha256 == obs["a.txt"].sha256)
    assert doc.path == obs["a.txt"].path  # the first path in sort order describes the document
    assert all(o.hashed for o in result.observations)


def test_unchanged_files_are_not_hashed_again(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one")
    (tmp_path / "b.txt").write_text("two")
    first = _walk(tmp_path)
    cache = {
        o.path: CachedFile(o.size, o.mtime_ns, o.sha256, o.kind, o.kind_source, o.extractor_version)
        for o in first.observations
    }
    second = _walk(tmp_path, cache=cache)
    assert second.hashed == 0
    assert [o.sha256 for o in second.observations] == [o.sha256 for o in first.observations]
    # A changed file is hashed again, even when its size stays the same.
    b = tmp_path / "b.txt"
    b.write_text("TWO")
    os.utime(b, ns=(b.stat().st_atime_ns, b.stat().st_mtime_ns + 1_000_000_000))
    third = _by_name(_walk(tmp_path, cache=cache))
    assert third["b.txt"].hashed and not third["a.txt"].hashed
    assert third["b.txt"].sha256 == hashlib.sha256(b"TWO").hexdigest()


def test_symlinks_never_lead_out_of_the_root(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("not yours")
    (root / "inside.txt").write_text("mine")
    (root / "to-outside.txt").symlink_to(outside / "secret.txt")
    (root / "to-outside-dir").symlink_to(outside, target_is_directory=True)
    (root / "to-inside.txt").symlink_to(root / "inside.txt")
    (root / "loop").symlink_to(root, target_is_directory=True)
    (root / "broken").symlink_to(root / "nowhere")
    obs = _by_name(_walk(root))
    assert (
        obs["to-outside.txt"].status == ObservationStatus.OUTSIDE_ROOT
        and obs["to-outside.txt"].sha256 is None
    )
    assert obs["to-outside-dir"].status == ObservationStatus.OUTSIDE_ROOT
    assert obs["to-inside.txt"].status == "ok" and obs["to-inside.txt"].sha256 == obs["inside.txt"].sha256
    assert obs["loop"].status == ObservationStatus.NOT_A_FILE
    assert obs["broken"].status == ObservationStatus.VANISHED
    assert "secret.txt" not in obs


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file whatever its mode")
def test_unreadable_file_is_recorded(tmp_path: Path) -> None:
    f = tmp_path / "locked.txt"
    f.write_text("x")
    f.chmod(0)
    obs = _by_name(_walk(tmp_path))
    assert obs["locked.txt"].status == ObservationStatus.UNREADABLE


def test_a_pipe_is_recorded_not_hashed(tmp_path: Path) -> None:
    # A FIFO cannot be hashed like a file; the walk must record it and go on (no hang, no raise).
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "ok.txt").write_text("fine")
    obs = _by_name(_walk(tmp_path))
    assert obs["pipe"].status == ObservationStatus.NOT_A_FILE
    assert obs["ok.txt"].status == "ok"


def test_over_size_and_missing_roots_are_recorded(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"x" * 100)
    obs = _by_name(_walk(tmp_path, tmp_path / "missing", max_file_bytes=10))
    assert obs["big.txt"].status == ObservationStatus.TOO_LARGE and obs["big.txt"].size == 100
    assert obs["missing"].status == ObservationStatus.VANISHED


def test_a_single_file_can_be_a_root(tmp_path: Path) -> None:
    f = tmp_path / "one.txt"
    f.write_text("only me")
    result = _walk(f)
    assert [o.rel_path for o in result.observations] == ["one.txt"]


def test_undecodable_file_names_are_kept_as_text(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/caf\xe9.txt"
    with open(name, "wb") as fh:
        fh.write(b"latin-1 name")
    result = _walk(tmp_path)
    assert result.observations[0].status == "ok"
    assert result.observations[0].path.endswith("caf\\xe9.txt")
    assert display_path(name).encode("utf-8")  # storable as UTF-8


def test_merging_keeps_other_roots(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "1.txt").write_text("a1")
    (b / "2.txt").write_text("b2")
    first = _walk(a).observations
    second = _walk(b).observations
    merged = merge_observations(first, second, [b])
    assert {Path(o.path).name for o in merged} == {"1.txt", "2.txt"}
    (a / "1.txt").unlink()
    again = merge_observations(merged, _walk(a).observations, [a])
    assert {Path(o.path).name for o in again} == {"2.txt"}
    assert len(documents_from(again, "v1")) == 1


@settings(max_examples=30, deadline=None)
@given(st.lists(st.binary(max_size=64), min_size=1, max_size=6))
def test_documents_are_the_distinct_contents(tmp_path_factory, blobs: list[bytes]) -> None:
    root = tmp_path_factory.mktemp("walk")
    for i, blob in enumerate(blobs):
        (root / f"f{i}").write_bytes(blob)
    result = _walk(root)
    assert {d.sha256 for d in result.documents} == {hashlib.sha256(b).hexdigest() for b in blobs}
    assert all(d.shard == d.sha256[:2] for d in result.documents)


def test_a_new_extractor_version_sniffs_again_without_hashing(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello")
    o = _walk(tmp_path).observations[0]
    stale = {o.path: CachedFile(o.size, o.mtime_ns, o.sha256, "unknown", "none", "v0")}
    again = _walk(tmp_path, cache=stale).observations[0]
    assert (again.kind, again.hashed, again.sha256) == ("text", False, o.sha256)
