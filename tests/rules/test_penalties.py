"""Penalties (ENG-31: TDA-56 / TDA22-71, conflict C4) and the club's team-play ladder (ENG-34: 001 TDA-54):
catalogue EX-28 and EX-29."""

from __future__ import annotations

import pytest

from tablewatch.events import Severity
from tablewatch.rules.penalties import (
    PenalisedHand,
    PenaltyLedger,
    missed_hands_penalty,
    missed_round_penalty,
    team_play_ruling,
)
from tablewatch.rules.profiles import RuleProfile, preset

TDA = RuleProfile()
CLUB = preset("club-001")


def served_properly(seat: int, *, present: bool = False) -> PenalisedHand:
    """A penalty hand done right: ante 100 and big blind 400 taken, cards mucked after the deal."""
    return PenalisedHand(seat=seat, forced_due=500, forced_taken=500, mucked_after_deal=True, present=present)


# --- EX-29: missed-round penalty arithmetic --------------------------------------------------------------------


def test_ex_29_one_round_at_nine_players_is_nine_hands_two_rounds_eighteen() -> None:
    one = missed_round_penalty(TDA, seat=4, players_at_table=9, rounds=1)
    two = missed_round_penalty(TDA, seat=4, players_at_table=9, rounds=2)
    assert (one.hands, two.hands) == (9, 18)
    assert one.rule_id == "TDA-56"
    assert "ante and blinds are taken" in one.ruling and "mucked right after the preflop deal" in one.ruling


def test_ex_29_the_penalty_is_served_hand_by_hand_then_ends() -> None:
    ledger = PenaltyLedger(TDA)
    assert ledger.impose(missed_round_penalty(TDA, seat=4, players_at_table=9, rounds=1)) == []
    for hand in range(9):
        assert ledger.remaining == {4: 9 - hand}
        assert ledger.hand_dealt(served_properly(4)) == []
    assert ledger.remaining == {}
    with pytest.raises(ValueError, match="Seat 4 is serving no penalty"):
        ledger.hand_dealt(served_properly(4))


def test_ex_29_forced_bets_not_taken_and_cards_not_mucked_are_breaches() -> None:
    ledger = PenaltyLedger(TDA)
    ledger.impose(missed_round_penalty(TDA, seat=4, players_at_table=9, rounds=1))
    seen = PenalisedHand(seat=4, forced_due=500, forced_taken=100, mucked_after_deal=False, present=False,
                         acted=True)
    found = ledger.hand_dealt(seen)
    assert [f.title for f in found] == ["Penalty breach"] * 3
    assert "100 of 500" in found[0].observed and "muck" in found[1].ruling and "acted" in found[2].observed
    assert all(f.severity is Severity.VIOLATION for f in found)
    assert ledger.remaining == {4: 8}  # the hand still counts: it was dealt


def test_c4_the_offender_must_be_away_under_tda_2022_but_may_stay_in_the_club() -> None:
    tda, club = PenaltyLedger(TDA), PenaltyLedger(CLUB)
    tda.impose(missed_hands_penalty(TDA, seat=2, hands=3))
    club.impose(missed_hands_penalty(CLUB, seat=2, hands=3))
    assert [f.rule_id for f in tda.hand_dealt(served_properly(2, present=True))] == ["TDA22-71"]
    assert club.hand_dealt(served_properly(2, present=True)) == []
    assert missed_hands_penalty(TDA, seat=2, hands=3).away
    assert not missed_hands_penalty(CLUB, seat=2, hands=3).away
    assert "may stay at the table" in missed_hands_penalty(CLUB, seat=2, hands=3).ruling


def test_repeat_offences_escalate_and_penalties_add_up() -> None:
    ledger = PenaltyLedger(TDA)
    ledger.impose(missed_hands_penalty(TDA, seat=5, hands=9))
    same = ledger.impose(missed_hands_penalty(TDA, seat=5, hands=9))
    assert [(f.title, f.severity) for f in same] == [("Repeat offence not penalised more heavily", Severity.ADVISORY)]
    assert ledger.remaining == {5: 18}
    assert ledger.impose(missed_hands_penalty(TDA, seat=5, hands=18)) == []


@pytest.mark.parametrize(("players", "rounds", "message"), [
    (1, 1, "2 to 10 players"), (11, 1, "2 to 10 players"), (9, 0, "at least one round")])
def test_a_penalty_that_cannot_be_is_refused(players: int, rounds: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        missed_round_penalty(TDA, seat=1, players_at_table=players, rounds=rounds)


# --- EX-28: the club's team-play ladder ------------------------------------------------------------------------


def test_ex_28_club_first_a_warning_without_exposing_the_hand() -> None:
    ruling = team_play_ruling(CLUB, detection=1, seat=3)
    assert (ruling.action, ruling.rule_id) == ("warning", "TDA-54")
    assert "not exposed" in ruling.ruling


def test_ex_28_club_second_the_hand_is_exposed_and_the_chips_go_to_the_real_winner() -> None:
    ruling = team_play_ruling(CLUB, detection=2, seat=3)
    assert ruling.action == "expose_hand" and "really won" in ruling.ruling


@pytest.mark.parametrize(("detection", "rounds"), [(3, 1), (4, 2), (5, 3), (6, 4)])
def test_ex_28_club_third_and_later_one_two_three_four_rounds(detection: int, rounds: int) -> None:
    ruling = team_play_ruling(CLUB, detection=detection, seat=3, players_at_table=8)
    assert (ruling.action, ruling.rounds) == ("missed_rounds", rounds)
    assert ruling.penalty is not None and ruling.penalty.hands == 8 * rounds  # ENG-31's arithmetic


def test_ex_28_chip_passing_or_collusion_disqualifies_at_any_detection() -> None:
    for profile in (CLUB, TDA):
        ruling = team_play_ruling(profile, detection=1, seat=3, collusion=True)
        assert ruling.action == "disqualify" and "chips removed" in ruling.ruling


def test_tda_has_no_ladder_the_td_chooses_the_penalty() -> None:
    for detection in (1, 2, 5):
        ruling = team_play_ruling(TDA, detection=detection, seat=3)
        assert (ruling.action, ruling.rule_id, ruling.rounds) == ("floor_decides", "TDA22-69", 0)
    with pytest.raises(ValueError, match="detection 0"):
        team_play_ruling(CLUB, detection=0, seat=3)
