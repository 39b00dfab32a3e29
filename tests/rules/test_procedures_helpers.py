"""Shared helpers of the procedure-check tests (no tests here): a ``Script`` that feeds events to checks with
a snapshot the test sets by hand, the way the engine would have it just before each event."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from tablewatch.events import (
    BetMotion,
    BoardCardDealt,
    CardBurned,
    CardDealt,
    Chips,
    Event,
    HandStarted,
    Tap,
    Violation,
)
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.registry import default_checks
from tablewatch.rules.snapshot import Check, HandSnapshot

TABLE = "T1"


def snap(**fields: Any) -> HandSnapshot:
    """A snapshot of hand 1 at a 3-seat table, button on seat 1, preflop; override any field."""
    seats = tuple(fields.pop("seats", (1, 2, 3)))
    base: dict[str, Any] = {"table": TABLE, "hand_no": 1, "phase": "preflop", "button": 1, "seats": seats,
                            "active": seats}
    base.update(fields)
    return HandSnapshot(**base)


class Script:
    """Events in order, each observed by the checks with the current snapshot; ``found`` collects results."""

    def __init__(self, checks: Check | Sequence[Check] | None = None, *, profile: RuleProfile | None = None,
                 **snapshot: Any) -> None:
        if checks is None:
            checks = default_checks(profile)
        self.checks = list(checks) if isinstance(checks, Sequence) else [checks]
        self.snapshot = snap(**snapshot)
        self.ts = 0.0
        self.found: list[Violation] = []

    def set(self, **fields: Any) -> Script:
        self.snapshot = dataclasses.replace(self.snapshot, **fields)
        return self

    def at(self, ts: float) -> Script:
        self.ts = ts
        return self

    def do(self, cls: type[Event], *, dt: float = 1.0, **fields: Any) -> list[Violation]:
        self.ts += dt
        event = cls(ts=self.ts, table=TABLE, source="sim", **fields)
        out = [v for check in self.checks for v in check.observe(self.snapshot, event)]
        self.found += out
        return out

    # --- common steps ---------------------------------------------------------------------------------

    def start(self, *, hand_no: int = 1, button: int | None = None, seats: Iterable[int] | None = None,
              stacks: tuple[int, ...] = ()) -> list[Violation]:
        seats = tuple(seats) if seats is not None else self.snapshot.seats
        button = button if button is not None else self.snapshot.button
        out = self.do(HandStarted, hand_no=hand_no, button=button, seats=seats, stacks=stacks)
        self.set(hand_no=hand_no, button=button, seats=seats, active=seats, phase="dealing", board=(),
                 betting_complete=False, to_act=None, bets={}, all_in=())
        return out

    def deal(self, order: Iterable[int] | None = None, *, passes: int = 2, face_up: Iterable[int] = ()
             ) -> list[Violation]:
        """Pitch cards to ``order`` (default: clockwise from the button), ``passes`` times; ``face_up`` are
        0-based indexes of the cards dealt face up."""
        if order is None:
            seats = self.snapshot.seats
            first = next((i for i, s in enumerate(seats) if s > self.snapshot.button), 0)
            order = seats[first:] + seats[:first]
        order = list(order)
        face_up = set(face_up)
        out: list[Violation] = []
        for index, seat in enumerate(order * passes):
            out += self.do(CardDealt, dt=0.2, seat=seat, face_up=index in face_up)
        return out

    def preflop(self, to_act: int) -> Script:
        return self.set(phase="preflop", to_act=to_act, betting_complete=False)

    def complete(self) -> Script:
        """The betting round is over: no one to act, the next card may come."""
        return self.set(to_act=None, betting_complete=True, bets={})

    def burn(self, **fields: Any) -> list[Violation]:
        return self.do(CardBurned, **fields)

    def board(self, *slots: int, cards: Sequence[str | None] | None = None) -> list[Violation]:
        out: list[Violation] = []
        for i, slot in enumerate(slots):
            card = cards[i] if cards is not None else None
            out += self.do(BoardCardDealt, dt=0.3, slot=slot, card=card)
        return out

    def street(self, phase: str, to_act: int) -> Script:
        """The engine has taken the street's cards: betting on ``phase`` begins with ``to_act``."""
        return self.set(phase=phase, to_act=to_act, betting_complete=False, bets={})

    def check(self, seat: int) -> list[Violation]:
        return self.do(Tap, seat=seat)

    def bet(self, seat: int, amount: int) -> list[Violation]:
        return self.do(BetMotion, seat=seat, chips=Chips.of({amount: 1}))


def ids(violations: Iterable[Violation]) -> list[str]:
    return [v.rule_id for v in violations]
