"""The chip race when a denomination is taken out of play (TDA-15 / TDA22-24, ENG-27), as pure functions.

``chip_race`` says what each stack must become: every seat's chips of the removed denomination are exchanged
for as many chips of the next one as they make; the leftovers are raced off — one race chip per winner at
most, the highest race card first (cards dealt from seat 1) — and a player who loses his last chips in the
race keeps one chip of the smallest denomination still in play (nobody is raced out). Leftover value that
makes no whole chip is removed without compensation.

``check_chip_race`` is the procedure check: it compares the stacks seen after a colour-up with the rule and
returns the findings (value wrong, more than one race chip, a player raced out, removed chips still in play,
a race not dealt from seat 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tablewatch.events import Chips, Severity
from tablewatch.rules.chipreading import Finding

RANKS = "23456789TJQKA"
# The seeds give no suit order for a race card; this is the usual one (spades high) *(default — not in seeds)*
SUIT_ORDER = "shdc"


@dataclass(frozen=True, kw_only=True)
class RaceResult:
    """One seat's colour-up."""

    seat: int
    before: Chips
    after: Chips
    exchanged: int  # chips of the next denomination for the seat's own whole chips
    leftover: int  # value of its removed chips that made no whole chip: what it raced
    won: bool = False  # won one chip in the race
    rescued: bool = False  # lost its last chips in the race: given one smallest chip


@dataclass(frozen=True, kw_only=True)
class ChipRace:
    removed: int  # the denomination taken out of play
    next_denomination: int
    results: dict[int, RaceResult]
    race_chips: int  # chips of the next denomination raced off
    lost_value: int  # leftover value that made no whole chip: removed without compensation


def card_key(card: str, suit_order: str = SUIT_ORDER) -> tuple[int, int]:
    """Rank first, then suit (the first suit of ``suit_order`` is highest)."""
    if len(card) != 2 or card[0] not in RANKS or card[1] not in suit_order:
        raise ValueError(f"Race card {card!r} is not a card like 'As'.")
    return RANKS.index(card[0]), len(suit_order) - suit_order.index(card[1])


def chip_race(stacks: Mapping[int, Chips], *, removed: int, next_denomination: int,
              cards: Mapping[int, Sequence[str]], smallest_in_play: int | None = None,
              suit_order: str = SUIT_ORDER) -> ChipRace:
    """The colour-up of ``removed`` chips into ``next_denomination`` chips at one table.

    ``cards``: the race card(s) dealt to each seat with leftover chips (the best one counts);
    ``smallest_in_play``: the smallest denomination left after the race (default ``next_denomination``).
    """
    if next_denomination <= removed or next_denomination % removed:
        raise ValueError(f"Cannot colour {removed} chips up into {next_denomination}: the next denomination "
                         "must be a larger multiple.")
    smallest = smallest_in_play or next_denomination
    own = {seat: _own_exchange(stack, removed, next_denomination) for seat, stack in stacks.items()}
    racers = sorted(seat for seat, (_, leftover) in own.items() if leftover)
    total = sum(own[seat][1] for seat in racers)
    race_chips = total // next_denomination  # fewer than the racers: each leftover is under one chip
    winners = set(_race_winners(racers, cards, race_chips, suit_order))
    results = {}
    for seat, stack in stacks.items():
        exchanged, leftover = own[seat]
        counts = {d: c for d, c in stack if d != removed}
        gained = exchanged + (seat in winners)
        counts[next_denomination] = counts.get(next_denomination, 0) + gained
        rescued = not any(counts.values()) and stack.value > 0
        if rescued:  # TDA22-24: nobody is raced out
            counts[smallest] = 1
        results[seat] = RaceResult(seat=seat, before=stack, after=Chips.of(counts), exchanged=exchanged,
                                   leftover=leftover, won=seat in winners, rescued=rescued)
    return ChipRace(removed=removed, next_denomination=next_denomination, results=results, race_chips=race_chips,
                    lost_value=total - race_chips * next_denomination)


