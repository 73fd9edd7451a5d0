"""The client side of an OCR engine's worker process, shared by both engines: a process started on first
use that keeps its models loaded from page to page and answers one request at a time.

A request is a line of JSON (the engine's own fields, and the image's ``width``, ``height``, ``bands``
and ``dpi``) followed by the image's pixels; the answer is a line of JSON. A page that runs over its time
is stopped by ending the process (``OcrFailed``, reason ``timeout``), as is one whose worker passes its
memory budget (reason ``memory``), and a process that ends (the engine crashed) fails that page alone
(reason ``engine_error``): the next page starts a new one. The worker runs
single-threaded: parallelism belongs to the caller (one worker per core, one worker per thread).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, Generic, TypeVar

from PIL import Image

from readers.images.ocr_result import OcrFailed

# Seconds a worker is given to free its models and exit when it is ended, before it is killed.
CLOSE_TIMEOUT_S = 5.0
# A worker whose resident memory passes this while it reads a page is ended, and the page recorded
# ``error``/``memory``: RapidOCR's worker peaks at 0.9-1.1 GB on a dense 2550x3300 page, Tesseract's at
# 0.2-0.4 GB, and the largest page the image limits let through (150 megapixels) is the one to stop.
DEFAULT_MEMORY_BYTES = 3 * 1024**3
# How often (seconds) a worker's memory is looked at while it reads.
MEMORY_POLL_S = 0.2


_OVER_MEMORY = b"\x00over memory"


class WorkerProcess:
    """One worker process running ``module`` (``python -m module``); one belongs to one thread. ``name``
    names the engine in messages."""

    module = ""
    name = ""

    def __init__(self, memory_bytes: int = DEFAULT_MEMORY_BYTES) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._unanswered = 0  # warm-up requests whose answers are still to be read
        self.memory_bytes = memory_bytes

    def warm_with(self, request: dict, image: Image.Image, dpi: int) -> None:
        """Start the worker and send it ``request`` on ``image`` (a small blank, so that it loads its
        models), without waiting: the next request reads its answer first."""
        data, bands = pixels(image)
        header = {**request, "width": image.width, "height": image.height, "bands": bands, "dpi": dpi}
        if self._send(header, data):
            self._unanswered += 1
        else:
            self._kill()

    def ask(self, request: dict, image: Image.Image, dpi: int, timeout: float) -> dict:
        """The worker's answer to ``request`` on ``image`` (whatever it says: the engine reads its
        errors), within ``timeout`` seconds."""
        data, bands = pixels(image)
        header = {**request, "width": image.width, "height": image.height, "bands": bands, "dpi": dpi}
        if self._unanswered:  # the wait for the worker's warm-up is part of the page's time
            started = time.perf_counter()
            self._skip_warm_up(timeout)
            timeout = max(0.0, timeout - (time.perf_counter() - started))
        line: bytes | None = b""  # no answer: the worker is gone (its input a broken pipe)
        if self._send(header, data):
            process = self._started()
            line = self._answer(process, timeout)
        if line is None:
            self._kill()
            raise OcrFailed(f"recognition ran over {timeout} s", reason="timeout")
        if line == _OVER_MEMORY:
            self._kill()
            raise OcrFailed(
                f"{self.name}'s worker passed {self.memory_bytes // 2**20} MB of memory", reason="memory"
            )
        if not line:
            code = self._kill()
            raise OcrFailed(f"{self.name}'s worker ended (exit code {code})", reason="engine_error")
        return json.loads(line)

    def _answer(self, process: subprocess.Popen[bytes], timeout: float) -> bytes | None:
        """The worker's answer line (empty when it ended), None past ``timeout``, or :data:`_OVER_MEMORY`
        when its resident memory passed :attr:`memory_bytes` while it read."""
        import psutil

        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            ready, _, _ = select.select([process.stdout], [], [], max(0.0, min(MEMORY_POLL_S, left)))
            if ready:
                return process.stdout.readline()  # type: ignore[union-attr]
            if left <= 0:
                return None
            try:
                if psutil.Process(process.pid).memory_info().rss > self.memory_bytes:
                    return _OVER_MEMORY
            except psutil.Error:  # it ended: the next select reads its empty answer
                continue

    def close(self) -> None:
        """End the worker: its input closed, it frees its models and exits."""
        process, self._process = self._process, None
        self._unanswered = 0
        if process is None:
            return
        try:
            process.stdin.close()  # type: ignore[union-attr]
            process.wait(timeout=CLOSE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        process.stdout.close()  # type: ignore[union-attr]

    @property
    def pid(self) -> int | None:
        """The worker's process id while it runs."""
        return None if self._process is None else self._process.pid

    def _send(self, header: dict, pixels: bytes) -> bool:
        """Write one request (its JSON line, then its pixels) to the worker, started if need be; False
        when the worker is gone."""
        process = self._started()
        try:
            process.stdin.write(json.dumps(header).encode() + b"\n")  # type: ignore[union-attr]
            process.stdin.write(pixels)  # type: ignore[union-attr]
            process.stdin.flush()  # type: ignore[union-attr]
        except OSError:
            return False
        return True

    def _skip_warm_up(self, timeout: float) -> None:
        """Read the answers to warm-up requests (whatever they say: a page's own request says it again);
        a worker that gives none in ``timeout`` is ended, and the page starts a new one."""
        while self._unanswered and self._process is not None:
            ready, _, _ = select.select([self._process.stdout], [], [], timeout)
            if not ready or not self._process.stdout.readline():  # type: ignore[union-attr]
                self._kill()
            self._unanswered -= 1
        self._unanswered = 0

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is None:
            root = str(Path(__file__).resolve().parents[2])  # the folder that holds the readers package
            path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
            self._process = subprocess.Popen(
                [sys.executable, "-m", self.module],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,  # the engine's remarks; failures come back as answers
                env={**os.environ, "PYTHONPATH": path},  # the worker keeps its engine to one thread
            )
        return self._process

    def _kill(self) -> int | None:
        process, self._process = self._process, None
        self._unanswered = 0
        if process is None:
            return None
        process.kill()
        code = process.wait()
        for stream in (process.stdin, process.stdout):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        return code


