"""The summary at the end of ``assay run``: what happened, and what to do next."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections import Counter
from dataclasses import asdict, astuple
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table

from assets.progress import Progress
from assets.report import PLOTS, REPORTS_DIR, plot_path
from assets.settings import DEFAULT_HOME
from assets.stages import graph
from orchestration.home import Home
from orchestration.printing import shown
from orchestration.run_tags import runs_url, tag_filter
from orchestration.runner import RunReport
from quality.expectations import DATA_DOCS
from quality.outcomes import ALL_TEXT_REMOVED, DocumentOutcome
from quality.rates import KindRates
from warehouse import Warehouse
from warehouse.duckdb_catalog import query
from warehouse.warehouse_errors import WarehouseError

# Each kind's documents by final outcome (the `outcomes` view: quality/outcomes.py has the rules), in the
# order of KindRates' counts, and the judged pages that end with text.
RATES_SQL = f"""
select kind, count(*) as documents,
       {", ".join(f"count(*) filter (where outcome = '{o.value}')" for o in DocumentOutcome)},
       coalesce(sum(pages_with_text), 0) as pages
from outcomes group by kind order by documents desc, kind
"""


OCR_SQL = """
select scope, count(*), count(*) filter (where status = 'derived'),
       count(*) filter (where status = 'underivable'), count(*) filter (where status = 'error'),
       avg(confidence) filter (where status = 'derived')
from ocr_pages where kept is distinct from false group by scope order by scope desc
"""
# Pages the second engine read, and whose text it gave (quality/ocr_choice.py).
SECOND_ENGINE_SQL = """
select count(*), count(*) filter (where kept) from ocr_pages where engine = 'rapidocr'
"""
MODES_SQL = "select mode, count(*) from page_verdicts group by mode"
# Pages with text, by the tier that judged them, and the reasons of the unjudgeable ones.
TIERS_SQL = """
select judged_by, coalesce(list_filter(reasons, lambda r: r like 'unjudgeable:%')[1], '') as why, count(*)
from page_verdicts where judged_by <> 'no_text' group by all
"""
# What sanitize made and took out, counted in the tables that hold it (a document left without text has
# no ``texts`` row, but its furniture and hidden runs are counted all the same).
TEXTS_SQL = """
select (select count(*) from texts), (select count(*) from redactions),
       (select count(*) from hidden_text where found), (select count(*) from furniture),
       (select count(*) from chunks)
"""
# Documents whose pages end with text and whose clean text sanitize left empty (quality/outcomes.py).
EMPTIED_SQL = f"""
select reason, count(*) from outcomes where starts_with(reason, '{ALL_TEXT_REMOVED}') group by 1 order by 1
"""
CONFIRMED_SQL = "select count(*) from page_texts where cross_check = 'text_layer_confirmed'"
# Per kind of document, the pages whose structure was decided (readers/pdf/certainty.py), those the
# layout model read, and its mean cost per page read.
LAYOUT_MODEL_SQL = """
select d.kind, count(*), count(*) filter (where p.structure_source = 'layout_model'),
       avg(try_cast(regexp_extract(p.structure_why, 'model_ms=([0-9]+)', 1) as double))
         filter (where p.structure_source = 'layout_model')
