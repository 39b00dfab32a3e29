"""Cards exposed before the betting is over (TDA-53, conflict C5), presence at the table (TDA-20, TDA-21,
club TDA-63; EX-30, EX-121) and the club's consecutive all-ins (TDA-64; EX-31)."""

from __future__ import annotations

import pytest

from tablewatch.events import CardExposed, CardsMucked, CardsTabled, Declaration, PlayerPresence, Severity, Tap
from tablewatch.rules.checks.conduct import ConsecutiveAllInCheck
from tablewatch.rules.checks.exposure import ExposedCardCheck
from tablewatch.rules.checks.presence import AbsentAtDealCheck, LeftWithLiveHandCheck, LongAbsenceCheck
from tablewatch.rules.profiles import RuleProfile, preset
from tests.rules.test_procedures_helpers import Script, ids


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"phase": "flop", "to_act": 2, "bets": {1: 200}}, [("TDA-53", Severity.VIOLATION)]),  # facing 200
        ({"phase": "flop", "to_act": 2, "bets": {}}, [("TDA-53", Severity.ADVISORY)]),  # not facing a bet
        ({"phase": "preflop", "to_act": None, "betting_complete": True}, [("TDA-53", Severity.ADVISORY)]),
        # all-in called, no more betting possible: the hands must be shown (TDA-9), nothing to say
        ({"phase": "turn", "to_act": None, "betting_complete": True, "all_in": (1,), "stacks": {1: 0, 2: 0}}, []),
        # the turn's round over, the river to come: there is betting still (the river's own ends in "showdown")
        ({"phase": "river", "to_act": None, "betting_complete": True}, [("TDA-53", Severity.ADVISORY)]),
        ({"phase": "showdown"}, []),
        ({"phase": "flop", "to_act": 3, "bets": {1: 200}, "active": (1, 3)}, []),  # seat 2 has folded
    ],
)
def test_tda_53_exposed_card(fields: dict[str, object], expected: list[tuple[str, Severity]]) -> None:
    s = Script(ExposedCardCheck(RuleProfile()))
    s.set(**fields)
    s.do(CardExposed, seat=2, card="Ah")
    assert [(v.rule_id, v.severity) for v in s.found] == expected


@pytest.mark.parametrize(("profile", "rule_id", "words"), [
    (RuleProfile(), "TDA-53", "not dead"),
    (preset("house-cash"), "HOUSE-002-2.7.11", "dead"),
])
def test_c5_exposing_while_facing_a_bet_live_or_dead(profile: RuleProfile, rule_id: str, words: str) -> None:
    s = Script(ExposedCardCheck(profile), phase="turn", to_act=2, bets={3: 500})
    (v,) = s.do(CardExposed, seat=2, card="Kc")
    assert v.rule_id == rule_id and words in v.ruling and "facing a bet of 500" in v.observed


def test_tda_53_tabling_before_the_betting_is_over_counts_as_exposing() -> None:
    s = Script(ExposedCardCheck(RuleProfile()), phase="river", to_act=2, bets={1: 300})
    assert ids(s.do(CardsTabled, seat=2, cards=("Ah", "Ad"))) == ["TDA-53"]


def deal_with_presence(away: dict[int, float], *, back: dict[int, float] | None = None,
                       profile: RuleProfile | None = None) -> Script:
    """3 seats, button 1, the deal from t=10.2 to t=11.2 (the last card at 11.2)."""
    s = Script(AbsentAtDealCheck(profile or RuleProfile()))
    s.start()
    for seat, ts in away.items():
        s.at(ts - 1.0).do(PlayerPresence, seat=seat, present=False)
    s.at(10.0)
    s.deal()
    for seat, ts in (back or {}).items():
        s.at(ts - 1.0).do(PlayerPresence, seat=seat, present=True)
    return s


def test_ex_121_absent_at_the_last_card_hand_dead_and_mucked() -> None:
    s = deal_with_presence({3: 5.0})
    s.at(12.0)
    s.do(CardsMucked, dt=0.0, seat=3)  # the dealer mucks seat 3's cards right after the deal
    s.preflop(to_act=1)
    s.check(1)
    (v,) = s.found
    assert v.rule_id == "TDA-20" and v.seats == (3,) and v.severity is Severity.ADVISORY
    assert "dead" in v.ruling and "blinds" in v.ruling and "mucks it right after the deal" in v.ruling


