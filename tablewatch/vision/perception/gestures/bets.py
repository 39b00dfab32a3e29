"""Bets, taps and hands in other zones: a player's arm over the table, episode by episode.

Each run of the hand beyond the seat's betting line is one forward motion, released at the run's deepest point.
When the episode ends and the table settles: new chips in the bet zone → ``BetMotion`` (``ChipsMoved`` before
the deal: a blind or an ante); cards slid there → ``CardsMucked`` (``CardsTabled`` face up); a brief reach to
the line that moved no chips → ``Tap``. A hand entering another seat's zone or the pot → ``HandInZone``.
"""

from __future__ import annotations

import numpy as np

from tablewatch.calibration.layout import TableLayout
from tablewatch.events import (
    BetMotion,
    CardsMucked,
    CardsTabled,
    Chips,
    ChipsMoved,
    Event,
    HandInZone,
    Tap,
    Zone,
    bet_zone,
    stack_zone,
)
from tablewatch.vision.perception.appearance import CARDS_APART
from tablewatch.vision.perception.gestures.model import (
    Episode,
    EventMaker,
    Found,
    GestureConfig,
    Sample,
    SettleKind,
    TableState,
    doubts,
)


class BetsAndTaps:
    """Opens, closes and decides the players' episodes (``TableState.open`` and ``closed``)."""

    def __init__(self, layout: TableLayout, state: TableState, make: EventMaker, config: GestureConfig) -> None:
        self.layout, self.state, self.make, self.config = layout, state, make, config
        # actor -> where its still "arm" lies (ignored there), and when it was last seen there
        self.parked: dict[str, tuple[tuple[float, float], float]] = {}

    def arm(self, actor: str, sample: Sample) -> list[Event]:
        """A player's arm seen in a frame: its episode goes on (or begins). One that stays still ``parked_s``
        ends its episode and is ignored until it moves: a gesture moves, and an episode held open holds every
        decision after its start (vision's horizon) until it ends."""
        if self._back_at_rest(actor, sample):
            return []
        state = self.state
        ep = state.open.setdefault(actor, self._episode(actor))
        ep.samples.append(sample)
        if sample.depth > self.config.line_depth_mm:
            ep.crossed = True
        elif not ep.crossed:
            # A hand resting on the felt from the blinds into the deal: its next motion is an action.
            ep.hand_open = state.hand_open
        out = self._entered(ep, sample)
        if self._at_rest(ep, sample.t):
            state.closed.append(state.open.pop(actor))
            self.parked[actor] = (sample.tip, sample.t)
            return out
        if self._bet_settled(ep, sample.t):
            out += self.decided(ep)
            state.open[actor] = self._episode(actor, samples=[sample], after_bet=True)
        return out

    def _back_at_rest(self, actor: str, sample: Sample) -> bool:
        """The arm is where it lies still: ignored. An episode that went out from there ends on its return (left
        open, it would last until the arm counts as still again, and hold every decision after its start)."""
        parked = self.parked.get(actor)
        if parked is None or _distance(sample.tip, parked[0]) > self.config.parked_mm:
            return False
        self.parked[actor] = (parked[0], sample.t)
        ep = self.state.open.pop(actor, None)
        if ep is not None and ep.samples:
            self.state.closed.append(ep)
        return True

    def _at_rest(self, ep: Episode, t: float) -> bool:
        """The arm has been seen for ``parked_s`` and has not moved over that time, somewhere no player rests a
        hand: another seat's place, the pot, the board (a hand resting at its own stack may still take chips)."""
        since = t - self.config.parked_s
        if ep.samples[0].t > since or not _not_his(ep.samples[-1].zone, ep.seat):
            return False
        tip = ep.samples[-1].tip
        return all(_distance(s.tip, tip) <= self.config.parked_mm for s in ep.samples if s.t >= since)

    def _episode(self, actor: str, *, samples: list[Sample] | None = None, after_bet: bool = False) -> Episode:
        return Episode(actor=actor, samples=samples or [], hand_open=self.state.hand_open, after_bet=after_bet,
                       config=self.config)

    def close_stale(self, t: float) -> None:
        """Episodes of arms unseen for ``gap_s`` end (an arm seen again after a gap is a new episode, whatever
        the frame rate)."""
        for actor, ep in list(self.state.open.items()):
            if t - ep.last > self.config.gap_s:
                self.state.closed.append(self.state.open.pop(actor))
        self.parked = {a: p for a, p in self.parked.items() if t - p[1] <= self.config.parked_kept_s}

    def due(self, t: float) -> list[Episode]:
        """The ended episodes to decide now, taken from ``closed``: what they moved has settled, or it is a
        string bet (wanted at once)."""
        due = [e for e in self.state.closed if t - e.last >= self.config.decide_s or e.string_bet]
        for ep in due:
            self.state.closed.remove(ep)
        return due

    def horizon(self, t: float) -> list[float]:
        """The earliest times the episodes not decided yet may stamp their events with."""
        return [*(ep.may_stamp_from(t) for ep in self.state.open.values() if ep.samples),
                *(ep.may_stamp_from(ep.last) for ep in self.state.closed if ep.samples)]

    def _bet_settled(self, ep: Episode, t: float) -> bool:
        """A bet made while the player's hand stays on the felt (resting on or by the stack): decided once the
        hand has been back behind the line ``settled_bet_s`` since the last motion, not when it leaves."""
        if ep.samples[-1].depth > self.config.line_depth_mm:
            return False
        times = ep.motions()
        return bool(times) and t - times[-1] >= self.config.settled_bet_s

    def _entered(self, ep: Episode, s: Sample) -> list[Event]:
        """The hand's first time in another seat's zone or the pot."""
        seat = ep.seat
        zone = Zone.parse(s.zone)
        interesting = s.zone == "pot" or (zone.seat is not None and zone.seat != seat)
        if not interesting or s.zone in ep.zones_entered:
            return []
        ep.zones_entered.add(s.zone)
        return [self.make(HandInZone, s.t, seat=seat, actor=ep.actor, zone=s.zone)]

    def decided(self, ep: Episode) -> list[Event]:
        """What an episode did, once what it moved has settled."""
        state, seat = self.state, ep.seat
        window = found_during(state, ep, self.config)
        bet, stack = bet_zone(seat), stack_zone(seat)
        times = ep.motions()
        chips_in = any(f.zone == bet and f.what == SettleKind.CHIPS_IN for f in window)
        # Cards gone from beside the stack with chips come into the bet zone are a bet, not a fold: a large push
        # uncovers felt where the cards' edge lay, and no one folds by putting chips forward.
        cards_went = any((f.zone == stack and f.what == SettleKind.CARD_OUT and not chips_in)
                         or (f.zone == bet and f.what == SettleKind.CARD_IN) for f in window)
        shown = one_a_place([f for f in window if f.zone == bet and f.what == SettleKind.CARD_IN and f.face_up])
        if cards_went and seat not in state.mucked:
            state.mucked.add(seat)
            at = times[-1] if times else ep.last
            if shown:  # turned face up in front of the player: a showdown, not a fold
                return [self.make(CardsTabled, at, seat=seat, cards=tuple(f.card for f in shown if f.card),
                                  doubts=doubts(*shown))]
            return [self.make(CardsMucked, at, seat=seat, count=2)]
        if cards_went:
            return []
        chips: Chips = Chips()
        for f in window:
            if f.zone == bet and f.what == SettleKind.CHIPS_IN:
                chips = chips + Chips.of(f.chips)
        chip_evidence = chips.count > 0 or any(f.zone == stack and f.what.is_chips and f.chips for f in window)
        if times and (chip_evidence or not self._dwells(ep, seat) or not ep.short):
            return self._bet(ep, seat, times, chips)
        if ep.short and not chip_evidence and not ep.after_bet and ep.reaches_line and not self._elsewhere(ep, seat):
            return [self.make(Tap, max(self._at_deepest(ep, seat)), seat=seat)]
        return []

    def _elsewhere(self, ep: Episode, seat: int) -> bool:
        """The hand's farthest point lies in another seat's place or the dealer's: a player taps in front of
        himself."""
        origin = self.layout.seat(seat).player
        deepest = max(ep.samples, key=lambda s: np.hypot(*np.subtract(s.tip, origin)))
        return _not_his(deepest.zone, seat)

    def _bet(self, ep: Episode, seat: int, times: list[float], chips: Chips) -> list[Event]:
        bet = bet_zone(seat)
        entered = next((s.t for s in ep.samples if s.zone == bet), times[0])
        self.state.chips_moved.append(seat)
        self.state.bet_at = max(self.state.bet_at, times[-1])
        hand = self.make(HandInZone, entered, seat=seat, actor=ep.actor, zone=bet)
        if not ep.hand_open:  # a blind or an ante before the cards: no action
            return [hand, self.make(ChipsMoved, times[-1], seat=seat, src=stack_zone(seat), dst=bet, chips=chips)]
        return [hand, self.make(BetMotion, times[-1], seat=seat, chips=chips, motions=len(times),
                                motion_times=tuple(round(x, 3) for x in times))]

    def _at_deepest(self, ep: Episode, seat: int) -> list[float]:
        """Times the hand was at (within ``dwell_mm`` of) its farthest point from the player."""
        origin = self.layout.seat(seat).player
        deepest = max(ep.samples, key=lambda s: np.hypot(*np.subtract(s.tip, origin)))
        return [s.t for s in ep.samples if np.hypot(*np.subtract(s.tip, deepest.tip)) < self.config.dwell_mm]

    def _dwells(self, ep: Episode, seat: int) -> bool:
        """A tap rests on the felt a moment; a bet releases its chips and the hand comes straight back."""
        times = self._at_deepest(ep, seat)
        return max(times) - min(times) >= self.config.dwell_s


def _not_his(zone: str, seat: int) -> bool:
    """Another seat's place, or the dealer's (pot, board, burn, muck)."""
    place = Zone.parse(zone)
    return (place.seat is not None and place.seat != seat) or zone.split(".")[0] in ("pot", "board", "burn", "muck")


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return float(np.hypot(a[0] - b[0], a[1] - b[1]))


def one_a_place(cards: list[Found]) -> list[Found]:
    """Face-up cards found in turn, one a place: a region settling again over cards already read (part of a hand
    tabled, the cards straightened) is those cards read again, not another one beside them."""
    kept: list[Found] = []
    for card in cards:
        if all(_distance(card.centre, k.centre) >= CARDS_APART for k in kept):
            kept.append(card)
    return kept


def found_during(state: TableState, ep: Episode, config: GestureConfig) -> list[Found]:
    """What was found settling from just before the episode until ``decide_s`` after it."""
    return [f for f in state.found if ep.start - config.lead_s <= f.t <= ep.last + config.decide_s]


def moved_chips(decided: list[Event]) -> bool:
    """Whether an episode's decision moved the player's chips (a bet's chips leave the stack)."""
    return any(isinstance(e, BetMotion | ChipsMoved) for e in decided)
