"""Club rule TDA-64 (EX-31): a player who moves all-in in three hands in a row gets a warning; further
repeats may be penalised as unsporting play. Off unless the profile sets the count."""

from __future__ import annotations

from tablewatch.events import Event, HandStarted, Severity, Violation
from tablewatch.rules.checks.base import BETTING_PHASES, HandCheck
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import HandSnapshot


class ConsecutiveAllInCheck(HandCheck):
    rule_id = "TDA-64"

    def __init__(self, profile: RuleProfile) -> None:
        self.streak: dict[int, int] = {}  # seat -> hands in a row with an all-in, kept across hands
        self.seats: tuple[int, ...] = ()
        self.all_in: set[int] = set()
        super().__init__(profile)

    def reset(self) -> None:
        """Close the previous hand: a seat dealt in without an all-in starts again from zero."""
        for seat in self.seats:
            self.streak[seat] = self.streak.get(seat, 0) + 1 if seat in self.all_in else 0
        self.seats, self.all_in = (), set()

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        limit = self.profile.consecutive_all_ins_warning
        if isinstance(event, HandStarted):
            self.seats = tuple(event.seats)
            return []  # its snapshot is still the previous hand's
        if limit is None or snapshot.phase not in BETTING_PHASES:
            return []
        found = []
        for seat in sorted(set(snapshot.all_in) - self.all_in):
            self.all_in.add(seat)
            count = self.streak.get(seat, 0) + 1
            if count >= limit:
                found.append(self._say(snapshot, event, seat, count, warn=count == limit))
        return found

    def _say(self, snapshot: HandSnapshot, event: Event, seat: int, count: int, *, warn: bool) -> Violation:
        return self.violation(
            snapshot, event, seats=(seat,), severity=Severity.ADVISORY if warn else Severity.VIOLATION,
            title=f"All-in {count} hands in a row",
            observed=f"Seat {seat} has been all-in in {count} hands in a row.",
            ruling=("Club rule: after three consecutive all-ins the player gets a warning (TDA-64)." if warn else
                    "Club rule: repeated consecutive all-ins after a warning may be penalised as unsporting play "
                    "(TDA-64); the TD decides."))
