"""A planned hand played in pokerkit alone (no table, no chips): what each action faces, and where it ends.

The hand driver plays the same operations with the physical steps around them; this dry run answers
questions asked before the hand is staged: on which street each action falls (an early-exposed card goes
before the last action of the round before), how many chips a seat never needs again (what it can
pocket), and whether the recorded actions take the hand to its end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from pokerkit import Automation, Mode, NoLimitTexasHoldem, State

from tablewatch.sim.plan import HandPlan
from tablewatch.sim.scenario import ScenarioError

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
    Automation.RUNOUT_COUNT_SELECTION,  # all-in run-outs are dealt once
)


def new_state(plan: HandPlan) -> State:
    return NoLimitTexasHoldem.create_state(
        AUTOMATIONS, plan.ante_trimming, tuple(plan.antes), tuple(plan.blinds), plan.min_bet, tuple(plan.stacks),
        len(plan.seats), mode=Mode.CASH_GAME, divmod=chip_divmod(plan.odd_chip),
    )


def chip_divmod(unit: int) -> Callable[[int, int], tuple[int, int]]:
    """pokerkit's pot splitter in whole chips of ``unit`` (TDA-12), as the rules split a pot: pokerkit's own
    splits to 1 (975 two ways: 488 + 487), which no chips pay when the smallest is 25."""
    return partial(split_in_chips, unit)


def split_in_chips(unit: int, amount: int, ways: int) -> tuple[int, int]:
    """``amount`` split ``ways`` ways in whole chips of ``unit``: each share, and the odd chips left over
    (pokerkit gives them to the first winner left of the button)."""
    quotient, remainder = divmod(amount // unit, ways)
    return quotient * unit, remainder * unit + amount % unit


@dataclass(frozen=True)
class Replay:
    streets: tuple[int, ...]  # per action: 0 preflop .. 3 river
    to_call: tuple[int, ...]  # per action: chips the actor faces (0 for a showdown action)
    stacks: tuple[tuple[int, ...], ...]  # stacks after the blinds (first), then after each action
    dealt: int  # board deals made: 0 none, 1 flop, 2 turn, 3 river
    open_actor: int | None  # the player still to act when the actions run out (None: the hand ended)

    def spare(self, player: int, after: int) -> int:
        """Chips of ``player`` that no later step of the hand needs (after action ``after``, -1: before any)."""
        return min(s[player] for s in self.stacks[after + 1 :])


def replay(plan: HandPlan) -> Replay:
    """Play ``plan`` in pokerkit as the hand driver does (unknown cards from the unused rest of the deck)."""
    state = new_state(plan)
    used = {c for h in plan.holes for c in h if c} | set(plan.board)
    spare = iter([r + s for r in "23456789TJQKA" for s in "cdhs" if r + s not in used])
    board = iter(plan.board)
    for i in range(2):
        for p in range(len(plan.seats)):
            state.deal_hole(plan.holes[p][i] or next(spare))
    streets: list[int] = []
    to_call: list[int] = []
    stacks = [tuple(state.stacks)]
    dealt = 0

    def settle(waiting_for_show: int | None) -> None:
        """Deal streets and showdowns until the state waits for an action (of ``waiting_for_show``'s show)."""
        nonlocal dealt
        while True:
            if state.can_burn_card():
                state.burn_card("??")
                street = state.street
                assert street is not None  # a burn opens a street
                state.deal_board("".join(next(board, None) or next(spare) for _ in range(street.board_dealing_count)))
                dealt += 1
            elif state.can_show_or_muck_hole_cards() and state.showdown_index != waiting_for_show:
                state.show_or_muck_hole_cards()
            else:
                return

    where = "the deal"
    try:
        for act in plan.acts:
            where = f"action {act.index} ({act.spec.do!r})"
            settle(act.player if act.verb == "sm" else None)
            streets.append(state.street_index or 0)
            to_call.append((state.checking_or_calling_amount or 0) if act.verb != "sm" else 0)
            if act.verb == "f":
                state.fold()
            elif act.verb == "cc":
                state.check_or_call()
            elif act.verb == "cbr":
                state.complete_bet_or_raise_to(act.amount)
            elif state.can_show_or_muck_hole_cards(act.shown is not None, act.player):
                state.show_or_muck_hole_cards(act.shown is not None, act.player)
            stacks.append(tuple(state.stacks))
        where = "the end of the hand"
        settle(None)
    except ValueError as exc:
        raise ScenarioError(f"hand {plan.hand_no}: pokerkit refuses {where} (in a dry run): {exc}") from exc
    return Replay(streets=tuple(streets), to_call=tuple(to_call), stacks=tuple(stacks), dealt=dealt,
                  open_actor=state.actor_index if state.status else None)
