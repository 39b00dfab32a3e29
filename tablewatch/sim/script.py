"""Scenario → timeline: pokerkit plays the hand, each of its operations becomes physical steps and events.

``simulate(scenario)`` returns a ``SimRun``: the world (every object's keyframes), the ground-truth
events (``source="sim"``), the injected violations with their times, one ground-truth PHH per hand
(from pokerkit's own state, so pokerkit loads and replays it) and the RFID tag registry.
Everything random comes from ``random.Random(scenario.seed)``: the same scenario gives the same run.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache, partial

from pokerkit import (
    AntePosting,
    BetCollection,
    BlindOrStraddlePosting,
    CheckingOrCalling,
    ChipsPushing,
    CompletionBettingOrRaisingTo,
    Folding,
    HandHistory,
    HoleCardsShowingOrMucking,
    Mode,
    NoLimitTexasHoldem,
    State,
)

from tablewatch.calibration.layout import TableLayout, load_layout
from tablewatch.events import Event, HandEnded, HandStarted, Zone, bet_zone, seat_actor, stack_zone
from tablewatch.sim.chips import Mint, Pile, compose_stack
from tablewatch.sim.hand import ActionTaken, HandDriver, InjectedViolation
from tablewatch.sim.motions import Stage
from tablewatch.sim.plan import HandPlan, plan_phh, plan_scripted, seated_by_the_rule
from tablewatch.sim.replay import AUTOMATIONS, chip_divmod, new_state, replay
from tablewatch.sim.scenario import LAYOUT_SEATS, Scenario, ScenarioError
from tablewatch.sim.table import SimTable
from tablewatch.sim.world import World

OPERATION_TYPES = (AntePosting, BlindOrStraddlePosting, BetCollection, CheckingOrCalling, ChipsPushing,
                   CompletionBettingOrRaisingTo, Folding, HoleCardsShowingOrMucking)


@dataclass
class SimRun:
    """Everything a scenario produces before rendering."""

    scenario: Scenario
    layout: TableLayout
    table: SimTable
    world: World
    events: list[Event]
    violations: list[InjectedViolation]
    hands: list[HandHistory]
    registry: dict[str, int]  # chip UID → value (counterfeits are absent)
    duration: float
    antennas: list[str] = field(default_factory=list)
    actions: list[ActionTaken] = field(default_factory=list)  # each player's action, as a dealer keys it


FILL_BELOW = 5  # the dealer's float gets a fill of a chip it holds fewer of than this


def simulate(scenario: Scenario) -> SimRun:
    layout = _layout(scenario.layout_name if scenario.players or scenario.layout else "oval10")
    table = SimTable(layout)
    rng = random.Random(scenario.seed)
    world = World()
    mint = Mint(world, random.Random(rng.getrandbits(64)))
    stage = Stage(world, table, mint, rng, scenario.timing)
    piles = _piles(table, rng)
    events: list[Event] = []
    violations: list[InjectedViolation] = []
    hands: list[HandHistory] = []
    actions: list[ActionTaken] = []
    stacks = {p.seat: p.stack for p in scenario.players}
    button = None
    t = 0.5
    seat_count = LAYOUT_SEATS.get(layout.name, len(layout.seats))
    last: HandPlan | None = None
    for no, hand in enumerate(scenario.hands, start=1):
        if hand.phh is not None:
            plan = plan_phh(hand, hand_no=no, seat_count=seat_count)
            if last is not None:
                plan = seated_by_the_rule(plan, last, seat_count=seat_count)
                _carry_stacks(plan, {seat: piles[stack_zone(seat)].value() for seat in table.seats})
        else:
            button = hand.button or _next_button(list(stacks), button)
            plan = plan_scripted(hand, hand_no=no, stacks=stacks, button=button, blinds=scenario.blinds,
                                 ante=scenario.ante)
            plan.players = {p.seat: p.name for p in scenario.players if p.seat in plan.seats}
        plan.odd_chip = min(c.value for c in scenario.chips)
        _check_seats(plan, table)
        stage.move_button(layout.button_spot(plan.button), t=max(t - 1.5, stage.arm_free("dealer")))
        _prepare_stacks(plan, piles, stage, scenario, t=t)
        state = new_state(plan)
        events.append(HandStarted(ts=t, table=scenario.table, source="sim", hand_no=no, button=plan.button,
                                  seats=tuple(sorted(plan.seats)),
                                  stacks=tuple(plan.stacks[plan.seats.index(s)] for s in sorted(plan.seats)),
                                  players=tuple(sorted(plan.players.items()))))
        driver = HandDriver(plan=plan, state=state, stage=stage, piles=piles, table_id=scenario.table, rng=rng,
                            timing=scenario.timing, t=t + 0.3)
        driver.run()
        events += driver.events
        violations += driver.violations
        actions += driver.actions
        t = driver.t + 0.5
        events.append(HandEnded(ts=t, table=scenario.table, source="sim", hand_no=no))
        _confiscate_counterfeits(piles, stage, t=t + 0.2)
        hands.append(_history(plan, state))
        last = plan
        if hand.phh is None:
            stacks = {s: piles[stack_zone(s)].value() for s in stacks}
            stacks = {s: v for s, v in stacks.items() if v > 0}
        t += 1.0
    events.sort(key=lambda e: e.ts)
    antennas = sorted(piles, key=_antenna_order)
    return SimRun(scenario=scenario, layout=layout, table=table, world=world, events=events, violations=violations,
                  hands=hands, registry=dict(mint.registry), duration=max(t, world.end_time()) + 0.5,
                  antennas=antennas, actions=actions)


@lru_cache(maxsize=4)
def _template(name: str) -> TableLayout:
    return load_layout(name)


def _layout(name: str) -> TableLayout:
    """A layout template, read and verified once per process (a third of a second each time otherwise)."""
    return _template(name).model_copy(deep=True)


def _piles(table: SimTable, rng: random.Random) -> dict[str, Pile]:
    piles = {}
    for n in table.seats:
        piles[stack_zone(n)] = Pile(stack_zone(n), partial(table.stack_column, n), rng)
        piles[bet_zone(n)] = Pile(bet_zone(n), partial(table.bet_column, n), rng)
    piles["pot"] = Pile("pot", table.pot_column, rng, jitter=3.0)
    piles["tray"] = Pile("tray", table.tray_column, rng, jitter=0.5)
    return piles


def _antenna_order(name: str) -> tuple[int, str]:
    seat = Zone.parse(name).seat
    return (seat if seat is not None else 99, name)


def _next_button(seats: list[int], button: int | None) -> int:
    ordered = sorted(seats)
    if button is None:
        return ordered[0]
    later = [s for s in ordered if s > button]
    return later[0] if later else ordered[0]


def _check_seats(plan: HandPlan, table: SimTable) -> None:
    missing = [s for s in plan.seats if s not in table.seats]
    if missing:
        raise ScenarioError(f"hand {plan.hand_no}: seat(s) {missing} do not exist on layout {table.layout.name}")


def _confiscate_counterfeits(piles: dict[str, Pile], stage: Stage, *, t: float) -> None:
    """The floor takes a counterfeit chip off the table once its hand is over (its alert has been seen): the next
    hand plays with the house's chips only. The readers never counted it, so they see nothing leave."""
    for pile in piles.values():
        fakes = [c for c in pile.chips if c.counterfeit]
        if fakes:
            stage.vanish(fakes, t=t)
            pile.remove(fakes)


