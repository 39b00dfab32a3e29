"""The cards of a hand as the table shows them, fed to pokerkit when it can take them.

Hole cards are buffered per seat and dealt to pokerkit when the deal is over (unknown ones as ``??``); in stud,
each later street's card when every live seat has it; in a draw game, each seat's discards in pokerkit's order,
then the new cards once every seat that drew has them;
board cards dealt while a round is still being bet (premature, TDA-57) wait until the round is over and are
replaced if redealt; showdown cards are tabled or mucked in pokerkit's order, whatever order they come in. A hand
none of whose cards is seen (a table no camera watches) gets its board as ``??`` once the betting goes on.
"""

from __future__ import annotations

import re

from pokerkit import (
    BringInPosting,
    Card,
    CheckingOrCalling,
    CompletionBettingOrRaisingTo,
    Folding,
    StandingPatOrDiscarding,
    State,
)

from tablewatch.events import BoardCardDealt
from tablewatch.rules.handstate import HandState, can_burn, can_deal_board, hole_dealee, showdown_index

BOARD_SLOTS = ((0, 1, 2), (3,), (4,))  # flop, turn, river
_PLAIN_CARDS = re.compile(r"(?:[2-9TJQKA?][cdhs?])*")  # cards as pokerkit writes them, one after another
_CARD_OF: dict[str, Card] = {}  # pokerkit's card of each code, read once


