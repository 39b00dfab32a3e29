"""Hands and chip tops frame by frame, against the simulator's labels (``evaluate.score_objects``)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tablewatch.bench.perception_evaluate import ObjectScore, score_detector, score_objects
from tablewatch.bench.scenarios import DEMO_HANDS
from tablewatch.bench.through_run import recorded_session
from tablewatch.calibration.chips import painted_chip_colours
from tablewatch.events import HandInZone, HandStarted
from tablewatch.sim.session import Simulation
from tablewatch.vision.perception.appearance import Appearance
from tablewatch.vision.perception.plane import TablePlane
from tablewatch.vision.perception.scene import SceneTracker
from tablewatch.vision.table_objects import TableObjectDetector

from .conftest import FPS, perception_for, rendered

ALL_VIOLATIONS = Path(__file__).resolve().parents[2] / "tablewatch" / "sim" / "scenarios" / "all_violations.yaml"


def table_plane(sim: Simulation) -> tuple[TablePlane, np.ndarray]:
    """The plane perception calibrates on the first frames of ``sim``, and its table at the start, rectified."""
    perception = perception_for(sim)
    perception.run(rendered(sim, 0.0, 0.5))
    plane = perception.plane
    assert plane is not None
    return plane, plane.rectify(sim.renderer().render(0.0, labels=False).image)


def scored(sim: Simulation, t0: float, t1: float, *, chips_at: float | None = None,
           hires: bool = False, detector: TableObjectDetector | None = None) -> list[tuple[float, ObjectScore]]:
    """Perception from ``t0`` to ``t1`` seconds (10 fps, 720p); each analysed frame's hands scored, and the
    chip tops of the frame at ``chips_at`` (read from a 4K frame of the same moment with ``hires``); with
    ``detector``, what the table-objects detector finds on the same planes is scored instead."""
    world = sim.run.world
    actors = {arm.oid: actor for actor, arm in world.arms.items()}
    values = {chip.oid: chip.value for chip in world.chips}
    perception = perception_for(sim, hand_in_progress=True)
    renderer, big = sim.renderer(), sim.renderer(resolution="2160p") if hires else None
    out = []
    for i in range(round(t0 * FPS), round(t1 * FPS)):
        t = i / FPS
        frame = renderer.render(t)
        chips = chips_at is not None and abs(t - chips_at) < 1e-6
        later = (lambda t=t: big.render(t, labels=False).image) if big is not None and chips else None
        perception.process(frame.image, t, hires=later)
        if perception.look is not None and perception.analysed is not None and perception.analysed[0] == t:
            if detector is not None:
                out.append((t, score_detector(perception, detector, frame.labels, actors=actors, chip_values=values,
                                              chips=chips)))
            else:
                out.append((t, score_objects(perception, frame.labels, actors=actors, chip_values=values,
                                             chips=chips)))
    return out


def test_chip_tops_are_read_by_denomination_a_green_25_on_green_felt_too(demo: Simulation) -> None:
    (_, score), = [s for s in scored(demo, 13.5, 15.1, chips_at=15.0) if s[1].chips]
    assert score.chips[(25, 25)] >= 3  # the colour the felt shares: once read as felt, so as no chip
    assert {true for true, _ in score.chips} >= {25, 100, 500, 1000}
    assert all(true == read for true, read in score.chips), score.chips


def test_a_black_chip_on_grey_felt_is_read_from_the_4k_frame(demo: Simulation) -> None:
    grey = Simulation(demo.scenario.model_copy(update={"felt": "grey"}))
    (_, score), = [s for s in scored(grey, 13.5, 15.1, chips_at=15.0, hires=True) if s[1].chips]
    assert score.chips[(100, 100)] >= 3  # a grey blur at the plane's 0.3 px/mm, its dark ring at 1 px/mm
    assert all(true == read for true, read in score.chips), score.chips


def test_the_detector_reads_black_chips_on_grey_felt_from_the_720p_plane(demo: Simulation) -> None:
    """Where the colour rule needs the 4K frame (a black 100 on the held-out grey felt is a grey blur at the
    plane's 0.3 px/mm), the table-objects detector reads the chip tops from the 720p plane itself."""
    grey = Simulation(demo.scenario.model_copy(update={"felt": "grey"}))
    (_, score), = [s for s in scored(grey, 13.5, 15.1, chips_at=15.0, detector=TableObjectDetector()) if s[1].chips]
    assert score.chips[(100, 100)] >= 3
    right = sum(n for (true, read), n in score.chips.items() if true == read)
    assert right >= 0.9 * score.chips.total(), score.chips


def found_all(frames: list[ObjectScore]) -> bool:
    true = sum(s.hands_true for s in frames)
    return sum(s.hands_found for s in frames) == true and sum(s.hands_owner for s in frames) == true


def test_every_hand_is_found_while_the_dealer_pitches_and_once_a_resting_hand_has_left(demo: Simulation) -> None:
    """The demo's first seconds: seat 3's hand comes onto the felt at 0.8 s, while the first reference is
    still being made (it is seen against the median of the frames so far; its imprint in that median, where
    it lay for most of the last frames, is seen for two frames once it has gone at 1.4 s, and must not stay
    an arm), and the dealer pitches hole cards (a card in flight is not the hand)."""
    timed = scored(demo, 0.0, 8.0)
    assert sum(s.hands_true for t, s in timed if t < 1.2) >= 4
    assert sum(s.hands_true for _, s in timed) >= 44
    assert found_all([s for _, s in timed])
    assert sum(s.hands_false for t, s in timed if t >= 1.8) == 0


def test_chips_set_out_while_the_table_is_learnt_are_no_arm_but_an_arm_moving_then_is(demo: Simulation) -> None:
    """The first second learns the table from the median of its frames; arms moving over it are seen from the
    fifth frame. A row of stacks set out on the felt in the third frame, reaching its edge as an arm does,
    differs from that median for a while (the simulated table of each bench hand is set so): it never moved
    since, so it is no arm."""
    plane, table = table_plane(demo)
    scene = SceneTracker(plane)
    centre = np.zeros(2)

    def towards_centre(seat: str, mm: float, aside_mm: float = 0.0) -> tuple[int, int]:
        origin = scene.origins[seat]
        way = (centre - origin) / np.hypot(*(centre - origin))
        x, y = plane.to_px(origin + way * mm + np.array([-way[1], way[0]]) * aside_mm)
        return int(x), int(y)

    seen = []
    for i in range(10):
        frame = table.copy()
        if i >= 2:
            for mm in range(150, 560, 40):
                cv2.circle(frame, towards_centre("seat6", mm), round(20 * plane.scale), (40, 40, 200), -1)
        if i >= 3:  # an arm sweeping sideways
            aside = 60.0 * (i - 3)
            cv2.line(frame, towards_centre("seat2", 100, aside), towards_centre("seat2", 500, aside), (70, 100, 150),
                     round(100 * plane.scale))
        seen.append({arm.actor for arm in scene.update(frame, i / FPS)[0]})
    assert all("seat6" not in actors for actors in seen)
    assert all("seat2" in actors for actors in seen[4:])


def test_a_hand_gathering_cards_is_found_behind_them(demo: Simulation) -> None:
    """After pushing the pot the dealer draws the board cards in: the cards ahead of the hand are one region
    with it, but its leading edge is where they begin (once the far end of the cards: 80+ mm off)."""
    timed = scored(demo, 40.0, 44.2)
    frames = [s for t, s in timed if t >= 41.0]  # (the window's first second learns the table)
    assert sum(s.hands_true for s in frames) >= 25
    assert found_all(frames)


def test_a_hand_apart_from_its_arm_joins_it_along_the_arm_from_a_shoulder_to_the_side(demo: Simulation) -> None:
    """A dark sleeve over the dark rail does not show: the hand on the felt is a region apart from the arm
    seen beyond the rail. The dealer's arm comes from a shoulder well to the side of the dealer's place, so
    the hand lies along the arm seen, not along the line from that place to the arm's end (119 mm off it)."""
    perception = perception_for(demo)
    perception.run(rendered(demo, 0.0, 0.5))  # (the camera calibrates from the first frames)
    scene = perception.scene
    assert scene is not None
    dealer = scene.origins["dealer"]
    shoulder, end = dealer + np.array([-250.0, 150.0]), dealer + np.array([-300.0, -150.0])
    along = np.linspace(0.0, 1.0, 60)[:, None]
    arm = np.concatenate([shoulder + along * (end - shoulder) + (dx, 0.0) for dx in (-40.0, 0.0, 40.0)])
    way = (end - shoulder) / np.hypot(*(end - shoulder))
    hand = end + 150.0 * way + np.stack(np.meshgrid(np.arange(-30.0, 31.0, 10.0), np.arange(-30.0, 31.0, 10.0)),
                                        axis=-1).reshape(-1, 2)
    assert scene._bridged(hand, {"dealer": arm}, only=None) == "dealer"
    beside = end + 150.0 * way + 160.0 * np.array([-way[1], way[0]])  # as far along, but off the arm's line
    assert scene._bridged(hand - hand.mean(axis=0) + beside, {"dealer": arm}, only=None) is None


def test_where_an_arm_rested_while_the_table_was_learnt_the_felt_it_leaves_bare_is_no_arm(demo: Simulation) -> None:
    """Seat 3's arm lies still over the felt through the first second, so the reference takes it in; then it
    draws back and is gone. Where it lay, the frame shows bare felt that the reference does not: the table
    uncovered, not an arm lying still there (which it was taken for until the reference took it in 6 s later,
    as the physically based renderer's arms first showed)."""
    plane, table = table_plane(demo)
    scene = SceneTracker(plane)
    origin, width = scene.origins["seat3"], round(100 * plane.scale)
    way = -origin / np.hypot(*origin)

    def arm(frame: np.ndarray, reach_mm: float) -> None:
        ends = [tuple(int(v) for v in plane.to_px(origin + way * mm)) for mm in (100.0, reach_mm)]
        cv2.line(frame, ends[0], ends[1], (70, 100, 150), width)

    seen = []
    for i in range(40):
        frame = table.copy()
        if i < 12:
            arm(frame, 520.0)  # resting through the first second
        elif i < 14:
            arm(frame, 520.0 - 120.0 * (i - 11))  # drawing back over where it lay
        seen.append({a.actor for a in scene.update(frame, i / FPS)[0]})
    assert "seat3" in seen[12]  # drawing back, it is seen
    assert all("seat3" not in actors for actors in seen[15:])


def test_where_an_arm_lay_while_auto_exposure_brightened_the_picture_is_no_arm_once_it_has_gone(
        demo: Simulation) -> None:
    """Seat 3's dark sleeve lies over the felt for 2 s while the camera's auto-exposure opens up by a third (the
    light meter can't undo it when the markers' paper is clipped); the still table around it is taken into the
    reference at each new exposure, the felt under the arm is not. Once the arm has gone, the felt it uncovers is
    the reference's felt brighter by the camera's exposure: the table, not an arm lying still (which it was taken
    for until the reference took it in 6 s later: a fold read off a player's cards settling)."""
    plane, table = table_plane(demo)
    scene = SceneTracker(plane)
    origin, width = scene.origins["seat3"], round(100 * plane.scale)
    way = -origin / np.hypot(*origin)
    ends = [tuple(int(v) for v in plane.to_px(origin + way * mm)) for mm in (100.0, 500.0)]

    seen = []
    for i in range(70):
        frame = table.copy()
        if 12 <= i < 32:
            cv2.line(frame, ends[0], ends[1], (40, 40, 40), width)
        exposure = 1.0 + 0.35 * min(max(i - 12, 0), 20) / 20  # opening up while the arm lies there, then held
        frame = np.clip(frame * exposure, 0, 255).astype(np.uint8)
        seen.append({a.actor for a in scene.update(frame, i / FPS)[0]})
    assert all("seat3" in actors for actors in seen[13:32])
    assert all("seat3" not in actors for actors in seen[34:])


def test_a_hand_clipped_to_paper_white_in_an_overexposed_picture_is_not_cut_off_as_a_card(demo: Simulation) -> None:
    """Auto-exposure opened up on a dark table clips the markers' paper, and a hand reads nearly paper white
    (measured over 50 hands: 191, 232, 231 once corrected), the colour of a card's face. Cards pushed ahead of a
    hand are cut off its leading edge; in an overexposed picture that would cut off the fingers (a check's tap read
    short of the betting line), so there the arm is taken whole."""
    plane, table = table_plane(demo)
    table = np.clip(table * 1.37, 0, 255).astype(np.uint8)
    perception = perception_for(demo)
    look = Appearance(felt_bgr=plane.felt_colour(table), chips=painted_chip_colours(demo.scenario.chips),
                      deck=perception.deck, px_per_mm=plane.scale)
    reaches = {}
    for overexposed in (False, True):
        scene = SceneTracker(plane, colours=look)
        scene.overexposed = overexposed
        origin = scene.origins["seat3"]
        way, width = -origin / np.hypot(*origin), round(90 * plane.scale)

        def at(mm: float, origin: np.ndarray = origin, way: np.ndarray = way) -> tuple[int, int]:
            x, y = plane.to_px(origin + way * mm)
            return int(x), int(y)

        for i in range(13):
            frame = table.copy()
            if i == 12:  # a dark sleeve, its hand reaching 110 mm beyond it to 380 mm from the player's place
                cv2.line(frame, at(100), at(270), (40, 40, 40), width)
                cv2.line(frame, at(270), at(380), (191, 232, 231), width)
            arms = [a for a in scene.update(frame, i / FPS)[0] if a.actor == "seat3"]
        reaches[overexposed] = float(np.hypot(*np.subtract(arms[0].tip_mm, origin)))
    assert reaches[True] > 370.0 > 300.0 > reaches[False]


@pytest.mark.parametrize(("blended", "an_arm"), [(True, False), (False, True)])
def test_a_pitched_card_and_its_ghost_by_the_felts_edge_are_no_arm_but_a_sleeve_as_large_is(
        demo: Simulation, blended: bool, an_arm: bool) -> None:
    """A camera that blends each frame with the last (frames averaged, strong noise reduction) draws a pitched card
    as the card and its fading copy, in colours between the back's and the felt's. Landing over the felt's edge in
    front of a seat they are as large as an arm first seen there (measured on the demo averaged two frames at a
    time: a seat's arm, then its tap). A moving region that size, no arm in the last frame and mostly in a card's
    colours or a mix of them with the felt, is a card in flight; a dark sleeve of the same shape is an arm."""
    plane, table = table_plane(demo)
    perception = perception_for(demo)
    felt = plane.felt_colour(table).astype(np.float32)
    look = Appearance(felt_bgr=felt, chips=painted_chip_colours(demo.scenario.chips), deck=perception.deck,
                      px_per_mm=plane.scale)
    card_px = (round(63 * plane.scale), round(88 * plane.scale))
    back = cv2.resize(perception.deck["back"][..., :3], card_px, interpolation=cv2.INTER_AREA).astype(np.float32)
    if not blended:
        back[:] = (40, 40, 40)
    scene = SceneTracker(plane, colours=look)
    origin = scene.origins["seat6"]  # (the felt begins 400 mm out from the player's place)
    way = -origin / np.hypot(*origin)
    for i in range(13):
        frame = table.copy()
        if i == 12:  # the card 430 mm out from the player's place, its ghost half as strong 40 mm back, 55 aside
            for mm, aside, strength in ((470, 55, 0.5), (430, 0, 1.0)):
                x, y = (int(v) for v in plane.to_px(origin + way * mm + np.array([-way[1], way[0]]) * aside))
                x0, y0 = x - card_px[0] // 2, y - card_px[1] // 2
                under = frame[y0:y0 + card_px[1], x0:x0 + card_px[0]].astype(np.float32)
                frame[y0:y0 + card_px[1], x0:x0 + card_px[0]] = (strength * back + (1 - strength) * under).astype(
                    np.uint8)
        actors = {arm.actor for arm in scene.update(frame, i / FPS)[0]}
    assert ("seat6" in actors) is an_arm


@pytest.mark.parametrize(("faded_frames", "owner"), [(1, "dealer"), (2, "seat1")])
def test_an_arm_that_fades_for_a_frame_is_still_its_owners_where_it_shows_again(
        demo: Simulation, faded_frames: int, owner: str) -> None:
    """The dealer reaches to seat 1's stack. A camera that blends each frame with the last lets a fast arm fade
    into the felt for a frame; then only its hand shows, by seat 1's edge of the felt, a blob that points nowhere
    and lies nearest seat 1's place (read as seat 1's arm, then as its tap). An arm a frame before the last is
    still its owner's; after two frames without it, the nearest place owns what shows."""
    plane, table = table_plane(demo)
    scene = SceneTracker(plane)

    def px(mm: tuple[float, float]) -> tuple[int, int]:
        x, y = plane.to_px(np.array(mm))
        return int(x), int(y)

    hand_mm, half_mm = (-600.0, 420.0), 65.0
    seen = []
    for i in range(15 + faded_frames):
        frame = table.copy()
        if i in (12, 13):
            cv2.line(frame, px((0.0, 700.0)), px(hand_mm), (40, 40, 40), round(100 * plane.scale))
        if i == 14 + faded_frames:
            corners = [px((hand_mm[0] + d, hand_mm[1] + d)) for d in (-half_mm, half_mm)]
            cv2.rectangle(frame, corners[0], corners[1], (40, 40, 40), -1)
        seen.append({arm.actor for arm in scene.update(frame, i / FPS)[0]})
    assert seen[13] == {"dealer"}
    assert seen[-1] == {owner}


@pytest.mark.parametrize("felt", ["green", "grey"])
def test_a_hand_resting_over_its_stack_stays_a_hand_and_leaves_no_imprint(felt: str) -> None:
    """Seat 6 hides its stack under its hand for 12 s (longer than the reference takes in what stays still):
    the hand is seen all along, and nothing is left behind as an arm once it has gone. On the held-out grey
    felt the grey sleeve shows only over the dark rail: the hand is seen apart from it, and it is a dark
    hand, close to the felt's colour, resting on the stack's chips."""
    scenario = Simulation.from_file(ALL_VIOLATIONS).scenario
    sim = Simulation(scenario.model_copy(update={"felt": felt}))
    frames = scored(sim, 68.0, 92.0)  # from 70.1 s the hand moves in; it rests 72.7-84.7 s
    resting = [s for t, s in frames if 76.0 <= t <= 84.5]
    assert sum(s.hands_true for s in resting) >= 80
    assert sum(s.hands_found for s in resting) == sum(s.hands_true for s in resting)
    after = [s for t, s in frames if t >= 86.0]  # (the dealer's fast hand is at times 80+ mm from where seen)
    assert sum(s.hands_false for s in after) <= 1


def test_the_chips_a_player_sits_down_with_are_no_arm_once_his_arm_has_gone() -> None:
    """Seat 1 sits down before the session's second hand: his arm lies over his stack's place while his chips go
    down, and leaves as the hand starts. What it left by the felt's edge lies still and was no arm in the frame
    before it was seen: chips, not an arm of his neighbour's lying still (every arm comes into view moving)."""
    sim, _ = recorded_session(DEMO_HANDS, hands=2, first=1, seed=1)
    start = [e.ts for e in sim.events if isinstance(e, HandStarted)][1]
    perception = perception_for(sim, hand_in_progress=True)
    events, arms = [], []
    for frame, t in rendered(sim, round(start) - 3.5, round(start) + 2.0):
        events += perception.process(frame, t)
        if perception.analysed is not None and perception.analysed[0] == t:
            arms.append((t, {arm.actor for arm in perception.analysed[2]}))
    assert any("seat1" in actors for t, actors in arms if start - 1.0 <= t <= start - 0.1)  # his arm over the stack
    assert all(actors <= {"seat3", "seat5", "dealer"} for t, actors in arms if t >= start + 0.3)  # 3 and 5 post
    assert not [e for e in events if isinstance(e, HandInZone) and e.actor in ("seat1", "seat2")]


@pytest.mark.parametrize(("apart_mm", "settles"), [(40.0, 1), (None, 0)])
def test_small_pieces_of_a_zones_change_are_one_settle_only_side_by_side(demo: Simulation, apart_mm: float | None,
                                                                          settles: int) -> None:
    """Pieces too small to be a settle alone add up to one when they lie together: the strips a card sticks out by
    beyond the one beneath. Two slivers at the two ends of the pot (an arm's edge left them) are noise."""
    plane, table = table_plane(demo)
    ys, xs = np.nonzero(plane.zone_masks["pot"])
    w, h, y = round(30 * plane.scale), round(8 * plane.scale), int(np.median(ys))
    left = int(xs.min()) + w
    right = left + round(apart_mm * plane.scale) if apart_mm is not None else int(xs.max()) - 2 * w
    scene = SceneTracker(plane)
    found = []
    for i in range(20):
        frame = table.copy()
        if i >= 12:
            for x in (left, right):
                cv2.rectangle(frame, (x, y), (x + w, y + h), (30, 30, 30), -1)
        found += [s for s in scene.update(frame, i / FPS)[1] if s.zone == "pot"]
    assert len(found) == settles
