"""The showdown and the end of the betting as the floor rules them: catalogue §3 examples EX-8, EX-26, EX-27
(who may see a hand, C12), EX-84, EX-86, EX-90, EX-91 (the engine) and EX-96 (NUTS_NOT_BET)."""

from __future__ import annotations

import pytest

from tablewatch.events import BetMotion, CardsMucked, CardsTabled, Chips, Severity
from tablewatch.rules.checks.conduct import NutsNotBetCheck
from tablewatch.rules.game import GameConfig
from tablewatch.rules.profiles import RuleProfile, preset
from tablewatch.rules.showdown import holds_the_nuts, request_to_see
from tests.rules.engine_helpers import Hand

NL_100_200 = GameConfig(small_blind=100, big_blind=200)


def check_to_river(hand: Hand, order: tuple[int, ...], board: str, *, preflop: tuple[int, ...]) -> None:
    """Everyone calls the big blind preflop, then checks the flop and the turn; the river is dealt."""
    for seat in preflop:
        hand.act(seat, "cc")
    cards = [board[i:i + 2] for i in range(0, 10, 2)]
    hand.board(*cards[:3])
    for street_card in cards[3:]:
        for seat in order:
            hand.act(seat, "cc")
        hand.board(street_card)


def table(hand: Hand, seat: int, cards: str) -> None:
    hand.feed(CardsTabled, seat=seat, cards=(cards[:2], cards[2:]))


# --- EX-8: the club exception, the river aggressor mucks after being called (001 TDA-7, C12) ---------------

A_CARDS, B_CARDS = "KsKd", "QsQd"  # A's kings beat B's queens on this board
EX8_BOARD = "2c7d9hJc3s"


def ex8_hand(profile: RuleProfile, *, b_cards: str = B_CARDS) -> Hand:
    """Heads-up: A (seat 1) bets 10,000 on the river, B (seat 2) calls; A throws his cards in face down."""
    hand = Hand(NL_100_200, {1: 50_000, 2: 50_000}, button=2, profile=profile, cards={1: A_CARDS, 2: b_cards})
    check_to_river(hand, (1, 2), EX8_BOARD, preflop=(2, 1))
    hand.act(1, "cbr 10000")
    hand.act(2, "cc")
    hand.feed(CardsMucked, seat=1)
    return hand


def test_ex_8_club_the_caller_asks_and_must_show_a_better_hand() -> None:
    hand = ex8_hand(preset("club-001"))
    assert [v.rule_id for v in hand.found] == ["TDA-7-exception"] and hand.found[0].severity == Severity.ADVISORY
    table(hand, 1, A_CARDS)  # B asked: the dealer turns A's cards over
    table(hand, 2, B_CARDS)  # B's queens do not beat A's kings: A wins
    assert hand.end().final_stacks == {1: 60_200, 2: 39_800}


def test_ex_8_club_the_caller_asks_then_does_not_show_so_a_wins() -> None:
    hand = ex8_hand(preset("club-001"))
    table(hand, 1, A_CARDS)
    hand.feed(CardsMucked, seat=2)
    assert hand.end().final_stacks == {1: 60_200, 2: 39_800}


def test_ex_8_club_a_better_hand_shown_by_the_caller_wins() -> None:
    hand = ex8_hand(preset("club-001"), b_cards="9s9d")  # a set of nines beats the kings
    table(hand, 1, A_CARDS)
    table(hand, 2, "9s9d")
    assert hand.end().final_stacks == {1: 39_800, 2: 60_200}


def test_ex_8_club_if_the_caller_does_not_ask_a_has_no_claim() -> None:
    hand = ex8_hand(preset("club-001"))
    assert hand.end().final_stacks == {1: 39_800, 2: 60_200}


