"""The betting engine on pokerkit: the worked examples of catalogue §3 that concern betting, one test each."""

from __future__ import annotations

from tablewatch.events import CardsTabled, Severity
from tablewatch.rules.game import GameConfig, Variant
from tablewatch.rules.profiles import RuleProfile
from tests.rules.engine_helpers import Hand

NL_10_20 = GameConfig(small_blind=10, big_blind=20)
NL_100_200 = GameConfig(small_blind=100, big_blind=200)


def limped_flop(config: GameConfig, n: int, stack: int = 100_000) -> Hand:
    """``n`` players who all just call the big blind preflop, on the flop."""
    hand = Hand(config, dict.fromkeys(range(1, n + 1), stack))
    for seat in list(hand.engine.hand.order[2:]) + list(hand.engine.hand.order[:2]):
        hand.act(seat, "cc")
    hand.board("2c", "7d", "9h")
    return hand


def test_ex_1_pot_limit_maximum_bet_and_raise() -> None:
    hand = Hand(GameConfig(variant=Variant.PLHE, small_blind=25, big_blind=50), {1: 10_000, 2: 10_000})
    hand.act(2, "cc")  # heads-up: the button (seat 2) is the small blind and acts first preflop
    hand.act(1, "cc")
    hand.board("2c", "7d", "9h")
    assert hand.engine.to_act() == 1 and hand.view(1).max_raise_to == 100
    hand.act(1, "cbr 100")
    assert hand.view(2).max_raise_to == 400


def test_ex_2_minimum_raise_after_an_opening_bet_small() -> None:
    hand = limped_flop(NL_10_20, 3)
    first = hand.engine.to_act()
    hand.act(first, "cbr 50")
    assert hand.view(hand.engine.to_act()).min_raise_to == 100


def test_ex_3_minimum_raise_after_an_opening_bet_large() -> None:
    hand = limped_flop(NL_100_200, 3)
    hand.act(hand.engine.to_act(), "cbr 900")
    assert hand.view(hand.engine.to_act()).min_raise_to == 1800


def test_ex_4_minimum_reraise() -> None:
    hand = limped_flop(NL_10_20, 4)  # 80 in the pot
    hand.act(hand.engine.to_act(), "cbr 50")
    hand.act(hand.engine.to_act(), "cbr 180")
    assert hand.view(hand.engine.to_act()).min_raise_to == 310


def test_ex_5_pot_limit_maximum_reraise() -> None:
    hand = limped_flop(GameConfig(variant=Variant.PLHE, small_blind=10, big_blind=20), 4)
    p1 = hand.engine.to_act()
    hand.act(p1, "cbr 50")
    hand.act(hand.engine.to_act(), "cbr 180")
    assert hand.view(hand.engine.to_act()).max_raise_to == 670
    assert hand.view(p1).max_raise_to == 620  # the catalogue's derived note for the player with 50 in


def test_ex_6_a_short_all_in_is_not_a_raise() -> None:
    hand = Hand(NL_10_20, {1: 5000, 2: 5000, 3: 5000, 4: 5000, 5: 90})
    hand.act(3, "cc")
    hand.act(4, "cbr 60")
    hand.act(5, "cbr 90")  # all-in, 30 over 60: less than the 40 increment
    hand.act(1, "f")
    hand.act(2, "f")
    assert hand.view(3).can_raise  # faces 70, which includes P2's full raise
    hand.act(3, "cc")
    assert not hand.view(4).can_raise


def test_ex_7_big_blind_all_in_for_less_than_the_big_blind() -> None:
    hand = Hand(NL_100_200, {1: 5000, 2: 150, 3: 5000, 4: 5000})
    view = hand.view(3)
    assert (view.to_call, view.min_raise_to) == (200, 400)


def test_ex_20_pot_limit_pot_after_a_short_big_blind_all_in() -> None:
    hand = Hand(GameConfig(variant=Variant.PLHE, small_blind=50, big_blind=100), {1: 5000, 2: 75, 3: 5000})
    assert hand.view(3).max_raise_to == 350


