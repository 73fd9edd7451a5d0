"""The Tesseract worker: a process that keeps Tesseract's models loaded and reads one page image after
another for the process that started it (``readers/images/tesseract.py``, :class:`TesseractProcess`).

It speaks over its standard input and output, one request at a time. A request is a line of JSON::

    {"op": "read", "language": "eng", "psm": 1, "width": 2550, "height": 3300, "bands": 1, "dpi": 300}

(``op`` ``"script"`` asks orientation and script detection instead, with no language nor ``psm``: the
script and the rotation that turns the page upright, with how sure it is of each),
followed by ``width * height * bands`` bytes of pixels. The answer is a line of JSON: ``{"ok": true,
...}`` with the words, their confidences, the rotation and whether the lines ran across (or the
script), or ``{"ok": false, "error": "language" | "library" | "engine", "message": ...}``. The worker
ends when its input does.
Tesseract's own messages (a weak orientation margin, too few characters) go to the standard error,
which the caller discards.
"""

from __future__ import annotations

import json
import os
import sys
from typing import BinaryIO

from readers.images.libtesseract import Engine, LanguageMissing, LibraryMissing, Pixels
from readers.images.worker_process import requests_of


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """Answer every request on ``requests`` until it ends."""
    engine: Engine | None = None
    try:
        for request, data in requests_of(requests):
            width, height, bands = int(request["width"]), int(request["height"]), int(request["bands"])
            try:
                engine = engine or Engine()
                answer = _answer(engine, request, Pixels(data, width, height, bands, int(request["dpi"])))
            except LibraryMissing as exc:
                answer = {"ok": False, "error": "library", "message": str(exc)}
            except LanguageMissing as exc:
                answer = {"ok": False, "error": "language", "message": str(exc)}
            except Exception as exc:  # reported to the caller, which records the page and goes on
                answer = {"ok": False, "error": "engine", "message": f"{type(exc).__name__}: {exc}"}
            answers.write(json.dumps(answer).encode() + b"\n")
            answers.flush()
    finally:
        if engine is not None:
            engine.close()


def _answer(engine: Engine, request: dict, pixels: Pixels) -> dict:
    if request["op"] == "script":
        script = engine.script(pixels)
        return {
            "ok": True,
            "script": script.name,
            "script_confidence": script.confidence,
            "rotation": script.rotation,
            "rotation_confidence": script.rotation_confidence,
        }
    words = engine.read(pixels, request["language"], int(request["psm"]))
    return {
        "ok": True,
        "text": words.text,
        "confidences": words.confidences,
        "rotation": words.rotation,
        "across": words.across,
    }


def main() -> int:
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # read before the library starts its threads
    serve(sys.stdin.buffer, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
