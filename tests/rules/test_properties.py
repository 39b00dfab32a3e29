"""Property tests (hypothesis): random games and bets against pokerkit's legal actions and the TDA rules."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tablewatch.events import Chips
from tablewatch.rules.betting import BettingView
from tablewatch.rules.chipreading import PhysicalBet, read_bet
from tablewatch.rules.engine import HandEngine
from tablewatch.rules.game import GameConfig, Variant
from tests.rules.engine_helpers import Hand

DENOMS = (1, 5, 25, 100, 500, 1000, 5000)


@st.composite
def games(draw: st.DrawFn, *, variants: tuple[Variant, ...] = (Variant.NLHE, Variant.PLHE, Variant.PLO, Variant.FLHE),
          short_blind: bool = False) -> tuple[GameConfig, dict[int, int]]:
    n = draw(st.integers(2, 6))
    bb = draw(st.sampled_from([2, 10, 100]))
    variant = draw(st.sampled_from(variants))
    stacks = draw(st.lists(st.integers(bb + 1, 150 * bb), min_size=n, max_size=n))
    if short_blind and n >= 3 and draw(st.booleans()):
        stacks[1] = draw(st.integers(1, bb - 1))  # seat 2, the big blind, all-in for less as he posts (EX-7)
    limit = {"small_bet": bb, "big_bet": 2 * bb} if variant == Variant.FLHE else {}
    config = GameConfig(variant=variant, small_blind=bb // 2, big_blind=bb, chip_denominations=DENOMS, **limit)
    return config, dict(zip(range(1, n + 1), stacks, strict=True))


class Oracle:
    """One hand played through the engine, checked at every turn against pokerkit's legal actions and, where
    pokerkit differs from the seeds (catalogue Appendix C), against the seeds' rule, named by its id. It keeps
    its own count of the street's bets and raises and of the level each seat last acted at, so the raise cap
    (ENG-09) and the fixed-limit 50 % reopening (TDA-34B) are checked from the actions, not from the engine."""

    def __init__(self, game: tuple[GameConfig, dict[int, int]]) -> None:
        self.config = game[0]
        self.hand = Hand(*game)
        self.street: int | None = None
        self.raises = 0  # bets and raises this street; preflop the big blind is the bet (EX-100)
        self.acted: dict[int, int] = {}  # seat -> its bet when it last acted this street
        state = self.engine.hand.state  # pokerkit index 1 is the big blind (seat 2) with three or more seats
        short = len(state.bets) > 2 and state.stacks[1] == 0 and state.bets[1] < self.config.big_blind
        self.blind_gap = self.config.big_blind - state.bets[1] if short else 0  # counted, not posted (EX-20)

    @property
    def engine(self) -> HandEngine:
        return self.hand.engine

    def next_street(self) -> None:
        dealt = len(self.engine.hand.state.board_cards)
        self.hand.board(*([None] * (3 if dealt == 0 else 1)))

    def check_turn(self, seat: int) -> tuple[BettingView, range]:
        """The checks before ``seat`` acts; returns its view and the raise totals the seeds allow and pokerkit
        does not (catalogue Appendix C), each case named by its rule."""
        state, view = self.engine.hand.state, self.hand.view(seat)
        if state.street_index != self.street:
            self.street, self.raises, self.acted = state.street_index, int(state.street_index == 0), {}
        if view.cur != max(state.bets):  # EX-7: a short big blind counts in full; pokerkit: the chips posted
            return view, self._short_blind(view)
        pk_min = state.min_completion_betting_or_raising_to_amount
        pk_max = state.max_completion_betting_or_raising_to_amount
        if view.structure == "FL":
            return view, self._fixed_limit(seat, view, pk_min, pk_max)
        if not view.can_raise:
            return view, range(0)
        assert pk_min is not None and pk_max is not None
        # EX-20: pot limit preflop, a short big blind counts in full in the pot all round; pokerkit: as posted
        gap = self.blind_gap if view.structure == "PL" and self.street == 0 else 0
        seeds_max = min(pk_max + gap, view.bet + view.stack)
        assert pk_min <= view.min_raise_to <= view.max_raise_to <= seeds_max
        if view.structure == "PL":
            assert view.max_raise_to == seeds_max  # the pot-limit maximum (ENG-08)
        if view.structure == "NL":
            assert view.max_raise_to == pk_max == view.bet + view.stack
        return view, range(pk_max + 1, seeds_max + 1)

    def _fixed_limit(self, seat: int, view: BettingView, pk_min: int | None, pk_max: int | None) -> range:
        """Fixed limit: the one raise size and whether a raise is open agree with pokerkit exactly, except
        where the seeds reopen the betting and pokerkit does not (TDA-34B)."""
        bet = self.config.bet_size(self.street or 0)
        full = min(view.cur + bet, view.bet + view.stack)
        if self.raises >= (self.config.raise_cap or self.raises + 1):
            assert not view.can_raise and pk_min is None, "ENG-09: the raise cap is reached"
        level = self.acted.get(seat)
        if pk_min is not None and view.can_raise:
            assert (view.min_raise_to, view.max_raise_to) == (pk_min, pk_max) == (full, full)
        elif pk_min is not None:
            # pokerkit takes a short all-in as reopening the betting where the seeds reopen it only at half a bet
            # (TDA-34B): preflop the first all-in over the big blind (EX-66, Appendix C), postflop a short
            # all-in opening bet faced by a seat that checked
            assert level is not None and 2 * (view.cur - level) < bet, (seat, view, level)
        elif view.can_raise:
            # TDA-34B (Appendix C): an all-in of at least half a bet reopens the betting for a seat that has
            # acted; pokerkit reopens only on a full raise
            assert level is not None and 2 * (view.cur - level) >= bet, (seat, view, level)
            assert view.min_raise_to == view.max_raise_to == full
            return range(full, full + 1)
        return range(0)

    def _short_blind(self, view: BettingView) -> range:
        """The first action over a short big blind all-in: the full blind to call and to raise from (EX-7),
        in pot limit counted in full in the pot (EX-20). pokerkit counts the chips posted."""
        state, bb, index = self.engine.hand.state, self.config.big_blind, self.engine.hand.index[view.seat]
        all_in = view.bet + view.stack
        covered = any(state.statuses[i] and state.bets[i] + state.stacks[i] > bb for i in range(len(state.bets))
                      if i != index)  # someone left to raise against
        assert view.cur == bb and self.street == 0 and view.can_raise == (all_in > bb and covered)
        if view.structure == "FL":
            assert view.min_raise_to == view.max_raise_to == min(bb + self.config.bet_size(0), all_in)
        else:
            assert view.min_raise_to == min(2 * bb, all_in)  # the full blind + a full raise (ENG-07)
        if view.structure == "PL":
            pot = state.total_pot_amount + self.blind_gap
            assert view.max_raise_to == min(bb + pot + view.to_call, all_in)
        return range(view.min_raise_to, view.max_raise_to + 1)

    def act(self, seat: int, action: str, motions: int) -> None:
        """``seat`` acts; the engine must book exactly that action, on pokerkit's ledger too."""
        engine, index = self.engine, self.engine.hand.index[seat]
        view = self.hand.view(seat)
        before = len(engine.hand.actions)
        found = self.hand.act(seat, action, motions=motions)
        assert not found, found
        record = engine.hand.actions[before]
        kind = action.split()[0]
        assert record.seat == seat and record.kind == kind, (record, action)
        if kind == "f":
            return
        to = int(action.split()[1]) if kind == "cbr" else min(view.cur, view.bet + view.stack)
        assert record.amount == (to if kind == "cbr" else None)
        state = engine.hand.state
        if state.street_index == self.street and any(state.bets):  # the round is open: the ledger
            assert state.bets[index] == to, (state.bets, to)
        self.acted[seat] = to
        self.raises += kind == "cbr"


