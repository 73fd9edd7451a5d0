"""The committed expectation suites (quality/suites/*.json) against what the row records and the rate
checks derive: ``python -m assets.suites --write`` writes them again after a change to a record's fields
(docs/quality.md, "The data-quality checks"); ``--check`` exits 1 when one differs."""

from __future__ import annotations

import argparse
import sys

from quality.expectations import SUITES_DIR, WRITE_COMMAND, contract_suite, rate_suites, suite_text
from warehouse.schema import TABLES


def derived_suites() -> dict[str, dict]:
    """Every suite, by name: each project table's contract, then the rate suites."""
    suites = {}
    for table in sorted(TABLES.values(), key=lambda t: t.name):
        if table.contract is not None:
            suite = contract_suite(table.contract)
            suites[suite["name"]] = suite
    return suites | rate_suites()


def stale_suites() -> list[str]:
    """The suite files that are missing, differ from what is derived, or derive from nothing."""
    derived = {f"{name}.json": suite_text(s) for name, s in derived_suites().items()}
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in SUITES_DIR.glob("*.json")}
    return sorted(n for n in derived.keys() | on_disk.keys() if derived.get(n) != on_disk.get(n))


def write_suites() -> list[str]:
    """Write every derived suite and remove the files no suite derives; returns the files changed."""
    changed = stale_suites()
    derived = derived_suites()
    SUITES_DIR.mkdir(exist_ok=True)
    for name in changed:
        path = SUITES_DIR / name
        suite = derived.get(path.stem)
        if suite is None:
            path.unlink()
        else:
            path.write_text(suite_text(suite), encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assets.suites", description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help="write the suites derived now")
    group.add_argument("--check", action="store_true", help="exit 1 when a committed suite differs")
    args = parser.parse_args(argv)
    if args.write:
        changed = write_suites()
        print(
            f"{len(changed)} suite files written or removed in {SUITES_DIR}: {', '.join(changed) or 'none'}"
        )
        return 0
    stale = stale_suites()
    if stale:
        print(f"suites that differ from the records: {', '.join(stale)}; run `{WRITE_COMMAND}`")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
