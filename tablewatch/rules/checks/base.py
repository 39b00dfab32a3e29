"""What every procedure check shares: per-hand state, the Violation it writes, the in-turn action tally.

A check is created anew for each table (``registry.default_checks``) and sees every event with the
snapshot taken just before the engine applied it. It keeps its own state across events and forgets the
hand's state when the next hand starts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from tablewatch.events import (
    BetMotion,
    CardsMucked,
    Declaration,
    Event,
    HandStarted,
    Party,
    Severity,
    Tap,
    Violation,
)
from tablewatch.rules.game import DRAW_STREETS, FLOP_STREETS, STUD_STREETS
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import HandSnapshot

BETTING_PHASES = (*FLOP_STREETS, *STUD_STREETS, *DRAW_STREETS)
LIVE_PHASES = ("dealing", *BETTING_PHASES, "showdown")
STREET_OF_SLOT = {0: "flop", 1: "flop", 2: "flop", 3: "turn", 4: "river"}
ACTION_EVENTS = (BetMotion, Declaration, Tap, CardsMucked)
CHIP_WORDS = frozenset({"call", "bet", "raise", "all-in", "pot"})
ACTION_WORDS = CHIP_WORDS | {"fold", "check"}
_CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
_DECK = frozenset(rank + suit for rank in "23456789TJQKA" for suit in "cdhs")  # (asked of every card seen)


def is_standard_card(card: str) -> bool:
    """A card of the 52-card deck as pokerkit writes it (``"As"``, ``"Td"``); anything else is non-standard."""
    return card in _DECK or bool(_CARD.match(card))


def seat_list(seats: Iterable[int]) -> str:
    return ", ".join(str(s) for s in sorted(seats))


def to_call(snapshot: HandSnapshot, seat: int) -> int:
    """Chips ``seat`` must add to match the largest bet in front this street (0 when it faces no bet)."""
    top = max(snapshot.bets.values(), default=0)
    return max(0, top - snapshot.bets.get(seat, 0))


def is_action(event: Event) -> bool:
    """A player's action on his hand: chips over the line, a tap, a fold, or an action word."""
    if isinstance(event, Declaration):
        return event.word in ACTION_WORDS
    return isinstance(event, ACTION_EVENTS) and event.seat is not None


def puts_chips_in(event: Event) -> bool:
    return isinstance(event, BetMotion) or (isinstance(event, Declaration) and event.word in CHIP_WORDS)


@dataclass
class ActionTally:
    """In-turn actions of one hand, for the substantial-action cut-off (TDA-23 / ENG-18, HOUSE-002-2.5).

    An action counts when it comes from the seat the engine says is to act. The events of one turn (a
    "raise" declaration and then the chips) are one action; blinds are not actions.
    """

    actions: int = 0
    chip_actions: int = 0
    actors: set[int] = field(default_factory=set)
    _turn_seat: int | None = None  # the seat whose action in this turn is already counted
    _turn_has_chips: bool = False

    def observe(self, snapshot: HandSnapshot, event: Event) -> bool:
        """Count ``event`` if it is an in-turn action; True when it started a new action."""
        if snapshot.to_act != self._turn_seat and snapshot.phase != "dealing":
            self._turn_seat, self._turn_has_chips = None, False
        in_turn = event.seat == snapshot.to_act or (snapshot.phase == "dealing" and snapshot.to_act is None)
        if not is_action(event) or event.seat is None or not in_turn:
            return False  # (an engine that has not opened the round yet, e.g. a seat short a card, is "dealing")
        chips = puts_chips_in(event)
        if self._turn_seat == event.seat:  # the same turn: chips after a declaration
            if chips and not self._turn_has_chips:
                self.chip_actions += 1
                self._turn_has_chips = True
            return False
        self._turn_seat, self._turn_has_chips = event.seat, chips
        self.actions += 1
        self.chip_actions += int(chips)
        self.actors.add(event.seat)
        return True

    @property
    def turn_open(self) -> bool:
        """An action of this turn is counted: the next event may end the turn, whatever its kind (the seat to act
        moves on). Otherwise only an action changes the tally."""
        return self._turn_seat is not None

    @property
    def substantial(self) -> bool:
        """TDA-23: two actions in turn with at least one putting chips in, or any three actions in turn."""
        return self.actions >= 3 or (self.actions >= 2 and self.chip_actions >= 1)

    def past_misdeal_cutoff(self, profile: RuleProfile) -> bool:
        """Conflict C9: substantial action (TDA-22D) or two players having acted (HOUSE-002-2.5)."""
        if profile.misdeal_cutoff == "two_players_acted":
            return len(self.actors) >= 2
        return self.substantial


