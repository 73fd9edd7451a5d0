"""Tesseract's library (``libtesseract``, the one its command line is built on) through its C API.

One :class:`Engine` keeps a ``TessBaseAPI`` per language with its model loaded, so a process that reads
many pages loads each model once, where the command line loads it (and orientation detection's model) for
every page: about 0.15 s of a 1.7 s dense page. Pages are handed over as pixel buffers, not files, and the
words are read off Tesseract's result iterator, not out of an hOCR document it would format first (0.07 s
a dense page against 0.2 s). The text, the word confidences and the rotation are the same as the command
line's hOCR gives (tests/test_ocr.py reads a page both ways).

Only the Tesseract worker process (``readers/images/tesseract_worker.py``) loads the library: a page that
hangs or crashes Tesseract then costs that process, never the stage.
"""

from __future__ import annotations

import ctypes
import functools
from collections import Counter
from dataclasses import dataclass

from readers.core.tools import load_tesseract_library

# Languages one engine keeps loaded at once (a model is 5-40 MB); a corpus reads most pages in one or two.
MAX_LOADED_LANGUAGES = 3

# tesseract::PageSegMode, tesseract::PageIteratorLevel, tesseract::Orientation (publictypes.h).
PSM_OSD_ONLY = 0
RIL_PARA, RIL_TEXTLINE, RIL_WORD = 1, 2, 3
TEXTLINE_ORDER_TOP_TO_BOTTOM = 2  # tesseract::TextlineOrder of lines running across a page

_P = ctypes.c_void_p
_INT = ctypes.c_int
_FLOAT = ctypes.c_float

# name: (result type, argument types): the part of capi.h assay calls.
_SIGNATURES = {
    "TessVersion": (ctypes.c_char_p, ()),
    "TessBaseAPICreate": (_P, ()),
    "TessBaseAPIDelete": (None, (_P,)),
    "TessBaseAPIEnd": (None, (_P,)),
    "TessBaseAPIInit3": (_INT, (_P, ctypes.c_char_p, ctypes.c_char_p)),
    "TessBaseAPISetPageSegMode": (None, (_P, _INT)),
    "TessBaseAPISetImage": (None, (_P, ctypes.c_char_p, _INT, _INT, _INT, _INT)),
    "TessBaseAPISetSourceResolution": (None, (_P, _INT)),
    "TessBaseAPIRecognize": (_INT, (_P, _P)),
    "TessBaseAPIClear": (None, (_P,)),
    "TessBaseAPIGetIterator": (_P, (_P,)),
    "TessBaseAPIDetectOrientationScript": (
        _INT,
        (
            _P,
            ctypes.POINTER(_INT),
            ctypes.POINTER(_FLOAT),
            ctypes.POINTER(ctypes.c_char_p),
            ctypes.POINTER(_FLOAT),
        ),
    ),
    "TessDeleteText": (None, (_P,)),
    "TessResultIteratorDelete": (None, (_P,)),
    "TessResultIteratorNext": (_INT, (_P, _INT)),
    "TessResultIteratorGetUTF8Text": (_P, (_P, _INT)),
    "TessResultIteratorConfidence": (_FLOAT, (_P, _INT)),
    "TessResultIteratorGetPageIterator": (_P, (_P,)),
    "TessPageIteratorIsAtBeginningOf": (_INT, (_P, _INT)),
    "TessPageIteratorOrientation": (
        None,
        (_P, ctypes.POINTER(_INT), ctypes.POINTER(_INT), ctypes.POINTER(_INT), ctypes.POINTER(_FLOAT)),
    ),
}


class LibraryMissing(Exception):
    """libtesseract cannot be loaded: Tesseract is not installed."""


class LanguageMissing(Exception):
    """Tesseract has no data for a language (or the data did not load)."""


@functools.cache
def library() -> ctypes.CDLL:
    """libtesseract with the signatures assay calls declared; :class:`LibraryMissing` when absent."""
    lib = load_tesseract_library()
    if lib is None:
        raise LibraryMissing("libtesseract is not installed")
    for function, (result, arguments) in _SIGNATURES.items():
        call = getattr(lib, function)
        call.restype, call.argtypes = result, list(arguments)
    return lib


def version() -> str:
    """The library's version (``5.3.0``); empty when it is not installed."""
    try:
        return (library().TessVersion() or b"").decode().split()[0]
    except (LibraryMissing, IndexError):
        return ""


@dataclass(frozen=True, slots=True)
class Words:
    """What one reading of a page says: its words put back into lines and paragraphs (a blank line
    between paragraphs, a newline between lines, a space between words), each word's confidence as the
    command line's hOCR writes it (a whole number), the clockwise degrees the page was turned by to
    be read (the ``textangle`` most lines carry), and whether most lines were read running across the
    page (False when Tesseract read them as vertical writing, as it reads a sideways page it was not
    asked to turn)."""

    text: str
    confidences: tuple[float, ...]
    rotation: int
    across: bool = True


@dataclass(frozen=True, slots=True)
class Script:
    """Orientation and script detection's answer: the writing system and how sure it is of it, and the
    clockwise degrees the page is to be turned by to be upright and how sure it is of those (the margin
    of the best orientation over the next; Tesseract's own page segmentation turns a page at 7 or more)."""

    name: str | None
    confidence: float
    rotation: int = 0
    rotation_confidence: float = 0.0


