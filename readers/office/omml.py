"""Office Math (OMML, ``m:oMath``) as one line of linear text, in the manner of UnicodeMath.

Word keeps an equation's operators out of its text runs: the ``∑`` of a sum is the n-ary's ``m:chr``
property, a fraction bar is the ``m:f`` element itself, a radical's sign is the ``m:rad``. Reading only
the ``m:t`` runs turns ``∑₀² x`` into ``02x``. :func:`linear` writes each structure the way Word's own
linear format (UnicodeMath, Unicode Technical Note 28) does, so the symbols stay symbols and the text
stays searchable:

- runs (``m:r``/``m:t``) as their text;
- fractions ``(num)/(den)``; sub/superscripts ``x_(i)``, ``x^(2)``, ``x_(i)^(2)``, pre-scripts
  ``_(i)^(2)x``;
- n-ary operators ``∑_(lower)^(upper) body`` (``∫`` when ``m:chr`` is absent, limits left out when hidden);
- radicals ``√(x)``, ``√(n&x)`` with a degree; delimiters with their own begin, separator and end
  characters (``(a|b)`` by default); functions ``sin x``;
- matrices ``■(a&b@c&d)`` and equation arrays ``█(a@b)`` (``&`` between cells, ``@`` between rows);
- accents as the base followed by the combining mark, bars ``¯(x)`` / ``▁(x)``, group characters
  ``⏟(x)``, lower and upper limits ``lim_(n→∞)``; boxes and phantoms as their content.

Every argument is parenthesized, even a single character: ``x_(10)`` cannot be misread. An element the
module does not know is written as its children's text in document order, and properties (``*Pr``) are
never text, so every ``m:t`` of an equation appears in its linear form, in order. Nesting deeper than
:data:`MAX_DEPTH` is written as the plain text of the ``m:t`` runs below it.
"""

from __future__ import annotations

from typing import Any

M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
_M_VAL = f"{M}val"

#: Structures nested deeper than this are written as their runs' text: Word's equation editor nests a
#: few levels (a fraction in a sum's limit in a radical is 6); the bound keeps Python's stack safe on a
#: hostile document, well below the default recursion limit of 1000.
MAX_DEPTH = 100

#: The n-ary operator when ``m:chr`` is absent (ECMA-376 22.1.2.20: the integral).
DEFAULT_NARY = "∫"
#: An accent without ``m:chr``: the combining circumflex (ECMA-376 22.1.2.20).
DEFAULT_ACCENT = "\u0302"
#: A group character without ``m:chr``: the bottom curly bracket (ECMA-376 22.1.2.41).
DEFAULT_GROUP = "\u23df"


def _tag(element: Any) -> str:
    tag = element.tag
    return tag if isinstance(tag, str) else ""


def _child(element: Any, name: str) -> Any | None:
    return element.find(f"{M}{name}")


def _prop(element: Any, props: str, name: str) -> str | None:
    """The ``m:val`` of property ``name`` in ``element``'s ``props`` child, or None when absent."""
    pr = _child(element, props)
    if pr is None:
        return None
    prop = pr.find(f"{M}{name}")
    return None if prop is None else prop.get(_M_VAL, "")


def _on(value: str | None) -> bool:
    return value is not None and value.lower() not in ("0", "false", "off")


def linear(element: Any) -> str:
    """The linear text of an ``m:oMath`` (or of any OMML element)."""
    return _write(element, 0).strip()


def display_lines(para: Any) -> list[str]:
    """The equations of an ``m:oMathPara``, one line each (empty ones left out)."""
    out = []
    for child in para:
        if _tag(child) == f"{M}oMath":
            text = linear(child)
            if text:
                out.append(text)
    return out


def _runs_text(element: Any) -> str:
    return "".join(t.text or "" for t in element.iter(f"{M}t"))


def _arg(element: Any, name: str, depth: int) -> str:
    """The linear text of ``element``'s child ``name`` ("" when absent)."""
    child = _child(element, name)
    return "" if child is None else _write(child, depth + 1)


def _group(text: str) -> str:
    return f"({text})"


def _write(element: Any, depth: int) -> str:
    tag = _tag(element)
    if not tag:
        return ""
    if depth > MAX_DEPTH:
        return _runs_text(element)
    writer = _WRITERS.get(tag)
    if writer is not None:
        return writer(element, depth)
    if tag == f"{M}t":  # a run's text outside a run
        return element.text or ""
    if tag.endswith("Pr"):  # properties (m:fPr, m:ctrlPr, w:rPr) are never text
        return ""
    return "".join(_write(child, depth + 1) for child in element)


def _run(element: Any, depth: int) -> str:
    return _runs_text(element)


