"""The marked-region HTML reader: the first step of the HTML chain (docs/design.md §3).

A page that marks its main content (``<main>``, ``role="main"``, ``#main-content``, ``.main-content``,
``<article>``) has said where its text is: no guess beats the author's own mark. The reader takes the
widest marked region, and produces nothing (an empty text: the chain falls through to trafilatura) when
the page marks none, or when what it marks holds no text.

"Widest" is measured in prose, the text outside links: a feed or a "more from this author" box marked as
``<article>`` is mostly links, and would otherwise outweigh the article it sits next to. Inside the region,
what is not the region's own text goes (the region's ``header`` stays: it holds the headline and byline):

- code, forms, navigation, sidebars, footers (an article's footer holds its tags, share buttons and
  previous/next links) and hidden elements, as on the whole page;
- sections named as boilerplate by their class or id (:data:`BOILERPLATE_NAMES`: comments, related posts,
  share bars...), unless they hold most of the region's prose (then the name is a theme's quirk);
- blocks that are mostly links (:data:`LINK_DENSITY_MAX`): lists of related posts and tag clouds.
"""

from __future__ import annotations

import re
from typing import ClassVar, Final

import lxml.html

from readers.core.model import ReadLimits
from readers.html.chain import Content, HtmlReader
from readers.html.cleaning import CONTENT_DROP, clean, drop, elements, link_chars, prose_chars, text_chars
from readers.html.markdown import to_markdown
from readers.html.tree import HtmlDocument

#: The marks a page puts on its main content, with the name the result's note gives each. The widest
#: region wins whichever mark it carries; a tie goes to the first in document order (the outer one).
REGION_MARKS: Final[tuple[tuple[str, str], ...]] = (
    ("main", "//main"),
    ("role=main", "//*[translate(normalize-space(@role), 'MAIN', 'main')='main']"),
    ("#main-content", "//*[@id='main-content']"),
    (".main-content", "//*[contains(concat(' ', normalize-space(@class), ' '), ' main-content ')]"),
    ("article", "//article"),
)

#: What goes before the region is chosen and measured (the page's furniture is outside the region anyway).
REGION_DROP = CONTENT_DROP

#: Words in a class or id (split at anything but letters and digits) that name a section as not the
#: region's own text: Mozilla Readability.js's "unlikely candidates" that name a section (comment, disqus,
#: replies, related, social, sponsor, pagination, pager, popup, breadcrumbs, gdpr, rss, sidebar), without
#: the layout slots it also lists (header, footer, menu, extra), plus the names of share bars, newsletter
#: boxes, adverts, cookie notices and widgets.
BOILERPLATE_NAMES: Final = frozenset(
    {
        "comment",
        "comments",
        "disqus",
        "replies",
        "related",
        "share",
        "sharing",
        "social",
        "breadcrumb",
        "breadcrumbs",
        "pagination",
        "pager",
        "newsletter",
        "subscribe",
        "advert",
        "advertisement",
        "sponsor",
        "sponsored",
        "promo",
        "popup",
        "modal",
        "cookie",
        "cookies",
        "gdpr",
        "sidebar",
        "widget",
        "rss",
    }
)

#: A boilerplate-named section is kept when it holds more than this share of the region's prose: then the
#: name is not what it looks like (a theme that wraps every post in ``div.share-wrapper``).
BOILERPLATE_PROSE_SHARE_MAX = 0.5

#: A block whose text is more than this share link text is a list of links, not prose (Readability.js
#: drops blocks over the same 0.5). Measured on the corpus: the chosen regions as a whole are 0.00-0.23
#: links; the related-posts, "read also", news-feed and attachment lists 0.71-0.99.
LINK_DENSITY_MAX = 0.5

#: The containers judged by their link density (a paragraph or a heading that is a link stays: it is
#: text that happens to link).
_LINK_JUDGED: Final = frozenset({"div", "section", "ul", "ol", "dl", "table", "header", "figure"})

_NAME_PARTS = re.compile(r"[^a-z0-9]+")


def _named_boilerplate(element: lxml.html.HtmlElement) -> bool:
    words = _NAME_PARTS.split(f"{element.get('class', '')} {element.get('id', '')}".lower())
    return any(word in BOILERPLATE_NAMES for word in words)


def widest_region(root: lxml.html.HtmlElement) -> tuple[str, lxml.html.HtmlElement] | None:
    """The marked region with the most prose and its mark, or ``None`` when no mark holds any."""
    best: tuple[int, int, str, lxml.html.HtmlElement] | None = None
    order = {id(e): i for i, e in enumerate(elements(root))}
    for mark, xpath in REGION_MARKS:
        for element in root.xpath(xpath):
            prose = prose_chars(element)
            key = (prose, -order.get(id(element), 0))
            if prose > 0 and (best is None or key > best[:2]):
                best = (*key, mark, element)
    return None if best is None else (best[2], best[3])


def strip_boilerplate(region: lxml.html.HtmlElement) -> None:
    """Remove, inside ``region`` (never the region itself), the named boilerplate sections and the
    link-dense blocks (module docstring)."""
    prose = prose_chars(region)
    named = [
        e
        for e in elements(region)
        if e is not region and _named_boilerplate(e) and prose_chars(e) <= BOILERPLATE_PROSE_SHARE_MAX * prose
    ]
    drop(named)
    dense = []
    for element in elements(region):
        if element is region or element.tag.lower() not in _LINK_JUDGED:
            continue
        total = text_chars(element)
        if total and link_chars(element) > LINK_DENSITY_MAX * total:
            dense.append(element)
    drop(dense)


class HtmlRegionReader(HtmlReader):
    """The widest marked region of the page, as markdown; nothing when the page marks none."""

    name: ClassVar[str] = "html-region"
    # What each revision changed: docs/decisions.md, "Text judging: calibration notes".
    revision: ClassVar[int] = 5

    def content(self, document: HtmlDocument, limits: ReadLimits) -> Content:
        tree = clean(document.root, REGION_DROP)
        found = widest_region(tree)
        if found is None:
            return Content("", ("region:none",))
        mark, region = found
        strip_boilerplate(region)
        return Content(to_markdown(region, prune_empty_sections=True), (f"region:{mark}",))