def _play(oracle: Oracle, data: st.DataObject) -> None:
    engine = oracle.engine
    for _ in range(60):
        if engine.complete:
            break
        seat = engine.to_act()
        if seat is None:
            oracle.next_street()
            continue
        view, seeds_only = oracle.check_turn(seat)
        state = engine.hand.state
        counts = data.draw(st.dictionaries(st.sampled_from(DENOMS), st.integers(1, 4), min_size=1, max_size=3))
        chips = Chips.of(counts)
        if chips.value <= view.stack:
            reading = read_bet(view.context(), PhysicalBet(chips=chips, chips_ts=1.0))
            if reading.to > view.cur:  # silent chips read to a raise pokerkit accepts, or to one the seeds do
                assert state.can_complete_bet_or_raise_to(reading.to) or reading.to in seeds_only, (reading, view)
            else:
                assert reading.action in ("call", "check", "all-in") and state.can_check_or_call()
        choices = (["f"] if view.to_call else []) + ["cc"] + (["cbr"] if view.can_raise else [])
        kind = data.draw(st.sampled_from(choices))
        action = kind
        if kind == "cbr":
            action = f"cbr {data.draw(st.integers(view.min_raise_to, view.max_raise_to))}"
        oracle.act(seat, action, data.draw(st.sampled_from([1, 1, 2])))


