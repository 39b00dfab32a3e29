"""A small table driver for engine tests: start a hand, act with physical events, read the engine."""

from __future__ import annotations

from collections.abc import Sequence

from tablewatch.events import (
    BetMotion,
    BoardCardDealt,
    CardBurned,
    CardDealt,
    Chips,
    Declaration,
    Event,
    HandEnded,
    HandStarted,
    Tap,
    Violation,
)
from tablewatch.hands import FinishedHand
from tablewatch.rules.betting import BettingView
from tablewatch.rules.engine import HandEngine
from tablewatch.rules.game import GameConfig
from tablewatch.rules.physical import physical_events
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import Check
from tablewatch.rules.table import TableRules


class Hand:
    """One hand at a test table. ``stacks`` maps seat → chips; the button is the last seat unless given."""

    def __init__(self, config: GameConfig, stacks: dict[int, int], *, button: int | None = None,
                 cards: dict[int, str] | None = None, profile: RuleProfile | None = None,
                 blinds: tuple[tuple[int, int], ...] = (), checks: Sequence[Check] = ()) -> None:
        self.config = config
        self.rules = TableRules(config, table="T", profile=profile, checks=list(checks), strict=True)
        self.ts = 0.0
        seats = tuple(sorted(stacks))
        self.button = button if button is not None else seats[-1]
        self.found: list[Violation] = []
        self.feed(HandStarted, hand_no=1, button=self.button, seats=seats,
                  stacks=tuple(stacks[s] for s in seats), blinds=blinds)
        order = self.engine.hand.order
        for r in range(config.hole_cards):
            for seat in order:
                card = cards[seat][2 * r:2 * r + 2] if cards and seat in cards else None
                self.feed(CardDealt, seat=seat, card=card)
        self.slot = 0

    @property
    def engine(self) -> HandEngine:
        engine = self.rules.current or self.rules.last
        assert engine is not None
        return engine

    def view(self, seat: int) -> BettingView:
        return self.engine.view(seat)

    def feed(self, cls: type[Event], **fields: object) -> list[Violation]:
        self.ts += 1.0
        found = self.rules.feed(cls(ts=self.ts, table="T", source="sim", **fields))  # type: ignore[arg-type]
        self.found += found
        return found

    def act(self, seat: int, action: str, *, motions: int = 1) -> list[Violation]:
        """A PHH action (``f``, ``cc``, ``cbr 600``) performed as physical events."""
        self.ts += 1.0
        events = physical_events(action, view=self.view(seat), table="T", seat=seat, ts=self.ts,
                                 denominations=self.config.chip_denominations, motions=motions)
        found: list[Violation] = []
        for event in events:
            found += self.rules.feed(event)
        self.ts = max(e.ts for e in events)
        self.found += found
        return found

    def chips(self, seat: int, counts: dict[int, int], *, prior: dict[int, int] | None = None,
              motions: int = 1, values: tuple[int, ...] = ()) -> list[Violation]:
        return self.feed(BetMotion, seat=seat, chips=Chips.of(counts), motions=motions,
                         prior=Chips.of(prior or {}), motion_values=values)

    def say(self, seat: int, word: str, amount: int | None = None) -> list[Violation]:
        return self.feed(Declaration, seat=seat, word=word, amount=amount)

    def tap(self, seat: int) -> list[Violation]:
        return self.feed(Tap, seat=seat)

    def board(self, *cards: str | None) -> None:
        self.feed(CardBurned, card=None)
        for card in cards:
            self.feed(BoardCardDealt, card=card, slot=self.slot)
            self.slot += 1

    def end(self) -> FinishedHand:
        self.feed(HandEnded, hand_no=1)
        return self.rules.finished[-1]

    def bets(self) -> dict[int, int]:
        return dict(self.engine.snapshot().bets)
