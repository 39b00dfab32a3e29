"""The cards of a hand as the table shows them, fed to pokerkit when it can take them (a mixin of HandEngine).

Hole cards are buffered per seat and dealt to pokerkit when the deal is over (unknown ones as ``??``);
board cards dealt while a round is still being bet (premature, TDA-57) wait until the round is over and are
replaced if redealt; showdown cards are tabled or mucked in pokerkit's order, whatever order they come in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pokerkit import State

from tablewatch.events import BoardCardDealt

if TYPE_CHECKING:
    from tablewatch.rules.engine import _Seat
    from tablewatch.rules.game import GameConfig

BOARD_SLOTS = ((0, 1, 2), (3,), (4,))  # flop, turn, river


class CardFlow:
    """Dealing, board and showdown for ``HandEngine``; needs its state, config, seats and notes."""

    state: State
    config: GameConfig
    order: tuple[int, ...]
    seats: dict[int, _Seat]
    board: dict[int, str | None]
    board_fresh: set[int]
    hole_flushed: bool
    stuck: bool

    def _note(self, text: str) -> None:
        raise NotImplementedError

    def _ensure_tracker(self) -> None:
        raise NotImplementedError

    def _muck_held(self, seat: int) -> bool:
        raise NotImplementedError

    def _at_showdown(self) -> bool:
        self._advance()
        return self.hole_flushed and self.state.status and self.state.actor_index is None and (
            self.state.showdown_index is not None or self.state.can_deal_board() or self.state.can_burn_card())

    def _board_card(self, event: BoardCardDealt) -> None:
        if not event.face_up or not 0 <= event.slot <= 4:
            return
        self.board[event.slot] = event.card
        self._flush_hole()
        if self.state.actor_index is None:
            self.board_fresh.add(event.slot)
        else:
            self.board_fresh.discard(event.slot)  # premature (TDA-57): used only if it is not redealt
        self._advance()

    def _flush_hole(self) -> None:
        """The deal is over (or a later event says so): give pokerkit every hole card, unknown ones as ??."""
        if self.hole_flushed:
            return
        state, need = self.state, self.config.hole_cards
        taken = dict.fromkeys(self.order, 0)
        while state.can_deal_hole():
            index = state.hole_dealee_index
            assert index is not None
            seat = self.order[index]
            cards = self.seats[seat].cards
            card = cards[taken[seat]] if taken[seat] < min(len(cards), need) else None
            taken[seat] += 1
            state.deal_hole(card if card and not _clashes(state, card) else "??")
        self.hole_flushed = True

    def _deal_complete(self) -> bool:
        need = self.config.hole_cards
        return all(len(s.cards) >= need for s in self.seats.values())

    def _advance(self, *, force: bool = False, show: bool | None = None) -> None:
        """Do what pokerkit waits for when the table has supplied it: hole cards, burns, board, showdown."""
        state = self.state
        force_show = force if show is None else show
        for _ in range(64):
            if not state.status:
                return
            if not self.hole_flushed:
                if not (state.can_deal_hole() and (force or self._deal_complete())):
                    if not state.can_deal_hole():
                        self.hole_flushed = True
                        continue
                    return
                self._flush_hole()
                continue
            if state.can_burn_card():
                state.burn_card("??")
                continue
            if state.can_deal_board():
                if not self._deal_board(force=force):
                    return
                continue
            if state.showdown_index is not None:
                if not self._show(force=force_show):
                    return
                continue
            if state.actor_index is not None:
                self._ensure_tracker()
            return

    def _deal_board(self, *, force: bool) -> bool:
        state = self.state
        dealt = len(state.board_cards)
        slots = next((s for s in BOARD_SLOTS if s[0] == dealt), None)
        if slots is None:
            return False
        ready = all(slot in self.board and (slot in self.board_fresh or force) for slot in slots)
        if not ready:
            return False
        cards = [self.board.get(slot) for slot in slots]
        text = "".join(card if card and not _clashes(state, card) else "??" for card in cards)
        state.deal_board(text)
        return True

    def _show(self, *, force: bool) -> bool:
        state = self.state
        index = state.showdown_index
        assert index is not None
        info = self.seats[self.order[index]]
        unknown = "??" * self.config.hole_cards
        live = sum(1 for i in state.showdown_indices if state.statuses[i])
        if self.stuck:
            return False
        if info.mucked:
            if not force and self._muck_held(self.order[index]):
                return False  # the caller may still ask to see it (club, 001 TDA-7 exception)
            # all-in (TDA-9) or the last live hand: tabled, not mucked
            return self._table(False if not state.all_in_status and live > 1 else unknown)
        if info.tabled is not None:
            done = self._table("".join(info.tabled) if info.tabled else unknown)
            if not info.tabled:
                info.tabled = None  # cards shown unread: the next showdown round needs a new look
            return done
        if force:
            unread = all(card.unknown_status for card in state.hole_cards[index])
            return self._table(unknown if unread else None)  # unread cards are kept, not judged
        return False

    def _table(self, what: bool | str | None) -> bool:
        """Show or muck at pokerkit's showdown; what pokerkit refuses (a misread, a muck it needs shown) is
        tabled as unread cards."""
        unknown = "??" * self.config.hole_cards
        for attempt in (what, unknown, False):
            try:
                self.state.show_or_muck_hole_cards(attempt)
                return True
            except (ValueError, KeyError):
                continue
        if not self.stuck:
            self._note("pokerkit accepts no showdown action for a seat: the dealer's pushes are the record")
        self.stuck = True
        return False


def _clashes(state: State, card: str) -> bool:
    """A card pokerkit has already seen (a fouled deck, a misread): dealt as unknown so the hand goes on."""
    seen = {repr(c) for c in state.cards_in_play if not c.unknown_status}
    return card in seen
