"""Time to act once the clock is called (ENG-26; TDA-19 / TDA22-29; conflict C1, ``RuleProfile.clock_variant``).

- TDA 2022 (``tda2022``, EX-78): the floor calls the clock; the player has 25 s, then a final 5 s counted down.
  No decision by then: facing a bet his hand is dead, otherwise he has checked. The player calling the clock
  must be in his seat.
- Club (``club10s``, 001 TDA-19, EX-32): 10 s from the moment the dealer draws the player's attention; then he
  may use a time-bank card (the seeds give no length: the venue sets it); refused, or run out, with no
  decision, the dealer mucks his cards.

The start of the clock (the floor's call, the dealer's cue) is given by the floor or the table's operator,
as the hand-for-hand announcement is; ``clock_ruling`` says, at any moment, where the clock stands and what
the dealer must do when it has run out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tablewatch.rules.profiles import RuleProfile

TDA_CLOCK_S = 25.0  # TDA22-29: 25 seconds ...
TDA_COUNTDOWN_S = 5.0  # ... then a final 5-second countdown
CLUB_CLOCK_S = 10.0  # 001 TDA-19

Outcome = Literal["running", "acted", "dead", "check", "refused"]


@dataclass(frozen=True, kw_only=True)
class ClockRuling:
    outcome: Outcome  # "dead": the dealer mucks the hand; "check": he is deemed to have checked
    deadline: float | None  # when the clock runs out (None: no clock runs)
    ruling: str
    rule_id: str = "TDA-19"


def clock_ruling(profile: RuleProfile, *, started: float, now: float, facing_bet: bool,
                 acted: float | None = None, time_bank_s: float | None = None,
                 caller_seated: bool = True) -> ClockRuling:
    """The clock on one decision, seen at ``now``.

    ``started``: the floor's call (TDA) or the dealer's cue (club); ``acted``: when the player acted, if he
    has; ``time_bank_s``: the length of the time bank the player used (club), None if he did not use one;
    ``caller_seated``: the player who called the clock was in his seat (TDA).
    """
    if now < started or (acted is not None and acted < started):
        raise ValueError(f"The clock started at {started}: nothing happens on it before then.")
    if time_bank_s is not None and (profile.clock_variant != "club10s" or time_bank_s <= 0):
        raise ValueError("A time bank is the club clock's (clock_variant club10s) and lasts more than 0 s.")
    if profile.clock_variant == "tda2022":
        if not caller_seated:
            return ClockRuling(outcome="refused", deadline=None,
                               ruling="a player must be in his seat to call the clock (TDA22-29)")
        deadline = started + TDA_CLOCK_S + TDA_COUNTDOWN_S
    else:
        deadline = started + CLUB_CLOCK_S + (time_bank_s or 0.0)
    if acted is not None and acted <= deadline:
        return ClockRuling(outcome="acted", deadline=deadline, ruling=f"acted after {acted - started:g} s: in time")
    if now < deadline:
        return ClockRuling(outcome="running", deadline=deadline, ruling=f"{deadline - now:g} s left to act")
    return _expired(profile, deadline=deadline, facing_bet=facing_bet, bank=time_bank_s is not None)


def _expired(profile: RuleProfile, *, deadline: float, facing_bet: bool, bank: bool) -> ClockRuling:
    if profile.clock_variant == "club10s":
        spent = "his time bank ran out" if bank else "he did not use a time-bank card"
        return ClockRuling(outcome="dead", deadline=deadline,
                           ruling=f"no decision in 10 s and {spent}: the dealer mucks his cards (001 TDA-19)")
    if facing_bet:
        return ClockRuling(outcome="dead", deadline=deadline,
                           ruling="no decision in 25 s + 5 s facing a bet: the hand is dead (TDA22-29)")
    return ClockRuling(outcome="check", deadline=deadline,
                       ruling="no decision in 25 s + 5 s, not facing a bet: he has checked (TDA22-29)")