def test_ex_8_tda_the_mucked_hand_is_dead_whatever_is_turned_over() -> None:
    hand = ex8_hand(RuleProfile())
    table(hand, 1, A_CARDS)  # too late: the muck was final and B's was the last live hand
    table(hand, 2, B_CARDS)
    done = hand.end()
    assert done.final_stacks == {1: 39_800, 2: 60_200} and not done.violations


# --- EX-26, EX-27: asking to see a hand (TDA-11) ------------------------------------------------------------

def test_ex_26_no_bet_on_the_river_only_the_td_may_let_a_hand_be_seen() -> None:
    hand = Hand(NL_100_200, dict.fromkeys((1, 2, 3), 10_000), button=3,
                cards={1: "4c5c", 2: "9s9d", 3: "KhQh"})
    check_to_river(hand, (1, 2, 3), "9c2d7hJs3s", preflop=(3, 1, 2))
    for seat in (1, 2, 3):
        hand.act(seat, "cc")
    hand.feed(CardsMucked, seat=1)  # A mucks unseen
    table(hand, 2, "9s9d")  # B shows trips
    hand.feed(CardsMucked, seat=3)  # C mucks unseen
    engine = hand.engine
    assert request_to_see(engine, 2, 3).verdict == "discretion"  # no bet: B did not pay to see
    assert request_to_see(engine, 1, 2).verdict == "none"  # A neither showed nor kept his cards
    assert request_to_see(engine, 3, 1).verdict == "none"
    assert hand.end().final_stacks[2] == 10_400


def ex27_hand(profile: RuleProfile) -> Hand:
    """Four players; river: A bets 1000, B calls, C raises to 5000, D, A and B call; B shows trips, D and C
    muck unseen."""
    hand = Hand(NL_100_200, dict.fromkeys((1, 2, 3, 4), 20_000), button=4, profile=profile,
                cards={1: "AhKd", 2: "9s9d", 3: "4c5c", 4: "QhQd"})
    check_to_river(hand, (1, 2, 3, 4), "9c2d7hJs3s", preflop=(3, 4, 1, 2))
    hand.act(1, "cbr 1000")
    hand.act(2, "cc")
    hand.act(3, "cbr 5000")
    for seat in (4, 1, 2):
        hand.act(seat, "cc")
    table(hand, 2, "9s9d")
    hand.feed(CardsMucked, seat=4)
    hand.feed(CardsMucked, seat=3)
    return hand


def test_ex_27_callers_who_kept_their_cards_may_see_the_last_raisers_hand() -> None:
    engine = ex27_hand(RuleProfile()).engine
    assert engine.river_aggressor() == (3, (4, 1, 2))
    assert request_to_see(engine, 1, 3).verdict == "right"  # A holds his cards and paid to see C
    assert request_to_see(engine, 2, 3).verdict == "right"  # B tabled his
    assert request_to_see(engine, 4, 3).verdict == "none"  # D gave up his right by mucking
    assert request_to_see(engine, 2, 1).verdict == "discretion"  # another caller: the TD decides


def test_ex_27_no_paid_to_see_right_in_cash() -> None:
    engine = ex27_hand(preset("house-cash")).engine
    assert request_to_see(engine, 1, 3).verdict == "discretion"


def test_ex_27_a_request_names_seats_of_the_hand() -> None:
    engine = ex27_hand(RuleProfile()).engine
    with pytest.raises(ValueError, match="Seat 7 was not dealt in"):
        request_to_see(engine, 7, 3)
    with pytest.raises(ValueError, match="his own hand"):
        request_to_see(engine, 3, 3)


# --- EX-84, EX-86, EX-90, EX-91: the engine -----------------------------------------------------------------