from pages p join (select distinct sha256, kind from documents) d using (sha256)
where p.structure_source in ('rule', 'layout_model', 'tagged') group by 1 order by 1
"""
TIER_ORDER = ("lexicon", "font", "trigram", "borrowed", "characters")
MODE_ORDER = ("TEXT", "FIGURES", "REPAIRED", "LANG", "REPLACE", "BLANK")


def print_summary(console: Console, home: Home, report: RunReport, progress: Progress) -> None:
    console.print()
    for failure in report.failures:
        console.print(
            f"[bold red]{failure.stage} failed[/]: {shown(failure.message)}\n"
            f"  see the run's logs with `assay ui --home {shown(home.path)}` (run {failure.run_id})"
        )
    read = progress.outcomes.get("read", 0)
    kept = progress.outcomes.get("kept", 0)
    carried = progress.outcomes.get("carried", 0)
    statuses = _walk_statuses(home, report.roots)
    unread = sum(n for status, n in statuses.items() if status != "ok")
    unchanged = max(progress.walked - progress.hashed - unread, 0)
    console.print(
        f"Walked {progress.walked} paths, hashed {progress.hashed} ({unchanged} unchanged since the last walk"
        + (f", {unread} that could not be read" if unread else "")
        + ")."
    )
    if report.forced:
        shown_paths = ", ".join(shown(p) for p in report.forced[:3])
        more = f" and {len(report.forced) - 3} more" if len(report.forced) > 3 else ""
        console.print(
            f"Read again on request (--force): {len(report.forced)} "
            f"{'document' if len(report.forced) == 1 else 'documents'}, {shown_paths}{more}: every stage "
            f"derived {'it' if len(report.forced) == 1 else 'them'} again."
        )
    for repair in report.repaired:
        console.print(f"[bold yellow]Repaired[/]: {shown(repair.line())}", soft_wrap=True)
    if read == 0 and carried == 0 and report.repaired:
        console.print("Read [bold]0[/] files: the partitions above were derived again from the other tables.")
    elif read == 0 and carried == 0:
        console.print(_nothing_read(report, progress, statuses))
    else:
        console.print(
            f"Read [bold]{read}[/] files in {len(report.touched_shards)} shards"
            + (f", carried {carried} over from an earlier extractor version" if carried else "")
            + (f", kept {kept} already extracted" if kept else "")
            + "."
        )
    try:
        rows = [[*astuple(r), pages] for r, pages in kind_outcomes(home.warehouse)]
    except WarehouseError as exc:
        console.print(f"[red]The catalog could not be read[/]: {exc}")
        return

    members = query(home.warehouse, "select count(*) from documents where parent_sha256 is not null").rows
    if members and members[0][0]:
        console.print(
            f"{members[0][0]} of the documents were found inside containers (e-mail attachments, archive "
            "members): documents.parent_sha256 and member say where."
        )
    columns = (
        "kind",
        "docs",
        "derived",
        "fallback",
        "repaired",
        "by OCR",
        "underivable",
        "error",
        "unsupported",
        "skipped",
        "pages",
    )
    data = [list(r) for r in rows]
    totals = ["all", *(sum(r[i] for r in data) for i in range(1, len(columns)))]
    # Columns that are zero everywhere are left out, to keep the table narrow.
    keep = [i for i, c in enumerate(columns) if c in ("kind", "docs", "derived") or totals[i]]
    table = Table(
        title="Documents by kind and final outcome",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        caption="what each document finally yielded (the outcomes view): derived by the first reader; "
        "fallback: some text from a fallback reader; repaired: some from a font repair; by OCR: some read by "
        "OCR (Tesseract, or RapidOCR where it read better); underivable: no text after every stage; pages: "
        "pages that end with text. fallback %: of the documents with text; underivable %: of the documents "
        "a reader was tried on",
        caption_justify="left",
    )
    for i in keep:
        table.add_column(columns[i], justify="left" if i == 0 else "right")
    table.add_column("fallback %", justify="right")
    table.add_column("underivable %", justify="right")
    for i, row in enumerate([*data, totals]):
        rates = KindRates(*row[:-1])
        if i == len(data):
            table.add_section()
        table.add_row(
            *(str(row[k]) for k in keep),
            _pct(rates.fallback, rates.with_text),
            _pct(rates.underivable, rates.attempted),
            style="bold" if i == len(data) else None,
        )
    total = KindRates(*totals[:-1])
    und, err, unsup = total.underivable, total.error, total.unsupported
    console.print(table)
    runs = f"{report.runs} Dagster run" + ("s" if report.runs != 1 else "")
    console.print(f"Catalog: [bold]{shown(home.warehouse.catalog_path)}[/] ({runs}, {report.seconds:.1f} s)")
    modes = dict(query(home.warehouse, MODES_SQL).rows)
    if modes:
        by_mode = ", ".join(f"{m} {modes[m]}" for m in MODE_ORDER if m in modes)
        console.print(f"Pages by mode: {by_mode}.")
        if modes.get("REPLACE"):
            console.print(
                f"  {modes['REPLACE']} pages have no trustworthy text layer (REPLACE): they are "
                "sent to OCR; see their reasons in page_verdicts."
            )
        _print_tiers(console, home)
    _print_layout_model(console, home)
    for scope, pages, derived, underivable, errors, confidence in query(home.warehouse, OCR_SQL).rows:
        what = "pages read whole" if scope == "page" else "FIGURES pages whose figure regions were read"
        console.print(
            f"OCR: {pages} {what}: {derived} with text"
            + (f" (mean word confidence {confidence:.0f})" if confidence is not None else "")
            + (f", {underivable} with none (underivable, see ocr_pages.reason)" if underivable else "")
            + (f", {errors} failed (see ocr_pages.reason)" if errors else "")
            + "."
        )
    [(second, second_kept)] = query(home.warehouse, SECOND_ENGINE_SQL).rows
    if second:
        console.print(
            f"OCR: RapidOCR read {second} of those pages again where Tesseract read poorly or sparsely; "
            f"{second_kept} kept its reading (see ocr_pages.asked and ocr_pages.choice)."
        )
    unavailable = query(
        home.warehouse, "select count(*) from ocr_pages where reason = 'unavailable' and engine = 'tesseract'"
    ).rows
    if unavailable and unavailable[0][0]:
        console.print(
            f"[yellow]Tesseract is not installed[/] (or lacks the language): {unavailable[0][0]} pages "
            "were not read by OCR. `assay doctor` says what to install; the next run reads them."
        )
    texts = query(home.warehouse, TEXTS_SQL).rows
    if texts and any(texts[0]):
        n, redacted, hidden, furniture, chunks = texts[0]
        console.print(
            f"Texts: {n} clean documents in {chunks} chunks; taken out: {redacted} personal data, "
            f"{hidden} invisible runs, {furniture} running header and footer lines "
            "(redactions, hidden_text, furniture)."
        )
    emptied = query(home.warehouse, EMPTIED_SQL).rows
    for reason, n in emptied:
        what = reason.removeprefix(ALL_TEXT_REMOVED).replace("+", " and ").replace("_", " ")
        one = n == 1
        console.print(
            f"  [yellow]{n} {'document' if one else 'documents'} with text on {'its' if one else 'their'} "
            f"pages {'has' if one else 'have'} no clean text[/]: sanitize took all of it out as {what} "
            f"(outcomes.reason = '{reason}')."
        )
    closing = {s.name for s in graph().closing}
    corpus_checks = [c for c in report.checks if c.asset in closing]
    if corpus_checks:
        parts = []
        for c in corpus_checks:
            if c.passed:
                parts.append(f"{c.name} [green]passed[/]")
            else:
                over = ", ".join(f"{k} {v:.0%}" for k, v in c.over_bound.items())
                colour = "red" if c.severity == "ERROR" else "yellow"
                parts.append(f"{c.name} [{colour}]failed[/] ({over} > {c.bound:.0%})")
        console.print("Checks over the corpus: " + "; ".join(parts))
    docs = home.path / DATA_DOCS / "index.html"
    if docs.is_file():
        console.print(
            f"Data-quality checks (Great Expectations' Data Docs): [bold]{shown(docs)}[/]", soft_wrap=True
        )
    reports = home.path / REPORTS_DIR
    plots = {key: plot_path(reports, key).is_file() for key in PLOTS}
    if any(plots.values()):
        drawn = ", ".join(PLOTS[key][0] for key, there in plots.items() if there)
        left = ", ".join(PLOTS[key][0] for key, there in plots.items() if not there)
        console.print(
            f"Quality report: {sum(plots.values())} plots in [bold]{shown(reports)}[/] ({drawn}"
            + (f"; left out, too little to draw: {left}" if left else "")
            + "); also on the quality_report asset."
        )
    console.print("Next:")
    assay = program()
    home_flag = "" if home.path == Path(DEFAULT_HOME).absolute() else f" --home {shlex.quote(str(home.path))}"
    console.print(
        f'  {assay} sql{home_flag} "select kind, outcome, count(*) from outcomes group by all order by all"',
        soft_wrap=True,
    )
    if und or err:
        console.print(
            f'  {assay} sql{home_flag} "select path, outcome, reason from outcomes where outcome in '
            "('underivable', 'error')\"   # what yielded no text, and why",
            soft_wrap=True,
        )
    example = _example_document(home.warehouse)
    if example is not None:
        prefix, name = example
        console.print(
            f'  {assay} sql{home_flag} "select page, source, trust, text from page_texts where sha256 like '
            f"'{prefix}%' order by page\"   # one document's final text, page by page ({shown(name)})",
            soft_wrap=True,
        )
    if modes and set(modes) - {"TEXT"}:
        console.print(
            f'  {assay} sql{home_flag} "select d.path, v.page, v.mode, v.reasons from page_verdicts v join '
            "documents d using (sha256) where v.mode <> 'TEXT' order by 1\"   # pages not used as they are",
            soft_wrap=True,
        )
    if unsup:
        console.print("  unsupported kinds have no reader yet: they are recorded, and read once one exists")
    if len(home.warehouse.versions("derivations")) > 1:
        console.print(
            f'  {assay} sql{home_flag} "select kind, change, count(*) from version_diff group by all '
            'order by all"   # what this extractor version changed against the previous one',
            soft_wrap=True,
        )
    word = _example_word(home.warehouse) if texts and texts[0][0] else None
    if word is not None:
        console.print(f'  {assay} search{home_flag} "{word}"   # BM25 over the chunks', soft_wrap=True)
        console.print(
            f"  {assay} export{home_flag} --output {shlex.quote(str(home.path / 'export'))}"
            "   # each document's clean text, as Markdown",
            soft_wrap=True,
        )
    console.print(f"  {assay} ui{home_flag}   # the asset graph, runs and checks in Dagster", soft_wrap=True)
    if report.assay_run:
        console.print(
            f"  {runs_url(report.assay_run)}   # this run's {runs} in the UI, tagged "
            f"{tag_filter(report.assay_run)}",
            soft_wrap=True,
        )


def _print_tiers(console: Console, home: Home) -> None:
    """Which tier judged the pages with text, and how many nothing could judge (and why)."""
    tiers: dict[str, int] = {}
    unjudgeable: dict[str, int] = {}
    for tier, why, n in query(home.warehouse, TIERS_SQL).rows:
        tiers[tier] = tiers.get(tier, 0) + n
        if tier == "unjudgeable":
            unjudgeable[why.removeprefix("unjudgeable:") or "unknown"] = n
    total = sum(tiers.values())
    if not total:
        return
    judged = ", ".join(f"{t} {tiers[t]}" for t in TIER_ORDER if tiers.get(t))
    whys = ", ".join(f"{why} {n}" for why, n in sorted(unjudgeable.items()))
    line = f"Pages with text judged by: {judged or 'none'}"
    if unjudgeable:
        line += f"; unjudgeable {tiers['unjudgeable']} ({_pct(tiers['unjudgeable'], total)}: {whys})"
    console.print(line + ".")
    confirmed = query(home.warehouse, CONFIRMED_SQL).rows[0][0]
    if confirmed:
        console.print(
            f"  OCR read back the text layer of {confirmed} REPLACE page{'s' if confirmed != 1 else ''}: "
            "the layer was kept (page_texts.cross_check = 'text_layer_confirmed'), a verdict false "
            "positive."
        )


def kind_outcomes(wh: Warehouse) -> list[tuple[KindRates, int]]:
    """Each kind's documents counted by final outcome (the `outcomes` view), with its pages that end with
    text: the summary's table, most documents first."""
    return [(KindRates(*row[:-1]), row[-1]) for row in query(wh, RATES_SQL).rows]


