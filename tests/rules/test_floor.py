"""Rulings the floor gives on request (``tablewatch.rules.floor``): counting rights (ENG-28), chips found after
an all-in (ENG-29), a hand killed by mistake (ENG-30), statements before the action (ENG-37), show one show all
(ENG-38) and miscalled hands (ENG-39)."""

from __future__ import annotations

import pytest

from tablewatch.rules import floor
from tablewatch.rules.profiles import RuleProfile, preset


@pytest.mark.parametrize(("what", "structure", "exact", "in_turn", "facing_all_in", "action"), [
    ("pot", "PL", False, True, False, "count"),
    ("pot", "NL", False, True, False, "refuse"),
    ("pot", "FL", False, True, False, "refuse"),
    ("stack", "NL", True, True, True, "count"),
    ("stack", "NL", True, False, True, "estimate_only"),  # not in turn
    ("stack", "NL", True, True, False, "estimate_only"),  # not facing an all-in
    ("stack", "NL", False, False, False, "estimate_only"),  # a rough idea is always given
])
def test_counting_rights(what: str, structure: str, exact: bool, in_turn: bool, facing_all_in: bool,
                         action: str) -> None:
    ruling = floor.count_request(what=what, structure=structure, exact=exact, in_turn=in_turn,  # type: ignore[arg-type]
                                 facing_all_in=facing_all_in)
    assert ruling.action == action


def test_chips_found_after_an_all_in_was_called() -> None:
    assert floor.found_all_in_chips(found=500, part_of_action=True, all_in_won=True).action == "part_of_action"
    won = floor.found_all_in_chips(found=500, part_of_action=False, all_in_won=True)
    lost = floor.found_all_in_chips(found=500, part_of_action=False, all_in_won=False)
    assert (won.action, lost.action, lost.amount, lost.rule_id) == (
        "collects_called_only", "forfeits_found_chips", 500, "TDA-48")
    assert "eliminated" in lost.ruling
    with pytest.raises(ValueError, match="positive amount"):
        floor.found_all_in_chips(found=0, part_of_action=False, all_in_won=False)


def test_a_hand_killed_by_mistake_gets_back_only_its_uncalled_bet() -> None:
    ruling = floor.killed_hand_refund(bet=3000, called=1200, identified=False)
    assert (ruling.action, ruling.amount, ruling.rule_id) == ("return_uncalled", 1800, "TDA-51")
    assert floor.killed_hand_refund(bet=1200, called=1200, identified=False).amount == 0
    assert floor.killed_hand_refund(bet=3000, called=1200, identified=True).action == "hand_live"


def test_a_call_before_the_amount_is_stated_may_be_held_to_any_amount() -> None:
    early = floor.early_call(called_at=10.0, amount_stated_at=11.5, amount=8000, caller_stack=5000)
    assert (early.action, early.amount, early.rule_id) == ("hold_to_any_amount", 5000, "TDA-45")
    assert floor.early_call(called_at=12.0, amount_stated_at=11.5, amount=8000, caller_stack=9000).action == (
        "call_stands")
    assert floor.conditional_statement().action == "floor_decides"


def test_show_one_show_all() -> None:
    assert floor.cards_shown(to="player", hand_over=False).action == "show_all"
    assert floor.cards_shown(to="non_participant", hand_over=False).action == "show_all_after_hand"
    assert floor.cards_shown(to="non_participant", hand_over=True).action == "show_all"
    assert floor.cards_shown(to="conceded_face_down", hand_over=True).action == "nobody_sees"
    exception = floor.cards_shown(to="conceded_face_down", hand_over=True, tournament_all_in_called=True)
    assert (exception.action, exception.rule_id) == ("show_all", "HOUSE-002-2.10.3")


def test_a_miscalled_hand_cards_speak_a_deliberate_one_is_penalised() -> None:
    assert floor.miscalled_hand(RuleProfile(), deliberate=False).action == "cards_speak"
    assert floor.miscalled_hand(RuleProfile(), deliberate=True).action == "penalty"
    assert floor.miscalled_hand(preset("house-cash"), deliberate=True).action == "may_forfeit_pot"
