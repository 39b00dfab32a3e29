"""Rendering: same bytes for the same seed, labels on the right pixels, occlusion, markers calibration can find."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablewatch.calibration.decks import deck_names, index_quads, load_deck
from tablewatch.sim.labels import CLASS_INDEX, CLASS_NAMES, MIN_BOX_FILL, MIN_VISIBLE
from tablewatch.sim.render import Effects, Renderer
from tablewatch.sim.scenarios import example
from tablewatch.sim.script import SimRun
from tablewatch.sim.session import Simulation
from tablewatch.sim.world import Pose, World

SMALL = "480x270"


def test_same_seed_renders_the_same_bytes() -> None:
    frames = [Simulation.from_file(example("demo")).renderer("overhead", SMALL).render(20.0) for _ in range(2)]
    assert frames[0].image.tobytes() == frames[1].image.tobytes()
    assert frames[0].labels == frames[1].labels


def test_a_different_moment_renders_differently(demo: Simulation) -> None:
    r = demo.renderer("overhead", SMALL)
    assert r.render(5.0).image.tobytes() != r.render(20.0).image.tobytes()


def test_class_names_extend_the_real_card_classes(shared_dir) -> None:
    import yaml

    real = yaml.safe_load((shared_dir / "data/cards-real/data.yaml").read_text())["names"]
    assert CLASS_NAMES[: len(real)] == real
    assert CLASS_NAMES[-1] == "hand"


@pytest.mark.parametrize("t", [6.0, 20.5, 40.0])
def test_boxes_lie_inside_the_frame_on_their_objects(demo: Simulation, t: float) -> None:
    r = demo.renderer("overhead", "640x360", effects=False)
    frame = r.render(t)
    h, w = frame.image.shape[:2]
    assert frame.labels
    felt = np.array(r.felt, float)
    for label in frame.labels:
        x0, y0, x1, y1 = label.box
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
        ids = frame.ids[y0:y1, x0:x1]
        mine = np.mean(ids == label.oid)
        assert mine >= MIN_BOX_FILL, label  # the labeller's rule: the box is not mostly neighbours
        if label.name != "hand":
            pixels = frame.image[y0:y1, x0:x1].reshape(-1, 3).astype(float)
            off_felt = np.mean(np.linalg.norm(pixels - felt, axis=1) > 40)
            assert off_felt >= 0.5, label  # and the pixels there are not bare felt


def test_card_labels_name_the_card_drawn(demo: Simulation) -> None:
    frame = demo.renderer("overhead", "640x360", effects=False).render(40.0)
    cards = {c.oid: c for c in demo.run.world.cards}
    named = [label for label in frame.labels if label.oid in cards and label.name != "BACK"]
    assert named
    for label in named:
        code = cards[label.oid].code
        assert label.name == code[0].replace("T", "10") + code[1].upper()


def _tiny_run(demo: Simulation) -> tuple[SimRun, int, tuple[float, float]]:
    """A table with one face-up card and the dealer's hand moving onto it and away."""
    world = World()
    x, y = demo.run.table.board_slot(2)
    card = world.new_card("Ah", Pose(t=0.0, x=x, y=y, face_up=True, zone="board.2"))
    arm = world.new_arm("dealer", demo.run.table.dealer_shoulder)
    sx, sy = demo.run.table.dealer_shoulder
    for t, (hx, hy) in ((1.0, (sx, sy)), (2.0, (x, y)), (3.0, (x, y)), (4.0, (x + 45.0, y)), (5.0, (x + 45.0, y)),
                        (6.0, (sx, sy))):
        arm.track.add(Pose(t=t, x=hx, y=hy, z=20.0))
    run = SimRun(scenario=demo.scenario, layout=demo.run.layout, table=demo.run.table, world=world, events=[],
                 violations=[], hands=[], registry={}, duration=7.0)
    return run, card.oid, (x, y)


def test_a_hand_over_a_card_hides_its_label(demo: Simulation) -> None:
    run, card_oid, _ = _tiny_run(demo)
    r = Renderer(run, demo.camera("overhead", "640x360"), effects=Effects.none())
    clear = [lb for lb in r.render(0.5).labels if lb.oid == card_oid]
    assert len(clear) == 1 and clear[0].name == "AH" and clear[0].visible > 0.85
    covered = r.render(2.5)
    assert not [lb for lb in covered.labels if lb.oid == card_oid]
    assert [lb for lb in covered.labels if lb.cls == CLASS_INDEX["hand"]]
    partly = [lb for lb in r.render(4.5).labels if lb.oid == card_oid]
    assert partly  # a third covered: still labelled, with the box around what shows

    def area(b: tuple[int, int, int, int]) -> int:
        return (b[2] - b[0]) * (b[3] - b[1])

    assert area(partly[0].box) <= area(clear[0].box) and partly[0].visible < 0.8