def _own_exchange(stack: Chips, removed: int, next_denomination: int) -> tuple[int, int]:
    value = stack.as_dict().get(removed, 0) * removed
    return divmod(value, next_denomination)


def _race_winners(racers: Sequence[int], cards: Mapping[int, Sequence[str]], chips: int,
                  suit_order: str) -> list[int]:
    """The ``chips`` racers with the highest cards: one chip each at most."""
    if not chips:
        return []
    missing = [seat for seat in racers if not cards.get(seat)]
    if missing:
        raise ValueError(f"Seats {missing} race for a chip but were dealt no race card.")
    seen: dict[str, int] = {}
    for seat in racers:
        for card in cards[seat]:
            if card in seen:
                raise ValueError(f"Race card {card} dealt to seats {seen[card]} and {seat}.")
            seen[card] = seat
    best = {seat: max(card_key(card, suit_order) for card in cards[seat]) for seat in racers}
    return sorted(racers, key=lambda seat: best[seat], reverse=True)[:chips]


def check_chip_race(before: Mapping[int, Chips], after: Mapping[int, Chips], *, removed: int,
                    next_denomination: int, deal_order: Sequence[int] = (),
                    smallest_in_play: int | None = None) -> list[Finding]:
    """What the stacks after a colour-up got wrong (catalogue TDA-15 detection logic 1-6)."""
    found: list[Finding] = []
    smallest = smallest_in_play or next_denomination
    racing = sorted(seat for seat, stack in before.items() if _own_exchange(stack, removed, next_denomination)[1])
    if deal_order and racing and list(deal_order) != racing:  # seat 1 first, then clockwise
        found.append(_finding("Chip race not dealt from seat 1", f"race cards dealt to seats {list(deal_order)}",
                              f"deal the race from seat 1 clockwise: {racing}", Severity.ADVISORY))
    total = sum(_own_exchange(before[seat], removed, next_denomination)[1] for seat in racing)
    won = 0
    for seat, stack in before.items():
        seen = after.get(seat, Chips())
        leftover = _own_exchange(stack, removed, next_denomination)[1]
        found += _seat_findings(seat, stack, seen, removed, next_denomination, leftover, smallest)
        # a player whose whole stack raced and who lost keeps one smallest chip: when that is a chip of the
        # next denomination it looks like a win, so such a seat is not counted
        won += int(seen.value - stack.value + leftover == next_denomination and stack.value > leftover)
    if won > total // next_denomination:
        found.append(_finding("Too many chips raced off", f"{won} race chips given for {total} in leftovers",
                              f"race off {total // next_denomination} chip(s) of {next_denomination}"))
    return found


def _seat_findings(seat: int, stack: Chips, seen: Chips, removed: int, next_denomination: int, leftover: int,
                   smallest: int) -> list[Finding]:
    found = []
    if seen.as_dict().get(removed):
        found.append(_finding("Removed chips still in play", f"seat {seat} still has {seen.as_dict()[removed]} "
                              f"chip(s) of {removed}", f"colour up every {removed} chip"))
    if stack.value and not seen.value:
        found.append(_finding("Player raced out", f"seat {seat} has no chips after the race",
                              f"a player cannot be raced out: give him one {smallest} chip"))
        return found
    delta = seen.value - stack.value
    allowed = {-leftover, next_denomination - leftover}
    if stack.value == leftover:  # his whole stack raced: kept alive with one smallest chip if he lost
        allowed.add(smallest - leftover)
    if delta not in allowed:
        found.append(_finding("Stack value wrong after the colour-up",
                              f"seat {seat}: {stack.value} before, {seen.value} after ({delta:+d})",
                              f"the stack changes by -{leftover} (race lost) or +{next_denomination - leftover} "
                              "(race won, one chip at most)"))
    return found


def _finding(title: str, observed: str, ruling: str, severity: Severity = Severity.VIOLATION) -> Finding:
    return Finding(rule_id="TDA-15", title=title, observed=observed, ruling=ruling, severity=severity)
