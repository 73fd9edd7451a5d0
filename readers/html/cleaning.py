"""What the HTML readers drop from a page before its text is taken: code, furniture, hidden elements.

The whole-page reader drops navigation, banners, footers and sidebars (:data:`PAGE_DROP`); the readers
that look for the main content keep an article's header (:data:`CONTENT_DROP`). The counts of a
subtree's characters (text, links, prose) are what the readers weigh regions and forms by.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

import lxml
import lxml.html

from readers.html.markdown import fold

#: Elements that are never text: code, styling, embedded objects, form controls, and ruby readings (the
#: furigana of Japanese text, which would interleave with the words they gloss).
NEVER_TEXT: Final = frozenset(
    {
        "script",
        "style",
        "template",
        "noscript",
        "iframe",
        "frame",
        "object",
        "embed",
        "applet",
        "svg",
        "canvas",
        "audio",
        "video",
        "map",
        "head",
        "link",
        "meta",
        "base",
        "button",
        "input",
        "select",
        "option",
        "textarea",
        "datalist",
        "dialog",
        "rt",
        "rp",
    }
)

#: The page's furniture: navigation, banner, footer, sidebars (forms are judged by :data:`FORM_PROSE_MAX`).
FURNITURE: Final = frozenset({"nav", "header", "footer", "aside", "menu"})

#: A ``<form>`` with at most this much prose (text outside links and controls) is furniture: a search box,
#: a login, a newsletter or comment form. More, and the form wraps the page: ASP.NET pages put their whole
#: body in one form. Measured on the corpus: real forms hold 0-162 characters of prose (a newsletter
#: box's pitch), a sports site's page-wide ``aspnetForm`` 2190.
FORM_PROSE_MAX = 500

#: ARIA roles that mark the same furniture on generic elements.
FURNITURE_ROLES: Final = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "dialog", "alert"}
)

#: Class names (whole, or as a ``hide-``/``hidden-`` prefix) that hide an element by CSS convention
#: (Bootstrap's ``d-none``, ``sr-only``, WordPress's ``screen-reader-text``...): assay cannot evaluate
#: stylesheets, and responsive pages carry the same text twice, once hidden per layout. ``-print``
#: variants hide on paper only, and are kept.
HIDDEN_CLASSES: Final = frozenset(
    {
        "hidden",
        "hide",
        "d-none",
        "is-hidden",
        "invisible",
        "sr-only",
        "visually-hidden",
        "screen-reader-text",
        "element-invisible",
    }
)

_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class DropRules:
    """What one reader removes before it reads: element names, ARIA roles, and whether hidden elements go."""

    tags: frozenset[str]
    roles: frozenset[str]
    hidden: bool = True
    small_forms: bool = True


#: The whole-page reader's rules: no code, no furniture, nothing hidden.
PAGE_DROP = DropRules(tags=NEVER_TEXT | FURNITURE, roles=FURNITURE_ROLES)

#: The rules of the readers that look for the main content (the marked region, trafilatura): the same,
#: except that ``header`` stays, because an article's header holds its headline (the page's banner is
#: outside the region, and trafilatura judges it itself).
CONTENT_DROP = DropRules(tags=NEVER_TEXT | (FURNITURE - {"header"}), roles=FURNITURE_ROLES)


def is_hidden(element: lxml.html.HtmlElement) -> bool:
    """Hidden by the ``hidden`` attribute, ``aria-hidden``, an inline style, or a hiding class."""
    if element.get("hidden") is not None or element.get("aria-hidden", "").strip().lower() == "true":
        return True
    if _HIDDEN_STYLE.search(element.get("style", "")):
        return True
    for name in element.get("class", "").lower().split():
        if name in HIDDEN_CLASSES:
            return True
        if name.startswith(("hide-", "hidden-")) and not name.endswith("print"):
            return True
    return False


def elements(root: lxml.html.HtmlElement) -> Iterator[lxml.html.HtmlElement]:
    """The elements under ``root`` (itself included), skipping comments, entities and PIs."""
    for element in root.iter():
        if isinstance(element.tag, str):
            yield element


def drop(nodes: Iterable[lxml.html.HtmlElement]) -> None:
    """Remove each element with its content, keeping the text that follows it (its tail)."""
    for element in list(nodes):
        if element.getparent() is not None:
            element.drop_tree()


def clean(root: lxml.html.HtmlElement, rules: DropRules) -> lxml.html.HtmlElement:
    """A copy of ``root`` without what ``rules`` remove (``root`` itself is never removed)."""
    tree = copy.deepcopy(root)
    doomed = [
        e
        for e in elements(tree)
        if e is not tree
        and (
            e.tag.lower() in rules.tags
            or e.get("role", "").strip().lower() in rules.roles
            or (rules.hidden and is_hidden(e))
        )
    ]
    drop(doomed)
    if rules.small_forms:
        drop(e for e in tree.iter("form") if e is not tree and prose_chars(e) <= FORM_PROSE_MAX)
    return tree


def _length(text: str) -> int:
    return len(fold(text))


def link_chars(element: lxml.html.HtmlElement) -> int:
    """Characters of text inside links (a link inside a link counted once)."""
    total = 0
    for link in element.iter("a"):
        if not any(a.tag == "a" for a in link.iterancestors()):
            total += _length(link.text_content())
    return total


def text_chars(element: lxml.html.HtmlElement) -> int:
    """Characters of text, whitespace folded."""
    return _length(element.text_content())


def prose_chars(element: lxml.html.HtmlElement) -> int:
    """Characters of text outside links: what is read rather than clicked."""
    return max(0, text_chars(element) - link_chars(element))