def test_a_card_showing_as_corners_of_a_crossed_card_gets_no_box(demo: Simulation) -> None:
    """A card at 45 degrees under one across it: well over ``MIN_VISIBLE`` of it shows, as two corners whose box
    is mostly the top card and felt, so it gets no box; with the top card gone it gets one."""
    x, y = demo.run.table.board_slot(2)
    camera = demo.camera("overhead", "1280x720")

    def render(crossed: bool) -> tuple[list, np.ndarray, int, int]:
        world = World()
        under = world.new_card("Ah", Pose(t=0.0, x=x, y=y, angle=45.0, face_up=True, zone="board.2"))
        top = world.new_card("Kd", Pose(t=0.0, x=x + 30.0, y=y if crossed else y + 400.0, z=0.5, angle=90.0,
                                        face_up=True, zone="board.2"))
        run = SimRun(scenario=demo.scenario, layout=demo.run.layout, table=demo.run.table, world=world, events=[],
                     violations=[], hands=[], registry={}, duration=1.0)
        frame = Renderer(run, camera, effects=Effects.none()).render(0.5)
        return frame.labels, frame.ids, under.oid, top.oid

    labels, ids, under, top = render(crossed=True)
    ys, xs = np.nonzero(ids == under)
    fill = len(xs) / ((np.ptp(xs) + 1) * (np.ptp(ys) + 1))
    shown = len(xs) / np.count_nonzero(ids == top)  # the top card is whole and the same size
    assert shown > MIN_VISIBLE["card"] + 0.05 and fill < MIN_BOX_FILL - 0.03, (shown, fill)
    assert [lb.name for lb in labels] == ["KD"]
    labels, *_ = render(crossed=False)
    assert sorted(lb.name for lb in labels) == ["AH", "KD"]


def test_overhead_frames_show_the_layout_markers_where_the_camera_puts_them(demo: Simulation) -> None:
    r = demo.renderer("overhead", "720p")
    frame = r.render(1.0)
    layout = demo.run.layout
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.dictionary)))
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY))
    assert ids is not None and len(ids) >= 5
    truth = layout.marker_corners()
    for c, i in zip(corners, ids.ravel(), strict=True):
        expected = r.camera.project(truth[int(i)])
        assert np.abs(c.reshape(4, 2) - expected).max() < 2.5, int(i)


def test_4k_and_board_cameras_render(demo: Simulation) -> None:
    big = demo.renderer("overhead", "2160p", effects=False).render(20.0)
    assert big.image.shape == (2160, 3840, 3)
    assert any(lb.name not in ("BACK", "hand") and not lb.name.startswith("chip") for lb in big.labels)
    board = demo.renderer("board", SMALL).render(20.0)
    assert board.image.shape == (270, 480, 3)


def test_index_boxes_sit_in_the_corners_of_their_cards(demo: Simulation) -> None:
    r = demo.renderer("overhead", "2160p", effects=False)
    whole = {lb.oid: lb for lb in r.render(40.0).labels if lb.name not in ("BACK", "hand")
             and not lb.name.startswith("chip")}
    index = [lb for lb in r.render(40.0, card_boxes="index").labels if lb.oid in whole]
    assert len(index) == 2 * len(whole) >= 10  # the five board cards, two corners each
    for lb in index:
        card = whole[lb.oid].box
        assert lb.name == whole[lb.oid].name
        assert card[0] - 2 <= lb.box[0] and lb.box[2] <= card[2] + 2 and card[1] - 2 <= lb.box[1] and \
            lb.box[3] <= card[3] + 2
        assert (lb.box[2] - lb.box[0]) * (lb.box[3] - lb.box[1]) < 0.12 * (card[2] - card[0]) * (card[3] - card[1])


@pytest.mark.parametrize("deck", deck_names())
def test_an_index_box_holds_the_rank_and_suit_and_not_the_big_pips(deck: str) -> None:
    """The boxes are found in each deck's art: small, inked, and the same at both corners of a card."""
    cards, quads = load_deck(deck), index_quads(deck)
    for code, (top_left, bottom_right) in quads.items():
        (x0, y0), (x1, y1) = top_left[0], top_left[2]
        assert 0 <= x0 < x1 <= 0.25 and 0 <= y0 < y1 <= 0.33
        assert (x1 - x0) * (y1 - y0) < 0.75 * 0.25 * 0.33, code  # found: not the whole corner region
        img = cards[code]
        h, w = img.shape[:2]
        patch = img[round(y0 * h):round(y1 * h), round(x0 * w):round(x1 * w), :3].astype(int)
        assert (patch.max(axis=2) - patch.min(axis=2) > 60).any() or (patch.max(axis=2) < 120).any(), code
        np.testing.assert_allclose(bottom_right[2], 1 - top_left[0], atol=0.05)  # printed point-symmetric


def test_released_renderers_are_made_again_and_draw_the_same() -> None:
    """A bench keeps every played hand for scoring: their renderers (hundreds of MB at 4K) are released."""
    sim = Simulation.from_file(example("demo"))
    first = sim.renderer()
    before = first.render(5.0, labels=False).image
    sim.release_renderers()
    again = sim.renderer()
    assert again is not first
    assert np.array_equal(again.render(5.0, labels=False).image, before)
