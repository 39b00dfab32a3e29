"""One hand's state as the betting engine's parts share it: pokerkit's ``State``, the seats, the hand's record
and the bookkeeping of the betting round.

``HandEngine`` (``engine.py``) owns one ``HandState`` and hands it to its collaborators — the card flow
(``cards.py``), the booking of actions into pokerkit (``booking.py``) and the floor's corrections
(``corrections.py``) — which read and change it; none of them holds another copy of any of it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar, cast

from pokerkit import ChipsPushing, Poker, State

from tablewatch.events import Chips, HandStarted, Severity, Violation
from tablewatch.hands import ActionRecord, Burn, EventTime
from tablewatch.rules.betting import BettingView, Facing, RoundTracker, current_bet, new_round, view_for
from tablewatch.rules.chipreading import Declared, Finding, Reading
from tablewatch.rules.game import GameConfig
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import Phase

T = TypeVar("T")


@dataclass
class SeatState:
    """What the engine knows of one seat in this hand beyond pokerkit's ledger."""

    cards: list[str | None] = field(default_factory=list)
    tabled: tuple[str, ...] | None = None
    mucked: bool = False
    pending: Declared | None = None
    owed: int = 0  # chips owed for a verbal action already applied
    owed_word: str = ""  # the word that made them owed
    pulled: Chips = field(default_factory=Chips)
    no_raise: bool = False  # said "check" facing a bet (TDA-41)
    no_fold: bool = False  # pulled back chips facing a bet (TDA-33B)
    posted_seen: int = 0  # chips of its forced bets reported going forward before any action (RFID, no camera)


@dataclass
class Provisional:
    """An out-of-turn action held until the action comes to its seat (TDA-39, ENG-17)."""

    reading: Reading
    cur_at: int
    ts: float


@dataclass
class Underpot:
    """A PL pot bet paid short of the pot (TDA-38B): correctable until the next substantial action."""

    seat: int
    record: int  # index of the bet in ``actions``
    paid_to: int  # the seat's bet as its chips stand
    owed: int  # chips still to add to make the pot
    after: list[bool] = field(default_factory=list)  # actions in turn since: did each put chips in?

    def substantial(self) -> bool:
        """ENG-18: two actions in turn with chips in one of them, or three actions."""
        return len(self.after) >= 3 or (len(self.after) >= 2 and any(self.after))