def _nothing_read(report: RunReport, progress: Progress, statuses: dict[str, int]) -> str:
    """Why a run read no file: the roots hold none, none of theirs could be read, or nothing changed."""
    roots = ", ".join(shown(r) for r in report.roots) or "the roots"
    if progress.walked == 0:
        return (
            f"Read [bold]0[/] files: {roots} {'holds' if len(report.roots) < 2 else 'hold'} no files. "
            "Pass a folder with documents in it "
            "(PDF, Office, HTML, e-mail, text, images): `assay run PATH`."
        )
    if statuses and not statuses.get("ok"):
        counts = ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()))
        return (
            f"Read [bold]0[/] files: none of the {sum(statuses.values())} paths under {roots} could be read "
            f'({counts}). See why with `assay sql "select path, status, reason from observations where '
            "status <> 'ok'\"`, then fix the files' permissions or links and rerun."
        )
    return "Read [bold]0[/] files: nothing changed since the last run."


def _walk_statuses(home: Home, roots: list[Path]) -> dict[str, int]:
    """How the latest walk saw the paths under ``roots``: status → paths (empty when unknown)."""
    if not roots:
        return {}
    marks = ", ".join("?" for _ in roots)
    try:
        rows = query(
            home.warehouse,
            f"select status, count(*) from observations where root in ({marks}) group by status",
            [str(r) for r in roots],
        ).rows
    except WarehouseError:
        return {}
    return {status: n for status, n in rows}


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}%" if d else "-"


