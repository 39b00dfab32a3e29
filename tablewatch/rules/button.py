"""Where the button and the blinds go from one hand to the next (ENG-03: TDA22-32, TDA22-34; HOUSE-002-2.11.1,
2.11.5; ``RuleProfile.button_rule``), as small pure units.

- Dead button (tournaments, and cash rooms that choose it): the big blind moves to the next player after last
  hand's big blind; the small blind falls on last hand's big-blind seat and the button on last hand's
  small-blind seat, even when those seats are now empty — no small blind that hand, or a dead button — so
  nobody has the last action twice in a row. The game may run without a small blind, never without a big one.
- Moving button (cash rooms that choose it): the button moves to the next player and the blinds are the two
  players after it.
- Heads-up: the button posts the small blind, the other player the big blind; when play becomes heads-up the
  big blind goes to the player who was not the big blind last hand, so nobody is the big blind twice in a row.

A misdeal does not move the button: the redeal is the misdeal check's (TDA-22C, ``checks.misdeal``).
``check_positions`` compares a hand's button and blinds, as its ``HandStarted`` reports them, with the rule;
``check_button`` the button alone (the console's, or the puck the camera sees).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tablewatch.events import Severity
from tablewatch.rules.chipreading import Finding
from tablewatch.rules.profiles import RuleProfile

SEATS = range(1, 11)


@dataclass(frozen=True, kw_only=True)
class Positions:
    """Seat numbers; the button and the small blind may be on empty seats (a dead button, no small blind)."""

    button: int
    small_blind: int
    big_blind: int


def next_positions(profile: RuleProfile, *, players: Sequence[int], last: Positions) -> Positions:
    """The button and blinds of the next hand with ``players`` seated and dealt in, after ``last`` hand's."""
    seated = sorted(set(players))
    if len(seated) < 2 or not set(seated) <= set(SEATS):
        raise ValueError(f"A hand needs 2 to 10 players in seats 1-10: got {list(players)}.")
    if len(seated) == 2:  # TDA22-34: the button is the small blind; nobody is the big blind twice in a row
        big = _next(seated, last.big_blind)
        other = next(seat for seat in seated if seat != big)
        return Positions(button=other, small_blind=other, big_blind=big)
    if profile.button_rule == "moving":
        button = _next(seated, last.button)
        small = _next(seated, button)
        return Positions(button=button, small_blind=small, big_blind=_next(seated, small))
    return Positions(button=last.small_blind, small_blind=last.big_blind, big_blind=_next(seated, last.big_blind))


def _next(seated: Sequence[int], after: int) -> int:
    """The first seated player clockwise after seat ``after``."""
    return next((seat for seat in seated if seat > after), seated[0])


def check_positions(profile: RuleProfile, *, players: Sequence[int], last: Positions, button: int,
                    blinds: Mapping[int, int]) -> list[Finding]:
    """The button and the blinds a hand was dealt with (``blinds``: seat → blind posted) against the rule."""
    expected = next_positions(profile, players=players, last=last)
    found = check_button(profile, players=players, last=last, button=button)
    posted = sorted(blinds, key=lambda seat: blinds[seat], reverse=True)
    big = posted[0] if posted else None
    small = posted[1] if len(posted) > 1 else None
    if big != expected.big_blind:
        found.append(_finding("Big blind on the wrong seat", f"the big blind was posted by seat {big}",
                              f"seat {expected.big_blind} posts the big blind; nobody skips it"))
    small_due = expected.small_blind if expected.small_blind in players else None
    if small != small_due:
        due = f"seat {small_due} posts the small blind" if small_due else (
            f"no small blind this hand: its seat, {expected.small_blind}, is empty")
        found.append(_finding("Small blind on the wrong seat", f"the small blind was posted by seat {small}", due,
                              severity=Severity.ADVISORY))
    return found


def check_button(profile: RuleProfile, *, players: Sequence[int], last: Positions, button: int,
                 severity: Severity = Severity.VIOLATION) -> list[Finding]:
    """The button a hand is dealt with against the rule's rotation from ``last`` hand's."""
    expected = next_positions(profile, players=players, last=last)
    if button == expected.button:
        return []
    return [_finding("Button misplaced", f"the button is on seat {button}",
                     f"the button belongs on seat {expected.button}", severity=severity)]


def _finding(title: str, observed: str, ruling: str, *, severity: Severity = Severity.VIOLATION) -> Finding:
    return Finding(rule_id="TDA22-32", title=title, observed=observed,
                   ruling=f"{ruling}: correct it before the first card is dealt (TDA22-32, HOUSE-002-2.11.1)",
                   severity=severity)
