"""The drift watch's marker check on a 4K Motion-JPEG camera: the frame is decoded at half size (not whole),
and a knock is still measured to a fraction of a millimetre."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablewatch.calibration.chips import painted_chip_colours
from tablewatch.calibration.drift import DriftMonitor, DriftState
from tablewatch.calibration.markers import calibrate_frames
from tablewatch.events import CameraMoved
from tablewatch.sim.render import Renderer
from tablewatch.sim.session import Simulation
from tablewatch.table.drift import DriftGate
from tablewatch.vision.perception.perception import Perception
from tests.support.frames import CountedFrame

DEMO = Path(__file__).resolve().parents[2] / "tablewatch" / "sim" / "scenarios" / "demo.yaml"
SHIFT_MM = 8.0


@pytest.fixture(scope="module")
def views() -> tuple[Simulation, list[np.ndarray], list[np.ndarray]]:
    """The demo's 4K overhead view at 2.0 and 2.5 s, steady and with the camera moved SHIFT_MM along the table."""
    sim = Simulation.from_file(DEMO)
    steady = sim.renderer("overhead", "2160p")
    moved = Renderer(sim.run, replace(steady.camera, tvec=np.add(steady.camera.tvec, (SHIFT_MM, 0.0, 0.0))),
                     effects=steady.effects)
    before = [steady.render(t, labels=False).image for t in (2.0, 2.5)]
    after = [moved.render(t, labels=False).image for t in (2.0, 2.5)]
    sim.release_renderers()
    return sim, before, after


def test_a_4k_camera_is_checked_on_its_frame_decoded_at_half_size_and_a_knock_still_measured(
        views: tuple[Simulation, list[np.ndarray], list[np.ndarray]]) -> None:
    sim, before, after = views
    layout = sim.run.layout
    calibration, _ = calibrate_frames([before[0]], layout)
    monitor = DriftMonitor(calibration=calibration, layout=layout, table=sim.scenario.table)
    perception = Perception(layout=layout, table=sim.scenario.table, chips=painted_chip_colours(sim.scenario.chips))
    perception.recalibrate(calibration)  # (as `tablewatch run` starts it from the table's profile)
    gate = DriftGate(monitor=monitor, perception=perception, every=1)

    frames = [CountedFrame(image, i, 2.0 + i / 2) for i, image in enumerate([*before, *after])]
    events = [event for frame in frames for event in gate.frame(frame, frame.ts)]

    # each check decoded its frame at half size (perception decodes its own, at a quarter)
    assert all(2 in frame.decodes and 1 not in frame.decodes for frame in frames)
    shifts = [check.shift_mm for check in monitor.history]
    assert all(s is not None for s in shifts)
    assert max(shifts[:2]) < 0.5  # steady: the half-size look costs no more than half a millimetre
    assert shifts[2:] == pytest.approx([SHIFT_MM, SHIFT_MM], abs=0.5)
    assert [e.shift_mm for e in events if isinstance(e, CameraMoved)] == pytest.approx([SHIFT_MM], abs=0.5)
    assert monitor.state is DriftState.MOVED


def test_a_frame_in_memory_or_a_small_one_is_checked_as_it_is(
        views: tuple[Simulation, list[np.ndarray], list[np.ndarray]]) -> None:
    sim, before, _ = views
    layout = sim.run.layout
    small = cv2.resize(before[0], (1280, 720), interpolation=cv2.INTER_AREA)
    calibration, _ = calibrate_frames([small], layout)
    gate = DriftGate(monitor=DriftMonitor(calibration=calibration, layout=layout, table=sim.scenario.table),
                     perception=Perception(layout=layout, table=sim.scenario.table,
                                           chips=painted_chip_colours(sim.scenario.chips)))
    assert gate.check_reduction(small) == 1
    assert gate.check_reduction(CountedFrame(small, 0, 0.0)) == 1  # 720p: half of it is too small to look at
