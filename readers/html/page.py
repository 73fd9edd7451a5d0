"""The whole-page HTML reader: the last step of the HTML chain (DESIGN §3).

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
    # 3: a data table's cell lists its items ("a; b") and its <br> lines on one line; a list in a cell no
    # longer makes the table a layout grid.
    # 4: a charset browsers do not support (UTF-7, UTF-32, EBCDIC) is no declaration (readers/html/common.py).
    # 5: a cell spanning rows (rowspan) leaves its columns empty below, so the cells beside it keep their
    # columns; each GFM table of the text is also a `tables` row.
    revision: ClassVar[int] = 5

    def content(self, document: HtmlDocument, limits: ReadLimits) -> Content:
        tree = clean(document.root, PAGE_DROP)
        body = tree.find("body")
        return Content(to_markdown(body if body is not None else tree))