def test_ex_121_he_comes_back_before_his_turn_and_still_cannot_play() -> None:
    s = deal_with_presence({3: 5.0}, back={3: 13.0})
    s.preflop(to_act=3)
    s.do(Declaration, seat=3, word="call")
    assert [(v.rule_id, v.title) for v in s.found] == [
        ("TDA-20", "Player away at the last card: dead hand"), ("TDA-20", "Dead hand played")]


def test_tda_20_dead_hand_not_mucked_before_the_betting() -> None:
    s = deal_with_presence({2: 5.0})
    s.preflop(to_act=1)
    s.check(1)
    assert [v.title for v in s.found] == ["Player away at the last card: dead hand", "Dead hand not mucked"]


@pytest.mark.parametrize(
    ("away", "back", "dead"),
    [
        ({}, {}, False),  # everyone present
        ({3: 11.0}, {}, False),  # left 0.2 s before the last card: within reach in the window
        ({3: 5.0}, {3: 11.5}, False),  # came back 0.3 s after the last card: within the window
        ({3: 5.0}, {3: 12.0}, True),  # came back 0.8 s after: too late
    ],
)
def test_tda_20_presence_window(away: dict[int, float], back: dict[int, float], dead: bool) -> None:
    s = deal_with_presence(away, back=back)
    s.at(20.0).preflop(to_act=1)
    s.do(Tap, dt=0.0, seat=1)
    assert ("TDA-20" in ids(s.found)) is dead


def live_hand(profile: RuleProfile | None = None) -> Script:
    s = Script(LeftWithLiveHandCheck(profile or RuleProfile()))
    s.at(100.0).start()
    s.deal()
    s.preflop(to_act=1)
    return s


@pytest.mark.parametrize(("profile", "severity"), [(RuleProfile(), Severity.VIOLATION),
                                                   (preset("club-001"), Severity.ADVISORY)])
def test_tda_21_left_with_a_live_hand(profile: RuleProfile, severity: Severity) -> None:
    s = live_hand(profile)
    s.do(PlayerPresence, seat=2, present=False)
    s.check(1)
    assert s.found == []  # 1 s away: not yet
    s.do(Tap, dt=5.0, seat=2)
    (v,) = s.found
    assert v.rule_id == "TDA-21" and v.severity is severity and v.seats == (2,)


def test_tda_21_silent_when_he_folded_or_came_back() -> None:
    s = live_hand()
    s.do(PlayerPresence, seat=2, present=False)
    s.do(PlayerPresence, seat=2, present=True)
    s.do(PlayerPresence, seat=3, present=False)
    s.set(active=(1, 2))  # seat 3 folded before leaving
    s.check(1)
    s.do(Tap, dt=10.0, seat=2)
    assert s.found == []


@pytest.mark.parametrize(("profile", "expected"), [(RuleProfile(), []), (preset("club-001"), ["TDA-63"])])
def test_ex_30_away_for_an_hour_club_rule(profile: RuleProfile, expected: list[str]) -> None:
    s = Script(LongAbsenceCheck(profile))
    s.do(PlayerPresence, seat=4, present=False)
    s.do(Tap, dt=1800.0, seat=1)
    assert s.found == []
    s.do(Tap, dt=1800.0, seat=1)
    s.do(Tap, dt=60.0, seat=1)  # said once per absence
    assert ids(s.found) == expected
    if expected:
        assert "remove the player's chips" in s.found[0].ruling and s.found[0].seats == (4,)


def test_ex_31_three_consecutive_all_ins_club_rule() -> None:
    s = Script(ConsecutiveAllInCheck(preset("club-001")))
    titles = []
    for hand_no, all_in in enumerate([(2,), (2,), (2, 3), (2,), (), (2,)], start=1):
        titles += [(hand_no, v.seats, v.severity) for v in s.start(hand_no=hand_no)]
        s.preflop(to_act=1)
        s.set(all_in=all_in)
        titles += [(hand_no, v.seats, v.severity) for v in s.do(Tap, seat=1)]
    assert titles == [(3, (2,), Severity.ADVISORY), (4, (2,), Severity.VIOLATION)]  # hand 5: no all-in, reset
    off = Script(ConsecutiveAllInCheck(RuleProfile()))  # TDA: no such rule
    for hand_no in range(1, 6):
        off.start(hand_no=hand_no)
        off.preflop(to_act=1)
        off.set(all_in=(2,))
        off.do(Tap, seat=1)
    assert off.found == []