def _fraction(element: Any, depth: int) -> str:
    num, den = _arg(element, "num", depth), _arg(element, "den", depth)
    kind = _prop(element, "fPr", "type")
    if kind == "noBar":  # a binomial coefficient's stack
        return f"{_group(num)}¦{_group(den)}"
    return f"{_group(num)}/{_group(den)}"


def _scripts(sub: str | None, sup: str | None) -> str:
    out = ""
    if sub:
        out += "_" + _group(sub)
    if sup:
        out += "^" + _group(sup)
    return out


def _sub(element: Any, depth: int) -> str:
    return _arg(element, "e", depth) + _scripts(_arg(element, "sub", depth), None)


def _sup(element: Any, depth: int) -> str:
    return _arg(element, "e", depth) + _scripts(None, _arg(element, "sup", depth))


def _subsup(element: Any, depth: int) -> str:
    return _arg(element, "e", depth) + _scripts(_arg(element, "sub", depth), _arg(element, "sup", depth))


def _pre(element: Any, depth: int) -> str:
    return _scripts(_arg(element, "sub", depth), _arg(element, "sup", depth)) + _arg(element, "e", depth)


def _nary(element: Any, depth: int) -> str:
    op = _prop(element, "naryPr", "chr")
    op = DEFAULT_NARY if op is None else op
    sub = "" if _on(_prop(element, "naryPr", "subHide")) else _arg(element, "sub", depth)
    sup = "" if _on(_prop(element, "naryPr", "supHide")) else _arg(element, "sup", depth)
    body = _arg(element, "e", depth)
    return f"{op}{_scripts(sub, sup)} {body}".rstrip()


def _radical(element: Any, depth: int) -> str:
    degree = "" if _on(_prop(element, "radPr", "degHide")) else _arg(element, "deg", depth)
    body = _arg(element, "e", depth)
    return f"√({degree}&{body})" if degree else f"√({body})"


def _delimiter(element: Any, depth: int) -> str:
    begin = _prop(element, "dPr", "begChr")
    end = _prop(element, "dPr", "endChr")
    sep = _prop(element, "dPr", "sepChr")
    parts = [_write(e, depth + 1) for e in element if _tag(e) == f"{M}e"]
    return (
        ("(" if begin is None else begin)
        + ("|" if sep is None else sep).join(parts)
        + (")" if end is None else end)
    )


def _function(element: Any, depth: int) -> str:
    name, body = _arg(element, "fName", depth), _arg(element, "e", depth)
    if not name or not body or body.startswith(("(", "[", "{")):
        return name + body
    return f"{name} {body}"


def _matrix(element: Any, depth: int) -> str:
    rows = [
        "&".join(_write(e, depth + 2) for e in row if _tag(e) == f"{M}e")
        for row in element
        if _tag(row) == f"{M}mr"
    ]
    return "■(" + "@".join(rows) + ")"


def _array(element: Any, depth: int) -> str:
    return "█(" + "@".join(_write(e, depth + 1) for e in element if _tag(e) == f"{M}e") + ")"


def _accent(element: Any, depth: int) -> str:
    mark = _prop(element, "accPr", "chr")
    base = _arg(element, "e", depth)
    base = base if len(base) == 1 else _group(base)
    return base + (DEFAULT_ACCENT if mark is None else mark)


def _bar(element: Any, depth: int) -> str:
    below = _prop(element, "barPr", "pos") == "bot"
    return ("▁" if below else "¯") + _group(_arg(element, "e", depth))


def _group_chr(element: Any, depth: int) -> str:
    mark = _prop(element, "groupChrPr", "chr")
    return (DEFAULT_GROUP if mark is None else mark) + _group(_arg(element, "e", depth))


def _lim_low(element: Any, depth: int) -> str:
    return _arg(element, "e", depth) + "_" + _group(_arg(element, "lim", depth))


def _lim_upp(element: Any, depth: int) -> str:
    return _arg(element, "e", depth) + "^" + _group(_arg(element, "lim", depth))


def _math_para(element: Any, depth: int) -> str:
    return "\n".join(_write(child, depth + 1) for child in element if _tag(child) == f"{M}oMath")


_WRITERS = {
    f"{M}r": _run,
    f"{M}f": _fraction,
    f"{M}sSub": _sub,
    f"{M}sSup": _sup,
    f"{M}sSubSup": _subsup,
    f"{M}sPre": _pre,
    f"{M}nary": _nary,
    f"{M}rad": _radical,
    f"{M}d": _delimiter,
    f"{M}func": _function,
    f"{M}m": _matrix,
    f"{M}eqArr": _array,
    f"{M}acc": _accent,
    f"{M}bar": _bar,
    f"{M}groupChr": _group_chr,
    f"{M}limLow": _lim_low,
    f"{M}limUpp": _lim_upp,
    f"{M}oMathPara": _math_para,
}
