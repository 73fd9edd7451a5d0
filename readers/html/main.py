"""The main-content HTML reader: trafilatura, the second step of the HTML chain (docs/design.md §3).

For a page that marks no region, a readability-style extractor finds the main content by itself.
trafilatura is the best-measured one (at or near the top of the independent comparisons, such as
Bevendorff et al., SIGIR 2023), and it writes markdown: headings, lists, tables and code blocks survive.

It reads the tree :mod:`readers.html.tree` parsed (so the encoding decision is assay's, never
trafilatura's own guess), with its options fixed here, its packaged defaults (never a user's settings
file), and never with a URL:
trafilatura fetches nothing unless it is given one (``fetch_url``, the spider and the feeds are its only
network code, and assay calls none of them), and without metadata extraction htmldate never runs.
"""

from __future__ import annotations

from configparser import ConfigParser
from typing import ClassVar, Final

import trafilatura
from lxml import etree
from trafilatura.settings import use_config

from readers.core.markup import delimit_tables
from readers.core.model import ReadLimits
from readers.html.chain import Content, HtmlReader
from readers.html.cleaning import CONTENT_DROP, clean
from readers.html.markdown import flatten_cells
from readers.html.tree import HtmlDocument

#: trafilatura's options, chosen on the corpus's seven annotated pages (benchmarks/eval_html.py, this
#: reader alone: ``--only trafilatura``):
#: - comments off: a page's comment section is not its text (with comments on, the Arabic page leaks its
#:   "add a new comment" heading: 6 of 7 pages instead of 7);
#: - the balanced mode, trafilatura's default: ``favor_precision`` and ``favor_recall`` pass the same seven
#:   pages on the tree as cleaned here (on the raw page, recall leaks the Japanese page's dictionary hint,
#:   an element hidden by class, which the cleaning removes first);
#: - tables on (their text is content), formatting on (markdown headings, lists and code fences), links
#:   and images off (their targets are not text), no metadata (so htmldate, the only dependency that
#:   could fetch a URL, never runs).
OPTIONS: Final = {
    "output_format": "markdown",
    "include_comments": False,
    "include_tables": True,
    "include_formatting": True,
    "include_links": False,
    "include_images": False,
    "favor_precision": False,
    "favor_recall": False,
    "deduplicate": False,
    "with_metadata": False,
}

#: What goes before trafilatura sees the tree: code, hidden elements and the page's furniture (navigation,
#: sidebars, footers, small forms), as for the marked region. trafilatura would drop most of it itself,
#: but its last-resort baseline takes whatever text a page has, navigation included, and navigation must
#: never leak. Headers stay: an article's header holds its headline. On the corpus this changes no page's
#: result (benchmarks/eval_html.py), only the guarantee.
MAIN_DROP = CONTENT_DROP


#: Inline elements trafilatura's markdown writes as HTML tags (``H<sub>2</sub>O``: its ``#u``, ``#sub`` and
#: ``#sup`` renderings, which markdown has no mark for): unwrapped to their text before it reads the tree,
#: as the other readers of the chain write them.
UNWRAPPED: Final = ("u", "sub", "sup")


#: trafilatura's packaged defaults (its ``settings.cfg``, never a user's settings file). Its download
#: settings there serve ``fetch_url`` only; the extraction ones (the sizes under which it retries with
#: its fallback extractors) are left as trafilatura measured them.
CONFIG: Final[ConfigParser] = use_config()


class HtmlMainReader(HtmlReader):
    """trafilatura's main content of the page, as markdown; nothing when it finds none."""

    name: ClassVar[str] = "trafilatura"
    # What each revision changed: docs/decisions.md, "Text judging: calibration notes".
    revision: ClassVar[int] = 5

    @property
    def tool_version(self) -> str:
        return f"{trafilatura.__version__}/{super().tool_version}"

    def content(self, document: HtmlDocument, limits: ReadLimits) -> Content:
        tree = clean(document.root, MAIN_DROP)
        etree.strip_tags(tree, *UNWRAPPED)
        flatten_cells(tree)
        text = trafilatura.extract(tree, url=None, config=CONFIG, **OPTIONS)
        return Content(delimit_tables(text or ""))
