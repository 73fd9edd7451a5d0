"""The XLSX reader: a workbook (.xlsx, .xlsm, templates) as one page per sheet, rows as records.

openpyxl reads the workbook in read-only mode (rows streamed from the sheet XML, which it parses with
defusedxml) with the values cached at the last save (``data_only``: a formula's result, not its text),
after :func:`readers.office.office_files.open_ooxml` has checked the container within bounds.

Each page starts with ``## <sheet name>`` (``(hidden)`` or ``(very hidden)`` when the sheet is, ``(chart)``
for a chart sheet); the sheet's tables follow, found as regions of cells between blank rows and columns
(:mod:`readers.office.regions`), each as its title lines, then a GFM table (its header row, the ``|---|``
line, a line per row; pipes escaped, line breaks in a cell folded), a blank line between tables. Each
table is also a ``tables`` row of source ``markup`` (:func:`readers.core.markup.markup_tables`). Fully
empty rows are skipped.
The charts drawn on the sheet come last, as text (:mod:`readers.office.charts`); a chart sheet's page is
its chart's text.

Values are written as Excel displays them: openpyxl hands over raw numbers and dates with the cell's number
format string, so :func:`format_value` applies the format (thousands separators, fixed decimals, percent,
scientific, literal text and currency, negative and zero sections, dates and times). The formats whose
display depends on the reader's locale (builtin 14, the short date, and 22, short date and time) are
written in ISO 8601, the one rendering that is unambiguous everywhere; what the formatter does not cover
(fractions, conditions) falls back to the general rendering of the number.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, ClassVar

import openpyxl
from openpyxl.chartsheet import Chartsheet
from openpyxl.reader.excel import ExcelReader
from openpyxl.utils.exceptions import InvalidFileException

from readers.archives.safezip import SafeZip
from readers.core.base import Reader
from readers.core.errors import CorruptDocument, FileUnreadable, LimitExceeded
from readers.core.markup import markup_tables
from readers.core.model import ContentKind, PageText, ReadLimits, ReadResult
from readers.office.charts import sheet_chart_text, workbook_sheet_parts
from readers.office.office_files import TextBudget, open_ooxml
from readers.office.regions import GridRow, sheet_tables

#: Main part content types read as workbooks: workbooks and templates, with and without macros.
MAIN_TYPES = (
    "spreadsheetml.sheet.main+xml",
    "spreadsheetml.template.main+xml",
    "ms-excel.sheet.macroEnabled.main+xml",
    "ms-excel.template.macroEnabled.main+xml",
)

# Cells visited in a workbook (empty ones included, as openpyxl pads a row up to its last cell) before it
# is refused as over a limit. Measured: 14 us per filled cell (openpyxl's parsing 8, formatting 6; a
# generated 200,000-cell sheet reads in 2.8 s), so 5 million cells bound a workbook to about 70 s, the
# most one document should take; the corpus's workbooks have under 1,000 cells, and a sheet claiming a
# cell at XFD1048576 can no longer cost 17 billion.
MAX_CELLS = 5_000_000

# Number formats whose display follows the viewer's locale: written as ISO 8601 instead.
_LOCALE_DATE_FORMATS = {14: "yyyy-mm-dd", 22: "yyyy-mm-dd hh:mm"}

# What openpyxl raises for a package that opens but is not a well-formed workbook.
_LIBRARY_ERRORS = (
    InvalidFileException,
    KeyError,
    ValueError,
    TypeError,
    AttributeError,
    IndexError,
    SyntaxError,
)


class _WorkbookReader(ExcelReader):
    """openpyxl's workbook reader, with a chart sheet taken as its name and state alone.

    In read-only mode openpyxl skips worksheets' drawings but still parses every chart sheet's charts,
    and a chart part that is missing or malformed fails the whole workbook. The charts are read from the
    package by :mod:`readers.office.charts` instead, where a broken part costs that chart only.
    """

    def read_chartsheet(self, sheet: Any, rel: Any) -> None:
        state = sheet.state if sheet.state in ("hidden", "veryHidden") else "visible"
        self.wb._add_sheet(Chartsheet(parent=self.wb, title=sheet.name, sheet_state=state))


class XlsxReader(Reader):
    """Reads a workbook into one page per sheet of GFM tables."""

    name: ClassVar[str] = "openpyxl"
    # What each revision changed: docs/decisions.md, "Text judging: calibration notes".
    revision: ClassVar[int] = 3
    kinds: ClassVar[frozenset[ContentKind]] = frozenset({ContentKind.XLSX})

    @property
    def tool_version(self) -> str:
        return openpyxl.__version__

    def read(self, path: Path, limits: ReadLimits) -> ReadResult:
        main = open_ooxml(path, limits, what="workbook", main_types=MAIN_TYPES).main_part
        charts = _sheet_charts(path, limits, main)
        try:
            # A file object, not the path: openpyxl refuses paths whose extension is not .xlsx/.xlsm, and
            # the kind was decided by the bytes.
            with path.open("rb") as fh:
                reader = _WorkbookReader(fh, read_only=True, data_only=True, keep_links=False)
                reader.read()
                workbook = reader.wb
                try:
                    pages = self._pages(workbook, limits, charts)
                finally:
                    workbook.close()
        except OSError as exc:
            raise FileUnreadable(f"cannot read {path}: {exc}") from exc
        except _LIBRARY_ERRORS as exc:
            raise CorruptDocument(
                f"{path.name}: not a readable workbook: {type(exc).__name__}: {exc}"
            ) from exc
        if len(pages) > limits.max_pages:
            raise LimitExceeded(f"{path.name}: {len(pages)} sheets, over the limit of {limits.max_pages}")
        return markup_tables(ReadResult(pages=tuple(pages), page_count=len(pages)), "markup=xlsx")

    def _pages(self, workbook: Any, limits: ReadLimits, charts: list[list[str]]) -> list[PageText]:
        budget = TextBudget(limits)
        cells = 0
        pages: list[PageText] = []
        for number, name in enumerate(workbook.sheetnames, start=1):
            if number > limits.max_pages:
                break
            sheet = workbook[name]
            state = {"hidden": " (hidden)", "veryHidden": " (very hidden)"}.get(sheet.sheet_state, "")
            drawn = [budget.add(line) for line in charts[number - 1]] if number <= len(charts) else []
            if not hasattr(sheet, "iter_rows"):  # a chart sheet: no cells, its chart's text
                lines = [budget.add(f"## {name} (chart){state}"), *drawn]
                pages.append(PageText(page=number, text="\n".join(lines)))
                continue
            # The declared dimension is a claim (a sheet may declare A1:XFD1048576): forget it, so rows
            # are only as wide as their last cell.
            sheet.reset_dimensions()
            rows: list[GridRow] = []
            for row_number, row in enumerate(sheet.iter_rows()):
                cells += len(row)
                if cells > MAX_CELLS:
                    raise LimitExceeded(f"the workbook has more than {MAX_CELLS} cells")
                values = {}
                for index, cell in enumerate(row):
                    if cell.value is None:
                        continue
                    text = format_value(cell.value, cell.number_format, _format_id(cell))
                    if text.strip():
                        values[index] = budget.add(text)
                if values:
                    rows.append(GridRow(row_number, values))
            lines = [f"## {name}{state}", *sheet_tables(rows)]
            if drawn:
                lines += ["", *drawn]
            pages.append(PageText(page=number, text="\n".join(lines)))
        budget.check("\n\n".join(p.text for p in pages))
        return pages


def _sheet_charts(path: Path, limits: ReadLimits, workbook: str) -> list[list[str]]:
    """The text of the charts drawn on each sheet (worksheets and chart sheets), in workbook order.

    openpyxl's read-only mode does not load drawings, so the chart parts are found in the package by
    relationships (workbook -> sheet -> drawing -> chart) and read from their cached values.
    """
    try:
        with SafeZip(path, limits) as package:
            return [
                sheet_chart_text(package, part) if part else []
                for part in workbook_sheet_parts(package, workbook)
            ]
    except CorruptDocument:
        return []  # the workbook itself is judged by openpyxl; without readable parts there are no charts


def _format_id(cell: Any) -> int | None:
    style = getattr(cell, "style_array", None)
    return getattr(style, "numFmtId", None)


# --------------------------------------------------------------------------------------------------------
# Number formats

_MONTHS = (
    *("January", "February", "March", "April", "May", "June"),
    *("July", "August", "September", "October", "November", "December"),
)
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: Excel's day 0 (1899-12-30 makes serial 60 the fictitious 1900-02-29 come out right after it).
_EPOCH = dt.datetime(1899, 12, 30)


def format_value(value: Any, number_format: str | None, format_id: int | None = None) -> str:
    """``value`` as Excel would display it under ``number_format``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return value
    fmt = number_format or "General"
    if format_id in _LOCALE_DATE_FORMATS and isinstance(value, dt.date | dt.time | int | float):
        fmt = _LOCALE_DATE_FORMATS[format_id]
    if isinstance(value, dt.timedelta):
        return _format_elapsed(value, fmt)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return _format_date(_as_datetime(value), _section(fmt, 1.0))
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return str(value)
        return _format_number(value, fmt)
    return str(value)


