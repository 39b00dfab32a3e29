"""The dealer button puck: drawn by the simulator where the hand's button is, seen by perception in that seat's spot."""

from __future__ import annotations

import numpy as np
import pytest

from tablewatch.calibration.button import ButtonLook, measure_button
from tablewatch.calibration.markers import calibrate_frames
from tablewatch.events import ButtonSeen, HandStarted
from tablewatch.sim.scenario import Scenario
from tablewatch.sim.session import Simulation
from tablewatch.sim.sprites import BUTTON_FACE
from tablewatch.sim.world import BUTTON_DIAMETER, Track
from tests.perception.conftest import perception_for, rendered

# Two quick hands on a six-seat table (everyone folds to the big blind): the button goes from seat 2 to seat 4.
TWO_HANDS = {
    "table": "T01", "layout": "oval6", "seed": 3, "blinds": [50, 100],
    "players": [{"seat": s, "name": n, "stack": 5000} for s, n in ((2, "Ann"), (4, "Bob"), (5, "Cid"))],
    "hands": [{"button": 2, "actions": ["s2 f", "s4 f"]}, {"actions": ["s4 f", "s5 f"]}],
}


@pytest.fixture(scope="module")
def two_hands() -> Simulation:
    return Simulation(Scenario.model_validate(TWO_HANDS))


def starts(sim: Simulation) -> list[HandStarted]:
    return [e for e in sim.events if isinstance(e, HandStarted)]


def white_share(sim: Simulation, t: float, seat: int) -> float:
    """The share of the puck's white around the middle of ``seat``'s button spot in an exact (effect-free) frame."""
    renderer = sim.renderer(effects=False)
    u, v = np.round(renderer.camera.project(np.array([sim.run.layout.button_spot(seat)]))[0]).astype(int)
    r = max(2, round(0.3 * BUTTON_DIAMETER / renderer.camera.mm_per_px()))
    patch = renderer.render(t, labels=False).image[v - r:v + r + 1, u - r:u + r + 1].astype(int)
    return float((np.abs(patch - BUTTON_FACE).max(axis=2) < 40).mean())


def test_the_puck_lies_in_the_hands_button_spot_and_moves_before_the_next_deal(two_hands: Simulation) -> None:
    first, second = starts(two_hands)
    assert (first.button, second.button) == (2, 4)
    for t, seat, other in ((first.ts, 2, 4), (second.ts, 4, 2)):
        assert white_share(two_hands, t, seat) > 0.5  # its face, round its lettering
        assert white_share(two_hands, t, other) == 0.0  # felt


def test_the_same_seed_draws_the_puck_the_same(two_hands: Simulation) -> None:
    again = Simulation(Scenario.model_validate(TWO_HANDS))
    t = starts(two_hands)[1].ts - 0.3  # while it slides
    frames = [sim.renderer("overhead", "480x270").render(t, labels=False).image for sim in (two_hands, again)]
    assert frames[0].tobytes() == frames[1].tobytes()


def test_perception_reports_the_button_at_the_start_and_when_it_moves(two_hands: Simulation) -> None:
    second = starts(two_hands)[1]
    frames = rendered(two_hands, second.ts - 4.0, second.ts + 1.5)
    events = perception_for(two_hands, hand_in_progress=True, hand_finder=False).run(frames)
    seen = [e for e in events if isinstance(e, ButtonSeen)]
    assert [e.seat for e in seen] == [2, 4]
    assert seen[0].ts < second.ts - 3.0  # at the start
    assert second.ts - 1.5 < seen[1].ts < second.ts  # once it lies still in its new spot, before the deal
    moved = two_hands.run.world.button.keys[1].t  # the dealer picks it up
    assert [e.kind for e in events if moved - 0.5 < e.ts < second.ts + 0.3] == ["ButtonSeen"]  # no chips, no card


def test_calibration_measures_the_puck_where_it_lies(two_hands: Simulation) -> None:
    frame = two_hands.renderer(effects=False).render(0.3, labels=False).image
    calibration, _ = calibrate_frames([frame], two_hands.run.layout)
    look = measure_button(frame, calibration, two_hands.run.layout)
    assert look is not None
    assert abs(look.diameter_mm - 76.0) < 6.0
    assert min(look.bgr) > 200  # white
    assert look == ButtonLook(diameter_mm=look.diameter_mm, bgr=look.bgr)


def test_no_puck_on_the_table_is_no_look() -> None:
    sim = Simulation(Scenario.model_validate(TWO_HANDS))
    sim.run.world.button = Track()  # a table without its button
    frame = sim.renderer(effects=False).render(0.3, labels=False).image
    calibration, _ = calibrate_frames([frame], sim.run.layout)
    assert measure_button(frame, calibration, sim.run.layout) is None
