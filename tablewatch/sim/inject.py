"""Injected violations: what the simulator does wrong on purpose, and the record of it (the truth to score).

Each violation kind has an ``Injection`` strategy in ``INJECTIONS``. The hand driver checks each of the
hand's violations against the plan before the deal and calls their strategies at fixed moments: before
the deal, before and after each action, when the flop is laid. The strategies for the steps that are not
part of a betting action (an out-of-turn word, chips pocketed or hidden, a counterfeit chip, a board card
shown early, a fourth flop card) play them here. Kinds that change a betting step (string raise,
undercall) or a dealing step (burns, an exposed hole card, a misdeal, the pot to the wrong seat) are played by those
steps in ``hand.py``; their strategies only check the plan.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field, replace
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from pokerkit import State
from pydantic import BaseModel

from tablewatch.events import (
    BoardCardDealt,
    CardBurned,
    ChipsLeftTable,
    Declaration,
    Event,
    StackObscured,
    UnknownChip,
    bet_zone,
    seat_actor,
    stack_zone,
)
from tablewatch.sim.chips import Pile, count_chips, make_change
from tablewatch.sim.motions import Stage
from tablewatch.sim.plan import Act, HandPlan
from tablewatch.sim.replay import Replay
from tablewatch.sim.scenario import (
    BoardCardExposedEarly,
    CardExposedInDeal,
    ChipsHidden,
    ChipsPocketed,
    DoubleBurn,
    FourCardFlop,
    Misdeal,
    MissingBurn,
    OutOfTurn,
    ScenarioError,
    StringRaise,
    Timing,
    Undercall,
    UnknownChipV,
    ViolationSpec,
    WrongPotPush,
)
from tablewatch.sim.world import CHIP_HEIGHT, Card

STREETS = ("preflop", "flop", "turn", "river")


@dataclass
class InjectedViolation:
    """A violation the simulator put in on purpose, with the seconds it spans (the truth to score against)."""

    type: str
    rule_id: str
    hand_no: int
    ts: float
    end_ts: float
    seats: tuple[int, ...] = ()
    street: str | None = None
    detail: str = ""
    params: dict[str, Any] = field(default_factory=dict)

    def frames(self, fps: float) -> tuple[int, int]:
        return (int(self.ts * fps), int(self.end_ts * fps))

    def to_dict(self, fps: float = 30.0) -> dict[str, Any]:
        first, last = self.frames(fps)
        return {**asdict(self), "seats": list(self.seats), "frame_first": first, "frame_last": last, "fps": fps}


class Hand(Protocol):
    """What an injection may use of the hand being played (``HandDriver``): its plan, table and clock, and
    the steps it shares with the ordinary play."""

    plan: HandPlan
    state: State
    stage: Stage
    piles: dict[str, Pile]
    rng: random.Random
    timing: Timing
    t: float
    deck: list[str]
    burns: list[Card]
    burned_early: set[str]  # streets whose first card was shown early (their burn is already made)

    def seat(self, player: int | None) -> int: ...

    def dry_run(self) -> Replay: ...

    def emit(self, cls: type[Event], ts: float, **fields: Any) -> None: ...

    def record(self, kind: str, ts: float, end: float, *, seats: tuple[int, ...] = (), street: str | None = None,
               detail: str = "", params: dict[str, Any] | None = None) -> None: ...

    def burn(self, code: str) -> None: ...

    def slot_spot(self, slot: int) -> tuple[float, float]: ...

    def tap(self, seat: int) -> None: ...


V = TypeVar("V", bound=BaseModel)


class Injection(Generic[V]):
    """One violation kind: its rule, its check against the plan, and what it does at each moment of the hand
    (nothing, unless a subclass says otherwise)."""

    rule_id: ClassVar[str]

    def check(self, v: V, hand: Hand) -> None:
        """Raise ``ScenarioError`` when the hand can't carry ``v``."""

    def before_action(self, v: V, act: Act, hand: Hand) -> None:
        """Just before ``act`` is played."""

    def after_action(self, v: V, index: int, hand: Hand) -> None:
        """After action ``index`` is played (-1: before the deal)."""

    def on_flop(self, v: V, flop: list[Card], hand: Hand) -> None:
        """The flop's three cards are down, before pokerkit deals them."""


