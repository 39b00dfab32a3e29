"""One PHH betting action as it happens at a live table: chips over the line, words, a tap, cards to the muck.

``physical_events`` is what the replay command and the simulator use to act out a hand. A check is a
``Tap``; a fold is ``CardsMucked``; a call, bet or raise is a ``BetMotion`` of realistic chips (largest
denominations first, from the game's chip set) with the seat's earlier chips still in front as ``prior``.
The chips alone must read right under the TDA rules (``chipreading``): when they would not (a single
oversized chip meant as a raise, a raise the smallest-chip test reads as a call), or when the chips go in
with several motions, the player declares first ("raise 600", "all-in", "call"), as a careful player does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypedDict

from tablewatch.events import BetMotion, CardsMucked, CardsTabled, Chips, Declaration, Event, Source, Tap
from tablewatch.rules.betting import BettingView
from tablewatch.rules.chipreading import PhysicalBet, Reading, read_bet

DECLARE_LEAD_S = 0.5  # how long before the chips a declaration is spoken
MOTION_GAP_S = 0.4  # time between the releases of two motions


def make_chips(amount: int, denominations: Sequence[int]) -> Chips:
    """``amount`` in chips, largest denominations first (how a player counts out a bet).

    Raises ValueError when the chip set cannot make the amount exactly.
    """
    if amount < 0:
        raise ValueError(f"Cannot make a negative amount of chips ({amount}).")
    counts: dict[int, int] = {}
    left = amount
    for denomination in sorted(denominations, reverse=True):
        if left >= denomination:
            counts[denomination], left = divmod(left, denomination)
    if left:
        raise ValueError(f"The chip set {tuple(denominations)} cannot make {amount} exactly ({left} left over).")
    return Chips.of(counts)


def physical_events(
    action: str,
    *,
    view: BettingView | None,
    table: str,
    seat: int,
    ts: float,
    denominations: Sequence[int],
    hole_cards: int = 2,
    motions: int = 1,
) -> list[Event]:
    """The table events that perform one PHH action of ``seat`` at time ``ts``.

    ``action``: the player part of a PHH action, with or without the ``pN`` prefix: ``f``, ``cc``,
    ``cbr 600`` (a total of 600 this street, units), ``pb`` (stud: the bring-in), ``sm AsKd`` (show) or ``sm``
    (muck).
    ``view``: what the seat faces now (``HandEngine.view(seat)``); needed for ``cc`` and ``cbr``.
    ``motions``: forward motions for the chips; more than one comes with a declaration first (TDA-29).
    Events are returned in time order; a declaration is stamped ``DECLARE_LEAD_S`` before the chips.
    """
    parts = action.split()
    if parts and parts[0].startswith("p") and parts[0][1:].isdigit():
        parts = parts[1:]
    if not parts:
        raise ValueError(f"Empty PHH action {action!r}.")
    kind, args = parts[0], parts[1:]
    base = _Base(table=table, source="sim", seat=seat, ts=ts)
    if kind == "f":
        return [CardsMucked(**base, count=hole_cards)]
    if kind == "sm":
        cards = _split_cards(args[0]) if args else ()
        if args and all(c != "??" for c in cards):
            return [CardsTabled(**base, cards=cards)]
        return [CardsMucked(**base, count=hole_cards)] if not args else [CardsTabled(**base, cards=())]
    if view is None:
        raise ValueError(f"Seat {seat}: {action!r} needs the betting view of the seat.")
    if kind == "pb":
        if not view.bring_in:
            raise ValueError(f"Seat {seat}: {action!r} but no bring-in is due from the seat.")
        return [BetMotion(**base, chips=make_chips(view.bring_in, denominations))]
    if kind == "cc":
        if view.to_call == 0:
            return [Tap(**base)]
        return _chips_action(view, view.bet + view.to_call, "call", base=base, denominations=denominations,
                             motions=motions)
    if kind == "cbr":
        if not args:
            raise ValueError(f"Seat {seat}: {action!r} has no amount.")
        total = int(args[0])
        if total <= view.bet:
            raise ValueError(f"Seat {seat}: {action!r} is not above the seat's bet of {view.bet}.")
        word: ChipsWord = "all-in" if total >= view.bet + view.stack else ("raise" if view.cur > 0 else "bet")
        return _chips_action(view, total, word, base=base, denominations=denominations, motions=motions)
    raise ValueError(f"Seat {seat}: unknown PHH action {action!r} (expected f, cc, cbr, pb or sm).")


def _chips_action(view: BettingView, total: int, word: ChipsWord, *, base: _Base,
                  denominations: Sequence[int], motions: int) -> list[Event]:
    prior = view.prior if view.prior.count else (make_chips(view.bet, denominations) if view.bet else Chips())
    new = make_chips(total - view.bet, denominations)
    ts = base["ts"]
    motions = max(1, min(motions, new.count))
    silent = read_bet(view.context(), PhysicalBet(chips=new, prior=prior, chips_ts=ts))
    needs_word = motions > 1 or not _reads_as(silent, view, total, word)
    events: list[Event] = []
    if needs_word:
        amount = None if word in ("call", "all-in") else total
        events.append(Declaration(**_at(base, ts - DECLARE_LEAD_S), word=word, amount=amount))
    times = tuple(ts + i * MOTION_GAP_S for i in range(motions))
    values = _split(new.value, motions) if motions > 1 else ()
    events.append(BetMotion(**_at(base, times[-1]), chips=new, motions=motions, motion_times=times, prior=prior,
                            motion_values=values))
    return events


ChipsWord = Literal["call", "bet", "raise", "all-in"]  # what a player says with chips


class _Base(TypedDict):
    """What every event of one seat's action carries."""

    table: str
    source: Source
    seat: int
    ts: float


def _at(base: _Base, ts: float) -> _Base:
    return _Base(table=base["table"], source=base["source"], seat=base["seat"], ts=ts)


def _reads_as(reading: Reading, view: BettingView, total: int, word: ChipsWord) -> bool:
    if reading.owed or reading.to != min(total, view.bet + view.stack):
        return False
    if word == "call":
        return reading.action in ("call", "check")
    return reading.action in ("bet", "raise", "all-in")


def _split(value: int, motions: int) -> tuple[int, ...]:
    first = value // motions
    return (first,) * (motions - 1) + (value - first * (motions - 1),)


def _split_cards(text: str) -> tuple[str, ...]:
    return tuple(text[i:i + 2] for i in range(0, len(text), 2))