# Each example plays a whole hand (tens of ms; a few seconds for a property). Shrinking a failing hand, with
# its draws chained turn by turn, can run past five minutes and the 300 s pytest timeout, which then hides
# the failure: a failing hand is reported as found, its draws listed turn by turn.
HANDS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                 phases=(Phase.explicit, Phase.reuse, Phase.generate))


@HANDS
@given(game=games(), data=st.data())
def test_limits_agree_with_pokerkit_and_physical_bets_read_back(game: tuple[GameConfig, dict[int, int]],
                                                                data: st.DataObject) -> None:
    """At every turn: the TDA min/max bracket pokerkit's (never looser); the chosen action, acted out as
    chips by physical.py, is read back by the engine as exactly that action and booked on pokerkit's ledger at
    that amount; any silent chips read to an action pokerkit accepts."""
    _play(Oracle(game), data)


@HANDS
@given(game=games(variants=(Variant.FLHE,), short_blind=True), data=st.data())
def test_fixed_limit_agrees_with_pokerkit_short_blinds_and_all_ins(game: tuple[GameConfig, dict[int, int]],
                                                                  data: st.DataObject) -> None:
    """Fixed limit, short big blinds and short all-ins: the raise, its cap and who may raise as pokerkit has
    them, or as the seeds have them where pokerkit differs (TDA-34B, EX-7)."""
    _play(Oracle(game), data)


@settings(HANDS, max_examples=25)
@given(game=games(variants=(Variant.NLHE, Variant.PLHE), short_blind=True), data=st.data())
def test_a_short_big_blind_counts_in_full_in_raises(game: tuple[GameConfig, dict[int, int]],
                                                    data: st.DataObject) -> None:
    """NL and PL over a short big blind: raised from the full blind, up to the pot with the blind counted in
    full (EX-7, EX-20), and booked at that amount on pokerkit's ledger."""
    _play(Oracle(game), data)


# hypothesis's first failing example (found in a local run, kept here for CI, which has no example database):
# fixed limit, flop: seat 4 bets, seat 1 raises, seat 4 is all-in 60 over it. 60 is at least half a bet, so
# the betting is reopened for seat 1 (TDA-34B); pokerkit says closed, and the engine booked seat 1's raise
# to 360 as a call, and recorded it as "cbr" with no amount.
FL_REOPEN = (
    (GameConfig(variant=Variant.FLHE, small_blind=50, big_blind=100, small_bet=100, big_bet=200,
                chip_denominations=DENOMS), {1: 569, 2: 312, 3: 6883, 4: 460, 5: 5000}),
    ["cbr 200", "cc", "cc", "cc", "cc", "cc", "cc", "cc", "cbr 100", "f", "cbr 200", "f", "cc", "cbr 260",
     "cbr 360"],
)


def test_fixed_limit_half_bet_all_in_reopens_for_a_seat_that_acted() -> None:
    oracle = Oracle(FL_REOPEN[0])
    actions = iter(FL_REOPEN[1])
    while (action := next(actions, None)) is not None:
        while (seat := oracle.engine.to_act()) is None:
            oracle.next_street()
        view, seeds_only = oracle.check_turn(seat)
        if action == "cbr 360":
            assert (seat, view.can_raise, view.min_raise_to, seeds_only) == (1, True, 360, range(360, 361))
        oracle.act(seat, action, 1)
    assert oracle.engine.hand.state.bets == [360, 0, 200, 260, 0] and not oracle.engine.hand.notes


# found by hypothesis in CI: fixed limit, flop: seat 1 checks, seat 3 bets all-in 14 (under half of the 100
# bet), seat 4 calls. Seat 1 has acted and the all-in is short, so seat 1 may only call or fold (TDA-34B);
# pokerkit lets seat 1 raise.
FL_SHORT_OPENING_ALL_IN = (
    (GameConfig(variant=Variant.FLHE, small_blind=50, big_blind=100, small_bet=100, big_bet=200, raise_cap=4,
                chip_denominations=DENOMS), {1: 191, 2: 89, 3: 114, 4: 4295}),
    ["cc", "cc", "cc", "cc", "cbr 14", "cc", "cc"],
)


