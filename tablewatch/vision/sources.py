"""Frame sources: images, video files, and live cameras (RTSP/HTTP streams, USB devices) via OpenCV.

``open_source(spec)`` picks the kind from the spec, as pyserial picks a transport from a URL:
an int or a digit string or ``/dev/videoN`` is a USB camera, ``rtsp://``, ``rtsps://``, ``http(s)://``,
``udp://``, ``tcp://`` a network stream, anything else a video file. Files fail fast with a sentence
(missing, not a video); live sources reconnect after a dropped frame, ``max_reconnects`` times in a row.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

log = logging.getLogger(__name__)
LIVE_SCHEMES = ("rtsp://", "rtsps://", "http://", "https://", "udp://", "tcp://")


class SourceError(RuntimeError):
    """An image, video or camera that can't be read; the message names it and says why."""


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # BGR uint8 (H, W, 3)
    index: int  # frames delivered so far by this source, from 0
    ts: float  # seconds: position in the file, or monotonic clock for a live source


class FrameSource(Protocol):
    name: str

    def frames(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...


def read_image(path: str | Path) -> np.ndarray:
    """A BGR image from a file; SourceError if missing, unreadable or not an image."""
    path = Path(path)
    if not path.exists():
        raise SourceError(f"image not found: {path}")
    if not path.is_file():
        raise SourceError(f"not a file: {path}")
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as exc:
        raise SourceError(f"cannot read image {path}: {exc.strerror}") from exc
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise SourceError(f"not a readable image (empty, truncated or an unknown format): {path}")
    return image


class VideoFileSource:
    """Frames of a video file, with their time in the file."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.name = str(self.path)
        if not self.path.exists():
            raise SourceError(f"video file not found: {self.path}")
        if not self.path.is_file():
            raise SourceError(f"not a file: {self.path}")
        self.capture = cv2.VideoCapture(str(self.path))
        if not self.capture.isOpened():
            raise SourceError(f"cannot open {self.path} as a video (not a video file, or a codec OpenCV lacks).")
        ok, first = self.capture.read()
        if not ok or first is None:
            self.capture.release()
            raise SourceError(f"{self.path}: no frame could be decoded (empty or broken video).")
        self._first: np.ndarray | None = first
        self.fps = float(self.capture.get(cv2.CAP_PROP_FPS)) or 30.0
        self.size = (first.shape[1], first.shape[0])

    def frames(self) -> Iterator[Frame]:
        index = 0
        while True:
            if self._first is not None:
                image, self._first = self._first, None
            else:
                ok, image = self.capture.read()
                if not ok or image is None:
                    return
            yield Frame(image=image, index=index, ts=index / self.fps)
            index += 1

    def close(self) -> None:
        self.capture.release()


class LiveSource:
    """A camera or network stream that may drop: a failed read closes and reopens it.

    ``max_reconnects`` bounds the reopen attempts in a row (None: forever), ``retry_delay`` is the pause
    before each, doubled per failure up to ``max_delay``. ``opener`` builds the capture (OpenCV by default).
    """

    def __init__(self, spec: str | int, *, max_reconnects: int | None = 10, retry_delay: float = 0.5,
                 max_delay: float = 10.0, opener: Callable[[str | int], cv2.VideoCapture] | None = None):
        self.spec, self.name = spec, str(spec)
        self.max_reconnects, self.retry_delay, self.max_delay = max_reconnects, retry_delay, max_delay
        self.opener = opener or cv2.VideoCapture
        self.reconnects = 0
        self.capture = self._open()
        if self.capture is None:
            raise SourceError(f"cannot open camera or stream {self.name!r} (no device there, or unreachable).")

    def _open(self) -> cv2.VideoCapture | None:
        capture = self.opener(self.spec)
        if capture is not None and capture.isOpened():
            return capture
        if capture is not None:
            capture.release()
        return None

    def frames(self) -> Iterator[Frame]:
        index = 0
        failures = 0
        while True:
            ok, image = self.capture.read() if self.capture is not None else (False, None)
            if ok and image is not None:
                failures = 0
                yield Frame(image=image, index=index, ts=time.monotonic())
                index += 1
                continue
            if self.max_reconnects is not None and failures >= self.max_reconnects:
                raise SourceError(f"{self.name}: stream lost; {failures} reconnect attempts failed.")
            delay = min(self.retry_delay * 2**failures, self.max_delay)
            failures += 1
            log.warning("%s: no frame; reconnecting in %.1f s (attempt %d)", self.name, delay, failures)
            self.close()
            time.sleep(delay)
            self.capture = self._open()
            self.reconnects += 1

    def close(self) -> None:
        if self.capture is not None:
            self.capture.release()


def open_source(spec: str | int | Path, **live_options: object) -> FrameSource:
    """A frame source for ``spec`` (see the module docstring); options go to ``LiveSource``."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return LiveSource(int(spec), **live_options)  # type: ignore[arg-type]
    text = str(spec)
    if text.startswith(LIVE_SCHEMES) or text.startswith("/dev/video"):
        return LiveSource(text, **live_options)  # type: ignore[arg-type]
    return VideoFileSource(text)