def program() -> str:
    """How the user can call assay again from here: plain ``assay`` when that is the one on PATH, else
    its path (relative when it lies below the working folder: ``.venv/bin/assay``)."""
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    script = argv0 if os.path.basename(argv0) == "assay" else str(Path(sys.executable).with_name("assay"))
    if not os.path.isfile(script):
        return "assay"
    on_path = shutil.which("assay")
    if on_path and os.path.realpath(on_path) == os.path.realpath(script):
        return "assay"
    rel = os.path.relpath(script)
    return rel if not rel.startswith("..") else os.path.abspath(script)


#: Where a summary's example of one document's text comes from: the first document with text, by path.
EXAMPLE_DOCUMENT_SQL = """
select d.sha256, d.path from texts t join documents d using (sha256)
where d.parent_sha256 is null order by d.path limit 1
"""
#: The example search: the commonest long word of the first chunks (letters only: safe in any shell).
EXAMPLE_WORDS_SQL = "select text from chunks order by sha256, ordinal limit 200"
_WORD = re.compile(r"[^\W\d_]{7,}")


def _example_document(wh: Warehouse) -> tuple[str, str] | None:
    """(a sha256 prefix long enough to be unique, the file's name) of the example document."""
    rows = query(wh, EXAMPLE_DOCUMENT_SQL).rows
    if not rows:
        return None
    sha, path = rows[0]
    prefix = sha[:12]
    if query(wh, "select count(*) from documents where sha256 like ?", [prefix + "%"]).rows[0][0] > 1:
        prefix = sha
    return prefix, os.path.basename(path)


