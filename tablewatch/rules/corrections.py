"""Floor corrections of an action already taken.

pokerkit's state cannot take an action back, so a correction replays the hand on a fresh state with the
corrected action (``_rebuild``); everything else — cards, the other actions, the TDA bookkeeping — is replayed
as it was. Two rulings use it:
- **a pot-limit pot bet counted too low** (TDA-38B, ENG-16, EX-71/72): the engine books the declared pot at once, as
  the floor rules while it can still be corrected; if the player has not made the bet up by the next
  substantial action (ENG-18), the smaller bet stands and the hand is replayed with it;
- **a call made having missed a raise** (TDA-35, ENG-19, EX-17): accepted action, the call stands at the full amount
  (TDA22-49); in the club's rule (001 TDA-35) the player may take the call back and fold — not raise — until
  the next player acts (``RuleProfile.missed_raise_call``).
"""

from __future__ import annotations

import warnings
from dataclasses import replace

from pokerkit import (
    BoardDealing,
    BringInPosting,
    CardBurning,
    CheckingOrCalling,
    CompletionBettingOrRaisingTo,
    Folding,
    HoleCardsShowingOrMucking,
    HoleDealing,
    Operation,
    State,
)

from tablewatch.events import BetMotion, CardsMucked, Declaration, Event
from tablewatch.hands import ActionRecord
from tablewatch.rules.betting import booked_kind
from tablewatch.rules.booking import Booking
from tablewatch.rules.cards import CardFlow
from tablewatch.rules.chipreading import pot_bet_made_up, short_pot_bet_stands
from tablewatch.rules.handstate import HandState, Underpot
from tablewatch.rules.rulings import call_stands, call_taken_back

CHIP_WORDS = ("call", "bet", "raise", "all-in", "pot")