def test_ex_19_underraise_must_be_brought_up_to_the_minimum() -> None:
    hand = limped_flop(NL_100_200, 5)
    a = hand.engine.to_act()
    hand.act(a, "cbr 600")
    b = hand.engine.to_act()
    found = hand.chips(b, {500: 1, 100: 5})  # a raise to 1000, 200 short of 1200 (≥ 50 % of the increment)
    assert hand.bets()[b] == 1200
    assert found and found[0].rule_id == "TDA-30A" and "1200" in found[0].ruling
    declared = limped_flop(NL_100_200, 5)
    declared.act(declared.engine.to_act(), "cbr 600")
    seat = declared.engine.to_act()
    found = declared.say(seat, "raise", 1000)
    assert found[0].rule_id == "TDA-38A" and declared.bets()[seat] == 1200


def test_ex_41_minimum_raise_is_the_last_increment() -> None:
    hand = limped_flop(NL_100_200, 4)
    hand.act(hand.engine.to_act(), "cbr 600")
    hand.act(hand.engine.to_act(), "cbr 1600")
    hand.act(hand.engine.to_act(), "cbr 3600")
    assert hand.view(hand.engine.to_act()).min_raise_to == 5600


def test_ex_42_short_all_in_preflop_keeps_the_increment() -> None:
    hand = Hand(GameConfig(small_blind=50, big_blind=100), {1: 5000, 2: 5000, 3: 150, 4: 5000})
    hand.act(3, "cbr 150")
    assert hand.view(4).min_raise_to == 250


def test_ex_43_minimum_raise_after_a_raise_over_a_short_all_in() -> None:
    hand = Hand(NL_100_200, {1: 5000, 2: 5000, 3: 300, 4: 5000, 5: 5000})
    hand.act(3, "cbr 300")
    hand.chips(4, {500: 2})
    view = hand.view(5)
    assert (view.to_call, view.min_raise_to) == (1000, 1700)


def test_ex_44_minimum_raise_chain_with_75s() -> None:
    hand = Hand(GameConfig(small_blind=25, big_blind=50), dict.fromkeys(range(1, 7), 10_000))
    hand.act(3, "cbr 125")
    hand.act(4, "cbr 200")
    hand.act(5, "cbr 500")
    assert hand.view(6).min_raise_to == 800


def test_ex_45_callers_do_not_change_the_increment() -> None:
    hand = Hand(GameConfig(small_blind=25, big_blind=50), dict.fromkeys(range(1, 7), 10_000))
    hand.act(3, "cbr 500")
    hand.act(4, "cc")
    hand.act(5, "cc")
    view = hand.view(6)
    assert (view.to_call, view.min_raise_to) == (500, 950)


def _ex_62(profile: RuleProfile | None = None) -> Hand:
    config = GameConfig(small_blind=50, big_blind=100)
    hand = Hand(config, {1: 5000, 2: 5000, 3: 5000, 4: 225, 5: 5000, 6: 300, 7: 5000}, button=7, profile=profile)
    for seat in (3, 4, 5, 6, 7, 1, 2):
        hand.act(seat, "cc")
    hand.board("2c", "7d", "9h")
    hand.act(1, "cbr 100")  # A opens the minimum
    hand.act(2, "f")
    hand.act(3, "f")
    hand.act(4, "cbr 125")  # B all-in 125
    hand.act(5, "cc")  # C calls
    hand.act(6, "cbr 200")  # D all-in 200
    hand.act(7, "cc")  # E calls
    return hand


def test_ex_62_short_all_ins_that_add_up_to_a_full_raise_reopen() -> None:
    hand = _ex_62()
    view = hand.view(1)
    assert view.to_call == 100 and view.can_raise


def test_ex_63_facing_only_75_may_not_raise() -> None:
    hand = _ex_62()
    hand.act(1, "cc")
    view = hand.view(5)
    assert view.to_call == 75 and not view.can_raise


def test_ex_64_facing_175_reopens() -> None:
    hand = _ex_62()
    hand.act(1, "cbr 300")
    view = hand.view(5)
    assert view.to_call == 175 and view.can_raise