class CardFlow:
    """Dealing, board and showdown of ``hand``, into its pokerkit state."""

    def __init__(self, hand: HandState) -> None:
        self.hand = hand

    def at_showdown(self) -> bool:
        """The betting is over and the cards are being shown (or the board still dealt)."""
        self.advance()
        state = self.hand.state
        return self.hand.hole_flushed and state.status and state.actor_index is None and (
            self.hand.asked(showdown_index) is not None or self.hand.asked(can_deal_board) or self.hand.asked(can_burn))

    def board_card(self, event: BoardCardDealt) -> None:
        if not event.face_up or not 0 <= event.slot <= 4:
            return
        self.hand.board[event.slot] = event.card
        self.flush_hole()
        if self.hand.state.actor_index is None and not self._fourth_flop_card(event):
            self.hand.board_fresh.add(event.slot)
        else:
            self.hand.board_fresh.discard(event.slot)  # premature (TDA-57): used only if it is not redealt
        self.hand.board_ts[event.slot] = event.ts
        self.advance()

    def _fourth_flop_card(self, event: BoardCardDealt) -> bool:
        """A turn card this soon after the flop with no burn between, in an all-in run-out: the flop's fourth
        card (TDA-26A), taken for the turn only if no other card replaces it."""
        flop_ts = self.hand.board_ts.get(2)
        if event.slot != 3 or flop_ts is None or any(burn.ts > flop_ts for burn in self.hand.burns):
            return False
        return event.ts - flop_ts <= self.hand.profile.four_card_flop_window_s

    def flush_hole(self) -> None:
        """The deal is over (or a later event says so): give pokerkit every hole card, unknown ones as ??."""
        if self.hand.hole_flushed or not self._deal_may_end(force=True):
            return
        self._deal_holes()
        self.hand.hole_flushed = True

    def dealing(self) -> bool:
        """Hole cards are being pitched: some seat has its first card and not every seat all of the deal's."""
        return not self.hand.hole_flushed and any(s.cards for s in self.hand.seats.values()) \
            and not self._deal_complete()

    def _deal_may_end(self, *, force: bool) -> bool:
        """Every card of the deal is out, or (``force``) the table has moved on without them. Stud waits for every
        card: pokerkit finds who brings in (and who opens each street) from the up cards."""
        return self._deal_complete() or (force and not self.hand.config.stud)

    def discard(self, seat: int, cards: tuple[str | None, ...]) -> None:
        """Draw games: what ``seat`` threw away, for pokerkit when the seat's turn to draw comes."""
        self.hand.discards[seat] = cards
        self.hand.thrown[seat] = self.hand.thrown.get(seat, 0) + len(cards)
        self.advance()

    def _deal_holes(self) -> None:
        """The hole cards pokerkit waits for, each seat's next one as the table dealt it (?? where none came). A
        flop game takes no more than its hole cards (a card read twice, a misdeal's extra card)."""
        state, taken, flop_game = self.hand.state, self.hand.hole_taken, self.hand.config.flop_game
        seen = _in_play(state)  # (grown card by card: asking pokerkit again for each card costs more than the deal)
        while (index := state.hole_dealee_index) is not None:  # (``can_deal_hole`` would also count the deck)
            seat = self.hand.order[index]
            cards, k = self.hand.seats[seat].cards, taken.get(seat, 0)
            usable = min(len(cards), self.hand.config.hole_cards) if flop_game else len(cards)
            card = cards[k] if k < usable else None
            taken[seat] = k + 1
            done = len(state.operations)
            dealt = state.deal_hole(pokerkit_cards(card if card and card not in seen else "??"), index)
            if len(state.operations) == done + 1:
                seen.update(repr(c) for c in dealt.cards if not c.unknown_status)
            else:  # pokerkit moved on by itself too: its cards in play are asked for again
                seen = _in_play(state)

    def _deal_complete(self) -> bool:
        need = len(self.hand.game.streets[0].hole_dealing_statuses)  # (stud: the first street's three)
        return all(len(s.cards) >= need for s in self.hand.seats.values())

    def _street_dealt(self) -> bool:
        """Stud: every live seat has been dealt this street's card; a draw: each seat as many as it threw away."""
        hand = self.hand
        return all(len(hand.seats[seat].cards) - hand.hole_taken.get(seat, 0) >= due
                   for seat, due in self._cards_due().items())

    def _cards_due(self) -> dict[int, int]:
        """The cards each seat is to be dealt now, in stud or a draw game."""
        state, order = self.hand.state, self.hand.order
        if self.hand.config.stud:
            count = len(state.streets[state.street_index or 0].hole_dealing_statuses)
            return {seat: count for i, seat in enumerate(order) if state.statuses[i]}
        due: dict[int, int] = {}
        for op in reversed(state.operations):  # this draw's discards: the last ones since the betting
            if isinstance(op, Folding | CheckingOrCalling | CompletionBettingOrRaisingTo | BringInPosting):
                break
            if isinstance(op, StandingPatOrDiscarding):
                due[order[op.player_index]] = len(op.cards)
        return due

    def _draw(self, *, force: bool) -> bool:
        """The seat whose turn it is to draw throws away what the table saw it throw (stands pat when the hand
        ends before its draw was seen); False while its discards are not seen."""
        state = self.hand.state
        index = state.stand_patter_or_discarder_index
        assert index is not None
        seat = self.hand.order[index]
        if seat not in self.hand.discards and not force:
            return False
        thrown = self.hand.discards.pop(seat, ())
        known = [repr(c) for c in state.hole_cards[index]]
        text = "".join(card if card in known else "??" for card in (c or "??" for c in thrown))
        state.stand_pat_or_discard(pokerkit_cards(text))
        return True

    def advance(self, *, force: bool = False, players: bool | None = None) -> None:
        """Do what pokerkit waits for when the table has supplied it: hole cards, burns, board, draws, showdown.
        ``force``: the table has moved on, so what was not seen is taken as unknown; ``players`` (default: as
        ``force``): so too what the players do themselves, a draw and the showdown's show or muck (another seat's
        bet does not settle them; the hand's end does)."""
        state = self.hand.state
        force_players = force if players is None else players
        flop_game = self.hand.config.flop_game
        for _ in range(64):
            if not state.status:
                return
            if not self.hand.hole_flushed:
                if self.hand.asked(hole_dealee) is None:
                    self.hand.hole_flushed = True
                    continue
                if not self._deal_may_end(force=force):
                    return
                self.flush_hole()
                continue
            if state.actor_index is not None:  # a betting round is open: nothing to deal
                self.hand.ensure_tracker()
                return
            if self.hand.asked(can_burn):
                state.burn_card(pokerkit_cards("??"))
                continue
            if not flop_game and state.can_stand_pat_or_discard():
                if not self._draw(force=force_players):
                    return
                continue
            if not flop_game and self.hand.asked(hole_dealee) is not None:  # a stud street's or a draw's cards (all)
                if not self._street_dealt():
                    return
                self._deal_holes()
                continue
            if self.hand.asked(can_deal_board):
                if not self._deal_board(force=force):
                    return
                continue
            if self.hand.asked(showdown_index) is not None:
                if not self._show(force=force_players):
                    return
                continue
            return

    def _deal_board(self, *, force: bool) -> bool:
        state = self.hand.state
        dealt = len(state.board_cards)
        slots = next((s for s in BOARD_SLOTS if s[0] == dealt), None)
        if slots is None:
            return False
        ready = all(slot in self.hand.board and (slot in self.hand.board_fresh or force) for slot in slots)
        if not ready and not (force and self._unseen()):
            return False
        cards = [self.hand.board.get(slot) for slot in slots]
        seen = _in_play(state)
        text = "".join(card if card and card not in seen else "??" for card in cards)
        state.deal_board(pokerkit_cards(text))
        return True

    def _unseen(self) -> bool:
        """No card of the hand has been seen (a table no camera watches): the board goes on unknown when the
        table has moved on."""
        return not self.hand.board and not any(info.cards for info in self.hand.seats.values())

    def _show(self, *, force: bool) -> bool:
        state = self.hand.state
        index = self.hand.asked(showdown_index)
        assert index is not None
        info = self.hand.seats[self.hand.order[index]]
        unknown = "??" * self.hand.config.hole_cards
        live = sum(1 for i in state.showdown_indices if state.statuses[i])
        if self.hand.stuck:
            return False
        if info.mucked:
            if not force and self.muck_held(self.hand.order[index]):
                return False  # the caller may still ask to see it (club, 001 TDA-7 exception)
            # all-in (TDA-9) or the last live hand: tabled, not mucked
            return self._table(False if not state.all_in_status and live > 1 else unknown, shown=False)
        if info.tabled and len(info.tabled) < len(state.hole_cards[index]) and not force:
            return False  # tabled before its last cards came (stud, all in): the whole hand is tabled again
        if info.tabled is not None:  # cards the camera did not read (one of a fanned pair) are unknown, not none
            missing = "??" * max(0, len(state.hole_cards[index]) - len(info.tabled))
            done = self._table("".join(info.tabled) + missing if info.tabled else unknown)
            if not info.tabled:
                info.tabled = None  # cards shown unread: the next showdown round needs a new look
            return done
        if force:
            unread = all(card.unknown_status for card in state.hole_cards[index])
            return self._table(unknown if unread else None)  # unread cards are kept, not judged
        return False

    def _table(self, what: bool | str | None, *, shown: bool = True) -> bool:
        """Show or muck at pokerkit's showdown; what pokerkit refuses (a misread, a muck it needs shown) is
        tabled as unread cards. ``shown``: the table showed the hand (not a muck pokerkit needs tabled)."""
        unknown = "??" * self.hand.config.hole_cards
        index = self.hand.asked(showdown_index)
        for attempt in (what, unknown, False):
            try:
                self.hand.state.show_or_muck_hole_cards(
                    pokerkit_cards(attempt) if isinstance(attempt, str) else attempt)
            except (ValueError, KeyError):
                continue
            if shown and what is not False and index is not None:  # (pokerkit may have taken it as a muck)
                read = attempt is None or (isinstance(attempt, str) and "?" not in attempt)
                self.hand.shown_at_showdown[self.hand.order[index]] = read
            return True
        if not self.hand.stuck:
            self.hand.note("pokerkit accepts no showdown action for a seat: the dealer's pushes are the record")
        self.hand.stuck = True
        return False


    def muck_held(self, seat: int) -> bool:
        """001 TDA-7 exception (club, C12): the called river aggressor's face-down muck waits for the caller's
        request: if the dealer turns the cards over, the hand is live again and the caller must beat it."""
        hand = self.hand
        if hand.profile.mucked_aggressor_rule != "club" or hand.state.all_in_status:
            return False  # an all-in and call: both hands are opened anyway (TDA-9)
        aggressor = hand.river_aggressor()
        return aggressor is not None and aggressor[0] == seat


def _in_play(state: State) -> set[str]:
    """The cards pokerkit has already seen: one of them seen again (a fouled deck, a misread) is dealt as unknown so
    the hand goes on."""
    return {repr(c) for c in state.cards_in_play if not c.unknown_status}


def pokerkit_cards(text: str) -> tuple[Card, ...] | str:
    """The cards of ``text`` (``"AsKd"``, ``"??"``) as pokerkit reads them, each code read once for every hand:
    pokerkit reads the text anew at each operation, at a good part of a deal's cost. Text written otherwise
    (spaces, commas, "10", an unknown code) goes to pokerkit as it is, to read or refuse as before."""
    if not _PLAIN_CARDS.fullmatch(text):
        return text
    cards = []
    for i in range(0, len(text), 2):
        code = text[i:i + 2]
        card = _CARD_OF.get(code)
        if card is None:
            card = _CARD_OF[code] = Card.clean(code)[0]
        cards.append(card)
    return tuple(cards)