def _as_datetime(value: dt.date | dt.time) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    return dt.datetime.combine(_EPOCH.date(), value)


@functools.lru_cache(maxsize=1024)
def _split_sections(fmt: str) -> tuple[str, ...]:
    """The ``;``-separated sections of a format, ignoring ``;`` inside quotes, brackets or escaped."""
    sections: list[str] = []
    current: list[str] = []
    i = 0
    quoted = bracket = False
    while i < len(fmt):
        ch = fmt[i]
        if ch == "\\" and not quoted and i + 1 < len(fmt):
            current.append(fmt[i : i + 2])
            i += 2
            continue
        if ch == '"' and not bracket:
            quoted = not quoted
        elif ch == "[" and not quoted:
            bracket = True
        elif ch == "]" and not quoted:
            bracket = False
        elif ch == ";" and not quoted and not bracket:
            sections.append("".join(current))
            current = []
            i += 1
            continue
        current.append(ch)
        i += 1
    sections.append("".join(current))
    return tuple(sections)


def _section(fmt: str, value: float) -> str:
    """The section that applies to ``value``: positive;negative;zero;text."""
    sections = _split_sections(fmt)
    if value < 0 and len(sections) > 1 and sections[1]:
        return sections[1]
    if value == 0 and len(sections) > 2 and sections[2]:
        return sections[2]
    return sections[0]