def test_ex_65_several_short_all_ins_minimum_raise_stays() -> None:
    config = GameConfig(small_blind=50, big_blind=100)
    hand = Hand(config, {1: 5000, 2: 600, 3: 750, 4: 900, 5: 5000, 6: 5000}, button=6)
    for seat in (3, 4, 5, 6, 1, 2):
        hand.act(seat, "cc")
    hand.board("2c", "7d", "9h")
    hand.act(1, "cbr 300")
    hand.act(2, "cbr 500")
    hand.act(3, "cbr 650")
    hand.act(4, "cbr 800")
    hand.act(5, "cc")
    view = hand.view(6)
    assert (view.to_call, view.min_raise_to) == (800, 1100)


def _ex_66() -> Hand:
    config = GameConfig(small_blind=2000, big_blind=4000)
    hand = Hand(config, {1: 100_000, 2: 100_000, 3: 100_000, 4: 100_000, 5: 7500}, button=5)
    hand.act(3, "cc")  # A limps 4000
    hand.act(4, "f")  # B folds
    hand.act(5, "cbr 7500")  # C all-in 7500
    hand.act(1, "f")  # the small blind folds
    return hand


def test_ex_66_short_all_in_over_a_limp_bb_may_raise_a_may_not() -> None:
    hand = _ex_66()
    bb = hand.view(2)
    assert bb.can_raise and bb.to_call == 3500 and bb.min_raise_to == 11_500
    hand.act(2, "cc")
    a = hand.view(3)
    assert a.to_call == 3500 and not a.can_raise
    found = hand.chips(3, {5000: 3})  # A tries to raise: ruled a call (TDA-34)
    last = hand.engine.hand.actions[-1]
    assert found[0].rule_id == "TDA-34" and (last.seat, last.kind) == (3, "cc")


def test_ex_67_bb_minimum_raise_reopens_for_a() -> None:
    hand = _ex_66()
    hand.act(2, "cbr 11500")
    a = hand.view(3)
    assert a.to_call == 7500 and a.can_raise


def test_ex_74_out_of_turn_raise_binding_if_the_action_does_not_change() -> None:
    config = GameConfig(small_blind=50, big_blind=100)
    hand = Hand(config, dict.fromkeys(range(1, 8), 10_000), button=7)
    for seat in (3, 4, 5, 6, 7, 1, 2):
        hand.act(seat, "cc")
    hand.board("2c", "7d", "9h")
    hand.act(1, "cc")
    hand.act(2, "cc")
    hand.act(3, "cbr 300")
    hand.act(4, "f")
    found = hand.say(6, "raise", 800)
    assert found[0].rule_id == "TDA-39" and hand.engine.to_act() == 5
    hand.act(5, "cc")
    assert hand.bets()[6] == 800  # seat 5 only called: seat 6's raise to 800 is binding
    changed = Hand(config, dict.fromkeys(range(1, 8), 10_000), button=7)
    for seat in (3, 4, 5, 6, 7, 1, 2):
        changed.act(seat, "cc")
    changed.board("2c", "7d", "9h")
    for seat, action in ((1, "cc"), (2, "cc"), (3, "cbr 300"), (4, "f")):
        changed.act(seat, action)
    changed.say(6, "raise", 800)
    found = changed.act(5, "cbr 600")
    assert changed.engine.to_act() == 6 and changed.bets()[6] == 0
    assert any(v.title == "Out-of-turn action released" for v in found)
    view = changed.view(6)
    assert (view.to_call, view.min_raise_to) == (600, 900)


def test_ex_75_out_of_turn_check() -> None:
    config = GameConfig(small_blind=50, big_blind=100)
    hand = Hand(config, dict.fromkeys(range(1, 8), 10_000), button=7)
    for seat in (3, 4, 5, 6, 7, 1, 2):
        hand.act(seat, "cc")
    hand.board("2c", "7d", "9h")
    for seat in (1, 2, 3, 4):
        hand.act(seat, "cc")
    assert hand.tap(6)[0].rule_id == "TDA-39"
    hand.act(5, "cc")
    assert hand.engine.to_act() == 7  # seat 6's check stood
    other = Hand(config, dict.fromkeys(range(1, 8), 10_000), button=7)
    for seat in (3, 4, 5, 6, 7, 1, 2):
        other.act(seat, "cc")
    other.board("2c", "7d", "9h")
    for seat in (1, 2, 3, 4):
        other.act(seat, "cc")
    other.tap(6)
    other.act(5, "cbr 300")
    view = other.view(6)
    assert other.engine.to_act() == 6 and (view.to_call, view.min_raise_to) == (300, 600)


