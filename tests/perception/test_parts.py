"""Perception's parts: the markers' calibration, and the view of the table built at the first analysed frame."""

from __future__ import annotations

import numpy as np
import pytest

from tablewatch.calibration.layout import load_layout
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception import PerceptionError
from tablewatch.vision.perception.perception import MORE_FRAMES, MarkerCalibration
from tests.perception.conftest import Window, perception_for


def test_marker_calibration_slides_on_past_frames_without_markers_until_its_patience_runs_out() -> None:
    markers = MarkerCalibration(load_layout("oval10"), frames=2, patience=3)
    blank = np.zeros((360, 640, 3), np.uint8)
    assert [markers.add(blank) for _ in range(3)] == [None, None, None]  # one to fill, two failures
    assert len(markers.pending) == 1
    with pytest.raises(PerceptionError, match="no table calibration after 4 frames"):
        markers.add(blank)


def test_marker_calibration_waits_a_few_frames_for_a_marker_not_yet_seen(demo: Simulation) -> None:
    """Marker 0 lies under an arm for the first five frames: the calibration waits for it (fitted without it,
    the lens is guessed from the others). One that never shows is given up after ``MORE_FRAMES`` more."""
    table = demo.renderer(effects=False).render(0.0, labels=False).image
    corners = demo.camera().project(np.asarray(demo.run.layout.markers[0].corners, float))
    (x0, y0), (x1, y1) = corners.min(axis=0).astype(int) - 8, corners.max(axis=0).astype(int) + 8
    covered = table.copy()
    covered[y0:y1, x0:x1] = (40, 40, 40)
    markers = MarkerCalibration(demo.run.layout, frames=3, patience=50)
    assert [markers.add(covered) for _ in range(5)] == [None] * 5
    calibration = markers.add(table)
    assert calibration is not None and 0 in calibration.markers_used
    markers = MarkerCalibration(demo.run.layout, frames=3, patience=50)
    results = [markers.add(covered) for _ in range(3 + MORE_FRAMES)]
    assert results[:-1] == [None] * (2 + MORE_FRAMES)
    last = results[-1]
    assert last is not None and 0 not in last.markers_used and len(last.markers_used) == 5


def test_the_view_of_the_table_is_built_from_the_first_analysed_frame_and_rebuilt_after_a_recalibration(
        demo: Simulation, window: Window) -> None:
    perception = perception_for(demo, hand_finder=False)
    frames = window(18.5, 21.8)
    for frame, ts in frames[:2]:
        perception.process(frame, ts)
    assert perception.plane is None and perception.view is None and perception.look is None  # still calibrating
    perception.process(*frames[2])
    view = perception.view
    assert view is not None and perception.look is view.look and perception.scene is view.scene
    assert view.scene.colours is view.look and view.stacks.look is view.look and view.settles.look is view.look
    assert perception.hand_finder is None
    assert perception.calibration is not None
    perception.recalibrate(perception.calibration)
    assert perception.view is None and perception.plane is not None
    perception.process(*frames[3])
    assert perception.view is not None and perception.view is not view
