"""One hand, resolved: who sits where in pokerkit's order, the cards to deal, the actions to perform.

Both sources end up here: a scenario's scripted hand (actions in PHH notation with ``sN`` seats or
``pN`` players) and a hand taken from a PHH file (amounts scaled to integer chip units).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from pokerkit import HandHistory

from tablewatch.phhfile import PhhError, read_hands
from tablewatch.sim.scenario import ACTION_RE, ActionSpec, HandSpec, ScenarioError, ViolationSpec, split_cards


@dataclass
class Act:
    """A betting or showdown action of player ``player`` (0-based pokerkit index)."""

    index: int  # position in the hand's action list (violations refer to it)
    player: int
    verb: str  # f, cc, cbr, sm
    amount: int | None = None
    shown: list[str] | None = None  # for sm: the cards ([] = shown, cards unknown), None = muck
    spec: ActionSpec = field(default_factory=lambda: ActionSpec(do="p1 f"))


@dataclass
class HandPlan:
    hand_no: int
    seats: list[int]  # table seat of each player, pokerkit order (p1 = first after the button)
    stacks: list[int]
    blinds: list[int]  # per player, pokerkit's blinds_or_straddles
    antes: list[int]
    min_bet: int
    holes: list[list[str | None]]  # per player, two cards (None: pick at random)
    board: list[str]
    acts: list[Act]
    violations: list[ViolationSpec]
    unit: int = 1
    source: str = "scenario"
    odd_chip: int = 1  # the smallest chip in play: pots are split in its multiples (TDA-12), as the rules do
    ante_trimming: bool = True  # pokerkit's: an ante above the others' goes back (off for a big blind ante)
    players: dict[int, str] = field(default_factory=dict)  # table seat → the player's name, where known

    @property
    def button(self) -> int:
        return self.seats[-1]

    def player_of_seat(self, seat: int) -> int:
        if seat not in self.seats:
            raise ScenarioError(f"hand {self.hand_no}: seat {seat} is not in the hand (seats {sorted(self.seats)})")
        return self.seats.index(seat)


def order_from_button(seats: list[int], button: int) -> list[int]:
    """Seats in pokerkit's order: clockwise from the seat after the button, the button last."""
    ordered = sorted(seats)
    if button not in ordered:
        raise ScenarioError(f"the button seat {button} has no player (seats {ordered})")
    i = ordered.index(button)
    return ordered[i + 1 :] + ordered[: i + 1]


def parse_act(index: int, spec: ActionSpec, seats: list[int], hand_no: int) -> Act:
    m = ACTION_RE.match(spec.do)
    assert m is not None  # the scenario model checked the form
    n = int(m["n"])
    if m["who"] == "s":
        if n not in seats:
            raise ScenarioError(f"hand {hand_no}, action {index} ({spec.do!r}): seat {n} is not in the hand")
        player = seats.index(n)
    else:
        if not 1 <= n <= len(seats):
            raise ScenarioError(f"hand {hand_no}, action {index} ({spec.do!r}): there is no player p{n}")
        player = n - 1
    verb, arg = m["verb"], m["arg"]
    if verb == "cbr" and (arg is None or not arg.isdigit()):
        raise ScenarioError(f"hand {hand_no}, action {index} ({spec.do!r}): 'cbr' needs a whole amount")
    shown = None  # for sm: None = muck; [] = shown, cards not given in the source ("????"); else the cards
    if verb == "sm" and arg and arg != "-":
        shown = [] if "?" in arg else split_cards(arg)
    return Act(index=index, player=player, verb=verb, amount=int(arg) if verb == "cbr" else None, shown=shown,
               spec=spec)


def plan_scripted(hand: HandSpec, *, hand_no: int, stacks: dict[int, int], button: int, blinds: tuple[int, int],
                  ante: int) -> HandPlan:
    seats = order_from_button(list(stacks), button)
    n = len(seats)
    hb = list(blinds) + [0] * (n - 2) if n > 2 else [blinds[0], blinds[1]]
    holes: list[list[str | None]] = [[None, None] for _ in seats]
    for seat, cards in hand.hole_cards.items():
        if seat not in seats:
            raise ScenarioError(f"hand {hand_no}: hole_cards for seat {seat}, who is not in the hand")
        holes[seats.index(seat)] = list(split_cards(cards))
    acts = [parse_act(i, spec, seats, hand_no) for i, spec in enumerate(hand.action_specs())]
    for act in acts:
        if act.verb == "sm" and act.shown:
            holes[act.player] = list(act.shown)
    return HandPlan(hand_no=hand_no, seats=seats, stacks=[stacks[s] for s in seats], blinds=hb, antes=[ante] * n,
                    min_bet=blinds[1], holes=holes, board=split_cards(hand.board or ""), acts=acts,
                    violations=list(hand.violations))


