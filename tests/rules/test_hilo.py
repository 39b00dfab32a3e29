"""High/low split pots (TDA-12, ENG-22): the catalogue's EX-92/93, the split rule, and Omaha/8 played through
the engine — against pokerkit where it is right, against the catalogue where it is not (Appendix C)."""

from __future__ import annotations

import warnings

import pokerkit
import pytest
from pokerkit import Automation, ChipsPushing, HandHistory

from tablewatch.events import CardsTabled
from tablewatch.hands import FinishedHand
from tablewatch.history.ohh import to_ohh
from tablewatch.history.phh import PhhExportError, dumps_phh
from tablewatch.rules.game import GameConfig, Variant
from tablewatch.rules.hilo import share, split_hi_lo, with_hi_lo_award
from tests.rules.engine_helpers import Hand

HUNDREDS = (100, 500, 1000, 5000)  # the smallest chip in play is 100: the odd-chip unit
PLO8 = GameConfig(variant=Variant.PLO8, small_blind=100, big_blind=200, chip_denominations=HUNDREDS)
FLO8 = GameConfig(variant=Variant.FLO8, small_blind=100, big_blind=200, small_bet=200, chip_denominations=HUNDREDS)
# EX-92: both make 2-3-4-5-6 high and low; A's six is the spade, B's the club
TWO_WHEELS_TO_SIX = {1: "5h6sJcJd", 2: "5d6cThTs"}
BOARD = ("2h", "3d", "4c", "Kd", "Qs")


def chip_divmod(amount: int, ways: int) -> tuple[int, int]:
    return PLO8.chip_divmod(amount, ways)


def show_down(hand: Hand, cards: dict[int, str]) -> FinishedHand:
    for seat, text in cards.items():
        hand.feed(CardsTabled, seat=seat, cards=tuple(text[i:i + 2] for i in range(0, len(text), 2)))
    return hand.end()


def ex_92_hand() -> FinishedHand:
    """Heads-up PLO/8, 3300 each, all in on the flop: a 6600 pot of 66 chips of 100."""
    hand = Hand(PLO8, {1: 3300, 2: 3300}, cards=TWO_WHEELS_TO_SIX, button=2)
    hand.act(2, "cbr 600")  # the button (small blind) pots it
    hand.act(1, "cbr 1800")
    hand.act(2, "cc")
    hand.board(*BOARD[:3])
    hand.act(1, "cbr 1500")  # all-in
    hand.act(2, "cc")
    hand.board(BOARD[3])
    hand.board(BOARD[4])
    return show_down(hand, TWO_WHEELS_TO_SIX)


def test_ex_92_omaha_hi_lo_identical_hands_split_66_chips_33_33() -> None:
    done = ex_92_hand()
    assert done.final_stacks == {1: 3300, 2: 3300}  # TDA-12D: as evenly as possible, not 34/32
    assert [push.amounts for push in done.pushes] == [((1, 3300), (2, 3300))]
    assert not done.unawarded


def test_ex_92_ohh_says_omaha_hi_lo_and_phh_has_no_pot_limit_code() -> None:
    done = ex_92_hand()
    ohh = to_ohh(done)["ohh"]
    assert ohh["game_type"] == "OmahaHiLo" and ohh["bet_limit"]["bet_type"] == "PL"
    assert [w["win_amount"] for w in ohh["pots"][0]["player_wins"]] == [3300, 3300]
    with pytest.raises(PhhExportError, match="no variant code for PLO8"):
        dumps_phh([done])


def test_ex_92_pokerkit_alone_gives_the_first_player_both_odd_chips() -> None:
    """The same hand on pokerkit's own split (Appendix C): 34/32 — why tablewatch owns the award."""
    plain = type("PlainPLO8", (pokerkit.PotLimitPokerMixin, pokerkit.OmahaHoldemMixin, pokerkit.UnfixedLimitHoldem),
                 {"hand_types": (pokerkit.OmahaHoldemHand, pokerkit.OmahaEightOrBetterLowHand)})
    done = ex_92_hand()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        game = plain(done.game.automations, False, done.game.raw_antes, done.game.raw_blinds_or_straddles, 200,
                     divmod=chip_divmod, mode=pokerkit.Mode.CASH_GAME)
        state = game((3300, 3300), 2)
        for op in done.state.operations:  # the engine's own hand, replayed on pokerkit's split
            _redo(state, op)
    assert list(state.stacks) == [3400, 3200]
    assert list(done.state.stacks) == [3300, 3300]


def _redo(state: pokerkit.State, op: object) -> None:
    if isinstance(op, pokerkit.HoleDealing):
        state.deal_hole(op.cards)
    elif isinstance(op, pokerkit.CardBurning):
        state.burn_card(op.card)
    elif isinstance(op, pokerkit.BoardDealing):
        state.deal_board(op.cards)
    elif isinstance(op, pokerkit.CheckingOrCalling):
        state.check_or_call()
    elif isinstance(op, pokerkit.CompletionBettingOrRaisingTo):
        state.complete_bet_or_raise_to(op.amount)
    elif isinstance(op, pokerkit.HoleCardsShowingOrMucking):
        state.show_or_muck_hole_cards(op.hole_cards or False)


STUD_AUTOMATIONS = (
    Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
)