def test_ex_84_heads_up_all_in_on_the_turn_no_more_betting_river_decides() -> None:
    hand = Hand(NL_100_200, {1: 5000, 2: 5000}, button=2, cards={1: "AhAd", 2: "Ks9s"})
    for seat in (2, 1):
        hand.act(seat, "cc")
    hand.board("2c", "7d", "9h")
    for seat in (1, 2):
        hand.act(seat, "cc")
    hand.board("Jc")
    hand.act(1, "cbr 4800")  # the rest of the chips
    hand.act(2, "cc")
    assert hand.engine.to_act() is None and hand.engine.snapshot().all_in == (1, 2)
    booked = list(hand.engine.hand.actions)
    hand.feed(BetMotion, seat=2, chips=Chips.of({1000: 1}))  # chips cannot be added now: nothing is booked
    assert hand.engine.hand.actions == booked
    table(hand, 1, "AhAd")
    table(hand, 2, "Ks9s")
    hand.board("9c")  # the river gives seat 2 trips: the stronger hand wins
    assert hand.end().final_stacks == {1: 0, 2: 10_000}


def test_ex_86_an_all_in_player_uses_all_five_board_cards() -> None:
    hand = Hand(NL_100_200, {1: 1000, 2: 10_000}, button=2, cards={1: "5s6s", 2: "AsAd"})
    for seat in (2, 1):
        hand.act(seat, "cc")
    hand.board("Kh", "7c", "2d")
    hand.act(1, "cbr 800")  # all-in on the flop; no more decisions for seat 1
    hand.act(2, "cc")
    table(hand, 1, "5s6s")
    table(hand, 2, "AsAd")
    hand.board("8d")
    hand.board("9c")  # 5-6-7-8-9: the turn and the river make seat 1's straight
    assert hand.end().final_stacks == {1: 2000, 2: 9000}


def heads_up_showdown(cards_1: str, cards_2: str, board: str) -> dict[int, int]:
    hand = Hand(NL_100_200, {1: 10_000, 2: 10_000}, button=2, cards={1: cards_1, 2: cards_2})
    check_to_river(hand, (1, 2), board, preflop=(2, 1))
    for seat in (1, 2):
        hand.act(seat, "cc")
    table(hand, 1, cards_1)
    table(hand, 2, cards_2)
    return hand.end().winnings


@pytest.mark.parametrize(("cards_1", "cards_2", "board", "winner"), [
    ("Ah2c", "KsKd", "3d4s5hKc9d", 1),  # A-2-3-4-5: the ace low makes a straight, beating trips
    ("AhKd", "9c8c", "QcJsTh4d2s", 1),  # 10-J-Q-K-A beats the queen-high straight
    ("Ah2c", "7s4d", "QdKs3h7c9d", 2),  # Q-K-A-2-3 is no straight: a pair of sevens beats ace high
])
def test_ex_90_the_ace_is_first_or_last_in_a_straight_never_in_the_middle(
        cards_1: str, cards_2: str, board: str, winner: int) -> None:
    assert heads_up_showdown(cards_1, cards_2, board)[winner] == 200


def test_ex_91_betting_goes_on_until_everyone_has_called_the_raise() -> None:
    hand = Hand(NL_100_200, dict.fromkeys(range(1, 6), 10_000), button=5)
    hand.act(3, "cc")
    hand.act(4, "cc")  # two players called the big blind
    hand.act(5, "cbr 600")  # then another raised
    hand.act(1, "f")
    hand.act(2, "cc")
    snap = hand.engine.snapshot()
    assert (snap.phase, snap.to_act, snap.betting_complete) == ("preflop", 3, False)  # no new round yet
    hand.act(3, "cc")
    assert hand.engine.to_act() == 4
    hand.act(4, "cc")
    snap = hand.engine.snapshot()
    assert snap.to_act is None and snap.betting_complete and snap.pot == 100 + 4 * 600


# --- EX-96: the live-tournament "call with the nuts" rule (NUTS_NOT_BET) ------------------------------------

NUTS_BOARD = "As2d7c8hJs"  # the seed gives no suits for the 7 and the 8
NUTS = "9sTh"  # 7-8-9-10-J: no pair, no three of a suit on the board, so the nut straight


