"""Stud's deal (TDA22-RP-10): which of a seat's seven cards are dealt face up. Two down and one up on third street,
one up on each of fourth, fifth and sixth, one down on seventh (``UP``). The camera reports each card pitched and
whether it landed face up (``CardDealt.face_up``); a card the wrong way up is the dealer's error:
- (a) a down card of the initial deal face up: the card that should have been the up card is dealt face down
  instead (and the player still brings in if his cards make him);
- (b) the seventh-street card face up: replaced if there is action still to come in the last round, left where no
  more action is possible and it cannot change the result;
- an up card dealt face down: a deviation from the deal the seeds give no remedy for; the floor decides.
Who brings in (the lowest up card; razz: the highest) is the betting engine's: another seat acting first is out of
turn (TDA-39)."""

from __future__ import annotations

from tablewatch.events import CardDealt, Event, Party, Severity, Violation
from tablewatch.rules.checks.base import HandCheck
from tablewatch.rules.snapshot import HandSnapshot

UP = (False, False, True, True, True, True, False)  # each card of a stud hand, in the order dealt: face up?
STREET_OF_CARD = ("third", "third", "third", "fourth", "fifth", "sixth", "seventh")


class StudDealCheck(HandCheck):
    rule_id = "TDA22-RP-10"
    committed_by = Party.DEALER
    events = (CardDealt,)

    def reset(self) -> None:
        self.dealt: dict[int, int] = {}  # seat -> cards pitched to it so far
        self.exposed_down: set[int] = set()  # seats whose down card of the initial deal went face up

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if not snapshot.stud_game or not isinstance(event, CardDealt) or event.seat is None:
            return []
        seat = event.seat
        k = self.dealt.get(seat, 0)
        self.dealt[seat] = k + 1
        if k >= len(UP) or event.face_up == UP[k]:
            return []
        if k < 2:
            self.exposed_down.add(seat)
            return [self._found(snapshot, event, "A down card of the initial deal dealt face up",
                                "the card that should have been the up card is dealt face down to that player; if "
                                "his cards make him bring in, he must (TDA22-RP-10(a))")]
        if k == 2 and seat in self.exposed_down:
            return []  # RP-10(a)'s own remedy: the up card dealt down
        if k == len(UP) - 1:
            return [self._found(snapshot, event, "The seventh-street card dealt face up",
                                "replace it if there is still action to come in the last round; if no more action "
                                "is possible and it cannot change the result, it stays (TDA22-RP-10(b))")]
        return [self._found(snapshot, event, "An up card dealt face down", "the stud deal is two down and one up, "
                            "then up, up, up, down (TDA22-RP-10); the floor decides how the hand goes on",
                            severity=Severity.ADVISORY)]

    def _found(self, snapshot: HandSnapshot, event: CardDealt, title: str, ruling: str, *,
               severity: Severity = Severity.VIOLATION) -> Violation:
        assert event.seat is not None
        k = self.dealt[event.seat]
        way = "face up" if event.face_up else "face down"
        return self.violation(snapshot, event, title=title, seats=(event.seat,), ruling=ruling, severity=severity,
                              observed=f"Seat {event.seat}'s card {k} ({STREET_OF_CARD[k - 1]} street) was dealt "
                              f"{way}.")
