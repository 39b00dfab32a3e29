"""The betting engine's own rulings: one named function per finding, each returning the ``Finding`` (rule id,
what was seen, the floor's ruling) that the engine records for a seat.

The chip reading's rulings (verbal against chips, bet sizes, pot bets) are in ``chipreading.py``, the
procedure checks' in ``checks/``; ``index.py`` says where each rule id is ruled.
"""

from __future__ import annotations

from collections.abc import Iterable

from tablewatch.events import Severity
from tablewatch.rules.chipreading import Finding, Reading

SKIPPED_PLAYER_HOUSE = "HOUSE-002-2.8.12"


def _seats(seats: Iterable[int]) -> str:
    return ", ".join(map(str, sorted(seats)))


# --- gestures and words (TDA22-3, TDA-43) -------------------------------------------------------------------


def tap_check(bet: int) -> Reading:
    """TDA22-3: a tap with nothing to call is a check."""
    return Reading(action="check", to=bet, rules=("TDA22-3",), basis="tap")


def tap_facing_bet(seat: int, to_call: int) -> Finding:
    """TDA22-3: a tap is a check; facing a bet it means nothing."""
    return Finding(rule_id="TDA22-3", title="Tap while facing a bet", severity=Severity.ADVISORY,
                   observed=f"seat {seat} tapped facing {to_call} to call",
                   ruling="ambiguous gesture: no action taken; the dealer asks")


def unclear_amount(seat: int, said: int, pot_total: int, read_as: int) -> Finding:
    """TDA-43: a number said without units is read as the largest meaning not over the pot."""
    return Finding(rule_id="TDA-43", title="Unclear amount", severity=Severity.ADVISORY,
                   observed=f'seat {seat} said "{said}" with {pot_total} in the pot',
                   ruling=f"read as {read_as}: the largest meaning not over the pot")


# --- folds (TDA-33B, TDA-44) --------------------------------------------------------------------------------


def fold_after_pulling_back(seat: int) -> Finding:
    """TDA-33B: chips taken back facing a bet: the player must call or raise."""
    return Finding(rule_id="TDA-33B", title="Fold after pulling back chips facing a bet",
                   observed=f"seat {seat} took back chips, then folded",
                   ruling="the player must call or raise: ruled a call")


def fold_not_facing_bet(seat: int) -> Finding:
    """TDA-44: a fold with nothing to call is non-standard but binding."""
    return Finding(rule_id="TDA-44", title="Fold when not facing a bet", severity=Severity.ADVISORY,
                   observed=f"seat {seat} folded with nothing to call",
                   ruling="non-standard but binding: the hand is dead")


# --- action out of turn and skipped players (TDA-36B, TDA-39, HOUSE-002-2.8.12) ------------------------------


def acted_before_amount_clear(seat: int, what: str, actor: int, word: str) -> Finding:
    """TDA-36B: acting while the bettor has said "bet" or "raise" with no amount yet."""
    return Finding(rule_id="TDA-36B", title="Acted before the bet amount was clear", severity=Severity.ADVISORY,
                   observed=f'seat {seat} {what} while seat {actor} had said "{word}" with no amount yet',
                   ruling="wait until the amount is stated; a premature call may be held to any amount (TDA-45B)")


def out_of_turn(seat: int, actor: int, what: str) -> Finding:
    """TDA-39: action out of turn is binding unless the action before it changes."""
    return Finding(rule_id="TDA-39", title="Action out of turn",
                   observed=f"seat {seat} {what} while seat {actor} is to act",
                   ruling=f"action goes back to seat {actor}; seat {seat}'s action is binding unless the action "
                          "changes before him (a bet or raise); a fold out of turn is final")


def out_of_turn_released(actor: int, held_at: int, cur: int) -> Finding:
    """TDA-39: the action changed before the out-of-turn seat: his action is no longer binding."""
    return Finding(rule_id="TDA-39", title="Out-of-turn action released", severity=Severity.ADVISORY,
                   observed=f"the bet changed from {held_at} to {cur} before seat {actor}",
                   ruling=f"seat {actor} may call, raise or fold; his earlier chips may come back")


