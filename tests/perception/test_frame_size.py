"""A camera delivering frames of another size than it was calibrated at: the same view at another resolution keeps
its calibration, scaled; another view is calibrated again from the markers. Vision goes on either way, and so do
the drift watch's checks."""

from __future__ import annotations

import cv2
import numpy as np

from tablewatch.calibration.drift import DriftMonitor, DriftState
from tablewatch.calibration.markers import calibrate_frames
from tablewatch.events import BoardCardDealt, CameraMoved, Event
from tablewatch.sim.session import Simulation
from tablewatch.table.drift import DriftGate
from tablewatch.vision.perception import Perception
from tests.perception.conftest import Window, perception_for


def calibrated_at_720p(demo: Simulation, window: Window) -> Perception:
    calibration, _ = calibrate_frames([window(16.0, 16.3)[0][0]], demo.run.layout)
    return perception_for(demo, hand_in_progress=True, calibration=calibration)


def flop(events: list[Event]) -> list[str]:
    return sorted(e.card for e in events if isinstance(e, BoardCardDealt))


def scaled(frames: list[tuple[np.ndarray, float]], size: tuple[int, int]) -> list[tuple[np.ndarray, float]]:
    return [(cv2.resize(frame, size, interpolation=cv2.INTER_AREA), ts) for frame, ts in frames]


def letterboxed(frames: list[tuple[np.ndarray, float]]) -> list[tuple[np.ndarray, float]]:
    """The picture in a taller frame, black above and below (another aspect: another view for the calibration)."""
    return [(cv2.copyMakeBorder(frame, 120, 120, 0, 0, cv2.BORDER_CONSTANT, value=(0, 0, 0)), ts)
            for frame, ts in frames]


def test_frames_at_a_lower_resolution_are_read_through_the_calibration_scaled(demo: Simulation,
                                                                           window: Window) -> None:
    frames = window(16.0, 19.8)
    at_720p = flop(calibrated_at_720p(demo, window).run(frames))
    perception = calibrated_at_720p(demo, window)
    assert flop(perception.run(scaled(frames, (960, 540)))) == at_720p and len(at_720p) == 3
    assert perception.calibration is not None and perception.calibration.image_size == (960, 540)
    assert len(perception.calibration.marker_pixels) == 6  # the markers' places scaled too, for the steadier


def test_frames_of_another_view_are_read_once_calibrated_again_from_the_markers(demo: Simulation,
                                                                             window: Window) -> None:
    frames = window(16.0, 19.8)
    perception = calibrated_at_720p(demo, window)
    assert len(flop(perception.run(letterboxed(frames)))) == 3
    assert perception.calibration is not None and perception.calibration.image_size == (1280, 960)


def test_the_drift_watch_follows_a_calibration_scaled_to_the_frames(demo: Simulation, window: Window) -> None:
    perception = calibrated_at_720p(demo, window)
    assert perception.calibration is not None
    monitor = DriftMonitor(calibration=perception.calibration, layout=perception.layout, table=demo.scenario.table)
    gate = DriftGate(monitor=monitor, perception=perception, every=2)
    events = [e for frame, ts in scaled(window(16.0, 19.8), (960, 540)) for e in gate.frame(frame, ts)]
    assert not any(isinstance(e, CameraMoved) for e in events)
    assert monitor.calibration.image_size == (960, 540) and monitor.state is DriftState.STEADY
    assert all(check.shift_mm is not None and check.shift_mm < 2.0 for check in monitor.history[1:])  # a pixel: 3 mm
