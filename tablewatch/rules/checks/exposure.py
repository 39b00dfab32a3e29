"""A player's cards exposed before the betting is over (TDA-53); dead in cash under the house rules (C5).

Exposing while facing a bet is a violation; exposing while not facing one, before the betting is over, is
an advisory (a penalty may follow the hand). Once an all-in is called and no more betting is possible the
hands must be turned up (TDA-9), so nothing is said then. Cards turned up by the dealer in the deal are
the misdeal check's (TDA-22A(7)).
"""

from __future__ import annotations

from tablewatch.events import CardExposed, CardsTabled, Event, Severity, Violation
from tablewatch.rules.checks.base import BETTING_PHASES, HandCheck, to_call
from tablewatch.rules.snapshot import HandSnapshot

LIVE = (
    "The cards are not dead: the player plays on; a penalty may be given, starting when the hand is over "
    "(TDA-53). Fold low over the table or slide the cards."
)
DEAD = (
    "House rule: a player who exposes a card without answering the last bet is out of the hand; his cards are "
    "dead (HOUSE-002-2.7.11 cash, HOUSE-004-pass(h))."
)


def betting_over(snapshot: HandSnapshot) -> bool:
    """No more betting is possible in this hand: the river's betting is over (the showdown), or the round is complete
    and at most one seat can still bet. (A round complete in phase "river" is the turn's: the river is still to
    come, and two seats with chips bet on it.)"""
    if snapshot.phase in ("showdown", "complete"):
        return True
    can_bet = [s for s in snapshot.active if s not in snapshot.all_in and snapshot.stacks.get(s, 1) > 0]
    return snapshot.betting_complete and len(can_bet) <= 1


class ExposedCardCheck(HandCheck):
    rule_id = "TDA-53"
    on_the_betting = True
    events = (CardExposed, CardsTabled)

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if not isinstance(event, CardExposed | CardsTabled) or event.seat is None:
            return []
        seat = event.seat
        if snapshot.phase not in BETTING_PHASES or seat not in snapshot.active or betting_over(snapshot):
            return []
        shown = event.card if isinstance(event, CardExposed) else " ".join(event.cards)
        owed = to_call(snapshot, seat)
        if owed > 0 and seat not in snapshot.all_in:
            kills = self.profile.expose_facing_bet_kills
            return [self.violation(
                snapshot, event, title="Card exposed while facing a bet",
                observed=f"Seat {seat} exposed {shown or 'a card'} while facing a bet of {owed} more on the "
                f"{snapshot.phase}.",
                ruling=DEAD if kills else LIVE,
                rule_id="HOUSE-002-2.7.11" if kills else self.rule_id)]
        return [self.violation(
            snapshot, event, severity=Severity.ADVISORY, title="Card exposed before the betting is over",
            observed=f"Seat {seat} exposed {shown or 'a card'} on the {snapshot.phase} with betting still to come.",
            ruling=LIVE)]