_BRACKET = re.compile(r"\[([^\]]*)\]")
_CURRENCY = re.compile(r"^\$([^-]*)(?:-[0-9A-Fa-f]+)?$")


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "lit" for literal text, else a placeholder: "num", "y", "m", "d", "h", "M", "s", "ampm"...
    text: str


@functools.lru_cache(maxsize=1024)
def _tokens(section: str) -> tuple[_Token, ...]:
    """A section as literal text and placeholder runs. Quotes, ``\\x`` escapes, ``_x`` spacing, ``*x``
    fills, colours, conditions and locale tags are resolved here; currency tags become their symbol."""
    tokens: list[_Token] = []
    i = 0
    while i < len(section):
        ch = section[i]
        if ch == '"':
            end = section.find('"', i + 1)
            end = len(section) if end < 0 else end
            tokens.append(_Token("lit", section[i + 1 : end]))
            i = end + 1
        elif ch == "\\" and i + 1 < len(section):
            tokens.append(_Token("lit", section[i + 1]))
            i += 2
        elif ch in "_*" and i + 1 < len(section):
            i += 2  # _x: a space as wide as x (alignment); *x: fill with x (column width): nothing to write
        elif ch == "[":
            end = section.find("]", i)
            end = len(section) if end < 0 else end
            inner = section[i + 1 : end]
            currency = _CURRENCY.match(inner)
            if currency:
                tokens.append(_Token("lit", currency.group(1)))
            elif re.fullmatch(r"h+|m+|s+", inner, re.IGNORECASE):
                tokens.append(_Token("elapsed_" + inner[0].lower(), inner))
            i = end + 1
        elif section[i : i + 5].upper() == "AM/PM":
            tokens.append(_Token("ampm", section[i : i + 5]))
            i += 5
        elif section[i : i + 3].upper() == "A/P":
            tokens.append(_Token("ap", section[i : i + 3]))
            i += 3
        elif ch.lower() in "ymdhse" and not (ch.lower() == "e" and tokens and tokens[-1].kind == "num"):
            j = i
            while j < len(section) and section[j].lower() == ch.lower():
                j += 1
            kind = "y" if ch.lower() == "e" else ch.lower()
            tokens.append(_Token(kind, section[i:j]))
            i = j
        elif ch in "0#?.,%" or (ch in "Ee" and tokens and tokens[-1].kind == "num"):
            j = i
            while j < len(section) and (
                section[j] in "0#?.,%" or (section[j] in "Ee" and section[j + 1 : j + 2] in ("+", "-"))
            ):
                j += 3 if section[j] in "Ee" else 1
            tokens.append(_Token("num", section[i:j]))
            i = j
        elif ch == "@":
            tokens.append(_Token("text", "@"))
            i += 1
        else:
            tokens.append(_Token("lit", ch))
            i += 1
    return tuple(tokens)