def test_tda_39_out_of_turn_fold_is_final() -> None:
    hand = Hand(NL_100_200, dict.fromkeys(range(1, 6), 10_000))
    hand.act(5, "f")  # seat 3 is first to act
    assert hand.engine.to_act() == 3
    hand.act(3, "cbr 600")
    hand.act(4, "cc")
    assert hand.engine.hand.actions[-1].seat == 5 and hand.engine.hand.actions[-1].kind == "f"


def test_ex_69_undercall_in_the_engine_is_completed() -> None:
    hand = limped_flop(GameConfig(small_blind=1000, big_blind=2000), 4)
    hand.act(hand.engine.to_act(), "cbr 8000")
    b = hand.engine.to_act()
    found = hand.chips(b, {1000: 2})
    assert found[0].rule_id == "TDA-37" and hand.bets()[b] == 8000


def test_ex_73_pot_limit_over_pot_is_reduced() -> None:
    config = GameConfig(variant=Variant.PLO, small_blind=500, big_blind=1000)
    hand = Hand(config, {1: 100_000, 2: 100_000, 3: 100_000})
    for seat in (3, 1, 2):
        hand.act(seat, "cc")
    hand.board("2c", "7d", "9h")
    first = hand.engine.to_act()
    found = hand.say(first, "bet", 11_500)
    assert found[0].rule_id == "TDA-38B" and hand.bets()[first] == hand.view(hand.engine.to_act()).cur == 3000


def test_ex_87_heads_up_blinds_and_order() -> None:
    hand = Hand(NL_100_200, {1: 10_000, 2: 10_000}, button=2)
    assert hand.bets() == {2: 100, 1: 200} and hand.engine.to_act() == 2
    hand.act(2, "cc")
    hand.act(1, "cc")
    hand.board("2c", "7d", "9h")
    assert hand.engine.to_act() == 1


def test_ex_88_everyone_folds_to_the_big_blind() -> None:
    hand = Hand(NL_100_200, dict.fromkeys(range(1, 5), 10_000))
    for seat in (3, 4, 1):
        hand.act(seat, "f")
    done = hand.end()
    assert done.final_stacks[2] == 10_100 and done.final_stacks[1] == 9_900


def test_ex_98_straddle_acts_last_preflop() -> None:
    config = GameConfig(small_blind=100, big_blind=200, straddle=400)
    hand = Hand(config, dict.fromkeys(range(1, 6), 10_000))
    assert hand.bets()[3] == 400 and hand.engine.to_act() == 4
    assert hand.view(4).min_raise_to == 800  # ENG-43: the straddle is a new blind of 2 x BB
    for seat in (4, 5, 1, 2):
        hand.act(seat, "cc")
    assert hand.engine.to_act() == 3 and hand.view(3).can_raise


def test_ex_100_limit_raise_cap() -> None:
    config = GameConfig(variant=Variant.FLHE, small_blind=50, big_blind=100, small_bet=100, big_bet=200)
    hand = Hand(config, dict.fromkeys(range(1, 5), 10_000))
    hand.act(3, "cbr 200")
    hand.act(4, "cbr 300")
    hand.act(1, "cbr 400")
    assert not hand.view(2).can_raise  # the big blind's bet + three raises: capped
    heads_up = Hand(config, {1: 10_000, 2: 10_000}, profile=RuleProfile(limit_raise_cap="house"))
    for seat, to in ((2, 200), (1, 300), (2, 400)):
        heads_up.act(seat, f"cbr {to}")
    assert heads_up.view(1).can_raise  # house: unlimited raises heads-up


def test_tda_34b_limit_all_in_of_half_a_bet_reopens() -> None:
    config = GameConfig(variant=Variant.FLHE, small_blind=50, big_blind=100, small_bet=100, big_bet=200)
    hand = Hand(config, {1: 10_000, 2: 10_000, 3: 10_000, 4: 160}, button=4)
    hand.act(3, "cc")
    hand.act(4, "cbr 160")  # all-in 60 over 100: at least half a bet
    hand.act(1, "f")
    hand.act(2, "cc")
    view = hand.view(3)
    assert view.can_raise and view.min_raise_to == 260


