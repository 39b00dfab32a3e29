"""Paying pots in real chips: split pots in whole chips (TDA-12) and the dealer's change from the tray.

The first scenario is the 7th random scene of ``tablewatch sim dataset --seed 11`` (with its cards fixed):
pokerkit split its pot of 975 into 488 + 487, which no chips of 25 pay, and the simulator died on a bare
assert. The others make the dealer break a chip from the tray, and fail with a clear error where no
change can pay.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from tablewatch.devices.ledger import ChipLedger
from tablewatch.devices.registry import ChipTag, TagRegistry
from tablewatch.events import ChipsAppeared, ChipsLeftTable, ChipsMoved, Event, HandStarted, PotPushed, UnknownChip
from tablewatch.rules.game import GameConfig
from tablewatch.sim.chips import exchange, make_change
from tablewatch.sim.coverage import hand_scenario
from tablewatch.sim.replay import chip_divmod
from tablewatch.sim.scenario import Scenario, ScenarioError
from tablewatch.sim.session import Simulation

# ps_1000nl_ hand 563 (copied, so the test runs without shared/): seat 3 bets $300 in three $100 chips and
# is called all in for $269.80; the $30.20 that comes back needs a $100 chip broken, which the tray of the
# four smallest chips (1c, 5c, 25c, $1) could not do.
UNCALLED_BET = """[1]
variant = 'NT'
ante_trimming_status = false
antes = [0, 0, 0, 0, 0]
blinds_or_straddles = [5, 10, 0, 0, 0]
min_bet = 10
starting_stacks = [529.80, 1268, 413, 1125, 1060]
actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', 'd dh p5 ????', 'p3 f', 'p4 f', \
'p5 cbr 30', 'p1 cc', 'p2 f', 'd db 5hAhJd', 'p1 cc', 'p5 cbr 40', 'p1 cbr 90', 'p5 cc', 'd db 9h', 'p1 cc', \
'p5 cbr 140', 'p1 cc', 'd db 8c', 'p1 cc', 'p5 cbr 300', 'p1 cc', 'p5 sm 4h8h', 'p1 sm ????']
seats = [4, 5, 6, 1, 3]
"""


def scenario(**hand: Any) -> Scenario:
    return Scenario.model_validate({"table": "DS", "seed": 225239916, **hand})


def pushes(sim: Simulation) -> dict[int, int]:
    return {e.seat: e.value for e in sim.events if isinstance(e, PotPushed) and e.seat is not None
            and e.value is not None}


def ledger_events(sim: Simulation) -> list[Event]:
    """What the RFID chip ledger makes of the simulated reads, from the first hand on (the stacks are set)."""
    registry = TagRegistry(ChipTag(uid=u, denomination=v, chip_set="sim") for u, v in sim.registry.items())
    ledger = ChipLedger(registry, table=sim.scenario.table)
    start = next(e.ts for e in sim.events if isinstance(e, HandStarted))
    reads = [r for r in sim.rfid_reads() if r.ts >= start]
    return [e for _, sweep in itertools.groupby(reads, key=lambda r: r.ts) for e in ledger.apply(list(sweep))]


def test_a_split_pot_is_paid_in_whole_chips_with_the_odd_chip_left_of_the_button() -> None:
    sim = Simulation(scenario(
        layout="oval10",
        players=[{"seat": 3, "name": "P3", "stack": 4000}, {"seat": 4, "name": "P4", "stack": 20000},
                 {"seat": 10, "name": "P10", "stack": 8000}],
        hands=[{"button": 4, "hole_cards": {3: "AhKh", 4: "AdKd", 10: "3c5d"}, "board": "2c7d9sJc4h",
                "actions": ["s4 cc", "s10 cc", "s3 cc", "s10 cc", "s3 cc", "s4 cc", "s10 cc", "s3 cbr 225",
                            "s4 cc", "s10 cc", "s10 cc", "s3 cc", "s4 cc"]}],
    ))
    # 975 between seats 3 and 4: 39 chips of 25, the odd one to seat 3, first left of the button.
    assert pushes(sim) == {3: 500, 4: 475}
    final = list(sim.hands[0])[-1]  # the ground-truth PHH replays with the same split
    assert sum(final.stacks) == sum(sim.hands[0].starting_stacks)


@pytest.mark.parametrize("unit", [1, 5, 25, 100])
def test_the_simulator_splits_pots_as_the_rules_engine_expects(unit: int) -> None:
    rules = GameConfig(chip_denominations=(unit, 1000 * unit)).chip_divmod
    split = chip_divmod(unit)
    for amount, ways in itertools.product(range(0, 60 * unit, unit), (1, 2, 3, 4, 7)):
        assert split(amount, ways) == rules(amount, ways)


def test_the_dealer_breaks_a_chip_from_the_tray_when_the_pot_cannot_pay_a_share() -> None:
    # Blinds 100/300 and chips of 100 and 500 in the pot: 1,500 splits 750 + 750, which needs chips of 25.
    sim = Simulation(scenario(
        blinds=[100, 300],
        players=[{"seat": s, "name": f"P{s}", "stack": 10000} for s in (1, 2, 3)],
        hands=[{"button": 3, "hole_cards": {1: "AhKh", 2: "3c5d", 3: "AdKd"}, "board": "2c7d9sJc4h",
                "actions": [{"do": "s3 cbr 600", "chips": {500: 1, 100: 1}}, {"do": "s1 cc", "chips": {500: 1}},
                            "s2 f", "s1 cc", "s3 cc", "s1 cc", "s3 cc", "s1 cc", "s3 cc"]}],
    ))
    assert pushes(sim) == {1: 750, 3: 750}
    moves = [(e.src, e.dst, e.chips.as_dict()) for e in sim.events if isinstance(e, ChipsMoved) and "tray" in
             (e.src, e.dst)]
    assert moves == [("pot", "tray", {100: 1}), ("tray", "pot", {25: 4})]
    # Real chips changed hands: none made during the hand, none taken away; the ledger sees just the moves.
    start = next(e.ts for e in sim.events if isinstance(e, HandStarted))
    assert all(c.track.keys[0].t < start and c.track.last.visible for c in sim.run.world.chips)
    read = ledger_events(sim)
    assert not [e for e in read if isinstance(e, ChipsLeftTable | ChipsAppeared | UnknownChip)]
    assert {(e.src, e.dst) for e in read if isinstance(e, ChipsMoved)} >= {("pot", "tray"), ("tray", "pot")}


def test_the_tray_can_break_the_largest_chip(tmp_path: Path) -> None:
    path = tmp_path / "hand.phh"
    path.write_text(UNCALLED_BET)
    sim = Simulation(hand_scenario(path, 1, seed=563))  # the benchmark's chips: 1c .. $100, amounts in cents
    moves = [(e.src, e.dst, e.chips.value) for e in sim.events if isinstance(e, ChipsMoved) and "tray" in
             (e.src, e.dst)]
    assert moves == [("seat3.bet", "tray", 10000), ("tray", "seat3.bet", 10000)]
    back = [e for e in sim.events if isinstance(e, ChipsMoved) and (e.src, e.dst) == ("seat3.bet", "seat3.stack")]
    assert [e.chips.value for e in back] == [3020]
    assert not [e for e in ledger_events(sim) if isinstance(e, ChipsLeftTable | ChipsAppeared | UnknownChip)]


def test_change_that_no_chips_can_make_is_a_clear_error() -> None:
    # A small blind of 50 with chips of 100 and 500: the dealer can't make it (it used to die on an assert).
    with pytest.raises(ScenarioError, match=r"hand 1: the dealer can't make change to pay 50 from seat\d\.stack: "
                       r"50 is not a multiple of the smallest chip \(100\)"):
        Simulation(scenario(
            chips=[{"value": 100, "colour": "black"}, {"value": 500, "colour": "purple"}],
            players=[{"seat": 1, "name": "A", "stack": 2000}, {"seat": 2, "name": "B", "stack": 2000}],
            hands=[{"button": 1, "actions": ["s1 f"]}],
        ))


def test_exchange_moves_few_chips_and_keeps_the_value() -> None:
    tray = {25: 20, 100: 20, 500: 20, 1000: 20}
    give, get, pay = exchange(750, {500: 2, 100: 5}, tray) or ({}, {}, {})
    assert (give, get) == ({100: 1}, {25: 4})  # one chip broken
    assert sum(d * n for d, n in pay.items()) == 750
    # Breaking a 100 the first way (two 50s) leaves 175 unpaid: the pile is made up anew from pile and tray.
    give, get, pay = exchange(175, {100: 2}, {25: 3, 50: 2}) or ({}, {}, {})
    assert (give, get) == ({100: 1}, {50: 1, 25: 2})
    assert make_change(175, {100: 1, 50: 1, 25: 2}) is not None and sum(d * n for d, n in pay.items()) == 175
    assert exchange(30, {100: 1}, {25: 4}) is None  # 30 is no sum of 25s