@dataclass(frozen=True, slots=True)
class _Plan:
    """How one format section shows a number, worked out once per section (a workbook uses a handful)."""

    kind: str  # general, date, elapsed, literal (no digits: "—" for zero), fallback, number
    before: str = ""  # literal text before the digits ("$", "(")
    after: str = ""  # literal text after them (")", " units")
    percent: int = 0  # each % multiplies by 100
    scale: int = 0  # each comma after the last digit divides by 1000
    grouping: bool = False  # thousands separators
    fixed: int = 0  # decimals always shown (0)
    optional: int = 0  # decimals shown when not zero (#, ?)
    leading_zero: bool = True  # "#.00" shows .5
    exponent: tuple[int, bool] | None = None  # scientific: exponent digits, "+" shown


@functools.lru_cache(maxsize=1024)
def _plan(section: str) -> _Plan:
    stripped = section.strip()
    if not stripped or stripped.lower().startswith("general"):
        return _Plan("general", after="".join(t.text for t in _tokens(stripped[7:]) if t.kind == "lit"))
    tokens = _tokens(section)
    kinds = {t.kind for t in tokens}
    if kinds & {"y", "d", "h", "s", "ampm", "ap"} or ("m" in kinds and "num" not in kinds):
        return _Plan("date")
    if any(t.kind.startswith("elapsed_") for t in tokens):
        return _Plan("elapsed")
    numbers = [t for t in tokens if t.kind == "num"]
    if not numbers:
        return _Plan("literal", before="".join(t.text for t in tokens if t.kind == "lit"))
    if len(numbers) > 1 and _Token("lit", "/") in tokens:
        return _Plan("fallback")  # fractions ("# ?/?"): the general rendering
    first = tokens.index(numbers[0])
    before = "".join(t.text for t in tokens[:first] if t.kind == "lit")
    after = "".join(t.text for t in tokens[first:] if t.kind == "lit")
    pattern = "".join(t.text for t in numbers)
    percent = pattern.count("%")
    core = pattern.replace("%", "")
    scientific = re.search(r"[Ee][+-]", core)
    exponent = None
    if scientific:
        exponent = (max(1, len(core[scientific.end() :])), scientific.group().endswith("+"))
        core = core[: scientific.start()]
    mantissa = core.rstrip(",")
    integer_part, _, fraction = mantissa.partition(".")
    fixed = fraction.count("0")
    return _Plan(
        "number",
        before=before,
        after=after,
        percent=percent,
        scale=0 if scientific else len(core) - len(mantissa),
        grouping="," in integer_part,
        fixed=fixed if not scientific else len(fraction),
        optional=len(fraction) - fixed if not scientific else 0,
        leading_zero="0" in integer_part,
        exponent=exponent,
    )


def _format_number(value: float, fmt: str) -> str:
    section = _section(fmt, value)
    plan = _plan(section)
    if plan.kind == "general":
        return (_general(value) + plan.after).strip()
    if plan.kind == "date":
        if 0 <= value < 2958466:  # Excel's dates end at 9999-12-31
            return _format_date(_EPOCH + dt.timedelta(days=float(value)), section)
        return _general(value)
    if plan.kind == "elapsed":
        return _format_elapsed(dt.timedelta(days=float(value)), section)
    if plan.kind == "literal":
        return plan.before.strip() or _general(value)
    if plan.kind == "fallback":
        return _general(value)
    # A negative value shown through its own section loses the sign (the section says how to show it).
    sections = _split_sections(fmt)
    shown = abs(value) if value < 0 and len(sections) > 1 and sections[1] else value
    return (plan.before + _digits(shown, plan) + plan.after).strip()


def _digits(value: float, plan: _Plan) -> str:
    """The number under a plan's digit pattern: ``#,##0.00``, ``0%``, ``0.00E+00``, ``#,##0,``."""
    value = value * (100**plan.percent) / (1000**plan.scale)
    if plan.exponent is not None:
        digits, exp = f"{value:.{plan.fixed}E}".split("E")
        exp_value = int(exp)
        sign = "-" if exp_value < 0 else ("+" if plan.exponent[1] else "")
        return f"{digits}E{sign}{abs(exp_value):0{plan.exponent[0]}d}"
    places = min(plan.fixed + plan.optional, _MAX_DECIMALS)
    # Half away from zero, on the shortest decimal that reads back as the value, as Excel rounds for
    # display (Python's float formatting rounds 1234.5 to even, and 2.675 down: its binary value).
    rounded = Decimal(repr(float(value))).quantize(_QUANTA[places], ROUND_HALF_UP)
    text = f"{rounded:{',' if plan.grouping else ''}.{places}f}"
    if plan.optional and "." in text:
        whole, frac = text.split(".")
        while len(frac) > plan.fixed and frac.endswith("0"):
            frac = frac[:-1]
        text = whole + ("." + frac if frac else "")
    if not plan.leading_zero and text.lstrip("-").startswith("0."):
        text = text.replace("0.", ".", 1)  # "#.00" shows .5, not 0.50
    return text + "%" * plan.percent


