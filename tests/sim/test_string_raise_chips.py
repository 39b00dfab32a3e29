"""A string raise is pushed in two motions even when one chip would pay it (it needs a chip per motion)."""

from __future__ import annotations

from tablewatch.events import BetMotion
from tablewatch.sim.scenario import Scenario
from tablewatch.sim.script import simulate

SCENARIO = {
    "table": "T01", "layout": "oval6", "seed": 3, "blinds": [50, 100],
    "players": [{"seat": 1, "name": "A", "stack": 10000}, {"seat": 2, "name": "B", "stack": 10000},
                {"seat": 3, "name": "C", "stack": 10000}],
    "hands": [{"button": 1, "actions": ["s1 cbr 500", "s2 f", "s3 f"],
               "violations": [{"type": "string_raise", "action": 0}]}],
}


def test_a_one_chip_raise_is_split_so_it_can_go_in_two_motions() -> None:
    run = simulate(Scenario.model_validate(SCENARIO))
    bet = next(e for e in run.events if isinstance(e, BetMotion) and e.seat == 1)
    assert bet.chips.value == 500
    assert bet.motions == 2 and bet.chips.count >= 2
    assert [v.type for v in run.violations] == ["string_raise"]
