"""Presence at the seat: away when the last card of the initial deal is dealt (TDA-20), and leaving the
table with a live hand (TDA-21). Presence comes from ``PlayerPresence`` events; a seat never reported
absent counts as present."""

from __future__ import annotations

from tablewatch.events import (
    CardDealt,
    CardsMucked,
    Declaration,
    Event,
    HandStarted,
    PlayerPresence,
    Severity,
    Violation,
)
from tablewatch.rules.checks.base import BETTING_PHASES, HandCheck, is_action
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import HandSnapshot

DEAD_HAND = (
    "The hand is dead: the dealer mucks it right after the deal, without the player looking at it; his blinds "
    "and ante stay in the pot. He cannot play it even if he comes back before his turn (TDA-20)."
)


class AbsentAtDealCheck(HandCheck):
    """TDA-20: a player must be within reach of his seat when the last card of the initial deal is dealt."""

    rule_id = "TDA-20"

    def __init__(self, profile: RuleProfile) -> None:
        super().__init__(profile)
        self.presence: dict[int, tuple[bool, float]] = {}  # seat -> (present, since); kept across hands

    def concerns(self, event: Event) -> bool:
        """Presence; the deal's cards until its last; anything while a seat away at the last card is judged or its
        hand is dead."""
        return isinstance(event, PlayerPresence) or (self.t_last is None and isinstance(event, CardDealt)) or bool(
            self.candidates or self.dead)

    def reset(self) -> None:
        self.seats: tuple[int, ...] = ()
        self.dealt = 0
        self.t_last: float | None = None
        self.candidates: set[int] = set()  # absent at the last card, until the window has passed
        self.dead: set[int] = set()
        self.mucked: set[int] = set()

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        found = self._decide(snapshot, event)
        if isinstance(event, HandStarted):
            self.seats = tuple(event.seats)
        elif isinstance(event, PlayerPresence) and event.seat is not None:
            self._presence(event)
        elif isinstance(event, CardDealt) and self.t_last is None:
            self._card(snapshot, event)
            found += self._decide(snapshot, event)
        elif _is_fold(event) and event.seat in self.dead | self.candidates:
            self.mucked.add(event.seat)
        elif is_action(event):
            found += self._dead_hand_in_play(snapshot, event)
        return found

    def _dead_hand_in_play(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        """The dead hand must be mucked before the first action; it may never act."""
        if not self.dead - self.mucked:
            return []
        if event.seat in self.dead and event.seat not in self.mucked:
            self.mucked.add(event.seat)  # say it once
            return [self.violation(
                snapshot, event, title="Dead hand played", ruling=DEAD_HAND,
                observed=f"Seat {event.seat}, away at the last card of the deal, acted on the hand.")]
        unmucked = sorted(self.dead - self.mucked)
        self.mucked |= self.dead
        return [self.violation(
            snapshot, event, title="Dead hand not mucked", seats=(seat,), ruling=DEAD_HAND,
            observed=f"Seat {seat}, away at the last card of the deal, still had cards when the betting began.")
            for seat in unmucked]

    def _presence(self, event: PlayerPresence) -> None:
        seat = event.seat
        assert seat is not None
        was_present = self.presence.get(seat, (True, 0.0))[0]
        if event.present != was_present:
            self.presence[seat] = (event.present, event.ts)
        window = self.profile.presence_window_s
        if event.present and self.t_last is not None and event.ts <= self.t_last + window:
            self.candidates.discard(seat)

    def _card(self, snapshot: HandSnapshot, event: CardDealt) -> None:
        seats = self.seats or snapshot.seats
        self.dealt += 1
        if self.dealt < snapshot.hole_cards_per_player * len(seats):
            return
        self.t_last = event.ts
        window = self.profile.presence_window_s
        self.candidates = {
            s for s in seats
            if not self.presence.get(s, (True, 0.0))[0] and self.presence[s][1] <= event.ts - window
        }

    def _decide(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if self.t_last is None or not self.candidates or event.ts < self.t_last + self.profile.presence_window_s:
            return []
        found = [self.violation(
            snapshot, event, severity=Severity.ADVISORY, title="Player away at the last card: dead hand",
            seats=(seat,), evidence_ts=(self.t_last, self.presence[seat][1]),
            observed=f"Seat {seat} was away from the seat (since {self.presence[seat][1]:.1f} s) when the last card "
            f"of the initial deal was dealt at {self.t_last:.1f} s.",
            ruling=DEAD_HAND) for seat in sorted(self.candidates)]
        self.dead |= self.candidates
        self.candidates = set()
        return found


def _is_fold(event: Event) -> bool:
    return isinstance(event, CardsMucked) or (isinstance(event, Declaration) and event.word == "fold")


class LeftWithLiveHandCheck(HandCheck):
    """TDA-21: a player with live cards (all-in included) stays at the table until the hand is over."""

    rule_id = "TDA-21"

    def __init__(self, profile: RuleProfile) -> None:
        super().__init__(profile)
        self.away_since: dict[int, float] = {}  # kept across hands

    def concerns(self, event: Event) -> bool:
        return isinstance(event, PlayerPresence) or bool(self.away_since)  # (time away counts at any event)

    def reset(self) -> None:
        self.hand_start: float | None = None
        self.reported: set[int] = set()

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if isinstance(event, HandStarted):
            self.hand_start = event.ts
        if isinstance(event, PlayerPresence) and event.seat is not None:
            if event.present:
                self.away_since.pop(event.seat, None)
            else:
                self.away_since.setdefault(event.seat, event.ts)
        if snapshot.phase not in (*BETTING_PHASES, "showdown") or self.hand_start is None:
            return []
        return [self._left(snapshot, event, seat, since) for seat, since in sorted(self.away_since.items())
                if self._overdue(snapshot, event, seat, since)]

    def _overdue(self, snapshot: HandSnapshot, event: Event, seat: int, since: float) -> bool:
        assert self.hand_start is not None
        if seat in self.reported or seat not in snapshot.active or since < self.hand_start:
            return False  # away since before the hand: that is TDA-20's dead hand, not leaving
        return event.ts - since >= self.profile.absent_live_hand_s

    def _left(self, snapshot: HandSnapshot, event: Event, seat: int, since: float) -> Violation:
        self.reported.add(seat)
        penalty = self.profile.left_live_hand_penalty
        return self.violation(
            snapshot, event, severity=Severity.VIOLATION if penalty else Severity.ADVISORY, seats=(seat,),
            title="Player left the table with a live hand", evidence_ts=(since,),
            observed=f"Seat {seat} holds a live hand and has been away for {event.ts - since:.0f} s.",
            ruling="A player with a live hand, all-in included, must stay at the table until the hand is over; "
            + ("leaving is penalised (TDA22-31)." if penalty else "he bears the risk if his hand is misread "
               "(001 TDA-21)."))


class LongAbsenceCheck(HandCheck):
    """Club rule TDA-63 (ENG-36, EX-30): a player away from the table for an hour may have his chips removed by the TD.
    While away he is dealt in and posts (TDA-20 mucks his hands). Off unless the profile sets a time."""

    rule_id = "TDA-63"

    def __init__(self, profile: RuleProfile) -> None:
        super().__init__(profile)
        self.away_since: dict[int, float] = {}  # kept across hands
        self.reported: set[int] = set()

    @property
    def on(self) -> bool:
        return self.profile.long_absence_s is not None

    def concerns(self, event: Event) -> bool:
        return self.on and (isinstance(event, PlayerPresence) or bool(self.away_since))

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        limit = self.profile.long_absence_s
        if limit is None:
            return []
        if isinstance(event, PlayerPresence) and event.seat is not None:
            if event.present:
                self.away_since.pop(event.seat, None)
                self.reported.discard(event.seat)
            else:
                self.away_since.setdefault(event.seat, event.ts)
        due = sorted(s for s, since in self.away_since.items() if s not in self.reported and event.ts - since >= limit)
        self.reported.update(due)
        return [self.violation(
            snapshot, event, severity=Severity.ADVISORY, seats=(seat,), title="Player away for an hour",
            evidence_ts=(self.away_since[seat],),
            observed=f"Seat {seat} has been away from the table for {(event.ts - self.away_since[seat]) / 60:.0f} "
            "minutes.",
            ruling="Club rule: after an hour away the TD may remove the player's chips; until then his stack stays, "
            "he is dealt in and pays all forced bets (TDA-63).") for seat in due]
