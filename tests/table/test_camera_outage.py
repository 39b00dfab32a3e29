"""A camera that is missing or dies raises SYS-CAMERA through the rules, is retried with backoff and says it is
back when its frames come again: a video file that appears late, and a network stream (HTTP Motion-JPEG from a
server process) killed and started again. A video file that plays to its end is no failure."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from tablewatch.devices.poller import session_clock
from tablewatch.events import Event, Violation
from tablewatch.rules.game import GameConfig
from tablewatch.rules.table import TableRules
from tablewatch.table.config import CameraConfig
from tablewatch.table.sources import CameraSource
from tests.support.mjpeg_server import MjpegServer
from tests.support.wait import wait_until

DEADLINE_S = 60.0  # generous: the machine may be busy


class Table:
    """The rules layer behind one camera source: what it raises, in order."""

    def __init__(self) -> None:
        self.rules = TableRules(GameConfig(), table="T01")
        self.alerts: list[Violation] = []
        self._cond = threading.Condition()

    def emit(self, event: Event) -> None:
        with self._cond:
            self.alerts += self.rules.feed(event)
            self._cond.notify_all()

    def titles(self) -> list[str]:
        with self._cond:
            return [a.title for a in self.alerts]

    def wait(self, what: str, predicate: Callable[[], bool]) -> None:
        deadline = time.monotonic() + DEADLINE_S
        with self._cond:
            while not predicate():
                assert time.monotonic() < deadline, f"timed out waiting for {what}; alerts {self.titles()}"
                self._cond.wait(0.1)


def camera(source: str) -> CameraSource:
    return CameraSource(CameraConfig(source=source, name="overhead"), table="T01", clock=session_clock(),
                        frame_sinks=[], retry_first_s=0.1, retry_max_s=1.0)


def write_video(path: Path, frames: int) -> None:
    """A short Motion-JPEG recording, written beside ``path`` and renamed there whole."""
    partial = path.with_name("partial-" + path.name)
    writer = cv2.VideoWriter(str(partial), cv2.VideoWriter.fourcc(*"MJPG"), 20.0, (160, 120))
    for n in range(frames):
        writer.write(np.full((120, 160, 3), 10 * n, np.uint8))
    writer.release()
    partial.rename(path)


def test_a_missing_file_is_alerted_retried_and_recovered_when_it_appears_and_its_end_is_no_failure(
        tmp_path: Path) -> None:
    table, video = Table(), tmp_path / "overhead.avi"
    source = camera(str(video))
    source.start(table.emit)
    try:
        table.wait("the camera reported offline", lambda: table.titles() == ["Camera offline"])
        wait_until("a few retries", lambda: source.outages == 1 and "not found" in source.error, DEADLINE_S)
        write_video(video, frames=20)
        assert source._thread is not None
        wait_until("the recording played to its end", lambda: not source._thread.is_alive(), DEADLINE_S)  # type: ignore[union-attr]
    finally:
        source.stop()
    assert table.titles() == ["Camera offline", "Camera back online"]  # and nothing when the file ended
    assert {a.rule_id for a in table.alerts} == {"SYS-CAMERA"}
    assert "video file not found" in table.alerts[0].observed
    assert source.frames == 20 and source.error == "" and source.outages == 1


def test_a_network_stream_killed_and_restarted_is_alerted_and_recovered(tmp_path: Path) -> None:
    server = MjpegServer().start()
    table = Table()
    source = camera(server.url)
    source.start(table.emit)
    try:
        wait_until("frames from the stream", lambda: source.frames >= 5, DEADLINE_S)
        server.kill()
        table.wait("the camera reported offline", lambda: table.titles() == ["Camera offline"])
        seen = source.frames
        server.start()
        table.wait("the camera reported back", lambda: table.titles() == ["Camera offline", "Camera back online"])
        wait_until("frames again", lambda: source.frames > seen, DEADLINE_S)
    finally:
        source.stop()
        server.kill()
    assert [a.rule_id for a in table.alerts] == ["SYS-CAMERA", "SYS-CAMERA"]
    assert source.outages == 1 and source.error == ""
