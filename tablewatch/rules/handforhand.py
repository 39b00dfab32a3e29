"""Hand-for-hand play on the money bubble (TDA22-RP-8, ENG-32), as a small tournament-level unit.

``HandForHand`` is fed what happens at every table of the tournament (a hand starts, a hand ends, an all-in is
called, cards are exposed, the floor says play on) and returns the findings:
- every table plays each hand-for-hand hand together: no table starts the next hand before all have finished
  the current one (RP-8);
- each hand counts 2 minutes off the level clock, deducted after every hand, starting with the hand being
  finished when it is announced; the blinds go up when the level runs out (RP-8b-d, EX-80);
- after an all-in is called and all action is complete, the cards stay face down and nothing more is dealt
  until the floor says play on (RP-8f, EX-81).
``share_bubble_prizes`` is the ruling on players who bust in the same hand: they share the prizes of the
places they vacate (RP-8a, EX-79).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from tablewatch.events import Severity
from tablewatch.rules.chipreading import Finding

HAND_SECONDS = 120.0  # RP-8b: every hand-for-hand hand counts 2 minutes


def share_bubble_prizes(players_left: int, busted: Sequence[str], prizes: Sequence[int]) -> dict[str, Fraction]:
    """What each player who busted in the same hand-for-hand hand receives.

    ``players_left``: players in the tournament before the hand; ``prizes[k]``: the prize for place ``k + 1``.
    The busted players vacate places ``players_left - len(busted) + 1 … players_left`` and share their prizes
    equally (50 paid, 52 left, 3 bust → places 50-52: the three share the 50th-place prize).
    """
    if not 0 < len(busted) <= players_left:
        raise ValueError(f"{len(busted)} players cannot bust from {players_left}.")
    if len(set(busted)) != len(busted):
        raise ValueError(f"A player busts only once: {list(busted)}.")
    places = range(players_left - len(busted) + 1, players_left + 1)
    pool = sum(prizes[place - 1] for place in places if place <= len(prizes))
    return dict.fromkeys(busted, Fraction(pool, len(busted)))


TableStatus = Literal["ready", "playing", "done", "early"]


@dataclass
class HandForHand:
    """Hand-for-hand at the tables of one tournament, from the announcement on.

    ``level_remaining_s``: on the level clock when the floor announces "finish the current hand; we are going
    hand-for-hand". Hand 0 is the hand then being finished; hand-for-hand hands are 1, 2, … Each table is
    ``ready`` (may deal the current hand), ``playing`` it, ``done`` with it, or ``early`` (dealt the next hand
    before every table had finished this one).
    """

    tables: frozenset[str]
    level_remaining_s: float
    level_length_s: float
    level: int = 1
    hand: int = 0
    status: dict[str, TableStatus] = field(default_factory=dict)
    all_in: set[str] = field(default_factory=set)  # tables with an all-in called, action complete, not released

    def __post_init__(self) -> None:
        if not self.tables:
            raise ValueError("Hand-for-hand needs at least one table.")
        self.status = dict.fromkeys(self.tables, "playing")  # announced while every table plays hand 0

    @classmethod
    def announce(cls, tables: Iterable[str], *, level_remaining_s: float, level_length_s: float,
                 level: int = 1) -> HandForHand:
        return cls(tables=frozenset(tables), level_remaining_s=level_remaining_s, level_length_s=level_length_s,
                   level=level)

    @property
    def waiting_for(self) -> frozenset[str]:
        """Tables that have not finished the current hand."""
        return frozenset(t for t, status in self.status.items() if status == "playing")

    def hand_started(self, table: str) -> list[Finding]:
        """A table dealt a hand: fine when it is ready; too early while other tables play the current hand."""
        self._known(table)
        status = self.status[table]
        if status == "playing":  # its last hand's end was not seen: that hand is over
            self.hand_ended(table)
            status = self.status[table]
        if status == "ready":
            self.status[table] = "playing"
            return []
        self.status[table] = "early"
        return [_finding("Hand-for-hand table started early",
                         f"table {table} dealt hand {self.hand + 1} while {sorted(self.waiting_for)} still play "
                         f"hand {self.hand}", "every table starts each hand together: hold the deal")]

    def hand_ended(self, table: str) -> None:
        """A table finished its hand; when it was the last one playing, the hand is over everywhere."""
        self._known(table)
        self.all_in.discard(table)
        if self.status[table] == "early":
            return  # the early hand is the next one: it stays counted there
        self.status[table] = "done"
        self._maybe_tick()

    def table_broken(self, table: str) -> None:
        """A table broke (its players moved): the others no longer wait for it."""
        self._known(table)
        self.tables = self.tables - {table}
        del self.status[table]
        self.all_in.discard(table)
        self._maybe_tick()

    def all_in_called(self, table: str) -> None:
        """An all-in was called and all possible action at ``table`` is complete (RP-8f)."""
        self._known(table)
        self.all_in.add(table)

    def play_on(self, table: str) -> None:
        """The floor says the table may show down and deal the rest."""
        self.all_in.discard(table)

    def exposed(self, table: str, what: str) -> list[Finding]:
        """Cards turned up or a board card dealt at ``table``: too early while the floor holds the all-in."""
        if table not in self.all_in:
            return []
        return [_finding("Cards exposed before the floor's go-ahead (hand-for-hand)",
                         f"table {table}: {what} after an all-in and call, before the floor said play on",
                         "cards stay face down and no more cards are dealt until the floor says to go on (RP-8f)",
                         rule_id="TDA22-RP-8f")]

    def _maybe_tick(self) -> None:
        """When no table plays the current hand any more, it is over: 2 minutes off the clock (RP-8b/c); a level
        that runs out brings the next blinds, the surplus counted into the next level (RP-8d)."""
        if not self.status or self.waiting_for:
            return
        self.hand += 1
        self.level_remaining_s -= HAND_SECONDS
        while self.level_remaining_s <= 0:
            self.level += 1
            self.level_remaining_s += self.level_length_s
        self.status = {t: "playing" if status == "early" else "ready" for t, status in self.status.items()}

    def _known(self, table: str) -> None:
        if table not in self.tables:
            raise ValueError(f"Table {table!r} is not playing hand-for-hand ({sorted(self.tables)}).")


def _finding(title: str, observed: str, ruling: str, *, rule_id: str = "TDA22-RP-8") -> Finding:
    return Finding(rule_id=rule_id, title=title, observed=observed, ruling=ruling, severity=Severity.VIOLATION)