@pytest.mark.parametrize(("tda", "expected"), [(True, [3300, 3300]), (False, [3400, 3200])])
def test_ex_93_stud_hi_lo_identical_hands_split_33_33(tda: bool, expected: list[int]) -> None:
    """7-card stud/8 (not a monitored game: pokerkit's stud state with tablewatch's award): each antes his
    whole 3300, so the 66-chip pot is decided at the showdown; pokerkit alone splits it 34/32."""
    base = pokerkit.FixedLimitSevenCardStudHighLowSplitEightOrBetter
    cls = with_hi_lo_award(base) if tda else base
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = cls(STUD_AUTOMATIONS, False, 3300, 100, 200, 400, divmod=chip_divmod)((3300, 3300), 2)
        cards = ["2h3d4c5h6sKdQs", "2d3c4h5d6cKhQh"]  # 2-3-4-5-6 both ways; A's six is the spade
        dealt = [0, 0]
        while state.status and state.can_deal_hole():
            i = state.hole_dealee_index
            assert i is not None
            state.deal_hole(cards[i][2 * dealt[i]:2 * dealt[i] + 2])
            dealt[i] += 1
    assert not state.status and list(state.stacks) == expected


@pytest.mark.parametrize(
    ("amount", "high", "low", "expected"),
    [
        (6600, [0, 1], [0, 1], {0: 3300, 1: 3300}),  # EX-92/93: identical hands win both halves
        (6700, [0, 1], [1, 0], {0: 3400, 1: 3300}),  # ... an odd chip: the first left of the button
        (6700, [0], [1], {0: 3400, 1: 3300}),  # TDA-12C: the odd chip of the whole pot to the high half
        (6600, [0], [], {0: 6600}),  # no qualifying low: high scoops
        (6600, [0, 1], [1], {0: 1700, 1: 4900}),  # quartered: 3300 high split 17/16, 3300 low to 1
        (900, [2], [0, 1], {2: 500, 0: 200, 1: 200}),  # 9 chips: high 5; low 4 split 2/2
    ],
)
def test_split_hi_lo(amount: int, high: list[int], low: list[int], expected: dict[int, int]) -> None:
    awards = split_hi_lo(amount, high, low, chip_divmod)
    assert awards == expected and sum(awards.values()) == amount


def test_share_gives_the_odd_chips_to_the_first_winner() -> None:
    assert share(700, [3, 1], chip_divmod) == {3: 400, 1: 300}
    assert share(5, [0, 1, 2]) == {0: 3, 1: 1, 2: 1}
    assert share(100, []) == {}


def test_a_side_pot_without_a_qualifying_low_goes_to_the_high_hand_whole() -> None:
    """Seat 3 (all-in, short) has the only low; seats 1 and 2 fight the side pot with no low between them:
    seat 1's high takes all of it. pokerkit 0.7.7 would split that side pot's "low half" between 1 and 2."""
    cards = {1: "AhAdKsQc", 2: "JhJdTsTc", 3: "7s8c2d6d"}
    hand = Hand(PLO8, {1: 10_000, 2: 10_000, 3: 700}, cards=cards, button=3)
    hand.act(3, "cbr 700")  # all-in (the pot)
    hand.act(1, "cbr 2300")
    hand.act(2, "cc")
    hand.board("As", "4h", "5c")
    hand.act(1, "cbr 2000")
    hand.act(2, "cc")
    hand.board("9d")
    hand.act(1, "cc")
    hand.act(2, "cc")
    hand.board("Kh")
    hand.act(1, "cc")
    hand.act(2, "cc")
    done = show_down(hand, cards)
    # main pot 2100 (21 chips): high 1100 to seat 1 (trip aces; the odd chip goes high), low 1000 to seat 3
    # (6-5-4-2-A); side pot 7200 (3600 each from 1 and 2): no contender has a low, seat 1 scoops
    assert done.final_stacks == {1: 10_000 - 4300 + 1100 + 7200, 2: 5700, 3: 1000}


def test_flo8_bets_fixed_limit_and_caps_raises() -> None:
    hand = Hand(FLO8, dict.fromkeys(range(1, 5), 10_000))
    view = hand.view(3)
    assert (view.min_raise_to, view.max_raise_to) == (400, 400)
    hand.act(3, "cbr 400")
    hand.act(4, "cbr 600")
    hand.act(1, "cbr 800")
    assert not hand.view(2).can_raise  # bet + 3 raises (ENG-09)


def test_flo8_hand_is_written_as_fo8_phh_that_pokerkit_replays() -> None:
    cards = {1: "AhAdKsQc", 2: "JhJdTsTc", 3: "7s8c2d6d"}
    hand = Hand(FLO8, dict.fromkeys((1, 2, 3), 5000), cards=cards, button=3)
    hand.act(3, "cbr 400")
    hand.act(1, "cc")
    hand.act(2, "cc")
    hand.board("As", "4h", "5c")
    for seat in (1, 2, 3):
        hand.act(seat, "cc")
    hand.board("9d")
    for seat in (1, 2, 3):
        hand.act(seat, "cc")
    hand.board("Kh")
    for seat in (1, 2, 3):
        hand.act(seat, "cc")
    done = show_down(hand, cards)
    assert done.final_stacks == {1: 5200, 2: 4600, 3: 5200}  # 1200: high 600 to seat 1, low 600 to seat 3
    text = dumps_phh([done])
    assert "variant = 'FO/8'" in text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        *_, state = HandHistory.loads(text)
    assert list(state.stacks) == [5200, 4600, 5200]
    assert [op.amounts for op in state.operations if isinstance(op, ChipsPushing)]
