"""What a seat faces on the current street, the TDA way, over pokerkit's chip ledger: the legal actions
(ENG-05: ``can_raise``, the amount to call), the bet sizes (ENG-06), the minimum raise (ENG-07) and the
pot-limit maximum counting the call first (ENG-08) in ``view_for``.

pokerkit's ``State`` holds the chips (stacks, bets, pots). ``RoundTracker`` keeps what the TDA rules need
and pokerkit does not model the same way (catalogue Appendix C):
- a short big blind all-in still counts as the full blind for the call and, all preflop, the pot-limit maximum
  (EX-7, EX-20); the engine books such a call, or a raise over it, on pokerkit's ledger (``Booking._call``,
  ``_raise``);
- who may raise after short all-ins: ``cur - last level the seat acted at >= the last full increment``,
  cumulative (ENG-13, TDA-34A), which also covers a short raise over the blinds preflop (EX-66) and an opening
  all-in below the big blind;
- fixed limit: an all-in of at least half a bet reopens the betting (TDA-34B, EX-100's cap per profile);
- stud: the bring-in is no bet; the first player after it may call it or complete it to the small bet, and the
  completion is the round's bet (``completion_to``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from pokerkit import State

from tablewatch.events import Chips
from tablewatch.rules.chipreading import BetContext, ShortRaiseRule, SingleChipRule, Structure
from tablewatch.rules.game import GameConfig

NO_CHIPS = Chips()  # (frozen: one instance serves every view that has none in front)


@dataclass(frozen=True, kw_only=True)
class BettingView:
    """What ``seat`` faces now. Amounts are totals for this street ("to"), in units."""

    seat: int
    street: str
    structure: Structure
    cur: int  # highest bet to match (a short big blind counts in full preflop)
    bet: int  # the seat's chips in this street
    stack: int  # chips behind
    inc: int  # minimum raise increment
    min_raise_to: int
    max_raise_to: int
    can_raise: bool
    opening: bool  # the bet faced is the street's opening bet (TDA-37)
    heads_up: bool
    pot_total: int  # middle + every bet in front
    big_blind: int
    prior: Chips = field(default_factory=Chips)  # the chips physically in front of the seat (TDA-33)
    bring_in: int = 0  # stud: the seat must bring in (this many chips) or complete; 0: no bring-in is due

    @property
    def to_call(self) -> int:
        return max(0, min(self.cur - self.bet, self.stack))

    def context(self, *, single_chip_over_prior: SingleChipRule = "multiple_chip_rule",
                declared_raise_short: ShortRaiseRule = "complete_to_minimum") -> BetContext:
        return BetContext(
            structure=self.structure,
            cur=self.cur, bet=self.bet, stack=self.stack, inc=self.inc,
            min_raise_to=self.min_raise_to, max_raise_to=self.max_raise_to, can_raise=self.can_raise,
            opening=self.opening, heads_up=self.heads_up, pot_total=self.pot_total, big_blind=self.big_blind,
            single_chip_over_prior=single_chip_over_prior,
            declared_raise_short=declared_raise_short,
        )


class Facing(NamedTuple):
    """What a seat faces on the street in chips alone (``BettingView``'s first amounts): enough to rule a tap or a
    fold, the most frequent actions, without the raise sizes."""

    cur: int
    bet: int
    stack: int

    @property
    def to_call(self) -> int:
        return max(0, min(self.cur - self.bet, self.stack))


@dataclass
class RoundTracker:
    """TDA bookkeeping of one betting round, keyed by pokerkit player index."""

    street_index: int
    inc: int
    nominal_cur: int = 0  # preflop: the full big blind (or straddle) even when posted short
    dead_blind_gap: int = 0  # preflop: how much a short blind is counted above what was posted (PL pot)
    acted_level: dict[int, int] = field(default_factory=dict)
    raises: int = 0  # bets and raises this round (fixed-limit cap)
    raised_over_opening: bool = False
    reopen_share: float = 1.0  # 0.5 in fixed limit (TDA-34B)
    cumulative: bool = True  # short all-ins add up to a full raise (TDA-34A); False: house rule (C13)
    full_raises: int = 0  # full bets/raises so far this round
    acted_after: dict[int, int] = field(default_factory=dict)  # index -> full_raises when it last acted
    completion_to: int = 0  # stud's first round: the small bet a bring-in is completed to, until it is

    def brought_in(self, index: int, *, to: int) -> None:
        """Stud: ``index`` posted the bring-in (``to`` chips): no bet, so no raise is counted; the next seat
        may complete it to the small bet."""
        self.acted_level[index] = to
        self.acted_after[index] = self.full_raises
        self.completion_to = self.inc

    def record(self, index: int, *, cur_before: int, to: int) -> None:
        """A voluntary action by ``index`` taking its bet to ``to`` (a call, bet, raise or all-in)."""
        if to >= self.completion_to:
            self.completion_to = 0
        if to > cur_before:
            if to - cur_before >= self.inc * self.reopen_share:
                self.full_raises += 1
            if self.reopen_share == 1 and to - cur_before >= self.inc:
                self.inc = to - cur_before  # a full bet or raise sets the increment; a short all-in does not
            if cur_before > 0:
                self.raised_over_opening = True
            self.raises += 1
        self.acted_level[index] = max(to, cur_before)
        self.acted_after[index] = self.full_raises

    def reopened(self, index: int, cur: int) -> bool:
        """May ``index`` raise again? Not acted yet, or faced a full raise since (ENG-13, TDA-34)."""
        level = self.acted_level.get(index)
        if level is None:
            return True
        if self.cumulative:
            return cur - level >= self.inc * self.reopen_share
        return self.full_raises > self.acted_after.get(index, 0)


def booked_kind(kind: str, amount: int | None) -> str:
    """The PHH kind (``f``, ``cc``, ``cbr``) of an action as booked: a raise pokerkit allows none of is a call."""
    return "cbr" if amount is not None else ("f" if kind == "f" else "cc")


def new_round(config: GameConfig, state: State, street_index: int, *, straddle: int = 0,
              cumulative: bool = True) -> RoundTracker:
    """The tracker for a street that has just opened (pokerkit's blinds are already posted preflop)."""
    inc = config.bet_size(street_index)
    tracker = RoundTracker(street_index=street_index, inc=inc, cumulative=cumulative,
                           reopen_share=0.5 if config.structure == "FL" else 1.0)
    if street_index == 0 and not config.stud:
        posted = max(state.bets) if state.bets else 0
        # a short big blind counts in full (EX-7, EX-20), except heads-up (HOUSE-002-2.3.2)
        nominal = max(config.big_blind, straddle) if len(state.bets) > 2 else 0
        tracker.nominal_cur = max(nominal, posted)
        blinds = state.blinds_or_straddles
        blind = max(range(len(blinds)), key=lambda i: blinds[i]) if blinds else 0  # the seat owing the full blind
        tracker.dead_blind_gap = max(0, nominal - state.bets[blind]) if nominal > posted else 0
        tracker.raises = 1  # the big blind is the round's bet (fixed-limit cap: bet + 3 raises)
        if straddle and config.structure != "FL":
            tracker.inc = config.straddle_min_raise_inc or straddle
    return tracker


def chips_in_play(state: State) -> int:
    """Every chip in the pots or bet in front, while the hand is played: what the players started with less what
    they hold (pokerkit's ``total_pot_amount``, which walks its side pots each time it is asked)."""
    return sum(state.starting_stacks) - sum(state.stacks)


def current_bet(state: State, tracker: RoundTracker) -> int:
    """The highest bet to match on the street (``BettingView.cur``): preflop, a short big blind counts in full."""
    posted_cur = max(state.bets)
    return max(posted_cur, tracker.nominal_cur) if tracker.street_index == 0 else posted_cur


def view_for(config: GameConfig, state: State, tracker: RoundTracker, index: int, *, seat: int,
             cap_reached: bool = False, prior: Chips | None = None) -> BettingView:
    """The TDA view of what player ``index`` faces on the current street."""
    bets, stacks, statuses, structure = state.bets, state.stacks, state.statuses, config.structure
    cur = current_bet(state, tracker)
    bet, stack = bets[index], stacks[index]
    all_in_to = bet + stack
    # preflop, a short blind counts in full in the pot (TDA-40B): before and after others have called it
    pot_total = chips_in_play(state) + (tracker.dead_blind_gap if tracker.street_index == 0 else 0)
    to_call = max(0, min(cur - bet, stack))
    # stud: over the bring-in, the raise is the completion to the small bet
    inc = tracker.completion_to - cur if tracker.completion_to > cur else tracker.inc
    min_to = cur + inc
    max_to = min_to if structure == "FL" else all_in_to if structure == "NL" else cur + pot_total + to_call
    others_live = any(i != index and statuses[i] and stacks[i] + bets[i] > cur for i in range(len(bets)))
    can_raise = all_in_to > cur and others_live and tracker.reopened(index, cur) and not cap_reached
    bring_in = state.effective_bring_in_amount if config.stud and state.can_post_bring_in() else 0
    streets = config.streets
    return BettingView(
        seat=seat, street=streets[min(tracker.street_index, len(streets) - 1)], structure=structure, cur=cur,
        bet=bet, stack=stack, inc=inc, min_raise_to=min(min_to, all_in_to),
        max_raise_to=min(max(max_to, min_to), all_in_to), can_raise=can_raise,
        opening=not tracker.raised_over_opening, heads_up=sum(map(bool, statuses)) == 2, pot_total=pot_total,
        big_blind=config.big_blind, prior=prior if prior is not None else NO_CHIPS, bring_in=bring_in or 0,
    )
