"""``Gestures``: arms and classified settles over time → events (``source="vision"``), one recogniser per family
of gestures fed in a fixed order, sharing only a ``TableState``."""

from __future__ import annotations

from tablewatch.calibration.layout import TableLayout
from tablewatch.events import Event
from tablewatch.vision.perception.gestures.bets import BetsAndTaps, moved_chips
from tablewatch.vision.perception.gestures.cards import CardSettles
from tablewatch.vision.perception.gestures.model import (
    DEFAULT_CONFIG,
    Episode,
    EventMaker,
    Found,
    GestureConfig,
    Sample,
    SettleRecogniser,
    TableState,
)
from tablewatch.vision.perception.gestures.obscured import ObscuredStacks
from tablewatch.vision.perception.gestures.pocketing import ChipsLeavingTable
from tablewatch.vision.perception.gestures.pot import GathersAndPushes
from tablewatch.vision.perception.scene import Arm


class Gestures:
    """Turns arms and classified settles into events. Per analysed frame: ``arms``, ``settled`` for each
    settle, ``decide``, ``obscured``; ``horizon`` says how far back an event still to come may be stamped."""

    def __init__(self, layout: TableLayout, *, table: str, hand_in_progress: bool = False,
                 config: GestureConfig = DEFAULT_CONFIG) -> None:
        self.layout, self.config = layout, config
        self.state = TableState(hand_open=hand_in_progress)
        make = EventMaker(table)
        self.bets = BetsAndTaps(layout, self.state, make, config)
        self.cards = CardSettles(self.state, make, config)
        self.pot = GathersAndPushes(layout, self.state, make, config, hand_in_progress=hand_in_progress)
        self.pocketing = ChipsLeavingTable(layout, self.state, make, config)
        self.obscured_stacks = ObscuredStacks(self.state, make, config)
        self.settle_readers: tuple[SettleRecogniser, ...] = (self.cards, self.pot)
        self.log: list[Found] | None = None  # every classified settle, when a caller wants to look

    # --- the shared state, for callers and tests ----------------------------------------------------------

    @property
    def open(self) -> dict[str, Episode]:
        return self.state.open

    @property
    def closed(self) -> list[Episode]:
        return self.state.closed

    @property
    def chips_moved(self) -> list[int]:
        """Seats whose stacks changed for a reason since the caller last cleared this (for the stack watch)."""
        return self.state.chips_moved

    @property
    def hand_open(self) -> bool:
        return self.state.hand_open

    @hand_open.setter
    def hand_open(self, value: bool) -> None:
        self.state.hand_open = value

    # --- per frame ----------------------------------------------------------------------------------------

    def arms(self, t: float, arms: list[Arm]) -> list[Event]:
        """The arms seen in the frame at ``t``: the dealer's to the pot's recogniser, the players' to the bets'."""
        out: list[Event] = []
        self.bets.close_stale(t)  # an arm seen again after a gap is a new episode, whatever the frame rate
        for arm in arms:
            sample = Sample.of(arm, t, self.layout)
            out += self.pot.dealer(sample) if arm.actor == "dealer" else self.bets.arm(arm.actor, sample)
        self.pot.forget_before(t - self.config.history_s)
        self.bets.close_stale(t)
        return out

    def settled(self, f: Found) -> list[Event]:
        """A settle classified: kept for the episodes' windows, and read by the cards' and the pot's recognisers."""
        self.state.found.append(f)
        if self.log is not None:
            self.log.append(f)
        self.state.found = [x for x in self.state.found if x.t > f.t - self.config.findings_s]
        out: list[Event] = []
        for reader in self.settle_readers:
            out += reader.settled(f)
        return out

    def decide(self, t: float) -> list[Event]:
        """What is decided at ``t``: the episodes due (and, when they moved no chips of their own, whether chips
        left the table with them; a player's muck may be the hand's last cards), then the gather."""
        out: list[Event] = []
        for ep in self.bets.due(t):
            decided = self.bets.decided(ep)
            out += decided
            if not moved_chips(decided):
                out += self.pocketing.episode_ended(ep)
        self.cards.close_when_cards_gone()
        return out + self.pot.decide(t)

    def obscured(self, t: float, hidden: dict[int, tuple[float, int | None]]) -> list[Event]:
        """Stacks whose largest chips are out of sight (seat → since when, denomination): see ``ObscuredStacks``."""
        return self.obscured_stacks.stacks(t, hidden)

    def horizon(self, t: float) -> float:
        """The earliest time an event still to come may carry, as of the frame at ``t``: what is decided
        later is stamped at its moment (a bet at its last motion, a tap at its deepest point), never before
        its episode began; a gather not yet closed at its first chips less a second; a push at the dealer's
        turn-back, up to half a second earlier; anything else at the frame it is seen in."""
        return min([t, *self.bets.horizon(t), *self.pot.horizon(t)])