class StringRaiseStep(Injection[StringRaise]):
    rule_id = "TDA-29"

    def check(self, v: StringRaise, hand: Hand) -> None:
        _require_verb(hand, v, v.action, "cbr", "a bet or raise")


class UndercallStep(Injection[Undercall]):
    rule_id = "TDA-37"

    def check(self, v: Undercall, hand: Hand) -> None:
        _require_verb(hand, v, v.action, "cc", "a call")


class MissingBurnStep(Injection[MissingBurn]):
    rule_id = "TDA-25"


class DoubleBurnStep(Injection[DoubleBurn]):
    rule_id = "TDA-25"


class CardExposedInDealStep(Injection[CardExposedInDeal]):
    rule_id = "TDA-22A"


class MisdealStep(Injection[Misdeal]):
    rule_id = "TDA-22A"


class WrongPotPushStep(Injection[WrongPotPush]):
    rule_id = "TDA-5"


class FourCardFlopStep(Injection[FourCardFlop]):
    rule_id = "TDA-26A"

    def on_flop(self, v: FourCardFlop, flop: list[Card], hand: Hand) -> None:
        code = hand.deck.pop()
        start = hand.t
        card = hand.stage.new_card(code, t=hand.t)
        hand.t = hand.stage.pitch(card, hand.slot_spot(3), t=hand.t, angle=hand.rng.uniform(-3, 3), zone="board.3")
        hand.t = hand.stage.flip([card], t=hand.t)
        hand.emit(BoardCardDealt, hand.t, card=code, slot=3, face_up=True)
        # The floor's fix (TDA-26A, simplified): the extra card goes to the burn pile.
        hand.t = hand.stage.slide("dealer", [card], [hand.stage.table.burn_spot(len(hand.burns))], t=hand.t + 1.5,
                                  zone="burn", face_up=False)
        hand.burns.append(card)
        hand.emit(CardBurned, hand.t, card=code)
        hand.record("four_card_flop", start, hand.t, street="flop", detail=f"a fourth flop card {code}")


class BoardCardExposedEarlyStep(Injection[BoardCardExposedEarly]):
    """The dealer turns the next street's first card up before the betting round is over (TDA-57), just
    before the last action of the round before."""

    rule_id = "TDA-57"

    def check(self, v: BoardCardExposedEarly, hand: Hand) -> None:
        _last_action_before(v.street, hand)

    def before_action(self, v: BoardCardExposedEarly, act: Act, hand: Hand) -> None:
        if act.index != _last_action_before(v.street, hand):
            return
        start = hand.t
        hand.burn(hand.deck.pop())
        hand.burned_early.add(v.street)
        code = hand.deck.pop()
        slot = {"flop": 0, "turn": 3, "river": 4}[v.street]
        card = hand.stage.new_card(code, t=hand.t)
        hand.t = hand.stage.pitch(card, hand.slot_spot(slot), t=hand.t, angle=0.0, zone=f"board.{slot}", face_up=True)
        hand.emit(BoardCardDealt, hand.t, card=code, slot=slot, face_up=True)
        hand.t = hand.stage.slide("dealer", [card], [hand.stage.table.deck_spot()], t=hand.t + 1.0, zone="dealer",
                                  face_up=False)
        hand.stage.vanish_card(card, t=hand.t)
        hand.record("board_card_exposed_early", start, hand.t, street=v.street,
                    detail=f"{code} shown on the {v.street} before the betting round ended")


class OutOfTurnStep(Injection[OutOfTurn]):
    rule_id = "TDA-39"

    def before_action(self, v: OutOfTurn, act: Act, hand: Hand) -> None:
        if v.action != act.index:
            return
        actor = hand.seat(act.player)
        if v.seat == actor:
            raise ScenarioError(f"hand {hand.plan.hand_no}: out_of_turn seat {v.seat} is the seat to act")
        start = hand.t + 0.3
        hand.emit(Declaration, start, seat=v.seat, word=v.word)
        if v.word == "check":
            hand.t = start
            hand.tap(v.seat)
        hand.record("out_of_turn", start, start + 0.8, seats=(v.seat,), street=STREETS[hand.state.street_index or 0],
                    detail=f"seat {v.seat} said {v.word!r} before seat {actor} acted")
        hand.t = start + 0.8


