"""What the poker room wants to know from its captured hands: per table, dealer or shift (hands, hands per hour,
seconds per hand and where they go, breaks, pots, the hands with a dealer's procedure error and with a player's
violation per 100 hands, and by rule) and per player (hands, VPIP, PFR, aggression, showdowns seen and won, net).

Read from hand histories: the PHH a table writes (its ``_tablewatch_*`` fields carry each hand's times and
violations) or any PHH file. pokerkit replays each hand, so a call is told from a check, and the showdown from
a fold, by pokerkit's own state rather than by reading action strings.

Definitions (the usual ones of tracking software):
- VPIP: the player put chips in voluntarily before the flop (a call or a raise; posting a blind or checking the
  big blind is not voluntary).
- PFR: the player raised before the flop.
- Aggression factor: bets and raises after the flop over calls after the flop.
- Showdown seen: still in the hand when the betting ended with two or more players in it; won: with a profit.
- Hands per hour: the timed hands over their time at the table: their own durations and the pauses between them
  shorter than a break (``BREAK_S``). A violation is the dealer's or a player's as the rule that found it says
  (``events.Party``).
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pokerkit import (
    BoardDealing,
    CheckingOrCalling,
    ChipsPushing,
    CompletionBettingOrRaisingTo,
    Folding,
    HandHistory,
    HoleCardsShowingOrMucking,
    State,
)

from tablewatch.events import Party
from tablewatch.phhfile import player_names, seat_numbers

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
    seat: int | None = None  # the seat of a player known by no name: named by the table, seat and session


STREETS = ("preflop", "flop", "turn", "river")
BREAK_S = 300.0  # a pause between two hands of a table at least this long is a break, not time at the table


@dataclass(frozen=True)
class HandFacts:
    table: str
    hand_no: int
    started_ts: float | None
    ended_ts: float | None
    first_action_ts: float | None
    last_action_ts: float | None
    errors: tuple[str, ...]  # the rule id of each dealer's procedure error in the hand (violations, not advisories)
    players: tuple[PlayerHand, ...]
    dealer: str | None = None  # as the console named them
    dated: bool = False  # its times are the wall clock's (a live table's hand), not a replay's events' clock
    player_violations: tuple[str, ...] = ()  # the rule id of each violation by a player
    pot: float = 0.0  # every chip pushed to the winners
    gap_s: float | None = None  # from the end of the table's hand before (dated hands only) to this one's start
    street_s: tuple[float | None, ...] = (None,) * len(STREETS)  # each street's betting time (its burn seen)

    @property
    def seconds(self) -> float | None:
        if self.started_ts is None or self.ended_ts is None:
            return None
        return self.ended_ts - self.started_ts

    @property
    def quarter(self) -> int | None:
        """The quarter hour (Unix seconds // 900) a dated hand started in: what shifts are made of."""
        return int(self.started_ts // QUARTER_S) if self.dated and self.started_ts is not None else None


def hand_facts(hh: HandHistory, *, name: str = "") -> HandFacts:
    """The facts of one hand; ``name`` identifies a hand with no table or number of its own. Its times are on
    the wall clock (Unix seconds) where a live table stamped it, else on the events' clock."""
    user = hh.user_defined_fields
    table = str(hh.table or user.get("_tablewatch_table") or name or "?")
    seats, known = seat_numbers(hh), player_names(hh)
    names = [known.get(seat, f"{table} seat {seat}") for seat in seats]
    unnamed: list[int | None] = [None if seat in known else seat for seat in seats]
    started = _float(user.get("_tablewatch_started_ts"))
    wall = _float(user.get("_tablewatch_started_at"))
    shift = wall - started if wall is not None and started is not None else 0.0
    times = [float(t) + shift for t in user.get("_tablewatch_action_times", [])]
    ended = _float(user.get("_tablewatch_ended_ts"))
    errors, player_violations = _violations(user.get("_tablewatch_violations", []))
    state, complete = replayed(hh)
    nets, pot = _outcome(hh, state, complete)
    burns = _burn_times(user.get("_tablewatch_burns", []), shift)
    reached = sum(isinstance(op, BoardDealing) for op in state.operations)
    return HandFacts(
        table=table, hand_no=int(hh.hand or 0), started_ts=None if started is None else started + shift,
        ended_ts=None if ended is None else ended + shift, first_action_ts=times[0] if times else None,
        last_action_ts=times[-1] if times else None,
        errors=errors, player_violations=player_violations, players=_players(state, names, unnamed, nets),
        dealer=user.get("_tablewatch_dealer"), dated=wall is not None, pot=pot,
        street_s=_street_times(times, burns, reached))


def _violations(found: list[dict[str, Any]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The rule ids of the dealer's procedure errors and of the players' violations (advisories and the monitor's
    own findings are neither)."""
    broken = [v for v in found if v.get("severity", "violation") == "violation"]
    dealer = tuple(str(v.get("rule_id", "?")) for v in broken if v.get("by") == str(Party.DEALER))
    return dealer, tuple(str(v.get("rule_id", "?")) for v in broken if v.get("by") != str(Party.DEALER))


def _burn_times(burns: list[str], shift: float) -> dict[str, float]:
    """The time of each street's first burn (``"flop:??@12.5"`` as the history writes them)."""
    out: dict[str, float] = {}
    for burn in burns:
        street, _, ts = str(burn).partition(":")
        out.setdefault(street, float(ts.rpartition("@")[2]) + shift)
    return out


def _street_times(actions: list[float], burns: dict[str, float], reached: int) -> tuple[float | None, ...]:
    """Seconds of each street the hand reached: from its first action (preflop) or its burn to the next street's
    burn, or the last action. None where a burn was not seen (a table without a camera)."""
    if not actions:
        return (None,) * len(STREETS)
    marks = [actions[0], *(burns.get(street) for street in STREETS[1:])]
    out: list[float | None] = []
    for k in range(len(STREETS)):
        end = marks[k + 1] if k < reached else actions[-1]
        begun = marks[k]
        out.append(end - begun if k <= reached and begun is not None and end is not None and end >= begun else None)
    return tuple(out)


def in_sequence(hand: HandFacts, before_end: float | None, before_seats: dict[int, str]) -> HandFacts:
    """A dated hand given its table's hand before (when it ended; its unnamed players by seat): with the pause
    between them, and each player known by no name named by the table, seat and session. A session is the run of
    hands a seat is dealt in without a break; it is named by the time its first hand started (UTC)."""
    if not hand.dated or hand.started_ts is None:
        return hand
    gap = max(0.0, hand.started_ts - before_end) if before_end is not None else None
    carried = before_seats if gap is not None and gap < BREAK_S else {}
    began = datetime.fromtimestamp(hand.started_ts, UTC).strftime("%Y-%m-%d %H:%M")
    players = tuple(replace(p, player=carried.get(p.seat) or f"{p.player} from {began}") if p.seat is not None else p
                    for p in hand.players)
    return replace(hand, gap_s=gap, players=players)


def seats_of(hand: HandFacts) -> dict[int, str]:
    """The players known by no name, by seat."""
    return {p.seat: p.player for p in hand.players if p.seat is not None}


def in_table_order(hands: Iterable[HandFacts]) -> list[HandFacts]:
    """The hands by table and time, each dated one ``in_sequence`` after its table's hand before."""
    out: list[HandFacts] = []
    before: dict[str, HandFacts] = {}
    for hand in sorted(hands, key=lambda h: (h.table, h.started_ts if h.dated else math.inf, h.hand_no)):
        last = before.get(hand.table)
        if hand.dated and hand.started_ts is not None:
            hand = in_sequence(hand, None if last is None else last.ended_ts or last.started_ts,
                               {} if last is None else seats_of(last))
            before[hand.table] = hand
        out.append(hand)
    return out


def _players(state: State, names: list[str], unnamed: list[int | None],
             nets: list[float]) -> tuple[PlayerHand, ...]:
    count = len(names)
    vpip, pfr = [False] * count, [False] * count
    aggressive, calls = [0] * count, [0] * count
    folded: set[int] = set()
    street = 0
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
                            won_at_showdown=showdown and i in in_at_end and nets[i] > 0,
                            net=nets[i], seat=unnamed[i])
                 for i in range(count))


def replayed(hh: HandHistory) -> tuple[State, bool]:
    """The hand's state once pokerkit has played its history through (one state, changed at each step), and
    whether it got to the end with a judgment: hands no camera saw show ``????`` at the showdown on a board of
    ``??``, which pokerkit can't rank (it stops there with every action before it read, or takes them for no
    hand: no judgment either)."""
    state: State | None = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pokerkit warns about fields it doesn't know; the hand is still read
        try:
            for state in hh:  # noqa: B007 - the last state is the hand's
                pass
        except (KeyError, ValueError):
            if state is None or not state.operations:
                raise
            return state, False
    if state is None:
        raise ValueError("no hand in the history")
    return state, not _ranked_unknown_cards(state)


def _ranked_unknown_cards(state: State) -> bool:
    """Hands were shown down on a board with a card unknown: pokerkit ranks none of them (its lookup has no
    rank for ``?``)."""
    shown = any(isinstance(op, HoleCardsShowingOrMucking) for op in state.operations)
    return shown and any(card.unknown_status for cards in state.board_cards for card in cards)


def _outcome(hh: HandHistory, state: State, complete: bool) -> tuple[list[float], float]:
    """Each player's net and the pot: pokerkit's, or for a hand it could not finish the history's own finishing
    stacks and winnings (a table's hand histories have them)."""
    if complete:
        pushed = sum(sum(op.amounts) for op in state.operations if isinstance(op, ChipsPushing))
        return [float(p) for p in state.payoffs], float(pushed)
    if not hh.finishing_stacks or not hh.winnings:
        raise ValueError("pokerkit can't play the hand to its end and it has no finishing stacks")
    nets = [float(end) - float(start) for end, start in zip(hh.finishing_stacks, hh.starting_stacks, strict=True)]
    return nets, float(sum(hh.winnings))


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
    """The hands of one table, dealer or shift: how many, how fast, the pots, and the errors in them. Kept as
    sums, so a hand store's rollup fills it with SQL as well as hands one by one, and shifts merge hours."""

    name: str
    grouping: str = "table"
    hands: int = 0
    timed: int = 0  # hands with their start and end times
    seconds: float = 0.0  # the timed hands' durations, summed
    pauses_s: float = 0.0  # the pauses before timed hands shorter than a break, summed
    breaks: int = 0  # pauses of a break's length or more
    phased: int = 0  # timed hands with their first and last action's times
    deal_s: float = 0.0  # start of the hand → first action, summed over the phased hands
    betting_s: float = 0.0  # first action → last action
    finish_s: float = 0.0  # last action → the hand's end (showdown, push)
    pots: float = 0.0
    error_hands: int = 0  # hands with a dealer's procedure error
    violation_hands: int = 0  # hands with a player's violation
    street_s: list[float] = field(default_factory=lambda: [0.0] * len(STREETS))  # summed where known
    streets_timed: list[int] = field(default_factory=lambda: [0] * len(STREETS))
    errors: Counter[str] = field(default_factory=Counter)  # hands with a dealer's error, by the rule it broke
    player_violations: Counter[str] = field(default_factory=Counter)  # hands with a player's, by rule

    def add(self, hand: HandFacts) -> None:
        self.hands += 1
        self.pots += hand.pot
        self.errors.update(set(hand.errors))  # a rule found twice in a hand is one error of that hand
        self.player_violations.update(set(hand.player_violations))
        self.error_hands += bool(hand.errors)
        self.violation_hands += bool(hand.player_violations)
        for k, seconds in enumerate(hand.street_s):
            if seconds is not None:
                self.street_s[k] += seconds
                self.streets_timed[k] += 1
        if hand.seconds is None or hand.started_ts is None or hand.ended_ts is None:
            return
        self.timed += 1
        self.seconds += hand.seconds
        if hand.gap_s is not None:
            self.breaks += hand.gap_s >= BREAK_S
            self.pauses_s += hand.gap_s if hand.gap_s < BREAK_S else 0.0
        if hand.first_action_ts is not None and hand.last_action_ts is not None:
            self.phased += 1
            self.deal_s += hand.first_action_ts - hand.started_ts
            self.betting_s += hand.last_action_ts - hand.first_action_ts
            self.finish_s += hand.ended_ts - hand.last_action_ts

    def merge(self, other: PaceStats) -> None:
        for name in ("hands", "timed", "seconds", "pauses_s", "breaks", "phased", "deal_s", "betting_s",
                     "finish_s", "pots", "error_hands", "violation_hands"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.street_s = [a + b for a, b in zip(self.street_s, other.street_s, strict=True)]
        self.streets_timed = [a + b for a, b in zip(self.streets_timed, other.streets_timed, strict=True)]
        self.errors.update(other.errors)
        self.player_violations.update(other.player_violations)

    def row(self) -> dict[str, Any]:
        at_table = self.seconds + self.pauses_s
        return {self.grouping: self.name, "hands": self.hands,
                "hands_per_hour": round(self.timed * 3600 / at_table, 1) if at_table > 0 else None,
                "seconds_per_hand": _mean(self.seconds, self.timed), "deal_s": _mean(self.deal_s, self.phased),
                "betting_s": _mean(self.betting_s, self.phased), "finish_s": _mean(self.finish_s, self.phased),
                **{f"{street}_s": _mean(self.street_s[k], self.streets_timed[k]) for k, street in enumerate(STREETS)},
                "breaks": self.breaks, "pot_mean": _mean(self.pots, self.hands),
                "dealer_error_hands_per_100": _pct(self.error_hands, self.hands),
                "dealer_errors_by_rule": dict(sorted(self.errors.items())),
                "player_violation_hands_per_100": _pct(self.violation_hands, self.hands),
                "player_violations_by_rule": dict(sorted(self.player_violations.items()))}


def by_player(hands: Iterable[HandFacts]) -> list[PlayerStats]:
    players: dict[str, PlayerStats] = {}
    for hand in hands:
        for part in hand.players:
            players.setdefault(part.player, PlayerStats(part.player)).add(part)
    return sorted(players.values(), key=lambda s: (-s.hands, s.player))


NO_DEALER = "(not named)"
NO_DATE = "(no date)"
QUARTER_S = 900  # shifts are made of quarter hours (every time zone's offset is a whole number of them)


@dataclass(frozen=True)
class Shifts:
    """The room's shifts: the local times of day each one starts (on a quarter hour), in its time zone."""

    starts: tuple[time, ...] = (time(6), time(14), time(22))
    zone: str = "UTC"

    def __post_init__(self) -> None:
        if not self.starts or any(t.minute % 15 or t.second or t.microsecond for t in self.starts):
            raise ValueError("shifts start on a quarter hour (06:00, 14:30…)")
        try:
            ZoneInfo(self.zone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {self.zone!r}") from exc

    def label(self, quarter: int) -> str:
        """The shift the quarter hour (Unix seconds // 900) falls in, by the day and time it started."""
        local = datetime.fromtimestamp(quarter * QUARTER_S, ZoneInfo(self.zone))
        starts = sorted(self.starts)
        begun = [t for t in starts if t <= local.time()]
        day = local.date() if begun else local.date() - timedelta(days=1)  # before the first: last night's
        return f"{day.isoformat()} {(begun or starts)[-1]:%H:%M}"


def by_table(hands: Iterable[HandFacts]) -> list[PaceStats]:
    return _paces(((hand.table, hand) for hand in hands), "table")


def by_dealer(hands: Iterable[HandFacts]) -> list[PaceStats]:
    return _paces(((hand.dealer or NO_DEALER, hand) for hand in hands), "dealer")


def by_shift(hands: Iterable[HandFacts], shifts: Shifts) -> list[PaceStats]:
    """Per shift of the room, every table's hands together; a replay's hands (no date) apart."""
    return _paces(((NO_DATE if hand.started_ts is None or not hand.dated
                    else shifts.label(int(hand.started_ts // QUARTER_S)), hand) for hand in hands), "shift")


def merge_into_shifts(quarters: Iterable[PaceStats], shifts: Shifts) -> list[PaceStats]:
    """Per-quarter-hour figures (named by the quarter's number, or ``NO_DATE``) gathered into shifts."""
    merged: dict[str, PaceStats] = {}
    for quarter in quarters:
        name = quarter.name if quarter.name == NO_DATE else shifts.label(int(quarter.name))
        merged.setdefault(name, PaceStats(name, "shift")).merge(quarter)
    return [merged[name] for name in sorted(merged)]


def _paces(keyed: Iterable[tuple[str, HandFacts]], grouping: str) -> list[PaceStats]:
    groups: dict[str, PaceStats] = {}
    for name, hand in keyed:
        groups.setdefault(name, PaceStats(name, grouping)).add(hand)
    return [groups[name] for name in sorted(groups)]


def read_facts(histories: Iterable[tuple[str, HandHistory]]) -> tuple[list[HandFacts], list[str]]:
    """The facts of each (name, history) pair, in table order (``in_table_order``), and a line for each hand
    pokerkit can't replay (left out)."""
    facts, problems = [], []
    for name, hh in histories:
        try:
            facts.append(hand_facts(hh, name=name))
        except Exception as exc:  # pokerkit raises many types for a hand it can't replay
            problems.append(f"{name}: {type(exc).__name__}: {exc}")
    return in_table_order(facts), problems


def _pct(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def _mean(total: float, count: int) -> float | None:
    return round(total / count, 1) if count else None

