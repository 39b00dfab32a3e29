"""``tablewatch run`` with a camera knocked part-way through: one camera-moved alert (files and a real
mosquitto), vision's events of the moved camera kept from the rules, and vision resumed with a calibration
refitted from the markers once the camera holds still.

The video is the simulator's demo hand, its overhead camera knocked 40 mm and turned 1.5 degrees during
the blinds (``tests.support.knock``, as in the calibration drift tests); the profile is calibrated
(``tablewatch calibrate``) from a still of the camera before the knock.
"""

from __future__ import annotations

import io
import signal
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from click.testing import CliRunner
from rich.console import Console

from tablewatch.calibration.camera import TableCalibration
from tablewatch.calibration.cli import calibrate
from tablewatch.calibration.layout import TableLayout
from tablewatch.calibration.profile import load_profile
from tablewatch.events import CameraMoved, CameraRecalibrated, CardDealt, ChipsMoved, Event, Violation, load_events
from tablewatch.sim.camera import CameraModel
from tablewatch.sim.session import Simulation
from tablewatch.table import run as run_module
from tablewatch.table.config import RunConfig
from tablewatch.table.drift import DriftGate
from tablewatch.table.run import run_table
from tablewatch.table.sources import CameraSource
from tests.support.floor import AlertListener
from tests.support.knock import write_knocked_video
from tests.support.mosquitto import Mosquitto

pytestmark = pytest.mark.slow

DEMO = Path(__file__).resolve().parents[2] / "tablewatch" / "sim" / "scenarios" / "demo.yaml"
FPS = 15
KNOCK_S = 1.9  # between the small blind (1.4 s) and the big blind (2.4 s); the deal runs 3.1-5.55 s
SECONDS = 6.0
EVERY = 6  # frames between drift checks: 0.4 s
DEADLINE_S = 240.0  # for the run on a busy machine; it ends as soon as the video has been played through


def _felt_error_mm(calibration: TableCalibration, camera: CameraModel, layout: TableLayout) -> float:
    """Mean distance (mm) between felt points and where ``calibration`` puts what ``camera`` sees of them."""
    grid = np.array([(x, y) for x in range(-1100, 1101, 100) for y in range(-500, 501, 100)], float)
    grid = grid[[z not in ("rail", "off_table") for z in layout.zones_at(grid)]]
    return float(np.linalg.norm(calibration.px_to_mm(camera.project(grid)) - grid, axis=1).mean())


class Screen(io.StringIO):
    """The terminal: what was printed, and an event set once the status line says the camera moved."""

    def __init__(self) -> None:
        super().__init__()
        self.moved_shown = threading.Event()

    def write(self, text: str) -> int:
        if "MOVED" in text:
            self.moved_shown.set()
        return super().write(text)


def _hold_the_pause_until_shown(monkeypatch: pytest.MonkeyPatch, screen: Screen) -> None:
    """The camera waits, once paused, until the status line has shown it: the screen is read by a timer that a
    busy machine may hold up for longer than the pause lasts (the frames' times are their places in the file,
    so a late frame is stamped as if on time)."""
    frame = DriftGate.frame

    def held(gate: DriftGate, image: Any, ts: float) -> list[Event]:
        events = frame(gate, image, ts)
        if gate.paused:
            screen.moved_shown.wait(60)
        return events

    monkeypatch.setattr(DriftGate, "frame", held)


def _stop_when_the_video_is_done(monkeypatch: pytest.MonkeyPatch, *, frames: int) -> threading.Event:
    """The table is stopped (as by Ctrl-C) once its camera has taken every frame of the video, however long
    that takes: a fixed run time would cut a slow machine's run short."""
    ended = threading.Event()
    make_sources = run_module._sources

    def sources(*args: Any, **kwargs: Any) -> list[Any]:
        made = make_sources(*args, **kwargs)
        camera = next(s for s in made if isinstance(s, CameraSource))
        threading.Thread(target=_interrupt_after, args=(camera, frames, ended), daemon=True).start()
        return made

    monkeypatch.setattr(run_module, "_sources", sources)
    return ended


def _interrupt_after(camera: CameraSource, frames: int, ended: threading.Event) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while camera.frames < frames and time.monotonic() < deadline:
        time.sleep(0.05)
    if camera.frames >= frames:
        ended.set()
        signal.raise_signal(signal.SIGINT)  # run_table stops on it, as at the terminal


