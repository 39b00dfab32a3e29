"""Physical chips: UIDs, piles of columns on the table, and paying an exact amount from a pile.

Every chip is a ``world.Chip`` with an RFID UID; piles (a seat's stack, its bet, the pot, the dealer's
tray) lay chips out in columns so a chip keeps its place until a hand moves it. The tag registry
(UID → value) is what the RFID side knows; a counterfeit chip's UID is absent from it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from tablewatch.events import Chips
from tablewatch.sim.world import CHIP_HEIGHT, Chip, Pose, World

Spot = Callable[[int], tuple[float, float]]
COLUMN_MAX = 20


@dataclass
class Pile:
    """Chips in columns at ``spot(k)``; a column holds one denomination, at most ``COLUMN_MAX`` chips."""

    zone: str
    spot: Spot
    rng: random.Random
    columns: list[list[Chip]] = field(default_factory=list)
    jitter: float = 1.2  # mm: real stacks are never perfectly aligned

    @property
    def chips(self) -> list[Chip]:
        return [c for col in self.columns for c in col]

    def value(self) -> int:
        return sum(c.value for c in self.chips)

    def as_chips(self) -> Chips:
        return count_chips(self.chips)

    def place(self, chip: Chip) -> Pose:
        """Where ``chip`` lands (it is added on top of a column of its value, or a new column)."""
        for k, col in enumerate(self.columns):
            if col and col[0].value == chip.value and len(col) < COLUMN_MAX:
                return self._put(k, chip)
        for k, col in enumerate(self.columns):
            if not col:
                return self._put(k, chip)
        self.columns.append([])
        return self._put(len(self.columns) - 1, chip)

    def _put(self, k: int, chip: Chip) -> Pose:
        col = self.columns[k]
        x, y = self.spot(k)
        col.append(chip)
        j = self.jitter
        return Pose(
            t=0.0,
            x=x + self.rng.uniform(-j, j),
            y=y + self.rng.uniform(-j, j),
            z=(len(col) - 1) * CHIP_HEIGHT,
            angle=self.rng.uniform(0, 360),
            zone=self.zone,
        )

    def remove(self, chips: Iterable[Chip]) -> None:
        gone = {c.oid for c in chips}
        self.columns = [[c for c in col if c.oid not in gone] for col in self.columns]

    def take(self, counts: dict[int, int]) -> list[Chip]:
        """Take chips by value from the tops of the columns."""
        taken: list[Chip] = []
        for value, n in counts.items():
            for col in sorted((c for c in self.columns if c and c[0].value == value), key=len):
                while n and col:
                    taken.append(col.pop())
                    n -= 1
            if n:
                raise ValueError(f"{self.zone} has too few {value} chips")
        return taken

    def available(self) -> dict[int, int]:
        return count_chips(self.chips).as_dict()


def count_chips(chips: Iterable[Chip]) -> Chips:
    counts: dict[int, int] = {}
    for c in chips:
        counts[c.value] = counts.get(c.value, 0) + 1
    return Chips.of(counts)


def make_change(value: int, available: dict[int, int]) -> dict[int, int] | None:
    """Counts per denomination summing exactly to ``value`` from ``available``; fewest chips first tried.

    Depth-first over denominations from the largest, bounded: a handful of denominations keeps it quick.
    """
    denoms = sorted(available, reverse=True)

    def solve(i: int, rest: int) -> dict[int, int] | None:
        if rest == 0:
            return {}
        if i == len(denoms):
            return None
        d = denoms[i]
        top = min(available[d], rest // d)
        for n in range(top, max(-1, top - 4), -1):
            sub = solve(i + 1, rest - n * d)
            if sub is not None:
                return {d: n, **sub} if n else sub
        return None

    return solve(0, value)


Counts = dict[int, int]


def exchange(value: int, pile: Counts, tray: Counts) -> tuple[Counts, Counts, Counts] | None:
    """How the dealer makes change so ``pile`` can pay exactly ``value``: ``(give, get, pay)``.

    ``give`` goes from the pile to the tray and ``get`` (worth the same) comes back from the tray's own
    chips; then the pile pays ``value`` with ``pay``. First the smallest move a dealer makes, breaking one
    chip of the pile into smaller ones; failing that, the pile is made up anew from pile and tray together
    (colouring up or down) and only the chips that differ move. None when pile and tray can't make it.
    """
    for d in sorted(d for d, n in pile.items() if n):
        smaller = {s: n for s, n in tray.items() if s < d and n}
        get = make_change(d, smaller)
        if get is None:
            continue
        pay = make_change(value, _plus(_plus(pile, {d: -1}), get))
        if pay is not None:
            return {d: 1}, get, pay
    pool = _plus(pile, tray)
    pay = make_change(value, pool)
    if pay is None:
        return None
    rest_value = sum(d * n for d, n in pile.items()) - value
    kept = {d: n - min(n, pay.get(d, 0)) for d, n in pile.items()}  # the pile's chips not in ``pay``
    rest = make_change(rest_value, kept) or make_change(rest_value, _plus(pool, {d: -n for d, n in pay.items()}))
    if rest is None:
        return None
    new = _plus(pay, rest)
    give = {d: n - new.get(d, 0) for d, n in pile.items() if n > new.get(d, 0)}
    get = {d: n - pile.get(d, 0) for d, n in new.items() if n > pile.get(d, 0)}
    return give, get, pay


def _plus(a: Counts, b: Counts) -> Counts:
    out = dict(a)
    for d, n in b.items():
        out[d] = out.get(d, 0) + n
    return {d: n for d, n in out.items() if n}


def compose_stack(value: int, denominations: list[int], rng: random.Random) -> dict[int, int]:
    """A realistic starting stack: mostly mid chips, a few big ones, enough small ones to bet anything."""
    denoms = sorted(denominations)
    counts = dict.fromkeys(denoms, 0)
    rest = value
    small = denoms[0]
    # Keep some of each small denomination so most amounts can be paid without change.
    for d in denoms[:-1]:
        share = min(rest // d, max(4, 20 if d == small else 10))
        counts[d] += share
        rest -= share * d
    for d in reversed(denoms):
        n = rest // d
        counts[d] += n
        rest -= n * d
    if rest:
        raise ValueError(f"a stack of {value} can't be made from chips of {denoms} (the smallest is {small}).")
    return {d: n for d, n in counts.items() if n}


@dataclass
class Mint:
    """Makes chips with UIDs (deterministic from the seed) and keeps the tag registry."""

    world: World
    rng: random.Random
    registry: dict[str, int] = field(default_factory=dict)

    def uid(self) -> str:
        while True:
            uid = "E004" + "".join(self.rng.choice("0123456789ABCDEF") for _ in range(12))
            if uid not in self.registry:
                return uid

    def chip(self, value: int, pose: Pose, *, counterfeit: bool = False, uid: str | None = None) -> Chip:
        uid = uid or self.uid()
        if not counterfeit:
            self.registry[uid] = value
        return self.world.new_chip(uid, value, pose, counterfeit=counterfeit)
