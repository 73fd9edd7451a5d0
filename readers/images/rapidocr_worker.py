"""The RapidOCR worker: a process that keeps RapidOCR's models loaded and reads one page image after another
for the process that started it (``readers/images/rapidocr.py``, :class:`RapidOcrProcess`), over the
protocol of ``readers/images/worker_process.py``.

A request is a line of JSON, ``{"op": "read", "width": 2550, "height": 3300, "bands": 1, "dpi": 300}``,
followed by ``width * height * bands`` bytes of pixels (grey or RGB). The answer is a line of JSON:
``{"ok": true, "lines": [{"text": ..., "score": 0.98, "box": [[x, y] * 4]}, ...]}``, the lines in the order
RapidOCR detected them, or ``{"ok": false, "error": "library" | "engine", "message": ...}``. The worker
ends when its input does.

The models are the ones inside the installed wheel, named by path, so that RapidOCR never looks for
them elsewhere nor downloads anything; ONNX Runtime runs on one thread; RapidOCR's logging is off (its
logger writes to the standard error, which the caller discards anyway).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, BinaryIO

from readers.images.worker_process import requests_of

# The models inside the wheel that read: text detection, line orientation (0 or 180 degrees), recognition.
DETECTION_MODEL = "PP-OCRv6_det_small.onnx"
RECOGNITION_MODEL = "PP-OCRv6_rec_small.onnx"
CLASSIFIER_MODEL = "ch_ppocr_mobile_v2.0_cls_mobile.onnx"
# RapidOCR's loggers, silenced before it is imported and again once it has set its own level.
_LOGGERS = ("RapidOCR", "rapidocr")


# Detection runs on the page scaled down to this many pixels on its longer side (recognition reads the
# lines from the page itself). RapidOCR's default scales only pages under 736 pixels, so a 300 dpi page is
# searched whole: on the dev corpus's scans 1600 took detection from 3.0 to 1.5 s on a sparse Letter page,
# and kept every line of the dense ones (CER 0.071 to 0.0705 on a two-column scan, 0.024 to 0.0125 on
# another), where 1.0 s of 10 went.
DETECTION_SIDE = 1600


def models_folder() -> Path | None:
    """The folder of the installed wheel's models, found without importing RapidOCR; None when RapidOCR
    is not installed."""
    import importlib.util

    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def load_engine() -> Any:
    """RapidOCR with the wheel's models named explicitly, one ONNX thread, and no logging."""
    folder = models_folder()
    if folder is None:
        raise ModuleNotFoundError("rapidocr")
    for name in _LOGGERS:
        logging.getLogger(name).disabled = True
    from rapidocr import RapidOCR

    engine = RapidOCR(
        params={
            "Global.log_level": "critical",
            "Det.model_path": str(folder / DETECTION_MODEL),
            "Rec.model_path": str(folder / RECOGNITION_MODEL),
            "Cls.model_path": str(folder / CLASSIFIER_MODEL),
            "Det.limit_type": "max",
            "Det.limit_side_len": DETECTION_SIDE,
            "EngineConfig.onnxruntime.intra_op_num_threads": 1,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        }
    )
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(logging.CRITICAL + 1)
        logger.disabled = True
    return engine


def read(engine: Any, data: bytes, width: int, height: int, bands: int) -> list[dict]:
    """The lines RapidOCR reads on an image of ``data``: their text, score and box (four corners)."""
    import numpy as np

    pixels = np.frombuffer(data, dtype=np.uint8)
    image = pixels.reshape(height, width) if bands == 1 else pixels.reshape(height, width, 3)[:, :, ::-1]
    output = engine(np.ascontiguousarray(image))
    if output.txts is None or output.boxes is None:
        return []
    return [
        {"text": text, "score": float(score), "box": [[float(x), float(y)] for x, y in box]}
        for text, score, box in zip(output.txts, output.scores, output.boxes.tolist(), strict=True)
    ]


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """Answer every request on ``requests`` until it ends."""
    engine: Any = None
    for request, data in requests_of(requests):
        width, height, bands = int(request["width"]), int(request["height"]), int(request["bands"])
        try:
            engine = engine or load_engine()
            answer = {"ok": True, "lines": read(engine, data, width, height, bands)}
        except ImportError as exc:
            answer = {"ok": False, "error": "library", "message": str(exc)}
        except Exception as exc:  # reported to the caller, which records the page and goes on
            answer = {"ok": False, "error": "engine", "message": f"{type(exc).__name__}: {exc}"}
        answers.write(json.dumps(answer).encode() + b"\n")
        answers.flush()


def main() -> int:
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # read before ONNX Runtime and OpenCV start their threads
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    serve(sys.stdin.buffer, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
