"""The external tools and libraries assay depends on, probed apart from being used (as OCRmyPDF does):
``assay doctor`` reports them, and a stage can refuse early with a message that says what to install."""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.metadata
import shutil
from dataclasses import dataclass

# The Tesseract languages the set-up installs (Debian packages tesseract-ocr-<code>, with - for _): the
# western European languages, and one for each common other script that orientation detection (osd)
# recognises on a page (assets/ocr/page_reading.py SCRIPT_LANGUAGES). Keep in step with scripts/setup.
OCR_LANGUAGES = (
    "eng",
    "fra",
    "deu",
    "spa",
    "ita",
    "por",
    "nld",
    "osd",
    "ara",
    "chi_sim",
    "ell",
    "heb",
    "hin",
    "jpn",
    "kor",
    "rus",
)


def debian_package(code: str) -> str:
    return "tesseract-ocr-" + code.replace("_", "-")


TESSERACT_INSTALL = "apt-get install tesseract-ocr " + " ".join(debian_package(c) for c in OCR_LANGUAGES)
# Tesseract's library, which the OCR workers call (readers/images/libtesseract.py): the name Debian's
# tesseract-ocr 5 installs, then whatever the loader finds.
TESSERACT_LIBRARY_NAMES = ("libtesseract.so.5",)


def load_tesseract_library() -> ctypes.CDLL | None:
    """Tesseract's library, loaded by its known names first, then by the loader's search (which runs
    ldconfig); None when it does not load."""
    for name in (*TESSERACT_LIBRARY_NAMES, None):
        name = name or ctypes.util.find_library("tesseract")
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


LIBRARIES = (
    "pymupdf",
    "pdfplumber",
    "pdfminer.six",
    "pytesseract",
    "pillow",
    "wordfreq",
    "duckdb",
    "pyarrow",
    "dagster",
)


@dataclass(frozen=True, slots=True)
class ToolProbe:
    """What is known about one tool: found or not, its version, and what to do when it is missing."""

    name: str
    found: bool
    version: str
    detail: str


def probe_tesseract() -> ToolProbe:
    """Tesseract's version and installed languages, without running any OCR."""
    import pytesseract

    if shutil.which(pytesseract.pytesseract.tesseract_cmd) is None:
        return ToolProbe("tesseract", False, "", f"not installed: {TESSERACT_INSTALL}")
    try:
        version = str(pytesseract.get_tesseract_version())
        languages = sorted(pytesseract.get_languages(config=""))
    except (pytesseract.TesseractError, pytesseract.TesseractNotFoundError, OSError) as exc:
        return ToolProbe("tesseract", False, "", f"does not run ({exc}): {TESSERACT_INSTALL}")
    if load_tesseract_library() is None:
        return ToolProbe(
            "tesseract", False, "", f"its library (libtesseract) does not load: {TESSERACT_INSTALL}"
        )
    missing = [code for code in OCR_LANGUAGES if code not in languages]
    detail = "languages: " + ", ".join(languages)
    if missing:
        detail += f"; missing {', '.join(missing)}: apt-get install " + " ".join(
            debian_package(code) for code in missing
        )
    return ToolProbe("tesseract", True, version.split()[0] if version else "", detail)


def probe_library(distribution: str) -> ToolProbe:
    try:
        return ToolProbe(distribution, True, importlib.metadata.version(distribution), "")
    except importlib.metadata.PackageNotFoundError:
        return ToolProbe(
            distribution, False, "", f"not installed: run ./scripts/setup (pip install {distribution})"
        )


def probe_all() -> list[ToolProbe]:
    return [probe_tesseract(), *(probe_library(name) for name in LIBRARIES)]
