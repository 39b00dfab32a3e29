"""A big blind all-in for less than the blind (EX-7, EX-20, ENG-08, ENG-13, Appendix C).

The TDA: the others still call the full big blind, and raise from it; in pot limit the short blind counts in
full for the whole preflop round. pokerkit posts the real (short) blind — right: that is the big blind's
stake in the main pot — but calls only the chips posted — wrong. tablewatch books the full call on pokerkit's
own ledger, so the side pot of the callers' extra chips and the uncalled-bet return are pokerkit's again.
"""

from __future__ import annotations

import warnings

from pokerkit import HandHistory

from tablewatch.events import CardsTabled
from tablewatch.hands import FinishedHand
from tablewatch.history.phh import dumps_phh
from tablewatch.rules.game import GameConfig, Variant
from tests.rules.engine_helpers import Hand

NL_100_200 = GameConfig(small_blind=100, big_blind=200)
CARDS = {1: "JsJh", 2: "AsAh", 3: "KsKh", 4: "QsQh"}  # the short big blind (seat 2) has the best hand
BOARD = ("2c", "7d", "9h", "3s", "4d")


def short_blind_hand() -> Hand:
    """NL 100-200, four seats, the big blind (seat 2) all-in for 150 as he posts; seat 3 is first to act."""
    return Hand(NL_100_200, {1: 5000, 2: 150, 3: 5000, 4: 5000}, cards=CARDS, button=4)


def check_down(hand: Hand, seats: tuple[int, ...], cards: dict[int, str]) -> FinishedHand:
    for street in (BOARD[:3], BOARD[3:4], BOARD[4:]):
        hand.board(*street)
        for seat in seats:
            hand.act(seat, "cc")
    for seat, text in cards.items():
        hand.feed(CardsTabled, seat=seat, cards=(text[:2], text[2:]))
    return hand.end()


def test_the_big_blind_posts_his_real_chips_as_pokerkit_does() -> None:
    hand = short_blind_hand()
    assert hand.bets() == {1: 100, 2: 150, 3: 0, 4: 0}
    assert hand.engine.snapshot().stacks[2] == 0 and hand.engine.snapshot().all_in == (2,)


def test_a_call_over_a_short_big_blind_is_booked_at_the_full_blind() -> None:
    hand = short_blind_hand()
    assert hand.engine.hand.state.checking_or_calling_amount == 150  # pokerkit alone: call the 150 posted
    hand.act(3, "cc")  # 200 in chips, as the TDA requires
    assert hand.bets()[3] == 200
    assert any("called 200" in note and "books 150" in note for note in hand.engine.hand.notes)
    # from here pokerkit's own figures agree with the TDA's: call 200, raise to at least 400
    state, view = hand.engine.hand.state, hand.view(4)
    assert (view.to_call, view.min_raise_to) == (200, 400)
    assert (state.checking_or_calling_amount, state.min_completion_betting_or_raising_to_amount) == (200, 400)
    hand.act(4, "cc")
    hand.act(1, "cc")
    assert hand.engine.hand.state.total_pot_amount == 750  # 150 + 3 x 200: the round is over, the bets are in


def test_short_big_blind_wins_the_main_pot_the_others_the_side_pot() -> None:
    hand = short_blind_hand()
    for seat in (3, 4, 1):
        hand.act(seat, "cc")
    done = check_down(hand, (1, 3, 4), CARDS)
    # main pot 4 x 150 = 600 to the aces (as pokerkit has it); side pot 3 x 50 = 150 to the kings
    assert done.final_stacks == {1: 4800, 2: 600, 3: 4950, 4: 4800}
    assert [p.amounts for p in done.pushes] == [((2, 600),), ((3, 150),)]
    assert sum(done.final_stacks.values()) == 15_150


def test_pokerkit_alone_agrees_on_the_main_pot_not_on_the_calls() -> None:
    """The same hand on pokerkit alone (everyone "calls"): the big blind's 600 is the same, but every call is
    150 and there is no side pot — the 150 the kings win above is left in the callers' stacks."""
    text = "\n".join([
        "variant = 'NT'", "antes = [0, 0, 0, 0]", "blinds_or_straddles = [100, 200, 0, 0]", "min_bet = 200",
        "starting_stacks = [5000, 150, 5000, 5000]",
        "actions = ['d dh p1 JsJh', 'd dh p2 AsAh', 'd dh p3 KsKh', 'd dh p4 QsQh', 'p3 cc', 'p4 cc', 'p1 cc',",
        "'d db 2c7d9h', 'p1 cc', 'p3 cc', 'p4 cc', 'd db 3s', 'p1 cc', 'p3 cc', 'p4 cc', 'd db 4d',",
        "'p1 cc', 'p3 cc', 'p4 cc', 'p1 sm JsJh', 'p2 sm AsAh', 'p3 sm KsKh', 'p4 sm QsQh']",
    ])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        *_, state = HandHistory.loads(text)
    assert list(state.stacks) == [4850, 600, 4850, 4850]


