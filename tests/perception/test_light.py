"""The light meter: the markers' white paper brings a dim room, light falling off across the table and a camera's
exposure back to a well-exposed camera's picture, a covered marker left out; perception in a dim room then sees what
it sees in full light."""

from __future__ import annotations

import numpy as np
import pytest

from tablewatch.events import BoardCardDealt, CardBurned
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception.light import PAPER_WHITE, LightMeter
from tablewatch.vision.perception.plane import TablePlane
from tests.perception.conftest import Window, perception_for, run_window


def plane_of(demo: Simulation, frames: list[tuple[np.ndarray, float]]) -> tuple[TablePlane, np.ndarray]:
    perception = perception_for(demo)
    for frame, ts in frames:  # calibrated from the markers over the first frames
        perception.process(frame, ts)
    assert perception.plane is not None
    return perception.plane, perception.plane.rectify(frames[-1][0])


def felt_level(plane: TablePlane, flat: np.ndarray) -> float:
    return float(np.median(flat.mean(axis=2)[plane.felt > 0]))


def test_a_dim_room_and_light_falling_off_are_brought_back(demo: Simulation, window: Window) -> None:
    plane, flat = plane_of(demo, window(0.0, 1.0))
    clean = LightMeter(plane).correct(flat, 0.0)
    papers = [np.percentile(clean.mean(axis=2)[box], 90) for box in LightMeter(plane).boxes]
    assert papers == pytest.approx([PAPER_WHITE] * len(papers), abs=6)
    dim = LightMeter(plane).correct((flat * 0.4).astype(np.uint8), 0.0)
    assert felt_level(plane, dim) == pytest.approx(felt_level(plane, clean), abs=3)
    ramp = np.linspace(0.4, 1.0, flat.shape[0], dtype=np.float32)[:, None, None]  # the far side 60 % darker
    evened = LightMeter(plane).correct((flat * ramp).astype(np.uint8), 0.0)

    def far_to_near(picture: np.ndarray) -> float:
        felt = picture.astype(float)[plane.felt > 0]  # row by row: the far side's rows first
        return float(felt[:2000].mean() / felt[-2000:].mean())

    assert far_to_near(evened) == pytest.approx(far_to_near(clean), rel=0.05)  # the far side lit as before


def test_a_covered_marker_is_left_out_and_the_gain_follows_the_light_within_a_second(demo: Simulation,
                                                                                    window: Window) -> None:
    plane, flat = plane_of(demo, window(0.0, 1.0))
    meter = LightMeter(plane)
    meter.correct(flat, 0.0)
    steady = meter.gain
    covered = flat.copy()
    covered[meter.boxes[0]] = 30  # a dark sleeve over one marker
    meter.correct(covered, 0.1)
    assert meter.gain == pytest.approx(steady, rel=0.02)
    for k in range(10):  # the room dims to half: the gain doubles within a second
        meter.correct((flat * 0.5).astype(np.uint8), 0.2 + k * 0.1)
    assert meter.gain == pytest.approx(2 * steady, rel=0.05)


def test_perception_in_a_dim_room_sees_the_burn_and_the_flop(demo: Simulation, window: Window) -> None:
    dim = [((frame * 0.35).astype(np.uint8), ts) for frame, ts in window(16.0, 19.8)]
    events = run_window(demo, dim)
    burns = [e for e in events if isinstance(e, CardBurned)]
    board = sorted((e for e in events if isinstance(e, BoardCardDealt)), key=lambda e: e.slot)
    assert len(burns) == 1 and burns[0].ts == pytest.approx(17.7, abs=0.4)
    assert [(e.slot, e.face_up) for e in board] == [(0, True), (1, True), (2, True)]
