"""Fouled deck: two cards of the same rank and suit in one hand (TDA-22E).

Every card identity seen this hand is kept with where it was seen. The same card seen again in a place it
can legitimately reach is not a duplicate: a hole card exposed and later tabled by the same seat, a board
card laid out again, a board card or a replaced hole card moved to the burn pile (TDA-26A/26B repairs, an
exposed deal card used as the burn), a premature board card shuffled back and dealt again (TDA-57).

A duplicate that rests on a card the camera could not tell apart from another (its event's ``doubts``: a club
read where a spade may lie) is as likely a misread as a fouled deck: it goes out as an advisory asking the floor to
look, not as the ruling that stops play and returns every bet.
"""

from __future__ import annotations

from tablewatch.events import (
    BoardCardDealt,
    CardBurned,
    CardDealt,
    CardExposed,
    CardsTabled,
    Event,
    Party,
    Severity,
    Violation,
)
from tablewatch.rules.checks.base import HandCheck, is_standard_card
from tablewatch.rules.snapshot import HandSnapshot

Place = tuple[str, int | None]  # ("seat", 3), ("board", None), ("burn", None)


class FouledDeckCheck(HandCheck):
    rule_id = "TDA-22E"
    committed_by = Party.DEALER
    events = (CardDealt, CardExposed, CardsTabled, BoardCardDealt, CardBurned)  # where cards are seen (``_sightings``)

    def reset(self) -> None:
        self.seen: dict[str, Place] = {}
        self.first_ts: dict[str, float] = {}
        self.doubted: dict[str, str] = {}  # card → the card it may as well be, where a sighting of it was unsure
        self.fouled = False
        self.asked: set[str] = set()  # cards the floor was asked to look at

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        doubts = dict(getattr(event, "doubts", ()))  # (a burn is never read with a doubt)
        found: list[Violation] = []
        for card, place in _sightings(event):
            if not is_standard_card(card):
                continue  # a joker is TDA-22A(6), not a duplicate
            before = self.seen.get(card)
            if before is None:
                self.seen[card], self.first_ts[card] = place, event.ts
            elif before != place and not _may_move(before, place):
                rival = doubts.get(card) or self.doubted.get(card)
                found += self._duplicate(snapshot, event, card, before, place, rival)
            else:
                self.seen[card] = place
            if card in doubts:
                self.doubted[card] = doubts[card]
        return found

    def _duplicate(self, snapshot: HandSnapshot, event: Event, card: str, before: Place, now: Place,
                   rival: str | None) -> list[Violation]:
        """The fouled deck, once a hand; or, where a sighting was read with a doubt (``rival``), an advisory once a
        card, until the deck is found fouled."""
        if self.fouled or (rival is not None and card in self.asked):
            return []
        seen = f"{card} seen at {_describe(before)} and again at {_describe(now)}"
        seats = [p[1] for p in (before, now) if p[1] is not None]
        if rival is not None:
            self.asked.add(card)
            return [self.violation(
                snapshot, event, title="Same card seen twice: a fouled deck or a misread", severity=Severity.ADVISORY,
                seats=seats, evidence_ts=(self.first_ts[card],),
                observed=f"{seen}; the camera could not tell one of them from {rival}.",
                ruling="Look at both cards: if they are the same card the deck is fouled, and play stops with all "
                "bets returned (TDA-22E).")]
        self.fouled = True
        return [self.violation(
            snapshot, event, title="Fouled deck (duplicate card)", seats=seats, evidence_ts=(self.first_ts[card],),
            observed=f"{seen}.",
            ruling="The deck is fouled: stop play and return all bets, whether or not substantial action has "
            "taken place (TDA-22E).")]


def _sightings(event: Event) -> list[tuple[str, Place]]:
    if isinstance(event, CardDealt | CardExposed) and event.card and event.seat is not None:
        return [(event.card, ("seat", event.seat))]
    if isinstance(event, CardsTabled) and event.seat is not None:
        return [(c, ("seat", event.seat)) for c in event.cards if c]
    if isinstance(event, BoardCardDealt) and event.card:
        return [(event.card, ("board", None))]
    if isinstance(event, CardBurned) and event.card:
        return [(event.card, ("burn", None))]
    return []


def _may_move(before: Place, now: Place) -> bool:
    """Moves a real card makes in a hand: anything to the burn pile, or the board to the board."""
    return now[0] == "burn" or (before[0] == "board" and now[0] == "board")


def _describe(place: Place) -> str:
    return f"seat {place[1]}" if place[0] == "seat" else f"the {place[0]}"
