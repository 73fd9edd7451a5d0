"""An HTML page parsed into a tree, safely, and its title.

**Safety.** The parser never touches the network, keeps libxml2's resource limits (nesting depth 256, 10 MB
text nodes: a page over them is ``over_limit``, not half read), and drops comments and processing
instructions. libxml2's HTML parser reads no DTD and expands only HTML's own named entities, so there is
no external entity to resolve (lxml's ``HTMLParser`` has no ``resolve_entities`` switch to set).

**Title.** The document's own title (``<title>``, else ``og:title``, else the first ``<h1>``) is written on
top of the text as a level-1 heading. A page whose only text is its title has produced nothing (a
redirect stub, an empty template): the title is written above text, never instead of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import lxml
import lxml.html
from lxml import etree

from readers.core.errors import CorruptDocument, LimitExceeded
from readers.core.model import ReadLimits
from readers.html.charset import HtmlDecoded, decode_html
from readers.html.cleaning import PAGE_DROP, clean
from readers.html.markdown import BLOCKS, fold, text_of

#: libxml2 reports its resource limits (nesting depth 256, text nodes over 10 MB without ``huge_tree``)
#: with this error type (``XML_ERR_RESOURCE_LIMIT``), and stops parsing there.
_RESOURCE_LIMIT = "ERR_RESOURCE_LIMIT"


@dataclass(frozen=True, slots=True)
class HtmlDocument:
    """A parsed page: its tree (never modified by a reader: each works on a copy), its title and where
    the title came from, and how its bytes were decoded."""

    root: lxml.html.HtmlElement
    title: str | None
    title_source: str | None
    decoded: HtmlDecoded


def _parser() -> lxml.html.HTMLParser:
    """A fresh parser per page (lxml's parsers are not to be shared between threads): no network, no
    decompression, libxml2's limits kept, comments and processing instructions dropped."""
    return lxml.html.HTMLParser(
        encoding="utf-8",
        no_network=True,
        decompress=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        default_doctype=False,
        collect_ids=False,
    )


def parse_html(data: bytes, *, declared_encoding: str | None = None) -> HtmlDocument | None:
    """Decode and parse a page; ``None`` when there is no document at all (no bytes but whitespace).

    Raises :class:`LimitExceeded` when libxml2 stops at one of its limits (the rest of the page would be
    silently lost) and :class:`CorruptDocument` when lxml cannot build a tree.
    """
    decoded = decode_html(data, declared_encoding=declared_encoding)
    # The tree is built from UTF-8 with the encoding forced, so a <meta charset> in the page cannot make
    # libxml2 decode it a second time, differently; NUL is not a character HTML allows (the parser would
    # cut the text there), so it becomes the replacement character, as browsers show it.
    payload = decoded.text.replace("\x00", "\ufffd").encode("utf-8", errors="replace")
    if not payload.strip():
        return None
    parser = _parser()
    try:
        root = etree.fromstring(payload, parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:
        raise CorruptDocument(f"the page could not be parsed: {exc}") from exc
    for entry in parser.error_log:
        if entry.type_name == _RESOURCE_LIMIT:
            raise LimitExceeded(f"the page is over a parser limit: {entry.message}")
    if root is None:
        return None
    if not isinstance(root, lxml.html.HtmlElement):
        raise CorruptDocument(f"the page parsed to a {type(root).__name__}, not an HTML element")
    unnest_voids(root)
    title, title_source = page_title(root)
    return HtmlDocument(root, title, title_source, decoded)


#: Elements that never have content (the HTML Standard's void elements, and the obsolete ones browsers still
#: parse as void). libxml2's HTML parser knows only some of them: it opens ``<embed>``, ``<keygen>``,
#: ``<source>``, ``<track>``, ``<wbr>``... as containers and nests everything up to the end of their parent
#: inside them, where a reader dropping ``embed`` drops the text with it.
VOID_ELEMENTS: Final = frozenset(
    {
        "area",
        "base",
        "basefont",
        "bgsound",
        "br",
        "col",
        "command",
        "embed",
        "frame",
        "hr",
        "image",
        "img",
        "input",
        "isindex",
        "keygen",
        "link",
        "menuitem",
        "meta",
        "nextid",
        "param",
        "source",
        "spacer",
        "track",
        "wbr",
    }
)


def unnest_voids(root: lxml.html.HtmlElement) -> None:
    """Put back after each void element what libxml2 nested inside it (its text and its children, in
    order), as a browser builds the tree: the void element is left empty. A ``<col>`` outside a table,
    which browsers ignore, is taken out and the paragraph libxml2 closed at it goes on."""
    for void in list(root.iter(*VOID_ELEMENTS)):
        parent = void.getparent()
        if void.tag == "col" and parent is not None and not _in_table(void):
            _rejoin_paragraph(void)
            continue
        if parent is None or (void.text is None and len(void) == 0):
            continue
        children, tail = list(void), void.tail
        void.tail, void.text = void.text, None
        at = parent.index(void)
        for offset, child in enumerate(children, start=1):
            parent.insert(at + offset, child)  # the child's tail moves with it
        last = children[-1] if children else void
        if tail:
            last.tail = (last.tail or "") + tail


def _in_table(element: lxml.html.HtmlElement) -> bool:
    return any(a.tag in ("table", "colgroup") for a in element.iterancestors())


def _rejoin_paragraph(stray: lxml.html.HtmlElement) -> None:
    """Take ``stray`` out; its tail and the inline elements after it go back to the end of the paragraph
    just before it, where the page wrote them."""
    before = stray.getprevious()
    if before is not None and before.tag == "p" and not (before.tail or "").strip():
        _append_text(before, stray.tail)
        stray.tail = None
        follower = stray.getnext()
        while follower is not None and isinstance(follower.tag, str) and follower.tag not in BLOCKS:
            after = follower.getnext()
            before.append(follower)  # its tail moves with it
            follower = after
    stray.drop_tree()  # keeps its tail, if still there


def _append_text(element: lxml.html.HtmlElement, text: str | None) -> None:
    if not text:
        return
    if len(element):
        element[-1].tail = (element[-1].tail or "") + text
    else:
        element.text = (element.text or "") + text


def check_size(data: bytes, limits: ReadLimits) -> None:
    if len(data) > limits.max_text_bytes:
        raise LimitExceeded(f"the page is over the limit of {limits.max_text_bytes} bytes of text")


def page_title(root: lxml.html.HtmlElement) -> tuple[str | None, str | None]:
    """The document's own title and its source: ``<title>``, else ``og:title``, else the first ``<h1>``.

    Scripts inside an ``<h1>`` and ruby readings (``<rt>``, ``<rp>``: furigana over Japanese) are not its
    title.
    """
    for element in root.iter("title"):
        text = fold(element.text_content())
        if text:
            return text, "title"
        break
    for content in root.xpath("//meta[@property='og:title' or @name='og:title']/@content"):
        text = fold(str(content))
        if text:
            return text, "og:title"
    for element in root.iter("h1"):
        text = fold(text_of(clean(element, PAGE_DROP)))
        if text:
            return text, "h1"
    return None, None


#: What sites put between a page's headline and their own name in ``<title>`` ("Headline | Site",
#: "Site - Headline"): a first heading so decorated is the title already, and is not written twice.
TITLE_SEPARATORS = "|-–—:·»«/•"
_AFTER_HEADLINE = re.compile(rf"\s+[{re.escape(TITLE_SEPARATORS)}]\s*\S")
_BEFORE_HEADLINE = re.compile(rf"\S\s*[{re.escape(TITLE_SEPARATORS)}]\s+$")


def _decorates(title: str, heading: str) -> bool:
    """``title`` is ``heading`` with a site's name after or before it, across a spaced separator."""
    if not heading:
        return False
    after, before = title.removeprefix(heading), title.removesuffix(heading)
    return bool(
        (after != title and _AFTER_HEADLINE.match(after))
        or (before != title and _BEFORE_HEADLINE.search(before))
    )


def with_title(text: str, title: str | None) -> str:
    """``text`` under ``# title``, unless it already starts with that heading (at any level) or with the
    headline the title decorates with the site's name (:data:`TITLE_SEPARATORS`); text that is empty
    stays empty (module docstring)."""
    if not title or not text.strip():
        return text
    first = next((line for line in text.splitlines() if line.strip()), "")
    wanted = title.casefold()
    heading = fold(first.lstrip("#")).casefold()
    if heading == wanted or (first.startswith("#") and _decorates(wanted, heading)):
        return text
    return f"# {title}\n\n{text.lstrip()}"