_MAX_DECIMALS = 30  # Excel's own limit on decimal places in a format
_QUANTA = [Decimal(1).scaleb(-places) for places in range(_MAX_DECIMALS + 1)]


def _general(value: float) -> str:
    """Excel's General format: integers as they are, other numbers to 15 significant digits."""
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    text = f"{value:.15g}"
    if "e" in text:
        mantissa, exp = text.split("e")
        text = f"{mantissa}E{exp[0]}{int(exp[1:]):02d}"
    return text


def _format_date(value: dt.datetime, section: str) -> str:
    tokens = _tokens(section)
    twelve_hour = any(t.kind in ("ampm", "ap") for t in tokens)
    kinds = [t.kind for t in tokens]
    out: list[str] = []
    for i, token in enumerate(tokens):
        n = len(token.text)
        if token.kind == "lit":
            out.append(token.text)
        elif token.kind == "y":
            out.append(f"{value.year:04d}" if n > 2 else f"{value.year % 100:02d}")
        elif token.kind == "m":
            previous = next((k for k in reversed(kinds[:i]) if k not in ("lit",)), None)
            following = next((k for k in kinds[i + 1 :] if k not in ("lit",)), None)
            if n <= 2 and (previous in ("h", "elapsed_h") or following == "s"):
                out.append(f"{value.minute:02d}" if n == 2 else str(value.minute))
            elif n == 1:
                out.append(str(value.month))
            elif n == 2:
                out.append(f"{value.month:02d}")
            elif n == 3:
                out.append(_MONTHS[value.month - 1][:3])
            elif n == 5:
                out.append(_MONTHS[value.month - 1][0])
            else:
                out.append(_MONTHS[value.month - 1])
        elif token.kind == "d":
            if n == 1:
                out.append(str(value.day))
            elif n == 2:
                out.append(f"{value.day:02d}")
            elif n == 3:
                out.append(_DAYS[value.weekday()][:3])
            else:
                out.append(_DAYS[value.weekday()])
        elif token.kind == "h":
            hour = value.hour % 12 or 12 if twelve_hour else value.hour
            out.append(f"{hour:02d}" if n >= 2 else str(hour))
        elif token.kind == "s":
            out.append(f"{value.second:02d}" if n >= 2 else str(value.second))
        elif token.kind == "num" and token.text.startswith(".") and set(token.text[1:]) <= {"0"}:
            digits = len(token.text) - 1
            out.append("." + f"{value.microsecond / 1e6:.{digits}f}"[2:] if digits else "")
        elif token.kind == "ampm":
            out.append("AM" if value.hour < 12 else "PM")
        elif token.kind == "ap":
            out.append("A" if value.hour < 12 else "P")
        elif token.kind == "num":
            out.append(token.text)
    return "".join(out).strip()


def _format_elapsed(value: dt.timedelta, fmt: str) -> str:
    """Durations under ``[h]:mm:ss`` and friends: the bracketed unit is not wrapped at its usual bound."""
    seconds = round(value.total_seconds())
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    out: list[str] = []
    tokens = _tokens(_section(fmt, 1.0))
    big = next((t.kind for t in tokens if t.kind.startswith("elapsed_")), "elapsed_h")
    for token in tokens:
        n = len(token.text)
        if token.kind == "elapsed_h":
            out.append(f"{seconds // 3600:0{n}d}")
        elif token.kind == "elapsed_m":
            out.append(f"{seconds // 60:0{n}d}")
        elif token.kind == "elapsed_s":
            out.append(f"{seconds:0{n}d}")
        elif token.kind == "m":
            minutes = seconds // 60 if big == "elapsed_s" else (seconds // 60) % 60
            out.append(f"{minutes:0{min(n, 2)}d}")
        elif token.kind == "h":
            out.append(f"{(seconds // 3600) % 24:0{min(n, 2)}d}")
        elif token.kind == "s":
            out.append(f"{seconds % 60:0{min(n, 2)}d}")
        elif token.kind == "lit":
            out.append(token.text)
    return sign + "".join(out).strip()
