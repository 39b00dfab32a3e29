"""The betting engine: follows one hand from the table's events, on pokerkit's ``State``.

``HandEngine.feed(event)`` applies one event and returns the ``Violation`` findings it produced. Irregular
things (out of turn, undercall, underraise, string raise, …) never stop the hand: the engine records the
finding with the ruling a floor would give and carries on as ruled. The TDA view of each street is in
``betting.py``, the reading of chips and words in ``chipreading.py``, the cards (deal, board, showdown) in
``cards.py``. ``TableRules`` (``tablewatch.rules.table``) wraps it for a whole session of hands.

Catalogue §2 rules owned here, on pokerkit's game: ENG-01 (the hand's structure: pokerkit's hold'em or Omaha,
2-10 seats), ENG-02 (forced bets: blinds, antes, big-blind ante and straddle posted in ``_game``), ENG-04 (the
order of action: pokerkit's actor; actions out of turn held, ENG-17), ENG-09 (the fixed-limit raise cap, C8,
``_cap_reached``), ENG-21 (main and side pots, uncalled bets returned: pokerkit's pots, ``expected_awards``),
ENG-23 (dead hands: a fold said or cards mucked here, a non-standard fold is binding; the other ways are the
clock's, the procedure checks' and the penalties'), ENG-44 (acting in turn, waiting for the bet amount,
TDA-36B).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from pokerkit import ChipsPushing, Poker, State

from tablewatch.events import (
    BetMotion,
    BoardCardDealt,
    CardBurned,
    CardDealt,
    CardsMucked,
    CardsTabled,
    Chips,
    ChipsPulledBack,
    Declaration,
    Event,
    HandStarted,
    PotPushed,
    Severity,
    Tap,
    Violation,
)
from tablewatch.hands import ActionRecord, Burn, EventTime
from tablewatch.rules.betting import STREETS, BettingView, RoundTracker, booked_kind, new_round, view_for
from tablewatch.rules.cards import CardFlow
from tablewatch.rules.chipreading import (
    SIMULTANEOUS_S,
    BetContext,
    Declared,
    Finding,
    PhysicalBet,
    Reading,
    interpret_spoken_number,
    read_bet,
    read_declaration,
)
from tablewatch.rules.corrections import Corrections, Underpot
from tablewatch.rules.game import GameConfig
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import HandSnapshot, Phase

LATE_WORD_S = 2.0  # a declaration this soon after the seat's own chips belongs to them (speech, audio lag)


@dataclass
class _Provisional:
    """An out-of-turn action held until the action comes to its seat (TDA-39, ENG-17)."""

    reading: Reading
    cur_at: int
    ts: float


@dataclass
class _Seat:
    cards: list[str | None] = field(default_factory=list)
    tabled: tuple[str, ...] | None = None
    mucked: bool = False
    pending: Declared | None = None
    owed: int = 0  # chips owed for a verbal action already applied
    owed_word: str = ""  # the word that made them owed
    pulled: Chips = field(default_factory=Chips)
    no_raise: bool = False  # said "check" facing a bet (TDA-41)
    no_fold: bool = False  # pulled back chips facing a bet (TDA-33B)


class HandEngine(CardFlow, Corrections):
    """One hand at one table. Build it from the ``HandStarted`` event; feed every later event."""

    def __init__(self, config: GameConfig, start: HandStarted, *, profile: RuleProfile | None = None) -> None:
        if len(start.seats) < 2:
            raise ValueError(f"Hand {start.hand_no}: a hand needs at least 2 seats, got {start.seats}.")
        if not 1 <= start.button <= 10:
            raise ValueError(f"Hand {start.hand_no}: the button seat {start.button} is not a seat (1-10).")
        if start.stacks and len(start.stacks) != len(start.seats):
            raise ValueError(f"Hand {start.hand_no}: {len(start.stacks)} stacks for {len(start.seats)} seats.")
        self.config, self.start, self.profile = config, start, profile or RuleProfile()
        self.table, self.hand_no = start.table, start.hand_no
        seats = sorted(start.seats)
        after = [s for s in seats if s > start.button] + [s for s in seats if s <= start.button]
        # pokerkit index -> seat, clockwise from the button's left; the button (or, with a dead button on an
        # empty seat, the seat before it) is last
        self.order: tuple[int, ...] = tuple(after)
        self.index = {seat: i for i, seat in enumerate(self.order)}
        by_seat = dict(zip(start.seats, start.stacks, strict=True)) if start.stacks else {}
        default_stack = 100 * config.big_blind
        self.starting_stacks = tuple(by_seat.get(seat, default_stack) for seat in self.order)
        self.game, self.straddle = self._game(start)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.state: State = self.game(self.starting_stacks, len(self.order))
        self.seats = {seat: _Seat() for seat in self.order}
        self.board: dict[int, str | None] = {}
        self.board_fresh: set[int] = set()  # slots dealt while no betting round was open
        self.burns: list[Burn] = []
        self.actions: list[ActionRecord] = []
        self.violations: list[Violation] = []
        self.pushes: list[tuple[int, int, float]] = []  # (seat, value, ts) pushed by the dealer
        self.event_times = [EventTime(kind="HandStarted", seat=None, ts=start.ts)]
        self.hole_flushed = False
        self.stuck = False  # pokerkit refused the showdown: the hand is recorded as the dealer pushes it
        self.last_chips: dict[int, tuple[float, ActionRecord]] = {}  # seat -> its last chips' time and ruling
        self.skipped: dict[int, dict[int, bool]] = {}  # skipped seat -> seats acting after it (chips in?)
        self.skip_reported: set[int] = set()
        self.tracker: RoundTracker | None = None
        self.provisional: dict[int, _Provisional] = {}
        self.notes: list[str] = []
        self.ended_ts: float | None = None
        self.rebuilding = False  # replaying the hand after a floor correction (``corrections.py``)
        self.underpot: Underpot | None = None
        self.withdrawable: tuple[int, int] | None = None
        self._advance()

    # --- set-up --------------------------------------------------------------------------------------------

    def _game(self, start: HandStarted) -> tuple[Poker, int]:
        cfg, n = self.config, len(self.order)
        if start.blinds:
            blinds = {self.index[seat]: amount for seat, amount in start.blinds if seat in self.index}
        else:
            blinds = {0: cfg.small_blind, 1: cfg.big_blind}
            if cfg.straddle and n >= 3:
                blinds[2] = cfg.straddle
        antes = {i: cfg.ante for i in range(n)} if cfg.ante else {}
        if cfg.big_blind_ante:
            antes = {1: self._big_blind_ante(abs(blinds.get(1, cfg.big_blind)))}
        straddle = blinds.get(2, 0) if n >= 3 and blinds.get(2, 0) > cfg.big_blind else 0
        # the house cap (C8) lifts when the hand is down to two players: the engine owns it (``_cap_reached``)
        capped = self.profile.limit_raise_cap == "tda"
        return cfg.pokerkit_game(antes=antes, blinds=blinds, capped=capped), straddle

    def _big_blind_ante(self, big_blind: int) -> int:
        """The big-blind ante posted (TDA-60, C7). pokerkit posts a short big blind's ante first, then the blind
        from what is left (``bba_priority = "ante_first"``); with ``big_blind_first`` the blind is posted in
        full first and the ante takes only what is left. The ante is dead money, the blind a live bet."""
        ante = self.config.big_blind_ante
        if self.profile.bba_priority == "ante_first":
            return ante
        poster = 0 if len(self.order) == 2 else 1  # heads-up pokerkit posts the ante and blind of index 1 at index 0
        return max(0, min(ante, self.starting_stacks[poster] - big_blind))

    # --- the public face ---------------------------------------------------------------------------------

    def feed(self, event: Event) -> list[Violation]:
        """Apply one event; return the findings it produced (also kept in ``violations``)."""
        self.event_times.append(EventTime(kind=event.kind, seat=event.seat, ts=event.ts))
        before = len(self.violations)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pokerkit warns on legal-but-odd cash-game actions
            self._dispatch(event)
        return self.violations[before:]

    @property
    def complete(self) -> bool:
        return not self.state.status

    def view(self, seat: int) -> BettingView:
        """What ``seat`` faces on the current street (TDA amounts)."""
        self._ensure_tracker()
        assert self.tracker is not None
        index = self.index[seat]
        return view_for(self.config, self.state, self.tracker, index, seat=seat, cap_reached=self._cap_reached())

    def to_act(self) -> int | None:
        index = self.state.actor_index
        return None if index is None else self.order[index]

    def finish(self, ts: float | None = None) -> None:
        """The hand is over at the table: settle anything pending (cards not shown are mucked or shown as
        pokerkit would, the chips pushed)."""
        self.ended_ts = ts
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                self._settle(ts or 0.0)
            except (AssertionError, KeyError, ValueError) as exc:  # pokerkit cannot settle what was seen
                self._note(f"the hand could not be settled by the engine ({type(exc).__name__}: {exc}); "
                           "the dealer's pushes are the record")
        if self.state.status:
            self._note("the hand ended at the table before the engine saw it through (cards or actions missing)")

    def _settle(self, ts: float) -> None:
        """Seats still to act when the hand ends check if they can, otherwise fold."""
        self._flush_pending()
        self._advance(force=True)
        for _ in range(50):
            index = self.state.actor_index
            if not self.state.status or index is None:
                break
            seat = self.order[index]
            view = self.view(seat)
            kind = "check" if view.to_call == 0 else "fold"
            self._note(f"hand ended with seat {seat} still to act: treated as a {kind}")
            self._apply(seat, Reading(action=kind, to=view.bet), ts)  # type: ignore[arg-type]
            self._advance(force=True)

    def expected_awards(self) -> dict[int, int]:
        awards: dict[int, int] = {}
        for op in self.state.operations:
            if isinstance(op, ChipsPushing):
                for i, amount in enumerate(op.amounts):
                    if amount:
                        awards[self.order[i]] = awards.get(self.order[i], 0) + amount
        return awards

    def snapshot(self) -> HandSnapshot:
        """The hand as the procedure checks see it (``tablewatch.rules.snapshot``)."""
        state = self.state
        phase = self._phase()
        active = tuple(sorted(s for s in self.order if state.statuses[self.index[s]]))
        board = [cards[0] for cards in state.board_cards if cards]
        return HandSnapshot(
            table=self.table, hand_no=self.hand_no, phase=phase, button=self.start.button,
            seats=tuple(sorted(self.order)), active=active,
            all_in=tuple(s for s in active if state.stacks[self.index[s]] == 0 and phase != "dealing"),
            to_act=self.to_act() if phase not in ("dealing", "complete") else None,
            betting_complete=bool(state.status) and state.actor_index is None and phase != "dealing",
            bets={s: state.bets[self.index[s]] for s in self.order},
            stacks={s: state.stacks[self.index[s]] for s in self.order},
            pot=max(0, state.total_pot_amount - sum(state.bets)),
            hole_cards_per_player=self.config.hole_cards,
            hole_cards_dealt={s: len(self.seats[s].cards) for s in self.order},
            board=tuple(None if card.unknown_status else repr(card) for card in board),
            expected_awards=self.expected_awards() if not state.status else {},
        )

    def _phase(self) -> Phase:
        state = self.state
        if not state.status:
            return "complete"
        if not self.hole_flushed:
            return "dealing"
        if state.showdown_index is not None:
            return "showdown"
        index = state.street_index
        return STREETS[index] if index is not None else "showdown"  # type: ignore[return-value]

    # --- events --------------------------------------------------------------------------------------------

    def _dispatch(self, event: Event) -> None:
        seat = event.seat
        if isinstance(event, CardDealt):
            if seat in self.seats and not self.hole_flushed:
                self.seats[seat].cards.append(event.card)
                self._advance()
        elif isinstance(event, CardBurned):
            self.burns.append(Burn(phase=self._phase(), card=event.card, ts=event.ts))
        elif isinstance(event, BoardCardDealt):
            self._board_card(event)
        elif isinstance(event, CardsTabled | CardsMucked) and seat in self.seats and self._at_showdown():
            self.seats[seat].tabled = event.cards if isinstance(event, CardsTabled) else None
            self.seats[seat].mucked = isinstance(event, CardsMucked)
            if isinstance(event, CardsMucked) and self._muck_held(seat):
                self._aggressor_mucked(seat, event.ts)
            self._advance()
        elif isinstance(event, CardsTabled) and seat in self.seats:
            self.seats[seat].tabled = event.cards  # shown early (all-in) or at the end: kept for the showdown
        elif isinstance(event, Tap | BetMotion | Declaration | CardsMucked | ChipsPulledBack) and seat in self.seats:
            self._betting_event(event, seat)
        elif isinstance(event, PotPushed):
            self._flush_pending()
            self._advance(force=True)
            if seat is not None:
                self.pushes.append((seat, event.value if event.value is not None else event.chips.value, event.ts))

    def _betting_event(self, event: Event, seat: int) -> None:
        self._flush_hole()
        self._advance(force=True, show=False)
        info = self.seats[seat]
        if self.underpot is not None and seat == self.underpot.seat and isinstance(event, BetMotion):
            self._underpot_paid(event)
            return
        if self._missed_raise_event(event, seat):
            return
        if isinstance(event, BetMotion) and info.owed:
            self._settle_payment(event, seat)
            return
        if isinstance(event, ChipsPulledBack):
            info.pulled = info.pulled + event.chips
            if self.state.actor_index is not None and self.view(seat).to_call > 0:
                info.no_fold = True
            return
        actor = self.to_act()
        if isinstance(event, Declaration) and seat != actor and self._late_word(event, seat):
            return
        if actor is None or not self.state.statuses[self.index[seat]]:
            return  # no betting round open, or a seat that is out of the hand: nothing to rule
        if seat != actor:
            self._out_of_turn(event, seat, actor)
            return
        if self.underpot is not None:
            self._underpot_action(event, seat)
        before = len(self.actions)
        reading = self._read(event, seat)
        if reading is not None:
            self._apply(seat, reading, event.ts)
        if isinstance(event, BetMotion) and len(self.actions) > before:
            chips_ts = event.motion_times[0] if event.motion_times else event.ts
            self.last_chips[seat] = (chips_ts, self.actions[before])

    def _late_word(self, event: Declaration, seat: int) -> bool:
        """Words that follow the seat's own chips (audio lags): compared with them, never out of turn."""
        last = self.last_chips.get(seat)
        if last is None or not 0 <= event.ts - last[0] <= LATE_WORD_S or event.word in ("time", "floor"):
            return False
        chips_ts, record = last
        aggressive = event.word in ("bet", "raise", "all-in", "pot")
        conflict = (aggressive != (record.kind == "cbr")) or event.word == "fold" or (
            record.kind == "cbr" and event.amount is not None and event.amount != record.amount)
        if conflict:
            simultaneous = event.ts - chips_ts <= SIMULTANEOUS_S
            said = f'"{event.word}{" " + str(event.amount) if event.amount is not None else ""}"'
            ruling = ("said as the chips went in: a clear declaration governs; the floor corrects the action "
                      "(Rule 1 if unclear)") if simultaneous else "the chips came first and govern"
            self._finding(Finding(rule_id="TDA-27A", title="Declaration after the chips contradicts them",
                                  observed=f"seat {seat}'s chips were ruled {record.kind} "
                                           f"{record.amount or ''}, then {said}".replace("  ", " "),
                                  ruling=ruling, severity=Severity.VIOLATION if simultaneous else Severity.ADVISORY),
                          seat, event.ts)
        return True

    def _read(self, event: Event, seat: int) -> Reading | None:
        info, view = self.seats[seat], self.view(seat)
        ctx = view.context(single_chip_over_prior=self.profile.single_chip_over_prior_chips,
                           declared_raise_short=self.profile.declared_raise_short)
        if info.no_raise:
            ctx = _no_raise(ctx)
        if isinstance(event, Tap):
            if view.to_call == 0:
                return Reading(action="check", to=view.bet, rules=("TDA22-3",), basis="tap")
            self._finding(Finding(rule_id="TDA22-3", title="Tap while facing a bet", severity=Severity.ADVISORY,
                                  observed=f"seat {seat} tapped facing {view.to_call} to call",
                                  ruling="ambiguous gesture: no action taken; the dealer asks"), seat, event.ts)
            return None
        if isinstance(event, CardsMucked):
            return self._fold_reading(seat, view, event.ts)
        if isinstance(event, Declaration):
            amount = event.amount
            if amount is not None and 0 < amount < self.config.big_blind and amount < view.stack:
                amount = interpret_spoken_number(amount, pot_total=view.pot_total, min_bet=self.config.big_blind)
                self._finding(Finding(rule_id="TDA-43", title="Unclear amount", severity=Severity.ADVISORY,
                                      observed=f'seat {seat} said "{event.amount}" with {view.pot_total} in the pot',
                                      ruling=f"read as {amount}: the largest meaning not over the pot"), seat, event.ts)
            decl = Declared(word=event.word, amount=amount, ts=event.ts)
            if event.word == "fold":
                return self._fold_reading(seat, view, event.ts)
            reading = read_declaration(ctx, decl)
            if reading is None:
                info.pending = decl
                return None
            if reading.action == "none":
                info.no_raise = info.no_raise or "TDA-41" in reading.rules
                self._findings(reading, seat, event.ts)
                return None
            info.owed = max(0, reading.to - view.bet)
            info.owed_word = event.word
            return reading
        assert isinstance(event, BetMotion)
        chips_ts = event.motion_times[0] if event.motion_times else event.ts
        physical = PhysicalBet(chips=event.chips, prior=event.prior, pulled_back=info.pulled, motions=event.motions,
                               motion_values=event.motion_values, chips_ts=chips_ts, declaration=info.pending)
        info.pending, info.pulled = None, Chips()
        return read_bet(ctx, physical)

    def _fold_reading(self, seat: int, view: BettingView, ts: float) -> Reading:
        info = self.seats[seat]
        if info.no_fold:
            self._finding(Finding(rule_id="TDA-33B", title="Fold after pulling back chips facing a bet",
                                  observed=f"seat {seat} took back chips, then folded",
                                  ruling="the player must call or raise: ruled a call"), seat, ts)
            return Reading(action="call", to=min(view.cur, view.bet + view.stack), basis="TDA-33B")
        if view.to_call == 0:
            self._finding(Finding(rule_id="TDA-44", title="Fold when not facing a bet", severity=Severity.ADVISORY,
                                  observed=f"seat {seat} folded with nothing to call",
                                  ruling="non-standard but binding: the hand is dead"), seat, ts)
        return Reading(action="fold", to=view.bet, basis="fold")

    def _settle_payment(self, event: BetMotion, seat: int) -> None:
        info = self.seats[seat]
        paid, owed = event.chips.value, info.owed
        info.owed = 0
        if info.owed_word == "pot" and self.config.structure == "PL" and paid < owed:
            self._finding(Finding(
                rule_id="TDA-38B", title="Pot bet counted too low",
                observed=f'seat {seat} declared "pot" ({owed} to put in) and put out {paid}',
                ruling=f"made up to the pot ({owed - paid} more) if corrected before the next substantial "
                       "action; after it the smaller bet stands"), seat, event.ts)
            self._open_underpot(seat, paid, owed)
        elif paid != owed:
            missed = info.owed_word == "call" and paid < owed  # a call paid short: a raise missed? (TDA-35)
            ruling = "the declaration governs: " + (f"{paid - owed} back as change" if paid > owed
                                                    else f"{owed - paid} more is owed")
            if missed:
                info.owed = owed - paid  # the rest, when it comes, pays the call
                ruling += "; " + self._open_withdrawable(seat)
            self._finding(Finding(
                rule_id="TDA-27A", title="Chips do not match the declaration",
                severity=Severity.ADVISORY if paid > owed else Severity.VIOLATION,
                observed=f"seat {seat} declared an action owing {owed} and put out {paid}", ruling=ruling),
                seat, event.ts)

    def _out_of_turn(self, event: Event, seat: int, actor: int) -> None:
        info = self.seats[seat]
        if isinstance(event, Declaration) and event.word in ("time", "floor"):
            return
        if isinstance(event, BetMotion) and seat in self.provisional:
            return  # the chips of an out-of-turn declaration already held: one finding is enough
        what = _describe(event)
        waiting = self.seats[actor].pending
        if waiting is not None and waiting.amount is None and waiting.word in ("bet", "raise"):
            self._finding(Finding(rule_id="TDA-36B", title="Acted before the bet amount was clear",
                                  severity=Severity.ADVISORY,
                                  observed=f'seat {seat} {what} while seat {actor} had said "{waiting.word}" '
                                           "with no amount yet",
                                  ruling="wait until the amount is stated; a premature call may be held to any "
                                         "amount (TDA-45B)"), seat, event.ts)
        else:
            self._out_of_turn_finding(seat, actor, what, event.ts)
            self._substantial_after_skip(seat, actor, event)
        view = self.view(seat)
        if isinstance(event, CardsMucked) or (isinstance(event, Declaration) and event.word == "fold"):
            reading: Reading | None = Reading(action="fold", to=view.bet)
        elif isinstance(event, Tap):
            reading = Reading(action="check", to=view.bet) if view.to_call == 0 else None
        else:
            reading = self._read(event, seat)
        if reading is not None and reading.action != "none":
            self.provisional[seat] = _Provisional(reading=reading, cur_at=view.cur, ts=event.ts)
            info.owed = 0
        if self.profile.skipped_player == "house" and actor in self.skipped:
            self._house_skip(actor, event.ts)

    def _house_skip(self, actor: int, ts: float) -> None:
        """HOUSE-002-2.8.12 (EX-101): a skipped player silent through two actions loses his turn: a check if
        nobody bet, otherwise the floor decides."""
        acts = self.skipped[actor]
        if len(acts) < 2 or actor in self.skip_reported or self.to_act() != actor:
            return
        self.skip_reported.add(actor)
        view = self.view(actor)
        held = [self.provisional[s] for s in acts if s in self.provisional]
        if view.to_call > 0 or any(h.reading.to > view.cur for h in held):
            self._finding(Finding(rule_id="HOUSE-002-2.8.12", title="Skipped player silent through two actions",
                                  observed=f"seats {', '.join(map(str, sorted(acts)))} acted after seat {actor}",
                                  ruling=f"seat {actor} loses his turn; there is a bet to answer: the floor "
                                         "decides"), actor, ts)
            return
        self._finding(Finding(rule_id="HOUSE-002-2.8.12", title="Skipped player lost his turn",
                              severity=Severity.ADVISORY,
                              observed=f"seats {', '.join(map(str, sorted(acts)))} checked after seat {actor}, who "
                                       "said nothing",
                              ruling=f"seat {actor} loses his turn: everyone checked, so he is deemed to have "
                                     "checked"), actor, ts)
        self._apply(actor, Reading(action="check", to=view.bet, basis="HOUSE-002-2.8.12: turn lost"), ts)

    def _substantial_after_skip(self, seat: int, actor: int, event: Event) -> None:
        """ENG-17/ENG-18: the skipped seat stays silent while others act after him: two actions with chips,
        or three actions, make the out-of-turn actions binding and the floor rules on his hand (EX-76)."""
        acts = self.skipped.setdefault(actor, {})
        acts[seat] = acts.get(seat, False) or isinstance(event, BetMotion) or (
            isinstance(event, Declaration) and event.word in ("call", "bet", "raise", "all-in", "pot"))
        if self.profile.skipped_player == "house":
            return  # the house rule counts two silent actions instead (``_house_skip``)
        if actor in self.skip_reported or not (len(acts) >= 3 or (len(acts) >= 2 and any(acts.values()))):
            return
        self.skip_reported.add(actor)
        self._finding(Finding(
            rule_id="TDA-39", title="Skipped player silent through substantial action",
            observed=f"seats {', '.join(map(str, sorted(acts)))} acted after seat {actor}, who has not acted",
            ruling=f"the out-of-turn actions stand; call the floor to rule on seat {actor}'s hand (ENG-17)"),
            actor, event.ts)

    def _out_of_turn_finding(self, seat: int, actor: int, what: str, ts: float) -> None:
        self._finding(Finding(rule_id="TDA-39", title="Action out of turn",
                              observed=f"seat {seat} {what} while seat {actor} is to act",
                              ruling=f"action goes back to seat {actor}; seat {seat}'s action is binding unless the "
                                     "action changes before him (a bet or raise); a fold out of turn is final"),
                      seat, ts)

    # --- applying a ruling to pokerkit ----------------------------------------------------------------------

    def _apply(self, seat: int, reading: Reading, ts: float) -> None:
        self._findings(reading, seat, ts)
        if reading.action == "none":
            return
        state, index = self.state, self.index[seat]
        if reading.action == "fold":
            kind = "f"
        elif reading.to <= max(state.bets) or reading.to <= state.bets[index] or reading.action in ("check", "call"):
            kind = "cc"
        else:
            kind = "cbr"
        amount = self._book(index, kind, reading.to)
        self._record(seat, booked_kind(kind, amount), amount, ts, reading)
        self._after_action()

    def _book(self, index: int, kind: str, to: int | None) -> int | None:
        """One betting action (``f``, ``cc``, ``cbr`` to ``to``) into pokerkit and the TDA tracker; the amount
        when it was booked as a bet or raise (a raise pokerkit allows none of is booked as a call)."""
        self._ensure_tracker()
        assert self.tracker is not None
        cur = self.view(self.order[index]).cur
        if kind == "f":
            self.state.fold()
            return None
        amount = self._raise(index, to, cur) if kind == "cbr" and to is not None else None
        if amount is None:
            self._call(index, cur)
        else:
            self.tracker.record(index, cur_before=cur, to=amount)
        return amount

    def _call(self, index: int, cur: int) -> None:
        """A check or call in pokerkit, booked at the TDA amount. Facing a short big blind (all-in for less),
        pokerkit calls the chips posted; the TDA call is the full blind (EX-7, ENG-13, Appendix C). While the
        round is open the difference is moved from the caller's stack to his bet on pokerkit's own ledger, so
        the pots, side pots and uncalled-bet return that follow are pokerkit's, on the real chips."""
        state = self.state
        assert self.tracker is not None
        state.check_or_call()
        booked = state.bets[index]
        extra = min(cur, booked + state.stacks[index]) - booked
        if extra > 0 and state.street_index == 0 and state.actor_index is not None:
            self._to_bet(index, extra)
            self._note(f"seat {self.order[index]} called {booked + extra}: a short blind counts in full (EX-7); "
                       f"pokerkit, and a PHH replay by it, books {booked}")
        self.tracker.record(index, cur_before=cur, to=state.bets[index])

    def _to_bet(self, index: int, chips: int) -> None:
        """Move ``chips`` from a player's stack to his bet on pokerkit's own ledger: what the TDA's ruling puts
        in beyond what pokerkit booked, so its pots, side pots and uncalled-bet returns stay the real chips."""
        state = self.state
        state.stacks[index] -= chips
        state.bets[index] += chips
        state.payoffs[index] -= chips

    def _raise(self, index: int, to: int, cur: int) -> int | None:
        """A bet or raise to ``to``, the TDA's ruling (``cur``: the TDA's bet to match), in pokerkit; None, to be
        booked as a call, when pokerkit allows no raise at all. Where pokerkit's limits differ from the TDA's
        (catalogue Appendix C), pokerkit books the nearest raise it allows and the rest is moved on its own
        ledger, as a call over a short blind is (``_call``), so its stacks, bets and pots stay the real chips:
        - fixed limit: an all-in of at least half a bet reopens the betting (TDA-34B); pokerkit says closed;
        - preflop, a short big blind counts in full (EX-7, EX-20): pokerkit sizes raises from the chips posted.
        pokerkit's raise increment is then set to the TDA's, so the next minimum raise agrees (ENG-07)."""
        state = self.state
        to = min(to, state.bets[index] + state.stacks[index])
        increment, posted = state.completion_betting_or_raising_amount, max(state.bets)
        undo = self._reopen_fixed_limit(index, cur)
        low = state.min_completion_betting_or_raising_to_amount
        high = state.max_completion_betting_or_raising_to_amount
        if low is None or high is None:
            undo()
            self._note(f"pokerkit allows no raise to {to} for seat {self.order[index]}: recorded as a call")
            return None
        booked = min(max(to, low), high)
        state.complete_bet_or_raise_to(booked)
        if booked != to:
            self._to_bet(index, to - booked)
            why = "a short big blind counts in full (EX-7, EX-20)" if cur > posted else "catalogue Appendix C"
            self._note(f"seat {self.order[index]} raised to {to}: {why}; pokerkit allows {low}..{high} here and, "
                       f"in a PHH replay by it, books {booked}")
        state.completion_betting_or_raising_amount = max(increment, to - cur)
        return to

    def _reopen_fixed_limit(self, index: int, cur: int) -> Callable[[], None]:
        """TDA-34B: in fixed limit an all-in of at least half a bet reopens the betting for players who have
        acted; pokerkit reopens only on a full raise (its "already acted" and "short all-in cannot be raised"
        guards). Where the TDA tracker says reopened, both guards are lifted: the fixed-limit raise size does
        not depend on the increment lowered here (pokerkit takes the street's bet when it is larger). Returns
        what puts them back if no raise is booked after all."""
        state, tracker = self.state, self.tracker
        acted, increment = set(state.acted_player_indices), state.completion_betting_or_raising_amount

        def undo() -> None:
            state.acted_player_indices.clear()
            state.acted_player_indices.update(acted)
            state.completion_betting_or_raising_amount = increment

        if self.config.structure == "FL" and tracker is not None and tracker.reopened(index, cur):
            state.acted_player_indices.discard(index)
            state.completion_betting_or_raising_amount = min(increment, max(state.bets) - state.bets[index])
        return undo

    def _after_action(self) -> None:
        self._advance()
        guard = 0
        while (actor := self.to_act()) is not None and actor in self.provisional and guard < 20:
            guard += 1
            held = self.provisional.pop(actor)
            view = self.view(actor)
            if held.reading.action == "fold" or view.cur == held.cur_at:
                reading = held.reading if held.reading.action == "fold" else _rebase(held.reading, view)
                self._apply(actor, reading, held.ts)
                return
            self._finding(Finding(rule_id="TDA-39", title="Out-of-turn action released", severity=Severity.ADVISORY,
                                  observed=f"the bet changed from {held.cur_at} to {view.cur} before seat {actor}",
                                  ruling=f"seat {actor} may call, raise or fold; his earlier chips may come back"),
                          actor, held.ts)

    def _record(self, seat: int, kind: str, amount: int | None, ts: float, reading: Reading) -> None:
        self.skipped.pop(seat, None)
        street = STREETS[self.tracker.street_index] if self.tracker else "preflop"
        self.actions.append(ActionRecord(seat=seat, street=street, kind=kind, amount=amount, ts=ts,
                                         basis=reading.basis))
        if reading.owed and kind != "f":
            self.seats[seat].owed = reading.owed

    # --- dealing and the flow of the hand ---------------------------------------------------------------

    def _ensure_tracker(self) -> None:
        index = self.state.street_index
        if index is not None and (self.tracker is None or self.tracker.street_index != index):
            self.tracker = new_round(self.config, self.state, index, straddle=self.straddle,
                                     cumulative=self.profile.short_allin_reopens == "tda_cumulative")
            if self.rebuilding:
                return  # a replayed street: what was seen on the street being played stays
            self.provisional.clear()
            self.underpot = self.withdrawable = None  # corrections end with the betting round
            for info in self.seats.values():
                info.no_raise = info.no_fold = False
                info.pending = None
        elif self.tracker is None:
            self.tracker = new_round(self.config, self.state, 0, straddle=self.straddle,
                                     cumulative=self.profile.short_allin_reopens == "tda_cumulative")

    def _cap_reached(self) -> bool:
        if self.config.structure != "FL" or self.tracker is None or self.config.raise_cap is None:
            return False
        if self.profile.limit_raise_cap == "house" and sum(self.state.statuses) == 2:
            return False
        return self.tracker.raises >= self.config.raise_cap

    def _flush_pending(self) -> None:
        """Declarations whose chips never came are binding as said (HOUSE-004-1.7)."""
        for seat, info in self.seats.items():
            if info.pending is not None and self.to_act() == seat:
                decl, info.pending = info.pending, None
                view = self.view(seat)
                to = view.min_raise_to if view.can_raise else min(view.cur, view.bet + view.stack)
                self._apply(seat, Reading(action="raise" if to > view.cur else "call", to=to,
                                          basis=f'"{decl.word}" declared, no chips: a minimum'), decl.ts)

    # --- the showdown ---------------------------------------------------------------------------------------

    def river_aggressor(self) -> tuple[int, tuple[int, ...]] | None:
        """The last bettor or raiser of the river and the seats that called him, when anyone did."""
        river = [a for a in self.actions if a.street == "river"]
        last = max((i for i, a in enumerate(river) if a.kind == "cbr"), default=None)
        if last is None:
            return None
        callers = tuple(a.seat for a in river[last + 1:] if a.kind == "cc")
        return (river[last].seat, callers) if callers else None

    def _muck_held(self, seat: int) -> bool:
        """001 TDA-7 exception (club, C12): the called river aggressor's face-down muck waits for the caller's
        request: if the dealer turns the cards over, the hand is live again and the caller must beat it."""
        if self.profile.mucked_aggressor_rule != "club" or self.state.all_in_status:
            return False  # an all-in and call: both hands are opened anyway (TDA-9)
        aggressor = self.river_aggressor()
        return aggressor is not None and aggressor[0] == seat

    def _aggressor_mucked(self, seat: int, ts: float) -> None:
        aggressor = self.river_aggressor()
        assert aggressor is not None
        callers = ", ".join(map(str, aggressor[1]))
        self._finding(Finding(
            rule_id="TDA-7-exception", title="River aggressor mucked after being called", severity=Severity.ADVISORY,
            observed=f"seat {seat} bet the river, was called by seat(s) {callers}, and mucked face down",
            ruling=f"club rule: seat {seat} has no claim to the pot unless a caller asks to see his hand; then the "
                   f"dealer turns it over and the caller must show a better hand, or seat {seat} wins"), seat, ts)

    # --- findings -------------------------------------------------------------------------------------------

    def _findings(self, reading: Reading, seat: int, ts: float) -> None:
        for finding in reading.findings:
            self._finding(finding, seat, ts)

    def _finding(self, finding: Finding, seat: int, ts: float) -> None:
        self.violations.append(Violation(
            ts=ts, table=self.table, source="rules", seat=seat, rule_id=finding.rule_id, title=finding.title,
            observed=finding.observed, ruling=finding.ruling, severity=finding.severity, hand_no=self.hand_no,
            street=self._phase(), seats=(seat,), evidence_ts=(ts,)))

    def _note(self, text: str) -> None:
        if not self.rebuilding:  # a replay after a correction says nothing new
            self.notes.append(text)


def _no_raise(ctx: BetContext) -> BetContext:
    return replace(ctx, can_raise=False)


def _rebase(reading: Reading, view: BettingView) -> Reading:
    """An out-of-turn action that became binding: the same total, now in turn."""
    if reading.action == "check" and view.to_call > 0:
        return Reading(action="call", to=min(view.cur, view.bet + view.stack), basis="binding out-of-turn action")
    return reading


def _describe(event: Event) -> str:
    if isinstance(event, BetMotion):
        return f"put out {event.chips.value} in chips"
    if isinstance(event, Declaration):
        return f'said "{event.word}{" " + str(event.amount) if event.amount is not None else ""}"'
    if isinstance(event, Tap):
        return "tapped (check)"
    if isinstance(event, CardsMucked):
        return "mucked his cards"
    return event.kind