class ChipsPocketedStep(Injection[ChipsPocketed]):
    rule_id = "TDA-49"

    def after_action(self, v: ChipsPocketed, index: int, hand: Hand) -> None:
        if v.after_action != index:
            return
        stack = hand.piles[stack_zone(v.seat)]
        counts = self._pocketable(v, stack, hand)
        chips = stack.take(counts)
        start = hand.t + 0.3
        player = hand.stage.table.seats[v.seat].player
        off = Pile("off_table", lambda k: (player[0] + 40 * k, player[1]), hand.rng)
        hand.t = hand.stage.carry_chips(seat_actor(v.seat), chips, stack, off, t=start, duration=1.0)
        hand.stage.vanish(chips, t=hand.t + 0.1)
        hand.emit(ChipsLeftTable, hand.t, seat=v.seat, zone=stack.zone, chips=count_chips(chips))
        hand.record("chips_pocketed", start, hand.t, seats=(v.seat,), detail=f"seat {v.seat} pocketed {counts}",
                    params={"chips": counts, "asked": dict(v.chips)})

    @staticmethod
    def _pocketable(v: ChipsPocketed, stack: Pile, hand: Hand) -> dict[int, int]:
        """The chips the player pockets: those asked for, or their worth in the chips the stack has (a stack
        need not hold the very chips named). They must be chips the rest of the recorded hand never needs."""
        asked = sum(d * n for d, n in v.chips.items())
        p = hand.plan.player_of_seat(v.seat)
        # Chips on the table beyond pokerkit's count (a counterfeit) are spare too; blinds not yet moved are not.
        extra = stack.value() + hand.piles[bet_zone(v.seat)].value() - hand.state.stacks[p] - hand.state.bets[p]
        spare = hand.dry_run().spare(p, v.after_action) + extra
        if asked > spare:
            raise ScenarioError(f"hand {hand.plan.hand_no}: seat {v.seat} can't pocket {v.chips} (worth {asked}): "
                                f"the rest of the hand needs all but {max(spare, 0)} of its {stack.value()} in chips")
        have = stack.available()
        if all(have.get(d, 0) >= n for d, n in v.chips.items()):
            return dict(v.chips)
        counts = make_change(asked, have)
        if counts is None:
            raise ScenarioError(f"hand {hand.plan.hand_no}: seat {v.seat} can't pocket {v.chips}: its chips "
                                f"{have} don't make {asked}")
        return counts


class ChipsHiddenStep(Injection[ChipsHidden]):
    rule_id = "TDA-16A"

    def after_action(self, v: ChipsHidden, index: int, hand: Hand) -> None:
        if v.after_action != index:
            return
        stack = hand.piles[stack_zone(v.seat)]
        cols = [c for c in stack.columns if c]
        if len(cols) < 2:
            raise ScenarioError(f"hand {hand.plan.hand_no}: seat {v.seat} has too few chips to hide any")
        big = max(cols, key=lambda c: c[0].value)
        small = min(cols, key=lambda c: c[0].value)
        start = hand.t + 0.3
        end = start + v.duration
        actor = seat_actor(v.seat)
        if v.mode == "under_hand":
            top = big[-1].track.at(start) or big[-1].track.last
            hand.stage.reach(actor, [(start, top.x, top.y), (end, top.x, top.y)], z=top.z + 15.0)
        else:  # the big chips go under a column of small ones: from above only small chips show
            base = small[0].track.at(start) or small[0].track.last
            for chip_list, z0 in ((big, 0.0), (small, len(big) * CHIP_HEIGHT)):
                for i, chip in enumerate(chip_list):
                    now = chip.track.at(start) or chip.track.last
                    chip.track.add(replace(now, t=start))
                    chip.track.add(replace(now, t=start + 0.5, x=base.x, y=base.y, z=z0 + i * CHIP_HEIGHT))
                    chip.track.add(replace(now, t=end, x=base.x, y=base.y, z=z0 + i * CHIP_HEIGHT))
                    chip.track.add(replace(now, t=end + 0.5))
            hand.stage.reach(actor, [(start, base.x, base.y), (start + 0.5, base.x, base.y)])
        hidden = sum(c.value for c in big)
        _report_hidden(hand, v.seat, hidden, start, end)
        hand.record("chips_hidden", start, end, seats=(v.seat,), detail=f"{hidden} in big chips hidden ({v.mode})",
                    params={"mode": v.mode})
        hand.t = end + 0.6