def load_phh_hand(path: Path, index: int) -> HandHistory:
    """Hand ``index`` (1-based) of a PHH file (single or multi-hand), amounts as Decimals (cached: read-only)."""
    if not path.is_file():
        raise ScenarioError(f"{path}: no such PHH file")
    stat = path.stat()
    hands = _phh_file(path.resolve(), stat.st_mtime_ns, stat.st_size)
    if not 1 <= index <= len(hands):
        raise ScenarioError(f"{path}: has no hand {index} (it has {len(hands)})")
    return hands[index - 1]


def phh_hand_count(path: Path) -> int:
    if not path.is_file():
        raise ScenarioError(f"{path}: no such PHH file")
    stat = path.stat()
    return len(_phh_file(path.resolve(), stat.st_mtime_ns, stat.st_size))


@lru_cache(maxsize=8)
def _phh_file(path: Path, mtime_ns: int, size: int) -> tuple[HandHistory, ...]:
    """Every hand of a PHH file, parsed once per version of the file (pokerkit parses the whole file anyway)."""
    try:
        return tuple(read_hands(path, parse_value=Decimal))
    except PhhError as exc:
        raise ScenarioError(f"{path}: not a readable PHH file ({exc})") from exc


def plan_phh(hand: HandSpec, *, hand_no: int, seat_count: int) -> HandPlan:
    assert hand.phh is not None
    hh = load_phh_hand(hand.phh.file, hand.phh.hand)
    where = f"{hand.phh.file} hand {hand.phh.hand}"
    if hh.variant != "NT":
        raise ScenarioError(f"{where}: variant {hh.variant!r}; the simulator plays no-limit hold'em (NT) only")
    blinds, min_bet = hh.blinds_or_straddles, hh.min_bet
    if blinds is None or min_bet is None:
        raise ScenarioError(f"{where}: a no-limit hold'em hand needs its blinds and minimum bet")
    bets = [Decimal(p[2]) for p in (a.split() for a in hh.actions) if len(p) >= 3 and p[1] == "cbr"]
    stacks: list[int | Decimal] = list(hh.starting_stacks)
    if not all(Decimal(str(s)).is_finite() for s in stacks):
        # Some venues (iPoker) publish no stacks: give everyone a deep stack that covers every bet.
        deep = max([200 * Decimal(str(max(blinds))), 2 * sum(bets, Decimal(0))])
        stacks = [s if Decimal(str(s)).is_finite() else deep for s in stacks]
    amounts = [*stacks, *blinds, *hh.antes, min_bet, *bets]
    unit = hand.phh.unit or _unit_for(amounts)
    scale = _scaler(unit, where)
    n = len(hh.starting_stacks)
    seats = _phh_seats(hh, n, seat_count)
    holes: list[list[str | None]] = [[None, None] for _ in range(n)]
    board: list[str] = []
    acts: list[Act] = []
    for raw in hh.actions:
        raw = raw.split("#")[0].strip()
        parts = raw.split()
        if parts[:2] == ["d", "dh"]:
            cards = parts[3] if len(parts) > 3 else "????"
            if "?" not in cards:
                holes[int(parts[2][1:]) - 1] = list(split_cards(cards))
        elif parts[:2] == ["d", "db"]:
            board += split_cards(parts[2])
        else:
            if len(parts) >= 3 and parts[1] == "cbr":
                parts[2] = str(scale(Decimal(parts[2])))
            spec = ActionSpec(do=" ".join(parts[:3]))
            act = parse_act(len(acts), spec, seats, hand_no)
            if act.shown:
                holes[act.player] = list(act.shown)
            acts.append(act)
    plan = HandPlan(hand_no=hand_no, seats=seats, stacks=[scale(s) for s in stacks],
                    blinds=[scale(b) for b in blinds], antes=[scale(a) for a in hh.antes],
                    min_bet=scale(min_bet), holes=holes, board=board, acts=acts,
                    violations=list(hand.violations), unit=unit, source=where,
                    ante_trimming=bool(hh.ante_trimming_status),
                    players={seats[i]: str(name) for i, name in enumerate(hh.players or ()) if name})
    if not all(Decimal(str(s)).is_finite() for s in hh.starting_stacks):
        _check_down(plan)
    return plan


