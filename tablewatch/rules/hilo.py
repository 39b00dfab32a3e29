"""High/low split pots the TDA way, on pokerkit's ``State`` (TDA-12, ENG-22, catalogue EX-92/93).

pokerkit halves each pot (the odd chip to the high half) and then splits each half among its winners, the
odd chip of each half to the first winner left of the button. That is the TDA rule except where the seeds
say otherwise (catalogue Appendix C):
- players who tie for **both** halves with identical hands split the whole pot as evenly as possible
  (66 chips → 33/33, not 34/32: TDA-12D, TR-002-L215-224);
- a pot none of whose contenders has a qualifying low goes to the high hand whole; pokerkit 0.7.7 splits
  that pot's "low half" among every contender when another pot has a low.

``split_hi_lo`` is the rule as a pure function; ``HiLoState`` is pokerkit's state with its pushes made by
it, and ``with_hi_lo_award`` turns any pokerkit hi/lo game class into one that builds a ``HiLoState``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import starmap
from operator import sub
from typing import Any, TypeVar

from pokerkit import ChipsPushing, Poker, State

GameT = TypeVar("GameT", bound=Poker)

Divmod = Callable[[int, int], tuple[int, int]]


def share(amount: int, winners: Sequence[int], divmod_: Divmod = divmod) -> dict[int, int]:
    """``amount`` split among ``winners`` (in odd-chip order: first left of the button first); the odd
    chips go to the first (TDA-12A). ``divmod_`` splits in units of the smallest chip in play."""
    if not winners:
        return {}
    quotient, remainder = divmod_(amount, len(winners))
    shares = dict.fromkeys(winners, quotient)
    shares[winners[0]] += remainder
    return shares


def split_hi_lo(amount: int, high: Sequence[int], low: Sequence[int], divmod_: Divmod = divmod) -> dict[int, int]:
    """One pot of a high/low game: who gets what.

    ``high``/``low`` are the winners of each half, in odd-chip order; ``low`` is empty when no contender
    qualifies for low (the high hand takes the whole pot). The pot is halved with the odd chip to the high
    half (TDA-12C), except when the same players win both halves: then it is split among them as evenly as
    possible (TDA-12D: two identical wheels in Omaha/8, 66 chips → 33/33).
    """
    if not low or set(low) == set(high):
        return share(amount, high or low, divmod_)
    if not high:
        return share(amount, low, divmod_)
    low_half, odd = divmod_(amount, 2)
    awards = share(low_half + odd, high, divmod_)
    for seat, value in share(low_half, low, divmod_).items():
        awards[seat] = awards.get(seat, 0) + value
    return awards


class HiLoState(State):
    """pokerkit's state, with every pot of a high/low game pushed in one go by ``split_hi_lo``."""

    def push_chips(self, *, commentary: str | None = None) -> ChipsPushing:
        if self.hand_type_count < 2 or sum(self.statuses) <= 1:
            return super().push_chips(commentary=commentary)
        self.verify_chips_pushing()
        assert self._pots is not None
        _, pot_index, board_index, _ = self._sub_pots[0]
        mine = [p for p in self._sub_pots if p[1] == pot_index and p[2] == board_index]
        self._sub_pots = [p for p in self._sub_pots if p not in mine]
        amount = sum(p[0] for p in mine)
        pot = self._pots[pot_index]
        pot.unraked_amount -= amount
        assert board_index is not None and pot.unraked_amount >= 0
        before = self.bets.copy()
        high = self._winners(pot.player_indices, board_index, 0)
        low = self._winners(pot.player_indices, board_index, 1)
        for index, value in split_hi_lo(amount, high, low, self.divmod).items():
            self.bets[index] += value
        amounts = tuple(starmap(sub, zip(self.bets, before, strict=True)))
        self.total_pushed_amount += sum(amounts)
        operation = ChipsPushing(amounts, pot_index, board_index, 0, commentary=commentary)
        self._update_chips_pushing(operation)
        return operation

    def _winners(self, contenders: Sequence[int], board_index: int, hand_type_index: int) -> list[int]:
        """The best hands of one type among a pot's contenders, in seat order from the button's left."""
        hands = {i: self.get_up_hand(i, board_index, hand_type_index) for i in contenders if self.statuses[i]}
        known = {i: hand for i, hand in hands.items() if hand is not None}
        if not known:
            return []
        best = max(known.values())
        return [i for i in sorted(known) if known[i] == best]


def with_hi_lo_award(game: type[GameT]) -> type[GameT]:
    """A subclass of a pokerkit game class whose states are ``HiLoState`` (same rules, TDA split pots)."""

    def call(self: Poker, raw_starting_stacks: Any, player_count: int) -> State:
        return HiLoState(
            self.automations, self.deck, self.hand_types, self.streets, self.betting_structure,
            self.ante_trimming_status, self.raw_antes, self.raw_blinds_or_straddles, self.bring_in,
            raw_starting_stacks, player_count, mode=self.mode, starting_board_count=self.starting_board_count,
            divmod=self.divmod, rake=self.rake,
        )

    namespace = {"__call__": call, "__doc__": f"{game.__name__} with TDA split pots.", "__module__": __name__}
    hi_lo: type[GameT] = type(f"HiLo{game.__name__.lstrip('_')}", (game,), namespace)
    return hi_lo