def _carry_stacks(plan: HandPlan, carried: dict[int, int]) -> None:
    """A session's later PHH hand (its record is of another table): a player keeps the chips he has where they
    cover all he puts in with chips to spare, so every action stays as recorded and no stack changes between
    hands. An all-in, or a stack too short for the record, keeps the record's stack (the chips are changed)."""
    hand = replay(plan)
    for player, seat in enumerate(plan.seats):
        least = hand.spare(player, -1)  # the fewest chips the player holds during the hand
        committed = plan.stacks[player] - least
        if least > 0 and carried.get(seat, 0) > committed:
            plan.stacks[player] = carried[seat]


def _prepare_stacks(plan: HandPlan, piles: dict[str, Pile], stage: Stage, scenario: Scenario, *, t: float) -> None:
    """Give each seat its starting chips (a PHH hand, or the first hand of a scenario)."""
    denoms = sorted(c.value for c in scenario.chips)
    for seat, stack in zip(plan.seats, plan.stacks, strict=True):
        pile = piles[stack_zone(seat)]
        if pile.value() == stack:
            continue
        # A stack that changes between hands is a player leaving with his chips and another sitting down with his:
        # the seat stands empty a moment (the readers see the whole stack go, not some of it go south). Chips are
        # carried by hand: the seat's arm is over the stack while they go and come (the first hand's are there).
        if plan.hand_no > 1:
            (x0, y0), (x1, y1) = stage.table.stack_column(seat, 0), stage.table.stack_column(seat, 5)
            x, y = (x0 + x1) / 2, (y0 + y1) / 2
            stage.reach(seat_actor(seat), [(t - 1.1, x, y), (t - 0.15, x, y)], z=5.0)
        stage.vanish(pile.chips, t=t - 0.9)
        pile.columns.clear()
        try:
            counts = compose_stack(stack, denoms, stage.rng)
        except ValueError as exc:
            raise ScenarioError(f"hand {plan.hand_no}, seat {seat}: {exc} Add a smaller chip to 'chips'.") from exc
        stage.mint_pile(pile, counts, t=t - 0.2)
    if not piles["tray"].chips:
        _stock_tray(piles["tray"], stage, denoms, scenario.seed)
    else:
        _fill_tray(piles["tray"], stage, denoms, seed=scenario.seed, hand_no=plan.hand_no, t=t - 0.5)


