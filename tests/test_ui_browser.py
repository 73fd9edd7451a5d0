"""The Dagster web UI in a real browser: `assay ui` over a small materialised corpus, seen by Chromium.

The pipeline runs for real over three documents written here (a born-digital PDF, a text file, a DOCX);
`assay ui` then serves the same home on loopback, and Debian's chromium, driven headless by Playwright,
opens the global asset graph and the Checks tabs and looks for what a person would: every stage's node,
its checks and their outcome, an asset's row count, and the runs of one `assay run` (run as a user runs
it while the UI serves) in the runs list filtered by the tag its summary prints. Screenshots are left in
``test-artifacts/`` for people to look at. Nothing here downloads a browser: the test skips where
/usr/bin/chromium is absent.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import dagster as dg
import docx
import pymupdf
import pytest
from PIL import Image

from assets.progress import Progress
from assets.shard_keys import SHARD_KEYS
from orchestration.definitions import defs
from orchestration.home import Home
from orchestration.run_tags import RUN_TAG, UI_HOST, UI_PORT, runs_url
from orchestration.runner import RunReport, run
from readers.core.versions import EXTRACTOR_VERSION
from tests.conftest import REPO

if TYPE_CHECKING:
    from playwright.sync_api import Page

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "test-artifacts"
STAGES = ("walk", "extract", "vocabulary", "verdicts", "ocr", "sanitize", "chunk", "catalog")

# Chromium's own background traffic (updates, sync, QUIC probes) is refused on a closed network and slows
# start-up; the sandbox needs user namespaces that containers and root do not give.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Large enough that the graph, fitted to the window with the side panels hidden, is drawn at a scale
# where each node shows its full card (name, asset checks, partitions), not just its name: found by
# trying 1920x1080 (names only) and 2560x1440 (full cards) with Dagster 1.13 and these definitions' ten
# assets in seven groups.
VIEWPORT = {"width": 2560, "height": 1440}
SERVER_START_SECONDS = 60  # the web server and its code server start in about 5 s on two cores
SERVER_STOP_SECONDS = 15  # a graceful stop takes a few seconds
UI_TIMEOUT_MS = 30_000  # the slowest view, the graph of a cold code location, renders in about 3 s
# A screenshot of a rendered page of this size is tens of kilobytes; a blank or failed one is a few.
MIN_PNG_BYTES = 20_000
MIN_PNG_COLOURS = 16  # a page that failed to draw is one or two flat colours


@dataclass(frozen=True, slots=True)
class WebUi:
    url: str
    port: int
    log: Path


@pytest.fixture
def chromium_path() -> Path:
    if not CHROMIUM.is_file():
        pytest.skip(
            f"{CHROMIUM} not found: install Debian's `chromium` package (scripts/setup does, as root)"
        )
    pytest.importorskip("playwright.sync_api", reason="install the `playwright` Python package (dev extra)")
    return CHROMIUM


def _write_corpus(folder: Path) -> None:
    """A born-digital PDF, a text file and a DOCX: three readers, every stage has something to do."""
    folder.mkdir(parents=True)
    pdf = folder / "reservoirs.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 72), "Reservoir levels", fontsize=18)
        for y, line in (
            (110, "Reservoir levels rose steadily through the spring months,"),
            (126, "and the northern basin held more water than in any recent year."),
        ):
            page.insert_text((72, y), line, fontsize=11)
        doc.save(pdf)
    text = folder / "survey-notes.txt"
    text.write_text("Notes on the reservoir survey.\n\nThe divers measured the silt at each inlet.\n")
    office = folder / "survey.docx"
    document = docx.Document()
    document.add_heading("Survey of the reservoirs", level=1)
    document.add_paragraph("The survey covered three reservoirs and the channels between them.")
    document.save(office)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening_addresses(port: int) -> set[str]:
    """The local addresses a socket listens on ``port`` at, from the kernel's tables (hex, as Linux
    writes them: ``0100007F`` is 127.0.0.1, ``00000000`` any IPv4 address)."""
    found: set[str] = set()
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        if not table.exists():
            continue
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()
            address, hex_port = fields[1].split(":")
            if int(hex_port, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                found.add(address)
    return found


def _get(url: str) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.read()
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def _graphql(ui: WebUi, query: str) -> dict:
    request = urllib.request.Request(
        f"{ui.url}/graphql",
        data=json.dumps({"query": query}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@pytest.fixture
def materialised(home: Path, tmp_path: Path) -> RunReport:
    corpus = tmp_path / "corpus"
    _write_corpus(corpus)
    # One run over every shard, so that shards with no document lie inside the run's range.
    report = run(Home(home), [corpus], Progress(), shards_per_run=len(SHARD_KEYS))
    assert report.ok, report.failures
    return report


@pytest.fixture
def web_ui(materialised: RunReport, home: Path, tmp_path: Path) -> Iterator[WebUi]:
    """`assay ui` over the materialised home, on a free loopback port; its process group is stopped
    after the test whatever happened."""
    port = _free_port()
    log = tmp_path / "webserver.log"
    assay = Path(sys.executable).with_name("assay")
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(assay), "ui", "--home", str(home), "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=tmp_path,
            env=os.environ.copy(),
            start_new_session=True,  # its own process group: the web server and its code server
        )
    ui = WebUi(url=f"http://127.0.0.1:{port}", port=port, log=log)
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while (info := _get(f"{ui.url}/server_info")) is None:
            if process.poll() is not None:
                pytest.fail(f"`assay ui` exited with {process.returncode}:\n{log.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"`assay ui` did not answer in {SERVER_START_SECONDS} s:\n{log.read_text()}")
            time.sleep(0.25)
        assert "dagster_webserver_version" in json.loads(info)
        yield ui
    finally:
        _stop_group(process)


def _stop_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=SERVER_STOP_SECONDS)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # whatever of the group is left (the code server)
    process.wait(timeout=SERVER_STOP_SECONDS)


def _assert_png(path: Path) -> None:
    assert path.is_file(), path
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", path
    assert path.stat().st_size > MIN_PNG_BYTES, (path, path.stat().st_size)
    with Image.open(path) as image:
        assert image.width >= VIEWPORT["width"] and image.height >= VIEWPORT["height"], image.size
        colours = image.convert("RGB").getcolors(maxcolors=MIN_PNG_COLOURS)
        assert colours is None, f"{path} has only {len(colours)} colours: the page did not render"


def _checks_by_asset() -> dict[str, list[str]]:
    checks: dict[str, list[str]] = {}
    for key in defs.resolve_asset_graph().asset_check_keys:
        checks.setdefault(key.asset_key.to_user_string(), []).append(key.name)
    return {asset: sorted(names) for asset, names in checks.items()}


@pytest.mark.slow
def test_asset_graph_and_checks_in_chromium(
    chromium_path: Path, web_ui: WebUi, materialised: RunReport, home: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    assets = sorted(k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys())
    assert set(STAGES) <= set(assets)
    checks = _checks_by_asset()
    assert "fallback_rate" in checks["extract"] and "underivable_rate" in checks["catalog"]
    # Assets whose every check ran in the pipeline above and passed: their node must say so.
    outcomes = {(c.asset, c.name): c.passed for c in materialised.checks}
    all_passed = {
        asset: len(names)
        for asset, names in checks.items()
        if all(outcomes.get((asset, name)) for name in names)
    }
    assert {"extract", "catalog"} <= set(all_passed), outcomes

    # The first visit to a fresh instance on localhost opens a "join the community" dialog over the page;
    # marking it seen through the server's own API keeps it from covering the graph in the screenshots.
    assert _graphql(web_ui, "mutation { setNuxSeen }") == {"data": {"setNuxSeen": True}}
    assert _listening_addresses(web_ui.port) == {"0100007F"}, "`assay ui` must listen on loopback only"

    ARTIFACTS.mkdir(exist_ok=True)
    graph_png = ARTIFACTS / "ui-asset-graph.png"
    extract_png = ARTIFACTS / "ui-extract-checks.png"
    catalog_png = ARTIFACTS / "ui-catalog-checks.png"
    held_png, empty_png = ARTIFACTS / "ui-shard-held.png", ARTIFACTS / "ui-shard-empty.png"
    overview_png, runs_png = ARTIFACTS / "ui-extract-overview.png", ARTIFACTS / "ui-runs-of-one-run.png"
    held = Home(home).warehouse.shards("documents", EXTRACTOR_VERSION)
    assert len(held) == 3, held
    first, last = SHARD_KEYS.index(held[0]), SHARD_KEYS.index(held[-1])
    empty = next(s for s in SHARD_KEYS[first:last] if s not in held)
    pngs = (graph_png, extract_png, catalog_png, held_png, empty_png, overview_png, runs_png)
    for old in pngs:
        old.unlink(missing_ok=True)
    derivations = Home(home).warehouse.columns("derivations", EXTRACTOR_VERSION, ("sha256",))

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium_path), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(UI_TIMEOUT_MS)
            expect.set_options(timeout=UI_TIMEOUT_MS)

            page.goto(f"{web_ui.url}/asset-groups")
            expect(page.get_by_text("Global asset lineage")).to_be_visible()
            graph = page.locator("[data-svg-viewport]")
            # The groups start collapsed; wait for one before expanding them all with the UI's shortcut.
            expect(graph.get_by_text("ingest", exact=True)).to_be_visible()
            page.get_by_text("Hide navigation").click()
            page.get_by_role("button", name="panel_show_right", exact=True).click()  # the asset list beside
            page.keyboard.press("Alt+KeyE")  # "Expand all groups (⌥E)" in the graph's settings menu

            # A node is drawn as a card with the asset icon and the asset's name; group frames have neither.
            for name in assets:
                node = (
                    graph.locator("foreignObject")
                    .filter(has=page.get_by_role("img", name="asset", exact=True))
                    .filter(has=page.get_by_text(name, exact=True))
                )
                expect(node).to_have_count(1)
                expect(node).to_be_visible()
                if name in checks:
                    link = node.locator(f'a[href="/assets/{name}?view=checks"]')
                    expect(node).to_contain_text("Asset checks")
                    if name in all_passed:
                        expect(link).to_have_text(f"{all_passed[name]} / {all_passed[name]} Passed")
            _screenshot(page, graph_png)

            # From the graph to the extract asset's Checks tab, as a person would: its node's checks row.
            graph.locator('a[href="/assets/extract?view=checks"]').click()
            expect(page).to_have_url(f"{web_ui.url}/assets/extract?view=checks")
            _expect_checks_tab(page, checks["extract"])
            _screenshot(page, extract_png)

            page.goto(f"{web_ui.url}/assets/catalog?view=checks")
            _expect_checks_tab(page, checks["catalog"])
            _screenshot(page, catalog_png)

            # A shard that holds a document shows its own counts; one that holds nothing says so.
            page.goto(f"{web_ui.url}/assets/extract?view=partitions&partition={held[0]}")
            # (The UI shows a materialization's metadata as a table, not its description.)
            page.goto(f"{web_ui.url}/assets/extract?view=partitions&partition={held[0]}")
            expect(page.get_by_role("row", name="documents 1", exact=True)).to_be_visible()
            expect(page.get_by_role("row", name="rows derivations 1", exact=True)).to_be_visible()
            expect(page.get_by_role("row", name="empty false", exact=True)).to_be_visible()
            _screenshot(page, held_png)
            page.goto(f"{web_ui.url}/assets/extract?view=partitions&partition={empty}")
            expect(page.get_by_role("row", name="empty true", exact=True)).to_be_visible()
            expect(page.get_by_role("row", name="dagster/partition_row_count 0", exact=True)).to_be_visible()
            # The table's rows, whichever shard's materialization: not the empty shard's 0.
            rows = f"dagster/row_count {len(derivations)}"
            expect(page.get_by_role("row", name=rows, exact=True)).to_be_visible()
            expect(page.get_by_role("row", name="documents 0", exact=True)).to_be_visible()
            _screenshot(page, empty_png)

            # The asset's overview: its row count is the table's (before: the latest shard's, often 0).
            page.goto(f"{web_ui.url}/assets/extract?view=overview")
            row_count = page.get_by_text("Row count", exact=True).locator("xpath=..")
            expect(row_count).to_have_text(re.compile(rf"^Row count\s*{len(derivations)}$"))
            _screenshot(page, overview_png)

            # One more `assay run` as a user runs it, while the UI serves: the runs of each run, and
            # only them, are in the runs list filtered by the tag its summary names.
            later = _assay_run(home, tmp_path / "later")
            for run_id, runs in ((materialised.assay_run, materialised.runs), later):
                _expect_runs_of(page, runs_url(run_id, base=web_ui.url), run_id, _tagged(home, run_id))
                assert len(_tagged(home, run_id)) == runs, (run_id, runs)
            _screenshot(page, runs_png)
        finally:
            browser.close()

    for png in pngs:
        _assert_png(png)


def _assay_run(home: Path, folder: Path) -> tuple[str, int]:
    """`assay run` over one new text file in ``folder``, as a user runs it; returns the tag id and the
    number of Dagster runs its summary names, read off the runs page address it prints."""
    folder.mkdir()
    (folder / "levels.txt").write_text("The reservoir levels were read at each inlet every morning.\n")
    assay = Path(sys.executable).with_name("assay")
    done = subprocess.run(
        [str(assay), "run", "--home", str(home), str(folder)],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    base = re.escape(f"http://{UI_HOST}:{UI_PORT}/runs?")
    found = re.search(base + r"\S*%3D([0-9a-f]+)\s+# this run's (\d+) Dagster runs?", done.stdout)
    assert found, done.stdout
    run_id, runs = found.group(1), int(found.group(2))
    assert runs_url(run_id) in done.stdout and f"assay/run={run_id}" in done.stdout
    return run_id, runs


def _tagged(home: Path, run_id: str) -> set[str]:
    """The ids of the Dagster runs in the home's instance tagged with ``run_id``."""
    instance = dg.DagsterInstance.from_config(str(home / "dagster"), config_filename="assay-run.yaml")
    try:
        return {r.run_id for r in instance.get_runs(filters=dg.RunsFilter(tags={RUN_TAG: run_id}))}
    finally:
        instance.dispose()


def _expect_runs_of(page: Page, url: str, run_id: str, runs: set[str]) -> None:
    """The runs page at ``url`` lists the ``runs``, and only them, each showing its ``assay/run`` tag."""
    from playwright.sync_api import expect

    page.goto(url)
    expect(page.get_by_text(f"{RUN_TAG}: {run_id}", exact=True)).to_have_count(len(runs))
    links = page.locator('a[href^="/runs/"]').evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert {link.removeprefix("/runs/") for link in links} == runs, (url, links)


def _screenshot(page: Page, path: Path) -> None:
    """Wait until the page has fetched what it draws (the icons are SVG files loaded on first use), then
    capture it whole."""
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(path), full_page=True)


def _expect_checks_tab(page: Page, names: list[str]) -> None:
    from playwright.sync_api import expect

    expect(page.get_by_role("tab", name="Checks", exact=True)).to_have_attribute("aria-selected", "true")
    expect(page.get_by_text(f"Checks ({len(names)})", exact=True)).to_be_visible()
    for name in names:
        expect(page.get_by_text(name, exact=True).first).to_be_visible()
    expect(page.get_by_text("Passed", exact=True).first).to_be_visible()
