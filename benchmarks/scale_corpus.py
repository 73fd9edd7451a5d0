"""Distinct copies of the text-layer part of the shared corpus, to measure how ``assay run`` scales.

    .venv/bin/python benchmarks/scale_corpus.py DEST [--copies N] [--corpus DIR]

Scaling is measured on documents the text-layer path reads, so that the figure says how the pipeline
grows with the corpus rather than how long Tesseract takes: the ``pdf-born-digital`` PDFs, the HTML, DOCX,
XLSX and PPTX files and the plain text files of the manifest. Left out: scanned PDFs and images (OCR would
dominate), PDFs with an OCR layer or garbled fonts (their pages go to OCR), encrypted and corrupt files,
and files in UTF-16 (an appended line would have to be re-encoded).

Identical bytes are one document (the walk dedupes by sha256), so each copy ``k`` rewrites every file so
that its bytes differ from every other copy's while it stays valid and reads the same:

- PDF: the ``subject`` metadata set to name the copy with PyMuPDF, saved as an incremental update (the
  original bytes kept, the change appended), or in full where the file cannot take one;
- HTML: a comment naming the copy appended; plain text: a last line naming it;
- DOCX, XLSX, PPTX: the ``subject`` core property set by python-docx, openpyxl or python-pptx, and saved.

Copy ``k`` goes to ``DEST/copy-kk/``, so the corpus at scale n is the first n copy folders.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"

# Manifest kinds read from their text layer alone: what the scaled corpus is made of.
TEXT_LAYER_KINDS = ("pdf-born-digital", "html", "docx", "xlsx", "pptx", "txt")
SUBJECT = "assay scale copy {k}"


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: Path
    kind: str


@dataclass(frozen=True, slots=True)
class LeftOut:
    name: str
    why: str


@dataclass(slots=True)
class ScaledCorpus:
    """The copy folders written so far; ``folders(n)`` is the corpus at scale n."""

    root: Path
    sources: list[SourceFile]
    copies: list[Path] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)

    def folders(self, scale: int) -> list[Path]:
        if scale > len(self.copies):
            raise ValueError(f"{scale} copies asked for, {len(self.copies)} written")
        return self.copies[:scale]

    @property
    def files_per_copy(self) -> int:
        return len(self.sources)


def text_layer_sources(
    corpus: Path, exclude: Mapping[Path, str] | None = None, per_kind: int | None = None
) -> tuple[list[SourceFile], list[LeftOut]]:
    """The manifest's files of the text-layer kinds, without those an appended line would break and those
    ``exclude`` names (with why); with ``per_kind``, the first that many of each kind."""
    exclude = exclude or {}
    taken: dict[str, int] = {}
    manifest = corpus / "manifest.csv"
    if not manifest.is_file():
        raise FileNotFoundError(f"no corpus manifest at {manifest}")
    with manifest.open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["kind"] in TEXT_LAYER_KINDS]
    sources: list[SourceFile] = []
    left_out: list[LeftOut] = []
    for row in rows:
        path = corpus / row["path"]
        if not path.is_file():
            left_out.append(LeftOut(row["path"], "missing"))
        elif path in exclude:
            left_out.append(LeftOut(path.name, exclude[path]))
        elif row["kind"] in ("html", "txt") and b"\x00" in path.read_bytes():
            left_out.append(LeftOut(path.name, "UTF-16 text"))
        elif per_kind is not None and taken.get(row["kind"], 0) >= per_kind:
            continue
        else:
            taken[row["kind"]] = taken.get(row["kind"], 0) + 1
            sources.append(SourceFile(path, row["kind"]))
    return sources, left_out


def rewrite_pdf(source: Path, target: Path, k: int) -> None:
    import pymupdf

    shutil.copyfile(source, target)
    with pymupdf.open(target) as doc:
        metadata = {key: value for key, value in (doc.metadata or {}).items() if value}
        doc.set_metadata({**metadata, "subject": SUBJECT.format(k=k)})
        if doc.can_save_incrementally():
            doc.saveIncr()
            return
        data = doc.tobytes(garbage=0)
    target.write_bytes(data)


def rewrite_html(source: Path, target: Path, k: int) -> None:
    target.write_bytes(source.read_bytes() + f"\n<!-- {SUBJECT.format(k=k)} -->\n".encode("ascii"))


def rewrite_text(source: Path, target: Path, k: int) -> None:
    data = source.read_bytes()
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    ending = b"" if data.endswith(newline) else newline
    target.write_bytes(data + ending + SUBJECT.format(k=k).encode("ascii") + newline)


def rewrite_docx(source: Path, target: Path, k: int) -> None:
    import docx

    document = docx.Document(str(source))
    document.core_properties.subject = SUBJECT.format(k=k)
    document.save(str(target))


def rewrite_xlsx(source: Path, target: Path, k: int) -> None:
    import openpyxl

    workbook = openpyxl.load_workbook(source)
    workbook.properties.subject = SUBJECT.format(k=k)
    workbook.save(target)


def rewrite_pptx(source: Path, target: Path, k: int) -> None:
    import pptx

    presentation = pptx.Presentation(str(source))
    presentation.core_properties.subject = SUBJECT.format(k=k)
    presentation.save(str(target))


REWRITERS: dict[str, Callable[[Path, Path, int], None]] = {
    "pdf-born-digital": rewrite_pdf,
    "html": rewrite_html,
    "txt": rewrite_text,
    "docx": rewrite_docx,
    "xlsx": rewrite_xlsx,
    "pptx": rewrite_pptx,
}


def scaled_corpus(
    corpus: Path, root: Path, exclude: Mapping[Path, str] | None = None, per_kind: int | None = None
) -> ScaledCorpus:
    sources, left_out = text_layer_sources(corpus, exclude, per_kind)
    return ScaledCorpus(root, sources, left_out=left_out)


def add_copies(scaled: ScaledCorpus, total: int) -> None:
    """Write copies until there are ``total``; raises when two files of the corpus share their bytes."""
    seen: dict[str, Path] = {}
    for folder in scaled.copies:
        for path in folder.iterdir():
            seen[hashlib.sha256(path.read_bytes()).hexdigest()] = path
    for k in range(len(scaled.copies), total):
        folder = scaled.root / f"copy-{k:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        for source in scaled.sources:
            target = folder / source.path.name
            REWRITERS[source.kind](source.path, target, k)
            digest = hashlib.sha256(target.read_bytes()).hexdigest()
            if digest in seen:
                raise ValueError(f"{target} has the same bytes as {seen[digest]}")
            seen[digest] = target
        scaled.copies.append(folder)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="folder to write copy-00, copy-01... into")
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder holding manifest.csv")
    args = parser.parse_args(argv)
    try:
        scaled = scaled_corpus(args.corpus, args.dest)
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 2
    add_copies(scaled, args.copies)
    print(f"{args.copies} copies of {scaled.files_per_copy} files in {args.dest}")
    for item in scaled.left_out:
        print(f"  left out {item.name}: {item.why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
