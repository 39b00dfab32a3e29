"""The betting engine: follows one hand from the table's events, on pokerkit's ``State``.

``HandEngine.feed(event)`` applies one event and returns the ``Violation`` findings it produced. Irregular
things (out of turn, undercall, underraise, string raise, …) never stop the hand: the engine records the
finding with the ruling a floor would give and carries on as ruled. The hand's state is a ``HandState``
(``handstate.py``) that the engine's collaborators share: the cards (deal, board, showdown) in ``cards.py``,
the booking of actions into pokerkit in ``booking.py``, the floor's corrections in ``corrections.py``. The
TDA view of each street is in ``betting.py``, the reading of chips and words in ``chipreading.py``, the
engine's own rulings in ``rulings.py``. ``TableRules`` (``tablewatch.rules.table``) wraps it for a session.

Catalogue §2 rules owned here, on pokerkit's game: ENG-01 (the hand's structure: pokerkit's game of the variant,
hold'em, Omaha, short deck, stud or a draw game, 2-10 seats; stud's bring-in in ``_bring_in``), ENG-02 (forced
bets: blinds, antes, big-blind or button ante and straddle posted in ``HandState._game``), ENG-04 (the order of
action: pokerkit's actor; actions out of turn held, ENG-17), ENG-09 (the fixed-limit raise cap, C8,
``HandState.cap_reached``), ENG-21 (main and side pots, uncalled bets returned: pokerkit's pots,
``HandState.expected_awards``), ENG-23 (dead hands: a fold said or cards mucked here, a non-standard fold is
binding; the other ways are the clock's and the procedure checks'), ENG-44 (acting in turn, waiting for the bet
amount, TDA-36B).
"""

from __future__ import annotations

import warnings
from dataclasses import replace

from tablewatch.events import (
    BetMotion,
    BoardCardDealt,
    CardBurned,
    CardDealt,
    CardsDiscarded,
    CardsMucked,
    CardsTabled,
    Chips,
    ChipsPulledBack,
    Declaration,
    Event,
    HandStarted,
    PotPushed,
    Tap,
    Violation,
)
from tablewatch.hands import Burn, EventTime
from tablewatch.rules import rulings
from tablewatch.rules.betting import BettingView, Facing, booked_kind, chips_in_play
from tablewatch.rules.booking import Booking
from tablewatch.rules.cards import CardFlow
from tablewatch.rules.chipreading import (
    SIMULTANEOUS_S,
    Action,
    BetContext,
    Declared,
    PhysicalBet,
    Reading,
    chips_against_declaration,
    declaration_after_chips,
    interpret_spoken_number,
    pot_bet_counted_low,
    read_bet,
    read_declaration,
    read_seen_from_above,
    said_check_facing_bet,
)
from tablewatch.rules.corrections import Corrections
from tablewatch.rules.game import GameConfig
from tablewatch.rules.handstate import HandState, Provisional, total_pot
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import HandSnapshot

_BETTING_EVENTS = (Tap, BetMotion, Declaration, CardsMucked, ChipsPulledBack)
LATE_WORD_S = 2.0  # a declaration this soon after the seat's own chips belongs to them (speech, audio lag)
MOTIONS_APART_S = 2.0  # RFID alone: the seat's chips again this soon, nobody else acting, are the same gesture