def pixels(image: Image.Image) -> tuple[bytes, int]:
    """``image``'s pixels as the workers take them, and the bytes a pixel: grey or RGB as they are, a
    bilevel image as grey, an alpha channel flattened onto white."""
    if image.mode == "1":
        image = image.convert("L")
    elif image.mode not in ("L", "RGB"):
        if "A" in image.getbands():
            background = Image.new("RGB", image.size, (255, 255, 255))
            background.paste(image, (0, 0), image.getchannel("A"))
            image = background
        else:
            image = image.convert("RGB")
    return image.tobytes(), 1 if image.mode == "L" else 3


W = TypeVar("W", bound=WorkerProcess)


class WorkerProcesses(Generic[W]):
    """A worker process for each thread that asks for one (made by ``make``), all ended together when the
    block ends::

        with TesseractProcesses() as workers:
            pool.submit(lambda: recognise(image, "eng", tesseract=workers.for_this_thread()))
    """

    def __init__(self, make: Callable[[], W]) -> None:
        self._make = make
        self._local = threading.local()
        self._all: list[W] = []
        self._ready: list[W] = []  # started ahead, not yet taken by a thread
        self._lock = threading.Lock()

    def started_ahead(self, process: W) -> None:
        """Keep ``process``, started (and warming) already, for the next thread that asks."""
        with self._lock:
            self._all.append(process)
            self._ready.append(process)

    def for_this_thread(self) -> W:
        process = getattr(self._local, "process", None)
        if process is None:
            with self._lock:
                if self._ready:
                    process = self._ready.pop()  # started ahead: already among all
                else:
                    process = self._make()
                    self._all.append(process)
            self._local.process = process
        return process

    def close(self) -> None:
        with self._lock:
            processes, self._all, self._ready = self._all, [], []
        for process in processes:
            process.close()

    def __enter__(self) -> WorkerProcesses[W]:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def requests_of(stream: BinaryIO) -> Iterator[tuple[dict, bytes]]:
    """The worker's side: each request on ``stream`` (its JSON line and its pixels) until the stream ends
    or the caller goes away mid-request."""
    while header := stream.readline():
        request = json.loads(header)
        size = int(request["width"]) * int(request["height"]) * int(request["bands"])
        data = stream.read(size)
        if len(data) < size:
            return
        yield request, data