def _stock_tray(tray: Pile, stage: Stage, denoms: list[int], seed: int) -> None:
    """The dealer's float: 20 of each chip but the largest (of the four smallest with fewer kinds), so the dealer
    can break any chip in play. The first four are laid from the shared random stream as they always were; the
    rest from their own, so adding them leaves every other draw of the run (cards, jitter) as it was."""
    stage.mint_pile(tray, {d: 20 for d in denoms[:4]}, t=0.0)
    extra = denoms[4:-1]
    if extra:
        shared, tray.rng = tray.rng, random.Random(f"{seed}/tray")
        stage.mint_pile(tray, {d: 20 for d in extra}, t=0.0)
        tray.rng = shared


def _fill_tray(tray: Pile, stage: Stage, denoms: list[int], *, seed: int, hand_no: int, t: float) -> None:
    """A fill from the cage between hands: a chip of the float the dealer's change-making ran short of (fewer than
    FILL_BELOW left) is brought back to 20 (its own random stream: the session's other draws stay as they were)."""
    have = tray.available()
    short = {d: 20 - have.get(d, 0) for d in [*denoms[:4], *denoms[4:-1]] if have.get(d, 0) < FILL_BELOW}
    if short:
        shared, tray.rng = tray.rng, random.Random(f"{seed}/fill/{hand_no}")
        stage.mint_pile(tray, short, t=t)
        tray.rng = shared


def _history(plan: HandPlan, state: State) -> HandHistory:
    split = chip_divmod(plan.odd_chip)
    game = NoLimitTexasHoldem(AUTOMATIONS, plan.ante_trimming, tuple(plan.antes), tuple(plan.blinds), plan.min_bet,
                              mode=Mode.CASH_GAME, divmod=split)
    hh = HandHistory.from_game_state(game, state, divmod=split)  # a replay of it splits pots as the hand did
    hh.seats = list(plan.seats)
    hh.seat_count = None
    hh.hand = plan.hand_no
    hh.user_defined_fields = {"_unit": plan.unit, "_source": plan.source}
    return hh