def test_the_written_phh_keeps_tablewatchs_result_and_says_why_pokerkit_differs() -> None:
    hand = short_blind_hand()
    for seat in (3, 4, 1):
        hand.act(seat, "cc")
    done = check_down(hand, (1, 3, 4), CARDS)
    text = dumps_phh([done])
    assert "finishing_stacks = [4800, 600, 4950, 4800]" in text and "books 150" in text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        *_, state = HandHistory.loads(text)  # pokerkit loads it; its replay books 150 calls (Appendix C)
    assert list(state.stacks) == [4850, 600, 4850, 4850]


def test_the_extra_over_a_short_blind_comes_back_when_nobody_else_calls() -> None:
    hand = Hand(NL_100_200, {1: 5000, 2: 150, 3: 5000}, cards={1: "JsJh", 2: "AsAh", 3: "KsKh"}, button=3)
    hand.act(3, "cc")  # the button calls 200
    hand.act(1, "f")  # the small blind folds: the button's 50 above the all-in is uncalled
    for street in (BOARD[:3], BOARD[3:4], BOARD[4:]):
        hand.board(*street)
    hand.feed(CardsTabled, seat=2, cards=("As", "Ah"))
    hand.feed(CardsTabled, seat=3, cards=("Ks", "Kh"))
    done = hand.end()
    assert done.final_stacks == {1: 4900, 2: 400, 3: 4850}  # 100 + 150 + 150 to the aces; 50 back to seat 3


def test_a_short_stack_calls_all_in_between_the_posted_and_the_full_blind() -> None:
    hand = Hand(NL_100_200, {1: 5000, 2: 150, 3: 180, 4: 5000}, button=4)
    hand.act(3, "cc")  # all-in for 180: more than the 150 posted, less than the 200 call
    assert hand.bets()[3] == 180 and hand.engine.hand.state.stacks[hand.engine.hand.index[3]] == 0
    assert hand.view(4).to_call == 200


def test_ex_20_pot_limit_counts_the_short_blind_in_full_all_preflop() -> None:
    config = GameConfig(variant=Variant.PLHE, small_blind=50, big_blind=100)
    hand = Hand(config, {1: 5000, 2: 75, 3: 5000, 4: 5000}, button=4)
    assert hand.view(3).max_raise_to == 350  # EX-20
    hand.act(3, "cc")
    assert hand.bets()[3] == 100
    # pot counted 50 + 100 + 100 = 250 (the real chips are 225), call 100 → raise to 100 + 350 = 450
    assert hand.view(4).max_raise_to == 450
    hand.act(4, "cc")
    hand.act(1, "cc")
    hand.board("2c", "7d", "9h")
    assert hand.view(1).max_raise_to == 375  # postflop: the real pot, 100 + 75 + 100 + 100


def test_heads_up_the_short_big_blind_is_called_as_posted() -> None:
    hand = Hand(NL_100_200, {1: 150, 2: 5000}, button=2)  # HOUSE-002-2.3.2: the exception is heads-up
    assert hand.view(2).to_call == 50


def test_fixed_limit_raise_over_a_short_big_blind_is_from_the_full_blind() -> None:
    """pokerkit raises from the chips posted (60 + 100 = 160); the TDA from the full blind (100 + 100)."""
    config = GameConfig(variant=Variant.FLHE, small_blind=50, big_blind=100, small_bet=100, big_bet=200)
    hand = Hand(config, {1: 5000, 2: 60, 3: 5000, 4: 5000}, button=4)
    assert hand.engine.hand.state.min_completion_betting_or_raising_to_amount == 160
    assert (hand.view(3).min_raise_to, hand.view(3).max_raise_to) == (200, 200)
    hand.act(3, "cbr 200")
    assert hand.engine.hand.actions[-1].amount == 200 and hand.bets()[3] == 200  # on pokerkit's ledger too
    view, state = hand.view(4), hand.engine.hand.state
    assert view.min_raise_to == state.min_completion_betting_or_raising_to_amount == 300


def test_ex_20_a_pot_raise_over_a_short_big_blind_is_booked_in_full() -> None:
    config = GameConfig(variant=Variant.PLHE, small_blind=50, big_blind=100)
    hand = Hand(config, {1: 5000, 2: 75, 3: 5000, 4: 5000}, button=4)
    assert hand.engine.hand.state.max_completion_betting_or_raising_to_amount == 275  # pokerkit: the chips posted
    hand.act(3, "cbr 350")
    assert hand.engine.hand.actions[-1].amount == 350 and hand.bets()[3] == 350
    # the next minimum raise: 350 + the raise of 250 over the full blind, as pokerkit now has it too
    assert hand.view(4).min_raise_to == hand.engine.hand.state.min_completion_betting_or_raising_to_amount == 600


def test_no_limit_the_raise_over_a_short_big_blind_sets_the_increment_from_the_full_blind() -> None:
    hand = Hand(NL_100_200, {1: 5000, 2: 150, 3: 5000, 4: 5000}, button=4)
    hand.act(3, "cbr 400")  # a raise of 200 over the full blind (pokerkit: 250 over the 150 posted)
    assert hand.view(4).min_raise_to == hand.engine.hand.state.min_completion_betting_or_raising_to_amount == 600
    hand.act(4, "cbr 600")
    assert hand.engine.hand.actions[-1].amount == 600 and hand.bets()[4] == 600
