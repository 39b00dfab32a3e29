"""All-in showdown (TDA-9; EX-23, EX-24, EX-25, EX-102), a hand tabled to win (TDA-6A), pot awards (TDA-5) and
side pot first (TDA22-21)."""

from __future__ import annotations

import pytest

from tablewatch.events import CardExposed, CardsMucked, CardsTabled, Chips, HandEnded, PotPushed, Severity
from tablewatch.rules.checks.awards import PotAwardCheck, SidePotOrderCheck
from tablewatch.rules.checks.showdown import AllInShowdownCheck, TabledToWinCheck
from tablewatch.rules.profiles import RuleProfile
from tests.rules.test_procedures_helpers import Script, ids


def check() -> AllInShowdownCheck:
    return AllInShowdownCheck(RuleProfile())


def test_ex_23_heads_up_all_in_on_the_turn_both_hands_up_before_the_river() -> None:
    s = Script(check(), seats=(1, 2), phase="turn", stacks={1: 0, 2: 4000}, all_in=(1,))
    s.complete()  # A all-in, B called: betting is finished
    s.do(CardsTabled, seat=1, cards=("As", "Ks"))
    s.do(CardsTabled, seat=2, cards=("Qd", "Qc"))
    s.burn()
    s.board(4)
    assert s.found == []


def test_ex_23_run_out_with_a_hand_still_face_down() -> None:
    s = Script(check(), seats=(1, 2), phase="turn", stacks={1: 0, 2: 4000}, all_in=(1,))
    s.complete()
    s.do(CardsTabled, seat=1, cards=("As", "Ks"))
    (v,) = s.burn()
    assert v.rule_id == "TDA-9" and v.seats == (2,) and "before the rest of the board" in v.ruling


def test_ex_24_no_exposure_while_the_callers_can_still_bet_then_all_at_once() -> None:
    s = Script(check(), phase="preflop", stacks={1: 0, 2: 5000, 3: 5000}, all_in=(1,))
    s.complete()  # A all-in preflop, B and C call: B and C can still bet, nobody shows
    s.burn()
    s.board(0, 1, 2)
    s.street("flop", to_act=2)
    s.check(2)
    s.set(to_act=3)
    s.check(3)
    s.complete()
    s.burn()
    s.board(3)
    assert s.found == []
    s.set(phase="turn", stacks={1: 0, 2: 0, 3: 2000}, all_in=(1, 2))  # B all-in on the turn, C calls
    s.complete()
    for seat in (1, 2, 3):
        s.do(CardsTabled, seat=seat, cards=("2c", "3c"))
    s.burn()
    s.board(4)
    assert s.found == []


def test_ex_25_river_checked_all_three_hands_shown_before_the_side_pot() -> None:
    s = Script(check(), phase="showdown", stacks={1: 0, 2: 3000, 3: 3000}, all_in=(1,))
    s.complete()  # B and C check the river: A, B and C all expose
    s.do(CardsTabled, seat=2, cards=("Ah", "Kh"))
    s.do(CardsTabled, seat=3, cards=("2h", "2d"))
    (v,) = s.do(PotPushed, seat=2, value=2000)  # the side pot decided while A is still face down
    assert v.rule_id == "TDA-9" and v.seats == (1,) and "nor for the side pots" in v.ruling


def test_ex_102_all_in_and_call_the_loser_may_not_muck_face_down() -> None:
    s = Script(check(), seats=(1, 2), phase="showdown", stacks={1: 0, 2: 800}, all_in=(1,))
    s.complete()
    s.do(CardsTabled, seat=2, cards=("Ah", "Ad"))
    (v,) = s.do(CardsMucked, seat=1)
    assert v.title == "All-in hand mucked without showing" and "both hands are opened" in v.ruling


def test_tda_9_the_latch_survives_the_engine_completing_the_hand() -> None:
    s = Script(check(), seats=(1, 2), phase="showdown", stacks={1: 0, 2: 800}, all_in=(1,))
    s.complete()
    s.do(CardsTabled, seat=2, cards=("Ah", "Ad"))
    s.set(phase="complete", all_in=(), stacks={1: 0, 2: 2800})  # pokerkit has pushed its chips
    assert ids(s.do(PotPushed, seat=2, value=2000)) == ["TDA-9"]


def awards(expected: dict[int, int], pushes: list[tuple[int, int | None]], **fields: object) -> Script:
    s = Script([PotAwardCheck(RuleProfile()), SidePotOrderCheck(RuleProfile())], **fields)
    s.set(phase="complete", expected_awards=expected)
    for seat, value in pushes:
        s.do(PotPushed, seat=seat, value=value)
    s.do(HandEnded, hand_no=1)
    return s


@pytest.mark.parametrize(
    ("pushes", "expected"),
    [
        ([(2, 1500)], []),
        ([(2, 1000), (2, 500)], []),  # pushed in two parts
        ([(3, 1500)], ["TDA-5", "TDA-5"]),  # the wrong player, and seat 2 never paid
        ([(2, 1600)], ["TDA-5"]),  # too much
        ([(2, 1400)], ["TDA-5"]),  # too little
        ([(2, None)], []),  # a push whose value was not read: only the recipient is judged
    ],
)
def test_tda_5_misaward(pushes: list[tuple[int, int | None]], expected: list[str]) -> None:
    s = awards({2: 1500}, pushes)
    assert ids(s.found) == expected
    if expected:
        assert "TDA-13" in s.found[0].ruling and "next hand" in s.found[0].ruling


