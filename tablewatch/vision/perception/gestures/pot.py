"""The pot: chips gathered into it, and pushed to the winners.

Chips leaving the bet zones or reaching the pot close to each other are one ``PotGathered`` (not a bet zone
changing after a push, before chips go into one again); the dealer's hand turning back at a seat's stack after
the pot (or another stack) is a ``PotPushed`` to that seat, and so are chips coming to rest in a stack whose
player did not move, soon after the pot emptied.
"""

from __future__ import annotations

import numpy as np

from tablewatch.calibration.layout import TableLayout
from tablewatch.events import Event, PotGathered, PotPushed, Zone
from tablewatch.vision.perception.gestures.model import EventMaker, Found, GestureConfig, Sample, SettleKind, TableState


class GathersAndPushes:
    """Follows the dealer's hand (its path over the last ``history_s``) and the chips settling in and out of
    the bets, stacks and pot; writes ``TableState.bet_at`` (chips seen arriving in a bet), ``chips_moved`` (a push)
    and ``hand_open`` (closed by a push)."""

    def __init__(self, layout: TableLayout, state: TableState, make: EventMaker, config: GestureConfig, *,
                 hand_in_progress: bool) -> None:
        self.layout, self.state, self.make, self.config = layout, state, make, config
        self.dealer_path: list[Sample] = []
        self.gather: list[float] = []  # when chips of the gather under way were seen leaving bets or reaching the pot
        # when chips were last gathered into the pot, None when not since it was last pushed (starting in the
        # middle of a hand, there may be some); a pot whose push went unseen is not the next hand's
        self.filled_at: float | None = -1e9 if hand_in_progress else None
        self.pushed: dict[int, float] = {}  # seat → when a pot was last pushed to it
        self.bet_gathered_at = -1e9  # when chips were last seen leaving a bet for the pot

    # --- the dealer's hand ----------------------------------------------------------------------------------

    def dealer(self, s: Sample) -> list[Event]:
        """A pot pushed to a seat: the dealer's hand turns back in that seat's stack zone after visiting the pot
        (with the pot's chips gone) or after a push to another seat (a wrong push corrected). Straight from the
        emptied pot, a turn in the seat's bet zone is a push too: a small pot is slid in front of the player, who
        takes it in (a gather goes the other way, from the bet zone to the pot); not once the pot went to another
        seat."""
        cfg, path = self.config, self.dealer_path
        path.append(s)
        if len(path) < 3 or path[-2].t < s.t - cfg.push_turn_s:
            return []
        origin = np.asarray(self.layout.dealer_position)
        peak, before = path[-2], path[-3]
        reach = [float(np.hypot(*(np.asarray(p.tip) - origin))) for p in (before, peak, s)]
        if not (reach[1] >= reach[0] and reach[1] > reach[2] + cfg.turn_back_mm):
            return []  # the hand is still going out
        zone = Zone.parse(peak.zone)
        seat = zone.seat
        if seat is None or not (zone.is_stack or zone.is_bet):
            return []
        if peak.t - self.pushed.get(seat, -1e9) < cfg.push_again_s:
            return []  # the same push
        zones = [p.zone for p in path if peak.t - cfg.push_path_s <= p.t < peak.t]
        from_pot = self._pot_emptied(peak.t) and "pot" in zones
        if zone.is_bet and (not from_pot or self._moved_on(seat, peak.t)):
            return []  # (the pot gone to another seat, the hand in front of a player is after his cards)
        if not (from_pot or self._moved_on(seat, peak.t)):
            return []  # e.g. an uncalled bet going back to its owner
        return self._pushed(seat, peak.t)

    def forget_before(self, t: float) -> None:
        self.dealer_path = [s for s in self.dealer_path if s.t > t]

    # --- chips settling -------------------------------------------------------------------------------------

    def settled(self, f: Found) -> list[Event]:
        zone, seat = f.place, f.place.seat
        if f.what == SettleKind.CHIPS_IN and zone.is_stack and seat is not None and self.state.hand_at(seat) is None:
            return self._pushed_by_settle(f, seat)
        if f.what == SettleKind.CHIPS_IN and zone.is_bet:
            self.state.bet_at = max(self.state.bet_at, f.t)
        bet_emptied = zone.is_bet and f.what == SettleKind.CHIPS_OUT and seat is not None \
            and self.state.hand_at(seat) is None and not self._pushed_since_bets(f.t)
        if (f.zone == "pot" and f.what == SettleKind.CHIPS_IN) or bet_emptied:
            self.gather.append(f.t)
        if bet_emptied:
            self.bet_gathered_at = max(self.bet_gathered_at, f.t)
        return []

    def _pushed_since_bets(self, t: float) -> bool:
        """A pot was pushed after the last chips went into a bet zone: the bets were gathered before it, and
        until new ones come, a bet zone that changes (the tabled cards swept away) holds no chips to gather."""
        return bool(self.pushed) and self.state.bet_at < max(self.pushed.values()) <= t

    def _pushed_by_settle(self, f: Found, seat: int) -> list[Event]:
        """Chips come to rest in a stack whose player did not move, soon after the pot emptied (or after a
        push to another seat): a push the dealer's hand path did not show clearly."""
        if f.t - self.pushed.get(seat, -1e9) < self.config.settle_push_again_s:
            return []
        if not (self._pot_emptied(f.t) or self._moved_on(seat, f.t)):
            return []
        return self._pushed(seat, f.t)

    def _moved_on(self, seat: int, t: float) -> bool:
        """A pot was pushed to another seat a moment ago."""
        return any(other != seat and t - when < self.config.moved_on_s for other, when in self.pushed.items())

    def _pushed(self, seat: int, t: float) -> list[Event]:
        self.pushed[seat] = t
        self.filled_at = None
        self.state.hand_open = False  # the next card dealt opens the next hand
        self.state.chips_moved.append(seat)
        return [self.make(PotPushed, t, seat=seat)]

    def _pot_emptied(self, t: float) -> bool:
        """Chips left the pot in the last ``pot_emptied_s``, and there were chips in it this hand (a hand tidying
        cards by the pot changes it too; a pot whose push went unseen was pushed before the next deal), and no bet
        was seen gathered since (the hand sweeping bets in shifts the pot's chips: the pot is not pushed while its
        bets are still being gathered)."""
        filled = self.filled_at is not None and self.filled_at >= self.state.hand_opened_at
        return (filled or bool(self.gather)) and any(
            f.zone == "pot" and f.what == SettleKind.CHIPS_OUT and t - self.config.pot_emptied_s <= f.t <= t
            and f.t > self.bet_gathered_at for f in self.state.found)

    # --- decisions ------------------------------------------------------------------------------------------

    def decide(self, t: float) -> list[Event]:
        """The gather under way, once nothing has added to it for ``gather_gap_s``."""
        cfg = self.config
        if not self.gather or t - (last := self._gather_end()) <= cfg.gather_gap_s:
            return []
        first = self.gather[0]
        in_pot = [s.t for s in self.dealer_path if s.zone == "pot" and first - cfg.gather_lead_s <= s.t <= last]
        gathered = self.make(PotGathered, max([self.gather[-1], *in_pot]))
        self.gather, self.filled_at = [], gathered.ts
        return [gathered]

    def horizon(self, t: float) -> list[float]:
        """The earliest times a gather not closed yet (at its first chips, less ``gather_lead_s``) or a push
        (at the dealer's turn-back, up to ``push_turn_s`` before the frame) may stamp their events with."""
        earliest = [self.gather[0] - self.config.gather_lead_s] if self.gather else []
        if self.dealer_path and self.dealer_path[-1].t >= t:
            earliest.append(t - self.config.push_turn_s)
        return earliest

    def _gather_end(self) -> float:
        """The last sign of a gather: chips leaving a bet or reaching the pot, or after them the dealer's hand
        sweeping on from bet to bet (where the chips it takes do not show: black and white chips on a grey
        felt) and into the pot, each within ``gather_gap_s`` of the one before, over the felt only, and within
        ``sweep_max_s`` of the last chips seen (a hand lingering at a bet holds no gather open: vision's horizon
        waits on it). The hand going straight from the gathered pot back into it, or by a stack or the rail, is
        on to something else."""
        end, swept = self.gather[-1], False
        for s in self.dealer_path:
            if not end < s.t <= min(end + self.config.gather_gap_s, self.gather[-1] + self.config.sweep_max_s):
                continue
            if Zone.parse(s.zone).is_bet:
                end, swept = s.t, True
            elif s.zone == "pot":
                return s.t if swept else end
            elif not s.zone.startswith(("felt", "board")):
                return end  # off the way from the bets to the pot (a stack, the rail)
        return end
