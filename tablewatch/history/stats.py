"""What the poker room wants to know from its captured hands: per table or per dealer (hands, hands per hour,
seconds per hand and where they go, procedure errors per 100 hands by rule) and per player (hands, VPIP, PFR,
aggression, showdowns seen and won, net).

Read from hand histories: the PHH a table writes (its ``_tablewatch_*`` fields carry each hand's times and
violations) or any PHH file. pokerkit replays each hand, so a call is told from a check, and the showdown from
a fold, by pokerkit's own state rather than by reading action strings.

Definitions (the usual ones of tracking software):
- VPIP: the player put chips in voluntarily before the flop (a call or a raise; posting a blind or checking the
  big blind is not voluntary).
- PFR: the player raised before the flop.
- Aggression factor: bets and raises after the flop over calls after the flop.
- Showdown seen: still in the hand when the betting ended with two or more players in it; won: with a profit.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pokerkit import BoardDealing, CheckingOrCalling, CompletionBettingOrRaisingTo, Folding, HandHistory, State

ACTIONS = (CheckingOrCalling, CompletionBettingOrRaisingTo)


@dataclass(frozen=True)
class PlayerHand:
    """One player's part in one hand."""

    player: str
    vpip: bool
    pfr: bool
    postflop_aggressive: int  # bets and raises after the flop
    postflop_calls: int
    saw_showdown: bool
    won_at_showdown: bool
    net: float  # chips won less chips put in (a venue's cents where its amounts have them)


@dataclass(frozen=True)
class HandFacts:
    table: str
    hand_no: int
    started_ts: float | None
    ended_ts: float | None
    first_action_ts: float | None
    last_action_ts: float | None
    errors: tuple[str, ...]  # the rule id of each violation found in the hand (not advisories)
    players: tuple[PlayerHand, ...]
    dealer: str | None = None  # as the console named them
    dated: bool = False  # its times are the wall clock's (a live table's hand), not a replay's events' clock

    @property
    def seconds(self) -> float | None:
        if self.started_ts is None or self.ended_ts is None:
            return None
        return self.ended_ts - self.started_ts


def hand_facts(hh: HandHistory, *, name: str = "") -> HandFacts:
    """The facts of one hand; ``name`` identifies a hand with no table or number of its own. Its times are on
    the wall clock (Unix seconds) where a live table stamped it, else on the events' clock."""
    user = hh.user_defined_fields
    table = str(hh.table or user.get("_tablewatch_table") or name or "?")
    seats = list(hh.seats) if hh.seats else list(range(1, len(hh.starting_stacks) + 1))
    names = [str(p) for p in hh.players] if hh.players else [f"{table} seat {seat}" for seat in seats]
    started = _float(user.get("_tablewatch_started_ts"))
    wall = _float(user.get("_tablewatch_started_at"))
    shift = wall - started if wall is not None and started is not None else 0.0
    times = [float(t) + shift for t in user.get("_tablewatch_action_times", [])]
    ended = _float(user.get("_tablewatch_ended_ts"))
    return HandFacts(
        table=table, hand_no=int(hh.hand or 0), started_ts=None if started is None else started + shift,
        ended_ts=None if ended is None else ended + shift, first_action_ts=times[0] if times else None,
        last_action_ts=times[-1] if times else None,
        errors=tuple(str(v.get("rule_id", "?")) for v in user.get("_tablewatch_violations", [])
                     if v.get("severity", "violation") == "violation"),  # advisories and device findings are none
        players=_players(hh, names), dealer=user.get("_tablewatch_dealer"), dated=wall is not None)


def _players(hh: HandHistory, names: list[str]) -> tuple[PlayerHand, ...]:
    count = len(names)
    vpip, pfr = [False] * count, [False] * count
    aggressive, calls = [0] * count, [0] * count
    folded: set[int] = set()
    street = 0
    state = _replayed(hh)
    for operation in state.operations:  # every operation of the hand, in order
        if isinstance(operation, BoardDealing):
            street += 1
        elif isinstance(operation, Folding):
            folded.add(operation.player_index)
        elif isinstance(operation, ACTIONS):
            _count(operation, street, vpip, pfr, aggressive, calls)
    in_at_end = [i for i in range(count) if i not in folded]
    showdown = len(in_at_end) >= 2
    return tuple(PlayerHand(player=names[i], vpip=vpip[i], pfr=pfr[i], postflop_aggressive=aggressive[i],
                            postflop_calls=calls[i], saw_showdown=showdown and i in in_at_end,
                            won_at_showdown=showdown and i in in_at_end and state.payoffs[i] > 0,
                            net=float(state.payoffs[i]))
                 for i in range(count))


