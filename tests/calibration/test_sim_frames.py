"""Calibration on frames of the simulator's renderer (tablewatch.sim), scored against its true camera."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import pytest

from tablewatch.calibration.camera import CameraModel, TableCalibration
from tablewatch.calibration.chips import from_simulator, learn_from_tray
from tablewatch.calibration.drift import DriftMonitor
from tablewatch.calibration.layout import TableLayout
from tablewatch.calibration.markers import calibrate_image
from tablewatch.calibration.synthetic import cover
from tablewatch.events import CameraMoved
from tablewatch.sim.camera import CameraModel as SimCamera
from tablewatch.sim.camera import overhead_camera
from tablewatch.sim.render import Renderer
from tablewatch.sim.scenario import Scenario
from tablewatch.sim.script import SimRun, simulate

SCENARIO = {
    "table": "T05",
    "layout": "oval10",
    "seed": 3,
    "players": [
        {"seat": 1, "name": "Ann", "stack": 5000},
        {"seat": 4, "name": "Bob", "stack": 5000},
        {"seat": 8, "name": "Cy", "stack": 5000},
    ],
    "hands": [{"button": 1, "actions": ["s1 cbr 300", "s4 f", "s8 f"]}],
}


CLEARANCE = [np.array(d) for d in ((5.0, 0.0), (-5.0, 0.0), (0.0, 5.0), (0.0, -5.0))]


@dataclass
class Shot:
    run: SimRun
    camera: SimCamera
    image: np.ndarray
    t: float

    @property
    def lens(self) -> CameraModel:
        """The simulated camera's true lens, as a ChArUco capture of it would give."""
        c = self.camera
        return CameraModel(image_size=(c.width, c.height), camera_matrix=c.K.tolist(), dist_coeffs=c.dist.tolist())


def _shot(run: SimRun, seed: int) -> Shot:
    camera = overhead_camera(run.table.extent(), rng=random.Random(seed))
    t = run.duration * 0.4  # mid-hand: chips in stacks, bets and the tray, cards dealt
    return Shot(run=run, camera=camera, image=Renderer(run, camera).render(t, labels=False).image, t=t)


@pytest.fixture(scope="module")
def run() -> SimRun:
    return simulate(Scenario.model_validate(SCENARIO))


@pytest.fixture(scope="module")
def shot(run: SimRun) -> Shot:
    return _shot(run, seed=5)


def _felt_error_mm(calibration: TableCalibration, camera: SimCamera, layout: TableLayout) -> np.ndarray:
    grid = np.array([(x, y) for x in range(-1150, 1151, 50) for y in range(-550, 551, 50)], float)
    grid = grid[[z not in ("rail", "off_table") for z in layout.zones_at(grid)]]
    return np.linalg.norm(calibration.px_to_mm(camera.project(grid)) - grid, axis=1)


def test_sim_frame_calibrates_under_2_mm(shot: Shot) -> None:
    assert shot.image.shape == (720, 1280, 3)
    calibration = calibrate_image(shot.image, shot.run.layout, camera=shot.lens)
    assert calibration.markers_used == [0, 1, 2, 3, 4, 5]
    assert calibration.mean_error_mm < 2.0
    assert _felt_error_mm(calibration, shot.camera, shot.run.layout).mean() < 2.0


@pytest.mark.parametrize("hidden", [1, 4])
def test_sim_frame_with_a_marker_hidden(shot: Shot, hidden: int) -> None:
    corners = shot.run.layout.marker_corners()[hidden]
    centre = corners.mean(axis=0)
    image = cover(shot.image, shot.camera.project((corners - centre) * 1.8 + centre))
    calibration = calibrate_image(image, shot.run.layout, camera=shot.lens)
    assert hidden not in calibration.markers_used
    assert calibration.mean_error_mm < 2.0
    assert _felt_error_mm(calibration, shot.camera, shot.run.layout).mean() < 2.0


