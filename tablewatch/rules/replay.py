"""Replaying PHH hands through tablewatch's rules layer, acted out as physical table events.

For each hand: pokerkit replays the original (the oracle); the same hand is then performed at a virtual
table — hole cards pitched round the table, burns, board cards, each betting action as chips over the line
(``physical.py``), cards tabled or mucked, pots pushed — and fed to ``TableRules``. The hand tablewatch
reconstructs (and the PHH it writes, loaded back by pokerkit) must have the oracle's actions, amounts,
pots and final stacks.

PHH money (``1943.50``) becomes integer units (cents); unknown (``inf``) stacks become a large finite stack
and are compared as winnings.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from pokerkit import (
    BoardDealing,
    BringInPosting,
    Card,
    CardBurning,
    CheckingOrCalling,
    ChipsPushing,
    CompletionBettingOrRaisingTo,
    Folding,
    HandHistory,
    HoleCardsShowingOrMucking,
    HoleDealing,
    StandingPatOrDiscarding,
    State,
)
from pokerkit.notation import parse_action

from tablewatch.events import (
    BoardCardDealt,
    CardBurned,
    CardDealt,
    CardsDiscarded,
    Event,
    HandEnded,
    HandStarted,
    PotPushed,
    Violation,
)
from tablewatch.hands import FinishedHand
from tablewatch.phhfile import PhhError, forced_antes
from tablewatch.rules.game import GameConfig, Variant
from tablewatch.rules.physical import physical_events
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.table import TableRules, finished_hand

VARIANTS = {"NT": Variant.NLHE, "FT": Variant.FLHE, "PO": Variant.PLO, "FO/8": Variant.FLO8, "F7S": Variant.STUD,
            "F7S/8": Variant.STUD8, "FR": Variant.RAZZ, "NS": Variant.NLSD, "N2L1D": Variant.NL27,
            "F2L3D": Variant.FL27, "FB": Variant.BADUGI}
CHIPS_IN_CENTS = (1, 5, 25, 100, 500, 2500, 10000, 50000, 100000)  # $0.01 … $1,000
UNKNOWN_STACK_BB = 100_000  # an "inf" stack: 100,000 big blinds
MAX_AMOUNT = Decimal(10) ** 12  # no table's stack or bet is larger; beyond it a file is wrong, not rich
MAX_DECIMAL_PLACES = 8
POKERKIT_ERRORS = (ValueError, TypeError, KeyError, IndexError)  # what pokerkit raises on a hand it can't take
_PLAYER = re.compile(r"p(\d+)")


@dataclass(frozen=True, kw_only=True)
class NormalHand:
    """A PHH hand in integer units, with physical seats and the game's config."""

    name: str
    history: HandHistory  # integer units, finite stacks: what the oracle replays
    config: GameConfig
    seats: tuple[int, ...]  # physical seat of each PHH player p1..pn (button last)
    stacks: tuple[int, ...]
    unknown_stacks: tuple[bool, ...]
    blinds: tuple[tuple[int, int], ...]
    actions_line: int = 0  # the file line of the hand's ``actions`` field, for error messages
    source_actions: tuple[str, ...] = ()  # the actions as written in the file (money, not units)
    players: tuple[str, ...] = ()  # the players' names, where the file gives them (p1..pn)


@dataclass(kw_only=True)
class ReplayResult:
    name: str
    ok: bool = False
    error: str | None = None
    mismatches: list[str] = field(default_factory=list)
    finished: FinishedHand | None = None
    oracle: State | None = None
    violations: list[Violation] = field(default_factory=list)
    hand: NormalHand | None = None


# --- reading files ----------------------------------------------------------------------------------------


# --- normalising money and seats ----------------------------------------------------------------------------


def _decimals(value: Decimal) -> int:
    if value.is_finite():
        exponent = value.normalize().as_tuple().exponent
        return max(0, -int(exponent))
    return 0


def _amount(value: Any, what: str, name: str, *, unknown_ok: bool = False) -> Decimal:
    """``value`` as a real table amount; PhhError says why it cannot be one (``inf`` only where unknown_ok)."""
    try:
        amount = value if isinstance(value, Decimal) else Decimal(str(value))
    except InvalidOperation:
        amount = Decimal("NaN")
    if isinstance(value, bool) or amount.is_nan():
        shown = value if isinstance(value, Decimal) else repr(value)
        raise PhhError(f"hand [{name}]: {what} {shown} is not a number.")
    if amount.is_infinite():
        if unknown_ok and amount > 0:
            return amount
        raise PhhError(f"hand [{name}]: {what} {value} is not a finite amount.")
    if abs(amount) > MAX_AMOUNT:
        raise PhhError(f"hand [{name}]: {what} {value} is larger than any table's (at most {MAX_AMOUNT:,}).")
    if _decimals(amount) > MAX_DECIMAL_PLACES:
        raise PhhError(f"hand [{name}]: {what} {value} has more than {MAX_DECIMAL_PLACES} decimal places.")
    return amount


