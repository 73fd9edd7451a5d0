"""How the personal-data detectors do: recall on planted disguised forms, redactions on ordinary text.

Two measurements, counts per kind:

- **planted**: every disguised form the detectors promise to catch (quality/pii.py, quality/pii_view.py:
  full-width, zero-width, wrapped, dotted, lower case, spelled out), written between two pieces of prose.
  A form counts as caught when the scrubbed text is the prose around exactly one placeholder of its
  kind (the original span replaced, nothing more); the target is 100 %.
- **corpus**: the texts the project's own readers give for the documents of the shared corpus (text
  layers only: scans have no text before OCR), normalised as sanitize normalises them, scrubbed with
  the default settings and with ``redact_private_ips`` off. The corpus holds public sample documents,
  so nearly every redaction there is a false positive or a sample value; ``--show`` prints each with
  its context, to read by eye.

``--baseline REF`` also runs the detectors of quality/pii.py as they are at git revision ``REF`` (their
defaults), so the two figures stand side by side.

Run from the repository root::

    .venv/bin/python benchmarks/eval_pii.py [--corpus DIR] [--baseline REF] [--show]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from quality.normalise import normalise  # noqa: E402
from quality.pii import PlaceholderBook, Scrubber  # noqa: E402
from quality.pii_findings import PiiKind  # noqa: E402
from readers.core.model import ReadLimits  # noqa: E402
from readers.engine.dispatch import extract_document  # noqa: E402
from readers.walk.sniff import sniff  # noqa: E402

DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
SNIFF_BYTES = 64 * 1024
# Characters of context shown around a redaction with --show.
CONTEXT_CHARS = 40
BEFORE, AFTER = "Please write to", "before Friday, thanks."

# (kind, form): the forms tests/test_pii_forms.py checks one by one, plus their plain spellings.
PLANTED: tuple[tuple[PiiKind, str], ...] = (
    (PiiKind.CARD, "4111 1111 1111 1111"),
    (PiiKind.CARD, "4111.1111.1111.1111"),
    (PiiKind.CARD, "4111-1111-1111-1111"),
    (PiiKind.CARD, "4111 1111\n1111 1111"),
    (PiiKind.CARD, "41111111\n11111111"),
    (PiiKind.CARD, "4111 11\n11 1111 1111"),
    (PiiKind.CARD, "4111-\n1111-1111-1111"),
    (PiiKind.CARD, "3782 822463\n10005"),
    (PiiKind.CARD, "５５５５ ５５５５ ５５５５ ４４４４"),
    (PiiKind.IBAN, "DE89 3704 0044 0532 0130 00"),
    (PiiKind.IBAN, "de89 3704 0044 0532 0130 00"),
    (PiiKind.IBAN, "de89370400440532013000"),
    (PiiKind.IBAN, "DE89-3704-0044-0532-0130-00"),
    (PiiKind.IBAN, "GB82 WEST 1234 5698\n7654 32"),
    (PiiKind.IBAN, "gb82-west-1234-5698-7654-32"),
    (PiiKind.EMAIL, "jane.roe@example.org"),
    (PiiKind.EMAIL, "ｊａｎｅ．ｒｏｅ＠ｅｘａｍｐｌｅ．ｏｒｇ"),
    (PiiKind.EMAIL, "jane.roe\u200b@example.org"),
    (PiiKind.EMAIL, "ja\u200cne.roe@exa\u2060mple.o\ufeffrg"),
    (PiiKind.EMAIL, "jane.roe@exam\u00adple.org"),
    (PiiKind.EMAIL, "jane.roe@exam\nple.org"),
    (PiiKind.EMAIL, "jane.roe\n@example.org"),
    (PiiKind.EMAIL, "jane.roe@\nexample.org"),
    (PiiKind.EMAIL, "jane.roe [at] example [dot] org"),
    (PiiKind.EMAIL, "jane.roe (at) example (dot) org"),
    (PiiKind.EMAIL, "jane.roe at example dot org"),
    (PiiKind.EMAIL, "jane.roe AT example DOT co DOT uk"),
    (PiiKind.EMAIL, "jane dot roe at example dot org"),
    (PiiKind.EMAIL, "jane.roe [at] example.org"),
    (PiiKind.EMAIL, "jane.roe@example [dot] org"),
    (PiiKind.PHONE, "+44 20 7946 0958"),
    (PiiKind.PHONE, "+44 20\n7946 0958"),
    (PiiKind.PHONE, "＋４４ ２０ ７９４６ ０９５８"),
    (PiiKind.PHONE, "+44 20 79\u200b46 0958"),
    (PiiKind.IP, "81.2.69.160"),
    (PiiKind.IP, "192.168.0.1"),
    (PiiKind.IP, "192.0.2.7"),
    (PiiKind.IP, "2001:db8::1"),
)


def caught(scrubber: Scrubber, kind: PiiKind, form: str) -> bool:
    out = scrubber.scrub(f"{BEFORE} {form} {AFTER}", PlaceholderBook())
    return out.text == f"{BEFORE} ⟨{kind.name}_1⟩ {AFTER}"


def corpus_texts(corpus: Path) -> Iterator[tuple[str, str]]:
    """(name, normalised text) of every page the readers read in the corpus's ``dev`` folder."""
    limits = ReadLimits()
    for path in sorted((corpus / "dev").iterdir()):
        if not path.is_file():
            continue
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
        kind = sniff(head, path.name).kind
        extraction = extract_document(path, kind, size=path.stat().st_size, limits=limits, max_bytes=1 << 30)
        if extraction.result is None:
            continue
        for page in extraction.result.pages:
            if page.text:
                yield f"{path.name} p{page.page}", normalise(page.text)