class HandState:
    """One hand at one table: pokerkit's state of it and what the engine keeps beside it."""

    def __init__(self, config: GameConfig, start: HandStarted, profile: RuleProfile) -> None:
        _verify_start(start)
        config = hand_config(config, start)
        self.config, self.start, self.profile = config, start, profile
        self.table, self.hand_no = start.table, start.hand_no
        self.order = seat_order(start.seats, start.button)
        self.index = {seat: i for i, seat in enumerate(self.order)}
        self.dealt_in = tuple(sorted(self.order))  # the seats in the hand, ascending
        self.seat_indices = tuple((seat, self.index[seat]) for seat in self.dealt_in)  # and each one's index
        self.hole_cards = config.hole_cards  # (the config's are computed properties, asked at every event)
        by_seat = dict(zip(start.seats, start.stacks, strict=True)) if start.stacks else {}
        self.starting_stacks = tuple(by_seat.get(seat, 100 * config.big_blind) for seat in self.order)
        self.game, self.straddle = self._game()
        self.state = self.fresh_state()
        self.seats = {seat: SeatState() for seat in self.order}
        self.board: dict[int, str | None] = {}
        self._board_text: tuple[State | None, int, tuple[str | None, ...]] = (None, 0, ())  # ``board_text``
        self._asked: tuple[State | None, int, dict[Callable[[State], Any], Any]] = (None, 0, {})  # ``asked``
        self.board_fresh: set[int] = set()  # slots dealt while no betting round was open
        self.board_ts: dict[int, float] = {}  # when each slot's card was dealt
        self.burns: list[Burn] = []
        self.actions: list[ActionRecord] = []
        self.violations: list[Violation] = []
        self.pushes: list[tuple[int, int, float]] = []  # (seat, value, ts) pushed by the dealer
        self.event_times = [EventTime(kind="HandStarted", seat=None, ts=start.ts)]
        self.hole_flushed = False
        self.hole_taken: dict[int, int] = {}  # seat -> hole cards given to pokerkit so far
        self.discards: dict[int, tuple[str | None, ...]] = {}  # draw games: what each seat threw, for its draw
        # draw games: the cards each seat was seen to throw away in the hand, beside the cards it was seen dealt
        self.thrown: dict[int, int] = {}
        self._phases = cast(tuple[Phase, ...], config.streets)  # the street names are phases (``snapshot.Phase``)
        self.stuck = False  # pokerkit refused the showdown: the hand is recorded as the dealer pushes it
        self.shown_at_showdown: dict[int, bool] = {}  # seat -> whether its tabled hand was read
        self.last_chips: dict[int, tuple[float, ActionRecord]] = {}  # seat -> its last chips' time and ruling
        self.skipped: dict[int, dict[int, bool]] = {}  # skipped seat -> seats acting after it (chips in?)
        self.skip_reported: set[int] = set()
        self.tracker: RoundTracker | None = None
        self.provisional: dict[int, Provisional] = {}
        self.notes: list[str] = []
        self.doubt = ""  # why its findings are doubted now (a camera's picture past relying on: ``doubted``)
        self.estimated = ""  # why its betting is a guess from some point on (chips a camera alone saw: ``estimate``)
        if not start.stacks:  # no reader counted them: pokerkit needs a number; the history says it is a stand-in
            self.notes.append(f"starting stacks unknown: played as {100 * config.big_blind} each (100 big blinds)")
        self.ended_ts: float | None = None
        self.rebuilding = False  # replaying the hand after a floor correction (``corrections.py``)
        self.underpot: Underpot | None = None
        self.withdrawable: tuple[int, int] | None = None  # (seat, index in ``actions``) of a call that may go back

    # --- set-up --------------------------------------------------------------------------------------------

    def _game(self) -> tuple[Poker, int]:
        """pokerkit's game of the hand (ENG-02: blinds, antes, big-blind or button ante, straddle) and the straddle."""
        cfg, start, n = self.config, self.start, len(self.order)
        if cfg.stud:
            blinds = {}
        elif start.blinds:
            blinds = {self.index[seat]: amount for seat, amount in start.blinds if seat in self.index}
        else:
            blinds = {0: cfg.small_blind, 1: cfg.big_blind}
            if cfg.straddle and n >= 3:
                blinds[2] = cfg.straddle
        antes = {i: cfg.ante for i in range(n)} if cfg.ante else {}
        if cfg.big_blind_ante:
            antes = {1: self._big_blind_ante(abs(blinds.get(1, cfg.big_blind)))}
        if cfg.button_ante:  # heads-up pokerkit posts index 0's ante at the button (index 1)
            antes = {0 if n == 2 else n - 1: cfg.button_ante}
        straddle = blinds.get(2, 0) if n >= 3 and blinds.get(2, 0) > cfg.big_blind else 0
        # the house cap (C8) lifts when the hand is down to two players: the engine owns it (``cap_reached``)
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

    def fresh_state(self) -> State:
        """pokerkit's state of the hand before any card or action."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.game(self.starting_stacks, len(self.order))

    # --- what the hand stands at -----------------------------------------------------------------------------

    def to_act(self) -> int | None:
        index = self.state.actor_index
        return None if index is None else self.order[index]

    def phase(self) -> Phase:
        state = self.state
        if not state.status:
            return "complete"
        if not self.hole_flushed:
            return "dealing"
        if self.asked(showdown_index) is not None or state.street_index is None:
            return "showdown"
        return self._phases[state.street_index]

    def view(self, seat: int) -> BettingView:
        """What ``seat`` faces on the current street (TDA amounts)."""
        tracker = self.ensure_tracker()
        return view_for(self.config, self.state, tracker, self.index[seat], seat=seat, cap_reached=self.cap_reached())

    def facing(self, seat: int) -> Facing:
        """``view``'s chips alone: the bet to match, the seat's bet and its stack."""
        tracker, index = self.ensure_tracker(), self.index[seat]
        return Facing(current_bet(self.state, tracker), self.state.bets[index], self.state.stacks[index])

    def ensure_tracker(self) -> RoundTracker:
        """The TDA bookkeeping of the betting round being played; a new street starts a new one."""
        index = self.state.street_index
        if index is not None and (self.tracker is None or self.tracker.street_index != index):
            self.tracker = self._new_round(index)
            if not self.rebuilding:  # a replayed street: what was seen on the street being played stays
                self._forget_round()
        elif self.tracker is None:
            self.tracker = self._new_round(0)
        return self.tracker

    def _new_round(self, street_index: int) -> RoundTracker:
        return new_round(self.config, self.state, street_index, straddle=self.straddle,
                         cumulative=self.profile.short_allin_reopens == "tda_cumulative")

    def _forget_round(self) -> None:
        """What lasts only for one betting round: held actions, corrections, words and gestures."""
        self.provisional.clear()
        self.underpot = self.withdrawable = None
        for info in self.seats.values():
            info.no_raise = info.no_fold = False
            info.pending = None

    def asked(self, query: Callable[[State], T]) -> T:
        """``query``'s answer from pokerkit's state (whose hole card is due, who shows, whether a card is to be burned
        or dealt: ``hole_dealee`` …), asked of pokerkit again only once it has taken an operation since: these
        follow from its operations alone, the engine asks them at nearly every event, and pokerkit works each out
        anew (often through an exception) at a good part of an operation's cost."""
        state, done = self.state, len(self.state.operations)
        kept_state, kept_done, answers = self._asked
        if kept_state is not state or kept_done != done:
            answers = {}
            self._asked = (state, done, answers)
        if query not in answers:
            answers[query] = query(state)
        return cast(T, answers[query])

    def board_text(self) -> tuple[str | None, ...]:
        """pokerkit's board as text (None: a card dealt unseen), its first run's cards. Kept until pokerkit deals
        another card or the state is replaced (a correction): a dealt card's place never changes."""
        state, dealt = self.state, len(self.state.board_cards)
        kept_state, kept_dealt, text = self._board_text
        if kept_state is not state or kept_dealt != dealt:
            text = tuple(None if cards[0].unknown_status else repr(cards[0]) for cards in state.board_cards if cards)
            self._board_text = (state, dealt, text)
        return text

    def cap_reached(self) -> bool:
        """ENG-09: the fixed-limit raise cap (C8: the house lifts it heads-up)."""
        if self.config.structure != "FL" or self.tracker is None or self.config.raise_cap is None:
            return False
        if self.profile.limit_raise_cap == "house" and sum(self.state.statuses) == 2:
            return False
        return self.tracker.raises >= self.config.raise_cap

    def street(self) -> str:
        """The street of the betting round last tracked."""
        return self._phases[self.tracker.street_index if self.tracker else 0]  # (the config's streets, kept)

    def river_aggressor(self) -> tuple[int, tuple[int, ...]] | None:
        """The last bettor or raiser of the river and the seats that called him, when anyone did."""
        river = [a for a in self.actions if a.street == self.config.streets[-1]]
        last = max((i for i, a in enumerate(river) if a.kind == "cbr"), default=None)
        if last is None:
            return None
        callers = tuple(a.seat for a in river[last + 1:] if a.kind == "cc")
        return (river[last].seat, callers) if callers else None

    @property
    def unread_showdown(self) -> bool:
        """Hands were tabled against each other and one was not read, or the board has a card not read (a card
        already out read again goes to pokerkit unknown): pokerkit judged the hands on the cards it knows (an unread
        hand as no hand, or a muck, as it takes no unknown card at the last showdown), so its awards are no judgment
        and the pot stands as the dealer pushes it."""
        if len(self.shown_at_showdown) < 2:
            return False
        return not all(self.shown_at_showdown.values()) or None in self.board_text()

    def expected_awards(self) -> dict[int, int]:
        """The chips pokerkit pushed to each seat; none when a hand tabled unread stood in as a muck."""
        return {} if self.unread_showdown else self.pokerkit_awards()

    def pokerkit_awards(self) -> dict[int, int]:
        """The chips pokerkit pushed to each seat (a new dict: the operations are walked once per operation)."""
        return dict(self.asked(self._awards))

    def _awards(self, state: State) -> dict[int, int]:
        awards: dict[int, int] = {}
        for op in state.operations:
            if isinstance(op, ChipsPushing):
                for i, amount in enumerate(op.amounts):
                    if amount:
                        awards[self.order[i]] = awards.get(self.order[i], 0) + amount
        return awards

    # --- the record ------------------------------------------------------------------------------------------

    def record(self, seat: int, kind: str, amount: int | None, ts: float, reading: Reading) -> None:
        """A betting action as ruled, into the hand's record."""
        self.skipped.pop(seat, None)
        self.actions.append(ActionRecord(seat=seat, street=self.street(), kind=kind, amount=amount, ts=ts,
                                         basis=reading.basis))
        if reading.owed and kind != "f":
            self.seats[seat].owed = reading.owed

    def rule(self, finding: Finding, seat: int, ts: float) -> None:
        """A finding about ``seat``, as a violation of this hand (the engine's findings all rest on its betting)."""
        self.violations.append(doubted(Violation(
            ts=ts, table=self.table, source="rules", seat=seat, rule_id=finding.rule_id, title=finding.title,
            observed=finding.observed, ruling=finding.ruling, severity=finding.severity, hand_no=self.hand_no,
            street=self.phase(), seats=(seat,), evidence_ts=(ts,)), self.doubts(on_betting=True)))

    def doubts(self, *, on_betting: bool) -> str:
        """Why a finding made now is doubted: a camera's picture past relying on, and for a finding that rests on
        the betting (whose turn, the round over, the pot), the betting being a guess; empty when neither holds."""
        return "; ".join(why for why in (self.doubt, self.estimated if on_betting else "") if why)

    def estimate(self, why: str) -> None:
        """The betting is a guess from now on (the first guess says why): its findings are advisories."""
        if not self.estimated:
            self.estimated = why
            self.note(f"{why}: the betting from then on is an estimate and its findings are advisories")

    def rule_all(self, reading: Reading, seat: int, ts: float) -> None:
        for finding in reading.findings:
            self.rule(finding, seat, ts)

    def note(self, text: str) -> None:
        if not self.rebuilding:  # a replay after a correction says nothing new
            self.notes.append(text)





