"""Showdown rulings the floor gives on request: the order in which hands are shown (ENG-20, TDA-10, conflict
C11), who may ask to see a hand (TDA-11, conflict C12; catalogue EX-26, EX-27), and whether a hand is the nuts
(for the live-tournament "bet the nuts" rule, EX-96).

None is an alert by itself: ``showdown_order`` and ``request_to_see`` are decision support for the dealer and
the floor when hands are not shown spontaneously or a player asks (the catalogue's severity is LOG),
``holds_the_nuts`` feeds the NUTS_NOT_BET check (``tablewatch.rules.checks.conduct``). The club rule on a
river aggressor who mucks after being called (001 TDA-7 exception, EX-8) is the engine's
(``RuleProfile.mucked_aggressor_rule``). ``expected_showdown_order`` reads the order off a hand's engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Literal

from pokerkit import Card, Deck, StandardHighHand

from tablewatch.rules.profiles import RuleProfile

if TYPE_CHECKING:
    from tablewatch.rules.engine import HandEngine

Verdict = Literal["right", "discretion", "none"]


@dataclass(frozen=True, kw_only=True)
class ShowdownOrder:
    """The seats in the order they show or muck; ``all_at_once``: every live hand is tabled together instead."""

    order: tuple[int, ...]
    all_at_once: bool
    ruling: str
    rule_id: str = "TDA-10"


def showdown_order(profile: RuleProfile, *, live: Sequence[int], button: int, last_aggressor: int | None,
                   all_ins: Sequence[int] = (), put_in: Mapping[int, int] | None = None) -> ShowdownOrder:
    """Who shows first when the hands are not shown spontaneously (ENG-20; ``RuleProfile.showdown_order_variant``).

    ``live``: the seats still holding cards; ``last_aggressor``: the last bettor or raiser of the final betting
    round (None: nobody bet it); ``all_ins``: the live seats that are all-in, in the order they went all-in;
    ``put_in``: the chips each live seat put in the hand (the cash order with an all-in needs them).

    TDA (TDA-10): the last aggressor first, or, if nobody bet, the first live seat left of the button; then
    clockwise. With a live all-in every hand is tabled at once (TDA-9). Cash (001 cash section,
    HOUSE-002-2.10.5): the side-pot contestants first, in that order; then the all-in players, pot by pot from
    the outermost side pot to the main pot, as the pots are decided (ENG-20: the side pot before the main pot),
    and in one pot the player who went all-in first before the later ones.
    """
    seats = _clockwise(live, button)
    if last_aggressor is not None and last_aggressor not in seats:
        raise ValueError(f"The last aggressor, seat {last_aggressor}, holds no live hand (live: {seats}).")
    if not set(all_ins) <= set(seats) or len(set(all_ins)) != len(all_ins):
        raise ValueError(f"All-in seats {list(all_ins)} must be distinct live seats ({seats}).")
    first = last_aggressor if last_aggressor is not None else seats[0]
    why = (f"seat {first} made the last bet or raise of the final round" if last_aggressor is not None
           else f"nobody bet the final round: seat {first}, first left of the button")
    order = seats[seats.index(first):] + seats[:seats.index(first)]
    if not all_ins:
        return ShowdownOrder(order=tuple(order), all_at_once=False, ruling=f"{why}, shows first; then clockwise")
    if profile.showdown_order_variant == "tda":
        return ShowdownOrder(order=tuple(order), all_at_once=True, rule_id="TDA-9", ruling=(
            "a player is all-in and the betting is over: every live hand is turned face up at once (TDA-9)"))
    if put_in is None or set(put_in) != set(seats):
        raise ValueError(f"The cash showdown order with an all-in needs the chips every live seat put in ({seats}).")
    return _cash_order(order, put_in, all_ins, why)


def expected_showdown_order(engine: HandEngine) -> ShowdownOrder:
    """``showdown_order`` for the hand ``engine`` follows, read when its showdown begins (before the pots are
    pushed): the live seats, the final betting round's last aggressor, the all-ins in the order of their last
    action, and the chips each seat put in."""
    snap = engine.snapshot()
    if snap.phase != "showdown":
        raise ValueError(f"Hand {engine.hand.hand_no} is not at its showdown (phase: {snap.phase}).")
    final = engine.hand.actions[-1].street if engine.hand.actions else "preflop"
    bets = [a.seat for a in engine.hand.actions if a.street == final and a.kind == "cbr"]
    last = {a.seat: i for i, a in enumerate(engine.hand.actions)}  # a seat's last action put it all-in
    start = dict(zip(engine.hand.order, engine.hand.starting_stacks, strict=True))
    return showdown_order(engine.hand.profile, live=snap.active, button=snap.button,
                          last_aggressor=bets[-1] if bets and bets[-1] in snap.active else None,
                          all_ins=sorted(snap.all_in, key=lambda seat: last.get(seat, -1)),
                          put_in={seat: start[seat] - snap.stacks[seat] for seat in snap.active})


def _cash_order(order: list[int], put_in: Mapping[int, int], all_ins: Sequence[int], why: str) -> ShowdownOrder:
    """Groups by the outermost pot each seat contests; what the biggest stake put in above everyone else's is
    not called and contests nothing."""
    called = sorted(put_in.values())[-2]
    stake = {seat: min(put_in[seat], called) for seat in order}
    short = [seat for seat in order if stake[seat] < called and seat not in all_ins]
    if short:
        raise ValueError(f"Seats {short} put in less than the others yet are not all-in: they cannot be live.")
    outer = [seat for seat in order if stake[seat] == called]
    inner = sorted((s for s in order if stake[s] < called), key=lambda s: (-stake[s], list(all_ins).index(s)))
    ruling = f"the outermost pot's contestants show first (seats {_seats(outer)}; {why}, first if he contests it)"
    if inner:
        ruling += (f"; then the all-in players, pot by pot towards the main pot, the earliest all-in first (seats "
                   f"{_seats(inner)})")
    return ShowdownOrder(order=tuple(outer + inner), all_at_once=False, rule_id="HOUSE-002-2.10.5", ruling=ruling)


def _seats(seats: Iterable[int]) -> str:
    return ", ".join(map(str, seats))


def _clockwise(seats: Iterable[int], button: int) -> list[int]:
    """Seats clockwise from the first one left of ``button``."""
    ordered = sorted(set(seats))
    if len(ordered) < 2:
        raise ValueError(f"A showdown needs two live hands or more: {ordered}.")
    return [s for s in ordered if s > button] + [s for s in ordered if s <= button]


@dataclass(frozen=True, kw_only=True)
class SeeRuling:
    """``right``: the hand must be shown; ``discretion``: the TD decides; ``none``: the request is refused."""

    verdict: Verdict
    ruling: str
    rule_id: str = "TDA-11"


def kept_cards(engine: HandEngine, seat: int) -> bool:
    """The seat still holds its cards or has tabled them: it neither folded nor mucked unseen."""
    folded = any(a.seat == seat and a.kind == "f" for a in engine.hand.actions)
    return not folded and not engine.hand.seats[seat].mucked


def request_to_see(engine: HandEngine, asker: int, target: int) -> SeeRuling:
    """The floor's answer when ``asker`` asks to see ``target``'s hand at the showdown (TDA-11 A-B).

    A player who folded or mucked without showing has lost the right to ask. A caller of the last bet or
    raise of the river who kept his cards has the inalienable right to see the hand of the player who made it
    ("paid to see it"), except in a venue without that right (cash, ``RuleProfile.paid_to_see_right``).
    Any other request is up to the TD.
    """
    for seat in (asker, target):
        if seat not in engine.hand.seats:
            raise ValueError(f"Seat {seat} was not dealt in this hand (seats {sorted(engine.hand.seats)}).")
    if asker == target:
        raise ValueError(f"Seat {asker} cannot ask to see his own hand.")
    if not kept_cards(engine, asker):
        return SeeRuling(verdict="none", ruling=f"seat {asker} folded or mucked without showing: he has lost "
                                                 "the right to ask to see any hand (TDA-11A)")
    aggressor = engine.river_aggressor()
    if aggressor is None:
        return SeeRuling(verdict="discretion", ruling="nobody bet the river, so nobody paid to see a hand: "
                                                      "the TD decides (TDA-11B)")
    bettor, callers = aggressor
    if target != bettor or asker not in callers:
        return SeeRuling(verdict="discretion", ruling=f"seat {target} is not the river's last aggressor that seat "
                                                      f"{asker} called (seat {bettor} is): the TD decides (TDA-11B)")
    if not engine.hand.profile.paid_to_see_right:
        return SeeRuling(verdict="discretion", ruling="no 'paid to see' right in this venue (cash, 001): the TD "
                                                      "decides")
    return SeeRuling(verdict="right", ruling=f"seat {asker} called seat {target}'s last bet or raise of the river "
                                             f"and kept his cards: seat {target}'s hand must be shown face up "
                                             "(TDA-11B), retrieved from the muck if it can be identified")


def holds_the_nuts(hole: Sequence[str], board: Sequence[str]) -> bool:
    """Whether ``hole`` makes the best high hand any player could hold on this complete ``board``.

    Two hole cards: hold'em (any five of the seven); four: Omaha (exactly two from the hand, three from the
    board). Opponents may hold any two cards not in ``hole`` or on the board; a tie with the best is the nuts.
    """
    if len(board) != 5:
        raise ValueError(f"The nuts are judged on a complete board of 5 cards, got {len(board)}.")
    if len(hole) not in (2, 4):
        raise ValueError(f"Hold'em (2) or Omaha (4) hole cards, got {len(hole)}.")
    mine, table = _cards(hole), _cards(board)
    omaha = len(mine) == 4
    best = max(_hands(mine, table, omaha=omaha))
    seen = {repr(c) for c in (*mine, *table)}
    if len(seen) != len(mine) + len(table):
        raise ValueError(f"Not distinct cards: {list(hole)} on {list(board)}.")
    unseen = tuple(c for c in Deck.STANDARD if repr(c) not in seen)
    # an opponent's hand uses at most two of his cards (Omaha: exactly two): enumerate those hands once,
    # not per pair of hole cards (11,046 hands instead of 22,701 in hold'em)
    return not any(hand > best for hand in _hands(unseen, table, omaha=omaha, most=2))


def _hands(hole: Sequence[Card], board: Sequence[Card], *, omaha: bool,
           most: int | None = None) -> Iterable[StandardHighHand]:
    """Every five-card hand made of up to ``most`` cards of ``hole`` (Omaha: exactly two) and the board."""
    top = min(len(hole), 2 if most is None else most)
    for k in (2,) if omaha else range(top + 1):
        for own in combinations(hole, k):
            for rest in combinations(board, 5 - k):
                yield StandardHighHand((*own, *rest))


def _cards(text: Sequence[str]) -> tuple[Card, ...]:
    cards = tuple(Card.parse("".join(text)))
    if len(cards) != len(text) or len({repr(c) for c in cards}) != len(cards):
        raise ValueError(f"Not distinct cards: {list(text)}.")
    return cards