@dataclass(frozen=True, slots=True)
class Pixels:
    """A page image as Tesseract's ``SetImage`` takes it: rows of ``bands`` bytes a pixel (1 grey, 3 RGB)."""

    data: bytes
    width: int
    height: int
    bands: int
    dpi: int


class Engine:
    """Tesseract's API, one per language kept loaded; one engine belongs to one thread."""

    def __init__(self, datapath: str | None = None) -> None:
        self._lib = library()
        self._datapath = datapath.encode() if datapath else None
        self._apis: dict[str, int] = {}

    def read(self, pixels: Pixels, language: str, psm: int) -> Words:
        """Recognise ``pixels`` in ``language`` with page segmentation mode ``psm``."""
        lib, api = self._lib, self._api(language)
        lib.TessBaseAPISetPageSegMode(api, psm)
        self._set_image(api, pixels)
        try:
            if lib.TessBaseAPIRecognize(api, None) != 0:
                raise RuntimeError("Tesseract could not recognise the image")
            return self._words(api)
        finally:
            lib.TessBaseAPIClear(api)

    def script(self, pixels: Pixels) -> Script:
        """Orientation and script detection (``--psm 0`` with the ``osd`` data) on ``pixels``."""
        lib, api = self._lib, self._api("osd")
        lib.TessBaseAPISetPageSegMode(api, PSM_OSD_ONLY)
        self._set_image(api, pixels)
        degrees, orientation_confidence = _INT(), _FLOAT()
        name, confidence = ctypes.c_char_p(), _FLOAT()
        try:
            found = lib.TessBaseAPIDetectOrientationScript(
                api, degrees, orientation_confidence, ctypes.byref(name), confidence
            )
        finally:
            lib.TessBaseAPIClear(api)
        if not found or not name.value:
            return Script(None, 0.0)  # too little text to decide
        rotation = (360 - degrees.value) % 360  # the page's orientation, counter-clockwise: turned back
        return Script(
            name.value.decode(), round(confidence.value, 2), rotation, round(orientation_confidence.value, 2)
        )

    def close(self) -> None:
        for api in self._apis.values():
            self._lib.TessBaseAPIEnd(api)
            self._lib.TessBaseAPIDelete(api)
        self._apis.clear()

    def _api(self, language: str) -> int:
        api = self._apis.pop(language, None)
        if api is None:
            api = self._lib.TessBaseAPICreate()
            if self._lib.TessBaseAPIInit3(api, self._datapath, language.encode()) != 0:
                self._lib.TessBaseAPIDelete(api)
                raise LanguageMissing(f"Failed loading language {language!r}")
            while len(self._apis) >= MAX_LOADED_LANGUAGES:  # the least recently used goes
                oldest = next(iter(self._apis))
                self._lib.TessBaseAPIEnd(self._apis[oldest])
                self._lib.TessBaseAPIDelete(self._apis.pop(oldest))
        self._apis[language] = api  # the most recently used last
        return api

    def _set_image(self, api: int, pixels: Pixels) -> None:
        stride = pixels.width * pixels.bands
        self._lib.TessBaseAPISetImage(api, pixels.data, pixels.width, pixels.height, pixels.bands, stride)
        self._lib.TessBaseAPISetSourceResolution(api, pixels.dpi)

    def _words(self, api: int) -> Words:
        """The recognised words, walked as the command line's hOCR renderer walks them: a word with no
        text is passed over, and a paragraph or a line opens at the first word that has text."""
        lib = self._lib
        paragraphs: list[list[list[str]]] = []
        confidences: list[float] = []
        angles: Counter[int] = Counter()
        across = 0  # lines read running across the page
        results = lib.TessBaseAPIGetIterator(api)
        if not results:
            return Words("", (), 0)
        page = lib.TessResultIteratorGetPageIterator(results)
        orientation, direction, order, deskew = _INT(), _INT(), _INT(), _FLOAT()
        try:
            while True:
                found = lib.TessResultIteratorGetUTF8Text(results, RIL_WORD)
                if found:
                    word = ctypes.string_at(found).decode("utf-8", "replace").strip()
                    lib.TessDeleteText(found)
                    if lib.TessPageIteratorIsAtBeginningOf(page, RIL_PARA) or not paragraphs:
                        paragraphs.append([])
                    if lib.TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) or not paragraphs[-1]:
                        lib.TessPageIteratorOrientation(page, orientation, direction, order, deskew)
                        angles[(360 - orientation.value * 90) % 360] += 1
                        across += order.value == TEXTLINE_ORDER_TOP_TO_BOTTOM
                        paragraphs[-1].append([])
                    if word:
                        paragraphs[-1][-1].append(word)
                        confidences.append(float(int(lib.TessResultIteratorConfidence(results, RIL_WORD))))
                if not lib.TessResultIteratorNext(results, RIL_WORD):
                    break
        finally:
            lib.TessResultIteratorDelete(results)
        text = "\n\n".join(
            "\n".join(" ".join(words) for words in lines if words) for lines in paragraphs if any(lines)
        )
        rotation = angles.most_common(1)[0][0] if angles else 0
        return Words(text, tuple(confidences), rotation, across=2 * across >= sum(angles.values()))