class HandCheck:
    """Base of the procedure checks: resets per-hand state and writes Violations with the hand's context."""

    rule_id: str = ""
    committed_by: Party = Party.PLAYER  # whose error its violations are, unless one says otherwise
    # The kinds of event ``on_event`` acts on (None: every kind). Any other leaves the check as it was and finds
    # nothing, so the table need not show it one (``wants``): most checks watch a few kinds of a busy stream.
    events: ClassVar[tuple[type[Event], ...] | None] = None
    # Whether its findings rest on the engine's betting (whose turn, the round over, the pot, an all-in): while
    # that is a guess (chips a camera alone saw, ``HandState.estimate``) they go out as advisories.
    on_the_betting: ClassVar[bool] = False

    def __init__(self, profile: RuleProfile) -> None:
        self.profile = profile
        self._hand_no: int | None = None
        self.reset()

    def reset(self) -> None:
        """Forget the state of the previous hand (subclasses override and call nothing else)."""

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        raise NotImplementedError

    def wants(self, event: Event, hand_no: int) -> bool:
        """Whether ``observe`` may find anything in ``event`` or change the check, the hand shown being ``hand_no``.
        False only where it would do neither: ``TableRules`` skips those (and the snapshot, when no check wants
        the event). A hand's start, or a hand whose start the check did not see, resets it: always wanted."""
        if isinstance(event, Violation):
            return False
        if isinstance(event, HandStarted) or hand_no != self._hand_no:
            return True
        return self.concerns(event)

    def concerns(self, event: Event) -> bool:
        """``event`` may change the check or be found against (``wants``, a hand's start aside): one of ``events``.
        A check whose interest depends on what it holds (a seat away, a deal under way) says so here."""
        return self.events is None or isinstance(event, self.events)

    @property
    def on(self) -> bool:
        """The profile runs the check (a few are off unless the venue asks for them): off, it concerns nothing but a
        hand's start."""
        return True

    @classmethod
    def route(cls, kind: type[Event]) -> bool | None:
        """``wants`` for a whole kind of event, the same for every check of the class (the table works it out once;
        a check that is not ``on`` wants none): every event of ``kind`` is wanted (True), none is (False), or
        ``concerns`` is asked of each (None: a check whose interest depends on what it holds). It holds while the
        check follows the hand the table shows; a hand's start is always wanted."""
        if issubclass(kind, Violation):
            return False
        if issubclass(kind, HandStarted):
            return True
        if cls.concerns is not HandCheck.concerns:
            return None
        return cls.events is None or issubclass(kind, cls.events)

    def observe(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if isinstance(event, Violation):
            return []
        if isinstance(event, HandStarted):
            self._hand_no = event.hand_no
            self.reset()
        elif snapshot.hand_no != self._hand_no and snapshot.phase in LIVE_PHASES:
            self._hand_no = snapshot.hand_no  # a hand whose start we did not see
            self.reset()
        return self.on_event(snapshot, event)

    def violation(
        self,
        snapshot: HandSnapshot,
        event: Event,
        *,
        title: str,
        observed: str,
        ruling: str,
        rule_id: str | None = None,
        severity: Severity = Severity.VIOLATION,
        seats: Iterable[int] = (),
        evidence_ts: Iterable[float] = (),
        by: Party | None = None,
    ) -> Violation:
        seats = tuple(sorted(set(seats)))
        if not seats and event.seat is not None:
            seats = (event.seat,)
        evidence = tuple(sorted(set(evidence_ts) | {event.ts}))
        hand_no = event.hand_no if isinstance(event, HandStarted) else snapshot.hand_no
        return Violation(
            ts=event.ts,
            table=event.table or snapshot.table,
            source="rules",
            seat=seats[0] if len(seats) == 1 else None,
            rule_id=rule_id or self.rule_id,
            title=title,
            observed=observed,
            ruling=ruling,
            severity=severity,
            by=by or self.committed_by,
            hand_no=hand_no,
            street=snapshot.phase,
            seats=seats,
            evidence_ts=evidence,
        )
