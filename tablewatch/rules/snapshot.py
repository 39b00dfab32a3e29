"""What the betting engine tells the procedure checks: a frozen picture of the hand at one moment.

The engine (``tablewatch.rules.engine``) builds a ``HandSnapshot`` before applying each event; the
procedure checks (``tablewatch.rules.checks``) read it and never touch the engine. Tests of a check can
build snapshots directly: a snapshot is plain data, not a stand-in for the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, Protocol

from tablewatch.events import Event, Violation

Phase = Literal["idle", "dealing", "preflop", "flop", "turn", "river", "third", "fourth", "fifth", "sixth", "seventh",
                "predraw", "draw1", "draw2", "draw3", "showdown", "complete"]  # (stud's streets, the draw games')


@dataclass(frozen=True, kw_only=True)
class HandSnapshot:
    table: str
    hand_no: int
    phase: Phase  # "dealing" until every hole card is out; a street name while that street is bet
    button: int
    seats: tuple[int, ...]  # seats dealt in, ascending
    active: tuple[int, ...]  # seats still holding cards (not folded)
    all_in: tuple[int, ...] = ()
    to_act: int | None = None  # whose turn it is; None when nobody may act
    betting_complete: bool = False  # no one is left to act on this street (the next card may come)
    bets: Mapping[int, int] = field(default_factory=dict)  # chips in front of each seat this street
    stacks: Mapping[int, int] = field(default_factory=dict)  # chips behind, per seat
    pot: int = 0  # collected in the middle from earlier streets
    hole_cards_per_player: int = 2
    hole_cards_dealt: Mapping[int, int] = field(default_factory=dict)  # cards pitched so far, per seat
    board: tuple[str | None, ...] = ()  # board cards so far
    expected_awards: Mapping[int, int] = field(default_factory=dict)  # at showdown: what each seat should get
    draw_game: bool = False  # the players draw between betting rounds: all-in hands are tabled after the last draw
    stud_game: bool = False  # seven cards each, some dealt face up, no board
    discarded: Mapping[int, int] = field(default_factory=dict)  # a draw game's cards thrown away so far, per seat

    @classmethod
    def of(cls, **values: Any) -> HandSnapshot:
        """The snapshot of these values, one for every field: what ``__init__`` makes, made without paying for each
        field as a frozen dataclass's ``__init__`` does (the engine builds one before nearly every event)."""
        if values.keys() != _FIELDS.keys():
            raise TypeError(f"HandSnapshot.of needs every field: missing {sorted(_FIELDS.keys() - values.keys())}, "
                            f"unknown {sorted(values.keys() - _FIELDS.keys())}")
        snapshot = object.__new__(cls)
        snapshot.__dict__.update(values)  # (the frozen guard is on attribute assignment, not on the instance dict)
        return snapshot


_FIELDS = {f.name: f for f in fields(HandSnapshot)}


class Check(Protocol):
    """A procedure check: one rule (or a family sharing one rule id prefix), one small unit.

    ``observe`` is called for every event with the snapshot taken just before the event is applied;
    a check keeps whatever it needs across events itself (it is created anew for each table).
    """

    rule_id: str

    def observe(self, snapshot: HandSnapshot, event: Event) -> list[Violation]: ...