def _amounts(hh: HandHistory, name: str) -> list[Decimal]:
    """Every amount the hand names, each checked (see ``_amount``)."""
    fields: list[tuple[str, Any]] = [("starting stack", s) for s in hh.starting_stacks]
    fields += [("ante", a) for a in hh.antes] + [("blind", b) for b in hh.blinds_or_straddles or []]
    fields += [(label, v) for label in ("min_bet", "small_bet", "big_bet", "bring_in")
               if (v := getattr(hh, label, None)) is not None]
    fields += [(f"the amount of {action!r}", amount) for action in hh.actions
               if (amount := _cbr_text(action)) is not None]
    amounts = [_amount(value, what, name, unknown_ok=what == "starting stack") for what, value in fields]
    if any(stack <= 0 for stack in amounts[:len(hh.starting_stacks)]):
        raise PhhError(f"hand [{name}]: starting_stacks {list(map(str, hh.starting_stacks))} are not all positive.")
    return amounts


def _check_cards(actions: Sequence[str], name: str) -> None:
    """One deck: each known card is dealt once, and shown only by the player who holds it."""
    where: dict[Card, tuple[str, int]] = {}
    for number, action in enumerate(actions, 1):
        match action.split("#")[0].split():
            case "d", "db", text:
                place, dealt = "the board", True
            case "d", "dh", player, text:
                place, dealt = player, True
            case player, "sm", text if text != "-":
                place, dealt = player, False
            case _:
                continue
        try:
            cards = [card for card in Card.parse(text) if not card.unknown_status]
        except (ValueError, KeyError) as exc:
            raise PhhError(f"hand [{name}]: action #{number} {action!r}: {text!r} are not cards ({exc}).") from exc
        for k, card in enumerate(cards):
            if card in cards[:k]:
                raise PhhError(f"hand [{name}]: action #{number} {action!r} names {card!r} twice; a deck has one "
                               f"of each card.")
            held_by, first = where.setdefault(card, (place, number))
            if first != number and (dealt or held_by != place):
                raise PhhError(f"hand [{name}]: action #{number} {action!r}: {card!r} is already in play "
                               f"({'on the board' if held_by == 'the board' else 'with ' + held_by}, action "
                               f"#{first}); a deck has one of each card.")


def _check_players(actions: Sequence[str], n: int, name: str) -> None:
    """Every player an action names is one of the hand's p1..pn."""
    for number, action in enumerate(actions, 1):
        words = action.split("#")[0].split()
        label = words[2] if words[:2] == ["d", "dh"] and len(words) > 2 else words[0] if words else ""
        found = _PLAYER.fullmatch(label)
        if found and not 1 <= int(found.group(1)) <= n:
            raise PhhError(f"hand [{name}]: action #{number} {action!r}: there is no player {label} "
                           f"(the hand has p1..p{n}).")


