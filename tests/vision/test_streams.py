"""Camera streams as surveillance systems deliver them, from servers the tests start: HTTP Motion-JPEG (as IP cameras
serve it) and RTSP with H.264 (GStreamer's RTSP server). Frames come at the stream's rate, in order, Motion-JPEG's
still compressed; a server that dies and comes back is reconnected to, one that stays away is a clear error; an RTSP
stream's frames are timed by its own timestamps, so frames that pile up behind a held-up reader keep the camera's
spacing, on the table camera's clock too."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import pytest

from tablewatch.devices.poller import session_clock
from tablewatch.table.config import CameraConfig
from tablewatch.table.sources import CameraSource
from tablewatch.vision.sources import Frame, LiveSource, SourceError, open_source
from tests.support.mjpeg_server import MjpegServer, frame_number
from tests.support.rtsp_server import RtspServer, rtsp_missing
from tests.support.wait import wait_until

DEADLINE_S = 60.0  # generous: the machine may be busy
MJPEG_FPS = 10.0
RTSP_FPS = 25  # FFmpeg holds a new stream's first 28 frames or so while it probes it: a second at 25 fps
STALL_S = 0.5  # a reader held up this long: the frames sent meanwhile pile up and come at once
STALLED = 45  # ... after this many frames, past the first ones that FFmpeg held while it probed the stream


class Reading:
    """A live source's frames read in a thread of their own, as a camera's are, until ``stop`` or its error."""

    def __init__(self, source: LiveSource) -> None:
        self.source = source
        self.frames: list[Frame] = []
        self.connections: list[int] = []  # each frame's connection: the source's reconnects before it
        self.error: SourceError | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for frame in self.source.frames():
                self.connections.append(self.source.reconnects)
                self.frames.append(frame)
                if self._stop.is_set():
                    return
        except SourceError as exc:
            self.error = exc
        finally:
            self.source.close()  # here: a capture is not to be released while another thread reads it

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(DEADLINE_S)


@pytest.fixture
def mjpeg_server() -> Iterator[MjpegServer]:
    server = MjpegServer(numbered=True, fps=MJPEG_FPS).start()
    yield server
    server.kill()


@pytest.fixture
def rtsp_server() -> Iterator[RtspServer]:
    if missing := rtsp_missing():
        pytest.skip(missing)
    server = RtspServer(fps=RTSP_FPS).start()
    yield server
    server.kill()


def live(url: str, **options: Any) -> LiveSource:
    source = open_source(url, retry_delay=0.05, max_delay=0.2, **options)
    assert isinstance(source, LiveSource)
    return source


def intervals(times: list[float]) -> list[float]:
    return [b - a for a, b in pairwise(times)]


def test_an_http_motion_jpeg_stream_comes_compressed_in_order_at_its_rate(mjpeg_server: MjpegServer):
    source = live(mjpeg_server.url, max_reconnects=0)
    frames = []
    for frame in source.frames():
        frames.append(frame)
        if len(frames) == 15:
            break
    source.close()
    assert source.compressed and all(f.jpeg is not None for f in frames)  # its JPEG bytes, kept
    numbers = [frame_number(f.image) for f in frames]
    assert numbers == list(range(numbers[0], numbers[0] + 15))
    # Its frames carry no time of their own: timed as they come, at the server's pace (after the first two,
    # one read as the stream was opened and one the server sent as the client came).
    assert not source.timed and not any(f.stream_time for f in frames)
    assert (frames[-1].ts - frames[2].ts) / 12 == pytest.approx(1 / MJPEG_FPS, rel=0.2)


def served_again(server: MjpegServer | RtspServer, reading: Reading) -> None:
    """Frames from the stream, its server killed (as a camera losing power) and started again on the same port, and
    frames again; the reading stopped."""
    try:
        wait_until("frames from the stream", lambda: len(reading.frames) >= 5, DEADLINE_S)
        server.kill()
        seen = len(reading.frames)
        server.start()
        wait_until("frames again", lambda: len(reading.frames) >= seen + 5, DEADLINE_S)
    finally:
        reading.stop()


def test_an_http_motion_jpeg_stream_whose_server_comes_back_is_read_again(mjpeg_server: MjpegServer):
    reading = Reading(live(mjpeg_server.url, max_reconnects=50))
    served_again(mjpeg_server, reading)
    assert reading.error is None and reading.source.reconnects >= 1
    assert [f.index for f in reading.frames] == list(range(len(reading.frames)))
    assert all(b > a for a, b in pairwise(f.ts for f in reading.frames))
    again = [frame_number(f.image) for f, c in zip(reading.frames, reading.connections, strict=True)
             if c == reading.connections[-1]]
    assert again == list(range(again[0], again[0] + len(again)))  # the new server's frames, in order


def test_an_http_motion_jpeg_stream_whose_server_stays_away_is_a_clear_error(mjpeg_server: MjpegServer):
    reading = Reading(live(mjpeg_server.url, max_reconnects=2))
    wait_until("frames from the stream", lambda: len(reading.frames) >= 3, DEADLINE_S)
    mjpeg_server.kill()
    wait_until("the source to give up", lambda: reading.done, DEADLINE_S)
    assert isinstance(reading.error, SourceError)
    assert str(reading.error) == f"{mjpeg_server.url}: stream lost; 2 reconnect attempts failed."


def test_an_rtsp_streams_frames_are_timed_by_its_timestamps(rtsp_server: RtspServer):
    source = live(rtsp_server.url, max_reconnects=0)
    frames, handed = [], []  # each frame, and when the source handed it over
    for frame in source.frames():
        frames.append(frame)
        handed.append(time.monotonic())
        if len(frames) == STALLED + 10:
            break
        if len(frames) == STALLED:
            time.sleep(STALL_S)  # a reader held up: the frames sent meanwhile pile up
    source.close()
    assert source.timed and not source.compressed and all(f.stream_time for f in frames)
    assert frames[-1].image.shape == (240, 320, 3)  # decoded H.264
    assert all(f.ts <= at for f, at in zip(frames, handed, strict=True))  # never after it came
    after = handed[STALLED:]
    assert sum(gap < 0.1 / RTSP_FPS for gap in intervals(after)) >= 5  # those behind the stall came at once ...
    steady = [f.ts for f in frames[STALLED - 10:]]
    assert intervals(steady) == pytest.approx([1 / RTSP_FPS] * 19, abs=3e-3)  # ... and keep the camera's spacing


def test_an_rtsp_stream_whose_server_comes_back_is_read_again(rtsp_server: RtspServer):
    reading = Reading(live(rtsp_server.url, max_reconnects=50))
    served_again(rtsp_server, reading)
    assert reading.error is None and reading.source.reconnects >= 1
    times = [f.ts for f in reading.frames]
    assert all(f.stream_time for f in reading.frames) and all(b >= a for a, b in pairwise(times))


def test_a_table_camera_times_an_rtsp_streams_frames_by_the_stream_on_the_tables_clock(rtsp_server: RtspServer):
    clock = session_clock()
    kept: list[tuple[float, float]] = []  # each frame's time, and the table's clock when it was kept

    def keep(_camera: str, ts: float, _frame: Frame) -> None:
        kept.append((ts, clock()))
        if len(kept) == STALLED:
            time.sleep(STALL_S)  # perception held up

    camera = CameraSource(CameraConfig(source=rtsp_server.url, name="overhead"), table="T01", clock=clock,
                          frame_sinks=[keep])
    camera.start(lambda _event: None)
    try:
        wait_until("frames past the stall", lambda: len(kept) >= STALLED + 10, DEADLINE_S)
    finally:
        camera.stop()
    assert all(ts <= at for ts, at in kept)  # on the table's clock, never after it came
    steady = [ts for ts, _ in kept[STALLED - 10:STALLED + 10]]
    assert intervals(steady) == pytest.approx([1 / RTSP_FPS] * 19, abs=3e-3)
