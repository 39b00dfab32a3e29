"""Hands and chip tops frame by frame, against the simulator's labels (``evaluate.score_objects``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewatch.sim.session import Simulation
from tablewatch.vision.perception.evaluate import ObjectScore, score_objects

from .conftest import FPS, perception_for

ALL_VIOLATIONS = Path(__file__).resolve().parents[2] / "tablewatch" / "sim" / "scenarios" / "all_violations.yaml"


def scored(sim: Simulation, t0: float, t1: float, *, chips_at: float | None = None,
           hires: bool = False) -> list[tuple[float, ObjectScore]]:
    """Perception from ``t0`` to ``t1`` seconds (10 fps, 720p); each analysed frame's hands scored, and the
    chip tops of the frame at ``chips_at`` (read from a 4K frame of the same moment with ``hires``)."""
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
            out.append((t, score_objects(perception, frame.labels, actors=actors, chip_values=values, chips=chips)))
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


def test_every_hand_is_found_while_the_dealer_pitches_and_once_a_resting_hand_has_left(demo: Simulation) -> None:
    """The demo's first seconds: seat 3's hand rests while the first reference is made (its imprint must not
    stay an arm when it leaves), and the dealer pitches hole cards (a card in flight is not the hand)."""
    timed = scored(demo, 0.0, 8.0)
    frames = [s for t, s in timed if t >= 1.2]  # the first second only learns the table
    assert sum(s.hands_true for s in frames) >= 40
    assert sum(s.hands_found for s in frames) == sum(s.hands_true for s in frames)
    assert sum(s.hands_owner for s in frames) == sum(s.hands_true for s in frames)
    # seat 3's hand leaves the felt at 1.4 s; its imprint would stay an arm until 7 s
    assert sum(s.hands_false for t, s in timed if t >= 1.8) == 0


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