def normalize(hh: HandHistory, name: str) -> NormalHand:
    """The hand in integer units; PHH seats mapped to physical seats (button last)."""
    if hh.variant not in VARIANTS:
        raise PhhError(f"hand [{name}]: variant {hh.variant!r} is not replayed (only {', '.join(VARIANTS)}).")
    blinds_given = hh.blinds_or_straddles or []
    places = max((_decimals(v) for v in _amounts(hh, name)), default=0)
    _check_cards(hh.actions, name)
    unit = Decimal(1).scaleb(-places)
    scale = 10**places

    def units(value: Any) -> int:
        scaled = Decimal(str(value)) * scale
        if scaled != scaled.to_integral_value():
            raise PhhError(f"hand [{name}]: amount {value} is not a whole number of {unit}.")
        return int(scaled)

    n = len(hh.starting_stacks)
    if n < 2:
        raise PhhError(f"hand [{name}]: starting_stacks has {n} player(s); a hand needs at least 2.")
    _check_players(hh.actions, n, name)
    for field_name in ("antes", "blinds_or_straddles"):
        values = getattr(hh, field_name) or []
        if len(values) not in (n, 0) and not isinstance(values, dict):
            raise PhhError(f"hand [{name}]: {field_name} has {len(values)} values for {n} players.")
    blinds_raw = [units(b) for b in blinds_given]
    blinds_raw += [0] * (n - len(blinds_raw))
    small_bet = units(hh.small_bet) if getattr(hh, "small_bet", None) else None
    big_blind = units(hh.min_bet) if hh.min_bet else max((abs(b) for b in blinds_raw), default=0) or small_bet or 0
    unknown = tuple(not Decimal(str(s)).is_finite() for s in hh.starting_stacks)
    stacks = tuple(UNKNOWN_STACK_BB * big_blind if u else units(s)
                   for s, u in zip(hh.starting_stacks, unknown, strict=True))
    antes = [units(a) for a in hh.antes] or [0] * n
    if getattr(hh, "ante_trimming_status", False) and len(set(antes)) > 1:  # pokerkit returns what tops the rest
        antes = [min(a, sorted(antes)[-2]) for a in antes]
    forced = forced_antes(antes)
    if forced is None:
        raise PhhError(f"hand [{name}]: antes that differ by seat ({antes}) are not replayed: an ante for every "
                       "player, the big blind's ante for everyone (TDA-60) or the button's.")
    ante, big_blind_ante, button_ante = forced
    seats = _physical_seats(hh, n)
    positive = [b for b in blinds_raw if b > 0]
    config = GameConfig(
        variant=VARIANTS[hh.variant], big_blind=big_blind, small_blind=min(min(positive, default=0), big_blind),
        ante=ante, big_blind_ante=big_blind_ante, button_ante=button_ante, chip_denominations=CHIPS_IN_CENTS,
        seat_count=10, currency_unit=unit,
        currency_symbol=str(getattr(hh, "currency_symbol", None) or ""),
        small_bet=small_bet, big_bet=units(hh.big_bet) if getattr(hh, "big_bet", None) else None,
        bring_in=units(hh.bring_in) if getattr(hh, "bring_in", None) else 0,
    )
    actions = [_scale_action(action, units) for action in hh.actions]
    history = dataclasses.replace(
        hh, starting_stacks=list(stacks), antes=antes,
        blinds_or_straddles=None if hh.blinds_or_straddles is None else blinds_raw,
        min_bet=big_blind if hh.min_bet is not None else None, actions=actions,
        small_bet=config.small_bet if config.structure == "FL" else hh.small_bet,
        big_bet=config.big_bet if config.structure == "FL" else hh.big_bet,
        bring_in=config.bring_in if config.stud else hh.bring_in,
    )
    return NormalHand(name=name, history=history, config=config, seats=seats, stacks=stacks, unknown_stacks=unknown,
                      blinds=tuple((seats[i], b) for i, b in enumerate(blinds_raw) if b),
                      source_actions=tuple(hh.actions), players=tuple(map(str, hh.players or ())))


def _physical_seats(hh: HandHistory, n: int) -> tuple[int, ...]:
    """PHH ``seats`` when they are clockwise from the button's left (button last); else 1..n."""
    seats = tuple(hh.seats or ()) if getattr(hh, "seats", None) else ()
    if len(seats) == n and len(set(seats)) == n and all(1 <= s <= 10 for s in seats):
        button = seats[-1]
        ordered = sorted(seats)
        clockwise = tuple([s for s in ordered if s > button] + [s for s in ordered if s <= button])
        if clockwise == seats:
            return seats
    return tuple(range(1, n + 1))


def _cbr_text(action: str) -> str | None:
    words = action.split("#")[0].split()
    return words[2] if len(words) == 3 and words[1] == "cbr" else None


def _cbr_amount(action: str) -> int | Decimal | None:
    text = _cbr_text(action)
    if text is None:
        return None
    return int(text) if text.isdigit() else Decimal(text)


def _scale_action(action: str, units: Callable[[int | Decimal | None], int]) -> str:
    words = action.split("#")[0].split()
    if len(words) == 3 and words[1] == "cbr":
        return f"{words[0]} cbr {units(_cbr_amount(action))}"
    return " ".join(words)


# --- the oracle and the performance ------------------------------------------------------------------------


