"""A camera in a process of its own (``own_process = true``): the table gets the same vision events as from a
camera in a thread; a camera process that dies is a camera down, started again; one whose table's process is gone
ends; a machine without the shared memory it needs runs the table without the camera and says why."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import cv2
import pytest
from rich.console import Console

from tablewatch.alerts.evidence import EvidenceConfig, EvidenceRecorder
from tablewatch.devices.poller import session_clock
from tablewatch.edge import frames as shared
from tablewatch.edge.camera import CameraProcess
from tablewatch.edge.frames import SharedFrame
from tablewatch.events import CardDealt, DeviceStatus, Event, load_events
from tablewatch.sim.session import Simulation
from tablewatch.table.config import CameraConfig, RunConfig
from tablewatch.table.run import run_table
from tests.support.demo_camera import DEMO, FPS, SECONDS, render_demo_camera, run_until_the_cameras_end
from tests.support.mjpeg_server import FPS as FPS_STREAM
from tests.support.mjpeg_server import MjpegServer
from tests.support.wait import wait_until

DEADLINE_S = 60.0  # generous: the machine may be busy


class Collected:
    """What a camera hands the table: its events, and the frames it keeps for evidence."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.frames: list[SharedFrame] = []
        self._lock = threading.Lock()

    def emit(self, event: Event) -> None:
        with self._lock:
            self.events.append(event)

    def keep(self, _camera: str, _ts: float, frame: SharedFrame) -> None:
        with self._lock:
            self.frames.append(frame)

    def statuses(self) -> list[tuple[bool, str]]:
        with self._lock:
            return [(e.online, e.detail) for e in self.events if isinstance(e, DeviceStatus)]


def in_own_process(source: str, collected: Collected, *, frame_sink: Any = None) -> CameraProcess:
    """An evidence-only camera in its own process, retried within a second; its frames to ``frame_sink``
    (``collected`` keeps them by default)."""
    return CameraProcess(CameraConfig(source=source, name="overhead", own_process=True, shared_memory_mb=16),
                         table="T01", clock=session_clock(), frame_sinks=[frame_sink or collected.keep],
                         perceiving=False, tolerance_mm=5.0, retry_first_s=0.1, retry_max_s=1.0)


@pytest.fixture(scope="module")
def video_and_profile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return render_demo_camera(tmp_path_factory.mktemp("camera"))


