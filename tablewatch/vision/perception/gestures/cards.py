"""Cards coming to rest: dealt, burned, laid on the board (identity read when face up) or mucked, by the zone
they settle in; the board swept away, or every seat's cards gone, ends the hand."""

from __future__ import annotations

import numpy as np

from tablewatch.events import BoardCardDealt, CardBurned, CardDealt, CardExposed, CardsMucked, Event
from tablewatch.vision.perception.gestures.model import (
    EventMaker,
    Found,
    GestureConfig,
    SettleKind,
    TableState,
    board_slot,
    doubts,
)


class CardSettles:
    """Writes ``TableState.hand_open`` (a hand begins with its first card dealt, ends with the board swept
    away or once every seat dealt in has lost its cards) and ``mucked`` (cards slid into a bet zone with no hand
    there)."""

    def __init__(self, state: TableState, make: EventMaker, config: GestureConfig) -> None:
        self.state, self.make, self.config = state, make, config
        self.dealt: dict[int, int] = {}  # seat → hole cards dealt it
        self.board: set[int] = set()  # board slots dealt
        self.last_burn = -1e9
        self.last_dealt = -1e9  # when the last hole card came to rest
        self.dealt_at: dict[int, float] = {}  # when each seat's last hole card came to rest
        self.dealt_where: dict[int, tuple[float, float]] = {}  # and where
        self.cleared: list[tuple[float, str]] = []  # (when, which slot) board cards were taken away
        self.taken: set[int] = set()  # seats whose hole cards the dealer took from their spot (no player's hand there)

    def settled(self, f: Found) -> list[Event]:
        zone, seat = f.place, f.place.seat
        slot = board_slot(f.zone)
        if f.what == SettleKind.CARD_OUT and slot is not None:
            self._taken_from_board(f, slot)
        if f.what == SettleKind.CARD_OUT and zone.is_stack and seat is not None:
            self._taken_from_seat(f, seat)
        if f.what in (SettleKind.CARD_ON_CARD, SettleKind.CHIPS_IN) and f.zone == "burn" and self._new_burn(f):
            return [self.make(CardBurned, f.t)]  # only cards go to the burn pile: "chips" there are a card misread
        if f.what == SettleKind.CARD_ON_CARD and zone.is_stack and seat is not None and self._onto_first(f, seat):
            return self._dealt(f, seat)
        if f.what != SettleKind.CARD_IN:
            return []
        if zone.is_stack and seat is not None:
            return self._dealt(f, seat)
        if f.zone == "burn" and self._new_burn(f):
            return [self.make(CardBurned, f.t)]
        if slot is not None and f.face_up and slot not in self.board:
            self.board.add(slot)
            return [self.make(BoardCardDealt, f.t, card=f.card, slot=slot, face_up=True, doubts=doubts(f))]
        if zone.is_bet and seat is not None and not f.face_up and seat not in self.state.mucked \
                and self.state.hand_at(seat) is None:  # with the player's hand there, its episode decides
            self.state.mucked.add(seat)
            self.close_when_cards_gone()
            return [self.make(CardsMucked, f.t, seat=seat, count=2)]
        return []

    def _taken_from_board(self, f: Found, slot: int) -> None:
        """A card taken back: the slot takes the next one; taken from several slots at once, the dealer sweeps
        the board away and the hand is over."""
        self.board.discard(slot)
        self.cleared = [(t, z) for t, z in self.cleared if t > f.t - self.config.cleared_s] + [(f.t, f.zone)]
        if len({z for _, z in self.cleared}) >= self.config.cleared_slots:
            self.state.hand_open = False

    def _taken_from_seat(self, f: Found, seat: int) -> None:
        """A seat's cards taken away by the dealer: once every seat dealt in has lost its cards (mucked, or taken
        at the end), the hand is over, board or none (a hand won before the flop, its push too small to see)."""
        if seat not in self.dealt or self._hand_near(seat, f.centre):
            return  # a player's own hand at his cards: he looks at them, they stay his
        self.taken.add(seat)
        self.close_when_cards_gone()

    def close_when_cards_gone(self) -> None:
        """Every seat dealt in has lost its cards, mucked or taken: the hand is over. (Left open, the next deal's
        cards would go to seats still counted holding two, and its blinds be taken for bets.)"""
        if self.state.hand_open and self.dealt and set(self.dealt) <= self.taken | self.state.mucked:
            self.state.hand_open = False

    def _new_burn(self, f: Found) -> bool:
        if f.t - self.last_burn > self.config.burn_apart_s:
            self.last_burn = f.t
            return True
        return False

    def _onto_first(self, f: Found, seat: int) -> bool:
        """A seat's second hole card pitched squarely onto its first changes only a sliver of the picture (a
        card on a card): during the deal, at a seat holding one card since the last round (a sliver sooner
        is the edge of that card itself), with the player's hand away from it, that sliver is the second card."""
        pace = self.config.deal_pace_s + (self.config.shaded_pace_s if f.shaded else 0.0)
        return (self.state.hand_open and self.dealt.get(seat, 0) == 1
                and f.t - self.last_dealt <= pace
                and f.t - self.dealt_at.get(seat, -1e9) >= self.config.round_min_s
                and not self._hand_near(seat, f.centre))

    def _hand_near(self, seat: int, at: tuple[float, float]) -> bool:
        """The player's hand is at this spot (touching a card there), not merely on the felt: a hand resting
        beside the stack through the deal is no reason to doubt a card that lands."""
        episode = self.state.hand_at(seat)
        if episode is None or not episode.samples:
            return False
        tip = episode.samples[-1].tip
        return float(np.hypot(tip[0] - at[0], tip[1] - at[1])) < self.config.hand_at_card_mm

    def _same_card(self, f: Found, seat: int) -> bool:
        """A card that came to rest in pieces (parts of it settling a frame or two apart, beside each other)."""
        where = self.dealt_where.get(seat)
        return (where is not None and f.t - self.dealt_at.get(seat, -1e9) < self.config.pieces_s
                and float(np.hypot(f.centre[0] - where[0], f.centre[1] - where[1])) < self.config.pieces_mm)

    def _dealt(self, f: Found, seat: int) -> list[Event]:
        if not self.state.hand_open:
            self.state.hand_open, self.state.hand_opened_at = True, f.t
            self.dealt, self.board, self.dealt_at, self.dealt_where, self.taken = {}, set(), {}, {}, set()
            self.state.mucked = set()
        if self.dealt.get(seat, 0) >= 2 or self._same_card(f, seat):
            return []
        self.dealt[seat] = self.dealt.get(seat, 0) + 1
        self.last_dealt = self.dealt_at[seat] = f.t
        self.dealt_where[seat] = f.centre
        out = [self.make(CardDealt, f.t, seat=seat, card=f.card, face_up=f.face_up, doubts=doubts(f))]
        if f.face_up:
            out.append(self.make(CardExposed, f.t, seat=seat, card=f.card, doubts=doubts(f)))
        return out