def test_a_knocked_camera_is_alerted_once_paused_and_resumed_recalibrated(tmp_path: Path, mqtt_broker: Mosquitto,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    sim = Simulation.from_file(DEMO)
    still, video, profile = tmp_path / "still.png", tmp_path / "knocked.mp4", tmp_path / "T01.toml"
    cv2.imwrite(str(still), sim.renderer("overhead", "720p").render(0.0, labels=False).image)
    knocked = write_knocked_video(sim, video, fps=FPS, start_s=0.0, stop_s=SECONDS, knock_s=KNOCK_S)
    calibrated = CliRunner().invoke(calibrate, [str(still), "--layout", "oval10", "-o", str(profile),
                                                "--table", "T01", "--sim-chips"])
    assert calibrated.exit_code == 0, calibrated.output

    floor = AlertListener(mqtt_broker)
    config = RunConfig(table="T01", out=tmp_path / "out", mqtt=mqtt_broker.url, cameras=[
        {"source": str(video), "profile": profile, "deck": "anglo_poker", "drift_every": EVERY}],
        evidence={"before_s": 1.0, "after_s": 0.5, "codec": "MJPG", "extension": ".avi"})  # quick clips
    screen = Screen()
    _hold_the_pause_until_shown(monkeypatch, screen)
    capture = cv2.VideoCapture(str(video))
    frames = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    capture.release()
    ended = _stop_when_the_video_is_done(monkeypatch, frames=frames)
    pipeline = run_table(config, console=Console(file=screen, width=300), duration=DEADLINE_S, status_every=0.25)
    assert ended.is_set(), f"the video was not played through within {DEADLINE_S} s"
    camera = next(s for s in pipeline.sources if isinstance(s, CameraSource))
    assert camera.origin is not None and camera.drift is not None and not camera.error
    knock = camera.origin + KNOCK_S  # on the table's clock

    # One camera-moved alert, soon after the knock, in the files and on the broker; then one recalibration.
    alerts = [a for a in load_events((tmp_path / "out" / "alerts.jsonl").read_text()) if isinstance(a, Violation)]
    system = [(a.rule_id, a.title, str(a.severity)) for a in alerts if a.rule_id.startswith("SYS-")]
    assert system == [("SYS-CAMERA", "Camera moved", "system"), ("SYS-CAMERA", "Camera recalibrated", "system")]
    floor.wait_for(lambda received: sum(str(a["rule_id"]).startswith("SYS-") for a in received) >= len(system))
    floor.close()
    published = [(a["rule_id"], a["rule_title"], a["severity"]) for a in floor.alerts
                 if str(a["rule_id"]).startswith("SYS-")]
    assert published == system
    moved_alert = next(a for a in floor.alerts if a["rule_title"] == "Camera moved")
    assert Path(moved_alert["evidence"]["still_path"]).is_file()  # the picture of the moved camera, as any alert's
    events = load_events((tmp_path / "out" / "events.jsonl").read_text())
    [moved] = [e for e in events if isinstance(e, CameraMoved)]
    [recalibrated] = [e for e in events if isinstance(e, CameraRecalibrated)]
    assert knock < moved.ts <= knock + 3 * EVERY / FPS  # found at the 2nd check after the knock at the latest
    assert moved.shift_mm > 30.0
    assert moved.ts < recalibrated.ts <= moved.ts + 5 * EVERY / FPS

    # Nothing vision saw from the knock until the recalibration reached the rules; before it, it did.
    vision = [e for e in events if e.source == "vision" and not isinstance(e, CameraMoved | CameraRecalibrated)]
    assert [e for e in vision if knock <= e.ts < recalibrated.ts] == []
    assert camera.drift.dropped > 0
    small_blind = [e for e in vision if isinstance(e, ChipsMoved) and e.ts < knock]
    assert [(e.seat, e.src, e.dst) for e in small_blind] == [(3, "seat3.stack", "seat3.bet")]

    # Resumed with a calibration of the knocked camera: the deal after it is seen at the right seats.
    layout = load_profile(profile).load_layout()
    new = camera.drift.monitor.calibration
    assert camera.perception is not None and camera.perception.calibration is new
    assert _felt_error_mm(new, knocked, layout) < 2.0 < 20.0 < _felt_error_mm(load_profile(profile).calibration,
                                                                              knocked, layout)
    truth = [e for e in sim.events if isinstance(e, CardDealt)]
    dealt = [e for e in vision if isinstance(e, CardDealt) and e.ts > recalibrated.ts]
    assert len(dealt) >= 3
    for card in dealt:
        assert any(t.seat == card.seat and abs(camera.origin + t.ts - card.ts) < 0.5 for t in truth), card
    screen_text = screen.getvalue()
    assert "MOVED" in screen_text and "vision paused" in screen_text and "recalibrated at" in screen_text
    assert pipeline.stats.output_errors == 0