@pytest.mark.slow
def test_a_camera_in_its_own_process_gives_the_table_the_same_vision_events(
        video_and_profile: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    video, profile = video_and_profile
    config = RunConfig(table="T01", out=tmp_path / "out", cameras=[
        {"source": str(video), "profile": profile, "deck": "anglo_poker", "own_process": True,
         "shared_memory_mb": 64}])
    with (tmp_path / "console.txt").open("w") as screen:
        pipeline = run_until_the_cameras_end(config, console=Console(file=screen, width=400), monkeypatch=monkeypatch)

    camera = next(s for s in pipeline.sources if isinstance(s, CameraProcess))
    assert camera.frames == round(SECONDS * FPS) and camera.error == "" and camera.restarts == 0
    events = load_events((tmp_path / "out" / "events.jsonl").read_text())
    truth = [e for e in Simulation.from_file(DEMO).events if e.ts <= SECONDS - 0.5]
    assert [e.seat for e in events if isinstance(e, CardDealt)] == [e.seat for e in truth if isinstance(e, CardDealt)]
    assert {e.source for e in events} == {"vision", "scene"}
    assert "lag" in (tmp_path / "console.txt").read_text()  # how far behind the camera's analysis runs


def test_a_camera_process_killed_is_a_camera_down_started_again(tmp_path: Path) -> None:
    server = MjpegServer().start()
    collected = Collected()
    camera = in_own_process(server.url, collected)
    try:
        camera.start(collected.emit)
        wait_until("frames from the camera's process", lambda: camera.frames >= 5, DEADLINE_S)
        first = camera._process.pid
        os.kill(first, signal.SIGKILL)  # as the kernel's OOM killer or a crashing decoder would
        wait_until("the camera said down", lambda: (False, "the camera's process ended (exit code -9)")
                   in collected.statuses(), DEADLINE_S)
        counted = camera.frames
        wait_until("frames from its new process", lambda: camera.frames >= counted + 5, DEADLINE_S)
        wait_until("the camera said back", lambda: any(online for online, _ in collected.statuses()), DEADLINE_S)
    finally:
        camera.stop()
        server.kill()
    assert camera.restarts == 1 and camera._process.pid != first and camera.error == ""
    assert [online for online, _ in collected.statuses()] == [False, True]
    assert collected.frames[-1].image.shape == (120, 160, 3)  # the newest frame, from the shared memory


def test_an_alerts_still_and_clip_are_made_from_the_frames_in_shared_memory(tmp_path: Path) -> None:
    server = MjpegServer().start()
    recorder = EvidenceRecorder(EvidenceConfig(folder=tmp_path / "evidence", before_s=1.0, after_s=0.5))
    collected = Collected()
    camera = in_own_process(server.url, collected, frame_sink=recorder.add_frame)
    try:
        camera.start(collected.emit)
        wait_until("2 s of frames", lambda: camera.frames >= 2 * FPS_STREAM, DEADLINE_S)
        ring = recorder.rings["overhead"]
        evidence = recorder.capture("al-1", ring.times[-1] - 0.6, camera="overhead")
        wait_until("frames past the clip's end", lambda: ring.times[-1] > (evidence.clip_to_ts or 0), DEADLINE_S)
        assert recorder.flush(DEADLINE_S)
    finally:
        camera.stop()
        recorder.close()
        server.kill()
    assert isinstance(ring.frames[-1], SharedFrame)  # kept by reference into the camera's shared memory
    still = cv2.imread(str(evidence.still_path))
    assert still is not None and still.shape == (120, 160, 3)
    clip = cv2.VideoCapture(str(evidence.clip_path))
    assert clip.get(cv2.CAP_PROP_FRAME_COUNT) >= FPS_STREAM  # the 1.5 s around the alert
    clip.release()


def test_a_camera_process_ends_when_its_table_process_is_gone(tmp_path: Path) -> None:
    server = MjpegServer().start()
    table = subprocess.Popen([sys.executable, "-c", _TABLE, server.url], stdout=subprocess.PIPE, text=True,
                             cwd=Path(__file__).resolve().parents[2])
    try:
        assert table.stdout is not None
        child = int(table.stdout.readline())
        assert _alive(child)
        table.kill()  # no goodbye: the table's process just goes
        table.wait()
        wait_until("the camera's process to end", lambda: not _alive(child), DEADLINE_S)
    finally:
        table.kill()
        server.kill()


_TABLE = """
import sys, time
from tests.edge.test_camera_process import Collected, in_own_process
from tests.support.wait import wait_until
collected = Collected()
camera = in_own_process(sys.argv[1], collected)
camera.start(collected.emit)
wait_until("frames", lambda: camera.frames >= 3, 60)
print(camera._process.pid, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_without_room_for_its_frames_the_table_runs_without_the_camera_and_says_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shared, "_shm_free", lambda: 64 * 1024 * 1024)  # a container's default /dev/shm
    config = RunConfig(table="T01", out=tmp_path / "out", cameras=[
        {"source": "http://127.0.0.1:9/none.mjpg", "own_process": True, "shared_memory_mb": 512}])
    with (tmp_path / "console.txt").open("w") as screen:
        pipeline = run_table(config, console=Console(file=screen, width=400), duration=1.0, status_every=0.5)
    assert pipeline.stats.output_errors == 0
    down = [e for e in load_events((tmp_path / "out" / "events.jsonl").read_text()) if isinstance(e, DeviceStatus)]
    assert [(e.device, e.online) for e in down] == [("camera overhead", False)]
    assert "--shm-size" in down[0].detail and "--shm-size" in (tmp_path / "console.txt").read_text()
