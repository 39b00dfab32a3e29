"""Properties of the dealing and board checks over generated hands: a correct procedure is never flagged, and
one dealer error (a burn left out or doubled, a card to the wrong first seat) is flagged exactly once."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from tablewatch.events import CardDealt
from tablewatch.rules.checks.burns import BurnCheck
from tablewatch.rules.checks.fouled import FouledDeckCheck
from tablewatch.rules.checks.misdeal import MisdealCheck
from tablewatch.rules.checks.premature import PrematureBoardCheck
from tablewatch.rules.profiles import RuleProfile
from tests.rules.test_procedures_helpers import Script

DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]


@dataclass(frozen=True)
class Hand:
    seats: tuple[int, ...]
    button: int
    hole: int
    cards: tuple[str, ...]
    run_out: bool  # everyone all-in preflop: nobody acts, the board is run out
    streets: int  # how many of flop, turn, river are dealt


@st.composite
def hands(draw: st.DrawFn) -> Hand:
    seats = tuple(sorted(draw(st.sets(st.integers(1, 10), min_size=2, max_size=10))))
    return Hand(seats=seats, button=draw(st.sampled_from(seats)), hole=draw(st.sampled_from([2, 4])),
                cards=tuple(draw(st.permutations(DECK))), run_out=draw(st.booleans()),
                streets=draw(st.integers(0, 3)))


def play(hand: Hand, *, burns: dict[int, int] | None = None, first_seat_wrong: bool = False) -> Script:
    cards = iter(hand.cards)
    profile = RuleProfile()
    s = Script([MisdealCheck(profile), FouledDeckCheck(profile), BurnCheck(profile), PrematureBoardCheck(profile)],
               seats=hand.seats, button=hand.button, hole_cards_per_player=hand.hole)
    s.start()
    first = next((i for i, seat in enumerate(hand.seats) if seat > hand.button), 0)
    order = list(hand.seats[first:] + hand.seats[:first])
    if first_seat_wrong:
        order = order[1:] + order[:1]
    for _ in range(hand.hole):
        for seat in order:
            s.do(CardDealt, dt=0.2, seat=seat, card=next(cards))
    if hand.run_out:
        s.set(all_in=hand.seats, stacks=dict.fromkeys(hand.seats, 0))
    else:
        s.preflop(to_act=order[0])
        s.check(order[0])
    for street, slots in enumerate(((0, 1, 2), (3,), (4,))[: hand.streets]):
        s.complete()
        s.ts += 5.0  # the dealer takes a few seconds between streets (a 4th card at once is a four-card flop)
        for _ in range((burns or {}).get(street, 1)):
            s.burn()
        s.board(*slots, cards=[next(cards) for _ in slots])
        if not hand.run_out:
            s.street(("flop", "turn", "river")[street], to_act=order[0])
            s.check(order[0])
    return s


@settings(max_examples=60, deadline=None)
@given(hands())
def test_a_correct_deal_and_board_is_never_flagged(hand: Hand) -> None:
    assert play(hand).found == []


@settings(max_examples=60, deadline=None)
@given(hands(), st.integers(0, 2), st.sampled_from([0, 2]))
def test_one_burn_error_is_flagged_once(hand: Hand, street: int, count: int) -> None:
    if street >= hand.streets:
        return
    found = play(hand, burns={street: count}).found
    expected = "TDA-26B" if street == 0 and count == 0 else "TDA-25"
    assert [v.rule_id for v in found][:1] == [expected]
    assert [v.rule_id for v in found if v.rule_id != "TDA-26B"] == ([] if expected == "TDA-26B" else ["TDA-25"])


@settings(max_examples=40, deadline=None)
@given(hands())
def test_a_deal_from_the_wrong_seat_is_one_misdeal(hand: Hand) -> None:
    assert [v.rule_id for v in play(hand, first_seat_wrong=True).found] == ["TDA-22A(2)"]
