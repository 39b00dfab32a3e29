"""Perception's parts: the markers' calibration, and the view of the table built at the first analysed frame."""

from __future__ import annotations

import numpy as np
import pytest

from tablewatch.calibration.layout import load_layout
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception import PerceptionError
from tablewatch.vision.perception.perception import MarkerCalibration
from tests.perception.conftest import Window, perception_for


def test_marker_calibration_slides_on_past_frames_without_markers_until_its_patience_runs_out() -> None:
    markers = MarkerCalibration(load_layout("oval10"), frames=2, patience=3)
    blank = np.zeros((360, 640, 3), np.uint8)
    assert [markers.add(blank) for _ in range(3)] == [None, None, None]  # one to fill, two failures
    assert len(markers.pending) == 1
    with pytest.raises(PerceptionError, match="no table calibration after 4 frames"):
        markers.add(blank)


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
