"""What the command line prints of the corpus: names and texts with their control characters made visible.

A file name, a font name or a document's text can hold terminal escape sequences: ESC ``[2J`` clears the
screen, an OSC 52 sequence (ESC ``]52;c;...`` BEL) writes to the clipboard of the terminal that shows it,
CSI (U+009B) starts a sequence on its own. Everything a command prints of a document goes through
:func:`visible` (or :func:`shown` inside Rich markup, :func:`json_text` for JSON), which writes each C0 and
C1 control character other than newline and tab as its ``\\xNN`` escape, the form the walk already uses
for bytes of a name that are not UTF-8. The stored values are untouched: ``--json`` keeps them exact, as
JSON escapes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from rich.markup import escape
from rich.text import Text

# C0 controls but tab and newline (carriage return too: it rewrites the line it is on), DEL, C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What json.dumps leaves unescaped with ensure_ascii=False: DEL and the C1 controls (it escapes C0 itself).
_JSON_UNESCAPED = re.compile(r"[\x7f-\x9f]")


def visible(value: object) -> str:
    """``value`` as text, each control character but newline and tab written as ``\\xNN``."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


def shown(value: object) -> str:
    """:func:`visible`, and safe inside Rich markup (a name holding ``[bold]`` prints as it is)."""
    return escape(visible(value))


def json_text(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` with ``ensure_ascii=False``, the C1 controls (which JSON allows raw) escaped too."""
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    return _JSON_UNESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def highlighted(prefix: str, text: str, spans: Sequence[tuple[int, int]], *, style: str) -> Text:
    """``prefix`` + ``text`` as Rich text with ``spans`` (offsets into ``text``) styled; each piece is made
    :func:`visible` on its own, so an escape that lengthens the text moves no highlight."""
    out = Text(prefix)
    at = 0
    for start, end in sorted(spans):
        if start < at:
            continue
        out.append(visible(text[at:start]))
        out.append(visible(text[start:end]), style=style)
        at = end
    out.append(visible(text[at:]))
    return out
