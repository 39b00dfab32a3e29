"""Time to act once the clock is called (ENG-26, conflict C1): catalogue EX-32 (club) and EX-78 (TDA 2022)."""

from __future__ import annotations

import pytest

from tablewatch.rules.clock import clock_ruling
from tablewatch.rules.profiles import RuleProfile, preset

TDA = RuleProfile()
CLUB = preset("club-001")


@pytest.mark.parametrize(("now", "facing_bet", "outcome"), [
    (29.9, True, "running"),  # 25 s, then the final 5 s countdown
    (30.0, True, "dead"),  # facing a bet: the dealer collects the cards
    (30.0, False, "check"),  # not facing a bet: he has checked
])
def test_ex_78_tda_clock_25_then_5_seconds(now: float, facing_bet: bool, outcome: str) -> None:
    ruling = clock_ruling(TDA, started=100.0, now=100.0 + now, facing_bet=facing_bet)
    assert (ruling.outcome, ruling.deadline, ruling.rule_id) == (outcome, 130.0, "TDA-19")


def test_ex_78_acting_before_the_clock_runs_out_stands() -> None:
    ruling = clock_ruling(TDA, started=0.0, now=45.0, facing_bet=True, acted=28.0)
    assert ruling.outcome == "acted"
    late = clock_ruling(TDA, started=0.0, now=45.0, facing_bet=True, acted=31.0)
    assert late.outcome == "dead"  # the chips came after the countdown ended


def test_ex_78_the_caller_must_be_in_his_seat() -> None:
    ruling = clock_ruling(TDA, started=0.0, now=40.0, facing_bet=True, caller_seated=False)
    assert (ruling.outcome, ruling.deadline) == ("refused", None) and "seat" in ruling.ruling


@pytest.mark.parametrize("facing_bet", [True, False])
def test_ex_32_club_10_seconds_then_the_dealer_mucks(facing_bet: bool) -> None:
    assert clock_ruling(CLUB, started=0.0, now=9.9, facing_bet=facing_bet).outcome == "running"
    ruling = clock_ruling(CLUB, started=0.0, now=10.0, facing_bet=facing_bet)
    assert (ruling.outcome, ruling.deadline) == ("dead", 10.0)  # no time bank used: his cards are mucked


def test_ex_32_club_time_bank_gives_more_time() -> None:
    assert clock_ruling(CLUB, started=0.0, now=25.0, facing_bet=True, time_bank_s=30.0).outcome == "running"
    assert clock_ruling(CLUB, started=0.0, now=45.0, facing_bet=True, time_bank_s=30.0, acted=38.0).outcome == "acted"
    ran_out = clock_ruling(CLUB, started=0.0, now=40.0, facing_bet=False, time_bank_s=30.0)
    assert ran_out.outcome == "dead" and "time bank ran out" in ran_out.ruling


def test_clock_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="started at 10"):
        clock_ruling(TDA, started=10.0, now=5.0, facing_bet=True)
    with pytest.raises(ValueError, match="time bank is the club clock"):
        clock_ruling(TDA, started=0.0, now=5.0, facing_bet=True, time_bank_s=30.0)