def test_fixed_limit_short_all_in_opening_bet_does_not_reopen_for_a_seat_that_checked() -> None:
    oracle = Oracle(FL_SHORT_OPENING_ALL_IN[0])
    for turn, action in enumerate(FL_SHORT_OPENING_ALL_IN[1]):
        while (seat := oracle.engine.to_act()) is None:
            oracle.next_street()
        view, seeds_only = oracle.check_turn(seat)
        if turn == 6:
            assert (seat, view.street, view.cur, view.can_raise, seeds_only) == (1, "flop", 14, False, range(0))
            assert oracle.engine.hand.state.min_completion_betting_or_raising_to_amount == 91  # pokerkit differs
        oracle.act(seat, action, 1)
    assert oracle.engine.hand.state.bets == [0, 0, 0, 0]  # seat 1's call closed the flop


@settings(max_examples=200, deadline=None)
@given(cur=st.integers(1, 5000), inc=st.integers(1, 5000), bet=st.integers(0, 5000),
       counts=st.dictionaries(st.sampled_from(DENOMS), st.integers(1, 5), min_size=1, max_size=4),
       behind=st.integers(0, 50_000))
def test_silent_chips_follow_the_tda_rules(cur: int, inc: int, bet: int, counts: dict[int, int], behind: int) -> None:
    """TDA-31/32/30A/37 as properties of any silent bet facing a bet."""
    from tablewatch.rules.chipreading import BetContext

    bet = min(bet, cur - 1)
    chips = Chips.of(counts)
    stack = chips.value + behind
    ctx = BetContext(cur=cur, bet=bet, stack=stack, inc=inc, min_raise_to=min(cur + inc, bet + stack),
                     max_raise_to=bet + stack)
    reading = read_bet(ctx, PhysicalBet(chips=chips, chips_ts=1.0))
    total = bet + chips.value
    if chips.count == 1 or total - chips.smallest < cur:  # type: ignore[operator]
        assert reading.action in ("call", "check")  # one chip, or every chip needed: a call
        assert reading.to == min(cur, bet + stack) or (behind == 0 and reading.to == total)
    elif behind == 0:
        assert reading.action == "all-in" and reading.to == total
    elif total - cur >= inc:
        assert (reading.action, reading.to) == ("raise", total)
    elif 2 * (total - cur) >= inc:
        to = min(cur + inc, bet + stack)  # completed to the minimum (all-in when that is every chip)
        assert reading.action in ("raise", "all-in") and reading.to == to and reading.owed == to - total
    else:
        assert reading.action == "call" and reading.change == total - cur
    assert reading.to - reading.owed + reading.change == total or reading.action in ("all-in",) or behind == 0


EVENT_KINDS = ("tap", "chips", "say", "muck", "board", "table", "pull", "push")
WORDS = ("fold", "check", "call", "bet", "raise", "all-in", "pot", "time")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games(), data=st.data())
def test_irregular_event_streams_never_stop_the_engine(game: tuple[GameConfig, dict[int, int]],
                                                        data: st.DataObject) -> None:
    """Out-of-turn acts, odd words, premature cards, pushes at any time: findings, never an exception."""
    from tablewatch.events import BoardCardDealt, CardsMucked, CardsTabled, ChipsPulledBack, PotPushed

    hand = Hand(*game)
    seats = sorted(game[1])
    slot = 0
    for _ in range(data.draw(st.integers(5, 40))):
        kind = data.draw(st.sampled_from(EVENT_KINDS))
        seat = data.draw(st.sampled_from(seats))
        if kind == "tap":
            hand.tap(seat)
        elif kind == "chips":
            counts = data.draw(st.dictionaries(st.sampled_from(DENOMS), st.integers(1, 3), min_size=1, max_size=2))
            hand.chips(seat, counts, motions=data.draw(st.integers(1, 3)))
        elif kind == "say":
            hand.say(seat, data.draw(st.sampled_from(WORDS)), data.draw(st.none() | st.integers(1, 20_000)))
        elif kind == "muck":
            hand.feed(CardsMucked, seat=seat)
        elif kind == "board" and slot < 5:
            hand.feed(BoardCardDealt, card=None, slot=slot)
            slot += 1
        elif kind == "table":
            hand.feed(CardsTabled, seat=seat, cards=())
        elif kind == "pull":
            hand.feed(ChipsPulledBack, seat=seat, chips=Chips.of({1: 1}))
        elif kind == "push":
            hand.feed(PotPushed, seat=seat, value=data.draw(st.integers(0, 1000)))
        hand.engine.snapshot()
    done = hand.end()
    in_play = done.state.total_pot_amount if done.state.status else 0  # a hand the table left unfinished
    assert sum(done.final_stacks.values()) + done.unawarded + in_play == sum(game[1].values())  # no chip made
