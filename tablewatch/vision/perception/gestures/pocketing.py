"""Chips leaving the table (TDA-49): chips gone from a player's stack while its hand was there, with none
coming to rest anywhere on the table by the time the hand has left → ``ChipsLeftTable``. Only what shows from
above: a whole column taken leaves bare felt; one chip off the top of a column leaves the same column in sight.
"""

from __future__ import annotations

import math
from itertools import pairwise

import cv2
import numpy as np

from tablewatch.calibration.layout import TableLayout
from tablewatch.events import Chips, ChipsLeftTable, Event, stack_zone
from tablewatch.vision.perception.gestures.bets import found_during
from tablewatch.vision.perception.gestures.model import (
    Episode,
    EventMaker,
    Found,
    GestureConfig,
    SettleKind,
    TableState,
)
from tablewatch.vision.perception.scene import GHOST_S


class ChipsLeavingTable:
    """Looks at each player's episode that moved no chips of its own (no bet) once it is decided; writes
    ``TableState.chips_moved``."""

    def __init__(self, layout: TableLayout, state: TableState, make: EventMaker, config: GestureConfig) -> None:
        self.layout, self.state, self.make, self.config = layout, state, make, config

    def episode_ended(self, ep: Episode) -> list[Event]:
        """Chips gone from the player's stack while its hand was on the table, and nothing coming to rest on
        the felt meanwhile (chips in a bet, in another stack, in the pot): they left with the hand. Stamped when
        the hand was last seen. The chips named are the tops that went (a column's height does not show from
        above): at least that many."""
        seat = ep.seat
        window = found_during(self.state, ep, self.config)
        if any(f.what == SettleKind.CHIPS_IN and f.zone != "off_table" for f in window):
            return []
        gone = Chips()
        for f in window:
            taken = f.what == SettleKind.CHIPS_OUT and f.chips and self._by_stack(seat, f.centre)
            if taken and self._took_from(ep, seat, f.centre) and not self._card_trail(f, window):
                gone = gone + Chips.of(f.chips)
        if not gone.count:
            return []
        self.state.chips_moved.append(seat)
        return [self.make(ChipsLeftTable, ep.last, seat=seat, zone=stack_zone(seat), chips=gone)]

    def _took_from(self, ep: Episode, seat: int, at: tuple[float, float]) -> bool:
        """The hand's last pause over its stack was where the chips went from, and brief: it left with them. (A
        hand that moves a column under another pauses last where it puts it: those chips are out of sight, still
        there.)"""
        still = self.config.still_mm
        over = [s for s in ep.samples if self._by_stack(seat, s.palm)]
        pauses = [b for a, b in pairwise(over) if math.dist(a.palm, b.palm) <= still] or over
        if not pauses or math.dist(pauses[-1].palm, at) > self.config.took_mm:
            return False
        # A hand resting there GHOST_S or longer became part of the scene's reference: what changes as it goes
        # is its imprint as much as chips.
        rested_since = min(s.t for s in over if math.dist(s.palm, pauses[-1].palm) <= still)
        return pauses[-1].t - rested_since < GHOST_S

    def _by_stack(self, seat: int, at: tuple[float, float]) -> bool:
        """Whether a point is in the seat's stack zone or within ``stack_edge_mm`` of it."""
        zone = self.layout.polygon(stack_zone(seat)).astype(np.float32)
        return cv2.pointPolygonTest(zone, (float(at[0]), float(at[1])), True) >= -self.config.stack_edge_mm

    def _card_trail(self, f: Found, window: list[Found]) -> bool:
        """Whether a finding lies on the trail of a card slid away (a fold from beside the stack): its pieces
        settle a frame or two apart, and the last of them, paper-white, passes for a white chip."""
        cfg = self.config
        return any(g.what == SettleKind.CARD_OUT and abs(g.t - f.t) <= 2 * cfg.pieces_s
                   and math.dist(g.centre, f.centre) <= cfg.pieces_mm for g in window)
