"""The whole-page HTML reader: the last step of the HTML chain (docs/design.md §3).

When the page marks no region and trafilatura finds no main content (a short page, a list, a form letter),
the whole body is the text: everything a reader would see, without the code (scripts, styles, templates,
``noscript``), the furniture (navigation, header, footer, sidebars, forms) and what is hidden. It keeps
more than the two steps before it, by design: it is what is left when they found nothing.
"""

from __future__ import annotations

from typing import ClassVar

from readers.core.model import ReadLimits
from readers.html.chain import Content, HtmlReader
from readers.html.cleaning import PAGE_DROP, clean
from readers.html.markdown import to_markdown
from readers.html.tree import HtmlDocument


class HtmlPageReader(HtmlReader):
    """The body of the page, cleaned (:data:`readers.html.cleaning.PAGE_DROP`), as markdown."""

    name: ClassVar[str] = "html-page"
    # What each revision changed: docs/decisions.md, "Text judging: calibration notes".
    revision: ClassVar[int] = 5

    def content(self, document: HtmlDocument, limits: ReadLimits) -> Content:
        tree = clean(document.root, PAGE_DROP)
        body = tree.find("body")
        return Content(to_markdown(body if body is not None else tree))
