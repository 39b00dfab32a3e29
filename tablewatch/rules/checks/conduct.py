"""Conduct a camera can see, off unless the venue's profile asks for it:
- club rule TDA-64 (ENG-35, EX-31): a player who moves all-in in three hands in a row gets a warning; further
  repeats may be penalised as unsporting play;
- the live-tournament "bet the nuts" rule (FAQ-002-L324-326, under TDA-54 soft play; EX-96): the last to
  act on the river who holds the nuts and only checks or calls is logged for the floor's review.
"""

from __future__ import annotations

from tablewatch.events import CardDealt, CardsTabled, Event, HandStarted, Severity, Violation
from tablewatch.rules.checks.base import BETTING_PHASES, HandCheck, is_action, to_call
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.showdown import holds_the_nuts
from tablewatch.rules.snapshot import HandSnapshot


class ConsecutiveAllInCheck(HandCheck):
    rule_id = "TDA-64"
    on_the_betting = True

    def __init__(self, profile: RuleProfile) -> None:
        self.streak: dict[int, int] = {}  # seat -> hands in a row with an all-in, kept across hands
        self.seats: tuple[int, ...] = ()
        self.all_in: set[int] = set()
        super().__init__(profile)

    @property
    def on(self) -> bool:
        return self.profile.consecutive_all_ins_warning is not None

    def concerns(self, event: Event) -> bool:
        return self.on  # (its streaks move at a hand's start, always shown)

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


class NutsNotBetCheck(HandCheck):
    """NUTS_NOT_BET: the river's betting closed on a check or call by a player who could have bet or raised,
    and the cards he shows (or the cards he was dealt, when the table reads them) are the nuts. A check or
    call with players still to act after him is allowed, and is not judged."""

    rule_id = "TDA-54"
    on_the_betting = True

    @property
    def on(self) -> bool:
        return self.profile.nuts_last_to_act_must_bet

    def concerns(self, event: Event) -> bool:
        return self.on and not self.judged

    def reset(self) -> None:
        self.dealt: dict[int, list[str]] = {}
        self.tabled: dict[int, tuple[str, ...]] = {}
        self.last: tuple[int, bool] | None = None  # the river's last in-turn actor; could he bet or raise?
        self.closer: int | None = None  # the seat whose check or call closed the river
        self.board: tuple[str | None, ...] = ()
        self.judged = False

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if not self.profile.nuts_last_to_act_must_bet or self.judged:
            return []
        if isinstance(event, CardDealt) and event.seat is not None and event.card:
            self.dealt.setdefault(event.seat, []).append(event.card)
        elif isinstance(event, CardsTabled) and event.seat is not None:
            self.tabled[event.seat] = event.cards
        if snapshot.phase == "river":
            self.board = snapshot.board
            if event.seat is not None and event.seat == snapshot.to_act and is_action(event):
                self.last = (event.seat, _could_bet(snapshot, event.seat))
        elif snapshot.phase in ("showdown", "complete") and self.last is not None and self.closer is None:
            seat, could_bet = self.last  # the river is over: its last actor checked or called if still in
            self.closer = seat if could_bet and seat in snapshot.active else -1
        return self._judge(snapshot, event) if self.closer is not None and self.closer >= 0 else []

    def _judge(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        seat = self.closer
        assert seat is not None
        cards = self.tabled.get(seat) or tuple(self.dealt.get(seat, ()))
        board = tuple(c for c in self.board if c)
        if len(cards) != snapshot.hole_cards_per_player or len(board) != 5 or len(cards) not in (2, 4):
            return []
        self.judged = True
        if not holds_the_nuts(cards, board):
            return []
        return [self.violation(
            snapshot, event, seats=(seat,), severity=Severity.ADVISORY, title="NUTS_NOT_BET",
            observed=f"Seat {seat} was last to act on the river, held the nuts ({' '.join(cards)} on "
            f"{' '.join(board)}) and checked or called instead of betting or raising.",
            ruling="Live-tournament rule (FAQ-002-L324-326): the last to act holding the nuts must bet or raise; "
            "logged for the floor's review of soft play (TDA-54). With players still to act after him he may "
            "check or call.")]


def _could_bet(snapshot: HandSnapshot, seat: int) -> bool:
    """``seat`` had chips beyond the call and an opponent with chips behind to answer a bet or raise."""
    behind = snapshot.stacks.get(seat, 0) > to_call(snapshot, seat)
    return behind and any(snapshot.stacks.get(s, 0) > 0 for s in snapshot.active if s != seat)
