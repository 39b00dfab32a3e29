"""physical.py: one PHH action as table events that the engine reads back as that same action."""

from __future__ import annotations

import pytest

from tablewatch.events import BetMotion, CardsMucked, CardsTabled, Chips, Declaration, Tap
from tablewatch.rules.game import GameConfig
from tablewatch.rules.physical import make_chips, physical_events
from tests.rules.engine_helpers import Hand

DENOMS = (1, 5, 25, 100, 500, 1000, 5000)


def test_make_chips_counts_out_largest_first() -> None:
    assert make_chips(1730, DENOMS) == Chips.of({1000: 1, 500: 1, 100: 2, 25: 1, 5: 1})
    with pytest.raises(ValueError, match="cannot make 30 exactly"):
        make_chips(30, (25, 100))


def _hand() -> Hand:
    config = GameConfig(small_blind=100, big_blind=200, chip_denominations=DENOMS)
    return Hand(config, dict.fromkeys(range(1, 5), 20_000))


def test_check_fold_show_and_muck() -> None:
    hand = _hand()
    base = {"table": "T", "seat": 3, "ts": 5.0, "denominations": DENOMS}
    assert physical_events("p3 f", view=None, **base) == [CardsMucked(ts=5.0, table="T", source="sim", seat=3, count=2)]
    [shown] = physical_events("sm AsKd", view=None, **base)
    assert isinstance(shown, CardsTabled) and shown.cards == ("As", "Kd")
    assert isinstance(physical_events("sm", view=None, **base)[0], CardsMucked)
    for seat in (3, 4, 1):
        hand.act(seat, "cc")
    [tap] = physical_events("cc", view=hand.view(2), **{**base, "seat": 2})
    assert isinstance(tap, Tap)


def test_a_raise_with_one_big_chip_is_declared_first() -> None:
    hand = _hand()
    events = physical_events("cbr 1000", view=hand.view(3), table="T", seat=3, ts=5.0, denominations=DENOMS)
    decl, chips = events
    assert isinstance(decl, Declaration) and (decl.word, decl.amount) == ("raise", 1000) and decl.ts < chips.ts
    assert isinstance(chips, BetMotion) and chips.chips == Chips.of({1000: 1})
    hand.act(3, "cbr 1000")
    assert (hand.engine.hand.actions[-1].kind, hand.engine.hand.actions[-1].amount) == ("cbr", 1000)


def test_a_raise_that_reads_right_goes_in_silently() -> None:
    hand = _hand()
    [chips] = physical_events("cbr 600", view=hand.view(3), table="T", seat=3, ts=5.0, denominations=DENOMS)
    assert isinstance(chips, BetMotion) and chips.chips == Chips.of({500: 1, 100: 1}) and chips.motions == 1


def test_several_motions_come_with_a_declaration() -> None:
    hand = _hand()
    events = physical_events("cbr 600", view=hand.view(3), table="T", seat=3, ts=5.0, denominations=DENOMS,
                             motions=2)
    assert isinstance(events[0], Declaration) and events[0].amount == 600
    motion = events[1]
    assert isinstance(motion, BetMotion) and motion.motions == 2 and sum(motion.motion_values) == 600
    assert len(motion.motion_times) == 2
    assert not hand.act(3, "cbr 600", motions=2)  # no string raise: declared first


def test_the_big_blind_call_shows_its_blind_as_prior_chips() -> None:
    hand = _hand()
    hand.act(3, "cbr 600")
    hand.act(4, "f")
    hand.act(1, "f")
    [call] = physical_events("cc", view=hand.view(2), table="T", seat=2, ts=9.0, denominations=DENOMS)
    assert isinstance(call, BetMotion) and call.prior.value == 200 and call.chips.value == 400


def test_bad_actions_are_clear_errors() -> None:
    hand = _hand()
    base = {"table": "T", "seat": 3, "ts": 1.0, "denominations": DENOMS}
    with pytest.raises(ValueError, match="unknown PHH action 'xx'"):
        physical_events("xx", view=hand.view(3), **base)
    with pytest.raises(ValueError, match="needs the betting view"):
        physical_events("cc", view=None, **base)
    with pytest.raises(ValueError, match="not above the seat's bet"):
        physical_events("cbr 0", view=hand.view(3), **base)