class HandEngine:
    """One hand at one table. Build it from the ``HandStarted`` event; feed every later event. What the hand is
    (its seats, actions, findings, pokerkit's state) is ``hand``, the ``HandState`` its parts share."""

    def __init__(self, config: GameConfig, start: HandStarted, *, profile: RuleProfile | None = None) -> None:
        self.hand = HandState(config, start, profile or RuleProfile())
        self.cards = CardFlow(self.hand)
        self.booking = Booking(self.hand)
        self.corrections = Corrections(self.hand, self.booking, self.cards)
        self.cards.advance()

    # --- the public face ---------------------------------------------------------------------------------

    def feed(self, event: Event) -> list[Violation]:
        """Apply one event; return the findings it produced (also kept in ``violations``)."""
        self.hand.event_times.append(EventTime(kind=event.kind, seat=event.seat, ts=event.ts))
        before = len(self.hand.violations)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pokerkit warns on legal-but-odd cash-game actions
            self._dispatch(event)
        return self.hand.violations[before:]

    @property
    def complete(self) -> bool:
        return not self.hand.state.status

    def view(self, seat: int) -> BettingView:
        """What ``seat`` faces on the current street (TDA amounts)."""
        return self.hand.view(seat)

    def to_act(self) -> int | None:
        return self.hand.to_act()

    def river_aggressor(self) -> tuple[int, tuple[int, ...]] | None:
        return self.hand.river_aggressor()

    def finish(self, ts: float | None = None) -> None:
        """The hand is over at the table: settle anything pending (cards not shown are mucked or shown as
        pokerkit would, the chips pushed)."""
        self.hand.ended_ts = ts
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                self._settle(ts or 0.0)
            except (AssertionError, KeyError, ValueError) as exc:  # pokerkit cannot settle what was seen
                self.hand.note(f"the hand could not be settled by the engine ({type(exc).__name__}: {exc}); "
                           "the dealer's pushes are the record")
        if self.hand.state.status:
            self.hand.note("the hand ended at the table before the engine saw it through (cards or actions missing)")

    def _settle(self, ts: float) -> None:
        """Seats still to act when the hand ends check if they can, otherwise fold."""
        self._flush_pending()
        self.cards.advance(force=True)
        for _ in range(50):
            index = self.hand.state.actor_index
            if not self.hand.state.status or index is None:
                break
            seat = self.hand.order[index]
            view = self.view(seat)
            kind: Action = "check" if view.to_call == 0 else "fold"
            self.hand.note(f"hand ended with seat {seat} still to act: treated as a {kind}")
            self._apply(seat, Reading(action=kind, to=view.bet), ts)
            self.cards.advance(force=True)

    def snapshot(self) -> HandSnapshot:
        """The hand as the procedure checks see it (``tablewatch.rules.snapshot``). Built before nearly every
        event: what does not change in a hand is the hand's (``HandState``), the board's text is kept per card."""
        hand = self.hand
        state = hand.state
        phase = hand.phase()
        statuses, stacks, bets = state.statuses, state.stacks, state.bets
        in_hand = [(seat, i) for seat, i in hand.seat_indices if statuses[i]]
        active = tuple([seat for seat, _ in in_hand])
        dealing = phase == "dealing"
        if state.status:
            in_play, awards = chips_in_play(state), {}
        else:  # (the hand is over: its pots and awards no longer change, and pokerkit walks them at each asking)
            in_play, awards = hand.asked(total_pot), hand.expected_awards()
        return HandSnapshot.of(
            table=hand.table, hand_no=hand.hand_no, phase=phase, button=hand.start.button,
            seats=hand.dealt_in, active=active,
            all_in=() if dealing else tuple([seat for seat, i in in_hand if stacks[i] == 0]),
            to_act=None if dealing or phase == "complete" else hand.to_act(),
            betting_complete=bool(state.status) and state.actor_index is None and not dealing,
            bets=dict(zip(hand.order, bets, strict=True)), stacks=dict(zip(hand.order, stacks, strict=True)),
            pot=max(0, in_play - sum(bets)),
            hole_cards_per_player=hand.hole_cards,
            hole_cards_dealt={seat: len(info.cards) for seat, info in hand.seats.items()},
            board=hand.board_text(), expected_awards=awards,
            draw_game=hand.config.draw, stud_game=hand.config.stud, discarded=dict(hand.thrown),
        )

    # --- events --------------------------------------------------------------------------------------------

    def _dispatch(self, event: Event) -> None:
        seat = event.seat
        if isinstance(event, CardDealt):
            if seat in self.hand.seats and (not self.hand.hole_flushed or not self.hand.config.flop_game):
                self.hand.seats[seat].cards.append(event.card)
                self.cards.advance()
        elif isinstance(event, CardsDiscarded) and seat in self.hand.seats and self.hand.config.draw:
            self.cards.discard(seat, event.cards)
        elif isinstance(event, CardBurned):
            self.hand.burns.append(Burn(phase=self.hand.phase(), card=event.card, ts=event.ts))
        elif isinstance(event, BoardCardDealt):
            self.cards.board_card(event)
        elif isinstance(event, CardsTabled | CardsMucked) and seat in self.hand.seats and self.cards.at_showdown():
            self.hand.seats[seat].tabled = event.cards if isinstance(event, CardsTabled) else None
            self.hand.seats[seat].mucked = isinstance(event, CardsMucked)
            if isinstance(event, CardsMucked) and self.cards.muck_held(seat):
                self._aggressor_mucked(seat, event.ts)
            self.cards.advance()
        elif isinstance(event, CardsTabled) and seat in self.hand.seats:
            self.hand.seats[seat].tabled = event.cards  # shown early (all-in) or at the end: kept for the showdown
        elif isinstance(event, _BETTING_EVENTS) and seat in self.hand.seats:
            self._betting_event(event, seat)
        elif isinstance(event, PotPushed):
            self._flush_pending()
            self.cards.advance(force=True)
            if seat is not None:
                self.hand.pushes.append((seat, event.value if event.value is not None else event.chips.value, event.ts))

    def card_landing(self, event: Event) -> bool:
        """A tap while the hole cards are still being pitched is a card coming down by that seat (nobody acts
        before the deal is out): noted in the hand's history, and neither the checks nor the betting see it."""
        if not isinstance(event, Tap) or not self.cards.dealing():
            return False
        self.hand.note(f"seat {event.seat}'s tap while the hole cards were being pitched: a card landing, no check")
        return True

    def _betting_event(self, event: Event, seat: int) -> None:
        self.cards.flush_hole()
        if isinstance(event, Declaration) and (self.to_act() is None or self._word_for_last_round(event, seat)) \
                and self._late_word(event, seat):
            return  # words for the chips that closed the round: no sign of the next street (its board may be unseen)
        self.cards.advance(force=True, players=False)
        if self._settles_earlier_action(event, seat) or self._second_motion(event, seat):
            return
        actor = self.to_act()
        if isinstance(event, Declaration) and seat != actor and self._late_word(event, seat):
            return
        if actor is None or not self.hand.state.statuses[self.hand.index[seat]]:
            return  # no betting round open, or a seat that is out of the hand: nothing to rule
        if seat != actor:
            self._out_of_turn(event, seat, actor)
            return
        if self.hand.underpot is not None:
            self.corrections.underpot_action(event, seat)
        self._in_turn(event, seat)

    def _settles_earlier_action(self, event: Event, seat: int) -> bool:
        """Chips or words that belong to the seat's earlier action (a correction, a payment, chips taken
        back): ruled here (True), or a new action."""
        info, underpot = self.hand.seats[seat], self.hand.underpot
        if isinstance(event, BetMotion) and self._forced_bet(event, seat):
            return True
        if underpot is not None and seat == underpot.seat and isinstance(event, BetMotion):
            self.corrections.underpot_paid(event)
            return True
        if self.corrections.missed_raise_event(event, seat):
            return True
        if isinstance(event, BetMotion) and info.owed:
            self._settle_payment(event, seat)
            self._chips_of_last_action(event, seat)
            return True
        if isinstance(event, ChipsPulledBack):
            info.pulled = info.pulled + event.chips
            if self.hand.state.actor_index is not None and self.view(seat).to_call > 0:
                info.no_fold = True
            return True
        return False

    def _second_motion(self, event: Event, seat: int) -> bool:
        """RFID alone (no camera counts a gesture's motions) reports each motion's chips as they land: chips from
        the seat whose action was the last, on the same street and within MOTIONS_APART_S of its first chips,
        are that action's next motion (TDA-29: the first motion stands). A declared amount paid in several
        motions is a payment (``_settles_earlier_action``), not this."""
        last = self.hand.last_chips.get(seat)
        if not isinstance(event, BetMotion) or event.source != "rfid" or last is None:
            return False
        chips_ts, record = last
        if not self.hand.actions or self.hand.actions[-1] is not record or record.street != self.hand.street() \
                or not 0 <= event.ts - chips_ts <= MOTIONS_APART_S:
            return False
        self.hand.rule(rulings.chips_in_a_second_motion(seat, record.kind, record.amount, event.chips.value), seat,
                       event.ts)
        return True

    def _chips_of_last_action(self, event: BetMotion, seat: int) -> None:
        """Chips paying what the seat's last action owes (an undercall made up): words keyed after them are that
        action's, not a new one (``_late_word``)."""
        record = next((a for a in reversed(self.hand.actions) if a.seat == seat), None)
        if record is not None:
            self.hand.last_chips[seat] = (_first_motion(event), record)

    def _forced_bet(self, event: BetMotion, seat: int) -> bool:
        """Chips of the seat's blind or ante, posted already from the game: a table whose chips are seen by RFID
        alone (no camera tells a post from a bet) reports them as a bet. Before any action, the RFID ledger's chips
        up to what the seat was due to post are that."""
        hand = self.hand
        if event.source != "rfid" or hand.actions:
            return False
        index, info = hand.index[seat], hand.seats[seat]
        due = hand.starting_stacks[index] - hand.state.stacks[index]
        if info.posted_seen + event.chips.value > due:
            return False
        info.posted_seen += event.chips.value
        return True

    def _in_turn(self, event: Event, seat: int) -> None:
        before = len(self.hand.actions)
        if isinstance(event, BetMotion) and self.hand.config.stud and 0 < event.chips.value <= self.view(seat).bring_in:
            self._bring_in(seat, event.ts)
        elif (reading := self._read(event, seat)) is not None:
            self._apply(seat, reading, event.ts)
        if isinstance(event, BetMotion) and len(self.hand.actions) > before:
            self.hand.last_chips[seat] = (_first_motion(event), self.hand.actions[before])

    def _word_for_last_round(self, event: Declaration, seat: int) -> bool:
        """Words keyed for the chips that closed the last round after the next street has begun (a table no camera
        watches deals its board unseen at once): a "call" with nothing to call, or the raise's amount again. A
        check is the new street's action."""
        last = self.hand.last_chips.get(seat)
        if last is None or last[1].street == self.hand.street():
            return False
        record = last[1]
        return (event.word == "call" and self.view(seat).to_call == 0) or (
            record.kind == "cbr" and event.word in ("bet", "raise", "all-in") and event.amount == record.amount)

    def _late_word(self, event: Declaration, seat: int) -> bool:
        """Words that follow the seat's own chips (audio lags): compared with them, never out of turn."""
        last = self.hand.last_chips.get(seat)
        if last is None or not 0 <= event.ts - last[0] <= LATE_WORD_S or event.word in ("time", "floor"):
            return False
        chips_ts, record = last
        aggressive = event.word in ("bet", "raise", "all-in", "pot")
        conflict = (aggressive != (record.kind == "cbr")) or event.word == "fold" or (
            record.kind == "cbr" and event.amount is not None and event.amount != record.amount)
        if conflict:
            finding = declaration_after_chips(seat, record.kind, record.amount, _said(event),
                                              simultaneous=event.ts - chips_ts <= SIMULTANEOUS_S)
            self.hand.rule(finding, seat, event.ts)
        return True

    def _read(self, event: Event, seat: int) -> Reading | None:
        """The ruling of the seat's gesture, words or chips in turn; None: no action yet."""
        if isinstance(event, Tap):  # (a tap or a fold needs the chips faced, not the whole view)
            return self._read_tap(seat, self.hand.facing(seat), event.ts)
        if isinstance(event, CardsMucked):
            return self._fold_reading(seat, self.hand.facing(seat), event.ts)
        view = self.view(seat)
        ctx = self._context(seat, view)
        if isinstance(event, Declaration):
            return self._read_declaration(event, seat, view, ctx)
        assert isinstance(event, BetMotion)
        return self._read_chips(event, seat, ctx)

    def _context(self, seat: int, view: BettingView) -> BetContext:
        profile = self.hand.profile
        ctx = view.context(single_chip_over_prior=profile.single_chip_over_prior_chips,
                           declared_raise_short=profile.declared_raise_short)
        return _no_raise(ctx) if self.hand.seats[seat].no_raise else ctx

    def _read_tap(self, seat: int, view: Facing, ts: float) -> Reading | None:
        if view.to_call == 0:
            return rulings.tap_check(view.bet)
        self.hand.rule(rulings.tap_facing_bet(seat, view.to_call), seat, ts)
        return None

    def _read_declaration(self, event: Declaration, seat: int, view: BettingView, ctx: BetContext) -> Reading | None:
        info, big_blind = self.hand.seats[seat], self.hand.config.big_blind
        said = amount = event.amount
        if said is not None and 0 < said < big_blind and said < view.stack:
            amount = interpret_spoken_number(said, pot_total=view.pot_total, min_bet=big_blind)
            self.hand.rule(rulings.unclear_amount(seat, said, view.pot_total, amount), seat, event.ts)
        decl = Declared(word=event.word, amount=amount, ts=event.ts)
        if event.word == "fold":
            return self._fold_reading(seat, view, event.ts)
        reading = read_declaration(ctx, decl)
        if reading is None:
            info.pending = decl  # the chips will say how much
            return None
        if reading.action == "none":
            info.no_raise = info.no_raise or said_check_facing_bet(reading)
            self.hand.rule_all(reading, seat, event.ts)
            return None
        info.owed = max(0, reading.to - view.bet)
        info.owed_word = event.word
        return reading

    def _read_chips(self, event: BetMotion, seat: int, ctx: BetContext) -> Reading:
        info = self.hand.seats[seat]
        physical = PhysicalBet(chips=event.chips, prior=event.prior, pulled_back=info.pulled, motions=event.motions,
                               motion_values=event.motion_values, chips_ts=_first_motion(event),
                               declaration=info.pending)
        info.pending, info.pulled = None, Chips()
        if not _seen_alone(event):
            return read_bet(ctx, physical)
        reading, guess = read_seen_from_above(ctx, physical)
        if guess:
            self.hand.estimate(f"seat {seat}'s bet was a guess ({guess})")
        return reading

    def _fold_reading(self, seat: int, view: Facing | BettingView, ts: float) -> Reading:
        info = self.hand.seats[seat]
        if info.no_fold:
            finding = rulings.fold_after_pulling_back(seat)
            self.hand.rule(finding, seat, ts)
            return Reading(action="call", to=min(view.cur, view.bet + view.stack), basis=finding.rule_id)
        if view.to_call == 0:
            self.hand.rule(rulings.fold_not_facing_bet(seat), seat, ts)
        return Reading(action="fold", to=view.bet, basis="fold")

    def _settle_payment(self, event: BetMotion, seat: int) -> None:
        info = self.hand.seats[seat]
        paid, owed = event.chips.value, info.owed
        info.owed = 0
        if _seen_alone(event):
            return  # a camera alone counts column tops and the chips already in front: no payment to weigh
        if info.owed_word == "pot" and self.hand.config.structure == "PL" and paid < owed:
            self.hand.rule(pot_bet_counted_low(seat, owed, paid), seat, event.ts)
            self.corrections.open_underpot(seat, paid, owed)
        elif paid != owed:
            missed = info.owed_word == "call" and paid < owed  # a call paid short: a raise missed? (TDA-35)
            ruling = "the declaration governs: " + (f"{paid - owed} back as change" if paid > owed
                                                    else f"{owed - paid} more is owed")
            if missed:
                info.owed = owed - paid  # the rest, when it comes, pays the call
                ruling += "; " + self.corrections.open_withdrawable(seat)
            self.hand.rule(chips_against_declaration(seat, owed, paid, ruling), seat, event.ts)

    def _out_of_turn(self, event: Event, seat: int, actor: int) -> None:
        info = self.hand.seats[seat]
        if isinstance(event, Declaration) and event.word in ("time", "floor"):
            return
        if isinstance(event, BetMotion) and seat in self.hand.provisional:
            return  # the chips of an out-of-turn declaration already held: one finding is enough
        if isinstance(event, BetMotion) and _seen_alone(event) and not event.chips.count:
            self.hand.estimate(f"seat {seat}'s motion over the line out of turn showed the camera no chips")
        what = _describe(event)
        waiting = self.hand.seats[actor].pending
        if waiting is not None and waiting.amount is None and waiting.word in ("bet", "raise"):
            self.hand.rule(rulings.acted_before_amount_clear(seat, what, actor, waiting.word), seat, event.ts)
        else:
            self.hand.rule(rulings.out_of_turn(seat, actor, what), seat, event.ts)
            self._substantial_after_skip(seat, actor, event)
        view = self.view(seat)
        if isinstance(event, CardsMucked) or (isinstance(event, Declaration) and event.word == "fold"):
            reading: Reading | None = Reading(action="fold", to=view.bet)
        elif isinstance(event, Tap):
            reading = Reading(action="check", to=view.bet) if view.to_call == 0 else None
        else:
            reading = self._read(event, seat)
        if reading is not None and reading.action != "none":
            self.hand.provisional[seat] = Provisional(reading=reading, cur_at=view.cur, ts=event.ts)
            info.owed = 0
        if self.hand.profile.skipped_player == "house" and actor in self.hand.skipped:
            self._house_skip(actor, event.ts)

    def _house_skip(self, actor: int, ts: float) -> None:
        """HOUSE-002-2.8.12 (EX-101): a skipped player silent through two actions loses his turn: a check if
        nobody bet, otherwise the floor decides."""
        acts = self.hand.skipped[actor]
        if len(acts) < 2 or actor in self.hand.skip_reported or self.to_act() != actor:
            return
        self.hand.skip_reported.add(actor)
        view = self.view(actor)
        held = [self.hand.provisional[s] for s in acts if s in self.hand.provisional]
        if view.to_call > 0 or any(h.reading.to > view.cur for h in held):
            self.hand.rule(rulings.skipped_facing_bet(actor, acts), actor, ts)
            return
        self.hand.rule(rulings.skipped_lost_turn(actor, acts), actor, ts)
        self._apply(actor, Reading(action="check", to=view.bet, basis="HOUSE-002-2.8.12: turn lost"), ts)

    def _substantial_after_skip(self, seat: int, actor: int, event: Event) -> None:
        """ENG-17/ENG-18: the skipped seat stays silent while others act after him: two actions with chips,
        or three actions, make the out-of-turn actions binding and the floor rules on his hand (EX-76)."""
        acts = self.hand.skipped.setdefault(actor, {})
        acts[seat] = acts.get(seat, False) or isinstance(event, BetMotion) or (
            isinstance(event, Declaration) and event.word in ("call", "bet", "raise", "all-in", "pot"))
        if self.hand.profile.skipped_player == "house":
            return  # the house rule counts two silent actions instead (``_house_skip``)
        if actor in self.hand.skip_reported or not (len(acts) >= 3 or (len(acts) >= 2 and any(acts.values()))):
            return
        self.hand.skip_reported.add(actor)
        self.hand.rule(rulings.skipped_through_substantial_action(actor, acts), actor, event.ts)

    # --- applying a ruling to pokerkit ----------------------------------------------------------------------

    def _apply(self, seat: int, reading: Reading, ts: float) -> None:
        self.hand.rule_all(reading, seat, ts)
        if reading.action == "none":
            return
        state, index = self.hand.state, self.hand.index[seat]
        if reading.action == "fold":
            kind = "f"
        elif reading.to <= max(state.bets) or reading.to <= state.bets[index] or reading.action in ("check", "call"):
            kind = "cc"
        else:
            kind = "cbr"
        amount = self.booking.book(index, kind, reading.to)
        self.hand.record(seat, booked_kind(kind, amount), amount, ts, reading)
        self._after_action()

    def _bring_in(self, seat: int, ts: float) -> None:
        """Stud: the seat whose turn it is to bring in put out no more than the bring-in: it is posted (more, up
        to the small bet, is read as chips are: a completion)."""
        self.booking.bring_in(self.hand.index[seat])
        self.hand.record(seat, "pb", None, ts, Reading(action="bet", to=self.hand.state.bets[self.hand.index[seat]],
                                                       basis="the bring-in"))
        self._after_action()

    def _after_action(self) -> None:
        self.cards.advance()
        guard = 0
        while (actor := self.to_act()) is not None and actor in self.hand.provisional and guard < 20:
            guard += 1
            held = self.hand.provisional.pop(actor)
            view = self.view(actor)
            if held.reading.action == "fold" or view.cur == held.cur_at:
                reading = held.reading if held.reading.action == "fold" else _rebase(held.reading, view)
                self._apply(actor, reading, held.ts)
                return
            self.hand.rule(rulings.out_of_turn_released(actor, held.cur_at, view.cur), actor, held.ts)

    # --- dealing and the flow of the hand ---------------------------------------------------------------

    def _flush_pending(self) -> None:
        """Declarations whose chips never came are binding as said (HOUSE-004-1.7)."""
        for seat, info in self.hand.seats.items():
            if info.pending is not None and self.to_act() == seat:
                decl, info.pending = info.pending, None
                view = self.view(seat)
                to = view.min_raise_to if view.can_raise else min(view.cur, view.bet + view.stack)
                self._apply(seat, Reading(action="raise" if to > view.cur else "call", to=to,
                                          basis=f'"{decl.word}" declared, no chips: a minimum'), decl.ts)

    # --- the showdown ---------------------------------------------------------------------------------------

    def _aggressor_mucked(self, seat: int, ts: float) -> None:
        aggressor = self.hand.river_aggressor()
        assert aggressor is not None
        self.hand.rule(rulings.river_aggressor_mucked(seat, aggressor[1]), seat, ts)