def test_objects_on_the_felt_land_in_their_zones(shot: Shot) -> None:
    """Every resting chip and card more than 5 mm from a zone's edge: its true spot and its spot through the
    calibration get the same zone (the simulator puts some chips right on an edge)."""
    layout = shot.run.layout
    calibration = calibrate_image(shot.image, layout, camera=shot.lens)
    poses = [o.track.at(shot.t) for o in [*shot.run.world.chips, *shot.run.world.cards]]
    spots = np.array([(p.x, p.y) for p in poses if p is not None and p.zone is not None and p.visible])
    assert len(spots) > 100
    truth = np.array(layout.zones_at(spots))
    clear = np.all([truth == layout.zones_at(spots + step) for step in CLEARANCE], axis=0)
    assert clear.mean() > 0.8
    seen = np.array(layout.zones_at(calibration.px_to_mm(shot.camera.project(spots[clear]))))
    assert {z.split(".")[0] for z in truth[clear]} >= {"seat1", "seat4", "seat8", "tray"}
    assert seen.tolist() == truth[clear].tolist()


@pytest.mark.xfail(strict=True, reason="known defect: the simulator now draws the yellow 1000 chip with more dark "
                   "edge and spots than yellow body, and learn_from_tray's two-cluster body estimate takes the dark "
                   "cluster, so it is read as the black 100; to fix in calibration/chips.py::_body")
def test_chip_colours_from_the_sim_tray(shot: Shot) -> None:
    layout = shot.run.layout
    calibration = calibrate_image(shot.image, layout, camera=shot.lens)
    in_tray = [(o.track.at(shot.t), o.value) for o in shot.run.world.chips]
    order: list[int] = []
    for _, value in sorted(((p.x, v) for p, v in in_tray if p is not None and p.zone == "tray")):
        order += [value] if value not in order else []
    tray = layout.polygon("tray")
    (x0, y0), (x1, y1) = tray.min(axis=0) + 8, tray.max(axis=0) - 8
    chips = learn_from_tray(calibration.rectify(shot.image, x_range=(x0, x1), y_range=(y0, y1), px_per_mm=1.0), order)
    palette = from_simulator()
    assert [palette.classify(c.bgr, max_distance=99) for c in chips.chips] == order


def test_a_moved_sim_camera_raises_camera_moved(run: SimRun, shot: Shot) -> None:
    layout = run.layout
    monitor = DriftMonitor(
        calibration=calibrate_image(shot.image, layout, camera=shot.lens), layout=layout, table="T05"
    )
    assert monitor.check_frame(shot.image, ts=0.0) == []
    bumped = _shot(run, seed=11)  # the same table through another mounting of the camera
    events = monitor.check_frame(bumped.image, ts=1.0) + monitor.check_frame(bumped.image, ts=2.0)
    assert [type(e) for e in events] == [CameraMoved]
    assert events[0].shift_mm > monitor.threshold_mm


def test_sim_frame_without_a_lens_model(shot: Shot) -> None:
    """No ChArUco capture: the radial term fitted from the six markers keeps the error under 2 mm here."""
    calibration = calibrate_image(shot.image, shot.run.layout)
    assert calibration.camera is not None
    assert calibration.camera.source == "table markers (radial k1 only)"
    assert _felt_error_mm(calibration, shot.camera, shot.run.layout).mean() < 2.0
    plain = calibrate_image(shot.image, shot.run.layout, fit_radial=False)
    assert _felt_error_mm(plain, shot.camera, shot.run.layout).mean() > 2.0


def test_a_still_sim_camera_through_a_whole_hand_raises_nothing(run: SimRun, shot: Shot) -> None:
    """Arms over the markers, lighting drift and noise through the hand: no false CameraMoved."""
    calibration = calibrate_image(shot.image, run.layout, camera=shot.lens)
    monitor = DriftMonitor(calibration=calibration, layout=run.layout, table="T05")
    renderer = Renderer(run, shot.camera)
    events = []
    for t in np.linspace(0.0, run.duration, 16):
        events += monitor.check_frame(renderer.render(float(t), labels=False).image, ts=float(t))
    assert events == []
    shifts = [c.shift_mm for c in monitor.history if c.shift_mm is not None]
    assert len(shifts) >= 12
    assert max(shifts) < 1.0  # against where each marker was seen at calibration: noise only
