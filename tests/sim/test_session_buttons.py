"""A session stitched from PHH hands of other tables keeps the dead-button rotation a real dealer follows: each
later hand is turned round the table so that its button is where TDA22-32 puts it, and the seats of its injected
violations turn with it. Checked against the rules layer's own rotation."""

from __future__ import annotations

import itertools
from pathlib import Path

from tablewatch.events import HandStarted
from tablewatch.rules.button import Positions, next_positions
from tablewatch.rules.profiles import RuleProfile
from tablewatch.sim.scenario import Scenario
from tablewatch.sim.session import Simulation, phh_scenario

DEMO_HANDS = Path(__file__).resolve().parents[2] / "tablewatch" / "bench" / "data" / "demo_hands.phh"


def positions(start: HandStarted) -> Positions:
    seats = sorted(start.seats)

    def after(seat: int) -> int:
        return next((s for s in seats if s > seat), seats[0])

    if len(seats) == 2:
        return Positions(button=start.button, small_blind=start.button, big_blind=after(start.button))
    return Positions(button=start.button, small_blind=after(start.button), big_blind=after(after(start.button)))


def test_every_later_hand_has_its_button_where_the_dead_button_rule_puts_it() -> None:
    starts = [e for e in Simulation(phh_scenario(DEMO_HANDS, 1, count=8)).events if isinstance(e, HandStarted)]
    assert len(starts) == 8
    for last, start in itertools.pairwise(starts):
        due = next_positions(RuleProfile(), players=start.seats, last=positions(last))
        assert start.button == due.button, f"hand {start.hand_no}"


def test_an_injected_violations_seat_turns_with_its_hand() -> None:
    scenario = phh_scenario(DEMO_HANDS, 1, count=2)
    data = scenario.model_dump()
    data["hands"][1]["violations"] = [{"type": "unknown_chip", "seat": 4, "denomination": 500}]  # the record's seat 4
    sim = Simulation(Scenario.model_validate(data))
    start = [e for e in sim.events if isinstance(e, HandStarted)][1]
    assert start.button == 2 and sorted(start.seats) == [1, 2, 3, 5]  # seats 2, 4, 6, 1 turned one seat round
    assert [(v.type, v.seats) for v in sim.violations] == [("unknown_chip", (5,))]