def _no_raise(ctx: BetContext) -> BetContext:
    return replace(ctx, can_raise=False)


def _rebase(reading: Reading, view: BettingView) -> Reading:
    """An out-of-turn action that became binding: the same total, now in turn."""
    if reading.action == "check" and view.to_call > 0:
        return Reading(action="call", to=min(view.cur, view.bet + view.stack), basis="binding out-of-turn action")
    return reading


def _seen_alone(event: BetMotion) -> bool:
    """Chips a camera alone saw, no reader counting them (fusion sends a bet RFID counted as the scene's): from
    above it sees the top chip of each column."""
    return event.source == "vision"


def _first_motion(event: BetMotion) -> float:
    """When the bet's chips first went out: its first motion, else the report's time."""
    return event.motion_times[0] if event.motion_times else event.ts


def _said(event: Declaration) -> str:
    return f'"{event.word}{" " + str(event.amount) if event.amount is not None else ""}"'


def _describe(event: Event) -> str:
    if isinstance(event, BetMotion):
        return f"put out {event.chips.value} in chips"
    if isinstance(event, Declaration):
        return f"said {_said(event)}"
    if isinstance(event, Tap):
        return "tapped (check)"
    if isinstance(event, CardsMucked):
        return "mucked his cards"
    return event.kind
