"""The hand's state the engine's collaborators share (``HandState``) and its small types."""

from __future__ import annotations

from tablewatch.events import HandStarted
from tablewatch.rules.cards import CardFlow
from tablewatch.rules.chipreading import Reading
from tablewatch.rules.game import GameConfig
from tablewatch.rules.handstate import HandState, Underpot, seat_order
from tablewatch.rules.profiles import RuleProfile


def hand_state(seats: tuple[int, ...] = (1, 3, 5), button: int = 5) -> HandState:
    start = HandStarted(ts=1.0, table="T", source="dealer", hand_no=7, button=button, seats=seats,
                        stacks=(1000,) * len(seats))
    return HandState(GameConfig(), start, RuleProfile())


def test_seats_are_ordered_from_the_buttons_left_with_the_button_last() -> None:
    assert seat_order((1, 3, 5), 3) == (5, 1, 3)
    assert seat_order((1, 3, 5), 4) == (5, 1, 3)  # a dead button on an empty seat


def test_a_new_hand_is_dealing_until_the_hole_cards_are_out() -> None:
    hand = hand_state()
    assert hand.phase() == "dealing" and hand.to_act() is None
    CardFlow(hand).advance(force=True)
    assert hand.phase() == "preflop" and hand.to_act() == 5  # three-handed: the button acts first preflop


def test_the_record_and_the_rulings_land_in_the_hand() -> None:
    hand = hand_state()
    CardFlow(hand).advance(force=True)
    hand.record(5, "cc", None, 2.0, Reading(action="call", to=100, basis="chips", owed=100))
    assert hand.actions[-1].street == "preflop" and hand.seats[5].owed == 100
    hand.rebuilding = True
    hand.note("not kept while a correction replays the hand")
    assert hand.notes == []


def test_a_short_pot_bet_stands_after_substantial_action() -> None:
    assert not Underpot(seat=1, record=0, paid_to=300, owed=100, after=[False, False]).substantial()
    assert Underpot(seat=1, record=0, paid_to=300, owed=100, after=[False, True]).substantial()
    assert Underpot(seat=1, record=0, paid_to=300, owed=100, after=[False, False, False]).substantial()


def test_unknown_starting_stacks_are_played_as_100_big_blinds_and_the_hand_says_so() -> None:
    start = HandStarted(ts=1.0, table="T", source="scene", hand_no=1, button=5, seats=(1, 3, 5))
    hand = HandState(GameConfig(big_blind=200), start, RuleProfile())
    assert hand.starting_stacks == (20000,) * 3
    assert hand.notes == ["starting stacks unknown: played as 20000 each (100 big blinds)"]
    assert hand_state().notes == []
