"""Does the hand tablewatch reconstructed match pokerkit's replay of the original? (actions, amounts, pots,
final stacks — and, for the round trip, the PHH tablewatch writes, loaded and replayed by pokerkit.)"""

from __future__ import annotations

import warnings
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from pokerkit import (
    BringInPosting,
    CheckingOrCalling,
    ChipsPushing,
    CompletionBettingOrRaisingTo,
    Folding,
    HandHistory,
    StandingPatOrDiscarding,
    State,
)

from tablewatch.hands import FinishedHand

if TYPE_CHECKING:
    from tablewatch.rules.replay import NormalHand


def betting_ops(state: State, seats: tuple[int, ...]) -> list[tuple[int, str, int | None]]:
    """(seat, f/cc/cbr/pb, amount) of every betting operation of a pokerkit state."""
    out: list[tuple[int, str, int | None]] = []
    for op in state.operations:
        if isinstance(op, BringInPosting):
            out.append((seats[op.player_index], "pb", None))
        elif isinstance(op, Folding):
            out.append((seats[op.player_index], "f", None))
        elif isinstance(op, CheckingOrCalling):
            out.append((seats[op.player_index], "cc", None))
        elif isinstance(op, CompletionBettingOrRaisingTo):
            out.append((seats[op.player_index], "cbr", op.amount))
    return out


def draws(state: State, seats: tuple[int, ...]) -> list[tuple[int, int]]:
    """(seat, cards thrown away) of every draw of a pokerkit state, in order (a draw game's; none otherwise)."""
    return [(seats[op.player_index], len(op.cards)) for op in state.operations
            if isinstance(op, StandingPatOrDiscarding)]


def pushes(state: State, seats: tuple[int, ...]) -> list[tuple[int, tuple[tuple[int, Any], ...]]]:
    return [(op.pot_index, tuple((seats[i], a) for i, a in enumerate(op.amounts) if a))
            for op in state.operations if isinstance(op, ChipsPushing)]


def by_pot(pushed: list[tuple[int, tuple[tuple[int, Any], ...]]]) -> list[tuple[int, tuple[tuple[int, Any], ...]]]:
    """What each seat got from each pot, however it was pushed (pokerkit pushes a split pot's high and low
    halves apart)."""
    pots: dict[int, dict[int, Any]] = {}
    for pot, amounts in pushed:
        for seat, amount in amounts:
            pots.setdefault(pot, {})[seat] = pots.get(pot, {}).get(seat, 0) + amount
    return [(pot, tuple(sorted(pots[pot].items()))) for pot in sorted(pots)]


def compare_hand(hand: NormalHand, truth: State, finished: FinishedHand, *, roundtrip: bool = True) -> list[str]:
    seats = hand.seats
    problems: list[str] = []
    expected = betting_ops(truth, seats)
    got = [(a.seat, a.kind, a.amount) for a in finished.actions]
    if expected != got:
        pairs = enumerate(zip(expected, got, strict=False))
        at = next((i for i, (e, g) in pairs if e != g), min(len(expected), len(got)))
        problems.append(f"actions differ at #{at + 1}: expected {expected[at:at + 3]}, got {got[at:at + 3]}")
    final = {seats[i]: s for i, s in enumerate(truth.stacks)}
    if final != finished.final_stacks:
        diff = {s: (final[s], finished.final_stacks.get(s)) for s in final if final[s] != finished.final_stacks.get(s)}
        problems.append(f"final stacks differ (seat: expected, got): {diff}")
    expected_draws, got_draws = draws(truth, seats), draws(finished.state, finished.order)
    if expected_draws != got_draws:
        problems.append(f"draws differ (seat, cards thrown): expected {expected_draws}, got {got_draws}")
    expected_pushes = by_pot(pushes(truth, seats))
    got_pushes = by_pot([(p.pot_index, p.amounts) for p in finished.pushes])
    if expected_pushes != got_pushes:
        problems.append(f"pots differ: expected {expected_pushes}, got {got_pushes}")
    if roundtrip and not problems:
        problems += _roundtrip(hand, truth, finished)
    return problems


def _roundtrip(hand: NormalHand, truth: State, finished: FinishedHand) -> list[str]:
    """Write the PHH, load it with pokerkit, replay it: same actions and final stacks (in money)."""
    from tablewatch.history.phh import dumps_phh

    text = dumps_phh([finished])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loaded = HandHistory.loads(text)
            states = iter(loaded)
            state = next(states)
            for state in states:  # noqa: B007 - the last state is the result
                pass
    except Exception as exc:
        return [f"pokerkit cannot replay the PHH tablewatch wrote: {type(exc).__name__}: {exc}"]
    unit = hand.config.currency_unit
    expected = [Decimal(s) * unit for s in truth.stacks]
    got = [Decimal(str(s)) for s in state.stacks]
    problems = []
    if expected != got:
        problems.append(f"written PHH replays to stacks {got}, expected {expected}")
    want = [(s, k, None if a is None else Decimal(a) * unit) for s, k, a in betting_ops(truth, hand.seats)]
    have = [(s, k, None if a is None else Decimal(str(a))) for s, k, a in betting_ops(state, tuple(finished.order))]
    if want != have:
        problems.append("written PHH has different actions")
    return problems
