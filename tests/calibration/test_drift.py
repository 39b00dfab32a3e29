"""Drift: a knocked camera raises CameraMoved once, then recalibrates when it holds still; a shaking camera is no move,
and knocked while shaking it is reported once and refitted on where its markers lie on average."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from tablewatch.calibration.drift import SHAKE_MEAN, DriftMonitor, DriftState
from tablewatch.calibration.layout import TableLayout
from tablewatch.calibration.markers import Detections, calibrate_image, detect_markers
from tablewatch.calibration.synthetic import SyntheticCamera
from tablewatch.events import CameraMoved
from tests.calibration.conftest import POSES, layout, render, rendered, table_grid

KNOCKED = SyntheticCamera.looking_at(target_mm=(35.0, -20.0), tilt_deg=2.0, yaw_deg=1.5)  # the camera after a bump
NUDGED = SyntheticCamera.looking_at(target_mm=(1.0, 0.0))  # 1 mm: not a move


@cache
def _detections(which: str) -> Detections:
    images = {"steady": lambda: rendered("overhead"), "knocked": lambda: render(KNOCKED, seed=5),
              "nudged": lambda: render(NUDGED, seed=6)}  # fmt: skip
    return detect_markers(images[which]())


def _monitor(oval10: TableLayout) -> DriftMonitor:
    return DriftMonitor(calibration=calibrate_image(rendered("overhead"), oval10), layout=oval10, table="T07")


def test_a_still_camera_raises_nothing(oval10: TableLayout) -> None:
    monitor = _monitor(oval10)
    events = [e for t in range(5) for e in monitor.check(_detections("steady"), ts=float(t))]
    events += [e for t in range(5, 8) for e in monitor.check(_detections("nudged"), ts=float(t))]
    assert events == []
    assert monitor.state is DriftState.STEADY
    assert max(c.shift_mm or 0 for c in monitor.history) < monitor.threshold_mm


def test_a_knocked_camera_is_reported_once_then_recalibrated(oval10: TableLayout) -> None:
    monitor = _monitor(oval10)
    old = monitor.calibration
    events = monitor.check(_detections("steady"), ts=0.0)
    events += monitor.check(_detections("knocked"), ts=1.0)
    assert events == [] and monitor.state is DriftState.SUSPECT  # one frame is not yet a move
    events += monitor.check(_detections("knocked"), ts=2.0)
    assert len(events) == 1
    moved = events[0]
    assert isinstance(moved, CameraMoved)
    assert (moved.table, moved.camera, moved.source, moved.ts) == ("T07", "overhead", "vision", 2.0)
    assert 20 < moved.shift_mm < 200
    for t in range(3, 6):  # held still for three checks: settles, refits
        assert monitor.check(_detections("knocked"), ts=float(t)) == []
    assert monitor.calibration is not old
    assert monitor.state is DriftState.RECALIBRATED
    grid = table_grid(200)
    error = np.linalg.norm(monitor.calibration.px_to_mm(KNOCKED.project(grid)) - grid, axis=1)
    assert error.mean() < 2.0
    assert monitor.check(_detections("knocked"), ts=6.0) == []
    assert monitor.state is DriftState.STEADY


def test_hidden_markers_are_not_a_move(oval10: TableLayout) -> None:
    monitor = _monitor(oval10)
    steady = _detections("steady")
    one_hidden = {m: c for m, c in steady.items() if m != 2}
    only_one = {0: steady[0]}
    events = []
    for t in range(4):
        events += monitor.check(one_hidden, ts=float(t))
        events += monitor.check(only_one, ts=t + 0.5)
        events += monitor.check({}, ts=t + 0.7)
    assert events == []
    assert [c.shift_mm for c in monitor.history[1:3]] == [None, None]  # can't judge: too few markers


def test_a_marker_that_moved_alone_does_not_trip_it(oval10: TableLayout) -> None:
    """One marker knocked on the rail (median of six) is not the camera moving."""
    monitor = _monitor(oval10)
    detections = dict(_detections("steady"))
    detections[3] = detections[3] + np.array([25.0, 0.0])
    assert [e for t in range(4) for e in monitor.check(detections, ts=float(t))] == []


@pytest.mark.parametrize("pose", ["leaning"])
def test_check_frame_detects_in_the_picture(pose: str) -> None:
    lay = layout()
    monitor = DriftMonitor(calibration=calibrate_image(rendered(pose), lay), layout=lay, table="T01")
    assert monitor.check_frame(rendered(pose), ts=0.0) == []
    assert monitor.history[-1].markers_seen == 6
    assert monitor.history[-1].shift_mm is not None and monitor.history[-1].shift_mm < 1.0
    assert POSES[pose] is not None


def _shaken(detections: Detections, rng: np.random.Generator, amplitude_px: float) -> Detections:
    """The markers as a vibrating mount shows them: the whole picture moved up to ``amplitude_px`` each way."""
    jolt = rng.uniform(-amplitude_px, amplitude_px, 2)
    return {m: c + jolt for m, c in detections.items()}


def _shake_px(monitor: DriftMonitor) -> float:
    """A shake whose single checks pass the tolerance often: 1.3 times it, in the picture's pixels."""
    return 1.3 * monitor.threshold_mm / monitor.calibration.mm_per_px


def test_a_shaking_camera_is_not_a_move(oval10: TableLayout) -> None:
    monitor, rng = _monitor(oval10), np.random.default_rng(2)
    amplitude = _shake_px(monitor)
    checks = [_shaken(_detections("steady"), rng, amplitude) for _ in range(600)]
    over = [(monitor.shift_mm(seen) or 0) > monitor.threshold_mm for seen in checks]
    assert sum(over) > 60  # judged one check at a time, the shake passes the tolerance often
    assert [e for t, seen in enumerate(checks) for e in monitor.check(seen, ts=t * 0.2)] == []
    assert monitor.shaking and monitor.state is DriftState.STEADY


def test_a_shaking_camera_knocked_is_reported_once_and_settles_shaking(oval10: TableLayout) -> None:
    monitor, rng = _monitor(oval10), np.random.default_rng(3)
    amplitude = _shake_px(monitor)
    for t in range(30):
        assert monitor.check(_shaken(_detections("steady"), rng, amplitude), ts=t * 0.2) == []
    events, states = [], []
    for t in range(30, 90):
        events += monitor.check(_shaken(_detections("knocked"), rng, amplitude), ts=t * 0.2)
        states.append(monitor.state)
    assert [type(e) for e in events] == [CameraMoved]
    assert events[0].ts <= (30 + SHAKE_MEAN) * 0.2  # confirmed once the average picture has moved
    assert DriftState.RECALIBRATED in states and monitor.state is DriftState.STEADY
    grid = table_grid(200)
    error = np.linalg.norm(monitor.calibration.px_to_mm(KNOCKED.project(grid)) - grid, axis=1)
    assert error.mean() < 3.0  # refitted on the average picture, the shake averaged out
