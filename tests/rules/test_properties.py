"""Property tests (hypothesis): random games and bets against pokerkit's legal actions and the TDA rules."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablewatch.events import Chips
from tablewatch.rules.chipreading import PhysicalBet, read_bet
from tablewatch.rules.game import GameConfig, Variant
from tests.rules.engine_helpers import Hand

DENOMS = (1, 5, 25, 100, 500, 1000, 5000)


@st.composite
def games(draw: st.DrawFn) -> tuple[GameConfig, dict[int, int]]:
    n = draw(st.integers(2, 6))
    bb = draw(st.sampled_from([2, 10, 100]))
    variant = draw(st.sampled_from([Variant.NLHE, Variant.PLHE, Variant.PLO, Variant.FLHE]))
    # blinds are never short here: a short big blind is where the TDA and pokerkit's ledger part (EX-7, EX-20)
    stacks = draw(st.lists(st.integers(bb + 1, 150 * bb), min_size=n, max_size=n))
    limit = {"small_bet": bb, "big_bet": 2 * bb} if variant == Variant.FLHE else {}
    config = GameConfig(variant=variant, small_blind=bb // 2, big_blind=bb, chip_denominations=DENOMS, **limit)
    return config, dict(zip(range(1, n + 1), stacks, strict=True))


def _next_street(hand: Hand) -> None:
    dealt = len(hand.engine.state.board_cards)
    hand.board(*([None] * (3 if dealt == 0 else 1)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games(), data=st.data())
def test_limits_agree_with_pokerkit_and_physical_bets_read_back(game: tuple[GameConfig, dict[int, int]],
                                                                data: st.DataObject) -> None:
    """At every turn: the TDA min/max bracket pokerkit's (never looser); the chosen action, acted out as
    chips by physical.py, is read back by the engine as exactly that action; any silent chips read to an
    action pokerkit accepts."""
    hand = Hand(*game)
    engine = hand.engine
    for _ in range(60):
        if engine.complete:
            break
        seat = engine.to_act()
        if seat is None:
            _next_street(hand)
            continue
        state, view = engine.state, hand.view(seat)
        pk_min = state.min_completion_betting_or_raising_to_amount
        pk_max = state.max_completion_betting_or_raising_to_amount
        short_blind = view.cur != max(state.bets)  # a short big blind counts in full (EX-7/20, Appendix C)
        if view.can_raise and not short_blind:
            assert pk_min is not None and pk_max is not None
            assert pk_min <= view.min_raise_to <= view.max_raise_to <= pk_max
            if view.structure == "PL":
                assert view.max_raise_to == pk_max  # the pot-limit maximum (ENG-08)
            if view.structure == "NL":
                assert view.max_raise_to == pk_max == view.bet + view.stack
        counts = data.draw(st.dictionaries(st.sampled_from(DENOMS), st.integers(1, 4), min_size=1, max_size=3))
        chips = Chips.of(counts)
        if chips.value <= view.stack and not short_blind:
            reading = read_bet(view.context(), PhysicalBet(chips=chips, chips_ts=1.0))
            if reading.to > max(state.bets):
                assert state.can_complete_bet_or_raise_to(reading.to), (reading, pk_min, pk_max)
            else:
                assert reading.action in ("call", "check") and state.can_check_or_call()
        can_raise = view.can_raise and (not short_blind or state.can_complete_bet_or_raise_to(view.min_raise_to))
        choices = (["f"] if view.to_call else []) + ["cc"] + (["cbr"] if can_raise else [])
        kind = data.draw(st.sampled_from(choices))
        action = kind
        if kind == "cbr":
            top = min(view.max_raise_to, pk_max or view.max_raise_to)
            action = f"cbr {data.draw(st.integers(view.min_raise_to, max(view.min_raise_to, top)))}"
        before = len(engine.actions)
        found = hand.act(seat, action, motions=data.draw(st.sampled_from([1, 1, 2])))
        assert not found, found
        record = engine.actions[before]
        assert record.seat == seat and record.kind == kind
        if kind == "cbr":
            assert record.amount == int(action.split()[1])


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