def oracle(hand: NormalHand) -> State:
    """pokerkit's own replay of the hand; PhhError names the action pokerkit could not take."""
    applied = 0
    state: State | None = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for state, action in hand.history.state_actions:  # noqa: B007 - the last state is the result
                applied += action is not None
        except POKERKIT_ERRORS as exc:
            actions = hand.history.actions
            bad = actions[applied] if applied < len(actions) else "(end of actions)"
            shown = hand.source_actions[applied] if applied < len(hand.source_actions) else bad
            where = f" (line {hand.actions_line})" if hand.actions_line else ""
            raise PhhError(f"hand [{hand.name}]{where}: pokerkit cannot take action #{applied + 1} {shown!r}: "
                           f"{_why(hand, applied, bad, exc)}") from exc
    assert state is not None
    return state


def _why(hand: NormalHand, applied: int, action: str, exc: Exception) -> str:
    """pokerkit's own reason for refusing ``action``: its replay only says it could not repair the hand, so
    replay again up to the last good action (kept as a copy, before pokerkit's repairs) and try it there."""
    last: State | None = None
    count = 0
    try:
        for state, done in hand.history.state_actions:
            count += done is not None
            if count == applied and (done is not None or applied == 0) and last is None:
                last = copy.deepcopy(state)
    except POKERKIT_ERRORS:
        pass
    if last is None:
        return str(exc)
    unit = hand.config.currency_unit
    scale = f" (pokerkit counts in units of {unit})" if unit != 1 else ""
    try:
        parse_action(last, action)
    except POKERKIT_ERRORS as reason:
        return (str(reason) or str(exc)) + scale
    return str(exc)


def perform(hand: NormalHand, truth: State, rules: TableRules, *, hand_no: int, table: str) -> Iterator[Event]:
    """Act out the oracle's hand at the table, feeding ``rules``; yields each event after feeding it."""
    seats, cfg = hand.seats, hand.config
    clock = _Clock()
    start = HandStarted(ts=clock(), table=table, source="sim", hand_no=hand_no, button=seats[-1],
                        seats=tuple(sorted(seats)), stacks=tuple(hand.stacks[seats.index(s)] for s in sorted(seats)),
                        blinds=hand.blinds,
                        players=tuple(sorted((s, n) for s, n in zip(seats, hand.players, strict=False) if n)))
    yield from _feed(rules, [start])
    slot = 0
    holes: list[HoleDealing] = []  # a street's hole cards, dealt round the table once the street's are known
    for op in truth.operations:
        if isinstance(op, HoleDealing):
            holes.append(op)
            continue
        if holes:
            yield from _feed(rules, _deal_round_robin(holes, seats, table, clock))
            holes = []
        if isinstance(op, CardBurning):
            yield from _feed(rules, [CardBurned(ts=clock(), table=table, source="sim", card=None)])
        elif isinstance(op, BoardDealing):
            cards = [None if c.unknown_status else repr(c) for c in op.cards]
            board = []
            for card in cards:
                board.append(BoardCardDealt(ts=clock(), table=table, source="sim", card=card, slot=slot))
                slot += 1
            yield from _feed(rules, board)
        elif isinstance(op, Folding | CheckingOrCalling | CompletionBettingOrRaisingTo | BringInPosting):
            yield from _feed(rules, _betting(op, rules, seats, cfg, table, clock, hand_no))
        elif isinstance(op, StandingPatOrDiscarding):
            thrown = tuple(None if c.unknown_status else repr(c) for c in op.cards)
            yield from _feed(rules, [CardsDiscarded(ts=clock(), table=table, source="sim", seat=seats[op.player_index],
                                                    cards=thrown)])
        elif isinstance(op, HoleCardsShowingOrMucking):
            text = "".join(repr(c) for c in op.hole_cards)
            action = f"sm {text}" if op.hole_cards else "sm"
            yield from _feed(rules, physical_events(action, view=None, table=table, seat=seats[op.player_index],
                                                    ts=clock(), denominations=cfg.chip_denominations,
                                                    hole_cards=cfg.hole_cards))
        elif isinstance(op, ChipsPushing):
            pushes = [PotPushed(ts=clock(), table=table, source="sim", seat=seats[i], value=a)
                      for i, a in enumerate(op.amounts) if a]
            yield from _feed(rules, pushes)
    yield from _feed(rules, _deal_round_robin(holes, seats, table, clock))  # a record that stops at a deal
    if not truth.status:  # a hand history cut short in the source stays open, as it was recorded
        yield from _feed(rules, [HandEnded(ts=clock(), table=table, source="sim", hand_no=hand_no)])


