"""The button and blinds from hand to hand (ENG-03: TDA22-32, TDA22-34, HOUSE-002-2.11.1) and the level a hand
plays (ENG-25: TDA-14)."""

from __future__ import annotations

import pytest

from tablewatch.events import Severity
from tablewatch.rules.button import Positions, check_positions, next_positions
from tablewatch.rules.levels import Level, blinds_ruling, level_of_hand
from tablewatch.rules.profiles import RuleProfile

DEAD = RuleProfile()
MOVING = RuleProfile(button_rule="moving")
LAST = Positions(button=2, small_blind=3, big_blind=5)  # seat 4 is empty


def test_dead_button_the_big_blind_moves_to_the_next_player_the_rest_follow() -> None:
    assert next_positions(DEAD, players=[1, 2, 3, 5, 7], last=LAST) == Positions(button=3, small_blind=5,
                                                                                  big_blind=7)


def test_dead_button_last_big_blind_busted_no_small_blind_this_hand() -> None:
    nxt = next_positions(DEAD, players=[1, 2, 3, 7], last=LAST)  # seat 5 busted
    assert nxt == Positions(button=3, small_blind=5, big_blind=7)
    assert check_positions(DEAD, players=[1, 2, 3, 7], last=LAST, button=3, blinds={7: 200}) == []
    found = check_positions(DEAD, players=[1, 2, 3, 7], last=LAST, button=3, blinds={3: 100, 7: 200})
    assert [(f.title, f.severity) for f in found] == [("Small blind on the wrong seat", Severity.ADVISORY)]


def test_dead_button_the_button_may_sit_on_an_empty_seat() -> None:
    nxt = next_positions(DEAD, players=[1, 2, 5, 7], last=LAST)  # seat 3 (last small blind) busted
    assert nxt.button == 3  # a dead button
    found = check_positions(DEAD, players=[1, 2, 5, 7], last=LAST, button=2, blinds={5: 100, 7: 200})
    assert [f.title for f in found] == ["Button misplaced"] and found[0].rule_id == "TDA22-32"


def test_a_skipped_big_blind_is_found() -> None:
    found = check_positions(DEAD, players=[1, 2, 3, 5, 7], last=LAST, button=3, blinds={5: 100, 1: 200})
    assert [f.title for f in found] == ["Big blind on the wrong seat"]
    assert found[0].severity is Severity.VIOLATION and "seat 7 posts the big blind" in found[0].ruling


def test_moving_button_goes_to_the_next_player_and_the_blinds_follow() -> None:
    assert next_positions(MOVING, players=[1, 2, 3, 7], last=LAST) == Positions(button=3, small_blind=7,
                                                                                big_blind=1)


def test_heads_up_the_button_is_the_small_blind_and_nobody_is_big_blind_twice() -> None:
    for profile in (DEAD, MOVING):
        nxt = next_positions(profile, players=[3, 5], last=LAST)  # down to two: seat 5 was the big blind
        assert nxt == Positions(button=5, small_blind=5, big_blind=3)


def test_a_table_of_one_is_refused() -> None:
    with pytest.raises(ValueError, match="2 to 10 players"):
        next_positions(DEAD, players=[4], last=LAST)


LEVELS = [Level(number=1, starts=0.0, small_blind=100, big_blind=200),
          Level(number=2, starts=1200.0, small_blind=200, big_blind=400, ante=400)]


def test_a_hand_plays_the_level_in_force_when_it_started() -> None:
    assert level_of_hand(LEVELS, hand_started=1199.0).number == 1  # blinds go up from the next hand
    assert level_of_hand(LEVELS, hand_started=1200.0).number == 2
    assert blinds_ruling(LEVELS, hand_started=1250.0, small_blind=200, big_blind=400, ante=400,
                         substantial_action=False).action == "as_posted"


def test_old_blinds_are_corrected_before_substantial_action_and_stand_after_it() -> None:
    early = blinds_ruling(LEVELS, hand_started=1250.0, small_blind=100, big_blind=200, substantial_action=False)
    assert early.action == "correct_blinds" and early.findings[0].severity is Severity.VIOLATION
    late = blinds_ruling(LEVELS, hand_started=1250.0, small_blind=100, big_blind=200, substantial_action=True)
    assert late.action == "play_on" and late.findings[0].severity is Severity.ADVISORY
    assert late.rule_id == "TDA-14" and late.level.number == 2


def test_levels_out_of_order_or_a_hand_before_the_first_are_refused() -> None:
    with pytest.raises(ValueError, match="in order"):
        level_of_hand(LEVELS[::-1], hand_started=10.0)
    with pytest.raises(ValueError, match="before the first level"):
        level_of_hand(LEVELS, hand_started=-1.0)