def nuts_hand(profile: RuleProfile, seats: tuple[int, ...], cards: dict[int, str]) -> Hand:
    stacks = dict.fromkeys(seats, 20_000)
    hand = Hand(NL_100_200, stacks, button=seats[-1], profile=profile, cards=cards,
                checks=[NutsNotBetCheck(profile)])
    preflop = seats[2:] + seats[:2] if len(seats) > 2 else (seats[1], seats[0])
    check_to_river(hand, seats, NUTS_BOARD, preflop=preflop)
    return hand


def showdown(hand: Hand, cards: dict[int, str]) -> list[str]:
    for seat, hole in cards.items():
        table(hand, seat, hole)
    hand.end()
    return [v.title for v in hand.found]


LIVE = RuleProfile(nuts_last_to_act_must_bet=True)


def test_ex_96_holding_the_nuts_last_to_act_a_call_is_logged() -> None:
    cards = {1: "AhKd", 2: NUTS}
    hand = nuts_hand(LIVE, (1, 2), cards)
    hand.act(1, "cbr 1000")
    hand.act(2, "cc")  # last to act: he must bet or raise
    assert showdown(hand, cards) == ["NUTS_NOT_BET"]
    assert hand.found[0].rule_id == "TDA-54" and hand.found[0].seats == (2,)
    assert hand.found[0].severity == Severity.ADVISORY  # LOG for the floor's review


def test_ex_96_checking_the_nuts_behind_is_logged() -> None:
    cards = {1: "AhKd", 2: NUTS}
    hand = nuts_hand(LIVE, (1, 2), cards)
    hand.act(1, "cc")
    hand.act(2, "cc")
    assert showdown(hand, cards) == ["NUTS_NOT_BET"]


@pytest.mark.parametrize("why", ["raised", "not last", "not the nuts", "tda"])
def test_ex_96_nothing_to_log(why: str) -> None:
    profile = RuleProfile() if why == "tda" else LIVE
    if why == "not last":  # seat 2 calls with the nuts, seat 3 still to act: he may call
        cards = {1: "AhKd", 2: NUTS, 3: "JdJc"}
        hand = nuts_hand(profile, (1, 2, 3), cards)
        for seat, action in ((1, "cbr 1000"), (2, "cc"), (3, "cc")):
            hand.act(seat, action)
    else:
        cards = {1: "AhKd", 2: "9d9c" if why == "not the nuts" else NUTS}
        hand = nuts_hand(profile, (1, 2), cards)
        hand.act(1, "cbr 1000")
        if why == "raised":
            hand.act(2, "cbr 3000")
        hand.act(2 if why != "raised" else 1, "cc")
    assert showdown(hand, cards) == []


@pytest.mark.parametrize(("hole", "board", "nuts"), [
    ("9sTh", NUTS_BOARD, True),  # the seed's hand
    ("JdJc", NUTS_BOARD, False),  # a set loses to 9-10
    ("9sTh2c2h", NUTS_BOARD, True),  # Omaha: 9-10 from the hand, 7-8-J from the board
    ("KsQs", "As2s7s8hJd", True),  # the best flush: no straight flush can be made
    ("Qs3s", "As2s7s8hJd", False),  # the king of spades is out there
])
def test_ex_96_the_nuts(hole: str, board: str, nuts: bool) -> None:
    split = [hole[i:i + 2] for i in range(0, len(hole), 2)]
    assert holds_the_nuts(split, [board[i:i + 2] for i in range(0, 10, 2)]) is nuts


def test_ex_96_the_nuts_need_distinct_cards_and_a_full_board() -> None:
    with pytest.raises(ValueError, match="Not distinct"):
        holds_the_nuts(("Js", "Jd"), ("As", "2d", "7c", "8h", "Js"))
    with pytest.raises(ValueError, match="complete board"):
        holds_the_nuts(("9s", "Th"), ("As", "2d", "7c", "8h"))
