"""Board cards exposed before the betting round is over (TDA-57 / TDA22-RP-5), with the redeal procedure
of the venue's variant (conflict C2), and board cards turned after the hand is over (TDA-18)."""

from __future__ import annotations

from tablewatch.events import BoardCardDealt, CardBurned, Event, Party, Severity, Violation
from tablewatch.rules.checks.base import ACTION_EVENTS, HandCheck
from tablewatch.rules.checks.boardstate import BoardTracker
from tablewatch.rules.snapshot import HandSnapshot

RULINGS = {
    "flop": "Leave the burn in place; finish the preflop betting; shuffle the early flop cards back into the stub "
    "(face down, no faces shown); deal a new flop without a burn (TDA-57A / RP-5A).",
    "turn": "Leave the burn in place; put the early turn back on the stub; finish the flop betting; reshuffle the "
    "stub with that card and deal the turn without a burn; then the third betting round (TDA-57B / RP-5B).",
    "turn-2017": "Set the early card aside face up; finish the flop betting; burn and deal the next card as the "
    "turn; after the turn betting, shuffle the set-aside card into the stub and deal the river without a burn "
    "(2017 procedure, TR-002-L164-170).",
    "river": "Leave the burn in place; put the early river back and shuffle it with the stub; finish the turn "
    "betting; deal the river without a burn; then the last betting round (TDA-57C / RP-5C).",
}
PREVIOUS = {"flop": "preflop", "turn": "flop", "river": "turn"}

# Stud (conflict C3). Stud is not dealt through the board events, so no live check fires on it; the procedure
# is kept as data so a venue profile states it and the dealer console can show it (EX-109).
STUD_RULINGS = {
    "tda2022": "Put the early card(s) back on the stub, reshuffle the stub, and redeal that street without a burn "
    "(TDA-57D / RP-5d).",
    "tda2017": "Deal that street face down to every player and set it aside with the exposed card; finish the "
    "betting round; burn and deal the next street in its place; carry on as normal; before the last street "
    "shuffle the set-aside cards into the stub and deal the last street without a burn (TR-002-L176-183).",
}
STUD_LAST_STREET = 7


def stud_burns_after_premature(street: int, variant: str) -> dict[int, bool]:
    """After a premature card on stud ``street`` (4th-7th), whether a burn comes before each street still to be
    dealt, the premature street's own (re)deal included."""
    if not 4 <= street <= STUD_LAST_STREET or variant not in STUD_RULINGS:
        raise ValueError(f"No premature-card procedure for street {street} under {variant!r}.")
    later = range(street, STUD_LAST_STREET + 1)
    if variant == "tda2022":  # the street's burn stayed: its redeal has none; the rest as normal
        return {s: s != street for s in later}
    return {s: s != STUD_LAST_STREET for s in later}  # 2017: burn as normal, the last street without one


class PrematureBoardCheck(HandCheck):
    rule_id = "TDA-57"
    on_the_betting = True
    committed_by = Party.DEALER
    events = (BoardCardDealt, CardBurned, *ACTION_EVENTS)  # what its board tracker follows

    def reset(self) -> None:
        self.board = BoardTracker(self.profile)

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if isinstance(event, BoardCardDealt) and snapshot.phase == "complete":
            return [self.violation(
                snapshot, event, rule_id="TDA-18", severity=Severity.ADVISORY, title="Rabbit hunting",
                observed=f"Board card {event.card or '(face down)'} turned after the hand was over.",
                ruling="No rabbit hunting: cards that would have come are not shown after the hand (TDA-18).")]
        found = []
        for step in self.board.update(snapshot, event):
            if step.kind == "premature":
                found.append(self._premature(snapshot, event, step.street))
        return found

    def _premature(self, snapshot: HandSnapshot, event: Event, street: str) -> Violation:
        key = "turn-2017" if street == "turn" and self.profile.premature_turn_variant == "tda2017" else street
        waiting = f"; seat {snapshot.to_act} still to act" if snapshot.to_act is not None else ""
        card = event.card if isinstance(event, BoardCardDealt) else None
        return self.violation(
            snapshot, event, title=f"Premature {street}",
            observed=f"The {street} ({card or 'face down'}) was dealt before the {PREVIOUS[street]} betting was "
            f"complete{waiting}.",
            ruling=RULINGS[key])