def _example_word(wh: Warehouse) -> str | None:
    counts: Counter[str] = Counter()
    for (text,) in query(wh, EXAMPLE_WORDS_SQL).rows:
        counts.update(word.casefold() for word in _WORD.findall(text or ""))
    return counts.most_common(1)[0][0] if counts else None


#: The version of ``assay run --json``'s object: bump when a field changes meaning or goes.
RUN_REPORT_SCHEMA = "assay-run/1"


def run_report(home: Home, report: RunReport, progress: Progress) -> dict[str, object]:
    """What ``assay run --json`` prints: what the run did, and what the corpus now holds."""
    try:
        outcomes = [
            {"kind": kind, "outcome": outcome, "documents": n}
            for kind, outcome, n in query(
                home.warehouse, "select kind, outcome, count(*) from outcomes group by all order by all"
            ).rows
        ]
    except WarehouseError:
        outcomes = []
    return {
        "schema": RUN_REPORT_SCHEMA,
        "home": str(home.path),
        "roots": [str(r) for r in report.roots],
        "ok": report.ok,
        "seconds": round(report.seconds, 3),
        "walked": progress.walked,
        "hashed": progress.hashed,
        "read": progress.outcomes.get("read", 0),
        "kept": progress.outcomes.get("kept", 0),
        "carried": progress.outcomes.get("carried", 0),
        "forced": report.forced,
        "repaired": [asdict(r) for r in report.repaired],
        "shards": report.touched_shards,
        "dagster_runs": report.runs,
        "dagster_tag": tag_filter(report.assay_run) if report.assay_run else None,
        "failures": [{"stage": f.stage, "run_id": f.run_id, "message": f.message} for f in report.failures],
        "checks": [
            {"asset": c.asset, "check": c.name, "passed": c.passed, "severity": c.severity}
            for c in report.checks
        ],
        "outcomes": outcomes,
    }


def one_line(home: Home, report: RunReport, progress: Progress) -> str:
    """What ``assay run --quiet`` prints at the end."""
    read = progress.outcomes.get("read", 0)
    state = "done" if report.ok else f"{len(report.failures)} stage runs failed"
    failed = [c.name for c in report.checks if not c.passed]
    return (
        f"assay: {state}: walked {progress.walked} paths, read {read} documents in {report.seconds:.1f} s"
        + (f"; checks failed: {', '.join(failed)}" if failed else "")
        + (f"; repaired {len(report.repaired)} lost or unreadable partitions" if report.repaired else "")
        + f" (home {home.path})"
    )


def _print_layout_model(console: Console, home: Home) -> None:
    """The share of pages the layout model read, per kind of document, and its cost per page."""
    rows = query(home.warehouse, LAYOUT_MODEL_SQL).rows
    if not rows:
        return
    parts = [
        f"{kind} {read} of {pages} ({read / pages:.0%}"
        + (f", {ms / 1000:.2f} s a page" if ms is not None else "")
        + ")"
        for kind, pages, read, ms in rows
    ]
    console.print(
        "Layout model: read the pages whose structure the text layer left uncertain: "
        + "; ".join(parts)
        + " (pages.structure_source, structure_why)."
    )