def _betting(op: Folding | CheckingOrCalling | CompletionBettingOrRaisingTo | BringInPosting, rules: TableRules,
             seats: tuple[int, ...], cfg: GameConfig, table: str, clock: _Clock, hand_no: int) -> list[Event]:
    seat = seats[op.player_index]
    engine = rules.current
    if engine is None:
        raise PhhError(f"hand {hand_no}: the engine has no hand open at seat {seat}'s action.")
    if isinstance(op, Folding):
        action = "f"
    elif isinstance(op, BringInPosting):
        action = "pb"
    elif isinstance(op, CheckingOrCalling):
        action = "cc"
    else:
        action = f"cbr {op.amount}"
    # every 7th chip action goes in two motions, with the declaration a careful player makes first
    motions = 2 if (hand_no + len(engine.hand.actions)) % 7 == 0 else 1
    return physical_events(action, view=engine.view(seat), table=table, seat=seat, ts=clock(),
                           denominations=cfg.chip_denominations, hole_cards=cfg.hole_cards, motions=motions)


def _deal_round_robin(holes: list[HoleDealing], seats: tuple[int, ...], table: str, clock: _Clock) -> list[Event]:
    """One deal's hole cards one at a time round the table (a stud up card face up)."""
    per_seat: dict[int, list[tuple[str | None, bool]]] = {}
    for op in holes:
        per_seat.setdefault(op.player_index, []).extend(
            (None if c.unknown_status else repr(c), up) for c, up in zip(op.cards, op.statuses, strict=True))
    events: list[Event] = []
    rounds = max((len(v) for v in per_seat.values()), default=0)
    for r in range(rounds):
        for index in range(len(seats)):
            cards = per_seat.get(index, [])
            if r < len(cards):
                card, up = cards[r]
                events.append(CardDealt(ts=clock(), table=table, source="sim", seat=seats[index], card=card,
                                        face_up=up))
    return events


def _feed(rules: TableRules, events: Sequence[Event]) -> Iterator[Event]:
    for event in sorted(events, key=lambda e: e.ts):
        rules.feed(event)
        yield event


def act_out(hands: Sequence[NormalHand], truths: Sequence[State]) -> list[list[Event]]:
    """Each hand's table events (``perform``), to feed a rules layer again: what a speed measurement times."""
    return [list(perform(hand, truth, TableRules(hand.config, table="B", strict=True), hand_no=k + 1, table="B"))
            for k, (hand, truth) in enumerate(zip(hands, truths, strict=True))]


def feed_seconds(hands: Sequence[NormalHand], acted: Sequence[list[Event]], *, checks: bool) -> tuple[float, int]:
    """Seconds to feed each hand's events (``act_out``) to a fresh rules layer, with every check the game runs or
    the engine alone; and how many checks ran."""
    started, count = time.perf_counter(), 0
    for hand, events in zip(hands, acted, strict=True):
        rules = TableRules(hand.config, table="B", checks=None if checks else [], strict=True)
        count = len(rules.checks)
        for event in events:
            rules.feed(event)
    return time.perf_counter() - started, count


class _Clock:
    """Event times: one second per step."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


# --- one hand, end to end --------------------------------------------------------------------------------


def replay_hand(hand: NormalHand, *, hand_no: int = 1, table: str = "T01", profile: RuleProfile | None = None,
                strict: bool = True, roundtrip: bool = True) -> ReplayResult:
    """Replay one normalised hand; compare with pokerkit (and, with ``roundtrip``, the PHH written back)."""
    from tablewatch.rules.compare import compare_hand

    result = ReplayResult(name=hand.name, hand=hand)
    try:
        truth = oracle(hand)
    except PhhError as exc:
        result.error = str(exc)
        return result
    result.oracle = truth
    rules = TableRules(hand.config, table=table, profile=profile, strict=strict)
    try:
        for _ in perform(hand, truth, rules, hand_no=hand_no, table=table):
            pass
    except Exception as exc:
        result.error = f"hand [{hand.name}]: rules layer error: {type(exc).__name__}: {exc}"
        return result
    finished = rules.pop_finished()
    if truth.status and rules.current is not None:
        finished = [finished_hand(rules.current.hand)]  # incomplete in the source: compare it as it stands
    if len(finished) != 1:
        result.error = f"hand [{hand.name}]: expected one finished hand, got {len(finished)}"
        return result
    result.finished = finished[0]
    result.violations = list(finished[0].violations)
    try:
        result.mismatches = compare_hand(hand, truth, finished[0], roundtrip=roundtrip)
    except Exception as exc:  # one hand that cannot be compared is that hand's error; the file goes on
        result.error = f"hand [{hand.name}]: cannot compare with pokerkit: {type(exc).__name__}: {exc}"
        return result
    result.ok = not result.mismatches
    return result