class Corrections:
    """Floor corrections of ``hand``: replays it through ``booking`` and ``cards`` with the corrected action."""

    def __init__(self, hand: HandState, booking: Booking, cards: CardFlow) -> None:
        self.hand, self.booking, self.cards = hand, booking, cards

    # --- the replay ---------------------------------------------------------------------------------------

    def rebuild(self, edits: dict[int, tuple[str, int | None]], basis: str) -> bool:
        """Replay the hand on a fresh pokerkit state with the betting actions ``edits`` names (index in
        ``actions`` → new kind and amount). False, with nothing changed, if pokerkit refuses the result."""
        hand = self.hand
        old_state, old_tracker, old_actions = hand.state, hand.tracker, list(hand.actions)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hand.state = hand.fresh_state()
            hand.tracker, hand.rebuilding = None, True
            try:
                self._replay(old_state.operations, old_actions, edits, basis)
            except (ValueError, AssertionError, KeyError, IndexError) as exc:
                hand.state, hand.tracker, hand.actions = old_state, old_tracker, old_actions
                hand.rebuilding = False
                hand.note(f"the floor's correction ({basis}) could not be replayed ({exc}); the hand stands as it was")
                return False
            finally:
                hand.rebuilding = False
        self.cards.advance()
        return True

    def _replay(self, operations: list[Operation], records: list[ActionRecord],
                edits: dict[int, tuple[str, int | None]], basis: str) -> None:
        betting = 0
        for op in operations:
            if isinstance(op, BringInPosting):
                self.booking.bring_in(op.player_index)
                betting += 1
            elif isinstance(op, Folding | CheckingOrCalling | CompletionBettingOrRaisingTo):
                record = records[betting]
                kind, amount = edits.get(betting, (record.kind, record.amount))
                booked = self.booking.book(op.player_index, kind, amount)
                if betting in edits:
                    self.hand.actions[betting] = replace(record, kind=booked_kind(kind, booked), amount=booked,
                                                    basis=basis)
                betting += 1
            else:
                _redo(self.hand.state, op)

    # --- a pot bet paid short (TDA-38B) -------------------------------------------------------------------

    def open_underpot(self, seat: int, paid: int, owed: int) -> None:
        record = max(i for i, a in enumerate(self.hand.actions) if a.seat == seat)
        bet = self.hand.actions[record].amount or 0
        self.hand.underpot = Underpot(seat=seat, record=record, paid_to=bet - owed + paid, owed=owed - paid)

    def underpot_paid(self, event: BetMotion) -> None:
        """The pot bettor adds chips: the correction is made (EX-72)."""
        held = self.hand.underpot
        assert held is not None
        held.owed -= event.chips.value
        if held.owed <= 0:
            self.hand.underpot = None
            self.hand.rule(pot_bet_made_up(held.seat, event.chips.value, -held.owed), held.seat, event.ts)

    def underpot_action(self, event: Event, seat: int) -> None:
        """An action in turn by another seat: at the next substantial action the short bet stands (EX-71)."""
        held = self.hand.underpot
        assert held is not None
        if isinstance(event, Declaration) and event.word not in (*CHIP_WORDS, "fold", "check"):
            return
        if isinstance(event, BetMotion) and self.hand.seats[seat].pending is not None:
            return  # the chips of a declaration already counted
        held.after.append(isinstance(event, BetMotion) or (isinstance(event, Declaration) and event.word in CHIP_WORDS))
        if not held.substantial():
            return
        self.hand.underpot = None
        if self.rebuild({held.record: ("cbr", held.paid_to)}, basis="TDA-38B: short pot bet stands"):
            self.hand.rule(short_pot_bet_stands(held.seat, held.owed, held.paid_to), held.seat, event.ts)

    # --- a call made having missed a raise (TDA-35) ------------------------------------------------------

    def open_withdrawable(self, seat: int) -> str:
        """The seat said "call" and paid short of it: it may have missed a raise. The ruling, per venue."""
        self.hand.withdrawable = (seat, max(i for i, a in enumerate(self.hand.actions) if a.seat == seat))
        if self.hand.profile.missed_raise_call == "may_fold":
            return "if he missed a raise he may take the call back and fold, not raise (club TDA-35)"
        return "accepted action: the call stands at the full amount (TDA-35, TDA22-49)"

    def missed_raise_event(self, event: Event, seat: int) -> bool:
        """A fold or a raise by a seat whose short call may be taken back: ruled here (True) or not ours."""
        held = self.hand.withdrawable
        if held is None or held[0] != seat:
            return False
        if held[1] != len(self.hand.actions) - 1:  # someone acted since: the call stands
            self.hand.withdrawable = None
            return False
        folds = isinstance(event, CardsMucked) or (isinstance(event, Declaration) and event.word == "fold")
        raises = isinstance(event, Declaration) and event.word in ("raise", "bet", "all-in", "pot")
        if not (folds or raises):
            return False
        rule = self.hand.profile.missed_raise_call
        if raises or rule == "binding":
            finding = call_stands(seat, "a raise" if raises else "a fold", self.hand.seats[seat].owed,
                                  may_fold=raises and rule == "may_fold")
            self.hand.rule(finding, seat, event.ts)
            return True
        self.hand.withdrawable = None
        if self.rebuild({held[1]: ("f", None)}, basis="TDA-35: call taken back (club)"):
            self.hand.seats[seat].owed = 0
            self.hand.rule(call_taken_back(seat), seat, event.ts)
        return True


def _redo(state: State, op: Operation) -> None:
    """A card operation of the original hand, again (automatic operations redo themselves)."""
    if isinstance(op, HoleDealing):
        state.deal_hole(op.cards)
    elif isinstance(op, CardBurning):
        state.burn_card(op.card)
    elif isinstance(op, BoardDealing):
        state.deal_board(op.cards)
    elif isinstance(op, HoleCardsShowingOrMucking):
        state.show_or_muck_hole_cards(op.hole_cards if op.hole_cards else False)