class UnknownChipStep(Injection[UnknownChipV]):
    rule_id = "TDA-16B"

    def after_action(self, v: UnknownChipV, index: int, hand: Hand) -> None:
        if index != -1:
            return
        stack = hand.piles[stack_zone(v.seat)]
        uid = v.uid or "E0FF" + "".join(hand.rng.choice("0123456789ABCDEF") for _ in range(12))
        chip = hand.stage.mint_pile(stack, {v.denomination: 1}, t=hand.t, counterfeit_uid=uid)[0]
        hand.emit(UnknownChip, hand.t + hand.timing.rfid_period, seat=v.seat, uid=chip.uid, zone=stack.zone)
        hand.record("unknown_chip", hand.t, hand.t + hand.timing.rfid_period, seats=(v.seat,),
                    detail=f"counterfeit {v.denomination} chip {uid} in seat {v.seat}'s stack", params={"uid": uid})


INJECTIONS: dict[str, Injection[Any]] = {
    "string_raise": StringRaiseStep(),
    "missing_burn": MissingBurnStep(),
    "double_burn": DoubleBurnStep(),
    "four_card_flop": FourCardFlopStep(),
    "card_exposed_in_deal": CardExposedInDealStep(),
    "misdeal": MisdealStep(),
    "board_card_exposed_early": BoardCardExposedEarlyStep(),
    "out_of_turn": OutOfTurnStep(),
    "chips_pocketed": ChipsPocketedStep(),
    "chips_hidden": ChipsHiddenStep(),
    "unknown_chip": UnknownChipStep(),
    "undercall": UndercallStep(),
    "wrong_pot_push": WrongPotPushStep(),
}
RULE_IDS = {kind: injection.rule_id for kind, injection in INJECTIONS.items()}


def check_violation(v: ViolationSpec, hand: Hand) -> None:
    """The action and seat ``v`` names are in the hand, and its kind's own check passes."""
    action = getattr(v, "action", None)
    if action is not None:
        _action(hand.plan, action, where=_where(hand, v))
    seat = getattr(v, "seat", None)
    if seat is not None and seat not in hand.plan.seats:
        raise ScenarioError(f"{_where(hand, v)}: seat {seat} is not in the hand (seats {sorted(hand.plan.seats)})")
    INJECTIONS[v.type].check(v, hand)


def _where(hand: Hand, v: ViolationSpec) -> str:
    return f"hand {hand.plan.hand_no}, violation {v.type}"


def _require_verb(hand: Hand, v: ViolationSpec, index: int, verb: str, what: str) -> None:
    act = _action(hand.plan, index)
    if act.verb != verb:
        raise ScenarioError(f"{_where(hand, v)}: action {index} ({act.spec.do!r}) is not {what}")


def _action(plan: HandPlan, index: int, *, where: str = "") -> Act:
    for act in plan.acts:
        if act.index == index:
            return act
    raise ScenarioError(f"{where or f'hand {plan.hand_no}'}: there is no action {index} "
                        f"(the hand has {len(plan.acts)})")


def _last_action_before(street: str, hand: Hand) -> int:
    """The last betting action of the round before ``street``: an early-exposed card goes just before it."""
    before = STREETS.index(street) - 1
    streets = hand.dry_run().streets
    idx = [a.index for a, s in zip(hand.plan.acts, streets, strict=True) if s == before and a.verb != "sm"]
    if not idx:
        raise ScenarioError(f"hand {hand.plan.hand_no}: board_card_exposed_early on the {street}, "
                            "but the hand never gets there")
    return idx[-1]


def _report_hidden(hand: Hand, seat: int, hidden: int, start: float, end: float) -> None:
    """Hidden chips are reported as they stay hidden, every second, with the time so far (as the scene layer
    reports them)."""
    seen, step = start + 0.5, 1.0
    while seen < end - 1e-6:
        nxt = min(seen + step, end)
        hand.emit(StackObscured, nxt, seat=seat, hidden_value=hidden, duration=round(nxt - start - 0.5, 3))
        seen = nxt


__all__ = ["INJECTIONS", "RULE_IDS", "STREETS", "Hand", "InjectedViolation", "Injection", "check_violation"]
