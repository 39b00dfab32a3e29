"""The physically based renderer: people's hands as solids, and pictures that land where the camera model says."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from tablewatch.calibration.markers import detect_markers
from tablewatch.sim.pbr.body import Capsule, Ellipsoid, arm_solids, dealer_body
from tablewatch.sim.session import Simulation
from tablewatch.sim.world import Arm, Pose, Track


def _arm(oid: int = 7) -> Arm:
    return Arm(oid=oid, track=Track(), actor="seat3", shoulder=(-1400.0, -400.0))


def test_a_hand_over_the_felt_has_a_palm_four_fingers_a_thumb_a_wrist_and_a_sleeve_to_the_shoulder() -> None:
    arm = _arm()
    solids = arm_solids(arm, Pose(t=0.0, x=-900.0, y=-200.0))
    skin = [s for s in solids if s.skin]
    capsules = [s for s in skin if isinstance(s, Capsule)]
    assert len([s for s in skin if isinstance(s, Ellipsoid)]) == 1  # the palm
    assert len(capsules) == 6  # the wrist, four fingers and the thumb
    sleeves = [s for s in solids if not s.skin]
    assert len(sleeves) == 1 and sleeves[0].colour == arm.sleeve and sleeves[0].b == (-1400.0, -400.0, 250.0)
    reach = np.array([500.0, 200.0]) / math.hypot(500.0, 200.0)
    fingers = capsules[1:5]
    for finger in fingers:  # beyond the palm, towards where the arm reaches, and above the felt
        tip = np.array(finger.b[:2]) - (-900.0, -200.0)
        assert float(tip @ reach) > 40.0
        assert finger.b[2] >= finger.radius
    across = np.array([-reach[1], reach[0]])
    spread = [float(across @ (np.array(f.b[:2]) - (-900.0, -200.0))) for f in fingers]
    assert spread in (sorted(spread), sorted(spread, reverse=True))  # side by side, in order across the hand
    assert spread[0] * spread[-1] < 0  # on both sides of the hand's middle


def test_hands_differ_from_person_to_person_and_an_arm_at_rest_draws_nothing() -> None:
    pose = Pose(t=0.0, x=-900.0, y=-200.0)
    tips = {tuple(s.b) for oid in (3, 4, 5) for s in arm_solids(_arm(oid), pose) if isinstance(s, Capsule)}
    assert len(tips) > 6 * 2  # the fingers of three people do not all lie alike
    assert arm_solids(_arm(), Pose(t=0.0, x=-1400.0, y=-400.0)) == []


def test_the_dealer_stands_behind_his_shoulders() -> None:
    arm = Arm(oid=1, track=Track(), actor="dealer", shoulder=(0.0, 800.0))
    torso, head = dealer_body(arm, (0.0, 1100.0))
    assert torso.centre[1] > 800.0 and head.centre[1] > 800.0 and head.centre[2] > torso.centre[2]


def test_without_mitsuba_the_renderer_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from tablewatch.sim.pbr import render

    monkeypatch.setitem(sys.modules, "mitsuba", None)
    with pytest.raises(RuntimeError, match=r"pip install 'tablewatch\[pbr\]'"):
        render.mitsuba()


@pytest.fixture(scope="module")
def traced(demo: Simulation) -> np.ndarray:
    """The demo table before the deal, traced at 2 samples a pixel."""
    from tablewatch.sim.pbr.render import PbrRenderer

    return PbrRenderer(demo.renderer(effects=False), spp=2).render(0.0, labels=False).image


def test_the_traced_picture_lands_where_the_camera_model_projects_the_table(demo: Simulation,
                                                                             traced: np.ndarray) -> None:
    """The markers' corners as found in the picture against the true camera's projection of the layout: the
    pinhole, its principal point and the lens distortion applied afterwards agree with ``CameraModel.project``."""
    layout, camera = demo.run.layout, demo.camera()
    found = detect_markers(traced, dictionary=layout.dictionary)
    assert len(found) == len(layout.markers)
    errors = [np.linalg.norm(found[m.id] - camera.project(np.asarray(m.corners, float)), axis=1)
              for m in layout.markers]
    assert float(np.mean(errors)) < 1.5  # px; the 2D renderer's own markers are found within 0.4


def test_the_tray_chips_are_learned_from_the_traced_picture_each_as_its_own_colour(demo: Simulation,
                                                                                   traced: np.ndarray) -> None:
    from tablewatch.bench.pbr import learned_chips, tray_order
    from tablewatch.calibration.chips import CHIP_PAINTS, from_palette

    chips, error = learned_chips(demo, traced)
    assert error < 3.0
    assert [c.value for c in chips.chips] == tray_order(demo)
    paints = from_palette({c.value: CHIP_PAINTS[c.colour] for c in demo.scenario.chips})
    for chip in chips.chips:  # shaded by the lamps, each denomination still nearest its own paint
        assert paints.classify(chip.bgr, max_distance=1e9) == chip.value


@pytest.mark.parametrize("bend", [-1.5, 0.0, 1.2])
def test_a_card_is_a_sheet_bent_over_its_body_facing_up_with_its_art_the_right_way_round(bend: float) -> None:
    from tablewatch.sim.pbr.render import card_sheet
    from tablewatch.sim.world import CARD_H, CARD_W

    pose = Pose(t=0.0, x=100.0, y=-50.0, z=0.0, angle=90.0)
    vertices, faces, normals, texcoords = card_sheet(pose, 0.3, bend)
    heights = -vertices[:, 2]
    assert heights.min() == pytest.approx(0.3) and heights.max() == pytest.approx(0.3 + abs(bend))
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    assert (np.cross(b - a, c - a)[:, 2] < 0).all()  # every triangle faces up (the table frame's z runs down)
    assert (normals[:, 2] < 0).all()
    # turned a quarter (x towards y), the art's top-left corner (texture v = 1: Mitsuba reads it upside down)
    # lies at the card's +x, -y corner
    corner = vertices[np.argmin(np.abs(texcoords - (0.0, 1.0)).sum(axis=1))]
    assert corner[:2] == pytest.approx((100.0 + CARD_H / 2, -50.0 - CARD_W / 2))


def test_the_table_calibrates_on_the_traced_picture_with_every_marker(demo: Simulation, traced: np.ndarray) -> None:
    """Every marker fits, and the table's ends land where the true camera shows them (the lens fitted from the
    markers themselves)."""
    from tablewatch.calibration.markers import calibrate_frames

    calibration, _ = calibrate_frames([traced], demo.run.layout)
    assert calibration.markers_used == sorted(m.id for m in demo.run.layout.markers)
    camera = demo.camera()
    corners = np.array([[-1100.0, -300.0], [1100.0, 300.0], [0.0, 0.0]])
    found = calibration.px_to_mm(camera.project(corners))
    assert np.abs(found - corners).max() < 6.0  # mm, the table's ends included
