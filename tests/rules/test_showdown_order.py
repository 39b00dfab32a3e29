"""Showdown order (ENG-20, TDA-10, conflict C11 ``showdown_order_variant``): the last aggressor first (TDA), or
the side-pot contestants first, pot by pot inwards (cash, 001 cash section, HOUSE-002-2.10.5)."""

from __future__ import annotations

import pytest

from tablewatch.rules.game import GameConfig
from tablewatch.rules.profiles import RuleProfile, preset
from tablewatch.rules.showdown import expected_showdown_order, showdown_order
from tests.rules.engine_helpers import Hand

TDA = RuleProfile()
CASH = preset("house-cash")
NL_100_200 = GameConfig(small_blind=100, big_blind=200)


def test_tda_the_last_aggressor_shows_first_then_clockwise() -> None:
    ruling = showdown_order(TDA, live=[2, 5, 7], button=7, last_aggressor=5)
    assert (ruling.order, ruling.all_at_once, ruling.rule_id) == ((5, 7, 2), False, "TDA-10")


def test_nobody_bet_the_first_live_seat_left_of_the_button_shows_first() -> None:
    for profile in (TDA, CASH):
        assert showdown_order(profile, live=[2, 5, 7], button=5, last_aggressor=None).order == (7, 2, 5)
        assert showdown_order(profile, live=[2, 5, 7], button=9, last_aggressor=None).order == (2, 5, 7)


def test_tda_with_a_live_all_in_every_hand_is_tabled_at_once() -> None:
    ruling = showdown_order(TDA, live=[1, 3, 4], button=4, last_aggressor=3, all_ins=[1])
    assert ruling.all_at_once and ruling.rule_id == "TDA-9"


def test_cash_side_pot_contestants_first_then_the_all_ins_pot_by_pot() -> None:
    # seat 1 all-in for 100 first, seat 6 all-in for 500 later; seats 3 and 4 bet on; seat 4 bet the river
    put_in = {1: 100, 3: 2000, 4: 2000, 6: 500}
    ruling = showdown_order(CASH, live=[1, 3, 4, 6], button=6, last_aggressor=4, all_ins=[1, 6], put_in=put_in)
    assert (ruling.order, ruling.all_at_once, ruling.rule_id) == ((4, 3, 6, 1), False, "HOUSE-002-2.10.5")
    assert showdown_order(TDA, live=[1, 3, 4, 6], button=6, last_aggressor=4, all_ins=[1, 6]).all_at_once


def test_cash_all_ins_in_the_same_pot_the_earliest_first() -> None:
    put_in = {1: 300, 2: 300, 5: 900, 8: 900}
    ruling = showdown_order(CASH, live=[1, 2, 5, 8], button=1, last_aggressor=None, all_ins=[2, 1], put_in=put_in)
    assert ruling.order == (5, 8, 2, 1)


def test_cash_an_all_in_for_more_than_anyone_called_contests_the_outer_pot() -> None:
    # seat 6 went all-in for 5000, seat 3 called all-in for 800: seat 6's 4200 is not called
    ruling = showdown_order(CASH, live=[3, 6], button=6, last_aggressor=6, all_ins=[6, 3], put_in={3: 800, 6: 5000})
    assert ruling.order == (6, 3)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"live": [4], "last_aggressor": None}, "two live hands"),
    ({"live": [2, 4], "last_aggressor": 3}, "holds no live hand"),
    ({"live": [2, 4], "last_aggressor": None, "all_ins": [2, 2]}, "distinct live seats"),
    ({"live": [2, 4], "last_aggressor": None, "all_ins": [2]}, "needs the chips every live seat put in"),
    ({"live": [2, 4, 6], "last_aggressor": None, "all_ins": [2], "put_in": {2: 100, 4: 50, 6: 300}},
     "not all-in"),
])
def test_impossible_showdowns_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        showdown_order(CASH, button=1, **kwargs)  # type: ignore[arg-type]


def river_bet_by(profile: RuleProfile) -> Hand:
    """Three-handed, everyone checks to the river, where seat 2 bets 600 and seats 3 and 1 call."""
    hand = Hand(NL_100_200, {1: 20_000, 2: 20_000, 3: 20_000}, button=3, profile=profile,
                cards={1: "AsKs", 2: "QhQd", 3: "7c2d"})
    for seat in (3, 1, 2):
        hand.act(seat, "cc")
    hand.board("2c", "9h", "Js")
    for street_card in ("4d", "8c"):
        for seat in (1, 2, 3):
            hand.act(seat, "cc")
        hand.board(street_card)
    hand.act(1, "cc")
    hand.act(2, "cbr 600")
    hand.act(3, "cc")
    hand.act(1, "cc")
    return hand


def test_the_engine_at_its_showdown_gives_the_order() -> None:
    hand = river_bet_by(TDA)
    ruling = expected_showdown_order(hand.engine)
    assert (ruling.order, ruling.all_at_once) == ((2, 3, 1), False)


def test_the_engine_reads_a_cash_side_pot_from_the_hand() -> None:
    # seat 1 goes all-in for 1000 preflop; seats 2 and 3 call and check it down, seat 3 bets the river
    hand = Hand(NL_100_200, {1: 1000, 2: 20_000, 3: 20_000}, button=3, profile=CASH)
    hand.act(3, "cc")
    hand.act(1, "cbr 1000")
    hand.act(2, "cc")
    hand.act(3, "cc")
    hand.board("2c", "9h", "Js")
    for street_card in ("4d", "8c"):
        hand.act(2, "cc")
        hand.act(3, "cc")
        hand.board(street_card)
    hand.act(2, "cc")
    hand.act(3, "cbr 600")
    hand.act(2, "cc")
    ruling = expected_showdown_order(hand.engine)
    assert ruling.order == (3, 2, 1) and ruling.rule_id == "HOUSE-002-2.10.5"
    assert expected_showdown_order(river_bet_by(CASH).engine).order == (2, 3, 1)  # no all-in: as the TDA


def test_the_engine_before_its_showdown_is_refused() -> None:
    hand = Hand(NL_100_200, {1: 20_000, 2: 20_000, 3: 20_000}, button=3)
    with pytest.raises(ValueError, match="not at its showdown"):
        expected_showdown_order(hand.engine)