def seat_order(seats: tuple[int, ...], button: int) -> tuple[int, ...]:
    """pokerkit index -> seat, clockwise from the button's left; the button (or, with a dead button on an empty
    seat, the seat before it) is last."""
    ordered = sorted(seats)
    return tuple([s for s in ordered if s > button] + [s for s in ordered if s <= button])


def hand_config(config: GameConfig, start: HandStarted) -> GameConfig:
    """The game with the stakes of the level the hand plays, where its start names one."""
    stakes = {name: getattr(start, name) for name in ("small_blind", "big_blind", "ante", "big_blind_ante")}
    given = {name: value for name, value in stakes.items() if value is not None}
    return GameConfig.model_validate(config.model_dump() | given) if given else config


def _verify_start(start: HandStarted) -> None:
    if len(start.seats) < 2:
        raise ValueError(f"Hand {start.hand_no}: a hand needs at least 2 seats, got {start.seats}.")
    if not 1 <= start.button <= 10:
        raise ValueError(f"Hand {start.hand_no}: the button seat {start.button} is not a seat (1-10).")
    if start.stacks and len(start.stacks) != len(start.seats):
        raise ValueError(f"Hand {start.hand_no}: {len(start.stacks)} stacks for {len(start.seats)} seats.")


# pokerkit's derived answers the engine asks through ``HandState.asked``
def hole_dealee(state: State) -> int | None:
    return state.hole_dealee_index


def showdown_index(state: State) -> int | None:
    return state.showdown_index


def can_burn(state: State) -> bool:
    return state.can_burn_card()


def can_deal_board(state: State) -> bool:
    return state.can_deal_board()


def total_pot(state: State) -> int:
    return state.total_pot_amount


def doubted(violation: Violation, why: str) -> Violation:
    """A VIOLATION found while ``why`` holds (a camera's picture past relying on: ``rules.table``; the betting a
    guess: ``HandState.estimate``) as an ADVISORY that says why, at half its confidence; any other finding, or
    none to doubt, as it is."""
    if not why or violation.severity is not Severity.VIOLATION:
        return violation
    return replace(violation, severity=Severity.ADVISORY, confidence=violation.confidence / 2,
                   observed=f"{violation.observed} (Doubted: {why}; may be the camera's error.)")