def skipped_through_substantial_action(actor: int, acted: Iterable[int]) -> Finding:
    """TDA-39 (ENG-17/ENG-18, EX-76): a skipped seat silent through substantial action."""
    return Finding(rule_id="TDA-39", title="Skipped player silent through substantial action",
                   observed=f"seats {_seats(acted)} acted after seat {actor}, who has not acted",
                   ruling=f"the out-of-turn actions stand; call the floor to rule on seat {actor}'s hand (ENG-17)")


def skipped_facing_bet(actor: int, acted: Iterable[int]) -> Finding:
    """HOUSE-002-2.8.12 (EX-101): a skipped seat silent through two actions, with a bet to answer."""
    return Finding(rule_id=SKIPPED_PLAYER_HOUSE, title="Skipped player silent through two actions",
                   observed=f"seats {_seats(acted)} acted after seat {actor}",
                   ruling=f"seat {actor} loses his turn; there is a bet to answer: the floor decides")


def skipped_lost_turn(actor: int, acted: Iterable[int]) -> Finding:
    """HOUSE-002-2.8.12 (EX-101): a skipped seat silent through two checks is deemed to have checked."""
    return Finding(rule_id=SKIPPED_PLAYER_HOUSE, title="Skipped player lost his turn", severity=Severity.ADVISORY,
                   observed=f"seats {_seats(acted)} checked after seat {actor}, who said nothing",
                   ruling=f"seat {actor} loses his turn: everyone checked, so he is deemed to have checked")


# --- a call made having missed a raise (TDA-35) -------------------------------------------------------------


def chips_in_a_second_motion(seat: int, kind: str, amount: int | None, extra: int) -> Finding:
    """TDA-29: more chips from the seat that just acted, before anyone else has: the action was made in several
    motions with no declaration first, and only the first motion counts."""
    first = f"bet or raise to {amount}" if kind == "cbr" else "call"
    return Finding(rule_id="TDA-29", title="String raise (more than one motion, no declaration first)",
                   observed=f"seat {seat} added {extra} in chips in a second motion, after a {first}",
                   ruling=f"only the first motion counts: {first}; the {extra} added goes back")


def call_stands(seat: int, tried: str, owed: int, *, may_fold: bool) -> Finding:
    """TDA-35 (TDA22-49): accepted action: the call stands at the full amount."""
    return Finding(rule_id="TDA-35", title="Call stands after a missed raise",
                   observed=f"seat {seat} called, then tried {tried}",
                   ruling=f"the call stands; {owed} more to put in" + (
                       "; he may fold instead, not raise" if may_fold else ""))


def call_taken_back(seat: int) -> Finding:
    """001 TDA-35 (club, EX-17): the call is withdrawn and the hand folded."""
    return Finding(rule_id="TDA-35", title="Call taken back after a missed raise", severity=Severity.ADVISORY,
                   observed=f"seat {seat} called, then folded",
                   ruling="club rule: the call is withdrawn and the hand folded; the call's chips go back to him "
                          "(EX-17)")


# --- the showdown (TDA-7 exception) -------------------------------------------------------------------------


def river_aggressor_mucked(seat: int, callers: Iterable[int]) -> Finding:
    """001 TDA-7 exception (club, C12, EX-8): the called river aggressor mucks face down."""
    return Finding(rule_id="TDA-7-exception", title="River aggressor mucked after being called",
                   severity=Severity.ADVISORY,
                   observed=f"seat {seat} bet the river, was called by seat(s) {', '.join(map(str, callers))}, and "
                            "mucked face down",
                   ruling=f"club rule: seat {seat} has no claim to the pot unless a caller asks to see his hand; then "
                          f"the dealer turns it over and the caller must show a better hand, or seat {seat} wins")
