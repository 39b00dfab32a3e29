"""Frame sources: images, video files, and live cameras (RTSP/HTTP streams, USB devices) via OpenCV.

``open_source(spec)`` picks the kind from the spec, as pyserial picks a transport from a URL:
an int or a digit string or ``/dev/videoN`` is a USB camera, ``rtsp://``, ``rtsps://``, ``http(s)://``,
``udp://``, ``tcp://`` a network stream, anything else a video file. Files fail fast with a sentence
(missing, not a video); live sources reconnect after a dropped frame, ``max_reconnects`` times in a row.

A live source's frames come at the camera's own rate and are timed on the caller's clock: a network stream's by the
timestamps it sends (RTSP's, an MPEG-TS stream's; ``StreamClock``), anything else's (a USB camera, Motion-JPEG over
HTTP, which has none) as they arrive.

A Motion-JPEG file's or stream's frames stay compressed until they are looked at: reading the next one costs
half a millisecond, a 4K frame decodes in about 26 ms, and ``Frame.reduced`` decodes a fraction of its size at
a fraction of that (the JPEG's own scaled decoding). A consumer that looks at one frame in three, at a quarter
of the size, is spared most of the decoding, and a ring buffer of compressed frames is ~18 times smaller
(a simulated 4K frame: 1.35 MB as a quality-90 JPEG, 24.9 MB decoded).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from tablewatch.images import ImageError, read_image_file
from tablewatch.vision.stream_clock import StreamClock

log = logging.getLogger(__name__)
LIVE_SCHEMES = ("rtsp://", "rtsps://", "http://", "https://", "udp://", "tcp://")
HTTP_SCHEMES = ("http://", "https://")


class SourceError(RuntimeError):
    """An image, video or camera that can't be read; the message names it and says why."""


JPEG_FOURCCS = ("MJPG", "mjpg", "AVRN", "LJPG", "JPGL", "jpeg", "MJLS")
CAMERA_JPEG_QUALITY = 90  # about what a camera sends in Motion-JPEG
REDUCED_FLAGS = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
                 8: cv2.IMREAD_REDUCED_COLOR_8}


