"""A finished hand as the rules layer hands it over: what the hand-history writers and the hand store read.

The rules layer (``tablewatch.rules.table``) builds a ``FinishedHand`` when a hand ends; ``tablewatch.history``
writes it as PHH and OHH and keeps it. Neither side needs the other's code: the game a hand was played at is
seen through ``HandGame``, the few facts of the game the writers read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Protocol

from pokerkit import Poker, State

from tablewatch.events import Violation


class HandGame(Protocol):
    """The game of a hand as the writers see it (``tablewatch.rules.game.GameConfig`` is one). Amounts are in
    units of ``currency_unit``."""

    @property
    def variant(self) -> str: ...
    @property
    def structure(self) -> str: ...  # NL, PL or FL
    @property
    def hole_cards(self) -> int: ...
    @property
    def hi_lo(self) -> bool: ...
    @property
    def seat_count(self) -> int: ...
    @property
    def small_blind(self) -> int: ...
    @property
    def big_blind(self) -> int: ...
    @property
    def ante(self) -> int: ...
    @property
    def big_blind_ante(self) -> int: ...
    @property
    def button_ante(self) -> int: ...
    @property
    def currency_unit(self) -> Decimal: ...
    @property
    def currency_symbol(self) -> str: ...


@dataclass(frozen=True, kw_only=True)
class ActionRecord:
    """One betting action as ruled, in PHH terms: ``f``, ``cc`` (check/call), ``cbr`` (to ``amount``) or, in stud,
    ``pb`` (the bring-in posted)."""

    seat: int
    street: str
    kind: str
    amount: int | None
    ts: float
    basis: str = ""


@dataclass(frozen=True, kw_only=True)
class Push:
    """One pot (or share of one) as pokerkit awards it."""

    pot_index: int
    amount: int
    winners: tuple[int, ...]  # seats
    amounts: tuple[tuple[int, int], ...]  # (seat, amount)


@dataclass(frozen=True, kw_only=True)
class Burn:
    """A card burned, on the phase of the hand it was burned in (its face when the camera read it)."""

    phase: str
    card: str | None
    ts: float


@dataclass(frozen=True, kw_only=True)
class EventTime:
    """When one event of the hand reached the rules layer (``seat``: its seat, if it has one)."""

    kind: str
    seat: int | None
    ts: float


@dataclass(frozen=True, kw_only=True)
class FinishedHand:
    table: str
    hand_no: int
    config: HandGame
    phh_variant: str | None  # the PHH code of the hand's game; None: PHH has none for it
    button: int
    order: tuple[int, ...]  # seats in pokerkit/PHH order: first left of the button, button last
    starting_stacks: dict[int, int]
    final_stacks: dict[int, int]
    actions: tuple[ActionRecord, ...]
    hole_cards: dict[int, tuple[str | None, ...]]
    board: tuple[str | None, ...]
    pushes: tuple[Push, ...]
    violations: tuple[Violation, ...]
    burns: tuple[Burn, ...]
    event_times: tuple[EventTime, ...]
    notes: tuple[str, ...]
    started_ts: float
    ended_ts: float | None
    blinds: tuple[tuple[int, int], ...] = ()
    unawarded: int = 0  # chips pokerkit could not award (every contender's cards unread) nor the dealer's pushes
    dealer: str | None = None  # who dealt it, as the console named them
    players: dict[int, str] = field(default_factory=dict)  # seat → the player's name, where the console named them
    started_at: float | None = None  # when it started on the wall clock (Unix seconds; None: a replay's hand)
    state: State = field(repr=False, compare=False)
    game: Poker = field(repr=False, compare=False)

    @property
    def winnings(self) -> dict[int, int]:
        return {seat: self.final_stacks[seat] - self.starting_stacks[seat] for seat in self.order}
