"""Showdown rulings the floor gives on request: who may ask to see a hand (TDA-11, conflict C12; catalogue
EX-26, EX-27), and whether a hand is the nuts (for the live-tournament "bet the nuts" rule, EX-96).

Neither is an alert by itself: ``request_to_see`` is decision support for the dealer and the floor when a
player asks (the catalogue's severity is LOG), ``holds_the_nuts`` feeds the NUTS_NOT_BET check
(``tablewatch.rules.checks.conduct``). The club rule on a river aggressor who mucks after being called
(001 TDA-7 exception, EX-8) is the engine's (``RuleProfile.mucked_aggressor_rule``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Literal

from pokerkit import Card, Deck, StandardHighHand

if TYPE_CHECKING:
    from tablewatch.rules.engine import HandEngine

Verdict = Literal["right", "discretion", "none"]


@dataclass(frozen=True, kw_only=True)
class SeeRuling:
    """``right``: the hand must be shown; ``discretion``: the TD decides; ``none``: the request is refused."""

    verdict: Verdict
    ruling: str
    rule_id: str = "TDA-11"


def kept_cards(engine: HandEngine, seat: int) -> bool:
    """The seat still holds its cards or has tabled them: it neither folded nor mucked unseen."""
    folded = any(a.seat == seat and a.kind == "f" for a in engine.actions)
    return not folded and not engine.seats[seat].mucked


def request_to_see(engine: HandEngine, asker: int, target: int) -> SeeRuling:
    """The floor's answer when ``asker`` asks to see ``target``'s hand at the showdown (TDA-11 A-B).

    A player who folded or mucked without showing has lost the right to ask. A caller of the last bet or
    raise of the river who kept his cards has the inalienable right to see the hand of the player who made it
    ("paid to see it"), except in a venue without that right (cash, ``RuleProfile.paid_to_see_right``).
    Any other request is up to the TD.
    """
    for seat in (asker, target):
        if seat not in engine.seats:
            raise ValueError(f"Seat {seat} was not dealt in this hand (seats {sorted(engine.seats)}).")
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
    if not engine.profile.paid_to_see_right:
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
