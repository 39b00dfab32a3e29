"""All-in showdown: once a player is all-in and no more betting is possible, every live hand is tabled
before the rest of the board is dealt, and before any pot is pushed (TDA-9; EX-23…25, EX-102).

While betting is still possible (EX-24, EX-25: the callers can still bet on later streets) nobody is
expected to show. A live all-in or calling hand mucked without being shown is a violation too.
"""

from __future__ import annotations

from tablewatch.events import (
    BoardCardDealt,
    CardBurned,
    CardExposed,
    CardsMucked,
    CardsTabled,
    Declaration,
    Event,
    Party,
    PotPushed,
    Violation,
)
from tablewatch.rules.checks.base import HandCheck, seat_list
from tablewatch.rules.checks.exposure import betting_over
from tablewatch.rules.snapshot import HandSnapshot

TABLE_ALL = (
    "Turn every live hand face up now, at once, before the rest of the board is dealt and before any pot is "
    "decided; do not wait for players to show, nor for the side pots (TDA-9)."
)


def all_in_showdown(snapshot: HandSnapshot) -> bool:
    """A live all-in with two or more live hands, and no more betting possible in this hand."""
    if not snapshot.all_in:
        return False  # (the common case, asked at every event)
    live_all_in = set(snapshot.all_in) & set(snapshot.active)
    return bool(live_all_in) and len(snapshot.active) >= 2 and betting_over(snapshot)


def cards_unseen(snapshot: HandSnapshot) -> bool:
    """No card of the hand has been seen dealt to its seats (a table no camera watches): whether hands were tabled
    is unknown."""
    dealt = snapshot.hole_cards_dealt
    return bool(dealt) and not any(dealt.values())


class AllInShowdownCheck(HandCheck):
    rule_id = "TDA-9"
    on_the_betting = True
    committed_by = Party.DEALER  # the run-out or the push went on with hands face down; a muck is the player's

    def reset(self) -> None:
        self.tabled: set[int] = set()
        self.exposed: dict[int, set[str]] = {}
        self.reported = False
        self.mucked_reported: set[int] = set()
        # the live hands while an all-in showdown was due; kept once the engine marks the hand complete
        # (its snapshot then no longer shows who was all-in)
        self.live: tuple[int, ...] = ()

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if isinstance(event, CardsTabled) and event.seat is not None:
            self.tabled.add(event.seat)
        elif isinstance(event, CardExposed) and event.seat is not None and event.card:
            self.exposed.setdefault(event.seat, set()).add(event.card)
        if snapshot.phase not in ("complete", "idle"):
            self.live = snapshot.active if all_in_showdown(snapshot) else ()
        if not self.live or cards_unseen(snapshot):
            return []
        if isinstance(event, CardsMucked) and event.seat in self.live and not self._shown(snapshot, event.seat):
            return self._mucked(snapshot, event)
        run_out = isinstance(event, CardBurned | BoardCardDealt) and not snapshot.draw_game  # (a draw: after it)
        if (run_out or isinstance(event, PotPushed)) and not self.reported:
            down = [s for s in self.live if not self._shown(snapshot, s) and s not in self.mucked_reported]
            if down:
                self.reported = True
                what = "the pot was pushed" if isinstance(event, PotPushed) else "the run-out began"
                return [self.violation(
                    snapshot, event, title="All-in showdown: hands not tabled", seats=down, ruling=TABLE_ALL,
                    observed=f"All-in with no more betting possible, and {what} while seat(s) {seat_list(down)} "
                    "still had cards face down.")]
        return []

    def _mucked(self, snapshot: HandSnapshot, event: CardsMucked) -> list[Violation]:
        assert event.seat is not None
        if event.seat in self.mucked_reported:
            return []
        self.mucked_reported.add(event.seat)
        return [self.violation(
            snapshot, event, title="All-in hand mucked without showing", by=Party.PLAYER,
            observed=f"Seat {event.seat} mucked a live hand face down after the all-in was called.",
            ruling="No player who is all-in, or who has called the all-in, may muck without showing: retrieve the "
            "cards if they can be identified and table them (TDA-9; HOUSE-002-2.10.3: both hands are opened).")]

    def _shown(self, snapshot: HandSnapshot, seat: int) -> bool:
        return seat in self.tabled or len(self.exposed.get(seat, ())) >= snapshot.hole_cards_per_player


class TabledToWinCheck(HandCheck):
    """A hand must be tabled to win (TDA-6A / TDA22-19, TDA-8A): a pot pushed to a seat whose cards are not
    face up while another hand is still live. The last live hand wins without showing."""

    rule_id = "TDA-6A"
    on_the_betting = True
    committed_by = Party.DEALER

    def reset(self) -> None:
        self.live: set[int] = set()
        self.tabled: set[int] = set()
        self.exposed: dict[int, set[str]] = {}
        self.reported: set[int] = set()

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if snapshot.phase not in ("complete", "idle", "dealing"):
            self.live = set(snapshot.active)
        if isinstance(event, CardsTabled) and event.seat is not None:
            self.tabled.add(event.seat)
        elif isinstance(event, CardExposed) and event.seat is not None and event.card:
            self.exposed.setdefault(event.seat, set()).add(event.card)
        elif isinstance(event, CardsMucked) and event.seat is not None:
            self.live.discard(event.seat)
        elif isinstance(event, Declaration) and event.word == "fold" and event.seat is not None:
            self.live.discard(event.seat)  # a fold said (or keyed where no camera sees the cards go) is final
        if not isinstance(event, PotPushed) or event.seat is None or len(self.live) < 2 or cards_unseen(snapshot):
            return []
        seat = event.seat
        shown = seat in self.tabled or len(self.exposed.get(seat, ())) >= snapshot.hole_cards_per_player
        if shown or seat in self.reported:
            return []
        self.reported.add(seat)
        others = sorted(self.live - {seat})
        return [self.violation(
            snapshot, event, title="Pot pushed to a hand not tabled",
            observed=f"Seat {seat} was pushed the pot without all its cards face up while seat(s) "
            f"{seat_list(others)} still held live cards.",
            ruling="To win any part of a pot a player must table all his cards face up, readable by the dealer "
            "and the players (TDA-6A, TDA22-19); the dealer asks him to show all his cards, and calls the floor "
            "if he refuses (TDA-8A).")]
