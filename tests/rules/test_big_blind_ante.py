"""The big-blind ante posted by a short big blind (TDA-60, catalogue conflict C7, ``RuleProfile.bba_priority``).

The big blind seat posts the big blind and one ante for the table (BBA = BB). When he has less than both, the
venue's priority decides which is posted in full: the ante (dead money) first, as pokerkit posts it and the
garbled 000 RP-11 reads, or the big blind (a live bet) first (001 TDA-60).
"""

from __future__ import annotations

import pytest

from tablewatch.rules.game import GameConfig
from tablewatch.rules.profiles import RuleProfile, preset
from tests.rules.engine_helpers import Hand

BBA_100_200 = GameConfig(small_blind=100, big_blind=200, big_blind_ante=200)


def bba_hand(bb_stack: int, priority: str, seats: int = 4) -> Hand:
    """Seat 2 is the big blind (seat 1 in a two-seat game, where the button posts the small blind)."""
    stacks = dict.fromkeys(range(1, seats + 1), 10_000)
    stacks[2 if seats > 2 else 1] = bb_stack
    return Hand(BBA_100_200, stacks, button=seats, profile=RuleProfile(bba_priority=priority))  # type: ignore[arg-type]


@pytest.mark.parametrize("priority", ["ante_first", "big_blind_first"])
def test_a_big_blind_with_enough_chips_posts_both_in_full(priority: str) -> None:
    hand = bba_hand(5000, priority)
    state = hand.engine.hand.state
    assert hand.bets()[2] == 200 and state.total_pot_amount == 100 + 200 + 200  # SB, BB, the ante
    assert hand.engine.snapshot().stacks[2] == 4600


def test_ante_first_the_short_big_blind_is_all_in_for_less() -> None:
    hand = bba_hand(300, "ante_first")
    assert hand.bets()[2] == 100  # 200 went to the ante, 100 is left for the blind
    assert hand.engine.hand.state.total_pot_amount == 100 + 100 + 200
    view = hand.view(3)
    assert (view.cur, view.to_call) == (200, 200)  # the short blind still counts in full (EX-7)


def test_big_blind_first_the_blind_is_posted_in_full_and_the_ante_takes_the_rest() -> None:
    hand = bba_hand(300, "big_blind_first")
    assert hand.bets()[2] == 200 and hand.engine.snapshot().stacks[2] == 0
    assert hand.engine.hand.state.total_pot_amount == 100 + 200 + 100  # the ante is what was left: 100
    view = hand.view(3)
    assert (view.cur, view.to_call, view.min_raise_to) == (200, 200, 400)  # a full blind: nothing to count up


def test_big_blind_first_with_less_than_the_blind_posts_no_ante() -> None:
    hand = bba_hand(150, "big_blind_first")
    assert hand.bets()[2] == 150 and hand.engine.hand.state.total_pot_amount == 100 + 150


def test_big_blind_first_heads_up_the_big_blind_is_the_non_button_seat() -> None:
    hand = bba_hand(300, "big_blind_first", seats=2)
    assert hand.bets() == {1: 200, 2: 100}  # seat 1 posts the blind in full; the button the small blind
    assert hand.engine.hand.state.total_pot_amount == 100 + 200 + 100


@pytest.mark.parametrize("priority", ["ante_first", "big_blind_first"])
def test_the_chips_add_up_to_the_end_of_the_hand(priority: str) -> None:
    hand = bba_hand(300, priority)
    for seat in (3, 4, 1):
        hand.act(seat, "f")
    done = hand.end()
    assert sum(done.final_stacks.values()) == 3 * 10_000 + 300
    assert done.final_stacks[2] == 300 + 100  # his own chips back and the small blind


def test_the_club_preset_posts_the_big_blind_first() -> None:
    assert preset("club-001").bba_priority == "big_blind_first" and RuleProfile().bba_priority == "ante_first"