def _replayed(hh: HandHistory) -> State:
    """The hand's state once pokerkit has played its history through (one state, changed at each step)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pokerkit warns about fields it doesn't know; the hand is still read
        last = deque(hh, maxlen=1)
    if not last:
        raise ValueError("no hand in the history")
    return last[0]


def _count(operation: CheckingOrCalling | CompletionBettingOrRaisingTo, street: int, vpip: list[bool],
           pfr: list[bool], aggressive: list[int], calls: list[int]) -> None:
    i = operation.player_index
    raising = isinstance(operation, CompletionBettingOrRaisingTo)
    calling = not raising and operation.amount > 0
    if street == 0:
        vpip[i] |= raising or calling
        pfr[i] |= raising
    elif raising:
        aggressive[i] += 1
    elif calling:
        calls[i] += 1


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


# --- figures over many hands ---------------------------------------------------------------------------------


@dataclass
class PlayerStats:
    player: str
    hands: int = 0
    vpip: int = 0
    pfr: int = 0
    postflop_aggressive: int = 0
    postflop_calls: int = 0
    showdowns: int = 0
    showdowns_won: int = 0
    net: float = 0.0

    def add(self, hand: PlayerHand) -> None:
        self.hands += 1
        self.vpip += hand.vpip
        self.pfr += hand.pfr
        self.postflop_aggressive += hand.postflop_aggressive
        self.postflop_calls += hand.postflop_calls
        self.showdowns += hand.saw_showdown
        self.showdowns_won += hand.won_at_showdown
        self.net += hand.net

    def row(self) -> dict[str, Any]:
        return {"player": self.player, "hands": self.hands, "vpip_pct": _pct(self.vpip, self.hands),
                "pfr_pct": _pct(self.pfr, self.hands),
                "aggression": (round(self.postflop_aggressive / self.postflop_calls, 2) if self.postflop_calls
                               else None),
                "showdowns": self.showdowns, "showdowns_won_pct": _pct(self.showdowns_won, self.showdowns),
                "net": round(self.net, 2)}


@dataclass
class PaceStats:
    """The hands of one table or one dealer: how many, how fast, and the procedure errors in them. Kept as sums,
    so a hand store's rollup fills it with SQL as well as hands one by one."""

    name: str
    grouping: str = "table"
    hands: int = 0
    timed: int = 0  # hands with their start and end times
    seconds: float = 0.0  # the timed hands' durations, summed
    phased: int = 0  # timed hands with their first and last action's times
    deal_s: float = 0.0  # start of the hand → first action, summed over the phased hands
    betting_s: float = 0.0  # first action → last action
    finish_s: float = 0.0  # last action → the hand's end (showdown, push)
    first_start: float | None = None
    last_end: float | None = None
    errors: Counter[str] = field(default_factory=Counter)

    def add(self, hand: HandFacts) -> None:
        self.hands += 1
        self.errors.update(hand.errors)
        if hand.seconds is None or hand.started_ts is None or hand.ended_ts is None:
            return
        self.timed += 1
        self.seconds += hand.seconds
        self.first_start = min(hand.started_ts, self.first_start if self.first_start is not None else math.inf)
        self.last_end = max(hand.ended_ts, self.last_end if self.last_end is not None else -math.inf)
        if hand.first_action_ts is not None and hand.last_action_ts is not None:
            self.phased += 1
            self.deal_s += hand.first_action_ts - hand.started_ts
            self.betting_s += hand.last_action_ts - hand.first_action_ts
            self.finish_s += hand.ended_ts - hand.last_action_ts

    def row(self) -> dict[str, Any]:
        span = (self.last_end - self.first_start) if self.first_start is not None and self.last_end is not None else 0
        return {self.grouping: self.name, "hands": self.hands,
                "hands_per_hour": round(self.timed * 3600 / span, 1) if span > 0 else None,
                "seconds_per_hand": _mean(self.seconds, self.timed), "deal_s": _mean(self.deal_s, self.phased),
                "betting_s": _mean(self.betting_s, self.phased), "finish_s": _mean(self.finish_s, self.phased),
                "errors_per_100_hands": _pct(sum(self.errors.values()), self.hands),
                "errors_by_rule": dict(sorted(self.errors.items()))}


def by_player(hands: Iterable[HandFacts]) -> list[PlayerStats]:
    players: dict[str, PlayerStats] = {}
    for hand in hands:
        for part in hand.players:
            players.setdefault(part.player, PlayerStats(part.player)).add(part)
    return sorted(players.values(), key=lambda s: (-s.hands, s.player))


NO_DEALER = "(not named)"


def by_table(hands: Iterable[HandFacts]) -> list[PaceStats]:
    return _paces(((hand.table, hand) for hand in hands), "table")


def by_dealer(hands: Iterable[HandFacts]) -> list[PaceStats]:
    """Per dealer: hands per hour counts the time between a dealer's first and last hand, breaks included."""
    return _paces(((hand.dealer or NO_DEALER, hand) for hand in hands), "dealer")


def _paces(keyed: Iterable[tuple[str, HandFacts]], grouping: str) -> list[PaceStats]:
    groups: dict[str, PaceStats] = {}
    for name, hand in keyed:
        groups.setdefault(name, PaceStats(name, grouping)).add(hand)
    return [groups[name] for name in sorted(groups)]


def read_facts(histories: Iterable[tuple[str, HandHistory]]) -> tuple[list[HandFacts], list[str]]:
    """The facts of each (name, history) pair, and a line for each hand pokerkit can't replay (left out)."""
    facts, problems = [], []
    for name, hh in histories:
        try:
            facts.append(hand_facts(hh, name=name))
        except Exception as exc:  # pokerkit raises many types for a hand it can't replay
            problems.append(f"{name}: {type(exc).__name__}: {exc}")
    return facts, problems


def _pct(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def _mean(total: float, count: int) -> float | None:
    return round(total / count, 1) if count else None