def baseline_scrubber(ref: str) -> Callable[[], object]:
    """A factory of the default scrubber of quality/pii.py at git revision ``ref``."""
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{ref}:quality/pii.py"], check=True, capture_output=True, text=True
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="assay-pii-baseline-"))
    (folder / "pii_baseline.py").write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("pii_baseline", folder / "pii_baseline.py")
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules["pii_baseline"] = module
    spec.loader.exec_module(module)
    return lambda: (module.Scrubber(), module.PlaceholderBook)


def count(
    texts: list[tuple[str, str]], make: Callable[[], tuple[object, type]], show: str | None
) -> Counter[str]:
    scrubber, book = make()
    counts: Counter[str] = Counter()
    for name, text in texts:
        out = scrubber.scrub(text, book())  # type: ignore[attr-defined]
        for r in out.redactions:
            counts[r.kind.value] += 1
            if show:
                context = out.text[max(0, r.start - CONTEXT_CHARS) : r.end + CONTEXT_CHARS].replace("\n", "⏎")
                print(f"  [{show}] {name}: {context}")
    return counts


def table(rows: dict[str, Counter[str]]) -> None:
    kinds = sorted({k for c in rows.values() for k in c})
    print(f"  {'':28}" + "".join(f"{k:>12}" for k in [*kinds, "total"]))
    for label, counts in rows.items():
        cells = [counts.get(k, 0) for k in kinds] + [sum(counts.values())]
        print(f"  {label:28}" + "".join(f"{c:>12}" for c in cells))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--baseline", help="a git revision whose quality/pii.py to compare with")
    parser.add_argument("--show", action="store_true", help="print each corpus redaction with its context")
    args = parser.parse_args()

    print("planted disguised forms (caught / planted):")
    scrubber = Scrubber()
    per_kind: dict[PiiKind, list[bool]] = {}
    for kind, form in PLANTED:
        per_kind.setdefault(kind, []).append(caught(scrubber, kind, form))
    missed = [(k, f) for k, f in PLANTED if not caught(scrubber, k, f)]
    for kind, results in per_kind.items():
        share = 100 * sum(results) / len(results)
        print(f"  {kind.value:12} {sum(results):>3} / {len(results):<3} {share:5.1f} %")
    for kind, form in missed:
        print(f"  missed {kind.value}: {form!r}")
    if args.baseline:
        old, book = baseline_scrubber(args.baseline)()
        print(f"  baseline {args.baseline}:")
        for kind in per_kind:
            forms = [f for k, f in PLANTED if k is kind]
            hits = sum(
                1
                for f in forms
                if old.scrub(f"{BEFORE} {f} {AFTER}", book()).text == f"{BEFORE} ⟨{kind.name}_1⟩ {AFTER}"  # type: ignore[attr-defined]
            )
            print(f"  {kind.value:12} {hits:>3} / {len(forms):<3} {100 * hits / len(forms):5.1f} %")

    if not (args.corpus / "dev").is_dir():
        print(f"no corpus at {args.corpus}: pass --corpus DIR", file=sys.stderr)
        return 2
    texts = list(corpus_texts(args.corpus))
    chars = sum(len(t) for _, t in texts)
    print(f"\ncorpus: {len(texts)} pages of text, {chars:,} characters, redactions per kind:")
    rows: dict[str, Counter[str]] = {}
    if args.baseline:
        rows[f"baseline {args.baseline}"] = count(texts, baseline_scrubber(args.baseline), None)
    rows["now, default"] = count(texts, lambda: (Scrubber(), PlaceholderBook), "now" if args.show else None)
    rows["now, private IPs kept"] = count(
        texts, lambda: (Scrubber(include_private_ips=False), PlaceholderBook), None
    )
    table(rows)
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main())