def test_ex_104_facing_a_bet_a_tap_is_not_a_check() -> None:
    hand = limped_flop(GameConfig(small_blind=500, big_blind=1000), 3, stack=47_970)
    first = hand.engine.to_act()
    view = hand.view(first)
    assert (view.min_raise_to, view.max_raise_to) == (1000, 46_970)
    hand.act(first, "cbr 1000")
    nxt = hand.engine.to_act()
    found = hand.tap(nxt)
    assert found[0].rule_id == "TDA22-3" and found[0].severity == Severity.ADVISORY and hand.engine.to_act() == nxt


def test_ex_85_main_pot_and_side_pot() -> None:
    cards = {1: "AsAh", 2: "KsKh", 3: "QsQh"}
    hand = Hand(NL_100_200, {1: 1200, 2: 5200, 3: 5200}, cards=cards, button=3)
    for seat in (3, 1, 2):
        hand.act(seat, "cc")
    hand.board("2c", "7d", "9h")
    for seat in (1, 2, 3):
        hand.act(seat, "cc")
    hand.board("Jc")
    hand.act(1, "cbr 1000")  # "you" all-in for 1000
    hand.act(2, "cc")
    hand.act(3, "cc")
    hand.board("3d")
    hand.act(2, "cbr 2000")
    hand.act(3, "cc")
    for seat in (2, 3, 1):
        hand.feed(CardsTabled, seat=seat, cards=(cards[seat][:2], cards[seat][2:]))
    done = hand.end()
    pots = sorted((p.amount, p.winners) for p in done.pushes)
    assert pots == [(3600, (1,)), (4000, (2,))]  # main 3 x 1200, side 2 x 2000


def test_appendix_c_opening_all_in_below_the_big_blind_does_not_reopen() -> None:
    hand = Hand(NL_100_200, {1: 10_000, 2: 10_000, 3: 10_000, 4: 350}, button=4)
    for seat in (3, 4, 1, 2):
        hand.act(seat, "cc")
    hand.board("2c", "7d", "9h")
    for seat in (1, 2, 3):
        hand.act(seat, "cc")
    hand.act(4, "cbr 150")  # all-in for 150 in a 100-200 game: less than a full bet
    view = hand.view(1)
    assert (view.to_call, view.can_raise) == (150, False)  # seat 1 checked; no reopening (TDA-34)
    assert hand.engine.hand.state.can_complete_bet_or_raise_to(350)  # pokerkit would allow it (Appendix C)


def test_tda_33b_pulling_back_chips_facing_a_bet_then_folding_is_a_call() -> None:
    from tablewatch.events import Chips, ChipsPulledBack

    hand = Hand(NL_100_200, dict.fromkeys(range(1, 5), 10_000))
    hand.act(3, "cbr 600")
    hand.act(4, "f")
    hand.act(1, "f")
    hand.feed(ChipsPulledBack, seat=2, chips=Chips.of({100: 2}))
    found = hand.act(2, "f")
    assert found[0].rule_id == "TDA-33B" and hand.engine.hand.actions[-1].kind == "cc"


def test_tda_44_fold_when_not_facing_a_bet_is_binding() -> None:
    hand = limped_flop(NL_100_200, 3)
    first = hand.engine.to_act()
    found = hand.act(first, "f")
    assert found[0].rule_id == "TDA-44" and found[0].severity == Severity.ADVISORY
    assert hand.engine.hand.actions[-1].kind == "f"


def test_ex_18_acting_before_the_amount_is_stated_is_logged() -> None:
    hand = limped_flop(NL_100_200, 4)
    a = hand.engine.to_act()
    hand.say(a, "raise")  # no amount yet: the chips will say
    b = hand.engine.hand.order[(hand.engine.hand.order.index(a) + 1) % 4]
    found = hand.act(b, "f")
    assert found[0].rule_id == "TDA-36B" and found[0].severity == Severity.ADVISORY
    hand.chips(a, {500: 1, 100: 1})
    assert hand.engine.hand.actions[-2:][0].seat == a and hand.engine.hand.actions[-1].seat == b  # b's fold stands