def test_tda_5_push_judged_once_the_awards_are_known() -> None:
    s = Script(PotAwardCheck(RuleProfile()), phase="showdown")
    assert s.do(PotPushed, seat=3, value=900) == []  # the engine does not know the awards yet
    s.set(phase="complete", expected_awards={1: 900})
    assert ids(s.do(PotPushed, seat=1, value=900)) == ["TDA-5"]  # the earlier push to seat 3 is judged now


def test_tda_5_a_hand_is_judged_by_its_own_awards_not_the_last_hands() -> None:
    """Hand 16 ended with seat 1 owed 1,000; hand 17 goes to a showdown whose cards no camera saw, so the engine
    never knows its awards: its push to seat 5 is not judged against hand 16's."""
    s = Script([PotAwardCheck(RuleProfile()), SidePotOrderCheck(RuleProfile())], hand_no=16, phase="complete",
               expected_awards={1: 1000}, seats=(1, 3, 5))
    s.start(hand_no=17, seats=(3, 5), button=3)
    s.set(phase="showdown", expected_awards={})
    assert s.do(PotPushed, seat=5, value=2500) == []
    assert s.do(HandEnded, hand_no=17) == []


def test_tda5_chips_value_used_when_no_value() -> None:
    s = Script(PotAwardCheck(RuleProfile()), phase="complete", expected_awards={1: 600})
    assert ids(s.do(PotPushed, seat=1, chips=Chips.of({500: 1, 100: 2}))) == ["TDA-5"]


@pytest.mark.parametrize(
    ("pushes", "expected"),
    [
        ([(2, 2000), (1, 2100)], []),  # EX-25: the side pot (B) first, then the main pot (A)
        ([(1, 2100), (2, 2000)], ["TDA22-21"]),  # main pot first
    ],
)
def test_ex_25_side_pot_first(pushes: list[tuple[int, int]], expected: list[str]) -> None:
    s = Script([SidePotOrderCheck(RuleProfile())])
    s.start(stacks=(700, 5000, 5000))  # A all-in for 700; B and C bet 1000 more on the turn
    s.set(phase="river", all_in=(1,), stacks={1: 0, 2: 3300, 3: 3300})
    s.do(CardsTabled, seat=1, cards=("Ah", "Kh"))
    s.set(phase="complete", all_in=(), expected_awards={1: 2100, 2: 2000}, stacks={1: 2100, 2: 5300, 3: 3300})
    for seat, value in pushes:
        s.do(PotPushed, seat=seat, value=value)
    assert ids(s.found) == expected
    if expected:
        assert s.found[0].severity is Severity.ADVISORY and "side pots are settled" in s.found[0].ruling.lower()


@pytest.mark.parametrize("stacks", [(700, 5000, 5000), ()])
def test_tda22_21_a_split_main_pot_has_no_order(stacks: tuple[int, ...]) -> None:
    # A all-in for 700 and B's call tie: one pot split two ways, no side pot (a real hand: ps_1000nl #5).
    s = Script([SidePotOrderCheck(RuleProfile())])
    s.start(stacks=stacks)
    s.set(phase="river", all_in=(1,), stacks={1: 0, 2: 4300, 3: 4950})
    s.do(CardsTabled, seat=1, cards=("Ah", "Kh"))
    s.set(phase="complete", all_in=(), expected_awards={1: 725, 2: 725})
    s.do(PotPushed, seat=1, value=725)
    s.do(PotPushed, seat=2, value=725)
    assert s.found == []


def test_tda22_21_two_all_ins_the_smaller_one_is_paid_last() -> None:
    s = Script([SidePotOrderCheck(RuleProfile())])
    s.start(stacks=(700, 1500, 5000))
    s.set(phase="river", all_in=(1, 2), stacks={1: 0, 2: 0, 3: 3500})
    s.do(CardsTabled, seat=1, cards=("Ah", "Kh"))
    s.set(phase="complete", all_in=(), expected_awards={1: 2100, 2: 1600})
    s.do(PotPushed, seat=1, value=2100)  # main pot before seat 2's side pot
    assert ids(s.found) == ["TDA22-21"]


@pytest.mark.parametrize(
    ("showdown", "expected"),
    [
        ([("table", 2), ("table", 3)], []),
        ([("table", 3), ("muck", 2)], []),  # seat 2 mucked: seat 3 is the last live hand
        ([("muck", 3)], []),  # the last live hand wins without showing
        ([("table", 3)], ["TDA-6A"]),  # seat 2 is pushed the pot with its cards face down, seat 3 still live
        ([("expose", 2), ("table", 3)], ["TDA-6A"]),  # only one card shown (TDA-8A)
    ],
)
def test_tda_6a_a_hand_must_be_tabled_to_win(showdown: list[tuple[str, int]], expected: list[str]) -> None:
    s = Script(TabledToWinCheck(RuleProfile()), phase="river", active=(2, 3), seats=(1, 2, 3))
    s.complete()
    for what, seat in showdown:
        if what == "table":
            s.do(CardsTabled, seat=seat, cards=("Ah", "Kh"))
        elif what == "expose":
            s.do(CardExposed, seat=seat, card="Ah")
        else:
            s.do(CardsMucked, seat=seat)
    s.set(phase="complete", active=())
    s.do(PotPushed, seat=2, value=900)
    assert ids(s.found) == expected