class Frame:
    """One frame: its pixels, or its JPEG bytes decoded each time they are looked at (never kept: a buffer of
    compressed frames stays small), with its place in the source and its time."""

    __slots__ = ("_image", "index", "jpeg", "stream_time", "ts")

    def __init__(self, image: np.ndarray | None = None, index: int = 0, ts: float = 0.0, *,
                 jpeg: np.ndarray | None = None, stream_time: bool = False) -> None:
        if (image is None) == (jpeg is None):
            raise ValueError("a frame has its pixels or its JPEG bytes, one of the two")
        self._image, self.jpeg = image, jpeg
        self.index = index  # frames delivered so far by this source, from 0
        self.ts = ts  # seconds: position in the file, or the live source's clock
        self.stream_time = stream_time  # ts is the stream's own time for the frame (on that clock), not its arrival

    @property
    def image(self) -> np.ndarray:
        """BGR uint8 (H, W, 3); SourceError if the JPEG bytes don't decode."""
        return self._image if self._image is not None else self.reduced(1)

    def reduced(self, factor: int) -> np.ndarray:
        """The frame at 1/``factor`` of its width and height (rounded up), ``factor`` 1, 2, 4 or 8: a JPEG is
        decoded straight to that size, pixels are averaged down."""
        if factor not in REDUCED_FLAGS:
            raise ValueError(f"a frame is reduced by 1, 2, 4 or 8, not {factor}")
        if self._image is None:
            assert self.jpeg is not None  # (a frame holds one or the other)
            image = cv2.imdecode(self.jpeg, REDUCED_FLAGS[factor])
            if image is None:
                raise SourceError(f"frame {self.index} at {self.ts:.3f} s: its JPEG data does not decode")
            return image
        if factor == 1:
            return self._image
        h, w = self._image.shape[:2]
        return cv2.resize(self._image, (-(-w // factor), -(-h // factor)), interpolation=cv2.INTER_AREA)


def jpeg_frame(image: np.ndarray, *, index: int = 0, ts: float = 0.0, quality: int = CAMERA_JPEG_QUALITY) -> Frame:
    """An image as a compressed frame, as a Motion-JPEG camera sends it (simulated cameras, benchmarks)."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError(f"frame {index} could not be JPEG-encoded")
    return Frame(jpeg=data.reshape(-1), index=index, ts=ts)


class FrameSource(Protocol):
    name: str

    def frames(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...


def read_image(path: str | Path) -> np.ndarray:
    """A BGR image from a file; SourceError if missing, unreadable, not an image or too large to decode."""
    try:
        return read_image_file(path)
    except ImageError as exc:
        raise SourceError(str(exc)) from exc


class VideoFileSource:
    """Frames of a video file, with their time in the file; a Motion-JPEG file's frames stay compressed. A codec
    OpenCV's FFmpeg lacks (AV1 in the opencv-python wheels) is decoded by PyAV's. A frame's time is its place at
    the file's frame rate, or its own timestamp where that differs: a recorder that writes only the frames it got
    leaves gaps that counting frames would close, and the picture would run ahead of the readers and the console."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.name = str(self.path)
        if not self.path.exists():
            raise SourceError(f"video file not found: {self.path}")
        if not self.path.is_file():
            raise SourceError(f"not a file: {self.path}")
        self.capture = cv2.VideoCapture(str(self.path))
        self.fps = float(self.capture.get(cv2.CAP_PROP_FPS)) or 30.0
        self.compressed = self.capture.isOpened() and self._compressed() and self.capture.set(cv2.CAP_PROP_FORMAT, -1)
        self._decoded: Generator[tuple[np.ndarray, float | None]] | None = None  # PyAV's, where OpenCV decodes none
        first = self._read() if self.capture.isOpened() else None
        if first is None:
            self.capture.release()
            self.fps, self._decoded = decoded_by_pyav(self.path)
            first = next(self._decoded, None)
            if first is None:
                raise SourceError(f"{self.path}: no frame could be decoded (empty or broken video).")
        self._first: Frame | None = self._frame(*first, index=0)
        try:
            height, width = self._first.image.shape[:2]
        except SourceError as exc:
            self.close()
            raise SourceError(f"{self.path}: the first frame does not decode (broken video).") from exc
        self.size = (width, height)

    def _compressed(self) -> bool:
        """Can the capture hand over this file's frames undecoded (``first_jpeg``)? Tried on a capture of its
        own, as switching one capture back and forth upsets FFmpeg's reading of a file."""
        probe = cv2.VideoCapture(str(self.path))
        try:
            return first_jpeg(probe) is not None
        finally:
            probe.release()

    def _frame(self, data: np.ndarray, stamped: float | None, *, index: int) -> Frame:
        counted = index / self.fps
        ts = counted if stamped is None or stamped < 0 or abs(stamped - counted) < 0.5 / self.fps else stamped
        return captured(data, index, ts, compressed=self.compressed)

    def _read(self) -> tuple[np.ndarray, float | None] | None:
        """The next frame and its timestamp in the file (seconds, None when it has none), or None at the end."""
        if self._decoded is not None:
            return next(self._decoded, None)
        ok, data = self.capture.read()
        return (data, self.capture.get(cv2.CAP_PROP_POS_MSEC) / 1000.0) if ok and data is not None else None

    def frames(self) -> Iterator[Frame]:
        index = 0
        while True:
            if self._first is not None:
                frame, self._first = self._first, None
            else:
                read = self._read()
                if read is None:
                    return
                frame = self._frame(*read, index=index)
            yield frame
            index += 1

    def close(self) -> None:
        self.capture.release()
        if self._decoded is not None:
            self._decoded.close()  # (closes PyAV's container)


def decoded_by_pyav(path: Path) -> tuple[float, Generator[tuple[np.ndarray, float | None]]]:
    """A video file OpenCV decodes no frame of, through PyAV: its frame rate and its frames (BGR, with their
    timestamps); SourceError when PyAV can't open it either. A file broken part way ends there, with a warning."""
    import av  # (only files OpenCV can't read need it)

    try:
        container = av.open(str(path))
        stream = container.streams.video[0]
    except (av.FFmpegError, IndexError) as exc:
        raise SourceError(f"cannot open {path} as a video (not a video file, or a codec FFmpeg lacks).") from exc
    fps = float(stream.average_rate or stream.guessed_rate or 30.0)

    def frames() -> Generator[tuple[np.ndarray, float | None]]:
        try:
            for frame in container.decode(stream):
                yield frame.to_ndarray(format="bgr24"), frame.time
        except av.FFmpegError as exc:
            log.warning("%s: the video breaks off here (%s)", path, exc)
        finally:
            container.close()
    return fps, frames()


def captured(data: np.ndarray, index: int, ts: float, *, compressed: bool, stream_time: bool = False) -> Frame:
    """A frame as a capture read it: JPEG bytes when it hands them over undecoded, else pixels."""
    if compressed:
        return Frame(jpeg=data.reshape(-1), index=index, ts=ts, stream_time=stream_time)
    return Frame(data, index, ts, stream_time=stream_time)


def fourcc(capture: cv2.VideoCapture) -> str:
    """The capture's codec, as four letters ("MJPG", "H264")."""
    return int(capture.get(cv2.CAP_PROP_FOURCC)).to_bytes(4, "little").decode("latin-1")


def has_timestamps(spec: str | int, capture: cv2.VideoCapture) -> bool:
    """Does the stream time its frames? RTP (RTSP) and MPEG-TS carry when each was captured; Motion-JPEG over
    HTTP carries nothing (FFmpeg numbers its frames at a guessed 25 fps, which is no clock), and a USB camera's
    frames are taken as they come."""
    if not isinstance(spec, str) or not spec.startswith(LIVE_SCHEMES):
        return False
    return not (spec.startswith(HTTP_SCHEMES) and fourcc(capture) in JPEG_FOURCCS)


def first_jpeg(capture: cv2.VideoCapture) -> np.ndarray | None:
    """Switch a capture to handing over its frames undecoded when they are Motion-JPEG that our JPEG decoder
    reads (some variants only FFmpeg decodes): the first frame's bytes, or None with the capture decoding as
    before (a live stream has lost that one frame then)."""
    if fourcc(capture) not in JPEG_FOURCCS or not capture.set(cv2.CAP_PROP_FORMAT, -1):
        return None
    ok, packet = capture.read()
    if ok and packet is not None and cv2.imdecode(packet.reshape(-1), cv2.IMREAD_REDUCED_COLOR_8) is not None:
        return packet.reshape(-1)
    capture.set(cv2.CAP_PROP_FORMAT, 0)
    return None


class LiveSource:
    """A camera or network stream that may drop: a failed read closes and reopens it.

    ``max_reconnects`` bounds the reopen attempts in a row (None: forever), ``retry_delay`` is the pause
    before each, doubled per failure up to ``max_delay``. ``opener`` builds the capture (OpenCV by default).
    A Motion-JPEG stream's frames come compressed (``first_jpeg``), as a file's do. Frames are timed on ``clock``
    (see the module docstring); ``timed`` says whether by the stream's timestamps.
    """

    def __init__(self, spec: str | int, *, max_reconnects: int | None = 10, retry_delay: float = 0.5,
                 max_delay: float = 10.0, opener: Callable[[str | int], cv2.VideoCapture] | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.spec, self.name = spec, str(spec)
        self.max_reconnects, self.retry_delay, self.max_delay = max_reconnects, retry_delay, max_delay
        self.opener, self.clock = opener or cv2.VideoCapture, clock
        self.reconnects = 0
        self.compressed = self.timed = False
        self.stream_clock = StreamClock()
        self._first: np.ndarray | None = None
        self._first_pts: float | None = None
        self.capture = self._open()
        if self.capture is None:
            raise SourceError(f"cannot open camera or stream {self.name!r} (no device there, or unreachable).")

    def _open(self) -> cv2.VideoCapture | None:
        capture = self.opener(self.spec)
        if capture is not None and capture.isOpened():
            self._first = first_jpeg(capture)
            self.compressed = self._first is not None
            self.timed = has_timestamps(self.spec, capture)
            self._first_pts = self._pts(capture)
            self.stream_clock.restart()
            return capture
        if capture is not None:
            capture.release()
        return None

    def _pts(self, capture: cv2.VideoCapture) -> float | None:
        """The stream time of the frame just read, in seconds; None when the stream has none."""
        return capture.get(cv2.CAP_PROP_POS_MSEC) / 1000 if self.timed else None

    def _read(self) -> tuple[np.ndarray | None, float | None]:
        """The next frame's data (None when none came) and stream time."""
        if self._first is not None:
            data, self._first = self._first, None
            return data, self._first_pts
        if self.capture is None:
            return None, None
        ok, data = self.capture.read()
        return (data, self._pts(self.capture)) if ok else (None, None)

    def _frame(self, data: np.ndarray, index: int, pts: float | None) -> Frame:
        arrival = self.clock()
        ts = arrival if pts is None else self.stream_clock.place(pts, arrival)
        return captured(data, index, ts, compressed=self.compressed, stream_time=pts is not None)

    def frames(self) -> Iterator[Frame]:
        index = 0
        failures = 0
        while True:
            data, pts = self._read()
            if data is not None:
                failures = 0
                yield self._frame(data, index, pts)
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