def test_ex_89_tie_splits_the_pot_and_tda_12_odd_chip_goes_left_of_the_button() -> None:
    config = GameConfig(small_blind=25, big_blind=50, chip_denominations=(25, 100, 500))
    cards = {1: "2c3d", 2: "4c5d", 3: "6h7h"}
    hand = Hand(config, dict.fromkeys((1, 2, 3), 5000), cards=cards, button=3)
    hand.act(3, "cc")
    hand.act(1, "f")
    hand.act(2, "cc")
    hand.board("As", "Ks", "Qs")
    hand.act(2, "cc")
    hand.act(3, "cc")
    hand.board("Js")
    hand.act(2, "cc")
    hand.act(3, "cc")
    hand.board("Ts")  # a royal flush on the board: seats 2 and 3 tie
    hand.act(2, "cc")
    hand.act(3, "cc")
    for seat in (2, 3):
        hand.feed(CardsTabled, seat=seat, cards=(cards[seat][:2], cards[seat][2:]))
    done = hand.end()
    # pot 125 = five 25 chips: two each, the odd chip to seat 2 (first left of the button)
    assert done.winnings == {1: -25, 2: 25, 3: 0}


def test_tda_27a_a_word_just_after_the_chips_is_compared_not_out_of_turn() -> None:
    hand = Hand(NL_100_200, dict.fromkeys(range(1, 5), 10_000))
    hand.chips(3, {1000: 1})  # one oversized chip: a call of 200
    assert hand.engine.hand.actions[-1].kind == "cc"
    hand.ts += 0.5  # "raise!" half a second later: the chips came first
    found = hand.say(3, "raise")
    assert [v.rule_id for v in found] == ["TDA-27A"] and found[0].severity == Severity.ADVISORY
    hand.act(4, "cc")
    agree = hand.say(4, "call")  # a word that agrees with the chips: nothing to say
    assert agree == []


def _ex_76_77(turn_actions: tuple[tuple[int, str], ...]) -> list[object]:
    config = GameConfig(small_blind=50, big_blind=100)
    hand = Hand(config, dict.fromkeys(range(1, 7), 10_000), button=2)
    for seat in (5, 6, 1, 2, 3, 4):
        hand.act(seat, "cc")
    hand.board("2c", "7d", "9h")
    for seat in (3, 4, 5, 6, 1, 2):
        hand.act(seat, "cc")
    hand.board("Jc")
    hand.act(3, "cbr 600")  # UTG bets 600; seat 4 is thinking
    found: list[object] = []
    for seat, action in turn_actions:
        found += hand.act(seat, action)
    return found


def test_ex_76_out_of_turn_then_substantial_action_floor_is_called() -> None:
    found = _ex_76_77(((5, "cc"), (6, "f")))  # seat 5 calls out of turn, seat 6 folds out of turn
    titles = [(v.rule_id, v.title) for v in found]  # type: ignore[attr-defined]
    assert titles.count(("TDA-39", "Action out of turn")) == 2
    assert ("TDA-39", "Skipped player silent through substantial action") in titles


def test_ex_77_out_of_turn_check_then_call_floor_is_called() -> None:
    config = GameConfig(small_blind=50, big_blind=100)
    hand = Hand(config, dict.fromkeys(range(1, 7), 10_000), button=2)
    for seat in (5, 6, 1, 2, 3, 4):
        hand.act(seat, "cc")
    hand.board("2c", "7d", "9h")
    for seat in (3, 4, 5, 6, 1, 2):
        hand.act(seat, "cc")
    hand.board("Jc")
    hand.act(3, "cbr 600")
    found = hand.say(5, "check")  # out of turn, and a check while facing 600
    assert {v.rule_id for v in found} == {"TDA-39", "TDA-41"}
    found = hand.act(6, "cc")  # seat 6 calls 600 out of turn: seat 4 is still silent
    assert any(v.title == "Skipped player silent through substantial action" for v in found)
    assert hand.engine.to_act() == 4


