"""Rulings the floor gives on request, each a small pure unit: who may have chips counted (ENG-28), chips found
after an all-in was called (ENG-29), bets returned to a hand killed by mistake (ENG-30), statements made before
the action (ENG-37), who may see cards shown (ENG-38), and hands miscalled at the showdown (ENG-39).

These start from something said or asked at the table, or from the floor's own finding (the chips were part of
the action, the hand cannot be identified in the muck): the caller gives it as plain data and gets the ruling
with its rule id and the action proposed. None is an alert by itself: they are decision support.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tablewatch.rules.profiles import RuleProfile

FloorAction = Literal[
    "count", "estimate_only", "refuse",  # counting (ENG-28)
    "part_of_action", "collects_called_only", "forfeits_found_chips",  # hidden all-in chips (ENG-29)
    "hand_live", "return_uncalled",  # a hand killed by mistake (ENG-30)
    "floor_decides", "hold_to_any_amount", "call_stands",  # statements before the action (ENG-37)
    "show_all", "show_all_after_hand", "nobody_sees",  # cards shown (ENG-38)
    "cards_speak", "penalty", "may_forfeit_pot",  # miscalled hands (ENG-39)
]
Structure = Literal["NL", "PL", "FL"]


@dataclass(frozen=True, kw_only=True)
class FloorRuling:
    action: FloorAction
    ruling: str
    rule_id: str
    amount: int = 0  # chips the ruling moves (returned, held to), when it moves any


def count_request(*, what: Literal["stack", "pot"], structure: Structure, exact: bool, in_turn: bool,
                  facing_all_in: bool) -> FloorRuling:
    """A player asks for a count (ENG-28): of an opponent's ``stack`` (``exact`` or roughly) or of the ``pot``."""
    if what == "pot":
        if structure == "PL":
            return FloorRuling(action="count", rule_id="TDA-40", ruling="pot-limit: the dealer counts the pot")
        return FloorRuling(action="refuse", rule_id="TDA-40", ruling=(
            f"the pot is counted only in pot-limit; this is {structure}: the dealer does not count it (TDA-40A)"))
    if not exact:
        return FloorRuling(action="estimate_only", rule_id="TDA-46", ruling=(
            "anyone may have a rough idea of a stack: the dealer gives an estimate (TDA-46, HOUSE-002-2.4.4)"))
    if in_turn and facing_all_in:
        return FloorRuling(action="count", rule_id="TDA-46", ruling=(
            "in turn and facing an all-in: the dealer or the floor counts the all-in exactly; the all-in player "
            "need not count (TDA-46, TDA-61)"))
    why = "not in turn" if not in_turn else "not facing an all-in"
    return FloorRuling(action="estimate_only", rule_id="TDA-46", ruling=(
        f"an exact count only for the player in turn facing an all-in ({why}): an estimate only (TDA-46)"))


def found_all_in_chips(*, found: int, part_of_action: bool, all_in_won: bool) -> FloorRuling:
    """Chips of the all-in player found after his all-in was called (ENG-29, TDA-48); ``part_of_action``: the
    floor's decision whether they were part of the accepted action."""
    if found <= 0:
        raise ValueError(f"Chips found after an all-in are a positive amount: got {found}.")
    if part_of_action:
        return FloorRuling(action="part_of_action", rule_id="TDA-48", amount=found, ruling=(
            f"the floor holds the {found} found part of the accepted action: the caller's call covers them, as far "
            "as his stack goes"))
    if all_in_won:
        return FloorRuling(action="collects_called_only", rule_id="TDA-48", amount=found, ruling=(
            f"the all-in player won: he collects only what was called; the {found} found win nothing (TDA-48)"))
    return FloorRuling(action="forfeits_found_chips", rule_id="TDA-48", amount=found, ruling=(
        f"the all-in player lost: he does not keep the {found} found and is eliminated; the TD may give them to the "
        "caller (TDA-48)"))