def _check_down(plan: HandPlan) -> None:
    """Finish a hand whose record stops early with checks and calls.

    Venues that publish no stacks (iPoker) end the record when the last players are all in; with the deep
    stacks given them here, the betting goes on, so they check (or call) to the showdown.
    """
    from tablewatch.sim.replay import replay

    for _ in range(4 * len(plan.seats)):
        try:
            actor = replay(plan).open_actor
        except ScenarioError:
            return  # the hand driver says what is wrong, at the action itself
        if actor is None:
            return
        plan.acts.append(parse_act(len(plan.acts), ActionSpec(do=f"p{actor + 1} cc"), plan.seats, plan.hand_no))


def _unit_for(amounts: list[Decimal | int]) -> int:
    """The smallest power of ten that makes every amount whole (cents for $623.75)."""
    unit = 1
    for a in amounts:
        while Fraction(str(a)) * unit != int(Fraction(str(a)) * unit):
            unit *= 10
    return unit


def _scaler(unit: int, where: str) -> Callable[[Decimal | int], int]:
    def scale(value: Decimal | int) -> int:
        v = Fraction(str(value)) * unit
        if v.denominator != 1:
            raise ScenarioError(f"{where}: amount {value} is not a whole number of units at unit {unit}")
        return int(v)

    return scale


def _phh_seats(hh: HandHistory, n: int, seat_count: int) -> list[int]:
    """Table seats for the PHH players: the file's ``seats`` when they fit the layout, else 1..n spread."""
    if hh.seats and len(hh.seats) == n and max(hh.seats) <= seat_count and len(set(hh.seats)) == n:
        return list(hh.seats)
    if n > seat_count:
        raise ScenarioError(f"the PHH hand has {n} players but the layout has {seat_count} seats")
    step = seat_count / n
    return [1 + math.floor(i * step) for i in range(n)]


def seated_by_the_rule(plan: HandPlan, last: HandPlan, *, seat_count: int) -> HandPlan:
    """A session's later PHH hand, turned round the table so that its button is where the dead-button rule puts
    it after ``last`` hand (TDA22-32; heads-up, TDA22-34): the records come from other tables, and a simulated
    dealer plays by the book unless a violation is injected. Seat numbers in the hand's injected violations turn
    with it. The hand as recorded when no turn fits (the button's seat can't be one the hand fills)."""
    fits = [k for k in range(seat_count) if _turned(plan.seats, k, seat_count)[-1] == _due_button(
        _turned(plan.seats, k, seat_count), last)]
    if not fits or fits[0] == 0:
        return plan
    k = fits[0]
    turn = {seat: _turned([seat], k, seat_count)[0] for seat in range(1, seat_count + 1)}
    plan.seats = [turn[seat] for seat in plan.seats]
    plan.players = {turn[seat]: name for seat, name in plan.players.items()}
    plan.violations = [_turned_violation(v, turn) for v in plan.violations]
    return plan


def _turned(seats: list[int], k: int, seat_count: int) -> list[int]:
    return [(seat - 1 + k) % seat_count + 1 for seat in seats]


def _due_button(seats: list[int], last: HandPlan) -> int:
    """The dead-button rule's button for players in ``seats`` after ``last`` hand: last hand's small blind's seat;
    heads-up, the player who is not due the big blind (nobody is the big blind twice in a row)."""
    last_big = last.seats[0] if len(last.seats) == 2 else last.seats[1]
    last_small = last.seats[-1] if len(last.seats) == 2 else last.seats[0]
    if len(seats) > 2:
        return last_small
    seated = sorted(seats)
    big = next((seat for seat in seated if seat > last_big), seated[0])
    return next(seat for seat in seated if seat != big)


def _turned_violation(violation: ViolationSpec, turn: dict[int, int]) -> ViolationSpec:
    moved = {name: turn[getattr(violation, name)] for name in ("seat", "to_seat")
             if isinstance(getattr(violation, name, None), int)}
    return violation.model_copy(update=moved) if moved else violation