def test_ex_21_i_bet_five_in_the_engine() -> None:
    config = GameConfig(small_blind=200, big_blind=400)
    small = limped_flop(config, 3)  # 1200 in the pot
    seat = small.engine.to_act()
    found = small.say(seat, "bet", 5)
    assert found[0].rule_id == "TDA-43" and small.bets()[seat] == 500
    big = Hand(config, dict.fromkeys(range(1, 4), 50_000))
    big.act(3, "cbr 2000")
    big.act(1, "cc")
    big.act(2, "cc")  # 6000 in the pot
    big.board("2c", "7d", "9h")
    found = big.say(1, "bet", 5)
    assert found[0].rule_id == "TDA-43" and big.bets()[1] == 5000


def test_eng_03_dead_button_on_an_empty_seat() -> None:
    # seat 2 left; the button stays dead on it; seat 3 posts the small blind, seat 4 the big blind
    hand = Hand(NL_100_200, {1: 10_000, 3: 10_000, 4: 10_000}, button=2)
    assert hand.engine.hand.order == (3, 4, 1) and hand.bets() == {3: 100, 4: 200, 1: 0}
    assert hand.engine.to_act() == 1
    dead_small = Hand(NL_100_200, {1: 10_000, 3: 10_000, 4: 10_000}, button=2, blinds=((4, 200),))
    assert dead_small.bets() == {3: 0, 4: 200, 1: 0} and dead_small.engine.to_act() == 1


def test_ex_72_pot_limit_pot_counted_too_low_is_made_up() -> None:
    config = GameConfig(variant=Variant.PLO, small_blind=500, big_blind=1000)
    hand = Hand(config, {1: 100_000, 2: 100_000, 3: 100_000, 4: 100_000}, button=4)
    for seat in (3, 4, 1, 2):
        hand.act(seat, "cc")  # 4000 in the pot
    hand.board("2c", "7d", "9h")
    first = hand.engine.to_act()
    assert hand.view(first).max_raise_to == 4000
    hand.say(first, "pot")
    found = hand.chips(first, {1000: 3})  # the dealer said 3000
    assert [v.rule_id for v in found] == ["TDA-38B"] and "1000 more" in found[0].ruling
    assert hand.bets()[first] == 4000


def test_c13_house_rule_short_all_ins_do_not_add_up() -> None:
    hand = _ex_62(RuleProfile(short_allin_reopens="house_full_raise"))
    view = hand.view(1)
    assert view.to_call == 100 and not view.can_raise  # HOUSE-004-allin: no single all-in was a full raise


def test_ex_100_the_cap_is_pokerkits_too_and_the_house_lifts_it_heads_up() -> None:
    """pokerkit caps a limit street at 4 bets and raises without counting the big blind (5 bets preflop);
    the engine gives it the TDA cap (the blind is the bet), and none at all under the house rule (C8)."""
    config = GameConfig(variant=Variant.FLHE, small_blind=50, big_blind=100, small_bet=100, big_bet=200)
    hand = Hand(config, dict.fromkeys(range(1, 5), 10_000))
    for seat, to in ((3, 200), (4, 300), (1, 400)):
        hand.act(seat, f"cbr {to}")
    assert hand.engine.hand.state.min_completion_betting_or_raising_to_amount is None  # pokerkit: capped as well
    heads_up = Hand(config, {1: 10_000, 2: 10_000}, profile=RuleProfile(limit_raise_cap="house"))
    for seat, to in ((2, 200), (1, 300), (2, 400), (1, 500), (2, 600)):
        assert heads_up.view(seat).can_raise
        heads_up.act(seat, f"cbr {to}")
    assert [(a.kind, a.amount) for a in heads_up.engine.hand.actions][-1] == ("cbr", 600)
    assert heads_up.bets() == {1: 500, 2: 600} and not heads_up.engine.hand.notes


def test_a_raise_cap_of_five_is_booked_in_pokerkit() -> None:
    config = GameConfig(variant=Variant.FLHE, small_blind=50, big_blind=100, small_bet=100, big_bet=200,
                        raise_cap=5)
    hand = Hand(config, dict.fromkeys(range(1, 5), 10_000))
    for seat, to in ((3, 200), (4, 300), (1, 400), (2, 500)):
        hand.act(seat, f"cbr {to}")
    assert hand.bets() == {1: 400, 2: 500, 3: 200, 4: 300} and not hand.view(3).can_raise
