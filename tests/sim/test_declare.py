from __future__ import annotations

import pytest

from tablewatch.sim.declare import chips_read_as_meant


@pytest.mark.parametrize(("raising", "prior", "chips", "facing", "behind", "meant"), [
    (False, 0, {100: 3}, 300, 500, True),  # the exact call
    (False, 0, {100: 3}, 500, 0, False),  # the last chips, short of the call: might read as all in
    (True, 0, {1000: 1}, 0, 500, True),  # the round's first bet: a single chip bets its value
    (True, 0, {1000: 1}, 300, 500, False),  # one chip facing a bet is a call (TDA-31)
    (True, 0, {1000: 1}, 300, 0, False),  # ... even the last one
    (True, 100, {500: 1, 100: 1}, 650, 900, False),  # 100 in front: without the new 100 chip, 600 doesn't call
    (True, 100, {500: 3}, 650, 900, True),  # 100 in front and two 500s call 650: a raise to 1600
    (True, 0, {1000: 2}, 1050, 500, False),  # two 1000s facing 1050: one alone doesn't call (TDA-32)
    (True, 0, {1000: 3}, 1050, 500, True),  # three: a raise as placed
    (True, 0, {500: 3}, 1000, 0, True),  # last chips past the smallest-chip test: all in
])
def test_a_careful_player_declares_when_silent_chips_might_read_otherwise(
        raising: bool, prior: int, chips: dict[int, int], facing: int, behind: int, meant: bool) -> None:
    assert chips_read_as_meant(raising=raising, prior=prior, chips=chips, facing=facing, behind=behind) is meant