def killed_hand_refund(*, bet: int, called: int, identified: bool) -> FloorRuling:
    """A hand mucked by the dealer or mixed with other cards (ENG-30: TDA-51A/B, TDA-8B); ``bet``: its bet this
    round; ``called``: the most any other seat put in against it this round; ``identified``: the floor can tell
    its cards with 100 % certainty."""
    if bet < 0 or called < 0:
        raise ValueError(f"Bets are never negative: bet {bet}, called {called}.")
    if identified:
        return FloorRuling(action="hand_live", rule_id="TDA-51", ruling=(
            "the cards are identified with 100 % certainty: the hand stays in play (TDA-51B)"))
    uncalled = max(0, bet - called)
    return FloorRuling(action="return_uncalled", rule_id="TDA-51", amount=uncalled, ruling=(
        f"the hand cannot be identified with 100 % certainty: it is dead and called bets are lost; {uncalled} "
        "uncalled is returned (TDA-51A, TDA-8B)"))


def conditional_statement() -> FloorRuling:
    """"If you bet, I raise" (ENG-37, TDA-45A)."""
    return FloorRuling(action="floor_decides", rule_id="TDA-45", ruling=(
        "a conditional statement about future action is non-standard: the floor may hold it binding and/or "
        "penalise it (TDA-45A)"))


def early_call(*, called_at: float, amount_stated_at: float, amount: int, caller_stack: int) -> FloorRuling:
    """A player said "call" at ``called_at`` to a bet or raise whose ``amount`` was stated at
    ``amount_stated_at`` (ENG-37, TDA-45B)."""
    if amount <= 0 or caller_stack <= 0:
        raise ValueError(f"A call answers a positive bet with chips: amount {amount}, stack {caller_stack}.")
    held = min(amount, caller_stack)
    if called_at < amount_stated_at:
        return FloorRuling(action="hold_to_any_amount", rule_id="TDA-45", amount=held, ruling=(
            f"\"call\" before the amount was stated: the TD may hold him to a call of any amount, here {held} "
            "(TDA-45B)"))
    return FloorRuling(action="call_stands", rule_id="TDA-37", amount=held, ruling=f"a call of {held} (TDA-37A)")


def cards_shown(*, to: Literal["player", "non_participant", "conceded_face_down"], hand_over: bool,
                tournament_all_in_called: bool = False) -> FloorRuling:
    """Who may see cards a player showed (ENG-38: HOUSE-002-2.10.3, 2.10.4): to another ``player`` in the hand
    or at the table, to a ``non_participant`` during the hand, or folded face down having conceded."""
    if to == "player":
        return FloorRuling(action="show_all", rule_id="HOUSE-002-2.10.4", ruling=(
            "shown to one player: any player at the table may see them (show one, show all)"))
    if to == "non_participant":
        if hand_over:
            return FloorRuling(action="show_all", rule_id="HOUSE-002-2.10.4", ruling=(
                "shown to a non-participant: now the hand is over, they may be shown to everyone"))
        return FloorRuling(action="show_all_after_hand", rule_id="HOUSE-002-2.10.4", ruling=(
            "shown to a non-participant during the hand: they may be shown to everyone once the hand is over"))
    if tournament_all_in_called:
        return FloorRuling(action="show_all", rule_id="HOUSE-002-2.10.3", ruling=(
            "a tournament all-in and call: both hands are turned over, even one conceded on the river"))
    return FloorRuling(action="nobody_sees", rule_id="HOUSE-002-2.10.3", ruling=(
        "folded face down after conceding: nobody may look at those cards unless their owner shows them"))


def miscalled_hand(profile: RuleProfile, *, deliberate: bool) -> FloorRuling:
    """A player announced a hand he did not have (ENG-39: TDA-5, HOUSE-002-2.9.3, 2.10.1); ``deliberate``: to
    make another player muck, as the floor judges it. Cash rooms (``game_format``) follow the house text."""
    if not deliberate:
        return FloorRuling(action="cards_speak", rule_id="TDA-5", ruling=(
            "cards speak: what was said about the hand does not count, the pot goes by the cards tabled (TDA-5, "
            "HOUSE-002-2.9.3)"))
    if profile.game_format == "cash":
        return FloorRuling(action="may_forfeit_pot", rule_id="HOUSE-002-2.10.1", ruling=(
            "a hand miscalled on purpose to make another player muck is unethical and may cost the pot "
            "(HOUSE-002-2.10.1); the cards still speak"))
    return FloorRuling(action="penalty", rule_id="TDA-5", ruling=(
        "a hand miscalled on purpose may be penalised (TDA-5); the pot goes by the cards tabled"))
