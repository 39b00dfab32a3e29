"""One hand on the table: pokerkit's operations turned into physical steps, events and injected violations."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Literal

from pokerkit import (
    AntePosting,
    BetCollection,
    BlindOrStraddlePosting,
    ChipsPushing,
    HoleCardsShowingOrMucking,
    State,
)

from tablewatch.events import (
    BetMotion,
    BoardCardDealt,
    CardBurned,
    CardDealt,
    CardExposed,
    CardsMucked,
    CardsTabled,
    ChipsMoved,
    Declaration,
    Event,
    HandInZone,
    PotGathered,
    PotPushed,
    Tap,
    Zone,
    bet_zone,
    seat_actor,
    stack_zone,
)
from tablewatch.sim.chips import Pile, count_chips, exchange, make_change
from tablewatch.sim.declare import chips_read_as_meant
from tablewatch.sim.inject import INJECTIONS, RULE_IDS, STREETS, InjectedViolation, check_violation
from tablewatch.sim.motions import Stage, seat_angle
from tablewatch.sim.plan import Act, HandPlan
from tablewatch.sim.replay import Replay, replay
from tablewatch.sim.scenario import ScenarioError, Timing
from tablewatch.sim.world import Card

ActionWord = Literal["fold", "check", "call", "bet", "raise"]
MISDEAL_RESHUFFLE_S = 4.0  # the dealer gathers the deck, shuffles and cuts before the redeal


@dataclass(frozen=True)
class ActionTaken:
    """A player's action once it is complete, as the dealer of a table no camera watches keys it: ``word`` is
    fold, check, call, bet or raise, ``amount`` the bet's total (a raise *to*); ``spoken``: the player said his
    action (a ``Declaration`` of the same hand), so the dealer types what was said instead."""

    ts: float
    seat: int
    word: ActionWord
    amount: int | None = None
    spoken: bool = False


@dataclass
class HandDriver:
    """Plays ``plan`` on the table, step by step; it is the ``inject.Hand`` the injected violations act on."""

    plan: HandPlan
    state: State
    stage: Stage
    piles: dict[str, Pile]
    table_id: str
    rng: random.Random
    timing: Timing
    t: float
    events: list[Event] = field(default_factory=list)
    violations: list[InjectedViolation] = field(default_factory=list)
    actions: list[ActionTaken] = field(default_factory=list)
    holes: list[list[Card]] = field(default_factory=list)
    board: list[Card] = field(default_factory=list)
    burns: list[Card] = field(default_factory=list)
    mucked: list[Card] = field(default_factory=list)
    deck: list[str] = field(default_factory=list)
    _op: int = 0
    burned_early: set[str] = field(default_factory=set)
    _tabled: set[int] = field(default_factory=set)
    _replay: Replay | None = None  # the hand in pokerkit alone, made when a violation needs it

    # --- the hand -------------------------------------------------------------------------------------

    def run(self) -> None:
        self._build_deck()
        for v in self.plan.violations:
            check_violation(v, self)
        self._inject_after(-1)
        self._consume_ops()  # blinds and antes, posted when the state was made
        self._deal_holes()
        for act in self.plan.acts:
            self._advance(act)
            for v in self.plan.violations:
                INJECTIONS[v.type].before_action(v, act, self)
            self._apply(act)
            self._inject_after(act.index)
        self._finish()

    def _inject_after(self, index: int) -> None:
        for v in self.plan.violations:
            INJECTIONS[v.type].after_action(v, index, self)

    def dry_run(self) -> Replay:
        """The hand in pokerkit alone (made once, when a violation needs it)."""
        if self._replay is None:
            self._replay = replay(self.plan)
        return self._replay

    def _finish(self) -> None:
        while self.state.status:
            if self.state.can_burn_card():
                self._deal_street()
            elif self.state.can_show_or_muck_hole_cards():
                self._call(self.state.show_or_muck_hole_cards)
            else:
                seat = self.seat(self.state.actor_index) if self.state.actor_index is not None else "?"
                raise ScenarioError(f"hand {self.plan.hand_no}: the actions end while seat {seat} is still to act")
        self._clear_cards()

    def _advance(self, act: Act) -> None:
        """Deal streets and showdowns until the state waits for ``act``."""
        while True:
            if self.state.can_burn_card():
                self._deal_street()
            elif self.state.can_show_or_muck_hole_cards() and not (
                act.verb == "sm" and self.state.showdown_index == act.player
            ):
                self._call(self.state.show_or_muck_hole_cards)
            else:
                return

    def _apply(self, act: Act) -> None:
        seat = self.seat(act.player)
        if act.verb != "sm" and self.state.actor_index != act.player:
            who = f"seat {self.seat(self.state.actor_index)}'s" if self.state.actor_index is not None else "nobody's"
            raise ScenarioError(f"hand {self.plan.hand_no}, action {act.index} ({act.spec.do!r}): it is {who} "
                                f"turn, not seat {seat}'s")
        self.t += self.timing.think
        begun = len(self.events)
        # The physical step comes first: pokerkit's operation may close the round and gather the bets.
        if act.verb == "f":
            self._verify(self.state.verify_folding)
            self._declare(seat, act, "fold")
            self._fold(seat)
            self._taken(seat, "fold", since=begun)
            self._call(self.state.fold)
        elif act.verb == "cc":
            self._verify(self.state.verify_checking_or_calling)
            amount = self.state.checking_or_calling_amount
            if amount:
                self._bet(seat, amount, act, word="call")
            else:
                self._declare(seat, act, "check")
                self.tap(seat)
            self._taken(seat, "call" if amount else "check", since=begun)
            self._call(self.state.check_or_call)
        elif act.verb == "cbr":
            assert act.amount is not None
            self._verify(self.state.verify_completion_betting_or_raising_to, act.amount)
            added = act.amount - self.state.bets[act.player]
            word: ActionWord = "raise" if max(self.state.bets) > 0 else "bet"
            self._bet(seat, added, act, word="raise")
            self._taken(seat, word, act.amount, since=begun)
            self._call(self.state.complete_bet_or_raise_to, act.amount)
        elif self.state.can_show_or_muck_hole_cards(act.shown is not None, act.player):
            self._call(self.state.show_or_muck_hole_cards, act.shown is not None, act.player)
        # else: a show the hand no longer asks for (PHH files list some after the pot is decided)

    def _taken(self, seat: int, word: ActionWord, amount: int | None = None, *, since: int) -> None:
        """The action is complete (its chips, cards or tap are done; pokerkit has yet to apply it)."""
        spoken = any(isinstance(e, Declaration) and e.seat == seat for e in self.events[since:])
        self.actions.append(ActionTaken(ts=round(self.t, 4), seat=seat, word=word, amount=amount, spoken=spoken))

    def _verify(self, method: Any, *args: Any) -> None:
        try:
            method(*args)
        except ValueError as exc:
            raise ScenarioError(f"hand {self.plan.hand_no}: pokerkit refused {method.__name__}{args}: {exc}") from exc

    def _call(self, method: Any, *args: Any) -> None:
        try:
            method(*args)
        except ValueError as exc:
            raise ScenarioError(f"hand {self.plan.hand_no}: pokerkit refused {method.__name__}{args}: {exc}") from exc
        self._consume_ops()

    def _consume_ops(self) -> None:
        ops = self.state.operations
        while self._op < len(ops):
            op = ops[self._op]
            self._op += 1
            if isinstance(op, AntePosting | BlindOrStraddlePosting) and op.amount:
                self._push_chips(self.seat(op.player_index), op.amount, motions=1, forced=True)
            elif isinstance(op, BetCollection):
                self._gather(op.bets)
            elif isinstance(op, HoleCardsShowingOrMucking):
                self._showdown(self.seat(op.player_index), shown=bool(op.hole_cards))
            elif isinstance(op, ChipsPushing):
                self._push_pot(op.amounts)

    def seat(self, player: int | None) -> int:
        assert player is not None
        return self.plan.seats[player]

    # --- cards ----------------------------------------------------------------------------------------

    def _build_deck(self) -> None:
        known = {c for h in self.plan.holes for c in h if c} | set(self.plan.board)
        rest = [r + s for r in "23456789TJQKA" for s in "cdhs" if r + s not in known]
        self.rng.shuffle(rest)
        self.deck = rest
        self.plan.holes = [[c or self.deck.pop() for c in h] for h in self.plan.holes]

    def _deal_holes(self) -> None:
        if any(v.type == "misdeal" for v in self.plan.violations):
            self._misdeal()
        exposed = {(v.seat, v.card) for v in self.plan.violations if v.type == "card_exposed_in_deal"}
        self.holes = [[] for _ in self.plan.seats]
        for i in range(2):
            for p, seat in enumerate(self.plan.seats):
                code = self.plan.holes[p][i]
                assert code is not None
                self._call(self.state.deal_hole, code)
                face_up = (seat, i + 1) in exposed
                card = self.stage.new_card(code, t=self.t)
                spot = self.stage.table.hole_card(seat, i)
                end = self.stage.pitch(card, spot, t=self.t, angle=seat_angle(self.stage.table, seat, self.rng),
                                       zone=stack_zone(seat), face_up=face_up)
                self.holes[p].append(card)
                self.emit(CardDealt, end, seat=seat, card=code, face_up=face_up)
                if face_up:
                    self.emit(CardExposed, end, seat=seat, card=code)
                    flip = self.stage.flip([card], t=end + 1.2, face_up=False)
                    self.record("card_exposed_in_deal", end - 0.1, flip, seats=(seat,), street="preflop",
                                    detail=f"{code} dealt face up to seat {seat}", params={"card": i + 1})
                self.t = end + 0.05

    def _misdeal(self) -> None:
        """TDA-22A(7): the deal's first card goes face up; the dealer takes it back, reshuffles and deals again
        (the blinds stay in front; TDA-22C: the same button and players)."""
        seat, code = self.plan.seats[0], self.deck.pop()
        card = self.stage.new_card(code, t=self.t)
        end = self.stage.pitch(card, self.stage.table.hole_card(seat, 0), t=self.t, zone=stack_zone(seat),
                               angle=seat_angle(self.stage.table, seat, self.rng), face_up=True)
        self.emit(CardDealt, end, seat=seat, card=code, face_up=True)
        self.emit(CardExposed, end, seat=seat, card=code)
        self.t = self.stage.slide("dealer", [card], [self.stage.table.muck_spot(0)], t=end + 1.0, zone="muck",
                                  face_up=False, angle=0.0)
        self.stage.vanish_card(card, t=self.t + 0.2)
        self.record("misdeal", end - 0.1, self.t, seats=(seat,), street="preflop",
                    detail=f"{code}, the deal's first card, dealt face up to seat {seat}: misdeal, redealt")
        self.t += MISDEAL_RESHUFFLE_S

    def _deal_street(self) -> None:
        street = STREETS[self.state.street_index or 0]
        n = 3 if street == "flop" else 1
        burns = 1 + sum(v.street == street for v in self.plan.violations if v.type == "double_burn")
        if any(v.type == "missing_burn" and v.street == street for v in self.plan.violations):
            burns = 0
        expected = 1
        if street in self.burned_early:  # TDA-57: the burn before the early card stays; no new burn
            burns, expected = burns - 1, 0
        self._call(self.state.burn_card, "??")
        self.t += 0.4
        start = self.t
        for _ in range(burns):
            self.burn(self.deck.pop())
        if burns != expected:
            kind = "missing_burn" if burns < expected else "double_burn"
            self.record(kind, start, self.t + 0.6, street=street,
                            detail=f"{burns} burn card(s) before the {street}")
        planned = self.plan.board[len(self.board) : len(self.board) + n]
        codes = planned + [self.deck.pop() for _ in range(n - len(planned))]
        slots = [len(self.board) + k for k in range(n)]
        cards = self._lay_board(codes, slots)
        if street == "flop":
            for v in self.plan.violations:
                INJECTIONS[v.type].on_flop(v, cards, self)
        self._call(self.state.deal_board, "".join(codes))  # after the cards are down: it may end the hand

    def burn(self, code: str) -> None:
        card = self.stage.new_card(code, t=self.t)
        spot = self.stage.table.burn_spot(len(self.burns))
        self.t = self.stage.pitch(card, spot, t=self.t, angle=self.rng.uniform(-10, 10), zone="burn")
        self.burns.append(card)
        self.emit(CardBurned, self.t, card=code)
        self.t += 0.1

    def _lay_board(self, codes: list[str], slots: list[int]) -> list[Card]:
        cards = []
        for code, slot in zip(codes, slots, strict=True):
            card = self.stage.new_card(code, t=self.t)
            self.t = self.stage.pitch(card, self.slot_spot(slot), t=self.t, angle=self.rng.uniform(-3, 3),
                                      zone=f"board.{min(slot, 4)}")
            cards.append(card)
        self.t = self.stage.flip(cards, t=self.t + 0.2)
        for code, slot, card in zip(codes, slots, cards, strict=True):
            self.board.append(card)
            self.emit(BoardCardDealt, self.t, card=code, slot=slot, face_up=True)
        self.t += 0.3
        return cards

    def slot_spot(self, slot: int) -> tuple[float, float]:
        if slot <= 4:
            return self.stage.table.board_slot(slot)
        x, y = self.stage.table.board_slot(4)
        return (x + 90.0 * (slot - 4), y)

    def _fold(self, seat: int) -> None:
        cards = self.holes[self.plan.seats.index(seat)]
        f = self.stage.table.seats[seat]
        forward = [f.offset(f.bet, 0.0, 30.0 * i) for i in range(len(cards))]
        self.t = self.stage.slide(seat_actor(seat), cards, forward, t=self.t, zone=bet_zone(seat))
        self.emit(CardsMucked, self.t, seat=seat, count=len(cards))
        self._to_muck(cards)

    def _to_muck(self, cards: list[Card]) -> None:
        spots = [self.stage.table.muck_spot(len(self.mucked) + i) for i in range(len(cards))]
        self.stage.slide("dealer", cards, spots, t=self.t + 0.2, zone="muck", face_up=False, angle=0.0)
        self.mucked += cards

    def _showdown(self, seat: int, *, shown: bool) -> None:
        if seat in self._tabled:  # all-in run-outs ask again on each street: the cards are already up
            return
        self._tabled.add(seat)
        cards = self.holes[self.plan.seats.index(seat)]
        self.t += 0.5
        if shown:
            f = self.stage.table.seats[seat]
            fan = [f.offset(f.bet, 10.0, -35.0 + 70.0 * i) for i in range(len(cards))]
            self.t = self.stage.slide(seat_actor(seat), cards, fan, t=self.t, zone=bet_zone(seat), face_up=True)
            self.emit(CardsTabled, self.t, seat=seat, cards=tuple(c.code for c in cards))
        else:
            self._fold(seat)

    def _clear_cards(self) -> None:
        """After the pot is pushed, the dealer takes every card away."""
        self.t = max(self.t, self.stage.arm_free("dealer")) + 0.3
        cards = [c for h in self.holes for c in h] + self.board + self.burns + self.mucked
        spots = [self.stage.table.muck_spot(i) for i in range(len(cards))]
        self.t = self.stage.slide("dealer", cards, spots, t=self.t, zone="muck", face_up=False, angle=0.0)
        for card in cards:
            self.stage.vanish_card(card, t=self.t + 0.2)
        self.t += 0.3

    # --- chips ----------------------------------------------------------------------------------------

    def _bet(self, seat: int, amount: int, act: Act, *, word: str) -> None:
        spec = act.spec
        motions, declare = spec.motions, spec.declare
        string = [v for v in self.plan.violations if v.type == "string_raise" and v.action == act.index]
        under = [v for v in self.plan.violations if v.type == "undercall" and v.action == act.index]
        paid = self._undercall_paid(amount, under[0].short_by) if under else amount
        counts = spec.chips or self._counts(self.piles[stack_zone(seat)], paid, seat)
        if string:
            motions, declare = string[0].motions, None
            counts = self._enough_chips_for(seat, paid, counts, motions) if not spec.chips else counts
        elif declare is None and not under:
            declare = self._needed_declaration(act, seat, counts, motions, word)
        if declare and spec.declare_at == "before":
            self._say(seat, declare, self.t)
        start = self.t
        self._push_chips(seat, paid, motions=motions, chips=counts,
                         say=declare if spec.declare_at != "before" else None, say_at=spec.declare_at)
        if string:
            self.record("string_raise", start, self.t, seats=(seat,),
                            detail=f"seat {seat} raised in {motions} motions without a declaration",
                            params={"action": act.index})
        if under:
            self.record("undercall", start, self.t + 1.2, seats=(seat,),
                            detail=f"seat {seat} put {paid} out facing a call of {amount}",
                            params={"action": act.index})
            self.t += 1.2  # the dealer asks for the rest; the call is completed
            self._push_chips(seat, amount - paid, motions=1)

    def _enough_chips_for(self, seat: int, value: int, counts: dict[int, int], motions: int) -> dict[int, int]:
        """A string raise needs a chip for each motion: pay ``value`` in smaller chips when the stack has them
        (one oversized chip can't go in twice; it would be a silent single chip, read as a call)."""
        if sum(counts.values()) >= motions:
            return counts
        smaller = {d: n for d, n in self.piles[stack_zone(seat)].available().items() if d < max(counts)}
        split = make_change(value, smaller)
        return split if split is not None and sum(split.values()) >= motions else counts

    def _needed_declaration(self, act: Act, seat: int, counts: dict[int, int], motions: int, word: str) -> str | None:
        """What a careful player says when his chips alone might not read as meant (``sim.declare``)."""
        p = act.player
        bet, stack = self.state.bets[p], self.state.stacks[p]
        pushed = sum(d * n for d, n in counts.items())
        total = bet + pushed
        if word == "raise":
            word = "all-in" if total >= bet + stack else ("raise" if max(self.state.bets) > 0 else "bet")
        spoken = word if word in ("call", "all-in") else f"{word} {total}"
        if motions > 1:
            return spoken
        fine = chips_read_as_meant(raising=word != "call", prior=bet, chips=counts, facing=max(self.state.bets),
                                   behind=stack - pushed)
        return None if fine else spoken

    def _undercall_paid(self, amount: int, short_by: int | None) -> int:
        smallest = min(self.stage.mint.registry.values(), default=1)
        paid = amount - short_by if short_by else max(smallest, (amount // 2) // smallest * smallest)
        if not 0 < paid < amount:
            raise ScenarioError(f"hand {self.plan.hand_no}: an undercall of a call of {amount} short by {short_by} "
                                "leaves nothing or everything to put in")
        return paid

    def _push_chips(self, seat: int, value: int, *, motions: int, chips: dict[int, int] | None = None,
                    say: str | None = None, say_at: str = "before", forced: bool = False) -> None:
        """``seat`` moves ``value`` from its stack over the betting line in ``motions`` motions: one BetMotion.

        A ``forced`` bet (blind, ante) is no action: it is a ``ChipsMoved`` from stack to bet (the rules
        layer posts blinds from the game's configuration).
        """
        stack, bet = self.piles[stack_zone(seat)], self.piles[bet_zone(seat)]
        counts = chips or self._counts(stack, value, seat)
        if sum(d * n for d, n in counts.items()) != value:
            raise ScenarioError(f"hand {self.plan.hand_no}: seat {seat}'s chips {counts} are not worth {value}")
        try:
            taken = stack.take(counts)
        except ValueError as exc:
            raise ScenarioError(f"hand {self.plan.hand_no}: seat {seat} can't push {counts}: {exc}") from exc
        prior = bet.as_chips()
        taken.sort(key=lambda c: -c.value)
        groups = [taken[i::motions] for i in range(motions)] if len(taken) >= motions else [[c] for c in taken]
        times = []
        actor = seat_actor(seat)
        self.t = max(self.t, self.stage.arm_free(actor) - 0.2)
        for k, group in enumerate(groups):
            release = self.stage.carry_chips(actor, group, stack, bet, t=self.t)
            if k == 0:
                self.emit(HandInZone, release - 0.1, seat=seat, actor=actor, zone=bet_zone(seat))
            if say and say_at == "during" and k == 0:
                self._say(seat, say, release - 0.2)
            times.append(release)
            self.t = release + (0.45 if k + 1 < len(groups) else 0.1)
        values = tuple(sum(c.value for c in g) for g in groups) if len(groups) > 1 else ()
        if forced:
            self.emit(ChipsMoved, times[-1], seat=seat, src=stack.zone, dst=bet.zone, chips=count_chips(taken))
            self.t += 0.3
            return
        self.emit(BetMotion, times[-1], seat=seat, chips=count_chips(taken), motions=len(groups),
                   motion_times=tuple(times), prior=prior, motion_values=values)
        if say and say_at == "after":
            self._say(seat, say, self.t + 0.2)
        self.t += 0.3

    def _counts(self, pile: Pile, value: int, seat: int | None) -> dict[int, int]:
        counts = make_change(value, pile.available())
        if counts is not None:
            return counts
        if pile.value() < value:
            raise ScenarioError(f"hand {self.plan.hand_no}: {pile.zone} holds {pile.value()}, less than {value}")
        return self._change(pile, value)

    def _change(self, pile: Pile, value: int) -> dict[int, int]:
        """The dealer makes change from the tray so ``pile`` can pay ``value``; returns the chips that pay it.

        Real chips change hands (pile → tray, then tray → pile, each a ``ChipsMoved``), none are made or
        destroyed: the RFID ledger sees two moves, not chips leaving the table and others appearing.
        """
        tray = self.piles["tray"]
        plan = exchange(value, pile.available(), tray.available())
        if plan is None:
            unit = self.plan.odd_chip
            why = (f"{value} is not a multiple of the smallest chip ({unit})" if value % unit else
                   f"{pile.zone} holds {pile.available()} and the tray {tray.available()}")
            raise ScenarioError(f"hand {self.plan.hand_no}: the dealer can't make change to pay {value} from "
                                f"{pile.zone}: {why}")
        give, get, pay = plan
        seat = Zone.parse(pile.zone).seat
        self.t = max(self.t, self.stage.arm_free("dealer"))
        if give:
            out = pile.take(give)
            self.t = self.stage.carry_chips("dealer", out, pile, tray, t=self.t, duration=0.8)
            self.emit(ChipsMoved, self.t, seat=seat, src=pile.zone, dst=tray.zone, chips=count_chips(out))
            self.t += 0.2
        if get:
            back = tray.take(get)
            self.t = self.stage.carry_chips("dealer", back, tray, pile, t=self.t, duration=0.8)
            self.emit(ChipsMoved, self.t, seat=seat, src=tray.zone, dst=pile.zone, chips=count_chips(back))
            self.t += 0.1
        return pay

    def _gather(self, bets: tuple[int, ...]) -> None:
        if not any(bets) and not any(self.piles[bet_zone(s)].chips for s in self.plan.seats):
            return
        self.t = max(self.t, self.stage.arm_free("dealer")) + 0.3
        pot = self.piles["pot"]
        total = 0
        for player, seat in enumerate(self.plan.seats):
            bet = self.piles[bet_zone(seat)]
            excess = bet.value() - bets[player]
            if excess > 0:  # an uncalled bet goes back to its owner
                back = bet.take(self._counts(bet, excess, None))
                self.t = self.stage.carry_chips("dealer", back, bet, self.piles[stack_zone(seat)], t=self.t,
                                                duration=0.6)
                self.emit(ChipsMoved, self.t, seat=seat, src=bet.zone, dst=stack_zone(seat),
                           chips=count_chips(back))
            if bet.chips:
                total += bet.value()
                self.t = self.stage.carry_chips("dealer", bet.chips, bet, pot, t=self.t,
                                                duration=self.timing.gather / 2)
        self.emit(PotGathered, self.t, value=total)
        self.t += 0.3

    def _push_pot(self, amounts: tuple[int, ...]) -> None:
        pot = self.piles["pot"]
        wrong = [v for v in self.plan.violations if v.type == "wrong_pot_push"]
        self.t = max(self.t, self.stage.arm_free("dealer")) + 0.5
        for player, amount in enumerate(amounts):
            if not amount:
                continue
            seat = self.seat(player)
            chips = pot.take(self._counts(pot, amount, None))
            to = wrong[0].to_seat if wrong and wrong[0].to_seat != seat else seat
            if to not in self.stage.table.seats:
                raise ScenarioError(f"hand {self.plan.hand_no}: wrong_pot_push to seat {to}, which the table lacks")
            dst = self.piles[stack_zone(to)]
            start = self.t
            self.t = self.stage.carry_chips("dealer", chips, pot, dst, t=self.t, duration=self.timing.push)
            self.emit(PotPushed, self.t, seat=to, value=amount, chips=count_chips(chips))
            if to != seat:
                self.t = self.stage.carry_chips("dealer", chips, dst, self.piles[stack_zone(seat)], t=self.t + 1.5,
                                                duration=self.timing.push)
                self.emit(PotPushed, self.t, seat=seat, value=amount, chips=count_chips(chips))  # the correction
                self.record("wrong_pot_push", start, self.t, seats=(to, seat), street="showdown",
                                detail=f"pot of {amount} pushed to seat {to}, won by seat {seat}")
                wrong = []
            self.t += 0.2

    # --- small helpers --------------------------------------------------------------------------------

    def tap(self, seat: int) -> None:
        f = self.stage.table.seats[seat]
        x, y = f.offset(f.stack, 60.0, 60.0)
        self.stage.reach(seat_actor(seat), [(self.t, x, y), (self.t + 0.3, x, y)], z=5.0)
        self.emit(Tap, self.t + 0.3, seat=seat)
        self.t += 0.6

    def _declare(self, seat: int, act: Act, default: str) -> None:
        if act.spec.declare:
            self._say(seat, act.spec.declare, self.t)

    def _say(self, seat: int, text: str, ts: float) -> None:
        parts = text.split()
        self.emit(Declaration, ts, seat=seat, word=parts[0], amount=int(parts[1]) if len(parts) > 1 else None)

    def emit(self, cls: type[Event], ts: float, **fields: Any) -> None:
        self.events.append(cls(ts=round(ts, 4), table=self.table_id, source="sim", **fields))

    def record(self, kind: str, ts: float, end: float, *, seats: tuple[int, ...] = (), street: str | None = None,
                   detail: str = "", params: dict[str, Any] | None = None) -> None:
        self.violations.append(InjectedViolation(
            type=kind, rule_id=RULE_IDS[kind], hand_no=self.plan.hand_no, ts=round(ts, 4), end_ts=round(end, 4),
            seats=seats, street=street or (STREETS[self.state.street_index or 0] if self.state.status else "showdown"),
            detail=detail, params=params or {}))


__all__ = ["RULE_IDS", "HandDriver", "InjectedViolation"]
