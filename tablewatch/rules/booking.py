"""Booking a ruled betting action into pokerkit and the TDA round bookkeeping.

Where pokerkit's limits differ from the TDA's (catalogue Appendix C), pokerkit books the nearest action it
allows and the difference is moved on its own ledger, so its stacks, bets, pots, side pots and uncalled-bet
returns stay the real chips.
"""

from __future__ import annotations

from collections.abc import Callable

from tablewatch.rules.betting import RoundTracker, current_bet
from tablewatch.rules.handstate import HandState


class Booking:
    """Books actions into the pokerkit state of ``hand``."""

    def __init__(self, hand: HandState) -> None:
        self.hand = hand

    def book(self, index: int, kind: str, to: int | None) -> int | None:
        """One betting action (``f``, ``cc``, ``cbr`` to ``to``) into pokerkit and the TDA tracker; the amount
        when it was booked as a bet or raise (a raise pokerkit allows none of is booked as a call)."""
        hand = self.hand
        tracker = hand.ensure_tracker()
        cur = current_bet(hand.state, tracker)  # (the seat's whole view is not needed, nor its cost at every action)
        if kind == "f":
            hand.state.fold()
            return None
        amount = self._raise(index, to, cur) if kind == "cbr" and to is not None else None
        if amount is None:
            self._call(index, cur, tracker)
        else:
            tracker.record(index, cur_before=cur, to=amount)
        return amount

    def bring_in(self, index: int) -> None:
        """Stud: ``index`` posts the bring-in (pokerkit's own action for it)."""
        tracker = self.hand.ensure_tracker()
        self.hand.state.post_bring_in()
        tracker.brought_in(index, to=self.hand.state.bets[index])

    def _call(self, index: int, cur: int, tracker: RoundTracker) -> None:
        """A check or call in pokerkit, booked at the TDA amount. Facing a short big blind (all-in for less),
        pokerkit calls the chips posted; the TDA call is the full blind (EX-7, ENG-13, Appendix C). While the
        round is open the difference is moved from the caller's stack to his bet on pokerkit's own ledger, so
        the pots, side pots and uncalled-bet return that follow are pokerkit's, on the real chips."""
        hand = self.hand
        state = hand.state
        state.check_or_call()
        booked = state.bets[index]
        extra = min(cur, booked + state.stacks[index]) - booked
        if extra > 0 and state.street_index == 0 and state.actor_index is not None:
            self._to_bet(index, extra)
            hand.note(f"seat {hand.order[index]} called {booked + extra}: a short blind counts in full (EX-7); "
                      f"pokerkit, and a PHH replay by it, books {booked}")
        tracker.record(index, cur_before=cur, to=state.bets[index])

    def _to_bet(self, index: int, chips: int) -> None:
        """Move ``chips`` from a player's stack to his bet on pokerkit's own ledger: what the TDA's ruling puts
        in beyond what pokerkit booked, so its pots, side pots and uncalled-bet returns stay the real chips."""
        state = self.hand.state
        state.stacks[index] -= chips
        state.bets[index] += chips
        state.payoffs[index] -= chips

    def _raise(self, index: int, to: int, cur: int) -> int | None:
        """A bet or raise to ``to``, the TDA's ruling (``cur``: the TDA's bet to match), in pokerkit; None, to be
        booked as a call, when pokerkit allows no raise at all. Where pokerkit's limits differ from the TDA's
        (catalogue Appendix C), pokerkit books the nearest raise it allows and the rest is moved on its own
        ledger, as a call over a short blind is (``_call``), so its stacks, bets and pots stay the real chips:
        - fixed limit: an all-in of at least half a bet reopens the betting (TDA-34B); pokerkit says closed;
        - preflop, a short big blind counts in full (EX-7, EX-20): pokerkit sizes raises from the chips posted.
        pokerkit's raise increment is then set to the TDA's, so the next minimum raise agrees (ENG-07)."""
        hand = self.hand
        state = hand.state
        to = min(to, state.bets[index] + state.stacks[index])
        increment, posted = state.completion_betting_or_raising_amount, max(state.bets)
        undo = self._reopen_fixed_limit(index, cur)
        low = state.min_completion_betting_or_raising_to_amount
        high = state.max_completion_betting_or_raising_to_amount
        if low is None or high is None:
            undo()
            hand.note(f"pokerkit allows no raise to {to} for seat {hand.order[index]}: recorded as a call")
            return None
        booked = min(max(to, low), high)
        state.complete_bet_or_raise_to(booked)
        if booked != to:
            self._to_bet(index, to - booked)
            why = "a short big blind counts in full (EX-7, EX-20)" if cur > posted else "catalogue Appendix C"
            hand.note(f"seat {hand.order[index]} raised to {to}: {why}; pokerkit allows {low}..{high} here and, "
                      f"in a PHH replay by it, books {booked}")
        state.completion_betting_or_raising_amount = max(increment, to - cur)
        return to

    def _reopen_fixed_limit(self, index: int, cur: int) -> Callable[[], None]:
        """TDA-34B: in fixed limit an all-in of at least half a bet reopens the betting for players who have
        acted; pokerkit reopens only on a full raise (its "already acted" and "short all-in cannot be raised"
        guards). Where the TDA tracker says reopened, both guards are lifted: the fixed-limit raise size does
        not depend on the increment lowered here (pokerkit takes the street's bet when it is larger). Returns
        what puts them back if no raise is booked after all."""
        hand = self.hand
        state, tracker = hand.state, hand.tracker
        acted, increment = set(state.acted_player_indices), state.completion_betting_or_raising_amount

        def undo() -> None:
            state.acted_player_indices.clear()
            state.acted_player_indices.update(acted)
            state.completion_betting_or_raising_amount = increment

        if hand.config.structure == "FL" and tracker is not None and tracker.reopened(index, cur):
            state.acted_player_indices.discard(index)
            state.completion_betting_or_raising_amount = min(increment, max(state.bets) - state.bets[index])
        return undo
